// Package shell owns shell hooks: the `hooks:` block of config.yaml, the tool
// matcher, command splitting, the subprocess wire protocol and process handling. Consent
// and merging answers across hooks belong to other packages: shell only runs one
// hook and says what it answered.
//
// # Model
//
// ParseHooks turns the `hooks:` YAML node into validated *Hook values, in config order, plus
// one Warning per problem; it never fails (a bad entry is skipped or repaired with a warning).
// A Hook holds its event, optional matcher, the command string as written (what consent
// keys on), its argv (split by SplitCommand, `~` expanded whether quoted or not), a timeout
// and fail_closed.
//
// Hook.Matches says whether a tool name selects the hook: the matcher regex (RE2 syntax) must
// match the whole name, an invalid regex is compared literally, no matcher matches everything.
//
// Hook.Run fires the hook once and returns a Result; it never returns a Go error: spawn failures,
// timeouts, non-zero exits and malformed output are a Status plus an Err text for the log.
//
// # Protocol
//
// The hook's argv is executed directly, without a shell, with the environment inherited and the
// host's working directory. Each start resolves the command string with internal/command's
// Resolve, the function consent uses for its script checks: the file executed (a path taken
// against the working directory, or a bare name found on $PATH) is the file consent examined,
// and a script handed to an interpreter is the path consent fingerprinted. The hook's stdin receives
// one JSON document (BuildPayload) and is then closed:
//
//	{"hook_event_name": "pre_tool_call", "tool_name": "terminal", "tool_input": {...},
//	 "session_id": "...", "cwd": "/path", "extra": {...every other kwarg...}}
//
// Its stdout may hold one JSON object. ParseOutput decodes it (Result.Parsed, shown to users as
// the raw answer) and normalises it into the value a Lua callback would return for the same
// event (Result.Value), so the engine merges Lua and shell answers with one set of rules: a
// pre_tool_call block ({"action":"block","message":...} or {"decision":"block","reason":...}),
// pre_llm_call context, the replacement string of the transform events, or the action object of
// pre_gateway_dispatch. Empty output, {}, non-objects and unknown shapes have no effect. A
// non-zero exit is reported but its stdout still counts; on pre_tool_call exit code 2 blocks even
// without JSON (message from stdout's block, else stderr, else DefaultBlockMessage). With
// fail_closed (pre_tool_call only) a spawn error, timeout or unparseable stdout becomes a block
// that names the hook and the cause. stderr only goes to the debug log.
//
// # HTTP hooks
//
// An entry with `type: http` (httpconfig.go, http.go) has a URL instead of a command (Command
// holds the URL, which consent keys on), headers whose $VAR references are filled only from
// allowed_env_vars, and allow_private_network. Run POSTs the same payload and reads a 2xx
// answer's body as stdout would be read (in the hook's dialect); a non-2xx answer (redirects
// are not followed), a body that is not a JSON object or is over the cap, a refused address
// and a timeout are hook errors, blocks under fail_closed. The request goes through
// internal/netguard, which checks the address actually dialled; RunOptions.AllowedURLs (the
// managed policy) lets named URLs reach private addresses.
//
// # Processes
//
// Each run gets its own process group; on timeout (Hook.Timeout) or when the caller's context is
// done the whole group is killed with SIGKILL, and Run returns within about a second even if a
// grandchild escaped the group and keeps the output pipes open. When the hook exits, what is
// left of its group (background jobs) is killed too: nothing outlives the run except a
// descendant that left the group (setsid), which Run cannot reach. stdout and stderr are captured up
// to RunOptions.MaxOutput bytes each (1 MiB by default) and drained beyond it; truncated stdout
// is treated as malformed. Process groups need a Unix system; elsewhere only the hook's own
// process is killed.
//
// # Persistent hooks
//
// With `persistent: true` the command is started once, on the hook's first firing, and answers
// one JSON line on stdout per JSON line of payload on its stdin (persistent.go): no fork/exec per
// firing. Each payload line carries a request_id the answer echoes; a process out of step (an
// extra line, another id, a line that is not JSON) is killed and the firing is a hook error
// (a block under fail_closed).
// Firings of one process are serialised; `instances: N` gives the hook up to N processes
// (pool.go), a firing taking a free one. A process that exited is restarted on the next
// firing with a warning; a timeout or cancellation kills its process group and the next firing
// starts a new one. After three firings in a row with no answer, firings fail at once (a block
// under fail_closed) for a rest, then one firing tries a new process. Hook.Close stops the
// processes (the engine closes hooks on Close and Reload).
//
// # Thread safety
//
// A Hook is immutable after ParseHooks apart from the processes of a persistent hook, which Run
// starts and Close stops under the hook's own lock, and the HTTP client of a type: http hook,
// built on its first firing and kept (an atomic pointer) so that firings reuse connections; Run only uses per-call state otherwise, so
// one Hook may be run from many goroutines at once. Hooks for one firing are meant to be run one
// after another, in config order, by the caller.
package shell

// Package luabind runs Lua handlers for the hook engine. It is the only package that
// imports the interpreter (internal/lua, our fork of gopher-lua) and gopher-luar's fork;
// everything else sees Go values and *Error, and no type of the interpreter appears in its
// API (tests/deps TestNoVMTypeInPublicAPI).
//
// # Layout
//
// This package is the core: loading and compiling (script.go, load errors in errors.go and
// hints.go), the pool of states (pool.go), plugins and handlers (plugin.go, handler.go),
// the sandbox each state is (sandbox.go), the conversions from Go to Lua (convert.go) and
// the refilled kwargs tables (reuse.go). The rest is under internal/, in layers that import
// only the layers below them (tests/deps TestLuabindLayers):
//
//   - internal/lua: the interpreter, a fork of gopher-lua (PATCHES.md lists every change);
//   - internal/limits: the call context the interpreter polls, the heap watchdog, size
//     checks, polling and memory charges of library functions;
//   - internal/stdlib: our string library and patterns, ipairs, loadstring and load, the
//     JSON encoder and decoder, and the reading of Lua values as Go;
//   - internal/modules: the contract of the libraries require returns (module per hook,
//     instance per state, exports), and one package per module under it: json, re, time,
//     log, http, io, exec, store, hermes. Modules never import one another nor the core;
//     the core's fixed table (modules.go) makes each for the hook, gated by permissions;
//   - internal/hostpath: the host's paths as permissions name them (core, io, exec);
//   - internal/kwflow: the bytecode analysis that says when a kwargs table may be refilled.
//
// # Model
//
// A handler file is compiled once (LoadPlugin, LoadHandler) into bytecode. Each loaded
// handler owns a small pool of Lua states built from that bytecode; no state is shared
// between handlers, so no global leaks from one hook to another.
//
// A plugin's register(ctx) runs in every state of its pool; ctx.register_hook(name, fn)
// records the callbacks. A gateway handler must define a global function handle.
//
// # States, globals and thread safety
//
// A gopher-lua state is not goroutine-safe. Calls into one state are serialised: a call
// takes an idle state from the pool, runs, and gives it back. Options.States (default 1)
// bounds the calls running Lua at once. With the default, a handler behaves like one Lua
// program: globals set at load time (counters, caches) are shared by every call, and
// concurrent calls running Lua wait for each other. With States > 1, concurrent calls run in
// parallel on separate states, and each state has its own copy of the globals (a counter
// counts per state). Plugin, Handler and all their methods are safe for concurrent use. A
// state's pool slot is taken with a compare-and-swap, preferring the slot the processor used
// last, so calls on different cores touch different memory.
//
// A call waiting in store, http, exec, time.sleep or a host function runs no Lua and does
// not hold the line: while fewer than States calls are running Lua, a call that finds every
// state busy takes an extra state, idle or built for it (the chunk and the setup, register
// for a plugin, run in it: its globals are its own), up to Options.MaxStates (default
// States: no extra state; the engine gives plugins 4 x States, and at least 64 to a plugin
// that registers a wrap hook). Extra states stay for reuse
// until the handler is closed; calls look at the first States states first. The time a call
// waits for a state is reported apart from its run (Plugin.CallTimed, Timing).
//
// A wrap callback (Plugin.CallWrap, wrap.go) gets a second argument, next, a Lua function
// calling the host's Next. Waiting in next is such a wait: the state counts as waiting on
// I/O, so the plugin's other calls take an extra state meanwhile, up to MaxStates; and it is
// not the callback's time: the state's timeout is stopped while next runs (limits.Guard's
// Pause), and Timing.Run leaves it out. Next gets the call's context, which the host's
// cancellation and Plugin.Interrupt end. A next kept beyond its call refuses to run.
//
// # Kwargs tables
//
// A plugin callback's one argument (a map or a Table), and a gateway handler's second one,
// becomes a Lua table. Building one is most of a short callback's cost, so each state keeps
// the table it passed a function last time and refills it, writing only changed values,
// when the function's bytecode shows it cannot tell (internal/kwflow): it only reads the
// table (fields looked up, compared, tested; values read from it may go anywhere), and no
// closure can reach it, whether a closure captured it before or after it held the table.
// Table-valued fields such as args are refilled too unless the function lets them escape,
// and one such a function never looks up (a conversation_history it does not read) is not
// converted at all: its key holds an empty table the function cannot see.
// A refilled table always holds every key of the call, exactly as a new one would, and a
// table a function may keep is never refilled: when the analysis cannot prove the function
// blind to the reuse, the tables are new for every call, and for a plugin callback
// Registration.FreshKwargs says why (reuse.go).
//
// # Limits
//
// Every call runs under a context with the handler's timeout (Options.Timeout, default 5s):
// the interpreter polls it every 1024 instructions and before every call of a Go function
// (internal/lua/vm.go), so `while true do end` and a long run of straight-line code are
// interrupted, and time.sleep, http, exec and host functions receive it. A call fails
// alone, with a KindLimit error naming the limit, when it passes one of these:
//
//   - call depth: 200 Lua frames; coroutines resumed inside one another: 128 deep;
//   - value stack (registry): 2^18 slots, so unpack or string.byte cannot push millions;
//   - strings: every library function that builds a string (`..`, string.rep, gsub and
//     format, table.concat, json.encode, re.gsub, file reads) checks its size, at most 64
//     MiB, before building it, and the string, table, json and re functions that loop poll
//     the call's context, so a pathological pattern stops at the timeout; http bodies 1
//     MiB; exec output is cut at 1 MiB per stream; a call may hold 64 files open;
//   - memory: the state may hold Options.MemoryLimit (default 256 MiB), counted where the
//     interpreter allocates (below);
//   - logs: 1,000 records and 1 MiB of messages and fields per call through log.*, ctx.log
//     and print; later records are dropped and counted, and one warning, logged when the
//     call ends, says "log budget exceeded: N records dropped"; a message longer than 16
//     KiB is cut and says how many bytes were cut.
//
// Source text, the handler file and every chunk loadstring or load compiles at call time, is
// at most 4 MiB, and the parser refuses it when it nests more than 200 levels deep
// (brackets, blocks, each elseif, and operators and suffixes as the syntax tree nests them:
// `not not ...`, `a..b..c...`, `1+1+...`, `a.b.c...`, `f()()...`) with a KindSyntax error
// (KindLimit for the size) naming the file and line, as C Lua refuses more than 200 "syntax
// levels": the compiler recurses over the tree, and a 1,000,000-deep table constructor would
// overflow the Go stack. loadstring and load return nil and the message, and charge what
// parsing and compiling take to the state's memory as the parser reads.
//
// Memory is counted per state, where the interpreter allocates (internal/lua/memory.go):
// every table and each growth of its array or hash part, every string `..`, tostring and the
// string library build, every closure, coroutine, userdata, and the growth of a thread's
// stacks is charged to the state's account before it is allocated, and so are what
// loadstring and load compile (estimated from the source's tokens and functions, before the
// compiler runs) and the strings http, exec, io and json hand to Lua (internal/limits/memory.go). An integer
// key far past the end of a table's array goes to its hash part, as in C Lua, so
// `t[67108863] = 1` costs a few bytes. Go frees nothing explicitly, so the charges include
// garbage: when they pass the limit, the state measures what it really holds (what its
// globals, registry, module tables, callbacks and the stacks of its coroutines reach) and
// counts again from that; only if what it holds plus the new allocation is over the limit
// does the allocation fail, with a KindLimit error `limit exceeded: memory: ...` raised
// where it was asked for. A state measured near its limit is measured again only after
// another quarter of the limit has been charged, so it may pass its limit by that much in
// between. The call fails even if the hook caught the error with pcall, and its state is
// rebuilt for the next call (chunk and register run again, so a plugin's globals restart):
// its globals may hold what it allocated. The account lives as long as the state, so what a
// hook keeps between calls (a global that grows a little on every call) counts too. Each
// hook's count is its own: a hook under its limit never fails because another allocated.
// The limits cover loading too.
//
// The process heap is watched as a backstop: one watchdog goroutine per process reads
// runtime/metrics (heap objects and GC goal, ~250ns) every 5ms while any call is in flight,
// and when the heap has grown by more than a call's budget while it ran, asks its state to
// measure what it holds at its next allocation; the state decides. What the heap gains
// while a call waits in sleep, http, exec or a host function is the host's and is forgiven.
// The same goroutine times calls out, from the first sample that sees a call: a call is
// never stopped before its timeout, and at most 10ms after it; it exits after a second
// without calls. Watching a call is a few stores under the lock of the state's context,
// which the call takes anyway (no allocation, no goroutine, no timer, no clock read per
// call), because a pre_tool_call callback takes well under a µs. No single step can build
// more than 64 MiB: `..`, string.rep, gsub, format, table.concat, json.encode and reads check
// the size of their result before building it. A Go panic in a host function
// is recovered and reported as the call's error. Calls are always protected: no Lua error
// or panic escapes to the caller.
//
// # Environment
//
// Handlers see string, table, math, coroutine, the base functions without dofile/loadfile,
// os.time/clock/date, os.getenv limited to Permissions.Env, an io table limited to
// Permissions.FS, print (into the log), and require for the modules json, log, re, time
// and hermes, plus http and exec when their permission is declared. gopher-lua's own io and
// os libraries are never exposed. Modules are a fixed table whose entries say, from the
// hook's Permissions, whether they exist for that hook: a gated module is absent, and
// require names the permission it needs.
//
// # Permissions
//
// Permissions.FS: io.open(path, mode) (r, w, a, r+, w+, a+, with or without b) returns a
// file with read("a"|"l"|"L"|"n"|count, ...), write(...), lines(...), seek(whence,
// offset), flush and close; io.lines(path), io.close(f) and io.type(v) complete it. A path
// is resolved like the entries (once, at load): "~" expanded, made absolute, cleaned, and
// symbolic links resolved in its longest existing prefix; it must then lie inside an
// entry, and it is opened through an os.Root opened once, at load, for each entry: the
// entry's directory, or, for an entry that is a file or does not exist yet, its nearest
// existing parent directory (internal/modules/io/roots.go). So a symbolic link inside an allowed directory
// that leads outside is refused even if it changes after the check, and an allowed
// directory swapped for a symbolic link after load is not followed: the path now resolves
// outside and is refused, and a swap between the check and the open opens the file in the
// directory that was there at load. Roots are closed with the hook (Close); a call still
// in flight then cannot open files. Only regular files are opened: the open does not block
// (O_NONBLOCK, cleared afterwards), and a FIFO, device, socket or directory raises an error
// naming the path and saying only regular files can be opened. Refusals raise errors
// naming permissions.fs; operating-system failures return nil and a message, as in Lua.
// Files are tracked per call and closed when the call ends (and when the state closes); a
// file kept in a global is closed for the next call. Without the permission io.open exists
// and refuses.
//
// Permissions.Net: require("http") gives request{method, url, headers, body | json,
// timeout}, get(url, opts) and post(url, body, opts) (a table body is sent as JSON). The
// result is {status, headers (lower-case names), body, json (when the answer is JSON)}.
// Only listed hosts are reached ("host", "host:port", "*"; case-insensitive), checked on
// the URL, on every redirect (at most 5) and again when dialling; a proxy from the
// environment is used only if the proxy itself is listed. Timeout: 10s by default; the
// request is also cancelled when the call times out. Each state has its own client.
//
// Permissions.Exec: require("exec").run(argv, {stdin, timeout, cwd}) returns {code, stdout,
// stderr} (and truncated = true when output was cut). No shell. Each entry names one file,
// resolved at load: a bare name ("black") is the program exec.LookPath finds on PATH then,
// a path is that file ("~" expanded, relative paths inside the home); symbolic links are
// resolved. argv[1] is resolved the same way when the call runs and must be the file of an
// entry, under the same base name (a multi-call binary acts on the name it is run under);
// that resolved file is what runs, with argv[1] as its argv[0]. So "black" allows "black"
// and the path PATH gave at load, never another file named black; a name that was not on
// PATH at load is refused saying so. The program runs in its own process group, killed on
// timeout (default 10s), when the call ends, and after it exits (so background children do
// not outlive it); a child holding the pipes cannot delay the call more than a second. It
// gets only PATH, HOME, USER, LOGNAME, LANG, LC_ALL, LC_CTYPE, TMPDIR, TZ and the variables
// Permissions.Env allows.
//
// Permissions.Env: os.getenv answers only for listed names ("*" = all).
//
// # Conversions
//
// Go maps become tables, slices arrays (1-based), Func values callable functions, Object
// values gopher-luar userdata (for facades only). Back from Lua (toGo): integral numbers
// become int64, tables with keys exactly 1..n become []any, other tables map[string]any,
// json.null nil; functions, userdata, threads and cycles are *Error values of KindConvert.
package luabind

---@meta _
--
-- LuaLS (lua-language-server) definitions for hermes hooks.
--
-- Add the folder that holds this file to `workspace.library` (see editor/README.md). It gives
-- completion, hover docs and type checks for:
--   * plugins:       function register(ctx) ... ctx.register_hook("pre_tool_call", function(kw) ... end)
--   * gateway hooks: function handle(event_type, context) ... end
--   * the modules returned by require: json, log, re, time, hermes, store, and the permission-gated
--     http and exec; the io subset that exists with permissions.fs; the os subset.
--
-- Only a definitions file: nothing here runs inside hermes. Types are named hermes.*.
-- The sibling files json.lua, log.lua, ... make `require("json")` return these types.

-------------------------------------------------------------------------------------------
-- Entry points
-------------------------------------------------------------------------------------------

---A plugin's handler.lua defines this global. It runs once per Lua state when the plugin is
---loaded and registers the callbacks with `ctx.register_hook`. Annotate your own definition:
---
---```lua
------@param ctx hermes.PluginContext
---function register(ctx) ... end
---```
---@alias hermes.Register fun(ctx: hermes.PluginContext)

---A gateway hook's handler.lua defines this global: it is called once per matching event.
---The return value is ignored by Emit and collected by EmitCollect / `hermesctl hooks test`.
---Annotate your own definition:
---
---```lua
------@param event_type string
------@param context hermes.GatewayContext
---function handle(event_type, context) ... end
---```
---@alias hermes.Handle fun(event_type: hermes.GatewayEvent|string, context: hermes.GatewayContext): any

-------------------------------------------------------------------------------------------
-- Plugin context
-------------------------------------------------------------------------------------------

---Every plugin hook name. A name outside this list is kept with a warning, for
---hosts that fire hooks of their own.
---@alias hermes.HookName
---| "pre_tool_call"             # before every tool runs; may block, modify, approve it or ask a person
---| "post_tool_call"            # after a tool returns (observer)
---| "transform_tool_result"     # may replace the tool result the model sees
---| "transform_terminal_output" # may replace the terminal tool's raw output
---| "pre_llm_call"              # once per turn; may inject context or block the prompt
---| "post_llm_call"             # once per successful turn (observer)
---| "transform_llm_output"      # may replace the final response
---| "pre_api_request"           # before each model API call; may rewrite the request or answer it
---| "post_api_request"          # after each model API call (observer)
---| "on_session_start"          # first turn of a new session (observer)
---| "on_session_end"            # end of every turn (observer)
---| "on_session_finalize"       # a session is destroyed (observer)
---| "on_session_reset"          # the gateway swapped in a new session key (observer)
---| "subagent_stop"             # a delegated child finished (observer)
---| "pre_gateway_dispatch"      # each inbound message; may skip, rewrite or allow it
---| "pre_approval_request"      # before a dangerous command asks the user; may answer it (allow/deny)
---| "post_approval_response"    # after the user answered (observer)
---| "pre_verify"                # the agent is about to stop; may keep it going with a reason
---| "post_tool_failure"         # a tool call failed (observer)
---| "pre_compact"               # before the history is summarised; may add instructions
---| "post_compact"              # after the history was summarised (observer)
---| "on_notification"           # the agent wants the user's attention (observer)
---| "wrap_tool_call"            # around each tool call: fn(kw, next); next(args) runs the tool
---| "wrap_llm_call"             # around each model call: fn(kw, next); next(request) calls the model

---The `ctx` argument of `register(ctx)`.
---@class hermes.PluginContext
---@field name string The plugin's name (plugin.yaml `name`, else the directory name).
---@field home string The hermes home directory.
---@field config table<string, any>? plugin.yaml `config` as a Lua table; nil without `config:` (use `ctx.config or {}`).
---@field log hermes.log Logger tagged with the plugin name (same functions as `require("log")`).
local PluginContext = {}

---Registers `fn` for the hook `name`. Call it from `register(ctx)`, any number of times; the
---callbacks of one plugin run in registration order. `fn` receives ONE table of keyword
---arguments; ignore keys you do not know (later versions may add some).
---@overload fun(name: "pre_tool_call", fn: fun(kw: hermes.PreToolCallArgs): hermes.PreToolCallResult?)
---@overload fun(name: "post_tool_call", fn: fun(kw: hermes.PostToolCallArgs))
---@overload fun(name: "transform_tool_result", fn: fun(kw: hermes.TransformToolResultArgs): string?)
---@overload fun(name: "transform_terminal_output", fn: fun(kw: hermes.TransformTerminalOutputArgs): string?)
---@overload fun(name: "pre_llm_call", fn: fun(kw: hermes.PreLLMCallArgs): hermes.PreLLMCallResult?)
---@overload fun(name: "post_llm_call", fn: fun(kw: hermes.PostLLMCallArgs))
---@overload fun(name: "transform_llm_output", fn: fun(kw: hermes.TransformLLMOutputArgs): string?)
---@overload fun(name: "pre_api_request", fn: fun(kw: hermes.APIRequestArgs): hermes.APIRequestResult?)
---@overload fun(name: "post_api_request", fn: fun(kw: hermes.APIRequestArgs))
---@overload fun(name: "on_session_start", fn: fun(kw: hermes.OnSessionStartArgs))
---@overload fun(name: "on_session_end", fn: fun(kw: hermes.OnSessionEndArgs))
---@overload fun(name: "on_session_finalize", fn: fun(kw: hermes.OnSessionFinalizeArgs))
---@overload fun(name: "on_session_reset", fn: fun(kw: hermes.OnSessionResetArgs))
---@overload fun(name: "subagent_stop", fn: fun(kw: hermes.SubagentStopArgs))
---@overload fun(name: "pre_gateway_dispatch", fn: fun(kw: hermes.PreGatewayDispatchArgs): hermes.DispatchResult?)
---@overload fun(name: "pre_approval_request", fn: fun(kw: hermes.PreApprovalRequestArgs): hermes.ApprovalResult?)
---@overload fun(name: "post_approval_response", fn: fun(kw: hermes.PostApprovalResponseArgs))
---@overload fun(name: "pre_verify", fn: fun(kw: hermes.PreVerifyArgs): hermes.VerifyResult?)
---@overload fun(name: "post_tool_failure", fn: fun(kw: hermes.PostToolFailureArgs))
---@overload fun(name: "pre_compact", fn: fun(kw: hermes.PreCompactArgs): hermes.PreCompactResult?)
---@overload fun(name: "post_compact", fn: fun(kw: hermes.PostCompactArgs))
---@overload fun(name: "on_notification", fn: fun(kw: hermes.OnNotificationArgs))
---@overload fun(name: "wrap_tool_call", fn: fun(kw: hermes.WrapToolCallArgs, next: fun(args: table<string, any>?): string): (string|hermes.WrapToolAnswer)?)
---@overload fun(name: "wrap_llm_call", fn: fun(kw: hermes.WrapLLMCallArgs, next: fun(request: hermes.LLMRequest?): hermes.LLMResponse): (string|hermes.LLMResponse|hermes.WrapError)?)
---@param name hermes.HookName|string
---@param fn fun(kw: table<string, any>): any
function PluginContext.register_hook(name, fn) end

-------------------------------------------------------------------------------------------
-- Keyword-argument tables of the plugin hooks
-------------------------------------------------------------------------------------------

---pre_tool_call: before every tool runs.
---@class hermes.PreToolCallArgs
---@field tool_name string The tool about to run, e.g. "terminal", "write_file", "web_search".
---@field args table<string, any> The arguments the model gave the tool (e.g. `args.command` for terminal).
---@field task_id string Task identifier ("" when unset).
---@field session_id string Session identifier ("" when unset).
---@field tool_call_id string The model's id for this call ("" when unset).

---What a pre_tool_call callback decides; return nil to let the call run. block > ask >
---approve > modify when several callbacks decide; modifications chain in priority order.
---@class hermes.PreToolCallResult
---@field action "block"|"modify"|"approve"|"ask"
---@field message? string block: shown to the model as the tool's error; ask: the question for a person.
---@field args? table<string, any> modify (required), approve and ask: the arguments the tool runs with.

---post_tool_call: after a tool returns. Observer: the return value is ignored.
---@class hermes.PostToolCallArgs: hermes.PreToolCallArgs
---@field result string The tool's result as the model would see it (usually JSON text).
---@field duration_ms integer How long the tool ran, in milliseconds.

---transform_tool_result: after post_tool_call, before the model sees the result. Return a
---string to replace `result` (the first string wins, even ""); nil keeps it.
---@class hermes.TransformToolResultArgs: hermes.PostToolCallArgs

---transform_terminal_output: inside the terminal tool, before truncation, ANSI stripping and
---redaction. Return a string to replace `output` (the first string wins, even ""); nil keeps it.
---@class hermes.TransformTerminalOutputArgs
---@field command string The command line that ran.
---@field output string Its raw output.
---@field exit_code integer Its exit code.
---@field cwd string The directory it ran in ("" when the host does not know).
---@field task_id string Task identifier.

---One stored message of a conversation, as the reference gateway passes them.
---@class hermes.Message
---@field role "user"|"assistant"|string
---@field content string

---pre_llm_call: once per turn, before the tool loop. Return `{context = "..."}` or a non-blank
---string to append it to this turn's user message (never stored in the history); the answers of
---every callback are joined with a blank line.
---@class hermes.PreLLMCallArgs
---@field session_id string
---@field user_message string The user's message (after any pre_gateway_dispatch rewrite).
---@field conversation_history hermes.Message[] Earlier messages, as the host stores them (an empty table on the first turn).
---@field is_first_turn boolean True on the first turn of a session.
---@field model string Model identifier.
---@field platform string "cli", "telegram", "discord", ...
---@field sender_id string The user who sent the message.

---What pre_llm_call may return: a table with a non-empty string `context`, or a non-blank
---string. Anything else contributes nothing.
---Blocks the submitted prompt: it is not sent to the model; the user gets `message` instead
---of a model turn. A block decides over every context.
---@class hermes.PromptBlock
---@field action "block"
---@field message string? Shown to the user (a default message when missing).

---@alias hermes.PreLLMCallResult {context: string}|string|hermes.PromptBlock

---post_llm_call: once per successful turn. Observer.
---@class hermes.PostLLMCallArgs
---@field session_id string
---@field user_message string
---@field assistant_response string The response delivered (after transform_llm_output).
---@field conversation_history hermes.Message[] The history before this turn.
---@field model string
---@field platform string

---transform_llm_output: after the tool loop, before delivery. Return a non-empty string to
---replace the response (the first one wins); nil or "" keeps it.
---@class hermes.TransformLLMOutputArgs
---@field response_text string The model's final response.
---@field session_id string
---@field model string
---@field platform string

---pre_api_request / post_api_request: around each model API call, when the host fires them.
---pre_api_request may answer (hermes.APIRequestResult); post_api_request is an observer.
---@class hermes.APIRequestArgs
---@field session_id string
---@field model string
---@field platform string
---@field api_call_count integer Number of the API call within the turn.
---@field request hermes.LLMRequest? The whole request (pre_api_request, through engine.RunLLM).
---@field [string] any Other keys the host passes.

---The whole request to the model, as it leaves. Messages and tools are in the host's API shape.
---@class hermes.LLMRequest
---@field model string
---@field system string The system prompt.
---@field messages table<string, any>[] The conversation, oldest first: {role=..., content=..., ...}.
---@field tools table<string, any>[] The tools offered: {name=..., description=..., parameters=...}.
---@field params table<string, any> The model's parameters (temperature, max_tokens, ...).

---The model's answer to one request.
---@class hermes.LLMResponse
---@field model string?
---@field content string? The text of the answer.
---@field tool_calls table<string, any>[]? The tools it calls: {id=..., name=..., args={...}}.
---@field stop_reason string?
---@field usage table<string, any>?

---What a pre_api_request callback answers; nil changes nothing.
---`{action="modify", request={...}}` replaces the request's fields it gives (the callbacks after
---it see the new request); `{action="respond", response={...}}` (or a string, the content)
---answers instead of the model, which is not called. The first respond decides.
---@class hermes.APIRequestResult
---@field action "modify"|"respond"
---@field request hermes.LLMRequest? modify: the fields to replace.
---@field response (hermes.LLMResponse|string)? respond: the synthetic answer.

---wrap_tool_call: around each tool call that pre_tool_call let run, outermost first.
---`next(args)` runs the rest of the chain and the tool (with `args`, re-checked by the
---pre_tool_call guards when they differ; nil: unchanged) and returns its result, or raises its
---error (catch it with pcall). Call it zero times (answer from a cache), once, or more (a retry).
---Return a string (the result), {result=...}, {error=...}, or nothing after calling next.
---@class hermes.WrapToolCallArgs: hermes.PreToolCallArgs

---What a wrap_tool_call callback may return instead of a string.
---@class hermes.WrapToolAnswer
---@field result string? The result the model sees.
---@field error string? The call fails with this error.

---What a wrap_llm_call callback may return to fail the call.
---@class hermes.WrapError
---@field error string The call fails with this error.

---wrap_llm_call: around each request to the model that pre_api_request did not answer.
---`next(request)` sends `request` (the fields given replace the request's; nil: unchanged) and
---returns the response, or raises the model's error. Return a response (or a string, its
---content), {error=...}, or nothing after calling next.
---@class hermes.WrapLLMCallArgs: hermes.APIRequestArgs

---on_session_start: first turn of a new session. Observer.
---@class hermes.OnSessionStartArgs
---@field session_id string
---@field model string
---@field platform string

---on_session_end: end of every turn, successful or not. Observer.
---@class hermes.OnSessionEndArgs
---@field session_id string
---@field completed boolean True when the agent produced a final response.
---@field interrupted boolean True when the turn was interrupted (new message, /stop, exit).
---@field model string
---@field platform string

---on_session_finalize: a session is destroyed (/new, /reset, shutdown, GC). Observer.
---@class hermes.OnSessionFinalizeArgs
---@field session_id string? The session going away; nil when there was no live session.
---@field platform string
---@field model string? Present in `hermesctl hooks test` payloads; hosts may omit it.

---on_session_reset: the gateway swapped in a new session key. Observer.
---@class hermes.OnSessionResetArgs
---@field session_id string The NEW session's id.
---@field platform string
---@field model string? Present in `hermesctl hooks test` payloads; hosts may omit it.

---subagent_stop: once per finished child of a delegation, on the parent's thread. Observer.
---@class hermes.SubagentStopArgs
---@field parent_session_id string The delegating (parent) session.
---@field child_role string? The child's role label; nil when roles are not used.
---@field child_summary string? The child's final answer.
---@field child_status "completed"|"failed"|"interrupted"|"error"|string
---@field duration_ms integer Wall time of the child, in milliseconds.

---The inbound message of pre_gateway_dispatch.
---@class hermes.DispatchEvent
---@field text string The message text.
---@field platform string "telegram", "discord", "slack", ...
---@field user_id string
---@field chat_id string
---@field chat_type "dm"|"group"|string
---@field message_id string
---@field internal boolean Always false here: internal events never fire the hook.

---The `gateway` host object of pre_gateway_dispatch. What it offers is up to the host; the
---reference gateway (and `hermesctl replay`) offers send. Call it with a dot:
---`kw.gateway.send(platform, chat_id, text)`.
---@class hermes.GatewayObject
---@field send? fun(platform: string, chat_id: string, text: string): boolean Send a message out of band.
---@field [string] any Other functions the host provides.

---The `session_store` host object of pre_gateway_dispatch. The reference gateway offers
---append_to_transcript.
---@class hermes.SessionStoreObject
---@field append_to_transcript? fun(session_id: string, text: string): boolean Ingest text silently.
---@field [string] any Other functions the host provides.

---pre_gateway_dispatch: each inbound (non-internal) message, before auth and dispatch.
---@class hermes.PreGatewayDispatchArgs
---@field event hermes.DispatchEvent The message.
---@field gateway hermes.GatewayObject? Host object (nil when the host passes none).
---@field session_store hermes.SessionStoreObject? Host object (nil when the host passes none).

---Drop the message: no agent reply.
---@class hermes.DispatchSkip
---@field action "skip"
---@field reason string? Why, for the logs.

---Replace the message text, then dispatch normally. Without a string `text`, dispatch is normal.
---@class hermes.DispatchRewrite
---@field action "rewrite"
---@field text string The new text.

---Dispatch normally and stop asking the next callbacks.
---@class hermes.DispatchAllow
---@field action "allow"

---What pre_gateway_dispatch may return: the first recognised action wins; nil, other tables
---and unknown actions let the next callback decide.
---@alias hermes.DispatchResult hermes.DispatchSkip|hermes.DispatchRewrite|hermes.DispatchAllow

---pre_approval_request: before a dangerous command asks the user. A callback may answer the
---approval itself (hermes.ApprovalResult); the person is asked only when none does.
---@class hermes.PreApprovalRequestArgs
---@field command string The command awaiting approval.
---@field description string Why it was flagged.
---@field pattern_key string The main pattern that matched, e.g. "rm_rf", "sudo".
---@field pattern_keys string[] Every pattern that matched.
---@field session_key string The session, to scope notifications per chat.
---@field surface "cli"|"gateway"|string Where the prompt is shown.

---post_approval_response: after the user answered (or the prompt timed out). Observer.
---@class hermes.PostApprovalResponseArgs: hermes.PreApprovalRequestArgs
---@field choice "once"|"session"|"always"|"deny"|"timeout"

---Grants the approval (with other arguments when `args` is given); `remember` asks the host
---to record the answer as a rule.
---@class hermes.ApprovalAllow
---@field action "allow"
---@field args table<string, any>?
---@field remember boolean?

---Refuses the approval, saying why; a deny decides over every allow.
---@class hermes.ApprovalDeny
---@field action "deny"
---@field message string?
---@field remember boolean?

---@alias hermes.ApprovalResult hermes.ApprovalAllow|hermes.ApprovalDeny

---pre_verify: the agent (or one of its subagents: kw.subagent) is about to stop, its final
---answer ready. Return {action="continue", reason=...} to keep it going: the reason is its
---next user turn (a subagent's next instruction). At most max_verify_nudges (config.yaml,
---default 3) times per user turn, and per subagent.
---@class hermes.PreVerifyArgs
---@field session_id string For a subagent: the session that started it.
---@field user_message string The turn's user message ("" for a subagent).
---@field response string The final answer the agent (or the subagent) is about to give.
---@field nudges integer How many times hooks kept it going already in this turn (a subagent: in its run).
---@field model string
---@field platform string
---@field subagent hermes.VerifySubagent? The subagent about to stop; nil when it is the agent itself.

---The subagent a pre_verify is about (Claude Code's and Codex's SubagentStop name it so).
---@class hermes.VerifySubagent
---@field agent_id string The subagent's id, the same for each of its stops.
---@field agent_type string What kind of subagent it is (the role it was given).
---@field agent_transcript_path string Its own transcript ("" when the host keeps none).

---@class hermes.VerifyResult
---@field action "continue"
---@field reason string What the agent should do next (its next user turn).

---post_tool_failure: a tool call failed (an error, a timeout, an interruption). Observer;
---post_tool_call fires for it too.
---@class hermes.PostToolFailureArgs: hermes.PreToolCallArgs
---@field error string What went wrong.
---@field interrupted boolean The call was interrupted rather than failing by itself.
---@field duration_ms integer

---pre_compact: the host is about to summarise the history. A string (or {context=...}) adds
---instructions for the summary.
---@class hermes.PreCompactArgs
---@field session_id string
---@field trigger "manual"|"auto"|string
---@field messages table[] The messages to be summarised ({role=..., content=...}).
---@field instructions string The user's own instructions for the summary ("" for none).
---@field platform string

---@alias hermes.PreCompactResult {context: string}|string

---post_compact: the history was summarised. Observer.
---@class hermes.PostCompactArgs
---@field session_id string
---@field trigger "manual"|"auto"|string
---@field summary string The summary that replaced the messages.
---@field platform string

---on_notification: the agent wants the user's attention (waiting for input, a permission
---prompt). Observer.
---@class hermes.OnNotificationArgs
---@field session_id string
---@field message string
---@field title string ("" for none)
---@field notification_type "permission_prompt"|"idle_prompt"|string
---@field platform string

-------------------------------------------------------------------------------------------
-- Gateway event hooks
-------------------------------------------------------------------------------------------

---Gateway event names. Any "command:<name>" is an event too ("command:model", "command:reset").
---Manifests may subscribe to "<prefix>:*".
---@alias hermes.GatewayEvent
---| "gateway:startup" # gateway process started: platforms
---| "session:start"   # new messaging session: platform, user_id, session_id, session_key
---| "session:end"     # a session ends (before a reset): platform, user_id, session_key
---| "session:reset"   # /new or /reset: platform, user_id, session_key
---| "agent:start"     # agent starts a message: platform, user_id, session_id, message
---| "agent:step"      # each tool-calling iteration: platform, user_id, session_id, iteration, tool_names
---| "agent:end"       # agent finished: platform, user_id, session_id, message, response
---| "command:*"       # any slash command: platform, user_id, command, args

---The `context` of `handle(event_type, context)`. Which keys are set depends on the event (see
---hermes.GatewayEvent); the others are nil.
---@class hermes.GatewayContext
---@field platforms string[]? gateway:startup: the connected platforms.
---@field platform string? The platform of the message or session ("telegram", "cli", ...).
---@field user_id string?
---@field session_id string? session:start, agent:*.
---@field session_key string? session:* (e.g. "telegram:c1").
---@field message string? agent:start, agent:end: the user's message.
---@field response string? agent:end: the response delivered.
---@field iteration integer? agent:step: 1 for the first tool-calling step.
---@field tool_names string[]? agent:step: the tools called in this step.
---@field command string? command:*: the command name without "/" (e.g. "model").
---@field args string? command:*: the rest of the command line ("" when none).
---@field [string] any Keys of events the host defines itself.

-------------------------------------------------------------------------------------------
-- Modules (require)
-------------------------------------------------------------------------------------------

---`require("json")`: JSON encoding. Tables with keys exactly 1..n encode as arrays, other
---tables as objects; an empty table encodes as `{}` unless marked with json.array.
---@class hermes.json
---@field null lightuserdata Sentinel for JSON null: `json.decode("null") == json.null`. Encodes as null. Truthy in Lua!
local json = {}

---Encodes a Lua value as compact JSON (no HTML escaping). Errors on functions, userdata other
---than json.null, cycles, NaN and infinities.
---@param value any
---@return string
function json.encode(value) end

---Decodes one JSON value. null becomes json.null; arrays keep a json.array mark so they encode
---back as arrays, even when empty. Errors on invalid JSON or trailing data.
---@param text string
---@return any
function json.decode(text) end

---Marks `t` (or a new table) as a JSON array, so that it encodes as `[]` when empty.
---@generic T: table
---@param t? T
---@return T
function json.array(t) end

---`require("log")` (also `ctx.log`): structured logs into the host's logger, tagged with the
---hook name and the Lua line.
---@class hermes.log
local log = {}

---@param msg any Message (converted with tostring).
---@param fields? table<string, any> Extra key/value attributes.
function log.debug(msg, fields) end

---@param msg any Message (converted with tostring).
---@param fields? table<string, any> Extra key/value attributes.
function log.info(msg, fields) end

---@param msg any Message (converted with tostring).
---@param fields? table<string, any> Extra key/value attributes.
function log.warn(msg, fields) end

---@param msg any Message (converted with tostring).
---@param fields? table<string, any> Extra key/value attributes.
function log.error(msg, fields) end

---`require("re")`: Go regular expressions (RE2 syntax, e.g. `sk-[A-Za-z0-9]{32,}`), which Lua
---patterns cannot express. Compiled patterns are cached. No backreferences or lookaround.
---@class hermes.re
local re = {}

---True when `pattern` matches anywhere in `s` (anchor with ^ and $ for the whole string).
---@param s string
---@param pattern string
---@return boolean
function re.match(s, pattern) end

---The first match and its capture groups, or nil: `local whole, user, host = re.find(s, "(\\w+)@(\\w+)")`.
---@param s string
---@param pattern string
---@return string? match
---@return string ... # the capture groups
function re.find(s, pattern) end

---Every match (at most `n` when given), as an array of strings.
---@param s string
---@param pattern string
---@param n? integer
---@return string[]
function re.find_all(s, pattern, n) end

---Replaces every match. `repl` is a string with `$1` / `${name}` references, or a function
---called with the match and its captures that returns the replacement (a string or number;
---anything else keeps the match). Returns the new string and the number of replacements.
---@param s string
---@param pattern string
---@param repl string|fun(match: string, ...: string): (string|number|nil)
---@return string result
---@return integer count
function re.gsub(s, pattern, repl) end

---`s` with every regular-expression metacharacter escaped.
---@param s string
---@return string
function re.quote(s) end

---`require("time")`.
---@class hermes.time
local time = {}

---Seconds since the Unix epoch, with fractions.
---@return number
function time.now() end

---Sleeps; stops early with an error when the call's timeout or the host's context ends.
---@param seconds number
function time.sleep(seconds) end

---`require("store")`: state that outlives a call, in this hook's own namespace: shared by
---every Lua state of the hook, kept across reloads and restarts, and by every process on the
---home (or, with `store: {url: "redis://..."}` in config.yaml, every machine). Values are
---JSON values. Every call honours the hook's timeout; a backend that is down is an error.
---@class hermes.store
local store = {}

---The value at key, or nil.
---@param key string
---@return any
function store.get(key) end

---Stores value at key (nil deletes it); with ttl_seconds > 0 it expires after that long.
---@param key string
---@param value any
---@param ttl_seconds? number
function store.set(key, value, ttl_seconds) end

---Adds n (default 1, an integer) to the integer at key, atomically, and returns the sum. A
---missing key counts from 0 and, with ttl_seconds, expires after that long; an existing key
---keeps its expiry.
---@param key string
---@param n? integer
---@param ttl_seconds? number
---@return integer
function store.incr(key, n, ttl_seconds) end

---Deletes key; true when it was there.
---@param key string
---@return boolean
function store.delete(key) end

---The keys starting with prefix (default: all), sorted.
---@param prefix? string
---@return string[]
function store.keys(prefix) end

---Atomic read-modify-write: calls fn with the value at key (nil when there is none) and stores
---what it returns (nil deletes the key). When another writer changed the key meanwhile, fn
---runs again with the new value, so it must not have other side effects. Returns what was
---stored. An error raised by fn writes nothing.
---@param key string
---@param fn fun(old: any): any
---@return any
function store.update(key, fn) end

---`require("hermes")`: facts about the engine and functions the host provides.
---@class hermes.hermes
---@field home string The hermes home directory.
---@field version string The engine version, e.g. "0.1.0".
---@field name string The name of the hook or plugin running this code.
---@field [string] fun(...): any Functions the host adds (Options.HostFuncs).
local hermes = {}

---Host function of the reference gateway (`hermesctl replay` / `demo`) and of hosts that offer
---it: runs a one-shot prompt through the agent and returns its answer. Absent when the host
---does not provide it: check `if hermes.run_agent then ... end`.
---@param prompt string
---@return string
function hermes.run_agent(prompt) end

---Options of http.request.
---@class hermes.http.RequestOptions
---@field method? string "GET" (default), "POST", "PUT", "DELETE", ...
---@field url string http:// or https:// URL whose host is listed in permissions.net.
---@field headers? table<string, string>
---@field body? string Request body (use either body or json).
---@field json? any Encoded as the JSON body, with Content-Type: application/json.
---@field timeout? number Seconds (default 10); the hook's own timeout also applies.

---Options of http.get and http.post.
---@class hermes.http.Options
---@field headers? table<string, string>
---@field timeout? number Seconds (default 10); the hook's own timeout also applies.

---A response. Non-2xx statuses are responses too, not errors.
---@class hermes.http.Response
---@field status integer HTTP status code.
---@field headers table<string, string> Response headers, names in lower case.
---@field body string Response body (at most 1 MiB).
---@field json any? The body decoded as JSON when it is JSON, else nil.

---`require("http")`: exists only for hooks that declare `permissions.net`. Requests may only
---go to the listed hosts (a "host:port" entry limits the port), redirects (at most 5) only to
---listed hosts; a response over 1 MiB is an error. Refused hosts, timeouts and network failures
---raise errors: wrap calls in pcall when the hook should carry on.
---@class hermes.http
local http = {}

---@param opts hermes.http.RequestOptions
---@return hermes.http.Response
function http.request(opts) end

---@param url string
---@param opts? hermes.http.Options
---@return hermes.http.Response
function http.get(url, opts) end

---POSTs `body`: a string is sent as is; a table is sent as JSON.
---@param url string
---@param body string|table
---@param opts? hermes.http.Options
---@return hermes.http.Response
function http.post(url, body, opts) end

---Options of exec.run.
---@class hermes.exec.Options
---@field stdin? string Written to the program's standard input.
---@field timeout? number Seconds (default 10); the hook's own timeout also applies.
---@field cwd? string Working directory (`~` is expanded).

---The outcome of exec.run. A non-zero exit is a result, not an error.
---@class hermes.exec.Result
---@field code integer Exit code.
---@field stdout string Captured standard output (at most 1 MiB).
---@field stderr string Captured standard error (at most 1 MiB).
---@field truncated true? Set when stdout or stderr was cut at 1 MiB.

---`require("exec")`: exists only for hooks that declare `permissions.exec`. Runs a program from
---that list directly, without a shell, in its own process group (killed on timeout), with an
---environment of PATH, HOME, USER, LOGNAME, LANG, LC_ALL, LC_CTYPE, TMPDIR, TZ and the names in
---permissions.env.
---@class hermes.exec
local exec = {}

---Runs `argv[1]` with the arguments `argv[2..]`: `exec.run({"black", "-q", path})`.
---@param argv string[]
---@param opts? hermes.exec.Options
---@return hermes.exec.Result
function exec.run(argv, opts) end

-------------------------------------------------------------------------------------------
-- Standard library subsets
-------------------------------------------------------------------------------------------

---A file opened by io.open (permissions.fs). Files are closed when the call that opened them
---returns: open, use and close a file within one callback.
---@class hermes.file
local file = {}

---Reads according to each format: "l" (a line without its newline, the default), "L" (a line
---with it), "a" (the rest of the file), "n" (a number), with or without a leading "*", or a
---byte count. At end of file a format yields nil ("a" yields ""). At most 16 MiB per read.
---@param ... "l"|"L"|"a"|"n"|"*l"|"*L"|"*a"|"*n"|integer
---@return string|number|nil ...
function file:read(...) end

---Writes strings or numbers; returns the file, for chaining (nil and a message on failure).
---@param ... string|number
---@return hermes.file?
---@return string? err
function file:write(...) end

---Iterates over the file with the given formats (default "l"); leaves the file open.
---@param ... "l"|"L"|"a"|"n"|integer
---@return fun(): string?
function file:lines(...) end

---@param whence? "set"|"cur"|"end"
---@param offset? integer
---@return integer? position
---@return string? err
function file:seek(whence, offset) end

---@return hermes.file
function file:flush() end

---@return boolean? ok
---@return string? err
function file:close() end

---The `io` table: only io.open, io.lines, io.close and io.type. Paths must be under an entry of
---`permissions.fs` once `~`, `..` and symbolic links are resolved; a path outside raises an
---error, and without the permission io.open and io.lines raise an error that names
---permissions.fs. At most 64 files open per call.
---@class hermes.io
io = {}

---Opens a file under one of the paths in permissions.fs. An operating-system failure (no such
---file, ...) returns nil and a message, as in standard Lua.
---@param path string
---@param mode? "r"|"w"|"a"|"r+"|"w+"|"a+"|"rb"|"wb"|"ab"
---@return hermes.file? file
---@return string? err
function io.open(path, mode) end

---Iterates over a file under one of the paths in permissions.fs (default format "l"), closing it
---at the end.
---@param path string
---@param ... "l"|"L"|"a"|"n"|integer
---@return fun(): string?
function io.lines(path, ...) end

---@param f hermes.file
---@return boolean? ok
---@return string? err
function io.close(f) end

---"file", "closed file", or nil when `v` is not a file.
---@param v any
---@return "file"|"closed file"|nil
function io.type(v) end

---The `os` table: only time, clock, date and a filtered getenv.
---@class hermes.os
os = {}

---@param t? table
---@return integer
function os.time(t) end

---CPU time used, in seconds.
---@return number
function os.clock() end

---@param format? string
---@param t? integer
---@return string|table
function os.date(format, t) end

---The value of an environment variable, but only for names listed in permissions.env ("*"
---allows all); nil otherwise, and nil when unset.
---@param name string
---@return string?
function os.getenv(name) end

---Logs its arguments, tab-separated, at info level (there is no stdout).
---@param ... any
function print(...) end

// Package engine loads the plugin hooks and shell hooks of a hermes home and fires them at
// an agent's lifecycle points. It is the embedding API of a CLI agent; a chat gateway
// embeds package gateway, which runs an Engine beside its gateway event hooks. The types
// of the calls (hook names, kwargs, results, statuses) are package hookspec's.
//
// # Model
//
// New reads <home>/config.yaml, loads every plugin under <home>/plugins/ (plugin.yaml +
// handler.lua, run by package luabind) and every approved shell hook of config.yaml (run
// by package shell, approved through package consent), and builds one immutable hook set:
// for each hook name, the callbacks in invocation order. Lua plugin callbacks come first
// (plugin priority, higher first; then directory name; then registration order), then
// shell hooks in config order.
//
// The one invoker runs every callback of a hook sequentially, in that order, reads each
// answer with hookspec.Normalise (one set of shapes for Lua and shell hooks) and computes
// one hookspec.Decision with hookspec.Merge; the outcome, the metrics and the audit log
// derive from it. The typed calls return it in their own types: DecideTool (block > ask >
// approve > modify, rewrites re-checked by every guard before them) and RunTool, which also
// runs the tool with the arguments the hooks left; DecideTurn (a block, or contexts joined
// by a blank line); the transforms (first replacement); PreGatewayDispatch (first
// recognised action). Fire fires any hook, a host's own included, and returns the full
// Report.
//
// Middleware (wrap.go): RunTool runs the tool inside the wrap_tool_call chain, and RunLLM
// runs a model request through pre_api_request (which may rewrite or answer it) and the
// wrap_llm_call chain. A wrap callback gets (kw, next) and stands around the call, outermost
// first; arguments it passes to next are decided again by pre_tool_call; the time it waits
// in next is not its own, and holds no Lua state against other calls.
//
// A hook's ask is an approval: the approval hooks may answer it; else Options.Approve asks a
// person, now or later (ErrAnswerLater, then Answer), in the chat of the call (WithOrigin).
//
// The same directory loader reads plugins and, for package gateway, gateway hooks
// (Engine.LoadGatewayHooks, whose types internal/gatewayhook declares): each directory's
// files are read once, a directory whose files did not change keeps what runs, and one that
// fails to load keeps its running version.
//
// # The managed layer and the network
//
// Before the home, every load reads the managed home (Options.ManagedHome, else
// $HERMES_MANAGED_HOME, else /etc/hermes; managed.go): its shell hooks are registered first
// (before the home's plugins and shell hooks), need no consent, and cannot be disabled from
// the home; its policy: may refuse the home's hooks (managed_hooks_only, allowed_commands,
// allowed_http_urls), each refusal being one warning and ShellHookInfo.Refused. A managed
// config.yaml that exists but cannot be read, or whose policy: has a mistake, fails the load
// (New returns the error; Reload keeps the set that runs): no guard or limit is dropped
// silently.
//
// Shell hooks of type: http POST their payload through internal/netguard. The webhooks: of
// both layers start a webhook.Dispatcher per hook set (webhooks.go): each hook event an
// endpoint wants gets a last callback that queues the payload and returns at once, and the
// gateway's Emit does the same for gateway events. Close
// sends what is queued until its context is done; Options.DisableWebhooks sends nothing.
//
// # Failures
//
// A hook that errors, panics or times out is logged with its name and file:line, reported
// in its HookResult, and skipped; the others still run. No call returns a hook's failure as
// a Go error or panics. A plugin with fail_closed: true that fails on pre_tool_call blocks
// the call. Broken plugins and shell-hook entries are skipped at load with one Warning each.
//
// # Concurrency and lifecycle
//
// An Engine is safe for concurrent use. Reload builds a new hook set from the home and
// swaps it in atomically: calls in flight finish on the old set, which is closed when its
// last call returns; when the home fails to load (or vanished, or was replaced while it
// was read) the old set stays. Close works like http.Server.Shutdown: it stops accepting
// at once, waits for the calls in flight until its context is done, then interrupts them;
// a closed engine blocks every tool call.
//
// When no hook is registered for a name, the typed calls return at once without
// allocating.
//
// # Tracing
//
// With Options.TracerProvider, each call that runs hooks is an OpenTelemetry span ("fire
// <event>") under the span in the call's context, with a child span per hook ("hook
// <name>") and per store call; a failing hook's span has status Error, a block is an
// attribute and an event, never an error. The engine never touches the global provider;
// without one it traces nothing and the hot path is unchanged.
package engine

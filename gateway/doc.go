// Package gateway is what a chat gateway embeds: an engine (the plugin and shell hooks of a
// home) and the gateway event hooks of the same home (<home>/hooks/<name>/HOOK.yaml +
// handler.lua), loaded, reloaded, watched and closed together; and Turn, which runs the
// hooks of one user turn in the documented order.
//
// # Turns
//
// StartTurn fires pre_gateway_dispatch, the session start, agent:start and pre_llm_call;
// the Turn then runs the tool calls (RunTool, with the turn's chat, so that a hook's ask is
// put to that chat and Answer reads the reply from a later message) and its model requests
// (RunLLM: pre_api_request and the wrap_llm_call chain), agent:step, pre_verify,
// and at Finish the output transform, post_llm_call, agent:end and on_session_end. Close
// refuses new turns and waits for those in flight before it closes the hooks. With the
// engine's TracerProvider a turn makes its own spans: invoke_agent for the turn, chat
// <model> for each model call and execute_tool <tool> for each tool call inside it.
//
// # Event hooks
//
// New loads every directory under the managed home's hooks (first: they cannot be disabled
// or replaced by the user's home) and then under <home>/hooks, in alphabetical order; a broken one is
// skipped with one warning naming the file and line, and never stops the others. A hook
// subscribes to events such as "agent:step" or to a whole prefix with "<prefix>:*";
// exact subscribers run before wildcard ones and a hook subscribed both ways runs once.
//
// Emit never blocks the caller: each hook has its own worker goroutine and bounded queue,
// so events reach a hook in the order they were emitted and a slow hook delays only
// itself. A full queue drops the event for that hook, counts it (Dropped) and logs a
// rate-limited warning. Close stops accepting events and drains the queues up to its
// context's deadline, then interrupts what still runs. EmitSync runs the
// handlers now and waits, for tools and tests.
//
// Handler errors, Lua errors, panics in host functions and timeouts are caught, logged
// with the hook name, file and line, and reported in the hookspec.Result; none reaches the
// caller of Emit.
//
// # Tracing
//
// The gateway traces with the engine's TracerProvider (engine.Options.TracerProvider; nil:
// nothing). A handler called by EmitSync is a span under the caller's; one handling an event
// queued by Emit runs later, in a trace of its own linked to the span of that call.
//
// The reference gateway that drives whole conversations, and replay, are in package
// gateway/runner.
package gateway

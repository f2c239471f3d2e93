// Package gateway runs gateway event hooks (<home>/hooks/<name>/HOOK.yaml + handler.lua).
//
// # Event hooks
//
// New loads every directory under <home>/hooks in alphabetical order; a broken one is
// skipped with one warning naming the file and line, and never stops the others. A hook
// subscribes to events such as "agent:step" or to a whole prefix with "<prefix>:*";
// exact subscribers run before wildcard ones and a hook subscribed both ways runs once.
//
// Emit never blocks the caller: each hook has its own worker goroutine and bounded queue,
// so events reach a hook in the order they were emitted and a slow hook delays only
// itself. A full queue drops the event for that hook, counts it (Dropped) and logs a
// rate-limited warning. Close stops accepting events and drains the queues up to its
// context's deadline, then interrupts what still runs. EmitSync and EmitCollect run the
// handlers now and wait, for tools and tests.
//
// Handler errors, Lua errors, panics in host functions and timeouts are caught, logged
// with the hook name, file and line, and reported in the HookResult; none reaches the
// caller of Emit.
//
// # Tracing
//
// The gateway traces with the engine's TracerProvider (engine.Options.TracerProvider; nil:
// nothing). A handler called by EmitSync is a span under the caller's; one handling an event
// queued by EmitContext runs later, in a trace of its own linked to the span of that call.
//
// The reference gateway that drives whole conversations, and replay, are in package
// gateway/runner.
package gateway

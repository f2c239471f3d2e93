// Package hookspec is the vocabulary every other package of hermes shares: the names of the
// plugin hooks and gateway events, the typed arguments of each (ToolCall, LLMTurn, Session,
// AgentStepEvent, ...) with the one conversion to the map hooks receive, how a hook's call
// ended (Status, Result), where a hook came from (sources), a problem found while loading
// (Warning), what a hook may touch (Permissions), what a gateway hook's directory holds
// (GatewayHookInfo), and the one set of rules that turns hook answers into a decision:
// Normalise reads one hook's answer (a Lua return value or a shell hook's parsed stdout) in
// any accepted shape, Problem says what is wrong with one that does nothing, and Merge
// combines the answers of every hook of one call into a Decision.
// SampleKwargs and SampleContext are the sample arguments of `hermesctl hooks test`.
//
// It imports nothing of hermes and nothing outside the standard library, so that luabind,
// shell, consent, engine and gateway can all use it without depending on each other. Its
// values are plain data: safe to share between goroutines once built.
package hookspec

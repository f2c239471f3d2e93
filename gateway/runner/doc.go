// Package runner is the reference gateway described in the docs, a user of gateway.Turn,
// and replay.
//
// A Runner drives conversations through an engine's plugin and shell hooks and a gateway's
// event hooks, in the documented order: for each inbound message it fires
// pre_gateway_dispatch, the session and agent events, pre_llm_call, the tool-call hooks,
// pre_verify and the output transforms, asking an Agent for the model's steps, and records
// every firing in a Timeline. Its methods are safe for concurrent use; each call handles
// one inbound event.
//
// Replay parses a JSON-lines transcript (ParseTranscript: messages, the model's steps with
// their tool calls and results, commands, approvals, ...) and plays it against a new engine
// and gateway, with a TranscriptAgent answering from the transcript. hermesctl replay and
// demo are built on it.
//
// With the engine's TracerProvider, the runner adds spans for each message, command,
// approval and subagent; its turns are gateway.Turns, which make the spans of the turn
// (invoke_agent, from pre_gateway_dispatch on), its model calls (chat) and tool calls
// (execute_tool), with the hooks' spans inside them.
package runner

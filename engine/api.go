package engine

import "context"

// PreToolCall fires pre_tool_call and returns the block that vetoes the call, or nil to let
// it run. Every callback runs, even after a block; the first valid block wins.
func (e *Engine) PreToolCall(ctx context.Context, call ToolCall) *Block {
	if !e.HasHooks(PreToolCall) {
		return nil
	}
	return e.invoke(ctx, PreToolCall, &toolArgs{call: call}, false).Block()
}

// PostToolCall fires post_tool_call (an observer) with call.Result and call.DurationMS.
func (e *Engine) PostToolCall(ctx context.Context, call ToolCall) {
	if e.HasHooks(PostToolCall) {
		e.invoke(ctx, PostToolCall, mapArgs(call.kwargs(true)), false)
	}
}

// TransformToolResult fires transform_tool_result and returns the result the model should
// see: the first string a hook returned (even ""), else call.Result unchanged.
func (e *Engine) TransformToolResult(ctx context.Context, call ToolCall) string {
	if !e.HasHooks(TransformToolResult) {
		return call.Result
	}
	if s, ok := e.invoke(ctx, TransformToolResult, mapArgs(call.kwargs(true)), false).Text(); ok {
		return s
	}
	return call.Result
}

// TransformTerminalOutput fires transform_terminal_output and returns the output to keep:
// the first string a hook returned (even ""), else out.Output unchanged.
func (e *Engine) TransformTerminalOutput(ctx context.Context, out TerminalOutput) string {
	if !e.HasHooks(TransformTerminalOutput) {
		return out.Output
	}
	kw := map[string]any{"command": out.Command, "output": out.Output, "exit_code": out.ExitCode, "cwd": out.Cwd, "task_id": out.TaskID}
	if s, ok := e.invoke(ctx, TransformTerminalOutput, mapArgs(kw), false).Text(); ok {
		return s
	}
	return out.Output
}

// PreLLMCall fires pre_llm_call and returns the context to append to the user message for
// this turn only ("" if none). Do not store it in the conversation history.
func (e *Engine) PreLLMCall(ctx context.Context, turn LLMTurn) string {
	if !e.HasHooks(PreLLMCall) {
		return ""
	}
	return e.invoke(ctx, PreLLMCall, mapArgs(turn.preKwargs()), false).Context()
}

// PostLLMCall fires post_llm_call (an observer) with turn.AssistantResponse.
func (e *Engine) PostLLMCall(ctx context.Context, turn LLMTurn) {
	if e.HasHooks(PostLLMCall) {
		e.invoke(ctx, PostLLMCall, mapArgs(turn.postKwargs()), false)
	}
}

// TransformLLMOutput fires transform_llm_output and returns the response to deliver: the
// first non-empty string a hook returned, else out.ResponseText unchanged.
func (e *Engine) TransformLLMOutput(ctx context.Context, out LLMOutput) string {
	if !e.HasHooks(TransformLLMOutput) {
		return out.ResponseText
	}
	kw := map[string]any{"response_text": out.ResponseText, "session_id": out.SessionID, "model": out.Model, "platform": out.Platform}
	if s, ok := e.invoke(ctx, TransformLLMOutput, mapArgs(kw), false).Text(); ok {
		return s
	}
	return out.ResponseText
}

// PreGatewayDispatch fires pre_gateway_dispatch for an inbound message and returns what to
// do with it. Internal events never fire the hook and are always allowed.
func (e *Engine) PreGatewayDispatch(ctx context.Context, ev DispatchEvent, host DispatchHost) Dispatch {
	if ev.Internal || !e.HasHooks(PreGatewayDispatch) {
		return Dispatch{Action: DispatchAllow}
	}
	kw := map[string]any{"event": ev.Table(), "gateway": host.Gateway, "session_store": host.SessionStore}
	return e.invoke(ctx, PreGatewayDispatch, mapArgs(kw), false).Dispatch()
}

// Invoke fires any hook with the given keyword arguments and returns every hook's result,
// in order. Use it for observers (on_session_start, subagent_stop, ...) and for hooks a
// host defines itself; results of observers are not merged.
func (e *Engine) Invoke(ctx context.Context, hook string, kwargs map[string]any) []HookResult {
	return e.invoke(ctx, hook, mapArgs(kwargs), false).Hooks
}

// Fire fires hook with kwargs and returns the full report: every hook's result and the
// merged outcome in its wire shape.
func (e *Engine) Fire(ctx context.Context, hook string, kwargs map[string]any) Report {
	rep := e.invoke(ctx, hook, mapArgs(kwargs), true)
	if rep.Hooks == nil {
		rep.Hooks = []HookResult{}
	}
	return rep
}

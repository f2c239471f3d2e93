package runner

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/hookspec"
)

// step asks the agent for the model's next step through the engine's model-request hooks
// (engine.RunLLM): pre_api_request may rewrite the request or answer it (the agent is then
// not asked), wrap_llm_call hooks stand around the call, post_api_request observes it. The
// agent gets the request as the hooks left it (StepRequest.Request); what it answers comes
// back as the response the hooks see. The timeline shows the request as sent when a hook
// rewrote it, and a response no model gave.
// The turn's step limit counts the steps hooks answered in a row without the agent.
func (r *Runner) step(ctx context.Context, t *gateway.Turn, s *session, req StepRequest) (st Step, err error) {
	llm := r.llmRequest(s, req)
	var took map[string]int64 // the duration the agent gave each tool call of its last answer, by id
	run := t.RunLLM(r.traced(ctx, ""), llm, func(ctx context.Context, sent hookspec.LLMRequest) (hookspec.LLMResponse, error) {
		sreq := req
		sreq.Request = sent
		st, err := r.agent.Step(ctx, sreq)
		if err != nil {
			return hookspec.LLMResponse{}, err
		}
		took = map[string]int64{}
		for _, c := range st.ToolCalls {
			took[c.ToolCallID] = c.DurationMS
		}
		return stepResponse(st), nil
	})
	if run.Modified && run.Calls > 0 {
		r.flow("request to the model as sent, after hooks rewrote it: %s", describeRequest(run.Request))
	}
	if run.Synthetic {
		by := "a wrap_llm_call hook"
		if run.Hook != "" {
			by = run.Hook
		}
		r.flow("response from %s, the model was not called: %s", by, describeResponse(run.Response))
	}
	if run.Calls > 1 {
		r.note("the model was called %d times for this step", run.Calls)
	}
	if run.Err != nil {
		return Step{}, run.Err
	}
	st = responseStep(run.Response)
	for i, c := range st.ToolCalls { // a response carries no durations: the agent's stand
		st.ToolCalls[i].DurationMS = took[c.ToolCallID]
	}
	return st, nil
}

// llmRequest is the request for one step: the system prompt and tools of the options, the
// stored history, the user's message (with this turn's injected context after a blank
// line) and the results of the previous step's tool calls.
func (r *Runner) llmRequest(s *session, req StepRequest) hookspec.LLMRequest {
	msgs := make([]hookspec.Message, 0, len(req.History)+1+len(req.ToolResults))
	msgs = append(msgs, req.History...)
	user := req.UserMessage
	if req.Context != "" {
		user += "\n\n" + req.Context
	}
	msgs = append(msgs, hookspec.Message{Role: "user", Content: user})
	for _, t := range req.ToolResults {
		msgs = append(msgs, hookspec.Message{Role: "tool", ToolCallID: t.Call.ToolCallID, Content: t.Result, Extra: map[string]any{"name": t.Call.Name}})
	}
	return hookspec.LLMRequest{SessionID: s.id, Platform: s.platform, APICallCount: req.Iteration + 1,
		Model: r.opts.Model, System: r.opts.System, Messages: msgs, Tools: r.opts.Tools}
}

// stepResponse is the agent's step as the model's response.
func stepResponse(st Step) hookspec.LLMResponse {
	resp := hookspec.LLMResponse{Model: st.Model, Content: st.Response, StopReason: "tool_use"}
	if st.Final {
		resp.StopReason = "end_turn"
	}
	for _, c := range st.ToolCalls {
		resp.ToolCalls = append(resp.ToolCalls, hookspec.ToolCall{Name: c.Name, Args: c.Args, ToolCallID: c.ToolCallID})
	}
	return resp
}

// responseStep is the response as the agent's step: its tool calls, and its content as the
// final answer when it calls no tool (or says it is done).
func responseStep(resp hookspec.LLMResponse) Step {
	st := Step{Model: resp.Model, Response: resp.Content, Final: len(resp.ToolCalls) == 0 || resp.StopReason == "end_turn"}
	for i, c := range resp.ToolCalls {
		if c.ToolCallID == "" {
			c.ToolCallID = fmt.Sprintf("call-%d", i+1)
		}
		st.ToolCalls = append(st.ToolCalls, hookspec.ToolCall{Name: c.Name, Args: c.Args, ToolCallID: c.ToolCallID})
	}
	return st
}

// describeRequest sums a request up for the timeline: the model, the system prompt, and
// every message and tool, shortened.
func describeRequest(req hookspec.LLMRequest) string {
	names := make([]string, len(req.Tools))
	for i, t := range req.Tools {
		names[i], _ = t["name"].(string)
	}
	msgs, _ := json.Marshal(req.Messages)
	return fmt.Sprintf("model %s, system %q, tools %v, messages %s", req.Model, shorten(req.System, 60), names, shorten(string(msgs), 200))
}

// describeResponse sums a response up for the timeline.
func describeResponse(resp hookspec.LLMResponse) string {
	if len(resp.ToolCalls) > 0 {
		calls, _ := json.Marshal(resp.Table()["tool_calls"])
		return fmt.Sprintf("%q, tool calls %s", shorten(resp.Content, 120), shorten(string(calls), 120))
	}
	return fmt.Sprintf("%q", shorten(resp.Content, 120))
}

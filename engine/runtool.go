package engine

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"
)

// ToolRun is what RunTool did with one tool call.
type ToolRun struct {
	Result   string         // what the model should see (pre_tool_call's and post_tool_call's contexts after the tool's result or the block's)
	Block    *Block         // non-nil: a hook vetoed the call (or a person said no) and the tool did not run
	Args     map[string]any // the arguments the tool ran with: the call's, or as hooks modified them (on a block too: what would have run)
	Modified bool           // Args differ from the call's
	Approved bool           // a hook or a person approved the call
	Err      error          // the tool's own error; Result is then {"error": "..."}
	Context  string         // pre_tool_call's context for the model (ToolDecision.Context), already in Result
}

// RunTool runs one tool call through its whole sequence of hooks around run, the host's
// tool: pre_tool_call (DecideTool: a block ends it, with {"error": message} as the result;
// the tool runs with the arguments hooks modified), run inside the wrap_tool_call chain
// (wrap.go: arguments a wrap hook passes to next are decided by pre_tool_call again, and a
// block there ends the call as a block does; Args are then the arguments the tool last ran
// with),
// transform_terminal_output (for the "terminal" tool, whose result is JSON with an "output"
// string), post_tool_call, post_tool_failure when run failed (the context they give is
// appended to the result, after a blank line, after pre_tool_call's context) and
// transform_tool_result. A block's result is its {"error": message} and pre_tool_call's
// context after a blank line. call.DurationMS is measured around run
// when 0. A failure is interrupted (post_tool_failure's interrupted) when ctx is done or run's
// error is context.Canceled: the user interrupted the call. Use WithTrace to see every firing.
func (e *Engine) RunTool(ctx context.Context, call hookspec.ToolCall, run func(context.Context, hookspec.ToolCall) (string, error)) ToolRun {
	d := e.DecideTool(ctx, call)
	if d.Block != nil {
		return ToolRun{Result: withContext(errorResult(d.Block.Message), d.Context), Block: d.Block, Args: d.Args, Modified: d.Modified, Context: d.Context}
	}
	orig := call.Args
	call.Args = d.Args
	start := time.Now()
	var res string
	var err error
	if set := e.with(hooknames.WrapToolCall); set != nil {
		w := runWrap(ctx, e, set, &toolWrap, call, run)
		if b := blockOf(w.err); b != nil { // a guard blocked the arguments a wrap hook passed on
			return ToolRun{Result: withContext(errorResult(b.Message), d.Context), Block: b, Args: w.ran.Args, Context: d.Context}
		}
		res, err = w.out, w.err
		if w.changed && w.runs > 0 && !sameArgs(hookspec.ArgsOrEmpty(w.ran.Args), hookspec.ArgsOrEmpty(d.Args)) {
			call.Args, d.Args = w.ran.Args, w.ran.Args
			d.Modified = !sameArgs(hookspec.ArgsOrEmpty(w.ran.Args), hookspec.ArgsOrEmpty(orig))
		}
	} else {
		res, err = run(ctx, call)
	}
	if err != nil {
		res = errorResult(err.Error())
	}
	if call.DurationMS == 0 {
		call.DurationMS = time.Since(start).Milliseconds()
	}
	if call.Name == "terminal" {
		res = e.terminalResult(ctx, call, res)
	}
	call.Result = res
	feedback, output := e.PostToolResult(ctx, call)
	feedback = joinContext(d.Context, feedback)
	if output != nil { // a hook replaced what the model sees (Claude Code's updatedToolOutput)
		res, call.Result = *output, *output
	}
	if err != nil {
		f := hookspec.ToolFailure{Call: call, Error: err.Error(), Interrupted: ctx.Err() != nil || errors.Is(err, context.Canceled)}
		f.Call.Result = ""
		feedback = joinContext(feedback, e.PostToolFailure(ctx, f))
	}
	if feedback != "" {
		call.Result = res + "\n\n" + feedback
	}
	return ToolRun{Result: e.TransformToolResult(ctx, call), Args: d.Args, Modified: d.Modified, Approved: d.Approved, Err: err, Context: d.Context}
}

// terminalResult applies transform_terminal_output to a terminal result of the form
// {"output": "...", "exit_code": n}; any other result is returned as it is.
func (e *Engine) terminalResult(ctx context.Context, call hookspec.ToolCall, result string) string {
	if e.with(hooknames.TransformTerminalOutput) == nil {
		return result
	}
	var obj map[string]any
	if json.Unmarshal([]byte(result), &obj) != nil {
		return result
	}
	output, ok := obj["output"].(string)
	if !ok {
		return result
	}
	exit, _ := obj["exit_code"].(float64)
	cmd, _ := call.Args["command"].(string)
	cwd := e.workDir()
	out := e.TransformTerminalOutput(ctx, hookspec.TerminalOutput{Command: cmd, Output: output, ExitCode: int(exit), Cwd: cwd, TaskID: call.TaskID})
	if out == output {
		return result
	}
	obj["output"] = out
	b, _ := json.Marshal(obj)
	return string(b)
}

func errorResult(msg string) string {
	b, _ := json.Marshal(map[string]string{"error": msg})
	return string(b)
}

// withContext is result with context after a blank line (result when context is "").
func withContext(result, context string) string {
	if context == "" {
		return result
	}
	return result + "\n\n" + context
}

// joinContext joins two contexts with a blank line, either may be "".
func joinContext(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}

package deps

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strings"
	"testing"
)

// api holds the exported names of the packages an embedder imports, each job with one
// entry point: adding a name (or an alias of another package's type) is a deliberate
// edit of this table, made with the docs and the CHANGES section of docs/embedding.md.
var api = map[string][]string{
	"engine": {
		"ApprovalDecision", "ApprovalRequest", "BundleFeed", "BundleStatus", "AttrApproved", "AttrConversationID", "AttrDecision",
		"AttrDecisionHook", "AttrDecisionReason", "AttrDecisionSource", "AttrDurationMS", "AttrErrorType",
		"AttrEvent", "AttrHookDecision", "AttrHookDialect", "AttrHookError", "AttrHookFailClosed",
		"AttrHookName", "AttrHookReason", "AttrHookSource", "AttrHookStatus", "AttrHooks", "AttrNexts",
		"AttrHooksFailed", "AttrLinkedEmit", "AttrRechecked", "AttrStoreKey", "AttrStoreOp", "AttrTaskID",
		"AttrToolCallID", "AttrToolName", "AttrTurnID", "AttrWaitMS", "Block", "Dispatch",
		"DispatchAction", "DispatchAction.MarshalText", "DispatchAction.String", "DispatchAllow",
		"DispatchHost", "DispatchRewrite", "DispatchSkip", "DryRunRefused", "Engine", "Engine.Answer", "Engine.Bundle", "Engine.Close",
		"Engine.DecideTool", "Engine.DecideTurn", "Engine.Delivered", "Engine.Fire", "Engine.HasHooks", "Engine.Home",
		"Engine.LoadGatewayHooks", "Engine.NotifyWebhooks", "Engine.TestWebhook", "Engine.Tracer",
		"Engine.OnNotification", "Engine.OnSessionEnd", "Engine.OnSessionFinalize",
		"Engine.OnSessionReset", "Engine.OnSessionStart", "Engine.Pending", "Engine.Plugins",
		"Engine.Policy", "Engine.PostAPIRequest", "Engine.PostApprovalResponse", "Engine.PostCompact",
		"Engine.PostLLMCall", "Engine.PostToolCall", "Engine.PostToolFailure", "Engine.PostToolResult",
		"Engine.PreAPIRequest", "Engine.PreApprovalRequest", "Engine.PreCompact",
		"Engine.PreGatewayDispatch", "Engine.PreVerify", "Engine.Reload", "Engine.RunLLM", "Engine.RunTool",
		"Engine.ShellHooks", "Engine.Store", "Engine.SubagentStop", "Engine.TransformLLMOutput",
		"Engine.TransformTerminalOutput", "Engine.TransformToolResult", "Engine.Warnings",
		"Engine.Webhooks", "ErrAnswerLater", "ErrClosed", "ErrNoSuchApproval", "EventBlocked",
		"LLMRun", "LayerManaged", "LayerUser", "Limits", "Metrics", "Metrics.Collect", "Metrics.Drop",
		"Metrics.Observe", "Metrics.WebhookAttemptFailed", "Metrics.WebhookDelivered",
		"Metrics.WebhookDropped", "New", "NewMetrics", "OpenStore", "Options", "Origin", "PluginInfo", "Policy",
		"Prompt", "PullBundle", "PythonConsentEvent", "PythonTarget", "Report", "Report.Block", "Report.Context", "Report.Dispatch", "Report.Text",
		"RuntimeLua", "RuntimePython", "ShellHookInfo", "ShellHookInfo.DriftBlocks", "ShellHookInfo.Hook", "ToolDecision", "ToolRun", "TracerName", "TurnDecision",
		"VerifyDecision", "WatchHome", "WebhookInfo", "WithCaller", "WithOrigin", "WithTrace",
	},
	"gateway": {
		"DefaultMaxSteps", "ErrClosed", "ErrStepLimit", "ErrUnclearAnswer", "EventDropped", "Gateway", "Gateway.Answer",
		"Gateway.Close", "Gateway.Dropped", "Gateway.Emit", "Gateway.EmitSync", "Gateway.Engine",
		"Gateway.Hooks", "Gateway.Reload", "Gateway.StartTurn", "Gateway.StepLimit", "Gateway.Warnings",
		"Gateway.Watch", "Message", "New", "Options",
		"Turn", "Turn.Fail", "Turn.Finish", "Turn.RunLLM", "Turn.RunTool", "Turn.Step", "Turn.Verify",
	},
	"gateway/runner": {
		"Agent", "Command", "Entry", "HostFuncs", "Inbound", "Line", "New",
		"NewTranscriptAgent", "Options", "ParseTranscript", "Replay", "Runner", "Runner.HandleApproval",
		"Runner.HandleCommand", "Runner.HandleCompact", "Runner.HandleMessage",
		"Runner.HandleNotification", "Runner.HandleSubagent", "Runner.History", "Runner.Play",
		"Runner.Shutdown", "Runner.Startup", "Runner.Timeline", "Step", "StepRequest", "Timeline",
		"ToolResult", "TranscriptAgent", "TranscriptAgent.Prompt", "TranscriptAgent.RunTool",
		"TranscriptAgent.Step", "TranscriptCall",
	},
}

// exported lists the exported names of the package in dir ("T", "T.Method", "Func",
// "Const"), and the type aliases it declares of another package's types.
func exported(t *testing.T, dir string) (names, aliases []string) {
	t.Helper()
	fs := token.NewFileSet()
	pkgs, err := parser.ParseDir(fs, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkgs {
		for _, f := range p.Files {
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if name, ok := funcName(d); ok {
						names = append(names, name)
					}
				case *ast.GenDecl:
					for _, sp := range d.Specs {
						switch sp := sp.(type) {
						case *ast.TypeSpec:
							if _, other := sp.Type.(*ast.SelectorExpr); sp.Assign.IsValid() && other {
								aliases = append(aliases, sp.Name.Name)
							}
							if sp.Name.IsExported() {
								names = append(names, sp.Name.Name)
							}
						case *ast.ValueSpec:
							for _, n := range sp.Names {
								if n.IsExported() {
									names = append(names, n.Name)
								}
							}
						}
					}
				}
			}
		}
	}
	slices.Sort(names)
	return names, aliases
}

// funcName is "F" or "T.M" for an exported function or a method of an exported type.
func funcName(d *ast.FuncDecl) (string, bool) {
	if !d.Name.IsExported() {
		return "", false
	}
	if d.Recv == nil {
		return d.Name.Name, true
	}
	t := d.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	id, ok := t.(*ast.Ident)
	if !ok || !id.IsExported() {
		return "", false
	}
	return id.Name + "." + d.Name.Name, true
}

// TestEmbeddingAPI holds the exported names of engine, gateway and gateway/runner to the
// table, and finds no alias of another package's type among them.
func TestEmbeddingAPI(t *testing.T) {
	for dir, want := range api {
		got, aliases := exported(t, "../../"+dir)
		if len(aliases) > 0 {
			t.Errorf("%s declares aliases of other packages' types: %v (use the type where it is defined)", dir, aliases)
		}
		for _, n := range got {
			if !slices.Contains(want, n) {
				t.Errorf("%s exports %s, which the table in tests/deps/api_test.go does not list", dir, n)
			}
		}
		for _, n := range want {
			if !slices.Contains(got, n) {
				t.Errorf("%s no longer exports %s: remove it from the table (and say so in docs/embedding.md's changes)", dir, n)
			}
		}
	}
}

package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// script writes an executable shell script into home/agent-hooks and returns its path.
func script(t *testing.T, home, name, body string) string {
	t.Helper()
	p := filepath.Join(home, "agent-hooks", name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestShellHooksJoinTheInvokerAfterPlugins(t *testing.T) {
	home := testutil.Home(t, pluginFiles("lua", "", one("pre_tool_call", `return {action="block", message="lua says no"}`)))
	block := script(t, home, "block.sh", `cat >/dev/null; echo '{"decision":"block","reason":"shell says no"}'`)
	marker := filepath.Join(home, "observer-ran")
	observer := script(t, home, "observer.sh", "cat > "+marker)
	writeFile(t, filepath.Join(home, "config.yaml"), `
hooks:
  pre_tool_call:
    - command: `+block+`
    - command: `+observer+`
    - command: `+block+`
`)
	eng, err := New(context.Background(), Options{Home: home, AcceptHooks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	rep := eng.Fire(context.Background(), hookspec.PreToolCall, call.Kwargs(false))
	var order []string
	for _, h := range rep.Hooks {
		order = append(order, h.Source+":"+filepath.Base(h.Name))
	}
	if diff := cmp.Diff([]string{"plugin:lua", "shell:block.sh", "shell:observer.sh"}, order); diff != "" {
		t.Errorf("order (duplicate registered once) (-want +got):\n%s", diff)
	}
	if b := rep.Block(); b == nil || b.Message != "lua says no" {
		t.Errorf("block = %+v, want the Lua block to win", b)
	}
	if diff := cmp.Diff(map[string]any{"decision": "block", "reason": "shell says no"}, rep.Hooks[1].Result); diff != "" {
		t.Errorf("shell result is its parsed stdout (-want +got):\n%s", diff)
	}
	data, err := os.ReadFile(marker)
	if err != nil {
		t.Fatalf("observer after the block did not run: %v", err)
	}
	var payload map[string]any
	if err := json.Unmarshal(data, &payload); err != nil || payload["hook_event_name"] != "pre_tool_call" || payload["tool_name"] != "terminal" {
		t.Errorf("observer payload = %s (%v)", data, err)
	}
}

func TestShellBlockWhenNoPluginBlocks(t *testing.T) {
	home := t.TempDir()
	block := script(t, home, "block.sh", `cat >/dev/null; echo '{"action":"block","message":"nope"}'`)
	writeFile(t, filepath.Join(home, "config.yaml"), "hooks:\n  pre_tool_call:\n    - matcher: terminal\n      command: "+block+"\n")
	eng, err := New(context.Background(), Options{Home: home, AcceptHooks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	if b := eng.DecideTool(context.Background(), call).Block; b == nil || b.Message != "nope" || b.Source != hookspec.SourceShell {
		t.Errorf("block = %+v", b)
	}
	web := call
	web.Name = "web_search"
	if b := eng.DecideTool(context.Background(), web).Block; b != nil {
		t.Errorf("matcher terminal blocked web_search: %+v", b)
	}
}

func TestShellConsent(t *testing.T) {
	setup := func(t *testing.T, extraConfig string) (string, string) {
		home := t.TempDir()
		s := script(t, home, "ctx.sh", `cat >/dev/null; echo '{"context":"from shell"}'`)
		writeFile(t, filepath.Join(home, "config.yaml"), "hooks:\n  pre_llm_call:\n    - command: "+s+"\n"+extraConfig)
		return home, s
	}
	approvedInFile := func(home, command string) bool {
		data, _ := os.ReadFile(filepath.Join(home, "shell-hooks-allowlist.json"))
		return strings.Contains(string(data), command)
	}
	tests := []struct {
		name   string
		config string
		opts   Options
		want   bool
	}{
		{"no terminal, no bypass", "", Options{}, false},
		{"flag", "", Options{AcceptHooks: true}, true},
		{"env", "", Options{Getenv: func(k string) string { return map[string]string{"HERMES_ACCEPT_HOOKS": " Yes "}[k] }}, true},
		{"config true", "hooks_auto_accept: true\n", Options{}, true},
		{"config string false", "hooks_auto_accept: \"false\"\n", Options{}, false},
		{"config no", "hooks_auto_accept: \"no\"\n", Options{}, false},
		{"config 1", "hooks_auto_accept: 1\n", Options{}, false},
		{"config list", "hooks_auto_accept: [true]\n", Options{}, false},
		{"prompt yes", "", Options{Prompt: &Prompt{In: strings.NewReader("y\n"), Out: &strings.Builder{}}}, true},
		{"prompt no", "", Options{Prompt: &Prompt{In: strings.NewReader("sure\n"), Out: &strings.Builder{}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, s := setup(t, tt.config)
			logs := &testutil.Buffer{}
			tt.opts.Home = home
			tt.opts.Logger = newTestLogger(logs)
			if tt.opts.Getenv == nil {
				tt.opts.Getenv = func(string) string { return "" }
			}
			eng, err := New(context.Background(), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close(context.Background())
			got := eng.DecideTurn(context.Background(), hookspec.LLMTurn{}).Context == "from shell"
			if got != tt.want {
				t.Errorf("registered = %v, want %v", got, tt.want)
			}
			if approvedInFile(home, s) != tt.want {
				t.Errorf("persisted = %v, want %v", !tt.want, tt.want)
			}
			if !tt.want && tt.opts.Prompt == nil && !strings.Contains(logs.String(), "hermesctl hooks allow") {
				t.Errorf("no actionable warning:\n%s", logs.String())
			}
			info := eng.ShellHooks()[0]
			if info.Registered != tt.want {
				t.Errorf("info.Registered = %v", info.Registered)
			}
		})
	}
}

func TestShellHooksIgnoreConsentForTests(t *testing.T) {
	home := t.TempDir()
	s := script(t, home, "ctx.sh", `cat >/dev/null; echo '{"context":"from shell"}'`)
	writeFile(t, filepath.Join(home, "config.yaml"), "hooks:\n  pre_llm_call:\n    - command: "+s+"\n")
	eng, err := New(context.Background(), Options{Home: home, IgnoreConsent: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	if got := eng.DecideTurn(context.Background(), hookspec.LLMTurn{}).Context; got != "from shell" {
		t.Errorf("context = %q", got)
	}
	if _, err := os.Stat(filepath.Join(home, "shell-hooks-allowlist.json")); err == nil {
		t.Error("ignoring consent wrote an approval")
	}
}

// A shell hook runs in the host's working directory as New, then each Reload, found it: a
// host that changes its directory afterwards gets the one it had at its last load, until it
// reloads. The payload's cwd says the same.
func TestShellHooksRunInTheDirectoryOfTheLastLoad(t *testing.T) {
	home := t.TempDir()
	where := filepath.Join(home, "where")
	payload := filepath.Join(home, "payload")
	hook := script(t, home, "where.sh", "cat > "+payload+"; pwd -P > "+where)
	writeFile(t, filepath.Join(home, "config.yaml"), "hooks:\n  pre_tool_call:\n    - command: "+hook+"\n")
	first, second := t.TempDir(), t.TempDir()
	t.Chdir(first)
	eng, err := New(context.Background(), Options{Home: home, AcceptHooks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(context.Background())
	check := func(want string) {
		t.Helper()
		if b := eng.DecideTool(context.Background(), call).Block; b != nil {
			t.Fatalf("blocked: %+v", b)
		}
		real, err := filepath.EvalSymlinks(want)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(where)
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(string(got)) != real {
			t.Errorf("the hook ran in %q, want %q", strings.TrimSpace(string(got)), real)
		}
		var p map[string]any
		data, _ := os.ReadFile(payload)
		if err := json.Unmarshal(data, &p); err != nil || p["cwd"] != want {
			t.Errorf("payload cwd = %v (%v), want %q", p["cwd"], err, want)
		}
	}
	check(first)
	t.Chdir(second) // the host moves: its hooks stay where they were loaded
	check(first)
	if err := eng.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	check(second)
}

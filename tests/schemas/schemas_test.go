// Package schemas_test keeps the editor support in step with the code: the JSON Schemas in
// schemas/ must accept every example manifest and reject broken ones, and the LuaLS
// definitions in editor/lua/ must name every hook and every keyword argument the engine
// passes.
package schemas_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/hooknames"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"
	"github.com/hermes-hooks/hermes/luabind"
)

// root is the repository root, seen from this package's directory.
const root = "../.."

// schemaFor maps a manifest's file name to its schema.
var schemaFor = map[string]string{
	"HOOK.yaml":   "hook.schema.json",
	"plugin.yaml": "plugin.schema.json",
	"config.yaml": "config.schema.json",
}

func compile(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	abs, err := filepath.Abs(filepath.Join(root, "schemas", name))
	if err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(abs)
	if err != nil {
		t.Fatalf("compile %s: %v", name, err)
	}
	return sch
}

// decodeYAML decodes YAML the way the loader sees it (an empty file is an empty mapping)
// and converts it to the JSON data model the validator expects.
func decodeYAML(t *testing.T, name string, data []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: invalid YAML: %v", name, err)
	}
	if v == nil {
		v = map[string]any{}
	}
	b, err := json.Marshal(jsonable(v))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return doc
}

// jsonable turns the map[any]any that YAML can produce into map[string]any.
func jsonable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = jsonable(e)
		}
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = jsonable(e)
		}
		return m
	case []any:
		for i, e := range x {
			x[i] = jsonable(e)
		}
	}
	return v
}

// TestExamplesValidate walks scripts/examples: every HOOK.yaml, plugin.yaml and config.yaml
// must validate against its schema.
func TestExamplesValidate(t *testing.T) {
	schemas := map[string]*jsonschema.Schema{}
	for _, s := range schemaFor {
		schemas[s] = compile(t, s)
	}
	seen := map[string]int{}
	dir := filepath.Join(root, "scripts", "examples")
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		s, ok := schemaFor[d.Name()]
		if !ok {
			if ext := filepath.Ext(path); ext == ".yaml" || ext == ".yml" {
				t.Errorf("%s: a YAML file with no schema; add it to schemaFor", path)
			}
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		seen[d.Name()]++
		if err := schemas[s].Validate(decodeYAML(t, path, data)); err != nil {
			t.Errorf("%s does not validate against %s:\n%v", path, s, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range schemaFor {
		if seen[name] == 0 {
			t.Errorf("no %s found under %s", name, dir)
		}
	}
}

// TestSchemasAcceptAndReject checks manifests the loader accepts without a warning, and broken
// ones it rejects or warns about.
func TestSchemasAcceptAndReject(t *testing.T) {
	tests := []struct {
		name, schema, yaml string
		valid              bool
	}{
		// HOOK.yaml
		{"hook minimal", "hook", "events: [agent:start]", true},
		{"hook everything", "hook", `
name: x
description: d
events: ["agent:*", "command:*", command:model, "myhost:custom"]
enabled: false
timeout: 0.5
permissions: {fs: [~/logs], net: [example.com], exec: [black], env: ["*"]}`, true},
		{"hook events missing", "hook", "name: x", false},
		{"hook events empty", "hook", "events: []", false},
		{"hook events not a list", "hook", "events: agent:start", false},
		{"hook bare wildcard", "hook", `events: ["*"]`, false},
		{"hook event without prefix", "hook", "events: [startup]", false},
		{"hook timeout above 300", "hook", "events: [agent:start]\ntimeout: 301", false},
		{"hook timeout zero", "hook", "events: [agent:start]\ntimeout: 0", false},
		{"hook memory", "hook", "events: [agent:start]\nmemory: 64MiB", true},
		{"hook memory in decimal megabytes", "hook", "events: [agent:start]\nmemory: 64MB", false},
		{"hook unknown key", "hook", "events: [agent:start]\nevnts: [agent:end]", false},
		{"hook enabled yes", "hook", "events: [agent:start]\nenabled: \"yes\"", false},
		{"hook unknown permission", "hook", "events: [agent:start]\npermissions: {network: [x]}", false},
		{"hook permission not a list", "hook", "events: [agent:start]\npermissions: {env: HOME}", false},
		{"hook permission not strings", "hook", "events: [agent:start]\npermissions: {exec: [true]}", false},

		// plugin.yaml
		{"plugin empty", "plugin", "", true},
		{"plugin everything", "plugin", `
name: audit
description: d
version: 1.0
enabled: true
priority: -5
timeout: 300
fail_closed: true
states: 4
config: {facts: {u1: Ada}, list: [1, 2]}
permissions: {net: [api.telegram.org]}`, true},
		{"plugin reuse_kwargs (deprecated, still accepted)", "plugin", "reuse_kwargs: true", true},
		{"plugin memory with a space", "plugin", "memory: 256 MiB", true},
		{"plugin memory in bytes", "plugin", "memory: 67108864", true},
		{"plugin memory in GiB", "plugin", "memory: 1GiB", true},
		{"plugin memory zero", "plugin", "memory: 0", false},
		{"plugin memory a fraction", "plugin", "memory: 1.5GiB", false},
		{"plugin memory in lower case", "plugin", "memory: 64mib", false},
		{"plugin priority a string", "plugin", "priority: high", false},
		{"plugin priority a float", "plugin", "priority: 1.5", false},
		{"plugin states zero", "plugin", "states: 0", false},
		{"plugin states 65", "plugin", "states: 65", false},
		{"plugin blank name", "plugin", "name: '  '", false},
		{"plugin typo", "plugin", "prioriti: 3", false},
		{"plugin fail_closed a string", "plugin", "fail_closed: \"true\"", false},

		// config.yaml
		{"config empty", "config", "", true},
		{"config host keys", "config", "model: gpt-4\ntoolsets: [web]\ngateway_hooks: {}", true},
		{"config shell hooks", "config", `
hooks:
  pre_tool_call:
    - matcher: "terminal|write_file"
      command: ~/.hermes/agent-hooks/block.sh --strict
      timeout: 10
      fail_closed: true
  post_tool_call:
    - matcher: write_file
      command: "python3 -u ~/.hermes/agent-hooks/fmt.py"
  pre_llm_call:
    - command: ~/.hermes/agent-hooks/context.sh
  subagent_stop:
  on_session_end: []
hooks_auto_accept: false
hooks_consent: pinned
plugins:
  disabled: [noisy]`, true},
		{"config auto accept string", "config", "hooks_auto_accept: \"YES\"", true},
		{"config consent any case", "config", "hooks_consent: Command", true},
		{"config persistent hook", "config", "hooks:\n  pre_tool_call:\n    - command: x.sh\n      persistent: true", true},
		{"config persistent not a boolean", "config", "hooks:\n  pre_tool_call:\n    - command: x.sh\n      persistent: maybe", false},
		{"config persistent instances", "config", "hooks:\n  pre_tool_call:\n    - command: x.sh\n      persistent: true\n      instances: 4", true},
		{"config instances out of range", "config", "hooks:\n  pre_tool_call:\n    - command: x.sh\n      persistent: true\n      instances: 17", false},
		{"config unknown hook event", "config", "hooks:\n  pre_tools_call:\n    - command: x.sh", false},
		{"config gateway event in hooks", "config", "hooks:\n  agent:start:\n    - command: x.sh", false},
		{"config event not a list", "config", "hooks:\n  pre_llm_call:\n    command: x.sh", false},
		{"config entry without command", "config", "hooks:\n  pre_llm_call:\n    - matcher: x", false},
		{"config entry is a string", "config", "hooks:\n  pre_llm_call:\n    - x.sh", false},
		{"config entry blank command", "config", "hooks:\n  pre_llm_call:\n    - command: '  '", false},
		{"config entry unknown key", "config", "hooks:\n  pre_llm_call:\n    - command: x.sh\n      timout: 5", false},
		{"config timeout zero", "config", "hooks:\n  pre_llm_call:\n    - command: x.sh\n      timeout: 0", false},
		{"config timeout 301", "config", "hooks:\n  pre_llm_call:\n    - command: x.sh\n      timeout: 301", false},
		{"config timeout fractional", "config", "hooks:\n  pre_llm_call:\n    - command: x.sh\n      timeout: 1.5", false},
		{"config matcher on an observer", "config", "hooks:\n  pre_llm_call:\n    - command: x.sh\n      matcher: terminal", false},
		{"config fail_closed on post_tool_call", "config", "hooks:\n  post_tool_call:\n    - command: x.sh\n      fail_closed: true", false},
		{"config fail_closed on an observer", "config", "hooks:\n  subagent_stop:\n    - command: x.sh\n      fail_closed: true", false},
		{"config claude hooks", "config", `
hooks:
  pre_tool_call:
    - {command: 'python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.py', matcher: "Read|Edit|Write", dialect: claude}
  on_session_start:
    - {command: ./start.sh, matcher: startup, dialect: claude}
claude_tools:
  browser_navigate: {name: Navigate, args: {url: url}}
  vision_analyze: {name: Vision}`, true},
		{"config http hook", "config", `
hooks:
  pre_tool_call:
    - type: http
      url: https://policy.example.com/hook
      headers: {Authorization: "Bearer $TOKEN"}
      allowed_env_vars: [TOKEN]
      timeout: 5
      fail_closed: true
      allow_private_network: false`, true},
		{"config http hook without url", "config", "hooks:\n  pre_tool_call:\n    - type: http", false},
		{"config http hook with command", "config", "hooks:\n  pre_tool_call:\n    - type: http\n      url: https://x/\n      command: x.sh", false},
		{"config http hook with credentials", "config", "hooks:\n  pre_tool_call:\n    - type: http\n      url: https://u:p@x/", false},
		{"config url on a command hook", "config", "hooks:\n  pre_tool_call:\n    - command: x.sh\n      url: https://x/", false},
		{"config unknown hook type", "config", "hooks:\n  pre_tool_call:\n    - type: grpc\n      url: https://x/", false},
		{"config webhooks", "config", `
webhooks:
  - name: audit
    url: https://audit.example.com/hermes
    events: [pre_tool_call, "agent:*"]
    matcher: terminal
    secret_env: AUDIT_SECRET
    timeout: 10`, true},
		{"config webhook without secret", "config", "webhooks:\n  - {name: a, url: \"https://x/\", events: [\"*\"]}", false},
		{"config webhook no events", "config", "webhooks:\n  - {name: a, url: \"https://x/\", events: [], secret_env: S}", false},
		{"config webhook unknown key", "config", "webhooks:\n  - {name: a, url: \"https://x/\", events: [\"*\"], secret_env: S, secert: x}", false},
		{"config policy", "config", "policy:\n  managed_hooks_only: true\n  allowed_http_urls: [\"https://hooks.example.com/*\"]\n  allowed_commands: []", true},
		{"config policy list as string", "config", "policy:\n  allowed_http_urls: \"https://x/*\"", false},
		{"config policy unknown key", "config", "policy:\n  managed_hooks_olny: true", false},
		{"config store redis", "config", "store: {url: \"redis://10.0.0.5:6379/0\", prefix: \"gw1:\"}", true},
		{"config store empty", "config", "store:", true},
		{"config store bad scheme", "config", "store: {url: \"memcached://x\"}", false},
		{"config store typo", "config", "store: {uri: \"redis://x\"}", false},
		{"config dialect bogus", "config", "hooks:\n  pre_tool_call:\n    - {command: x.sh, dialect: claud}", false},
		{"config matcher on an observer without dialect", "config", "hooks:\n  on_session_start:\n    - {command: x.sh, matcher: startup}", false},
		{"config claude_tools without name", "config", "claude_tools:\n  x: {args: {a: b}}", false},
		{"config claude_tools arg not a string", "config", "claude_tools:\n  x: {name: X, args: {a: [b]}}", false},
		{"config consent bogus", "config", "hooks_consent: bogus", false},
		{"config auto accept integer", "config", "hooks_auto_accept: 1", false},
		{"config auto accept list", "config", "hooks_auto_accept: [true]", false},
		{"config plugins a list", "config", "plugins: [a]", false},
		{"config plugins.disabled a string", "config", "plugins: {disabled: a}", false},
	}
	schemas := map[string]*jsonschema.Schema{}
	for _, s := range []string{"hook", "plugin", "config"} {
		schemas[s] = compile(t, s+".schema.json")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := schemas[tt.schema].Validate(decodeYAML(t, tt.name, []byte(tt.yaml)))
			if tt.valid && err != nil {
				t.Errorf("rejected, want accepted:\n%s\n%v", tt.yaml, err)
			}
			if !tt.valid && err == nil {
				t.Errorf("accepted, want rejected:\n%s", tt.yaml)
			}
		})
	}
}

func readSchema(t *testing.T, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "schemas", name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

// get follows a path of object keys.
func get(t *testing.T, v any, path ...string) any {
	t.Helper()
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("no %q in %v", k, path)
		}
		v = m[k]
	}
	return v
}

func sortedStrings(v any) []string {
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	sort.Strings(out)
	return out
}

// TestSchemasAgreeWithCode compares the names in the schemas with the engine's.
func TestSchemasAgreeWithCode(t *testing.T) {
	cfg := readSchema(t, "config.schema.json")
	hooks := slices.DeleteFunc(hookspec.Names(), hooknames.IsWrap) // a shell hook cannot call next
	sort.Strings(hooks)
	if got := sortedStrings(get(t, cfg, "properties", "hooks", "propertyNames", "enum")); !slices.Equal(got, hooks) {
		t.Errorf("config hooks event names = %v, want hookspec.Names() but the wrap hooks = %v", got, hooks)
	}
	var props []string
	for k := range get(t, cfg, "properties", "hooks", "properties").(map[string]any) {
		props = append(props, k)
	}
	sort.Strings(props)
	if !slices.Equal(props, hooks) {
		t.Errorf("config hooks properties = %v, want %v", props, hooks)
	}

	hook, plugin := readSchema(t, "hook.schema.json"), readSchema(t, "plugin.schema.json")
	a, _ := json.Marshal(get(t, hook, "$defs", "permissions"))
	b, _ := json.Marshal(get(t, plugin, "$defs", "permissions"))
	if !bytes.Equal(a, b) {
		t.Errorf("the permissions $defs of hook.schema.json and plugin.schema.json differ")
	}

	known := sortedStrings(get(t, hook, "properties", "events", "items", "anyOf").([]any)[0].(map[string]any)["enum"])
	for _, ev := range []string{hookspec.GatewayStartup, hookspec.SessionStart, hookspec.SessionEnd, hookspec.SessionReset,
		hookspec.AgentStart, hookspec.AgentStep, hookspec.AgentEnd, hookspec.CommandPrefix + "*"} {
		if !slices.Contains(known, ev) {
			t.Errorf("hook.schema.json does not suggest the event %q", ev)
		}
	}
}

// TestSchemaKeysLoadWithoutWarnings writes a HOOK.yaml, a plugin.yaml and a config.yaml that
// use every key their schemas allow (and validate) and checks that the loaders know them all:
// no warning, everything loaded, every shell-hook key applied. Keys the schemas mark
// deprecated are left out: TestDeprecatedKeysWarn checks them.
func TestSchemaKeysLoadWithoutWarnings(t *testing.T) {
	home := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		if s, ok := schemaFor[filepath.Base(rel)]; ok {
			if err := compile(t, s).Validate(decodeYAML(t, rel, []byte(text))); err != nil {
				t.Fatalf("the sample %s does not validate against %s: %v", rel, s, err)
			}
		}
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	manifest := func(schema string, values map[string]string) string {
		var b strings.Builder
		props := get(t, readSchema(t, schema), "properties").(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(props)) {
			if deprecated(props[k]) {
				continue
			}
			v, ok := values[k]
			if !ok {
				t.Fatalf("%s: key %q has no sample value in this test; add one", schema, k)
			}
			fmt.Fprintf(&b, "%s: %s\n", k, v)
		}
		return b.String()
	}
	write("hooks/h/HOOK.yaml", manifest("hook.schema.json", map[string]string{
		"name": "h", "description": "d", "events": "[agent:start]", "enabled": "true", "timeout": "2", "memory": "64MiB",
		"permissions": "{fs: [/tmp], net: [example.com], exec: [ls], env: [HOME]}",
	}))
	write("hooks/h/handler.lua", "function handle(event_type, context) end\n")
	write("plugins/p/plugin.yaml", manifest("plugin.schema.json", map[string]string{
		"name": "p", "description": "d", "version": "1.0.0", "enabled": "true", "priority": "3", "timeout": "2", "memory": "128 MiB",
		"fail_closed": "true", "states": "2", "max_states": "8", "busy_timeout": "1.5", "config": "{a: 1}", "permissions": "{env: [HOME]}",
	}))
	write("plugins/p/handler.lua", `function register(ctx) ctx.register_hook("pre_tool_call", function() end) end`+"\n")

	// config.yaml: every top-level key and every shell-hook entry key of the schema.
	entry := map[string]string{"command": "/bin/true --x", "matcher": "terminal", "timeout": "7", "fail_closed": "true", "persistent": "true", "instances": "3"}
	httpEntry := map[string]string{"type": "http", "url": "\"https://policy.example.com/hook\"", "headers": "{Authorization: \"Bearer $TOKEN\"}",
		"allowed_env_vars": "[TOKEN]", "allow_private_network": "true"}
	cfg := readSchema(t, "config.schema.json")
	var b strings.Builder
	b.WriteString("hooks:\n  pre_tool_call:\n")
	entryProps := get(t, cfg, "$defs", "entry", "properties").(map[string]any)
	first := true
	for _, k := range slices.Sorted(maps.Keys(entryProps)) {
		if k == "dialect" || dialectOnly[k] { // a Claude Code hook cannot be persistent: it gets an entry of its own below
			continue
		}
		if _, ok := httpEntry[k]; ok { // an HTTP hook's keys: an entry of its own below
			continue
		}
		v, ok := entry[k]
		if !ok {
			t.Fatalf("config.schema.json: entry key %q has no sample value in this test; add one", k)
		}
		prefix := "      "
		if first {
			prefix, first = "    - ", false
		}
		fmt.Fprintf(&b, "%s%s: %s\n", prefix, k, v)
	}
	b.WriteString("    - {command: /bin/true, matcher: Bash, timeout: 7, fail_closed: true, dialect: claude}\n")
	b.WriteString("    - {" + strings.Join(func() []string {
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(httpEntry)) {
			kv = append(kv, k+": "+httpEntry[k])
		}
		return kv
	}(), ", ") + "}\n")
	b.WriteString("    - {command: /bin/true, args: [x.sh], dialect: claude, if: \"Bash(rm *)\", project_dir: /tmp, status_message: Checking, async: false, async_rewake: false, plugin_root: /tmp, plugin_data: /tmp/data}\n")
	b.WriteString("  pre_verify:\n    - {command: /bin/true, dialect: claude, subagent: true, matcher: reviewer}\n")
	for k := range entryProps {
		if dialectOnly[k] && !strings.Contains(b.String(), " "+k+":") {
			t.Fatalf("config.schema.json: entry key %q of hooks with a dialect has no sample value in this test; add one", k)
		}
	}
	top := map[string]string{"hooks_auto_accept": "false", "hooks_consent": "command", "plugins": "{disabled: [nothing]}",
		"claude_tools": "{browser_navigate: {name: Navigate, args: {url: url}}}", "store": "{url: \"redis://127.0.0.1:1/0\", prefix: \"h:\"}", "max_verify_nudges": "2",
		"webhooks": "[{name: audit, url: \"https://policy.example.com/events\", events: [pre_tool_call, \"agent:*\"], matcher: terminal, secret_env: S, allow_private_network: false, timeout: 5}]"}
	for _, k := range slices.Sorted(maps.Keys(get(t, cfg, "properties").(map[string]any))) {
		if k == "hooks" || k == "policy" || k == "decision_log" { // read from the managed home, below
			continue
		}
		v, ok := top[k]
		if !ok {
			t.Fatalf("config.schema.json: key %q has no sample value in this test; add one", k)
		}
		fmt.Fprintf(&b, "%s: %s\n", k, v)
	}
	write("config.yaml", b.String())

	managed := t.TempDir()
	policy := "policy: {managed_hooks_only: false, allowed_http_urls: [\"https://policy.example.com/*\"], allowed_commands: [\"/bin/true*\"]}\n" +
		"decision_log: {url: \"http://127.0.0.1:1/log\", mask: [args.command, \"args.*.token\"], batch: 10, flush_interval: 2s, buffer: 100, headers: {X-Team: a}, token_env: S}\n"
	if err := compile(t, "config.schema.json").Validate(decodeYAML(t, "config.yaml", []byte(policy))); err != nil {
		t.Fatalf("the sample policy does not validate: %v", err)
	}
	os.WriteFile(filepath.Join(managed, "config.yaml"), []byte(policy), 0o644)
	ctx := context.Background()
	gw, err := gateway.New(ctx, gateway.Options{Engine: engine.Options{Home: home, ManagedHome: managed, DisableWebhooks: true, // nothing is sent to example.com
		Getenv: func(string) string { return "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }}})
	if err != nil {
		t.Fatal(err)
	}
	eng := gw.Engine()
	defer gw.Close(ctx)
	for _, w := range append(eng.Warnings(), gw.Warnings()...) {
		t.Errorf("warning for a manifest the schema accepts: %s", w)
	}
	for _, p := range eng.Plugins() {
		if p.Status != "loaded" {
			t.Errorf("plugin %s: %s %s", p.Name, p.Status, p.Error)
		}
	}
	for _, h := range gw.Hooks() {
		if h.Status != "loaded" {
			t.Errorf("gateway hook %s: %s %s", h.Name, h.Status, h.Error)
		}
	}
	sh := eng.ShellHooks()
	if len(sh) != 5 {
		t.Fatalf("got %d shell hooks, want 5", len(sh))
	}
	if h := sh[2].Hook(); h.Type != "http" || h.HTTP.Headers["Authorization"] == "" || !h.HTTP.AllowPrivate || len(h.HTTP.AllowedEnvVars) != 1 || sh[2].Refused != "" {
		t.Errorf("http hook = %+v (%s), want every key applied and the policy's URL allowed", h, sh[2].Refused)
	}
	if p := eng.Policy(); p.ManagedHooksOnly || len(p.AllowedHTTPURLs) != 1 || len(p.AllowedCommands) != 1 {
		t.Errorf("policy = %+v", p)
	}
	if w := eng.Webhooks(); len(w) != 1 || w[0].Matcher != "terminal" {
		t.Errorf("webhooks = %+v", w)
	}
	if h := sh[0].Hook(); h.Matcher != "terminal" || h.Timeout.Seconds() != 7 || !h.FailClosed || !h.Persistent || h.Instances != 3 {
		t.Errorf("shell hook = %+v, want every key of the entry applied", h)
	}
	if h := sh[1].Hook(); h.Dialect != "claude" || !h.Matches("terminal") || h.Matches("read_file") {
		t.Errorf("claude hook = %+v, want dialect claude matching Bash (terminal) only", h)
	}
	if h := sh[3].Hook(); h.If != "Bash(rm *)" || h.ProjectDir != "/tmp" || h.StatusMessage != "Checking" || len(h.Args) != 1 || h.PluginData != "/tmp/data" {
		t.Errorf("claude hook = %+v, want every key of hooks with a dialect applied", h)
	}
	if h := sh[4].Hook(); h.Event != "pre_verify" || !h.Subagent || h.Matcher != "reviewer" {
		t.Errorf("claude hook = %+v, want a SubagentStop hook (subagent: true) matching reviewer", h)
	}
}

func deprecated(prop any) bool {
	d, _ := prop.(map[string]any)["deprecated"].(bool)
	return d
}

// TestDeprecatedKeysWarn checks the keys plugin.schema.json marks deprecated: a manifest with
// one still validates and loads, with a warning that names the key and says to remove it.
func TestDeprecatedKeysWarn(t *testing.T) {
	samples := map[string]string{"reuse_kwargs": "true"}
	props := get(t, readSchema(t, "plugin.schema.json"), "properties").(map[string]any)
	n := 0
	for _, k := range slices.Sorted(maps.Keys(props)) {
		if !deprecated(props[k]) {
			continue
		}
		n++
		v, ok := samples[k]
		if !ok {
			t.Fatalf("plugin.schema.json: deprecated key %q has no sample value in this test; add one", k)
		}
		text := "name: p\n" + k + ": " + v + "\n"
		if err := compile(t, "plugin.schema.json").Validate(decodeYAML(t, "plugin.yaml", []byte(text))); err != nil {
			t.Errorf("%s: the schema rejects it: %v", k, err)
		}
		home := t.TempDir()
		for rel, content := range map[string]string{
			"plugins/p/plugin.yaml": text,
			"plugins/p/handler.lua": `function register(ctx) ctx.register_hook("pre_tool_call", function() end) end` + "\n",
		} {
			if err := os.MkdirAll(filepath.Join(home, filepath.Dir(rel)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, rel), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		ctx := context.Background()
		eng, err := engine.New(ctx, engine.Options{Home: home})
		if err != nil {
			t.Fatal(err)
		}
		var warns []string
		for _, w := range eng.Warnings() {
			warns = append(warns, w.String())
		}
		if len(warns) != 1 || !strings.Contains(warns[0], "plugin.yaml:2: "+k+" is no longer used") || !strings.Contains(warns[0], "remove the key") {
			t.Errorf("%s: warnings %q, want one saying it is no longer used", k, warns)
		}
		if ps := eng.Plugins(); len(ps) != 1 || ps[0].Status != "loaded" {
			t.Errorf("%s: the plugin does not load: %+v", k, ps)
		}
		eng.Close(ctx)
	}
	if n == 0 {
		t.Skip("plugin.schema.json marks no key deprecated")
	}
}

// luaDefs is what the test reads from the LuaLS definitions: each class's fields (with the
// class it extends) and the kwargs class register_hook's overload gives each hook.
type luaDefs struct {
	src       string
	fields    map[string]map[string]string // class -> field -> type
	parent    map[string]string            // class -> parent class
	hookClass map[string]string            // hook name -> kwargs class
}

var (
	classRE    = regexp.MustCompile(`^---@class\s+([\w.]+)(?:\s*:\s*([\w.]+))?`)
	fieldRE    = regexp.MustCompile(`^---@field\s+([\w]+)\??\s+(\S+)`)
	overloadRE = regexp.MustCompile(`^---@overload fun\(name: "(\w+)", fn: fun\(kw: ([\w.]+)[,)]`)
	typeRefRE  = regexp.MustCompile(`\bhermes\.[\w.]+`)
	definedRE  = regexp.MustCompile(`^---@(?:class|alias)\s+(hermes\.[\w.]+)`)
)

func readLuaDefs(t *testing.T) *luaDefs {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "editor", "lua", "hermes.d.lua"))
	if err != nil {
		t.Fatal(err)
	}
	d := &luaDefs{src: string(data), fields: map[string]map[string]string{}, parent: map[string]string{}, hookClass: map[string]string{}}
	class := ""
	for _, line := range strings.Split(d.src, "\n") {
		line = strings.TrimSpace(line)
		if m := classRE.FindStringSubmatch(line); m != nil {
			class = m[1]
			d.fields[class] = map[string]string{}
			if m[2] != "" {
				d.parent[class] = m[2]
			}
			continue
		}
		if m := fieldRE.FindStringSubmatch(line); m != nil && class != "" {
			d.fields[class][m[1]] = m[2]
			continue
		}
		if m := overloadRE.FindStringSubmatch(line); m != nil {
			d.hookClass[m[1]] = m[2]
		}
		if !strings.HasPrefix(line, "---") {
			class = ""
		}
	}
	return d
}

// field returns the type of class.name, looking in parent classes too.
func (d *luaDefs) field(class, name string) (string, bool) {
	for c := class; c != ""; c = d.parent[c] {
		if typ, ok := d.fields[c][name]; ok {
			return typ, true
		}
	}
	return "", false
}

// checkKeys reports every key of payload (and of nested tables whose field type is a class)
// that class does not declare.
func (d *luaDefs) checkKeys(t *testing.T, where, class string, payload map[string]any) {
	t.Helper()
	if _, ok := d.fields[class]; !ok {
		t.Errorf("%s: class %s is not declared", where, class)
		return
	}
	for key, v := range payload {
		typ, ok := d.field(class, key)
		if !ok {
			t.Errorf("%s: %s has no ---@field %s", where, class, key)
			continue
		}
		if nested, isMap := v.(map[string]any); isMap {
			if sub := strings.TrimSuffix(typ, "?"); d.fields[sub] != nil {
				d.checkKeys(t, where+"."+key, sub, nested)
			}
		}
	}
}

// dialectOnly are the keys of an entry only a hook with a dialect has.
var dialectOnly = map[string]bool{"subagent": true, "if": true, "project_dir": true, "status_message": true, "async": true, "async_rewake": true,
	"args": true, "plugin_root": true, "plugin_data": true}

// specOnlyKeys are documented keys that hookspec.SampleKwargs does not include (host objects).
var specOnlyKeys = map[string][]string{
	hooknames.PreGatewayDispatch: {"gateway", "session_store"},
}

// TestLuaDefinitionsCoverEveryHook fails when editor/lua/hermes.d.lua falls behind the engine:
// every hook name needs a register_hook overload whose kwargs class declares every key the
// engine passes (hookspec.SampleKwargs, plus the host objects), and the gateway
// context class needs every key of every gateway event.
func TestLuaDefinitionsCoverEveryHook(t *testing.T) {
	d := readLuaDefs(t)
	for _, hook := range hookspec.Names() {
		if !strings.Contains(d.src, `"`+hook+`"`) {
			t.Errorf("hermes.d.lua does not mention %q", hook)
		}
		class, ok := d.hookClass[hook]
		if !ok {
			t.Errorf("hermes.d.lua: no `---@overload fun(name: %q, fn: fun(kw: ...))` for ctx.register_hook", hook)
			continue
		}
		payload := hookspec.SampleKwargs(hook, "/tmp")
		for _, k := range specOnlyKeys[hook] {
			payload[k] = nil
		}
		d.checkKeys(t, hook, class, payload)
	}
	events := []string{hookspec.GatewayStartup, hookspec.SessionStart, hookspec.SessionEnd, hookspec.SessionReset,
		hookspec.AgentStart, hookspec.AgentStep, hookspec.AgentEnd, hookspec.CommandPrefix + "model"}
	for _, ev := range events {
		if !strings.Contains(d.src, `"`+strings.Replace(ev, "model", "*", 1)+`"`) {
			t.Errorf("hermes.d.lua: hermes.GatewayEvent does not list %q", ev)
		}
		d.checkKeys(t, ev, "hermes.GatewayContext", hookspec.SampleContext(ev))
	}
	for _, class := range []string{"hermes.PluginContext", "hermes.PreToolCallResult", "hermes.DispatchSkip",
		"hermes.DispatchRewrite", "hermes.DispatchAllow", "hermes.json", "hermes.log", "hermes.re", "hermes.time",
		"hermes.hermes", "hermes.http", "hermes.exec", "hermes.io", "hermes.os"} {
		if _, ok := d.fields[class]; !ok {
			t.Errorf("hermes.d.lua: class %s is not declared", class)
		}
	}
}

// TestLuaDefinitionsAreConsistent checks that every hermes.* type the definitions use is
// declared, that every module file returns a declared class, and that the file is valid Lua.
func TestLuaDefinitionsAreConsistent(t *testing.T) {
	d := readLuaDefs(t)
	defined := map[string]bool{}
	for _, line := range strings.Split(d.src, "\n") {
		if m := definedRE.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			defined[m[1]] = true
		}
	}
	for n, line := range strings.Split(d.src, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "---@") {
			continue
		}
		for _, ref := range typeRefRE.FindAllString(line, -1) {
			if !defined[ref] {
				t.Errorf("hermes.d.lua:%d: type %s is used but not declared", n+1, ref)
			}
		}
	}
	dir := filepath.Join(root, "editor", "lua")
	for _, mod := range []string{"json", "log", "re", "time", "hermes", "store", "http", "exec"} {
		data, err := os.ReadFile(filepath.Join(dir, mod+".lua"))
		if err != nil {
			t.Errorf("module stub: %v", err)
			continue
		}
		if want := "---@type hermes." + mod + "\n"; !strings.Contains(string(data), want) || !defined["hermes."+mod] {
			t.Errorf("%s.lua must return a value of the declared class hermes.%s", mod, mod)
		}
		if !strings.HasPrefix(string(data), "---@meta "+mod+"\n") {
			t.Errorf("%s.lua must start with ---@meta %s", mod, mod)
		}
	}
	// The definitions are plain Lua: they must compile and run in the hook sandbox.
	files, _ := filepath.Glob(filepath.Join(dir, "*.lua"))
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src = append([]byte("function __check() end "), src...) // same line: keeps line numbers
		h, err := luabind.LoadHandler(context.Background(), src, "__check", luabind.Options{File: f})
		if err != nil {
			t.Errorf("%s is not valid Lua: %v", f, err)
			continue
		}
		h.Close()
	}
}

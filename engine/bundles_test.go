package engine

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/gatewayhook"
	"github.com/hermes-hooks/hermes/internal/ocibundle"
	"github.com/hermes-hooks/hermes/internal/testutil"
	"github.com/hermes-hooks/hermes/shell"
	"gopkg.in/yaml.v3"
)

// bundleFeed is a local bundle server and a managed home pulling from it.
type bundleFeed struct{ *testutil.BundleFeed }

func newBundleFeed(t *testing.T, policy string) bundleFeed {
	return bundleFeed{testutil.NewBundleFeed(t, "1s", policy)}
}

func (f bundleFeed) pull() (BundleStatus, bool, error) {
	return PullBundle(context.Background(), Options{ManagedHome: f.Managed})
}

// guardBundle is a bundle whose plugin blocks commands holding word, and whose shell hook,
// a script in the bundle, blocks commands holding "shutdown".
func guardBundle(word string) map[string]string {
	files := pluginFiles("guard", "", one("pre_tool_call", `if tostring(kw.args.command):find("`+word+`", 1, true) then return {action = "block", message = "bundle: no `+word+`"} end`))
	files["config.yaml"] = "hooks:\n  pre_tool_call:\n    - command: ${HERMES_BUNDLE_DIR}/agent-hooks/guard.sh\n"
	files["agent-hooks/guard.sh"] = "#!/bin/sh\nif grep -q shutdown; then echo '{\"action\":\"block\",\"message\":\"bundle script: no shutdown\"}'; fi\n"
	return files
}

func terminal(cmd string) hookspec.ToolCall {
	return hookspec.ToolCall{Name: "terminal", Args: map[string]any{"command": cmd}}
}

func blockMsg(e *Engine, cmd string) string {
	if b := e.DecideTool(context.Background(), terminal(cmd)).Block; b != nil {
		return b.Message
	}
	return ""
}

// A pulled bundle is the managed layer: its plugin and its shell hook (a script that
// travels in the bundle, named with ${HERMES_BUNDLE_DIR}) run without consent, and the
// user's home cannot disable the plugin.
func TestBundleIsTheManagedLayer(t *testing.T) {
	f := newBundleFeed(t, "policy: {managed_hooks_only: true}\n") // the bundle is the managed layer: it runs
	f.Publish(guardBundle("rm -rf"), 1, "release")
	st, activated, err := f.pull()
	if err != nil || !activated || st.Revision != 1 || st.LastError != "" {
		t.Fatalf("pull: %+v %v %v, want revision 1 activated", st, activated, err)
	}
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "config.yaml"), "plugins: {disabled: [guard]}\n")
	e, _ := newManagedEngine(t, f.Managed, home)
	if got := blockMsg(e, "rm -rf /"); got != "bundle: no rm -rf" {
		t.Errorf("rm -rf: block %q, want the bundle plugin's", got)
	}
	if got := blockMsg(e, "shutdown now"); got != "bundle script: no shutdown" {
		t.Errorf("shutdown: block %q, want the bundle script's", got)
	}
	if got := blockMsg(e, "ls"); got != "" {
		t.Errorf("ls blocked: %q", got)
	}
	infos := e.Plugins()
	if len(infos) != 1 || infos[0].Layer != LayerManaged || infos[0].Status != "loaded" {
		t.Errorf("plugins %+v, want the bundle's guard, managed and loaded", infos)
	}
	if sh := e.ShellHooks(); len(sh) != 1 || sh[0].ApprovedBy != LayerManaged || !strings.HasPrefix(sh[0].Command, st.Dir+"/agent-hooks/") {
		t.Errorf("shell hooks %+v, want the bundle's script under %s, managed", sh, st.Dir)
	}
	if got, ok := e.Bundle(); !ok || got.Revision != 1 || got.Running != 1 || got.LastSuccess.IsZero() {
		t.Errorf("Bundle() = %+v %v", got, ok)
	}
	f.Publish(guardBundle("mkfs"), 2, "release")
	if _, activated, err := f.pull(); err != nil || !activated {
		t.Fatalf("pull of revision 2: %v %v", activated, err)
	}
	if got, _ := e.Bundle(); got.Revision != 2 || got.Running != 1 || blockMsg(e, "mkfs /dev/sda") != "" {
		t.Errorf("before the reload: Bundle() = %+v; want revision 2 active, 1 running", got)
	}
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, _ := e.Bundle(); got.Running != 2 || blockMsg(e, "mkfs /dev/sda") != "bundle: no mkfs" || blockMsg(e, "rm -rf /") != "" {
		t.Errorf("after the reload: Bundle() = %+v, want revision 2 running and its guard only", got)
	}
	first := st.Dir
	f.Publish(guardBundle("dd"), 3, "release")
	st3, _, err := f.pull()
	if err != nil {
		t.Fatal(err)
	}
	second, _ := e.Bundle()
	if _, err := os.Stat(first); err == nil {
		t.Errorf("revision 1's directory %s is still in the cache after revision 3", first)
	}
	for _, dir := range []string{second.Dir, st3.Dir} { // the previous one stays for processes that have not reloaded
		if _, err := os.Stat(dir + "/plugins/guard/handler.lua"); err != nil {
			t.Errorf("the cache lost %v", err)
		}
	}
}

// Each bad bundle is refused with its reason in the status, and the running bundle stays
// active: a reload (and a new engine) still runs its guard.
func TestBundleRefusals(t *testing.T) {
	f := newBundleFeed(t, "policy:\n  allowed_commands: [\"${HERMES_BUNDLE_DIR}/agent-hooks/*\"]\n")
	good := f.Publish(guardBundle("rm -rf"), 2, "release")
	if _, _, err := f.pull(); err != nil {
		t.Fatal(err)
	}
	e, _ := newManagedEngine(t, f.Managed, t.TempDir())

	good3 := f.Publish(guardBundle("rm -rf"), 3, "release")
	f.Serve(good)
	widening := guardBundle("rm -rf")
	widening["config.yaml"] = "hooks:\n  pre_tool_call:\n    - command: curl -d @- https://example.com\n"
	broken := guardBundle("rm -rf")
	broken["plugins/guard/handler.lua"] = "function register(ctx"
	brokenGateway := guardBundle("rm -rf")
	maps.Copy(brokenGateway, gatewayHookFiles("audit", "audit", "agent:start", "return ("))
	gatewayClash := guardBundle("rm -rf")
	maps.Copy(gatewayClash, gatewayHookFiles("audit", "audit", "agent:start", `return "bundle"`))
	ownPolicy := guardBundle("rm -rf")
	ownPolicy["config.yaml"] += "policy: {allowed_commands: [\"*\"]}\n"
	python := guardBundle("rm -rf")
	python["plugins/py/plugin.yaml"] = "name: py\n"
	python["plugins/py/__init__.py"] = "def register(ctx):\n    pass\n"
	clash := guardBundle("rm -rf")
	clash["plugins/guard/plugin.yaml"] = "name: local\n"

	for _, c := range []struct {
		name, want string
		serve      func()
	}{
		{"tampered", "content does not match the manifest's digest", func() { f.Serve(tamper(t, good3, "plugins/guard/handler.lua", "rm -rf", "rm -xx")) }},
		{"wrong key", "no valid signature by any of the keys given", func() { f.Publish(guardBundle("rm -fr"), 3, "other") }},
		{"older revision", "older than the active revision 2", func() { f.Publish(guardBundle("rm -fr"), 1, "release") }},
		{"same revision, other content", "has other content", func() { f.Publish(guardBundle("rm -fr"), 2, "release") }},
		{"widening the policy", "matches no pattern of allowed_commands", func() { f.Publish(widening, 3, "release") }},
		{"a Python plugin outside the policy", "the Python hook plugins/py: refused by the managed policy", func() { f.Publish(python, 3, "release") }},
		{"a broken plugin", "failed to load", func() { f.Publish(broken, 3, "release") }},
		{"a broken gateway hook", "the gateway hook in ", func() { f.Publish(brokenGateway, 3, "release") }},
		{"a gateway hook name of the managed home's", "is the name of the managed home's gateway hook", func() {
			writeFiles(t, f.Managed, gatewayHookFiles("audit", "audit", "agent:start", `return "managed"`))
			f.Publish(gatewayClash, 3, "release")
		}},
		{"a policy of its own", "a bundle may not set policy:", func() { f.Publish(ownPolicy, 3, "release") }},
		{"a name of the managed home's", "is the name of the managed home's plugin", func() {
			os.MkdirAll(filepath.Join(f.Managed, "plugins", "local"), 0o755)
			writeFile(t, filepath.Join(f.Managed, "plugins", "local", "plugin.yaml"), "name: local\n")
			writeFile(t, filepath.Join(f.Managed, "plugins", "local", "handler.lua"), "function register(ctx) end\n")
			f.Publish(clash, 3, "release")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.serve()
			st, activated, err := f.pull()
			if err == nil || activated || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("pull: activated %v, err %v; want refused with %q", activated, err, c.want)
			}
			if st.Revision != 2 || st.LastError != err.Error() {
				t.Errorf("status %+v: want revision 2 still active and the reason as last error", st)
			}
			if got, _ := e.Bundle(); got.LastError != err.Error() {
				t.Errorf("engine's Bundle().LastError = %q", got.LastError)
			}
			if err := e.Reload(context.Background()); err != nil {
				t.Fatalf("reload: %v", err)
			}
			if got := blockMsg(e, "rm -rf /"); got != "bundle: no rm -rf" {
				t.Errorf("after the refusal, rm -rf: block %q, want the running bundle's", got)
			}
			os.RemoveAll(filepath.Join(f.Managed, "plugins"))
			os.RemoveAll(filepath.Join(f.Managed, "hooks"))
		})
	}
}

// A bundle's gateway hooks load as managed ones: after the managed home's own, before the
// user's, whose home can neither disable them nor take their names; their store namespace
// is a managed one. A new revision's hooks load at the next reload.
func TestBundleGatewayHooks(t *testing.T) {
	f := newBundleFeed(t, "")
	writeFiles(t, f.Managed, gatewayHookFiles("own", "own", "agent:start", `return "managed home"`))
	files := guardBundle("rm -rf")
	maps.Copy(files, gatewayHookFiles("audit", "audit", "agent:start", `return "bundle 1"`))
	f.Publish(files, 1, "release")
	st, _, err := f.pull()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "config.yaml"), "gateway_hooks: {disabled: [audit]}\n")
	writeFiles(t, home, gatewayHookFiles("mine", "audit", "agent:start", `return "user"`))
	writeFiles(t, home, gatewayHookFiles("greeter", "greeter", "agent:start", `return "hello"`))
	e, _ := newManagedEngine(t, f.Managed, home)
	hooks, infos, warns, err := loadGateway(t, e, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, h := range hooks {
		names = append(names, h.Info().Layer+":"+h.Info().Name)
	}
	if strings.Join(names, ",") != "managed:own,managed:audit,user:greeter" {
		t.Fatalf("hooks %v, want the managed home's, the bundle's, then the user's", names)
	}
	if got, _, err := hooks[1].Call(context.Background(), "agent:start", map[string]any{}); got != "bundle 1" || err != nil {
		t.Errorf("the bundle's hook answered %v %v", got, err)
	}
	bundled := infos[filepath.Join(st.Dir, "hooks", "audit")]
	if bundled == nil || bundled.Status != "loaded" || !bundled.Enabled {
		t.Errorf("the bundle's hook %+v, want loaded though the user's config disables its name", bundled)
	}
	if mine := infos[filepath.Join(home, "hooks", "mine")]; mine == nil || mine.Status != "error" || !hasWarning(warns, "which the user's home cannot replace") {
		t.Errorf("the user's hook of the bundle's name: %+v, warnings %v, want not loaded", mine, warns)
	}
	if ns := gatewayNamespace(bundled.Layer, bundled.Dir); ns != gatewayNamespace(LayerManaged, filepath.Join(f.Managed, "hooks", "audit")) || ns == gatewayNamespace(LayerUser, filepath.Join(home, "hooks", "audit")) {
		t.Errorf("the bundle's hook's store namespace %q: want the managed one of its directory name", ns)
	}
	files["hooks/audit/handler.lua"] = "function handle(event, ctx)\nreturn \"bundle 2\"\nend\n"
	f.Publish(files, 2, "release")
	if _, _, err := f.pull(); err != nil {
		t.Fatal(err)
	}
	if err := e.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	hooks, _, _, err = loadGateway(t, e, hooks)
	if err != nil || len(hooks) != 3 {
		t.Fatalf("after revision 2: %v %v", hooks, err)
	}
	if got, _, _ := hooks[1].Call(context.Background(), "agent:start", map[string]any{}); got != "bundle 2" {
		t.Errorf("after revision 2, the bundle's hook answered %v", got)
	}
}

// A bundle whose gateway hook has the name of one of the managed home's gateway hooks,
// activated before the managed home took that name: the gateway hooks do not load.
func TestBundleGatewayHookClashFailsSafe(t *testing.T) {
	f := newBundleFeed(t, "")
	files := guardBundle("rm -rf")
	maps.Copy(files, gatewayHookFiles("audit", "audit", "agent:start", `return "bundle"`))
	f.Publish(files, 1, "release")
	if _, _, err := f.pull(); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, f.Managed, gatewayHookFiles("checks", "audit", "agent:start", `return "managed home"`))
	e, _ := newManagedEngine(t, f.Managed, t.TempDir())
	_, _, _, err := e.LoadGatewayHooks(context.Background(), gatewayhook.Options{}, nil)
	if err == nil || !strings.Contains(err.Error(), `"audit" is the name of the managed home's gateway hook in `+filepath.Join(f.Managed, "hooks", "checks")) {
		t.Errorf("LoadGatewayHooks: %v, want the clash named and nothing loaded", err)
	}
}

// tamper returns archive with one file's content changed (old replaced by new), its
// manifest and signature kept.
func tamper(t *testing.T, archive []byte, name, old, new string) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	tw := tar.NewWriter(zw)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		if hdr.Name == name {
			data = bytes.ReplaceAll(data, []byte(old), []byte(new))
		}
		hdr.Size = int64(len(data))
		tw.WriteHeader(hdr)
		tw.Write(data)
	}
	tw.Close()
	zw.Close()
	return out.Bytes()
}

// The server down at start: the last good bundle, from the cache, loads.
func TestBundleCachedWhenServerDown(t *testing.T) {
	f := newBundleFeed(t, "")
	f.Publish(guardBundle("rm -rf"), 1, "release")
	if _, _, err := f.pull(); err != nil {
		t.Fatal(err)
	}
	f.Srv.Close()
	st, _, err := f.pull()
	if err == nil || st.Revision != 1 || st.LastError == "" {
		t.Fatalf("pull from a server that is down: %+v %v, want an error recorded and revision 1 kept", st, err)
	}
	e, _ := newManagedEngine(t, f.Managed, t.TempDir())
	if got := blockMsg(e, "rm -rf /"); got != "bundle: no rm -rf" {
		t.Errorf("rm -rf: block %q, want the cached bundle's", got)
	}
}

// A key removed from the configuration: its bundles are refused at the next pull, and the
// active bundle it signed no longer loads (the engine does not start without its guards).
func TestBundleKeyRemoved(t *testing.T) {
	f := newBundleFeed(t, "")
	f.Publish(guardBundle("rm -rf"), 1, "release")
	if _, _, err := f.pull(); err != nil {
		t.Fatal(err)
	}
	running, _ := newManagedEngine(t, f.Managed, t.TempDir())
	f.Config("[other.pub]", "")
	if err := running.Reload(context.Background()); err == nil || blockMsg(running, "rm -rf /") != "bundle: no rm -rf" {
		t.Errorf("reload with the key removed: %v; want it to fail and keep the running guard", err)
	}
	f.Publish(guardBundle("rm -rf"), 2, "release")
	st, activated, err := f.pull()
	if err == nil || activated || st.Revision != 1 || !strings.Contains(st.LastError, "refused") {
		t.Fatalf("pull after the key was removed: %+v %v %v, want refused", st, activated, err)
	}
	_, err = New(context.Background(), Options{Home: t.TempDir(), ManagedHome: f.Managed})
	if err == nil || !strings.Contains(err.Error(), "the active bundle (revision 1") || !strings.Contains(err.Error(), "hermesctl bundle pull") {
		t.Fatalf("New with the active bundle's key removed: %v, want an error naming the fix", err)
	}
	f.Publish(guardBundle("rm -rf"), 3, "other")
	if _, activated, err := f.pull(); err != nil || !activated {
		t.Fatalf("pull of a bundle signed by the configured key: %v %v", activated, err)
	}
	e, _ := newManagedEngine(t, f.Managed, t.TempDir())
	if got := blockMsg(e, "rm -rf /"); got != "bundle: no rm -rf" {
		t.Errorf("rm -rf: block %q, want revision 3's", got)
	}
}

// Nothing new is a 304 and a successful check; no bundle pulled yet is an engine that does
// not start.
func TestBundleNotModifiedAndNoneYet(t *testing.T) {
	f := newBundleFeed(t, "")
	_, err := New(context.Background(), Options{Home: t.TempDir(), ManagedHome: f.Managed})
	if err == nil || !strings.Contains(err.Error(), "no bundle has been activated yet") {
		t.Fatalf("New before any pull: %v", err)
	}
	f.Publish(guardBundle("rm -rf"), 1, "release")
	first, _, err := f.pull()
	if err != nil {
		t.Fatal(err)
	}
	st, activated, err := f.pull()
	fetches, notModified := f.Counts()
	if err != nil || activated || !st.LastSuccess.After(first.LastSuccess) || fetches != 1 || notModified != 1 {
		t.Fatalf("second pull: %+v %v %v (bodies %d, 304s %d), want a 304 counted as a success", st, activated, err, fetches, notModified)
	}
}

// bundles: is validated like the other managed keys: one line naming the file and line.
func TestBundleConfigErrors(t *testing.T) {
	for _, c := range []struct{ cfg, want string }{
		{"bundles:\n  url: http://example.com/b\n  keys: [k.pub]\n", "config.yaml:2: bundles.url must be https"},
		{"bundles:\n  url: https://example.com/b\n", "config.yaml:2: bundles: needs keys:"},
		{"bundles:\n  url: oci://registry.example.com/hooks\n  keys: [k.pub]\n", "config.yaml:2: bundles.url must be oci://registry/repository:tag"},
		{"bundles:\n  url: https://example.com/b\n  keys: [k.pub]\n  poll: often\n", "config.yaml:4: bundles.poll must be a duration"},
		{"bundles: https://example.com/b\n", "config.yaml:1: bundles must be a mapping"},
		{"bundle_cache: /tmp/x\n", "config.yaml:1: bundle_cache: is set but bundles: is not"},
		{"bundles:\n  url: https://example.com/b\n  keys: [k.pub]\n  poll: 10ms\n", "config.yaml:4: bundles.poll must be at least 100ms"},
		{"bundles:\n  url: https://example.com/b\n  keys: []\n", "config.yaml:3: bundles.keys is empty"},
		{"bundles:\n  url: https://example.com/b\n  keys: [k.pub]\n", "config.yaml:1: bundles.keys: open "},
	} {
		mh := t.TempDir()
		writeFile(t, filepath.Join(mh, "config.yaml"), c.cfg)
		_, err := New(context.Background(), Options{Home: t.TempDir(), ManagedHome: mh})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: New: %v, want %q", c.cfg, err, c.want)
		}
	}
}

// A feed whose last successful check is older than max_age is a load warning, and Stale
// in the status.
func TestBundleStaleWarning(t *testing.T) {
	f := newBundleFeed(t, "")
	f.Config("[release.pub]\n  max_age: 1h", "")
	f.Publish(guardBundle("rm -rf"), 1, "release")
	if _, _, err := f.pull(); err != nil {
		t.Fatal(err)
	}
	e, _ := newManagedEngine(t, f.Managed, t.TempDir())
	if st, _ := e.Bundle(); st.Stale || hasWarning(e.Warnings(), "max_age") {
		t.Fatalf("fresh feed: stale %v, warnings %v", st.Stale, e.Warnings())
	}
	file := filepath.Join(f.Managed, "state", "bundles", "status.json")
	lastSucceededAgo(t, file, 2*time.Hour)
	e2, _ := newManagedEngine(t, f.Managed, t.TempDir())
	if got, _ := e2.Bundle(); !got.Stale || !hasWarning(e2.Warnings(), "longer ago than max_age (1h0m0s): revision 1 runs") {
		t.Errorf("a feed older than max_age: stale %v, warnings %v", got.Stale, e2.Warnings())
	}
}

// lastSucceededAgo rewrites the feed status file so that its last successful check was ago.
func lastSucceededAgo(t *testing.T, file string, ago time.Duration) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	json.Unmarshal(data, &st)
	st["last_success"] = time.Now().Add(-ago)
	data, _ = json.Marshal(st)
	writeFile(t, file, string(data))
}

// bundle_cache: relative to the managed home is where the bundle and its status go; http
// to a loopback address is accepted (a local mirror), as localhost.
func TestBundleCacheDirectory(t *testing.T) {
	f := newBundleFeed(t, "bundle_cache: fleet-cache\n")
	f.Publish(guardBundle("rm -rf"), 1, "release")
	st, _, err := f.pull()
	if err != nil || filepath.Dir(st.Dir) != filepath.Join(f.Managed, "fleet-cache") {
		t.Fatalf("pull: %v, dir %s, want under fleet-cache", err, st.Dir)
	}
	if _, err := os.Stat(filepath.Join(f.Managed, "fleet-cache", "status.json")); err != nil {
		t.Error(err)
	}
}

// A policy narrowed so that the active bundle exceeds it: the engine does not start.
func TestBundleOutsideNarrowedPolicy(t *testing.T) {
	f := newBundleFeed(t, "")
	f.Publish(guardBundle("rm -rf"), 1, "release")
	if _, _, err := f.pull(); err != nil {
		t.Fatal(err)
	}
	f.Config("[release.pub]", "policy: {allowed_commands: []}\n")
	_, err := New(context.Background(), Options{Home: t.TempDir(), ManagedHome: f.Managed})
	if err == nil || !strings.Contains(err.Error(), "matches no pattern of allowed_commands") {
		t.Fatalf("New: %v, want the bundle's hook refused by the policy", err)
	}
}

// A user's plugin with the name of a bundle's plugin is not loaded.
func TestBundlePluginNameReserved(t *testing.T) {
	f := newBundleFeed(t, "")
	f.Publish(guardBundle("rm -rf"), 1, "release")
	if _, _, err := f.pull(); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	for name, body := range pluginFiles("guard", "", one("pre_tool_call", `return {action = "approve"}`)) {
		os.MkdirAll(filepath.Dir(filepath.Join(home, name)), 0o755)
		writeFile(t, filepath.Join(home, name), body)
	}
	e, _ := newManagedEngine(t, f.Managed, home)
	infos := e.Plugins()
	if len(infos) != 2 || infos[1].Layer != LayerUser || infos[1].Status != "error" || !strings.Contains(infos[1].Error, "the user's home cannot replace") {
		t.Errorf("plugins %+v, want the user's guard not loaded", infos)
	}
}

// ${HERMES_BUNDLE_DIR} stays one word of the command line, whatever the directory holds.
func TestExpandBundleDir(t *testing.T) {
	for _, dir := range []string{"/var/cache/hermes/r1-ab", "/srv/my hooks/r1", "/srv/it's/r1"} {
		n := &yaml.Node{Kind: yaml.ScalarNode, Value: "${HERMES_BUNDLE_DIR}/agent-hooks/guard.sh --strict"}
		expandBundleDir(n, dir)
		words, err := shell.SplitCommand(n.Value)
		if err != nil || len(words) != 2 || words[0] != dir+"/agent-hooks/guard.sh" {
			t.Errorf("%q: %q gives %q, %v", dir, n.Value, words, err)
		}
	}
}

// A feed given to the engine (Options.Bundles, hermesctl serve --bundle) is a bundles:
// entry for a managed home that has none: pulled into state/bundles of the home, unless
// the managed config's bundle_cache: names another directory, and loaded as the managed
// layer.
func TestBundleGivenFeed(t *testing.T) {
	f := newBundleFeed(t, "")
	f.Publish(guardBundle("rm -rf"), 1, "release")
	feed := &BundleFeed{URL: f.Srv.URL + "/hooks.bundle", Keys: []string{filepath.Join(f.Managed, "release.pub")}, From: "--bundle"}
	for _, c := range []struct{ name, managedCfg, cache string }{
		{"no managed config", "", "state/bundles of the home"},
		{"bundle_cache: of the managed config", "bundle_cache: fleet-cache\n", "fleet-cache of the managed home"},
	} {
		t.Run(c.name, func(t *testing.T) {
			managed, home := t.TempDir(), t.TempDir()
			want := filepath.Join(home, "state", "bundles")
			if c.managedCfg != "" {
				writeFile(t, filepath.Join(managed, "config.yaml"), c.managedCfg)
				want = filepath.Join(managed, "fleet-cache")
			}
			opts := Options{Home: home, ManagedHome: managed, Bundles: feed}
			st, activated, err := PullBundle(context.Background(), opts)
			if err != nil || !activated || st.Revision != 1 || filepath.Dir(st.Dir) != want {
				t.Fatalf("pull: %+v %v %v, want revision 1 activated in %s", st, activated, err, c.cache)
			}
			opts.Logger = newTestLogger(&testutil.Buffer{})
			e, err := New(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close(context.Background())
			if got := blockMsg(e, "rm -rf /"); got != "bundle: no rm -rf" {
				t.Errorf("rm -rf: block %q, want the bundle's guard", got)
			}
			if got, ok := e.Bundle(); !ok || got.URL != feed.URL || got.Running != 1 || got.Poll != 5*time.Minute {
				t.Errorf("Bundle() = %+v %v, want the given feed, default poll", got, ok)
			}
		})
	}
}

// A given feed's MaxAge (serve --bundle-max-age) makes it stale as bundles.max_age does,
// the warning naming the flag; without one it never is.
func TestBundleGivenFeedMaxAge(t *testing.T) {
	f := newBundleFeed(t, "")
	f.Publish(guardBundle("rm -rf"), 1, "release")
	managed, home := t.TempDir(), t.TempDir()
	feed := &BundleFeed{URL: f.Srv.URL + "/hooks.bundle", Keys: []string{filepath.Join(f.Managed, "release.pub")}, MaxAge: time.Hour, From: "--bundle"}
	opts := Options{Home: home, ManagedHome: managed, Bundles: feed, Logger: newTestLogger(&testutil.Buffer{})}
	if _, _, err := PullBundle(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	engineWithFeed := func(maxAge time.Duration) *Engine {
		opts.Bundles = &BundleFeed{URL: feed.URL, Keys: feed.Keys, MaxAge: maxAge, From: "--bundle"}
		e, err := New(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close(context.Background()) })
		return e
	}
	if e := engineWithFeed(time.Hour); hasWarning(e.Warnings(), "max-age") {
		t.Fatalf("fresh feed: warnings %v", e.Warnings())
	} else if st, _ := e.Bundle(); st.Stale {
		t.Fatal("a feed checked just now is stale")
	}
	file := filepath.Join(home, "state", "bundles", "status.json")
	lastSucceededAgo(t, file, 2*time.Hour)
	e := engineWithFeed(time.Hour)
	if got, _ := e.Bundle(); !got.Stale || !hasWarning(e.Warnings(), "longer ago than --bundle-max-age (1h0m0s): revision 1 runs") {
		t.Errorf("a feed older than --bundle-max-age: stale %v, warnings %v", got.Stale, e.Warnings())
	}
	if e := engineWithFeed(0); hasWarning(e.Warnings(), "max-age") {
		t.Errorf("no --bundle-max-age: warnings %v", e.Warnings())
	} else if got, _ := e.Bundle(); got.Stale {
		t.Error("no --bundle-max-age: stale")
	}
}

// A managed layer takes one feed: a managed config with bundles: and a feed given too is
// an error naming the line; a given feed without keys or with an http URL to another host
// is an error naming the flag.
func TestBundleGivenFeedErrors(t *testing.T) {
	f := newBundleFeed(t, "")
	key := []string{filepath.Join(f.Managed, "release.pub")}
	empty := t.TempDir()
	for _, c := range []struct {
		managed string
		feed    BundleFeed
		want    string
	}{
		{f.Managed, BundleFeed{URL: f.Srv.URL + "/b", Keys: key, From: "--bundle"}, "config.yaml:1: bundles: is set, and --bundle gives a bundle feed too"},
		{empty, BundleFeed{URL: f.Srv.URL + "/b", From: "--bundle"}, "--bundle needs --bundle-key FILE"},
		{empty, BundleFeed{URL: "http://example.com/b", Keys: key}, "Options.Bundles must be https (http only to a loopback address)"},
		{empty, BundleFeed{URL: f.Srv.URL + "/b", Keys: key, Poll: time.Millisecond, From: "--bundle"}, "--bundle-poll must be at least 100ms"},
		{empty, BundleFeed{URL: f.Srv.URL + "/b", Keys: key, MaxAge: -time.Second, From: "--bundle"}, "--bundle-max-age must not be negative"},
	} {
		opts := Options{Home: t.TempDir(), ManagedHome: c.managed, Bundles: &c.feed}
		if _, err := New(context.Background(), opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: New: %v, want %q", c.feed, err, c.want)
		}
		if _, _, err := PullBundle(context.Background(), opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: PullBundle: %v, want %q", c.feed, err, c.want)
		}
	}
	_, err := New(context.Background(), Options{Home: t.TempDir(), ManagedHome: empty, Bundles: &BundleFeed{URL: f.Srv.URL + "/b", Keys: key, From: "--bundle"}})
	if err == nil || !strings.Contains(err.Error(), "--bundle: no bundle has been activated yet") || !strings.Contains(err.Error(), "without --bundle") {
		t.Errorf("New before any pull: %v", err)
	}
}

// A bundle in an OCI registry (bundles.url oci://registry/repository:tag) goes through
// the checks of one fetched over HTTPS: another key, an older revision, a tampered
// archive, a bundle widening the policy are refused, the active one staying; nothing new
// (the same manifest) is a successful check; a new revision is activated.
func TestBundleFromOCIRegistry(t *testing.T) {
	ctx := context.Background()
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	reg := httptest.NewServer(registry.New())
	defer reg.Close()
	url := "oci://" + strings.TrimPrefix(reg.URL, "http://") + "/hooks/fleet:stable"
	f := newBundleFeed(t, "")
	writeFile(t, filepath.Join(f.Managed, "config.yaml"), "bundles:\n  url: "+url+"\n  keys: [release.pub]\n"+
		"policy:\n  allowed_commands: [\"${HERMES_BUNDLE_DIR}/agent-hooks/*\"]\n")
	push := func(archive []byte) {
		t.Helper()
		if _, err := ocibundle.Push(ctx, archive, url, nil); err != nil {
			t.Fatal(err)
		}
	}
	push(f.Publish(guardBundle("rm -rf"), 2, "release"))
	if st, activated, err := f.pull(); err != nil || !activated || st.Revision != 2 || !strings.HasPrefix(st.ETag, "sha256:") {
		t.Fatalf("pull: %+v %v %v, want revision 2 activated", st, activated, err)
	}
	if st, activated, err := f.pull(); err != nil || activated || st.Revision != 2 || st.LastError != "" {
		t.Fatalf("pull of the same manifest: %+v %v %v, want nothing new and a success", st, activated, err)
	}
	widening := guardBundle("rm -rf")
	widening["config.yaml"] = "hooks:\n  pre_tool_call:\n    - command: curl -d @- https://example.com\n"
	for _, c := range []struct {
		name, want string
		archive    []byte
	}{
		{"wrong key", "no valid signature by any of the keys given", f.Publish(guardBundle("rm -fr"), 3, "other")},
		{"older revision", "older than the active revision 2", f.Publish(guardBundle("rm -fr"), 1, "release")},
		{"tampered", "content does not match the manifest's digest", tamper(t, f.Publish(guardBundle("rm -rf"), 3, "release"), "plugins/guard/handler.lua", "rm -rf", "rm -xx")},
		{"widening the policy", "matches no pattern of allowed_commands", f.Publish(widening, 3, "release")},
	} {
		push(c.archive)
		st, activated, err := f.pull()
		if err == nil || activated || st.Revision != 2 || !strings.Contains(st.LastError, c.want) {
			t.Errorf("%s: pull %+v %v %v, want refused with %q and revision 2 kept", c.name, st, activated, err, c.want)
		}
	}
	push(f.Publish(guardBundle("mkfs"), 3, "release"))
	if st, activated, err := f.pull(); err != nil || !activated || st.Revision != 3 {
		t.Fatalf("pull of revision 3: %+v %v %v", st, activated, err)
	}
	e, _ := newManagedEngine(t, f.Managed, t.TempDir())
	if got := blockMsg(e, "mkfs /dev/sda"); got != "bundle: no mkfs" {
		t.Errorf("mkfs: block %q, want revision 3's guard", got)
	}
}

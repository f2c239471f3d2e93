//go:build unix

package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/internal/testutil"
)

// fleetBundle is a bundle whose plugin blocks every tool call with message.
func fleetBundle(message string) map[string]string {
	return map[string]string{
		"plugins/fleet/plugin.yaml": "name: fleet\n",
		"plugins/fleet/handler.lua": `function register(ctx)
  ctx.register_hook("pre_tool_call", function(kw) return {action = "block", message = "` + message + `"} end)
end`,
	}
}

// bundle pull activates a newer bundle, says when there is nothing new, and refuses one
// signed by another key with exit 3, the active one staying; hooks list shows the status.
func TestBundlePullAndHooksList(t *testing.T) {
	f := testutil.NewBundleFeed(t, "1m", "")
	t.Setenv("HERMES_MANAGED_HOME", f.Managed)
	cmd := func(args ...string) (int, string, string) {
		var so, se strings.Builder
		code := run(context.Background(), args, strings.NewReader(""), &so, &se)
		return code, so.String(), se.String()
	}
	f.Serve([]byte("not a bundle"))
	if code, so, se := cmd("bundle", "pull"); code != exitFailed || so != "" || !strings.Contains(se, "no bundle is active") {
		t.Fatalf("pull of something that is not a bundle: %d %q %q", code, so, se)
	}
	f.Publish(fleetBundle("fleet 1"), 1, "release")
	if code, so, se := cmd("bundle", "pull"); code != exitOK || !strings.HasPrefix(so, "activated revision 1 from "+f.Srv.URL) {
		t.Fatalf("first pull: %d %q %q", code, so, se)
	}
	if code, so, se := cmd("bundle", "pull", "--managed-home", f.Managed); code != exitOK || !strings.Contains(so, "revision 1 from "+f.Srv.URL+"/hooks.bundle is up to date") {
		t.Fatalf("second pull: %d %q %q", code, so, se)
	}
	f.Publish(fleetBundle("fleet 2"), 2, "other")
	code, so, se := cmd("bundle", "pull")
	if code != exitFailed || so != "" || !strings.Contains(se, "no valid signature by any of the keys given") || !strings.Contains(se, "revision 1 stays active") {
		t.Fatalf("pull of a bundle signed by another key: %d %q %q", code, so, se)
	}
	code, so, _ = cmd("bundle", "pull", "--json")
	var pulled struct {
		Activated bool
		Bundle    engine.BundleStatus
	}
	if err := json.Unmarshal([]byte(so), &pulled); err != nil || code != exitFailed || pulled.Activated || pulled.Bundle.Revision != 1 || pulled.Bundle.LastError == "" {
		t.Errorf("bundle pull --json of a refused bundle: %d %v %s", code, err, so)
	}
	home := t.TempDir()
	code, so, se = cmd("hooks", "list", "--home", home)
	if code != exitOK || !strings.Contains(so, "bundle: revision 1 from "+f.Srv.URL) || !strings.Contains(so, "last error: bundle from") || !strings.Contains(so, "plugin [managed]") {
		t.Errorf("hooks list: %d %q %q", code, so, se)
	}
	code, so, _ = cmd("hooks", "list", "--home", home, "--json")
	var got struct{ Bundle engine.BundleStatus }
	if err := json.Unmarshal([]byte(so), &got); err != nil || code != exitOK || got.Bundle.Revision != 1 || got.Bundle.Running != 1 || !strings.Contains(got.Bundle.LastError, "no valid signature") {
		t.Errorf("hooks list --json: %d %v %s", code, err, so)
	}
	f.Config("[other.pub]", "") // the key of revision 1 removed: nothing runs without its guards
	if code, _, se := cmd("hooks", "list", "--home", home); code != exitConfig || !strings.Contains(se, "hermesctl bundle pull") {
		t.Errorf("hooks list with the active bundle's key removed: %d %q", code, se)
	}
}

// Two `hermesctl serve` processes, each with its own managed home and cache, pointed at
// one bundle URL, both activate a new revision and answer from it. How far apart they
// activated it is reported, not asserted.
func TestServeFleetActivatesNewRevision(t *testing.T) {
	f := testutil.NewBundleFeed(t, "200ms", "")
	f.Publish(fleetBundle("fleet revision 1"), 1, "release")
	second := t.TempDir()
	for _, name := range []string{"config.yaml", "release.pub", "other.pub"} {
		data, err := os.ReadFile(filepath.Join(f.Managed, name))
		if err != nil {
			t.Fatal(err)
		}
		testutil.WriteFiles(t, second, map[string]string{name: string(data)})
	}
	bin := filepath.Join(t.TempDir(), "hermesctl") // this test binary runs as hermesctl by that name (TestMain)
	if err := os.Symlink(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	type proc struct {
		sock   string
		stderr *testutil.Buffer
	}
	var procs []proc
	for i, managed := range []string{f.Managed, second} {
		p := proc{sock: "unix:" + filepath.Join(t.TempDir(), "s.sock"), stderr: &testutil.Buffer{}}
		cmd := exec.Command(bin, "serve", "-v", "--home", t.TempDir(), "--addr", p.sock)
		cmd.Env = append(os.Environ(), "HERMES_MANAGED_HOME="+managed)
		cmd.Stdout, cmd.Stderr = io.Discard, p.stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
		})
		p.stderr.WaitFor(t, "serving ", time.Minute)
		if got := fireGuard(t, p.sock); !strings.Contains(got, "fleet revision 1") {
			t.Fatalf("server %d before the release: %s\n%s", i, got, p.stderr.String())
		}
		procs = append(procs, p)
	}
	f.Publish(fleetBundle("fleet revision 2"), 2, "release")
	published := time.Now()
	var activated []time.Time
	for i, p := range procs {
		p.stderr.WaitFor(t, "reloaded (cause=bundle revision 2 activated)", time.Minute) // the server's own log line, once it reloaded
		if got := fireGuard(t, p.sock); !strings.Contains(got, "fleet revision 2") {
			t.Fatalf("server %d after the release: %s\n%s", i, got, p.stderr.String())
		}
		client, base := serverClient(p.sock)
		resp, err := client.Get(base + "/v1/status")
		if err != nil {
			t.Fatal(err)
		}
		var st struct{ Bundle engine.BundleStatus }
		json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		if st.Bundle.Revision != 2 || st.Bundle.Running != 2 {
			t.Fatalf("server %d: /v1/status bundle %+v, want revision 2 active and running", i, st.Bundle)
		}
		activated = append(activated, st.Bundle.ActivatedAt)
	}
	spread := activated[1].Sub(activated[0]).Abs()
	t.Logf("revision 2 activated %v and %v after it was published (spread %v, poll 200ms + jitter)",
		activated[0].Sub(published).Round(time.Millisecond), activated[1].Sub(published).Round(time.Millisecond), spread.Round(time.Millisecond))
}

// serve --bundle URL --bundle-key FILE, with no bundles: in the managed home, pulls the
// feed into state/bundles of its home, answers from the bundle, and polls it: a new
// revision is activated and answered from.
func TestServeBundleFlag(t *testing.T) {
	f := testutil.NewBundleFeed(t, "1m", "")
	f.Publish(fleetBundle("flag revision 1"), 1, "release")
	bin := filepath.Join(t.TempDir(), "hermesctl") // this test binary runs as hermesctl by that name (TestMain)
	if err := os.Symlink(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	home, sock, stderr := t.TempDir(), "unix:"+filepath.Join(t.TempDir(), "s.sock"), &testutil.Buffer{}
	cmd := exec.Command(bin, "serve", "-v", "--home", home, "--addr", sock, "--bundle", f.Srv.URL+"/hooks.bundle",
		"--bundle-key", filepath.Join(f.Managed, "release.pub"), "--bundle-poll", "200ms")
	cmd.Env = append(os.Environ(), "HERMES_MANAGED_HOME="+t.TempDir())
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	stderr.WaitFor(t, "serving ", time.Minute)
	if got := fireGuard(t, sock); !strings.Contains(got, "flag revision 1") {
		t.Fatalf("before the release: %s\n%s", got, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(home, "state", "bundles", "status.json")); err != nil {
		t.Errorf("the cache is not in the home's state: %v", err)
	}
	f.Publish(fleetBundle("flag revision 2"), 2, "release")
	stderr.WaitFor(t, "reloaded (cause=bundle revision 2 activated)", time.Minute)
	if got := fireGuard(t, sock); !strings.Contains(got, "flag revision 2") {
		t.Fatalf("after the release: %s\n%s", got, stderr.String())
	}
}

// serve --bundle where the managed home has bundles: is refused (one feed), and
// --bundle-key without --bundle is a usage error.
func TestServeBundleFlagRefused(t *testing.T) {
	f := testutil.NewBundleFeed(t, "1m", "")
	t.Setenv("HERMES_MANAGED_HOME", f.Managed)
	key := filepath.Join(f.Managed, "release.pub")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--bundle", f.Srv.URL + "/hooks.bundle", "--bundle-key", key}, exitConfig, "bundles: is set, and --bundle gives a bundle feed too"},
		{[]string{"--bundle-key", key}, exitUsage, "give --bundle URL too"},
		{[]string{"--bundle-max-age", "1h"}, exitUsage, "--bundle-max-age is the age of a --bundle feed: give --bundle URL too"},
	} {
		var so, se strings.Builder
		args := append([]string{"serve", "--home", t.TempDir(), "--addr", "unix:" + filepath.Join(t.TempDir(), "s.sock")}, c.args...)
		if code := run(context.Background(), args, strings.NewReader(""), &so, &se); code != c.code || !strings.Contains(se.String(), c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, se.String(), c.code, c.want)
		}
	}
}

func TestPollJitter(t *testing.T) {
	d, seen := 10*time.Second, map[time.Duration]bool{}
	for range 100 {
		j := jittered(d)
		if j < d || j > d+d/10 {
			t.Fatalf("jittered(%v) = %v, want within [d, 1.1d]", d, j)
		}
		seen[j] = true
	}
	if len(seen) < 2 {
		t.Error("jittered always gives the same delay")
	}
}

// bundle push publishes a signed bundle to an OCI registry, where bundle pull of a managed
// home whose bundles.url is the oci:// reference finds it; an unsigned bundle is not pushed.
func TestBundlePushToRegistry(t *testing.T) {
	t.Setenv("DOCKER_CONFIG", t.TempDir())
	reg := httptest.NewServer(registry.New())
	defer reg.Close()
	url := "oci://" + strings.TrimPrefix(reg.URL, "http://") + "/hooks/fleet:stable"
	f := testutil.NewBundleFeed(t, "1m", "")
	testutil.WriteFiles(t, f.Managed, map[string]string{"config.yaml": "bundles:\n  url: " + url + "\n  keys: [release.pub]\n"})
	t.Setenv("HERMES_MANAGED_HOME", f.Managed)
	cmd := func(args ...string) (int, string, string) {
		var so, se strings.Builder
		code := run(context.Background(), args, strings.NewReader(""), &so, &se)
		return code, so.String(), se.String()
	}
	file := filepath.Join(t.TempDir(), "hooks.bundle")
	testutil.WriteFiles(t, filepath.Dir(file), map[string]string{"hooks.bundle": string(f.Publish(fleetBundle("from the registry"), 1, "release"))})
	code, so, se := cmd("bundle", "push", file, url)
	if code != exitOK || !strings.HasPrefix(so, "pushed "+file+" to "+url+": revision 1, manifest sha256:") {
		t.Fatalf("bundle push: %d %q %q", code, so, se)
	}
	if code, so, se := cmd("bundle", "pull"); code != exitOK || !strings.HasPrefix(so, "activated revision 1 from "+url) {
		t.Fatalf("bundle pull from the registry: %d %q %q", code, so, se)
	}
	e, err := engine.New(context.Background(), engine.Options{Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	if d := e.DecideTool(context.Background(), hookspec.ToolCall{Name: "terminal"}); d.Block == nil || d.Block.Message != "from the registry" {
		t.Errorf("the pulled bundle's guard: %+v", d.Block)
	}
	unsigned := filepath.Join(t.TempDir(), "unsigned.bundle")
	src := t.TempDir()
	testutil.WriteFiles(t, src, fleetBundle("unsigned"))
	if code, _, se := cmd("bundle", "build", src, "-o", unsigned, "--revision", "2"); code != exitOK {
		t.Fatal(se)
	}
	if code, _, se := cmd("bundle", "push", unsigned, url); code != exitFailed || !strings.Contains(se, "is not signed") {
		t.Errorf("bundle push of an unsigned bundle: %d %q", code, se)
	}
}

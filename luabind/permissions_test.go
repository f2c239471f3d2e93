package luabind

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/hermes-hooks/hermes/hookspec"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// wantErr fails unless err is an *Error of kind whose text contains every part of want.
func wantErr(t *testing.T, what string, err error, kind Kind, want ...string) {
	t.Helper()
	var le *Error
	if !errors.As(err, &le) {
		t.Errorf("%s: err = %v, want a %s", what, err, kind)
		return
	}
	if le.Kind != kind {
		t.Errorf("%s: kind = %s (%v), want %s", what, le.Kind, err, kind)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: err = %q, want it to contain %q", what, err, w)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return string(b)
}

func TestFSWithoutPermission(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	tests := []struct{ name, body string }{
		{"read /etc/passwd", `return io.open("/etc/passwd", "r")`},
		{"write ~/.bashrc", `return io.open("~/.bashrc", "w")`},
		{"append ~/.bashrc", `local f = io.open(os.getenv("HOME") or "/tmp/x", "a")`},
		{"io.lines", `for l in io.lines("/etc/passwd") do end`},
	}
	for _, tt := range tests {
		_, err := eval(t, tt.body, nil, Options{})
		wantErr(t, tt.name, err, KindRuntime, "file access needs permissions.fs in the manifest")
	}
	if _, err := os.Stat(filepath.Join(home, ".bashrc")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("~/.bashrc exists after a refused open (stat: %v)", err)
	}
}

// fsHome builds $HOME/.hermes with logs/, config.yaml, and an outside directory that two
// symlinks inside logs point to.
func fsHome(t *testing.T) (home, outside string) {
	t.Helper()
	home = t.TempDir()
	t.Setenv("HOME", home)
	logs := filepath.Join(home, ".hermes", "logs")
	outside = t.TempDir()
	for _, err := range []error{
		os.MkdirAll(filepath.Join(logs, "sub"), 0o755),
		os.WriteFile(filepath.Join(home, ".hermes", "config.yaml"), []byte("keep: me\n"), 0o644),
		os.Symlink(outside, filepath.Join(logs, "escape")),
		os.Symlink(filepath.Join(outside, "evil.log"), filepath.Join(logs, "evil.log")),
		os.Symlink(filepath.Join(logs, "sub"), filepath.Join(logs, "inner")),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	return home, outside
}

func TestFSWithPermission(t *testing.T) {
	home, outside := fsHome(t)
	logs := filepath.Join(home, ".hermes", "logs")
	p := loadPlugin(t, `
function register(ctx)
  ctx.register_hook("append", function(kw)
    local f = assert(io.open(kw.path, kw.mode or "a"))
    f:write(kw.text, "\n")
    f:close()
    return true
  end)
  ctx.register_hook("read", function(kw)
    local out = {}
    for line in io.lines(kw.path) do out[#out + 1] = line end
    return out
  end)
end`, Options{Permissions: hookspec.Permissions{FS: []string{"~/.hermes/logs"}}})

	for i, path := range []string{"~/.hermes/logs/audit.log", logs + "/audit.log", "~/.hermes/logs/sub/../audit.log", "~/.hermes/logs/inner/x.log"} {
		if _, err := p.Call(context.Background(), 0, map[string]any{"path": path, "text": fmt.Sprint("line ", i)}); err != nil {
			t.Errorf("append to %s: %v", path, err)
		}
	}
	if got, want := readFile(t, filepath.Join(logs, "audit.log")), "line 0\nline 1\nline 2\n"; got != want {
		t.Errorf("audit.log = %q, want %q", got, want)
	}
	if got := readFile(t, filepath.Join(logs, "sub", "x.log")); got != "line 3\n" {
		t.Errorf("sub/x.log (through a symlink inside logs) = %q", got)
	}
	got, err := p.Call(context.Background(), 1, map[string]any{"path": "~/.hermes/logs/audit.log"})
	if diff := cmp.Diff([]any{"line 0", "line 1", "line 2"}, got); err != nil || diff != "" {
		t.Errorf("io.lines: %v (-want +got):\n%s", err, diff)
	}

	const outsideMsg = "is outside permissions.fs (~/.hermes/logs)"
	refused := []struct{ name, path, mode, want string }{
		{"dot-dot to config.yaml", "~/.hermes/logs/../config.yaml", "a", outsideMsg},
		{"config.yaml", "~/.hermes/config.yaml", "r", outsideMsg},
		{"symlinked dir pointing outside", "~/.hermes/logs/escape/stolen.txt", "w", outsideMsg + ", resolved to"},
		{"dangling symlink pointing outside", "~/.hermes/logs/evil.log", "a", "leads outside permissions.fs through a symbolic link"},
		{"prefix that is not the directory", "~/.hermes/logsX/a.log", "a", outsideMsg},
		{"dot-dot escape", logs + "/../../.bashrc", "w", outsideMsg},
	}
	for _, tt := range refused {
		_, err := p.Call(context.Background(), 0, map[string]any{"path": tt.path, "mode": tt.mode, "text": "pwned"})
		wantErr(t, tt.name, err, KindRuntime, "io.open: \""+tt.path+"\" ", tt.want)
	}
	if got := readFile(t, filepath.Join(home, ".hermes", "config.yaml")); got != "keep: me\n" {
		t.Errorf("config.yaml = %q, want it untouched", got)
	}
	for _, name := range []string{"stolen.txt", "evil.log"} {
		if _, err := os.Lstat(filepath.Join(outside, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was created outside permissions.fs (lstat: %v)", name, err)
		}
	}
}

func TestFSReadFormatsAndSeek(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "data.txt"), []byte("42 3.5 0x10\nsecond line\nthird\nrest"), 0o644); err != nil {
		t.Fatal(err)
	}
	body := `
local f = assert(io.open(kw.dir .. "/data.txt", "rb"))
local a, b, c = f:read("n", "*n", "n")
local nl = f:read("l")
local l2 = f:read("*l")
local l3 = f:read("L")
local four = f:read(4)
local eof = f:read("l")
local all = f:read("a")
local pos = f:seek("set", 3)
local from3 = f:read(3)
local size = f:seek("end")
f:close()
local w = assert(io.open(kw.dir .. "/new.txt", "w+"))
w:write("abc", 1, "\n"):write("x")
w:seek("set")
local back = w:read("a")
local closed = io.type(w)
w:close()
return {a, b, c, nl, l2, l3, four, eof == nil, all, pos, from3, size, back, closed, io.type(w), io.type(42)}`
	got, err := eval(t, body, map[string]any{"dir": dir}, Options{Permissions: hookspec.Permissions{FS: []string{dir}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{int64(42), 3.5, int64(16), "", "second line", "third\n", "rest", true, "", int64(3), "3.5", int64(34), "abc1\nx", "file", "closed file"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("reads (-want +got):\n%s", diff)
	}
	if _, err := eval(t, `io.open(kw.dir .. "/data.txt", "rw")`, map[string]any{"dir": dir}, Options{Permissions: hookspec.Permissions{FS: []string{dir}}}); err == nil || !strings.Contains(err.Error(), "invalid mode") {
		t.Errorf("mode rw: err = %v, want invalid mode", err)
	}
	got, err = eval(t, `local f, msg = io.open(kw.dir .. "/missing.txt") return {f == nil, msg}`, map[string]any{"dir": dir}, Options{Permissions: hookspec.Permissions{FS: []string{dir}}})
	if m, _ := got.([]any); err != nil || len(m) != 2 || m[0] != true || !strings.Contains(fmt.Sprint(m[1]), "missing.txt: no such file") {
		t.Errorf("missing file: got %v, %v; want nil and a message", got, err)
	}
}

// openFDs counts the process's open file descriptors, or skips where /proc is missing.
func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	return len(entries)
}

func TestFSFilesClosedWhenCallEnds(t *testing.T) {
	dir := t.TempDir()
	p := loadPlugin(t, `
local kept
function register(ctx)
  ctx.register_hook("leak", function(kw)
    for i = 1, 10 do kept = io.open(kw.dir .. "/f" .. i, "w") end
  end)
  ctx.register_hook("reuse", function(kw) return kept:write("late") end)
  ctx.register_hook("too many", function(kw)
    for i = 1, 100 do io.open(kw.dir .. "/g" .. i, "w") end
  end)
end`, Options{Permissions: hookspec.Permissions{FS: []string{dir}}})
	before := openFDs(t)
	if _, err := p.Call(context.Background(), 0, map[string]any{"dir": dir}); err != nil {
		t.Fatal(err)
	}
	if after := openFDs(t); after != before {
		t.Errorf("open descriptors: %d after the call, %d before; want the call's files closed", after, before)
	}
	_, err := p.Call(context.Background(), 1, nil)
	wantErr(t, "write to a file of a previous call", err, KindRuntime, "closed file")
	_, err = p.Call(context.Background(), 2, map[string]any{"dir": dir})
	wantErr(t, "100 open files", err, KindLimit, "more than 64 files open")
	if after := openFDs(t); after != before {
		t.Errorf("open descriptors: %d after the failed call, %d before", after, before)
	}
}

func TestFSLoadErrors(t *testing.T) {
	_, err := LoadPlugin(context.Background(), []byte("function register(ctx) end"), Options{File: "p.lua", Permissions: hookspec.Permissions{FS: []string{""}}})
	wantErr(t, "empty fs entry", err, KindLoad, "p.lua: permissions.fs: empty entry")
}

// httpServer serves the endpoints the http tests use and counts the requests it gets.
func httpServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		body, _ := io.ReadAll(r.Body)
		var sent any
		_ = json.Unmarshal(body, &sent)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("X-Reply", "pong")
		w.WriteHeader(http.StatusCreated)
		_ = json.NewEncoder(w).Encode(map[string]any{
			"method": r.Method, "x_test": r.Header.Get("X-Test"), "ct": r.Header.Get("Content-Type"),
			"body": string(body), "sent": sent, "list": []any{},
		})
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = io.WriteString(w, "plain")
	})
	mux.HandleFunc("/size/{n}", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		var n int
		_, _ = fmt.Sscan(r.PathValue("n"), &n)
		_, _ = w.Write(make([]byte, n))
	})
	mux.HandleFunc("/endless", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		chunk := make([]byte, 64<<10)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestHTTPNeedsNet(t *testing.T) {
	for _, perms := range []hookspec.Permissions{{}, {FS: []string{t.TempDir()}, Exec: []string{"echo"}}} {
		_, err := eval(t, `return require("http")`, nil, Options{Permissions: perms})
		wantErr(t, "require http", err, KindRuntime, `module "http" needs permissions.net`)
	}
}

func TestHTTPRequests(t *testing.T) {
	srv, _ := httpServer(t)
	opts := Options{Permissions: hookspec.Permissions{Net: []string{"127.0.0.1"}}}
	kw := map[string]any{"url": srv.URL}
	tests := []struct {
		name, body string
		want       any
	}{
		{"request with json", `
local r = require("http").request{method = "put", url = kw.url .. "/echo", headers = {["X-Test"] = "yes"}, json = {a = 1}, timeout = 5}
local json = require("json")
return {r.status, r.headers["content-type"], r.headers["x-reply"], r.json.method, r.json.x_test, r.json.ct, r.json.sent.a, r.json.list == nil, json.encode(r.json.list), type(r.body)}`,
			[]any{int64(201), "application/json; charset=utf-8", "pong", "PUT", "yes", "application/json", int64(1), false, "[]", "string"}},
		{"get", `local r = require("http").get(kw.url .. "/text") return {r.status, r.body, r.json == nil}`,
			[]any{int64(200), "plain", true}},
		{"post table", `local r = require("http").post(kw.url .. "/echo", {k = "v"}, {headers = {["X-Test"] = "t"}}) return {r.json.method, r.json.ct, r.json.body, r.json.x_test}`,
			[]any{"POST", "application/json", `{"k":"v"}`, "t"}},
		{"post string", `local r = require("http").post(kw.url .. "/echo", "raw text") return {r.json.body, r.json.ct}`,
			[]any{"raw text", ""}},
		{"json.null shared", `local r = require("http").post(kw.url .. "/echo", "x") return r.json.sent == require("json").null`, true},
		{"redirect to an allowed host", `return require("http").get(kw.url .. "/redirect?to=/echo").json.method`, "GET"},
		{"body at the cap", `return #require("http").get(kw.url .. "/size/1048576").body`, int64(1 << 20)},
	}
	for _, tt := range tests {
		got, err := eval(t, tt.body, kw, opts)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestHTTPRefusals(t *testing.T) {
	srv, hits := httpServer(t)
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	local := "http://localhost:" + port
	tests := []struct {
		name, body string
		net        []string
		want       []string
	}{
		{"host not allowed", `require("http").get(kw.url .. "/echo")`, []string{"api.example.com"},
			[]string{`http: host "127.0.0.1" is not in permissions.net (add it to the manifest to allow it)`}},
		{"other port", `require("http").get(kw.url .. "/echo")`, []string{"127.0.0.1:1"},
			[]string{`host "127.0.0.1" on port ` + port + ` is not in permissions.net`}},
		{"redirect to a host not allowed", `require("http").get(kw.url .. "/redirect?to=` + local + `/echo")`, []string{"127.0.0.1"},
			[]string{`redirect to host "localhost" is not in permissions.net`}},
		{"too many redirects", `require("http").get(kw.url .. "/loop")`, []string{"127.0.0.1"},
			[]string{"stopped after 5 redirects"}},
		{"body over the cap", `require("http").get(kw.url .. "/size/1048577")`, []string{"127.0.0.1"},
			[]string{"response body is larger than the 1 MiB limit"}},
		{"endless body", `require("http").get(kw.url .. "/endless")`, []string{"127.0.0.1"},
			[]string{"response body is larger than the 1 MiB limit"}},
		{"not http", `require("http").get("file:///etc/passwd")`, []string{"*"},
			[]string{"invalid url"}},
		{"unknown option", `require("http").request{url = kw.url, header = {}}`, []string{"127.0.0.1"},
			[]string{`unknown option "header"`}},
	}
	for _, tt := range tests {
		hits.Store(0)
		_, err := eval(t, tt.body, map[string]any{"url": srv.URL}, Options{Timeout: 20 * time.Second, Permissions: hookspec.Permissions{Net: tt.net}})
		wantErr(t, tt.name, err, KindRuntime, tt.want...)
		if tt.name == "host not allowed" || tt.name == "other port" {
			if n := hits.Load(); n != 0 {
				t.Errorf("%s: the server got %d requests, want the host refused before connecting", tt.name, n)
			}
		}
		if tt.name == "redirect to a host not allowed" {
			if n := hits.Load(); n != 1 {
				t.Errorf("%s: the server got %d requests, want only the first", tt.name, n)
			}
		}
	}
}

func TestHTTPTimeouts(t *testing.T) {
	srv, _ := httpServer(t)
	kw := map[string]any{"url": srv.URL}
	start := time.Now()
	_, err := eval(t, `require("http").get(kw.url .. "/slow", {timeout = 0.2})`, kw, Options{Permissions: hookspec.Permissions{Net: []string{"127.0.0.1"}}})
	wantErr(t, "request timeout", err, KindRuntime, "http: GET 127.0.0.1:", "timed out after 200ms")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("request timeout took %v, want about 200ms", d)
	}
	start = time.Now()
	_, err = eval(t, `require("http").get(kw.url .. "/slow", {timeout = 60})`, kw, Options{Timeout: 200 * time.Millisecond, Permissions: hookspec.Permissions{Net: []string{"127.0.0.1"}}})
	wantErr(t, "call timeout", err, KindTimeout, "timed out after 200ms")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("call timeout took %v, want about 200ms", d)
	}
}

func TestExecNeedsExec(t *testing.T) {
	_, err := eval(t, `return require("exec").run({"echo", "hi"})`, nil, Options{Permissions: hookspec.Permissions{Net: []string{"*"}}})
	wantErr(t, "require exec", err, KindRuntime, `module "exec" needs permissions.exec`)
}

func needUnix(t *testing.T, progs ...string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("needs a Unix userland")
	}
	for _, p := range progs {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s not found", p)
		}
	}
}

func TestExecRun(t *testing.T) {
	needUnix(t, "echo", "cat", "false", "sh", "head")
	echoPath, _ := exec.LookPath("echo")
	t.Setenv("HERMES_EXEC_SECRET", "s3cret")
	opts := Options{Permissions: hookspec.Permissions{Exec: []string{"echo", "cat", "false", "head"}}}
	tests := []struct {
		name, body string
		want       any
	}{
		{"echo", `local r = require("exec").run({"echo", "hi", 42}) return {r.code, r.stdout, r.stderr}`, []any{int64(0), "hi 42\n", ""}},
		{"full path by base name", `return require("exec").run({kw.echo, "x"}).stdout`, "x\n"},
		{"stdin", `return require("exec").run({"cat"}, {stdin = "abc"}).stdout`, "abc"},
		{"exit code", `return require("exec").run({"false"}).code`, int64(1)},
		{"cwd", `return require("exec").run({"cat", "f.txt"}, {cwd = kw.dir}).stdout`, "in dir"},
		{"output cap", `local r = require("exec").run({"head", "-c", "3000000", "/dev/zero"}) return {#r.stdout, r.truncated}`, []any{int64(1 << 20), true}},
		{"no shell", `return require("exec").run({"echo", "$HOME", ";", "x"}).stdout`, "$HOME ; x\n"},
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("in dir"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		got, err := eval(t, tt.body, map[string]any{"echo": echoPath, "dir": dir}, opts)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
	for _, prog := range []string{"sh", "/bin/sh", "rm"} {
		_, err := eval(t, `require("exec").run({kw.prog, "-c", "echo pwned"})`, map[string]any{"prog": prog}, opts)
		wantErr(t, prog, err, KindRuntime, fmt.Sprintf("exec: %q is not in permissions.exec", prog))
	}
	_, err := eval(t, `require("exec").run({"cat"}, {stdin = "x", shell = true})`, nil, opts)
	wantErr(t, "unknown option", err, KindRuntime, `unknown option "shell"`)
}

func TestExecEnvironmentIsFiltered(t *testing.T) {
	needUnix(t, "sh")
	t.Setenv("HERMES_EXEC_SECRET", "s3cret")
	t.Setenv("HERMES_EXEC_OK", "fine")
	got, err := eval(t, `return require("exec").run({"sh", "-c", "echo \"$HERMES_EXEC_SECRET|$HERMES_EXEC_OK|${PATH:+path}\""}).stdout`, nil,
		Options{Permissions: hookspec.Permissions{Exec: []string{"sh"}, Env: []string{"HERMES_EXEC_OK"}}})
	if err != nil || got != "|fine|path\n" {
		t.Errorf("child environment: got %q, %v; want only PATH and the declared variable", got, err)
	}
}

func TestExecTimeouts(t *testing.T) {
	needUnix(t, "sleep", "sh")
	opts := Options{Permissions: hookspec.Permissions{Exec: []string{"sleep", "sh"}}}
	tests := []struct {
		name, body string
		opts       Options
		kind       Kind
		want       string
	}{
		{"own timeout", `require("exec").run({"sleep", "10"}, {timeout = 0.2})`, opts, KindRuntime, `exec: "sleep" timed out after 200ms (process group killed)`},
		{"call timeout", `require("exec").run({"sleep", "10"})`, Options{Timeout: 200 * time.Millisecond, Permissions: opts.Permissions}, KindTimeout, "timed out after 200ms"},
	}
	for _, tt := range tests {
		start := time.Now()
		_, err := eval(t, tt.body, nil, tt.opts)
		wantErr(t, tt.name, err, tt.kind, tt.want)
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s took %v, want the program killed after about 200ms", tt.name, d)
		}
	}
	start := time.Now()
	got, err := eval(t, `return require("exec").run({"sh", "-c", "sleep 10 & echo started"}).stdout`, nil, opts)
	if err != nil || got != "started\n" {
		t.Errorf("background grandchild: got %q, %v", got, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a grandchild holding stdout kept the call for %v", d)
	}
}

func TestEnvPermission(t *testing.T) {
	t.Setenv("HERMES_TEST_TOKEN", "tok")
	body := `return {os.getenv("HERMES_TEST_TOKEN") or "-", os.getenv("HOME") or "-", os.getenv("PATH") or "-"}`
	tests := []struct {
		env  []string
		want []any
	}{
		{nil, []any{"-", "-", "-"}},
		{[]string{"HERMES_TEST_TOKEN"}, []any{"tok", "-", "-"}},
		{[]string{"*"}, []any{"tok", os.Getenv("HOME"), os.Getenv("PATH")}},
	}
	for _, tt := range tests {
		got, err := eval(t, body, nil, Options{Permissions: hookspec.Permissions{Env: tt.env}})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("env %v (-want +got):\n%s", tt.env, diff)
		}
	}
}

// A relative permissions.fs entry names a directory inside the hermes home.
func TestFSRelativeEntryIsInsideHome(t *testing.T) {
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := loadPlugin(t, `
function register(ctx)
  ctx.register_hook("append", function(kw)
    local f = assert(io.open(kw.path, "a"))
    f:write("x\n")
    f:close()
  end)
end`, Options{Home: home, Permissions: hookspec.Permissions{FS: []string{"logs"}}})
	if _, err := p.Call(context.Background(), 0, map[string]any{"path": filepath.Join(home, "logs", "a.log")}); err != nil {
		t.Errorf("append inside <home>/logs: %v", err)
	}
	if _, err := p.Call(context.Background(), 0, map[string]any{"path": filepath.Join(home, "config.yaml")}); err == nil {
		t.Error("append to <home>/config.yaml allowed by a relative entry")
	}
}

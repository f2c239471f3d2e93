package examples

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-hooks/hermes/engine"
	"github.com/hermes-hooks/hermes/gateway"

	"github.com/hermes-hooks/hermes/internal/testutil"
)

// repoRoot is the repository root, found before any test changes directory (tests start
// in tests/examples).
var repoRoot = func() string {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		panic(err)
	}
	return root
}()

// exampleDir is scripts/examples/<name> in the repository.
func exampleDir(name string) string {
	return filepath.Join(repoRoot, "scripts", "examples", name)
}

// install does what a user does with an example home: it copies scripts/examples/<name> to
// ~/.hermes (HOME is a fresh temporary directory; HERMES_HOME is unset) and writes the shell
// hooks' commands in their real-install form, ~/.hermes/agent-hooks/..., as config.yaml says.
// It returns the home.
func install(t *testing.T, name string) string {
	t.Helper()
	userHome := t.TempDir()
	t.Setenv("HOME", userHome)
	t.Setenv("HERMES_HOME", "")
	home := filepath.Join(userHome, ".hermes")
	if err := os.CopyFS(home, os.DirFS(exampleDir(name))); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(home, "config.yaml")
	if data, err := os.ReadFile(cfg); err == nil {
		real := strings.ReplaceAll(string(data), "scripts/examples/"+name+"/agent-hooks/", "~/.hermes/agent-hooks/")
		if err := os.WriteFile(cfg, []byte(real), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

func newLogger(logs *testutil.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// newEngine loads home as a host would, approving its shell hooks (--accept-hooks). It fails
// the test on any load warning: an example must load cleanly.
func newEngine(t *testing.T, home string) (*engine.Engine, *testutil.Buffer) {
	t.Helper()
	logs := &testutil.Buffer{}
	eng, err := engine.New(context.Background(), engine.Options{Home: home, Logger: newLogger(logs), AcceptHooks: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close(context.Background()) })
	for _, w := range eng.Warnings() {
		t.Errorf("load warning: %s", w)
	}
	for _, p := range eng.Plugins() {
		if p.Status != "loaded" {
			t.Errorf("plugin %s: %s %s", p.Name, p.Status, p.Error)
		}
	}
	return eng, logs
}

// newGateway loads the engine and the gateway hooks of home, accepting its shell hooks.
func newGateway(t *testing.T, home string, opts gateway.Options) (*gateway.Gateway, *testutil.Buffer) {
	t.Helper()
	logs := &testutil.Buffer{}
	opts.Engine = engine.Options{Home: home, Logger: newLogger(logs), AcceptHooks: true}
	gw, err := gateway.New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gw.Close(context.Background()) })
	for _, w := range gw.Warnings() {
		t.Errorf("load warning: %s", w)
	}
	for _, h := range gw.Hooks() {
		if h.Status != "loaded" {
			t.Errorf("hook %s: %s %s", h.Name, h.Status, h.Error)
		}
	}
	for _, w := range gw.Engine().Warnings() {
		t.Errorf("load warning: %s", w)
	}
	return gw, logs
}

// readJSONLines reads a JSON-lines file into objects.
func readJSONLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the example did not write %s: %v", path, err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: line %q is not a JSON object: %v", path, sc.Text(), err)
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// request is what a test server received.
type request struct {
	Method, Path, ContentType string
	Body                      map[string]any
}

// recorder is a local HTTP server that records every request and answers with reply.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []request
}

func newRecorder(t *testing.T, reply func(r request) (int, any)) *recorder {
	t.Helper()
	rec := &recorder{}
	rec.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		req := request{Method: r.Method, Path: r.URL.Path, ContentType: r.Header.Get("Content-Type")}
		if err := json.Unmarshal(data, &req.Body); err != nil {
			t.Errorf("%s %s: body %q is not a JSON object: %v", r.Method, r.URL.Path, data, err)
		}
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, req)
		rec.mu.Unlock()
		status, body := http.StatusOK, any(map[string]any{"ok": true})
		if reply != nil {
			status, body = reply(req)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(rec.Close)
	return rec
}

func (rec *recorder) requests() []request {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]request(nil), rec.reqs...)
}

// needTools skips the test when a program the example's shell script needs is missing.
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range append([]string{"bash"}, tools...) {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed: the shell example needs it (.ci/run installs jq)", tool)
		}
	}
}

// logLines returns the log lines (slog text format) whose message is msg.
func logLines(logs *testutil.Buffer, msg string) []string {
	needle := "msg=" + msg
	if strings.ContainsAny(msg, " =\"") {
		needle = "msg=" + strconv.Quote(msg)
	}
	var out []string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, needle+" ") || strings.HasSuffix(l, needle) {
			out = append(out, l)
		}
	}
	return out
}

//go:build unix

package luabind

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/hermes-hooks/hermes/hookspec"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The helper processes of TestAppendConcurrentProcessesWholeLines: each is this test binary
// run again with appendHelperEnv set, and appends appendRecords records to one file.
const (
	appendHelperEnv = "HERMES_TEST_APPEND_HELPER"
	appendProcs     = 4
	appendRecords   = 1000
)

// appendPlugin appends records kw.from..kw.to of process kw.p to kw.path, one f:write of
// several arguments per record. One record in seven is several KB long.
const appendPlugin = `
local json = require("json")
function register(ctx)
  ctx.register_hook("append", function(kw)
    local f = assert(io.open(kw.path, "a"))
    for seq = kw.from, kw.to do
      local n = 16 + (seq * 37 + kw.p * 11) % 200
      if seq % 7 == 0 then n = 3000 + (seq * 131) % 6000 end
      local rec = {p = kw.p, seq = seq, pad = string.rep(string.char(97 + seq % 26), n)}
      f:write(json.encode(rec), "\n")
    end
    f:close()
  end)
end
`

// appendRecord is one line of the file.
type appendRecord struct {
	P   int    `json:"p"`
	Seq int    `json:"seq"`
	Pad string `json:"pad"`
}

// TestAppendHelperProcess is not a test: it is the body of a helper process started by
// TestAppendConcurrentProcessesWholeLines, and returns at once in a normal run.
func TestAppendHelperProcess(t *testing.T) {
	spec := os.Getenv(appendHelperEnv)
	if spec == "" {
		return
	}
	// spec is "<process>:<path>".
	id, path, ok := strings.Cut(spec, ":")
	p, err := strconv.Atoi(id)
	if !ok || err != nil {
		t.Fatalf("bad %s=%q", appendHelperEnv, spec)
	}
	plugin, err := LoadPlugin(context.Background(), []byte(appendPlugin), Options{
		File:        "append.lua",
		Timeout:     time.Minute,
		Permissions: hookspec.Permissions{FS: []string{filepath.Dir(path)}},
	})
	if err != nil {
		t.Fatalf("LoadPlugin: %v", err)
	}
	defer plugin.Close()
	// Start together: the parent closes stdin once every helper is running.
	if _, err := bytes.NewBuffer(nil).ReadFrom(os.Stdin); err != nil {
		t.Fatalf("waiting for the start: %v", err)
	}
	const batch = 100
	for from := 1; from <= appendRecords; from += batch {
		kw := map[string]any{"path": path, "p": p, "from": from, "to": min(from+batch-1, appendRecords)}
		if _, err := plugin.Call(context.Background(), 0, kw); err != nil {
			t.Fatalf("append %d..: %v", from, err)
		}
	}
}

func TestAppendConcurrentProcessesWholeLines(t *testing.T) {
	if os.Getenv(appendHelperEnv) != "" {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	path := filepath.Join(t.TempDir(), "events.jsonl")
	type helper struct {
		cmd *exec.Cmd
		out bytes.Buffer
	}
	helpers := make([]*helper, appendProcs)
	starts := make([]interface{ Close() error }, 0, appendProcs)
	for p := range helpers {
		h := &helper{cmd: exec.Command(exe, "-test.run=^TestAppendHelperProcess$", "-test.count=1")}
		h.cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d:%s", appendHelperEnv, p, path))
		h.cmd.Stdout, h.cmd.Stderr = &h.out, &h.out
		start, err := h.cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := h.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		helpers[p] = h
		starts = append(starts, start)
	}
	for _, s := range starts {
		_ = s.Close()
	}
	for p, h := range helpers {
		if err := h.cmd.Wait(); err != nil {
			t.Fatalf("helper %d: %v\n%s", p, err, h.out.Bytes())
		}
	}

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		t.Fatalf("file of %d bytes does not end with a newline", len(data))
	}
	lines := strings.Split(string(data[:len(data)-1]), "\n")
	seen := make(map[[2]int]int)
	bad := 0
	for i, line := range lines {
		var rec appendRecord
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rec); err != nil || dec.More() {
			if bad++; bad <= 5 {
				t.Errorf("line %d (%d bytes) is not one record: %.120q", i+1, len(line), line)
			}
			continue
		}
		seen[[2]int{rec.P, rec.Seq}]++
	}
	if bad > 0 {
		t.Errorf("%d of %d lines are not whole records", bad, len(lines))
	}
	if len(lines) != appendProcs*appendRecords {
		t.Errorf("%d lines, want %d", len(lines), appendProcs*appendRecords)
	}
	wrong := 0
	for p := range appendProcs {
		for seq := 1; seq <= appendRecords; seq++ {
			if n := seen[[2]int{p, seq}]; n != 1 {
				if wrong++; wrong <= 5 {
					t.Errorf("record (process %d, seq %d) appears %d times, want once", p, seq, n)
				}
			}
		}
	}
	if wrong > 0 || len(seen) != appendProcs*appendRecords {
		t.Errorf("%d records missing or repeated; %d distinct records, want %d", wrong, len(seen), appendProcs*appendRecords)
	}
}

// TestFileWriteArguments: f:write joins strings and numbers, returns the file for chaining,
// and refuses a bad argument, or a result over the size limit, before writing anything.
func TestFileWriteArguments(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Permissions: hookspec.Permissions{FS: []string{dir}}}
	kw := map[string]any{"dir": dir}
	got, err := eval(t, `
local f = assert(io.open(kw.dir .. "/w.txt", "w"))
local same = f:write("a", 1, "b") == f
f:write("x"):write("y", 2.5):write()
f:close()
return same`, kw, opts)
	if err != nil || got != true {
		t.Fatalf("write: got %v, %v; want true (the file returned)", got, err)
	}
	if s := readFile(t, filepath.Join(dir, "w.txt")); s != "a1bxy2.5" {
		t.Errorf("file = %q, want %q", s, "a1bxy2.5")
	}

	_, err = eval(t, `
local f = assert(io.open(kw.dir .. "/bad.txt", "w"))
f:write("kept?", {})`, kw, opts)
	wantErr(t, "write of a table", err, KindRuntime, "bad argument #3 to write (string or number expected, got table")
	if s := readFile(t, filepath.Join(dir, "bad.txt")); s != "" {
		t.Errorf("after a bad argument the file = %q, want nothing written", s)
	}

	_, err = eval(t, `
local f = assert(io.open(kw.dir .. "/big.txt", "a"))
local s = string.rep("x", 40 * 1024 * 1024)
f:write(s, s)`, kw, opts)
	wantErr(t, "write of 80 MiB", err, KindLimit, "file:write result larger than")
	if s := readFile(t, filepath.Join(dir, "big.txt")); s != "" {
		t.Errorf("after an oversized write the file has %d bytes, want nothing written", len(s))
	}

	got, err = eval(t, `
local f = assert(io.open(kw.dir .. "/w.txt", "r"))
local r, msg = f:write("no")
return {r == nil, msg}`, kw, opts)
	if l, _ := got.([]any); err != nil || len(l) != 2 || l[0] != true || !strings.Contains(fmt.Sprint(l[1]), "w.txt") {
		t.Errorf("write to a file opened for reading: got %#v, %v; want nil and a message", got, err)
	}
}

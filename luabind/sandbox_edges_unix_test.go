//go:build unix

package luabind

import (
	"context"
	"fmt"
	"github.com/hermes-hooks/hermes/hookspec"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	iomod "github.com/hermes-hooks/hermes/luabind/internal/modules/io"
)

const openPlugin = `
function register(ctx)
  ctx.register_hook("open", function(kw)
    local f, err = io.open(kw.path, kw.mode)
    if not f then return err end
    if kw.mode == "r" then return f:read("a") end
    f:write("x")
    f:close()
    return "written"
  end)
end`

func TestIOOpenRefusesFIFOs(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "plain"), []byte("text"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := loadPlugin(t, openPlugin, Options{Timeout: 2 * time.Second, Permissions: hookspec.Permissions{FS: []string{dir}}})
	for _, tt := range []struct{ path, mode, want string }{
		{fifo, "r", ""},
		{fifo, "w", ""},
		{fifo, "a+", ""},
		{dir, "r", ""},
		{filepath.Join(dir, "plain"), "r", "text"},
		{filepath.Join(dir, "plain"), "a", "written"},
	} {
		start := time.Now()
		got, err := p.Call(context.Background(), 0, map[string]any{"path": tt.path, "mode": tt.mode})
		if tt.want == "" {
			wantErr(t, tt.path, err, KindRuntime, fmt.Sprintf("io.open: %q is not a regular file: only regular files can be opened", tt.path))
		} else if err != nil || got != tt.want {
			t.Errorf("io.open(%q, %q) = %v, %v; want %q", tt.path, tt.mode, got, err, tt.want)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("io.open(%q, %q) took %v", tt.path, tt.mode, d)
		}
	}
}

func TestIOOpenClearsNonblock(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	roots, err := iomod.ResolveRoots([]string{dir}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer iomod.CloseRoots(roots)
	f, err := iomod.OpenRegular(&roots[0], "f", os.O_RDWR)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_GETFL, 0)
	if errno != 0 || flags&syscall.O_NONBLOCK != 0 {
		t.Errorf("flags %#x (errno %v): O_NONBLOCK is still set", flags, errno)
	}
}

func TestFSFolderSwappedForSymlink(t *testing.T) {
	base := t.TempDir()
	dir, outside := filepath.Join(base, "data"), filepath.Join(base, "outside")
	for _, d := range []string{dir, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p := loadPlugin(t, openPlugin, Options{Permissions: hookspec.Permissions{FS: []string{dir}}})
	if got, err := p.Call(context.Background(), 0, map[string]any{"path": filepath.Join(dir, "before"), "mode": "w"}); err != nil || got != "written" {
		t.Fatalf("before the swap: %v, %v", got, err)
	}
	if err := os.Rename(dir, dir+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, dir); err != nil {
		t.Fatal(err)
	}
	_, err := p.Call(context.Background(), 0, map[string]any{"path": filepath.Join(dir, "x"), "mode": "w"})
	wantErr(t, "after the swap", err, KindRuntime, "is outside permissions.fs", "outside/x")
	// Swapped between the check and the open: the file is opened in the folder of the load.
	f, err := iomod.OpenRegular(&p.s.hook.fsRoots[0], "y", os.O_WRONLY|os.O_CREATE)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	for path, want := range map[string]bool{
		filepath.Join(outside, "x"): false, filepath.Join(outside, "y"): false,
		filepath.Join(dir+".old", "y"): true, filepath.Join(dir+".old", "before"): true,
	} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", path, err == nil, want)
		}
	}
}

// writeScript writes an executable shell script and returns its path.
func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

const execPlugin = `
function register(ctx)
  ctx.register_hook("run", function(kw) return require("exec").run(kw.argv).stdout end)
end`

func runArgv(p *Plugin, argv ...any) (any, error) {
	return p.Call(context.Background(), 0, map[string]any{"argv": argv})
}

func TestExecEntriesNameOneFile(t *testing.T) {
	needUnix(t, "echo", "sh")
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	evil := writeScript(t, dir, "echo", "touch "+marker)
	echoPath, _ := exec.LookPath("echo")

	p := loadPlugin(t, execPlugin, Options{Permissions: hookspec.Permissions{Exec: []string{"echo"}}})
	_, err := runArgv(p, evil, "hi")
	wantErr(t, "a file named echo", err, KindRuntime, `exec: "`+evil+`" is not in permissions.exec`)
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("%s ran", evil)
	}
	for _, argv0 := range []string{"echo", echoPath} {
		if got, err := runArgv(p, argv0, "hi"); err != nil || got != "hi\n" {
			t.Errorf("%s: %v, %v", argv0, got, err)
		}
	}

	own := writeScript(t, t.TempDir(), "tool", "echo tool")
	p = loadPlugin(t, execPlugin, Options{Permissions: hookspec.Permissions{Exec: []string{own}}})
	if got, err := runArgv(p, own); err != nil || got != "tool\n" {
		t.Errorf("absolute entry: %v, %v", got, err)
	}
	for _, argv0 := range []string{"echo", "tool", writeScript(t, dir, "tool", "touch "+marker)} {
		_, err := runArgv(p, argv0)
		wantErr(t, argv0, err, KindRuntime, "is not in permissions.exec")
	}
}

func TestExecResolvesAtLoad(t *testing.T) {
	needUnix(t, "sh")
	first, second := t.TempDir(), t.TempDir()
	writeScript(t, first, "tool", "echo first")
	writeScript(t, second, "tool", "echo second")
	t.Setenv("PATH", first+string(os.PathListSeparator)+os.Getenv("PATH"))
	p := loadPlugin(t, execPlugin, Options{Permissions: hookspec.Permissions{Exec: []string{"tool", "hermes-no-such-program"}}})
	if got, err := runArgv(p, "tool"); err != nil || got != "first\n" {
		t.Errorf("tool: %v, %v", got, err)
	}
	_, err := runArgv(p, "hermes-no-such-program")
	wantErr(t, "missing", err, KindRuntime, `exec: "hermes-no-such-program" was not found on PATH when the hook loaded`)

	t.Setenv("PATH", second+string(os.PathListSeparator)+os.Getenv("PATH"))
	_, err = runArgv(p, "tool")
	wantErr(t, "PATH changed", err, KindRuntime, `exec: "tool" is now `, "not the", "permissions.exec allowed when the hook loaded")
	if got, err := runArgv(p, filepath.Join(first, "tool")); err != nil || got != "first\n" {
		t.Errorf("the loaded file by path: %v, %v", got, err)
	}
}

func TestExecSameFileOtherName(t *testing.T) {
	needUnix(t, "sh")
	dir := t.TempDir()
	multi := writeScript(t, dir, "multi", `echo "$(basename "$0")"`)
	for _, name := range []string{"hello", "wipe"} {
		if err := os.Symlink(multi, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	p := loadPlugin(t, execPlugin, Options{Permissions: hookspec.Permissions{Exec: []string{filepath.Join(dir, "hello")}}})
	got, err := runArgv(p, filepath.Join(dir, "hello"))
	if err != nil || !strings.HasSuffix(got.(string), "\n") {
		t.Errorf("hello: %v, %v", got, err)
	}
	_, err = runArgv(p, filepath.Join(dir, "wipe"))
	wantErr(t, "same file, other name", err, KindRuntime, "is not in permissions.exec")
}

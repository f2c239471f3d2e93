package io

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"

	"github.com/hermes-hooks/hermes/luabind/internal/hostpath"
	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/modules"
)

// maxOpenFiles bounds the files one call may hold open at once.
const maxOpenFiles = 64

const fileTypeName = "hermes.file"

// Module is the io table of one hook: the permissions.fs entries, resolved and opened at
// load (ResolveRoots), and as written in the manifest, for messages.
type Module struct {
	Roots []Root
	FS    []string
	// ReadOnly refuses io.open for writing (a dry run): the error starts with
	// modules.DryRunPrefix.
	ReadOnly bool
}

// Instance is the io table in one state: the files the call in progress opened.
type Instance struct {
	vu modules.VU
	Module
	files openFiles
}

var (
	_ modules.Module   = Module{}
	_ modules.Instance = (*Instance)(nil)
	_ modules.Closer   = (*Instance)(nil)
)

// NewModuleInstance implements modules.Module.
func (m Module) NewModuleInstance(vu modules.VU) modules.Instance {
	return &Instance{vu: vu, Module: m}
}

// EndCall closes the files the call left open; the core calls it when each call ends.
func (e *Instance) EndCall() { e.files.closeAll() }

// Close implements modules.Closer: the files still open are closed with the state.
func (e *Instance) Close() { e.files.closeAll() }

// Exports implements modules.Instance: the io table, io.open, io.lines, io.close and
// io.type, which the core makes the global io. Every path must resolve inside an entry of
// permissions.fs; without the permission io.open exists but refuses, saying which
// permission is missing.
func (e *Instance) Exports() lua.LValue {
	L := e.vu.Runtime()
	meta := L.NewTypeMetatable(fileTypeName)
	methods := L.SetFuncs(L.CreateTable(0, 8), map[string]lua.LGFunction{
		"read": fileRead, "write": fileWrite, "lines": fileLines, "seek": fileSeek,
		"close": fileClose, "flush": fileFlush,
	})
	meta.RawSetString("__index", methods)
	meta.RawSetString("__tostring", L.NewFunction(fileString))
	mod := L.CreateTable(0, 4)
	mod.RawSetString("open", L.NewFunction(func(L *lua.LState) int {
		f, msg := e.openFile(L, "io.open", L.CheckString(1), L.OptString(2, "r"))
		if f == nil {
			L.Push(lua.LNil)
			L.Push(lua.LString(msg))
			return 2
		}
		L.Push(f)
		return 1
	}))
	mod.RawSetString("lines", L.NewFunction(func(L *lua.LState) int {
		ud, msg := e.openFile(L, "io.lines", L.CheckString(1), "r")
		if ud == nil {
			L.RaiseError("io.lines: %s", msg)
		}
		L.Push(linesIter(L, ud.Value.(*luaFile), formatsFrom(L, 2), true))
		return 1
	}))
	mod.RawSetString("close", L.NewFunction(fileClose))
	mod.RawSetString("type", L.NewFunction(ioType))
	return mod
}

func fileString(L *lua.LState) int {
	if f := checkFile(L, 1, false); f.f == nil {
		L.Push(lua.LString("file (closed)"))
	} else {
		L.Push(lua.LString(fmt.Sprintf("file (%s)", f.path)))
	}
	return 1
}

// ioType is io.type(v): "file", "closed file" or nil.
func ioType(L *lua.LState) int {
	var f *luaFile
	if ud, ok := L.Get(1).(*lua.LUserData); ok {
		f, _ = ud.Value.(*luaFile)
	}
	switch {
	case f == nil:
		L.Push(lua.LNil)
	case f.f == nil:
		L.Push(lua.LString("closed file"))
	default:
		L.Push(lua.LString("file"))
	}
	return 1
}

// openFile checks path against permissions.fs and opens it, through the directory of its
// entry opened at load. A refused path raises an error naming the permission, and a file
// that is not a regular file one saying so; an operating-system failure returns nil and
// the message, as Lua's io.open does.
func (e *Instance) openFile(L *lua.LState, fn, path, mode string) (*lua.LUserData, string) {
	e.vu.Outside()
	if len(e.Roots) == 0 {
		L.RaiseError("%s: file access needs permissions.fs in the manifest", fn)
	}
	flag, ok := openFlags(mode)
	if !ok {
		L.ArgError(2, fmt.Sprintf("invalid mode %q (want r, w, a, r+, w+ or a+, optionally with b)", mode))
	}
	if e.ReadOnly && flag != os.O_RDONLY {
		L.RaiseError("%s%s(%q, %q) is not run (it would write a file)", modules.DryRunPrefix, fn, path, mode)
	}
	root, name, resolved, err := allowedPath(e.Roots, path)
	if err != nil {
		return nil, fmt.Sprintf("%s: %v", path, err)
	}
	if root == nil {
		L.RaiseError("%s: %q is outside permissions.fs (%s)%s", fn, path, strings.Join(e.FS, ", "), resolvedNote(path, resolved))
	}
	if len(e.files.list) >= maxOpenFiles {
		L.RaiseError("%s%s: more than %d files open in one call", limits.Prefix, fn, maxOpenFiles)
	}
	osf, err := OpenRegular(root, name, flag)
	if err != nil {
		if strings.Contains(err.Error(), "escapes") {
			L.RaiseError("%s: %q leads outside permissions.fs through a symbolic link", fn, path)
		}
		if errors.Is(err, errNotRegular) {
			L.RaiseError("%s: %q %v", fn, path, err)
		}
		return nil, fmt.Sprintf("%s: %v", path, hostpath.Err(err))
	}
	f := &luaFile{f: osf, path: path, owner: &e.files}
	e.files.add(f)
	ud := L.NewUserData()
	ud.Value = f
	ud.Metatable = L.GetTypeMetatable(fileTypeName)
	return ud, ""
}

// errNotRegular refuses a FIFO, a device, a socket or a directory.
var errNotRegular = errors.New("is not a regular file: only regular files can be opened")

// ErrHookClosed is what opening a file returns once the hook is closed.
var ErrHookClosed = errors.New("the hook is closed")

// nonblockFlag makes open(2) of a FIFO return at once instead of waiting for the other end.
var nonblockFlag = func() int {
	if runtime.GOOS == "windows" {
		return 0
	}
	return syscall.O_NONBLOCK
}()

// OpenRegular opens name through the directory of root, refusing anything but a regular
// file. The open itself does not block: a FIFO is opened without waiting for a writer (or
// refused at once for lack of a reader), then refused once fstat shows what it is.
func OpenRegular(root *Root, name string, flag int) (*os.File, error) {
	if root.dir == nil {
		return nil, root.dirErr
	}
	osf, err := root.dir.OpenFile(name, flag|nonblockFlag, 0o666)
	switch {
	case errors.Is(err, syscall.ENXIO): // a FIFO without a reader, a device without a driver
		return nil, errNotRegular
	case errors.Is(err, os.ErrClosed):
		return nil, ErrHookClosed
	case err != nil:
		return nil, err
	}
	fi, err := osf.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = errNotRegular
	}
	if err == nil && nonblockFlag != 0 {
		err = setBlocking(osf)
	}
	if err != nil {
		_ = osf.Close()
		return nil, err
	}
	return osf, nil
}

// setBlocking clears O_NONBLOCK, so that reads and writes of the file behave as usual.
func setBlocking(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = clearNonblock(syscall.SetNonblock, fd) }); err != nil {
		return err
	}
	return serr
}

// clearNonblock calls syscall.SetNonblock, whose descriptor type differs between systems.
func clearNonblock[FD ~int | ~uintptr](set func(FD, bool) error, fd uintptr) error {
	return set(FD(fd), false)
}

func resolvedNote(path, resolved string) string {
	if resolved == "" || resolved == path {
		return ""
	}
	return fmt.Sprintf(", resolved to %q", resolved)
}

// openFlags maps a Lua/C fopen mode to os flags.
func openFlags(mode string) (int, bool) {
	switch strings.ReplaceAll(mode, "b", "") {
	case "r":
		return os.O_RDONLY, true
	case "w":
		return os.O_WRONLY | os.O_CREATE | os.O_TRUNC, true
	case "a":
		return os.O_WRONLY | os.O_CREATE | os.O_APPEND, true
	case "r+":
		return os.O_RDWR, true
	case "w+":
		return os.O_RDWR | os.O_CREATE | os.O_TRUNC, true
	case "a+":
		return os.O_RDWR | os.O_CREATE | os.O_APPEND, true
	}
	return 0, false
}

package io

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
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
	if len(e.Roots) == 0 {
		L.RaiseError("%s: file access needs permissions.fs in the manifest", fn)
	}
	flag, ok := openFlags(mode)
	if !ok {
		L.ArgError(2, fmt.Sprintf("invalid mode %q (want r, w, a, r+, w+ or a+, optionally with b)", mode))
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

// openFiles are the files a state's call has open, closed when the call ends.
type openFiles struct{ list []*luaFile }

func (o *openFiles) add(f *luaFile) {
	f.idx = len(o.list)
	o.list = append(o.list, f)
}

func (o *openFiles) remove(f *luaFile) {
	last := len(o.list) - 1
	o.list[f.idx], o.list[last].idx = o.list[last], f.idx
	o.list[last] = nil
	o.list = o.list[:last]
}

func (o *openFiles) closeAll() {
	for len(o.list) > 0 {
		o.list[len(o.list)-1].close()
	}
}

// luaFile is the Go side of a Lua file object. Reads are buffered; a write or seek first
// gives the read-ahead back, so the position is always the one Lua expects.
type luaFile struct {
	f     *os.File // nil once closed
	r     *bufio.Reader
	path  string
	idx   int
	owner *openFiles
}

func (f *luaFile) close() error {
	if f.f == nil {
		return nil
	}
	err := f.f.Close()
	f.f, f.r = nil, nil
	f.owner.remove(f)
	return err
}

// unread seeks back over buffered read-ahead and drops it.
func (f *luaFile) unread() error {
	if f.r == nil || f.r.Buffered() == 0 {
		return nil
	}
	n := f.r.Buffered()
	f.r.Reset(f.f)
	_, err := f.f.Seek(-int64(n), io.SeekCurrent)
	return err
}

func (f *luaFile) reader() *bufio.Reader {
	if f.r == nil {
		f.r = bufio.NewReader(f.f)
	}
	return f.r
}

// checkFile returns the file at n; open requires it not to be closed.
func checkFile(L *lua.LState, n int, open bool) *luaFile {
	ud, ok := L.Get(n).(*lua.LUserData)
	if ok {
		if f, ok := ud.Value.(*luaFile); ok {
			if open && f.f == nil {
				L.RaiseError("attempt to use a closed file (files are closed when the call that opened them ends)")
			}
			return f
		}
	}
	L.ArgError(n, "file expected")
	return nil
}

// ioFail returns nil and a message, Lua's convention for failed file operations.
func ioFail(L *lua.LState, f *luaFile, err error) int {
	L.Push(lua.LNil)
	L.Push(lua.LString(fmt.Sprintf("%s: %v", f.path, hostpath.Err(err))))
	return 2
}

func fileClose(L *lua.LState) int {
	f := checkFile(L, 1, true)
	if err := f.close(); err != nil {
		return ioFail(L, f, err)
	}
	L.Push(lua.LTrue)
	return 1
}

// fileFlush has nothing to do: writes are not buffered.
func fileFlush(L *lua.LState) int {
	checkFile(L, 1, true)
	L.Push(L.Get(1))
	return 1
}

// fileWrite writes strings and numbers and returns the file, for chaining. The arguments
// are joined first and written with one write(2), so that a record and its newline written
// by one call land together: with mode "a" (O_APPEND) concurrent appenders, in this process
// or others, never interleave inside one call's output.
func fileWrite(L *lua.LState) int {
	f := checkFile(L, 1, true)
	top := L.GetTop()
	parts := make([]string, 0, max(top-1, 0))
	var size int64
	for i := 2; i <= top; i++ {
		var s string
		switch v := L.Get(i).(type) {
		case lua.LString:
			s = string(v)
		case lua.LNumber:
			s = v.String()
		default:
			L.ArgError(i, "string or number expected, got "+v.Type().String())
		}
		size += int64(len(s))
		limits.CheckSize(L, "file:write", size)
		parts = append(parts, s)
	}
	if err := f.unread(); err != nil {
		return ioFail(L, f, err)
	}
	if len(parts) > 0 {
		if err := writeOnce(f.f, parts, int(size)); err != nil {
			return ioFail(L, f, err)
		}
	}
	L.Push(L.Get(1))
	return 1
}

// writeOnce writes parts, size bytes in all, with a single Write: one write(2), since
// size is at most limits.MaxStringSize and the os package splits only writes of over 1 GiB (a
// regular file takes the whole buffer unless the disk is full or a limit is reached).
func writeOnce(w io.Writer, parts []string, size int) error {
	var err error
	if len(parts) == 1 {
		_, err = io.WriteString(w, parts[0])
		return err
	}
	buf := make([]byte, 0, size)
	for _, s := range parts {
		buf = append(buf, s...)
	}
	_, err = w.Write(buf)
	return err
}

// fileSeek is f:seek(whence?, offset?) with whence "set", "cur" (default) or "end".
func fileSeek(L *lua.LState) int {
	f := checkFile(L, 1, true)
	whence := map[string]int{"set": io.SeekStart, "cur": io.SeekCurrent, "end": io.SeekEnd}
	w, ok := whence[L.OptString(2, "cur")]
	if !ok {
		L.ArgError(2, `invalid option (want "set", "cur" or "end")`)
	}
	if err := f.unread(); err != nil {
		return ioFail(L, f, err)
	}
	pos, err := f.f.Seek(L.OptInt64(3, 0), w)
	if err != nil {
		return ioFail(L, f, err)
	}
	L.Push(lua.LNumber(pos))
	return 1
}

// fileRead is f:read(formats...): "a", "l", "L", "n" (with or without "*") or a byte
// count. At end of file a format yields nil, except "a", which yields "".
func fileRead(L *lua.LState) int {
	f := checkFile(L, 1, true)
	formats := formatsFrom(L, 2)
	n := 0
	for _, format := range formats {
		v, err := readFormat(f, format)
		if err != nil {
			L.RaiseError("%s", err)
		}
		chargeRead(L, v)
		L.Push(v)
		n++
		if v == lua.LNil {
			break
		}
	}
	return n
}

// formatsFrom collects read formats from position n on; none means "l".
func formatsFrom(L *lua.LState, n int) []lua.LValue {
	var formats []lua.LValue
	for i := n; i <= L.GetTop(); i++ {
		formats = append(formats, L.Get(i))
	}
	if len(formats) == 0 {
		formats = []lua.LValue{lua.LString("l")}
	}
	return formats
}

// chargeRead charges the memory account with a string read (at most limits.MaxStringSize).
func chargeRead(L *lua.LState, v lua.LValue) {
	if s, ok := v.(lua.LString); ok {
		limits.ChargeString(L, len(s))
	}
}

func readFormat(f *luaFile, format lua.LValue) (lua.LValue, error) {
	r := f.reader()
	if n, ok := format.(lua.LNumber); ok {
		return readBytes(r, int64(n))
	}
	switch strings.TrimPrefix(lua.LVAsString(format), "*") {
	case "a":
		b, err := io.ReadAll(io.LimitReader(r, limits.MaxStringSize+1))
		if err != nil {
			return lua.LNil, fmt.Errorf("%s: %v", f.path, err)
		}
		if len(b) > limits.MaxStringSize {
			return lua.LNil, fmt.Errorf("%sread: %s has more than %s left to read", limits.Prefix, f.path, limits.ByteSize(limits.MaxStringSize))
		}
		return lua.LString(b), nil
	case "l":
		return readLine(f, false)
	case "L":
		return readLine(f, true)
	case "n":
		return readNumber(r), nil
	}
	return lua.LNil, fmt.Errorf("bad argument to read: invalid format %q", lua.LVAsString(format))
}

func readBytes(r *bufio.Reader, n int64) (lua.LValue, error) {
	if n > limits.MaxStringSize {
		return lua.LNil, fmt.Errorf("%sread: %d bytes is more than %s", limits.Prefix, n, limits.ByteSize(limits.MaxStringSize))
	}
	if n <= 0 {
		if _, err := r.Peek(1); err != nil {
			return lua.LNil, nil
		}
		return lua.LString(""), nil
	}
	b := make([]byte, n)
	got, err := io.ReadFull(r, b)
	if got == 0 && err != nil {
		return lua.LNil, nil
	}
	return lua.LString(b[:got]), nil
}

func readLine(f *luaFile, keep bool) (lua.LValue, error) {
	var line []byte
	for {
		chunk, err := f.r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > limits.MaxStringSize {
			return lua.LNil, fmt.Errorf("%sread: a line of %s is longer than %s", limits.Prefix, f.path, limits.ByteSize(limits.MaxStringSize))
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && len(line) == 0 {
			return lua.LNil, nil
		}
		break
	}
	if !keep {
		line = []byte(strings.TrimSuffix(string(line), "\n"))
	}
	return lua.LString(line), nil
}

// readNumber reads a number the way Lua's "n" format does: leading space skipped, then the
// longest run of characters a numeral may contain; nil if that is not a number.
func readNumber(r *bufio.Reader) lua.LValue {
	for {
		c, err := r.ReadByte()
		if err != nil {
			return lua.LNil
		}
		if !strings.ContainsRune(" \t\r\n\f\v", rune(c)) {
			_ = r.UnreadByte()
			break
		}
	}
	var tok []byte
	for len(tok) < 200 {
		c, err := r.ReadByte()
		if err != nil {
			break
		}
		if !strings.ContainsRune("0123456789abcdefABCDEFxX.+-pP", rune(c)) {
			_ = r.UnreadByte()
			break
		}
		tok = append(tok, c)
	}
	s := string(tok)
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		return lua.LNumber(v)
	}
	if v, err := strconv.ParseInt(s, 0, 64); err == nil {
		return lua.LNumber(v)
	}
	return lua.LNil
}

// fileLines is f:lines(formats...): an iterator over the file; it leaves the file open.
func fileLines(L *lua.LState) int {
	f := checkFile(L, 1, true)
	L.Push(linesIter(L, f, formatsFrom(L, 2), false))
	return 1
}

// linesIter returns an iterator reading formats each step; closeAtEOF closes the file when
// the first format yields nil (io.lines).
func linesIter(L *lua.LState, f *luaFile, formats []lua.LValue, closeAtEOF bool) *lua.LFunction {
	return L.NewFunction(func(L *lua.LState) int {
		if f.f == nil {
			L.RaiseError("file is already closed")
		}
		for i, format := range formats {
			v, err := readFormat(f, format)
			if err != nil {
				L.RaiseError("%s", err)
			}
			chargeRead(L, v)
			if i == 0 && v == lua.LNil && closeAtEOF {
				_ = f.close()
			}
			L.Push(v)
		}
		return len(formats)
	})
}

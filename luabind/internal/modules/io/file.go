package io

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/hermes-hooks/hermes/luabind/internal/hostpath"
	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

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

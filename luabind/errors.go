package luabind

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/lua/parse"
)

// Kind classifies a failure of Lua code.
type Kind int

const (
	// KindRuntime is an error raised while running Lua code (error(), a bad index, ...).
	KindRuntime Kind = iota
	// KindSyntax is a syntax error in a handler file.
	KindSyntax
	// KindTimeout means the call ran past its timeout and was interrupted.
	KindTimeout
	// KindCanceled means the caller's context was cancelled during the call.
	KindCanceled
	// KindLimit means the call hit a resource limit (call stack, coroutine nesting, registry,
	// string size, open files, memory); the message names it.
	KindLimit
	// KindConvert means a value could not cross between Lua and Go (a function returned, a cycle, ...).
	KindConvert
	// KindLoad means the handler loaded but does not have the shape required (no register/handle).
	KindLoad
	// KindBusy means every Lua state of the hook stayed in use for the hook's busy timeout:
	// the call did not start.
	KindBusy
)

func (k Kind) String() string {
	switch k {
	case KindSyntax:
		return "syntax error"
	case KindTimeout:
		return "timeout"
	case KindCanceled:
		return "canceled"
	case KindLimit:
		return "limit exceeded"
	case KindConvert:
		return "unsupported value"
	case KindLoad:
		return "load error"
	case KindBusy:
		return "busy"
	}
	return "runtime error"
}

// Error is a failure of Lua code, located in its file where possible.
type Error struct {
	Kind Kind
	File string // handler file, "" if unknown
	Line int    // 0 if unknown
	Msg  string // the message without the location prefix
}

func (e *Error) Error() string {
	switch {
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	case e.File != "":
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return e.Msg
}

// locRE finds "file:line:" prefixes in gopher-lua messages.
var locRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.*?):(\d+):\s*(.*)$`) })

// fromParseError converts a gopher-lua syntax error. An error at the end of the file (often
// a missing `end`) is located on lastLine, the file's last line.
func fromParseError(file string, lastLine int, err error) *Error {
	var pe *parse.Error
	if errors.As(err, &pe) {
		msg := pe.Message
		if pe.Token != "" {
			msg = fmt.Sprintf("%s near '%s'", pe.Message, pe.Token)
		}
		line := pe.Pos.Line
		if line < 0 {
			line, msg = lastLine, pe.Message+" at end of file (a missing `end`?)"
		}
		return &Error{Kind: KindSyntax, File: file, Line: line, Msg: msg}
	}
	var ce *lua.CompileError
	if errors.As(err, &ce) {
		return &Error{Kind: KindSyntax, File: file, Line: ce.Line, Msg: ce.Message}
	}
	return &Error{Kind: KindSyntax, File: file, Msg: strings.TrimSpace(err.Error())}
}

// fromCallError converts the error of a protected call, deciding whether it was a timeout
// from the call's context rather than from the message.
func fromCallError(file string, callCtx context.Context, timeoutText string, err error) *Error {
	var le *Error
	if errors.As(err, &le) {
		return le
	}
	msg := err.Error()
	var ae *lua.ApiError
	if errors.As(err, &ae) {
		if ae.Object != nil {
			msg = ae.Object.String()
			if ud, ok := ae.Object.(*lua.LUserData); ok {
				if inner, ok := ud.Value.(*Error); ok {
					return inner
				}
			}
		}
		if ae.Type == lua.ApiErrorPanic {
			msg = "panic in Go code called by the hook: " + msg
		}
	}
	e := &Error{Kind: KindRuntime, File: file, Msg: msg}
	if m := locRE().FindStringSubmatch(msg); m != nil && !strings.Contains(m[1], "\n") {
		if n, convErr := strconv.Atoi(m[2]); convErr == nil {
			e.Line, e.Msg = n, m[3]
			if m[1] != "<string>" && m[1] != "" {
				e.File = m[1]
			}
		}
	}
	var stop *limits.HostStop
	switch {
	case callCtx != nil && errors.As(callCtx.Err(), &stop):
		e.Kind, e.Msg = KindCanceled, stop.Message()
	case callCtx != nil && errors.Is(callCtx.Err(), context.DeadlineExceeded):
		e.Kind, e.Msg = KindTimeout, timeoutText
	case callCtx != nil && errors.Is(callCtx.Err(), context.Canceled):
		e.Kind, e.Msg = KindCanceled, "call canceled by the host"
	case strings.Contains(e.Msg, "stack overflow") || strings.Contains(e.Msg, "callstack overflow"):
		e.Kind, e.Msg = KindLimit, "call stack overflow (too deep recursion?)"
	case strings.Contains(e.Msg, "registry overflow"):
		e.Kind, e.Msg = KindLimit, "Lua stack (registry) limit exceeded"
	case strings.HasPrefix(e.Msg, limits.Prefix):
		e.Kind = KindLimit
	}
	return e
}

// getInfoOK fills dbg with the fields what asks for and reports success.
func getInfoOK(L *lua.LState, what string, dbg *lua.Debug) bool {
	_, err := L.GetInfo(what, dbg, lua.LNil)
	return err == nil
}

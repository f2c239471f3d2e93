package stdlib

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/lua/parse"
)

// MaxSourceSize bounds source text: handler files, and what loadstring and load compile.
// How deeply it may nest is the parser's bound (parse.MaxDepth, as Lua 5.1's 200 syntax
// levels).
const MaxSourceSize = 4 << 20 // bytes

// SourceTooLarge is the message of a source larger than MaxSourceSize.
var SourceTooLarge = fmt.Sprintf("%ssource larger than %s", limits.Prefix, limits.ByteSize(MaxSourceSize))

// InstallLoad bounds the chunks compiled at call time: loadstring(s, name) and load(fn,
// name) refuse source larger than MaxSourceSize, and charge what parsing and compiling
// take to the state's memory as the parser reads it, returning nil and the message as
// Lua does for a syntax error.
func InstallLoad(L *lua.LState) {
	g := L.G.Global
	if _, ok := g.RawGetString("loadstring").(*lua.LFunction); !ok {
		return
	}
	g.RawSetString("loadstring", L.NewFunction(func(L *lua.LState) int {
		src := L.CheckString(1)
		return loadChecked(L, src, L.OptString(2, "<string>"))
	}))
	g.RawSetString("load", L.NewFunction(func(L *lua.LState) int {
		fn := L.CheckFunction(1)
		name := L.OptString(2, "?")
		src, msg := readChunk(L, fn, name)
		if msg != "" {
			L.Push(lua.LNil)
			L.Push(lua.LString(msg))
			return 2
		}
		return loadChecked(L, src, name)
	}))
}

// loadChecked compiles src as gopher-lua's loadstring does, within MaxSourceSize and the
// state's memory.
func loadChecked(L *lua.LState, src, name string) int {
	if len(src) > MaxSourceSize {
		L.Push(lua.LNil)
		L.Push(lua.LString(name + ": " + SourceTooLarge))
		return 2
	}
	L.ChargeMemory(2 * int64(len(src)))
	charged := int64(0)
	chunk, err := parse.ParseCounted(strings.NewReader(src), name, func(tokens, functions int) {
		// The whole cost so far is one charge, so that the account, which forgives what
		// the state no longer holds, sees the tree as one allocation: the memory error is
		// raised before the tree grows past the limit.
		L.ChargeMemory(-charged)
		charged = limits.CompileCost(tokens, functions)
		L.ChargeMemory(charged)
	})
	var proto *lua.FunctionProto
	if err == nil {
		proto, err = lua.Compile(chunk, name)
	}
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(chunkError(name, err)))
		return 2
	}
	L.Push(L.NewFunctionFromProto(proto))
	return 1
}

// chunkError is the message of a chunk that does not compile, as Lua's: "name:line: message".
func chunkError(name string, err error) string {
	var pe *parse.Error
	if !errors.As(err, &pe) || pe.Pos.Line < 0 {
		return strings.TrimSpace(err.Error())
	}
	if pe.Token != "" {
		return fmt.Sprintf("%s:%d: %s near '%s'", name, pe.Pos.Line, pe.Message, pe.Token)
	}
	return fmt.Sprintf("%s:%d: %s", name, pe.Pos.Line, pe.Message)
}

// readChunk calls load's reader function until it returns nil or "", as gopher-lua's load
// does, keeping the text at most MaxSourceSize long and polling the call's context.
func readChunk(L *lua.LState, fn *lua.LFunction, name string) (string, string) {
	var b strings.Builder
	p := limits.Poller{L: L}
	for {
		L.Push(fn)
		L.Call(0, 1)
		v := L.Get(-1)
		L.Pop(1)
		if v == lua.LNil {
			break
		}
		if !lua.LVCanConvToString(v) {
			return "", "reader function must return a string"
		}
		s := v.String()
		if s == "" {
			break
		}
		if b.Len()+len(s) > MaxSourceSize {
			return "", name + ": " + SourceTooLarge
		}
		b.WriteString(s)
		p.Check()
	}
	return b.String(), ""
}

// CompileChunk parses and compiles a chunk as lua.Compile does.
func CompileChunk(r io.Reader, name string) (*lua.FunctionProto, error) {
	chunk, err := parse.Parse(r, name)
	if err != nil {
		return nil, err
	}
	return lua.Compile(chunk, name)
}

package stdlib

import (
	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// InstallOs replaces os.date, whose result grows with its format, by osDate. It runs after
// the sandbox has built its os table.
func InstallOs(L *lua.LState) {
	os := L.GetGlobal("os").(*lua.LTable)
	os.RawSetString("date", L.NewFunction(osDate))
}

// osDate is os.date, the interpreter's (lua.DateTo), with its result built in a
// ResultBuilder, so it is checked against limits.MaxStringSize and charged to the state's
// memory as it grows, and a Poller ticked for every piece: os.date(string.rep("%c", 1e7))
// would build 190 MB, one conversion at a time.
func osDate(L *lua.LState) int {
	out := ResultBuilder{L: L, What: "os.date"}
	poll := limits.Poller{L: L}
	if lua.DateTo(L, func(piece string) {
		poll.Tick()
		out.Add(piece)
	}) {
		return 1
	}
	L.Push(out.Result())
	return 1
}

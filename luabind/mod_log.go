package luabind

import (
	"log/slog"
	"maps"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// openLog builds the log module: debug/info/warn/error(msg, fields?) into the host's
// logger, tagged with the hook name.
func openLog(L *lua.LState, e *env) lua.LValue {
	mod := L.CreateTable(0, 4)
	for name, level := range map[string]slog.Level{
		"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError,
	} {
		mod.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			logFromLua(L, e.logger, level, 1)
			return 0
		}))
	}
	return mod
}

// logFromLua logs the message at index first and an optional table of fields after it.
func logFromLua(L *lua.LState, logger *slog.Logger, level slog.Level, first int) {
	ctx := hostContext(L)
	if !logger.Enabled(ctx, level) {
		return
	}
	msg := lua.LVAsString(L.ToStringMeta(L.Get(first)))
	var attrs []slog.Attr
	if t, ok := L.Get(first + 1).(*lua.LTable); ok {
		if fields, err := ToGo(t); err == nil {
			if m, ok := fields.(map[string]any); ok {
				for _, k := range slices.Sorted(maps.Keys(m)) {
					attrs = append(attrs, slog.Any(k, m[k]))
				}
			}
		}
	}
	if dbg, ok := L.GetStack(1); ok && getInfoOK(L, "l", dbg) && dbg.CurrentLine > 0 {
		attrs = append(attrs, slog.Int("line", dbg.CurrentLine))
	}
	logger.LogAttrs(ctx, level, msg, attrs...)
}

// basePrint replaces print: its arguments, tab-separated, logged at info level.
func basePrint(e *env) lua.LGFunction {
	return func(L *lua.LState) int {
		parts := make([]string, L.GetTop())
		for i := range parts {
			parts[i] = L.ToStringMeta(L.Get(i + 1)).String()
		}
		L.SetTop(0)
		L.Push(lua.LString(strings.Join(parts, "\t")))
		logFromLua(L, e.logger, slog.LevelInfo, 1)
		return 0
	}
}

package luabind

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
)

// Limits of what one call may log through the log module, ctx.log and print. Past them,
// records are dropped and counted, and one warning says how many when the call ends.
const (
	maxLogRecords = 1000    // records per call
	maxLogBytes   = 1 << 20 // bytes of messages and fields per call
	maxLogMessage = 16 << 10
)

// logBudget counts what the call in progress has logged. A state runs one call at a time;
// closeCall ends the count (logBudget.end).
type logBudget struct {
	records int
	bytes   int
	dropped int
}

// full reports, before a record is built, whether it will be dropped for the record count.
func (b *logBudget) full() bool {
	if b.records >= maxLogRecords {
		b.dropped++
		return true
	}
	return false
}

// take charges a record of n bytes; false means it is dropped.
func (b *logBudget) take(n int) bool {
	if b.bytes+n > maxLogBytes {
		b.dropped++
		return false
	}
	b.records++
	b.bytes += n
	return true
}

// end logs how many records the call dropped, if any, and starts a new count.
func (b *logBudget) end(logger *slog.Logger) {
	if b.dropped > 0 {
		logger.LogAttrs(context.Background(), slog.LevelWarn,
			fmt.Sprintf("log budget exceeded: %d records dropped", b.dropped),
			slog.Int("dropped", b.dropped), slog.Int("max_records", maxLogRecords), slog.Int("max_bytes", maxLogBytes))
	}
	*b = logBudget{}
}

// openLog builds the log module: debug/info/warn/error(msg, fields?) into the host's
// logger, tagged with the hook name.
func openLog(L *lua.LState, e *env) lua.LValue {
	mod := L.CreateTable(0, 4)
	for name, level := range map[string]slog.Level{
		"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError,
	} {
		mod.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			if msg, ok := logMessage(L, e, level); ok {
				logFromLua(L, e, level, msg, 2)
			}
			return 0
		}))
	}
	return mod
}

// logMessage is the message of a log call (its first argument), cut to maxLogMessage; ok
// is false when the record is not to be logged (level disabled, or over the budget).
func logMessage(L *lua.LState, e *env, level slog.Level) (string, bool) {
	if !e.logger.Enabled(limits.Context(L), level) || e.logs.full() {
		return "", false
	}
	msg := lua.LVAsString(L.ToStringMeta(L.Get(1)))
	return capMessage(msg, len(msg)), true
}

// logFromLua logs msg and an optional table of fields at index fields, within the call's
// log budget.
func logFromLua(L *lua.LState, e *env, level slog.Level, msg string, fields int) {
	var attrs []slog.Attr
	size := len(msg)
	if t, ok := L.Get(fields).(*lua.LTable); ok {
		if v, err := toGo(t); err == nil {
			if m, ok := v.(map[string]any); ok {
				for _, k := range slices.Sorted(maps.Keys(m)) {
					attrs = append(attrs, slog.Any(k, m[k]))
					size += len(k) + textSize(m[k])
				}
			}
		}
	}
	if !e.logs.take(size) {
		return
	}
	if dbg, ok := L.GetStack(1); ok && getInfoOK(L, "l", dbg) && dbg.CurrentLine > 0 {
		attrs = append(attrs, slog.Int("line", dbg.CurrentLine))
	}
	e.logger.LogAttrs(limits.Context(L), level, msg, attrs...)
}

// textSize estimates the length of v, a value from toGo, as text.
func textSize(v any) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case map[string]any:
		n := 2
		for k, item := range x {
			n += len(k) + textSize(item) + 2
		}
		return n
	case []any:
		n := 2
		for _, item := range x {
			n += textSize(item) + 1
		}
		return n
	}
	return 8
}

// capMessage cuts the first maxLogMessage bytes of msg (at a character boundary) and says
// how much was cut; total is the length msg had before it was cut (print stops joining its
// arguments at the limit).
func capMessage(msg string, total int) string {
	if total <= maxLogMessage {
		return msg
	}
	cut := min(len(msg), maxLogMessage)
	for cut > 0 && cut < len(msg) && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… [%d bytes cut]", strings.Clone(msg[:cut]), total-cut)
}

// basePrint replaces print: its arguments, tab-separated, logged at info level.
func basePrint(e *env) lua.LGFunction {
	return func(L *lua.LState) int {
		if !e.logger.Enabled(limits.Context(L), slog.LevelInfo) || e.logs.full() {
			return 0
		}
		var b strings.Builder
		total := 0
		add := func(s string) { // keeps one byte past the limit, so capMessage sees the cut
			b.WriteString(s[:min(len(s), max(0, maxLogMessage+1-b.Len()))])
			total += len(s)
		}
		for i := 1; i <= L.GetTop(); i++ {
			if i > 1 {
				add("\t")
			}
			add(L.ToStringMeta(L.Get(i)).String())
		}
		L.SetTop(0)
		logFromLua(L, e, slog.LevelInfo, capMessage(b.String(), total), 1)
		return 0
	}
}

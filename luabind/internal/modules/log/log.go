package log

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/modules"
)

// Limits of what one call may log through the log module, ctx.log and print. Past them,
// records are dropped and counted, and one warning says how many when the call ends.
const (
	MaxRecords = 1000     // records per call
	MaxBytes   = 1 << 20  // bytes of messages and fields per call
	MaxMessage = 16 << 10 // bytes of one message; the rest is cut
)

// logBudget counts what the call in progress has logged. A state runs one call at a time;
// Instance.EndCall ends the count (logBudget.end).
type logBudget struct {
	records int
	bytes   int
	dropped int
}

// full reports, before a record is built, whether it will be dropped for the record count.
func (b *logBudget) full() bool {
	if b.records >= MaxRecords {
		b.dropped++
		return true
	}
	return false
}

// take charges a record of n bytes; false means it is dropped.
func (b *logBudget) take(n int) bool {
	if b.bytes+n > MaxBytes {
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
			slog.Int("dropped", b.dropped), slog.Int("max_records", MaxRecords), slog.Int("max_bytes", MaxBytes))
	}
	*b = logBudget{}
}

// Module is the log module of one hook: its records go to Logger (nil: discarded), which
// the core has tagged with the hook's name.
type Module struct {
	Logger *slog.Logger
}

// Instance is the log module in one state: the log budget of the call in progress, which
// print and ctx.log share with log.*.
type Instance struct {
	vu     modules.VU
	logger *slog.Logger
	logs   logBudget
}

var (
	_ modules.Module   = Module{}
	_ modules.Instance = (*Instance)(nil)
)

// NewModuleInstance implements modules.Module.
func (m Module) NewModuleInstance(vu modules.VU) modules.Instance {
	logger := m.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Instance{vu: vu, logger: logger}
}

// Exports implements modules.Instance: debug/info/warn/error(msg, fields?) into the hook's
// logger. Every call makes a new table (ctx.log is one too).
func (e *Instance) Exports() lua.LValue {
	L := e.vu.Runtime()
	mod := L.CreateTable(0, 4)
	for name, level := range map[string]slog.Level{
		"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError,
	} {
		mod.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			if msg, ok := e.message(L, level); ok {
				e.fromLua(L, level, msg, 2)
			}
			return 0
		}))
	}
	return mod
}

// EndCall logs how many records the call dropped, if any, and starts a new count. The core
// calls it when each call ends.
func (e *Instance) EndCall() { e.logs.end(e.logger) }

// message is the message of a log call (its first argument), cut to MaxMessage; ok
// is false when the record is not to be logged (level disabled, or over the budget).
func (e *Instance) message(L *lua.LState, level slog.Level) (string, bool) {
	if !e.logger.Enabled(limits.Context(L), level) || e.logs.full() {
		return "", false
	}
	msg := lua.LVAsString(L.ToStringMeta(L.Get(1)))
	return capMessage(msg, len(msg)), true
}

// fromLua logs msg and an optional table of fields at index fields, within the call's
// log budget.
func (e *Instance) fromLua(L *lua.LState, level slog.Level, msg string, fields int) {
	var attrs []slog.Attr
	size := len(msg)
	if t, ok := L.Get(fields).(*lua.LTable); ok {
		if room := MaxBytes - e.logs.bytes - size; fieldsSize(t, room, 0) > room {
			e.logs.take(MaxBytes + 1) // dropped, and counted, before the table is converted
			return
		}
		if v, err := e.vu.ToGo(t); err == nil {
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
	if line := callerLine(L); line > 0 {
		attrs = append(attrs, slog.Int("line", line))
	}
	e.logger.LogAttrs(limits.Context(L), level, msg, attrs...)
}

// callerLine is the line of the Lua code that called the function running, 0 if unknown.
func callerLine(L *lua.LState) int {
	dbg, ok := L.GetStack(1)
	if !ok {
		return 0
	}
	if _, err := L.GetInfo("l", dbg, lua.LNil); err != nil {
		return 0
	}
	return dbg.CurrentLine
}

// fieldsSize estimates the text of a fields table t as textSize estimates it of t's
// conversion, at most, walking t itself and stopping once the estimate passes limit (or
// below maxFieldsDepth): a table of a million keys is not converted only to be dropped for
// the log budget (converting and sorting one took 17 s).
func fieldsSize(t *lua.LTable, limit, depth int) int {
	n := 2
	if depth > maxFieldsDepth {
		return n
	}
	for k, v := range t.Pairs() {
		if n > limit {
			break
		}
		if s, ok := k.(lua.LString); ok {
			n += len(s) + 2
		} else {
			n++
		}
		switch x := v.(type) {
		case lua.LString:
			n += len(x)
		case *lua.LTable:
			n += fieldsSize(x, limit-n, depth+1)
		default:
			n += 8
		}
	}
	return n
}

// maxFieldsDepth is the depth below which fieldsSize counts nothing: ToGo refuses deeper
// tables anyway.
const maxFieldsDepth = 64

// textSize estimates the length of v, a value from VU.ToGo, as text.
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

// capMessage cuts the first MaxMessage bytes of msg (at a character boundary) and says
// how much was cut; total is the length msg had before it was cut (print stops joining its
// arguments at the limit).
func capMessage(msg string, total int) string {
	if total <= MaxMessage {
		return msg
	}
	cut := min(len(msg), MaxMessage)
	for cut > 0 && cut < len(msg) && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… [%d bytes cut]", strings.Clone(msg[:cut]), total-cut)
}

// Print is the state's print: its arguments, tab-separated, logged at info level.
func (e *Instance) Print() lua.LGFunction {
	return func(L *lua.LState) int {
		if !e.logger.Enabled(limits.Context(L), slog.LevelInfo) || e.logs.full() {
			return 0
		}
		var b strings.Builder
		total := 0
		add := func(s string) { // keeps one byte past the limit, so capMessage sees the cut
			b.WriteString(s[:min(len(s), max(0, MaxMessage+1-b.Len()))])
			total += len(s)
		}
		for i := 1; i <= L.GetTop(); i++ {
			if i > 1 {
				add("\t")
			}
			add(L.ToStringMeta(L.Get(i)).String())
		}
		L.SetTop(0)
		e.fromLua(L, slog.LevelInfo, capMessage(b.String(), total), 1)
		return 0
	}
}

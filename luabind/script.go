package luabind

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/hermes-hooks/hermes/luabind/internal/limits"
	iomod "github.com/hermes-hooks/hermes/luabind/internal/modules/io"

	execmod "github.com/hermes-hooks/hermes/luabind/internal/modules/exec"

	"github.com/hermes-hooks/hermes/hookspec"
	"github.com/hermes-hooks/hermes/luabind/internal/kwflow"
	lua "github.com/hermes-hooks/hermes/luabind/internal/lua"
	"github.com/hermes-hooks/hermes/luabind/internal/lua/parse"
	"github.com/hermes-hooks/hermes/luabind/internal/stdlib"
)

// Options describe one handler file to load. The zero value of every field works.
type Options struct {
	Name    string        // hook or plugin name, for logs; "" = the file name
	File    string        // path of the handler, used in every error message
	Home    string        // the hermes home, visible as hermes.home and ctx.home
	Logger  *slog.Logger  // nil = discard; the log module and print write here
	Timeout time.Duration // per call (and for loading); 0 = 5s
	// BusyTimeout bounds how long a call waits for a free Lua state when all States are in
	// use; past it the call does not run and fails with KindBusy. 0 = Timeout. The call's
	// own Timeout starts when it has a state.
	BusyTimeout time.Duration
	States      int // Lua states kept for calls running Lua at once; 0 = 1 (see doc.go)
	// MaxStates bounds the states the pool may grow to while calls wait on I/O (store,
	// http, exec, time.sleep, host functions): a call that finds every state busy while
	// fewer than States calls are running Lua gets an extra state (see doc.go). States or
	// less (0 included): the pool never grows.
	MaxStates int
	// WrapMaxStates, when more than MaxStates, is the bound instead for a plugin that
	// registers a wrap hook: its calls wait in next for as long as the calls they wrap run.
	WrapMaxStates int
	Permissions   hookspec.Permissions     // what the hook may touch
	HostFuncs     map[string]hookspec.Func // extra functions of the hermes module, e.g. run_agent
	Store         hookspec.Store           // the hook's namespace of the store module; nil = no store module
	Config        any                      // plugins only: visible to Lua as ctx.config
	// MemoryLimit is how many bytes each Lua state of the hook may hold; an allocation
	// that would pass it fails the call with a KindLimit error (see doc.go, Limits). 0 =
	// 256 MiB; negative = no limit.
	MemoryLimit int64
	// DryRun refuses what the hook's calls would change outside the process: every call of
	// the http and exec modules, and io.open for writing, raise an error that starts with
	// DryRunRefusal. The store and the host functions are the host's: give stand-ins.
	DryRun bool
}

const defaultTimeout = 5 * time.Second

// script is one compiled handler file and its pool of Lua states. The bytecode is
// compiled once; every state runs the same prototype.
type script struct {
	opts        Options
	proto       *lua.FunctionProto
	hook        *hook
	timeoutText string
	setup       func(ctx context.Context, st *state) error
	tableArg    int // which argument of a call is the table to refill: 0 for plugin callbacks

	pool *pool

	ccMu sync.Mutex
	ccs  map[*limits.Call]struct{} // of every open state, for interrupt
}

// state is one Lua state with the functions the handler gave us.
type state struct {
	L      *lua.LState
	env    *env
	fns    []*lua.LFunction
	kws    []*kwTable   // per function: its reused kwargs table, or nil (reuse.go)
	slot   *slot        // where the pool keeps it
	index  int          // of slot
	ctx    *limits.Call // re-armed for every call
	script *script
}

// analyze is kwflow.AnalyzeFunc; tests replace it to compare against fresh tables.
var analyze = kwflow.AnalyzeFunc

// planReuse decides, once per state, which functions get their table argument (number
// tableArg) refilled: those whose bytecode shows they cannot tell (reuse.go).
func (st *state) planReuse(tableArg int) {
	st.kws = make([]*kwTable, len(st.fns))
	for i, fn := range st.fns {
		if fn.IsG {
			continue
		}
		if use := analyze(fn, tableArg); use.ReadOnly {
			st.kws[i] = newKWTable(use)
		}
	}
}

// arg converts a call's argument to Lua: into the function's reused table when it has one
// and v is the table argument.
func (st *state) arg(fn int, v any, table bool) lua.LValue {
	k := st.kws[fn]
	if k == nil || !table {
		return toLua(st.L, v)
	}
	if !k.use.Holds() {
		// A function the analysis followed the table into was replaced: a call since may
		// have handed the table to another, which may keep it. It is never refilled again.
		st.kws[fn] = nil
		return toLua(st.L, v)
	}
	switch x := v.(type) {
	case map[string]any:
		k.fillMap(st.L, x)
		return k.t
	case Table:
		k.fillTable(st.L, x)
		return k.t
	}
	return toLua(st.L, v)
}

// close closes the Lua state and what its modules hold outside Lua (files, connections).
func (st *state) close() {
	st.script.ccMu.Lock()
	delete(st.script.ccs, st.ctx)
	st.script.ccMu.Unlock()
	st.ctx.Close()
	st.L.Close()
	st.env.close()
}

// compile parses and compiles src once; syntax errors carry the file and line.
func compile(file string, src []byte) (*lua.FunctionProto, error) {
	if len(src) > stdlib.MaxSourceSize {
		return nil, &Error{Kind: KindLimit, File: file, Msg: stdlib.SourceTooLarge}
	}
	chunk, err := parse.Parse(bytes.NewReader(src), file)
	if err != nil {
		le := fromParseError(file, lastLine(src), err)
		var pe *parse.Error
		if errors.As(err, &pe) && pe.Message != parse.TooDeep {
			near := pe.Token
			if pe.Pos.Line < 0 {
				near = ""
			}
			le.Msg = syntaxHint(src, le.Line, near, le.Msg)
		}
		return nil, le
	}
	proto, err := lua.Compile(chunk, file)
	if err != nil {
		return nil, fromParseError(file, lastLine(src), err)
	}
	shrink(proto)
	return proto, nil
}

// shrink copies the compiler's over-allocated slices into right-sized ones: the bytecode
// lives as long as the hook, and a home may load hundreds of hooks.
func shrink(p *lua.FunctionProto) {
	p.Code = slices.Clone(p.Code)
	p.Constants = slices.Clone(p.Constants)
	p.DbgSourcePositions = slices.Clone(p.DbgSourcePositions)
	p.DbgLocals = slices.Clone(p.DbgLocals)
	p.DbgCalls = slices.Clone(p.DbgCalls)
	p.DbgUpvalues = slices.Clone(p.DbgUpvalues)
	p.FunctionPrototypes = slices.Clone(p.FunctionPrototypes)
	for _, child := range p.FunctionPrototypes {
		shrink(child)
	}
}

func newScript(src []byte, opts Options) (*script, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = defaultTimeout
	}
	if opts.BusyTimeout <= 0 {
		opts.BusyTimeout = opts.Timeout
	}
	if opts.States <= 0 {
		opts.States = 1
	}
	opts.MaxStates = max(opts.MaxStates, opts.States)
	if opts.Name == "" {
		opts.Name = opts.File
	}
	if opts.MemoryLimit == 0 {
		opts.MemoryLimit = DefaultMemoryLimit
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	proto, err := compile(opts.File, src)
	if err != nil {
		return nil, err
	}
	roots, err := iomod.ResolveRoots(opts.Permissions.FS, opts.Home)
	if err != nil {
		return nil, &Error{Kind: KindLoad, File: opts.File, Msg: err.Error()}
	}
	s := &script{
		opts:  opts,
		proto: proto,
		hook: &hook{name: opts.Name, home: opts.Home, logger: logger, perms: opts.Permissions,
			hostFuncs: opts.HostFuncs, store: opts.Store, fsRoots: roots, programs: execmod.ResolvePrograms(opts.Permissions.Exec, opts.Home),
			dryRun: opts.DryRun},
		timeoutText: fmt.Sprintf("timed out after %s", opts.Timeout),
		ccs:         map[*limits.Call]struct{}{},
	}
	s.hook.modules = s.hook.moduleTable()
	s.pool = newPool(opts.States, opts.MaxStates, opts.WrapMaxStates, opts.BusyTimeout, s.newState)
	return s, nil
}

// start creates the first state, so that load errors surface at load time.
func (s *script) start(ctx context.Context) error {
	st, err := s.acquire(ctx)
	if err != nil {
		return err
	}
	s.pool.release(st)
	return nil
}

// newState builds a sandbox, runs the chunk and the script's setup, under the timeout and
// the memory guard. Files the chunk or setup opened are closed when loading ends.
func (s *script) newState(parent context.Context) (st *state, err error) {
	cc := limits.NewCall(s.opts.MemoryLimit)
	cc.SetWaiter(s.pool)
	e := &env{hook: s.hook, poll: cc.Poll(), guard: cc.Guard()}
	built := &state{L: newSandbox(e), env: e, ctx: cc, script: s}
	built.limitMemory(s.opts.MemoryLimit)
	s.ccMu.Lock()
	s.ccs[cc] = struct{}{}
	s.ccMu.Unlock()
	cc.Begin(parent, s.opts.Timeout)
	defer func() {
		cc.End()
		if r := recover(); r != nil {
			err = &Error{Kind: KindRuntime, File: s.opts.File, Msg: fmt.Sprintf("panic while loading: %v", r)}
			if ae, ok := r.(*lua.ApiError); ok { // raised by Go code outside a protected call
				err = fromCallError(s.opts.File, nil, "", ae)
			}
		}
		if built.L.MemoryExceeded() {
			err = s.memoryError(err)
		}
		e.closeCall()
		if err != nil {
			built.close()
			st = nil
		}
	}()
	L := built.L
	L.SetContext(e.poll)
	defer L.RemoveContext()
	L.Push(L.NewFunctionFromProto(s.proto))
	if err := startCall(L, 0, 0, e.poll); err != nil {
		return nil, fromCallError(s.opts.File, cc, "timed out while loading after "+s.opts.Timeout.String(), err)
	}
	if s.setup != nil {
		if err := s.setup(cc, built); err != nil {
			return nil, err
		}
	}
	built.planReuse(s.tableArg)
	return built, nil
}

// acquireFor takes a state for a call: at once when one is idle, else waiting at most the
// hook's busy timeout. waited is how long it waited (0 when a state was idle: then no clock
// is read). Its errors are *Error values: KindBusy when no state came free, KindCanceled
// when the host gave up first.
func (s *script) acquireFor(ctx context.Context) (st *state, waited time.Duration, err error) {
	if st := s.pool.tryIdle(); st != nil {
		return st, 0, nil
	}
	start := limits.MonoNow()
	waitCtx, cancel := context.WithTimeoutCause(ctx, s.opts.BusyTimeout, errBusy)
	defer cancel()
	st, err = s.acquire(waitCtx)
	var le *Error
	var intr interrupted
	switch {
	case err == nil || errors.As(err, &le):
	case errors.As(err, &intr):
		err = &Error{Kind: KindCanceled, File: s.opts.File, Msg: fmt.Sprintf("call canceled (%v) while waiting for a free Lua state", intr.why)}
	case context.Cause(waitCtx) == errBusy:
		err = &Error{Kind: KindBusy, File: s.opts.File, Msg: fmt.Sprintf(
			"busy: all %d Lua state(s) of the hook stayed in use for %s, so this call did not run (raise states: or busy_timeout: in the manifest)",
			s.pool.size(), s.opts.BusyTimeout)}
	default:
		err = &Error{Kind: KindCanceled, File: s.opts.File, Msg: limits.StoppedBy(ctx).Message() + " while waiting for a free Lua state"}
	}
	return st, time.Duration(limits.MonoNow() - start), err
}

var errBusy = errors.New("busy")

// interrupt stops every call in flight, because the hook is being closed: those running
// and those waiting for a state.
func (s *script) interrupt(why error) {
	s.pool.interrupt(why)
	s.ccMu.Lock()
	defer s.ccMu.Unlock()
	for cc := range s.ccs {
		cc.Interrupt(why)
	}
}

// acquire takes a state from the pool.
func (s *script) acquire(ctx context.Context) (*state, error) {
	st, err := s.pool.acquire(ctx)
	if err == errClosed {
		err = &Error{Kind: KindLoad, File: s.opts.File, Msg: "hook is closed"}
	}
	return st, err
}

// close closes idle states now and busy ones when their call returns.
func (s *script) close() {
	s.pool.close()
	iomod.CloseRoots(s.hook.fsRoots) // a call still in flight can no longer open files
}

// Timing is how long a call waited for a free Lua state and how long it ran: the wait is
// never part of the run.
type Timing struct {
	Wait time.Duration // 0 when a state was idle at once
	Run  time.Duration // 0 for an untimed call, and for a call that did not run
}

// call runs function fn (an index into state.fns) in some state, with the hook's timeout.
// It reports how long it waited for a state, and when timed how long it ran (else Run is
// 0: an untimed call reads the clock only when it has to wait).
func (s *script) call(ctx context.Context, fn int, args []any, timed bool) (any, Timing, error) {
	return s.callWith(ctx, fn, args, nil, nil, timed)
}

// callWith is call; with next, the function's last argument is next bound to the state
// (wrap.go), and Timing.Run leaves out the time spent in it; with answer, a result that
// converts to an object is converted into answer (stdlib.ToWireInto).
func (s *script) callWith(ctx context.Context, fn int, args []any, next Next, answer map[string]any, timed bool) (any, Timing, error) {
	st, waited, err := s.acquireFor(ctx)
	if err != nil {
		return nil, Timing{Wait: waited}, err
	}
	var start limits.MonoTime
	if timed {
		start = limits.MonoNow()
	}
	var w *nextCall
	if next != nil {
		w = &nextCall{next: next, guard: st.ctx.Guard()}
		args = append(args[:len(args):len(args)], st.L.NewFunction(w.lua))
	}
	st.ctx.Begin(ctx, s.opts.Timeout)
	v, err, panicked := s.invoke(st.ctx, st, fn, args, answer)
	st.ctx.End()
	if w != nil {
		w.over = true
	}
	if st.L.MemoryExceeded() {
		// The call failed even if it caught the error: what it allocated may be reachable
		// from its globals, so the next call starts afresh.
		v, err, panicked = nil, s.memoryError(err), true
	}
	if panicked {
		s.pool.discard(st)
	} else {
		s.pool.release(st)
	}
	t := Timing{Wait: waited}
	if timed {
		t.Run = time.Duration(limits.MonoNow() - start)
		if w != nil {
			t.Run -= w.inside
		}
	}
	return v, t, err
}

// invoke calls fn in st. It never lets a panic escape; panicked reports that the state
// should not be reused. Files the call opened are closed when it returns. A result that
// converts to an object is converted into answer when it is not nil.
func (s *script) invoke(ctx context.Context, st *state, i int, args []any, answer map[string]any) (v any, err error, panicked bool) {
	L, fn := st.L, st.fns[i]
	top := L.GetTop()
	L.SetContext(st.env.poll)
	defer func() { // one deferred call: a function of few defers runs them inline
		r := recover()
		L.SetTop(top)
		L.RemoveContext()
		st.env.closeCall()
		if r != nil {
			v, err, panicked = nil, &Error{Kind: KindRuntime, File: s.opts.File, Msg: fmt.Sprintf("panic: %v", r)}, true
			if ae, ok := r.(*lua.ApiError); ok { // raised by Go code outside a protected call
				err = fromCallError(s.opts.File, nil, "", ae)
			}
		}
	}()
	L.Push(fn)
	for j, a := range args {
		L.Push(st.arg(i, a, j == s.tableArg))
	}
	if err := startCall(L, len(args), 1, st.env.poll); err != nil {
		return nil, fromCallError(s.opts.File, ctx, s.timeoutText, err), false
	}
	ret := L.Get(-1)
	if ret == lua.LNil { // the common answer: nothing to convert
		return nil, nil, false
	}
	// NaN and infinities have no wire (JSON) form. The conversion stops when the call's
	// time runs out while it walks a large answer.
	v, err = toWire(L, ret, answer)
	if err != nil && ctx.Err() != nil {
		return nil, fromCallError(s.opts.File, ctx, s.timeoutText, err), false
	}
	if err != nil {
		le := err.(*Error)
		le.File, le.Line = s.opts.File, fn.Proto.LineDefined
		le.Msg = "bad return value: " + le.Msg
		return nil, le, false
	}
	return v, nil, false
}

// lastLine is the number of the last non-empty line of src.
func lastLine(src []byte) int {
	return bytes.Count(bytes.TrimRight(src, "\n"), []byte("\n")) + 1
}

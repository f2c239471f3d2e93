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
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// Permissions are the side effects a hook declares in its manifest. The zero value
// allows none of them.
type Permissions struct {
	FS   []string `json:"fs,omitempty"`   // paths file I/O may touch
	Net  []string `json:"net,omitempty"`  // hosts the http module may reach
	Exec []string `json:"exec,omitempty"` // programs the exec module may run
	Env  []string `json:"env,omitempty"`  // variables os.getenv may read ("*" = all)
}

// Options describe one handler file to load. The zero value of every field works.
type Options struct {
	Name        string          // hook or plugin name, for logs; "" = the file name
	File        string          // path of the handler, used in every error message
	Home        string          // the hermes home, visible as hermes.home and ctx.home
	Logger      *slog.Logger    // nil = discard; the log module and print write here
	Timeout     time.Duration   // per call (and for loading); 0 = 5s
	States      int             // Lua states kept for concurrent calls; 0 = 1 (see doc.go)
	Permissions Permissions     // what the hook may touch
	HostFuncs   map[string]Func // extra functions of the hermes module, e.g. run_agent
	Config      any             // plugins only: visible to Lua as ctx.config
	// ReuseKwargs passes the same kwargs table to every call of a state, refilled each
	// time, instead of building a new one (about a third of a short callback's cost). A
	// callback must then not keep the table (or store into it) beyond its call.
	ReuseKwargs bool
	// MemoryLimit is how much a call may grow the Go heap before it is stopped with a
	// KindLimit error (see doc.go, Limits); 0 = 256 MiB; negative = no memory guard.
	MemoryLimit int64
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

	idle    chan *state
	mu      sync.Mutex
	created int
	closed  atomic.Bool
	all     []*state
}

// state is one Lua state with the functions the handler gave us.
type state struct {
	L      *lua.LState
	env    *env
	fns    []*lua.LFunction
	ctx    *callContext // re-armed for every call
	cancel func()       // ctx.cancel, bound once
	kw     *lua.LTable  // the reused kwargs table (Options.ReuseKwargs)
}

// kwargsTable refills the state's reused kwargs table with a Table: every key is removed
// first (the table keeps its key index, so setting them again allocates nothing).
func (st *state) reusedTable(tb Table) *lua.LTable {
	t := st.kwargsTable(nil)
	tb.FillLua(TableWriter{L: st.L, t: t})
	return t
}

// kwargsTable refills the state's reused kwargs table with m: stale keys (and anything a
// callback stored) are removed, and the metatable is reset.
func (st *state) kwargsTable(m map[string]any) *lua.LTable {
	t := st.kw
	if t == nil {
		t = st.L.CreateTable(0, len(m))
		st.kw = t
	}
	t.Metatable = lua.LNil
	t.ForEach(func(k, _ lua.LValue) {
		if s, ok := k.(lua.LString); ok {
			if _, keep := m[string(s)]; keep {
				return
			}
		}
		t.RawSet(k, lua.LNil)
	})
	for k, v := range m {
		t.RawSetString(k, toLua(st.L, v))
	}
	return t
}

// close closes the Lua state and what its modules hold outside Lua (files, connections).
func (st *state) close() {
	heapWatch.unregister(&st.env.guard)
	st.L.Close()
	st.env.close()
}

// compile parses and compiles src once; syntax errors carry the file and line.
func compile(file string, src []byte) (*lua.FunctionProto, error) {
	chunk, err := parse.Parse(bytes.NewReader(src), file)
	if err != nil {
		return nil, fromParseError(file, lastLine(src), err)
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
	if opts.States <= 0 {
		opts.States = 1
	}
	if opts.Name == "" {
		opts.Name = opts.File
	}
	if opts.MemoryLimit == 0 {
		opts.MemoryLimit = defaultMemoryLimit
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	proto, err := compile(opts.File, src)
	if err != nil {
		return nil, err
	}
	roots, err := resolveRoots(opts.Permissions.FS, opts.Home)
	if err != nil {
		return nil, &Error{Kind: KindLoad, File: opts.File, Msg: err.Error()}
	}
	return &script{
		opts:  opts,
		proto: proto,
		hook: &hook{name: opts.Name, home: opts.Home, logger: logger, perms: opts.Permissions,
			hostFuncs: opts.HostFuncs, fsRoots: roots},
		timeoutText: fmt.Sprintf("timed out after %s", opts.Timeout),
		idle:        make(chan *state, opts.States),
	}, nil
}

// start creates the first state, so that load errors surface at load time.
func (s *script) start(ctx context.Context) error {
	st, err := s.acquire(ctx)
	if err != nil {
		return err
	}
	s.release(st)
	return nil
}

// newState builds a sandbox, runs the chunk and the script's setup, under the timeout and
// the memory guard. Files the chunk or setup opened are closed when loading ends.
func (s *script) newState(ctx context.Context) (st *state, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	e := &env{hook: s.hook}
	cc := newCallContext()
	built := &state{L: newSandbox(e), env: e, ctx: cc, cancel: cc.cancel}
	heapWatch.register(&e.guard)
	heapWatch.watch(&e.guard, s.opts.MemoryLimit, cancel)
	defer func() {
		heapWatch.unwatch(&e.guard)
		if r := recover(); r != nil {
			err = &Error{Kind: KindRuntime, File: s.opts.File, Msg: fmt.Sprintf("panic while loading: %v", r)}
		}
		if err != nil && e.guard.tripped.Load() {
			err = e.guard.limitError(s.opts.File)
		}
		e.closeCall()
		if err != nil {
			built.close()
			st = nil
		}
	}()
	L := built.L
	L.SetContext(ctx)
	defer L.RemoveContext()
	L.Push(L.NewFunctionFromProto(s.proto))
	if err := L.PCall(0, 0, nil); err != nil {
		return nil, fromCallError(s.opts.File, ctx, "timed out while loading after "+s.opts.Timeout.String(), err)
	}
	if s.setup != nil {
		if err := s.setup(ctx, built); err != nil {
			return nil, err
		}
	}
	return built, nil
}

// acquireFor takes a state for a call: at once when one is idle, else waiting at most the
// hook's timeout. It returns how much of the timeout is left for the call.
func (s *script) acquireFor(ctx context.Context) (*state, time.Duration, error) {
	select {
	case st := <-s.idle:
		return st, s.opts.Timeout, nil
	default:
	}
	start := time.Now()
	waitCtx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
	defer cancel()
	st, err := s.acquire(waitCtx)
	return st, max(s.opts.Timeout-time.Since(start), time.Millisecond), err
}

// acquire takes an idle state, creates one if the pool may grow, or waits for one.
func (s *script) acquire(ctx context.Context) (*state, error) {
	select {
	case st := <-s.idle:
		return st, nil
	default:
	}
	s.mu.Lock()
	if s.closed.Load() {
		s.mu.Unlock()
		return nil, &Error{Kind: KindLoad, File: s.opts.File, Msg: "hook is closed"}
	}
	if s.created < s.opts.States {
		s.created++
		s.mu.Unlock()
		st, err := s.newState(ctx)
		s.mu.Lock()
		defer s.mu.Unlock()
		if err != nil {
			s.created--
			return nil, err
		}
		s.all = append(s.all, st)
		return st, nil
	}
	s.mu.Unlock()
	select {
	case st := <-s.idle:
		return st, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// release returns a state to the pool, or closes it when the script is closed. It takes
// no lock: concurrent calls of one hook do not contend here.
func (s *script) release(st *state) {
	if s.closed.Load() {
		st.close()
		return
	}
	s.idle <- st
	if s.closed.Load() { // close may have drained the pool before the send
		s.drain()
	}
}

// discard drops a state that may be inconsistent (a Go panic unwound through it).
func (s *script) discard(st *state) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.created--
	for i, x := range s.all {
		if x == st {
			s.all = append(s.all[:i], s.all[i+1:]...)
			break
		}
	}
	st.close()
}

// close closes idle states now and busy ones when their call returns.
func (s *script) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Swap(true) {
		return
	}
	s.drain()
}

// drain closes every idle state.
func (s *script) drain() {
	for {
		select {
		case st := <-s.idle:
			st.close()
		default:
			return
		}
	}
}

// call runs function fn (an index into state.fns) in some state, with the hook's timeout.
func (s *script) call(ctx context.Context, fn int, args []any) (any, error) {
	st, left, err := s.acquireFor(ctx)
	if err != nil {
		var le *Error
		if errors.As(err, &le) {
			return nil, err
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, &Error{Kind: KindTimeout, File: s.opts.File, Msg: s.timeoutText + " waiting for a free Lua state"}
		}
		return nil, &Error{Kind: KindCanceled, File: s.opts.File, Msg: "call canceled by the host"}
	}
	g := &st.env.guard
	st.ctx.begin(ctx, left)
	heapWatch.watch(g, s.opts.MemoryLimit, st.cancel)
	v, err, panicked := s.invoke(st.ctx, st, st.fns[fn], args)
	heapWatch.unwatch(g)
	st.ctx.end()
	if err != nil && g.tripped.Load() {
		// What the call allocated may be reachable from its globals: start afresh.
		v, err, panicked = nil, g.limitError(s.opts.File), true
	}
	if panicked {
		s.discard(st)
	} else {
		s.release(st)
	}
	return v, err
}

// invoke calls fn in st. It never lets a panic escape; panicked reports that the state
// should not be reused. Files the call opened are closed when it returns.
func (s *script) invoke(ctx context.Context, st *state, fn *lua.LFunction, args []any) (v any, err error, panicked bool) {
	L := st.L
	top := L.GetTop()
	defer st.env.closeCall()
	defer func() {
		if r := recover(); r != nil {
			v, err, panicked = nil, &Error{Kind: KindRuntime, File: s.opts.File, Msg: fmt.Sprintf("panic: %v", r)}, true
		}
	}()
	L.SetContext(ctx)
	defer L.RemoveContext()
	defer L.SetTop(top)
	L.Push(fn)
	for _, a := range args {
		if s.opts.ReuseKwargs {
			switch x := a.(type) {
			case map[string]any:
				L.Push(st.kwargsTable(x))
				continue
			case Table:
				L.Push(st.reusedTable(x))
				continue
			}
		}
		L.Push(toLua(L, a))
	}
	if err := L.PCall(len(args), 1, nil); err != nil {
		return nil, fromCallError(s.opts.File, ctx, s.timeoutText, err), false
	}
	v, err = ToGo(L.Get(-1))
	if err == nil {
		if ferr := checkFinite(v); ferr != nil { // NaN and infinities have no wire (JSON) form
			v, err = nil, &Error{Kind: KindConvert, Msg: "unsupported value: " + ferr.Error()}
		}
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

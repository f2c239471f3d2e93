package engine

import (
	"sync"
	"sync/atomic"

	"github.com/hermes-hooks/hermes/hookspec"
)

// refCount counts the calls holding a hook set. Every call takes and drops a reference, so
// the count is spread over counters on separate cache lines, one per scratch (below): a
// scratch stays with the processor that last used it, so each core keeps writing its own
// line. One counter would move between the cores on every call, which costs more than a
// short Lua callback.
type refCount struct {
	shards [refShards + 1]struct {
		_ [128]byte // x86 cores prefetch cache lines in pairs
		n atomic.Int64
	}
}

const refShards = 16

func (r *refCount) add(shard int)  { r.shards[shard].n.Add(1) }
func (r *refCount) drop(shard int) { r.shards[shard].n.Add(-1) }

// zero reports whether no reference is held. It is exact once no new reference can be
// taken (the set is retired) and those taken before have been dropped.
func (r *refCount) zero() bool {
	for i := range r.shards {
		if r.shards[i].n.Load() != 0 {
			return false
		}
	}
	return true
}

// scratch is what one typed call needs and nothing keeps after it. Scratches are pooled
// (sync.Pool keeps one per processor), so that a pre_tool_call allocates nothing in the
// steady state.
type scratch struct {
	_       [128]byte // scratches of different processors are allocated side by side:
	shard   int       // keep their lines apart (see refCount)
	tool    toolArgs
	turn    turnArgs
	results []hookspec.Result
	answers []map[string]any // answers[j]: what results[j]'s Lua answer is converted into
	_       [128]byte
}

var (
	scratchPool = sync.Pool{New: func() any {
		return &scratch{shard: int(scratchSeq.Add(1) % refShards)}
	}}
	scratchSeq atomic.Uint32
)

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

// answer is the map the Lua answer of result slot j is converted into (made on first use),
// or nil for a nil sc. What it holds is the call's: putScratch empties it, so nothing of a
// report built in sc may be kept past putScratch (the typed calls keep strings, and the
// nested maps and lists of an answer, which are new for every call: hookspec.Normalise).
func (sc *scratch) answer(j int) map[string]any {
	if sc == nil {
		return nil
	}
	for len(sc.answers) <= j {
		sc.answers = append(sc.answers, nil)
	}
	if m := sc.answers[j]; m == nil || len(m) > maxAnswerKeys { // (a recheck's first answer may fill it)
		sc.answers[j] = make(map[string]any, 4)
	}
	return sc.answers[j]
}

// maxAnswerKeys bounds the keys of an answer map kept for the next call: a map keeps its
// room when cleared, and a scratch lives as long as its pool keeps it.
const maxAnswerKeys = 8

// putScratch returns sc to the pool, without the references its call left in it.
func putScratch(sc *scratch) {
	for j, m := range sc.answers[:min(len(sc.answers), len(sc.results))] {
		switch n := len(m); {
		case n > maxAnswerKeys:
			sc.answers[j] = nil
		case n > 0: // most calls let it be: their map is empty
			clear(m)
		}
	}
	clear(sc.results)
	sc.results = sc.results[:0]
	sc.tool = toolArgs{}
	sc.turn = turnArgs{}
	scratchPool.Put(sc)
}

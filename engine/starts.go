package engine

import (
	"log/slog"
	"sync"
	"sync/atomic"
)

// maxStartContexts bounds the sessions whose start context waits for a first turn.
const maxStartContexts = 4096

// startContexts keeps the context on_session_start's hooks gave, per session, until the
// session's first PreLLMCall takes it or the session ends. Safe for concurrent use.
type startContexts struct {
	n     atomic.Int64 // entries in m: PreLLMCall takes nothing without locking when 0
	mu    sync.Mutex
	m     map[string]string
	order []string // session ids in insertion order, for dropping the oldest
}

// put keeps c for session id; when full, the oldest session's context is dropped, with a
// warning.
func (s *startContexts) put(id, c string, log *slog.Logger) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[string]string{}
	}
	if _, ok := s.m[id]; !ok {
		s.order = append(s.order, id)
	}
	s.m[id] = c
	for len(s.m) > maxStartContexts {
		old := s.order[0]
		s.order = s.order[1:]
		if _, ok := s.m[old]; ok {
			delete(s.m, old)
			log.Warn("session start context dropped: too many sessions started without a first turn", "session_id", old, "limit", maxStartContexts)
		}
	}
	s.n.Store(int64(len(s.m)))
}

// take returns and forgets the context kept for session id ("" if none).
func (s *startContexts) take(id string) string {
	if s.n.Load() == 0 {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.m[id]
	if ok {
		delete(s.m, id)
		s.n.Store(int64(len(s.m)))
		if len(s.order) > 2*len(s.m)+64 { // forget ids already taken
			kept := s.order[:0]
			for _, o := range s.order {
				if _, live := s.m[o]; live {
					kept = append(kept, o)
				}
			}
			s.order = kept
		}
	}
	return c
}

// Package store keeps the state hooks need across calls, states, reloads and processes:
// counters, rate limits, per-session notes, caches. Each hook has its own namespace of keys
// whose values are JSON values. The default backend is an SQLite database in
// <home>/state/ (modernc.org/sqlite, pure Go, in WAL mode: several processes on one home
// share it safely); config.yaml's `store: {url: "redis://..."}` puts it in Redis, for
// gateways on several machines.
//
// # Model
//
// A Backend holds every namespace of one home; a View is one namespace of it with Go values,
// what the Lua store module calls. Namespaces are apart whatever their names hold: no name
// reaches the keys of another. Each namespace may hold MaxHookKeys keys, and keys and values
// of at most Config.MaxBytes bytes together; both quotas are checked before a write,
// atomically with it, so concurrent writers in any number of processes cannot pass them.
//
// # Failures
//
// Every operation honours its context: a backend that is slow or down is that call's error,
// never a hang. A Redis backend also bounds each operation by Options.OpTimeout, and a
// SQLite write waits that long at most for another process's write lock. Both are behind a
// circuit breaker (breaker.go): after Options.FailAfter failures in a row their calls fail at
// once with an UnavailableError for a rest, then one call tries again. A database file that
// cannot be used (corrupt, not a database) is reported and left as it is: nothing replaces
// it. The database and its journal files are readable by their owner only.
//
// # Concurrency and lifecycle
//
// A Backend and its Views are safe for concurrent use by any number of goroutines; Update
// retries its function on a conflicting write, so the function may run more than once and
// must not have side effects. The SQLite backend uses one connection per process: writers of
// one process queue on it rather than in SQLite's busy sleeps, and its hot calls (Get, Set,
// Incr, Delete) that wait together run in one transaction, each in its own savepoint, with
// its own result (sqlitebatch.go); the Redis backend sends the same calls that wait together
// as one pipeline, each with its own reply (redisbatch.go). Open (or OpenWith) opens a
// backend, Close releases it; a backend whose database file was deleted or replaced since it
// was opened reports it through Moved, and its owner opens the home's store again (writes to
// it would be lost). Close a backend once its callers are done: calls after Close fail.
package store

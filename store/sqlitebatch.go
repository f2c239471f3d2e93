package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
)

// Group commit of the SQLite backend. A hot call (Get, Set, Incr, Delete) that finds no
// writer runs at once on its caller's goroutine, each statement its own transaction, and is
// the writer meanwhile (runAlone). The calls that come while a writer runs are queued for
// it; the goroutine started for them (gone once nothing waits) runs what is waiting
// together: one call alone as above; several in one immediate transaction, each in its own
// SAVEPOINT, committed once. Most of a lone increment's cost is the
// transaction around it (the WAL frames written, the shared-memory locks taken and given
// back: system calls), so calls that queue behind each other share it
// (BenchmarkSQLiteIncrParallel).
//
// A call's error rolls back its savepoint and nothing else: the others of the batch commit
// with their own results. No result is given before the commit: a commit that fails fails
// every call whose savepoint held, with its error, and a statement that ends the whole
// transaction (a full disk) fails every call of the batch with that statement's error. A
// queued caller waits no longer than its context; a call whose caller stopped waiting
// before the writer took it never runs, and one already taken finishes on its own (as
// withContext). A call that runs alone on its caller's goroutine runs its statements under
// its caller's context: they end with it.

// maxBatch is the most calls one transaction takes: what waits longer goes in the next.
const maxBatch = 64

// errStoreClosed is the error of a call made after Close.
var errStoreClosed = errors.New("the store is closed")

// The states of a queued call.
const (
	opQueued    int32 = iota // waiting for the writer
	opTaken                  // the writer runs it (or ran it)
	opAbandoned              // its caller stopped waiting first: it never runs
)

// sqlOp is one call queued for the writer.
type sqlOp struct {
	run   func(ctx context.Context, q querier) error
	state atomic.Int32
	done  chan error // its result, sent once the writer is done with it
}

// querier is where a call runs its statements: the database (a call alone) or the batch's
// transaction. Calls must use it, never b.db: the writer holds the one connection.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	// stmt is s prepared on the database, as this querier runs it.
	stmt(s *sql.Stmt) *sql.Stmt
}

// dbQuerier runs statements on the database, each in its own transaction.
type dbQuerier struct{ *sql.DB }

func (dbQuerier) stmt(s *sql.Stmt) *sql.Stmt { return s }

// txQuerier runs statements in a batch's transaction.
type txQuerier struct {
	*sql.Tx
	stmts map[*sql.Stmt]*sql.Stmt // the batch's handles of the database's statements
}

func (q *txQuerier) stmt(s *sql.Stmt) *sql.Stmt {
	if t, ok := q.stmts[s]; ok {
		return t
	}
	t := q.Tx.Stmt(s)
	q.stmts[s] = t
	return t
}

// queued runs op through the writer and returns its result, or ctx's error as soon as ctx
// is done: the zero T with any error. op gets a context of its own, never done: a statement
// interrupted in a batch could end the transaction of every call in it.
func queued[T any](ctx context.Context, b *sqliteBackend, op func(ctx context.Context, q querier) (T, error)) (T, error) {
	var v, zero T
	err := b.enqueue(ctx, func(ctx context.Context, q querier) error {
		var err error
		v, err = op(ctx, q)
		return err
	})
	if err != nil {
		return zero, err
	}
	return v, nil
}

// enqueue queues run for the writer and waits for its result or ctx.
func (b *sqliteBackend) enqueue(ctx context.Context, run func(ctx context.Context, q querier) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("store: %s: %w", b.path, context.Cause(ctx))
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return fmt.Errorf("store: %s: %w", b.path, errStoreClosed)
	}
	if !b.writing {
		return b.runAlone(ctx, run)
	}
	op := &sqlOp{run: run, done: make(chan error, 1)}
	b.queue = append(b.queue, op) // the writer (runAlone or write) takes it
	b.mu.Unlock()
	if b.onQueued != nil {
		b.onQueued()
	}
	select {
	case err := <-op.done:
		return err
	case <-ctx.Done():
		op.state.CompareAndSwap(opQueued, opAbandoned) // else it runs, or ran, on its own
		return fmt.Errorf("store: %s: %w", b.path, context.Cause(ctx))
	}
}

// runAlone runs run, a call that found no writer, on its caller's goroutine, as the writer
// would run a call alone: handing it to a goroutine and waking the caller again cost a
// lone call a third of its time when calls come back to back (BenchmarkSQLiteIncrAlone). It
// is the writer meanwhile: the calls made while it runs queue, and a writer is started for
// them when it is done, however it ends. Its statements run under ctx, which only they can
// be interrupted by: the caller waits no longer than its context, as a queued one. Called
// with b.mu held; returns with it released.
func (b *sqliteBackend) runAlone(ctx context.Context, run func(ctx context.Context, q querier) error) error {
	b.writing = true
	b.writers.Add(1)
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		if len(b.queue) > 0 {
			b.writers.Add(1)
			go b.write() // b.writing stays true
		} else {
			b.writing = false
		}
		b.mu.Unlock()
		b.writers.Done()
	}()
	if b.onQueued != nil {
		b.onQueued()
	}
	if b.onBatch != nil {
		b.onBatch(1)
	}
	err := run(ctx, dbQuerier{b.db})
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("store: %s: %w", b.path, context.Cause(ctx))
	}
	return err
}

// write is the writer: it runs the queued calls, those waiting together in one batch, until
// none waits. A goroutine started for the purpose, where the call runs at once, costs a lone
// call less than waking one that waits.
func (b *sqliteBackend) write() {
	defer b.writers.Done()
	var spare []*sqlOp
	for {
		b.mu.Lock()
		if len(b.queue) == 0 {
			b.writing = false
			b.mu.Unlock()
			return
		}
		batch := b.queue
		if len(batch) > maxBatch {
			batch = batch[:maxBatch:maxBatch]
			b.queue = append(spare, b.queue[maxBatch:]...)
			spare = nil
		} else {
			b.queue, spare = spare, nil
		}
		b.mu.Unlock()
		b.runBatch(batch)
		clear(batch)
		spare = batch[:0]
	}
}

// runBatch runs the calls of batch whose callers still wait and gives each its result.
func (b *sqliteBackend) runBatch(batch []*sqlOp) {
	live := make([]*sqlOp, 0, len(batch))
	for _, op := range batch {
		if op.state.CompareAndSwap(opQueued, opTaken) {
			live = append(live, op)
		}
	}
	if b.onBatch != nil && len(live) > 0 {
		b.onBatch(len(live))
	}
	switch len(live) {
	case 0:
	case 1:
		live[0].done <- live[0].run(context.Background(), dbQuerier{b.db})
	default:
		errs := b.group(live)
		for i, op := range live {
			op.done <- errs[i]
		}
	}
}

// group runs ops in one transaction, each in its own savepoint, and returns their errors
// (see the top of this file).
func (b *sqliteBackend) group(ops []*sqlOp) []error {
	ctx := context.Background() // each call's caller bounds its own wait, not the batch
	errs := make([]error, len(ops))
	all := func(err error) []error {
		for i := range errs {
			if errs[i] == nil {
				errs[i] = err
			}
		}
		return errs
	}
	tx, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		return all(b.wrap(err))
	}
	defer tx.Rollback() // after Commit: does nothing
	q := &txQuerier{Tx: tx, stmts: make(map[*sql.Stmt]*sql.Stmt, 4)}
	for i, op := range ops {
		if _, err := q.stmt(b.savepointStmt).ExecContext(ctx); err != nil {
			return all(b.wrap(err))
		}
		if errs[i] = op.run(ctx, q); errs[i] != nil {
			if _, err := q.stmt(b.rollbackToStmt).ExecContext(ctx); err != nil {
				// The call's error ended the transaction: the calls before it are undone too.
				return all(errs[i])
			}
		}
		if _, err := q.stmt(b.releaseStmt).ExecContext(ctx); err != nil {
			return all(b.wrap(err))
		}
	}
	if err := tx.Commit(); err != nil {
		return all(b.wrap(err))
	}
	return errs
}

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hermes-hooks/hermes/internal/safefile"
	"modernc.org/sqlite" // the database/sql driver "sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// sqliteBackend is the store in <home>/state/store.db: one table, WAL mode, every write in
// an immediate transaction, so several processes on one home see one store.
type sqliteBackend struct {
	db       *sql.DB
	path     string
	file     os.FileInfo  // the database file opened: Moved compares the one at path with it
	maxBytes int64        // the byte quota of a namespace
	writes   atomic.Int64 // for sweeping expired keys now and then

	// The statements of the hot calls, parsed once: parsing is a third of an incr.
	getStmt, setStmt, incrStmt, deleteStmt *sql.Stmt
	// The savepoint of each call of a batch (sqlitebatch.go).
	savepointStmt, rollbackToStmt, releaseStmt *sql.Stmt

	// The calls queued for the writer (sqlitebatch.go).
	writers sync.WaitGroup // the writer, while there is one
	mu      sync.Mutex
	queue   []*sqlOp
	writing bool // a writer runs: it takes what is queued
	closed  bool

	// Seams for tests, nil otherwise: onQueued runs after a call was queued (or, finding no
	// writer, runs alone), onBatch when the writer starts the n calls of a batch whose
	// callers still wait (1 for a call that runs alone).
	onQueued func()
	onBatch  func(n int)
}

const schema = `CREATE TABLE IF NOT EXISTS kv (
	ns      TEXT NOT NULL,
	key     TEXT NOT NULL,
	value   TEXT NOT NULL,
	version INTEGER NOT NULL,
	expires INTEGER,
	PRIMARY KEY (ns, key)
) WITHOUT ROWID`

// quotaSchema keeps the number of keys of every namespace and the bytes of their keys and
// values in keys, counted by triggers (whichever process writes, with whatever quota), and
// refuses a new key to a namespace that holds MaxHookKeys (a write to a key it holds goes
// through). An upsert that updates fires no insert trigger; the two insert triggers each
// create the namespace's row when it is missing, so their order does not matter. A
// database made before the count (or the bytes) existed is counted once, in the same
// immediate transaction (see migrate). The byte quota depends on the configuration of each
// process, so the writes check it themselves (see fits).
var quotaSchema = []string{
	`INSERT INTO keys (ns, n, bytes) SELECT ns, COUNT(*), SUM(octet_length(key) + octet_length(value))
		FROM kv WHERE NOT EXISTS (SELECT 1 FROM keys) GROUP BY ns`,
	`CREATE TRIGGER IF NOT EXISTS kv_count_insert AFTER INSERT ON kv BEGIN
		INSERT INTO keys (ns, n) VALUES (NEW.ns, 1) ON CONFLICT (ns) DO UPDATE SET n = n + 1;
	END`,
	`CREATE TRIGGER IF NOT EXISTS kv_count_delete AFTER DELETE ON kv BEGIN
		UPDATE keys SET n = n - 1 WHERE ns = OLD.ns;
	END`,
	`CREATE TRIGGER IF NOT EXISTS kv_bytes_insert AFTER INSERT ON kv BEGIN
		INSERT INTO keys (ns, n, bytes) VALUES (NEW.ns, 0, octet_length(NEW.key) + octet_length(NEW.value))
			ON CONFLICT (ns) DO UPDATE SET bytes = bytes + excluded.bytes;
	END`,
	`CREATE TRIGGER IF NOT EXISTS kv_bytes_delete AFTER DELETE ON kv BEGIN
		UPDATE keys SET bytes = bytes - octet_length(OLD.key) - octet_length(OLD.value) WHERE ns = OLD.ns;
	END`,
	`CREATE TRIGGER IF NOT EXISTS kv_bytes_update AFTER UPDATE OF value ON kv BEGIN
		UPDATE keys SET bytes = bytes + octet_length(NEW.value) - octet_length(OLD.value) WHERE ns = NEW.ns;
	END`,
	fmt.Sprintf(`CREATE TRIGGER IF NOT EXISTS kv_quota BEFORE INSERT ON kv
		WHEN (SELECT n FROM keys WHERE ns = NEW.ns) >= %d
			AND NOT EXISTS (SELECT 1 FROM kv WHERE ns = NEW.ns AND key = NEW.key)
	BEGIN SELECT RAISE(ABORT, '%s'); END`, MaxHookKeys, quotaMark),
}

// quotaMark is the message of kv_quota, recognised by wrap.
const quotaMark = "hermes store quota"

// StateDir is where a home keeps its store database.
func StateDir(home string) string { return filepath.Join(home, "state") }

// openSQLite opens (creating it when missing) the database of home, with a byte quota of
// maxBytes per namespace. A file that is there but is not a usable database is an error
// naming it; it is never replaced.
func openSQLite(ctx context.Context, home string, maxBytes int64, busy time.Duration) (*sqliteBackend, error) {
	dir := StateDir(home)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("store: %v", err)
	}
	path := filepath.Join(dir, "store.db")
	checked, err := inspectDBFile(path)
	if err != nil {
		return nil, fmt.Errorf("store: %v", err)
	}
	dsn := fmt.Sprintf("file:%s?_txlock=immediate&_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)",
		path, max(busy.Milliseconds(), 1))
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %v", path, err)
	}
	// One connection: SQLite has one writer at a time, and writers of one process that
	// queue on a Go mutex wait for each other's few microseconds, where writers on several
	// connections wait in SQLite's busy handler, which sleeps in steps of milliseconds
	// (BenchmarkSQLiteIncrParallel: 16 callers, 118 µs an incr on many, 45 µs on one).
	// Other processes on the same file still meet busy_timeout.
	db.SetMaxOpenConns(1)
	b := &sqliteBackend{db: db, path: path, maxBytes: maxBytes}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	var check string
	err = whileLocked(ctx, func() error { return db.QueryRowContext(ctx, "PRAGMA quick_check").Scan(&check) })
	if err == nil && check != "ok" {
		err = errors.New(check)
	}
	if err == nil {
		err = whileLocked(ctx, func() error { return b.migrate(ctx) })
	} else if !isLocked(err) {
		db.Close()
		return nil, fmt.Errorf("store: %s is not a usable database (%v); it was left as it is: move it away to start an empty store, or restore it", path, err)
	}
	for stmt, q := range map[**sql.Stmt]string{&b.getStmt: getSQL, &b.setStmt: setSQL, &b.incrStmt: incrSQL, &b.deleteStmt: deleteSQL,
		&b.savepointStmt: "SAVEPOINT call", &b.rollbackToStmt: "ROLLBACK TO call", &b.releaseStmt: "RELEASE call"} {
		if err == nil {
			err = whileLocked(ctx, func() (err error) { *stmt, err = db.PrepareContext(ctx, q); return err })
		}
	}
	if err != nil {
		db.Close()
		if isLocked(err) {
			return nil, fmt.Errorf("store: %s is locked by another process (%v); try again when it is done", path, err)
		}
		return nil, fmt.Errorf("store: %s: %v", path, err)
	}
	if b.file, err = sameDBFile(checked, path); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: %v", err)
	}
	return b, nil
}

// Moved reports whether b is a database whose file is no longer at the path it was opened
// from: deleted, or its home moved away or replaced. Writes to it would be lost: open the
// store of the home again.
func Moved(b Backend) bool {
	if c, ok := b.(*breaker); ok {
		b = c.Backend
	}
	s, ok := b.(*sqliteBackend)
	if !ok {
		return false
	}
	fi, err := os.Lstat(s.path) // a link put in its place is a move: the new open refuses it
	return err != nil || !os.SameFile(fi, s.file)
}

// journalSuffixes name the files SQLite opens beside the database, by name.
var journalSuffixes = []string{"-wal", "-shm", "-journal"}

// inspectDBFile checks the database file as safefile does (a FIFO, device or symbolic link
// there is refused, never waited on or followed), creating it readable by its owner only
// when it is missing, and refuses journal files that are not regular files. It takes the
// rights of group and others from the database and its journal files when they have some
// (see inspect). SQLite gives the journal files it creates the database file's mode. What
// it returns is the file checked, for sameDBFile.
func inspectDBFile(path string) (fs.FileInfo, error) {
	fi, err := inspect(path, true)
	if err != nil {
		return nil, err
	}
	for _, suffix := range journalSuffixes {
		if _, err := inspect(path+suffix, false); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	return fi, nil
}

// sameDBFile checks, once the driver has opened path by name, that path is still the file
// checked (fi, from inspectDBFile) and its journal files are still regular files, and
// returns fi. What remains: the driver opens by name, following links, so a FIFO or a link
// swapped in between inspectDBFile and the driver's open is met by the driver before this
// check refuses the store (and so is one swapped in before database/sql opens a new
// connection, which it does only after one fails). Racing that window takes someone who can
// already write to <home>/state; what a home holds at rest, the case of every file left
// there, is refused before the driver sees it.
func sameDBFile(fi fs.FileInfo, path string) (fs.FileInfo, error) {
	now, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !os.SameFile(fi, now) {
		return nil, fmt.Errorf("%s was replaced while it was opened; open the store again", path)
	}
	for _, suffix := range journalSuffixes {
		if err := safefile.Check(path + suffix); err != nil {
			return nil, err
		}
	}
	return fi, nil
}

// migrate creates the tables and triggers a database lacks, in one immediate transaction so
// that processes opening the database at once count the keys once. A count made before the
// bytes were counted gets them, counted once.
func (b *sqliteBackend) migrate(ctx context.Context) error {
	tx, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, schema); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS keys (ns TEXT PRIMARY KEY, n INTEGER NOT NULL, bytes INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID`); err != nil {
		return err
	}
	var counted bool
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) > 0 FROM pragma_table_info('keys') WHERE name = 'bytes'`).Scan(&counted); err != nil {
		return err
	}
	if !counted {
		for _, q := range []string{
			`ALTER TABLE keys ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0`,
			`UPDATE keys SET bytes = (SELECT COALESCE(SUM(octet_length(key) + octet_length(value)), 0) FROM kv WHERE kv.ns = keys.ns)`,
		} {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return err
			}
		}
	}
	for _, q := range quotaSchema {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func (b *sqliteBackend) Where() string { return b.path }

// Close lets the calls already queued finish, then closes the database; later calls fail.
func (b *sqliteBackend) Close() error {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.writers.Wait()
	return b.db.Close()
}

func nowMS() int64 { return time.Now().UnixMilli() }

// live is the SQL condition of a key that has not expired (? is the time in ms).
const live = "(expires IS NULL OR expires > ?)"

// The parameters of the writes that check the byte quota: ?1 the namespace, ?2 the key,
// ?3 the value, ?4 the time in ms, ?5 the expiry (NULL: none), ?6 the bytes of key and value
// written, ?7 the byte quota.

// oldBytes is the bytes the key ?2 of ?1 holds now (0 when missing).
const oldBytes = "COALESCE((SELECT octet_length(key) + octet_length(value) FROM kv WHERE ns = ?1 AND key = ?2), 0)"

// fits is the condition of a write of ?6 bytes at ?2: it takes no more than the key holds,
// or the namespace stays within ?7. It is part of the statement that writes, which holds
// the database's write lock while it runs: no other writer comes between.
const fits = "(?6 <= " + oldBytes + " OR ?6 - " + oldBytes + " <= ?7 - COALESCE((SELECT bytes FROM keys WHERE ns = ?1), 0))"

const (
	getSQL    = "SELECT value FROM kv WHERE ns = ? AND key = ? AND " + live
	deleteSQL = "DELETE FROM kv WHERE ns = ? AND key = ? AND " + live
	// setSQL writes nothing (no row changes) when the value does not fit.
	setSQL = `INSERT INTO kv (ns, key, value, version, expires) SELECT ?1, ?2, ?3, 1, ?5 WHERE ` + fits + `
		ON CONFLICT (ns, key) DO UPDATE SET value = excluded.value, version = version + 1, expires = excluded.expires`
)

func (b *sqliteBackend) Get(ctx context.Context, ns, key string) ([]byte, bool, error) {
	type got struct {
		v  []byte
		ok bool
	}
	r, err := queued(ctx, b, func(ctx context.Context, q querier) (got, error) {
		var v string
		err := q.stmt(b.getStmt).QueryRowContext(ctx, ns, key, nowMS()).Scan(&v)
		if errors.Is(err, sql.ErrNoRows) {
			return got{}, nil
		}
		return got{[]byte(v), err == nil}, b.wrap(err)
	})
	return r.v, r.ok, err
}

func (b *sqliteBackend) Set(ctx context.Context, ns, key string, value []byte, ttl time.Duration) error {
	var expires any
	if ttl > 0 {
		expires = time.Now().Add(ttl).UnixMilli()
	}
	_, err := queued(ctx, b, func(ctx context.Context, q querier) (struct{}, error) {
		err := b.withRoom(ctx, q, ns, func() error {
			res, err := q.stmt(b.setStmt).ExecContext(ctx, ns, key, string(value), nowMS(), expires, len(key)+len(value), b.maxBytes)
			if err != nil {
				return b.wrap(err)
			}
			if n, err := res.RowsAffected(); err == nil && n == 0 {
				return byteQuotaError{b.maxBytes}
			}
			return nil
		})
		b.sweep(ctx, q)
		return struct{}{}, err
	})
	return err
}

// withRoom runs write; when it would take ns over one of its quotas, the namespace's expired
// keys are deleted (through q) and write runs again.
func (b *sqliteBackend) withRoom(ctx context.Context, q querier, ns string, write func() error) error {
	err := write()
	if err = b.wrap(err); errors.Is(err, ErrQuota) || errors.Is(err, ErrByteQuota) {
		if _, derr := q.ExecContext(ctx, "DELETE FROM kv WHERE ns = ? AND expires IS NOT NULL AND expires <= ?", ns, nowMS()); derr == nil {
			err = write()
		}
	}
	return err
}

// sweep deletes expired keys once every 1000 writes of this process.
func (b *sqliteBackend) sweep(ctx context.Context, q querier) {
	if b.writes.Add(1)%1000 == 0 {
		q.ExecContext(ctx, "DELETE FROM kv WHERE expires IS NOT NULL AND expires <= ?", nowMS())
	}
}

// incrSQL adds ?3 to an integer value in one statement: a missing or expired key starts
// from 0 with the expiry ?5 (NULL: none); a value that is not an integer, and a key whose
// new value does not fit the byte quota, are left alone and return no row. An integer's
// JSON text is the text of its SQLite integer. ?6 is the bytes of a new key.
const incrSQL = `INSERT INTO kv (ns, key, value, version, expires) SELECT ?1, ?2, ?3, 1, ?5
	WHERE EXISTS (SELECT 1 FROM kv WHERE ns = ?1 AND key = ?2) OR ` + fits + `
	ON CONFLICT (ns, key) DO UPDATE SET value = ` + incrValue + `,
		expires = CASE WHEN kv.expires IS NOT NULL AND kv.expires <= ?4 THEN excluded.expires ELSE kv.expires END,
		version = kv.version + 1
	WHERE ((kv.expires IS NOT NULL AND kv.expires <= ?4) OR CAST(CAST(kv.value AS INTEGER) AS TEXT) = kv.value)
		AND (octet_length(` + incrValue + `) - octet_length(kv.value) <= MAX(0, ?7 - (SELECT bytes FROM keys WHERE ns = ?1)))
	RETURNING value`

// incrValue is the value incrSQL gives a key that is there.
const incrValue = `(CASE WHEN kv.expires IS NOT NULL AND kv.expires <= ?4 THEN excluded.value
	ELSE CAST(CAST(kv.value AS INTEGER) + ?3 AS TEXT) END)`

func (b *sqliteBackend) Incr(ctx context.Context, ns, key string, n int64, ttl time.Duration) (int64, error) {
	var expires any
	if ttl > 0 {
		expires = time.Now().Add(ttl).UnixMilli()
	}
	return queued(ctx, b, func(ctx context.Context, q querier) (int64, error) {
		var sum int64
		err := b.withRoom(ctx, q, ns, func() error {
			err := q.stmt(b.incrStmt).QueryRowContext(ctx, ns, key, n, nowMS(), expires, len(key)+len(strconv.FormatInt(n, 10)), b.maxBytes).Scan(&sum)
			if errors.Is(err, sql.ErrNoRows) {
				return b.incrRefused(ctx, q, ns, key)
			}
			return err
		})
		return sum, b.wrap(err)
	})
}

// incrRefused says why incrSQL left key alone: its value is not an integer (what it is),
// or the new value does not fit the byte quota.
func (b *sqliteBackend) incrRefused(ctx context.Context, q querier, ns, key string) error {
	var raw string
	var expires sql.NullInt64
	err := q.QueryRowContext(ctx, "SELECT value, expires FROM kv WHERE ns = ? AND key = ?", ns, key).Scan(&raw, &expires)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return byteQuotaError{b.maxBytes}
	case err != nil:
		return b.wrap(err)
	case expires.Valid && expires.Int64 <= nowMS():
		return byteQuotaError{b.maxBytes}
	}
	if i, err := strconv.ParseInt(raw, 10, 64); err == nil && strconv.FormatInt(i, 10) == raw {
		return byteQuotaError{b.maxBytes}
	}
	return fmt.Errorf("%w: %s", ErrNotInteger, truncate(raw, 40))
}

func (b *sqliteBackend) Delete(ctx context.Context, ns, key string) (bool, error) {
	return queued(ctx, b, func(ctx context.Context, q querier) (bool, error) {
		res, err := q.stmt(b.deleteStmt).ExecContext(ctx, ns, key, nowMS())
		if err != nil {
			return false, b.wrap(err)
		}
		n, _ := res.RowsAffected()
		return n > 0, nil
	})
}

func (b *sqliteBackend) Keys(ctx context.Context, ns, prefix string) ([]string, error) {
	return b.strings(ctx, "SELECT key FROM kv WHERE ns = ? AND substr(key, 1, ?) = ? AND "+live+" ORDER BY key LIMIT ?",
		ns, len([]rune(prefix)), prefix, nowMS(), MaxKeys+1)
}

// strings runs a query of one text column and returns its values (never nil).
func (b *sqliteBackend) strings(ctx context.Context, query string, args ...any) ([]string, error) {
	return withContext(ctx, b.Where(), func(ctx context.Context) ([]string, error) {
		rows, err := b.db.QueryContext(ctx, query, args...)
		if err != nil {
			return nil, b.wrap(err)
		}
		defer rows.Close()
		out := []string{}
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				return nil, b.wrap(err)
			}
			out = append(out, v)
		}
		return out, b.wrap(rows.Err())
	})
}

// row is a key as Update reads it: its value when live, and the version to compare.
type row struct {
	value   []byte
	live    bool
	exists  bool // a row is there, live or expired
	version int64
}

func (b *sqliteBackend) read(ctx context.Context, ns, key string) (row, error) {
	return withContext(ctx, b.Where(), func(ctx context.Context) (row, error) {
		var r row
		var v string
		var expires sql.NullInt64
		err := b.db.QueryRowContext(ctx, "SELECT value, version, expires FROM kv WHERE ns = ? AND key = ?", ns, key).Scan(&v, &r.version, &expires)
		if errors.Is(err, sql.ErrNoRows) {
			return r, nil
		}
		if err != nil {
			return r, b.wrap(err)
		}
		r.exists, r.live = true, !expires.Valid || expires.Int64 > nowMS()
		if r.live {
			r.value = []byte(v)
		}
		return r, nil
	})
}

func (b *sqliteBackend) Update(ctx context.Context, ns, key string, fn func([]byte, bool) ([]byte, bool, error)) ([]byte, error) {
	for range maxUpdateRuns {
		r, err := b.read(ctx, ns, key)
		if err != nil {
			return nil, err
		}
		next, del, err := fn(r.value, r.live)
		if err != nil {
			return nil, err
		}
		ok, err := withContext(ctx, b.Where(), func(ctx context.Context) (bool, error) { return b.swap(ctx, ns, key, r, next, del) })
		if err != nil || ok {
			return next, err
		}
	}
	return nil, ErrConflict
}

// swap writes next (or deletes the key) if the row is still as r saw it, in one immediate
// transaction that checks the byte quota first.
func (b *sqliteBackend) swap(ctx context.Context, ns, key string, r row, next []byte, del bool) (bool, error) {
	if del {
		if !r.exists {
			return true, nil
		}
		res, err := b.db.ExecContext(ctx, "DELETE FROM kv WHERE ns = ? AND key = ? AND version = ?", ns, key, r.version)
		if err != nil {
			return false, b.wrap(err)
		}
		n, _ := res.RowsAffected()
		return n == 1, nil
	}
	var swapped bool
	err := b.withRoom(ctx, dbQuerier{b.db}, ns, func() error {
		tx, err := b.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		var ok bool
		if err := tx.QueryRowContext(ctx, "SELECT "+fits, ns, key, nil, nil, nil, len(key)+len(next), b.maxBytes).Scan(&ok); err != nil {
			return err
		}
		if !ok {
			return byteQuotaError{b.maxBytes}
		}
		var res sql.Result
		if r.exists { // an expired row starts again without expiry
			res, err = tx.ExecContext(ctx, `UPDATE kv SET value = ?, version = version + 1,
				expires = CASE WHEN expires IS NOT NULL AND expires <= ? THEN NULL ELSE expires END
				WHERE ns = ? AND key = ? AND version = ?`, string(next), nowMS(), ns, key, r.version)
		} else {
			res, err = tx.ExecContext(ctx, "INSERT INTO kv (ns, key, value, version, expires) VALUES (?, ?, ?, 1, NULL) ON CONFLICT (ns, key) DO NOTHING",
				ns, key, string(next))
		}
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		swapped = n == 1
		return tx.Commit()
	})
	return swapped, b.wrap(err)
}

func (b *sqliteBackend) Entries(ctx context.Context, ns string) ([]Entry, error) {
	return withContext(ctx, b.Where(), func(ctx context.Context) ([]Entry, error) {
		rows, err := b.db.QueryContext(ctx, "SELECT key, value, expires FROM kv WHERE ns = ? AND "+live+" ORDER BY key", ns, nowMS())
		if err != nil {
			return nil, b.wrap(err)
		}
		defer rows.Close()
		var out []Entry
		for rows.Next() {
			var e Entry
			var v string
			var expires sql.NullInt64
			if err := rows.Scan(&e.Key, &v, &expires); err != nil {
				return nil, b.wrap(err)
			}
			e.Value = []byte(v)
			if expires.Valid {
				t := time.UnixMilli(expires.Int64)
				e.Expires = &t
			}
			out = append(out, e)
		}
		return out, b.wrap(rows.Err())
	})
}

func (b *sqliteBackend) Namespaces(ctx context.Context) ([]string, error) {
	return b.strings(ctx, "SELECT DISTINCT ns FROM kv WHERE "+live+" ORDER BY ns", nowMS())
}

// whileLocked runs step again while it fails because another process holds the database
// past the busy timeout (processes opening one database at once, each creating its tables
// and checking it), until ctx ends. Between tries it pauses lockedPause: SQLite returns some
// locks at once, without its busy wait, and the loop must not spin on them.
func whileLocked(ctx context.Context, step func() error) error {
	for {
		err := step()
		if !isLocked(err) {
			return err
		}
		if testHookOpenLocked != nil {
			testHookOpenLocked()
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(lockedPause):
		}
	}
}

// lockedPause is whileLocked's pause between tries.
const lockedPause = 10 * time.Millisecond

// testHookOpenLocked, when set by a test, runs each time an open found the database locked.
var testHookOpenLocked func()

// isLocked reports whether err is SQLite's "the database is locked" (SQLITE_BUSY or
// SQLITE_LOCKED, and their extended codes).
func isLocked(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff // the primary code of an extended one
	return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
}

// wrap names the database in an error.
func (b *sqliteBackend) wrap(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	switch {
	case errors.Is(err, ErrQuota), errors.Is(err, ErrByteQuota), errors.Is(err, ErrNotInteger), strings.HasPrefix(msg, "store: "):
		return err
	case strings.Contains(msg, quotaMark):
		return fmt.Errorf("store: %w", ErrQuota)
	}
	if strings.Contains(msg, "not a database") || strings.Contains(msg, "malformed") {
		return fmt.Errorf("store: %s is not a usable database (%w); it was left as it is: move it away to start an empty store, or restore it", b.path, err)
	}
	return fmt.Errorf("store: %s: %w", b.path, err)
}

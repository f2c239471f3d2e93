package consent

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/hermes-hooks/hermes/internal/atomicfile"
	"github.com/hermes-hooks/hermes/internal/safefile"
)

// ErrEmptyPair is returned by Approve for an empty event or command.
var ErrEmptyPair = errors.New("consent: empty event or command")

// lockRetry is how often a blocked Approve or Revoke retries the lock file.
const lockRetry = 5 * time.Millisecond

// Store is one allowlist file. It is safe for concurrent use by goroutines, and by several
// processes sharing the file (see the package documentation for the protocol). It holds no
// open file between calls and needs no closing.
type Store struct {
	path   string
	logger *slog.Logger

	// write serialises this Store's read-modify-write cycles; the lock file serialises
	// them across Stores and processes.
	write sync.Mutex

	mu      sync.Mutex
	pending map[pairKey]Approval // approvals whose write failed; they count for this Store
	warned  map[string]bool      // warnings already logged, so each is logged once

	// rename and createExcl do the file operations that tests make fail.
	rename     func(oldpath, newpath string) error
	createExcl func(name string) (*os.File, error)
}

// Open returns the Store for the allowlist at path (usually DefaultPath(home)). It touches
// no file. A nil logger discards logs.
func Open(path string, logger *slog.Logger) *Store {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Store{
		path:    path,
		logger:  logger.With("allowlist", path),
		pending: map[pairKey]Approval{},
		warned:  map[string]bool{},
		rename:  os.Rename,
		createExcl: func(name string) (*os.File, error) {
			return safefile.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		},
	}
}

// DefaultPath is the allowlist's path in a Hermes home.
func DefaultPath(home string) string { return filepath.Join(home, FileName) }

// Path returns the allowlist file's path.
func (s *Store) Path() string { return s.path }

// Approvals returns every approval in the file, in file order, followed by approvals this
// Store made but could not write. A missing, empty or corrupt file reads as no approvals
// (or as the entries that could be parsed) and logs one warning naming the file and the
// problem. The error is for a file that exists but cannot be read (permissions, I/O).
func (s *Store) Approvals() ([]Approval, error) {
	doc, err := s.load()
	if err != nil {
		return s.withPending(nil), err
	}
	return s.withPending(doc.approvals()), nil
}

// Lookup returns the approval of (event, command), if any. A file that cannot be read
// logs a warning and counts as holding no approvals.
func (s *Store) Lookup(event, command string) (Approval, bool) {
	list, err := s.Approvals()
	if err != nil {
		s.warnOnce("read:"+err.Error(), "cannot read the allowlist; treating it as empty", "err", err)
	}
	return find(list, event, command, "")
}

// find returns the last approval of (event, command) given in project ("" for a command
// whose files do not depend on one).
func find(list []Approval, event, command, project string) (Approval, bool) {
	for i := len(list) - 1; i >= 0; i-- {
		if list[i].Event == event && list[i].Command == command && list[i].Project == project {
			return list[i], true
		}
	}
	return Approval{}, false
}

// load reads and parses the file, logging its problems once. A missing file is an empty
// document.
func (s *Store) load() (*document, error) {
	data, err := readAllowlist(s.path)
	if errors.Is(err, errTooLarge) {
		s.warnOnce("too-large", "allowlist file is larger than the limit; it is ignored and no shell or Python hook is approved until it is fixed",
			"limit_bytes", MaxFileSize)
		return &document{}, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		s.warnOnce("missing", "allowlist file does not exist: no shell or Python hook is approved yet")
		return &document{}, nil
	}
	if err != nil {
		return &document{}, fmt.Errorf("consent: read allowlist: %w", err)
	}
	doc := parseDocument(data)
	if len(doc.problems) > 0 {
		sum := sha256.Sum256(data)
		s.warnOnce(fmt.Sprintf("corrupt:%x", sum[:8]), "allowlist file is corrupt; using the entries that could be parsed",
			"problems", strings.Join(doc.problems, "; "), "entries_kept", len(doc.entries))
	}
	return doc, nil
}

func (s *Store) warnOnce(key, msg string, args ...any) {
	s.mu.Lock()
	seen := s.warned[key]
	s.warned[key] = true
	s.mu.Unlock()
	if !seen {
		s.logger.Warn(msg, args...)
	}
}

// withPending overlays the approvals that could not be written on list.
func (s *Store) withPending(list []Approval) []Approval {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) == 0 {
		return list
	}
	seen := map[pairKey]bool{}
	for i, a := range list {
		if p, ok := s.pending[a.key()]; ok {
			list[i] = p
			seen[a.key()] = true
		}
	}
	for k, p := range s.pending {
		if !seen[k] {
			list = append(list, p)
		}
	}
	return list
}

// Approve records (event, command) as approved now, with the script's mtime and SHA-256
// (see ScriptPath), replacing any earlier entry for the pair; it is ApproveTarget for a
// command run without a shell in the process's working directory. It takes the lock file,
// re-reads the file, and writes it atomically with mode 0600. A corrupt file is first
// copied to <path>.corrupt-<time>, and the entries that could be parsed are kept.
//
// When the file cannot be updated, Approve logs a warning and returns the approval with an
// error naming the file and the cause; the approval still counts for this Store (Lookup,
// Approvals and Check see it) until the process ends. ctx bounds the wait for the lock.
func (s *Store) Approve(ctx context.Context, event, command string) (Approval, error) {
	return s.ApproveTarget(ctx, Target{Event: event, Command: command})
}

// ApproveTarget is Approve for t. For a line run by /bin/sh (t.Shell), and for a command
// whose file cannot be told (command.RunsUnknown), the approval also records every file it
// may run (Approval.Scripts; the first one's fingerprint is also script_mtime_at_approval
// and script_sha256); a command that runs no file (bash -c '...') records no fingerprint.
// For a line run by /bin/sh it records the project directory when what runs depends on it
// (Approval.Project: it then replaces only the entry of that project), and, for a line
// that cannot be analysed, what could not be (Approval.WholeLine).
func (s *Store) ApproveTarget(ctx context.Context, t Target) (Approval, error) {
	event, command := t.Event, t.Command
	if event == "" || command == "" {
		return Approval{}, ErrEmptyPair
	}
	p := t.plan()
	a := Approval{Event: event, Command: command, ApprovedAt: time.Now().UTC().Truncate(time.Microsecond),
		Project: p.project, WholeLine: p.whole, Scripts: p.recorded()}
	if len(p.pins) > 0 {
		a.ScriptMtime, a.ScriptSHA256 = p.pins[0].Mtime, p.pins[0].SHA256
	}
	err := s.update(ctx, func(doc *document) bool { doc.put(a); return true })
	s.mu.Lock()
	if err != nil {
		s.pending[a.key()] = a
	} else {
		delete(s.pending, a.key())
	}
	s.mu.Unlock()
	if err != nil {
		s.logger.Warn("approval not saved; it counts for this run only", "event", event, "command", t.shown(), "err", err)
	}
	return a, err
}

// Revoke removes every approval whose command is exactly command, for any event, and
// returns how many (event, command) pairs it removed, from the file and from this Store's
// unsaved approvals.
// ctx bounds the wait for the lock.
func (s *Store) Revoke(ctx context.Context, command string) (int, error) {
	removed := map[pairKey]bool{}
	s.mu.Lock()
	for k := range s.pending {
		if k.command == command {
			delete(s.pending, k)
			removed[k] = true
		}
	}
	s.mu.Unlock()
	if _, err := os.Lstat(s.path); errors.Is(err, fs.ErrNotExist) {
		return len(removed), nil
	}
	err := s.update(ctx, func(doc *document) bool {
		keys := doc.removeCommand(command)
		for _, k := range keys {
			removed[k] = true
		}
		return len(keys) > 0
	})
	return len(removed), err
}

// update runs one locked read-modify-write cycle. change edits the document and reports
// whether it changed; the file is written when it did, or when it was corrupt.
func (s *Store) update(ctx context.Context, change func(*document) bool) (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("consent: cannot update allowlist %s: %w", s.path, err)
		}
	}()
	s.write.Lock()
	defer s.write.Unlock()
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	lock, err := safefile.Lock(ctx, s.path+".lock", lockRetry)
	if err != nil {
		return err
	}
	defer lock.Unlock()
	removeStaleTemps(s.path)

	data, err := readAllowlist(s.path)
	if errors.Is(err, errTooLarge) {
		return fmt.Errorf("the file is larger than %d MiB; it was left alone (move it aside to start a new one)", MaxFileSize>>20)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	doc := parseDocument(data)
	corrupt := doc.corrupt(data)
	if corrupt {
		backup, err := s.backup(data)
		if err != nil {
			return fmt.Errorf("the file is corrupt (%s) and could not be backed up, so it was left alone: %w",
				strings.Join(doc.problems, "; "), err)
		}
		s.logger.Warn("allowlist file was corrupt; kept a copy and rewrote it with the entries that could be parsed",
			"backup", backup, "problems", strings.Join(doc.problems, "; "), "entries_kept", len(doc.entries))
	}
	if changed := change(doc); !changed && !corrupt {
		return nil
	}
	out, err := doc.encode()
	if err != nil {
		return err
	}
	return s.writeAtomic(out)
}

// backup copies a corrupt file's bytes to <path>.corrupt-<UTC time>, never replacing a file.
func (s *Store) backup(data []byte) (string, error) {
	stamp := time.Now().UTC().Format("20060102T150405.000000Z")
	for i := 0; ; i++ {
		name := s.path + ".corrupt-" + stamp
		if i > 0 {
			name += fmt.Sprintf("-%d", i)
		}
		f, err := s.createExcl(name)
		if errors.Is(err, fs.ErrExist) && i < 100 {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(name)
			return "", err
		}
		return name, nil
	}
}

// writeAtomic replaces the file with data (mode 0600), the old content or the new one
// whatever happens.
func (s *Store) writeAtomic(data []byte) error {
	return atomicfile.Write(s.path, data, 0o600, s.rename)
}

// MaxFileSize bounds the allowlist read: a larger file is ignored (no approvals) and never
// rewritten, so a runaway file cannot slow every engine start or be silently truncated.
const MaxFileSize = 8 << 20

var errTooLarge = errors.New("allowlist file too large")

// readAllowlist reads the allowlist if it is a regular file within MaxFileSize, opened as
// safefile opens it: a FIFO, device or symbolic link there is refused, never waited on or
// followed.
func readAllowlist(path string) ([]byte, error) {
	f, err := safefile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if fi.Size() > MaxFileSize {
		return nil, errTooLarge
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err == nil && len(data) > MaxFileSize {
		err = errTooLarge
	}
	return data, err
}

// removeStaleTemps deletes temporary files left by writers killed mid-write. It runs with
// the lock held, so none of them belongs to a live writer.
func removeStaleTemps(path string) {
	matches, _ := filepath.Glob(path + ".tmp-*")
	for _, m := range matches {
		os.Remove(m)
	}
}

package bundlefeed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hermes-hooks/hermes/bundle"
	"github.com/hermes-hooks/hermes/internal/atomicfile"
	"github.com/hermes-hooks/hermes/internal/netguard"
	"github.com/hermes-hooks/hermes/internal/ocibundle"
	"github.com/hermes-hooks/hermes/internal/safefile"
)

// Limits of a fetch.
const (
	MaxArchive = 64 << 20 // bytes of a fetched archive
	Timeout    = 60 * time.Second
)

// maxArchive and timeout are MaxArchive and Timeout; tests lower them.
var maxArchive, timeout = MaxArchive, Timeout

// statusFile is the cache's record of the active bundle and of the last checks.
const statusFile = "status.json"

// Status is the cache's status.json: the active bundle and the outcome of the checks.
// Writing it (atomically) is what activates a bundle.
type Status struct {
	URL         string    `json:"url"`
	Revision    int64     `json:"revision"`              // of the active bundle; 0: none yet
	Digest      string    `json:"digest,omitempty"`      // SHA-256 of the active bundle's archive
	Dir         string    `json:"dir,omitempty"`         // the active bundle's directory, absolute
	ActivatedAt time.Time `json:"activated_at,omitzero"` // when it was activated
	LastCheck   time.Time `json:"last_check,omitzero"`   // the last fetch, whatever its outcome
	LastSuccess time.Time `json:"last_success,omitzero"` // the last fetch that ended with the newest bundle active
	LastError   string    `json:"last_error,omitempty"`  // why the last check failed or refused a bundle; "" after a success
	Stale       bool      `json:"stale,omitempty"`       // the last success is older than max_age (set when read with Config.Status)
	ETag        string    `json:"etag,omitempty"`        // of the active bundle's answer, sent as If-None-Match
}

// ReadStatus reads the cache's status; a cache without one is the zero Status.
func ReadStatus(cache string) (Status, error) {
	var st Status
	data, err := os.ReadFile(filepath.Join(cache, statusFile))
	if errors.Is(err, fs.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return st, fmt.Errorf("%s: %w", filepath.Join(cache, statusFile), err)
	}
	return st, nil
}

// Status reads the status of c's cache, with Stale set against max_age at now.
func (c *Config) Status(now time.Time) (Status, error) {
	st, err := ReadStatus(c.Cache)
	st.Stale = c.MaxAge > 0 && (st.LastSuccess.IsZero() || now.Sub(st.LastSuccess) > c.MaxAge)
	return st, err
}

func writeStatus(cache string, st Status) error {
	st.Stale = false
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(cache, statusFile), append(data, '\n'), 0o644, nil)
}

// LoadActive returns the directory of the active bundle of c's cache, verified again
// against c's keys as they are now: a bundle signed only by a key removed from the
// configuration does not load. No active bundle is an error too: the managed layer it
// holds would be missing.
func (c *Config) LoadActive() (string, Status, error) {
	st, err := c.Status(time.Now())
	if err != nil {
		return "", st, err
	}
	keys, err := c.PublicKeys()
	if err != nil {
		return "", st, err
	}
	if st.Revision == 0 {
		fix := "run hermesctl bundle pull, or remove bundles:"
		if c.Given {
			fix = "start again once the bundle server answers, or without " + c.File
		}
		return "", st, fmt.Errorf("%s: no bundle has been activated yet from %s (last error: %s); %s",
			c.where(), c.URL, orNone(st.LastError), fix)
	}
	if err := verifyActive(st, keys); err != nil {
		how := " (hermesctl bundle pull)"
		if c.Given {
			how = ""
		}
		return "", st, fmt.Errorf("%s: the active bundle (revision %d in %s) %v; pull one signed by a key of %s%s, or restore its key",
			c.where(), st.Revision, c.Cache, err, c.keysName(), how)
	}
	return st.Dir, st, nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// verifyActive checks the active bundle's archive: its digest, and its signature by one of keys.
func verifyActive(st Status, keys []*bundle.PublicKey) error {
	data, err := os.ReadFile(st.Dir + ".bundle")
	if err != nil {
		return fmt.Errorf("cannot be read: %w", err)
	}
	if digest(data) != st.Digest {
		return errors.New("does not match the digest recorded when it was activated")
	}
	if _, err := bundle.Verify(data, keys); err != nil {
		return fmt.Errorf("does not verify: %w", err)
	}
	if fi, err := os.Stat(st.Dir); err != nil || !fi.IsDir() {
		return errors.New("has no directory " + st.Dir)
	}
	return nil
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Check is what a bundle must pass, once verified and extracted into dir, before it is
// activated: that it loads, and keeps within the managed policy.
type Check func(ctx context.Context, dir string) error

// pullLock is the lock file a Pull holds in the cache; pullRetry, how often a Pull that
// waits for another tries it again.
const (
	pullLock  = ".pull.lock"
	pullRetry = 50 * time.Millisecond
)

// Result is what a pull did.
type Result struct {
	Status    Status
	Activated bool // a new revision is active
}

// Pull checks c's URL once: it fetches the bundle (If-None-Match the active one's ETag),
// verifies it against c's keys, refuses a revision older than the active one (or equal
// with different content), extracts it into a new directory of the cache, has check try
// it, and activates it by writing the status. Any refusal keeps the active bundle and is
// recorded as the status's last error, and returned.
func Pull(ctx context.Context, c *Config, client *http.Client, check Check) (Result, error) {
	if err := os.MkdirAll(c.Cache, 0o755); err != nil {
		return Result{}, err
	}
	// One pull at a time per cache: two replicas sharing it would otherwise extract the
	// same revision into one directory, each removing what the other made, or prune the
	// bundle the other just activated. The one that waited reads the status the other
	// wrote, and finds nothing new.
	lock, err := safefile.Lock(ctx, filepath.Join(c.Cache, pullLock), pullRetry)
	if err != nil {
		return Result{}, fmt.Errorf("bundle cache %s: %w", c.Cache, err)
	}
	defer lock.Unlock()
	st, err := ReadStatus(c.Cache)
	if err != nil {
		return Result{Status: st}, err
	}
	now := time.Now()
	st.LastCheck = now
	activated, err := pull(ctx, c, client, check, &st)
	if err != nil {
		st.LastError = err.Error()
	} else {
		st.LastError, st.LastSuccess = "", now
	}
	if werr := writeStatus(c.Cache, st); werr != nil && err == nil {
		err = werr
	}
	st.Stale = false
	return Result{Status: st, Activated: activated && err == nil}, err
}

// pull does Pull's work on st, the status to write.
func pull(ctx context.Context, c *Config, client *http.Client, check Check, st *Status) (bool, error) {
	keys, err := c.PublicKeys()
	if err != nil {
		return false, err
	}
	etag := ""
	if st.Revision > 0 && st.URL == c.URL && verifyActive(*st, keys) == nil {
		etag = st.ETag // the active bundle still verifies: nothing new is nothing to do
	}
	data, newTag, err := fetch(ctx, c.URL, etag, client)
	if err != nil || data == nil {
		return false, err
	}
	m, err := bundle.Verify(data, keys)
	if err != nil {
		return false, fmt.Errorf("bundle from %s refused: %w", netguard.RedactURL(c.URL), err)
	}
	sum := digest(data)
	switch {
	case st.Revision > 0 && m.Revision == st.Revision && sum == st.Digest:
		st.URL, st.ETag = c.URL, newTag
		return false, nil
	case m.Revision < st.Revision:
		return false, fmt.Errorf("bundle revision %d refused: older than the active revision %d (no rollback)", m.Revision, st.Revision)
	case m.Revision == st.Revision:
		return false, fmt.Errorf("bundle revision %d refused: the active revision %d has other content (a release needs a higher revision)", m.Revision, st.Revision)
	}
	name := fmt.Sprintf("r%d-%s", m.Revision, sum[:16])
	dir := filepath.Join(c.Cache, name)
	if err := os.RemoveAll(dir); err != nil { // a try refused before: never the active one, whose revision is lower
		return false, err
	}
	if _, err := bundle.Extract(data, keys, dir); err != nil {
		return false, fmt.Errorf("bundle revision %d refused: %w", m.Revision, err)
	}
	if err := check(ctx, dir); err != nil {
		os.RemoveAll(dir)
		return false, fmt.Errorf("bundle revision %d refused: %w", m.Revision, err)
	}
	if err := atomicfile.Write(dir+".bundle", data, 0o644, nil); err != nil {
		os.RemoveAll(dir)
		return false, err
	}
	prev := st.Dir
	st.URL, st.Revision, st.Digest, st.Dir, st.ActivatedAt, st.ETag = c.URL, m.Revision, sum, dir, time.Now(), newTag
	if err := writeStatus(c.Cache, *st); err != nil {
		return false, err
	}
	prune(c.Cache, dir, prev)
	return true, nil
}

// bundleName is the name of a bundle's directory and archive in the cache; compiled at
// first use, as only a prune needs it.
var bundleName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^r[0-9]+-[0-9a-f]{16}(\.bundle)?$`) })

// prune removes the bundles of the cache (and only them: the cache may be a directory
// that holds other files) but those in keep, a process that loaded one of them before the
// switch keeping its files until it reloads.
func prune(cache string, keep ...string) {
	entries, _ := os.ReadDir(cache)
	for _, e := range entries {
		p := filepath.Join(cache, e.Name())
		if bundleName().MatchString(e.Name()) && !slices.Contains(keep, strings.TrimSuffix(p, ".bundle")) {
			os.RemoveAll(p)
		}
	}
}

// fetch GETs url, with If-None-Match etag when not "". A 304 is nil data and no error.
// From a registry (oci://), the etag is the manifest's digest.
func fetch(ctx context.Context, url, etag string, client *http.Client) ([]byte, string, error) {
	if client == nil {
		client = &http.Client{}
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if ocibundle.IsRef(url) {
		data, tag, err := ocibundle.Fetch(ctx, url, etag, int64(maxArchive), client)
		if err != nil {
			return nil, "", fmt.Errorf("fetching the bundle: %s", netguard.Describe(err, url, timeout))
		}
		return data, tag, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, "", err
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", fmt.Errorf("fetching the bundle: %s", netguard.Describe(err, url, timeout))
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotModified && etag != "":
		return nil, etag, nil
	case resp.StatusCode != http.StatusOK:
		return nil, "", fmt.Errorf("fetching the bundle: GET %s: %s", netguard.RedactURL(url), resp.Status)
	}
	data, err := netguard.ReadBody(resp.Body, maxArchive)
	if err != nil {
		return nil, "", fmt.Errorf("fetching the bundle: GET %s: %w", netguard.RedactURL(url), err)
	}
	return data, resp.Header.Get("ETag"), nil
}

package server

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/hermes-hooks/hermes/internal/atomicfile"
	"github.com/hermes-hooks/hermes/internal/safefile"
)

// Tokens are the bearer tokens a server takes, each with a name: the caller in the access
// log, spans and metrics. Only their SHA-256 digests are stored. A nil or empty set takes
// every call (a server on loopback or a unix socket).
type Tokens struct {
	list []Token
}

// Token is one stored token.
type Token struct {
	Name    string    `json:"name"`
	SHA256  string    `json:"sha256"`
	Created time.Time `json:"created"`
}

// tokenName is what a token may be called; compiled at first use (hermesctl hook never reads tokens).
var tokenName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// LoadTokens reads the token file; a missing file is an empty set. A file that does not
// parse is an error, never treated as empty (that would open the server).
func LoadTokens(file string) (*Tokens, error) {
	b, err := safefile.ReadFile(file, 1<<20)
	if errors.Is(err, fs.ErrNotExist) {
		return &Tokens{}, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Tokens []Token `json:"tokens"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v; fix or delete it (hermesctl serve token add recreates it)", file, err)
	}
	for i, t := range doc.Tokens {
		if d, err := hex.DecodeString(t.SHA256); err != nil || len(d) != sha256.Size || !tokenName().MatchString(t.Name) {
			return nil, fmt.Errorf("%s: token %d (%q) is not a name and a hex SHA-256 digest; fix or delete it", file, i+1, t.Name)
		}
	}
	return &Tokens{list: doc.Tokens}, nil
}

// Len is the number of tokens.
func (t *Tokens) Len() int {
	if t == nil {
		return 0
	}
	return len(t.list)
}

// List is the stored tokens (their digests, never the tokens).
func (t *Tokens) List() []Token { return slices.Clone(t.list) }

// Check reads an Authorization header: the token's name and true when it is one of the
// set's, or when the set is empty ("-"). Every digest is compared in constant time.
func (t *Tokens) Check(header string) (string, bool) {
	if t.Len() == 0 {
		return "-", true
	}
	tok, ok := strings.CutPrefix(header, "Bearer ")
	if !ok || tok == "" {
		return "", false
	}
	sum := sha256.Sum256([]byte(tok))
	name := ""
	for _, e := range t.list {
		want, _ := hex.DecodeString(e.SHA256)
		if subtle.ConstantTimeCompare(sum[:], want) == 1 {
			name = e.Name
		}
	}
	return name, name != ""
}

// Add makes a new token named name, stores its digest in file and returns the token (shown
// once: it cannot be read back).
func (t *Tokens) Add(file, name string) (string, error) {
	if !tokenName().MatchString(name) {
		return "", fmt.Errorf("token name %q: use letters, digits, '.', '_' and '-' (at most 64)", name)
	}
	if slices.ContainsFunc(t.list, func(e Token) bool { return e.Name == name }) {
		return "", fmt.Errorf("a token named %s exists; revoke it first (hermesctl serve token revoke %s)", name, name)
	}
	raw := make([]byte, 32)
	rand.Read(raw)
	tok := "hmt_" + base64.RawURLEncoding.EncodeToString(raw)
	sum := sha256.Sum256([]byte(tok))
	t.list = append(t.list, Token{Name: name, SHA256: hex.EncodeToString(sum[:]), Created: time.Now().UTC().Truncate(time.Second)})
	return tok, t.save(file)
}

// Revoke removes the token named name from file.
func (t *Tokens) Revoke(file, name string) error {
	i := slices.IndexFunc(t.list, func(e Token) bool { return e.Name == name })
	if i < 0 {
		return fmt.Errorf("no token named %s", name)
	}
	t.list = slices.Delete(t.list, i, i+1)
	return t.save(file)
}

func (t *Tokens) save(file string) error {
	b, err := json.MarshalIndent(map[string]any{"tokens": t.list}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(file, append(b, '\n'), 0o600, nil)
}

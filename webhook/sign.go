package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The Standard Webhooks headers.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

const secretPrefix = "whsec_"

// ErrSecret is the error of a secret that is not a Standard Webhooks secret.
var ErrSecret = errors.New("webhook: the secret must be whsec_ followed by base64 (24 to 64 random bytes)")

// DecodeSecret returns the key of a "whsec_<base64>" secret.
func DecodeSecret(secret string) ([]byte, error) {
	b64, ok := strings.CutPrefix(strings.TrimSpace(secret), secretPrefix)
	if !ok {
		return nil, ErrSecret
	}
	key, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(key) < 24 || len(key) > 64 {
		return nil, ErrSecret
	}
	return key, nil
}

// NewSecret returns a fresh whsec_ secret of 32 random bytes.
func NewSecret() string {
	b := make([]byte, 32)
	rand.Read(b)
	return secretPrefix + base64.StdEncoding.EncodeToString(b)
}

// Sign returns the webhook-signature value of a message: "v1,<base64 HMAC-SHA256 of
// id.timestamp.body>".
func Sign(key []byte, id string, ts time.Time, body []byte) string {
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.", id, ts.Unix())
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// Verify checks a delivery as a receiver does: one of the space-separated v1 signatures must
// match, and the timestamp must be within tolerance of now (a replayed delivery is older).
func Verify(key []byte, id, timestamp, signatures string, body []byte, now time.Time, tolerance time.Duration) error {
	secs, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return errors.New("webhook: invalid webhook-timestamp")
	}
	ts := time.Unix(secs, 0)
	if now.Sub(ts) > tolerance {
		return errors.New("webhook: message timestamp too old")
	}
	if ts.Sub(now) > tolerance {
		return errors.New("webhook: message timestamp too new")
	}
	want := Sign(key, id, ts, body)
	for _, s := range strings.Fields(signatures) {
		if hmac.Equal([]byte(s), []byte(want)) {
			return nil
		}
	}
	return errors.New("webhook: no matching signature")
}

// newID is a message id: msg_ and 16 random bytes in hex.
func newID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return "msg_" + hex.EncodeToString(b)
}

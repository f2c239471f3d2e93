package bundle

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"

	"github.com/secure-systems-lab/go-securesystemslib/signerverifier"
)

// PrivateKey signs bundles.
type PrivateKey struct {
	sv *signerverifier.ED25519SignerVerifier
}

// PublicKey verifies bundles.
type PublicKey struct {
	sv *signerverifier.ED25519SignerVerifier
}

// ID is the key's id, as signatures name it.
func (k *PrivateKey) ID() string { id, _ := k.sv.KeyID(); return id }

// ID is the key's id, as signatures name it.
func (k *PublicKey) ID() string { id, _ := k.sv.KeyID(); return id }

// sign is the key's Ed25519 signature of msg.
func (k *PrivateKey) sign(msg []byte) ([]byte, error) { return k.sv.Sign(context.Background(), msg) }

// verify says whether sig is the key's Ed25519 signature of msg.
func (k *PublicKey) verify(msg, sig []byte) bool {
	return k.sv.Verify(context.Background(), msg, sig) == nil
}

// GenerateKey makes an Ed25519 key pair, each in PEM.
func GenerateKey() (private, public []byte, err error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	p8, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, nil, err
	}
	pkix, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: p8}),
		pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pkix}), nil
}

// ParsePrivateKey reads an Ed25519 private key in PEM (PKCS #8).
func ParsePrivateKey(data []byte) (*PrivateKey, error) {
	sv, err := parseKey(data)
	if err != nil {
		return nil, err
	}
	if _, err := sv.Sign(context.Background(), nil); errors.Is(err, signerverifier.ErrNotPrivateKey) {
		return nil, errors.New("a public key, not a private one (sign with the key keygen wrote without .pub)")
	}
	return &PrivateKey{sv}, nil
}

// ParsePublicKey reads an Ed25519 public key in PEM (PKIX). A private key is refused: the
// machines that verify need only the public one.
func ParsePublicKey(data []byte) (*PublicKey, error) {
	sv, err := parseKey(data)
	if err != nil {
		return nil, err
	}
	if _, err := sv.Sign(context.Background(), nil); !errors.Is(err, signerverifier.ErrNotPrivateKey) {
		return nil, errors.New("a private key, not a public one (verify with the .pub file keygen wrote; keep the private key with whoever signs)")
	}
	return &PublicKey{sv}, nil
}

func parseKey(data []byte) (*signerverifier.ED25519SignerVerifier, error) {
	key, err := signerverifier.LoadKey(data)
	if err != nil {
		return nil, fmt.Errorf("not an Ed25519 key in PEM: %w", err)
	}
	if key.KeyType != signerverifier.ED25519KeyType {
		return nil, fmt.Errorf("a %s key; bundles are signed with Ed25519 keys (hermesctl bundle keygen)", key.KeyType)
	}
	return signerverifier.NewED25519SignerVerifierFromSSLibKey(key)
}

package bundle

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
)

// TestEnvelopeInterop holds bundle.sig to the securesystemslib dsse package: an envelope
// one side signs, the other verifies, and both write the same bytes for the same key and
// payload (Ed25519 signatures are deterministic).
func TestEnvelopeInterop(t *testing.T) {
	priv, pub := testKey(t, 1)
	_, other := testKey(t, 2)
	payloads := map[string][]byte{
		"manifest": []byte("{\"schema\": 1}\n"),
		"empty":    {},
		"binary":   {0, 0xff, ' ', 'D', 'S', 'S', 'E', '\n'},
	}
	for name, payload := range payloads {
		t.Run(name, func(t *testing.T) {
			ours, err := signManifest(payload, nil, priv)
			if err != nil {
				t.Fatal(err)
			}
			signer, err := dsse.NewEnvelopeSigner(priv.sv)
			if err != nil {
				t.Fatal(err)
			}
			env, err := signer.SignPayload(context.Background(), PayloadType, payload)
			if err != nil {
				t.Fatal(err)
			}
			theirs, err := json.MarshalIndent(env, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			theirs = append(theirs, '\n')
			if !bytes.Equal(ours, theirs) {
				t.Errorf("our envelope:\n%s\ndsse's:\n%s", ours, theirs)
			}

			// Ours, verified by dsse.
			var parsed dsse.Envelope
			if err := json.Unmarshal(ours, &parsed); err != nil {
				t.Fatal(err)
			}
			v, err := dsse.NewEnvelopeVerifier(pub.sv)
			if err != nil {
				t.Fatal(err)
			}
			accepted, err := v.Verify(context.Background(), &parsed)
			if err != nil || len(accepted) != 1 || accepted[0].KeyID != pub.ID() {
				t.Errorf("dsse verifying ours: %v, %+v; want accepted by %s", err, accepted, pub.ID())
			}
			wrong, err := dsse.NewEnvelopeVerifier(other.sv)
			if err != nil {
				t.Fatal(err)
			}
			if accepted, err := wrong.Verify(context.Background(), &parsed); err == nil {
				t.Errorf("dsse accepted ours with another key: %+v", accepted)
			}

			// Theirs, verified by us.
			c := &contents{manifestData: payload, sig: theirs}
			ids, err := c.verifySignature([]*PublicKey{other, pub})
			if err != nil || !slices.Equal(ids, []string{pub.ID()}) {
				t.Errorf("verifying dsse's: %v, %v; want [%s]", ids, err, pub.ID())
			}
			if ids, err := c.verifySignature([]*PublicKey{other}); err == nil {
				t.Errorf("accepted dsse's with another key: %v", ids)
			}
		})
	}
}

// TestPAE checks the pre-authentication encoding against the DSSE protocol's example and
// the dsse package.
func TestPAE(t *testing.T) {
	got := string(pae("http://example.com/HelloWorld", []byte("hello world")))
	if want := "DSSEv1 29 http://example.com/HelloWorld 11 hello world"; got != want {
		t.Errorf("pae = %q, want %q", got, want)
	}
	for _, c := range []struct{ typ, body string }{{"", ""}, {PayloadType, "x y z"}, {"t", string(make([]byte, 1000))}} {
		if got, want := pae(c.typ, []byte(c.body)), dsse.PAE(c.typ, []byte(c.body)); !bytes.Equal(got, want) {
			t.Errorf("pae(%q, %d bytes) = %q, dsse.PAE = %q", c.typ, len(c.body), got, want)
		}
	}
}

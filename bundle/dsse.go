package bundle

import (
	"encoding/base64"
	"errors"
	"strconv"
)

// envelope is a DSSE envelope (https://github.com/secure-systems-lab/dsse/blob/master/envelope.md),
// its fields in the order the securesystemslib dsse package writes them: bundle.sig is
// byte for byte what that package would write, and either side verifies the other's
// (TestEnvelopeInterop).
type envelope struct {
	PayloadType string      `json:"payloadType"`
	Payload     string      `json:"payload"`
	Signatures  []signature `json:"signatures"`
}

// signature is one signature of an envelope: the key's id and the base64 of its
// signature of pae(payloadType, payload).
type signature struct {
	KeyID string `json:"keyid"`
	Sig   string `json:"sig"`
}

// pae is the DSSE pre-authentication encoding, what a key signs:
// "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body, the lengths in ASCII decimal.
func pae(payloadType string, payload []byte) []byte {
	b := make([]byte, 0, len("DSSEv1 ")+2*20+2+len(payloadType)+len(payload))
	b = append(b, "DSSEv1 "...)
	b = strconv.AppendInt(b, int64(len(payloadType)), 10)
	b = append(b, ' ')
	b = append(b, payloadType...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(len(payload)), 10)
	b = append(b, ' ')
	return append(b, payload...)
}

// b64Decode decodes standard base64 or, failing that, URL base64: DSSE allows both.
func b64Decode(s string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		if b, err = base64.URLEncoding.DecodeString(s); err != nil {
			return nil, errors.New("unable to base64 decode payload (is payload in the right format?)")
		}
	}
	return b, nil
}

// signEnvelope signs payload with key into an envelope of one signature.
func signEnvelope(payloadType string, payload []byte, key *PrivateKey) (*envelope, error) {
	sig, err := key.sign(pae(payloadType, payload))
	if err != nil {
		return nil, err
	}
	return &envelope{
		PayloadType: payloadType,
		Payload:     base64.StdEncoding.EncodeToString(payload),
		Signatures:  []signature{{KeyID: key.ID(), Sig: base64.StdEncoding.EncodeToString(sig)}},
	}, nil
}

// verify returns the ids of the keys, of those given (each once), that signed e: a
// signature counts for the key it names (or, naming none, for any key), each key at most
// once. An undecodable payload or signature fails the whole envelope.
func (e *envelope) verify(keys []*PublicKey) ([]string, error) {
	payload, err := b64Decode(e.Payload)
	if err != nil {
		return nil, err
	}
	msg := pae(e.PayloadType, payload)
	unused := keys
	var ids []string
	for _, s := range e.Signatures {
		sig, err := b64Decode(s.Sig)
		if err != nil {
			return nil, err
		}
		for i, k := range unused {
			if s.KeyID != "" && s.KeyID != k.ID() {
				continue
			}
			if k.verify(msg, sig) {
				ids = append(ids, k.ID())
				unused = append(unused[:i:i], unused[i+1:]...)
				break
			}
		}
	}
	return ids, nil
}

package bundle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Sign adds key's signature to a bundle and returns the signed archive. The bundle's files
// are checked against its manifest first (a bundle changed since it was built is not
// signed); signatures it already has are kept, one by the same key replaced.
func Sign(archive []byte, key *PrivateKey) ([]byte, error) {
	b, err := read(archive)
	if err != nil {
		return nil, err
	}
	sig, err := signManifest(b.manifestData, b.sig, key)
	if err != nil {
		return nil, err
	}
	return writeArchive(layout(b.manifestData, sig, b.files))
}

// signManifest signs manifest with key into a DSSE envelope, merged with the signatures of
// old (an envelope, or nil).
func signManifest(manifest, old []byte, key *PrivateKey) ([]byte, error) {
	env, err := signEnvelope(PayloadType, manifest, key)
	if err != nil {
		return nil, err
	}
	if old != nil {
		prev, err := parseEnvelope(old, manifest)
		if err != nil {
			return nil, err
		}
		kept := slices.DeleteFunc(prev.Signatures, func(s signature) bool { return s.KeyID == key.ID() })
		env.Signatures = append(kept, env.Signatures...)
		slices.SortFunc(env.Signatures, func(a, b signature) int { return strings.Compare(a.KeyID, b.KeyID) })
	}
	out, err := json.MarshalIndent(env, "", "  ")
	return append(out, '\n'), err
}

// parseEnvelope reads bundle.sig: a DSSE envelope of this payload type whose payload is
// manifest, byte for byte.
func parseEnvelope(data, manifest []byte) (*envelope, error) {
	var env envelope
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		return nil, fmt.Errorf("bundle: %s: not a DSSE envelope: %w", SignatureName, err)
	}
	if env.PayloadType != PayloadType {
		return nil, fmt.Errorf("bundle: %s: payload type %q, want %q", SignatureName, env.PayloadType, PayloadType)
	}
	payload, err := b64Decode(env.Payload)
	if err != nil {
		return nil, fmt.Errorf("bundle: %s: %w", SignatureName, err)
	}
	if !bytes.Equal(payload, manifest) {
		return nil, fmt.Errorf("bundle: %s was changed after it was signed: it is not what %s signs", ManifestName, SignatureName)
	}
	return &env, nil
}

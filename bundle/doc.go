// Package bundle builds, signs, verifies and extracts hook bundles: a reproducible archive
// of the files of a home that define hooks, so that one signed set of hooks can be shipped
// to many machines and checked there before it runs.
//
// # What a bundle holds
//
// A bundle is a gzip-compressed tar archive of regular files only:
//
//	bundle.json   the manifest: format, revision, name, and the path, size, SHA-256 and
//	              executable bit of every other file
//	bundle.sig    optional: a DSSE envelope (https://github.com/secure-systems-lab/dsse)
//	              whose payload is bundle.json, byte for byte, with one Ed25519 signature
//	              per key that signed it
//	config.yaml, plugins/..., hooks/..., agent-hooks/...
//	              the home's files, at their paths in the home
//
// Build takes config.yaml and the trees plugins/, hooks/ and agent-hooks/ (the shell-hook
// scripts, by convention) and nothing else of the home: not its state (state/, the shell-hook
// allowlist, the server's tokens), logs or traces. Names starting with "." are left out. A
// symbolic link to a regular file inside the home is stored as that file's content; one that
// leaves the home, points at a directory, or any file that is not regular (a FIFO, a
// device) is an error naming it, as is a file over the size cap.
//
// The archive is reproducible: entries in a fixed order (bundle.json, bundle.sig, then the
// files by path), modification times, owners and names of owners zeroed, modes 0644 or
// 0755, and a gzip header without name or time. The same home gives the same bytes, whatever
// the files' times; Ed25519 signatures are deterministic too.
//
// # Verifying
//
// Verify checks, on the archive's bytes, in this order: that it is a well-formed archive of
// regular files with clean relative paths (no "..", no absolute path, no link, no name
// twice, nothing outside the paths Build writes), within the size caps; that bundle.sig
// holds a valid signature by at least one of the given keys over bundle.json; and that every
// file matches the manifest's digest, size and mode, that no file is missing and none is
// there that the manifest does not list. Extract verifies and then writes the files into a
// new directory, made aside and renamed into place: on any error no directory is left.
//
// # Keys
//
// Keys are Ed25519, in PEM: the private key PKCS #8 ("PRIVATE KEY"), the public key PKIX
// ("PUBLIC KEY"), as GenerateKey writes them and as openssl genpkey -algorithm ed25519 does.
// A key's id is its securesystemslib key id (the SHA-256 of its canonical JSON form), the
// id written into each signature of the envelope.
//
// The functions are safe for concurrent use; they keep no state.
package bundle

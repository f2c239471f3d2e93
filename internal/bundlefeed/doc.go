// Package bundlefeed pulls signed hook bundles from a URL into a cache directory, for the
// managed layer of the engine (the bundles: entry of the managed home's config.yaml).
//
// # Model
//
// Pull checks the URL once: it fetches the bundle (If-None-Match the active bundle's ETag,
// a size cap, a timeout), verifies it against the configured keys, refuses a revision older
// than the active one (or the same revision with other content), extracts it into a new
// directory of the cache, has the caller's Check try it (that it loads, within the managed
// policy), and activates it by replacing status.json atomically. Any refusal keeps the
// active bundle and is recorded as the status's last error. The cache keeps the active
// bundle's archive and directory, and the previous one's for processes that have not
// reloaded yet.
//
// Config.LoadActive is what a load reads: the active bundle's directory, its archive
// verified again against the keys configured now, so that a bundle signed only by a
// removed key does not load. The package loads no hook itself: the engine does.
//
// # Concurrency
//
// The functions keep no state but the cache's files. Readers may run at any time (status.json
// is replaced whole, a bundle's directory is complete before it is named in it). Pulls of
// one cache take turns (a lock file, .pull.lock, in the cache): replicas that share the
// managed home may all poll, and the one that waited finds the revision the other
// activated.
package bundlefeed

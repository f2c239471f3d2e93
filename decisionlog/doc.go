// Package decisionlog ships decisions to an HTTP endpoint: one Entry per decision, masked,
// kept in a bounded buffer and posted in gzip'd batches by one background goroutine, so
// that recording a decision never waits for the network.
//
// # Format
//
// A batch is one POST to Options.URL whose body is newline-delimited JSON (one Entry
// object a line, each ending in "\n"), gzip'd: Content-Type: application/x-ndjson,
// Content-Encoding: gzip. A batch holds at most Options.Batch entries and is sent when it
// is full or Options.FlushInterval after its first entry arrived, whichever comes first.
//
// # Masking
//
// Options.Mask lists the fields of an entry's input (the call's arguments) and result
// (what the deciding hook answered) that are replaced by the string Marker before the
// entry leaves the call. A path is dotted: "args.command" is the command key of the args
// mapping; a segment "*" matches every key of a mapping and every element of a list
// ("args.*.token", "messages.*"). A path that names nothing masks nothing. The same
// paths apply to the input and to the result: "args.token" masks the token of the
// arguments the call came with and of the arguments a hook rewrote them to.
//
// # Bounds
//
// Buffer entries wait at most; when it is full, a new entry is dropped (Stats.Dropped),
// never waited for. A batch whose POST fails with a network error, 408, 429 or a 5xx is
// tried again after a backoff that doubles (Options.Backoff, at most Options.Retries more
// times); then, or at once on any other non-2xx status, its entries are counted in
// Stats.Failed and the batch is dropped. Entries the endpoint accepted (2xx) are counted in
// Stats.Sent.
//
// # Concurrency and lifecycle
//
// A Logger is safe for concurrent use. New starts its goroutine; Close stops taking
// entries and sends what the buffer holds, once each batch: a batch that fails then is not
// tried again, and the batches after it are counted as failed without a try, so an endpoint
// that is down does not hold Close up. When Close's context is done first, what is in
// flight is cancelled (and counted as failed).
package decisionlog

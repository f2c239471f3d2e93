// Package webhook sends outbound webhooks: notify-only deliveries of hook and gateway events
// to HTTP endpoints, signed as the Standard Webhooks specification says, so receivers verify
// them with its published libraries.
//
// # Model
//
// Parse reads the `webhooks:` list of config.yaml into Endpoints (name, url, events,
// matcher, secret_env, allow_private_network, timeout), with one warning per problem. New
// starts a Dispatcher: one bounded queue and one worker goroutine per endpoint.
//
// Notify (and NotifyLazy, which builds the payload only when some endpoint has room for it)
// never blocks and never fails: for each endpoint whose events match, it builds the delivery
// (the body is fixed now, so later changes of the caller's maps do not leak into it) and
// offers it to the endpoint's queue; a full queue drops it, counted and warned about at most
// every few seconds, like gateway events.
//
// A delivery is POSTed as JSON
//
//	{"type": "<event>", "timestamp": "<RFC 3339>", "data": {...the hook payload...}}
//
// with the headers webhook-id (msg_<random>, the same for every attempt), webhook-timestamp
// (Unix seconds of the attempt) and webhook-signature ("v1,<base64 HMAC-SHA256 of
// id.timestamp.body>" keyed by the decoded whsec_ secret named by secret_env). A 2xx is
// delivered; a 3xx (redirects are not followed), a 4xx other than 408 and 429, and a
// refused address fail at once; other failures are retried with doubling backoff up to
// Options.MaxAttempts, then dropped and counted. Requests go through internal/netguard:
// private addresses are refused unless allowed, and answers are read up to a cap.
//
// # Thread safety and lifecycle
//
// A Dispatcher is safe for concurrent use. Close stops accepting deliveries (Notify then
// drops them as "closed"), lets the workers finish what is queued until ctx is done, then
// abandons the rest (counted as dropped) and returns ctx's error.
package webhook

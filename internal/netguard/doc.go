// Package netguard is the one HTTP client of hooks that talk to the network: `type: http`
// shell hooks (package shell) and outbound webhooks (package webhook). It owns what makes
// such a request safe to send from a machine that holds credentials and sits next to a
// metadata service.
//
// # Model
//
// Options describe one endpoint's limits; Options.Client builds an *http.Client for it:
//
//   - redirects are never followed: a 3xx is the answer, and callers treat it as a failure;
//   - the address actually dialled (after DNS resolution, in the net.Dialer's Control func) is
//     checked, so a name that resolves, or later re-resolves, to a refused address is refused
//     too (DNS rebinding). Loopback, private (RFC 1918, RFC 4193), shared (100.64.0.0/10),
//     link-local (which holds the cloud metadata service 169.254.169.254), unspecified and
//     multicast addresses are refused unless Options.AllowPrivate is set or the URL matches a
//     pattern of Options.AllowedURLs (the managed policy's allowed_http_urls);
//   - proxies from the environment are not used: the check must see the real destination;
//   - the whole exchange is bounded by Options.Timeout and ReadBody caps what is read.
//
// Redact, RedactURL and RedactHeaders give what may be printed: header values are never shown.
//
// # Thread safety
//
// Options are values; a Client is safe for concurrent use, as net/http's is.
package netguard

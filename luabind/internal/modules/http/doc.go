// Package http is the http module of hooks, present only for a hook that declares
// permissions.net: request{method, url, headers, body | json, timeout}, get(url, opts) and
// post(url, body, opts) (a table body is sent as JSON). The result is {status, headers
// (lower-case names), body, json (when the answer is JSON, decoded with the state's
// json.null)}.
//
// Only listed hosts are reached ("host", "host:port", "*"; case-insensitive), checked on the
// URL, on every redirect (at most 5) and again when dialling; a proxy from the environment
// is used only if the proxy itself is listed. Timeout: 10s by default; the request is also
// cancelled when the call ends. A response body longer than 1 MiB is an error; what is read
// is charged to the state's memory, and the request counts as a wait outside Lua
// (modules.VU.Wait).
//
// The Module is the hook's (its rules, read-only). Each Instance, one per state, has its
// own client, whose idle connections are closed with the state (Close); it runs in its
// state's goroutine.
package http

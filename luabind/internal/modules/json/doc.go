// Package json is the json module of hooks: encode (keys sorted, no HTML escaping, at most
// limits.MaxStringSize, polled), decode (bounded in depth, charged to the state's memory
// before it builds), null (a value distinct from nil, so that a decoded null survives in a
// table) and array (marks a table, empty or not, to encode as an array). The encoder and
// decoder are the standard library's (internal/stdlib), shared with the http module; null
// and the array metatable are the state's (modules.VU.JSON), so `v == json.null` holds for
// values either module made.
//
// It has nothing per hook; an Instance belongs to one state and runs in its goroutine.
package json

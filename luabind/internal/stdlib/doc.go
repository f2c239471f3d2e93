// Package stdlib is the part of the Lua standard library a hook sees that is ours rather
// than the interpreter's: the string functions and Lua 5.1 patterns (InstallString), ipairs
// without an allocation per step (InstallBase), loadstring and load bounded in size and
// charged to the state's memory (InstallLoad), the JSON encoder and decoder the json and
// http modules share (EncodeLua, DecodeLua, MarshalJSON), and the reading of Lua values as
// Go values (ToGo, ToWire), which the encoder is held to agree with (FuzzEncodeLuaJSON).
//
// Every function that builds a string checks its size before building it and every one
// that loops polls the call's context (internal/limits), so no library call can build more
// than limits.MaxStringSize or outrun the hook's timeout. The results are C Lua 5.1's,
// held by differential tests against the interpreter's own library and against `lua5.1`
// (TestStringLibDifferential, TestStringLibAgainstLua51, FuzzStringLib).
//
// Install functions run once per state while the core builds it; the functions they
// install, and everything else here, run in the goroutine running their state. Nothing is
// shared between states but NullValue, the immutable identity of json.null.
package stdlib

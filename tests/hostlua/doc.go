// Package hostlua is a host program that embeds the engine and also runs Lua of its own with
// upstream gopher-lua v1.1.2. It is a module of its own, so that the engine's module never
// requires upstream gopher-lua: the engine runs on its own fork (luabind/internal/lua), and
// this test shows that importing it leaves the host's gopher-lua exactly as it ships.
package hostlua

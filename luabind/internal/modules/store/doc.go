// Package store is the store module of hooks: get, set (with a TTL in seconds), incr,
// delete, keys and update, on the hook's own namespace of state that outlives a call
// (a hookspec.Store: the engine gives each hook its own, a store.View).
// Values cross as JSON values do (modules.VU.ToGo, ToLua), and what the backend returns is
// charged to the state's memory before it becomes Lua values. Each operation runs under
// the call's context and counts as a wait outside Lua (modules.VU.Wait), except the Lua
// function update calls, whose allocations count.
//
// The Module is the hook's and is shared by its states (the Backend is safe for concurrent
// use); an Instance belongs to one state and runs in its goroutine. A hook the host gave no
// store has no store module: require says so.
package store

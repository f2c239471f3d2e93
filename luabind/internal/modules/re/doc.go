// Package re is the re module of hooks: Go regular expressions (RE2 syntax) for match,
// find, find_all, gsub and quote, where Lua patterns are not enough.
//
// RE2 runs in time linear in its input, but linear can still outrun a hook's timeout: a
// call whose worst case (instructions of the compiled pattern times the length of the
// subject) cannot finish within the call's timeout is refused with a limit error before it
// starts (newReWork), and the work done is counted so that the call's context is polled
// while it runs (rework.go). A literal prefix or required substring lets a pattern that
// cannot match be refused without running it (reprefilter.go, held by FuzzRePrefilter).
// Results are built within limits.MaxStringSize and charged to the state's memory.
//
// It has nothing per hook. An Instance keeps the state's compiled patterns (a small cache
// emptied when full) and belongs to one state, in whose goroutine it runs.
package re

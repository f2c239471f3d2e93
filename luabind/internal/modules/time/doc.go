// Package time is the time module of hooks: time.now() (seconds since the epoch, with
// fractions) and time.sleep(seconds), a wait that stops with an error when the call's
// context ends (its timeout, the host's cancellation, Close) and that counts as a wait
// outside Lua (modules.VU.Wait): it holds no Lua state of the pool's line.
//
// It has nothing per hook; an Instance belongs to one state and runs in its goroutine.
package time

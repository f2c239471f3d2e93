// Package log is the log module of hooks, and the budget that print and ctx.log share with
// it: debug/info/warn/error(msg, fields?) write a record to the hook's logger (tagged with
// the hook's name by the core), with the caller's line and the fields converted as
// everything crossing to Go is (modules.VU.ToGo). A message is converted only when its
// level is enabled.
//
// One call may log at most MaxRecords records and MaxBytes bytes of messages and fields;
// later records are dropped and counted, and EndCall, which the core calls when each call
// ends, logs one warning saying how many. A message longer than MaxMessage is cut and says
// how many bytes were cut.
//
// The core makes the Instance of every state when it builds the state, since print uses
// it; an Instance belongs to its state and runs in its goroutine.
package log

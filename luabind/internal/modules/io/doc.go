// Package io is the io table of hooks, the one module the core installs as a global rather
// than through require: io.open(path, mode) (r, w, a, r+, w+, a+, with or without b)
// returns a file with read("a"|"l"|"L"|"n"|count, ...), write(...), lines(...),
// seek(whence, offset), flush and close; io.lines(path), io.close(f) and io.type(v)
// complete it. Without permissions.fs io.open exists and refuses, naming the permission.
//
// A path is resolved as the entries are (hostpath.Resolve) and must lie inside an entry;
// it is opened through an os.Root opened once, at load, for each entry (ResolveRoots,
// roots.go): the entry's directory, or for an entry that is a file or does not exist yet,
// its nearest existing parent. A symbolic link that leads outside is refused even if it
// changes after the check, and a directory swapped for a link after load is not followed.
// Only regular files are opened, without blocking (OpenRegular). Refusals raise errors
// naming permissions.fs; operating-system failures return nil and a message, as in Lua.
//
// A call may hold 64 files open. The Module is the hook's: its roots are closed with the
// hook (CloseRoots), after which opens fail with ErrHookClosed. An Instance belongs to one
// state and tracks the files of its call in progress: the core closes them when the call
// ends (EndCall) and when the state closes (Close). It runs in its state's goroutine.
package io

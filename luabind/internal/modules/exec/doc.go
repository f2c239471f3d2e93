// Package exec is the exec module of hooks, present only for a hook that declares
// permissions.exec: run(argv, {stdin, timeout, cwd}) returns {code, stdout, stderr} (and
// truncated = true when output was cut at 1 MiB per stream). No shell.
//
// Each permissions.exec entry names one file, resolved at load (ResolvePrograms): a bare
// name is the program PATH gave then, a path is that file, symbolic links resolved.
// argv[1] is resolved the same way when the call runs and must be the file of an entry,
// under the same base name; that file is what runs, with argv[1] as its argv[0]. The
// program runs in its own process group, killed on timeout (default 10s), when the call
// ends and after it exits, and gets only a few base variables (PATH, HOME, ...) and those
// permissions.env allows (Module.Getenv). The run counts as a wait outside Lua
// (modules.VU.Wait).
//
// The Module is the hook's, read-only; an Instance belongs to one state and runs in its
// goroutine.
package exec

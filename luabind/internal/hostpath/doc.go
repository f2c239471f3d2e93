// Package hostpath resolves the paths a hook's permissions and calls name on the host, the
// same way for the core (permissions.fs and permissions.exec entries, at load), the io
// module and the exec module: "~" expanded to the user's home (ExpandHome), made absolute,
// cleaned, and symbolic links resolved in the longest existing prefix (Resolve), so that a
// file that does not exist yet still resolves through its parents. Err strips the path
// from an operating-system error for messages that name the path themselves.
//
// Its functions are pure apart from reading the file system, and safe for concurrent use.
package hostpath

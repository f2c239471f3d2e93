// Package safefile opens the files the engine reads and writes under a home (config.yaml,
// manifests, handlers, the allowlist and its lock, the store's database) so that no file
// placed there can hang the host or redirect it elsewhere:
//
//   - the open never blocks: a named pipe with no writer, or a device, would otherwise stop
//     the caller in open(2) for good, past every timeout and through SIGTERM;
//   - a symbolic link in the last component of the path is not followed (links in the
//     directories above it are: a home may itself be a link);
//   - the descriptor itself is checked to be a regular file (fstat), so nothing can be
//     swapped in between a check and the open.
//
// A refusal is an *Error naming the file, what it is and what to do. A missing file is the
// error of os.Open, satisfying errors.Is(err, fs.ErrNotExist).
//
// On Unix the file is opened with O_NONBLOCK|O_NOFOLLOW and O_NONBLOCK is cleared once the
// descriptor is known to be a regular file. Elsewhere (Windows) there are no FIFOs to block
// on; a link is refused by an Lstat before the open and the opened file is checked again,
// which leaves a window between the two that Unix does not have.
//
// The functions are safe for concurrent use.
package safefile

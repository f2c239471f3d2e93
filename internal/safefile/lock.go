package safefile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/gofrs/flock"
)

// Lock takes the lock file at path (created when missing, mode 0600), retrying every
// retry while another holds it until ctx ends. Its open neither blocks nor follows a link,
// and the descriptor locked must be a regular file's. Unlock it when done.
func Lock(ctx context.Context, path string, retry time.Duration) (*flock.Flock, error) {
	lock := flock.New(path, flock.SetFlag(os.O_CREATE|os.O_RDONLY|Flags), flock.SetPermissions(0o600))
	if _, err := lock.TryLockContext(ctx, retry); err != nil {
		var pe *fs.PathError
		if fi, lerr := os.Lstat(path); errors.As(err, &pe) && lerr == nil && Regular(path, fi) != nil {
			return nil, Regular(path, fi) // O_NOFOLLOW's ELOOP, said as what the file is
		}
		return nil, fmt.Errorf("lock: %w", err)
	}
	fi, err := lock.Stat() // of the descriptor locked
	if err == nil {
		err = Regular(path, fi)
	}
	if err != nil {
		lock.Unlock()
		return nil, err
	}
	return lock, nil
}

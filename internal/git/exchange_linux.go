package git

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps the files at a and b atomically (renameat2 with
// RENAME_EXCHANGE): each name then holds what the other held. ok is false
// when the file system cannot (EINVAL, ENOSYS, ENOTSUP, EXDEV...) or
// either file is missing (a repository without an index yet): the caller
// renames instead, and a rename reports what is really wrong.
func exchange(a, b string) (ok bool, err error) {
	err = unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM),
		errors.Is(err, unix.EROFS), errors.Is(err, unix.ENOSPC), errors.Is(err, unix.EIO):
		return false, err // a real failure, which a rename would meet too
	}
	return false, nil
}

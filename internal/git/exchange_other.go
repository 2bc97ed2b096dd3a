//go:build !linux

package git

// exchange is not available here: the caller renames instead.
func exchange(a, b string) (ok bool, err error) { return false, nil }

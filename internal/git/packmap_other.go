//go:build !unix

package git

import "os"

// mapFile reads a whole file where there is no mmap here.
func mapFile(path string) ([]byte, error) { return os.ReadFile(path) }

func unmapFile([]byte) {}

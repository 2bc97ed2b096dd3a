//go:build !linux

package prefault

func start(uintptr) {}

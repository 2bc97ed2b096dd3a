package git

// faultHook, when set, is called before every durable step this package
// (and go-git through it) takes in a repository: each lock or temporary
// file created, each rename, link and unlink, each in-place write. Crash
// tests set it to kill the process at the n-th step and check that the
// next run repairs whatever that left.
var faultHook func(op, path string)

// SetFaultHook installs fn as the fault hook; nil removes it. It is for
// crash tests only (see cmd/promote's crashtest build) and must be set
// before any repository is opened.
func SetFaultHook(fn func(op, path string)) { faultHook = fn }

func step(op, path string) {
	if faultHook != nil {
		faultHook(op, path)
	}
}

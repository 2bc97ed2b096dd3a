package render

import (
	"errors"
	"fmt"
)

// The bounds every engine renders under, so that a merge request (which is
// untrusted input) fails its own app with one of these, never the run.
var (
	// ErrTooLarge: an input or output past its bound (an archive entry, an
	// app's manifests, a jsonnet evaluation's memory or stack).
	ErrTooLarge = errors.New("too large")
	// ErrTimeout: an evaluation past its time bound.
	ErrTimeout = errors.New("took too long")
)

// limitError is an engine's own limit error that is also one of the
// sentinels above.
type limitError struct {
	error
	is error
}

func (e limitError) Unwrap() []error { return []error{e.error, e.is} }

// MaxAppBytes bounds the manifests of one app (all its sources), and of
// each source. The largest charts of real fleets render a few MiB (their
// CRDs: kube-prometheus-stack about 4 MiB) and the 1000-node fleet's apps
// tens of KiB; the API server refuses an object past about 1.5 MiB, so
// 64 MiB is far past any app that could sync.
const MaxAppBytes = 64 << 20

// MaxRunBytes bounds what one run renders in all (every render of every
// app, base and head): the 1000-node fleet's 8,006 apps rendered three
// times each at tens of KiB come to a few hundred MiB. Past it, the apps
// left fail, each with this error, and the run ends in bounded time.
const MaxRunBytes = 8 << 30

// tooLarge is the error of manifests past MaxAppBytes.
func tooLarge(n int) error {
	return fmt.Errorf("rendered more than %d MiB (%d MiB): %w", MaxAppBytes>>20, n>>20, ErrTooLarge)
}

// AppTooLarge is the error of an app whose sources together rendered n
// bytes, past MaxAppBytes.
func AppTooLarge(n int) error { return tooLarge(n) }

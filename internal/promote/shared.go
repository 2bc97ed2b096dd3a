package promote

import (
	"sync"

	"github.com/gitops-promote/gitops-promote/internal/argo"
)

// sharedManifests hands one env's manifests from the plan, which parses
// them to find its edits, to the ordering checks running beside it, which
// would otherwise parse the same bytes again with the same parser (the
// largest single part of the checks' work on the target env).
type sharedManifests struct {
	env  string
	once sync.Once
	done chan struct{}
	ms   []argo.Manifest
	ok   bool
}

func newSharedManifests(env string) *sharedManifests {
	return &sharedManifests{env: env, done: make(chan struct{})}
}

// set publishes env's files; nil means the plan will not read them, and
// the checks read them themselves. Only the first call counts.
func (s *sharedManifests) set(env string, files []manifestFile) {
	if env != s.env {
		return
	}
	s.once.Do(func() {
		if files != nil {
			s.ms = make([]argo.Manifest, len(files))
			for i, f := range files {
				s.ms[i] = argo.Manifest{File: f.Path, Docs: f.File.Roots()}
			}
			s.ok = true
		}
		close(s.done)
	})
}

// get is an ordering.Manifests: it waits until the plan has read env's
// manifests or will not.
func (s *sharedManifests) get(env string) ([]argo.Manifest, bool) {
	if env != s.env {
		return nil, false
	}
	<-s.done
	return s.ms, s.ok
}

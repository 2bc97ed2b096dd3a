package promote

import (
	"sync"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/ordering"
)

// argoManifests is the target's manifests as the ordering checks take
// them, the very trees the plan parsed (the checks would otherwise parse
// the same bytes again with the same parser, the largest single part of
// their work on the target env); nil when they could not be read.
func argoManifests(files []manifestFile, err error) []argo.Manifest {
	if err != nil {
		return nil
	}
	ms := make([]argo.Manifest, len(files))
	for i, f := range files {
		ms[i] = argo.Manifest{File: f.Path, Docs: f.File.Roots()}
	}
	return ms
}

// awaitManifests is an ordering.Manifests for env: the one value sent on
// ch, waited for on the first call; nil sent means the checks read env
// themselves.
func awaitManifests(env string, ch <-chan []argo.Manifest) ordering.Manifests {
	received := sync.OnceValue(func() []argo.Manifest { return <-ch })
	return func(e string) ([]argo.Manifest, bool) {
		if e != env {
			return nil, false
		}
		ms := received()
		return ms, ms != nil
	}
}

package argo

import (
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/yamlnode"
)

// BenchmarkSplitDocs measures the duplicate key check against the parse it
// follows, on the manifests of the generated repository ordering's tests
// use (every env): walk is the check alone over the parsed trees, split
// the parse with the check.
func BenchmarkSplitDocs(b *testing.B) {
	files, _ := filepath.Glob("../ordering/testdata/genrepo/argocd/*/*.yaml")
	if len(files) == 0 {
		b.Fatal("no manifests")
	}
	var data [][]byte
	for _, f := range files {
		d, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		data = append(data, d)
	}
	b.Run("split", func(b *testing.B) {
		for range b.N {
			for _, d := range data {
				if _, dups, err := splitDocs("f", d); err != nil || dups != nil {
					b.Fatal(err, dups)
				}
			}
		}
	})
	b.Run("walk", func(b *testing.B) {
		var docs [][]*yaml.Node
		for _, d := range data {
			ds, _, _ := splitDocs("f", d)
			docs = append(docs, ds)
		}
		b.ResetTimer()
		for range b.N {
			for _, ds := range docs {
				for _, n := range ds {
					if k, _ := yamlnode.DuplicateKey(n); k != nil {
						b.Fatal(k.Value)
					}
				}
			}
		}
	})
}

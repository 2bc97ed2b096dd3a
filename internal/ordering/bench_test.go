package ordering

import (
	"os"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/git"
)

// BenchmarkCheckPromote runs the ordering checks of `promote apply --to
// prod` on a repository made by the bench generator (gen_gitops_repo.py
// --nodes 12 --git), read from its HEAD tree as promote reads it, with
// prod's manifests parsed beforehand as the plan hands them over. Count
// its instructions (callgrind) rather than time it:
//
//	PROMOTE_BENCH_REPO=/tmp/g/repo go test -run XXX -bench CheckPromote ./internal/ordering
func BenchmarkCheckPromote(b *testing.B) {
	dir := os.Getenv("PROMOTE_BENCH_REPO")
	if dir == "" {
		b.Skip("set PROMOTE_BENCH_REPO to a repository made by gen_gitops_repo.py --git")
	}
	cfg, err := config.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	repo, err := git.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer repo.Close()
	head, err := repo.Head()
	if err != nil {
		b.Fatal(err)
	}
	tree, err := repo.TreeFS(head.Hash)
	if err != nil {
		b.Fatal(err)
	}
	target := cfg.Environments[len(cfg.Environments)-1]
	ms, err := argo.ReadManifests(tree, cfg, target)
	if err != nil {
		b.Fatal(err)
	}
	pre := func(env string) ([]argo.Manifest, bool) { return ms, env == target }
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			if _, err := CheckRepoWith(tree, cfg, cfg.Ordering, pre, target); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("other-env", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := buildEnvLight(tree, cfg, cfg.Environments[0]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("target-env", func(b *testing.B) {
		for b.Loop() {
			if _, err := buildEnvFrom(tree, cfg, target, ms); err != nil {
				b.Fatal(err)
			}
		}
	})
}

package promote

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/git"
)

// BenchmarkBuildStatus reads the status view of a repository made by the
// bench generator (gen_gitops_repo.py --nodes 12 --git), without GitLab:
//
//	PROMOTE_BENCH_REPO=/tmp/g/repo go test -run XXX -bench BuildStatus ./internal/promote
func BenchmarkBuildStatus(b *testing.B) {
	dir := os.Getenv("PROMOTE_BENCH_REPO")
	if dir == "" {
		b.Skip("set PROMOTE_BENCH_REPO to a repository made by gen_gitops_repo.py --git")
	}
	now := time.Now()
	for b.Loop() {
		repo, err := git.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		cfg, err := config.Load(dir)
		if err != nil {
			b.Fatal(err)
		}
		head, _ := repo.Head()
		if _, err := BuildStatus(context.Background(), repo, cfg, StatusOptions{Head: head.Hash, Now: now}); err != nil {
			b.Fatal(err)
		}
		repo.Close()
	}
}

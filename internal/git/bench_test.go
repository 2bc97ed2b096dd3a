package git

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

var bench20k struct {
	once sync.Once
	dir  string
	err  error
}

// bench20kRepo builds, once per test binary, a committed repository of
// 20,000 files: the size the package is designed for.
func bench20kRepo(b *testing.B) string {
	bench20k.once.Do(func() {
		dir, err := os.MkdirTemp("", "gitops-promote-bench-")
		if err != nil {
			bench20k.err = err
			return
		}
		bench20k.dir = dir
		for i := range 20000 {
			p := filepath.Join(dir, fmt.Sprintf("apps/app%03d/env%02d/file%d.yaml", i/200, i/20%10, i))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				bench20k.err = err
				return
			}
			if err := os.WriteFile(p, fmt.Appendf(nil, "n: %d\n", i), 0o644); err != nil {
				bench20k.err = err
				return
			}
		}
		for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "init"}} {
			run(b, dir, args...)
		}
	})
	if bench20k.err != nil {
		b.Fatal(bench20k.err)
	}
	return bench20k.dir
}

// BenchmarkPromote20k measures one promotion's local git work: open, read,
// dirty check, commit, move HEAD, update the work tree and index.
func BenchmarkPromote20k(b *testing.B) {
	dir := bench20kRepo(b)
	const target = "apps/app042/env00/file8410.yaml"
	b.ResetTimer()
	for i := range b.N {
		r, err := Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		head, err := r.Head()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.ReadFile(head.Hash, target); err != nil {
			b.Fatal(err)
		}
		if d, err := r.DirtyPaths([]string{target}); err != nil || len(d) > 0 {
			b.Fatal(d, err)
		}
		files := map[string][]byte{target: fmt.Appendf(nil, "n: %d %d\n", i, time.Now().UnixNano())}
		next, err := r.CommitFiles(head.Hash, files, "promote", testAuthor, testCommitter, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		if err := r.updateHead(head.Hash, next); err != nil {
			b.Fatal(err)
		}
		if err := r.writeWorktree(files); err != nil {
			b.Fatal(err)
		}
	}
}

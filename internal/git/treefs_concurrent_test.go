package git

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// manifestdiff reads one tree from many goroutines; on a packed repository
// (every clone is) go-git's pack maps would race without the repo lock.
// Run with -race to see the difference.
func TestTreeFSConcurrentReadsOnPackedRepo(t *testing.T) {
	dir := t.TempDir()
	for i := range 40 {
		p := filepath.Join(dir, fmt.Sprintf("d%d", i%4), fmt.Sprintf("f%d.yaml", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(fmt.Sprintf("value: %d\n", i)), 0o644)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"}, {"gc", "-q"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	head, _ := r.Head()
	fsys, err := r.TreeFS(head.Hash)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < 40; i += 2 {
				name := fmt.Sprintf("d%d/f%d.yaml", i%4, i)
				data, err := fs.ReadFile(fsys, name)
				if err != nil || string(data) != fmt.Sprintf("value: %d\n", i) {
					errs <- fmt.Errorf("%s: %q %v", name, data, err)
					return
				}
				if _, err := fs.ReadDir(fsys, fmt.Sprintf("d%d", i%4)); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

package git

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// A tree view is read from many goroutines at once: manifestdiff renders
// from one in parallel, promote's plan and ordering checks read the same
// tree side by side. Packed objects come from the pack reader without a
// lock and the rest from go-git under the repository's lock (objects.go),
// so the test's repository has both: a packed first commit and loose
// objects from a second, some in directories of the first. Every entry
// point, each from 8 goroutines, must give what git has. make test runs it
// with -race: without the view's own lock on its tree cache it reports a
// race.
func TestTreeFSConcurrentReads(t *testing.T) {
	dir := t.TempDir()
	want := map[string]string{}
	write := func(i int) {
		name := fmt.Sprintf("d%d/f%d.yaml", i%4, i)
		want[name] = fmt.Sprintf("value: %d\n", i)
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(want[name]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 40 {
		write(i)
	}
	run(t, dir, "init", "-q")
	run(t, dir, "add", "-A")
	run(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "packed")
	run(t, dir, "gc", "-q")
	for i := 40; i < 60; i++ { // loose objects, in the packed directories and a new one
		write(i)
	}
	if err := os.Symlink("../d1/f1.yaml", filepath.Join(dir, "d0", "link.yaml")); err != nil {
		t.Fatal(err)
	}
	want["d0/link.yaml"] = want["d1/f1.yaml"]
	run(t, dir, "add", "-A")
	run(t, dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "loose")
	if loose := run(t, dir, "count-objects"); loose[0] == '0' {
		t.Fatalf("the second commit left no loose objects: %s", loose)
	}
	r := openRepo(t, dir)
	fsys, err := r.TreeFS(revParse(t, dir, "HEAD"))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			if err := readAll(fsys, want, g); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// readAll reads every file of want through each entry point of fsys,
// starting at a different file per goroutine g.
func readAll(fsys fs.FS, want map[string]string, g int) error {
	var names []string
	for name := range want {
		names = append(names, name)
	}
	for k := range names {
		name := names[(k+g*7)%len(names)]
		data, err := fs.ReadFile(fsys, name)
		if err != nil || string(data) != want[name] {
			return fmt.Errorf("ReadFile(%s) = %q, %v; want %q", name, data, err, want[name])
		}
		fi, err := fs.Stat(fsys, name)
		if err != nil || fi.Size() != int64(len(want[name])) {
			return fmt.Errorf("Stat(%s) = %v, %v; want size %d", name, fi, err, len(want[name]))
		}
		if _, err := fs.Lstat(fsys, name); err != nil {
			return fmt.Errorf("Lstat(%s): %v", name, err)
		}
		entries, err := fs.ReadDir(fsys, filepath.Dir(name))
		if err != nil || len(entries) == 0 {
			return fmt.Errorf("ReadDir(%s) = %d entries, %v", filepath.Dir(name), len(entries), err)
		}
		for _, e := range entries {
			if _, err := e.Info(); err != nil {
				return fmt.Errorf("Info(%s): %v", e.Name(), err)
			}
		}
	}
	if target, err := fs.ReadLink(fsys, "d0/link.yaml"); err != nil || target != "../d1/f1.yaml" {
		return fmt.Errorf("ReadLink(d0/link.yaml) = %q, %v", target, err)
	}
	return nil
}

package git

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// ContentID stands in for ReadFile when inputs are compared: it must fail
// exactly where ReadFile fails, with the same kind of error, and two ids
// (of one view or of two revisions) must be equal exactly when the
// contents are. Identical files at different paths, symlinks, a changed
// file, directories, missing and invalid paths, all at two revisions.
func TestTreeFSContentIDAgreesWithReadFile(t *testing.T) {
	dir := newRepo(t)
	commitSymlinks(t, dir, map[string]string{"apps/link.yaml": "web/values.yaml", "envs/webdir": "../apps/web"})
	if err := os.Symlink("../../outside", filepath.Join(dir, "envs/escape")); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "escaping link")
	before := revParse(t, dir, "HEAD")
	if err := os.WriteFile(filepath.Join(dir, "apps/web/values.yaml"), []byte("image:\n  tag: v2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, dir, "commit", "-q", "-am", "web v2")
	r := openRepo(t, dir)
	paths := []string{"README.md", "apps/web/values.yaml", "apps/api/values.yaml", "apps/link.yaml",
		"envs/webdir/values.yaml", "envs/prod/apps/web/values.yaml", "scripts/deploy.sh", "envs/escape",
		"apps", "envs/webdir", "missing.yaml", "README.md/x", "/README.md", "apps/../README.md"}
	type read struct {
		name string
		data []byte
		id   string
	}
	var ok []read
	for _, rev := range []string{before.String(), "HEAD"} {
		view, err := r.treeView(revParse(t, dir, rev))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			data, rerr := view.ReadFile(p)
			id, ierr := view.ContentID(p)
			for _, class := range []error{fs.ErrNotExist, fs.ErrInvalid, nil} {
				if class == nil && (rerr == nil) != (ierr == nil) || class != nil && errors.Is(rerr, class) != errors.Is(ierr, class) {
					t.Errorf("%s at %s: ReadFile error %v, ContentID error %v", p, rev, rerr, ierr)
				}
			}
			if rerr == nil && ierr == nil {
				ok = append(ok, read{p + " at " + rev, data, id})
			}
		}
	}
	if len(ok) < 10 {
		t.Fatalf("only %d paths read", len(ok))
	}
	for _, a := range ok {
		for _, b := range ok {
			if (a.id == b.id) != bytes.Equal(a.data, b.data) {
				t.Errorf("%s and %s: ids equal %v, contents equal %v", a.name, b.name, a.id == b.id, bytes.Equal(a.data, b.data))
			}
		}
	}
}

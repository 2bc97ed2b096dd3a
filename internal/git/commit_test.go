package git

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/google/go-cmp/cmp"
)

var (
	testAuthor    = Signature{Name: "Promo Author", Email: "promo@example.com"}
	testCommitter = Signature{Name: "Promo Bot", Email: "bot@example.com"}
	testWhen      = time.Date(2026, 3, 1, 12, 0, 0, 0, time.FixedZone("", 3600))
)

func TestCommitFiles(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		// unchanged are paths (files or trees) whose object must be shared
		// with the parent.
		unchanged []string
		wantModes map[string]string
	}{
		{
			name:      "nested file",
			files:     map[string]string{"envs/prod/apps/web/values.yaml": "replicas: 4\n"},
			unchanged: []string{"apps", "scripts", "README.md", "envs/prod/apps/web/values-ext.yaml"},
			wantModes: map[string]string{"envs/prod/apps/web/values.yaml": "100644"},
		},
		{
			name:      "new file in new dir",
			files:     map[string]string{"envs/staging/apps/web/values.yaml": "replicas: 1\n"},
			unchanged: []string{"apps", "envs/prod", "README.md"},
			wantModes: map[string]string{"envs/staging/apps/web/values.yaml": "100644"},
		},
		{
			name: "two dirs at once",
			files: map[string]string{
				"apps/web/values.yaml": "image:\n  tag: v2\n",
				"apps/api/values.yaml": "image:\n  tag: v2\n",
			},
			unchanged: []string{"apps/web/Chart.yaml", "envs", "scripts"},
		},
		{
			name:      "executable keeps mode",
			files:     map[string]string{"scripts/deploy.sh": "#!/bin/sh\necho v2\n"},
			unchanged: []string{"apps", "envs"},
			wantModes: map[string]string{"scripts/deploy.sh": "100755"},
		},
		{
			name:      "root file",
			files:     map[string]string{"README.md": "new\n", "VERSION": "2\n"},
			unchanged: []string{"apps", "envs", "scripts"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := newRepo(t)
			r := openRepo(t, dir)
			parent := revParse(t, dir, "HEAD")
			h := commitFiles(t, r, parent, tt.files, "promote web\n\nbody")
			run(t, dir, "update-ref", "refs/heads/result", h.String())
			run(t, dir, "fsck", "--strict", "--no-dangling")

			changed := strings.Split(run(t, dir, "show", "--format=", "--name-only", h.String()), "\n")
			var want []string
			for p := range tt.files {
				want = append(want, p)
			}
			sort.Strings(want)
			if diff := cmp.Diff(want, changed); diff != "" {
				t.Errorf("changed files (-want +got):\n%s", diff)
			}
			stat := run(t, dir, "show", "--stat", "--format=", h.String())
			if !strings.Contains(stat, fmt.Sprintf("%d file", len(tt.files))) {
				t.Errorf("git show --stat:\n%s", stat)
			}
			for p, c := range tt.files {
				if got := run(t, dir, "show", h.String()+":"+p); got != strings.TrimSpace(c) {
					t.Errorf("%s = %q, want %q", p, got, c)
				}
			}
			for _, p := range tt.unchanged {
				if a, b := revParse(t, dir, parent.String()+":"+p), revParse(t, dir, h.String()+":"+p); a != b {
					t.Errorf("%s changed: %s -> %s", p, a, b)
				}
			}
			for p, mode := range tt.wantModes {
				if got := strings.Fields(run(t, dir, "ls-tree", h.String(), p))[0]; got != mode {
					t.Errorf("mode of %s = %s, want %s", p, got, mode)
				}
			}
			meta := run(t, dir, "show", "-s", "--format=%an <%ae>|%cn <%ce>|%ad|%P|%B", "--date=iso-strict", h.String())
			wantMeta := "Promo Author <promo@example.com>|Promo Bot <bot@example.com>|2026-03-01T12:00:00+01:00|" +
				parent.String() + "|promote web\n\nbody"
			if meta != wantMeta {
				t.Errorf("commit metadata = %q, want %q", meta, wantMeta)
			}
		})
	}
}

func TestCommitFilesErrors(t *testing.T) {
	dir := newRepo(t)
	r := openRepo(t, dir)
	parent := revParse(t, dir, "HEAD")
	tests := []struct {
		name   string
		files  map[string]string
		wantIs error
	}{
		{"same content", map[string]string{"README.md": fixture["README.md"]}, ErrNoChanges},
		{"nothing", map[string]string{}, ErrNoChanges},
		{"dot git", map[string]string{".git/config": "x"}, nil},
		{"dot git nested", map[string]string{"a/.GIT/x": "x"}, nil},
		{"parent dir", map[string]string{"../x": "x"}, nil},
		{"absolute", map[string]string{"/x": "x"}, nil},
		{"empty component", map[string]string{"a//b": "x"}, nil},
		{"file as dir", map[string]string{"README.md/x": "x"}, nil},
		{"dir as file", map[string]string{"apps": "x"}, nil},
		{"file and dir", map[string]string{"new": "x", "new/y": "y"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := map[string][]byte{}
			for p, c := range tt.files {
				b[p] = []byte(c)
			}
			_, err := r.CommitFiles(parent, b, "x", testAuthor, testCommitter, testWhen)
			if err == nil {
				t.Fatal("CommitFiles succeeded")
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %v, want %v", err, tt.wantIs)
			}
		})
	}
}

func TestCommitFilesRoot(t *testing.T) {
	dir := t.TempDir()
	run(t, dir, "init", "-q", "-b", "main")
	r := openRepo(t, dir)
	h := commitFiles(t, r, plumbing.ZeroHash, map[string]string{"a/b.yaml": "x: 1\n"}, "root")
	run(t, dir, "update-ref", "refs/heads/main", h.String())
	run(t, dir, "fsck", "--strict", "--no-dangling")
	if got := run(t, dir, "log", "--format=%s", "main"); got != "root" {
		t.Errorf("log = %q", got)
	}
}

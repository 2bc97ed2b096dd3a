package gitsource

import (
	"path"
	"strings"
	"testing"
)

// Cases follow kustomize's repospec rules (its own tests' forms).
func TestParseKustomizeRemote(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want RemoteBase
		ok   bool
	}{
		{"github.com/org/repo/deploy/prod?ref=v1.2.0", RemoteBase{"https://github.com/org/repo", "v1.2.0", "deploy/prod"}, true},
		{"https://github.com/org/repo.git//deploy?ref=main", RemoteBase{"https://github.com/org/repo.git", "main", "deploy"}, true},
		{"https://gitlab.example.com/group/sub/repo.git/deploy?version=v2", RemoteBase{"https://gitlab.example.com/group/sub/repo.git", "v2", "/deploy"[1:]}, true},
		{"https://gitlab.example.com/group/repo//base?ref=a&ref=b", RemoteBase{"https://gitlab.example.com/group/repo", "a", "base"}, true},
		{"git@github.com:org/repo.git/deploy?ref=v1", RemoteBase{"git@github.com:org/repo.git", "v1", "deploy"}, true},
		{"ssh://git@gitlab.example.com/group/repo.git//x", RemoteBase{"ssh://git@gitlab.example.com/group/repo.git", "", "x"}, true},
		{"git::https://github.com/org/repo//d?ref=v1&timeout=90", RemoteBase{"https://github.com/org/repo", "v1", "d"}, true},
		{"https://dev.azure.com/org/project/_git/repo/path/to?ref=main", RemoteBase{"https://dev.azure.com/org/project/_git/repo", "main", "path/to"}, true},
		{"file:///tmp/repos/shared.git//kust?ref=main", RemoteBase{"file:///tmp/repos/shared.git", "main", "kust"}, true},
		{"file:///tmp/repos/shared", RemoteBase{"file:///tmp/repos/shared", "", ""}, true},
		{"https://github.com/org/repo.git//../x", RemoteBase{}, false},
		{"../base", RemoteBase{}, false},
		{"base/overlay", RemoteBase{}, false},
		{"/abs/path", RemoteBase{}, false},
		{"https://example.com", RemoteBase{}, false},
	} {
		got, ok := ParseKustomizeRemote(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%q = %+v %v, want %+v %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzParseKustomizeRemote: no panic, and a parsed base never names a
// directory outside its repository.
func FuzzParseKustomizeRemote(f *testing.F) {
	for _, s := range []string{"github.com/org/repo/deploy?ref=v1", "https://h/r.git//a/../b", "git@h:r.git/x", "file:///r", "../base", "git::ssh://x@y/z//w"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rb, ok := ParseKustomizeRemote(s)
		if c := path.Clean(rb.Root); ok && (rb.URL == "" || c == ".." || strings.HasPrefix(c, "../")) {
			t.Errorf("%q = %+v", s, rb)
		}
	})
}

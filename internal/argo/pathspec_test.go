package argo

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPathspecMatchesGitLsFiles compares pathspecMatch with the real
// `git ls-files -- PATTERN`, which Argo CD's git files generator runs.
func TestPathspecMatchesGitLsFiles(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: it is the oracle")
	}
	files := []string{"a.json", "apps/a.json", "apps/b.yaml", "apps/x/c.json", "apps2/d.json", "cfg/[x].json",
		"cluster-config/engineering/dev/config.json", "deep/1/2/3/config.json", "q?.txt", "star*.txt", "Up.JSON",
		"apps/{a,b}.json", "one-two/v1.yaml", "one-two/v2.yaml", "one-two/vx.yaml"}
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return string(out)
	}
	git("init", "-q")
	git("add", "-A")
	patterns := []string{"apps", "apps/", "apps/*.json", "apps/*", "*.json", "**/config.json", "cluster-config/**/config.json",
		"cluster-config/*/dev/config.json", "apps/?.json", "apps/[ab].json", "apps/[!a].*", "apps/[^a].*", "cfg/\\[x].json",
		"q\\?.txt", "star\\*.txt", "apps/{a,b}.json", "one-two/v[0-9].yaml", "one-two/v[[:digit:]].yaml", "*.JSON", "apps/[a",
		"app", "deep/*/3/*.json", ".", "./apps/*.yaml", "one-two/v[1-2x].yaml", "*/*/*/*/config.json"}
	for _, pat := range patterns {
		want := strings.Split(strings.TrimRight(git("ls-files", "-z", "--full-name", "--", pat), "\x00"), "\x00")
		if want[0] == "" {
			want = nil
		}
		var got []string
		for _, f := range files {
			if pathspecMatch(pat, f) {
				got = append(got, f)
			}
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(want, got) {
			t.Errorf("pattern %q: git lists %q, pathspecMatch %q", pat, want, got)
		}
	}
}

// FuzzPathspec: any pattern and name, no panic; a pattern without
// special characters always lists itself and what is below it.
func FuzzPathspec(f *testing.F) {
	for _, s := range [][2]string{{"apps/*.json", "apps/a.json"}, {"[!a-c]?", "dx"}, {"a\\*b", "a*b"}, {"[[:alpha:]]*", "x"}, {"[", "["}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		pathspecMatch(pattern, name)
		if pattern != "" && !strings.ContainsAny(pattern, `*?[\`) && !strings.HasPrefix(pattern, "./") && pattern != "." {
			if !pathspecMatch(pattern, pattern) || !pathspecMatch(pattern, strings.TrimSuffix(pattern, "/")+"/x") {
				t.Errorf("literal %q does not list itself or its contents", pattern)
			}
		}
	})
}

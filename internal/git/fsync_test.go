package git

import (
	"os/exec"
	"testing"
)

// Durability follows the repository's git config, as git's own does.
func TestFsyncFollowsGitConfig(t *testing.T) {
	tests := []struct {
		config []string
		want   bool
	}{
		{nil, false},
		{[]string{"core.fsync", "none"}, false},
		{[]string{"core.fsync", "committed"}, true},
		{[]string{"core.fsyncObjectFiles", "true"}, true},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
		if tt.config != nil {
			if out, err := exec.Command("git", append([]string{"-C", dir, "config"}, tt.config...)...).CombinedOutput(); err != nil {
				t.Fatalf("git config: %v %s", err, out)
			}
		}
		r, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if r.fsync != tt.want {
			t.Errorf("config %v: fsync = %v, want %v", tt.config, r.fsync, tt.want)
		}
	}
}

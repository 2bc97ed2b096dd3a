package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/cmd/internal/clitest"
)

// `make demo` (scripts/demo.sh) runs end to end on freshly built binaries,
// and colours as the tools do: bold headings and git's colours only on a
// terminal without NO_COLOR, plain text in a pipe or a CI log.
func TestDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds both tools and runs the demo three times; run without -short")
	}
	promoteBinary(t)
	bin := filepath.Dir(clitest.BuildRelease(t, "../..", "./cmd/manifestdiff")) // beside promote
	demo, err := filepath.Abs("../../scripts/demo.sh")
	if err != nil {
		t.Fatal(err)
	}
	sgr := regexp.MustCompile(`\x1b\[[0-9;]*m`) // a colour or weight, not a progress line's erase
	for _, tc := range []struct {
		name     string
		terminal bool
		noColor  string
		bold     bool
	}{
		{"pipe", false, "", false},
		{"terminal", true, "", true},
		{"terminal with NO_COLOR", true, "1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(demo)
			if tc.terminal { // util-linux script(1) gives the demo a pseudo-terminal
				cmd = exec.Command("script", "-qefc", demo, "/dev/null")
			}
			playground := filepath.Join(t.TempDir(), "demo")
			env := []string{"DEMO_BIN=" + bin, "DEMO_DIR=" + playground, "TERM=xterm"}
			if tc.noColor != "" {
				env = append(env, "NO_COLOR="+tc.noColor)
			}
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, "NO_COLOR=") && !strings.HasPrefix(kv, "TERM=") {
					env = append(env, kv)
				}
			}
			cmd.Env = env
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				t.Fatalf("demo: %v\n%s", err, out.String())
			}
			got := out.String()
			// the playground stays, with its upstream set: the stale-source
			// error's advice (git pull --ff-only) works there
			pull := exec.Command("git", "-C", filepath.Join(playground, "repo"), "pull", "--ff-only", "-q")
			if o, err := pull.CombinedOutput(); err != nil {
				t.Errorf("git pull --ff-only in the playground: %v\n%s", err, o)
			}
			if _, err := os.Stat(filepath.Join(playground, "serve-charts.sh")); err != nil {
				t.Errorf("the playground has no serve-charts.sh: %v", err)
			}
			for _, want := range []string{"==> promote check", "work tree clean, HEAD still ", "make demo-clean removes it"} {
				if !strings.Contains(got, want) {
					t.Errorf("demo output lacks %q:\n%s", want, got)
				}
			}
			if !tc.terminal && strings.Contains(got, "\x1b") {
				t.Errorf("escape codes in a pipe:\n%q", got)
			}
			if bold := strings.Contains(got, "\x1b[1m==> promote check"); bold != tc.bold {
				t.Errorf("bold headings %v, want %v:\n%q", bold, tc.bold, got)
			}
			if !tc.bold && sgr.MatchString(got) {
				t.Errorf("colour with NO_COLOR=%q: %q", tc.noColor, sgr.FindAllString(got, 5))
			}
		})
	}
}

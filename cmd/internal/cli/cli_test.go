package cli

import (
	"errors"
	"strings"
	"testing"
)

func TestUseColor(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	tests := []struct {
		mode string
		tty  bool
		env  string
		want bool
	}{
		{ColorAuto, true, "", true},
		{ColorAuto, false, "", false},
		{ColorAuto, true, "1", false},
		{ColorAlways, false, "1", true},
		{ColorNever, true, "", false},
	}
	for _, tt := range tests {
		if got := UseColor(tt.mode, tt.tty, env(tt.env)); got != tt.want {
			t.Errorf("UseColor(%s, tty %v, NO_COLOR %q) = %v", tt.mode, tt.tty, tt.env, got)
		}
	}
}

func TestRequireEnv(t *testing.T) {
	env := map[string]string{"CI_PROJECT_ID": "1"}
	err := RequireEnv("--post", "the Reporter role", func(k string) string { return env[k] },
		"CI_API_V4_URL", "CI_PROJECT_ID", "GITLAB_TOKEN")
	want := "--post needs CI_API_V4_URL and GITLAB_TOKEN in the environment: GitLab CI sets CI_API_V4_URL in every job" +
		" (elsewhere, export CI_API_V4_URL=https://<your GitLab host>/api/v4); GitLab does not set GITLAB_TOKEN"
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "GitLab does not set GITLAB_TOKEN") ||
		strings.Contains(err.Error(), "CI_PROJECT_ID") {
		t.Errorf("RequireEnv = %v", err)
	}
	env["CI_API_V4_URL"], env["GITLAB_TOKEN"] = "x", "y"
	if err := RequireEnv("--post", "", func(k string) string { return env[k] }, "CI_API_V4_URL", "CI_PROJECT_ID", "GITLAB_TOKEN"); err != nil {
		t.Errorf("all set: %v", err)
	}
}

func TestLine(t *testing.T) {
	if got := Line(errors.New("a\n  b\tc")); got != "a; b c" {
		t.Errorf("Line = %q", got)
	}
	if got := Line(&UsageError{Path: "promote plan", Err: errors.New("plan needs --from")}); got != "plan needs --from; see 'promote plan --help'" {
		t.Errorf("Line(usage) = %q", got)
	}
	if !errors.Is(&UsageError{Err: errors.New("x")}, ErrUsage) {
		t.Error("a UsageError is not ErrUsage")
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 files", 1: "1 file", 7: "7 files"} {
		if got := Plural(n, "file", "files"); got != want {
			t.Errorf("Plural(%d) = %q", n, got)
		}
	}
}

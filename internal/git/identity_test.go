package git

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIdentity(t *testing.T) {
	type files struct{ local, global, xdg string }
	tests := []struct {
		name          string
		env           map[string]string
		cfg           files
		wantAuthor    Signature
		wantCommitter Signature
		wantErr       error
	}{
		{
			name:          "env overrides config",
			env:           map[string]string{"GIT_AUTHOR_NAME": "Env A", "GIT_AUTHOR_EMAIL": "a@env", "GIT_COMMITTER_NAME": "Env C", "GIT_COMMITTER_EMAIL": "c@env"},
			cfg:           files{local: "[user]\n\tname = Local\n\temail = local@x\n"},
			wantAuthor:    Signature{"Env A", "a@env"},
			wantCommitter: Signature{"Env C", "c@env"},
		},
		{
			name:          "repo-local config",
			cfg:           files{local: "[user]\n\tname = Local\n\temail = local@x\n", global: "[user]\n\tname = Global\n\temail = global@x\n"},
			wantAuthor:    Signature{"Local", "local@x"},
			wantCommitter: Signature{"Local", "local@x"},
		},
		{
			name:          "global over xdg, fields merged",
			cfg:           files{global: "[user]\n\tname = Global\n", xdg: "[user]\n\tname = XDG\n\temail = xdg@x\n"},
			wantAuthor:    Signature{"Global", "xdg@x"},
			wantCommitter: Signature{"Global", "xdg@x"},
		},
		{
			name:          "author.* and partial env",
			env:           map[string]string{"GIT_COMMITTER_NAME": "CI"},
			cfg:           files{local: "[user]\n\tname = Local\n\temail = local@x\n[author]\n\temail = author@x\n"},
			wantAuthor:    Signature{"Local", "author@x"},
			wantCommitter: Signature{"CI", "local@x"},
		},
		{
			name:    "nothing configured",
			wantErr: ErrNoIdentity,
		},
		{
			name:    "email missing",
			cfg:     files{global: "[user]\n\tname = Global\n"},
			wantErr: ErrNoIdentity,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, xdg := t.TempDir(), t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", xdg)
			for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"} {
				t.Setenv(k, tt.env[k])
			}
			dir := t.TempDir()
			run(t, dir, "init", "-q")
			appendFile(t, filepath.Join(dir, ".git/config"), tt.cfg.local)
			appendFile(t, filepath.Join(home, ".gitconfig"), tt.cfg.global)
			appendFile(t, filepath.Join(xdg, "git/config"), tt.cfg.xdg)

			author, committer, err := openRepo(t, dir).Identity()
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantAuthor, author); diff != "" {
				t.Errorf("author (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantCommitter, committer); diff != "" {
				t.Errorf("committer (-want +got):\n%s", diff)
			}
		})
	}
}

func appendFile(t *testing.T, p, content string) {
	t.Helper()
	if content == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
}

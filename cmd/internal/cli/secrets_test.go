package cli

import (
	"bytes"
	"encoding/base64"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Every credential the process can know of is masked on stderr, in plain
// and encoded forms, whoever writes it.
func TestGuardMasksEveryKnownCredential(t *testing.T) {
	home := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		full := filepath.Join(home, p)
		os.MkdirAll(filepath.Dir(full), 0o700)
		if err := os.WriteFile(full, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(".git-credentials", "https://u:gitcred-Secret-01@git.example.com\n")
	write(".netrc", "machine n.example.com login u password netrc-Secret-02\n")
	write(".config/helm/repositories.yaml", "repositories:\n- name: s\n  url: https://c.example.com\n  username: u\n  password: repo-Secret-03\n")
	write(".config/helm/registry/config.json", `{"auths":{"r.example.com":{"auth":"`+base64.StdEncoding.EncodeToString([]byte("u:helmreg-Secret-04"))+`"}}}`)
	write(".docker/config.json", `{"auths":{"d.example.com":{"identitytoken":"docker-Secret-05"}}}`)
	repo := filepath.Join(home, "repo")
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if out, err := exec.Command("git", "-C", repo, "remote", "add", "origin", "https://oauth2:remote/Secret 06@gitlab.example.com/g/r.git").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	env := map[string]string{"HOME": home, "GIT_TOKEN": "git-Secret-07", "GITLAB_TOKEN": "gitlab-Secret-08",
		"CI_JOB_TOKEN": "job-Secret-09", "HELM_REPO_USERNAME": "robot", "HELM_REPO_PASSWORD": "pair-Secret-10"}
	var buf bytes.Buffer
	ios := Guard(&IOStreams{ErrOut: &buf}, func(k string) string { return env[k] })
	ios.Secrets.AddGitRemotes(repo)
	ios.Secrets.AddCredential("<token>", "helper-Secret-11")

	secrets := map[string]string{"gitcred-Secret-01": "u", "netrc-Secret-02": "u", "repo-Secret-03": "u", "helmreg-Secret-04": "u",
		"docker-Secret-05": "", "remote/Secret 06": "oauth2", "git-Secret-07": "oauth2", "gitlab-Secret-08": "oauth2",
		"job-Secret-09": "gitlab-ci-token", "pair-Secret-10": "robot", "helper-Secret-11": "<token>"}
	var forms []string
	for s, user := range secrets {
		forms = append(forms, s, url.QueryEscape(s), url.PathEscape(s), strings.ToUpper(s),
			base64.StdEncoding.EncodeToString([]byte(s)), base64.StdEncoding.EncodeToString([]byte(user+":"+s)))
	}
	for _, f := range forms {
		fmtErr := "promote: fetching origin: 401: Authorization: Basic " + f + " (see --help)\n"
		buf.Reset()
		if _, err := ios.ErrOut.Write([]byte(fmtErr)); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(buf.String(), f) {
			t.Errorf("%q reached stderr: %q", f, buf.String())
		}
		if !strings.Contains(buf.String(), "promote: fetching origin: 401") {
			t.Errorf("the message lost its words: %q", buf.String())
		}
	}
	buf.Reset()
	ios.ErrOut.Write([]byte("\rrendering 3/10"))
	if buf.String() != "\rrendering 3/10" {
		t.Errorf("a progress line changed: %q", buf.String())
	}
}

// A remote's userinfo is masked whichever way the repository is named:
// from inside it (load reads the working directory's config, and
// AddGitRemotes does not read it again), by a subdirectory, or from
// outside it.
func TestGitRemotesMaskedFromInsideAndOutside(t *testing.T) {
	repo := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	if out, err := exec.Command("git", "-C", repo, "remote", "add", "origin", "https://oauth2:remote-Secret-12@gitlab.example.com/g/r.git").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	sub := filepath.Join(repo, "envs", "prod")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, cwd, dir string }{
		{"inside, --repo unset", repo, "."},
		{"inside, --repo a subdirectory", repo, "envs/prod"},
		{"a subdirectory, --repo the root", sub, repo},
		{"outside", t.TempDir(), repo},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(tc.cwd)
			var buf bytes.Buffer
			ios := Guard(&IOStreams{ErrOut: &buf}, func(string) string { return "" })
			ios.Secrets.AddGitRemotes(tc.dir)
			ios.ErrOut.Write([]byte("promote: pushing: token remote-Secret-12 refused\n"))
			if strings.Contains(buf.String(), "remote-Secret-12") || !strings.Contains(buf.String(), "promote: pushing: token") {
				t.Errorf("stderr: %q", buf.String())
			}
		})
	}
}

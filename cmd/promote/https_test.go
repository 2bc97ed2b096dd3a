package main

import (
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/testutil/gitserver"
)

const (
	goodToken  = "glpat-good-TOKEN-0123456789"
	wrongToken = "glpat-wrong-TOKEN-9876543210"
)

// httpsFleet is the example fleet whose origin is served over HTTPS by
// the real git http-backend, behind token auth. userinfo, if set, is
// embedded in the origin URL.
func httpsFleet(t *testing.T, userinfo string) (*fleet, *gitserver.Server) {
	t.Helper()
	f := newFleet(t)
	srv := gitserver.New(t, f.Remote, goodToken, gitserver.WithTLS())
	url := srv.URL
	if user, pass, ok := strings.Cut(userinfo, ":"); ok {
		url = srv.URLWithCredentials(user, pass)
	}
	gitRun(t, f.Dir, "remote", "set-url", "origin", url)
	return f, srv
}

// TestHTTPSPushWithToken pushes through promote over HTTPS (the binary
// verifies the test server's certificate via SSL_CERT_FILE): the token
// comes from GIT_TOKEN, GITLAB_TOKEN or the remote URL, and whatever
// happens no token is printed or written into the repository.
func TestHTTPSPushWithToken(t *testing.T) {
	tests := []struct {
		name     string
		env      []string
		userinfo string // embedded in the origin URL
		wantCode int
	}{
		{name: "GIT_TOKEN", env: []string{"GIT_TOKEN=" + goodToken}},
		{name: "GITLAB_TOKEN", env: []string{"GITLAB_TOKEN=" + goodToken}},
		{name: "GIT_TOKEN wins over GITLAB_TOKEN", env: []string{"GIT_TOKEN=" + goodToken, "GITLAB_TOKEN=" + wrongToken}},
		{name: "wrong token", env: []string{"GIT_TOKEN=" + wrongToken}, wantCode: 1},
		{name: "no token", wantCode: 1},
		{name: "token in the remote URL", userinfo: "oauth2:" + goodToken},
		{name: "wrong token in the remote URL", userinfo: "oauth2:" + wrongToken, wantCode: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, srv := httpsFleet(t, tt.userinfo)
			before := gitRun(t, f.Remote, "rev-parse", "main")
			env := processEnv(t, append(tt.env, "SSL_CERT_FILE="+srv.CAFile)...)
			r := runPromote(t, f.Dir, env, "apply", "--from", "qa", "--to", "preprod", "--skip-chart-check", "--push", "--output", "json")
			if r.code != tt.wantCode {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tt.wantCode, r.out, r.errOut)
			}
			for _, secret := range []string{goodToken, wrongToken} {
				if strings.Contains(r.out+r.errOut, secret) {
					t.Errorf("output contains a token:\nstdout: %s\nstderr: %s", r.out, r.errOut)
				}
			}
			if tt.userinfo == "" {
				checkNoTokenOnDisk(t, filepath.Join(f.Dir, ".git"))
			}
			remote := gitRun(t, f.Remote, "rev-parse", "main")
			if tt.wantCode != 0 {
				if remote != before {
					t.Errorf("remote main moved to %s", remote)
				}
				// apply fetches before it commits (to compare the source
				// environment): a refused token leaves no commit behind.
				if head := gitRun(t, f.Dir, "rev-parse", "HEAD"); head != before {
					t.Errorf("local HEAD moved to %s", head)
				}
				lines := strings.Split(strings.TrimSpace(r.errOut), "\n")
				last := lines[len(lines)-1]
				if !strings.Contains(last, "authentication required") || !strings.Contains(last, "nothing was committed") {
					t.Errorf("last stderr line %q should say authentication failed and nothing was committed", last)
				}
				return
			}
			res := decodeResult(t, r)
			if head := gitRun(t, f.Dir, "rev-parse", "HEAD"); !res.Pushed || res.Commit != head || remote != head {
				t.Errorf("pushed %v commit %s; local HEAD %s, remote main %s", res.Pushed, res.Commit, head, remote)
			}
		})
	}
}

// checkNoTokenOnDisk: a token from the environment must not end up in
// the git dir (config, FETCH_HEAD, logs...).
func checkNoTokenOnDisk(t *testing.T, gitDir string) {
	t.Helper()
	filepath.WalkDir(gitDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(path, "objects") {
			return err
		}
		data, err := os.ReadFile(path)
		if err == nil && (strings.Contains(string(data), goodToken) || strings.Contains(string(data), wrongToken)) {
			t.Errorf("%s holds a token", path)
		}
		return err
	})
}

// TestHTTPSPushRace: someone pushes over HTTPS after the clone was made;
// promote sees it in the fetch it makes before committing, rebuilds on
// their commit and lands with its first push. Then another pipeline's push
// lands between promote's fetch and its push: the push is rejected, and
// the fetch, rebuild and second push all go over HTTPS.
func TestHTTPSPushRace(t *testing.T) {
	f := newFleet(t)
	other := f.clone(t, "other", "Other Pipeline")
	racer := f.clone(t, "racer", "Racing Pipeline")
	var race atomic.Bool
	var racerCommit atomic.Value
	// On the first push while race is set, another pipeline's push lands
	// (straight into the bare repository) after promote has fetched.
	srv := gitserver.New(t, f.Remote, goodToken, gitserver.WithTLS(), gitserver.WithWrap(func(backend http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/git-receive-pack") && race.CompareAndSwap(true, false) {
				racerCommit.Store(racerPush(t, racer, f.Remote))
			}
			backend.ServeHTTP(w, r)
		})
	}))
	gitRun(t, f.Dir, "remote", "set-url", "origin", srv.URL)
	gitEnvs := processEnv(t, "GIT_SSL_CAINFO="+srv.CAFile)
	gitEnv(t, other, gitEnvs, "remote", "set-url", "origin", srv.URLWithCredentials(gitserver.User, goodToken))
	// editAndPush uses the inherited environment, which lacks the CA.
	p := filepath.Join(other, "envs/preprod/common.yaml")
	data, _ := os.ReadFile(p)
	if err := os.WriteFile(p, []byte(strings.Replace(string(data), "logLevel: debug", "logLevel: warn", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	gitEnv(t, other, gitEnvs, "commit", "-qam", "tune preprod logging")
	gitEnv(t, other, gitEnvs, "push", "-q", "origin", "main")
	theirs := gitRun(t, f.Remote, "rev-parse", "main")

	env := processEnv(t, "GIT_TOKEN="+goodToken, "SSL_CERT_FILE="+srv.CAFile)
	r := runPromote(t, f.Dir, env, "apply", "--from", "qa", "--to", "preprod", "--skip-chart-check", "--push", "--output", "json")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.errOut)
	}
	res := decodeResult(t, r)
	if !res.Pushed || res.Attempts != 1 {
		t.Errorf("pushed %v in %d attempts, want pushed in 1", res.Pushed, res.Attempts)
	}
	if tip := gitRun(t, f.Remote, "rev-parse", "main"); tip != res.Commit {
		t.Errorf("remote main %s, want the promotion %s", tip, res.Commit)
	}
	if parent := gitRun(t, f.Remote, "rev-parse", "main~1"); parent != theirs {
		t.Errorf("promotion parent %s, want their commit %s", parent, theirs)
	}
	if st := gitRun(t, f.Dir, "status", "--porcelain"); st != "" {
		t.Errorf("work tree not in step after the rebuild:\n%s", st)
	}
	if strings.Contains(r.out+r.errOut, goodToken) {
		t.Errorf("output contains the token:\n%s\n%s", r.out, r.errOut)
	}

	// A push that races promote's own, between its fetch and its push:
	// the rejection, fetch and rebuild all go over HTTPS.
	race.Store(true)
	r = runPromote(t, f.Dir, env, "pin", "--env", "qa", "gateway.imageTag=v1.11", "--skip-chart-check", "--push", "--output", "json")
	if r.code != 0 {
		t.Fatalf("pin: exit %d\nstderr: %s", r.code, r.errOut)
	}
	if res := decodeResult(t, r); !res.Pushed || res.Attempts != 2 {
		t.Errorf("pin: pushed %v in %d attempts, want pushed in 2\nstderr: %s", res.Pushed, res.Attempts, r.errOut)
	}
	theirs, _ = racerCommit.Load().(string)
	if parent := gitRun(t, f.Remote, "rev-parse", "main~1"); parent != theirs {
		t.Errorf("pin parent %s, want their commit %s", parent, theirs)
	}
	if st := gitRun(t, f.Dir, "status", "--porcelain"); st != "" {
		t.Errorf("work tree not in step after the rebuild:\n%s", st)
	}
}

// racerPush pulls and pushes one more preprod logging change from dir
// over file://, and returns the remote's new tip. It runs on the test
// server's goroutine, so it reports failures without stopping the test.
func racerPush(t *testing.T, dir, remote string) string {
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("racing pipeline: git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("pull", "-q", "--ff-only", "file://"+remote, "main")
	p := filepath.Join(dir, "envs/preprod/common.yaml")
	data, err := os.ReadFile(p)
	if err == nil {
		err = os.WriteFile(p, append(data, "# racing pipeline\n"...), 0o644)
	}
	if err != nil {
		t.Errorf("racing pipeline: %v", err)
	}
	git("commit", "-qam", "racing change")
	git("push", "-q", "file://"+remote, "HEAD:main")
	return git("rev-parse", "HEAD")
}

package clitest

import (
	"encoding/base64"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Plant is a credential planted where a command finds credentials: an
// environment variable, one of Helm's, docker's or git's files, or a git
// remote URL.
type Plant struct {
	Source, User, Value string
}

// RemotePlant is the password of the git remote URL PlantCredentials sets:
// it holds '/' and a space, which make URL parsing fail.
const RemotePlant = "Plant/Remote J10"

// PlantCredentials writes a credential into every file a command reads
// under home, sets one in the remote "origin" of the repository at repo,
// and returns them all with the environment (PATH, HOME and the token
// variables) that carries the rest. gitlabToken is the GitLab token, which
// a GitLab double must accept.
func PlantCredentials(t *testing.T, home, repo, gitlabToken string) ([]Plant, []string) {
	t.Helper()
	plants := []Plant{
		{"GIT_TOKEN", "oauth2", "Plant-GitTok-A1b2"},
		{"GITLAB_TOKEN", "oauth2", gitlabToken},
		{"CI_JOB_TOKEN", "gitlab-ci-token", "Plant-JobTok-C3d4"},
		{"HELM_REPO_PASSWORD", "robot", "Plant-HelmPw-D4e5"},
		{"~/.git-credentials", "gituser", "Plant-GitCred-E5f6"},
		{"~/.netrc", "netuser", "Plant-Netrc-F6g7"},
		{"repositories.yaml", "repouser", "Plant-RepoPw-G7h8"},
		{"helm registry config", "reguser", "Plant-RegPw-H8i9"},
		{"docker config identitytoken", "", "Plant-DockerTok-I9j0"},
		{"git remote URL", "oauth2", RemotePlant},
	}
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(home, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(".git-credentials", "https://gituser:Plant-GitCred-E5f6@git.example.com\n")
	write(".netrc", "machine n.example.com\n  login netuser\n  password Plant-Netrc-F6g7\n")
	write(".config/helm/repositories.yaml", "repositories:\n- name: stable\n  url: https://charts.example.com\n  username: repouser\n  password: Plant-RepoPw-G7h8\n")
	write(".config/helm/registry/config.json", `{"auths":{"registry.example.com":{"auth":"`+
		base64.StdEncoding.EncodeToString([]byte("reguser:Plant-RegPw-H8i9"))+`"}}}`)
	write(".docker/config.json", `{"auths":{"docker.example.com":{"identitytoken":"Plant-DockerTok-I9j0"}}}`)
	cmd := exec.Command("git", "remote", "set-url", "origin", "https://oauth2:"+RemotePlant+"@127.0.0.1:9/group/fleet.git")
	cmd.Dir = repo
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git remote set-url: %v\n%s", err, out)
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C",
		"GIT_TOKEN=Plant-GitTok-A1b2", "GITLAB_TOKEN=" + gitlabToken, "CI_JOB_TOKEN=Plant-JobTok-C3d4",
		"HELM_REPO_USERNAME=robot", "HELM_REPO_PASSWORD=Plant-HelmPw-D4e5", "HELM_REPO_URL=https://charts.example.com"}
	return plants, env
}

// Forms are the ways a planted credential could show: as it is, in
// either case, URL-escaped, base64 alone and as basic auth.
func (p Plant) Forms() []string {
	v := p.Value
	return []string{v, strings.ToUpper(v), strings.ToLower(v), url.QueryEscape(v), url.PathEscape(v),
		base64.StdEncoding.EncodeToString([]byte(v)), base64.RawURLEncoding.EncodeToString([]byte(v)),
		base64.StdEncoding.EncodeToString([]byte(p.User + ":" + v)), base64.StdEncoding.EncodeToString([]byte("oauth2:" + v))}
}

// NoPlant fails for every form of every plant in text.
func NoPlant(t *testing.T, plants []Plant, what, text string) {
	t.Helper()
	for _, p := range plants {
		for _, f := range p.Forms() {
			if strings.Contains(text, f) {
				t.Errorf("%s: the %s credential shows as %q:\n%s", what, p.Source, f, text)
			}
		}
	}
}

package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/cmd/internal/clitest"
)

// TestEchoedKubeCredentialsNeverShow: --live against an API server (or a
// proxy before it) that answers 500 quoting the request's Authorization
// header. The env's live diff fails with that answer; the kubeconfig's
// token, given inline (KUBECONFIG) or returned by an exec plugin
// (--kubeconfig), shows in none of the output formats nor on stderr.
func TestEchoedKubeCredentialsNeverShow(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	const (
		token   = "Kube-Token-Plant-Z1x2"
		execTok = "Kube-Exec-Plant-C3v4"
	)
	bin := buildManifestdiff(t)
	echo := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "echo: "+r.Header.Get("Authorization"), http.StatusInternalServerError)
	}))
	t.Cleanup(echo.Close)
	dir := t.TempDir()
	plugin := filepath.Join(dir, "kube-login")
	writeHome(t, dir, "kube-login", "#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\""+execTok+"\"}}'\n")
	if err := os.Chmod(plugin, 0o755); err != nil {
		t.Fatal(err)
	}
	kubeconfig := func(name, user string) string {
		writeHome(t, dir, name, "apiVersion: v1\nkind: Config\ncurrent-context: qa\n"+
			"clusters:\n- name: qa\n  cluster: {server: '"+echo.URL+"', insecure-skip-tls-verify: true}\n"+
			"contexts:\n- name: qa\n  context: {cluster: qa, user: robot}\n"+
			"users:\n- name: robot\n  user:\n    "+user+"\n")
		return filepath.Join(dir, name)
	}
	tokenConfig := kubeconfig("token.yaml", "token: "+token)
	execConfig := kubeconfig("exec.yaml", "exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: "+plugin+"\n      interactiveMode: Never")

	f := newFleet(t)
	data, err := os.ReadFile(filepath.Join(f.Dir, ".promote.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	f.write(t, ".promote.yaml", string(data)+"live: [qa]\n")
	f.commit(t, "qa's cluster may be compared")
	base, head := f.scenario(t)
	for _, tc := range []struct {
		name  string
		args  []string
		env   string
		plant clitest.Plant
	}{
		{"token from KUBECONFIG", nil, "KUBECONFIG=" + tokenConfig, clitest.Plant{Source: "kubeconfig token", Value: token}},
		{"exec plugin from --kubeconfig", []string{"--kubeconfig", execConfig}, "", clitest.Plant{Source: "exec plugin token", Value: execTok}},
	} {
		for _, format := range []string{"diff", "markdown", "json", "html"} {
			t.Run(tc.name+"/"+format, func(t *testing.T) {
				args := append([]string{"--repo", f.Dir, "--base", base, "--head", head, "--cache-dir", t.TempDir(),
					"--live", "--env", "qa", "-o", format}, tc.args...)
				cmd := exec.Command(bin, args...)
				cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), tc.env}
				var out, errOut strings.Builder
				cmd.Stdout, cmd.Stderr = &out, &errOut
				if err := cmd.Run(); err == nil {
					t.Fatalf("exit 0 with a failing cluster\nstderr: %s", errOut.String())
				}
				if !strings.Contains(out.String(), "echo:") {
					t.Fatalf("the echoing server's answer is not in the %s report: the test proves nothing\nstdout: %s\nstderr: %s",
						format, out.String(), errOut.String())
				}
				clitest.NoPlant(t, []clitest.Plant{tc.plant}, "stdout", out.String())
				clitest.NoPlant(t, []clitest.Plant{tc.plant}, "stderr", errOut.String())
			})
		}
	}
}

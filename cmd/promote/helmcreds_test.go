package main

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/cmd/internal/clitest"
	"github.com/gitops-promote/gitops-promote/internal/testutil/chartsrv"
	"github.com/gitops-promote/gitops-promote/internal/testutil/tlsca"
)

// Helm's conventions for chart credentials and TLS, through the real
// promote binary: per-repository credentials and CA from repositories.yaml,
// registry credentials from Helm's registry config and docker's
// config.json (a credential helper included), the system's trust store,
// and HELM_REPO_USERNAME/HELM_REPO_PASSWORD only for HELM_REPO_URL.

const (
	helmUser = "helm-robot"
	helmPass = "Helm-Conv-Pass-Qz19"
)

// helmForms are the ways the password could show (clitest.Plant.Forms).
func helmForms() []string { return clitest.Plant{User: helmUser, Value: helmPass}.Forms() }

// pointCharts makes the fleet's apps use repoURL for their charts, the
// preprod gateway app gateURL, and commits.
func pointCharts(t *testing.T, f *fleet, repoURL, gateURL string) {
	t.Helper()
	manifests, _ := filepath.Glob(filepath.Join(f.Dir, "argocd", "*", "*.yaml"))
	for _, m := range manifests {
		to := repoURL
		if strings.HasSuffix(m, filepath.Join("preprod", "app-gateway.yaml")) {
			to = gateURL
		}
		data, _ := os.ReadFile(m)
		os.WriteFile(m, []byte(strings.ReplaceAll(string(data), f.Charts.URL, to)), 0o644)
	}
	gitRun(t, f.Dir, "commit", "-qam", "charts elsewhere")
}

func writeSecretFile(t *testing.T, p, s string) string {
	t.Helper()
	os.MkdirAll(filepath.Dir(p), 0o700)
	if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// noHelmSecret checks that nothing printed holds the password and that
// host (another repository) got none of it.
func noHelmSecret(t *testing.T, r result, others ...interface{ Seen() (int, []string) }) {
	t.Helper()
	for _, f := range helmForms() {
		if strings.Contains(r.out+r.errOut, f) {
			t.Errorf("%q printed:\n%s%s", f, r.out, r.errOut)
		}
	}
	for _, o := range others {
		n, creds := o.Seen()
		if n == 0 {
			t.Error("the other repository was never asked: the check proves nothing")
		}
		for _, c := range creds {
			for _, f := range helmForms() {
				if strings.Contains(c, f) {
					t.Errorf("the other repository got %q", c)
				}
			}
		}
	}
}

func TestHelmCredentialConventions(t *testing.T) {
	ca := tlsca.New(t)
	charts := chartsrv.Examples(t, "../../examples/charts")
	apply := []string{"apply", "--from", "qa", "--to", "preprod"}

	t.Run("repositories.yaml: credentials and CA file", func(t *testing.T) {
		f := newFleet(t)
		repo := chartsrv.NewRepo(t, charts, chartsrv.Options{CA: ca, User: helmUser, Pass: helmPass})
		other := chartsrv.NewRepo(t, charts, chartsrv.Options{})
		pointCharts(t, f, repo.URL, other.URL)
		home := t.TempDir()
		writeSecretFile(t, filepath.Join(home, ".config", "helm", "repositories.yaml"), fmt.Sprintf(
			"apiVersion: \"\"\nrepositories:\n- name: ledger\n  url: %s/\n  username: %s\n  password: %s\n  caFile: %s\n"+
				"  certFile: \"\"\n  keyFile: \"\"\n  insecure_skip_tls_verify: false\n  pass_credentials_all: false\n",
			repo.URL, helmUser, helmPass, ca.File))
		r := runPromote(t, f.Dir, processEnv(t, "HOME="+home), apply...)
		if r.code != 0 {
			t.Fatalf("exit %d\nstderr: %s", r.code, r.errOut)
		}
		if _, creds := repo.Seen(); len(creds) == 0 {
			t.Error("the repository got no credentials")
		}
		noHelmSecret(t, r, other)
	})

	t.Run("no CA: the repository cannot be reached, once", func(t *testing.T) {
		f := newFleet(t)
		repo := chartsrv.NewRepo(t, charts, chartsrv.Options{CA: ca, User: helmUser, Pass: helmPass})
		pointCharts(t, f, repo.URL, repo.URL)
		r := runPromote(t, f.Dir, processEnv(t, "HELM_REPO_USERNAME="+helmUser, "HELM_REPO_PASSWORD="+helmPass, "HELM_REPO_URL="+repo.URL), apply...)
		if r.code != 1 || !strings.Contains(r.errOut, "cannot reach chart repository") || !strings.Contains(r.errOut, "x509") {
			t.Errorf("exit %d, want 1 and an unreachable repository\nstderr: %s", r.code, r.errOut)
		}
		noHelmSecret(t, r)
	})

	t.Run("system trust store and HELM_REPO_URL", func(t *testing.T) {
		f := newFleet(t)
		repo := chartsrv.NewRepo(t, charts, chartsrv.Options{CA: ca, User: helmUser, Pass: helmPass})
		other := chartsrv.NewRepo(t, charts, chartsrv.Options{CA: ca})
		pointCharts(t, f, repo.URL, other.URL)
		r := runPromote(t, f.Dir, processEnv(t, "SSL_CERT_FILE="+ca.File, "HELM_REPO_USERNAME="+helmUser,
			"HELM_REPO_PASSWORD="+helmPass, "HELM_REPO_URL="+repo.URL), apply...)
		if r.code != 0 {
			t.Fatalf("exit %d\nstderr: %s", r.code, r.errOut)
		}
		noHelmSecret(t, r, other)
	})

	t.Run("the pair without HELM_REPO_URL goes nowhere", func(t *testing.T) {
		f := newFleet(t)
		repo := chartsrv.NewRepo(t, charts, chartsrv.Options{CA: ca, User: helmUser, Pass: helmPass})
		pointCharts(t, f, repo.URL, repo.URL)
		r := runPromote(t, f.Dir, processEnv(t, "SSL_CERT_FILE="+ca.File, "HELM_REPO_USERNAME="+helmUser, "HELM_REPO_PASSWORD="+helmPass), apply...)
		if r.code != 1 || !strings.Contains(r.errOut, "warning: HELM_REPO_USERNAME/HELM_REPO_PASSWORD are set without HELM_REPO_URL") ||
			!strings.Contains(r.errOut, "HELM_REPO_URL does not name this repository") {
			t.Errorf("exit %d, want 1, the warning and the reason\nstderr: %s", r.code, r.errOut)
		}
		noHelmSecret(t, r, repo)
	})

	t.Run("OCI: helm registry config, CA from an oci:// entry", func(t *testing.T) {
		f := newFleet(t)
		reg := chartsrv.NewRegistry(t, charts, chartsrv.Options{CA: ca, User: helmUser, Pass: helmPass})
		other := chartsrv.NewRegistry(t, charts, chartsrv.Options{CA: ca})
		pointCharts(t, f, reg.Host+"/charts", "oci://"+other.Host+"/charts")
		home := t.TempDir()
		auth := base64.StdEncoding.EncodeToString([]byte(helmUser + ":" + helmPass))
		writeSecretFile(t, filepath.Join(home, ".config", "helm", "registry", "config.json"), `{"auths":{"`+reg.Host+`":{"auth":"`+auth+`"}}}`)
		writeSecretFile(t, filepath.Join(home, ".config", "helm", "repositories.yaml"),
			"repositories:\n- {name: reg, url: 'oci://"+reg.Host+"', caFile: "+ca.File+"}\n- {name: other, url: 'oci://"+other.Host+"', caFile: "+ca.File+"}\n")
		r := runPromote(t, f.Dir, processEnv(t, "HOME="+home), apply...)
		if r.code != 0 {
			t.Fatalf("exit %d\nstderr: %s", r.code, r.errOut)
		}
		noHelmSecret(t, r, other)
	})

	t.Run("OCI: docker config with a credential helper", func(t *testing.T) {
		f := newFleet(t)
		reg := chartsrv.NewRegistry(t, charts, chartsrv.Options{CA: ca, User: helmUser, Pass: helmPass})
		pointCharts(t, f, "oci://"+reg.Host+"/charts", "oci://"+reg.Host+"/charts")
		bin := t.TempDir()
		writeSecretFile(t, filepath.Join(bin, "docker-credential-gp-test"), fmt.Sprintf(
			"#!/bin/sh\n[ \"$1\" = get ] || exit 2\n[ \"$(cat)\" = %q ] || { echo 'credentials not found in native keychain'; exit 1; }\n"+
				"printf '{\"Username\":%q,\"Secret\":%q}'\n", reg.Host, helmUser, helmPass))
		os.Chmod(filepath.Join(bin, "docker-credential-gp-test"), 0o755)
		docker := t.TempDir()
		writeSecretFile(t, filepath.Join(docker, "config.json"), `{"credHelpers":{"`+reg.Host+`":"gp-test"}}`)
		env := processEnv(t, "DOCKER_CONFIG="+docker, "SSL_CERT_FILE="+ca.File)
		env[0] = "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")
		r := runPromote(t, f.Dir, env, apply...)
		if r.code != 0 {
			t.Fatalf("exit %d\nstderr: %s", r.code, r.errOut)
		}
		if _, creds := reg.Seen(); len(creds) == 0 {
			t.Error("the registry got no credentials")
		}
		noHelmSecret(t, r)
	})
}

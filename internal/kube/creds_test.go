package kube

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/rest"

	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// echoServer is an API server (or a proxy before it) that answers every
// request with a 500 quoting its Authorization header.
func echoServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "echo: "+r.Header.Get("Authorization"), http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestKubeconfigCredentialsRemembered: whatever way the kubeconfig's user
// authenticates, the credential reaches Remember before Connect returns,
// so the error that echoes it comes out masked once cleaned.
func TestKubeconfigCredentialsRemembered(t *testing.T) {
	const (
		token   = "Kube-Token-Plant-Q1w2"
		fileTok = "Kube-TokenFile-Plant-E3r4"
		user    = "kube-admin"
		pass    = "Kube-Basic-Plant-T5y6"
		execTok = "Kube-Exec-Plant-U7i8"
		keyBody = "S3ViZS1DbGllbnQtS2V5LVBsYW50LU85cDA"
	)
	dir := t.TempDir()
	tokFile := filepath.Join(dir, "token")
	writeFile(t, tokFile, fileTok+"\n")
	plugin := filepath.Join(dir, "kube-login")
	writeFile(t, plugin, "#!/bin/sh\necho '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\""+execTok+"\"}}'\n")
	if err := os.Chmod(plugin, 0o755); err != nil {
		t.Fatal(err)
	}
	key := "-----BEGIN EC PRIVATE KEY-----\n" + keyBody + "\n-----END EC PRIVATE KEY-----\n"
	keyFile := filepath.Join(dir, "client.key")
	writeFile(t, keyFile, key)
	for _, tc := range []struct {
		name, user string
		secrets    []string // all must be masked
		echoed     string   // what the server's answer quotes
	}{
		{"token", "token: " + token, []string{token}, token},
		{"tokenFile", "tokenFile: " + tokFile, []string{fileTok}, fileTok},
		{"basic auth", "username: " + user + "\n    password: " + pass, []string{pass, base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))},
			base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))},
		{"exec plugin", "exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: " + plugin + "\n      interactiveMode: Never",
			[]string{execTok}, execTok},
		{"client key data and file", "token: " + token + "\n    client-key-data: " + base64.StdEncoding.EncodeToString([]byte(key)) +
			"\n- name: other\n  user:\n    client-key: " + keyFile, []string{token, keyBody, base64.StdEncoding.EncodeToString([]byte(key))}, token},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kc := filepath.Join(t.TempDir(), "config")
			writeFile(t, kc, "apiVersion: v1\nkind: Config\ncurrent-context: qa\n"+
				"clusters:\n- name: qa\n  cluster: {server: '"+echoServer(t)+"', insecure-skip-tls-verify: true}\n"+
				"contexts:\n- name: qa\n  context: {cluster: qa, user: robot}\n"+
				"users:\n- name: robot\n  user:\n    "+tc.user+"\n")
			var s scrub.Set
			_, err := Connect(context.Background(), Options{Kubeconfig: kc, Remember: s.AddCredential})
			if !errors.Is(err, ErrUnreachable) {
				t.Fatalf("err = %v, want ErrUnreachable", err)
			}
			if !strings.Contains(err.Error(), tc.echoed) {
				t.Fatalf("the error %q does not quote the echoed credential: the test proves nothing", err)
			}
			msg := s.Text(err.Error() + "\n" + strings.Join(tc.secrets, "\n"))
			for _, v := range tc.secrets {
				if strings.Contains(msg, v) {
					t.Errorf("%q shows in %q", v, msg)
				}
			}
		})
	}
}

func writeFile(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestServiceAccountTokenRemembered: in a pod, client-go's config names
// the service account's token file, which the kubeconfig never held;
// its content is remembered.
func TestServiceAccountTokenRemembered(t *testing.T) {
	const tok = "Kube-ServiceAccount-Plant-A9s8"
	f := filepath.Join(t.TempDir(), "token")
	writeFile(t, f, tok)
	var s scrub.Set
	rememberRest(&rest.Config{BearerTokenFile: f}, s.AddCredential)
	if got := s.Text("401: " + tok); strings.Contains(got, tok) {
		t.Errorf("the service account token shows: %q", got)
	}
}

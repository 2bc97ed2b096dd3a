// Package kubeserver starts a real Kubernetes API server for tests: etcd
// and kube-apiserver binaries built from the Go module proxy by
// scripts/kube-build.sh (`make test-live` builds and caches them and sets
// KUBE_ASSETS), on loopback ports, with RBAC authorization and a token
// file holding an admin and a restricted user.
package kubeserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Users of the token file. Admin is in system:masters; Restricted has no
// rights until a test binds a role to it.
const (
	Admin      = "admin"
	Restricted = "restricted"
)

// Server is a running API server.
type Server struct {
	URL    string // https://127.0.0.1:PORT
	CAFile string // the serving certificate, self-signed by the apiserver
	dir    string
	tokens map[string]string
}

// Start runs etcd and kube-apiserver until the test ends. KUBE_ASSETS (or
// KUBEBUILDER_ASSETS) must name the directory holding both binaries.
func Start(t testing.TB) *Server {
	t.Helper()
	assets := os.Getenv("KUBE_ASSETS")
	if assets == "" {
		assets = os.Getenv("KUBEBUILDER_ASSETS")
	}
	if assets == "" {
		t.Fatal("KUBE_ASSETS is not set: run `make test-live`, which builds kube-apiserver and etcd (scripts/kube-build.sh)")
	}
	dir := t.TempDir()
	s := &Server{dir: dir, tokens: map[string]string{Admin: randToken(t), Restricted: randToken(t)}}
	etcdURL := s.startEtcd(t, filepath.Join(assets, "etcd"))
	s.startAPIServer(t, filepath.Join(assets, "kube-apiserver"), etcdURL)
	return s
}

func (s *Server) startEtcd(t testing.TB, bin string) string {
	client, peer := freePort(t), freePort(t)
	clientURL := "http://127.0.0.1:" + client
	peerURL := "http://127.0.0.1:" + peer
	start(t, s.dir, "etcd", bin,
		"--name", "default",
		"--data-dir", filepath.Join(s.dir, "etcd"),
		"--listen-client-urls", clientURL, "--advertise-client-urls", clientURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "default="+peerURL,
		"--unsafe-no-fsync", "--log-level", "warn")
	waitFor(t, "etcd", func() error {
		resp, err := http.Get(clientURL + "/health")
		if err == nil {
			resp.Body.Close()
		}
		return err
	})
	return clientURL
}

func (s *Server) startAPIServer(t testing.TB, bin, etcdURL string) {
	port := freePort(t)
	key, pub := saKeys(t, s.dir)
	tokens := filepath.Join(s.dir, "tokens.csv")
	csv := fmt.Sprintf("%s,%s,1,\"system:masters\"\n%s,%s,2\n", s.tokens[Admin], Admin, s.tokens[Restricted], Restricted)
	if err := os.WriteFile(tokens, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	certs := filepath.Join(s.dir, "certs")
	// No endpoint reconciler: since 1.37 it refuses a loopback advertise
	// address, and nothing here reads the kubernetes Service's endpoints.
	start(t, s.dir, "kube-apiserver", bin,
		"--etcd-servers", etcdURL,
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1", "--secure-port", port,
		"--endpoint-reconciler-type", "none",
		"--cert-dir", certs,
		"--token-auth-file", tokens,
		"--authorization-mode", "RBAC",
		"--service-account-issuer", "https://kubernetes.default.svc",
		"--service-account-key-file", pub, "--service-account-signing-key-file", key,
		"--service-cluster-ip-range", "10.0.0.0/24",
		"--disable-admission-plugins", "ServiceAccount",
		"--allow-privileged")
	s.URL = "https://127.0.0.1:" + port
	s.CAFile = filepath.Join(certs, "apiserver.crt")
	waitFor(t, "kube-apiserver", func() error { return s.ready() })
}

// ready asks /readyz as the admin; the serving certificate exists once
// the server listens.
func (s *Server) ready() error {
	ca, err := os.ReadFile(s.CAFile)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/readyz", nil)
	req.Header.Set("Authorization", "Bearer "+s.tokens[Admin])
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/readyz: %s", resp.Status)
	}
	return nil
}

// Kubeconfig writes a kubeconfig with one context per user (named after
// the user) and a context "unreachable" whose server listens nowhere; the
// current context is the admin's.
func (s *Server) Kubeconfig(t testing.TB) string {
	t.Helper()
	var b bytes.Buffer
	fmt.Fprintf(&b, "apiVersion: v1\nkind: Config\ncurrent-context: %s\nclusters:\n", Admin)
	fmt.Fprintf(&b, "- name: test\n  cluster: {server: %q, certificate-authority: %q}\n", s.URL, s.CAFile)
	fmt.Fprintf(&b, "- name: nowhere\n  cluster: {server: %q, certificate-authority: %q}\n", "https://127.0.0.1:"+freePort(t), s.CAFile)
	b.WriteString("users:\n")
	for _, u := range []string{Admin, Restricted} {
		fmt.Fprintf(&b, "- name: %s\n  user: {token: %q}\n", u, s.tokens[u])
	}
	b.WriteString("contexts:\n")
	for _, u := range []string{Admin, Restricted} {
		fmt.Fprintf(&b, "- name: %s\n  context: {cluster: test, user: %s}\n", u, u)
	}
	fmt.Fprintf(&b, "- name: unreachable\n  context: {cluster: nowhere, user: %s}\n", Admin)
	p := filepath.Join(s.dir, "kubeconfig")
	if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Token returns a user's bearer token, for clients a test builds itself.
func (s *Server) Token(user string) string { return s.tokens[user] }

// start runs a binary until the test ends, its output in dir/<name>.log,
// shown when the test fails.
func start(t testing.TB, dir, name, bin string, args ...string) {
	t.Helper()
	logPath := filepath.Join(dir, name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		logf.Close()
		if t.Failed() {
			if out, err := os.ReadFile(logPath); err == nil {
				t.Logf("%s log (last 4 KiB):\n%s", name, tail(out, 4096))
			}
		}
	})
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// waitFor polls until ready answers, for at most two minutes: a loaded
// machine starts the apiserver slowly, and a timeout here is a failure.
func waitFor(t testing.TB, what string, ready func() error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var last error
	for {
		if last = ready(); last == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s not ready after 2 minutes: %v", what, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func freePort(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

func randToken(t testing.TB) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", b)
}

// saKeys writes the service account signing key pair the apiserver needs.
func saKeys(t testing.TB, dir string) (key, pub string) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKIXPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	key, pub = filepath.Join(dir, "sa.key"), filepath.Join(dir, "sa.pub")
	if err := os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pub, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return key, pub
}

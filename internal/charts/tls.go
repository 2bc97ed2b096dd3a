package charts

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"

	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// tlsSettings are a repository's TLS options from repositories.yaml.
type tlsSettings struct {
	caFile, certFile, keyFile string
	insecure                  bool
}

func (e Repository) tls() tlsSettings {
	return tlsSettings{caFile: e.CAFile, certFile: e.CertFile, keyFile: e.KeyFile, insecure: e.InsecureSkipTLSVerify}
}

// httpClient returns the client for a repository with these TLS settings:
// the shared one when there are none, else one per distinct setting,
// built from the shared client's transport. As Helm's NewClientTLS: a CA
// file replaces the system roots for that repository, a client
// certificate is presented when the server asks, and
// insecure_skip_tls_verify turns verification off for it alone.
func (c *Client) httpClient(ts tlsSettings) (*http.Client, error) {
	if ts == (tlsSettings{}) {
		return c.httpc, nil
	}
	c.tlsMu.Lock()
	defer c.tlsMu.Unlock()
	if hc, ok := c.tlsClients[ts]; ok {
		return hc, nil
	}
	base := c.HTTP
	if base == nil {
		base = defaultHTTPClient()
	}
	t, ok := base.Transport.(*http.Transport)
	if base.Transport == nil {
		t, ok = http.DefaultTransport.(*http.Transport), true
	}
	if !ok {
		return nil, fmt.Errorf("the HTTP client's transport cannot take a repository's TLS settings")
	}
	cfg, err := ts.config()
	if err != nil {
		return nil, err
	}
	t = t.Clone()
	t.TLSClientConfig = cfg
	hc := *base
	hc.Transport = t
	out := scrub.StripOnRedirect(&hc)
	c.tlsClients[ts] = out
	return out, nil
}

func (ts tlsSettings) config() (*tls.Config, error) {
	cfg := &tls.Config{InsecureSkipVerify: ts.insecure, MinVersion: tls.VersionTLS12} //nolint:gosec // the user's choice, per repository
	if ts.certFile != "" || ts.keyFile != "" {
		if ts.certFile == "" || ts.keyFile == "" {
			return nil, fmt.Errorf("a client certificate needs both certFile and keyFile")
		}
		cert, err := tls.LoadX509KeyPair(ts.certFile, ts.keyFile)
		if err != nil {
			return nil, fmt.Errorf("loading client certificate %s and key %s: %v", ts.certFile, ts.keyFile, certErr(err))
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	if ts.caFile != "" {
		pem, err := os.ReadFile(ts.caFile)
		if err != nil {
			return nil, fmt.Errorf("reading CA file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA file %s holds no PEM certificate", ts.caFile)
		}
		cfg.RootCAs = pool
	}
	return cfg, nil
}

// certErr keeps crypto/tls's reason without the bytes of a key file.
func certErr(err error) error {
	if os.IsNotExist(err) || os.IsPermission(err) {
		return err
	}
	return fmt.Errorf("not a PEM certificate and matching private key")
}

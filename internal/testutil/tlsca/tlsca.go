// Package tlsca is a private certificate authority for tests: servers on
// loopback whose certificates no system trusts, and client certificates,
// all written as PEM files the way a user keeps them for Helm's caFile,
// certFile and keyFile.
package tlsca

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// CA is one private authority.
type CA struct {
	cert   *x509.Certificate
	key    *ecdsa.PrivateKey
	dir    string
	File   string // the CA certificate, PEM
	serial int64
}

// New makes a CA whose files live in a temporary directory of t.
func New(t testing.TB) *CA {
	t.Helper()
	ca := &CA{dir: t.TempDir(), serial: 1}
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(ca.serial), Subject: pkix.Name{CommonName: "gitops-promote test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca.cert, _ = x509.ParseCertificate(der)
	ca.key = key
	ca.File = ca.write(t, "ca.pem", "CERTIFICATE", der)
	return ca
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func (ca *CA) write(t testing.TB, name, typ string, der []byte) string {
	t.Helper()
	p := filepath.Join(ca.dir, name)
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// issue signs a leaf certificate for names (IP addresses or DNS names).
func (ca *CA) issue(t testing.TB, usage x509.ExtKeyUsage, cn string, names ...string) (tls.Certificate, []byte, *ecdsa.PrivateKey) {
	t.Helper()
	ca.serial++
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(ca.serial), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, der, key
}

// Pool is a pool holding the CA alone.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

// ClientFiles issues a client certificate and writes it and its key as
// PEM files: Helm's certFile and keyFile.
func (ca *CA) ClientFiles(t testing.TB, name string) (certFile, keyFile string) {
	t.Helper()
	_, der, key := ca.issue(t, x509.ExtKeyUsageClientAuth, name)
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return ca.write(t, name+".crt", "CERTIFICATE", der), ca.write(t, name+".key", "EC PRIVATE KEY", kder)
}

// StartTLS starts srv over TLS with a certificate of ca for 127.0.0.1 and
// localhost; with requireClient, only clients presenting a certificate of
// ca are served.
func (ca *CA) StartTLS(t testing.TB, srv *httptest.Server, requireClient bool) {
	t.Helper()
	cert, _, _ := ca.issue(t, x509.ExtKeyUsageServerAuth, "localhost", "127.0.0.1", "::1", "localhost")
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if requireClient {
		srv.TLS.ClientAuth = tls.RequireAndVerifyClientCert
		srv.TLS.ClientCAs = ca.Pool()
	}
	// a client that does not trust ca is a case tests make on purpose
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
}

package charts

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"syscall"
)

// ErrUnreachable: the repository or registry could not be reached at all
// (connection refused or reset, DNS, TLS, timeout), so nothing is known
// about the chart. The concrete error is an *UnreachableError. It is not
// ErrVersionNotFound: the version may well be there.
var ErrUnreachable = errors.New("chart repository unreachable")

// UnreachableError names the repository, the host that did not answer
// (the repository's, or a download host its index points to) and the
// network error.
type UnreachableError struct {
	Repo string // repository URL, without credentials
	Host string // host[:port] that could not be reached
	Err  error
}

func (e *UnreachableError) Error() string {
	msg := fmt.Sprintf("cannot reach chart repository %s (%s): %v", e.Repo, e.Host, e.Err)
	if untrusted(e.Err) {
		msg += "; if a private CA signs its certificate, name the CA file as caFile in Helm's repositories.yaml, or in SSL_CERT_FILE"
	}
	return msg
}

// untrusted: the server's certificate chain is not trusted here.
func untrusted(err error) bool {
	var (
		unknown x509.UnknownAuthorityError
		certErr *tls.CertificateVerificationError
	)
	if errors.As(err, &unknown) {
		return true
	}
	return errors.As(err, &certErr) && errors.As(certErr.Err, &unknown)
}

func (e *UnreachableError) Unwrap() []error { return []error{ErrUnreachable, e.Err} }

// reachError turns an http.Client error into an *UnreachableError when the
// request never got an answer; other errors (a cancelled context, a bad
// request) are returned as nil.
func reachError(r *repoRef, err error) error {
	if errors.Is(err, context.Canceled) || !unreachable(err) {
		return nil
	}
	host := r.base.Host
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil && u.Host != "" {
			host = u.Host
		}
		err = ue.Err
	}
	return &UnreachableError{Repo: r.display, Host: host, Err: err}
}

// unreachable: the network, not the server's answer, failed.
func unreachable(err error) bool {
	var (
		dns     *net.DNSError
		op      *net.OpError
		netErr  net.Error
		certErr *tls.CertificateVerificationError
		unknown x509.UnknownAuthorityError
		badHost x509.HostnameError
		invalid x509.CertificateInvalidError
		header  tls.RecordHeaderError
		alert   tls.AlertError
	)
	switch {
	case errors.As(err, &dns), errors.As(err, &op), errors.As(err, &certErr), errors.As(err, &unknown),
		errors.As(err, &badHost), errors.As(err, &invalid), errors.As(err, &header), errors.As(err, &alert):
		return true
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EHOSTUNREACH),
		errors.Is(err, syscall.ENETUNREACH), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return true
	case errors.As(err, &netErr) && netErr.Timeout():
		return true
	}
	return false
}

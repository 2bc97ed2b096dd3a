package charts

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestUnreachableRepository: a repository that never answers (nothing
// listening, a TLS certificate the client does not trust, a connection
// closed before any answer, a server slower than the client's timeout, an
// OCI registry that is down) is ErrUnreachable naming the repository and
// host, and never ErrVersionNotFound or ErrChartNotFound; a repository
// that answers 404 is not unreachable.
func TestUnreachableRepository(t *testing.T) {
	down := httptest.NewServer(nil)
	down.Close()
	untrusted := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(untrusted.Close)
	hangup := hangupServer(t)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	t.Cleanup(slow.Close)
	answers := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(answers.Close)
	fast := &http.Client{Timeout: 200 * time.Millisecond}

	tests := []struct {
		name, repoURL, wantErr string
		client                 *http.Client
		unreachable            bool
	}{
		{"connection refused", down.URL + "/charts", "connection refused", nil, true},
		{"untrusted certificate", untrusted.URL + "/charts", "certificate", nil, true},
		{"connection closed", "http://" + hangup + "/charts", "EOF", nil, true},
		{"timeout", slow.URL + "/charts", "Timeout", fast, true},
		{"oci registry down", "oci://" + strings.TrimPrefix(down.URL, "http://") + "/charts", "connection refused", nil, true},
		{"answers 404", answers.URL + "/charts", "answered 404", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Client{HTTP: tt.client}
			err := c.HasVersion(context.Background(), tt.repoURL, "podinfo", "6.0.0")
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("HasVersion = %v, want an error with %q", err, tt.wantErr)
			}
			var ue *UnreachableError
			if got := errors.As(err, &ue); got != tt.unreachable || errors.Is(err, ErrUnreachable) != tt.unreachable {
				t.Fatalf("unreachable = %v, want %v: %v", got, tt.unreachable, err)
			}
			if errors.Is(err, ErrVersionNotFound) || errors.Is(err, ErrChartNotFound) {
				t.Errorf("reported as a missing chart: %v", err)
			}
			if !tt.unreachable {
				return
			}
			display := tt.repoURL
			if ue.Repo != display || ue.Host == "" || !strings.Contains(tt.repoURL, ue.Host) {
				t.Errorf("repo %q host %q, want %q and its host", ue.Repo, ue.Host, display)
			}
			if !strings.HasPrefix(err.Error(), "cannot reach chart repository "+display+" ("+ue.Host+"): ") {
				t.Errorf("message %q", err)
			}
		})
	}
}

// A cancelled look-up is the caller's doing, not the repository's.
func TestCancelledIsNotUnreachable(t *testing.T) {
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	t.Cleanup(slow.Close)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	err := (&Client{}).HasVersion(ctx, slow.URL+"/charts", "podinfo", "6.0.0")
	if err == nil || errors.Is(err, ErrUnreachable) {
		t.Fatalf("HasVersion = %v, want a cancellation that is not ErrUnreachable", err)
	}
}

// hangupServer accepts connections and closes them without answering.
func hangupServer(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 1024)
			c.Read(buf)
			c.Close()
		}
	}()
	return l.Addr().String()
}

package gitlab

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// recorder is a server on another origin that logs everything it gets.
type recorder struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string // method, URL and every header of each request
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		var b strings.Builder
		b.WriteString(req.Method + " " + req.URL.String() + "\n")
		for k, vs := range req.Header {
			b.WriteString(k + ": " + strings.Join(vs, ",") + "\n")
		}
		r.seen = append(r.seen, b.String())
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id": 42, "path_with_namespace": "group/project"}`))
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

func tokenForms(tok string) []string {
	return []string{tok, base64.StdEncoding.EncodeToString([]byte("oauth2:" + tok)),
		base64.StdEncoding.EncodeToString([]byte(tok)), url.QueryEscape(tok)}
}

// TestTokenNeverLeavesForAnotherHost: GitLab (or a proxy in front of it)
// answering 302 to another host must not get the token sent there; Go
// strips only Authorization and Cookie.
func TestTokenNeverLeavesForAnotherHost(t *testing.T) {
	const token = "glpat-Redirect-Secret-123"
	for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusMovedPermanently} {
		foreign := newRecorder(t)
		front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			http.Redirect(w, req, foreign.URL+req.URL.Path, status)
		}))
		t.Cleanup(front.Close)
		c, err := New(Options{BaseURL: front.URL + "/api/v4", Token: token,
			Sleep: func(context.Context, time.Duration) error { return nil }})
		if err != nil {
			t.Fatal(err)
		}
		err = c.CheckProject(context.Background(), "42")
		if got := foreign.requests(); len(got) != 0 {
			t.Errorf("%d: the other host got %d request(s):\n%s", status, len(got), strings.Join(got, "\n"))
		}
		if err == nil || !strings.Contains(err.Error(), scrub.ErrOffOrigin.Error()) {
			t.Errorf("%d: error %v, want %q", status, err, scrub.ErrOffOrigin)
		}
		if err != nil {
			for _, f := range tokenForms(token) {
				if strings.Contains(err.Error(), f) {
					t.Errorf("%d: token form %q in %v", status, f, err)
				}
			}
			if !strings.Contains(err.Error(), strings.TrimPrefix(foreign.URL, "http://")) {
				t.Errorf("%d: error does not name the other host: %v", status, err)
			}
		}
	}
}

// TestEchoedCredentialsScrubbed: a server (or proxy) that echoes the
// request's credentials in its error body.
func TestEchoedCredentialsScrubbed(t *testing.T) {
	const token = "glpat-Echo-Secret-456"
	for _, status := range []int{http.StatusUnauthorized, http.StatusInternalServerError, http.StatusBadRequest, http.StatusConflict} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			echo := "PRIVATE-TOKEN " + req.Header.Get("Private-Token") +
				" as basic " + base64.StdEncoding.EncodeToString([]byte("oauth2:"+req.Header.Get("Private-Token"))) +
				" url " + url.QueryEscape(req.Header.Get("Private-Token"))
			body, _ := json.Marshal(map[string]string{"message": echo})
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			w.Write(body)
		}))
		t.Cleanup(srv.Close)
		c, err := New(Options{BaseURL: srv.URL + "/api/v4", Token: token, MaxRetries: 1,
			Sleep: func(context.Context, time.Duration) error { return nil }})
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.UpsertNote(context.Background(), MR{Project: "42", IID: 7}, testMarker, []string{"body"})
		if err == nil {
			t.Fatalf("%d: no error", status)
		}
		for _, f := range tokenForms(token) {
			if strings.Contains(err.Error(), f) {
				t.Errorf("%d: token form %q in %v", status, f, err)
			}
		}
	}
}

package git

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
)

func credentialForms(token string) []string {
	return []string{token, url.QueryEscape(token), base64.StdEncoding.EncodeToString([]byte("oauth2:" + token)),
		base64.StdEncoding.EncodeToString([]byte(token))}
}

// TestRemoteURLParseErrorsHideThePassword: a password holding '/', '#'
// or a space makes URL parsing fail, and url.Parse quotes the whole URL
// in its error.
func TestRemoteURLParseErrorsHideThePassword(t *testing.T) {
	for _, pw := range []string{"glpat/slash-secret", "glpat#hash-secret", "glpat space-secret", "glpat%zz-secret"} {
		raw := "https://oauth2:" + pw + "@gitlab.example.com/g/r.git"
		_, err := AuthFor(raw, "")
		if err == nil {
			continue // parsed: nothing to print
		}
		msg := err.Error()
		if !strings.Contains(msg, "parsing remote URL https://***@gitlab.example.com/g/r.git") {
			t.Errorf("%q: message does not name the scrubbed URL: %s", pw, msg)
		}
		for _, part := range []string{pw, strings.SplitN(pw, "/", 2)[0] + "/", "secret", url.QueryEscape(pw)} {
			if strings.Contains(msg, part) {
				t.Errorf("%q: %q in %s", pw, part, msg)
			}
		}
	}
	for _, raw := range []string{"https://oauth2:a/b-secret@host/r.git", "https://oauth2:a b-secret@host/r.git"} {
		if got := stripUserinfo(raw); strings.Contains(got, "secret") {
			t.Errorf("stripUserinfo(%q) = %q", raw, got)
		}
	}
}

// TestTokenNeverFollowsARedirectToAnotherHost: the git host redirects
// info/refs elsewhere; the other host never gets the token (go-git strips
// credentials when a redirect leaves the origin; this pins it).
func TestTokenNeverFollowsARedirectToAnotherHost(t *testing.T) {
	const token = "glpat-git-redirect-789"
	var mu sync.Mutex
	var seen []string
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.String()+" "+strings.Join(headerValues(r.Header), " "))
		mu.Unlock()
		w.Header().Set("WWW-Authenticate", `Basic realm="elsewhere"`)
		http.Error(w, "who are you", http.StatusUnauthorized)
	}))
	t.Cleanup(foreign.Close)
	redirect := func(backend http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, foreign.URL+r.URL.RequestURI(), http.StatusFound)
		})
	}
	dir, _ := httpClone(t, token, redirect)
	r := openRepo(t, dir)
	auth := &githttp.BasicAuth{Username: "oauth2", Password: token}
	head := revParse(t, dir, "HEAD")
	next := commitFiles(t, r, head, map[string]string{"a.txt": "a\n"}, "x")
	pushErr := r.Push(context.Background(), "origin", "main", next, auth)
	_, fetchErr := r.Fetch(context.Background(), "origin", "main", auth)
	if pushErr == nil || fetchErr == nil {
		t.Fatalf("push %v, fetch %v: want both to fail", pushErr, fetchErr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) == 0 {
		t.Fatal("the redirect was not followed: the test proves nothing")
	}
	for _, req := range seen {
		for _, f := range credentialForms(token) {
			if strings.Contains(req, f) {
				t.Errorf("the other host got %q: %s", f, req)
			}
		}
	}
	for _, err := range []error{pushErr, fetchErr} {
		for _, f := range credentialForms(token) {
			if strings.Contains(err.Error(), f) {
				t.Errorf("%q in %v", f, err)
			}
		}
	}
}

func headerValues(h http.Header) []string {
	var out []string
	for k, vs := range h {
		out = append(out, k+"="+strings.Join(vs, ","))
	}
	return out
}

// TestEchoedAuthorizationScrubbed: a server answering 401, 403, 404 or
// 500 with the request's Authorization header in its body. go-git puts
// the body of a 401, 403 and 404 in its error.
func TestEchoedAuthorizationScrubbed(t *testing.T) {
	const token = "glpat-git-echo-321"
	for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusInternalServerError} {
		echo := func(backend http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				u, p, _ := r.BasicAuth()
				w.WriteHeader(status)
				w.Write([]byte("denied\nAuthorization: " + r.Header.Get("Authorization") + "\nuser " + u + " password " + p +
					"\nquery " + url.QueryEscape(p) + "\n"))
			})
		}
		dir, _ := httpClone(t, token, echo)
		r := openRepo(t, dir)
		_, err := r.Fetch(context.Background(), "origin", "main", &githttp.BasicAuth{Username: "oauth2", Password: token})
		if err == nil {
			t.Fatalf("%d: fetch succeeded", status)
		}
		for _, f := range credentialForms(token) {
			if strings.Contains(err.Error(), f) {
				t.Errorf("%d: %q in %v", status, f, err)
			}
		}
	}
}

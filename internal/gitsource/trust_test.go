package gitsource

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A local repository is read only where the trusted configuration's
// localRepos names it; a relative path never.
func TestLocalReposAllowList(t *testing.T) {
	bare, commits := remote(t)
	ctx := context.Background()
	cases := []struct {
		name  string
		url   string
		allow []string
		ok    bool
	}{
		{"file URL, none allowed", "file://" + bare, nil, false},
		{"plain path, none allowed", bare, nil, false},
		{"relative path", "../" + filepath.Base(bare), []string{"file:///"}, false},
		{"allowed by its parent", "file://" + bare, []string{"file://" + filepath.Dir(bare) + "/"}, true},
		{"allowed exactly", bare, []string{"file://" + bare}, true},
		{"a sibling with the same prefix", "file://" + bare, []string{"file://" + bare[:len(bare)-1]}, false},
		{"dot-dot out of the allowed dir", "file://" + bare + "/../../" + filepath.Base(filepath.Dir(bare)), []string{"file://" + bare}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, _ := New(t.TempDir(), Credentials{})
			f.LocalRepos = c.allow
			_, commit, err := f.Open(ctx, c.url, "main", "")
			if c.ok && (err != nil || commit != commits["two"]) {
				t.Fatalf("allowed: %s %v", commit, err)
			}
			if !c.ok && !errors.Is(err, ErrLocalRepo) {
				t.Fatalf("refused: err = %v, want ErrLocalRepo", err)
			}
		})
	}
}

// ~/.netrc's default entry goes to the GitOps repository's own host only:
// an HTTP server on another host, as a merge request may name, receives
// no Authorization header.
func TestNetrcDefaultOnlyForTheRepoHost(t *testing.T) {
	var mu sync.Mutex
	var auths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auths = append(auths, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	home := t.TempDir()
	const pass = "Netrc-Default-Marker-9q"
	if err := os.WriteFile(filepath.Join(home, ".netrc"), []byte("machine gitlab.example.com login a password b\ndefault login u password "+pass+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, _ := New(t.TempDir(), Credentials{RepoURL: "https://gitlab.example.com/org/gitops.git", Home: home})
	_, _, err := f.Open(context.Background(), srv.URL+"/attacker.git", "main", "")
	if err == nil || strings.Contains(err.Error(), pass) {
		t.Fatalf("open: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auths) == 0 {
		t.Fatal("the server received no request")
	}
	for _, a := range auths {
		if a != "" {
			t.Errorf("a credential reached another host: Authorization %q", a)
		}
	}
	c := Credentials{RepoURL: srv.URL + "/gitops.git", Home: home}
	if u, p, ok := c.fromNetrc("127.0.0.1", c.tokenGoesTo("http", HostOf(srv.URL))); !ok || u != "u" || p != pass {
		t.Errorf("the repository's own host: %q %v, want the default entry", u, ok)
	}
}

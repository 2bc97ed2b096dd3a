package scrub

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// hops serves: /to-other redirects to other, /to-self to its own
// /landed, and records every credential header it sees.
type hops struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []string
}

func newHops(t *testing.T, other func() string) *hops {
	h := &hops{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		for _, k := range []string{"Authorization", "Private-Token", "X-Api-Key"} {
			if v := r.Header.Get(k); v != "" {
				h.seen = append(h.seen, r.URL.Path+" "+k+"="+v)
			}
		}
		h.mu.Unlock()
		switch r.URL.Path {
		case "/to-other":
			http.Redirect(w, r, other()+"/back-home", http.StatusFound)
		case "/to-self":
			http.Redirect(w, r, "/landed", http.StatusFound)
		case "/back-home":
			http.Redirect(w, r, other()+"/landed", http.StatusFound)
		default:
			w.Write([]byte("ok"))
		}
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hops) creds() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.seen...)
}

func request(t *testing.T, c *http.Client, u string) error {
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.SetBasicAuth("robot", "pw-secret")
	req.Header.Set("PRIVATE-TOKEN", "tok-secret")
	req.Header.Set("X-Api-Key", "key-secret")
	resp, err := c.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	return err
}

func TestStripOnRedirect(t *testing.T) {
	var a, b *hops
	a = newHops(t, func() string { return b.srv.URL })
	b = newHops(t, func() string { return a.srv.URL })
	c := StripOnRedirect(nil)
	// a -> b (another port: another origin) -> a/landed: sticky, nothing
	// comes back either
	if err := request(t, c, a.srv.URL+"/to-other"); err != nil {
		t.Fatal(err)
	}
	if got := b.creds(); len(got) != 0 {
		t.Errorf("other origin got %q", got)
	}
	for _, s := range a.creds() {
		if strings.HasPrefix(s, "/landed") {
			t.Errorf("credentials came back after leaving: %q", s)
		}
	}
	// same origin: credentials stay
	a.seen = nil
	if err := request(t, c, a.srv.URL+"/to-self"); err != nil {
		t.Fatal(err)
	}
	if got := a.creds(); len(got) != 6 {
		t.Errorf("same-origin redirect lost credentials: %q", got)
	}
}

func TestRefuseOffOrigin(t *testing.T) {
	var a, b *hops
	a = newHops(t, func() string { return b.srv.URL })
	b = newHops(t, func() string { return a.srv.URL })
	err := request(t, RefuseOffOrigin(nil), a.srv.URL+"/to-other")
	if !errors.Is(err, ErrOffOrigin) {
		t.Fatalf("err %v, want ErrOffOrigin", err)
	}
	if got := b.creds(); len(got) != 0 {
		t.Errorf("other origin got %q", got)
	}
	if err := request(t, RefuseOffOrigin(nil), a.srv.URL+"/to-self"); err != nil {
		t.Errorf("same-origin redirect refused: %v", err)
	}
}

func TestSameOrigin(t *testing.T) {
	u := func(s string) *url.URL { p, _ := url.Parse(s); return p }
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"https://h.example.com/x", "https://H.example.com:443/y", true},
		{"https://h.example.com", "http://h.example.com", false},
		{"https://h.example.com", "https://sub.h.example.com", false},
		{"http://127.0.0.1:80", "http://127.0.0.1", true},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8081", false},
	} {
		if got := SameOrigin(u(tc.a), u(tc.b)); got != tc.want {
			t.Errorf("SameOrigin(%s, %s) = %v", tc.a, tc.b, got)
		}
	}
}

// TestStripOnRedirectKeepsBodiesHome: a 307 or 308 resends a POST's body,
// which may be a credential (an OAuth2 refresh token form): off the
// origin that redirect is refused, on it followed; a 302 turns the POST
// into a GET without a body and is followed as any other.
func TestStripOnRedirectKeepsBodiesHome(t *testing.T) {
	const secret = "refresh_token=Rt-Body-Secret-81"
	var mu sync.Mutex
	var otherBodies []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		otherBodies = append(otherBodies, r.Method+" "+string(body))
		mu.Unlock()
		w.Write([]byte("ok"))
	}))
	t.Cleanup(other.Close)
	var homeBody string
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/307-other":
			http.Redirect(w, r, other.URL+"/x", http.StatusTemporaryRedirect)
		case "/308-other":
			http.Redirect(w, r, other.URL+"/x", http.StatusPermanentRedirect)
		case "/302-other":
			http.Redirect(w, r, other.URL+"/x", http.StatusFound)
		case "/307-self":
			http.Redirect(w, r, "/landed", http.StatusTemporaryRedirect)
		default:
			body, _ := io.ReadAll(r.Body)
			homeBody = string(body)
			w.Write([]byte("ok"))
		}
	}))
	t.Cleanup(home.Close)
	post := func(path string) error {
		resp, err := StripOnRedirect(nil).Post(home.URL+path, "application/x-www-form-urlencoded", strings.NewReader(secret))
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	for _, p := range []string{"/307-other", "/308-other"} {
		if err := post(p); !errors.Is(err, ErrOffOrigin) {
			t.Errorf("%s: %v, want ErrOffOrigin", p, err)
		}
	}
	if err := post("/302-other"); err != nil {
		t.Errorf("/302-other: %v", err)
	}
	if err := post("/307-self"); err != nil || homeBody != secret {
		t.Errorf("/307-self: %v, body %q: a same-origin redirect keeps the body", err, homeBody)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(otherBodies) != 1 || otherBodies[0] != "GET " {
		t.Errorf("the other origin got %q, want one GET without a body", otherBodies)
	}
}

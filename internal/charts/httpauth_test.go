package charts

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
)

func TestHTTPBasicAuth(t *testing.T) {
	const user, pass = "ci-bot", "s3cret-pa55"
	f := newHTTPFixture(t, user, pass)
	withUserinfo := func() string {
		u, _ := url.Parse(f.repoURL)
		u.User = url.UserPassword(user, pass)
		return u.String()
	}()
	tests := []struct {
		name    string
		auth    Auth
		repoURL string
		wantErr error
		wantMsg string
	}{
		{name: "no credentials", repoURL: f.repoURL, wantErr: ErrAuth, wantMsg: "helm repo add --username"},
		{name: "wrong password", auth: up(user, "wrong-pa55"), repoURL: f.repoURL, wantErr: ErrAuth, wantMsg: "were rejected"},
		{name: "right credentials", auth: up(user, pass), repoURL: f.repoURL},
		{name: "credentials in the url", repoURL: withUserinfo},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Client{Creds: pairFor(tt.auth, f.repoURL)}
			err := c.HasVersion(context.Background(), tt.repoURL, "podinfo", "6.2.0")
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("HasVersion = %v, want %v", err, tt.wantErr)
			}
			if err == nil {
				return
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.wantMsg) || !strings.Contains(msg, "401") {
				t.Errorf("error %q lacks %q and the status", msg, tt.wantMsg)
			}
			if strings.Contains(msg, pass) || strings.Contains(msg, "wrong-pa55") || strings.Contains(msg, "\n") {
				t.Errorf("error %q leaks a password or spans lines", msg)
			}
		})
	}
}

// An index may send downloads to another host; the repository password
// must not follow them there.
func TestHTTPCredentialsStayOnRepoHost(t *testing.T) {
	const user, pass = "ci-bot", "s3cret-pa55"
	f := newHTTPFixture(t, user, pass)
	ctx := context.Background()

	c := &Client{Creds: pairFor(up(user, pass), f.repoURL)}
	if _, err := c.Fetch(ctx, f.repoURL, "nginx", "1.0.0"); err != nil {
		t.Fatal(err)
	}
	if f.cdnHits.sawAuth(f.cdnPath) {
		t.Error("credentials were sent to the other host")
	}
	if _, err := c.Fetch(ctx, f.repoURL, "podinfo", "6.0.0"); err != nil {
		t.Fatal(err)
	}
	if !f.repoHits.sawAuth("/stable/charts/podinfo-6.0.0.tgz") {
		t.Error("no credentials sent to the repository's own host")
	}

	f2 := newHTTPFixture(t, user, pass)
	all := &Client{Creds: &Credentials{Repositories: []Repository{{Name: "stable", URL: f2.repoURL, Username: user, Password: pass, PassCredentialsAll: true}}}}
	if _, err := all.Fetch(ctx, f2.repoURL, "nginx", "1.0.0"); err != nil {
		t.Fatal(err)
	}
	if !f2.cdnHits.sawAuth(f2.cdnPath) {
		t.Error("pass_credentials_all did not send credentials to the other host")
	}
}

func TestRepoURLErrorsHidePasswords(t *testing.T) {
	tests := []struct{ name, repoURL string }{
		{"unsupported scheme", "ftp://user:hunter2@example.com/charts"},
		{"unparsable", "https://user:hunter2@exa mple.com/%zz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := (&Client{}).HasVersion(context.Background(), tt.repoURL, "x", "1.0.0")
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error %q leaks the password", err)
			}
		})
	}
}

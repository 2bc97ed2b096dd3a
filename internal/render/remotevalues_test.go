package render

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Value files and kustomize resources downloaded over http(s): the URL's
// own credentials stay on its host, never show in an error in any form,
// and size and time are bounded.

const (
	remoteUser = "robot"
	remotePass = "values-Pa55-Kk20"
)

func remoteForms() []string {
	return []string{remotePass, base64.StdEncoding.EncodeToString([]byte(remoteUser + ":" + remotePass)),
		base64.StdEncoding.EncodeToString([]byte(remotePass))}
}

func noRemoteSecret(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	for _, f := range remoteForms() {
		if strings.Contains(err.Error(), f) {
			t.Errorf("%q in %v", f, err)
		}
	}
}

func TestFetchURLRedirectElsewhere(t *testing.T) {
	var mu sync.Mutex
	var got []string
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Write([]byte("a: 1\n"))
	}))
	t.Cleanup(elsewhere.Close)
	other := strings.Replace(elsewhere.URL, "127.0.0.1", "localhost", 1)
	home := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, _ := r.BasicAuth(); u != remoteUser || p != remotePass {
			t.Errorf("the URL's own host did not get its credentials")
		}
		http.Redirect(w, r, other+"/values.yaml", http.StatusFound)
	}))
	t.Cleanup(home.Close)
	u := strings.Replace(home.URL, "http://", "http://"+remoteUser+":"+remotePass+"@", 1) + "/values.yaml"
	data, err := fetchURL(context.Background(), u)
	if err != nil || string(data) != "a: 1\n" {
		t.Fatalf("fetchURL = %q, %v", data, err)
	}
	if len(got) != 1 || got[0] != "" {
		t.Errorf("the other host got %q", got)
	}
}

// rawServer answers every connection with the status line and body
// reply builds from the request's Authorization header.
func rawServer(t *testing.T, reply func(authz string) string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				fmt.Fprint(c, reply(req.Header.Get("Authorization")))
			}()
		}
	}()
	return ln.Addr().String()
}

func TestFetchURLErrorsHideCredentials(t *testing.T) {
	addr := rawServer(t, func(authz string) string {
		_, b64, _ := strings.Cut(authz, " ")
		return "HTTP/1.1 401 denied " + authz + " " + remotePass + "\r\nContent-Length: 2\r\nX: " + b64 + "\r\n\r\nno"
	})
	for _, u := range []string{
		"http://" + remoteUser + ":" + remotePass + "@" + addr + "/values.yaml",
		"http://" + remoteUser + ":" + strings.Replace(remotePass, "-", "/", 1) + "@" + addr + "/values.yaml", // breaks parsing
	} {
		_, err := fetchURL(context.Background(), u)
		if err == nil {
			t.Fatalf("%s: no error", u)
		}
		noRemoteSecret(t, err)
		if strings.Contains(err.Error(), "Kk20") {
			t.Errorf("password in %v", err)
		}
	}
}

func TestFetchURLBounds(t *testing.T) {
	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(make([]byte, maxRemoteValues+1))
	}))
	t.Cleanup(big.Close)
	if _, err := fetchURL(context.Background(), big.URL+"/v.yaml"); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized file: %v", err)
	}

	silent := rawServer(t, func(string) string { time.Sleep(time.Minute); return "" })
	saved := remoteClient
	remoteClient = newRemoteClient(200*time.Millisecond, time.Minute)
	t.Cleanup(func() { remoteClient = saved })
	done := make(chan error, 1)
	go func() { _, err := fetchURL(context.Background(), "http://"+silent+"/v.yaml"); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "timeout") {
			t.Errorf("silent server: %v, want a timeout", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the download did not end at its bound")
	}
}

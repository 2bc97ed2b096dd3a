package charts

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"time"
)

// RegistryConfig is a docker-format credentials file: Helm's registry
// config (`helm registry login`) or docker's config.json (`docker login`).
type RegistryConfig struct {
	Path        string
	Auths       map[string]dockerAuth
	CredsStore  string            // a credential helper for every registry
	CredHelpers map[string]string // a credential helper per registry
}

// dockerAuth is one "auths" entry: "auth" is base64 of user:password;
// docker also reads the legacy username/password fields.
type dockerAuth struct {
	Auth          string `json:"auth"`
	Username      string `json:"username"`
	Password      string `json:"password"`
	IdentityToken string `json:"identitytoken"`
	RegistryToken string `json:"registrytoken"`
}

func (d dockerAuth) decode() (Auth, error) {
	a := Auth{Username: d.Username, Password: d.Password, IdentityToken: d.IdentityToken, RegistryToken: d.RegistryToken}
	if d.Auth != "" {
		raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(d.Auth))
		if err != nil {
			return Auth{}, errors.New(`its "auth" is not base64`)
		}
		user, pass, ok := strings.Cut(string(raw), ":")
		if !ok {
			return Auth{}, errors.New(`its "auth" is not base64 of user:password`)
		}
		a.Username, a.Password = user, pass
	}
	return a, nil
}

// LoadRegistryConfig reads a docker-format credentials file; a missing
// file is an empty config.
func LoadRegistryConfig(path string) (*RegistryConfig, error) {
	rc := &RegistryConfig{Path: path}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return rc, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading registry credentials: %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return rc, nil
	}
	var raw struct {
		Auths       map[string]dockerAuth `json:"auths"`
		CredsStore  string                `json:"credsStore"`
		CredHelpers map[string]string     `json:"credHelpers"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		// json's errors quote no input beyond a character, but name the
		// offset; the file holds passwords, so nothing else is shown.
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("reading registry credentials %s: invalid JSON at byte %d", path, se.Offset)
		}
		return nil, fmt.Errorf("reading registry credentials %s: not a docker config file (auths, credsStore, credHelpers)", path)
	}
	rc.Auths, rc.CredsStore, rc.CredHelpers = raw.Auths, raw.CredsStore, raw.CredHelpers
	for _, h := range append([]string{rc.CredsStore}, values(rc.CredHelpers)...) {
		if strings.ContainsAny(h, `/\`) || strings.HasPrefix(h, ".") {
			return nil, fmt.Errorf("reading registry credentials %s: credential helper %q is not a helper name", path, h)
		}
	}
	return rc, nil
}

func values(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// serverAddress is the key docker and oras store a registry host under:
// Docker Hub's is its legacy index URL.
func serverAddress(host string) string {
	if host == "docker.io" || host == "registry-1.docker.io" {
		return "https://index.docker.io/v1/"
	}
	return host
}

// hostOfKey reduces an "auths" key written as a URL by old docker
// versions ("https://registry.example.com/v1/") to its host.
func hostOfKey(key string) string {
	key = strings.TrimPrefix(strings.TrimPrefix(key, "http://"), "https://")
	key, _, _ = strings.Cut(key, "/")
	return key
}

// lookup returns the credentials stored for host, as docker and oras
// choose them: the registry's credential helper (credHelpers), else the
// default one (credsStore), else the "auths" entry. found is false when
// this file has none.
func (rc *RegistryConfig) lookup(ctx context.Context, host string) (a Auth, found bool, err error) {
	addr := serverAddress(host)
	helper := rc.CredHelpers[addr]
	if helper == "" {
		helper = rc.CredsStore
	}
	if helper != "" {
		return runHelper(ctx, helper, addr)
	}
	d, ok := rc.Auths[addr]
	if !ok {
		for k, v := range rc.Auths {
			if strings.EqualFold(hostOfKey(k), addr) {
				d, ok = v, true
				break
			}
		}
	}
	if !ok {
		return Auth{}, false, nil
	}
	a, err = d.decode()
	if err != nil {
		return Auth{}, false, fmt.Errorf("registry credentials %s for %s: %v", rc.Path, host, err)
	}
	a.Source = rc.Path
	return a, a.set(), nil
}

// helperTimeout bounds a credential helper: one that waits for a keychain
// prompt nobody answers must not hang a CI job.
const helperTimeout = time.Minute

// errHelperNotFound is the message helpers print when they hold nothing
// for the address (docker-credential-helpers' ErrCredentialsNotFound).
const errHelperNotFound = "credentials not found in native keychain"

// runHelper asks docker-credential-<name> for addr's credentials, as
// docker does: `get` with the address on stdin, JSON on stdout. The
// helper's stderr is not shown (it may prompt, or echo what it holds).
func runHelper(ctx context.Context, name, addr string) (Auth, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, helperTimeout)
	defer cancel()
	prog := "docker-credential-" + name
	cmd := exec.CommandContext(ctx, prog, "get")
	cmd.Stdin = strings.NewReader(addr)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	err := cmd.Run()
	out := bytes.TrimSpace(stdout.Bytes())
	if err != nil {
		if string(out) == errHelperNotFound {
			return Auth{}, false, nil
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) && ctx.Err() == nil {
			return Auth{}, false, fmt.Errorf("credential helper %s for %s failed (%s)", prog, addr, ee.ProcessState)
		}
		if ctx.Err() != nil {
			return Auth{}, false, fmt.Errorf("credential helper %s for %s: no answer within %s", prog, addr, helperTimeout)
		}
		return Auth{}, false, fmt.Errorf("credential helper %s for %s: %v", prog, addr, err)
	}
	var creds struct{ Username, Secret string }
	if err := json.Unmarshal(out, &creds); err != nil {
		return Auth{}, false, fmt.Errorf("credential helper %s for %s: its answer is not JSON", prog, addr)
	}
	a := Auth{Username: creds.Username, Password: creds.Secret, Source: "credential helper " + prog}
	if creds.Username == "<token>" {
		a = Auth{IdentityToken: creds.Secret, Source: a.Source}
	}
	return a, a.set(), nil
}

package kustomizehelm

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMain makes this test binary answer as the link Start creates, as
// cmd/manifestdiff's main does.
func TestMain(m *testing.M) {
	if code, handled := Main(os.Args); handled {
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// recorder is a Backend that records what it was asked.
type recorder struct {
	mu        sync.Mutex
	pulls     []Pull
	templates []Template
	fail      error
}

func (r *recorder) Version() string { return "v4.3.1" }

func (r *recorder) Pull(_ context.Context, p Pull) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.pulls = append(r.pulls, p)
	return r.fail
}

func (r *recorder) Template(_ context.Context, t Template) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.templates = append(r.templates, t)
	return []byte("kind: ConfigMap\n"), r.fail
}

// runHelm runs the link as kustomize does: a separate process, its
// standard output and error captured, the exit status checked.
func runHelm(t *testing.T, c *Command, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(c.Path, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), errb.String(), 0
	case errors.As(err, &exit):
		return out.String(), errb.String(), exit.ExitCode()
	}
	t.Fatalf("running %s: %v", c.Path, err)
	return "", "", 0
}

// TestCommandLines runs the link as a real process with the command
// lines kustomize's generator writes, and with lines it never writes,
// which fail loudly instead of being guessed at.
func TestCommandLines(t *testing.T) {
	r := &recorder{}
	c, err := Start(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	if out, _, code := runHelm(t, c, "version", "--short"); out != "v4.3.1\n" || code != 0 {
		t.Errorf("version --short: %q, exit %d", out, code)
	}
	_, _, code := runHelm(t, c, "pull", "--untar", "--untardir", "/tmp/h/charts/web-1.0.0", "--repo", "https://charts.example.org", "web",
		"--version", "1.0.0")
	_, _, code2 := runHelm(t, c, "pull", "--untar", "--untardir", "/tmp/h/charts", "oci://registry.example.org/charts/web", "--devel")
	out, _, code3 := runHelm(t, c, "template", "--generate-name", "/tmp/h/charts/web", "--namespace", "ns", "--name-template", "x",
		"-f", "/tmp/v.yaml", "-f", "/tmp/a.yaml,/tmp/b.yaml", "--api-versions", "a/v1", "--api-versions", "b/v1",
		"--kube-version", "1.31.4", "--include-crds", "--skip-tests", "--no-hooks", "--debug", "--devel")
	if code+code2+code3 != 0 || out != "kind: ConfigMap\n" {
		t.Fatalf("exit codes %d %d %d, template output %q", code, code2, code3, out)
	}
	wantPulls := []Pull{
		{Chart: "web", Repo: "https://charts.example.org", Version: "1.0.0", UntarDir: "/tmp/h/charts/web-1.0.0"},
		{Chart: "oci://registry.example.org/charts/web", Version: ">0.0.0-0", Devel: true, UntarDir: "/tmp/h/charts"},
	}
	wantTemplates := []Template{{Args: []string{"/tmp/h/charts/web"}, GenerateName: true, NameTemplate: "x", Namespace: "ns",
		ValueFiles: []string{"/tmp/v.yaml", "/tmp/a.yaml", "/tmp/b.yaml"}, APIVersions: []string{"a/v1", "b/v1"},
		KubeVersion: "1.31.4", IncludeCRDs: true, SkipTests: true, NoHooks: true, Debug: true, Devel: true}}
	if d := cmp.Diff(wantPulls, r.pulls); d != "" {
		t.Errorf("pulls (-want +got):\n%s", d)
	}
	if d := cmp.Diff(wantTemplates, r.templates); d != "" {
		t.Errorf("templates (-want +got):\n%s", d)
	}
	if err := c.Err(); err != nil {
		t.Errorf("Err() = %v after successful commands", err)
	}

	for _, args := range [][]string{
		{},
		{"install", "web", "./web"},
		{"version"},
		{"pull", "web", "--repo", "https://charts.example.org"}, // no --untar: would write a .tgz
		{"pull", "--untar", "a", "b"},
		{"template", "--show-only", "templates/x.yaml", "./web"},
		{"template", "--set", "a=b", "./web"},
		{"template"},
	} {
		out, errOut, code := runHelm(t, c, args...)
		if code != 1 || out != "" || !strings.HasPrefix(errOut, "Error: helm") {
			t.Errorf("helm %v: exit %d, stdout %q, stderr %q; want exit 1 and the reason", args, code, out, errOut)
		}
	}
	if err := c.Err(); err == nil || !strings.Contains(err.Error(), "helm : not served here") {
		t.Errorf("Err() = %v, want the first unserved command", err)
	}
}

// A failing backend makes helm exit 1 with its error on stderr, as helm
// does, and Err gives the error itself.
func TestBackendFailure(t *testing.T) {
	want := errors.New("chart web version 9.9.9 not found")
	c, err := Start(t.Context(), &recorder{fail: want})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, errOut, code := runHelm(t, c, "pull", "--untar", "--untardir", "/tmp/x", "--repo", "https://r.example.org", "web")
	if code != 1 || errOut != "Error: "+want.Error()+"\n" || !errors.Is(c.Err(), want) {
		t.Errorf("exit %d, stderr %q, Err() %v", code, errOut, c.Err())
	}
}

// A cancelled render fails the commands of its build at once.
func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	r := &recorder{}
	c, err := Start(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cancel()
	if _, _, code := runHelm(t, c, "template", "rel", "/tmp/web"); code != 1 || len(r.templates) != 0 || !errors.Is(c.Err(), context.Canceled) {
		t.Errorf("exit %d after cancel, %d templates run, Err() %v", code, len(r.templates), c.Err())
	}
}

// Close removes the link and the socket; a helm started afterwards says
// the build it belonged to is gone.
func TestClose(t *testing.T) {
	c, err := Start(t.Context(), &recorder{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(c.Path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("directory of the link after Close: %v", err)
	}
	var out, errb bytes.Buffer
	if code := forward(filepath.Join(filepath.Dir(c.Path), socketName), []string{"version", "--short"}, &out, &errb); code != 1 ||
		!strings.Contains(errb.String(), "the process that started this build is gone") {
		t.Errorf("forward after Close: exit %d, stderr %q", code, errb.String())
	}
}

// Only the link Start makes is handled: a binary merely named helm, or
// started any other way, runs as itself.
func TestMainOnlyForTheLink(t *testing.T) {
	for _, arg0 := range []string{"/usr/local/bin/helm", "helm", "/tmp/" + dirPrefix + "1/helm-not", "manifestdiff"} {
		if _, handled := Main([]string{arg0, "version", "--short"}); handled {
			t.Errorf("Main handled %q", arg0)
		}
	}
	if !Installed() {
		t.Error("Installed() is false after Main ran")
	}
}

// A $TMPDIR too deep for a socket path moves the directory to /tmp.
func TestDeepTempDir(t *testing.T) {
	deep := filepath.Join(t.TempDir(), strings.Repeat("d", 60), strings.Repeat("e", 60))
	if err := os.MkdirAll(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", deep)
	c, err := Start(t.Context(), &recorder{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if out, _, code := runHelm(t, c, "version", "--short"); code != 0 || out != "v4.3.1\n" || !strings.HasPrefix(c.Path, "/tmp/"+dirPrefix) {
		t.Errorf("link %s: exit %d, %q", c.Path, code, out)
	}
}

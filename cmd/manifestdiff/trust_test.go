package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// recorder is a loopback server that records what reaches it.
type recorder struct {
	*httptest.Server
	mu    sync.Mutex
	paths []string
	auths []string
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.paths = append(r.paths, req.URL.Path)
		r.auths = append(r.auths, req.Header.Get("Authorization"))
		r.mu.Unlock()
		w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) seen() ([]string, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.paths), slices.Clone(r.auths)
}

// runBin runs the built binary with only env (and PATH) in its
// environment and returns its exit status, stdout and stderr.
func runBin(t *testing.T, bin string, env []string, args ...string) (bool, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return err == nil, out.String(), errOut.String()
}

func appStatus(t *testing.T, out, app string) (string, string) {
	t.Helper()
	doc := parseJSON(t, out)
	for _, a := range doc.Apps {
		if a.Env+"/"+a.Name == app {
			return a.Status, a.Error
		}
	}
	t.Fatalf("no app %s in the report", app)
	return "", ""
}

// TestMergeRequestCannotSteerCredentials: a merge request that points
// .promote.yaml's repoURL at its own host and adds a source there gets
// no token: the host the tokens go to is the target branch's repoURL.
// The note says the setting takes effect after merge.
func TestMergeRequestCannotSteerCredentials(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	bin := buildManifestdiff(t)
	evil := newRecorder(t)
	f := newFleet(t)
	base := gitRun(t, f.Dir, "rev-parse", "HEAD")
	f.edit(t, ".promote.yaml", "https://gitlab.example.com/platform/ledger-fleet.git", evil.URL+"/gitops.git")
	f.write(t, "argocd/qa/app-evil.yaml", `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: evil-qa, namespace: argocd}
spec:
  project: default
  source: {repoURL: `+evil.URL+`/loot.git, targetRevision: main, path: x}
  destination: {server: https://kubernetes.default.svc, namespace: evil}
`)
	head := f.commit(t, "point the tokens at my host")
	const token, jobToken = "Trust-GitToken-Mk1", "Trust-JobToken-Mk2"
	env := []string{"GIT_TOKEN=" + token, "GITLAB_TOKEN=" + token, "CI_JOB_TOKEN=" + jobToken}
	for _, format := range []string{"json", "markdown"} {
		_, out, errOut := runBin(t, bin, env, "--repo", f.Dir, "--base", base, "--head", head, "--env", "qa",
			"--cache-dir", t.TempDir(), "-o", format)
		for _, v := range []string{token, jobToken} {
			if strings.Contains(out+errOut, v) {
				t.Errorf("%s: a token is in the output", format)
			}
		}
		if !strings.Contains(errOut, "repoURL") || !strings.Contains(errOut, "takes effect after merge") {
			t.Errorf("%s: stderr does not say the repoURL change waits for the merge:\n%s", format, errOut)
		}
		switch format {
		case "json":
			var doc struct {
				PendingSettings []string `json:"pendingSettings"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil || !slices.Equal(doc.PendingSettings, []string{"repoURL"}) {
				t.Errorf("pendingSettings = %q (%v), want [repoURL]", doc.PendingSettings, err)
			}
			if st, msg := appStatus(t, out, "qa/evil-qa"); st != "error" || !strings.Contains(msg, "127.0.0.1") {
				t.Errorf("the app on the other host: %s %q, want an error naming its host", st, msg)
			}
		case "markdown":
			first := strings.SplitN(out, "\n", 4)
			if len(first) < 3 || !strings.Contains(first[1], "`repoURL`") || !strings.Contains(first[1], "after merge") {
				t.Errorf("the note does not open with the pending setting:\n%s", strings.Join(first, "\n"))
			}
		}
	}
	paths, auths := evil.seen()
	if len(paths) == 0 {
		t.Fatal("the other host received no request: the test proves nothing")
	}
	for i, a := range auths {
		if a != "" {
			t.Errorf("request %s carried credentials", paths[i])
		}
	}
}

// TestMergeRequestCannotLoosenRenderers: kustomize's build options and
// the diff's ignore rules come from the target branch. A merge request
// that sets --load-restrictor LoadRestrictionsNone still builds with
// Argo CD's default (files outside the kustomization's root refused);
// one that adds an ignore rule over its own change still shows it. With
// the same settings on the target branch, both take effect: the test
// proves they would have.
func TestMergeRequestCannotLoosenRenderers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	bin := buildManifestdiff(t)
	const loosen = "argocd:\n  kustomize: {buildOptions: --load-restrictor LoadRestrictionsNone}\nignore: [data, spec, metadata]\n"
	for _, tc := range []struct {
		name    string
		trusted bool
	}{{"set by the merge request", false}, {"set on the target branch", true}} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFleet(t)
			f.write(t, "shared/extra.properties", "greeting=hello\n")
			f.write(t, "kust/qa/kustomization.yaml", "configMapGenerator:\n- name: extra\n  files: [../../shared/extra.properties]\n")
			f.write(t, "argocd/qa/app-kust.yaml", `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: kust-qa, namespace: argocd}
spec:
  project: default
  source: {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: kust/qa}
  destination: {server: https://kubernetes.default.svc, namespace: kust}
`)
			if tc.trusted {
				f.write(t, ".promote.yaml", f.read(t, ".promote.yaml")+loosen)
			}
			base := f.commit(t, "a kustomize app")
			if !tc.trusted {
				f.write(t, ".promote.yaml", f.read(t, ".promote.yaml")+loosen)
			}
			f.edit(t, "envs/qa/nodes/node-a/values-worker.yaml", "shard: a", "shard: a-2")
			f.write(t, "shared/extra.properties", "greeting=bye\n")
			head := f.commit(t, "loosen the renderers and hide my change")
			_, out, errOut := runBin(t, bin, nil, "--repo", f.Dir, "--base", base, "--head", head, "--env", "qa",
				"--cache-dir", t.TempDir(), "-o", "json")
			kust, msg := appStatus(t, out, "qa/kust-qa")
			worker, _ := appStatus(t, out, "qa/ledger-node-a-worker-qa")
			if tc.trusted {
				if kust != "changed" || worker != "unchanged" {
					t.Errorf("trusted settings: kust-qa %s (%s), node-a worker %s; want changed and unchanged (ignored)\n%s", kust, msg, worker, errOut)
				}
				return
			}
			if kust != "error" || !strings.Contains(msg, "extra.properties") {
				t.Errorf("kust-qa: %s %q, want the load restrictor's error", kust, msg)
			}
			if worker != "changed" {
				t.Errorf("node-a worker: %s, want changed: a merge request's ignore rule hid its change", worker)
			}
			if !strings.Contains(errOut, "argocd.kustomize.buildOptions, ignore") {
				t.Errorf("stderr does not name both pending settings:\n%s", errOut)
			}
		})
	}
}

// TestMergeRequestCannotPickTheCluster: the kubeconfig context --live uses
// for an env is the target branch's. A merge request naming another
// context (a prod-admin one) reaches only the target branch's cluster.
func TestMergeRequestCannotPickTheCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	bin := buildManifestdiff(t)
	good, evil := newRecorder(t), newRecorder(t)
	dir := t.TempDir()
	writeHome(t, dir, "kubeconfig", "apiVersion: v1\nkind: Config\ncurrent-context: qa\n"+
		"clusters:\n- name: qa\n  cluster: {server: '"+good.URL+"'}\n- name: prod\n  cluster: {server: '"+evil.URL+"'}\n"+
		"contexts:\n- name: qa\n  context: {cluster: qa, user: robot}\n- name: prod-admin\n  context: {cluster: prod, user: robot}\n"+
		"users:\n- name: robot\n  user: {token: Trust-Kube-Token-Mk3}\n")
	f := newFleet(t)
	f.write(t, ".promote.yaml", f.read(t, ".promote.yaml")+"live: [{env: qa, context: qa}]\n")
	base := f.commit(t, "qa's cluster may be compared")
	f.edit(t, ".promote.yaml", "context: qa}", "context: prod-admin}")
	head := f.commit(t, "compare with prod-admin instead")
	_, out, errOut := runBin(t, bin, []string{"KUBECONFIG=" + filepath.Join(dir, "kubeconfig")}, "--repo", f.Dir,
		"--base", base, "--head", head, "--env", "qa", "--live", "--cache-dir", t.TempDir(), "-o", "json")
	if strings.Contains(out+errOut, "Trust-Kube-Token-Mk3") {
		t.Error("the kubeconfig token is in the output")
	}
	if p, _ := good.seen(); len(p) == 0 {
		t.Errorf("the target branch's cluster received nothing: the test proves nothing\n%s", errOut)
	}
	if p, _ := evil.seen(); len(p) > 0 {
		t.Errorf("the merge request's context was used: %d requests reached it (%v)", len(p), p[:min(3, len(p))])
	}
	if !strings.Contains(errOut, "live") || !strings.Contains(errOut, "after merge") {
		t.Errorf("stderr does not say the live change waits for the merge:\n%s", errOut)
	}
}

// TestMergeRequestCannotReadLocalRepos: a source naming a repository on
// the job's machine (file:// or a path) is refused unless the target
// branch's localRepos lists it; ~/.netrc's default entry goes to no host
// a merge request names. Markers planted in the local repository and in
// the netrc password show nowhere, and the other host gets no credential.
func TestMergeRequestCannotReadLocalRepos(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	bin := buildManifestdiff(t)
	const marker, netrcPass = "Local-Repo-Marker-Zq5", "Netrc-Default-Marker-Wx6"
	outside := t.TempDir()
	work := filepath.Join(outside, "work")
	gitRun(t, outside, "init", "-q", "-b", "main", work)
	writeHome(t, work, "x/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: loot}\ndata: {k: "+marker+"}\n")
	gitRun(t, work, "-c", "user.name=a", "-c", "user.email=a@b", "add", "-A")
	gitRun(t, work, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "-m", "x")
	home := t.TempDir()
	writeHome(t, home, ".netrc", "default login u password "+netrcPass+"\n")
	evil := newRecorder(t)

	f := newFleet(t)
	base := gitRun(t, f.Dir, "rev-parse", "HEAD")
	app := func(name, url string) string {
		return "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: " + name + ", namespace: argocd}\n" +
			"spec:\n  project: default\n  source: {repoURL: '" + url + "', targetRevision: main, path: x}\n" +
			"  destination: {server: https://kubernetes.default.svc, namespace: x}\n"
	}
	f.write(t, "argocd/qa/app-fileurl.yaml", app("fileurl-qa", "file://"+work))
	f.write(t, "argocd/qa/app-path.yaml", app("path-qa", work))
	f.write(t, "argocd/qa/app-netrc.yaml", app("netrc-qa", evil.URL+"/loot.git"))
	head := f.commit(t, "read the runner's disk")
	cmd := exec.Command(bin, "--repo", f.Dir, "--base", base, "--head", head, "--env", "qa", "--cache-dir", t.TempDir(), "-o", "json")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	_ = cmd.Run()
	if strings.Contains(out.String()+errOut.String(), marker) || strings.Contains(out.String()+errOut.String(), netrcPass) {
		t.Error("a planted marker is in the output")
	}
	for _, name := range []string{"qa/fileurl-qa", "qa/path-qa"} {
		if st, msg := appStatus(t, out.String(), name); st != "error" || !strings.Contains(msg, "local repository not allowed") {
			t.Errorf("%s: %s %q, want the local repository refused", name, st, msg)
		}
	}
	paths, auths := evil.seen()
	if len(paths) == 0 {
		t.Fatal("the other host received no request: the test proves nothing")
	}
	for i, a := range auths {
		if a != "" {
			t.Errorf("request %s carried ~/.netrc's default credentials", paths[i])
		}
	}
}

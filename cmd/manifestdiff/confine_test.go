package main

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// confineMarker is planted outside the repository a merge request
// controls: in a file beside it, in $HOME's files and in the process's
// environment. It must show in no output of any format.
const confineMarker = "E2E-CONFINE-7c41d9"

// confineEnv is what the test puts outside the repository.
type confineEnv struct {
	home, outside, file string
	before              map[string]string
}

func plantOutside(t *testing.T) *confineEnv {
	t.Helper()
	c := &confineEnv{home: t.TempDir(), outside: t.TempDir()}
	c.file = filepath.Join(c.outside, "secret.txt")
	for p, data := range map[string]string{
		c.file: "token: " + confineMarker + "\n",
		filepath.Join(c.home, ".docker", "config.json"): `{"auths": {"r": {"auth": "` + confineMarker + `"}}}`,
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c.before = c.snapshot(t)
	return c
}

func (c *confineEnv) snapshot(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, root := range []string{c.home, c.outside} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				out[p] = "dir"
				return err
			}
			data, err := os.ReadFile(p)
			out[p] = string(data)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func (c *confineEnv) untouched(t *testing.T) {
	t.Helper()
	after := c.snapshot(t)
	if len(after) != len(c.before) {
		t.Errorf("files outside the repository: %d before, %d after", len(c.before), len(after))
	}
	for p, v := range after {
		if c.before[p] != v {
			t.Errorf("%s was created or changed outside the repository", p)
		}
	}
}

const confineApp = `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: NAME, namespace: argocd}
spec:
  project: ledger-qa
  source: {repoURL: https://gitlab.example.com/platform/ledger-fleet.git, targetRevision: main, path: envs/qa/NAME}
  destination: {server: https://kubernetes.default.svc, namespace: edge}
`

// confineFleet: the fleet with argocd-cm's kustomize.buildOptions
// --enable-helm --load-restrictor LoadRestrictionsNone at both revisions,
// and apps inflating a chart kept in the repository. At head, a merge
// request makes each of them reach out of the repository a different way.
func confineFleet(t *testing.T, c *confineEnv) (f *fleet, base, head string, want map[string]string) {
	f = newFleet(t)
	f.write(t, ".promote.yaml", f.read(t, ".promote.yaml")+
		"argocd:\n  kustomize:\n    buildOptions: --enable-helm --load-restrictor LoadRestrictionsNone\n")
	up := strings.Repeat("../", 24)
	chart := "helmCharts:\n- {name: local, releaseName: web}\n"
	heads := map[string]string{
		"environ":    chart + "configMapGenerator:\n- {name: env, files: [/proc/self/environ]}\n",
		"beside":     chart + "configMapGenerator:\n- {name: f, envs: [" + up + c.file[1:] + "]}\n",
		"chart-home": "helmGlobals: {chartHome: " + c.home + "}\nhelmCharts:\n- {name: .docker, releaseName: web}\n",
		"values":     "helmCharts:\n- {name: local, releaseName: web, additionalValuesFiles: [" + c.file + "]}\n",
		"chart-name": "helmCharts:\n- {name: ../../../../../../../../../.." + c.home + "/.docker, releaseName: web}\n",
	}
	want = map[string]string{
		"environ":    "outside the repository: /proc/self/environ",
		"beside":     "outside the repository: " + c.file,
		"chart-home": "chartHome " + c.home + ": outside the repository",
		"values":     "additionalValuesFiles " + c.file + ": outside the repository",
		"chart-name": "is not a chart name",
	}
	for name := range heads {
		f.write(t, "argocd/qa/app-"+name+".yaml", strings.ReplaceAll(confineApp, "NAME", name))
		f.write(t, "envs/qa/"+name+"/kustomization.yaml", chart+"configMapGenerator:\n- {name: ok, files: [../../../README.md]}\n")
		f.write(t, "envs/qa/"+name+"/charts/local/Chart.yaml", "apiVersion: v2\nname: local\nversion: 1.0.0\n")
		f.write(t, "envs/qa/"+name+"/charts/local/values.yaml", "greeting: hi\n")
		f.write(t, "envs/qa/"+name+"/charts/local/templates/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: local}\n")
	}
	if _, err := os.Stat(filepath.Join(f.Dir, "README.md")); err != nil {
		f.write(t, "README.md", "the fleet\n")
	}
	base = f.commit(t, "base: kustomizations reading the repository's files")
	for name, body := range heads {
		f.write(t, "envs/qa/"+name+"/kustomization.yaml", body)
	}
	return f, base, f.commit(t, "head: a merge request reaching out of the repository"), want
}

// TestMergeRequestStaysInItsRepository: manifestdiff on a merge request
// whose kustomizations, built with --enable-helm and LoadRestrictionsNone,
// read /proc/self/environ, a file beside the repository, a chart home in
// $HOME, a value file outside and a chart name climbing out: each app is
// an error naming the path, the marker planted outside shows in no
// format, and no file outside the run's own was created or changed.
func TestMergeRequestStaysInItsRepository(t *testing.T) {
	c := plantOutside(t)
	t.Setenv("HOME", c.home)
	t.Setenv("CONFINE_E2E_TOKEN", confineMarker)
	f, base, head, want := confineFleet(t, c)

	r := f.run(t, nil, "--base", base, "--head", head, "-o", "json", "--env", "qa")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (some apps fail)\n%s\n%s", r.code, r.errOut, r.out)
	}
	got := map[string]string{}
	for _, a := range parseJSON(t, r.out).Apps {
		if _, ok := want[a.Name]; ok {
			got[a.Name] = a.Status + ": " + a.Error
		}
	}
	for name, w := range want {
		if !strings.HasPrefix(got[name], "error: ") || !strings.Contains(got[name], w) {
			t.Errorf("app %s: %q, want an error with %q", name, got[name], w)
		}
	}
	everything := r.out + r.errOut
	for _, format := range []string{"diff", "markdown", "html"} {
		r := f.run(t, nil, "--base", base, "--head", head, "-o", format, "--env", "qa")
		everything += r.out + r.errOut
	}
	if strings.Contains(strings.ToLower(everything), strings.ToLower(confineMarker)) {
		t.Errorf("what is outside the repository shows in the output")
	}
	c.untouched(t)
}

// checkReleaseConfined runs the same merge request through the release
// binary, with the marker in its environment (/proc/self/environ).
func checkReleaseConfined(t *testing.T, bin string) {
	c := plantOutside(t)
	f, base, head, want := confineFleet(t, c)
	cmd := exec.Command(bin, "--repo", f.Dir, "--base", base, "--head", head, "--cache-dir", t.TempDir(), "-o", "json", "--env", "qa")
	cmd.Env = append(os.Environ(), "HOME="+c.home, "CONFINE_E2E_TOKEN="+confineMarker)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1\n%s", err, errb.String())
	}
	for _, a := range parseJSON(t, out.String()).Apps {
		if w, ok := want[a.Name]; ok && (a.Status != "error" || !strings.Contains(a.Error, w)) {
			t.Errorf("app %s: %s %q, want an error with %q", a.Name, a.Status, a.Error, w)
		}
	}
	if strings.Contains(strings.ToLower(out.String()+errb.String()), strings.ToLower(confineMarker)) {
		t.Errorf("what is outside the repository shows in the output")
	}
	c.untouched(t)
}

// TestOutOfBoundsSymlinkFailsTheRepository: a merge request adding links
// to /etc and to a file beside the repository gets Argo CD's answer for
// every app it renders from the repository (those whose own files did not
// change too), not the linked content.
func TestOutOfBoundsSymlinkFailsTheRepository(t *testing.T) {
	c := plantOutside(t)
	t.Setenv("HOME", c.home)
	f := newFleet(t)
	base := f.commit(t, "base")
	rel, err := filepath.Rel(filepath.Join(f.Dir, "envs", "qa", "gateway"), c.file)
	if err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"envs/qa/gateway/etc": "/etc", "envs/qa/gateway/secret.yaml": rel} {
		if err := os.Symlink(target, filepath.Join(f.Dir, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	f.edit(t, "envs/qa/gateway/values.yaml", "replicas: 1", "replicas: 3")
	head := f.commit(t, "head: links out of the repository")

	r := f.run(t, nil, "--base", base, "--head", head, "-o", "json", "--env", "qa")
	var app string
	for _, a := range parseJSON(t, r.out).Apps {
		if a.Name == "ledger-gateway-qa" {
			app = a.Status + ": " + a.Error
		}
	}
	want := "error: env qa, app ledger-gateway-qa: repository contains out-of-bounds symlinks. file: envs/qa/gateway/etc"
	if r.code != 1 || !strings.HasPrefix(app, want) {
		t.Errorf("exit %d, ledger-gateway-qa %q, want %q\n%s", r.code, app, want, r.errOut)
	}
	// the apps whose own files did not change fail too, as in Argo CD
	apps := parseJSON(t, r.out).Apps
	for _, a := range apps {
		if a.Status != "error" || !strings.Contains(a.Error, "repository contains out-of-bounds symlinks. file: envs/qa/gateway/etc") {
			t.Errorf("%s: %s %q", a.Name, a.Status, a.Error)
		}
	}
	if len(apps) < 5 {
		t.Errorf("%d apps in qa", len(apps))
	}
	d := f.run(t, nil, "--base", base, "--head", head, "-o", "diff", "--env", "qa")
	if strings.Contains(strings.ToLower(r.out+r.errOut+d.out+d.errOut), strings.ToLower(confineMarker)) {
		t.Errorf("the linked file's content shows in the output")
	}
	c.untouched(t)
}

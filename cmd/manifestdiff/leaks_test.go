package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gitops-promote/gitops-promote/cmd/internal/clitest"
	"github.com/gitops-promote/gitops-promote/internal/testutil/gitlabfake"
)

// The leak corpus of issue 9 (items 7-9, and 11's report that is always
// written): a repository whose apps render Secrets in every structural
// form, and whose other apps fail in every way that used to echo a value.
// The real manifestdiff binary runs on it in every output format (diff,
// markdown, json, html), to stdout, to --output-file and to a merge
// request note; every planted value is then searched for, in plain, upper
// and lower case, URL-escaped and base64, in everything it printed, wrote
// and sent.

// plants are the values no output may hold.
var plants = map[string]string{
	"list":      "Pl4nt-List-Qw7",
	"data":      "Pl4nt-Data-Er8",
	"anchor":    "Pl4nt-Anchor-Ty9",
	"reverse":   "Pl4nt-Reverse-Ui0",
	"applied":   "Pl4nt-Applied-Op1",
	"nested":    "Pl4nt-Nested-As2",
	"inlist":    "Pl4nt-InList-Df3",
	"changed":   "Pl4nt-Changed-Gh4",
	"anchorval": "Pl4nt-AnchorVal-Jk5",
	"int":       "Pl4nt-Int-Lz6",
	"schema":    "Pl4nt-Schema-Xc7",
	"fail":      "Pl4nt-Fail-Vb8",
	"required":  "Pl4nt-Required-Nm9",
	"literal":   "Pl4nt-Literal-Qa1",
	"dirfile":   "Pl4nt-DirFile-Ws2",
	"repotoken": "Pl4nt-RepoToken-Ed3",
	"helmpass":  "Pl4nt-HelmPass-Rf4",
	"tpl":       "Pl4nt-Tpl-Tg5",
}

func plantForms(v string) []string {
	return []string{v, strings.ToUpper(v), strings.ToLower(v),
		base64.StdEncoding.EncodeToString([]byte(v)), base64.RawURLEncoding.EncodeToString([]byte(v)), url.QueryEscape(v)}
}

var leakChart = map[string]string{
	"Chart.yaml":         "apiVersion: v2\nname: leaky\nversion: 0.1.0\n",
	"values.yaml":        "mode: secrets\n",
	"values.schema.json": `{"properties": {"password": {"type": "string", "pattern": "^x+$"}}}`,
	"templates/secrets.yaml": `{{- if eq .Values.mode "secrets" }}
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: List
  metadata: {name: outer}
  items:
  - apiVersion: v1
    kind: Secret
    metadata: {name: in-lists}
    stringData: {pw: {{ .Values.list | quote }}}
    data: {token: {{ .Values.data | b64enc }}}
---
apiVersion: v1
kind: Secret
stringData: {pw: &p {{ .Values.anchor | quote }}}
metadata:
  name: anchored
  annotations: {copy: *p}
---
apiVersion: v1
kind: Secret
metadata:
  name: reverse
  annotations: {origin: &r {{ .Values.reverse | quote }}}
stringData: {pw: *r}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    metadata:
      annotations:
        kubectl.kubernetes.io/last-applied-configuration: {{ printf "{\"stringData\":{\"pw\":%q}}" .Values.applied | quote }}
    spec:
      containers: [{name: c, image: nginx}]
---
apiVersion: template.openshift.io/v1
kind: Template
metadata: {name: tpl}
objects:
- apiVersion: v1
  kind: Secret
  metadata: {name: nested}
  stringData: {pw: {{ .Values.nested | quote }}}
---
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Secret, metadata: {name: s-in-list}, stringData: {pw: &l {{ .Values.inlist | quote }}}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: cm-in-list}, data: {copy: *l}}
---
apiVersion: v1
kind: Secret
metadata: {name: changing}
stringData: {pw: {{ .Values.changed | quote }}}
{{- end }}
{{- if eq .Values.mode "rendered-anchor" }}
apiVersion: v1
kind: Secret
metadata: {name: x}
stringData: {pw: {{ .Values.pw }}}
{{- end }}
{{- if eq .Values.mode "fail" }}
{{ fail (printf "password %s is not allowed" .Values.pw) }}
{{- end }}
{{- if eq .Values.mode "required" }}
{{ required (printf "need .Values.x when pw is %q" .Values.pw) .Values.x }}
{{- end }}
{{- if eq .Values.mode "tpl" }}
{{ tpl .Values.pw . }}
{{- end }}
{{- if eq .Values.mode "deep" }}
apiVersion: v1
kind: ConfigMap
metadata: {name: deep}
spec: {{ repeat 9000 "[" }}x{{ repeat 9000 "]" }}
{{- end }}
`,
}

func leakApp(name, source string) string {
	return fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: %s, namespace: argocd}
spec:
  project: default
  sources:
%s  - repoURL: https://gitlab.example.com/platform/leaks.git
    targetRevision: main
    ref: values
  destination: {server: https://kubernetes.default.svc, namespace: leaks}
`, name, source)
}

func helmSource(valueFile, extra string) string {
	return fmt.Sprintf(`  - repoURL: https://gitlab.example.com/platform/leaks.git
    path: charts/leaky
    targetRevision: main
    helm:
      valueFiles: [%s]
%s`, valueFile, extra)
}

// leakRepo writes the corpus as two commits and returns the repository.
func leakRepo(t *testing.T, chartRepoURL string) string {
	dir := filepath.Join(t.TempDir(), "repo")
	write := func(name, content string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".promote.yaml", "repoURL: https://gitlab.example.com/platform/leaks.git\nenvironments: [qa]\n"+
		"versions: versions/{env}.yaml\nmanifests: [\"argocd/{env}/*.yaml\"]\ncomponents:\n  leaky: {chart: leaky}\n")
	write("versions/qa.yaml", "leaky: {chartVersion: \"0.1.0\"}\n")
	for name, content := range leakChart {
		write("charts/leaky/"+name, content)
	}
	p := plants
	write("envs/secrets.yaml", fmt.Sprintf("list: %s\ndata: %s\nanchor: %s\nreverse: %s\napplied: %s\nnested: %s\ninlist: %s\nchanged: %s-base\n",
		p["list"], p["data"], p["anchor"], p["reverse"], p["applied"], p["nested"], p["inlist"], p["changed"]))
	write("argocd/qa/changing.yaml", leakApp("changing-qa", helmSource("$values/envs/secrets.yaml", "")))
	write("kustomize/literal/kustomization.yaml", "secretGenerator:\n- name: s\n  literals: [\"NOEQUALS"+p["literal"]+"\"]\n")
	write("dir/bad/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad}\ndata: {x: *"+p["dirfile"]+"}\n")
	gitRun(t, t.TempDir(), "init", "-q", dir)
	gitRun(t, dir, "config", "user.name", "t")
	gitRun(t, dir, "config", "user.email", "t@example.com")
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-qm", "base")

	// head: every app added, the Secrets changed
	write("envs/secrets.yaml", strings.Replace(mustRead(t, filepath.Join(dir, "envs/secrets.yaml")), "-base", "-head", 1))
	write("argocd/qa/secrets.yaml", leakApp("secrets-qa", helmSource("$values/envs/secrets.yaml", "")))
	write("envs/anchor.yaml", "mode: secrets\npassword: *"+p["anchorval"]+"\n")
	write("argocd/qa/anchor.yaml", leakApp("anchor-qa", helmSource("$values/envs/anchor.yaml", "")))
	write("envs/rendered-anchor.yaml", "mode: rendered-anchor\npw: '*"+p["anchorval"]+"'\n")
	write("argocd/qa/rendered-anchor.yaml", leakApp("rendered-anchor-qa", helmSource("$values/envs/rendered-anchor.yaml", "")))
	write("envs/int.yaml", "replicas: !!int "+p["int"]+"\n")
	write("argocd/qa/int.yaml", leakApp("int-qa", helmSource("$values/envs/int.yaml", "")))
	write("envs/empty.yaml", "{}\n")
	write("argocd/qa/schema.yaml", leakApp("schema-qa", helmSource("$values/envs/empty.yaml",
		"      parameters: [{name: password, value: "+p["schema"]+", forceString: true}]\n")))
	write("argocd/qa/fail.yaml", leakApp("fail-qa", helmSource("$values/envs/empty.yaml",
		"      values: |\n        mode: fail\n        pw: "+p["fail"]+"\n")))
	write("envs/required.pw", p["required"])
	write("argocd/qa/required.yaml", leakApp("required-qa", helmSource("$values/envs/empty.yaml",
		"      parameters: [{name: mode, value: required}]\n      fileParameters: [{name: pw, path: ../../envs/required.pw}]\n")))
	write("argocd/qa/tpl.yaml", leakApp("tpl-qa", helmSource("$values/envs/empty.yaml",
		"      valuesObject: {mode: tpl, pw: '{{ "+p["tpl"]+" }}'}\n")))
	write("argocd/qa/deep.yaml", leakApp("deep-qa", helmSource("$values/envs/empty.yaml",
		"      parameters: [{name: mode, value: deep}]\n")))
	write("argocd/qa/kustomize.yaml", leakApp("kustomize-qa", "  - repoURL: https://gitlab.example.com/platform/leaks.git\n    path: kustomize/literal\n    targetRevision: main\n"))
	write("argocd/qa/dir.yaml", leakApp("dir-qa", "  - repoURL: https://gitlab.example.com/platform/leaks.git\n    path: dir/bad\n    targetRevision: main\n"))
	write("argocd/qa/other-repo.yaml", leakApp("other-repo-qa",
		"  - repoURL: https://oauth2:"+p["repotoken"]+"@127.0.0.1:9/x.git\n    path: manifests\n    targetRevision: main\n    directory: {recurse: true}\n"))
	write("argocd/qa/chart-repo.yaml", leakApp("chart-repo-qa",
		"  - repoURL: "+chartRepoURL+"\n    chart: leaky\n    targetRevision: 0.1.0\n"))
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-qm", "head")
	return dir
}

func mustRead(t *testing.T, p string) string {
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// credentialWitness is a chart repository that needs basic auth and sends
// index.yaml to another origin, which records any credential it gets.
func credentialWitness(t *testing.T) (repoURL string, elsewhere func() []string) {
	var mu sync.Mutex
	var got []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if a := r.Header.Get("Authorization"); a != "" {
			got = append(got, a)
		}
		got = append(got, "request "+r.URL.Path)
		mu.Unlock()
		http.Error(w, "echo: "+r.Header.Get("Authorization"), http.StatusUnauthorized)
	}))
	t.Cleanup(other.Close)
	repo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, _, ok := r.BasicAuth(); !ok {
			w.Header().Set("WWW-Authenticate", `Basic realm="charts"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	t.Cleanup(repo.Close)
	return repo.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

// buildManifestdiff returns the release build of manifestdiff, linked
// once per test process (clitest.BuildRelease).
func buildManifestdiff(t *testing.T) string {
	return clitest.BuildRelease(t, "../..", "./cmd/manifestdiff")
}

func TestNothingLeaks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the real binary")
	}
	chartRepo, elsewhere := credentialWitness(t)
	repo := leakRepo(t, chartRepo)
	bin := buildManifestdiff(t)
	gl := gitlabfake.New(t, gitlabfake.Options{})
	gl.AddProject(42, "group/project")
	gl.AddMR("group/project", 7, "feature", "main")
	env := append(os.Environ(), "HELM_REPO_USERNAME=robot", "HELM_REPO_PASSWORD="+plants["helmpass"], "HELM_REPO_URL="+chartRepo,
		"CI_API_V4_URL="+gl.URL(), "CI_PROJECT_ID=42", "CI_MERGE_REQUEST_IID=7", "GITLAB_TOKEN="+gl.Token())

	var everything strings.Builder
	runBin := func(args ...string) (string, string) {
		cmd := exec.Command(bin, append([]string{"--repo", repo, "--base", "HEAD~1", "--head", "HEAD", "--cache-dir", t.TempDir()}, args...)...)
		cmd.Env = env
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != 1 {
			t.Errorf("%v: exit %d (%v), want 1: some apps fail\nstderr: %s", args, code, err, errOut.String())
		}
		everything.WriteString(out.String() + "\n" + errOut.String() + "\n")
		return out.String(), errOut.String()
	}
	for _, format := range []string{"diff", "markdown", "json", "html"} {
		runBin("-o", format)
		file := filepath.Join(t.TempDir(), "report."+format)
		runBin("-o", format, "--output-file", file)
		everything.WriteString(mustRead(t, file))
	}
	runBin("--post")
	for _, n := range gl.Notes("group/project", 7) {
		everything.WriteString(n.Body + "\n")
	}
	if len(gl.Notes("group/project", 7)) == 0 {
		t.Error("no note posted")
	}
	if l := gl.Leaks(gl.Token()); len(l) > 0 {
		t.Errorf("gitlab token leaked: %v", l)
	}
	// the HTML page escapes characters base64 uses ('+' is &#43;)
	all := everything.String() + html.UnescapeString(everything.String())

	found := 0
	for name, v := range plants {
		for _, f := range plantForms(v) {
			if strings.Contains(all, f) {
				found++
				t.Errorf("planted %s value leaked as %q", name, f)
			}
		}
	}
	if strings.Contains(all, "Basic "+base64.StdEncoding.EncodeToString([]byte("robot:"+plants["helmpass"]))) {
		t.Error("chart repository credentials printed")
	}
	t.Logf("planted values found in the outputs: %d", found)
	for _, got := range elsewhere() {
		if strings.HasPrefix(got, "Basic ") || strings.HasPrefix(got, "Bearer ") {
			t.Errorf("credentials sent to another host: %s", got)
		}
	}
	if len(elsewhere()) == 0 {
		t.Error("the chart repository redirect was never followed: that check proved nothing")
	}

	// The corpus is not vacuous: every failing app failed, saying where.
	out, _ := runBin("-o", "json")
	var doc struct {
		Apps []struct{ Name, Status, Error, NotRendered string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"secrets-qa":         {"added"},
		"changing-qa":        {"changed"},
		"anchor-qa":          {"error", "envs/anchor.yaml", "unknown anchor"},
		"rendered-anchor-qa": {"error", "leaky/templates/secrets.yaml", "unknown anchor"},
		"int-qa":             {"error", "envs/int.yaml", "cannot decode !!str"},
		"schema-qa":          {"error", "at '/password'", "does not match pattern '^x+$'"},
		"fail-qa":            {"error", "leaky/templates/secrets.yaml", "password *** is not allowed"},
		"required-qa":        {"error", "leaky/templates/secrets.yaml", "need .Values.x when pw is"},
		"tpl-qa":             {"error", "leaky/templates/secrets.yaml", "error calling tpl"},
		"kustomize-qa":       {"error", "kustomize/literal", "invalid literal source ***"},
		"dir-qa":             {"error", "dir/bad"},
		"other-repo-qa":      {"error", "https://***@127.0.0.1:9/x.git"},
		"chart-repo-qa":      {"error", "chart leaky version 0.1.0"},
		"deep-qa":            {"error", "source leaky/templates/secrets.yaml): nested deeper than 256 levels"},
	}
	for _, a := range doc.Apps {
		w, ok := want[a.Name]
		if !ok {
			continue
		}
		delete(want, a.Name)
		t.Logf("%s: %s %s%s", a.Name, a.Status, a.Error, a.NotRendered)
		if a.Status != w[0] {
			t.Errorf("%s: status %s, want %s (error %q)", a.Name, a.Status, w[0], a.Error)
		}
		for _, s := range w[1:] {
			if !strings.Contains(a.Error+a.NotRendered, s) {
				t.Errorf("%s: %q lacks %q", a.Name, a.Error+a.NotRendered, s)
			}
		}
	}
	for name := range want {
		t.Errorf("app %s missing from the report", name)
	}
}

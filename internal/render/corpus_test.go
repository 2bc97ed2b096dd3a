package render

// The chart corpus: real charts, read from the module cache, that the
// determinism tests here and the parity tests (tag bundled) render.

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"encoding/pem"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/testutil/toolbin"
	"github.com/google/go-containerregistry/pkg/registry"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/repo"
	"sigs.k8s.io/yaml"
)

// corpusCase is one chart of the corpus with its inputs. wantErr names
// the majors that must fail; majorsDiffer, when set, is why the released
// helm 3 and helm 4 binaries print different bytes (or one fails) for it.
type corpusCase struct {
	name         string
	req          Request
	wantErr      errOn
	majorsDiffer string
}

func corpusCases(t *testing.T) []corpusCase {
	var cases []corpusCase
	cases = append(cases, platformCases(t)...)
	cases = append(cases, majorFeatureCases(t)...)
	cases = append(cases, helmTestChartCases(t)...)
	cases = append(cases, certManagerCases(t)...)
	cases = append(cases, kyvernoCases(t)...)
	return cases
}

// copyModuleDir copies a read-only module-cache directory to a writable one.
func copyModuleDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
	if err := filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chmod(p, map[bool]fs.FileMode{true: 0o755, false: 0o644}[d.IsDir()])
	}); err != nil {
		t.Fatal(err)
	}
	return dst
}

// errOn says which majors must fail on a parity case.
type errOn int

const (
	errNone  errOn = 0
	errHelm3 errOn = 1
	errHelm4 errOn = 2
	errBoth        = errHelm3 | errHelm4
)

func withFiles(maps ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// webChart is a chart with what kustomize's helmCharts options change:
// release name and namespace, values (defaults, a values file, inline
// values), CRDs, a test hook and another hook, capabilities.
var webChart = map[string]string{
	"values.yaml": "replicas: 1\nimage: {repository: nginx, tag: \"1.27\"}\nlabels: {tier: web}\nextra: default\n",
	"templates/deploy.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}-{{ .Chart.Name }}
  namespace: {{ .Release.Namespace }}
  labels:
    chart: {{ .Chart.Name }}-{{ .Chart.Version }}
    {{- range $k, $v := .Values.labels }}
    {{ $k }}: {{ $v | quote }}
    {{- end }}
spec:
  replicas: {{ .Values.replicas }}
  selector: {matchLabels: {app: {{ .Release.Name }}}}
  template:
    metadata: {labels: {app: {{ .Release.Name }}}}
    spec:
      containers:
      - name: web
        image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
`,
	"templates/caps.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: {{ .Release.Name }}-caps}
data:
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
  helm: {{ .Capabilities.HelmVersion.Version | quote }}
  monitoring: {{ .Capabilities.APIVersions.Has "monitoring.coreos.com/v1" | quote }}
  extra: {{ .Values.extra | quote }}
`,
	"templates/hook.yaml": `apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-migrate
  annotations: {helm.sh/hook: pre-install}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: busybox}]
`,
	"templates/tests/ping.yaml": `apiVersion: v1
kind: Pod
metadata:
  name: {{ .Release.Name }}-ping
  annotations: {helm.sh/hook: test}
spec:
  containers: [{name: ping, image: busybox}]
`,
	"crds/widgets.yaml": `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}}]
`,
}

func newHelmChartServers(t *testing.T) *helmChartServers {
	t.Helper()
	dir := t.TempDir()
	srv := httptest.NewTLSServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	for _, v := range []string{"1.0.0", "1.0.3", "1.1.0", "2.0.0-rc.1"} {
		saveChart(t, dir, "web", v, webChart)
	}
	idx, err := repo.IndexDirectory(dir, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if err := idx.WriteFile(filepath.Join(dir, "index.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &helmChartServers{repo: srv.URL, client: srv.Client(), caFile: filepath.Join(t.TempDir(), "ca.pem")}
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(s.caFile, ca, 0o644); err != nil {
		t.Fatal(err)
	}
	s.oci = "oci://" + serveDual(t, registry.New(registry.Logger(log.New(io.Discard, "", 0))), srv.TLS) + "/charts"
	push := t.TempDir()
	for _, v := range []string{"3.0.0", "3.1.0"} {
		tgz := saveChart(t, push, "web-oci", v, webChart)
		home := t.TempDir()
		cmd := exec.Command(toolbin.Path(t, toolbin.Helm3), "push", tgz, s.oci)
		cmd.Env = []string{"HOME=" + home, "SSL_CERT_FILE=" + s.caFile, "HELM_CONFIG_HOME=" + home + "/config",
			"HELM_CACHE_HOME=" + home + "/cache", "HELM_DATA_HOME=" + home + "/data"}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("helm push: %v\n%s", err, out)
		}
	}
	return s
}

// packRaw packs a chart directory as-is into a .tgz under its base name,
// for charts the Helm 3 SDK cannot package (apiVersion v3).
func packRaw(t *testing.T, dir string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	base := filepath.Base(dir)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		hdr := &tar.Header{Name: base + "/" + filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(data))}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if err == nil {
		err = gz.Close()
	}
	if err != nil {
		t.Fatalf("pack %s: %v", dir, err)
	}
	return buf.Bytes()
}

// dropRemoteDependencies removes from Chart.yaml the dependencies that
// come from a repository and are not vendored under charts/, which
// `helm dependency build` would fetch from the network.
func dropRemoteDependencies(t *testing.T, chartDir string) {
	t.Helper()
	p := filepath.Join(chartDir, "Chart.yaml")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var meta map[string]any
	if err := yaml.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	deps, _ := meta["dependencies"].([]any)
	var kept []any
	for _, d := range deps {
		dep, _ := d.(map[string]any)
		repo, _ := dep["repository"].(string)
		if _, err := os.Stat(filepath.Join(chartDir, "charts", dep["name"].(string))); repo != "" && err != nil {
			continue
		}
		kept = append(kept, d)
	}
	meta["dependencies"] = kept
	out, err := yaml.Marshal(meta)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(chartDir, "Chart.lock"))
}

// valueFiles reads every *.yaml file of dir, in name order.
func valueFiles(t *testing.T, dir string) []NamedBytes {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	var files []NamedBytes
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, NamedBytes{Name: strings.TrimSuffix(filepath.Base(n), ".yaml"), Data: data})
	}
	return files
}

const cmTemplate = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-{{ .Chart.Name }}\ndata:\n" +
	"  chart: {{ .Chart.Name }}-{{ .Chart.Version }}\n  from: {{ .Values.from | default \"chart\" | quote }}\n" +
	"  imported: {{ .Values.imported | default \"none\" | quote }}\n"

// subchart is subchartFiles vendored as a directory under charts/.
func subchart(name, apiVersion string) map[string]string {
	out := map[string]string{}
	for k, v := range subchartFiles(name, apiVersion) {
		out["charts/"+name+"/"+k] = v
	}
	return out
}

var helmMajors = []helmMajor{
	{"helm3", toolbin.Helm3, Helm, errHelm3},
	{"helm4", toolbin.Helm4, Helm4, errHelm4},
}

// recovering runs a Helm engine as Render runs every engine: a panic is
// the render's error (Helm 4.3.1 panics on some charts, where the CLI
// dies with "panic: ...").
func recovering(f HelmFunc) HelmFunc {
	return func(ctx context.Context, req Request) (out []byte, err error) {
		defer func() {
			if p := recover(); p != nil {
				out, err = nil, &PanicError{Engine: "helm", Value: fmt.Sprint(p)}
			}
		}()
		return f(ctx, req)
	}
}

// helmChartServers are a chart repository and an OCI registry, real and
// on loopback over TLS, which the real helm (trusting their certificate
// through SSL_CERT_FILE) and our chart client both pull from.
type helmChartServers struct {
	repo, oci string // https://127.0.0.1:port, oci://127.0.0.1:port/charts
	caFile    string
	client    *http.Client
}

// serveDual serves h over TLS and plain HTTP on one loopback port, told
// apart by the first byte (0x16 starts a TLS handshake), and returns
// host:port. The real helm, given no --plain-http by kustomize, speaks
// HTTPS to a registry; our chart client speaks plain HTTP to a loopback
// one: both reach the same registry.
func serveDual(t *testing.T, h http.Handler, cfg *tls.Config) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ErrorLog: log.New(io.Discard, "", 0)}
	go srv.Serve(dualListener{ln, cfg}) //nolint:errcheck // ends with Close
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// saveChart writes chart name@version into dir as `helm package` does.
func saveChart(t *testing.T, dir, name, version string, files map[string]string) string {
	t.Helper()
	bf := []*loader.BufferedFile{{Name: "Chart.yaml", Data: []byte("apiVersion: v2\nname: " + name + "\nversion: " + version + "\n")}}
	for n, data := range files {
		bf = append(bf, &loader.BufferedFile{Name: n, Data: []byte(data)})
	}
	ch, err := loader.LoadFiles(bf)
	if err != nil {
		t.Fatal(err)
	}
	p, err := chartutil.Save(ch, dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// subchartFiles is a small chart whose values export a table.
func subchartFiles(name, apiVersion string) map[string]string {
	return map[string]string{
		"Chart.yaml":        "apiVersion: " + apiVersion + "\nname: " + name + "\nversion: 1.0.0\n",
		"values.yaml":       "exports:\n  data:\n    imported: from-" + name + "\n",
		"templates/cm.yaml": cmTemplate,
	}
}

// helmMajor is one Helm major Argo CD bundles: our renderer for it and
// the released helm binary it must match byte for byte.
type helmMajor struct {
	name   string
	tool   toolbin.Tool
	render HelmFunc
	errOn  errOn // the bit of errOn that means "this major fails"
}

type dualListener struct {
	net.Listener
	cfg *tls.Config
}

func (l dualListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		br := bufio.NewReader(c)
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		first, err := br.Peek(1)
		_ = c.SetReadDeadline(time.Time{})
		if err != nil {
			c.Close()
			continue
		}
		pc := &peekedConn{Conn: c, r: br}
		if first[0] == 0x16 {
			return tls.Server(pc, l.cfg), nil
		}
		return pc, nil
	}
}

type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *peekedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

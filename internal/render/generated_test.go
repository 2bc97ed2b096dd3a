package render

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Masterminds/sprig/v3"
)

// tgzOf packages files (paths under the chart's directory) as a chart
// archive in memory, as `helm package` lays it out.
func tgzOf(t testing.TB, chart string, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		data := []byte(files[n])
		if err := tw.WriteHeader(&tar.Header{Name: chart + "/" + n, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const labelsHelper = `{{- define "c.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}`

// The scanner's verdict on templates that stand for each of its rules.
func TestTemplatesDeterministic(t *testing.T) {
	cases := []struct {
		name, tmpl string
		want       bool
	}{
		{"values, release, chart scalars, include", `name: {{ .Release.Name }}
labels: {{- include "c.labels" . | nindent 2 }}
port: {{ .Values.port | default 8080 }}
image: {{ index .Values "img" "tag" | default .Chart.AppVersion }}
cfg: {{ toYaml (.Values.cfg | default dict) | nindent 2 }}
{{- range $k, $v := .Values.env }}
- {{ $k }}: {{ $v | quote }}
{{- end }}
{{- range .Values.args }}
- {{ . | quote }}
{{- end }}
{{- with .Values.res }}{{ toYaml . }}{{ end }}
kube: {{ .Capabilities.KubeVersion.Version }} {{ .Capabilities.APIVersions.Has "v1" }}
whole: {{ toJson $ | sha256sum }}
{{ $root := . }}{{ $root.Values.x }}{{ $root.Chart.Version }}`, true},
		{"randAlphaNum", `{{ randAlphaNum 8 }}`, false},
		{"now in a pipeline", `{{ now | date "2006" }}`, false},
		{"date of a string reads the clock", `{{ date "2006" .Values.when }}`, false},
		{"uuidv4", `{{ uuidv4 }}`, false},
		{"genCA", `{{ $ca := genCA "x" 365 }}{{ $ca.Cert }}`, false},
		{"lookup", `{{ lookup "v1" "Secret" "ns" "x" }}`, false},
		{"tpl renders values", `{{ tpl .Values.text . }}`, false},
		{"keys in map order", `{{ keys .Values.m | join "," }}`, false},
		{"shuffle", `{{ shuffle "abc" }}`, false},
		{"bcrypt salts", `{{ bcrypt "pw" }}`, false},
		{"call", `{{ call .Values.f }}`, false},
		{"unknown function", `{{ someNewHelmFunc 1 }}`, false},
		{"parse error", `{{ .Values.x `, false},
		{"a helper that generates", `{{ include "c.gen" . }}`, false},
		{"template action into a generating helper", `{{ template "c.gen" . }}`, false},
		{"dynamic include name", `{{ include (printf "c.%s" .Values.which) . }}`, false},
		{"root context printed", `{{ . }}`, false},
		{"$ printed", `{{ $ }}`, false},
		{".Chart printed", `{{ .Chart }}`, false},
		{".Chart maintainers printed", `{{ .Chart.Maintainers }}`, false},
		{"with .Chart then dot", `{{ with .Chart }}{{ . }}{{ end }}`, false},
		{"capabilities printed in a list", `{{ list .Capabilities | toString }}`, false},
		{"subcharts", `{{ .Subcharts }}`, false},
		{"index into the context", `{{ (index $ "Chart").Maintainers }}`, false},
		{"context through a variable", `{{ $c := . }}{{ $c }}`, false},
		{"context reassigned", `{{ $c := .Values }}{{ $c = $ }}{{ $c | quote }}`, false},
		{"context in a dict printed", `{{ dict "ctx" . | toString }}`, false},
		{"context stored in values", `{{ $_ := set .Values "ctx" $ }}{{ .Values.ctx }}`, false},
		{"context passed to a helper that prints it", `{{ include "c.print" (dict "ctx" $) }}`, false},
		{"range over the context", `{{ range $ }}{{ . }}{{ end }}`, false},
		{"printf of the context", `{{ printf "%d" $ }}`, false},
		{"printf %p of values: an address", `{{ printf "%p" .Values.m }}`, false},
		{"printf %p with an index, flags and width", `{{ printf "%[1]-18p" .Values.m }}`, false},
		{"printf with a format from values", `{{ printf .Values.f .Values.m }}`, false},
		{"printf with a piped format", `{{ "%p" | printf }}`, false},
		{"printf %%p is no verb", `{{ printf "%%p %s %v %d %x %q %T" .Values.a .Values.m 1 .Values.m "x" 1 }}`, true},
		{"semver printed", `{{ semver "1.2.3" }}`, false},
		{"semver in a list, %d prints its address", `{{ printf "%d" (list (semver "1.2.3")) }}`, false},
		{"semver stored in values", `{{ $_ := set .Values "v" (semver "1.2.3") }}{{ .Values.v }}`, false},
		{"semver fields", `{{ (semver "1.2.3").Major }}{{ $v := semver .Values.v }}{{ $v.Minor }}{{ with semver "2.0.0" }}{{ .Patch }}{{ end }}`, true},
	}
	helpers := labelsHelper + `
{{- define "c.gen" -}}{{ randAlphaNum 5 }}{{- end -}}
{{- define "c.print" -}}{{ .ctx }}{{- end -}}`
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"c/templates/a.yaml": tc.tmpl, "c/templates/_helpers.tpl": helpers}
			if got := TemplatesDeterministic(files); got != tc.want {
				t.Errorf("TemplatesDeterministic(%q) = %v, want %v", tc.tmpl, got, tc.want)
			}
		})
	}
}

// A subchart's templates count, packaged or not.
func TestChartDeterministicSubcharts(t *testing.T) {
	sub := tgzOf(t, "sub", map[string]string{"Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
		"templates/s.yaml": "x: {{ randAlpha 3 }}\n"})
	base := map[string]string{"Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"templates/a.yaml": "a: {{ .Values.a }}\n"}
	if !ChartDeterministic(tgzOf(t, "c", base)) {
		t.Fatal("plain chart: want deterministic")
	}
	packaged := map[string]string{"charts/sub-0.1.0.tgz": string(sub)}
	unpacked := map[string]string{"charts/sub/Chart.yaml": "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
		"charts/sub/templates/s.yaml": "x: {{ now }}\n"}
	for name, extra := range map[string]map[string]string{"packaged": packaged, "unpacked": unpacked} {
		files := map[string]string{}
		for k, v := range base {
			files[k] = v
		}
		for k, v := range extra {
			files[k] = v
		}
		if ChartDeterministic(tgzOf(t, "c", files)) {
			t.Errorf("%s subchart that generates: want not deterministic", name)
		}
	}
	if ChartDeterministic([]byte("not a chart")) {
		t.Error("unreadable chart: want not deterministic")
	}
	// An apiVersion v3 chart (Helm 4 only) is read by Helm 4's loader.
	v3 := map[string]string{"Chart.yaml": "apiVersion: v3\nname: c\nversion: 0.1.0\n",
		"templates/a.yaml": "a: {{ .Values.a }}\n", "templates/g.yaml": "g: {{ uuidv4 }}\n"}
	if ChartDeterministic(tgzOf(t, "c", v3)) {
		t.Error("apiVersion v3 chart that generates: want not deterministic")
	}
	delete(v3, "templates/g.yaml")
	if !ChartDeterministic(tgzOf(t, "c", v3)) {
		t.Error("apiVersion v3 chart of pure templates: want deterministic")
	}
	ChartDeterministic(helmV3Panic(t)) // Helm 4 panics on its dependencies in places: not here
}

// generatingFuncs read a clock, randomness, the network or map order, or
// render text from values (tpl), or call anything (call).
var generatingFuncs = []string{"now", "date", "dateInZone", "date_in_zone", "htmlDate", "htmlDateInZone", "ago",
	"durationRound", "randAlphaNum", "randAlpha", "randAscii", "randNumeric", "randBytes", "randInt", "uuidv4",
	"shuffle", "genPrivateKey", "genCA", "genCAWithKey", "genSelfSignedCert", "genSelfSignedCertWithKey",
	"genSignedCert", "genSignedCertWithKey", "encryptAES", "bcrypt", "htpasswd", "derivePassword",
	"getHostByName", "lookup", "tpl", "keys", "values", "env", "expandenv", "call"}

// Every function Helm 3 and Helm 4 give templates is classified: on the
// pure list, or known to read a clock, randomness, the network or map
// order. A function a later Helm or sprig adds fails this test (and, until
// classified, makes any chart that calls it render twice).
func TestTemplateFunctionsClassified(t *testing.T) {
	generated := setOf(generatingFuncs...)
	names := map[string]bool{}
	for n := range sprig.TxtFuncMap() {
		names[n] = true
	}
	// Helm's own functions, read from both SDKs' sources.
	re := regexp.MustCompile(`(?m)^\s*"([A-Za-z0-9_]+)":\s`)
	for _, mod := range []string{"helm.sh/helm/v3", "helm.sh/helm/v4"} {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", mod).Output()
		if err != nil {
			t.Fatalf("go list -m %s: %v", mod, err)
		}
		src, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "pkg", "engine", "funcs.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(src), -1) {
			names[m[1]] = true
		}
	}
	for _, n := range []string{"include", "tpl", "required", "fail", "lookup", "and", "or", "not", "len", "index",
		"slice", "print", "printf", "println", "html", "js", "urlquery", "eq", "ne", "lt", "le", "gt", "ge", "call"} {
		names[n] = true
	}
	for n := range names {
		if pureFuncs[n] == generated[n] {
			t.Errorf("template function %q: pure=%v, generated=%v; classify it exactly once", n, pureFuncs[n], generated[n])
		}
	}
	for n := range pureFuncs {
		if !names[n] {
			t.Errorf("pure list names %q, which neither Helm nor sprig has", n)
		}
	}
}

// TestDeterministicChartsRenderTheSame is the proof of the render-once
// shortcut: every chart of the corpus the scanner calls deterministic
// renders to the same bytes twice, with both Helm majors; and the charts
// it calls generated include every one whose renders do differ.
func TestDeterministicChartsRenderTheSame(t *testing.T) {
	if testing.Short() {
		t.Skip("renders the parity corpus; run without -short")
	}
	cases := corpusCases(t)
	demo := chartBytes(t, "demo")
	cases = append(cases,
		corpusCase{name: "demo/random", req: Request{Chart: demo, Values: []byte("random: true\n")}},
		corpusCase{name: "demo/plain", req: Request{Chart: demo}})
	for _, name := range []string{"subchart", "subpop", "chart-with-secret", "object-order", "frobnitz-1.2.3.tgz"} {
		cases = append(cases, corpusCase{name: name, req: Request{Chart: chartBytes(t, name)}})
	}
	once, twice := 0, 0
	for _, tc := range cases {
		det := ChartDeterministic(tc.req.Chart)
		for _, m := range helmMajors {
			a, errA := recovering(m.render)(context.Background(), tc.req)
			b, errB := recovering(m.render)(context.Background(), tc.req)
			same := bytes.Equal(a, b) && (errA == nil) == (errB == nil) && (errA == nil || errA.Error() == errB.Error())
			if det && !same {
				t.Errorf("%s, %s: the scanner calls the chart deterministic, and two renders differ:\n%s\n---\n%s", tc.name, m.name, a, b)
			}
		}
		if det {
			once++
		} else {
			twice++
		}
	}
	if ChartDeterministic(demo) {
		t.Error("demo chart (randAlphaNum behind a value): want not deterministic")
	}
	t.Logf("%d corpus charts render once, %d twice", once, twice)
}

// FuzzDeterministic renders twice, with both Helm majors, every generated
// template the scanner calls deterministic, and fails when the two
// renders differ in any byte or error.
func FuzzDeterministic(f *testing.F) {
	seeds := []string{
		`{{ .Values.a }}{{ .Release.Name }}{{ include "c.labels" . }}`,
		`{{ range $k, $v := .Values.m }}{{ $k }}={{ $v | quote }}{{ end }}`,
		`{{ $c := . }}{{ $c.Chart.Name }}{{ with .Values.m }}{{ toYaml . }}{{ end }}`,
		`{{ printf "%v" .Values }}{{ list .Values.m .Release.Name | toString }}`,
		`{{ toJson $ | sha256sum }}{{ .Capabilities.KubeVersion }}`,
		`{{ .Chart.Maintainers }}`, `{{ . }}`, `{{ randAlphaNum 3 }}`, `{{ keys .Values.m }}`,
		`{{ $_ := set .Values "x" (dict "y" 1) }}{{ .Values.x }}`,
		`{{ include "c.echo" (dict "v" .Values.m) }}`,
		`{{ printf "%p" .Values.m }}`, `{{ printf "%v %d" (list (semver "1.2.3")) (list (semver "1.0.0")) }}`,
	}
	for _, s := range seeds {
		f.Add(s)
	}
	helpers := labelsHelper + `
{{- define "c.echo" -}}{{ .v }}{{- end -}}`
	values := "a: 1\nm: {z: 1, a: [x, y], k: {n: true}}\n"
	f.Fuzz(func(t *testing.T, tmpl string) {
		files := map[string]string{"c/templates/a.yaml": tmpl, "c/templates/_helpers.tpl": helpers}
		if len(tmpl) > 2000 || !TemplatesDeterministic(files) {
			return
		}
		chart := tgzOf(t, "c", map[string]string{
			"Chart.yaml":             "apiVersion: v2\nname: c\nversion: 0.1.0\nmaintainers: [{name: m}]\ndependencies: []\n",
			"values.yaml":            values,
			"templates/a.yaml":       tmpl,
			"templates/_helpers.tpl": helpers,
		})
		req := Request{Chart: chart}
		for _, m := range helmMajors {
			a, errA := recovering(m.render)(context.Background(), req)
			b, errB := recovering(m.render)(context.Background(), req)
			if !bytes.Equal(a, b) || (errA == nil) != (errB == nil) || errA != nil && errA.Error() != errB.Error() {
				t.Fatalf("%s: template %q called deterministic, renders differ:\n%s (%v)\n---\n%s (%v)", m.name, tmpl, a, errA, b, errB)
			}
		}
	})
}

// What a pure function returns is plain data unless it is listed in
// pointerResults: a result type that can hold a pointer, a channel or a
// function (fmt prints them by address) fails this test until
// classified. time.Time holds a *Location, which these functions take
// from time.Local: one value for the whole process, the same in both
// renders. A result that holds values typed any is plain by what the
// function puts there, listed in plainAny after reading its source.
// Helm's own functions return strings, numbers, durations and decoded
// YAML/JSON/TOML.
func TestPureFunctionResults(t *testing.T) {
	plainAny := setOf("urlParse", "fromJson", "mustFromJson") // strings; decoded JSON
	for name, fn := range sprig.TxtFuncMap() {
		if !pureFuncs[name] || passThrough[name] {
			continue
		}
		out := reflect.TypeOf(fn).Out(0)
		ptr, iface := resultHolds(out, map[reflect.Type]bool{})
		if ptr != pointerResults[name] {
			t.Errorf("%s returns %s: holds a pointer = %v, in pointerResults = %v", name, out, ptr, pointerResults[name])
		}
		if iface && !plainAny[name] {
			t.Errorf("%s returns %s, which holds values typed any: list it in plainAny once they are known plain", name, out)
		}
	}
}

// resultHolds says whether values of t can hold a pointer (a channel, a
// function), and values typed any.
func resultHolds(t reflect.Type, seen map[reflect.Type]bool) (ptr, iface bool) {
	if seen[t] || t == reflect.TypeOf(time.Time{}) {
		return false, false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer, reflect.Chan, reflect.Func, reflect.UnsafePointer:
		return true, false
	case reflect.Interface:
		return false, true
	case reflect.Slice, reflect.Array:
		return resultHolds(t.Elem(), seen)
	case reflect.Map:
		p1, i1 := resultHolds(t.Key(), seen)
		p2, i2 := resultHolds(t.Elem(), seen)
		return p1 || p2, i1 || i2
	case reflect.Struct:
		for i := range t.NumField() {
			p, f := resultHolds(t.Field(i).Type, seen)
			ptr, iface = ptr || p, iface || f
		}
	}
	return ptr, iface
}

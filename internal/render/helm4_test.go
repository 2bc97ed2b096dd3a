package render

import (
	"context"
	"errors"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestHelm4Errors: Helm 4 failures carry the same context as Helm 3's
// (release, chart, value source), on one line, with no output.
func TestHelm4Errors(t *testing.T) {
	demo := chartBytes(t, "demo")
	for _, tc := range []struct {
		name string
		req  Request
		want []string
	}{
		{"template fail", Request{Chart: demo, ReleaseName: "shop",
			Parameters: []Parameter{{Name: "fail", Value: "true"}}},
			[]string{`render release "shop" chart demo-1.2.3: `, "demo asked to fail"}},
		{"bad value file", Request{Chart: demo, ValueFiles: []NamedBytes{
			{"envs/ok.yaml", []byte("env: ok\n")}, {"envs/qa/common.yaml", []byte("env: [unclosed\n")}}},
			[]string{`values "envs/qa/common.yaml": parse:`}},
		{"bad helm.values", Request{Chart: demo, Values: []byte("- a list\n")},
			[]string{`values "helm.values": parse:`}},
		// Unlike helm 3, helm 4 ignores "a[" (the corpus pins that down).
		{"bad parameter", Request{Chart: demo, Parameters: []Parameter{{Name: "a[x]", Value: "1"}}},
			[]string{`parameter "a[x]" (--set):`, "error parsing index"}},
		{"bad kube version", Request{Chart: demo, KubeVersion: "banana"},
			[]string{`chart demo-1.2.3: invalid kube version "banana"`}},
		{"not a chart", Request{Chart: []byte("hello")}, []string{`render release "release-name": load chart:`}},
		{"library chart", Request{Chart: demoVariant(t, "type: library\n")},
			[]string{"library charts are not installable"}},
		{"missing dependency", Request{Chart: demoVariant(t, missingDependency)},
			[]string{"check chart dependencies:", "missing in charts/ directory: redis"}},
		{"schema, multi-line in helm", Request{Chart: chartBytes(t, "chart-with-schema-negative")},
			[]string{"values don't meet the specifications of the schema(s)", "; "}},
		// Helm 4.3.1's panic on an apiVersion v3 chart is Render's to
		// recover: TestRenderRecoversPanics.
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Helm4(context.Background(), tc.req)
			if err == nil {
				t.Fatalf("no error; output:\n%s", out)
			}
			if out != nil {
				t.Errorf("output %q alongside the error", out)
			}
			var rerr *Error
			if !errors.As(err, &rerr) {
				t.Fatalf("error %T is not *Error", err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("message spans lines: %q", msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q lacks %q", msg, w)
				}
			}
		})
	}
}

func TestHelm4Canceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Helm4(ctx, Request{Chart: chartBytes(t, "demo")}); !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
}

// TestHelm4Parallel renders from many goroutines (run it with -race):
// each render equals a sequential one.
func TestHelm4Parallel(t *testing.T) {
	req := Request{Chart: chartBytes(t, "demo"), Namespace: "qa", KubeVersion: "1.31.1",
		APIVersions: []string{"example.com/v1"}, Values: []byte("env: qa\n")}
	want, err := Helm4(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	const workers = 6
	got := make([][]byte, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { got[w], errs[w] = Helm4(context.Background(), req) })
	}
	wg.Wait()
	for w := range workers {
		if errs[w] != nil {
			t.Fatalf("worker %d: %v", w, errs[w])
		}
		if diff := cmp.Diff(string(want), string(got[w])); diff != "" {
			t.Errorf("worker %d differs from the sequential render:\n%s", w, diff)
		}
	}
}

// TestHelmVersionCapabilities: both renderers report the released
// binaries' .Capabilities.HelmVersion, in tests as in production builds.
func TestHelmVersionCapabilities(t *testing.T) {
	files := map[string]string{
		"Chart.yaml": "apiVersion: v2\nname: v\nversion: 0.1.0\n",
		"templates/cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: v}
data:
  version: {{ .Capabilities.HelmVersion.Version | quote }}
  treeState: {{ .Capabilities.HelmVersion.GitTreeState | quote }}
  goVersion: {{ .Capabilities.HelmVersion.GoVersion | quote }}
`,
	}
	ch := packageDir(t, writeChartDir(t, files))
	for _, tc := range []struct {
		name   string
		render HelmFunc
		want   string
	}{
		{"helm3", Helm, helm3Version},
		{"helm4", Helm4, helm4Version},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := tc.render(context.Background(), Request{Chart: ch})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []string{`version: "` + tc.want + `"`, `treeState: "clean"`, `goVersion: "go`} {
				if !strings.Contains(string(out), w) {
					t.Errorf("output lacks %s:\n%s", w, out)
				}
			}
		})
	}
}

// TestHelmSDKVersions keeps the reported versions equal to go.mod's.
func TestHelmSDKVersions(t *testing.T) {
	for mod, want := range map[string]string{"helm.sh/helm/v3": helm3Version, "helm.sh/helm/v4": helm4Version} {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", mod).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", mod, err)
		}
		if got := strings.TrimSpace(string(out)); got != want {
			t.Errorf("%s is %s in go.mod, the renderer reports %s", mod, got, want)
		}
	}
}

func TestHelmFor(t *testing.T) {
	helm3, helm4 := reflect.ValueOf(Helm).Pointer(), reflect.ValueOf(Helm4).Pointer()
	for major, want := range map[int]uintptr{3: helm3, 4: helm4, 0: helm4} {
		if got := reflect.ValueOf(HelmFor(major)).Pointer(); got != want {
			t.Errorf("HelmFor(%d) picked the other Helm major", major)
		}
	}
}

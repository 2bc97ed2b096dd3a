package render

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHelmErrors(t *testing.T) {
	demo := chartBytes(t, "demo")
	for _, tc := range []struct {
		name string
		req  Request
		want []string // substrings of the one-line message
	}{
		{"template fail", Request{Chart: demo, ReleaseName: "shop",
			Parameters: []Parameter{{Name: "fail", Value: "true"}}},
			[]string{`render release "shop" chart demo-1.2.3: `, "demo asked to fail"}},
		{"bad value file", Request{Chart: demo, ValueFiles: []NamedBytes{
			{"envs/ok.yaml", []byte("env: ok\n")}, {"envs/qa/common.yaml", []byte("env: [unclosed\n")}}},
			[]string{`chart demo-1.2.3 values "envs/qa/common.yaml": parse:`}},
		{"bad helm.values", Request{Chart: demo, Values: []byte("- a list\n")},
			[]string{`values "helm.values": parse:`}},
		{"bad parameter", Request{Chart: demo, Parameters: []Parameter{{Name: "a[", Value: "1"}}},
			[]string{`parameter "a[" (--set):`}},
		{"bad kube version", Request{Chart: demo, KubeVersion: "banana"},
			[]string{`invalid kube version "banana"`}},
		{"not a chart", Request{Chart: []byte("hello")}, []string{`render release "release-name": load chart:`}},
		{"library chart", Request{Chart: demoVariant(t, "type: library\n")},
			[]string{"library charts are not installable"}},
		{"missing dependency", Request{Chart: demoVariant(t, missingDependency)},
			[]string{"check chart dependencies:", "missing in charts/ directory: redis"}},
		{"kube version out of range", Request{Chart: demoVariant(t, "kubeVersion: '<1.20.0'\n")},
			[]string{"chart requires kubeVersion: <1.20.0"}},
		{"invalid yaml output", Request{Chart: chartBytes(t, "chart-with-template-with-invalid-yaml")},
			[]string{"chart chart-with-template-with-invalid-yaml-0.1.0", "YAML parse error"}},
		{"schema, multi-line in helm", Request{Chart: chartBytes(t, "chart-with-schema-negative")},
			[]string{"values don't meet the specifications of the schema(s)", "; "}},
		{"invalid release name", Request{Chart: demo, ReleaseName: "Not_Valid"},
			[]string{`release name "Not_Valid"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Helm(context.Background(), tc.req)
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

func TestHelmCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Helm(ctx, Request{Chart: chartBytes(t, "demo")})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error = %v, want context.Canceled", err)
	}
}

// TestHelmRandom: randAlphaNum makes two renders of the same input differ,
// which callers must expect; everything else stays put.
func TestHelmRandom(t *testing.T) {
	req := Request{Chart: chartBytes(t, "demo"), Parameters: []Parameter{{Name: "random", Value: "true"}}}
	a, errA := Helm(context.Background(), req)
	b, errB := Helm(context.Background(), req)
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	tokenA, tokenB := findDoc(t, a, "random.yaml"), findDoc(t, b, "random.yaml")
	if tokenA == tokenB {
		t.Errorf("randAlphaNum rendered the same token twice:\n%s", tokenA)
	}
	if diff := cmp.Diff(strings.Replace(string(a), tokenA, "", 1), strings.Replace(string(b), tokenB, "", 1)); diff != "" {
		t.Errorf("renders differ beyond the random Secret:\n%s", diff)
	}
}

// TestHelmParallel renders one chart from many goroutines; run it with
// -race. Every render must equal a sequential one.
func TestHelmParallel(t *testing.T) {
	reqs := []Request{
		{Chart: chartBytes(t, "demo"), Namespace: "qa", KubeVersion: "1.31.1",
			APIVersions: []string{"example.com/v1"}, Values: []byte("env: qa\n"),
			Parameters: []Parameter{{Name: "replicas", Value: "4"}}},
		{Chart: chartBytes(t, "subchart"), APIVersions: []string{"example.com/v2"}},
	}
	want := make([][]byte, len(reqs))
	for i, req := range reqs {
		out, err := Helm(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = out
	}
	const workers = 8
	got := make([][]byte, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { got[w], errs[w] = Helm(context.Background(), reqs[w%len(reqs)]) })
	}
	wg.Wait()
	for w := range workers {
		if errs[w] != nil {
			t.Fatalf("worker %d: %v", w, errs[w])
		}
		if diff := cmp.Diff(string(want[w%len(reqs)]), string(got[w])); diff != "" {
			t.Errorf("worker %d differs from the sequential render:\n%s", w, diff)
		}
	}
}

func TestEscapeParameter(t *testing.T) {
	// Expectations follow Argo CD's cleanSetParameters.
	for in, want := range map[string]string{
		"plain":    "plain",
		"a,b":      `a\,b`,
		`a\,b`:     `a\,b`,
		"{a,b}":    "{a,b}",
		"{a,b":     `{a\,b`,
		",":        `\,`,
		"x=1,y=2":  `x=1\,y=2`,
		"ünï,cødé": `ünï\,cødé`,
	} {
		if got := escapeParameter(in); got != want {
			t.Errorf("escapeParameter(%q) = %q, want %q", in, got, want)
		}
	}
}

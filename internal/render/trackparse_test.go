package render

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// trackingCases are the tracking settings ParseTracked is checked under:
// each method, a label key, a long app name (the label is cut), an
// object without a namespace (the destination's is used).
var trackingCases = []Tracking{
	{Method: "annotation", App: "guestbook", Namespace: "shop"},
	{Method: "label", LabelKey: "app.kubernetes.io/instance", App: "guestbook", Namespace: "shop"},
	{Method: "annotation+label", LabelKey: "app.kubernetes.io/instance", App: "an-application-name-that-is-far-longer-than-sixty-three-characters-x", Namespace: "shop"},
	{Method: "none", App: "guestbook"},
}

// trackParseSeeds are streams where tracking then parsing could differ
// from parsing with the marks: Lists (nested ones too), CRDs, flow and
// null metadata, aliases into metadata, duplicate keys, scalars and
// nulls, comments and "# Source:" heads, other document markers, CRLF,
// documents that do not parse, Secrets through aliases.
var trackParseSeeds = []string{
	"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
	"---\n# Source: c/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels: {app.kubernetes.io/instance: chart}\n  annotations: {argocd.argoproj.io/installation-id: x, keep: \"yes\"}\ndata: {a: \"1\"}\n---\n# Source: c/crds/crd.yaml\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: w.example.com}\n",
	"apiVersion: v1\nkind: List\nitems:\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web, namespace: other}\n- kind: List\n  apiVersion: v1\n  items: [{kind: ConfigMap, apiVersion: v1, metadata: {name: inner}}]\n",
	"kind: ConfigMapList\napiVersion: v1\nitems: [{kind: ConfigMap, apiVersion: v1, metadata: {name: a}}, 3, null]\n",
	"kind: ConfigMap\napiVersion: v1\nmetadata:\n",
	"kind: ConfigMap\napiVersion: v1\nmetadata: x\n",
	"kind: ConfigMap\napiVersion: v1\nmetadata: {name: &n a, annotations: *n}\n",
	"kind: ConfigMap\napiVersion: v1\nbase: &m {name: b}\nmetadata: *m\n",
	"kind: ConfigMap\napiVersion: v1\nmetadata: {<<: {name: c}, namespace: n}\n",
	"kind: ConfigMap\napiVersion: v1\nmetadata: {name: a, name: b}\n",
	"kind: Secret\napiVersion: v1\nstringData: {pw: &p X}\nmetadata: {name: s, annotations: {c: *p}}\n",
	"kind: ConfigMap\napiVersion: v1\nmetadata: {name: 123, namespace: null}\ndata: {t: 2001-12-14, f: 1e3, b: !!binary aGk=, s: !!str 12}\n",
	"# only a comment\n---\n\n---\n~\n---\nkind: ConfigMap\napiVersion: v1\nmetadata: {name: a} # trailing\n# foot\n",
	"--- {kind: ConfigMap, apiVersion: v1, metadata: {name: a}}\n...\n--- # Source: x\nkind: ConfigMap\napiVersion: v1\nmetadata: {name: b}\n",
	"---\r\nkind: ConfigMap\r\napiVersion: v1\r\nmetadata: {name: a}\r\n",
	"kind: ConfigMap\napiVersion: v1\nmetadata: {name: a\n---\nkind: ConfigMap\napiVersion: v1\nmetadata: {name: b}\n",
	"kind: ConfigMap\napiVersion: v1\nmetadata: {name: a}\ndata:\n  s: |\n    two\n     lines  \n  q: 'it''s'\n  e: \"\\t\\u00e9\"\n",
	"- a\n- b\n",
	"kind: ConfigMap\napiVersion: v1\nmetadata: {name: a}\n---\nkind: ConfigMap\napiVersion: v1\nmetadata: {name: a}\n",
}

// TestParseTrackedKeepsWhatReencodingLoses: where yaml.v3's re-encode
// changed a document (an anchored null key came back as the empty
// string), the marks on the parsed tree keep what was rendered.
func TestParseTrackedKeepsWhatReencodingLoses(t *testing.T) {
	stream := []byte("kind: ConfigMap\napiVersion: v1\nmetadata: {name: a, &k : 1}\n")
	if faithful(stream) {
		t.Fatal("yaml.v3 now re-encodes an anchored null key faithfully: move this stream to trackParseSeeds")
	}
	rs, err := ParseTracked(stream, "ns", &trackingCases[0])
	if err != nil {
		t.Fatal(err)
	}
	plain, err := diff.Parse(stream, "ns")
	if err != nil {
		t.Fatal(err)
	}
	meta := rs[0].Object["metadata"].(map[string]any)
	delete(meta, "annotations")
	if d := cmp.Diff(plain, rs); d != "" {
		t.Fatalf("marking changed more than the tracking annotation (-parsed +marked):\n%s", d)
	}
}

// equalTrackParse fails t unless ParseTracked of stream gives what
// diff.Parse gives of the stream Render returns (track's text), errors
// included, word for word. It reports false, checking nothing, for a
// stream yaml.v3 does not re-encode faithfully (re-encoded without any
// mark, it parses to other resources, as "{&a : 1}" does: an anchored
// null key comes back as ""): there the re-encoded text was wrong, and
// the marks on the parsed tree keep the rendered values.
func equalTrackParse(t *testing.T, stream []byte, tr Tracking) bool {
	t.Helper()
	if !faithful(stream) {
		return false
	}
	got, gotErr := ParseTracked(stream, "default-ns", &tr)
	tracked, err := trackText(stream, tr)
	var want []diff.Resource
	wantErr := err
	if err == nil {
		want, wantErr = diff.Parse(tracked, "default-ns")
	}
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
		t.Fatalf("tracking %+v of %q: error %v, tracking then parsing: %v", tr, stream, gotErr, wantErr)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("tracking %+v of %q: resources differ from tracking then parsing (-want +got):\n%s", tr, stream, d)
	}
	return true
}

// faithful reports whether re-encoding stream's documents unchanged
// gives the same resources, or the same error, as the stream itself.
func faithful(stream []byte) bool {
	again, err := reencode(stream, func(*yaml.Node) {})
	if err != nil {
		return false
	}
	a, errA := diff.Parse(stream, "default-ns")
	b, errB := diff.Parse(again, "default-ns")
	if (errA == nil) != (errB == nil) {
		return false
	}
	return errA != nil || cmp.Equal(a, b)
}

func TestParseTrackedEqualsTrackThenParse(t *testing.T) {
	streams := trackParseSeeds
	// real renders (the golden outputs of the Helm and directory tests),
	// which must take the one-parse way, not the fallback
	files, _ := filepath.Glob("testdata/golden/*.yaml")
	if len(files) < 3 {
		t.Fatalf("found only %d rendered streams under testdata/golden", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := diff.ParseMarked(b, "ns", trackingCases[0].markDocument); !plainMarkers(b) || err != nil {
			t.Fatalf("%s would not be parsed once (plain markers %v, error %v)", f, plainMarkers(b), err)
		}
		streams = append(streams, string(b))
	}
	for _, s := range streams {
		for _, tr := range trackingCases {
			if !equalTrackParse(t, []byte(s), tr) {
				t.Errorf("yaml.v3 does not re-encode %q faithfully: not a case for this test", s)
			}
		}
	}
}

// FuzzParseTracked: for any stream, parsing with the marks gives what
// tracking the text then parsing gives.
func FuzzParseTracked(f *testing.F) {
	for _, s := range trackParseSeeds {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, method uint8) {
		equalTrackParse(t, data, trackingCases[int(method)%len(trackingCases)])
	})
}

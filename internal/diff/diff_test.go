package diff

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

var fixtureIgnore = []string{"metadata.labels.helm.sh/chart", "spec.template.metadata.annotations.checksum/config"}

func mustParse(t *testing.T, file string) []Resource {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := Parse(b, "web")
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func fixtureDiffs(t *testing.T) []ResourceDiff {
	return Resources(mustParse(t, "base.yaml"), mustParse(t, "head.yaml"), mustParse(t, "head-again.yaml"), Options{Ignore: fixtureIgnore})
}

// render is a stable text form of the diffs, for the golden file.
func render(ds []ResourceDiff) string {
	var sb strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&sb, "== %s %s\n", d.Key(), d.Status)
		for _, g := range d.Generated {
			fmt.Fprintf(&sb, "generated: %s\n", g)
		}
		for _, k := range d.SecretKeys {
			fmt.Fprintf(&sb, "secret key: %s %s\n", k.Key, k.Status)
		}
		sb.WriteString(d.Diff)
	}
	return sb.String()
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s differs (-want +got):\n%s", name, d)
	}
}

func TestResourcesGolden(t *testing.T) {
	checkGolden(t, "resources.txt", render(fixtureDiffs(t)))
}

func TestResourcesStatuses(t *testing.T) {
	got := map[string]Status{}
	for _, d := range fixtureDiffs(t) {
		got[d.Key()] = d.Status
	}
	want := map[string]Status{
		"/ConfigMap/web/web-config":                         Changed,
		"/Secret/web/web-secret":                            Changed,
		"/Secret/web/web-random":                            Unchanged,
		"/Service/web/web":                                  Changed,
		"/ServiceAccount/web/web-old":                       Removed,
		"rbac.authorization.k8s.io/ClusterRole//web-reader": Added,
		"apps/Deployment/web/web":                           Changed,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("statuses (-want +got):\n%s", d)
	}
}

func TestSecretKeysAndGenerated(t *testing.T) {
	ds := map[string]ResourceDiff{}
	for _, d := range fixtureDiffs(t) {
		ds[d.Key()] = d
	}
	s := ds["/Secret/web/web-secret"]
	wantKeys := []SecretKeyChange{
		{"data.new-key", KeyAdded}, {"data.old-key", KeyRemoved}, {"data.password", KeyChanged},
		{"data.session", KeyGenerated}, {"data.token", KeyUnchanged}, {"stringData.api-key", KeyChanged},
	}
	if d := cmp.Diff(wantKeys, s.SecretKeys); d != "" {
		t.Errorf("secret keys (-want +got):\n%s", d)
	}
	if !strings.Contains(s.Diff, "+  password: <redacted: changed>") {
		t.Errorf("changed key not shown:\n%s", s.Diff)
	}
	if strings.Contains(s.Diff, "+  session") || strings.Contains(s.Diff, "-  session") {
		t.Errorf("generated key shown as a change:\n%s", s.Diff)
	}
	if d := cmp.Diff([]string{"data.session"}, s.Generated); d != "" {
		t.Errorf("generated (-want +got):\n%s", d)
	}
	r := ds["/Secret/web/web-random"]
	if r.Status != Unchanged || r.Diff != "" || len(r.Generated) != 1 {
		t.Errorf("randAlphaNum-only secret: %+v", r)
	}
	dep := ds["apps/Deployment/web/web"]
	if d := cmp.Diff([]string{"spec.template.metadata.annotations.rollme"}, dep.Generated); d != "" {
		t.Errorf("deployment generated (-want +got):\n%s", d)
	}
	if !strings.Contains(dep.Diff, "+        rollme: <generated>") || strings.Contains(dep.Diff, "GENERATED-") {
		t.Errorf("generated value not masked:\n%s", dep.Diff)
	}
}

func TestIgnoreDottedKeys(t *testing.T) {
	for _, d := range fixtureDiffs(t) {
		for _, bad := range []string{"helm.sh/chart", "checksum/config"} {
			if strings.Contains(d.Diff, bad) {
				t.Errorf("%s: ignored field %s in diff:\n%s", d.Key(), bad, d.Diff)
			}
		}
	}
	withoutIgnore := Resources(mustParse(t, "base.yaml"), mustParse(t, "head.yaml"), nil, Options{})
	if !strings.Contains(render(withoutIgnore), "helm.sh/chart: web-1.1.0") {
		t.Error("label diff missing without ignore rules")
	}
}

func TestApplyIgnore(t *testing.T) {
	obj := func() map[string]any {
		return map[string]any{
			"metadata": map[string]any{"labels": map[string]any{"helm.sh/chart": "c", "helm.sh": "short", "a.b.c": "x"}},
			"spec":     map[string]any{"containers": []any{map[string]any{"image": "a"}, map[string]any{"image": "b", "name": "n"}}},
		}
	}
	tests := []struct {
		rule string
		want string
	}{
		{"metadata.labels.helm.sh/chart", "metadata.labels.a.b.c metadata.labels.helm.sh spec.containers.0.image spec.containers.1.image spec.containers.1.name"},
		{"metadata.labels.helm.sh", "metadata.labels.a.b.c metadata.labels.helm.sh/chart spec.containers.0.image spec.containers.1.image spec.containers.1.name"},
		{"metadata.labels.a.b.c", "metadata.labels.helm.sh metadata.labels.helm.sh/chart spec.containers.0.image spec.containers.1.image spec.containers.1.name"},
		{"spec.containers.*.image", "metadata.labels.a.b.c metadata.labels.helm.sh metadata.labels.helm.sh/chart spec.containers.1.name"},
		{"spec.containers.0", "metadata.labels.a.b.c metadata.labels.helm.sh metadata.labels.helm.sh/chart spec.containers.0.image spec.containers.0.name"},
		{"no.such.path", "metadata.labels.a.b.c metadata.labels.helm.sh metadata.labels.helm.sh/chart spec.containers.0.image spec.containers.1.image spec.containers.1.name"},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			o := obj()
			applyIgnore(o, []string{tt.rule})
			got := leaves(o, nil)
			if d := cmp.Diff(tt.want, strings.Join(got, " ")); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func leaves(v any, at path) []string {
	switch t := v.(type) {
	case map[string]any:
		var out []string
		for _, k := range sortedKeys(t) {
			out = append(out, leaves(t[k], at.with(seg{key: k}))...)
		}
		return out
	case []any:
		var out []string
		for i, e := range t {
			out = append(out, leaves(e, at.with(seg{idx: i, isIdx: true}))...)
		}
		return out
	}
	return []string{at.String()}
}

// secretForms returns every value of every Secret and last-applied
// annotation in the fixtures, in each form a leak could take.
func secretForms(t *testing.T, files ...string) []string {
	var out []string
	add := func(plain string) {
		sum := sha256.Sum256([]byte(plain))
		out = append(out, plain, base64.StdEncoding.EncodeToString([]byte(plain)), hex.EncodeToString(sum[:]))
	}
	for _, f := range files {
		for _, r := range mustParse(t, f) {
			if ann, ok := getAt(r.Object, path{{key: "metadata"}, {key: "annotations"}, {key: LastAppliedAnnotation}}); ok {
				add(fmt.Sprint(ann))
				add("LASTAPPLIED") // the marker inside the fixture's annotation
			}
			if r.Kind != "Secret" {
				continue
			}
			for _, field := range secretFields {
				m, _ := r.Object[field].(map[string]any)
				for _, v := range m {
					s := fmt.Sprint(v)
					add(s)
					if dec, err := base64.StdEncoding.DecodeString(s); err == nil {
						add(string(dec))
					}
				}
			}
		}
	}
	return out
}

func TestNoSecretValueInDiffs(t *testing.T) {
	ds := fixtureDiffs(t)
	out := render(ds) + fmt.Sprintf("%#v", ds)
	forms := secretForms(t, "base.yaml", "head.yaml", "head-again.yaml")
	if len(forms) < 30 {
		t.Fatalf("only %d secret forms found: fixture changed?", len(forms))
	}
	for _, s := range forms {
		if strings.Contains(out, s) {
			t.Errorf("secret value %q leaked", s)
		}
	}
	if !strings.Contains(out, "<redacted: changed>") || !strings.Contains(out, "last-applied-configuration: <redacted") {
		t.Errorf("placeholders missing:\n%s", out)
	}
}

func TestResourcesDoesNotMutateInput(t *testing.T) {
	base, head := mustParse(t, "base.yaml"), mustParse(t, "head.yaml")
	before := fmt.Sprintf("%v", head)
	Resources(base, head, mustParse(t, "head-again.yaml"), Options{Ignore: fixtureIgnore})
	if after := fmt.Sprintf("%v", head); after != before {
		t.Error("Resources changed its input objects")
	}
}

func TestResourcesStable(t *testing.T) {
	first := render(fixtureDiffs(t))
	for range 5 {
		if got := render(fixtureDiffs(t)); got != first {
			t.Fatal("output differs between runs")
		}
	}
}

// TestUnchangedMatchesText: a resource is unchanged exactly when its
// redacted serialisations are equal (floats 0 and -0 are equal numbers
// and different text; 1 and 1.0 different values and the same text).
func TestUnchangedMatchesText(t *testing.T) {
	for _, tc := range []struct{ base, head string }{
		{"a: 1\nb: [x, {c: d}]\n", "b: [x, {c: d}]\na: 1\n"},
		{"a: 0.0\n", "a: -0.0\n"},
		{"a: .nan\n", "a: .nan\n"},
		{"a: 1\n", "a: 1.0\n"},
		{"a: ~\n", "a: null\n"},
		{"a: '1'\n", "a: 1\n"},
		{"a: [1, 2]\n", "a: [2, 1]\n"},
		{"a: {}\n", "a: []\n"},
	} {
		doc := func(s string) []Resource {
			rs, err := Parse([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  "+strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ")+"\n"), "ns")
			if err != nil {
				t.Fatal(err)
			}
			return rs
		}
		b, h := doc(tc.base), doc(tc.head)
		d := Resources(b, h, nil, Options{})[0]
		bo, ho := prepare(&b[0], Options{}), prepare(&h[0], Options{})
		textSame := serialise(bo) == serialise(ho)
		if (d.Status == Unchanged) != textSame {
			t.Errorf("%q -> %q: status %s, serialisations equal %v", tc.base, tc.head, d.Status, textSame)
		}
	}
}

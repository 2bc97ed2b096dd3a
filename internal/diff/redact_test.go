package diff

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func one(t *testing.T, manifest string) []Resource {
	t.Helper()
	if manifest == "" {
		return nil
	}
	rs, err := Parse([]byte(manifest), "ns")
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestSecretRedactionCases(t *testing.T) {
	const secretA = "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {k: VkFMVUUtQQ==}\nstringData: {p: PLAIN-A}\n"
	const secretB = "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {k: VkFMVUUtQg==}\nstringData: {p: PLAIN-A}\n"
	tests := []struct {
		name              string
		base, head, again string
		status            Status
		keys              []SecretKeyChange
		lines             []string // lines the diff must contain
	}{
		{"added secret", "", secretA, "", Added,
			[]SecretKeyChange{{"data.k", KeyAdded}, {"stringData.p", KeyAdded}},
			[]string{"+  k: <redacted: added>", "+  p: <redacted: added>"}},
		{"removed secret", secretA, "", "", Removed,
			[]SecretKeyChange{{"data.k", KeyRemoved}, {"stringData.p", KeyRemoved}},
			[]string{"-  k: <redacted: removed>"}},
		{"changed data key", secretA, secretB, "", Changed,
			[]SecretKeyChange{{"data.k", KeyChanged}, {"stringData.p", KeyUnchanged}},
			[]string{"-  k: <redacted>", "+  k: <redacted: changed>"}},
		{"generated only", secretA, secretB, secretA, Unchanged,
			[]SecretKeyChange{{"data.k", KeyGenerated}, {"stringData.p", KeyUnchanged}}, nil},
		{"data not a map", "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: VkFMVUUtQQ==\n",
			"apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: VkFMVUUtQg==\n", "", Changed,
			[]SecretKeyChange{{"data", KeyChanged}}, []string{"+data: <redacted: changed>"}},
		{"last-applied on a Deployment", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: s\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: VALUE-A\n",
			"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: s\n  annotations:\n    kubectl.kubernetes.io/last-applied-configuration: VALUE-B\n", "", Changed,
			nil, []string{"+    kubectl.kubernetes.io/last-applied-configuration: <redacted: changed>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ds := Resources(one(t, tt.base), one(t, tt.head), one(t, tt.again), Options{})
			if len(ds) != 1 {
				t.Fatalf("%d diffs", len(ds))
			}
			d := ds[0]
			if d.Status != tt.status {
				t.Errorf("status %s, want %s", d.Status, tt.status)
			}
			if diff := cmp.Diff(tt.keys, d.SecretKeys); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
			for _, l := range tt.lines {
				if !strings.Contains(d.Diff, l+"\n") {
					t.Errorf("diff lacks %q:\n%s", l, d.Diff)
				}
			}
			for _, leak := range []string{"VkFMVUU", "VALUE-", "PLAIN-"} {
				if strings.Contains(d.Diff, leak) {
					t.Errorf("value %q leaked:\n%s", leak, d.Diff)
				}
			}
		})
	}
}

func TestResourcesOptions(t *testing.T) {
	var lines []string
	for i := range 20 {
		lines = append(lines, "  k"+string(rune('a'+i))+": v")
	}
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n" + strings.Join(lines, "\n") + "\n"
	changed := strings.Replace(cm, "kj: v", "kj: w", 1)
	for ctx, wantHeader := range map[int]string{0: "@@ -9,7 +9,7 @@", 1: "@@ -11,3 +11,3 @@", -1: "@@ -12 +12 @@"} {
		d := Resources(one(t, cm), one(t, changed), nil, Options{Context: ctx})[0]
		if !strings.Contains(d.Diff, wantHeader+"\n") {
			t.Errorf("context %d: want %s in\n%s", ctx, wantHeader, d.Diff)
		}
		if d.Generated != nil {
			t.Errorf("generated without headAgain: %v", d.Generated)
		}
	}
}

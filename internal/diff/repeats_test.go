package diff

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseKeepsLastOfRepeatedKey: a rendered document that gives a key
// twice is an object, as Argo CD takes it (the last value, silently),
// and the repeat is named by its path and count.
func TestParseKeepsLastOfRepeatedKey(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    map[string]any // the object's data, or nil
		labels  map[string]any // the object's labels, or nil
		repeats []Repeat
	}{
		{
			name:    "a data key twice",
			in:      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n  level: info\n  mode: x\n  level: debug\n",
			want:    map[string]any{"level": "debug", "mode": "x"},
			repeats: []Repeat{{Path: "data.level", Count: 2}},
		},
		{
			name:    "three times: the last wins, named from the first",
			in:      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {v: \"1\", v: \"2\", v: \"3\"}\n",
			want:    map[string]any{"v": "3"},
			repeats: []Repeat{{Path: "data.v", Count: 3}},
		},
		{
			name: "a whole mapping twice: the last one, not a merge",
			in: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {tier: one, keep: x}\n" +
				"  labels: {tier: two}\n",
			labels:  map[string]any{"tier": "two"},
			repeats: []Repeat{{Path: "metadata.labels", Count: 2}},
		},
		{
			name: "in a list item, with its index",
			in: "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec:\n  containers:\n  - name: c\n" +
				"    image: one\n    image: two\n",
			repeats: []Repeat{{Path: "spec.containers[0].image", Count: 2}},
		},
		{
			name: "the same key in two mappings is no repeat",
			in:   "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {name: a}}\ndata: {name: a}\n",
			want: map[string]any{"name": "a"},
		},
		{
			name:    "many keys (the map path), one repeated",
			in:      "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {k01: \"1\", k02: \"1\", k03: \"1\", k04: \"1\", k05: \"1\", k06: \"1\", k07: \"1\", k08: \"1\", k09: \"1\", k10: \"1\", k11: \"1\", k12: \"1\", k13: \"1\", k14: \"1\", k15: \"1\", k16: \"1\", k17: \"1\", k18: \"1\", k01: \"2\"}\n",
			want:    map[string]any{"k01": "2", "k02": "1", "k03": "1", "k04": "1", "k05": "1", "k06": "1", "k07": "1", "k08": "1", "k09": "1", "k10": "1", "k11": "1", "k12": "1", "k13": "1", "k14": "1", "k15": "1", "k16": "1", "k17": "1", "k18": "1"},
			repeats: []Repeat{{Path: "data.k01", Count: 2}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := Parse([]byte(tt.in), "ns")
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if len(rs) != 1 {
				t.Fatalf("%d objects, want 1", len(rs))
			}
			r := rs[0]
			if diff := cmp.Diff(tt.repeats, r.Repeats); diff != "" {
				t.Errorf("repeats (-want +got):\n%s", diff)
			}
			if tt.want != nil {
				if diff := cmp.Diff(tt.want, r.Object["data"]); diff != "" {
					t.Errorf("data (-want +got):\n%s", diff)
				}
			}
			if tt.labels != nil {
				meta, _ := r.Object["metadata"].(map[string]any)
				if diff := cmp.Diff(tt.labels, meta["labels"]); diff != "" {
					t.Errorf("labels (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestParseRepeatInSecretKeepsNoValue: a Secret whose data repeats a key
// keeps the last value, and the repeat names the key, never a value.
func TestParseRepeatInSecretKeepsNoValue(t *testing.T) {
	in := "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata:\n  token: Zmlyc3Q=\n  token: c2Vjb25k\n"
	rs, err := Parse([]byte(in), "ns")
	if err != nil {
		t.Fatal(err)
	}
	if got := rs[0].Object["data"].(map[string]any)["token"]; got != "c2Vjb25k" {
		t.Errorf("token = %v, want the last value", got)
	}
	if want := []Repeat{{Path: "data.token", Count: 2}}; !cmp.Equal(want, rs[0].Repeats) {
		t.Errorf("repeats = %+v, want %+v", rs[0].Repeats, want)
	}
}

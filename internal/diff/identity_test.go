package diff

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestParseAsArgoCD covers the objects Argo CD's repo server and
// controller accept that a stricter reading would refuse: each is kept
// under the key Argo CD gives it, and repeats are one object.
func TestParseAsArgoCD(t *testing.T) {
	const cm = "apiVersion: v1\nkind: ConfigMap\n"
	tests := []struct {
		name     string
		in       string
		want     []string // Key() of each resource, in order
		data     []string // data.v of each resource, in order, when set
		warnings []string
	}{
		{
			name: "generateName object keyed by its generateName",
			in:   "apiVersion: batch/v1\nkind: Job\nmetadata: {generateName: migrate-}\n",
			want: []string{"batch/Job/ns/migrate-<created at sync>"},
		},
		{
			name: "two generateName objects stay two, counted per generateName",
			in: "apiVersion: batch/v1\nkind: Job\nmetadata: {generateName: a-}\n---\n" +
				"apiVersion: batch/v1\nkind: Job\nmetadata: {generateName: b-}\n---\n" +
				"apiVersion: batch/v1\nkind: Job\nmetadata: {generateName: a-}\n",
			want: []string{"batch/Job/ns/a-<created at sync>", "batch/Job/ns/b-<created at sync>", "batch/Job/ns/a-<created at sync #2>"},
		},
		{
			name: "a name wins over generateName",
			in:   "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, generateName: a-}\n",
			want: []string{"batch/Job/ns/j"},
		},
		{
			name:     "nameless object kept with an empty name",
			in:       cm + "metadata: {}\n---\n" + cm + "data: {v: x}\n",
			want:     []string{"/ConfigMap/ns/"},
			data:     []string{"x"},
			warnings: []string{"Resource /ConfigMap/ns/ appeared 2 times among application resources."},
		},
		{
			name: "no metadata, or a metadata that is not a mapping",
			in:   cm + "data: {v: a}\n---\napiVersion: v1\nkind: Secret\nmetadata: oops\n",
			want: []string{"/ConfigMap/ns/", "/Secret/ns/"},
			data: []string{"a"},
		},
		{
			name: "no apiVersion is not refused",
			in:   "kind: ConfigMap\nmetadata: {name: a}\n",
			want: []string{"/ConfigMap/ns/a"},
		},
		{
			name: "repeats keep the last copy, in the first one's place",
			in: cm + "metadata: {name: a}\ndata: {v: first}\n---\n" +
				cm + "metadata: {name: b}\ndata: {v: b}\n---\n" +
				cm + "metadata: {name: a, namespace: ns}\ndata: {v: second}\n---\n" +
				cm + "metadata: {name: a}\ndata: {v: third}\n",
			want:     []string{"/ConfigMap/ns/a", "/ConfigMap/ns/b"},
			data:     []string{"third", "b"},
			warnings: []string{"Resource /ConfigMap/ns/a appeared 3 times among application resources."},
		},
		{
			name: "the version is not part of the key",
			in: "apiVersion: example.com/v1\nkind: Thing\nmetadata: {name: a}\ndata: {v: one}\n---\n" +
				"apiVersion: example.com/v2\nkind: Thing\nmetadata: {name: a}\ndata: {v: two}\n",
			want:     []string{"example.com/Thing/ns/a"},
			data:     []string{"two"},
			warnings: []string{"Resource example.com/Thing/ns/a appeared 2 times among application resources."},
		},
		{
			name: "a namespace dropped from a cluster-scoped kind makes a repeat",
			in: "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n---\n" +
				"apiVersion: v1\nkind: Namespace\nmetadata: {name: team, namespace: other}\n",
			want:     []string{"/Namespace//team"},
			warnings: []string{"Resource /Namespace//team appeared 2 times among application resources."},
		},
		{
			name: "built-in cluster-scoped kinds of newer releases",
			in: "apiVersion: networking.k8s.io/v1\nkind: ServiceCIDR\nmetadata: {name: s, namespace: x}\n---\n" +
				"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: d}\n",
			want: []string{"networking.k8s.io/ServiceCIDR//s", "resource.k8s.io/DeviceClass//d"},
		},
		{
			name: "items that are not a list make an object, not a list",
			in:   "apiVersion: v1\nkind: ThingList\nmetadata: {name: l}\nitems: {a: 1}\n",
			want: []string{"/ThingList/ns/l"},
		},
		{
			name: "null items with a spec make an object",
			in:   "apiVersion: v1\nkind: ThingList\nmetadata: {name: l}\nspec: {}\nitems: null\n---\napiVersion: v1\nkind: ConfigMapList\nitems: null\n",
			want: []string{"/ThingList/ns/l"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := Parse([]byte(tt.in), "ns")
			if err != nil {
				t.Fatal(err)
			}
			var keys, data []string
			for _, r := range rs {
				keys = append(keys, r.Key())
				if d, ok := r.Object["data"].(map[string]any); ok {
					data = append(data, d["v"].(string))
				}
			}
			if d := cmp.Diff(tt.want, keys); d != "" {
				t.Errorf("keys (-want +got):\n%s", d)
			}
			if tt.data != nil {
				if d := cmp.Diff(tt.data, data); d != "" {
					t.Errorf("kept copies (-want +got):\n%s", d)
				}
			}
			if d := cmp.Diff(tt.warnings, Warnings(rs)); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}

func TestParseMissingKindIsSentinel(t *testing.T) {
	_, err := Parse([]byte("apiVersion: v1\nmetadata: {name: a}\n"), "")
	if !errors.Is(err, ErrMissingKind) {
		t.Fatalf("err = %v, want ErrMissingKind", err)
	}
}

func TestResourcesCarryGenerateName(t *testing.T) {
	head, err := Parse([]byte("apiVersion: batch/v1\nkind: Job\nmetadata: {generateName: migrate-}\nspec: {x: 1}\n"), "ns")
	if err != nil {
		t.Fatal(err)
	}
	base, err := Parse([]byte("apiVersion: batch/v1\nkind: Job\nmetadata: {generateName: migrate-}\nspec: {x: 0}\n"), "ns")
	if err != nil {
		t.Fatal(err)
	}
	ds := Resources(base, head, nil, Options{})
	if len(ds) != 1 || ds[0].Status != Changed || ds[0].GenerateName != "migrate-" || ds[0].Name != "migrate-<created at sync>" {
		t.Fatalf("diff = %+v, want one changed Job created at sync", ds)
	}
}

func TestParseLearnsScopeFromTheAppsCRDs(t *testing.T) {
	in := "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: x}\n---\n" +
		"apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\n---\n" +
		"apiVersion: other.io/v1\nkind: Widget\nmetadata: {name: o}\n---\n" +
		"apiVersion: example.com/v1\nkind: ClusterPolicy\nmetadata: {name: p}\n---\n" +
		"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: widgets.example.com}\n" +
		"spec: {group: example.com, scope: Cluster, names: {kind: Widget}}\n---\n" +
		"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: clusterpolicies.example.com}\n" +
		"spec: {group: example.com, scope: Namespaced, names: {kind: ClusterPolicy}}\n"
	rs, err := Parse([]byte(in), "ns")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range rs[:4] {
		keys = append(keys, r.Key())
	}
	want := []string{"example.com/Widget//w", "example.com/Gadget/ns/g", "other.io/Widget/ns/o", "example.com/ClusterPolicy/ns/p"}
	if d := cmp.Diff(want, keys); d != "" {
		t.Errorf("keys (-want +got):\n%s", d)
	}
	if ns, ok := rs[0].Object["metadata"].(map[string]any)["namespace"]; ok {
		t.Errorf("a cluster-scoped object keeps metadata.namespace %v; Argo CD clears it", ns)
	}
}

func TestDropExcluded(t *testing.T) {
	rs, err := Parse([]byte("apiVersion: v1\nkind: Endpoints\nmetadata: {name: ep}\n---\n"+
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n"+
		"apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata: {generateName: l-}\n"), "ns")
	if err != nil {
		t.Fatal(err)
	}
	excluded := func(group, kind string) bool { return kind == "Endpoints" || group == "coordination.k8s.io" }
	kept, warnings := DropExcluded(rs, excluded)
	if len(kept) != 1 || kept[0].Key() != "/ConfigMap/ns/c" {
		t.Errorf("kept %+v, want the ConfigMap alone", kept)
	}
	want := []string{"Resource /Endpoints ep is excluded in the settings", "Resource coordination.k8s.io/Lease  is excluded in the settings"}
	if d := cmp.Diff(want, warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
}

// Scalars read as Argo CD reads them (sigs.k8s.io/yaml, YAML 1.1).
func TestParseReadsYAML11Booleans(t *testing.T) {
	rs, err := Parse([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata:\n"+
		"  a: yes\n  b: On\n  c: n\n  d: 'yes'\n  e: \"no\"\n  f: !!str on\n  on: x\n  g: |\n    yes\n  h: 0755\n  i: 1_000\n"), "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": true, "b": true, "c": false, "d": "yes", "e": "no", "f": "on", "true": "x", "g": "yes\n", "h": 493, "i": 1000}
	if d := cmp.Diff(want, rs[0].Object["data"]); d != "" {
		t.Errorf("data (-want +got):\n%s", d)
	}
}

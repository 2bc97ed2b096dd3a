package diff

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		ns      string
		want    []string // Key() of each resource, in order
		sources []string
	}{
		{
			name: "helm output with sources and empty documents",
			in: "---\n# Source: c/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n" +
				"---\n# Source: c/templates/empty.yaml\n---\n\n---\n# only a comment\n" +
				"---\n# Source: c/templates/deploy.yaml\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  namespace: explicit\n",
			ns:      "team",
			want:    []string{"/ConfigMap/team/a", "apps/Deployment/explicit/d"},
			sources: []string{"c/templates/cm.yaml", "c/templates/deploy.yaml"},
		},
		{
			name: "cluster-scoped kinds get no namespace",
			in: "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\n---\n" +
				"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: x.example.com, namespace: ignored}\n---\n" +
				"apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n---\n" +
				"apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: fast}\n",
			ns:   "team",
			want: []string{"rbac.authorization.k8s.io/ClusterRole//r", "apiextensions.k8s.io/CustomResourceDefinition//x.example.com", "/Namespace//team", "storage.k8s.io/StorageClass//fast"},
		},
		{
			name: "no default namespace leaves it empty",
			in:   "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n",
			want: []string{"/Service//s"},
		},
		{
			name: "v1 List is flattened",
			in:   "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: one}\n- apiVersion: v1\n  kind: Secret\n  metadata: {name: two, namespace: other}\n",
			ns:   "d",
			want: []string{"/ConfigMap/d/one", "/Secret/other/two"},
		},
		{
			name: "content on the marker line and document end markers",
			in:   "--- {apiVersion: v1, kind: ConfigMap, metadata: {name: inline}}\n...\n--- # comment\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n",
			ns:   "n",
			want: []string{"/ConfigMap/n/inline", "/ConfigMap/n/b"},
		},
		{
			name: "empty input",
			in:   "\n---\n---\n# nothing\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, err := Parse([]byte(tt.in), tt.ns)
			if err != nil {
				t.Fatal(err)
			}
			var keys, sources []string
			for _, r := range rs {
				keys = append(keys, r.Key())
				if r.Source != "" {
					sources = append(sources, r.Source)
				}
			}
			if d := cmp.Diff(tt.want, keys); d != "" {
				t.Errorf("keys (-want +got):\n%s", d)
			}
			if tt.sources != nil {
				if d := cmp.Diff(tt.sources, sources); d != "" {
					t.Errorf("sources (-want +got):\n%s", d)
				}
			}
		})
	}
}

func TestParseFillsNamespaceInObject(t *testing.T) {
	rs, err := Parse([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  when: 2024-01-01\n"), "team")
	if err != nil {
		t.Fatal(err)
	}
	meta := rs[0].Object["metadata"].(map[string]any)
	if meta["namespace"] != "team" {
		t.Errorf("metadata.namespace = %v, want team", meta["namespace"])
	}
	// Timestamps stay strings so they are re-serialised as written.
	if got := rs[0].Object["data"].(map[string]any)["when"]; got != "2024-01-01" {
		t.Errorf("timestamp decoded as %#v", got)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string // substrings of the error
	}{
		{"missing kind after a good one", "---\n# Source: c/templates/a.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\n# Source: c/templates/b.yaml\napiVersion: v1\nmetadata: {name: b}\n",
			[]string{"document 2", "c/templates/b.yaml", "missing kind"}},
		{"missing kind", "metadata: {name: x}\n", []string{"document 1", "missing kind"}},
		{"not a mapping", "- a\n- b\n", []string{"document 1", "not a mapping"}},
		{"bad yaml", "a: [\n", []string{"document 1"}},
		{"bad list item", "apiVersion: v1\nkind: List\nitems: [3]\n", []string{"item 1 is not a mapping"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in), "ns")
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestGroup(t *testing.T) {
	for in, want := range map[string]string{"v1": "", "apps/v1": "apps", "": "", "cert-manager.io/v1": "cert-manager.io"} {
		if got := Group(in); got != want {
			t.Errorf("Group(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestClusterScopedRetracked: a cluster-scoped object rendered with a
// namespace loses it, and its tracking id names the app's destination
// namespace instead, as Argo CD's controller tracks it again after
// clearing the namespace (found by the Argo CD parity suite on its e2e
// app cluster-role-hook). Namespaced objects and ids of other shapes
// keep theirs.
func TestClusterScopedRetracked(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"cluster-scoped with a namespace", `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: b
  namespace: cert-manager
  annotations:
    argocd.argoproj.io/tracking-id: app:rbac.authorization.k8s.io/ClusterRoleBinding:cert-manager/b
`, "app:rbac.authorization.k8s.io/ClusterRoleBinding:dest/b"},
		{"cluster-scoped without one", `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: r
  annotations:
    argocd.argoproj.io/tracking-id: app:rbac.authorization.k8s.io/ClusterRole:dest/r
`, "app:rbac.authorization.k8s.io/ClusterRole:dest/r"},
		{"namespaced", `apiVersion: v1
kind: ConfigMap
metadata:
  name: c
  namespace: other
  annotations:
    argocd.argoproj.io/tracking-id: app:/ConfigMap:other/c
`, "app:/ConfigMap:other/c"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := Parse([]byte(tc.doc), "dest")
			if err != nil {
				t.Fatal(err)
			}
			meta := rs[0].Object["metadata"].(map[string]any)
			got := meta["annotations"].(map[string]any)["argocd.argoproj.io/tracking-id"]
			if got != tc.want {
				t.Errorf("tracking id %q, want %q", got, tc.want)
			}
		})
	}
}

package render

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the current output")

func TestHelmGolden(t *testing.T) {
	demo := chartBytes(t, "demo")
	for _, tc := range []struct {
		golden string
		req    Request
	}{
		// KubeVersion is pinned so a k8s.io bump does not churn goldens.
		{"demo-defaults.yaml", Request{Chart: demo, KubeVersion: "1.33.0"}},
		{"demo-qa.yaml", Request{
			ReleaseName: "shop", Namespace: "qa", Chart: demo,
			ValueFiles:  []NamedBytes{{"envs/qa.yaml", []byte("env: qa\nreplicas: 2\n")}},
			Values:      []byte("image: {tag: '2.0'}\n"),
			Parameters:  []Parameter{{Name: "hosts", Value: "{a.example.com,b.example.com}"}},
			KubeVersion: "v1.30.2", APIVersions: []string{"example.com/v1"},
			SkipCrds: true, SkipTests: true,
		}},
		{"subchart.yaml", Request{ReleaseName: "sub", Namespace: "ns", Chart: chartBytes(t, "subchart")}},
		{"subpop.yaml", Request{ReleaseName: "pop", Chart: chartBytes(t, "subpop")}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			got, err := Helm(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", "golden", tc.golden), got)
		})
	}
}

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// TestHelmInputs checks what each Request field does to the rendered
// objects, independently of the golden files.
func TestHelmInputs(t *testing.T) {
	demo := chartBytes(t, "demo")
	for _, tc := range []struct {
		name string
		req  Request
		doc  string // "# Source:" suffix of the document to inspect
		want map[string]string
	}{
		{"capabilities default", Request{Chart: demo}, "capabilities.yaml", map[string]string{
			"kubeVersion": DefaultKubeVersion(), "hasAppsV1": "true", "hasWidgets": "false",
			"hasWidgetKind": "false", "isInstall": "true",
		}},
		{"capabilities requested", Request{Chart: demo, KubeVersion: "1.29.4",
			APIVersions: []string{"example.com/v1", "example.com/v1/Widget"}},
			"capabilities.yaml", map[string]string{
				"kubeVersion": "v1.29.4", "kubeMinor": "29", "hasAppsV1": "true",
				"hasWidgets": "true", "hasWidgetKind": "true",
			}},
		{"namespace default", Request{Chart: demo}, "deployment.yaml", map[string]string{
			"namespace": "default", "name": "release-name-demo",
		}},
		{"namespace and release", Request{Chart: demo, Namespace: "qa", ReleaseName: "shop"},
			"deployment.yaml", map[string]string{"namespace": "qa", "name": "shop-demo"}},
		{"value files in order, helm.values, then parameters", Request{Chart: demo,
			ValueFiles: []NamedBytes{
				{"a.yaml", []byte("env: a\nreplicas: 2\nimage: {tag: a}\n")},
				{"b.yaml", []byte("env: b\nimage: {tag: b}\n")},
			},
			Values:     []byte("image: {tag: values}\nreplicas: 3\n"),
			Parameters: []Parameter{{Name: "image.tag", Value: "param"}},
		}, "deployment.yaml", map[string]string{
			"env": "b", "replicas": "3", "image": "nginx:param",
		}},
		{"set-string after set whatever the order", Request{Chart: demo, Parameters: []Parameter{
			{Name: "image.tag", Value: "string", ForceString: true},
			{Name: "image.tag", Value: "set"},
		}}, "deployment.yaml", map[string]string{"image": "nginx:string"}},
		{"comma is data unless a list", Request{Chart: demo, Parameters: []Parameter{
			{Name: "image.tag", Value: "1,2"},
			{Name: "hosts", Value: "{x,y}"},
		}}, "deployment.yaml", map[string]string{"image": "nginx:1,2", "hosts": "x,y"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Helm(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, pick(t, out, tc.doc, tc.want)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// pick reads the fields named in want from the document rendered from
// source: ConfigMap data keys, or a few Deployment fields.
func pick(t *testing.T, out []byte, source string, want map[string]string) map[string]string {
	t.Helper()
	var obj struct {
		Metadata struct {
			Name, Namespace string
			Labels          map[string]string
		}
		Data map[string]string
		Spec struct {
			Replicas int
			Template struct {
				Spec struct {
					Containers []struct {
						Image string
						Env   []struct{ Value string }
					}
				}
			}
		}
	}
	doc := findDoc(t, out, source)
	if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
		t.Fatalf("%s: %v", source, err)
	}
	fields := map[string]string{"name": obj.Metadata.Name, "namespace": obj.Metadata.Namespace}
	for k, v := range obj.Data {
		fields[k] = v
	}
	if c := obj.Spec.Template.Spec.Containers; len(c) > 0 {
		fields["env"] = obj.Metadata.Labels["env"]
		fields["replicas"] = strconv.Itoa(obj.Spec.Replicas)
		fields["image"] = c[0].Image
		fields["hosts"] = c[0].Env[0].Value
	}
	got := map[string]string{}
	for k := range want {
		got[k] = fields[k]
	}
	return got
}

func findDoc(t *testing.T, out []byte, source string) string {
	t.Helper()
	for _, doc := range strings.Split(string(out), "---\n") {
		first, _, _ := strings.Cut(doc, "\n")
		if strings.HasPrefix(first, "# Source: ") && strings.HasSuffix(first, "/"+source) {
			return doc
		}
	}
	t.Fatalf("no document from %s in:\n%s", source, out)
	return ""
}

func TestHelmSkips(t *testing.T) {
	demo := chartBytes(t, "demo")
	for _, tc := range []struct {
		name string
		req  Request
		want []string // sources present, in order
	}{
		{"everything", Request{Chart: demo}, []string{
			"demo/crds/widgets.yaml", "demo/templates/secret.yaml", "demo/templates/capabilities.yaml",
			"demo/templates/deployment.yaml", "demo/templates/hooks.yaml", "demo/templates/hooks.yaml",
		}},
		{"skip crds and tests", Request{Chart: demo, SkipCrds: true, SkipTests: true}, []string{
			"demo/templates/secret.yaml", "demo/templates/capabilities.yaml",
			"demo/templates/deployment.yaml", "demo/templates/hooks.yaml",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Helm(context.Background(), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, line := range strings.Split(string(out), "\n") {
				if src, ok := strings.CutPrefix(line, "# Source: "); ok {
					got = append(got, src)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("sources (-want +got):\n%s", diff)
			}
		})
	}
}

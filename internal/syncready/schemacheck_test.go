package syncready

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func widgetCRD(served bool) map[string]any {
	return map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{"group": "example.com", "names": map[string]any{"kind": "Widget", "plural": "widgets"}, "scope": "Namespaced",
			"versions": []any{map[string]any{"name": "v1", "served": served, "storage": true, "schema": map[string]any{"openAPIV3Schema": map[string]any{
				"type": "object", "properties": map[string]any{"spec": map[string]any{"type": "object",
					"properties": map[string]any{"size": map[string]any{"type": "integer"}}}}}}}}}}
}

func obj(body map[string]any, source string) Object {
	meta, _ := body["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	return Object{APIVersion: body["apiVersion"].(string), Kind: body["kind"].(string), Namespace: "ns", Name: name, Schema: NewSchema(body, source)}
}

func widget(name string, spec map[string]any) map[string]any {
	return map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": name}, "spec": spec}
}

// TestSchemaFindingsInEnv: a custom resource is judged by the CRD another
// app of the env renders, else by one the repository keeps; a kind with
// neither (or a version its CRD does not serve) is one schema-unknown-kind
// per env naming its apps, never valid; a built-in group's removed
// version is left to api-removed.
func TestSchemaFindingsInEnv(t *testing.T) {
	bad := widget("bad", map[string]any{"size": "big", "colour": "red"})
	repo, _ := ReadCRD(widgetCRD(true), "crds/widget.yaml:1")
	tests := []struct {
		name string
		apps []App
		crds []CRD
		want []string
	}{
		{"CRD rendered by another app", []App{
			{Name: "crds", Objects: []Object{obj(widgetCRD(true), "templates/crd.yaml")}},
			{Name: "user", Objects: []Object{obj(bad, "")}},
		}, nil, []string{
			"schema-type user Widget/bad: field spec.size must be an integer, not a string (schema of CRD widgets.example.com, app crds (templates/crd.yaml))",
			"schema-unknown-field user Widget/bad: field spec.colour is not in the schema (schema of CRD widgets.example.com, app crds (templates/crd.yaml))",
		}},
		{"CRD in the repository", []App{{Name: "user", Objects: []Object{obj(bad, "")}}}, []CRD{repo}, []string{
			"schema-type user Widget/bad: field spec.size must be an integer, not a string (schema of CRD widgets.example.com, crds/widget.yaml:1)",
			"schema-unknown-field user Widget/bad: field spec.colour is not in the schema (schema of CRD widgets.example.com, crds/widget.yaml:1)",
		}},
		{"no CRD: once per env", []App{
			{Name: "a", Objects: []Object{obj(bad, ""), obj(widget("other", nil), "")}},
			{Name: "b", Objects: []Object{obj(widget("third", nil), "")}},
		}, nil, []string{
			"schema-unknown-kind  Widget/: no schema for example.com/v1 Widget in env qa: not a Kubernetes 1.37 kind, and no CRD serves it among the env's rendered objects or the repository's files with \"crd\" in their path; its fields were not checked (rendered by a, b)",
		}},
		{"version not served", []App{{Name: "a", Objects: []Object{obj(widgetCRD(false), ""), obj(widget("w", nil), "")}}}, nil,
			[]string{"schema-unknown-kind  Widget/: no schema for example.com/v1 Widget in env qa: not a Kubernetes 1.37 kind, and no CRD serves it among the env's rendered objects or the repository's files with \"crd\" in their path; its fields were not checked (rendered by a)"}},
		{"removed built-in version: api-removed alone", []App{{Name: "a", Objects: []Object{obj(map[string]any{"apiVersion": "extensions/v1beta1", "kind": "Ingress",
			"metadata": map[string]any{"name": "web"}, "spec": map[string]any{"nonsense": 1}}, "")}}}, nil, nil},
		{"built-in kinds", []App{{Name: "a", Objects: []Object{
			obj(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "ok"}, "data": map[string]any{"a": "b"}}, ""),
			obj(map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "d"},
				"spec": map[string]any{"replicas": 1.0, "template": map[string]any{"spec": map[string]any{"containers": []any{
					map[string]any{"name": "c", "imagePullPolcy": "Always", "ports": []any{map[string]any{"containerPort": "80"}}}}}}}}, ""),
		}}}, nil, []string{
			"schema-type a Deployment/d: field spec.template.spec.containers[0].ports[0].containerPort must be a number, not a string (schema of Kubernetes 1.37, client-go v0.37.1)",
			"schema-unknown-field a Deployment/d: field spec.template.spec.containers[0].imagePullPolcy is not in the schema (schema of Kubernetes 1.37, client-go v0.37.1)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			fs, err := Check(Env{Name: "qa", Apps: tt.apps, CRDs: tt.crds, KubeVersion: "1.30"})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fs {
				if !strings.HasPrefix(f.Rule, "schema-") {
					continue // the other rules have their own tests
				}
				got = append(got, fmt.Sprintf("%s %s %s/%s: %s", f.Rule, f.App, f.Kind, f.Name, f.Message))
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestSchemaMessagesHoldNoValues: a Secret's values never reach a
// finding, whatever is wrong with them.
func TestSchemaMessagesHoldNoValues(t *testing.T) {
	s := map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s", "labels": map[string]any{"k": 12345678}},
		"data": map[string]any{"password": []any{"hunter2"}}, "stringData": "sesame-open", "hunter3": "x"}
	fs, err := Check(Env{Name: "qa", Apps: []App{{Name: "a", Objects: []Object{obj(s, "")}}}})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range fs {
		if !strings.HasPrefix(f.Rule, "schema-") {
			continue
		}
		n++
		for _, v := range []string{"hunter2", "sesame", "12345678"} {
			if strings.Contains(f.Message, v) {
				t.Errorf("%s quotes a value: %s", f.Rule, f.Message)
			}
		}
	}
	if n != 4 {
		t.Errorf("%d schema findings, want 4 (label, data.password, stringData, hunter3): %v", n, fs)
	}
}

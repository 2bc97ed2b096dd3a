package kube

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/config"
)

func deployment() map[string]any {
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "ns", "labels": map[string]any{"a/b": "x", "keep": "y"}},
		"spec": map[string]any{"replicas": int64(3), "template": map[string]any{"spec": map[string]any{
			"containers": []any{map[string]any{"name": "c", "image": "i:1", "env": []any{map[string]any{"name": "A", "value": "1"}}}}}}},
	}
}

var webRef = Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "ns", Name: "web"}

// Rules apply as Argo CD's ignore normalizer applies them: matched by
// group and kind globs and exact name and namespace; a pointer or a path
// that is missing is skipped.
func TestIgnoreApply(t *testing.T) {
	tests := []struct {
		name string
		rule argo.IgnoreDifference
		want func(m map[string]any)
	}{
		{"json pointer", argo.IgnoreDifference{Group: "apps", Kind: "Deployment", JSONPointers: []string{"/spec/replicas"}},
			func(m map[string]any) { delete(m["spec"].(map[string]any), "replicas") }},
		{"escaped pointer", argo.IgnoreDifference{Group: "apps", Kind: "*", JSONPointers: []string{"/metadata/labels/a~1b"}},
			func(m map[string]any) { delete(m["metadata"].(map[string]any)["labels"].(map[string]any), "a/b") }},
		{"missing pointer is skipped", argo.IgnoreDifference{Group: "apps", Kind: "Deployment", JSONPointers: []string{"/spec/nope", "/spec/replicas"}},
			func(m map[string]any) { delete(m["spec"].(map[string]any), "replicas") }},
		{"jq path", argo.IgnoreDifference{Group: "apps", Kind: "Deploy*", JQPathExpressions: []string{`.spec.template.spec.containers[] | select(.name == "c").env`}},
			func(m map[string]any) {
				delete(m["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any), "env")
			}},
		{"other group", argo.IgnoreDifference{Group: "", Kind: "Deployment", JSONPointers: []string{"/spec/replicas"}}, func(map[string]any) {}},
		{"other name", argo.IgnoreDifference{Group: "apps", Kind: "Deployment", Name: "api", JSONPointers: []string{"/spec/replicas"}}, func(map[string]any) {}},
		{"other namespace", argo.IgnoreDifference{Group: "apps", Kind: "Deployment", Namespace: "x", JSONPointers: []string{"/spec/replicas"}}, func(map[string]any) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ig, err := CompileIgnore([]argo.IgnoreDifference{tt.rule})
			if err != nil {
				t.Fatal(err)
			}
			got, err := ig.apply(webRef, deployment())
			if err != nil {
				t.Fatal(err)
			}
			want := deployment()
			tt.want(want)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestCompileIgnoreErrors(t *testing.T) {
	_, err := CompileIgnore([]argo.IgnoreDifference{{Kind: "X", JQPathExpressions: []string{".spec["}}})
	if err == nil || !strings.Contains(err.Error(), `ignoreDifferences[0].jqPathExpressions ".spec["`) {
		t.Errorf("err = %v", err)
	}
	ig, err := CompileIgnore([]argo.IgnoreDifference{{Group: "apps", Kind: "Deployment", JQPathExpressions: []string{".spec.replicas, .metadata"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ig.apply(webRef, deployment()); err != nil {
		t.Errorf("del of two paths is one object: %v", err)
	}
}

func TestManagersMerged(t *testing.T) {
	ig, err := CompileIgnore([]argo.IgnoreDifference{
		{Group: "apps", Kind: "*", ManagedFieldsManagers: []string{"hpa", "kube-controller-manager"}},
		{Group: "apps", Kind: "Deployment", Name: "web", ManagedFieldsManagers: []string{"hpa", "vpa"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := ig.managers(webRef); !cmp.Equal(got, []string{"hpa", "kube-controller-manager", "vpa"}) {
		t.Errorf("managers = %v", got)
	}
}

// An object is the app's when its tracking id names the object itself and
// it has no owner; label tracking trusts the label.
func TestAppOf(t *testing.T) {
	ann := Tracking{Method: config.TrackingAnnotation}
	lab := Tracking{Method: config.TrackingLabel, LabelKey: "app.kubernetes.io/instance"}
	id := func(v string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Annotations: map[string]string{trackingIDKey: v}, Labels: map[string]string{"app.kubernetes.io/instance": "lbl"}}
	}
	owned := id("app:apps/Deployment:ns/web")
	owned.OwnerReferences = []metav1.OwnerReference{{Name: "x"}}
	ns := Ref{APIVersion: "v1", Kind: "Namespace", Name: "ns"}
	tests := []struct {
		name string
		tr   Tracking
		r    Ref
		m    metav1.ObjectMeta
		want string
	}{
		{"annotation", ann, webRef, id("app:apps/Deployment:ns/web"), "app"},
		{"copied annotation", ann, webRef, id("app:apps/Deployment:ns/other"), ""},
		{"other kind", ann, webRef, id("app:/ConfigMap:ns/web"), ""},
		{"cluster-scoped keeps the destination", ann, ns, id("app:/Namespace:dest/ns"), "app"},
		{"malformed", ann, webRef, id("app:Deployment:web"), ""},
		{"owned child", ann, webRef, owned, ""},
		{"label", lab, webRef, id("app:apps/Deployment:ns/other"), "lbl"},
		{"annotation+label reads the annotation", Tracking{Method: config.TrackingAnnotationAndLabel}, webRef, id("app:apps/Deployment:ns/web"), "app"},
		{"none", Tracking{Method: config.TrackingNone}, webRef, id("app:apps/Deployment:ns/web"), ""},
	}
	for _, tt := range tests {
		if got := tt.tr.appOf(tt.r, tt.m); got != tt.want {
			t.Errorf("%s: appOf = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestStripServerFields(t *testing.T) {
	obj := map[string]any{"kind": "ConfigMap", "status": map[string]any{"x": 1},
		"metadata": map[string]any{"name": "a", "uid": "u", "resourceVersion": "1", "generation": int64(2),
			"creationTimestamp": "t", "managedFields": []any{}, "labels": map[string]any{"k": "v"}}}
	stripServerFields(obj)
	want := map[string]any{"kind": "ConfigMap", "metadata": map[string]any{"name": "a", "labels": map[string]any{"k": "v"}}}
	if d := cmp.Diff(want, obj); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestHooksAndPruneOptOut(t *testing.T) {
	with := func(k, v string) map[string]any {
		return map[string]any{"metadata": map[string]any{"annotations": map[string]any{k: v}}}
	}
	if !isHook(with("argocd.argoproj.io/hook", "PreSync")) || !isHook(with("helm.sh/hook", "pre-install")) || isHook(with("helm.sh/hook", "crd-install")) {
		t.Error("hooks")
	}
	if !optsOut(with("argocd.argoproj.io/sync-options", "ServerSideApply=true, Prune=false")) || optsOut(with("argocd.argoproj.io/sync-options", "Prune=confirm")) {
		t.Error("Prune=false")
	}
}

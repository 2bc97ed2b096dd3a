package render

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// TestTracking follows Argo CD's resourceTracking.SetAppInstance for each
// method on a stream holding a namespaced object, a cluster-scoped one, a
// CRD, a List and a chart-set instance label.
func TestTracking(t *testing.T) {
	in := `---
# Source: c/templates/cm.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  labels: {app.kubernetes.io/instance: chart-says}
  annotations: {argocd.argoproj.io/installation-id: other, keep: "yes"}
data: {a: "1"}
---
# Source: c/templates/role.yaml
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader}
---
# Source: c/crds/crd.yaml
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
---
apiVersion: v1
kind: List
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: other}
`
	long := "an-application-name-that-is-far-longer-than-sixty-three-characters-x"
	req := func(method, app string) *argo.Request {
		return &argo.Request{Tracking: method, InstanceLabelKey: "app.kubernetes.io/instance",
			BuildEnv: argo.BuildEnv{AppName: app, AppNamespace: "shop"}}
	}
	for _, tc := range []struct {
		name string
		req  *argo.Request
		want string
	}{
		{"annotation", req("annotation", "guestbook"), `---
# Source: c/templates/cm.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  labels: {app.kubernetes.io/instance: chart-says}
  annotations:
    keep: "yes"
    argocd.argoproj.io/tracking-id: guestbook:/ConfigMap:shop/cm
data: {a: "1"}
---
# Source: c/templates/role.yaml
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: reader
  annotations:
    argocd.argoproj.io/tracking-id: guestbook:rbac.authorization.k8s.io/ClusterRole:shop/reader
---
# Source: c/crds/crd.yaml
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
---
apiVersion: v1
kind: List
items:
  - apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: web
      namespace: other
      annotations:
        argocd.argoproj.io/tracking-id: guestbook:apps/Deployment:other/web
`},
		{"label", req("label", long), `---
# Source: c/templates/cm.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  labels:
    app.kubernetes.io/instance: ` + long + `
  annotations: {argocd.argoproj.io/installation-id: other, keep: "yes"}
data: {a: "1"}
---
# Source: c/templates/role.yaml
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: reader
  labels:
    app.kubernetes.io/instance: ` + long + `
---
# Source: c/crds/crd.yaml
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
---
apiVersion: v1
kind: List
items:
  - apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: web
      namespace: other
      labels:
        app.kubernetes.io/instance: ` + long + `
`},
		{"none", req("none", "guestbook"), in},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := track([]byte(in), tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	got, err := track([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n"), req("annotation+label", long))
	if err != nil {
		t.Fatal(err)
	}
	want := "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  annotations:\n    argocd.argoproj.io/tracking-id: " + long +
		":/ConfigMap:shop/cm\n  labels:\n    app.kubernetes.io/instance: " + long[:63] + "\n"
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("annotation+label (-want +got):\n%s", diff)
	}
}

// A document nested past the diff's bound is passed on byte for byte, not
// re-encoded (which cost a 9000-deep list hundreds of MB), so the diff
// refuses it with its own per-app error.
func TestTrackingLeavesTooDeepDocuments(t *testing.T) {
	deep := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\nspec: " +
		strings.Repeat("[", diff.MaxDepth+10) + "a" + strings.Repeat("]", diff.MaxDepth+10) + "\n"
	shallow := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n"
	got, err := track([]byte("---\n"+deep+"---\n"+shallow), &argo.Request{Tracking: "annotation", BuildEnv: argo.BuildEnv{AppName: "app", AppNamespace: "ns"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "---\n"+deep) {
		t.Errorf("the deep document was changed:\n%.300s", got)
	}
	if !strings.Contains(string(got), "argocd.argoproj.io/tracking-id: app:/ConfigMap:ns/ok") {
		t.Errorf("the shallow document is not tracked:\n%s", got)
	}
}

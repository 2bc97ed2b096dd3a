package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

// secretManifest holds value in every structural form of issue 9 item 8:
// a Secret in Lists in a List, an anchor in stringData aliased into an
// annotation (and the reverse), last-applied-configuration deep in a pod
// template, a Secret nested in another object, a ConfigMap aliasing a
// Secret value in one List.
func secretManifest(name, value string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: List
  items:
  - {apiVersion: v1, kind: Secret, metadata: {name: %[1]s-deep}, stringData: {pw: %[2]s-list}, data: {k: %[3]s}}
---
apiVersion: v1
kind: Secret
stringData: {pw: &p %[2]s-anchor}
metadata: {name: %[1]s-anchored, annotations: {copy: *p}}
---
apiVersion: v1
kind: Secret
metadata: {name: %[1]s-reverse, annotations: {origin: &r %[2]s-reverse}}
stringData: {pw: *r}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s}
spec:
  template:
    metadata:
      annotations:
        kubectl.kubernetes.io/last-applied-configuration: '{"data":{"pw":"%[2]s-applied"}}'
---
apiVersion: template.openshift.io/v1
kind: Template
metadata: {name: %[1]s-tpl}
objects:
- {apiVersion: v1, kind: Secret, metadata: {name: nested}, stringData: {pw: %[2]s-nested}}
---
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Secret, metadata: {name: %[1]s-s}, stringData: {pw: &l %[2]s-inlist}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: %[1]s-cm}, data: {copy: *l, shown: visible-config}}
`, name, value, base64.StdEncoding.EncodeToString([]byte(value+"-data")))
}

// TestNoOutputFormatShowsSecrets: the same planted values in added,
// removed and changed apps, several apps sharing one change (the grouped
// "same change in N apps" section), in markdown, JSON and the terminal
// diff with and without colour.
func TestNoOutputFormatShowsSecrets(t *testing.T) {
	const plant = "Pl4nted-Rep0rt"
	var apps []App
	for i := range 3 {
		name := fmt.Sprintf("app-%d", i)
		apps = append(apps, appOf(t, "qa", name, secretManifest(name, plant+"-base"), secretManifest(name, plant+"-head")))
	}
	apps = append(apps,
		App{Env: "prod", Name: "new", Status: StatusAdded, Resources: appOf(t, "prod", "new", "", secretManifest("new", plant+"-added")).Resources},
		App{Env: "prod", Name: "gone", Status: StatusRemoved, Resources: appOf(t, "prod", "gone", secretManifest("gone", plant+"-removed"), "").Resources},
	)
	rep := Report{Base: "a", Head: "b", Apps: apps}
	var out bytes.Buffer
	for name, write := range map[string]func() error{
		"markdown": func() error { return Markdown(&out, rep) },
		"json":     func() error { return JSON(&out, rep) },
		"diff":     func() error { return Diff(&out, rep, false) },
		"colour":   func() error { return Diff(&out, rep, true) },
	} {
		if err := write(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	all := out.String()
	for _, suffix := range []string{"-base", "-head", "-added", "-removed"} {
		v := plant + suffix
		for _, f := range []string{plant, strings.ToLower(plant), base64.StdEncoding.EncodeToString([]byte(v + "-list")),
			base64.StdEncoding.EncodeToString([]byte(v + "-data"))} {
			if strings.Contains(all, f) {
				t.Errorf("%q in the outputs", f)
			}
		}
	}
	for _, want := range []string{"visible-config", "<redacted: changed>", "<redacted: added>", "same change in 3 apps"} {
		if !strings.Contains(all, want) {
			t.Errorf("outputs lack %q: the fixture is not exercising what it should", want)
		}
	}
}

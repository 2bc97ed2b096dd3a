package diff

import (
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

// planted values: none of them, in any form, may appear in a diff.
var plantedValues = []string{"PLANT-list-1", "PLANT-list-2", "PLANT-anchor", "PLANT-reverse", "PLANT-lastapplied",
	"PLANT-nested", "PLANT-merge", "PLANT-aliaskey", "PLANT-inlist-alias", "PLANT-data-map", "PLANT-flow"}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func checkNoPlanted(t *testing.T, out string) {
	t.Helper()
	for _, v := range plantedValues {
		for _, f := range []string{v, b64(v), strings.ToLower(v)} {
			if strings.Contains(out, f) {
				t.Errorf("planted %q leaked as %q in:\n%s", v, f, out)
			}
		}
	}
	if strings.Contains(out, "\x00") || strings.Contains(out, "gitops-promote-redact") {
		t.Errorf("taint marker in output:\n%s", out)
	}
}

// structuralSecrets are the Secret shapes of issue 9 item 8, and more of
// the same class: any List nesting, any alias, last-applied at any depth.
func structuralSecrets(suffix string) string {
	v := func(name string) string { return name + suffix }
	return `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: List
  items:
  - apiVersion: v1
    kind: List
    items:
    - apiVersion: v1
      kind: Secret
      metadata: {name: deep-in-lists}
      stringData: {pw: ` + v("PLANT-list-1") + `}
      data: {token: ` + b64(v("PLANT-list-2")) + `}
---
apiVersion: v1
kind: Secret
stringData: {pw: &p ` + v("PLANT-anchor") + `}
metadata:
  name: anchored
  annotations: {copy: *p, also: "x"}
---
apiVersion: v1
kind: Secret
metadata:
  name: reverse
  annotations: {origin: &r ` + v("PLANT-reverse") + `}
stringData: {pw: *r}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    metadata:
      annotations:
        kubectl.kubernetes.io/last-applied-configuration: '{"stringData":{"pw":"` + v("PLANT-lastapplied") + `"}}'
    spec:
      containers:
      - name: c
        env:
        - name: X
          value: shown-env-value
---
apiVersion: template.openshift.io/v1
kind: Template
metadata: {name: tpl}
objects:
- apiVersion: v1
  kind: Secret
  metadata: {name: nested}
  stringData: {pw: ` + v("PLANT-nested") + `}
---
apiVersion: v1
kind: Secret
metadata:
  name: merged
  annotations: &m {k: ` + v("PLANT-merge") + `}
stringData:
  <<: *m
---
apiVersion: v1
kind: Secret
stringData: {pw: &ak ` + v("PLANT-aliaskey") + `}
metadata:
  name: alias-key
  annotations: {*ak : value}
---
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Secret, metadata: {name: s-in-list}, stringData: {pw: &l ` + v("PLANT-inlist-alias") + `}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: cm-in-list}, data: {copy: *l, plain: shown-cm-value}}
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Secret
  metadata: {name: data-map}
  data: &dm {k: ` + b64(v("PLANT-data-map")) + `}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: copies-data-map}
  data: {seal: shown-too}
  binaryData: *dm
---
{apiVersion: v1, kind: Secret, stringData: {pw: &f ` + v("PLANT-flow") + `}, metadata: {name: flow, annotations: {c: *f}}}
---
apiVersion: bitnami.com/v1alpha1
kind: SealedSecret
metadata: {name: sealed}
spec: {encryptedData: {pw: AgBshown-sealed}}
---
apiVersion: external-secrets.io/v1beta1
kind: ExternalSecret
metadata: {name: ext}
spec: {target: {template: {data: {url: "shown-external-{{ .pw }}"}}}}
`
}

func TestStructuralSecretsRedacted(t *testing.T) {
	baseRs := one(t, structuralSecrets("-base"))
	headRs := one(t, structuralSecrets("-head"))
	for _, tc := range []struct {
		name       string
		base, head []Resource
	}{
		{"added", nil, headRs},
		{"removed", baseRs, nil},
		{"changed", baseRs, headRs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := Resources(tc.base, tc.head, nil, Options{})
			out := render(ds) + fmt.Sprintf("%#v", ds)
			checkNoPlanted(t, out)
			for _, shown := range []string{"shown-env-value", "shown-cm-value", "AgBshown-sealed", "shown-external-", "shown-too"} {
				if tc.name != "changed" && !strings.Contains(out, shown) {
					t.Errorf("%q should be shown (ConfigMaps, SealedSecrets, ExternalSecrets and env values are not secret)", shown)
				}
			}
			for _, name := range []string{"deep-in-lists", "nested", "s-in-list", "cm-in-list", "anchored", "reverse", "merged", "alias-key", "flow"} {
				if !strings.Contains(out, name) {
					t.Errorf("resource %s missing from the diff", name)
				}
			}
		})
	}
	// a change of the Secret value shows on its alias copy as well
	ds := Resources(baseRs, headRs, nil, Options{})
	for _, d := range ds {
		if d.Name == "anchored" && !strings.Contains(d.Diff, "+    copy: <redacted: changed>") {
			t.Errorf("alias copy of a changed value not shown as changed:\n%s", d.Diff)
		}
		if d.Name == "cm-in-list" && !strings.Contains(d.Diff, "copy: <redacted: changed>") {
			t.Errorf("ConfigMap copy of a Secret value not redacted as changed:\n%s", d.Diff)
		}
	}
}

func TestIdentityFromAnAliasIsShown(t *testing.T) {
	rs := one(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: &n shown-name}\nstringData: {pw: *n}\n")
	if rs[0].Name != "shown-name" {
		t.Fatalf("name %q", rs[0].Name)
	}
	out := render(Resources(nil, rs, nil, Options{}))
	if strings.Contains(out, "\x00") || !strings.Contains(out, "name: shown-name") {
		t.Errorf("identity:\n%s", out)
	}
}

func TestLimits(t *testing.T) {
	deep := func(n int) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\nspec: " + strings.Repeat("[", n) + "1" + strings.Repeat("]", n) + "\n"
	}
	if _, err := Parse([]byte(deep(9000)), "ns"); err == nil || !strings.Contains(err.Error(), "nested deeper than 256 levels") {
		t.Errorf("9000 deep: %v", err)
	}
	rs, err := Parse([]byte(deep(250)), "ns")
	if err != nil {
		t.Fatalf("250 deep: %v", err)
	}
	d := Resources(nil, rs, rs, Options{})
	if len(d) != 1 || d[0].Status != Added {
		t.Errorf("250 deep: %+v", d)
	}
	big := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata: {a: " + strings.Repeat("x", 8<<20) + "}\n"
	if _, err := Parse([]byte(big), "ns"); err == nil || !strings.Contains(err.Error(), "larger than 8 MiB") {
		t.Errorf("big: %v", err)
	}
	laughs := "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {a: &a [x, x, x, x, x, x, x, x, x, x]}\n"
	prev := "a"
	for _, c := range "bcdefghi" {
		laughs += fmt.Sprintf("%c: &%c [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n", c, c, prev, prev, prev, prev, prev, prev, prev, prev, prev, prev)
		prev = string(c)
	}
	if _, err := Parse([]byte(laughs), "ns"); err == nil {
		t.Error("billion laughs through a Secret's data parsed")
	}
}

// BenchmarkResourcesDeep shows the diff's cost against nesting depth; it
// grows linearly (run with -benchmem).
func BenchmarkResourcesDeep(b *testing.B) {
	for _, n := range []int{50, 250} {
		doc := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: deep}\nspec: " + strings.Repeat("[", n) + "1" + strings.Repeat("]", n) + "\n"
		other := strings.Replace(doc, "1]", "2]", 1)
		a, _ := Parse([]byte(doc), "ns")
		c, _ := Parse([]byte(other), "ns")
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				Resources(a, c, a, Options{})
			}
		})
	}
}

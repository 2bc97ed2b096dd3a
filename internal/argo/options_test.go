package argo

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseKustomizeOptions(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		want      *KustomizeOptions
		wantErr   string
	}{
		{"absent", "", nil, ""},
		{"empty", "{}\n", &KustomizeOptions{}, ""},
		{"fields", `{namePrefix: p-, images: [nginx:1], replicas: [{name: a, count: 2}, {name: b, count: "3"}],
			patches: [{path: x.yaml, target: {kind: Deployment, labelSelector: a=b}, options: {allowNameChange: true}}],
			components: [../c], ignoreMissingComponents: true, labelWithoutSelector: true}`,
			&KustomizeOptions{NamePrefix: "p-", Images: []string{"nginx:1"},
				Replicas: []KustomizeReplica{{"a", "2"}, {"b", "3"}},
				Patches: []KustomizePatch{{Path: "x.yaml", Target: &KustomizeSelector{Kind: "Deployment", LabelSelector: "a=b"},
					Options: map[string]bool{"allowNameChange": true}}},
				Components: []string{"../c"}, IgnoreMissingComponents: true, LabelWithoutSelector: true}, ""},
		{"unknown field", "{nameprefix: x}", nil, `unknown field "nameprefix"`},
		{"unknown patch field", "{patches: [{patch: x, targets: {}}]}", nil, `kustomize.patches: unknown field "targets"`},
		{"unknown target field", "{patches: [{patch: x, target: {kinds: X}}]}", nil, `kustomize.patches.target: unknown field "kinds"`},
		{"count not a scalar", "{replicas: [{name: a, count: [1]}]}", nil, "count must be an integer or a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var raw []byte
			if tc.raw != "" {
				raw = []byte(tc.raw)
			}
			got, err := ParseKustomizeOptions(raw)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// Argo CD substitutes its build environment in images and commonLabels,
// in commonAnnotations only on request, and nowhere else.
func TestKustomizeSubstitute(t *testing.T) {
	o, err := ParseKustomizeOptions([]byte(`{namePrefix: $X-, images: [app:$X], commonLabels: {l: $X},
		commonAnnotations: {a: $X}, namespace: $X}`))
	if err != nil {
		t.Fatal(err)
	}
	sub := func(s string) string { return strings.ReplaceAll(s, "$X", "v") }
	o.Substitute(sub)
	if o.Images[0] != "app:v" || o.CommonLabels["l"] != "v" || o.CommonAnnotations["a"] != "$X" ||
		o.NamePrefix != "$X-" || o.Namespace != "$X" {
		t.Errorf("substituted %+v", o)
	}
	o.CommonAnnotationsEnvsubst = true
	o.Substitute(sub)
	if o.CommonAnnotations["a"] != "v" {
		t.Errorf("commonAnnotationsEnvsubst ignored: %+v", o.CommonAnnotations)
	}
}

func TestParseJsonnetOptions(t *testing.T) {
	o, err := ParseJsonnetOptions([]byte(`{extVars: [{name: a, value: $X}], tlas: [{name: b, value: "{x: $X}", code: true}], libs: [lib]}`))
	if err != nil {
		t.Fatal(err)
	}
	o.Substitute(func(s string) string { return strings.ReplaceAll(s, "$X", "v") })
	want := &JsonnetOptions{ExtVars: []JsonnetVar{{"a", "v", false}}, TLAs: []JsonnetVar{{"b", "{x: v}", true}}, Libs: []string{"lib"}}
	if d := cmp.Diff(want, o); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if _, err := ParseJsonnetOptions([]byte("{tlas: [{name: a, vlaue: b}]}")); err == nil || !strings.Contains(err.Error(), `unknown field "vlaue"`) {
		t.Errorf("err = %v", err)
	}
	if o, err := ParseJsonnetOptions(nil); o != nil || err != nil {
		t.Errorf("absent block = %v, %v", o, err)
	}
}

// FuzzParseOptions: the kustomize and jsonnet blocks may fail to parse,
// never panic.
func FuzzParseOptions(f *testing.F) {
	f.Add([]byte("{namePrefix: p-, replicas: [{name: a, count: 2}], patches: [{target: {kind: X}}]}"))
	f.Add([]byte("{extVars: [{name: a, value: b, code: true}], libs: [x]}"))
	f.Add([]byte("null"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if o, err := ParseKustomizeOptions(data); err == nil {
			o.Substitute(strings.ToUpper)
			_ = o.Edits()
		}
		if o, err := ParseJsonnetOptions(data); err == nil {
			o.Substitute(strings.ToUpper)
		}
	})
}

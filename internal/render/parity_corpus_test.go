//go:build bundled

package render

import (
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/gitops-promote/gitops-promote/internal/testutil/toolbin"
)

// TestHelmCorpusParity renders a corpus of real charts with both Helm
// majors, each with our renderer and with the released binary, and fails
// on any byte of difference. It also pins down where helm 3 and helm 4
// themselves differ on the corpus (docs/manifestdiff.md lists it), so a
// new difference between the majors shows up here first.
func TestHelmCorpusParity(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real helm binaries and downloads charts; run without -short")
	}
	bins := map[string]string{}
	for _, m := range helmMajors {
		bins[m.name] = toolbin.Path(t, m.tool)
	}
	for _, tc := range corpusCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			// Cases run side by side (-parallel, GOMAXPROCS by default):
			// half of each is a helm process, half an in-process render.
			t.Parallel()
			outs := map[string][]byte{}
			failed := map[string]bool{}
			for _, m := range helmMajors {
				t.Run(m.name, func(t *testing.T) {
					out := checkParity(t, m, bins[m.name], parityCase{tc.name, tc.req, tc.wantErr})
					outs[m.name], failed[m.name] = out, out == nil
				})
			}
			// Blank lines between documents differ on most charts (helm 4
			// keeps a template's trailing newlines); the objects must not,
			// unless the case says why.
			differ := failed["helm3"] != failed["helm4"] || !sameObjects(t, outs["helm3"], outs["helm4"])
			if differ != (tc.majorsDiffer != "") {
				t.Errorf("helm 3 and helm 4 objects differ = %v, want %v (%q)", differ, !differ, tc.majorsDiffer)
			}
		})
	}
}

// sameObjects reports whether two `helm template` outputs hold the same
// objects from the same sources, in the same order, whatever the blank
// lines and formatting.
func sameObjects(t *testing.T, a, b []byte) bool {
	return reflect.DeepEqual(templateObjects(t, a), templateObjects(t, b))
}

func templateObjects(t *testing.T, out []byte) []any {
	t.Helper()
	var objs []any
	for _, doc := range splitYAML(string(out)) {
		var obj any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatalf("helm printed a document that does not parse: %v\n%s", err, doc)
		}
		if obj == nil {
			continue
		}
		source := ""
		if i := strings.Index(doc, "# Source: "); i >= 0 {
			source, _, _ = strings.Cut(doc[i:], "\n")
		}
		objs = append(objs, source, obj)
	}
	return objs
}

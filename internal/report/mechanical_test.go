package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// What follows from a version move and what does not, line pair by line
// pair, with the moves of one chart bump and its image tag.
func TestMechanicalLines(t *testing.T) {
	moves := []Move{
		{Component: "dlt-node.backend", Field: "chartVersion", Old: "3.0.0", New: "3.1.0"},
		{Component: "dlt-node.backend", Field: "imageTag", Old: "v2.0.0", New: "v2.1.0"},
	}
	tests := []struct {
		name string
		hunk string
		want map[string]int // nil: not mechanical
	}{
		{"chart label and version label", "-    helm.sh/chart: dlt-backend-3.0.0\n-    app.kubernetes.io/version: v3.0.0\n+    helm.sh/chart: dlt-backend-3.1.0\n+    app.kubernetes.io/version: v3.1.0\n",
			map[string]int{LineChartLabel: 1, LineVersion: 1}},
		{"image tag", "-          image: registry.example.com/dlt/backend:v2.0.0\n+          image: registry.example.com/dlt/backend:v2.1.0\n", map[string]int{LineImage: 1}},
		{"image tag without its v", "-    app.kubernetes.io/version: \"2.0.0\"\n+    app.kubernetes.io/version: \"2.1.0\"\n", map[string]int{LineVersion: 1}},
		{"checksum annotation", "-        checksum/config: 0a1b\n+        checksum/config: 9f8e\n", map[string]int{LineChecksum: 1}},
		{"a hand edit", "-      LOG_LEVEL: debug\n+      LOG_LEVEL: trace\n", nil},
		{"a version to another version", "-          image: backend:v2.0.0\n+          image: backend:v2.2.0\n", nil},
		{"a moved version next to a hand edit", "-    helm.sh/chart: dlt-backend-3.0.0\n+    helm.sh/chart: dlt-backend-3.1.0\n-      replicas: 1\n+      replicas: 3\n", nil},
		{"a line added", "+    helm.sh/chart: dlt-backend-3.1.0\n", nil},
		{"a redacted Secret value", "-  password: <redacted>\n+  password: <redacted: changed>\n", nil},
		{"another annotation", "-        note/config: 0a1b\n+        note/config: 9f8e\n", nil},
	}
	rep := moveReplacer(moves)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rd := diff.ResourceDiff{Status: diff.Changed, Diff: "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n metadata:\n" + tt.hunk + " spec: {}\n"}
			got, ok := mechanicalLines(rd, rep)
			if ok != (tt.want != nil) {
				t.Fatalf("mechanical = %v, want %v", ok, tt.want != nil)
			}
			if diff := cmp.Diff(tt.want, got); ok && diff != "" {
				t.Errorf("line kinds (-want +got):\n%s", diff)
			}
		})
	}
	if moveReplacer([]Move{{Old: "1", New: "2"}}) != nil {
		t.Error("a one-character version makes every digit look moved")
	}
}

// The story of a report: a line per env of what moved with the apps that
// follow each component, an app whose every change follows the moves
// folded, an app with a hand edit too not.
func TestStory(t *testing.T) {
	bump := Move{Component: "web", Field: "chartVersion", Old: "1.0.0", New: "1.1.0"}
	label := "--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n-    helm.sh/chart: web-1.0.0\n+    helm.sh/chart: web-1.1.0\n"
	edit := "--- a/y\n+++ b/y\n@@ -1,1 +1,1 @@\n-  level: debug\n+  level: trace\n"
	r := Report{Apps: []App{
		{Env: "prod", Name: "a", Status: StatusChanged, Moves: []Move{bump}, Resources: []diff.ResourceDiff{{Kind: "Service", Name: "a", Status: diff.Changed, Diff: label}}},
		{Env: "prod", Name: "b", Status: StatusChanged, Moves: []Move{bump}, Resources: []diff.ResourceDiff{
			{Kind: "Service", Name: "b", Status: diff.Changed, Diff: label}, {Kind: "ConfigMap", Name: "b", Status: diff.Changed, Diff: edit}}},
		{Env: "qa", Name: "c", Status: StatusChanged, Resources: []diff.ResourceDiff{{Kind: "Service", Name: "c", Status: diff.Changed, Diff: label}}},
	}}
	st := r.Story()
	if len(st.Moves) != 1 || MoveLine(st.Moves[0]) != "web chart 1.0.0 → 1.1.0 (2 apps)" {
		t.Errorf("moves = %+v", st.Moves)
	}
	for _, tt := range []struct {
		app            App
		folded, shares bool
	}{{r.Apps[0], true, true}, {r.Apps[1], false, true}, {r.Apps[2], false, false}} {
		if st.MechanicalApp(tt.app) != tt.folded || st.Touched(tt.app) != tt.shares {
			t.Errorf("%s: folded %v, touched %v; want %v, %v", tt.app.Name, st.MechanicalApp(tt.app), st.Touched(tt.app), tt.folded, tt.shares)
		}
	}
	if c := st.Mechanical; c.Apps != 1 || c.Touched != 2 || c.Resources != 2 || c.Lines[LineChartLabel] != 2 {
		t.Errorf("counts = %+v", c)
	}
}

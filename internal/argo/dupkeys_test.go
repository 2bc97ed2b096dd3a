package argo

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"go.yaml.in/yaml/v3"
)

// TestDuplicateKeyInManifests is issue 9 item 4 at the one place every
// reader of manifests passes: a repeated key anywhere in a document (a
// source's targetRevision, which no struct decode sees, included) is
// found where the file is split, with file:line of both occurrences.
// ReadManifests (promote's ordering rules over every env, check) refuses
// the env; Discover (manifestdiff) fails only that document's apps.
func TestDuplicateKeyInManifests(t *testing.T) {
	dup := app("twice", "  source:\n    repoURL: r\n    chart: c\n    targetRevision: 1.0.0\n    targetRevision: 2.0.0\n")
	m := fstest.MapFS{
		"argocd/qa/a.yaml": {Data: []byte(app("fine", "  source: {repoURL: r, chart: c, targetRevision: 1.0.0}\n") + "---\n" + dup)},
		"argocd/qa/b.yaml": {Data: []byte(app("other", "  source: {repoURL: r, chart: c, targetRevision: 1.0.0}\n"))},
	}
	const want = `argocd/qa/a.yaml:15: key "targetRevision" is already defined at line 14: duplicate mapping key`

	_, err := ReadManifests(m, testConfig(t), "qa")
	var de *DuplicateKeyError
	if !errors.As(err, &de) || !errors.Is(err, ErrDuplicateKey) || !strings.Contains(err.Error(), want) {
		t.Fatalf("ReadManifests: err = %v, want a *DuplicateKeyError %q", err, want)
	}
	if de.File != "argocd/qa/a.yaml" || de.Line != 15 || de.First != 14 || de.Key != "targetRevision" {
		t.Errorf("located %+v", de)
	}

	apps, err := Discover(m, testConfig(t), "qa")
	var derr *DiscoveryError
	if !errors.As(err, &derr) || len(derr.Failures) != 1 {
		t.Fatalf("Discover: err = %v, want one failure", err)
	}
	f := derr.Failures[0]
	if f.Name != "twice" || f.WholeFile || !strings.Contains(f.Err.Error(), want) {
		t.Errorf("failure %+v (%v), want app twice failing with %q", f, f.Err, want)
	}
	var names []string
	for _, a := range apps {
		names = append(names, a.Name)
	}
	if strings.Join(names, ",") != "fine,other" {
		t.Errorf("apps %v, want the other documents' apps fine,other", names)
	}
}

func TestDuplicateKeyFinds(t *testing.T) {
	tests := []struct {
		name, doc   string
		key         string
		line, first int
	}{
		{"none", "a: 1\nb: {c: 1, d: 2}\n", "", 0, 0},
		{"top level", "a: 1\nb: 2\na: 3\n", "a", 3, 1},
		{"nested in a list", "l:\n  - x: 1\n    x: 2\n", "x", 3, 2},
		{"flow mapping", "m: {k: 1, k: 2}\n", "k", 1, 1},
		{"quoted and plain are one key", "\"k\": 1\nk: 2\n", "k", 2, 1},
		{"merge keys repeated", "a: &a {x: 1}\nb:\n  <<: *a\n  <<: *a\n", "<<", 4, 3},
		{"alias not followed", "a: &a {x: 1}\nb: *a\nc: *a\n", "", 0, 0},
		{"big mapping", bigMapping(40, "k7"), "k7", 41, 8},
		{"big mapping without repeat", bigMapping(40, ""), "", 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n yaml.Node
			if err := yaml.Unmarshal([]byte(tt.doc), &n); err != nil {
				t.Fatal(err)
			}
			k, first := duplicateKey(n.Content[0])
			got := ""
			line := 0
			if k != nil {
				got, line = k.Value, k.Line
			}
			if got != tt.key || line != tt.line || first != tt.first {
				t.Errorf("got %q at %d (first %d), want %q at %d (first %d)", got, line, first, tt.key, tt.line, tt.first)
			}
		})
	}
}

// bigMapping has n keys k0..k(n-1), one per line, then repeat if set.
func bigMapping(n int, repeat string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("k" + itoa(i) + ": v\n")
	}
	if repeat != "" {
		b.WriteString(repeat + ": again\n")
	}
	return b.String()
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// TestPosErrorKeepsLaterLines is issue 9's error text gap: posError moved
// the first "line N:" to the front and deleted every other one, so
// yaml's "mapping key "a" already defined at line 1" lost its line.
func TestPosErrorKeepsLaterLines(t *testing.T) {
	var v map[string]any
	err := yaml.Unmarshal([]byte("a: 1\nb: 2\na: 3\n"), &v)
	if err == nil {
		t.Fatal("yaml accepted a duplicate key")
	}
	got := posError("f.yaml", 0, err).Error()
	if want := `f.yaml:3: mapping key "a" already defined at line 1`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var s struct{ A, B int }
	err = yaml.Unmarshal([]byte("a: x\nb: y\n"), &s)
	got = posError("f.yaml", 0, err).Error()
	if !strings.HasPrefix(got, "f.yaml:1: ") || !strings.Contains(got, "line 2: cannot unmarshal") {
		t.Errorf("two errors: got %q, want the first line up front and the second kept", got)
	}
}

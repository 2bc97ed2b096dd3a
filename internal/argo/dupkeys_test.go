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

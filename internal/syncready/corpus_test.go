package syncready

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/diff"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// corpusKube is the Kubernetes version the corpus is judged at: the live
// judge's kube-apiserver (scripts/kube-build.sh).
const corpusKube = "1.36"

// corpusDoc is one document of the schema corpus, as written.
type corpusDoc struct {
	Text string // the document's text, sent as is to the live judge
	Line int    // where it starts in its file
	Body map[string]any
	Dups []FieldIssue
}

func (d corpusDoc) str(k string) string {
	s, _ := d.Body[k].(string)
	return s
}

func (d corpusDoc) name() string {
	m, _ := d.Body["metadata"].(map[string]any)
	s, _ := m["name"].(string)
	return s
}

func (d corpusDoc) id() string { return d.str("apiVersion") + " " + d.str("kind") + " " + d.name() }

// readCorpus splits a corpus file into documents and decodes each as
// manifestdiff does (internal/diff, as Argo CD): a repeated key keeps its
// last value, and is named as the checks name it (RepeatIssue).
func readCorpus(t testing.TB, file string) []corpusDoc {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusDoc
	line := 1
	for _, text := range strings.Split(string(data), "\n---\n") {
		start := line
		line += strings.Count(text, "\n") + 2
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(text), &n); err != nil {
			t.Fatalf("%s:%d: %v", file, start, err)
		}
		if len(n.Content) == 1 {
			start += n.Content[0].Line - 1 // the object, past the comments
		}
		rs, err := diff.Parse([]byte(text), "")
		if err != nil || len(rs) != 1 {
			t.Fatalf("%s:%d: %d objects, %v", file, start, len(rs), err)
		}
		d := corpusDoc{Text: text, Line: start, Body: rs[0].Object}
		for _, r := range rs[0].Repeats {
			d.Dups = append(d.Dups, RepeatIssue(r.Path, "", r.Count))
		}
		out = append(out, d)
	}
	return out
}

// corpusCRDs reads the corpus's CRDs, each named by file:line.
func corpusCRDs(t testing.TB) (map[string]CRD, []corpusDoc) {
	file := filepath.Join("testdata", "schema", "crds.yaml")
	docs := readCorpus(t, file)
	crds := map[string]CRD{}
	for _, d := range docs {
		c, ok := ReadCRD(d.Body, fmt.Sprintf("%s:%d", file, d.Line))
		if !ok {
			t.Fatalf("%s:%d: not a CRD", file, d.Line)
		}
		crds[c.Group+"/"+c.Kind] = c
	}
	return crds, docs
}

// offlineFindings are the checks' findings of a document at corpusKube
// (the project rules aside: the corpus has no AppProject).
func offlineFindings(t testing.TB, d corpusDoc, crds map[string]CRD) []Finding {
	t.Helper()
	apiVersion, kind := d.str("apiVersion"), d.str("kind")
	o := Object{APIVersion: apiVersion, Kind: kind, Namespace: "default", Name: d.name(), Schema: NewSchema(d.Body, "")}
	o.Schema.Issues = append(o.Schema.Issues, d.Dups...)
	e := Env{Name: "corpus", KubeVersion: corpusKube, Apps: []App{{Name: "corpus", Objects: []Object{o}}}}
	for _, c := range crds {
		e.CRDs = append(e.CRDs, c)
	}
	fs, err := Check(e)
	if err != nil {
		t.Fatal(err)
	}
	var out []Finding
	for _, f := range fs {
		if f.Rule != RuleProjectMissing {
			out = append(out, f)
		}
	}
	return out
}

// offlineVerdict is offlineFindings as lines: rule and message, "ok"
// when none.
func offlineVerdict(t testing.TB, d corpusDoc, crds map[string]CRD) []string {
	t.Helper()
	var out []string
	for _, f := range offlineFindings(t, d, crds) {
		out = append(out, f.Rule+": "+f.Message)
	}
	if len(out) == 0 {
		return []string{"ok"}
	}
	return out
}

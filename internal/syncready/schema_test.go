package syncready

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSchemaCorpusVerdicts: every document of the schema corpus gets the
// verdict of verdicts.golden (-update rewrites it); the live judge holds
// the same verdicts to a real API server's.
func TestSchemaCorpusVerdicts(t *testing.T) {
	crds, _ := corpusCRDs(t)
	var b strings.Builder
	fired := map[string]bool{}
	file := filepath.Join("testdata", "schema", "objects.yaml")
	for _, d := range readCorpus(t, file) {
		b.WriteString(d.id() + "\n")
		for _, v := range offlineVerdict(t, d, crds) {
			b.WriteString("  " + v + "\n")
			rule, _, _ := strings.Cut(v, ":")
			fired[rule] = true
		}
	}
	golden := filepath.Join("testdata", "schema", "verdicts.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("verdicts differ from %s (run with -update and review):\n%s", golden, b.String())
	}
	for _, r := range []string{"ok", RuleSchemaUnknownField, RuleSchemaType, RuleSchemaDuplicateField, RuleAPIRemoved} {
		if !fired[r] {
			t.Errorf("no corpus document gets %s", r)
		}
	}
}

// BenchmarkNewSchema is the per-object cost of the built-in schema check
// on a typical Deployment, once the schema is parsed.
func BenchmarkNewSchema(b *testing.B) {
	docs := readCorpus(b, filepath.Join("testdata", "schema", "objects.yaml"))
	body := docs[0].Body // clean-web
	NewSchema(body, "")
	b.ResetTimer()
	for b.Loop() {
		NewSchema(body, "")
	}
}

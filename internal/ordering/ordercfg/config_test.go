package ordercfg

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

func TestParse(t *testing.T) {
	c, err := Parse([]byte("manualSync: [preprod, prod]\nparityIgnore: [ledger-smoke]\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{ManualSync: []string{"preprod", "prod"}, ParityIgnore: []string{"ledger-smoke"}}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !c.IsManualSync("prod") || c.IsManualSync("qa") {
		t.Error("IsManualSync wrong")
	}
	if c, err := Parse(nil); err != nil || len(c.ManualSync) != 0 {
		t.Errorf("empty input: %+v, %v", c, err)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"manualsync: [prod]", `line 1: ordering: unknown key "manualsync"`},
		{"manualSync: prod", "ordering: "},
		{"manualSync: [prod, prod]", `ordering.manualSync: "prod" is listed twice`},
		{"manualSync: ['']", "ordering.manualSync: empty entry"},
		{"[prod]", "must be a mapping"},
	} {
		_, err := Parse([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q) err = %v, want one line containing %q", tt.in, err, tt.want)
		}
	}
}

// Embedded in a larger config the section stays strict whether the outer
// decoder uses KnownFields or a plain node.Decode.
func TestEmbedded(t *testing.T) {
	type outer struct {
		RepoURL  string `yaml:"repoURL"`
		Ordering Config `yaml:"ordering"`
	}
	good := "repoURL: r\nordering: {manualSync: [prod]}\n"
	bad := "repoURL: r\nordering:\n  manualSync: [prod]\n  manual: [qa]\n"
	decode := func(s string, strict bool) (outer, error) {
		var o outer
		dec := yaml.NewDecoder(bytes.NewReader([]byte(s)))
		dec.KnownFields(strict)
		err := dec.Decode(&o)
		return o, err
	}
	for _, strict := range []bool{true, false} {
		o, err := decode(good, strict)
		if err != nil || !o.Ordering.IsManualSync("prod") {
			t.Errorf("strict=%v good: %+v, %v", strict, o, err)
		}
		if _, err := decode(bad, strict); err == nil || !strings.Contains(err.Error(), `line 4: ordering: unknown key "manual"`) {
			t.Errorf("strict=%v bad: err = %v", strict, err)
		}
	}
	o, err := decode("repoURL: r\n", true)
	if err != nil || o.Ordering.ManualSync != nil {
		t.Errorf("absent section: %+v, %v", o, err)
	}
}

func TestValidate(t *testing.T) {
	c := Config{ManualSync: []string{"prd"}}
	err := c.Validate([]string{"qa", "prod"})
	if err == nil || err.Error() != `ordering.manualSync: unknown environment "prd" (configured: qa, prod)` {
		t.Errorf("err = %v", err)
	}
	if err := (Config{ManualSync: []string{"prod"}}).Validate([]string{"qa", "prod"}); err != nil {
		t.Error(err)
	}
}

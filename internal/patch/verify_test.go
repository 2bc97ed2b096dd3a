package patch

import (
	"errors"
	"testing"
)

// The verifier compares comments per document wherever the parser put
// them, and still refuses a splice that loses, adds or alters one.
func TestVerifyComments(t *testing.T) {
	const in = "a: v1 # pinned\nb: x\n# end\n"
	tests := []struct {
		name, out string
		ok        bool
	}{
		{"value only", "a: v2 # pinned\nb: x\n# end\n", true},
		{"comment moved by quoting", "a: v1 # pinned\nb: \"1.0\"\n# end\n", true},
		{"line comment lost", "a: v2\nb: x\n# end\n", false},
		{"line comment altered", "a: v2 # pinned!\nb: x\n# end\n", false},
		{"comment added", "a: v2 # pinned\nb: x # new\n# end\n", false},
		{"trailing comment lost", "a: v2 # pinned\nb: x\n", false},
		{"two comments altered", "a: v2 # end\nb: x\n# pinned!\n", false},
		// blockyaml leaves escapes to yaml.v3: the old file's comments are
		// then read again by yaml.v3, to compare like with like
		{"escaped value", "a: \"v\\x32\" # pinned\nb: x\n# end\n", true},
		{"escaped value, comment altered", "a: \"v\\x32\" # pinned!\nb: x\n# end\n", false},
		{"escaped value, comment lost", "a: \"v\\x32\"\nb: x\n# end\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			old, err := parse([]byte(in))
			if err != nil {
				t.Fatal(err)
			}
			if !old.plain {
				t.Fatal("the input is plain block YAML: blockyaml should parse it")
			}
			// one edit of a (or of b for the quoting case), as apply makes it
			n, want := old.docs[0].Content[1], "v2"
			if tc.name == "comment moved by quoting" {
				n, want = old.docs[0].Content[3], "1.0"
			}
			err = verify(old, []byte(tc.out), []edit{{want: want, path: "a", line: n.Line, old: n}})
			if tc.ok && err != nil {
				t.Fatalf("verify: %v", err)
			}
			if !tc.ok && !errors.Is(err, ErrVerify) {
				t.Fatalf("verify = %v, want ErrVerify", err)
			}
		})
	}
}

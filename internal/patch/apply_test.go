package patch_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/patch"
)

// applyOne finds path in in and sets it to newValue.
func applyOne(t *testing.T, in, path, newValue string) (string, error) {
	t.Helper()
	tg, err := patch.Find([]byte(in), strings.Split(path, "."))
	if err != nil {
		t.Fatalf("Find(%s): %v", path, err)
	}
	out, err := patch.Apply([]byte(in), []patch.Change{{Target: tg, New: newValue}})
	return string(out), err
}

func TestApplyQuoting(t *testing.T) {
	tests := []struct {
		name, expr, in, new, want string
	}{
		{"plain stays plain", ".a", "a: x\n", "v1.2.3", "a: v1.2.3\n"},
		{"dotted version stays plain", ".a", "a: x\n", "1.2.3", "a: 1.2.3\n"},
		{"float", ".a", "a: x\n", "1.10", "a: \"1.10\"\n"},
		{"int", ".a", "a: x\n", "42", "a: \"42\"\n"},
		{"bool", ".a", "a: x\n", "true", "a: \"true\"\n"},
		{"yaml 1.1 bool", ".a", "a: x\n", "on", "a: \"on\"\n"},
		{"yaml 1.1 octal", ".a", "a: x\n", "0755", "a: \"0755\"\n"},
		{"null", ".a", "a: x\n", "null", "a: \"null\"\n"},
		{"tilde", ".a", "a: x\n", "~", "a: \"~\"\n"},
		{"hex", ".a", "a: x\n", "0x1F", "a: \"0x1F\"\n"},
		{"exponent", ".a", "a: x\n", "1e3", "a: \"1e3\"\n"},
		{"date", ".a", "a: x\n", "2024-01-02", "a: \"2024-01-02\"\n"},
		{"empty", ".a", "a: x\n", "", "a: \"\"\n"},
		{"leading space", ".a", "a: x\n", " x", "a: \" x\"\n"},
		{"trailing space", ".a", "a: x\n", "x ", "a: \"x \"\n"},
		{"colon space", ".a", "a: x\n", "a: b", "a: \"a: b\"\n"},
		{"colon inside", ".a", "a: x\n", "http://h:80/p", "a: http://h:80/p\n"},
		{"space hash", ".a", "a: x\n", "a #b", "a: \"a #b\"\n"},
		{"hash inside", ".a", "a: x\n", "a#b", "a: a#b\n"},
		{"alias char", ".a", "a: x\n", "*x", "a: \"*x\"\n"},
		{"anchor char", ".a", "a: x\n", "&x", "a: \"&x\"\n"},
		{"tag char", ".a", "a: x\n", "!x", "a: \"!x\"\n"},
		{"literal char", ".a", "a: x\n", "|x", "a: \"|x\"\n"},
		{"percent", ".a", "a: x\n", "%x", "a: \"%x\"\n"},
		{"at", ".a", "a: x\n", "@x", "a: \"@x\"\n"},
		{"quote", ".a", "a: x\n", "'x", "a: \"'x\"\n"},
		{"dash space", ".a", "a: x\n", "- x", "a: \"- x\"\n"},
		{"dash", ".a", "a: x\n", "-x", "a: -x\n"},
		{"question space", ".a", "a: x\n", "? x", "a: \"? x\"\n"},
		{"newline", ".a", "a: x\n", "a\nb", "a: \"a\\nb\"\n"},
		{"control", ".a", "a: x\n", "a\x01b\u2028", "a: \"a\\x01b\\u2028\"\n"},
		{"document marker", ".a", "a: x\n", "--- x", "a: \"--- x\"\n"},
		{"flow comma", ".a[0]", "a: [x]\n", "a,b", "a: [\"a,b\"]\n"},
		{"flow bracket", ".a.b", "a: {b: x}\n", "a]", "a: {b: \"a]\"}\n"},
		{"block comma", ".a", "a: x\n", "a,b", "a: a,b\n"},
		{"double escapes", ".a", "a: \"x\"\n", "q\"\\", "a: \"q\\\"\\\\\"\n"},
		{"double keeps double", ".a", "a: \"x\"\n", "v2", "a: \"v2\"\n"},
		{"single apostrophe", ".a", "a: 'x'\n", "it's", "a: 'it''s'\n"},
		{"single newline falls back", ".a", "a: 'x'\n", "a\nb", "a: \"a\\nb\"\n"},
		{"non-specific tag on a quoted value", ".a", "a: ! \"0\"\n", "1", "a: ! \"1\"\n"},
		{"explicit str tag stays plain", ".a", "a: !!str 1.0\n", "1.10", "a: !!str 1.10\n"},
		{"anchor on double", ".a", "a: &v \"1.0\"\n", "1.1", "a: &v \"1.1\"\n"},
		{"anchor on next line", ".a", "a: &v\n  x\n", "z", "a: &v\n  z\n"},
		{"templated no-op", ".a", "a: '{{v}}'\n", "{{v}}", "a: '{{v}}'\n"},
		{"alias quoted when needed", ".b", "a: &v x\nb: *v\n", "1.0", "a: &v x\nb: \"1.0\"\n"},
		{"alias in flow", ".b[0]", "a: &v x\nb: [*v, y]\n", "z", "a: &v x\nb: [z, y]\n"},
		{"bom", ".a", "\xEF\xBB\xBFa: x\n", "y2", "\xEF\xBB\xBFa: y2\n"},
		{"nel line break", ".b", "a: x\xC2\x85b: q\n", "r2", "a: x\xC2\x85b: r2\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, applySelect(t, tc.in, tc.expr, tc.new)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func applySelect(t *testing.T, in, expr, newValue string) string {
	t.Helper()
	tgs, err := yqSelect([]byte(in), expr)
	if err != nil || len(tgs) != 1 {
		t.Fatalf("Select(%s) = %v, %v", expr, tgs, err)
	}
	out, err := patch.Apply([]byte(in), []patch.Change{{Target: tgs[0], New: newValue}})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func TestApplyRefuses(t *testing.T) {
	tests := []struct {
		name, in, expr, new string
		wantErr             error
	}{
		{"literal block", "a: |\n  x\n", ".a", "y", patch.ErrUnsupported},
		{"folded block", "a: >-\n  x\n", ".a", "y", patch.ErrUnsupported},
		{"multi-line plain", "a: x\n  y\n", ".a", "z", patch.ErrUnsupported},
		{"multi-line double", "a: \"x\n  y\"\n", ".a", "z", patch.ErrUnsupported},
		{"multi-line single", "a: 'x\n  y'\n", ".a", "z", patch.ErrUnsupported},
		{"escaped line break", "a: \"x\\\n  y\"\n", ".a", "z", patch.ErrUnsupported},
		{"templated", "a: '{{ .Values.v }}'\n", ".a", "1.0", patch.ErrUnsupported},
		{"empty plain", "a:\nb: 1\n", ".a", "x", patch.ErrUnsupported},
		{"invalid utf-8", "a: x\n", ".a", "\xff", patch.ErrUnsupported},
		{"anchor with alias", "a: &v x\nb: *v\n", ".a", "y", patch.ErrVerify},
		{"merged anchor", "base: &b {tag: v1}\nweb:\n  <<: *b\n", ".base.tag", "v2", patch.ErrVerify},
		{"nested alias", "a: &v x\nb: &w [*v]\nc: *w\n", ".a", "y", patch.ErrVerify},
		{"non-specific tag", "a: ! 0\n", ".a", "A", patch.ErrUnsupported},
		{"verbatim non-specific tag", "a: !<!> x\n", ".a", "5", patch.ErrUnsupported},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tgs, err := yqSelect([]byte(tc.in), tc.expr)
			if err != nil || len(tgs) != 1 {
				t.Fatalf("Select(%s) = %v, %v", tc.expr, tgs, err)
			}
			out, err := patch.Apply([]byte(tc.in), []patch.Change{{Target: tgs[0], New: tc.new}})
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error = %v, want %v", err, tc.wantErr)
			}
			if out != nil {
				t.Errorf("output %q returned with an error", out)
			}
			if msg := err.Error(); strings.ContainsAny(msg, "\n") || msg != strings.ToLower(msg[:1])+msg[1:] {
				t.Errorf("error %q is not one lower-case line", msg)
			}
		})
	}
}

func TestApplyTargetChecks(t *testing.T) {
	const in = "a: x\nb: y\n"
	a, _ := patch.Find([]byte(in), []string{"a"})
	stale := a
	stale.Value = "old"
	nowhere := a
	nowhere.Line = 9
	tests := []struct {
		name    string
		changes []patch.Change
		want    string
		wantErr error
	}{
		{name: "no changes", want: in},
		{name: "no-op", changes: []patch.Change{{Target: a, New: "x"}}, want: in},
		{name: "stale target", changes: []patch.Change{{Target: stale, New: "z"}}, wantErr: patch.ErrNotFound},
		{name: "nothing at position", changes: []patch.Change{{Target: nowhere, New: "z"}}, wantErr: patch.ErrNotFound},
		{name: "same position twice", changes: []patch.Change{{Target: a, New: "z"}, {Target: a, New: "w"}}, wantErr: errAny},
		{name: "templated flag honoured", changes: []patch.Change{{Target: withTemplated(a), New: "z"}}, wantErr: patch.ErrUnsupported},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := patch.Apply([]byte(in), tc.changes)
			switch {
			case tc.wantErr == errAny && err == nil:
				t.Fatal("Apply succeeded, want an error")
			case tc.wantErr != errAny && !errors.Is(err, tc.wantErr):
				t.Fatalf("error = %v, want %v", err, tc.wantErr)
			case err == nil && string(out) != tc.want:
				t.Errorf("output = %q, want %q", out, tc.want)
			}
		})
	}
}

// errAny marks a test that expects an error without a sentinel.
var errAny = errors.New("any error")

func withTemplated(t patch.Target) patch.Target {
	t.Templated = true
	return t
}

func TestApplyDoesNotModifyInput(t *testing.T) {
	in := []byte("a: x\nb: y\n")
	orig := string(in)
	tg, _ := patch.Find(in, []string{"b"})
	out, err := patch.Apply(in, []patch.Change{{Target: tg, New: "zz"}})
	if err != nil {
		t.Fatal(err)
	}
	if string(in) != orig || string(out) != "a: x\nb: zz\n" {
		t.Errorf("input %q, output %q", in, out)
	}
}

func TestApplyKeepsNonStringTypes(t *testing.T) {
	tests := []struct {
		name, in, tag, new, want string
	}{
		{"int stays int", "replicas: 2   # per node\n", "!!int", "3", "replicas: 3   # per node\n"},
		{"quoted becomes int", "replicas: \"2\"\n", "!!int", "4", "replicas: 4\n"},
		{"bool", "enabled: false\n", "!!bool", "true", "enabled: true\n"},
		{"string default", "replicas: 2\n", "", "3", "replicas: \"3\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target, err := patch.Find([]byte(tt.in), []string{strings.SplitN(tt.in, ":", 2)[0]})
			if err != nil {
				t.Fatal(err)
			}
			got, err := patch.Apply([]byte(tt.in), []patch.Change{{Target: target, New: tt.new, Tag: tt.tag}})
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	target, _ := patch.Find([]byte("replicas: 2\n"), []string{"replicas"})
	if _, err := patch.Apply([]byte("replicas: 2\n"), []patch.Change{{Target: target, New: "three", Tag: "!!int"}}); !errors.Is(err, patch.ErrUnsupported) {
		t.Errorf("non-int text as !!int: err = %v, want patch.ErrUnsupported", err)
	}
}

// A comment after the last value of a document belongs, for the parser, to
// that value's key or item while the value is plain and to the document
// once it is quoted. Quoting a value there is no change to the comments.
func TestApplyQuotesValueBeforeTrailingComment(t *testing.T) {
	tests := []struct {
		name, in  string
		doc, line int
		col       int
		new, want string
	}{
		{"mapping", "a: v1\n# end\n", 0, 1, 4, "20240101", "a: \"20240101\"\n# end\n"},
		{"sequence", "- v1\n# end\n", 0, 1, 3, "20240101", "- \"20240101\"\n# end\n"},
		{"root scalar", "0\n# -", 0, 1, 1, "\x10", "\"\\x10\"\n# -"},
		{"line comment too", "a: 1 # one\nb: v1 # two\n# end\n", 0, 2, 4, "1.10", "a: 1 # one\nb: \"1.10\" # two\n# end\n"},
		{"before the next document", "a: v1\n# end\n---\nb: 1\n", 0, 1, 4, "yes", "a: \"yes\"\n# end\n---\nb: 1\n"},
		{"nested, then outer key", "x:\n  a: v1\n  # in x\ny: 1\n", 0, 2, 6, "on", "x:\n  a: \"on\"\n  # in x\ny: 1\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := patch.Parse([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			tg, err := f.At(tc.doc, tc.line, tc.col)
			if err != nil {
				t.Fatal(err)
			}
			out, err := f.Apply([]patch.Change{{Target: tg, New: tc.new}})
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if string(out) != tc.want {
				t.Errorf("output = %q, want %q", out, tc.want)
			}
		})
	}
}

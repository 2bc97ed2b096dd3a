package rejected

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestAddRemoveKeepTheRestOfTheFile(t *testing.T) {
	start := "# reviewed by the platform team\nrejected:\n  # the gateway one is permanent\n" +
		"  - {component: gateway, field: imageTag, value: v1.10, reason: CVE}\n"
	l, err := Parse([]byte(start))
	if err != nil {
		t.Fatal(err)
	}
	e := Entry{Component: "ledger-node.api", Field: "chartVersion", Value: "1.4.0", Reason: `5xx "under load": LEDGER-901`}
	added, ok := l.Add(e)
	if !ok || !strings.HasPrefix(string(added), start) {
		t.Fatalf("add: %v\n%s", ok, added)
	}
	l2, err := Parse(added)
	if err != nil {
		t.Fatalf("added file does not parse: %v\n%s", err, added)
	}
	got, found := l2.Find("ledger-node.api", "chartVersion", "1.4.0")
	if !found || got.Reason != e.Reason {
		t.Fatalf("round trip: %+v %v", got, found)
	}
	if _, again := l2.Add(e); again {
		t.Error("adding an entry twice changed the file")
	}
	removed, ok := l2.Remove("ledger-node.api", "chartVersion", "1.4.0")
	if !ok || string(removed) != start {
		t.Errorf("remove: %v\n%q\nwant\n%q", ok, removed, start)
	}
	if _, ok := l2.Remove("gateway", "imageTag", "v9"); ok {
		t.Error("removed an entry that is not there")
	}
}

func TestReadMissingAndNew(t *testing.T) {
	l, err := Read(fstest.MapFS{})
	if err != nil || len(l.Entries) != 0 {
		t.Fatalf("missing file: %v %+v", err, l)
	}
	out, ok := l.Add(Entry{Component: "gateway", Field: "imageTag", Value: "v1.10", Reason: "CVE"})
	l2, err := Parse(out)
	if !ok || err != nil || len(l2.Entries) != 1 || l2.Entries[0].Line != 4 {
		t.Errorf("new file: %v %v %+v\n%s", ok, err, l2, out)
	}
}

func TestParseRefusesBadFiles(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{"other: []\n", "want one top-level key, rejected"},
		{"rejected: {a: b}\n", "want a list of entries"},
		{"rejected:\n  - {component: gateway, field: imageTag, value: v1}\n", "needs component, field, value and reason"},
		{"rejected: [\n", Path},
	} {
		if _, err := Parse([]byte(tc.data)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.data, err, tc.want)
		}
	}
}

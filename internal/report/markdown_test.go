package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/diff"
)

func markdown(t *testing.T, r Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := Markdown(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestMarkdownErrorsAtTop(t *testing.T) {
	r := fixtureReport(t)
	r.Apps = append(r.Apps, App{Env: "staging", Name: "queue", Status: StatusError, Error: "staging/queue: chart queue 0.1.0: not found"})
	lines := strings.Split(markdown(t, r), "\n")
	if lines[0] != Marker {
		t.Fatalf("first line %q, want the marker", lines[0])
	}
	top := lines[1]
	for _, want := range []string{"2 apps failed to render", "incomplete", "`staging/queue`", "`prod/broken`"} {
		if !strings.Contains(top, want) {
			t.Errorf("top line %q lacks %q", top, want)
		}
	}
}

func TestMarkdownNoChanges(t *testing.T) {
	same := func(env, name string) App {
		return appOf(t, env, name, deployment(name, "i:1"), deployment(name, "i:1"))
	}
	tests := []struct {
		name string
		apps []App
		want bool
	}{
		{"all unchanged", []App{same("dev", "a"), same("prod", "a")}, true},
		{"one failed", []App{same("dev", "a"), {Env: "dev", Name: "b", Status: StatusError, Error: "boom"}}, false},
		{"one not rendered", []App{same("dev", "a"), {Env: "dev", Name: "k", Status: StatusUnchanged, NotRendered: "kustomize"}}, false},
		{"one changed", []App{same("dev", "a"), appOf(t, "dev", "b", deployment("b", "i:1"), deployment("b", "i:2"))}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			md := markdown(t, Report{Base: "a", Head: "b", Apps: tt.apps})
			if got := strings.Contains(md, "No changes"); got != tt.want {
				t.Errorf("says No changes = %v, want %v:\n%s", got, tt.want, md)
			}
			var b bytes.Buffer
			if err := Diff(&b, Report{Apps: tt.apps}, false); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(b.String(), "No changes"); got != tt.want {
				t.Errorf("terminal says No changes = %v, want %v:\n%s", got, tt.want, b.String())
			}
		})
	}
}

// TestMarkdownFenceSafety feeds content with backtick runs; no line inside a
// fenced block may be able to close it.
func TestMarkdownFenceSafety(t *testing.T) {
	cm := func(v string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: readme}\ndata:\n  README.md: |\n    text\n    %s\n    more\n", v)
	}
	// A top-level block scalar puts "```" three spaces in on context
	// lines, where it would close a plain fence.
	thing := func(v string) string {
		return "apiVersion: x/v1\nkind: Thing\nmetadata: {name: t}\nnotes: |\n  ```\n  ````\nv: " + v + "\n"
	}
	r := Report{Base: "a`b", Head: "c", Apps: []App{
		appOf(t, "dev", "docs", cm("```"), cm("````\n    ```go\n    `````")),
		appOf(t, "dev", "thing", thing("1"), thing("2")),
		{Env: "dev", Name: "bad", Status: StatusError, Error: "```\nrender: <script>alert(1)</script>"},
	}}
	md := markdown(t, r)
	var fence string
	for i, l := range strings.Split(md, "\n") {
		switch {
		case fence == "" && strings.HasPrefix(l, "```"):
			fence = strings.TrimRight(l, "abcdefghijklmnopqrstuvwxyz")
		case fence != "" && l == fence:
			fence = ""
		case fence != "" && strings.HasPrefix(strings.TrimLeft(l, " "), fence):
			t.Errorf("line %d %q could close fence %q", i+1, l, fence)
		}
	}
	if fence != "" {
		t.Errorf("unclosed fence %q", fence)
	}
	if !strings.Contains(md, "``````diff\n") {
		t.Errorf("expected a 6-backtick fence:\n%s", md)
	}
	if strings.Contains(md, "<script>") && !strings.Contains(md, "```text\n") {
		t.Error("error text outside a fence")
	}
}

func TestMarkdownGroupsIdenticalChanges(t *testing.T) {
	var r Report
	for i := range 12 {
		name := fmt.Sprintf("svc%02d", i)
		r.Apps = append(r.Apps, appOf(t, "prod", name, deployment(name, "base:1"), deployment(name, "base:2")))
	}
	// Same image bump but an extra change: must not join the group.
	r.Apps = append(r.Apps, appOf(t, "prod", "odd", deployment("odd", "base:1"), strings.Replace(deployment("odd", "base:2"), "replicas: 1", "replicas: 3", 1)))
	md := markdown(t, r)
	if n := strings.Count(md, "same change in 12 apps:"); n != 1 {
		t.Errorf("group announced %d times:\n%s", n, md)
	}
	if !strings.Contains(md, "svc00, svc01, svc02, svc03, svc04, svc05, svc06, svc07, svc08, svc09…") {
		t.Errorf("app list not truncated:\n%s", md)
	}
	if n := strings.Count(md, "+        - image: base:2"); n != 2 {
		t.Errorf("diff shown %d times, want once for the group and once for odd", n)
	}
	// an app whose every change is the group's gets one line, not a section
	if n := strings.Count(md, ": shared with other apps (above)"); n != 12 {
		t.Errorf("%d app lines point at the group, want 12:\n%s", n, md)
	}
}

func TestReplaceName(t *testing.T) {
	tests := []struct{ in, name, want string }{
		{"apiVersion: v1\nname: api\n", "api", "apiVersion: v1\nname: \x00app\x00\n"},
		{"my-api-svc apiapi", "api", "my-\x00app\x00-svc apiapi"},
		{"x", "", "x"},
	}
	for _, tt := range tests {
		if got := replaceName(tt.in, tt.name); got != tt.want {
			t.Errorf("replaceName(%q, %q) = %q, want %q", tt.in, tt.name, got, tt.want)
		}
	}
}

func TestCapLines(t *testing.T) {
	long := strings.Repeat("+x\n", MaxDiffLines+7)
	got := capLines(long)
	if strings.Count(got, "\n") != MaxDiffLines+1 || !strings.Contains(got, "7 more lines") {
		t.Errorf("capLines kept %d lines", strings.Count(got, "\n"))
	}
	if capLines("a\n") != "a\n" {
		t.Error("short diff changed")
	}
}

func TestCode(t *testing.T) {
	for in, want := range map[string]string{"a": "`a`", "a`b": "``a`b``", "`x": "`` `x ``", "": "` `"} {
		if got := code(in); got != want {
			t.Errorf("code(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAppStatus(t *testing.T) {
	if AppStatus(nil) != StatusUnchanged || AppStatus([]diff.ResourceDiff{{Status: diff.Unchanged}, {Status: diff.Added}}) != StatusChanged {
		t.Error("AppStatus")
	}
}

// TestHeadlineCounts: one app, one change, one line are singular in every
// presenter's headline ("1 of 1 apps differ" was printed before).
func TestHeadlineCounts(t *testing.T) {
	tests := []struct {
		s    Summary
		want string
	}{
		{Summary{Apps: 1, ByStatus: Counts{Changed: 1}, Resources: ResourceCounts{Changed: 1}},
			"1 of 1 app differs; resources: 0 added, 0 removed, 1 changed."},
		{Summary{Apps: 3, ByStatus: Counts{Added: 1}}, "1 of 3 apps differs; resources: 0 added, 0 removed, 0 changed."},
		{Summary{Apps: 5, ByStatus: Counts{Added: 1, Removed: 1}}, "2 of 5 apps differ; resources: 0 added, 0 removed, 0 changed."},
		{Summary{Apps: 2}, "No changes."},
		{Summary{Apps: 2, Errors: 1, NotRendered: 1}, "The apps that rendered are identical, but 1 failed and 1 was not rendered."},
		{Summary{Apps: 4, Errors: 1, NotRendered: 2}, "The apps that rendered are identical, but 1 failed and 2 were not rendered."},
	}
	for _, tt := range tests {
		if got := Headline(tt.s); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
	if got := capLines(strings.Repeat("+x\n", MaxDiffLines+1)); !strings.Contains(got, "# … 1 more line; ") {
		t.Errorf("one line cut: %q", got[len(got)-60:])
	}
}

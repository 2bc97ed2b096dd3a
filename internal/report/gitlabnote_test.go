package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// This file reads a note as GitLab reads one, to prove that no text of
// the repository acts through it.
//
// Quick actions: Gitlab::QuickActions::Extractor (lib/gitlab/quick_actions/
// extractor.rb) deletes every "\r", then scans with one Ruby regexp
// (flags m, i, x: "." matches "\n", "^" and "$" are line anchors) whose
// alternatives skip code blocks (a line of exactly three backticks to the
// next such line), "inline code on separate rows" (a line holding a
// backtick to a line ending in one), HTML blocks (a line that is a tag
// to a line that is a closing tag) and ">>>" quote blocks, and match a
// command as "^/name( arg)?" at the start of a line.
// The docs: "Each command starts with a forward slash (/) and must be
// entered on a separate line" (docs.gitlab.com/user/project/quick_actions).
//
// Any command name counts here, not only GitLab's: "^/\w".
var gitlabExtractor = regexp.MustCompile("(?ims)" +
	"(?P<code>^```.+?\\n```$)" +
	"|(?P<inline>^.*`\\n*.+?\\n*`$)" +
	"|(?P<html>^<[^>]+?>\\n.+?\\n</[^>]+?>$)" +
	"|(?P<quote>^>>>.+?\\n>>>$)" +
	"|(?:^/(?P<cmd>\\w+)(?: (?P<arg>[^\\n]*))?(?:\\s*\\n|$))")

// quickActions returns the commands GitLab would run from note.
func quickActions(note string) []string {
	note = strings.ReplaceAll(note, "\r", "")
	cmd := gitlabExtractor.SubexpIndex("cmd")
	var out []string
	for _, m := range gitlabExtractor.FindAllStringSubmatchIndex(note, -1) {
		if m[2*cmd] >= 0 {
			out = append(out, note[m[0]:m[1]])
		}
	}
	return out
}

// slashLines are the lines starting with "/" once "\r" is gone, code or
// not: stricter than the extractor, whose code rules are looser than
// Markdown's (a fence of four backticks is no code to it).
func slashLines(note string) []string {
	var out []string
	for _, l := range strings.Split(strings.ReplaceAll(note, "\r", ""), "\n") {
		if strings.HasPrefix(l, "/") {
			out = append(out, l)
		}
	}
	return out
}

var (
	fenceLine  = regexp.MustCompile("^(`{3,})")
	codeElem   = regexp.MustCompile(`(?s)<code>.*?</code>`)
	tickRun    = regexp.MustCompile("`+")
	liveMentio = regexp.MustCompile(`(^|[^\p{L}\p{N}_])@[\p{L}\p{N}_.-]`)
)

// outsideCode is the note without its fenced blocks, code spans and
// <code> elements, where GitLab renders neither mentions nor references.
func outsideCode(t *testing.T, note string) string {
	t.Helper()
	var kept []string
	open := ""
	for _, l := range strings.Split(note, "\n") {
		if open != "" {
			if m := fenceLine.FindString(l); len(m) >= len(open) && strings.TrimRight(l, "`") == "" {
				open = ""
			}
			continue
		}
		if m := fenceLine.FindStringSubmatch(l); m != nil {
			open = m[1]
			continue
		}
		kept = append(kept, stripSpans(l))
	}
	if open != "" {
		t.Errorf("a fence %q is never closed", open)
	}
	return codeElem.ReplaceAllString(strings.Join(kept, "\n"), "")
}

// stripSpans drops the code spans of one line: a backtick run to the next
// run of the same length.
func stripSpans(l string) string {
	var sb strings.Builder
	for {
		loc := tickRun.FindStringIndex(l)
		if loc == nil {
			return sb.String() + l
		}
		run := l[loc[0]:loc[1]]
		end := -1
		for from := loc[1]; from < len(l); {
			m := tickRun.FindStringIndex(l[from:])
			if m == nil {
				break
			}
			if m[1]-m[0] == len(run) {
				end = from + m[1]
				break
			}
			from += m[1]
		}
		if end < 0 {
			sb.WriteString(l[:loc[1]])
			l = l[loc[1]:]
			continue
		}
		sb.WriteString(l[:loc[0]])
		l = l[end:]
	}
}

func TestExtractorModel(t *testing.T) {
	tests := []struct {
		note string
		want int
	}{
		{"hi\n/approve\n", 1},
		{"hi\r\n/merge", 1},
		{"hi\r/merge", 0}, // "\r" deleted: "hi/merge"
		{" /approve", 0},
		{"```\n/approve\n```\n", 0},
		{"````\n/approve\n````\n", 0}, // inline-code rule: a line with a backtick to one ending in one
		{"<details>\n/approve\n</details>", 0},
		{">>>\n/approve\n>>>", 0},
		{"> /approve", 0},
		{"text `x`\n\n/assign @me", 1},
	}
	for _, tt := range tests {
		if got := len(quickActions(tt.note)); got != tt.want {
			t.Errorf("%q: %d commands, want %d", tt.note, got, tt.want)
		}
	}
}

// hostile are names and messages that try to act through the note, break
// out of where the note puts them, or drive a terminal.
var hostile = []string{
	"x\n/approve",
	"x\r\n/merge",
	"x\r/close",
	"/label ~hack",
	"x\u2028/approve",
	"x\u0085/approve",
	"x\u2029/unassign",
	"x`y",
	"``",
	"x\n```\n/merge\n```",
	"a|b",
	"</details>\n/approve",
	"</summary></details><details open>",
	"<!--",
	"-->\n/close",
	"@all",
	"cc @group/sub @user",
	"\x1b]52;c;cHduZWQ=\a\x1b[2J",
	"x\x00y",
}

// hostileReport puts h in every string of a report that reaches an output.
func hostileReport(h string) Report {
	res := func(status string) LiveResource {
		return LiveResource{Action: LiveCreate, ResourceDiff: hostileResource(h, status)}
	}
	finding := LiveFinding{APIVersion: h, Kind: h, Namespace: h, Name: h, Reason: h, Message: h}
	apps := []App{
		{Env: h, Name: h, Namespace: h, Status: StatusChanged, Resources: []diff.ResourceDiff{hostileResource(h, "changed")}},
		{Env: h, Name: h + "2", Namespace: h, Status: StatusChanged, Resources: []diff.ResourceDiff{hostileResource(h, "changed")}},
		{Env: h, Name: "failed " + h, Status: StatusError, Error: h},
		{Env: "prod", Name: h, Status: StatusUnchanged, NotRendered: h},
		{Env: "prod", Name: "live " + h, Status: StatusChanged, Resources: []diff.ResourceDiff{hostileResource(h, "added")},
			Live: &Live{Error: h, Changes: []LiveResource{res("added")}, Drift: []LiveResource{{Action: h, ResourceDiff: hostileResource(h, "changed")}},
				Findings: []LiveFinding{finding}}},
	}
	return Report{Base: h, Head: h, Apps: apps, LiveEnvs: []LiveEnv{
		{Env: "prod", Cluster: h, Findings: []LiveFinding{finding}},
		{Env: h, Cluster: h, Error: h},
	}}
}

// hostileResource is a resource whose every field is h; its diff is what
// diff.Unified writes for such a name (the name in the header lines) and
// a value h in a block scalar.
func hostileResource(h, status string) diff.ResourceDiff {
	name := "v1/" + h + "/" + h + "/" + h
	body := "@@ -1,2 +1,2 @@\n data:\n-  k: |\n-    " + strings.ReplaceAll(h, "\n", "\n    ") + "\n+  k: v\n"
	return diff.ResourceDiff{APIVersion: h, Kind: h, Namespace: h, Name: h, Status: diff.Status(status),
		Diff:       "--- a/" + name + "\n+++ b/" + name + "\n" + body,
		Generated:  []string{h},
		SecretKeys: []diff.SecretKeyChange{{Key: h, Status: "changed"}, {Key: "k", Status: h}}}
}

// TestNoteCannotAct: whatever the repository names things, the note holds
// no quick action, no live mention, and no element, table cell or code
// it did not open itself.
func TestNoteCannotAct(t *testing.T) {
	for _, h := range hostile {
		for _, opt := range []MarkdownOptions{{}, {ReportURL: "https://gitlab.example.com/job/artifacts/file/report.html"}} {
			var b bytes.Buffer
			if err := MarkdownWith(&b, hostileReport(h), opt); err != nil {
				t.Fatal(err)
			}
			note := b.String()
			if got := quickActions(note); len(got) > 0 {
				t.Errorf("%q: GitLab would run %q", h, got)
			}
			if got := slashLines(note); len(got) > 0 {
				t.Errorf("%q: lines start with /: %q", h, got)
			}
			if strings.ContainsAny(note, "\r\u2028\u2029\u0085\x1b\x00") {
				t.Errorf("%q: a line break or control character of the repository's is in the note", h)
			}
			checkStructure(t, h, note)
		}
	}
}

func checkStructure(t *testing.T, h, note string) {
	t.Helper()
	text := outsideCode(t, note)
	if m := liveMentio.FindString(text); m != "" {
		t.Errorf("%q: live mention %q", h, m)
	}
	opened, closed := strings.Count(text, "<details>"), strings.Count(text, "</details>")
	if opened != closed || opened != strings.Count(text, "<summary>") || opened != strings.Count(text, "</summary>") {
		t.Errorf("%q: %d <details>, %d </details>, %d <summary>, %d </summary>", h, opened, closed,
			strings.Count(text, "<summary>"), strings.Count(text, "</summary>"))
	}
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, "</details>") && l != "</details>" {
			t.Errorf("%q: </details> inside a line: %q", h, l)
		}
		if strings.Contains(l, "<!--") && l != Marker {
			t.Errorf("%q: a comment opens in %q", h, l)
		}
		if strings.HasPrefix(l, "|") {
			if n := strings.Count(l, "|") - strings.Count(l, `\|`); n != 7 {
				t.Errorf("%q: table row with %d cells: %q", h, n-1, l)
			}
		}
	}
}

// sgr are the only escape sequences the terminal diff writes.
var sgr = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// TestTerminalShowsNoControls: no escape sequence or line break of the
// repository's reaches a terminal; each is spelled out.
func TestTerminalShowsNoControls(t *testing.T) {
	for _, h := range hostile {
		for _, color := range []bool{false, true} {
			var b bytes.Buffer
			if err := Diff(&b, hostileReport(h), color); err != nil {
				t.Fatal(err)
			}
			out := sgr.ReplaceAllString(b.String(), "")
			if i := strings.IndexFunc(out, func(r rune) bool {
				return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || hidden(r)
			}); i >= 0 {
				t.Errorf("%q (color %v): control %q at %d in\n%s", h, color, out[i:i+1], i, out)
			}
		}
	}
}

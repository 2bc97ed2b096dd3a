package report

import (
	"bytes"
	"strings"
	"testing"
)

// With the HTML report's URL, the note links to it once, and every app
// section and shared change of the note links to its anchor there;
// without one, the note is the plain note.
func TestMarkdownLinksToReport(t *testing.T) {
	r := fixtureReport(t)
	const url = "https://gitlab.example.com/g/p/-/jobs/9/artifacts/file/manifest-diff.html"
	var plain, linked bytes.Buffer
	if err := Markdown(&plain, r); err != nil {
		t.Fatal(err)
	}
	if err := MarkdownWith(&linked, r, MarkdownOptions{ReportURL: url}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "href") {
		t.Error("the plain note links somewhere")
	}
	checkGolden(t, "report-links.md", linked.Bytes())
	note := linked.String()
	if n := strings.Count(note, `<a href="`+url+`">the HTML report</a>`); n != 1 {
		t.Errorf("%d links to the report itself", n)
	}
	for _, g := range r.Envs() {
		for _, a := range g.Apps {
			// an app section's summary, or the line of an app whose changes are all shared
			link := `<a href="` + url + "#" + AppAnchor(a) + `">report</a>`
			if want := a.Status != StatusUnchanged; strings.Contains(note, link) != want {
				t.Errorf("%s/%s (%s): linked %v, want %v", a.Env, a.Name, a.Status, !want, want)
			}
		}
	}
	shared, _ := r.SharedChanges()
	for i := range shared {
		if !strings.Contains(note, url+"#"+SharedAnchor(i)+`">report</a></summary>`) {
			t.Errorf("shared change %d not linked", i)
		}
	}
}

func TestAnchors(t *testing.T) {
	tests := []struct {
		app  App
		want string
	}{
		{App{Env: "prod", Name: "dlt-node-alpha-backend-prod"}, "app/prod/dlt-node-alpha-backend-prod"},
		{App{Env: "eu west", Name: "a/b"}, "app/eu~20west/a~2Fb"},
		{App{Env: "x", Name: "é<"}, "app/x/~C3~A9~3C"},
	}
	for _, tt := range tests {
		if got := AppAnchor(tt.app); got != tt.want {
			t.Errorf("AppAnchor(%s/%s) = %q, want %q", tt.app.Env, tt.app.Name, got, tt.want)
		}
	}
	// distinct names never share an anchor
	if AppAnchor(App{Env: "a~20b", Name: "x"}) == AppAnchor(App{Env: "a b", Name: "x"}) {
		t.Error("an escape and a name collide")
	}
}

// The groups presenters get are the note's: same order, the shown member
// first, each app once.
func TestSharedChanges(t *testing.T) {
	r := fixtureReport(t)
	shared, groupOf := r.SharedChanges()
	if len(shared) != 1 {
		t.Fatalf("%d shared changes, want the image bump of 3 apps", len(shared))
	}
	var labels []string
	for _, a := range shared[0].Apps {
		labels = append(labels, a.Env+"/"+a.Name)
	}
	if got := strings.Join(labels, ","); got != "staging/api,staging/billing,prod/api" || shared[0].App.Name != "api" {
		t.Errorf("shared apps %s", got)
	}
	for _, a := range r.Apps {
		for _, res := range Changes(a) {
			want := -1
			if res.Kind == "Deployment" && (a.Name == "api" || a.Name == "billing") {
				want = 0
			}
			if g := groupOf(a, res); g != want {
				t.Errorf("%s/%s %s: group %d, want %d", a.Env, a.Name, res.Key(), g, want)
			}
		}
	}
}

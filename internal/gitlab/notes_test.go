package gitlab

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

const testMarker = "<!-- manifestdiff -->"

func upsert(t *testing.T, c *Client, mr MR, pages ...string) NoteResult {
	t.Helper()
	res, err := c.UpsertNote(context.Background(), mr, testMarker, pages)
	if err != nil {
		t.Fatalf("upsert note: %v", err)
	}
	return res
}

func TestUpsertNoteCreateUpdateNoChange(t *testing.T) {
	f := newFake(t)
	f.AddMR(testProj, 7, "feature", "main")
	c := fakeClient(t, f, nil)
	mr := MR{Project: "group/project", IID: 7}

	res := upsert(t, c, mr, testMarker+"\n### Manifest diff\n\n1 app differs.\n")
	if res.Created != 1 || res.Updated+res.Deleted+res.Unchanged != 0 {
		t.Fatalf("first run: %+v", res)
	}
	bodies := marked(f, 7)
	if len(bodies) != 1 {
		t.Fatalf("want one note, have %d", len(bodies))
	}
	want := testMarker + "\n<!-- page 1/1 -->\n### Manifest diff\n\n1 app differs.\n"
	if bodies[0] != want {
		t.Errorf("body:\n%q\nwant\n%q", bodies[0], want)
	}
	wantURL := fmt.Sprintf("%s/group/project/-/merge_requests/7#note_", f.WebURL())
	if !strings.HasPrefix(res.URL, wantURL) {
		t.Errorf("url %q, want prefix %q", res.URL, wantURL)
	}

	res = upsert(t, c, mr, "### Manifest diff\n\n2 apps differ.\n")
	if res.Updated != 1 || res.Created != 0 || len(marked(f, 7)) != 1 {
		t.Fatalf("second run: %+v, %d notes", res, len(marked(f, 7)))
	}
	puts := f.Calls("PUT note")
	res = upsert(t, c, mr, "### Manifest diff\n\n2 apps differ.\n")
	if res.Unchanged != 1 || f.Calls("PUT note") != puts || f.Calls("POST notes") != 1 {
		t.Fatalf("no-change run wrote: %+v, PUT %d->%d", res, puts, f.Calls("PUT note"))
	}
	res = upsert(t, c, mr, "### Manifest diff\n\nNo changes.\n")
	if got := marked(f, 7); res.Updated != 1 || len(got) != 1 || !strings.Contains(got[0], "No changes.") {
		t.Fatalf("no-diff run: %+v %q", res, got)
	}
}

func TestUpsertNoteFollowsPagination(t *testing.T) {
	f := newFake(t)
	f.SetPerPage(4) // GitLab caps at 100; a small cap makes three pages
	f.AddMR(testProj, 7, "feature", "main")
	addForeignNotes(f, 7, 5)
	c := fakeClient(t, f, nil)
	mr := MR{Project: "42", IID: 7}
	upsert(t, c, mr, "first")
	addForeignNotes(f, 7, 5) // ours is now in the middle of page 2 of 3

	gets := f.Calls("GET notes")
	res := upsert(t, c, mr, "second")
	if res.Updated != 1 || res.Created != 0 {
		t.Fatalf("did not find our note across pages: %+v", res)
	}
	if n := f.Calls("GET notes") - gets; n != 3 {
		t.Errorf("listed %d pages, want 3", n)
	}
	q := f.LastQuery("GET notes")
	if q.Get("per_page") != "100" || q.Get("sort") != "asc" || q.Get("order_by") != "created_at" || q.Get("page") != "3" {
		t.Errorf("last list query %v", q)
	}
	if got := marked(f, 7); len(got) != 1 || !strings.HasSuffix(got[0], "second") {
		t.Fatalf("notes: %q", got)
	}
	if f.Calls("total") != f.Calls("GET mr")+f.Calls("GET notes")+f.Calls("POST notes")+f.Calls("PUT note") {
		t.Errorf("unexpected calls: %v", f.AllCalls())
	}
}

func TestUpsertNoteSplitAndShrink(t *testing.T) {
	f := newFake(t)
	f.AddMR(testProj, 7, "feature", "main")
	addForeignNotes(f, 7, 2)
	c := fakeClient(t, f, nil)
	mr := MR{Project: "group/project", IID: 7}

	res := upsert(t, c, mr, "p1", "p2", "p3")
	if res.Created != 3 {
		t.Fatalf("split run: %+v", res)
	}
	got := marked(f, 7)
	for i, b := range got {
		if want := fmt.Sprintf("<!-- page %d/3 -->\np%d", i+1, i+1); !strings.Contains(b, want) {
			t.Errorf("note %d = %q, want %q", i, b, want)
		}
	}
	res = upsert(t, c, mr, "p1", "p2", "p3")
	if res.Unchanged != 3 || f.Calls("PUT note") != 0 {
		t.Fatalf("unchanged split run wrote: %+v", res)
	}
	res = upsert(t, c, mr, "only")
	if res.Deleted != 2 || res.Updated != 1 || res.Created != 0 {
		t.Fatalf("shrink run: %+v", res)
	}
	if got := marked(f, 7); len(got) != 1 || !strings.HasSuffix(got[0], "<!-- page 1/1 -->\nonly") {
		t.Fatalf("after shrink: %q", got)
	}
	if n := len(f.Notes(testProj, 7)); n != 3 {
		t.Errorf("other users' notes touched: %d notes left, want 3", n)
	}
}

func TestUpsertNoteAdoptsLegacyNote(t *testing.T) {
	f := newFake(t)
	f.AddMR(testProj, 7, "feature", "main")
	f.AddNote(testProj, 7, "project_42_bot", testMarker+"\nold single note", false)
	f.AddNote(testProj, 7, "reviewer", "not ours\n"+testMarker, false)
	res := upsert(t, fakeClient(t, f, nil), MR{Project: "group/project", IID: 7}, "new")
	if res.Updated != 1 || res.Created != 0 || len(marked(f, 7)) != 1 {
		t.Fatalf("%+v %q", res, marked(f, 7))
	}
}

func TestUpsertNoteTooLarge(t *testing.T) {
	f := newFake(t)
	f.AddMR(testProj, 7, "feature", "main")
	c := fakeClient(t, f, nil)
	mr := MR{Project: "group/project", IID: 7}
	_, err := c.UpsertNote(context.Background(), mr, testMarker, []string{strings.Repeat("é", NoteLimit)})
	if !errors.Is(err, ErrTooLarge) || f.Calls("total") != 0 {
		t.Fatalf("err %v after %d calls; want ErrTooLarge before any call", err, f.Calls("total"))
	}
	// The server's own answer, should its limit be lower than ours.
	f.FailNextBody("POST", "notes", 400, nil, `{"message":{"note":["is too long (maximum is 1000000 characters)"]}}`)
	_, err = c.UpsertNote(context.Background(), mr, testMarker, []string{"x"})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "is too long") {
		t.Fatalf("err %v, want ErrTooLarge with gitlab's reason", err)
	}
	if PageLimit(testMarker) >= NoteLimit || PageLimit(testMarker) < NoteLimit-100 {
		t.Errorf("page limit %d", PageLimit(testMarker))
	}
}

// Two pipelines on one merge request, both listing before either writes:
// each creates its pages, and the re-list after creating leaves one per page.
func TestUpsertNoteConcurrentRuns(t *testing.T) {
	for round := range 8 {
		f := newFake(t)
		f.AddMR(testProj, 7, "feature", "main")
		f.SyncNoteLists(2)
		mr := MR{Project: "group/project", IID: 7}
		pages := [][]string{{"a1", "a2", "a3"}, {"b1", "b2", "b3"}}
		if round%2 == 1 {
			pages[1] = pages[0] // same content from both runs
		}
		var wg sync.WaitGroup
		results := make([]NoteResult, 2)
		errs := make([]error, 2)
		for i := range 2 {
			wg.Go(func() {
				results[i], errs[i] = fakeClient(t, f, nil).UpsertNote(context.Background(), mr, testMarker, pages[i])
			})
		}
		wg.Wait()
		if errs[0] != nil || errs[1] != nil {
			t.Fatalf("round %d: %v / %v", round, errs[0], errs[1])
		}
		if f.Calls("POST notes") != 6 || f.Calls("DELETE note") < 3 {
			t.Fatalf("round %d: no race happened: %v", round, f.AllCalls())
		}
		got := marked(f, 7)
		if len(got) != 3 {
			t.Fatalf("round %d: %d notes, want 3: %q", round, len(got), got)
		}
		for i, b := range got {
			if !strings.Contains(b, fmt.Sprintf("<!-- page %d/3 -->", i+1)) {
				t.Errorf("round %d: note %d is %q", round, i, b)
			}
		}
		// Both runs must link to the surviving page 1.
		for i, r := range results {
			if !strings.HasSuffix(r.URL, fmt.Sprintf("#note_%d", f.Notes(testProj, 7)[0].ID)) {
				t.Errorf("round %d: run %d links %s, page 1 is note %d", round, i, r.URL, f.Notes(testProj, 7)[0].ID)
			}
		}
	}
}

func TestUpsertNoteRejectsBadInput(t *testing.T) {
	c := fakeClient(t, newFake(t), nil)
	mr := MR{Project: "group/project", IID: 7}
	if _, err := c.UpsertNote(context.Background(), mr, "manifestdiff", []string{"x"}); err == nil {
		t.Error("marker that is not an html comment accepted")
	}
	if _, err := c.UpsertNote(context.Background(), mr, testMarker, nil); err == nil {
		t.Error("no pages accepted")
	}
}

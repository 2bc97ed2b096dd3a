package gitlab

import (
	"context"
	"errors"
	"slices"
	"testing"
)

func TestUpsertMRCreateThenUpdate(t *testing.T) {
	f := newFake(t)
	c := fakeClient(t, f, nil)
	ctx := context.Background()
	spec := MRSpec{Project: "group/project", SourceBranch: "promote/qa-to-preprod", TargetBranch: "main",
		Title: "Promote qa to preprod", Description: "| chart | from | to |\n|---|---|---|\n| api | 1.0 | 1.1 |",
		Labels: []string{"promotion", "preprod"}}

	res, err := c.UpsertMR(ctx, spec)
	if err != nil || !res.Created || res.IID != 1 || res.URL != f.WebURL()+"/group/project/-/merge_requests/1" {
		t.Fatalf("create: %+v %v", res, err)
	}
	if m := f.MRs(testProj)[0]; !slices.Equal(m.Labels, []string{"promotion", "preprod"}) || m.Description != spec.Description {
		t.Fatalf("created %+v", m)
	}
	q := f.LastQuery("GET mrs")
	if q.Get("state") != "opened" || q.Get("source_branch") != spec.SourceBranch || q.Get("target_branch") != "main" {
		t.Errorf("list query %v", q)
	}

	res, err = c.UpsertMR(ctx, spec)
	if err != nil || res.Created || res.Updated || f.Calls("PUT mr") != 0 {
		t.Fatalf("unchanged: %+v %v, %d PUTs", res, err, f.Calls("PUT mr"))
	}

	spec.Description += "\n| web | 2.0 | 2.1 |"
	spec.Labels = []string{"preprod", "promotion", "charts"}
	res, err = c.UpsertMR(ctx, spec)
	if err != nil || res.Created || !res.Updated || res.IID != 1 {
		t.Fatalf("update: %+v %v", res, err)
	}
	if len(f.MRs(testProj)) != 1 || f.MRs(testProj)[0].Description != spec.Description || len(f.MRs(testProj)[0].Labels) != 3 {
		t.Fatalf("after update: %d MRs, %+v", len(f.MRs(testProj)), f.MRs(testProj)[0])
	}

	spec.Labels = nil // removing every label must reach GitLab
	if _, err = c.UpsertMR(ctx, spec); err != nil || len(f.MRs(testProj)[0].Labels) != 0 {
		t.Fatalf("labels not removed: %v %v", f.MRs(testProj)[0].Labels, err)
	}
}

// A concurrent run opened the merge request between our list and create:
// GitLab answers 409, and the upsert updates that one instead.
func TestUpsertMRConflictUpdatesExisting(t *testing.T) {
	f := newFake(t)
	f.AddMR(testProj, 3, "promote/qa-to-preprod", "main")
	f.FailNextBody("GET", "mrs", 200, nil, "[]") // the list that raced the other run
	c := fakeClient(t, f, nil)
	res, err := c.UpsertMR(context.Background(), MRSpec{Project: "42", SourceBranch: "promote/qa-to-preprod",
		TargetBranch: "main", Title: "Promote", Description: "table"})
	if err != nil || res.Created || !res.Updated || res.IID != 3 {
		t.Fatalf("%+v %v", res, err)
	}
	if len(f.MRs(testProj)) != 1 || f.MRs(testProj)[0].Title != "Promote" || f.Calls("POST mrs") != 1 {
		t.Fatalf("%d MRs, %+v", len(f.MRs(testProj)), f.MRs(testProj)[0])
	}
}

func TestUpsertMRConflictWithOtherTarget(t *testing.T) {
	f := newFake(t)
	f.AddMR(testProj, 3, "promote/qa-to-preprod", "release")
	c := fakeClient(t, f, nil)
	_, err := c.UpsertMR(context.Background(), MRSpec{Project: "42", SourceBranch: "promote/qa-to-preprod",
		TargetBranch: "main", Title: "Promote"})
	if !errors.Is(err, ErrConflict) {
		t.Fatalf("err %v, want ErrConflict", err)
	}
	checkOneLine(t, err, "already exists", "another branch")
}

func TestUpsertMRNeedsDeveloperToken(t *testing.T) {
	f := newFake(t)
	f.SetReadOnly(true)
	_, err := fakeClient(t, f, nil).UpsertMR(context.Background(), MRSpec{Project: "group/project",
		SourceBranch: "pin/qa-abc", TargetBranch: "main", Title: "Pin"})
	if !errors.Is(err, ErrAuth) {
		t.Fatalf("err %v", err)
	}
	checkOneLine(t, err, "group/project", "developer")
}

// CloseMR leaves its comment on the open merge request of the branch and
// closes it; with none open it writes nothing and says so.
func TestCloseMR(t *testing.T) {
	f := newFake(t)
	f.AddMR(testProj, 7, "promote/qa-to-preprod", "main")
	f.AddMR(testProj, 8, "promote/qa-to-preprod", "release") // other target: not ours to close
	c := fakeClient(t, f, nil)
	ctx := context.Background()
	spec := MRSpec{Project: "group/project", SourceBranch: "promote/qa-to-preprod", TargetBranch: "main"}
	res, closed, err := c.CloseMR(ctx, spec, "stale: main already has it")
	if err != nil || !closed || res.IID != 7 {
		t.Fatalf("close: %+v %v %v", res, closed, err)
	}
	states := map[int64]string{}
	for _, m := range f.MRs(testProj) {
		states[m.IID] = m.State
	}
	if states[7] != "closed" || states[8] != "opened" {
		t.Errorf("states after close: %v", states)
	}
	if notes := f.Notes(testProj, 7); len(notes) != 1 || notes[0].Body != "stale: main already has it" {
		t.Errorf("notes on !7: %+v", notes)
	}
	writes := f.Writes()
	if _, closed, err := c.CloseMR(ctx, spec, "again"); err != nil || closed || f.Writes() != writes {
		t.Errorf("second close: closed %v, err %v, %d new writes", closed, err, f.Writes()-writes)
	}
}

// CheckProject is the cheap first call of a merge request run: a rejected
// token and an unknown project fail it with their hints.
func TestCheckProject(t *testing.T) {
	f := newFake(t)
	ctx := context.Background()
	if err := fakeClient(t, f, nil).CheckProject(ctx, "group/project"); err != nil {
		t.Fatal(err)
	}
	if err := fakeClient(t, f, nil).CheckProject(ctx, "group/missing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown project: %v", err)
	} else {
		checkOneLine(t, err, "group/missing", "CI_PROJECT_ID")
	}
	f.SetToken("glpat-other")
	if err := fakeClient(t, f, nil).CheckProject(ctx, "group/project"); !errors.Is(err, ErrAuth) {
		t.Errorf("rejected token: %v", err)
	} else {
		checkOneLine(t, err, "401", "api scope")
	}
}

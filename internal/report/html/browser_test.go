//go:build browser

package html

// Tests in a real browser: Debian's headless Chromium, through chromedp.
// `make test-browser` runs them (go test -tags browser).

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/report"
	"github.com/gitops-promote/gitops-promote/internal/testutil/browser"
)

// rendered is true once the page's script has run and a frame was laid out.
const rendered = `document.documentElement.hasAttribute("data-rendered")`

// openReport writes the report's page to a file and opens it from disk,
// as a reviewer opens a downloaded artifact.
func openReport(t *testing.T, r report.Report, fragment string) *browser.Page {
	t.Helper()
	file := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(file, render(t, r), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := browser.Start(context.Background(), 1280, 900)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	p, err := b.Open("file://"+file+fragment, rendered)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func eval[T any](t *testing.T, p *browser.Page, expr string) T {
	t.Helper()
	v, err := browser.Eval[T](p, expr)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// waitFor polls expr until it is true, failing with what what shows.
func waitFor(t *testing.T, p *browser.Page, expr, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(p.Ctx, 10*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr)); err != nil {
		t.Fatalf("waiting for %s: %v; %s is %s", expr, err, what, eval[string](t, p, what))
	}
}

// checkDrawn compares the rows the script drew for a big diff with the
// rows the page would have had: classes, line numbers and text.
func checkDrawn(t *testing.T, p *browser.Page, sel string, rd diff.ResourceDiff) {
	t.Helper()
	got := eval[[][4]string](t, p, fmt.Sprintf(`[...document.querySelectorAll(%q)].map(tr =>
		[tr.className, ...[...tr.children].map(td => td.textContent)])`, sel+" table.diff tr"))
	var want [][4]string
	for _, l := range diffLines(rd.Diff) {
		want = append(want, [4]string{l.Kind, l.Old, l.New, l.Text})
	}
	if len(want) <= lazyLines {
		t.Fatalf("%s has %d rows: not a big diff", rd.Name, len(want))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("rows drawn for %s (-want +got):\n%s", rd.Name, d)
	}
}

func noProblems(t *testing.T, p *browser.Page) {
	t.Helper()
	for _, m := range p.Problems() {
		t.Errorf("page problem: %s", m)
	}
}

// visibleApps lists the app entries a reader sees (sections and unchanged
// list items whose filter did not hide them).
const visibleApps = `[...document.querySelectorAll("details.app, details.unchanged li")]
	.filter(e => !e.closest("[hidden]")).map(e => e.dataset.app).sort().join(",")`

func typeInto(t *testing.T, p *browser.Page, id, text string) {
	t.Helper()
	if err := chromedp.Do(p.Ctx, chromedp.SendKeys(chromedp.ID(id), text)); err != nil {
		t.Fatal(err)
	}
}

func clearFilters(t *testing.T, p *browser.Page) {
	t.Helper()
	eval[any](t, p, `document.querySelectorAll("#filters input, #filters select").forEach(e => {
		e.value = ""; e.dispatchEvent(new Event("input"));
	})`)
	waitFor(t, p, `document.getElementById("f-count").dataset.shown === document.getElementById("f-count").dataset.total`,
		`document.getElementById("f-count").textContent`)
}

func TestBrowserReport(t *testing.T) {
	r := fixtureReport(t)
	p := openReport(t, r, "")
	s := r.Summary()

	t.Run("loads with no console error, exception or request", func(t *testing.T) {
		if got := eval[string](t, p, `document.title`); !strings.Contains(got, "main → feature/bump") {
			t.Errorf("title %q", got)
		}
		noProblems(t, p)
	})

	t.Run("counts shown match the summary", func(t *testing.T) {
		cells := eval[map[string]int](t, p, `Object.fromEntries([...document.querySelectorAll("tr[data-env] td")]
			.map(td => [(td.parentElement.dataset.env || "all") + "/" + td.dataset.status, +td.textContent]))`)
		for _, e := range s.ByEnv {
			for st, n := range map[string]int{"changed": e.Changed, "added": e.Added, "removed": e.Removed, "unchanged": e.Unchanged, "error": e.Error} {
				if cells[e.Env+"/"+st] != n {
					t.Errorf("%s/%s shows %d, want %d", e.Env, st, cells[e.Env+"/"+st], n)
				}
			}
		}
		if cells["all/changed"] != s.ByStatus.Changed || cells["all/error"] != s.ByStatus.Error || cells["all/drift"] != 1 {
			t.Errorf("totals %v, summary %+v", cells, s.ByStatus)
		}
		if got := eval[int](t, p, `document.querySelectorAll("details.app, details.unchanged li").length`); got != s.Apps {
			t.Errorf("%d app entries, want %d", got, s.Apps)
		}
	})

	t.Run("filter narrows the list", func(t *testing.T) {
		all := eval[string](t, p, visibleApps)
		for _, tt := range []struct {
			input, text, want string
		}{
			{"f-app", "prod/", "prod/api,prod/broken,prod/drifted,prod/new-app,prod/quiet"},
			{"f-kind", "secret", "staging/web"},
			{"f-name", "new-app", "prod/new-app"},
			// shown once in the shared change, found in each app that has it
			{"f-text", "shared:2", "prod/api,staging/api,staging/billing"},
			// an app's error is text too
			{"f-text", "nil pointer", "prod/broken"},
		} {
			typeInto(t, p, tt.input, tt.text)
			waitFor(t, p, visibleApps+` === `+fmt.Sprintf("%q", tt.want), visibleApps)
			if tt.input == "f-kind" && eval[bool](t, p, `[...document.querySelectorAll("#app\\/staging\\/web .res")].some(r => !r.hidden && r.dataset.kind !== "Secret")`) {
				t.Error("resources of other kinds still show in staging/web")
			}
			if tt.text == "shared:2" && !eval[bool](t, p, `!document.getElementById("shared/1").hidden`) {
				t.Error("the shared change that matches is hidden")
			}
			clearFilters(t, p)
			if got := eval[string](t, p, visibleApps); got != all {
				t.Fatalf("after clearing: %s, want %s", got, all)
			}
		}
		if err := chromedp.Do(p.Ctx, chromedp.SetValue(chromedp.ID("f-status"), "drift")); err != nil {
			t.Fatal(err)
		}
		eval[any](t, p, `document.getElementById("f-status").dispatchEvent(new Event("input"))`)
		waitFor(t, p, visibleApps+` === "prod/drifted"`, visibleApps)
		if got := eval[string](t, p, `document.getElementById("f-count").textContent`); got != "1 of 10 apps" {
			t.Errorf("count says %q", got)
		}
		clearFilters(t, p)
	})

	t.Run("collapsing works", func(t *testing.T) {
		const app = `document.getElementById("app/prod/new-app")`
		const diffShown = `document.querySelector('[id="app/prod/new-app"] table.diff').checkVisibility()`
		if !eval[bool](t, p, app+`.open && `+diffShown) {
			t.Fatal("a small report should start with its apps open")
		}
		click := func() {
			if err := chromedp.Do(p.Ctx, chromedp.Click(chromedp.CSS(`[id="app/prod/new-app"] > summary`))); err != nil {
				t.Fatal(err)
			}
		}
		click()
		waitFor(t, p, `!`+app+`.open && !`+diffShown, app+`.open`)
		click()
		waitFor(t, p, app+`.open && `+diffShown, app+`.open`)
		if err := chromedp.Do(p.Ctx, chromedp.Click(chromedp.ID("collapse-all"))); err != nil {
			t.Fatal(err)
		}
		waitFor(t, p, `[...document.querySelectorAll("details.app, details.group")].every(d => !d.open)`, `"some still open"`)
		if err := chromedp.Do(p.Ctx, chromedp.Click(chromedp.ID("expand-all"))); err != nil {
			t.Fatal(err)
		}
		waitFor(t, p, `[...document.querySelectorAll("details.app, details.group")].every(d => d.open)`, `"some still closed"`)
	})

	t.Run("no problem after the interactions", func(t *testing.T) { noProblems(t, p) })
}

// A link from the note opens its app even in a report that starts
// collapsed.
func TestBrowserLinkOpensApp(t *testing.T) {
	r := fixtureReport(t)
	for i := range 12 { // more apps than openLimit: the page starts collapsed
		r.Apps = append(r.Apps, appOf(t, "prod", fmt.Sprintf("extra-%02d", i), deployment("x", "x:1"), deployment("x", "x:2")))
	}
	big := report.App{Env: "prod", Name: "big-app", Status: report.StatusAdded, Resources: bigConfigMap(t, "big-app")}
	r.Apps = append(r.Apps, big)
	p := openReport(t, r, "#"+report.AppAnchor(r.Apps[7])) // prod/new-app
	if eval[bool](t, p, `document.getElementById("app/staging/web").open`) {
		t.Fatal("a big report should start collapsed")
	}
	if !eval[bool](t, p, `document.getElementById("app/prod/new-app").open`) {
		t.Error("the linked app is not open")
	}
	// in the window, below the sticky filter bar
	if !eval[bool](t, p, `(() => {
		const top = document.getElementById("app/prod/new-app").getBoundingClientRect().top;
		return top >= document.getElementById("filters").getBoundingClientRect().bottom && top < innerHeight - 50;
	})()`) {
		t.Error("the linked app is not in view")
	}
	t.Run("a big diff is drawn when opened, and searched before", func(t *testing.T) {
		const app = `document.getElementById("app/prod/big-app")`
		if !eval[bool](t, p, app+`.querySelector("script.rows") && !`+app+`.querySelector("table")`) {
			t.Fatal("the big diff is drawn before its app is opened")
		}
		typeInto(t, p, "f-text", "value 7919 of big-app")
		waitFor(t, p, visibleApps+` === "prod/big-app"`, visibleApps)
		clearFilters(t, p)
		if err := chromedp.Do(p.Ctx, chromedp.Click(chromedp.CSS(`[id="app/prod/big-app"] > summary`))); err != nil {
			t.Fatal(err)
		}
		waitFor(t, p, app+`.querySelector("table.diff") !== null`, app+`.innerHTML.length`)
		checkDrawn(t, p, `[id="app/prod/big-app"]`, big.Resources[0])
	})
	noProblems(t, p)
}

// Hostile manifest values show as text: no script of theirs runs, no
// element of theirs exists, and the page reports no problem (a policy
// violation would be one).
func TestBrowserHostileValues(t *testing.T) {
	p := openReport(t, hostileReport(t), "")
	noProblems(t, p)
	if eval[bool](t, p, `"__pwned" in window`) {
		t.Error("a value's script ran")
	}
	for sel, want := range map[string]int{"img": 0, "script": 1, "style": 1, "body b": 3} {
		if got := eval[int](t, p, fmt.Sprintf("document.querySelectorAll(%q).length", sel)); got != want {
			t.Errorf("%d elements %q, want %d", got, sel, want)
		}
	}
	if eval[int](t, p, `document.querySelectorAll("script.rows").length`) != 0 {
		t.Error("the open app's big diff was not drawn")
	}
	checkDrawn(t, p, `[id="res/qa/evil/ConfigMap/ns/big"]`, hostileReport(t).Apps[0].Resources[1])
	body := eval[string](t, p, `document.body.innerText`)
	for _, h := range hostile {
		if !strings.Contains(body, h) {
			t.Errorf("%q is not shown as text", h)
		}
	}
	if got := eval[string](t, p, `getComputedStyle(document.body).display`); got != "block" {
		t.Errorf("a value's style applied: body display %q", got)
	}
}

// A report with a live diff: the page agrees with the JSON report, live
// counts included, and the filter narrows the live part too.
func TestBrowserLiveReport(t *testing.T) {
	r := liveReport(t)
	p := openReport(t, r, "")
	var doc bytes.Buffer
	if err := report.JSON(&doc, r); err != nil {
		t.Fatal(err)
	}
	if err := browser.CheckReport(p, doc.Bytes()); err != nil {
		t.Error(err)
	}
	const liveShown = `[...document.querySelectorAll("details.live")].filter(e => !e.closest("[hidden]")).map(e => e.dataset.app).join(",")`
	if got := eval[string](t, p, liveShown); got != "staging/api,staging/docs,staging/web,staging/worker" {
		t.Fatalf("live entries %s", got)
	}
	typeInto(t, p, "f-kind", "configmap")
	waitFor(t, p, liveShown+` === "staging/api"`, liveShown)
	if got := eval[string](t, p, `[...document.querySelectorAll('[id="live/staging/api"] .res')].filter(e => !e.hidden).map(e => e.dataset.status).join()`); got != "prune" {
		t.Errorf("visible live resources of staging/api: %s, want the pruned ConfigMap", got)
	}
	clearFilters(t, p)
	if err := chromedp.Do(p.Ctx, chromedp.SetValue(chromedp.ID("f-status"), "added")); err != nil {
		t.Fatal(err)
	}
	eval[any](t, p, `document.getElementById("f-status").dispatchEvent(new Event("input"))`)
	waitFor(t, p, `document.getElementById("live").hidden`, liveShown)
	clearFilters(t, p)
	if eval[bool](t, p, `document.getElementById("live").hidden || document.getElementById("live-env/prod").hidden`) {
		t.Error("clearing the filter left the live part hidden")
	}
	noProblems(t, p)
}

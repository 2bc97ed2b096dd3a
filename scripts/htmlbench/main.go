// Command htmlbench opens manifestdiff HTML reports in headless Chromium
// (as `make test-browser` does) to check them against the JSON report of
// the same run and to measure them: file size, and the time from
// navigation start to the page's "rendered" marker, over fresh tabs. It
// can also take the screenshots kept in docs/. scripts/bench_html.py runs
// it on generated repositories; its figures go to docs/benchmarks.md.
//
//	go run ./scripts/htmlbench -html r.html -json r.json [-runs 7] [-shot docs/x.png] [-shot-filter TEXT]
//	go run ./scripts/htmlbench -synthetic-apps 100 -synthetic-lines 2000 [-runs 7]
//
// The synthetic report is the worst case for the page: every app adds a
// resource of its own (nothing to group), so every line is in the page.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/chromedp/chromedp"

	"github.com/gitops-promote/gitops-promote/internal/testutil/browser"
)

type timing struct {
	Rendered, FCP, DOMContentLoaded, Load float64
	Elements                              int
}

const timingJS = `(() => {
	const nav = performance.getEntriesByType("navigation")[0];
	const fcp = performance.getEntriesByName("first-contentful-paint")[0];
	return {Rendered: +document.documentElement.dataset.rendered, FCP: fcp ? fcp.startTime : -1,
		DOMContentLoaded: nav.domContentLoadedEventEnd, Load: nav.loadEventEnd,
		Elements: document.getElementsByTagName("*").length};
})()`

func main() {
	htmlFile := flag.String("html", "", "the HTML report")
	jsonFile := flag.String("json", "", "the JSON report of the same run, to check the counts against")
	runs := flag.Int("runs", 7, "page loads to time, each in a fresh tab")
	shot := flag.String("shot", "", "write a screenshot of the report's top to this PNG")
	shotFilter := flag.String("shot-filter", "", "with -shot: also a screenshot with this text filter and its apps open, to <shot>-filtered.png")
	synthApps := flag.Int("synthetic-apps", 0, "instead of -html/-json: a report of this many apps, each adding its own ConfigMap")
	synthLines := flag.Int("synthetic-lines", 1000, "with -synthetic-apps: lines of each ConfigMap")
	flag.Parse()
	if *synthApps > 0 {
		dir, err := os.MkdirTemp("", "htmlbench-")
		if err == nil {
			defer os.RemoveAll(dir)
			*htmlFile, *jsonFile = filepath.Join(dir, "synthetic.html"), filepath.Join(dir, "synthetic.json")
			err = synthetic(*htmlFile, *jsonFile, *synthApps, *synthLines)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "htmlbench:", err)
			os.Exit(1)
		}
	}
	if err := run(*htmlFile, *jsonFile, *runs, *shot, *shotFilter); err != nil {
		fmt.Fprintln(os.Stderr, "htmlbench:", err)
		os.Exit(1)
	}
}

func run(htmlFile, jsonFile string, runs int, shot, shotFilter string) error {
	if htmlFile == "" || jsonFile == "" {
		return errors.New("-html and -json are required")
	}
	abs, err := filepath.Abs(htmlFile)
	if err != nil {
		return err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return err
	}
	b, err := browser.Start(context.Background(), 1280, 1000)
	if err != nil {
		return err
	}
	defer b.Close()
	url := "file://" + abs
	var times []timing
	for i := 0; i < runs; i++ {
		p, err := b.Open(url, `document.documentElement.hasAttribute("data-rendered")`)
		if err != nil {
			return err
		}
		tm, err := browser.Eval[timing](p, timingJS)
		if err == nil {
			err = problems(p)
		}
		if err == nil && i == 0 {
			var doc []byte
			if doc, err = os.ReadFile(jsonFile); err == nil {
				err = browser.CheckReport(p, doc)
			}
		}
		p.Close()
		if err != nil {
			return err
		}
		times = append(times, tm)
	}
	opening, err := openTime(b, url)
	if err != nil {
		return err
	}
	if shot != "" {
		p, err := b.Open(url, `document.documentElement.hasAttribute("data-rendered")`)
		if err != nil {
			return err
		}
		err = screenshots(p, shot, shotFilter)
		p.Close()
		if err != nil {
			return err
		}
	}
	med := func(f func(timing) float64) float64 {
		v := make([]float64, len(times))
		for i, t := range times {
			v[i] = f(t)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	fmt.Printf("%s: %.0f KB, %d elements; over %d loads: rendered %.0f ms median (first load %.0f ms, max %.0f ms), first contentful paint %s, load event %.0f ms\n",
		filepath.Base(htmlFile), float64(st.Size())/1024, times[0].Elements, len(times),
		med(func(t timing) float64 { return t.Rendered }), times[0].Rendered,
		slices.Max(func() []float64 {
			var v []float64
			for _, t := range times {
				v = append(v, t.Rendered)
			}
			return v
		}()),
		fcp(med(func(t timing) float64 { return t.FCP })), med(func(t timing) float64 { return t.Load }))
	if opening != "" {
		fmt.Println("  " + opening)
	}
	return nil
}

// openTime measures, on a fresh tab, the opening of the first app whose
// diff is drawn on opening: from setting it open to the next frame after
// its rows are drawn. "" when the page has no such diff.
func openTime(b *browser.Browser, url string) (string, error) {
	p, err := b.Open(url, `document.documentElement.hasAttribute("data-rendered")`)
	if err != nil {
		return "", err
	}
	defer p.Close()
	res, err := chromedp.Run(p.Ctx, chromedp.Evaluate[[]float64](`new Promise(done => {
		const data = document.querySelector("details:not([open]) script.rows");
		if (!data) { done([]); return; }
		const d = data.closest("details"), t0 = performance.now();
		d.addEventListener("toggle", () => requestAnimationFrame(() => setTimeout(() =>
			done([performance.now() - t0, d.querySelectorAll("table.diff tr").length]), 0)), {once: true});
		d.open = true;
	})`, chromedp.EvalAwaitPromise))
	if err != nil || len(res) == 0 {
		return "", err
	}
	if err := problems(p); err != nil {
		return "", err
	}
	return fmt.Sprintf("opening an app whose %.0f rows are drawn on opening: %.0f ms to the next frame", res[1], res[0]), nil
}

// fcp: Chromium reports no paint entry for some loads from disk.
func fcp(ms float64) string {
	if ms < 0 {
		return "not reported"
	}
	return fmt.Sprintf("%.0f ms", ms)
}

func problems(p *browser.Page) error {
	if pr := p.Problems(); len(pr) > 0 {
		return fmt.Errorf("the page reported: %s", strings.Join(pr, "; "))
	}
	return nil
}

// screenshots: the report's first screen, with a shared Secret change
// open to show redaction; then, with a text filter, the matching apps open.
func screenshots(p *browser.Page, file, filter string) error {
	if _, err := browser.Eval[any](p, `(() => {
		const groups = [...document.querySelectorAll("details.group")];
		const g = groups.find(d => d.querySelector(".res").dataset.kind === "Secret") || groups[0];
		if (g) { g.open = true; }
	})()`); err != nil {
		return err
	}
	png, err := chromedp.Run(p.Ctx, chromedp.CaptureScreenshot())
	if err != nil {
		return err
	}
	if err := os.WriteFile(file, png, 0o644); err != nil {
		return err
	}
	if filter == "" {
		return nil
	}
	if err := chromedp.Do(p.Ctx, chromedp.Click(chromedp.ID("collapse-all")), chromedp.SendKeys(chromedp.ID("f-text"), filter)); err != nil {
		return err
	}
	if _, err := chromedp.Run(p.Ctx, chromedp.Poll[bool](`document.getElementById("f-count").textContent.includes(" of ")`)); err != nil {
		return fmt.Errorf("filter %q: %w", filter, err)
	}
	if err := chromedp.Do(p.Ctx, chromedp.Click(chromedp.ID("expand-all")), chromedp.ScrollIntoView(chromedp.ID("filters"))); err != nil {
		return err
	}
	if png, err = chromedp.Run(p.Ctx, chromedp.CaptureScreenshot()); err != nil {
		return err
	}
	return os.WriteFile(strings.TrimSuffix(file, ".png")+"-filtered.png", png, 0o644)
}

package browser

import (
	"encoding/json"
	"fmt"

	"github.com/chromedp/chromedp"
)

// CheckReport compares what a manifestdiff HTML report shows with the
// JSON report of the same run (counts by environment and status, one
// entry per app), and checks that the app filter narrows the list.
func CheckReport(p *Page, jsonDoc []byte) error {
	var doc struct {
		Apps []struct {
			Env, Name, Status string
		}
		Summary struct {
			Apps      int
			ByStatus  map[string]int
			ByEnv     []map[string]any
			Resources map[string]int
			Live      map[string]int // with --live
		}
	}
	if err := json.Unmarshal(jsonDoc, &doc); err != nil {
		return fmt.Errorf("json report: %w", err)
	}
	cells, err := Eval[map[string]int](p, `Object.fromEntries([...document.querySelectorAll("tr[data-env] td")]
		.map(td => [(td.parentElement.dataset.env || "all") + "/" + td.dataset.status, +td.textContent]))`)
	if err != nil {
		return err
	}
	for st, n := range doc.Summary.ByStatus {
		if len(doc.Summary.ByEnv) > 1 && cells["all/"+st] != n {
			return fmt.Errorf("the page shows %d %s apps in all, the JSON report %d", cells["all/"+st], st, n)
		}
	}
	for _, e := range doc.Summary.ByEnv {
		for st, v := range e {
			if n, ok := v.(float64); ok && cells[fmt.Sprint(e["env"])+"/"+st] != int(n) {
				return fmt.Errorf("the page shows %d %s apps in %v, the JSON report %v", cells[fmt.Sprint(e["env"])+"/"+st], st, e["env"], n)
			}
		}
	}
	shown, err := Eval[map[string]int](p, `Object.fromEntries([...document.querySelectorAll("[data-resources]")]
		.map(e => [e.dataset.resources, +e.textContent]))`)
	if err != nil {
		return err
	}
	for k, n := range doc.Summary.Resources {
		if shown[k] != n {
			return fmt.Errorf("the page shows %d resources %s, the JSON report %d", shown[k], k, n)
		}
	}
	live, err := Eval[map[string]int](p, `Object.fromEntries([...document.querySelectorAll("[data-live]")]
		.map(e => [e.dataset.live, +e.textContent]))`)
	if err != nil {
		return err
	}
	if (doc.Summary.Live == nil) != (len(live) == 0) {
		return fmt.Errorf("the JSON report has live counts %v, the page %v", doc.Summary.Live, live)
	}
	for k, n := range live {
		if doc.Summary.Live[k] != n {
			return fmt.Errorf("the page shows %d live %s, the JSON report %d", n, k, doc.Summary.Live[k])
		}
	}
	// an app whose changes are partly mechanical has a second entry in
	// the folded part (#mechanical), under the same data-app: count apps
	entries, err := Eval[int](p, `new Set([...document.querySelectorAll("details.app")].map(e => e.dataset.app)).size + document.querySelectorAll("details.unchanged li").length`)
	if err != nil {
		return err
	}
	if entries != doc.Summary.Apps || len(doc.Apps) != entries {
		return fmt.Errorf("%d app entries on the page, %d apps in the JSON report", entries, doc.Summary.Apps)
	}
	first := ""
	for _, a := range doc.Apps {
		if a.Status != "unchanged" {
			first = a.Env + "/" + a.Name
			break
		}
	}
	if first == "" {
		return nil
	}
	if err := chromedp.Do(p.Ctx, chromedp.SendKeys(chromedp.ID("f-app"), first)); err != nil {
		return err
	}
	if _, err := chromedp.Run(p.Ctx, chromedp.Poll[bool](`+document.getElementById("f-count").dataset.shown < `+fmt.Sprint(entries))); err != nil {
		return fmt.Errorf("filtering on %s did not narrow the list: %w", first, err)
	}
	if _, err := Eval[any](p, `(e => { e.value = ""; e.dispatchEvent(new Event("input")); })(document.getElementById("f-app"))`); err != nil {
		return err
	}
	if _, err := chromedp.Run(p.Ctx, chromedp.Poll[bool](`+document.getElementById("f-count").dataset.shown === `+fmt.Sprint(entries))); err != nil {
		return fmt.Errorf("clearing the filter did not bring every app back: %w", err)
	}
	return nil
}

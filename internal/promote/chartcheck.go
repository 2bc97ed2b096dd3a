package promote

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/gitops-promote/gitops-promote/internal/charts"
)

// ErrChartCheck marks a chart look-up that failed for another reason than
// a missing version or an unreachable repository (access refused, a broken
// index).
var ErrChartCheck = errors.New("chart check failed")

// checkCharts asks each chart's repository, in parallel, before anything
// is written. A repository that cannot be reached is reported once,
// however many of the plan's charts it serves, and never as a missing
// chart: nothing is known about its versions.
func (a *Apply) checkCharts(ctx context.Context, refs []ChartRef) error {
	if a.Charts == nil || len(refs) == 0 {
		return nil
	}
	errs := make([]error, len(refs))
	var wg sync.WaitGroup
	for i, r := range refs {
		if r.RepoURL == "" {
			errs[i] = fmt.Errorf("cannot verify %s %s: no Helm source names its repository: %w", r.Chart, r.Version, ErrChartMissing)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = a.Charts.HasVersion(ctx, r.RepoURL, r.Chart, r.Version)
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return interrupted(ctx, "checking charts")
	}
	var out []error
	unreachable := map[string]bool{}
	for i, err := range errs {
		var ue *charts.UnreachableError
		switch {
		case err == nil:
		case errors.As(err, &ue):
			if !unreachable[ue.Repo] {
				unreachable[ue.Repo] = true
				out = append(out, err)
			}
		case errors.Is(err, charts.ErrUnreachable), errors.Is(err, ErrChartMissing):
			out = append(out, err)
		case errors.Is(err, charts.ErrVersionNotFound), errors.Is(err, charts.ErrChartNotFound):
			out = append(out, fmt.Errorf("%w: %w", err, ErrChartMissing))
		default:
			out = append(out, fmt.Errorf("checking chart %s %s: %w: %w", refs[i].Chart, refs[i].Version, err, ErrChartCheck))
		}
	}
	return errors.Join(out...)
}

// interrupted is the error of a step before anything is written that the
// run's cancellation (a signal) cut short: said as that, not as the step
// failing (a chart check "failed", a gate that "cannot evaluate", each
// with a hint that does not apply).
func interrupted(ctx context.Context, step string) error {
	return fmt.Errorf("%s: %w (nothing was written)", step, context.Cause(ctx))
}

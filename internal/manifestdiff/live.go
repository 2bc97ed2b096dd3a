package manifestdiff

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/kube"
	"github.com/gitops-promote/gitops-promote/internal/report"
	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// ErrLive marks a run in which the live diff of an env (or of an app)
// failed; the report holds everything else.
var ErrLive = errors.New("the live diff is incomplete")

// ErrNoLiveEnv is --live with no selected env in the config's `live:`.
var ErrNoLiveEnv = errors.New("no selected environment allows a live diff")

// Live asks for a live diff: the config's `live:` envs among the selected
// ones are compared with their cluster.
type Live struct {
	// Kube selects the cluster: kubeconfig and context. An env's own
	// `context:` in the config wins over Kube.Context.
	Kube kube.Options
}

// liveEnvs are the selected envs that allow a live diff.
func (d *Diff) liveEnvs(envs []string) ([]string, error) {
	if d.Live == nil {
		return nil, nil
	}
	var out []string
	for _, e := range envs {
		if _, ok := d.Config.LiveFor(e); ok {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--live: %w (live: in .promote.yaml lists the envs whose cluster may be compared)", ErrNoLiveEnv)
	}
	return out, nil
}

// compareLive compares every app of each live env with that env's cluster.
// An env whose cluster cannot be reached fails alone.
func (d *Diff) compareLive(ctx context.Context, envs []string, pairs []*pair, rep *report.Report) error {
	envsFailed, appsFailed := 0, 0
	for _, env := range envs {
		var ps []*pair
		for _, p := range pairs {
			if p.env == env {
				ps = append(ps, p)
			}
		}
		le, n := d.compareEnv(ctx, env, ps)
		rep.LiveEnvs = append(rep.LiveEnvs, le)
		if le.Error != "" {
			envsFailed++
		} else {
			appsFailed += n
		}
	}
	return liveError(envsFailed, appsFailed)
}

// liveError says how many envs (their cluster) and apps of the other envs
// were not compared; nil when all were.
func liveError(envs, apps int) error {
	var parts []string
	if envs > 0 {
		parts = append(parts, count(envs, "env", "envs"))
	}
	if apps > 0 {
		parts = append(parts, count(apps, "app", "apps"))
	}
	if len(parts) == 0 {
		return nil
	}
	return fmt.Errorf("%s not compared with the cluster: %w", strings.Join(parts, " and "), ErrLive)
}

func (d *Diff) compareEnv(ctx context.Context, env string, ps []*pair) (le report.LiveEnv, failed int) {
	le = report.LiveEnv{Env: env, Findings: []report.LiveFinding{}}
	// parsing every app's inputs and renders again is only worth it when
	// the env has a message to clean
	clean := sync.OnceValue(func() *scrub.Set { return d.envScrub(ctx, env, ps) })
	defer d.scrubEnv(clean, &le)
	opt := d.Live.Kube
	if l, _ := d.Config.LiveFor(env); l.Context != "" {
		opt.Context = l.Context
	}
	cl, err := kube.Connect(ctx, opt)
	if err != nil {
		le.Cluster, le.Error = clusterName(opt), oneLine(err.Error())
		return le, 1
	}
	le.Cluster = cl.Name
	var nss []string
	for _, p := range ps {
		if p.head != nil && p.head.Namespace != "" && !slices.Contains(nss, p.head.Namespace) {
			nss = append(nss, p.head.Namespace)
		}
	}
	sort.Strings(nss)
	s := cl.NewSession(d.liveTracking(), nss)
	errs := d.eachLive(ctx, s, ps)
	d.logClusterWarnings(clean, env, cl.Warnings())
	for i, err := range errs {
		if errors.Is(err, kube.ErrUnreachable) {
			// the cluster went away midway: nothing of this env stands
			for _, p := range ps {
				p.result.Live = nil
			}
			le.Error = oneLine(err.Error())
			return le, 1
		}
		if err != nil {
			ps[i].result.Live = &report.Live{Error: oneLine(err.Error())}
			failed++
		}
	}
	for _, f := range s.ListFindings() {
		le.Findings = append(le.Findings, reportFinding(f))
	}
	return le, failed
}

// liveTracking is how Argo CD finds an app's live objects: as the base
// revision's settings marked them when they were applied, and as the
// head's would once merged. When the merge request changes tracking
// (argocd.tracking or instanceLabelKey), an object either marks is
// found, so none that a sync could prune or leave behind is missed.
func (d *Diff) liveTracking() []kube.Tracking {
	var out []kube.Tracking
	for _, s := range []Side{d.Base, d.Head} {
		a := d.configAt(s).Argo
		out = append(out, kube.Tracking{Method: a.TrackingMethod(), LabelKey: a.LabelKey()})
	}
	return out
}

// eachLive compares the env's apps on a bounded pool; errs[i] is app i's.
func (d *Diff) eachLive(ctx context.Context, s *kube.Session, ps []*pair) []error {
	errs := make([]error, len(ps))
	n := d.Parallel
	if n <= 0 {
		n = 4
	}
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			defer func() {
				if r := recover(); r != nil {
					errs[i] = appPanic(p, r, "comparing with the cluster")
				}
			}()
			errs[i] = d.liveApp(ctx, s, p)
		}()
	}
	wg.Wait()
	return errs
}

// liveApp compares one app of the head revision. Apps that were not
// rendered whole are not compared: a missing object would read as one to
// prune.
func (d *Diff) liveApp(ctx context.Context, s *kube.Session, p *pair) error {
	switch {
	case p.head == nil:
		return nil // removed by the change: Argo CD deletes the app, not a sync
	case p.result.Status == report.StatusError:
		p.result.Live = &report.Live{Error: "the app failed to render"}
		return nil
	case p.result.NotRendered != "":
		p.result.Live = &report.Live{Error: "part of the app was not rendered (" + p.result.NotRendered + ")"}
		return nil
	case p.errs[1] != nil: // an unchanged app, rendered for the live diff only
		return p.errs[1]
	case p.errs[2] != nil:
		return p.errs[2]
	}
	head, err := d.liveObjects(p, 1)
	if err != nil {
		return err
	}
	var gen generated
	if p.manifests[2] != nil {
		again, err := d.liveObjects(p, 2)
		if err != nil {
			return err
		}
		gen = generatedFields(head, again)
	}
	app := kube.App{Name: p.name, Namespace: p.head.Namespace, Prune: p.head.Prune, Ignore: p.head.IgnoreDifferences, Head: objects(head)}
	switch {
	case p.base == nil:
	case p.manifests[0] == nil: // unchanged: main renders the same
		app.Base = app.Head
	default:
		base, err := d.liveObjects(p, 0)
		if err != nil {
			return err
		}
		app.Base = objects(base)
	}
	res, err := s.Compare(ctx, app)
	if err != nil {
		return err
	}
	p.result.Live = d.liveReport(res, gen)
	return nil
}

func (d *Diff) liveObjects(p *pair, side int) ([]diff.Resource, error) {
	rs, err := parseManifests(p.manifests[side], appNamespace(p, side), p.tracks[side])
	if err != nil {
		return nil, fmt.Errorf("env %s, app %s: parsing rendered manifests: %w", p.env, p.name, err)
	}
	// what Argo CD's resource filter excludes it neither syncs nor compares
	rs, _ = diff.DropExcluded(rs, kube.Excluded)
	return rs, nil
}

func objects(rs []diff.Resource) []map[string]any {
	out := make([]map[string]any, len(rs))
	for i, r := range rs {
		out[i] = r.Object
	}
	return out
}

// liveReport diffs each compared pair with the offline diff's rules
// (redaction, ignore paths, generated fields), keeping only what differs.
// A field that differs between the two head renders is generated on
// every render: it is labelled so, never shown as a change or a drift.
func (d *Diff) liveReport(res kube.Result, gen generated) *report.Live {
	l := &report.Live{Changes: []report.LiveResource{}, Drift: []report.LiveResource{}, Findings: []report.LiveFinding{}}
	for _, p := range res.Changes {
		if rd, ok := d.pairDiff(p, p.Live, p.Want, gen.again(p.Key(), p.Want)); ok {
			l.Changes = append(l.Changes, report.LiveResource{ResourceDiff: rd, Action: p.Action})
		}
	}
	for _, p := range res.Drift {
		if rd, ok := d.pairDiff(p, p.Want, p.Live, gen.again(p.Key(), p.Live)); ok {
			l.Drift = append(l.Drift, report.LiveResource{ResourceDiff: rd, Action: driftAction(p.Action)})
		}
	}
	for _, f := range res.Findings {
		l.Findings = append(l.Findings, reportFinding(f))
	}
	return l
}

// pairDiff diffs a (before) against b (after) as the offline diff does;
// bAgain, if not nil, is b with its generated fields changed (see
// generated.again).
func (d *Diff) pairDiff(p kube.Pair, a, b, bAgain map[string]any) (diff.ResourceDiff, bool) {
	side := func(obj map[string]any) []diff.Resource {
		if obj == nil {
			return nil
		}
		return []diff.Resource{{APIVersion: p.APIVersion, Kind: p.Kind, Namespace: p.Namespace, Name: p.Name, Object: obj}}
	}
	rds := diff.Resources(side(a), side(b), side(bAgain), diff.Options{Ignore: d.Config.Ignore})
	if len(rds) != 1 || rds[0].Status == diff.Unchanged {
		return diff.ResourceDiff{}, false
	}
	return rds[0], true
}

func driftAction(a string) string {
	switch a {
	case kube.ActionCreate:
		return report.LiveMissing
	case kube.ActionPrune, kube.ActionRemain:
		return report.LiveExtra
	}
	return report.LiveModified
}

func reportFinding(f kube.Finding) report.LiveFinding {
	return report.LiveFinding{APIVersion: f.APIVersion, Kind: f.Kind, Namespace: f.Namespace, Name: f.Name, Reason: f.Reason, Message: f.Message}
}

func clusterName(o kube.Options) string {
	if o.Context != "" {
		return "context " + o.Context
	}
	return "the current kubeconfig context"
}

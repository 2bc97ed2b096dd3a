// Package manifestdiff compares every Argo CD app of a GitOps repository at
// two revisions: it discovers the apps in each revision's tree, renders the
// ones whose inputs changed as Argo CD's repo-server would, and diffs the
// results per Kubernetes resource into a report. It reads git objects only
// (no checkout) and never prints.
package manifestdiff

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/render"
	"github.com/gitops-promote/gitops-promote/internal/report"
	"github.com/gitops-promote/gitops-promote/internal/syncready"
)

// ErrRender marks a run in which at least one app could not be rendered;
// the report still holds every other app.
var ErrRender = errors.New("some apps could not be rendered")

// ChartFetcher returns a packaged chart (.tgz).
type ChartFetcher = render.ChartFetcher

// Side is one revision to compare.
type Side struct {
	Name string // as the user gave it, for the report
	Rev  string // resolved commit
	FS   fs.FS  // the commit's tree
	// Config is what this revision is discovered and rendered with; nil
	// means Diff.Config. The command gives base the head's config with
	// base's deployment settings (see configAt).
	Config *config.Config
}

// Diff compares Base with Head.
type Diff struct {
	Config *config.Config
	Base   Side
	Head   Side
	Envs   []string // empty: every configured environment
	Charts ChartFetcher
	// Repos opens the other git repositories apps read; nil means none
	// can be read, and such apps fail naming the repository.
	Repos    RepoFetcher
	Parallel int                   // renders at once; 0 = GOMAXPROCS
	Progress func(done, total int) // called after each app rendered, if set
	// Rendering, if set, is called once every app is discovered and
	// planned, before the first render: discovery's heap grows with the
	// repository and rendering's with the change, and the command tunes
	// the collector for each (see cmd/manifestdiff).
	Rendering func()
	// AppTimeout bounds one app's renders together; 0 is
	// DefaultAppTimeout. An app past it is left behind as failed.
	AppTimeout time.Duration
	// Log receives, with the env and app, what the tools would print on
	// stderr while rendering the head revision (render.Input.Log): their
	// warnings, deprecated kustomization fields. Base renders stay silent:
	// a reviewer acts on what the merge request leaves. nil drops them.
	Log *slog.Logger
	// CheckAll renders the head revision of every app, its inputs changed
	// or not, for the sync-readiness checks (--all); an unchanged app
	// stays unchanged in the diff.
	CheckAll bool
	// Shard, if set (Total > 1), diffs only the apps of shard Index of
	// Total (1-based; see InShard), and the report says so for
	// report.Merge. Live comparisons are never sharded.
	Shard Shard
	// RenderTwice renders head twice even for apps proven to render the
	// same bytes again (tests compare both ways).
	RenderTwice bool
	// Live, if set, also compares the apps of the config's live envs with
	// their cluster.
	Live *Live
	// Clean, if set, masks what the process knows to be secret (its
	// tokens, chart and registry credentials, in every form) in each
	// message of the report, after the app's own safety net: a chart host
	// that echoes the credentials it was sent in its answer must not put
	// them into the merge request note.
	Clean func(string) string
	// Mask, if set, masks what the process knows to be secret in rendered
	// content: every name, diff and message of the report, the live
	// comparison's included (report.App.MaskContent), after Clean. A
	// manifest may hold a token the process was given: the diff, the note,
	// the HTML, the JSON and a shard's JSON must not show it.
	Mask func(string) string

	live map[string]bool // envs compared live
	// crds are the CustomResourceDefinitions each revision (0 base, 1
	// head) keeps as files, read on first need (see repoCRDs).
	crds     [2][]syncready.CRD
	crdsRead [2]bool
	// rendered counts the bytes every render of the run returned (count).
	rendered atomic.Int64
	// same caches sameDeployment.
	sameOnce sync.Once
	same     bool
}

// pair is one app name of one env at both revisions (either may be nil).
type pair struct {
	env        string
	name       string
	base, head *argo.App
	result     report.App
	// todo lists the sides to render: 0 base, 1 head, 2 head again.
	todo      []int
	manifests [3][]byte // base, head, head rendered again
	// tracks is each side's tracking metadata, which manifests still
	// lack: parse them with parseManifests (render.ParseTracked).
	tracks [3]*render.Tracking
	notes  [3]string
	errs   [3]error
	// objects is what base (0) and head (1) rendered, for the
	// sync-readiness checks, which run once every app is rendered.
	objects [2][]syncready.Object
	// discoverErr is why discovery failed for this app at either revision.
	discoverErr string
	// panicked says, without the panic's value, what panicked in this
	// app's work and where (see withhold).
	panicked string
}

// Run builds the report. It returns ErrRender (with the full report) when
// any app failed to render, ErrInterrupted (with the report of the apps
// that finished, the others as not rendered) when ctx was cancelled while
// apps rendered; other errors mean no report at all.
func (d *Diff) Run(ctx context.Context) (report.Report, error) {
	rep := report.Report{Base: d.Base.Name, Head: d.Head.Name}
	envs, err := d.Config.SelectEnvs(d.Envs)
	if err != nil {
		return rep, err
	}
	liveEnvs, err := d.liveEnvs(envs)
	if err != nil {
		return rep, err
	}
	if d.Shard.Total > 1 {
		if len(liveEnvs) > 0 {
			return rep, errors.New("a live comparison cannot be sharded: run --live unsharded")
		}
		if d.Shard.Index < 1 || d.Shard.Index > d.Shard.Total {
			return rep, fmt.Errorf("shard %d/%d: the index must be from 1 to %d", d.Shard.Index, d.Shard.Total, d.Shard.Total)
		}
		rep.Shard = &report.Shard{Index: d.Shard.Index, Total: d.Shard.Total, Envs: envs}
	}
	d.live = map[string]bool{}
	for _, e := range liveEnvs {
		d.live[e] = true
	}
	var entries []entry
	if !interruptible(ctx, func() { entries, err = d.discoverAll(ctx, envs) }) {
		// nothing is known of any app yet: no report
		return rep, fmt.Errorf("discovering apps: %w", context.Cause(ctx))
	}
	if err != nil {
		return rep, err
	}
	pairs := pending(entries)
	if d.Rendering != nil {
		d.Rendering()
	}
	unfinished, timedOut := d.render(ctx, pairs)
	failed := len(timedOut)
	for _, p := range pairs {
		_, cut := unfinished[p]
		_, late := timedOut[p]
		if !cut && !late && p.result.Status == report.StatusError {
			failed++
		}
	}
	for p, stub := range timedOut {
		if unfinished == nil {
			unfinished = map[*pair]report.App{}
		}
		unfinished[p] = stub // left behind like an interrupted app, but failed
	}
	var liveErr error
	if len(liveEnvs) > 0 && len(unfinished) == len(timedOut) {
		liveErr = d.compareLive(ctx, liveEnvs, pairs, &rep)
	}
	skip := make(map[*pair]bool, len(unfinished))
	for p := range unfinished {
		skip[p] = true
	}
	if rep.Findings, err = d.syncReadiness(envs, pairs, skip); err != nil {
		return rep, fmt.Errorf("checking sync readiness: %w", err)
	}
	rep.Apps = make([]report.App, 0, len(entries))
	moves := d.newMoveFinder()
	for _, e := range entries {
		if stub, cut := unfinished[e.p]; e.p != nil && cut {
			e.done = stub
		} else if e.p != nil {
			e.p.result.Moves = moves.of(e.p)
			d.scrubSafe(ctx, e.p)
			e.done = e.p.result
		} else {
			d.cleanKnown(&e.done)
		}
		rep.Apps = append(rep.Apps, e.done)
	}
	errs := []error{renderError(failed), liveErr}
	if n := len(unfinished) - len(timedOut); n > 0 {
		errs = append(errs, interruptError(ctx, n))
	}
	return rep, errors.Join(errs...)
}

// renderError says how many apps failed to render; nil when none did.
func renderError(failed int) error {
	if failed == 0 {
		return nil
	}
	return fmt.Errorf("%s to render: %w", count(failed, "app failed", "apps failed"), ErrRender)
}

// discovered is one env's apps at one revision, and the documents that
// failed discovery.
type discovered struct {
	apps  []argo.App
	fails []argo.Failure
}

// pairUp pairs env's apps at both revisions by name, sorted by name. A
// document that failed discovery fails only its own apps (see failed).
func (d *Diff) pairUp(env string, base, head discovered) []*pair {
	byName := map[string]*pair{}
	get := func(name string) *pair {
		if byName[name] == nil {
			byName[name] = &pair{env: env, name: name}
		}
		return byName[name]
	}
	for i := range base.apps {
		get(base.apps[i].Name).base = &base.apps[i]
	}
	for i := range head.apps {
		get(head.apps[i].Name).head = &head.apps[i]
	}
	failed(byName, get, base.fails, d.Base.Name)
	failed(byName, get, head.fails, d.Head.Name)
	out := make([]*pair, 0, len(byName))
	for _, p := range byName {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// discoverSide discovers env at s; with emit, its apps go there (see
// argo.DiscoverOptions.Emit) and none is returned.
func (d *Diff) discoverSide(ctx context.Context, s Side, env string, emit func(argo.App)) ([]argo.App, []argo.Failure, error) {
	opt := argo.DiscoverOptions{Emit: emit}
	if d.Repos != nil {
		// git generators of other repositories; the fetcher resolves a
		// revision once per run, so both sides see the same tree
		opt.Repos = func(repoURL, revision string) (fs.FS, error) {
			tree, _, err := d.Repos.Open(ctx, repoURL, revision, "")
			return tree, err
		}
	}
	apps, err := discoverApps(s.FS, d.configAt(s), env, opt)
	var derr *argo.DiscoveryError
	if errors.As(err, &derr) {
		return apps, derr.Failures, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("discovering apps at %s: %w", s.Name, err)
	}
	return apps, nil, nil
}

// failed marks the apps of failed documents as errors. An Application
// fails under its own name; an ApplicationSet fails every app it
// generates at the other revision, or stands under its own name when
// there is none. A file that does not parse stands under its own name,
// and the apps it holds at the other revision fail with it: whether
// they were removed or changed is unknowable.
func failed(byName map[string]*pair, get func(string) *pair, fails []argo.Failure, side string) {
	for _, f := range fails {
		msg := oneLine(fmt.Sprintf("%v (at %s)", f.Err, side))
		hit := false
		for _, p := range byName {
			switch {
			case f.AppSet && (p.base != nil && p.base.AppSet == f.Name || p.head != nil && p.head.AppSet == f.Name):
				p.discoverErr, hit = firstNonEmpty(p.discoverErr, msg), true
			case f.WholeFile && (p.base != nil && p.base.File == f.File || p.head != nil && p.head.File == f.File):
				p.discoverErr = firstNonEmpty(p.discoverErr, msg)
			}
		}
		if !hit {
			p := get(f.Name)
			p.discoverErr = firstNonEmpty(p.discoverErr, msg)
		}
	}
}

// planPair decides what to render: nothing when the inputs are identical
// at both revisions, a second head render to tell generated fields from
// changes when both sides exist (see renderPair for when it is skipped).
func (d *Diff) planPair(p *pair, known [2]*sideKey) []int {
	p.result = report.App{Env: p.env, Name: p.name}
	switch {
	case p.head != nil:
		p.result.Namespace = p.head.Namespace
	case p.base != nil:
		p.result.Namespace = p.base.Namespace
	}
	if p.discoverErr != "" {
		p.result.Status, p.result.Error = report.StatusError, p.discoverErr
		return nil
	}
	switch {
	case p.base == nil:
		p.result.Status = report.StatusAdded
		if d.live[p.env] {
			return []int{1, 2} // the second render tells generated fields from live changes
		}
		return []int{1}
	case p.head == nil:
		p.result.Status = report.StatusRemoved
		return []int{0}
	}
	if p.base.Err != "" || p.head.Err != "" {
		return []int{0, 1, 2} // fails, and must say so at every revision
	}
	var keys [2]*sideKey
	for i, app := range []*argo.App{p.base, p.head} {
		if keys[i] = known[i]; keys[i] == nil {
			keys[i] = d.sideKey(*app, i)
		}
		if pe := keys[i].panicked; pe != nil {
			p.fail(p.panicError(pe))
			return nil
		}
	}
	if err := errors.Join(keys[0].err, keys[1].err); err != nil {
		p.result.Status, p.result.Error = report.StatusError, oneLine(fmt.Sprintf("env %s, app %s: reading inputs: %v", p.env, p.name, err))
		return nil
	}
	if keys[0].key == keys[1].key && d.sameDeployment() {
		p.result.Status = report.StatusUnchanged
		if d.live[p.env] {
			// the cluster is compared with every app, and generated
			// fields must be told from live changes
			return []int{1, 2}
		}
		if d.CheckAll {
			return []int{1} // for the sync-readiness checks only
		}
		return nil
	}
	return []int{0, 1, 2}
}

// finish turns a pair's renders into its report entry.
func (d *Diff) finish(p *pair) {
	if p.result.Status == report.StatusUnchanged {
		d.unchangedObjects(p)
		return
	}
	if p.result.Status == report.StatusError {
		return
	}
	for i, err := range p.errs {
		if err != nil {
			p.result.Status, p.result.Error = report.StatusError, oneLine(err.Error())
			p.result.Resources = nil
			if i == 0 {
				p.result.Error = oneLine(fmt.Sprintf("%s (at %s)", err, d.Base.Name))
			}
			return
		}
	}
	p.result.NotRendered = firstNonEmpty(p.notes[:]...)
	sides := [3][]diff.Resource{}
	for i, m := range p.manifests {
		if m == nil {
			continue
		}
		ns := appNamespace(p, i)
		res, err := parseManifests(m, ns, p.tracks[i])
		if err != nil {
			p.result.Status = report.StatusError
			p.result.Error = oneLine(fmt.Sprintf("env %s, app %s: parsing rendered manifests: %v", p.env, p.name, err))
			return
		}
		sides[i] = res
		if i < 2 {
			p.objects[i] = objectsOf(res)
		}
	}
	warnings := asArgoCDSyncs(&sides)
	var again []diff.Resource
	if p.manifests[2] != nil && p.base != nil {
		again = sides[2] // an added app's second render is for the live diff only
	}
	p.result.Resources = diff.Resources(sides[0], sides[1], again, diff.Options{Ignore: d.Config.Ignore})
	p.result.Warnings = warnings
	if p.result.Status == "" {
		p.result.Status = report.AppStatus(p.result.Resources)
		if p.result.NotRendered != "" {
			// its inputs changed and part of it was not rendered: never
			// present that as "no changes"
			p.result.Status = report.StatusChanged
		}
	}
}

func appNamespace(p *pair, side int) string {
	if side == 0 {
		return p.base.Namespace
	}
	return p.head.Namespace
}

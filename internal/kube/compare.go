package kube

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// Actions of a live comparison: what a sync would do with one object.
const (
	ActionCreate = "create" // rendered, not live
	ActionUpdate = "update" // rendered and live (the two may be equal)
	ActionPrune  = "prune"  // live and managed by the app, not rendered: the app prunes
	ActionRemain = "remain" // the same, but the app does not prune or the object opts out
)

// App is one app to compare: its rendered objects at the head and base
// revisions (as parsed documents) and the Argo CD settings that decide
// the comparison.
type App struct {
	Name      string
	Namespace string // destination namespace
	Prune     bool   // syncPolicy.automated.prune on an auto-synced app
	Ignore    []argo.IgnoreDifference
	Head      []map[string]any
	// Base is the render of the revision the cluster should match (main);
	// nil when the app does not exist there.
	Base []map[string]any
}

// Pair is one object on both sides of a comparison, normalised: server
// fields dropped, ignored differences removed. Live or Want is nil where
// the object is absent.
type Pair struct {
	Ref
	Action     string
	Live, Want map[string]any
}

// Result is an app compared with the cluster.
type Result struct {
	// Changes is what a sync of the head render would do.
	Changes []Pair
	// Drift compares the base render with the cluster: create means
	// missing from the cluster, prune/remain means only in the cluster.
	Drift []Pair
	// Findings are the objects that could not be compared.
	Findings []Finding
	// Hooks counts rendered hook objects, which Argo CD runs rather than
	// compares; they are left out.
	Hooks int
}

// Compare compares one app with the cluster. An error means the cluster
// could not be reached (ErrUnreachable) or the app's ignoreDifferences do
// not compile; what the API server refuses about single objects is in
// Findings.
func (s *Session) Compare(ctx context.Context, app App) (Result, error) {
	var res Result
	ig, err := CompileIgnore(app.Ignore)
	if err != nil {
		return res, fmt.Errorf("app %s: %w", app.Name, err)
	}
	tracked, err := s.tracked(ctx, app.Name)
	if err != nil {
		return res, err
	}
	c := &comparison{s: s, app: app, ig: ig, res: &res, found: map[string]bool{}}
	if res.Changes, err = c.side(ctx, app.Head, tracked, true); err != nil {
		return res, err
	}
	if app.Base != nil {
		if res.Drift, err = c.side(ctx, app.Base, tracked, false); err != nil {
			return res, err
		}
	}
	sort.Slice(res.Findings, func(i, j int) bool { return res.Findings[i].Key() < res.Findings[j].Key() })
	return res, nil
}

// comparison holds one app's state across its head and base sides.
type comparison struct {
	s     *Session
	app   App
	ig    *Ignore
	res   *Result
	found map[string]bool // findings already recorded, by key and reason
}

// side compares one render with the cluster, then the managed live
// objects the render lacks.
func (c *comparison) side(ctx context.Context, objs []map[string]any, tracked []Ref, head bool) ([]Pair, error) {
	var out []Pair
	rendered := map[string]bool{}
	for _, obj := range objs {
		if isHook(obj) {
			if head {
				c.res.Hooks++
			}
			continue
		}
		p, ok, err := c.rendered(ctx, obj)
		if err != nil {
			return nil, err
		}
		rendered[p.Key()] = true
		if ok {
			out = append(out, p)
		}
	}
	for _, r := range tracked {
		if rendered[r.Key()] {
			continue
		}
		live, err := c.s.getLive(ctx, r)
		if err != nil {
			if err := c.fail(r, err); err != nil {
				return nil, err
			}
			continue
		}
		if live == nil {
			continue // deleted since it was listed
		}
		p := Pair{Ref: r, Action: ActionPrune}
		if !c.app.Prune || optsOut(live) {
			p.Action = ActionRemain
		}
		if p.Live, err = c.finish(r, live); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	return out, nil
}

// rendered compares one rendered object; ok is false when it became a
// finding.
func (c *comparison) rendered(ctx context.Context, obj map[string]any) (Pair, bool, error) {
	r := refOf(obj)
	sr, err := c.s.c.scoped(r)
	if err != nil {
		return Pair{Ref: r}, false, c.fail(r, err)
	}
	obj = diff.CopyObject(obj)
	if sr.Namespace == "" {
		if m, ok := obj["metadata"].(map[string]any); ok {
			delete(m, "namespace")
		}
	}
	p := Pair{Ref: sr, Action: ActionCreate}
	if sr.Name == "" {
		// generateName (or no name at all): Argo CD finds no live object
		// for it and creates it at sync; there is nothing to look up
		p.Want, err = c.finish(sr, obj)
		return p, err == nil, err
	}
	live, err := c.s.getLive(ctx, sr)
	if err != nil {
		return p, false, c.fail(sr, err)
	}
	if live == nil {
		p.Want, err = c.finish(sr, obj)
		return p, err == nil, err
	}
	p.Action = ActionUpdate
	want := obj
	var pt *typed.ParseableType
	var trusted *fieldpath.Set
	if managers := c.ig.managers(sr); len(managers) > 0 {
		gv, _ := schema.ParseGroupVersion(sr.APIVersion)
		if pt, err = c.s.parseableType(gv.WithKind(sr.Kind)); err != nil {
			return p, false, err
		}
		if live, want, trusted, err = trustManagers(live, want, managers, pt); err != nil {
			return p, false, fmt.Errorf("app %s, %s: %w", c.app.Name, sr, err)
		}
	}
	predicted, err := c.s.dryRun(ctx, sr, want)
	if err != nil {
		return p, false, c.fail(sr, err)
	}
	if predicted, err = dropFields(predicted, trusted, pt); err != nil {
		return p, false, fmt.Errorf("app %s, %s: %w", c.app.Name, sr, err)
	}
	if p.Live, err = c.finish(sr, live); err != nil {
		return p, false, err
	}
	p.Want, err = c.finish(sr, predicted)
	return p, err == nil, err
}

// fail records an API answer as a finding (once per object and reason)
// and returns a failure to reach the cluster.
func (c *comparison) fail(r Ref, err error) error {
	f, terr := c.s.c.classify(r, err)
	if terr != nil {
		return terr
	}
	k := f.Key() + "\x00" + f.Reason
	if !c.found[k] {
		c.found[k] = true
		c.res.Findings = append(c.res.Findings, *f)
	}
	return nil
}

// finish drops what the server manages, then the app's ignored fields.
func (c *comparison) finish(r Ref, obj map[string]any) (map[string]any, error) {
	obj = diff.CopyObject(obj)
	stripServerFields(obj)
	out, err := c.ig.apply(r, obj)
	if err != nil {
		return nil, fmt.Errorf("app %s: %w", c.app.Name, err)
	}
	return out, nil
}

// serverMetadata are the metadata fields the API server sets; like
// `kubectl diff` and Argo CD, the comparison leaves them out.
var serverMetadata = []string{"managedFields", "resourceVersion", "uid", "generation", "creationTimestamp", "selfLink"}

func stripServerFields(obj map[string]any) {
	delete(obj, "status")
	m, ok := obj["metadata"].(map[string]any)
	if !ok {
		return
	}
	for _, k := range serverMetadata {
		delete(m, k)
	}
	if len(m) == 0 {
		delete(obj, "metadata")
	}
}

func refOf(obj map[string]any) Ref {
	r := Ref{}
	r.APIVersion, _ = obj["apiVersion"].(string)
	r.Kind, _ = obj["kind"].(string)
	if m, ok := obj["metadata"].(map[string]any); ok {
		r.Namespace, _ = m["namespace"].(string)
		r.Name, _ = m["name"].(string)
	}
	return r
}

func annotations(obj map[string]any) map[string]any {
	m, _ := obj["metadata"].(map[string]any)
	a, _ := m["annotations"].(map[string]any)
	return a
}

// isHook: Argo CD runs hooks (its own, and Helm's but crd-install) in
// their phase instead of comparing them.
func isHook(obj map[string]any) bool {
	a := annotations(obj)
	if _, ok := a["argocd.argoproj.io/hook"]; ok {
		return true
	}
	h, ok := a["helm.sh/hook"].(string)
	return ok && h != "crd-install"
}

// optsOut: `argocd.argoproj.io/sync-options: Prune=false` keeps a live
// object that is no longer rendered.
func optsOut(obj map[string]any) bool {
	opts, _ := annotations(obj)["argocd.argoproj.io/sync-options"].(string)
	for _, o := range strings.Split(opts, ",") {
		if strings.TrimSpace(o) == "Prune=false" {
			return true
		}
	}
	return false
}

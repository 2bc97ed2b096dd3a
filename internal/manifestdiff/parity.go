//go:build parity

package manifestdiff

import (
	"context"
	"fmt"
	"sort"

	"github.com/gitops-promote/gitops-promote/internal/diff"
)

// ParityApp is one app as manifestdiff renders it at one revision, for
// the Argo CD parity suite (test/argocd-parity): the objects Argo CD's
// controller would compare and sync, or why the app fails. Only builds
// with -tags parity have it; the objects hold secret values in clear.
type ParityApp struct {
	Env, Name, Namespace string
	Objects              []diff.Resource `json:",omitempty"`
	Warnings             []string        `json:",omitempty"`
	Error                string          `json:",omitempty"`
}

// RenderForParity discovers and renders every app of d.Head, through the
// same discovery, render, parse and Argo CD rules as Run, without a diff.
func (d *Diff) RenderForParity(ctx context.Context) ([]ParityApp, error) {
	envs, err := d.Config.SelectEnvs(d.Envs)
	if err != nil {
		return nil, err
	}
	d.Base = d.Head
	var out []ParityApp
	for _, env := range envs {
		sides, err := d.discoverBoth(ctx, env, nil)
		if err != nil {
			return nil, err
		}
		ps := d.pairUp(env, discovered{}, sides[1])
		apps := make([]ParityApp, len(ps))
		d.each(len(ps), func(i int) { apps[i] = d.parityApp(ctx, ps[i]) })
		out = append(out, apps...)
	}
	return out, nil
}

func (d *Diff) parityApp(ctx context.Context, p *pair) ParityApp {
	a := ParityApp{Env: p.env, Name: p.name}
	if p.head != nil {
		a.Namespace = p.head.Namespace
	}
	if p.discoverErr != "" || p.head == nil {
		a.Error = firstNonEmpty(p.discoverErr, "not discovered at head")
		return a
	}
	appCtx, cancel := context.WithTimeoutCause(ctx, d.appTimeout(), ErrAppTimeout)
	defer cancel()
	d.renderSide(appCtx, p, 1)
	if err := p.errs[1]; err != nil {
		a.Error = oneLine(err.Error())
		return a
	}
	res, err := parseManifests(p.manifests[1], p.head.Namespace, p.tracks[1])
	if err != nil {
		a.Error = oneLine(fmt.Sprintf("env %s, app %s: parsing rendered manifests: %v", p.env, p.name, err))
		return a
	}
	sides := [3][]diff.Resource{nil, res, nil}
	a.Warnings = asArgoCDSyncs(&sides)
	a.Objects = sides[1]
	sort.SliceStable(a.Objects, func(i, j int) bool { return a.Objects[i].Key() < a.Objects[j].Key() })
	return a
}

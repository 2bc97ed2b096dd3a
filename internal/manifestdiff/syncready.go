package manifestdiff

import (
	"fmt"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/render"
	"github.com/gitops-promote/gitops-promote/internal/report"
	"github.com/gitops-promote/gitops-promote/internal/syncready"
)

// objectsOf keeps what the sync-readiness checks read of a rendered side:
// the object's identity, with the namespace Argo CD syncs it to, and what
// the schema rules need (decided here, on the app's worker, for built-in
// kinds).
func objectsOf(res []diff.Resource) []syncready.Object {
	out := make([]syncready.Object, len(res))
	for i, r := range res {
		out[i] = syncready.Object{APIVersion: r.APIVersion, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name,
			Schema: syncready.NewSchema(r.Object, r.Source)}
		for _, rp := range r.Repeats {
			out[i].Schema.Issues = append(out[i].Schema.Issues, syncready.RepeatIssue(rp.Path, r.Source, rp.Count))
		}
	}
	return out
}

// syncReadiness checks the apps of pairs (those the run rendered, less
// the unfinished) env by env at head, and again at base: a head finding
// base also had is preexisting. Each revision is judged by its own
// AppProjects and Kubernetes version; the severities are the trusted
// config's. A run whose base and head are one commit judges that
// revision, not a change (promote check --rendered): no finding is
// preexisting, or every one would be.
func (d *Diff) syncReadiness(envs []string, pairs []*pair, skip map[*pair]bool) ([]syncready.Finding, error) {
	var head, base []syncready.Finding
	sides := map[int]*[]syncready.Finding{1: &head, 0: &base}
	if d.Base.Rev != "" && d.Base.Rev == d.Head.Rev {
		delete(sides, 0)
	}
	for _, env := range envs {
		for side, out := range sides {
			e, err := d.readyEnv(env, side, pairs, skip)
			if err != nil {
				return nil, err
			}
			fs, err := syncready.Check(e)
			if err != nil {
				return nil, err
			}
			*out = append(*out, fs...)
		}
	}
	sev := d.Config.SyncReadiness.Severity
	found := syncready.MarkPreexisting(syncready.Apply(head, sev), syncready.Apply(base, sev), envs)
	for i := range found {
		f := &found[i]
		f.Message, f.Name, f.Namespace = d.cleanText(f.Message), d.cleanText(f.Name), d.cleanText(f.Namespace)
	}
	return found, nil
}

// cleanText masks what the process knows to be secret (a repoURL may
// carry credentials), as every other message of the report is.
func (d *Diff) cleanText(s string) string {
	if d.Clean != nil {
		s = d.Clean(s)
	}
	if d.Mask != nil {
		s = d.Mask(s)
	}
	return s
}

// readyEnv is env's apps at one revision (0 base, 1 head) with that
// revision's AppProjects and Kubernetes version.
func (d *Diff) readyEnv(env string, side int, pairs []*pair, skip map[*pair]bool) (syncready.Env, error) {
	s := d.side(side)
	cfg := d.configAt(s)
	e := syncready.Env{Name: env, KubeVersion: cfg.KubeVersionOf(env),
		Looked: strings.Join(append(cfg.ManifestGlobs(env), cfg.AppProjects...), ", ")}
	if e.KubeVersion == "" {
		e.KubeVersion = render.DefaultKubeVersion() // what the charts were rendered for
	}
	for _, p := range pairs {
		app := p.head
		if side == 0 {
			app = p.base
		}
		if p.env != env || app == nil || skip[p] {
			continue
		}
		e.Apps = append(e.Apps, readyApp(app, p.objects[side]))
	}
	if len(e.Apps) == 0 {
		return e, nil // nothing rendered in env: its AppProjects are not read
	}
	if needsRepoCRDs(e.Apps) {
		crds, err := d.repoCRDs(side)
		if err != nil {
			return e, fmt.Errorf("env %s at %s: CustomResourceDefinitions: %w", env, s.Name, err)
		}
		e.CRDs = crds
	}
	files, err := cfg.AppProjectFiles(s.FS, env)
	if err != nil {
		return e, fmt.Errorf("env %s at %s: AppProjects: %w", env, s.Name, err)
	}
	if e.Projects, err = syncready.ReadProjects(s.FS, files); err != nil {
		e.Unreadable = fmt.Sprintf("unreadable at %s: %s", s.Name, oneLine(err.Error()))
	}
	return e, nil
}

func readyApp(a *argo.App, objects []syncready.Object) syncready.App {
	ra := syncready.App{Name: a.Name, Project: a.Project, Server: a.Server, ByName: a.ByName, Namespace: a.Namespace,
		Objects: objects}
	for _, s := range a.Sources {
		ra.Repos = append(ra.Repos, s.RepoURL)
	}
	return ra
}

// unchangedObjects keeps the objects of an unchanged app whose head was
// rendered (for --live or CheckAll): its inputs are the same at base, so
// base rendered the same objects, and a finding only base's AppProjects
// or Kubernetes version would not give is new. Under CheckAll, a head
// that fails to render or parse is the app's error: it cannot be checked.
func (d *Diff) unchangedObjects(p *pair) {
	if p.manifests[1] == nil && p.errs[1] == nil {
		return
	}
	err := p.errs[1]
	var res []diff.Resource
	if err == nil {
		res, err = parseManifests(p.manifests[1], appNamespace(p, 1), p.tracks[1])
	}
	if err != nil {
		if d.CheckAll && !d.live[p.env] {
			p.result.Status = report.StatusError
			p.result.Error = oneLine(fmt.Sprintf("env %s, app %s: rendering for the sync-readiness checks: %v", p.env, p.name, err))
		}
		return
	}
	objs := objectsOf(res)
	p.objects = [2][]syncready.Object{objs, objs}
}

// needsRepoCRDs reports whether some custom resource of apps has no CRD
// they render: only then is the repository searched for one.
func needsRepoCRDs(apps []syncready.App) bool {
	rendered := map[string]bool{}
	for _, a := range apps {
		for _, o := range a.Objects {
			if c := o.Schema.CRD; c != nil {
				rendered[c.Group+"/"+c.Kind] = true
			}
		}
	}
	for _, a := range apps {
		for _, o := range a.Objects {
			if o.Schema.Body != nil && !rendered[diff.Group(o.APIVersion)+"/"+o.Kind] {
				return true
			}
		}
	}
	return false
}

// repoCRDs reads the CRDs one revision keeps as files, once per run.
func (d *Diff) repoCRDs(side int) ([]syncready.CRD, error) {
	if d.crdsRead[side] {
		return d.crds[side], nil
	}
	crds, err := syncready.RepoCRDs(d.side(side).FS)
	d.crds[side], d.crdsRead[side] = crds, err == nil
	return crds, err
}

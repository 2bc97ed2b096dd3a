package manifestdiff

import (
	"context"
	"io/fs"
	"path"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/report"
	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// Bounds on what the safety net reads of a kustomize or directory source.
const (
	maxScrubFileBytes  = 1 << 20
	maxScrubTotalBytes = 32 << 20
)

// scrubResult is the last guard before a pair's report entry leaves this
// package for the diff, markdown and JSON outputs and the merge request
// note. Its error, and with --live the live error and the cluster's
// messages (an API server's "Invalid value" quotes the value), are cleaned
// with every input of the app at both revisions (value files, helm values
// and parameters, file parameters, the files of its kustomize and
// directory sources), every Secret value it rendered, and the userinfo of
// its sources' URLs; its not-rendered note, made of paths and URLs, with
// the userinfo only. Renderers clean their own errors first (render.Error
// does); this catches what a renderer, a fetch, discovery or the cluster
// lets through. It costs nothing for an app that has none of these.
func (d *Diff) scrubResult(ctx context.Context, p *pair) {
	r := &p.result
	defer d.cleanKnown(r)
	apps := []*argo.App{p.base, p.head}
	if r.NotRendered != "" {
		creds := &scrub.Set{}
		for _, app := range apps {
			for _, src := range sources(app) {
				creds.AddURL(src.RepoURL)
			}
		}
		r.NotRendered = creds.Text(r.NotRendered)
	}
	if r.Error == "" && !liveMessages(r.Live) {
		return
	}
	s := &scrub.Set{}
	s.Keep(p.env, r.Namespace, d.Base.Name, d.Head.Name)
	d.addPair(ctx, s, p)
	r.Error = s.Text(r.Error)
	if l := r.Live; l != nil {
		l.Error = s.Text(l.Error)
		for i := range l.Findings {
			l.Findings[i].Message = s.Text(l.Findings[i].Message)
		}
	}
}

// logClusterWarnings hands the API server's warnings about an env's
// objects (a deprecated API version a render uses, a field the server
// drops) to Log, each once, as warnings of the env. A warning may quote
// what it is about, so it is cleaned as a library's message is: every
// input of the env's apps and every Secret value rendered for them
// masked, and any quoted span.
func (d *Diff) logClusterWarnings(s func() *scrub.Set, env string, warnings []string) {
	if d.Log == nil || len(warnings) == 0 {
		return
	}
	log := d.Log.With("env", env)
	for _, w := range warnings {
		log.Warn("the API server warns: " + s().Foreign(w))
	}
}

// envScrub is what an env's cluster messages may leak: every input of
// its apps at both revisions and every Secret value rendered for them.
func (d *Diff) envScrub(ctx context.Context, env string, ps []*pair) *scrub.Set {
	s := &scrub.Set{}
	s.Keep(env, d.Base.Name, d.Head.Name)
	for _, p := range ps {
		for _, app := range []*argo.App{p.base, p.head} {
			if app != nil {
				s.Keep(app.Namespace)
			}
		}
		d.addPair(ctx, s, p)
	}
	return s
}

// scrubEnv cleans an env's own error and findings (a connection error,
// a forbidden listing) as a cluster message about its apps' objects, then
// with Clean: the process's credentials, the kubeconfig's among them.
func (d *Diff) scrubEnv(s func() *scrub.Set, le *report.LiveEnv) {
	defer le.MaskContent(d.Mask)
	if le.Error == "" && len(le.Findings) == 0 {
		return
	}
	clean := func(m string) string {
		if m = s().Text(m); d.Clean != nil {
			m = d.Clean(m)
		}
		return m
	}
	le.Error = clean(le.Error)
	for i := range le.Findings {
		le.Findings[i].Message = clean(le.Findings[i].Message)
	}
}

// addPair registers what a pair may leak: every input of the app at both
// revisions and every Secret value it rendered; its name stays readable.
func (d *Diff) addPair(ctx context.Context, s *scrub.Set, p *pair) {
	s.Keep(p.name)
	for i, app := range []*argo.App{p.base, p.head} {
		if app == nil {
			continue
		}
		side := d.Base
		if i == 1 {
			side = d.Head
		}
		d.addInputs(ctx, s, app, side)
	}
	for i, m := range p.manifests {
		if res, err := parseManifests(m, "", p.tracks[i]); err == nil && m != nil {
			s.Add(diff.SensitiveValues(res)...)
		}
	}
}

// cleanKnown runs Clean over every message of r, then Mask over all of
// its content.
func (d *Diff) cleanKnown(r *report.App) {
	defer r.MaskContent(d.Mask)
	if d.Clean == nil {
		return
	}
	r.Error, r.NotRendered = d.Clean(r.Error), d.Clean(r.NotRendered)
	if l := r.Live; l != nil {
		l.Error = d.Clean(l.Error)
		for i := range l.Findings {
			l.Findings[i].Message = d.Clean(l.Findings[i].Message)
		}
	}
}

func liveMessages(l *report.Live) bool {
	if l == nil {
		return false
	}
	for _, f := range l.Findings {
		if f.Message != "" {
			return true
		}
	}
	return l.Error != ""
}

func sources(app *argo.App) []argo.Source {
	if app == nil {
		return nil
	}
	return app.Sources
}

// addInputs registers what app feeds its renderers at one revision, as
// argo resolves each source for them, with the other repositories it
// reads mounted as renderApp mounts them (their trees are cached by the
// fetch, so this costs no network), best effort (argo.AppOptions). Read
// errors are ignored: a file that cannot be read cannot be in a message.
// Value files inside a chart are the chart's own content, published with
// it, and are not read here.
func (d *Diff) addInputs(ctx context.Context, s *scrub.Set, app *argo.App, side Side) {
	s.Keep(app.File)
	for _, src := range app.Sources {
		s.AddURL(src.RepoURL)
		s.Keep(src.Chart, src.Path, src.TargetRevision)
		if h := src.Helm; h != nil {
			s.AddYAML(h.ValuesYAML())
			for _, p := range h.Parameters {
				s.Add(p.Value)
				s.Keep(p.Name)
			}
		}
	}
	res, err := resolveApp(*app, ctx, d.appOptions(side, true))
	if err != nil {
		return
	}
	for _, r := range res.Sources {
		switch req := r.Request; {
		case req == nil || r.Err != nil:
		case req.Helm != nil:
			addHelmFiles(s, req.Helm, res.FS)
		case req.Kind == argo.KindKustomize || req.Kind == argo.KindDirectory:
			addTree(s, res.FS, req.Path)
		}
	}
}

// noFiles is an empty file system: chart files are not read here.
type noFiles struct{}

func (noFiles) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

func addHelmFiles(s *scrub.Set, h *argo.HelmRequest, repo fs.FS) {
	vfs, err := argo.ExpandValueFiles(h.ValueFiles, repo, noFiles{})
	if err != nil {
		vfs = h.ValueFiles
	}
	for _, vf := range vfs {
		s.Keep(vf.Path)
		if data, err := fs.ReadFile(repo, vf.Path); err == nil && vf.InRepo {
			s.AddYAML(data)
		}
	}
	for _, fp := range h.FileParameters {
		s.Keep(fp.Name, fp.File.Path)
		if data, err := fs.ReadFile(repo, fp.File.Path); err == nil && fp.File.InRepo {
			s.Add(string(data))
		}
	}
}

// addTree registers the values of the files under dir: the generator
// literals of a kustomization (its other entries are paths and names),
// the Secret values of other YAML and JSON files (manifests: the rest of
// them is shown in the diff anyway), every scalar of such a file that
// does not parse (it is likely the one the error is about), and the
// values of "key=value" lines in anything else (env files, literal
// files). File names stay readable, as written under dir too.
func addTree(s *scrub.Set, fsys fs.FS, dir string) {
	total := 0
	dir = path.Clean(dir)
	fs.WalkDir(fsys, dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !e.Type().IsRegular() {
			return nil
		}
		if info, err := e.Info(); err != nil || info.Size() > maxScrubFileBytes || total > maxScrubTotalBytes {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil
		}
		total += len(data)
		s.Keep(p, strings.TrimPrefix(p, dir+"/"))
		switch name := path.Base(p); {
		case name == "kustomization.yaml" || name == "kustomization.yml" || name == "Kustomization":
			addLiterals(s, data)
		case strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".json"):
			if rs, err := diff.Parse(data, ""); err == nil {
				s.Add(diff.SensitiveValues(rs)...)
			} else {
				s.AddYAML(data)
			}
		default:
			s.AddEnv(string(data))
		}
		return nil
	})
}

// addLiterals registers the values of a kustomization's generator
// literals ("key=value").
func addLiterals(s *scrub.Set, data []byte) {
	var k struct {
		Secrets    []struct{ Literals []string } `json:"secretGenerator"`
		ConfigMaps []struct{ Literals []string } `json:"configMapGenerator"`
	}
	if err := yaml.Unmarshal(data, &k); err != nil {
		s.AddYAML(data) // unreadable: everything in it may be a value
		return
	}
	for _, g := range append(k.Secrets, k.ConfigMaps...) {
		for _, l := range g.Literals {
			s.Add(l)
			s.AddEnv(l)
		}
	}
}

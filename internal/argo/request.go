package argo

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/config"
)

// ErrNotRendered marks a source that cannot be rendered offline (a plugin,
// a path in another repository, ...). Its message is the reason, worded
// for a report: callers show it as "not rendered", never as a failure and
// never as an empty render.
var ErrNotRendered = errors.New("not rendered")

type notRendered struct{ msg string }

func (e *notRendered) Error() string        { return e.msg }
func (e *notRendered) Is(target error) bool { return target == ErrNotRendered }

// NotRendered returns an error that wraps ErrNotRendered and reads as the
// formatted reason alone.
func NotRendered(format string, args ...any) error {
	return &notRendered{msg: fmt.Sprintf(format, args...)}
}

// Request is one source of one app resolved the way Argo CD's repo-server
// resolves it before it runs a tool: the kind decided, `$ref` value files
// turned into repository paths, the build environment substituted, value
// file patterns rooted, capabilities chosen. A renderer reads files and
// charts; it decides nothing Argo CD decides from the Application.
//
// This type pulls no Helm or Kubernetes package: promote links argo.
type Request struct {
	Env, App string // for errors
	Kind     string
	Source   Source // the source as written (after ApplicationSet templating)
	// Path is the repository-relative directory of a path source, "." for
	// the root; "" for a chart from a chart repository.
	Path string
	// BuildEnv is the source's build environment, already substituted in
	// every field of this request Argo CD substitutes; renderers of
	// options kept as YAML (kustomize, jsonnet) substitute with it.
	BuildEnv BuildEnv

	// KubeVersion and APIVersions are the capabilities Argo CD passes to
	// helm (and kustomize's helm charts): "" means the renderer's default.
	KubeVersion string
	APIVersions []string

	// Tracking is config.ArgoCD's tracking method and InstanceLabelKey
	// the label it uses: the repo-server marks every rendered object but
	// CRDs with them.
	Tracking, InstanceLabelKey string

	Helm      *HelmRequest      // KindHelm
	Directory *DirectoryRequest // KindDirectory
	// Kustomize is the source's kustomize block as YAML (nil if absent),
	// for the kustomize renderer.
	Kustomize []byte
	// KustomizeBuildOptions is argocd-cm's kustomize.buildOptions, added
	// to every `kustomize build` Argo CD runs.
	KustomizeBuildOptions string
	// KustomizeHelmMajor is the major of the helm binary Argo CD's image
	// bundles (config.ArgoCD.HelmMajor), which kustomize runs to inflate
	// helmCharts with --enable-helm.
	KustomizeHelmMajor int
}

// HelmRequest is a Helm source's `helm template` inputs.
type HelmRequest struct {
	// Chart names a chart of a chart repository; empty for a chart kept
	// at Request.Path in this repository.
	Chart       ChartRef
	ReleaseName string
	Namespace   string
	// ValueFiles are in Argo CD's order, before glob expansion: expand
	// them with ExpandValueFiles once the chart's files are at hand.
	ValueFiles []ValueFile
	// Values is helm.valuesObject or helm.values as YAML.
	Values         []byte
	Parameters     []Parameter
	FileParameters []FileParam

	SkipCrds, SkipTests, SkipSchemaValidation bool

	// HelmMajor is the Helm major the configured Argo CD bundles (3 or 4;
	// config.ArgoCD.HelmMajor), which renders the chart; 0 means the
	// default Argo CD's.
	HelmMajor int
}

// ChartRef is a chart of a chart repository (HTTP or OCI).
type ChartRef struct {
	RepoURL, Name, Version string
}

// DirectoryRequest is a directory source's options.
type DirectoryRequest struct {
	Recurse          bool
	Include, Exclude string
	// Jsonnet is the directory.jsonnet block as YAML, nil if absent.
	Jsonnet []byte
	// DisableExtensionFilter: every file is read, not only manifests by
	// their extension.
	DisableExtensionFilter bool
}

// ResolveOptions is what the resolution needs beyond the app.
type ResolveOptions struct {
	Config *config.Config
	// FS is the repository at the revision being rendered.
	FS fs.FS
	// Revision is the source's resolved revision (see Request.Revision).
	Revision string
	// Repos maps another repository the app reads (a source at a path
	// of it, a `$ref` to it) to the directory of FS where its tree at
	// the revision Argo CD would check out is (keys: RepoKey).
	Repos map[string]string
}

// RepoKey is the key of a repository URL in ResolveOptions.Repos: URLs
// Argo CD takes for the same repository share it.
func RepoKey(repoURL string) string { return normRepo(repoURL) }

// RepoAt is another repository an app reads, at a revision.
type RepoAt struct {
	URL, Revision, TagPrefix string
}

// OtherRepos lists the repositories other than repoURL that rendering app
// reads, as the repo-server checks them out: the repository of each path
// source, and of each `$ref` source some value file or file parameter
// names. A `$ref` source's repository read at two revisions is an error,
// as in Argo CD.
func (a App) OtherRepos(repoURL string) ([]RepoAt, error) {
	var out []RepoAt
	seen := map[string]RepoAt{}
	add := func(r RepoAt, isRef bool) error {
		k := RepoKey(r.URL)
		if prev, ok := seen[k]; ok {
			if prev.Revision != r.Revision && isRef {
				return fmt.Errorf("cannot reference multiple revisions for the same repository (%s references %q while another source references %q)", r.URL, r.Revision, prev.Revision)
			}
			return nil
		}
		seen[k] = r
		out = append(out, r)
		return nil
	}
	refs := a.refSources()
	for _, s := range a.Sources {
		if s.Chart == "" && s.Kind != KindRef && !SameRepo(s.RepoURL, repoURL) {
			if err := add(RepoAt{s.RepoURL, s.TargetRevision, s.TagPrefix}, false); err != nil {
				return nil, err
			}
		}
		if s.Helm == nil {
			continue
		}
		paths := append([]string(nil), s.Helm.ValueFiles...)
		for _, fp := range s.Helm.FileParameters {
			paths = append(paths, fp.Path)
		}
		for _, p := range paths {
			refVar, _, _ := strings.Cut(p, "/")
			if ref, ok := refs[refVar]; ok && strings.HasPrefix(p, "$") && ref.Chart == "" && !SameRepo(ref.RepoURL, repoURL) {
				if err := add(RepoAt{ref.RepoURL, ref.TargetRevision, ref.TagPrefix}, true); err != nil {
					return nil, err
				}
			}
		}
	}
	return out, nil
}

// Resolve turns app's source src into a Request. A source Argo CD renders
// nothing from (a ref-only source) gives nil and no error; one that cannot
// be rendered offline gives an error wrapping ErrNotRendered.
func (a App) Resolve(src Source, opt ResolveOptions) (*Request, error) {
	cfg := opt.Config
	env := a.buildEnv(src, opt.Revision)
	req := &Request{Env: a.Env, App: a.Name, Kind: src.Kind, Source: src, BuildEnv: env,
		Tracking: cfg.Argo.TrackingMethod(), InstanceLabelKey: cfg.Argo.LabelKey()}
	if src.Kind == KindRef {
		return nil, nil
	}
	if src.Chart == "" {
		req.Path = dirOf(src.Path)
	}
	if src.Chart == "" && !SameRepo(src.RepoURL, cfg.RepoURL) {
		// A source at a path of another repository: its files decide its
		// type and hold its parameter overrides, as in this repository.
		dir, ok := opt.Repos[RepoKey(src.RepoURL)]
		if !ok {
			return nil, fmt.Errorf("env %s, app %s: source %s of repository %s: that repository was not fetched", a.Env, a.Name, src.Path, src.RepoURL)
		}
		var err error
		if src, err = a.otherRepoSource(src, opt.FS, dir, cfg); err != nil {
			return nil, err
		}
		req.Kind, req.Source, req.Path = src.Kind, src, path.Join(dir, dirOf(src.Path))
	}
	switch src.Kind {
	case KindHelm:
		h, err := a.resolveHelm(src, cfg, env, opt.Repos)
		if err != nil {
			return nil, fmt.Errorf("env %s, app %s, chart %s version %s: %w", a.Env, a.Name, firstNonEmpty(src.Chart, src.Path), src.TargetRevision, err)
		}
		req.Helm = h
		if req.KubeVersion, req.APIVersions, err = capabilities(src, cfg); err != nil {
			return nil, fmt.Errorf("env %s, app %s, chart %s version %s: %w", a.Env, a.Name, firstNonEmpty(src.Chart, src.Path), src.TargetRevision, err)
		}
	case KindDirectory:
		req.Directory = &DirectoryRequest{}
		if d := src.Directory; d != nil {
			req.Directory = &DirectoryRequest{Recurse: d.Recurse, Include: d.Include, Exclude: d.Exclude, Jsonnet: d.Jsonnet,
				DisableExtensionFilter: d.DisableExtensionFilter}
		}
	case KindKustomize:
		if err := registeredKustomize(src, cfg); err != nil {
			return nil, fmt.Errorf("env %s, app %s, kustomize source %s: %w", a.Env, a.Name, src.Path, err)
		}
		req.Kustomize = src.Kustomize
		req.KustomizeBuildOptions = cfg.Argo.Kustomize.BuildOptions
		req.KustomizeHelmMajor = cfg.Argo.HelmMajor()
		var err error
		if req.KubeVersion, req.APIVersions, err = capabilities(src, cfg); err != nil {
			return nil, fmt.Errorf("env %s, app %s, kustomize source %s: %w", a.Env, a.Name, src.Path, err)
		}
	default:
		kind := src.Kind
		if kind == KindUnknown {
			kind = "path source of unknown type"
		}
		return nil, NotRendered("%s source %s not rendered", kind, firstNonEmpty(src.Path, src.RepoURL))
	}
	if opt.FS != nil {
		if err := checkSourceSymlinks(req, src, opt); err != nil {
			return nil, fmt.Errorf("env %s, app %s: %w", a.Env, a.Name, err)
		}
	}
	return req, nil
}

func (a App) resolveHelm(src Source, cfg *config.Config, env BuildEnv, repos map[string]string) (*HelmRequest, error) {
	h := src.Helm
	if h == nil {
		h = &Helm{}
	}
	schemes := cfg.Argo.ValuesFileSchemes()
	vfs, err := a.ValueFiles(src, cfg.RepoURL, env, schemes)
	if err != nil {
		return nil, err
	}
	fps, err := a.FileParams(src, cfg.RepoURL, env, schemes)
	if err != nil {
		return nil, err
	}
	for _, vf := range vfs {
		if err := fetchable(vf); err != nil {
			return nil, err
		}
	}
	for _, fp := range fps {
		if err := fetchable(fp.File); err != nil {
			return nil, err
		}
	}
	for i := range vfs {
		if vfs[i], err = mounted(vfs[i], repos); err != nil {
			return nil, err
		}
	}
	for i := range fps {
		if fps[i].File, err = mounted(fps[i].File, repos); err != nil {
			return nil, err
		}
	}
	// after the value files, where the repo-server looks for its Helm
	if err := supportedHelm(src.Helm); err != nil {
		return nil, err
	}
	out := &HelmRequest{
		ReleaseName: firstNonEmpty(h.ReleaseName, a.Name),
		Namespace:   firstNonEmpty(h.Namespace, a.Namespace),
		ValueFiles:  vfs, FileParameters: fps,
		Values:     h.ValuesYAML(),
		Parameters: substParams(h.Parameters, env),
		SkipCrds:   h.SkipCrds, SkipTests: h.SkipTests, SkipSchemaValidation: h.SkipSchemaValidation,
		HelmMajor: cfg.Argo.HelmMajor(),
	}
	if src.Chart != "" {
		// the resolved version when targetRevision is a range
		out.Chart = ChartRef{RepoURL: src.RepoURL, Name: src.Chart, Version: firstNonEmpty(env.Revision, src.TargetRevision)}
	}
	return out, nil
}

// substParams substitutes the build environment in parameter values (not
// names), as the repo-server does for --set and --set-string.
func substParams(ps []Parameter, env BuildEnv) []Parameter {
	out := make([]Parameter, len(ps))
	for i, p := range ps {
		out[i] = p
		out[i].Value = env.Subst(p.Value)
	}
	return out
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// mounted turns a file of another repository into a file of the FS that
// repository is mounted in (see ResolveOptions.Repos).
func mounted(vf ValueFile, repos map[string]string) (ValueFile, error) {
	if vf.Repo == "" {
		return vf, nil
	}
	dir, ok := repos[RepoKey(vf.Repo)]
	if !ok {
		return vf, fmt.Errorf("%s of repository %s: that repository was not fetched", vf.Path, vf.Repo)
	}
	vf.Path, vf.InRepo, vf.Repo = path.Join(dir, vf.Path), true, ""
	return vf, nil
}

// otherRepoSource reads a path source of another repository as discovery
// reads one of this repository, against that repository's tree (dir of
// fsys): parameter override files merged, the type decided, the path
// checked.
func (a App) otherRepoSource(src Source, fsys fs.FS, dir string, cfg *config.Config) (Source, error) {
	if src.raw == nil {
		return src, nil // built by hand (tests): taken as it is
	}
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		return src, err
	}
	other := *cfg
	other.RepoURL = src.RepoURL
	d := &discovery{fsys: sub, cfg: &other, env: a.Env}
	s, err := d.source(src.raw, src.field, a.Instance, true)
	if err != nil {
		return src, fmt.Errorf("env %s, app %s: %s", a.Env, a.Name, err)
	}
	if s.Err != "" {
		return src, fmt.Errorf("env %s, app %s: repository %s: %s", a.Env, a.Name, src.RepoURL, s.Err)
	}
	return s, nil
}

package render

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"

	k8sversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/gitops-promote/gitops-promote/internal/argo"
)

// HelmSource renders a Helm source: it fetches or packages the chart,
// reads the value and file-parameter files, and runs the Helm major the
// configured Argo CD bundles (HelmFor).
type HelmSource struct{}

func (s HelmSource) Render(ctx context.Context, in Input, req *argo.Request) ([]byte, error) {
	out, _, err := s.render(ctx, in, req)
	return out, err
}

// render also returns the packaged chart it rendered.
func (HelmSource) render(ctx context.Context, in Input, req *argo.Request) ([]byte, []byte, error) {
	what := fmt.Sprintf("env %s, app %s, chart %s version %s", req.Env, req.App,
		firstNonEmpty(req.Source.Chart, req.Source.Path), req.Source.TargetRevision)
	chart, err := loadChart(ctx, in, req)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	out, err := renderHelm(ctx, in, req, chart, what)
	return out, chart, err
}

func renderHelm(ctx context.Context, in Input, req *argo.Request, chart []byte, what string) ([]byte, error) {
	h := req.Helm
	hr := Request{
		ReleaseName: h.ReleaseName, Namespace: h.Namespace, Chart: chart, Values: h.Values,
		SkipCrds: h.SkipCrds, SkipTests: h.SkipTests, SkipSchemaValidation: h.SkipSchemaValidation,
		KubeVersion: req.KubeVersion, APIVersions: req.APIVersions,
	}
	for _, p := range h.Parameters {
		hr.Parameters = append(hr.Parameters, Parameter{Name: p.Name, Value: p.Value, ForceString: p.ForceString})
	}
	files, err := cachedChartFS(chart)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	vfs, err := argo.ExpandValueFiles(h.ValueFiles, in.FS, files)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	for _, vf := range vfs {
		data, err := readValueFile(ctx, in.FS, files, vf)
		if errors.Is(err, fs.ErrNotExist) && vf.Optional {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: value file %s: %w", what, vf.Path, err)
		}
		hr.ValueFiles = append(hr.ValueFiles, NamedBytes{Name: vf.Path, Data: data})
	}
	for _, fp := range h.FileParameters {
		// Unlike a value file, a missing file parameter is an error in
		// Argo CD whatever ignoreMissingValueFiles says: helm fails to read it.
		data, err := readValueFile(ctx, in.FS, files, fp.File)
		if err != nil {
			return nil, fmt.Errorf("%s: file parameter %s: %s: %w", what, fp.Name, fp.File.Path, err)
		}
		hr.FileParameters = append(hr.FileParameters, NamedBytes{Name: fp.Name, Data: data})
	}
	noticesFrom(ctx).setCleaner(helmNoticeCleaner(hr))
	out, err := HelmFor(h.HelmMajor)(ctx, hr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// loadChart fetches a repository chart, or packages a chart kept in this
// repository at the revision being rendered.
func loadChart(ctx context.Context, in Input, req *argo.Request) ([]byte, error) {
	if c := req.Helm.Chart; c.Name != "" {
		return in.Charts.Fetch(ctx, c.RepoURL, c.Name, c.Version)
	}
	return PackageChartDir(ctx, in.FS, req.Path, in.Charts)
}

func readValueFile(ctx context.Context, repo, chart fs.FS, vf argo.ValueFile) ([]byte, error) {
	if vf.Remote {
		return fetchURL(ctx, vf.Path)
	}
	if vf.InRepo {
		return fs.ReadFile(repo, vf.Path)
	}
	data, err := fs.ReadFile(chart, vf.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s is not in the chart: %w", vf.Path, fs.ErrNotExist)
	}
	return data, err
}

// DirectorySource renders a plain directory source.
type DirectorySource struct{}

func (DirectorySource) Render(ctx context.Context, in Input, req *argo.Request) ([]byte, error) {
	d := req.Directory
	jsonnet, err := argo.ParseJsonnetOptions(d.Jsonnet)
	if err != nil {
		return nil, fmt.Errorf("env %s, app %s: directory %s: %w", req.Env, req.App, req.Source.Path, err)
	}
	jsonnet.Substitute(req.BuildEnv.Subst)
	n := noticesFrom(ctx)
	if jsonnet != nil {
		n.setCleaner(jsonnetNoticeCleaner(jsonnet))
	}
	m, err := directory(in.FS, req.Path, d.Recurse, d.Include, d.Exclude, jsonnetRun{ctx: ctx, opts: jsonnet, trace: n}, d.DisableExtensionFilter)
	if err != nil {
		return nil, fmt.Errorf("env %s, app %s: directory %s: %w", req.Env, req.App, req.Source.Path, err)
	}
	return m, nil
}

// KustomizeSource builds a kustomize source of this repository as Argo
// CD's repo-server does, its kustomize options applied as the edit
// commands the repo-server runs.
type KustomizeSource struct{}

func (KustomizeSource) Render(ctx context.Context, in Input, req *argo.Request) ([]byte, error) {
	src := req.Source
	opts, err := argo.ParseKustomizeOptions(req.Kustomize)
	if err != nil {
		return nil, fmt.Errorf("env %s, app %s: %w", req.Env, req.App, err)
	}
	opts.Substitute(req.BuildEnv.Subst)
	n := noticesFrom(ctx)
	for _, d := range kustomizeDeprecations(in.FS, req.Path) {
		n.add(slog.LevelWarn, d)
	}
	fsys, err := withRemoteBases(ctx, in.FS, in.Repos, req.Path)
	if err != nil {
		return nil, fmt.Errorf("env %s, app %s: %w", req.Env, req.App, err)
	}
	kv, err := argoKubeVersion(req.KubeVersion)
	if err != nil {
		return nil, fmt.Errorf("env %s, app %s: %w", req.Env, req.App, err)
	}
	h := &KustomizeHelm{Charts: in.Charts, Major: req.KustomizeHelmMajor, KubeVersion: kv, APIVersions: req.APIVersions}
	m, err := KustomizeBuild(ctx, fsys, req.Path, opts, req.KustomizeBuildOptions, h)
	if errors.Is(err, ErrOffline) || errors.Is(err, ErrNeedsHelm) || errors.Is(err, ErrNeedsPlugins) {
		return nil, argo.NotRendered("kustomize source %s not rendered: %s", src.Path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("env %s, app %s: %w", req.Env, req.App, err)
	}
	return m, nil
}

// argoKubeVersion is the Kubernetes version the repo-server hands a
// kustomize build, normalised as it does (k8s.io's generic version
// parser: "v1.31.4" is 1.31.4, "1.29.3-gke.1" is 1.29.3); one it cannot
// parse fails the source, with or without Helm charts, as there.
func argoKubeVersion(v string) (string, error) {
	if v == "" {
		return "", nil
	}
	parsed, err := k8sversion.ParseGeneric(v)
	if err != nil {
		return "", fmt.Errorf("could not parse kubernetes version %s: %w", v, err)
	}
	return parsed.String(), nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

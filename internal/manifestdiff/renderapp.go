package manifestdiff

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/render"
)

// renderApp renders every source of app at one revision and concatenates
// the manifests. Sources we cannot render are named in the note; a render
// or fetch error names env, app, chart and version.
func (d *Diff) renderApp(ctx context.Context, app *argo.App, side Side) ([]byte, string, error) {
	var out bytes.Buffer
	var notes []string
	for _, src := range app.Sources {
		var m []byte
		var err error
		switch src.Kind {
		case argo.KindRef:
			continue
		case argo.KindHelm:
			m, err = d.renderHelm(ctx, app, src, side)
		case argo.KindDirectory:
			if !argo.SameRepo(src.RepoURL, d.Config.RepoURL) {
				notes = append(notes, fmt.Sprintf("directory source in another repository (%s)", src.RepoURL))
				continue
			}
			m, err = render.Directory(side.FS, src.Path, src.Directory != nil && src.Directory.Recurse, dirField(src, true), dirField(src, false))
			if err != nil {
				err = fmt.Errorf("env %s, app %s: directory %s: %w", app.Env, app.Name, src.Path, err)
			}
		case argo.KindKustomize:
			var note string
			m, note, err = renderKustomize(app, src, side, d.Config.RepoURL)
			if note != "" {
				notes = append(notes, note)
				continue
			}
		default:
			kind := src.Kind
			if kind == argo.KindUnknown {
				kind = "path source of unknown type"
			}
			notes = append(notes, fmt.Sprintf("%s source %s not rendered", kind, firstNonEmpty(src.Path, src.RepoURL)))
			continue
		}
		if err != nil {
			return nil, "", err
		}
		if out.Len() > 0 && len(m) > 0 && !bytes.HasPrefix(m, []byte("---")) {
			out.WriteString("---\n")
		}
		out.Write(m)
	}
	return append([]byte{}, out.Bytes()...), strings.Join(notes, "; "), nil
}

func dirField(src argo.Source, include bool) string {
	if src.Directory == nil {
		return ""
	}
	if include {
		return src.Directory.Include
	}
	return src.Directory.Exclude
}

func (d *Diff) renderHelm(ctx context.Context, app *argo.App, src argo.Source, side Side) ([]byte, error) {
	what := fmt.Sprintf("env %s, app %s, chart %s version %s", app.Env, app.Name, firstNonEmpty(src.Chart, src.Path), src.TargetRevision)
	chart, err := d.chart(ctx, src, side)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	h := src.Helm
	if h == nil {
		h = &argo.Helm{}
	}
	vfs, err := app.ValueFiles(src, d.Config.RepoURL)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	fps, err := app.FileParams(src, d.Config.RepoURL)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	req := render.Request{
		ReleaseName: firstNonEmpty(h.ReleaseName, app.Name),
		Namespace:   firstNonEmpty(h.Namespace, app.Namespace),
		Chart:       chart,
		Values:      h.ValuesYAML(),
		SkipCrds:    h.SkipCrds, SkipTests: h.SkipTests, SkipSchemaValidation: h.SkipSchemaValidation,
		KubeVersion: firstNonEmpty(h.KubeVersion, d.Config.KubeVersion),
		APIVersions: append(append([]string{}, d.Config.APIVersions...), h.APIVersions...),
	}
	for _, p := range h.Parameters {
		req.Parameters = append(req.Parameters, render.Parameter{Name: p.Name, Value: p.Value, ForceString: p.ForceString})
	}
	for _, vf := range vfs {
		data, err := readValueFile(side.FS, chart, vf)
		if errors.Is(err, fs.ErrNotExist) && vf.Optional {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: value file %s: %w", what, vf.Path, err)
		}
		req.ValueFiles = append(req.ValueFiles, render.NamedBytes{Name: vf.Path, Data: data})
	}
	for _, fp := range fps {
		// Unlike a value file, a missing file parameter is an error in
		// Argo CD whatever ignoreMissingValueFiles says: helm fails to read it.
		data, err := readValueFile(side.FS, chart, fp.File)
		if err != nil {
			return nil, fmt.Errorf("%s: file parameter %s: %s: %w", what, fp.Name, fp.File.Path, err)
		}
		req.FileParameters = append(req.FileParameters, render.NamedBytes{Name: fp.Name, Data: data})
	}
	out, err := render.Helm(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// chart fetches a repository chart, or packages a chart kept in this
// repository at the revision being rendered.
func (d *Diff) chart(ctx context.Context, src argo.Source, side Side) ([]byte, error) {
	if src.Chart != "" {
		return d.Charts.Fetch(ctx, src.RepoURL, src.Chart, src.TargetRevision)
	}
	if !argo.SameRepo(src.RepoURL, d.Config.RepoURL) {
		return nil, fmt.Errorf("chart at path %s of another repository (%s) cannot be read offline", src.Path, src.RepoURL)
	}
	return packageDir(side.FS, src.Path)
}

func readValueFile(fsys fs.FS, chart []byte, vf argo.ValueFile) ([]byte, error) {
	if vf.InRepo {
		return fs.ReadFile(fsys, vf.Path)
	}
	return chartFile(chart, vf.Path)
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// renderKustomize builds a kustomize source of this repository as Argo
// CD's repo-server does for a source without kustomize options. What
// cannot be rendered offline (another repository, options Argo CD applies
// with `kustomize edit`, remote bases) is returned as a note, never as an
// empty render.
func renderKustomize(app *argo.App, src argo.Source, side Side, repoURL string) ([]byte, string, error) {
	switch {
	case !argo.SameRepo(src.RepoURL, repoURL):
		return nil, fmt.Sprintf("kustomize source in another repository (%s) not rendered", src.RepoURL), nil
	case src.Kustomize != nil && strings.TrimSpace(string(src.Kustomize)) != "{}":
		return nil, fmt.Sprintf("kustomize source %s with kustomize options not rendered", src.Path), nil
	}
	m, err := render.Kustomize(side.FS, src.Path)
	if errors.Is(err, render.ErrOffline) {
		return nil, fmt.Sprintf("kustomize source %s not rendered: %s", src.Path, err), nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("env %s, app %s: %w", app.Env, app.Name, err)
	}
	return m, "", nil
}

package manifestdiff

import (
	"bytes"
	"context"
	"errors"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/render"
)

// renderApp renders every source of app at one revision and concatenates
// the manifests: argo resolves each source, render renders it. Sources
// that cannot be rendered offline are named in the note; a failed render
// names env, app and source.
func (d *Diff) renderApp(ctx context.Context, app *argo.App, side Side) ([]byte, string, error) {
	var out bytes.Buffer
	var notes []string
	in := render.Input{FS: side.FS, Charts: d.Charts}
	for _, src := range app.Sources {
		req, err := app.Resolve(src, argo.ResolveOptions{Config: d.Config, FS: side.FS, Revision: side.Rev})
		var m []byte
		if err == nil && req != nil {
			m, err = render.Render(ctx, in, req)
		}
		if errors.Is(err, argo.ErrNotRendered) {
			notes = append(notes, err.Error())
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

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

package render

import (
	"context"
	"errors"
	"testing"
	"testing/fstest"

	"github.com/gitops-promote/gitops-promote/internal/argo"
)

// TestRenderDispatch: each kind Argo CD renders offline has a renderer;
// any other kind is reported as not rendered, never as an empty render.
func TestRenderDispatch(t *testing.T) {
	for _, kind := range []string{argo.KindHelm, argo.KindDirectory, argo.KindKustomize} {
		if _, ok := For(kind); !ok {
			t.Errorf("no renderer for %s sources", kind)
		}
	}
	in := Input{FS: fstest.MapFS{"cm/a.yaml": {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")}}}
	out, err := Render(context.Background(), in, &argo.Request{Kind: argo.KindPlugin, Path: "cm"})
	if !errors.Is(err, argo.ErrNotRendered) || out != nil {
		t.Fatalf("plugin source: %q, %v; want argo.ErrNotRendered", out, err)
	}
	out, err = Render(context.Background(), in, &argo.Request{Kind: argo.KindDirectory, Path: "cm", Directory: &argo.DirectoryRequest{}})
	if err != nil || string(out) != "---\n# Source: a.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n" {
		t.Fatalf("directory source: %q, %v", out, err)
	}
}

package render

import (
	"context"
	"io/fs"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
)

// Shorthands of the tests: the product renders through RenderUntracked.

func Directory(fsys fs.FS, dir string, recurse bool, include, exclude string) ([]byte, error) {
	return DirectoryWithJsonnet(fsys, dir, recurse, include, exclude, nil)
}

func DirectoryWithJsonnet(fsys fs.FS, dir string, recurse bool, include, exclude string, jsonnetOpts *argo.JsonnetOptions) ([]byte, error) {
	return directory(fsys, dir, recurse, include, exclude, jsonnetRun{opts: jsonnetOpts}, false)
}

func DirectoryAnyExtension(fsys fs.FS, dir string, recurse bool, include, exclude string, jsonnetOpts *argo.JsonnetOptions) ([]byte, error) {
	return directory(fsys, dir, recurse, include, exclude, jsonnetRun{opts: jsonnetOpts}, true)
}

func Render(ctx context.Context, in Input, req *argo.Request) ([]byte, error) {
	out, _, err := RenderChecked(ctx, in, req)
	return out, err
}

// RenderChecked is RenderUntracked with Argo CD's tracking metadata.
func RenderChecked(ctx context.Context, in Input, req *argo.Request) ([]byte, bool, error) {
	out, deterministic, err := RenderUntracked(ctx, in, req)
	if err != nil {
		return nil, false, err
	}
	out, err = track(out, req)
	return out, deterministic && err == nil, err
}

func Kustomize(fsys fs.FS, dir string) ([]byte, error) {
	return kustomize(context.Background(), fsys, dir, buildFlags{reorder: krusty.ReorderOptionUnspecified, restrict: types.LoadRestrictionsRootOnly}, nil)
}

func KustomizeWithOptions(fsys fs.FS, dir string, opts *argo.KustomizeOptions) ([]byte, error) {
	return KustomizeBuild(context.Background(), fsys, dir, opts, "", nil)
}

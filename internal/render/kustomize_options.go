package render

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"

	"github.com/gitops-promote/gitops-promote/internal/argo"
)

// KustomizeBuild builds the kustomization at dir as Argo CD's
// repo-server does for a source with a kustomize block: on a copy of the
// source it runs, in its order, `kustomize edit set nameprefix`,
// `set namesuffix`, `set image`, `set replicas`, `add label`,
// `add annotation`, `set namespace`, appends the patches to
// kustomization.yaml, runs `add component`, then `kustomize build`.
// The edits are reproduced in process with kustomize's own rules (read,
// fix, change, write back), on an overlay of fsys: the tree is never
// modified. opts must already carry Argo CD's environment substitution.
//
// Argo CD's server-wide kustomize.buildOptions (argocd-cm) are added to
// `kustomize build`, parsed and applied as kustomize does: --load-restrictor, --reorder,
// --enable-managedby-label take effect; --enable-helm (or
// --enable-alpha-plugins) lets a kustomization inflate Helm charts, with
// the helm of h (nil: ErrNeedsHelm); an external plugin is
// ErrNeedsPlugins; a flag kustomize does not know is an error, as there.
// When the options contain --enable-helm, h's capabilities are appended
// as Argo CD appends them (--helm-kube-version, --helm-api-versions).
func KustomizeBuild(ctx context.Context, fsys fs.FS, dir string, opts *argo.KustomizeOptions, buildOptions string, h *KustomizeHelm) ([]byte, error) {
	dir = path.Clean(dir)
	bf, err := parseBuildOptions(buildOptions, argoHelmArgs(buildOptions, h)...)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s %s: %w", dir, strings.Join(strings.Fields(buildOptions), " "), err)
	}
	if !opts.Edits() {
		return kustomize(ctx, fsys, dir, bf, h)
	}
	name, data, err := kustomizeEdits(fsys, dir, opts)
	if err != nil {
		return nil, err
	}
	return kustomize(ctx, overlayFS{FS: fsys, name: path.Join(dir, name), data: data}, dir, bf, h)
}

// argoHelmArgs are the arguments the repo-server appends to `kustomize
// build` when the build options mention --enable-helm (a plain substring
// test, as there): the destination's Kubernetes version and API versions.
func argoHelmArgs(buildOptions string, h *KustomizeHelm) []string {
	if h == nil || !strings.Contains(buildOptions, "--enable-helm") {
		return nil
	}
	var args []string
	if h.KubeVersion != "" {
		args = append(args, "--helm-kube-version", h.KubeVersion)
	}
	for _, v := range h.APIVersions {
		args = append(args, "--helm-api-versions", v)
	}
	return args
}

// kustomizeEdits returns the kustomization file's name in dir and its
// content after Argo CD's edits.
func kustomizeEdits(fsys fs.FS, dir string, o *argo.KustomizeOptions) (string, []byte, error) {
	name, data, err := editableKustomization(fsys, dir)
	if err != nil {
		return "", nil, err
	}
	e := &kustEditor{fsys: fsys, dir: dir, name: name, data: data}
	if o.NamePrefix != "" {
		e.edit("set nameprefix", func(k *types.Kustomization) error { k.NamePrefix = o.NamePrefix; return nil })
	}
	if o.NameSuffix != "" {
		e.edit("set namesuffix", func(k *types.Kustomization) error { k.NameSuffix = o.NameSuffix; return nil })
	}
	if len(o.Images) > 0 {
		e.edit("set image", func(k *types.Kustomization) error { return setImages(k, o.Images) })
	}
	if len(o.Replicas) > 0 {
		e.edit("set replicas", func(k *types.Kustomization) error { return setReplicas(k, o.Replicas) })
	}
	if len(o.CommonLabels) > 0 {
		e.edit("add label", func(k *types.Kustomization) error { return addLabels(k, o) })
	}
	if len(o.CommonAnnotations) > 0 {
		e.edit("add annotation", func(k *types.Kustomization) error {
			return addAnnotations(k, o.CommonAnnotations, o.ForceCommonAnnotations)
		})
	}
	if o.Namespace != "" {
		e.edit("set namespace", func(k *types.Kustomization) error { k.Namespace = o.Namespace; return nil })
	}
	if len(o.Patches) > 0 && e.err == nil {
		e.data, e.err = appendPatches(e.data, o.Patches)
		if e.err != nil {
			e.err = fmt.Errorf("kustomize patches for %s: %w", path.Join(dir, name), e.err)
		}
	}
	if len(o.Components) > 0 && e.err == nil {
		e.addComponents(o.Components, o.IgnoreMissingComponents)
	}
	return name, e.data, e.err
}

// editableKustomization finds the one kustomization file of dir, as
// `kustomize edit` does: none, or more than one, is an error.
func editableKustomization(fsys fs.FS, dir string) (string, []byte, error) {
	var found []string
	var data []byte
	for _, n := range kustomizationNames {
		b, err := fs.ReadFile(fsys, path.Join(dir, n))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", nil, fmt.Errorf("reading %s: %w", path.Join(dir, n), err)
		}
		found, data = append(found, n), b
	}
	switch len(found) {
	case 0:
		return "", nil, fmt.Errorf("kustomize edit in %s: missing kustomization file 'kustomization.yaml'", dir)
	case 1:
		return found[0], data, nil
	}
	return "", nil, fmt.Errorf("kustomize edit in %s: found multiple kustomization files: %s", dir, strings.Join(found, ", "))
}

// kustEditor applies edit commands in turn; the first error stops it.
type kustEditor struct {
	fsys      fs.FS
	dir, name string
	data      []byte
	err       error
}

// edit does what each `kustomize edit` command does to the file: decode
// it strictly, apply the deprecated-field fixes, change it, and write the
// whole Kustomization back.
func (e *kustEditor) edit(what string, change func(*types.Kustomization) error) {
	if e.err != nil {
		return
	}
	fail := func(err error) { e.err = fmt.Errorf("kustomize edit %s in %s: %s", what, e.dir, oneLine(err.Error())) }
	var k types.Kustomization
	if err := k.Unmarshal(e.data); err != nil {
		fail(err)
		return
	}
	k.FixKustomization()
	if err := change(&k); err != nil {
		fail(err)
		return
	}
	out, err := yaml.Marshal(&k)
	if err != nil {
		fail(err)
		return
	}
	e.data = out
}

// appendPatches adds Argo CD's patches to the file's own, as the
// repo-server does (there is no edit command for them): through a
// generic map, which keeps every other field as it is.
func appendPatches(data []byte, patches []argo.KustomizePatch) ([]byte, error) {
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("decoding: %w", err)
	}
	m, ok := doc.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the kustomization is not a mapping (%T)", doc)
	}
	list := []any{}
	if existing, ok := m["patches"]; ok {
		if list, ok = existing.([]any); !ok {
			return nil, fmt.Errorf("its patches field is not a list (%T)", existing)
		}
	}
	for _, p := range patches {
		list = append(list, p)
	}
	m["patches"] = list
	return yaml.Marshal(m)
}

// setImages is `kustomize edit set image args...`: each argument replaces
// the entry of the same name (a "*" keeps that part of the old entry),
// other entries stay, and the list ends up sorted by name.
func setImages(k *types.Kustomization, args []string) error {
	if err := noFlags(args); err != nil {
		return err
	}
	byName := map[string]types.Image{}
	for _, arg := range args {
		im, err := parseImageArg(arg)
		if err != nil {
			return err
		}
		byName[im.Name] = im
	}
	for _, old := range k.Images {
		im, ok := byName[old.Name]
		if !ok {
			byName[old.Name] = old
			continue
		}
		if im.NewName == "*" {
			im.NewName = old.NewName
		}
		if im.NewTag == "*" {
			im.NewTag = old.NewTag
		}
		if im.Digest == "*" {
			im.Digest = old.Digest
		}
		byName[old.Name] = im
	}
	k.Images = k.Images[:0]
	for _, im := range byName {
		// A "*" with nothing to keep clears that part; like kustomize,
		// rebuilding the entry then drops its tagSuffix.
		for _, s := range []*string{&im.NewName, &im.NewTag, &im.Digest} {
			if *s == "*" {
				*s = ""
				im = types.Image{Name: im.Name, NewName: im.NewName, NewTag: im.NewTag, Digest: im.Digest}
			}
		}
		k.Images = append(k.Images, im)
	}
	sort.Slice(k.Images, func(i, j int) bool { return k.Images[i].Name < k.Images[j].Name })
	return nil
}

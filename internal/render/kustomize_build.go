package render

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"sigs.k8s.io/kustomize/api/konfig"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/provenance"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/gitops-promote/gitops-promote/internal/gitsource"
)

// Kustomize build options (argocd-cm kustomize.buildOptions) that need
// something Argo CD's repo-server has and an offline render must not run.
var (
	// ErrNeedsHelm: --enable-helm and a kustomization that inflates Helm
	// charts (helmCharts), built without a KustomizeHelm to answer the
	// helm commands kustomize runs.
	ErrNeedsHelm = errors.New("needs --enable-helm's helm binary")
	// ErrNeedsPlugins: --enable-alpha-plugins and a kustomization that
	// uses an external plugin (an exec or container KRM function), which
	// would run code from the repository.
	ErrNeedsPlugins = errors.New("needs --enable-alpha-plugins' external plugins")
)

// BundledKustomize is the kustomize release Argo CD 3.6 bundles (its
// hack/tool-versions.sh): the version its managed-by label names.
const BundledKustomize = "v5.8.3"

// buildFlags is what kustomize.buildOptions sets, parsed as `kustomize
// build` parses its flags (pflag, the same names, types and defaults) and
// applied as its HonorKustomizeFlags applies them.
type buildFlags struct {
	reorder   krusty.ReorderOption
	restrict  types.LoadRestrictions
	helm      bool
	plugins   bool
	managedBy bool
	output    string // -o: kustomize writes a file, stdout stays empty

	// --helm-command names the binary kustomize runs; this process
	// answers instead, with the Helm major of Argo CD's image.
	helmCommand     string
	helmAPIVersions []string
	helmKubeVersion string
	helmDebug       bool
}

// helmEnabled: kustomize's HonorKustomizeFlags turns the Helm generator
// on with --enable-helm, and with --enable-alpha-plugins whose plugin
// configuration enables it too.
func (bf buildFlags) helmEnabled() bool { return bf.helm || bf.plugins }

// parseBuildOptions parses options as Argo CD hands them to kustomize:
// split on white space and appended to `kustomize build <path>`, then
// the arguments Argo CD adds after them (argoArgs).
func parseBuildOptions(options string, argoArgs ...string) (buildFlags, error) {
	bf := buildFlags{reorder: krusty.ReorderOptionUnspecified, restrict: types.LoadRestrictionsRootOnly, helmCommand: "helm"}
	if strings.TrimSpace(options) == "" && len(argoArgs) == 0 {
		return bf, nil
	}
	fl := pflag.NewFlagSet("build", pflag.ContinueOnError)
	fl.SetOutput(io.Discard)
	var reorder, restrict, str string
	var strs []string
	var on bool
	fl.StringVarP(&bf.output, "output", "o", "", "")
	fl.BoolVar(&on, "network", false, "")
	fl.StringVar(&str, "network-name", "bridge", "")
	fl.StringArrayVar(&strs, "mount", nil, "")
	fl.StringArrayVarP(&strs, "env", "e", nil, "")
	fl.BoolVar(&on, "as-current-user", false, "")
	fl.StringVar(&restrict, "load-restrictor", types.LoadRestrictionsRootOnly.String(), "")
	fl.BoolVar(&bf.plugins, "enable-alpha-plugins", false, "")
	fl.StringVar(&reorder, "reorder", string(krusty.ReorderOptionLegacy), "")
	fl.BoolVar(&bf.managedBy, "enable-managedby-label", false, "")
	fl.BoolVar(&bf.helm, "enable-helm", false, "")
	fl.StringVar(&bf.helmCommand, "helm-command", "helm", "")
	fl.StringArrayVar(&bf.helmAPIVersions, "helm-api-versions", nil, "")
	fl.StringVar(&bf.helmKubeVersion, "helm-kube-version", "", "")
	fl.BoolVar(&bf.helmDebug, "helm-debug", false, "")
	fl.BoolVar(&on, "enable-exec", false, "")
	if err := fl.Parse(append(strings.Fields(options), argoArgs...)); err != nil {
		return bf, err
	}
	if len(fl.Args()) > 0 {
		return bf, fmt.Errorf("specify one path to %s", konfig.DefaultKustomizationFileName())
	}
	switch restrict {
	case types.LoadRestrictionsRootOnly.String(), "":
	case types.LoadRestrictionsNone.String():
		bf.restrict = types.LoadRestrictionsNone
	default:
		return bf, fmt.Errorf("illegal flag value --load-restrictor %s; legal values: [%s %s]", restrict,
			types.LoadRestrictionsRootOnly, types.LoadRestrictionsNone)
	}
	switch reorder {
	case string(krusty.ReorderOptionNone), string(krusty.ReorderOptionLegacy):
		if fl.Changed("reorder") {
			bf.reorder = krusty.ReorderOption(reorder)
		}
	default:
		return bf, fmt.Errorf("illegal flag value --reorder %s; legal values: [%s %s]", reorder,
			krusty.ReorderOptionLegacy, krusty.ReorderOptionNone)
	}
	return bf, nil
}

// options are the krusty options of a build with these flags. Helm
// charts and external plugins stay off whatever the flags say: see
// ErrNeedsHelm and ErrNeedsPlugins; kustomizeWithHelm turns Helm on.
func (bf buildFlags) options() *krusty.Options {
	opts := krusty.MakeDefaultOptions()
	opts.Reorder = bf.reorder
	opts.LoadRestrictions = bf.restrict
	opts.AddManagedbyLabel = bf.managedBy
	return opts
}

// explain turns the error of a build that needed what the flags enable
// into the sentinel saying so.
func (bf buildFlags) explain(err error) error {
	msg := err.Error()
	switch {
	case bf.helmEnabled() && strings.Contains(msg, "must specify --enable-helm"):
		return ErrNeedsHelm
	case bf.plugins && strings.Contains(msg, "external plugins disabled"):
		return fmt.Errorf("%w (%s)", ErrNeedsPlugins, oneLine(msg))
	}
	return err
}

// managedByVersion rewrites the managed-by label kustomize adds (with
// --enable-managedby-label or buildMetadata: [managedByLabel]): linked as
// a library it names no kustomize release, Argo CD's binary names its own.
func managedByVersion(m resmap.ResMap) error {
	ours := "kustomize-" + provenance.GetProvenance().Semver()
	for _, r := range m.Resources() {
		labels := r.GetLabels()
		if labels[konfig.ManagedbyLabelKey] != ours {
			continue
		}
		labels[konfig.ManagedbyLabelKey] = "kustomize-" + BundledKustomize
		if err := r.SetLabels(labels); err != nil {
			return err
		}
	}
	return nil
}

// repoRoot is the root of the repository dir belongs to in a mounted
// tree: a mount of another repository, else the tree's root.
func repoRoot(dir string) string {
	if rest, ok := strings.CutPrefix(dir, gitsource.MountDir+"/"); ok {
		key, _, _ := strings.Cut(rest, "/")
		return path.Join(gitsource.MountDir, key)
	}
	return "."
}

// copyRepo copies the repository dir belongs to (other mounted
// repositories left out): with LoadRestrictionsNone a kustomization may
// read any of its files.
func copyRepo(fsys fs.FS, dir string, dst filesys.FileSystem, prefix string) error {
	root := repoRoot(dir)
	return fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if root == "." && p == gitsource.MountDir {
				return fs.SkipDir
			}
			return dst.MkdirAll(filepath.Join(prefix, filepath.FromSlash(p)))
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return dst.WriteFile(filepath.Join(prefix, filepath.FromSlash(p)), data)
	})
}

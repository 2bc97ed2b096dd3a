package render

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"sigs.k8s.io/kustomize/api/pkg/util"
	"sigs.k8s.io/kustomize/api/types"

	"github.com/gitops-promote/gitops-promote/internal/argo"
)

// The rules below are those of the kustomize CLI's edit commands
// (kustomize v5), which Argo CD runs as separate processes.

// noFlags refuses arguments the CLI would parse as flags: Argo CD passes
// images, replicas, labels, annotations and components without "--".
func noFlags(args []string) error {
	for _, a := range args {
		if len(a) > 1 && a[0] == '-' {
			return fmt.Errorf("unknown flag: %s", a)
		}
	}
	return nil
}

// parseImageArg reads [old=]new[:tag][@digest]; a bare name is refused.
func parseImageArg(arg string) (types.Image, error) {
	key, value, hasKey := strings.Cut(arg, "=")
	if !hasKey {
		key, value = "", arg
	}
	name, tag, digest := util.SplitImageName(value)
	if name == arg {
		return types.Image{}, fmt.Errorf("invalid format of image %q: use <image>=<newimage>[:<newtag>][@<digest>], <image>:<newtag>[@<digest>] or <image>@<digest>", arg)
	}
	im := types.Image{NewTag: tag, Digest: digest}
	if key == "" {
		im.Name = name
	} else {
		im.Name, im.NewName = key, name
	}
	return im, nil
}

// setReplicas is `kustomize edit set replicas name=count...`, fed as Argo
// CD feeds it: the count an integer (a string count must parse as one).
func setReplicas(k *types.Kustomization, reps []argo.KustomizeReplica) error {
	byName := map[string]types.Replica{}
	var args []string
	for _, r := range reps {
		n, err := strconv.Atoi(r.Count)
		if err != nil {
			return fmt.Errorf("expected integer value for count. Received: %s", r.Count)
		}
		args = append(args, fmt.Sprintf("%s=%d", r.Name, n))
	}
	if err := noFlags(args); err != nil {
		return err
	}
	for _, arg := range args {
		parts := strings.Split(arg, "=")
		if len(parts) != 2 {
			return fmt.Errorf("invalid format of replica %q: use <name>=<count>", arg)
		}
		n, err := strconv.ParseInt(parts[1], 10, 64)
		if err != nil {
			return fmt.Errorf("invalid format of replica %q: use <name>=<count>", arg)
		}
		byName[parts[0]] = types.Replica{Name: parts[0], Count: n}
	}
	for _, old := range k.Replicas {
		if _, ok := byName[old.Name]; !ok {
			byName[old.Name] = old
		}
	}
	k.Replicas = k.Replicas[:0]
	for _, r := range byName {
		k.Replicas = append(k.Replicas, r)
	}
	sort.Slice(k.Replicas, func(i, j int) bool { return k.Replicas[i].Name < k.Replicas[j].Name })
	return nil
}

// metadataArgs turns a map into the CLI's key:value arguments and back,
// as `kustomize edit add label|annotation` parses them: the first colon
// splits, and double quotes around a value are dropped.
func metadataArgs(kind string, m map[string]string) (map[string]string, error) {
	out := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		arg := k + ":" + m[k]
		if err := noFlags([]string{arg}); err != nil {
			return nil, err
		}
		key, value, _ := strings.Cut(arg, ":")
		if key == "" {
			return nil, fmt.Errorf("invalid %s: '%s' (need k:v pair where v may be quoted)", kind, arg)
		}
		if len(value) >= 2 && value[0] == '"' && value[len(value)-1] == '"' {
			value = value[1 : len(value)-1]
		}
		out[key] = value
	}
	return out, nil
}

func addLabels(k *types.Kustomization, o *argo.KustomizeOptions) error {
	if o.LabelIncludeTemplates && !o.LabelWithoutSelector {
		return errors.New("--without-selector flag must be specified for --include-templates to work")
	}
	pairs, err := metadataArgs("label", o.CommonLabels)
	if err != nil {
		return err
	}
	if !o.LabelWithoutSelector {
		if k.CommonLabels == nil {
			k.CommonLabels = map[string]string{}
		}
		return putAll(k.CommonLabels, pairs, "label", o.ForceCommonLabels)
	}
	// --without-selector: into the first `labels` entry with the same
	// settings, or a new one.
	for i, l := range k.Labels {
		if !l.IncludeSelectors && l.IncludeTemplates == o.LabelIncludeTemplates {
			if k.Labels[i].Pairs == nil {
				k.Labels[i].Pairs = map[string]string{}
			}
			return putAll(k.Labels[i].Pairs, pairs, "label", o.ForceCommonLabels)
		}
	}
	l := types.Label{Pairs: map[string]string{}, IncludeTemplates: o.LabelIncludeTemplates}
	if err := putAll(l.Pairs, pairs, "label", o.ForceCommonLabels); err != nil {
		return err
	}
	k.Labels = append(k.Labels, l)
	return nil
}

func addAnnotations(k *types.Kustomization, m map[string]string, force bool) error {
	pairs, err := metadataArgs("annotation", m)
	if err != nil {
		return err
	}
	if k.CommonAnnotations == nil {
		k.CommonAnnotations = map[string]string{}
	}
	return putAll(k.CommonAnnotations, pairs, "annotation", force)
}

func putAll(dst, src map[string]string, kind string, force bool) error {
	for _, key := range slices.Sorted(maps.Keys(src)) {
		if _, ok := dst[key]; ok && !force {
			return fmt.Errorf("%s %s already in kustomization file. Use --force to override", kind, key)
		}
		dst[key] = src[key]
	}
	return nil
}

package diff

import (
	"fmt"
	"sort"
	"strconv"
)

// How Argo CD's controller identifies an app's objects, once the repo
// server has rendered them and namespaces are defaulted
// (NormalizeTargetObjects in its controller):
//
//   - the key is group/kind/namespace/name: the version is not part of it;
//   - an object without a name is kept, with the empty name in its key;
//   - an object with metadata.generateName and no name is keyed by its
//     generateName and its position in the app's manifests, so no two of
//     them are ever the same object: the API server names each one when
//     it is created at sync (Helm hooks and Argo CD's own hook examples);
//   - objects sharing a key are one object: the controller keeps the last
//     copy and sets a RepeatedResourceWarning condition on the app.
//
// Argo CD's position would make a generateName object's key change each
// time an object is added before it, which would show it removed and
// added again in a diff; the key here counts only the objects of the same
// group, kind, namespace and generateName, which identifies it as well
// and stays put.

// SyncNameSuffix follows generateName in the Name of an object the API
// server names at sync. "<" cannot occur in a Kubernetes name, so the
// stand-in never meets a real object's name.
const SyncNameSuffix = "<created at sync>"

// SyncName is the stand-in Name of the n-th (1-based) object of one
// group, kind and namespace created from generateName.
func SyncName(generateName string, n int) string {
	if n <= 1 {
		return generateName + SyncNameSuffix
	}
	return generateName + "<created at sync #" + strconv.Itoa(n) + ">"
}

// identities collects an app's objects in order, keyed as Argo CD keys
// them.
type identities struct {
	out       []Resource
	index     map[string]int // key to position in out
	generated map[string]int // group/kind/namespace/generateName to count
}

func (ids *identities) add(r Resource) {
	if r.Name == "" && r.GenerateName != "" {
		if ids.generated == nil {
			ids.generated = map[string]int{}
		}
		g := Group(r.APIVersion) + "/" + r.Kind + "/" + r.Namespace + "/" + r.GenerateName
		ids.generated[g]++
		r.Name = SyncName(r.GenerateName, ids.generated[g])
	}
	if ids.index == nil {
		ids.index = map[string]int{}
	}
	k := r.Key()
	i, ok := ids.index[k]
	if !ok {
		ids.index[k] = len(ids.out)
		ids.out = append(ids.out, r)
		return
	}
	// Argo CD's controller keeps the last copy (DeduplicateTargetObjects,
	// now NormalizeTargetObjects) and counts them for its warning.
	n := max(ids.out[i].Copies, 1)
	r.Copies = n + 1
	ids.out[i] = r
}

// Warnings are the warnings Argo CD's controller raises for an app whose
// objects are rs, in its words, sorted: one per object rendered more
// than once (its RepeatedResourceWarning condition).
func Warnings(rs []Resource) []string {
	var out []string
	for _, r := range rs {
		if r.Copies > 1 {
			out = append(out, fmt.Sprintf("Resource %s appeared %d times among application resources.", r.Key(), r.Copies))
		}
	}
	sort.Strings(out)
	return out
}

// DropExcluded removes the objects of kinds Argo CD's resource filter
// excludes (excluded says which), as its controller drops them from an
// app's objects once they are deduplicated, and returns its warning for
// each, in its words (ExcludedResourceWarning), sorted.
func DropExcluded(rs []Resource, excluded func(group, kind string) bool) ([]Resource, []string) {
	var kept []Resource
	var warnings []string
	for _, r := range rs {
		g := Group(r.APIVersion)
		if !excluded(g, r.Kind) {
			kept = append(kept, r)
			continue
		}
		name := r.Name
		if r.GenerateName != "" {
			name = "" // Argo CD names the object, which has none yet
		}
		warnings = append(warnings, fmt.Sprintf("Resource %s/%s %s is excluded in the settings", g, r.Kind, name))
	}
	sort.Strings(warnings)
	return kept, warnings
}

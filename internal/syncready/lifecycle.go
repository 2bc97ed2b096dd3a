package syncready

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
)

// The lifecycle of built-in API versions comes from k8s.io/api's generated
// prerelease-lifecycle methods (zz_generated.prerelease-lifecycle.go of
// each group version), which every type of client-go's scheme carries, and
// from k8s.io/apiextensions-apiserver's for CustomResourceDefinitions:
// when a version was deprecated, when it stops being served, and what
// replaces it. GA versions carry none and are served for good.

type deprecated interface {
	APILifecycleDeprecated() (major, minor int)
}

type removed interface {
	APILifecycleRemoved() (major, minor int)
}

type replaced interface {
	APILifecycleReplacement() schema.GroupVersionKind
}

// lifecycle is one kind's data; zero versions mean none.
type lifecycle struct {
	known               bool // the scheme has this group/version/kind
	deprecated, removed version
	replacement         schema.GroupVersionKind
	groupKnown          bool // the scheme has other versions of its group
}

type version struct{ major, minor int }

func (v version) set() bool { return v.major > 0 }
func (v version) atLeast(o version) bool {
	return v.major > o.major || v.major == o.major && v.minor >= o.minor
}
func (v version) String() string { return fmt.Sprintf("%d.%d", v.major, v.minor) }

var (
	lifecycles sync.Map // schema.GroupVersionKind -> lifecycle
	groupsOnce sync.Once
	groups     map[string]bool // built-in groups the scheme knows
)

// builtins is client-go's scheme with the CRD types added, made on first
// use.
var builtins = sync.OnceValue(func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{scheme.AddToScheme, apiextv1.AddToScheme, apiextv1beta1.AddToScheme} {
		if err := add(s); err != nil {
			panic(fmt.Sprintf("registering the built-in API types: %v", err)) // fixed inputs: a broken build
		}
	}
	return s
})

func lookup(gvk schema.GroupVersionKind) lifecycle {
	if v, ok := lifecycles.Load(gvk); ok {
		return v.(lifecycle)
	}
	groupsOnce.Do(func() {
		groups = map[string]bool{}
		for k := range builtins().AllKnownTypes() {
			groups[k.Group] = true
		}
	})
	lc := lifecycle{groupKnown: groups[gvk.Group]}
	if obj, err := builtins().New(gvk); err == nil {
		lc.known = true
		if d, ok := obj.(deprecated); ok {
			lc.deprecated.major, lc.deprecated.minor = d.APILifecycleDeprecated()
		}
		if r, ok := obj.(removed); ok {
			lc.removed.major, lc.removed.minor = r.APILifecycleRemoved()
		}
		if r, ok := obj.(replaced); ok {
			lc.replacement = r.APILifecycleReplacement()
		}
	}
	lifecycles.Store(gvk, lc)
	return lc
}

// parseVersion reads "1.31", "v1.31.2" or "1.31.0-gke.1" as 1.31.
func parseVersion(s string) (version, error) {
	parts := strings.SplitN(strings.TrimPrefix(strings.TrimSpace(s), "v"), ".", 3)
	if len(parts) < 2 {
		return version{}, fmt.Errorf("kubeVersion %q: want major.minor, e.g. 1.31", s)
	}
	minor := parts[1]
	if i := strings.IndexFunc(minor, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		minor = minor[:i]
	}
	maj, err1 := strconv.Atoi(parts[0])
	mnr, err2 := strconv.Atoi(minor)
	if err1 != nil || err2 != nil || maj < 1 {
		return version{}, fmt.Errorf("kubeVersion %q: want major.minor, e.g. 1.31", s)
	}
	return version{maj, mnr}, nil
}

// apiFinding judges one object's apiVersion at kube; ok is false when the
// API is served and not deprecated there (or not a built-in group).
func apiFinding(apiVersion, kind string, kube version, kubeText string) (rule, msg string, ok bool) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return "", "", false
	}
	lc := lookup(gv.WithKind(kind))
	switch {
	case !lc.known && lc.groupKnown && !knownVersion(gv):
		// k8s.io/api drops a version some releases after its removal
		return RuleAPIRemoved, fmt.Sprintf("%s is no longer in k8s.io/api %s: Kubernetes stopped serving it before %s (env runs %s)",
			apiVersion, APIModuleVersion, newestKube(), kubeText), true
	case !lc.known:
		return "", "", false
	case lc.removed.set() && kube.atLeast(lc.removed):
		return RuleAPIRemoved, fmt.Sprintf("%s %s is not served from Kubernetes %s (env runs %s)%s",
			apiVersion, kind, lc.removed, kubeText, replacement(lc)), true
	case lc.deprecated.set() && kube.atLeast(lc.deprecated):
		until := ""
		if lc.removed.set() {
			until = ", removed in " + lc.removed.String()
		}
		return RuleAPIDeprecated, fmt.Sprintf("%s %s is deprecated since Kubernetes %s%s (env runs %s)%s",
			apiVersion, kind, lc.deprecated, until, kubeText, replacement(lc)), true
	}
	return "", "", false
}

func replacement(lc lifecycle) string {
	if lc.replacement.Kind == "" {
		return ""
	}
	return "; use " + lc.replacement.GroupVersion().String() + " " + lc.replacement.Kind
}

// knownVersion reports whether the scheme has any kind of gv: a kind the
// scheme lacks in a version it has is no API lifecycle matter.
func knownVersion(gv schema.GroupVersion) bool {
	return len(builtins().KnownTypes(gv)) > 0
}

// APIModuleVersion is the k8s.io/api this lifecycle data comes from
// (lifecycle_test.go holds it to go.mod): it knows Kubernetes up to 1.37.
const APIModuleVersion = "v0.37.1"

// newestKube is the Kubernetes release of APIModuleVersion (v0.N -> 1.N).
func newestKube() string {
	parts := strings.Split(strings.TrimPrefix(APIModuleVersion, "v"), ".")
	return "1." + parts[1]
}

package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// Ref names one object: group/kind, namespace ("" when cluster-scoped) and
// name, plus the apiVersion to ask for it with.
type Ref struct {
	APIVersion, Kind, Namespace, Name string
}

// Group is the API group of the ref's apiVersion ("" for core).
func (r Ref) Group() string {
	if i := strings.LastIndex(r.APIVersion, "/"); i >= 0 {
		return r.APIVersion[:i]
	}
	return ""
}

// Key identifies the object across API versions, as group/kind/ns/name.
func (r Ref) Key() string { return r.Group() + "/" + r.Kind + "/" + r.Namespace + "/" + r.Name }

func (r Ref) String() string {
	s := r.Kind + " "
	if r.Namespace != "" {
		s += r.Namespace + "/"
	}
	return s + r.Name
}

// Finding reasons: why one object could not be compared.
const (
	ReasonForbidden   = "forbidden"    // RBAC denied a read or the dry run
	ReasonUnknownKind = "unknown-kind" // the cluster does not serve the kind
	ReasonRejected    = "rejected"     // the API server refused the dry run (invalid, conflict...)
)

// Finding is one object (or, for a listing, one kind) the live diff could
// not compare, and why. It is a result, not a failure of the run.
type Finding struct {
	Ref
	Reason  string
	Message string
}

func finding(r Ref, reason string, err error) Finding {
	return Finding{Ref: r, Reason: reason, Message: oneLine(err.Error())}
}

// classify turns a per-object error into a finding, or returns it as a
// failure to reach the cluster.
func (c *Cluster) classify(r Ref, err error) (*Finding, error) {
	switch {
	case meta.IsNoMatchError(err):
		f := finding(r, ReasonUnknownKind, fmt.Errorf("the cluster does not serve %s", r.APIVersion+" "+r.Kind))
		return &f, nil
	case apierrors.IsForbidden(err):
		f := finding(r, ReasonForbidden, err)
		return &f, nil
	case apiError(err):
		f := finding(r, ReasonRejected, err)
		return &f, nil
	}
	return nil, c.transport(err)
}

// resource finds the REST resource of r and fixes its namespace by the
// kind's real scope: a cluster-scoped object loses the destination
// namespace the render may have given it.
func (c *Cluster) resource(r Ref) (dynamic.ResourceInterface, Ref, error) {
	gv, err := schema.ParseGroupVersion(r.APIVersion)
	if err != nil {
		return nil, r, &meta.NoKindMatchError{GroupKind: schema.GroupKind{Kind: r.Kind}, SearchedVersions: []string{r.APIVersion}}
	}
	m, err := c.mapper.RESTMapping(schema.GroupKind{Group: gv.Group, Kind: r.Kind}, gv.Version)
	if meta.IsNoMatchError(err) {
		// a CRD created since the first look-up
		c.mapper.Reset()
		m, err = c.mapper.RESTMapping(schema.GroupKind{Group: gv.Group, Kind: r.Kind}, gv.Version)
	}
	if err != nil {
		return nil, r, err
	}
	if m.Scope.Name() != meta.RESTScopeNameNamespace {
		r.Namespace = ""
		return c.dyn.Resource(m.Resource), r, nil
	}
	return c.dyn.Resource(m.Resource).Namespace(r.Namespace), r, nil
}

// get returns the live object, or nil when it does not exist.
func (c *Cluster) get(ctx context.Context, r Ref) (map[string]any, error) {
	ri, r, err := c.resource(r)
	if err != nil {
		return nil, err
	}
	u, err := ri.Get(ctx, r.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return u.Object, nil
}

// dryRunApply asks the server what a server-side apply of obj under
// Argo CD's field manager would leave: `kubectl apply --server-side
// --force-conflicts --dry-run=server`, as Argo CD's server-side diff runs
// it. Nothing is written.
func (c *Cluster) dryRunApply(ctx context.Context, r Ref, obj map[string]any) (map[string]any, error) {
	ri, _, err := c.resource(r)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", r, err)
	}
	force := true
	u, err := ri.Patch(ctx, r.Name, types.ApplyPatchType, body, metav1.PatchOptions{
		FieldManager: Manager, Force: &force, DryRun: []string{metav1.DryRunAll},
	})
	if err != nil {
		return nil, err
	}
	return u.Object, nil
}

// scoped returns r with its namespace fixed by the kind's scope, or the
// mapping error.
func (c *Cluster) scoped(r Ref) (Ref, error) {
	_, r, err := c.resource(r)
	return r, err
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

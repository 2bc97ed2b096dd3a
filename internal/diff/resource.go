// Package diff turns rendered Kubernetes manifests into per-resource,
// reviewable diffs. Secret values never leave it in clear: they are replaced
// by placeholders before anything is serialised, and their per-key change
// status is computed in memory.
package diff

import (
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Resource is one Kubernetes object of a rendered manifest.
type Resource struct {
	APIVersion, Kind, Namespace, Name string
	// Object is the parsed document. It still holds secret values: never
	// print it; Resources redacts before serialising. A value copied out
	// of a Secret's data through a YAML alias is a string starting with
	// an unprintable marker (see taint.go).
	Object map[string]any
	// Source is the template path from Helm's "# Source:" comment, if any.
	Source string
	// GenerateName is metadata.generateName of an object without a name,
	// which the API server names when Argo CD creates it at sync. Name
	// is then a stable stand-in (see SyncName), never a real name.
	GenerateName string
	// Copies is how many times the object was rendered, when more than
	// once: Argo CD keeps the last copy and warns (see Warnings).
	Copies int
	// Repeats are the keys its document gives twice; Object holds the
	// last value of each, as Argo CD applies it.
	Repeats []Repeat
}

// ErrMissingKind is an object without a kind, which Argo CD refuses.
var ErrMissingKind = errors.New("missing kind")

// Key identifies the resource as group/kind/namespace/name; the core group
// is "".
func (r Resource) Key() string {
	return Group(r.APIVersion) + "/" + r.Kind + "/" + r.Namespace + "/" + r.Name
}

// Group returns the API group of an apiVersion ("apps/v1" -> "apps",
// "v1" -> "").
func Group(apiVersion string) string {
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

// clusterScoped lists the kinds the API server keeps outside namespaces. It
// matches on kind alone: a custom kind reusing one of these names in another
// group is rare enough, and the cost is only a missing default namespace.
var clusterScoped = map[string]bool{
	"Namespace":                        true,
	"Node":                             true,
	"PersistentVolume":                 true,
	"StorageClass":                     true,
	"ClusterRole":                      true,
	"ClusterRoleBinding":               true,
	"CustomResourceDefinition":         true,
	"PriorityClass":                    true,
	"ValidatingWebhookConfiguration":   true,
	"MutatingWebhookConfiguration":     true,
	"ValidatingAdmissionPolicy":        true,
	"ValidatingAdmissionPolicyBinding": true,
	"APIService":                       true,
	"IngressClass":                     true,
	"RuntimeClass":                     true,
	"CSIDriver":                        true,
	"CSINode":                          true,
	"VolumeAttachment":                 true,
	"VolumeSnapshotClass":              true,
	"PodSecurityPolicy":                true,
	"CertificateSigningRequest":        true,
	"FlowSchema":                       true,
	"PriorityLevelConfiguration":       true,
	"ClusterIssuer":                    true,
	"ClusterSecretStore":               true,
	"ClusterPolicy":                    true,
	"ClusterRoleTemplate":              true,
	"StorageVersionMigration":          true,
	// built-in kinds of newer Kubernetes releases (1.31-1.34)
	"IPAddress":                      true,
	"ServiceCIDR":                    true,
	"DeviceClass":                    true,
	"ResourceSlice":                  true,
	"MutatingAdmissionPolicy":        true,
	"MutatingAdmissionPolicyBinding": true,
	"ClusterTrustBundle":             true,
	"VolumeAttributesClass":          true,
	"ComponentStatus":                true,
}

// ClusterScoped reports whether kind is one of the known cluster-scoped
// kinds, which never get a default namespace.
func ClusterScoped(kind string) bool { return clusterScoped[kind] }

// Parse splits rendered multi-document YAML (helm template output) into
// resources. Empty and comment-only documents are dropped, v1 List documents
// are flattened, and namespaced kinds without a namespace get
// defaultNamespace, in Namespace and in the object, because that is where
// Argo CD applies them.
func Parse(manifests []byte, defaultNamespace string) ([]Resource, error) {
	return ParseMarked(manifests, defaultNamespace, nil)
}

// ParseMarked is Parse, with mark called on every YAML document's node
// tree once it is parsed and within bounds, before anything else reads
// it: a caller that must add to each object (Argo CD's tracking
// metadata) does it on the tree Parse builds anyway rather than by
// parsing and re-encoding the text first. mark may change the tree in
// place; it is not called for a document Parse refuses for its size or
// depth.
//
// The objects are taken as Argo CD's controller takes an app's manifests
// (see identity.go): one without a name but with metadata.generateName
// gets a stable key, one without either keeps its empty name, and an
// object rendered more than once is kept once, as its last copy, with
// Copies counting them.
func ParseMarked(manifests []byte, defaultNamespace string, mark func(doc *yaml.Node)) ([]Resource, error) {
	type entry struct {
		obj           map[string]any
		reps          []Repeat
		source, where string
	}
	var entries []entry
	var sc scopes
	for _, doc := range splitDocuments(string(manifests)) {
		objs, reps, list, err := doc.decode(mark)
		if err != nil {
			return nil, err
		}
		for i, obj := range objs {
			where := doc.describe()
			if len(objs) > 1 || list {
				where = fmt.Sprintf("%s item %d", where, i+1)
			}
			sc.learn(obj)
			entries = append(entries, entry{obj, reps[i], doc.source, where})
		}
	}
	var ids identities
	for _, e := range entries {
		r, err := newResource(e.obj, e.source, e.where, defaultNamespace, sc)
		if err != nil {
			return nil, err
		}
		r.Repeats = e.reps
		ids.add(r)
	}
	return ids.out, nil
}

// newResource reads an object's identity. Argo CD refuses an object
// without a kind (the API machinery's "Object 'Kind' is missing") and
// takes one without a name as it is: an apiVersion, a name or a
// namespace may be missing.
func newResource(obj map[string]any, source, where, defaultNamespace string, sc scopes) (Resource, error) {
	untaintIdentity(obj)
	r := Resource{Object: obj, Source: source}
	r.APIVersion, _ = obj["apiVersion"].(string)
	r.Kind, _ = obj["kind"].(string)
	meta, _ := obj["metadata"].(map[string]any)
	if meta != nil {
		r.Name, _ = meta["name"].(string)
		r.Namespace, _ = meta["namespace"].(string)
		if r.Name == "" {
			r.GenerateName, _ = meta["generateName"].(string)
		}
	}
	if r.Kind == "" {
		return Resource{}, fmt.Errorf("%s: %w", where, ErrMissingKind)
	}
	switch {
	case sc.clusterScoped(Group(r.APIVersion), r.Kind):
		// Argo CD's controller clears it from the object too, and
		// tracks the object again, now under the app's namespace
		if r.Namespace != "" {
			retrack(meta, r.Namespace, defaultNamespace)
		}
		r.Namespace = ""
		delete(meta, "namespace")
	case r.Namespace == "" && defaultNamespace != "":
		r.Namespace = defaultNamespace
		if _, ok := obj["metadata"]; !ok {
			meta = map[string]any{}
			obj["metadata"] = meta
		}
		if meta != nil { // Argo CD leaves a metadata that is not a mapping alone
			meta["namespace"] = defaultNamespace
		}
	}
	return r, nil
}

// trackingIDKey is the annotation of Argo CD's annotation tracking:
// "<app>:<group>/<kind>:<namespace>/<name>".
const trackingIDKey = "argocd.argoproj.io/tracking-id"

// retrack moves the namespace of meta's tracking id from old to ns, as
// Argo CD's controller does when it clears a cluster-scoped object's
// namespace: it sets the app instance again, and an object without a
// namespace is tracked under the app's destination namespace.
func retrack(meta map[string]any, old, ns string) {
	ann, _ := meta["annotations"].(map[string]any)
	id, _ := ann[trackingIDKey].(string)
	i := strings.LastIndex(id, ":")
	if i < 0 || !strings.HasPrefix(id[i+1:], old+"/") {
		return
	}
	ann[trackingIDKey] = id[:i+1] + ns + id[i+1+len(old):]
}

// untaintIdentity shows a resource's identity even when a Secret value was
// copied into it through an alias: kind, apiVersion, name and namespace
// name the resource in every output, as a Secret's keys do.
func untaintIdentity(obj map[string]any) {
	untaint := func(m map[string]any, k string) {
		if s, ok := m[k].(string); ok && tainted(s) {
			m[k] = strings.TrimPrefix(s, taintPrefix)
		}
	}
	untaint(obj, "apiVersion")
	untaint(obj, "kind")
	if meta, ok := obj["metadata"].(map[string]any); ok {
		untaint(meta, "name")
		untaint(meta, "namespace")
	}
}

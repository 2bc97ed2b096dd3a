package diff

// Argo CD's controller asks the cluster whether a kind is namespaced: a
// cluster-scoped object loses its namespace, any other (an unknown kind
// included) gets the app's destination namespace. Offline, the cluster is
// the well-known kinds (clusterScoped) and the CustomResourceDefinitions
// the app renders itself: once synced, they are what the cluster knows
// of those kinds.

// scopes holds the scope the app's own CustomResourceDefinitions declare,
// by group/kind: true for Cluster.
type scopes map[string]bool

// learn records obj's declared scope if it is a CustomResourceDefinition.
func (sc *scopes) learn(obj map[string]any) {
	if k, _ := obj["kind"].(string); k != "CustomResourceDefinition" {
		return
	}
	if v, _ := obj["apiVersion"].(string); Group(v) != "apiextensions.k8s.io" {
		return
	}
	spec, _ := obj["spec"].(map[string]any)
	names, _ := spec["names"].(map[string]any)
	group, _ := spec["group"].(string)
	kind, _ := names["kind"].(string)
	scope, _ := spec["scope"].(string)
	if kind == "" || (scope != "Cluster" && scope != "Namespaced") {
		return
	}
	if *sc == nil {
		*sc = scopes{}
	}
	(*sc)[group+"/"+kind] = scope == "Cluster"
}

// clusterScoped reports whether objects of group and kind are outside
// namespaces: as the app's own CRD declares, else as the well-known kinds.
func (sc scopes) clusterScoped(group, kind string) bool {
	if cluster, ok := sc[group+"/"+kind]; ok {
		return cluster
	}
	return ClusterScoped(kind)
}

package kube

import "slices"

// kindRule matches API groups and kinds the way Argo CD's resource
// filters do: every group with every kind of the rule; no kinds means
// every kind of those groups.
type kindRule struct {
	groups, kinds []string
}

// unwatched are the kinds Argo CD's controller never watches, so never
// tracks for an app: its built-in exclusions (events, metrics, leases) and
// the resource.exclusions of the argocd-cm it ships (endpoints, review
// requests, intermediate certificate requests, CNI and policy-engine
// bookkeeping). An installation that replaces resource.exclusions keeps
// the built-in ones only; that setting lives in the cluster, and is not
// read (docs/manifestdiff.md, Known limits). Listing these kinds would
// cost a request each, find nothing an app manages, and make the API
// server warn about deprecated ones (v1 Endpoints).
var unwatched = []kindRule{
	// built in
	{groups: []string{"events.k8s.io", "metrics.k8s.io"}},
	{groups: []string{""}, kinds: []string{"Event"}},
	{groups: []string{"coordination.k8s.io"}, kinds: []string{"Lease"}},
	// argocd-cm's default resource.exclusions
	{groups: []string{"", "discovery.k8s.io"}, kinds: []string{"Endpoints", "EndpointSlice"}},
	{groups: []string{"authentication.k8s.io", "authorization.k8s.io"}, kinds: []string{
		"SelfSubjectReview", "TokenReview", "LocalSubjectAccessReview",
		"SelfSubjectAccessReview", "SelfSubjectRulesReview", "SubjectAccessReview"}},
	{groups: []string{"certificates.k8s.io"}, kinds: []string{"CertificateSigningRequest"}},
	{groups: []string{"cert-manager.io"}, kinds: []string{"CertificateRequest"}},
	{groups: []string{"cilium.io"}, kinds: []string{"CiliumIdentity", "CiliumEndpoint", "CiliumEndpointSlice"}},
	{groups: []string{"kyverno.io", "reports.kyverno.io", "wgpolicyk8s.io"}, kinds: []string{
		"PolicyReport", "ClusterPolicyReport", "EphemeralReport", "ClusterEphemeralReport",
		"AdmissionReport", "ClusterAdmissionReport", "BackgroundScanReport",
		"ClusterBackgroundScanReport", "UpdateRequest"}},
}

// watched reports whether Argo CD's controller would watch a kind, and so
// could find an app's objects of it: the kind can be listed and watched
// (ComponentStatus, say, cannot be watched) and no exclusion names it.
func watched(group, kind string, verbs []string) bool {
	if !slices.Contains(verbs, "list") || !slices.Contains(verbs, "watch") {
		return false
	}
	return !Excluded(group, kind)
}

// Excluded reports whether Argo CD's resource filter (its built-in
// exclusions and the default argocd-cm's resource.exclusions) names a
// kind. Its controller also drops an app's rendered objects of such a
// kind before it compares or syncs them, with an ExcludedResourceWarning
// (see diff.DropExcluded).
func Excluded(group, kind string) bool {
	for _, r := range unwatched {
		if slices.Contains(r.groups, group) && (len(r.kinds) == 0 || slices.Contains(r.kinds, kind)) {
			return true
		}
	}
	return false
}

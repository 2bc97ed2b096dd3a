package kube

import (
	"slices"
	"testing"

	"github.com/gitops-promote/gitops-promote/internal/config"
)

// Only kinds Argo CD's controller watches are listed for prune detection:
// listable and watchable, and not among its default exclusions (listing
// v1 Endpoints or ComponentStatus made the API server warn on every run).
func TestWatched(t *testing.T) {
	all := []string{"create", "get", "list", "watch", "patch"}
	tests := []struct {
		group, kind string
		verbs       []string
		want        bool
	}{
		{"apps", "Deployment", all, true},
		{"", "ConfigMap", all, true},
		{"", "Secret", all, true},
		{"argoproj.io", "Application", all, true},
		{"", "ComponentStatus", []string{"get", "list"}, false}, // not watchable
		{"", "Binding", []string{"create"}, false},
		{"", "Endpoints", all, false},
		{"discovery.k8s.io", "EndpointSlice", all, false},
		{"", "Event", all, false},
		{"events.k8s.io", "Event", all, false},
		{"metrics.k8s.io", "PodMetrics", all, false},
		{"coordination.k8s.io", "Lease", all, false},
		{"coordination.k8s.io", "LeaseCandidate", all, true}, // only Lease is excluded
		{"authentication.k8s.io", "TokenReview", all, false},
		{"authorization.k8s.io", "SelfSubjectAccessReview", all, false},
		{"authorization.k8s.io", "SubjectAccessReview", all, false},
		{"certificates.k8s.io", "CertificateSigningRequest", all, false},
		{"cert-manager.io", "CertificateRequest", all, false},
		{"cert-manager.io", "Certificate", all, true},
		{"cilium.io", "CiliumEndpoint", all, false},
		{"wgpolicyk8s.io", "PolicyReport", all, false},
		{"kyverno.io", "ClusterPolicy", all, true},
		{"apps", "Endpoints", all, true}, // a rule's kinds count in its groups only
	}
	for _, tt := range tests {
		if got := watched(tt.group, tt.kind, tt.verbs); got != tt.want {
			t.Errorf("watched(%q, %q, %v) = %v, want %v", tt.group, tt.kind, tt.verbs, got, tt.want)
		}
	}
}

// A session finds objects under the tracking of both revisions: label
// selectors only narrow the listing when every tracking in use reads the
// same label.
func TestSessionTracking(t *testing.T) {
	ann := Tracking{Method: config.TrackingAnnotation}
	lab := func(k string) Tracking { return Tracking{Method: config.TrackingLabel, LabelKey: k} }
	tests := []struct {
		name     string
		in       []Tracking
		want     []Tracking
		selector string
	}{
		{"defaults", []Tracking{{}, {}}, []Tracking{ann}, ""},
		{"label, default key", []Tracking{{Method: config.TrackingLabel}, lab("app.kubernetes.io/instance")},
			[]Tracking{lab("app.kubernetes.io/instance")}, "app.kubernetes.io/instance"},
		{"annotation ignores the key", []Tracking{{Method: config.TrackingAnnotation, LabelKey: "a"}, ann}, []Tracking{ann}, ""},
		{"label to annotation", []Tracking{lab("x/app"), ann}, []Tracking{lab("x/app"), ann}, ""},
		{"label keys differ", []Tracking{lab("x/app"), lab("y/app")}, []Tracking{lab("x/app"), lab("y/app")}, ""},
		{"none to label", []Tracking{{Method: config.TrackingNone}, lab("x/app")}, []Tracking{lab("x/app")}, "x/app"},
		{"none", []Tracking{{Method: config.TrackingNone}, {Method: config.TrackingNone}}, nil, ""},
	}
	for _, tt := range tests {
		s := (*Cluster)(nil).NewSession(tt.in, nil)
		if !slices.Equal(s.tracking, tt.want) || s.labelSelector() != tt.selector {
			t.Errorf("%s: tracking %v selector %q, want %v %q", tt.name, s.tracking, s.labelSelector(), tt.want, tt.selector)
		}
	}
}

// What the controller does not watch, it also drops from an app's
// rendered objects: the same rules, verbs aside.
func TestExcluded(t *testing.T) {
	for _, tt := range []struct {
		group, kind string
		want        bool
	}{{"", "Endpoints", true}, {"coordination.k8s.io", "Lease", true}, {"metrics.k8s.io", "NodeMetrics", true},
		{"apps", "Deployment", false}, {"", "ComponentStatus", false}} {
		if got := Excluded(tt.group, tt.kind); got != tt.want {
			t.Errorf("Excluded(%q, %q) = %v, want %v", tt.group, tt.kind, got, tt.want)
		}
	}
}

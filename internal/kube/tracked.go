package kube

import (
	"context"
	"errors"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/gitops-promote/gitops-promote/internal/config"
)

// Argo CD's tracking annotation.
const trackingIDKey = "argocd.argoproj.io/tracking-id"

// Tracking is how Argo CD marks an app's objects (`argocd.tracking`).
type Tracking struct {
	Method   string // config.Tracking*
	LabelKey string // the instance label of label tracking
}

// appOf returns the app that manages an object as Argo CD's controller
// decides it: by the instance label, or by the tracking annotation when it
// names this very object (a copied annotation does not make an object
// managed). Objects with owners are children, never managed themselves.
func (t Tracking) appOf(r Ref, m metav1.ObjectMeta) string {
	if len(m.OwnerReferences) > 0 {
		return ""
	}
	switch t.Method {
	case config.TrackingNone:
		return ""
	case config.TrackingLabel:
		return m.Labels[t.LabelKey]
	}
	id, ok := m.Annotations[trackingIDKey]
	if !ok {
		return ""
	}
	app, rest, ok := strings.Cut(id, ":")
	gk, nsName, ok2 := strings.Cut(rest, ":")
	group, kind, ok3 := strings.Cut(gk, "/")
	ns, name, ok4 := strings.Cut(nsName, "/")
	if !ok || !ok2 || !ok3 || !ok4 || strings.Contains(kind, "/") || strings.Contains(name, "/") {
		return ""
	}
	if (r.Namespace != ns && r.Namespace != "") || r.Name != name || r.Group() != group || r.Kind != kind {
		return ""
	}
	return app
}

// listTracked lists every kind the cluster serves and keeps the objects
// an app manages, by app name. A kind the user may not list cluster-wide
// is listed in the given namespaces instead; what still cannot be listed
// is a finding, since objects of that kind that a sync would prune cannot
// be seen.
func (s *Session) listTracked(ctx context.Context) {
	s.byApp = map[string][]Ref{}
	lists, err := s.c.disc.ServerPreferredResources()
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		if !apiError(err) {
			s.listErr = s.c.transport(err)
			return
		}
		s.listFindings = append(s.listFindings, finding(Ref{}, ReasonRejected, err))
	}
	if gerr := (*discovery.ErrGroupDiscoveryFailed)(nil); errors.As(err, &gerr) {
		for gv, e := range gerr.Groups {
			s.listFindings = append(s.listFindings, finding(Ref{APIVersion: gv.String()}, ReasonRejected, e))
		}
	}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, res := range l.APIResources {
			if strings.Contains(res.Name, "/") || !watched(gv.Group, res.Kind, res.Verbs) {
				continue
			}
			if err := s.listKind(ctx, gv.WithResource(res.Name), res.Kind, res.Namespaced); err != nil {
				s.listErr = err
				return
			}
		}
	}
}

func (s *Session) listKind(ctx context.Context, gvr schema.GroupVersionResource, kind string, namespaced bool) error {
	base := Ref{APIVersion: gvr.GroupVersion().String(), Kind: kind}
	err := s.listIn(ctx, gvr, base, "")
	if err == nil || !namespaced || !apierrors.IsForbidden(err) {
		return s.listFailed(base, err)
	}
	for _, ns := range s.namespaces {
		r := base
		r.Namespace = ns
		if err := s.listFailed(r, s.listIn(ctx, gvr, base, ns)); err != nil {
			return err
		}
	}
	return nil
}

// listFailed records an API answer as a finding and returns only a
// failure to reach the cluster.
func (s *Session) listFailed(r Ref, err error) error {
	if err == nil {
		return nil
	}
	if !apiError(err) {
		return s.c.transport(err)
	}
	reason := ReasonRejected
	if apierrors.IsForbidden(err) {
		reason = ReasonForbidden
	}
	s.listFindings = append(s.listFindings, finding(r, reason, err))
	return nil
}

// listIn lists object metadata only, page by page.
func (s *Session) listIn(ctx context.Context, gvr schema.GroupVersionResource, base Ref, ns string) error {
	opts := metav1.ListOptions{Limit: 500, LabelSelector: s.labelSelector()}
	for {
		list, err := s.c.meta.Resource(gvr).Namespace(ns).List(ctx, opts)
		if err != nil {
			return err
		}
		for _, it := range list.Items {
			r := base
			r.Namespace, r.Name = it.Namespace, it.Name
			var apps []string
			for _, tr := range s.tracking {
				if app := tr.appOf(r, it.ObjectMeta); app != "" && !slices.Contains(apps, app) {
					apps = append(apps, app)
					s.byApp[app] = append(s.byApp[app], r)
				}
			}
		}
		if list.Continue == "" {
			return nil
		}
		opts.Continue = list.Continue
	}
}

// labelSelector narrows listing to objects with the instance label when
// every tracking in use is label tracking with one key; annotation
// tracking, or two label keys, need every object.
func (s *Session) labelSelector() string {
	key := ""
	for _, tr := range s.tracking {
		if tr.Method != config.TrackingLabel || (key != "" && key != tr.LabelKey) {
			return ""
		}
		key = tr.LabelKey
	}
	return key
}

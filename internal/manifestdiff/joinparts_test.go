package manifestdiff

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/diff"
	"github.com/gitops-promote/gitops-promote/internal/render"
)

// TestJoinPartsParsesAsTrackedRenders: an app's sources rendered without
// tracking, joined and parsed with it, give the resources of the tracked
// renders joined as before; also when a part ends without a newline, and
// when the parts' tracking differs (each part is then tracked as it was).
func TestJoinPartsParsesAsTrackedRenders(t *testing.T) {
	req := func(app string) *argo.Request {
		return &argo.Request{Tracking: "annotation+label", InstanceLabelKey: "app.kubernetes.io/instance",
			BuildEnv: argo.BuildEnv{AppName: app, AppNamespace: "shop"}}
	}
	a := []byte("# Source: c/templates/a.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}")
	b := []byte("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n")
	for _, tc := range []struct {
		name string
		reqs []*argo.Request
	}{
		{"same tracking", []*argo.Request{req("web"), req("web")}},
		{"other tracking", []*argo.Request{req("web"), req("other")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parts := []part{{a, render.TrackingOf(tc.reqs[0]), tc.reqs[0]}, {b, render.TrackingOf(tc.reqs[1]), tc.reqs[1]}}
			out, track, err := joinParts(parts)
			if err != nil {
				t.Fatal(err)
			}
			got, err := render.ParseTracked(out, "shop", track)
			if err != nil {
				t.Fatal(err)
			}
			// as renderSources joined the tracked renders before
			var old []byte
			for i, m := range [][]byte{a, b} {
				tm, err := render.Track(m, tc.reqs[i])
				if err != nil {
					t.Fatal(err)
				}
				if len(old) > 0 && len(tm) > 0 && string(tm[:3]) != "---" {
					old = append(old, "---\n"...)
				}
				old = append(old, tm...)
			}
			want, err := diff.Parse(old, "shop")
			if err != nil {
				t.Fatal(err)
			}
			if len(want) != 2 {
				t.Fatalf("tracked renders gave %d resources, want 2", len(want))
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("joined and parsed with tracking differs from the tracked renders (-want +got):\n%s", d)
			}
		})
	}
}

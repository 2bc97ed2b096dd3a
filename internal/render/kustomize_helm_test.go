//go:build bundled

package render

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/charts"
)

// TestKustomizeSourceHelmCharts: the kustomize renderer builds helmCharts
// with --enable-helm (no longer "not rendered"), with the Helm major of
// the request and the capabilities Argo CD appends, normalised as the
// repo-server does.
func TestKustomizeSourceHelmCharts(t *testing.T) {
	s := newHelmChartServers(t)
	tree := fstest.MapFS{"apps/web/kustomization.yaml": {Data: []byte("helmCharts:\n- {name: web, repo: " + s.repo +
		", version: 1.0.0, releaseName: web, namespace: web}\n")}}
	for _, major := range []int{3, 4} {
		req := &argo.Request{Env: "qa", App: "web", Kind: argo.KindKustomize, Path: "apps/web", Source: argo.Source{Path: "apps/web"},
			KustomizeBuildOptions: "--enable-helm", KustomizeHelmMajor: major, KubeVersion: "v1.30", APIVersions: []string{"monitoring.coreos.com/v1"}}
		out, err := KustomizeSource{}.Render(t.Context(), Input{FS: tree, Charts: &charts.Client{HTTP: s.client}}, req)
		if err != nil {
			t.Fatalf("helm %d: %v", major, err)
		}
		helm := map[int]string{3: helm3Version, 4: helm4Version}[major]
		for _, want := range []string{"name: web-web\n", `helm: ` + helm + "\n", "kube: v1.30\n", `monitoring: "true"`} {
			if !strings.Contains(string(out), want) {
				t.Errorf("helm %d: output lacks %q:\n%s", major, want, out)
			}
		}
	}

	req := &argo.Request{Env: "qa", App: "web", Kind: argo.KindKustomize, Path: "apps/web", Source: argo.Source{Path: "apps/web"},
		KustomizeBuildOptions: "--enable-helm", KubeVersion: "one.thirty"}
	_, err := KustomizeSource{}.Render(t.Context(), Input{FS: tree, Charts: &charts.Client{HTTP: s.client}}, req)
	if err == nil || !strings.Contains(err.Error(), "could not parse kubernetes version one.thirty") {
		t.Errorf("unparsable kube version: err = %v", err)
	}
}

// TestKustomizeHelmPullErrors: a chart kustomize cannot pull fails the
// app with an error naming env, app, the kustomization, the chart and
// its repository's host, keeping the chart client's sentinel, and never
// showing a credential, from the URL or from the environment.
func TestKustomizeHelmPullErrors(t *testing.T) {
	s := newHelmChartServers(t)
	down := httptest.NewServer(http.NotFoundHandler())
	downHost := strings.TrimPrefix(down.URL, "http://")
	down.Close()
	withUser := strings.Replace(s.repo, "https://", "https://deploy:Url-S3cret-41@", 1)
	host := strings.TrimPrefix(s.repo, "https://")
	cases := []struct {
		name, chart string
		want        []string
		is          error
	}{
		{"unknown version", "{name: web, repo: '" + withUser + "', version: 9.9.9}",
			[]string{"helm chart web version 9.9.9 from " + host, `no version matching "9.9.9"`, "newest: 2.0.0-rc.1, 1.1.0"}, charts.ErrVersionNotFound},
		{"unknown chart", "{name: nope, repo: '" + s.repo + "', version: 1.0.0}",
			[]string{"helm chart nope version 1.0.0 from " + host}, charts.ErrChartNotFound},
		{"unreachable repository", "{name: web, repo: 'http://deploy:Url-S3cret-41@" + downHost + "', version: 1.0.0}",
			[]string{"helm chart web version 1.0.0 from " + downHost}, charts.ErrUnreachable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tree := fstest.MapFS{"apps/web/kustomization.yaml": {Data: []byte("helmCharts:\n- " + tc.chart + "\n")}}
			req := &argo.Request{Env: "qa", App: "web", Kind: argo.KindKustomize, Path: "apps/web", Source: argo.Source{Path: "apps/web"},
				KustomizeBuildOptions: "--enable-helm"}
			client := &charts.Client{HTTP: s.client, Creds: &charts.Credentials{Pair: charts.Auth{Username: "ci", Password: "Env-S3cret-77"}, PairURLs: []string{s.repo}}}
			_, err := KustomizeSource{}.Render(t.Context(), Input{FS: tree, Charts: client}, req)
			if err == nil || errors.Is(err, argo.ErrNotRendered) {
				t.Fatalf("err = %v, want a failed render", err)
			}
			msg := err.Error()
			t.Log(msg)
			for _, want := range append([]string{"env qa, app web: kustomize build apps/web: "}, tc.want...) {
				if !strings.Contains(msg, want) {
					t.Errorf("error lacks %q:\n%s", want, msg)
				}
			}
			if strings.Contains(msg, "S3cret") || strings.Contains(msg, "deploy:") {
				t.Errorf("error shows a credential:\n%s", msg)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error does not wrap %v:\n%s", tc.is, msg)
			}
		})
	}
}

// BenchmarkKustomizeHelmChart measures a build inflating one chart kept
// in the chart home (helm version and template: two starts of this
// executable as kustomize's helm) against the same chart rendered
// straight through the Helm SDK.
func BenchmarkKustomizeHelmChart(b *testing.B) {
	tree := fstest.MapFS{"app/kustomization.yaml": {Data: []byte("helmCharts:\n- {name: local, releaseName: r}\n")},
		"app/charts/local/Chart.yaml": {Data: []byte("apiVersion: v2\nname: local\nversion: 0.1.0\n")}}
	for name, data := range webChart {
		tree["app/charts/local/"+name] = &fstest.MapFile{Data: []byte(data)}
	}
	b.Run("kustomize", func(b *testing.B) {
		for b.Loop() {
			if _, err := KustomizeBuild(b.Context(), tree, "app", &argo.KustomizeOptions{}, "--enable-helm", &KustomizeHelm{Major: 4}); err != nil {
				b.Fatal(err)
			}
		}
	})
	ch, err := PackageChartDir(b.Context(), tree, "app/charts/local", nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("helm sdk", func(b *testing.B) {
		for b.Loop() {
			if _, err := Helm4(b.Context(), Request{Chart: ch, ReleaseName: "r"}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

package argo

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/config"
)

func TestCapabilitiesNormalisedAsArgoCD(t *testing.T) {
	cluster := []string{"v1", "apps/v1", "batch/v1", "apps/v1", "monitoring.coreos.com/v1"}
	tests := []struct {
		name     string
		src      Source
		kube     string
		wantKube string
		wantAPIs []string
		wantErr  error
	}{
		{name: "the cluster's API versions sorted without repeats", kube: "v1.31.4",
			wantKube: "1.31.4", wantAPIs: []string{"apps/v1", "batch/v1", "monitoring.coreos.com/v1", "v1"}},
		{name: "a source's own as written", src: Source{Helm: &Helm{APIVersions: []string{"z/v1", "a/v1", "z/v1"}}},
			wantAPIs: []string{"z/v1", "a/v1", "z/v1"}},
		{name: "the kustomize block's own as written", src: Source{Kustomize: []byte("apiVersions: [b/v1, a/v1]\n")},
			wantAPIs: []string{"b/v1", "a/v1"}},
		{name: "a vendor suffix dropped", kube: "v1.29.3-eks-1234",
			wantKube: "1.29.3", wantAPIs: []string{"apps/v1", "batch/v1", "monitoring.coreos.com/v1", "v1"}},
		{name: "major and minor only", src: Source{Helm: &Helm{KubeVersion: "v1.30"}}, kube: "1.31.0",
			wantKube: "1.30", wantAPIs: []string{"apps/v1", "batch/v1", "monitoring.coreos.com/v1", "v1"}},
		{name: "none is the renderer's default",
			wantAPIs: []string{"apps/v1", "batch/v1", "monitoring.coreos.com/v1", "v1"}},
		{name: "a major alone is refused", src: Source{Helm: &Helm{KubeVersion: "1"}}, wantErr: ErrKubeVersion},
		{name: "not a version is refused", src: Source{Kustomize: []byte("kubeVersion: latest\n")}, wantErr: ErrKubeVersion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &config.Config{KubeVersion: tt.kube, APIVersions: cluster}
			kv, apis, err := capabilities(tt.src, cfg)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if kv != tt.wantKube {
				t.Errorf("kube version %q, want %q", kv, tt.wantKube)
			}
			if d := cmp.Diff(tt.wantAPIs, apis); d != "" {
				t.Errorf("API versions (-want +got):\n%s", d)
			}
		})
	}
	if cluster[0] != "v1" {
		t.Error("the config's API versions were sorted in place")
	}
}

func TestKustomizeVersionMustBeRegistered(t *testing.T) {
	tests := []struct {
		name       string
		block      string
		registered []string
		wantErr    string
	}{
		{name: "no version", block: "namePrefix: x-\n"},
		{name: "registered", block: "version: v5.4.3\n", registered: []string{"v4.5.7", "v5.4.3"}},
		{name: "not registered", block: "version: v5.4.3\n", registered: []string{"v4.5.7"},
			wantErr: "kustomize version v5.4.3 is not registered"},
		{name: "nothing registered", block: "version: v5.4.3\n", wantErr: "kustomize version v5.4.3 is not registered"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &config.Config{RepoURL: "https://git.example.com/r.git"}
			cfg.Argo.Kustomize.Versions = tt.registered
			app := App{Env: "qa", Name: "web"}
			src := Source{RepoURL: cfg.RepoURL, Path: "k", Kind: KindKustomize, Kustomize: []byte(tt.block)}
			_, err := app.Resolve(src, ResolveOptions{Config: cfg, Revision: "1"})
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrKustomizeVersion) || err.Error() != "env qa, app web, kustomize source k: "+tt.wantErr {
				t.Fatalf("err = %v, want %q (ErrKustomizeVersion)", err, tt.wantErr)
			}
		})
	}
}

func TestHelmVersionMustBeSupported(t *testing.T) {
	for v, want := range map[string]string{"": "", "v3": "", "v4": "",
		"v2": "env qa, app web, chart c version 1.0.0: helm version 'v2' is not supported",
		"3":  "env qa, app web, chart c version 1.0.0: helm version '3' is not supported"} {
		cfg := &config.Config{RepoURL: "https://git.example.com/r.git"}
		src := Source{RepoURL: "https://charts.example.com", Chart: "c", TargetRevision: "1.0.0", Kind: KindHelm, Helm: &Helm{Version: v}}
		_, err := App{Env: "qa", Name: "web"}.Resolve(src, ResolveOptions{Config: cfg, Revision: "1.0.0"})
		switch {
		case want == "" && err != nil:
			t.Errorf("version %q: %v", v, err)
		case want != "" && (!errors.Is(err, ErrHelmVersion) || err.Error() != want):
			t.Errorf("version %q: err = %v, want %q (ErrHelmVersion)", v, err, want)
		}
	}
}

package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ParseDeployment reads the argocd block and the capabilities of any
// revision's file, strict inside the argocd block, blind to the rest (an
// older file's keys this version dropped, a half-written component).
func TestParseDeployment(t *testing.T) {
	schemes := "https"
	for _, tc := range []struct {
		name, data string
		want       Deployment
		err        string
	}{
		{"absent: the defaults", "repoURL: x\n", Deployment{}, ""},
		{"every setting", "kubeVersion: v1.31.0\napiVersions: [a/v1]\nargocd:\n  version: '3.4'\n  tracking: label\n  instanceLabelKey: k\n  namespace: ops\n" +
			"  helm: {valuesFileSchemes: https}\n  kustomize: {buildOptions: --enable-helm}\n  applicationSet: {newGitFileGlobbing: true}\n",
			Deployment{KubeVersion: "v1.31.0", APIVersions: []string{"a/v1"}, Argo: ArgoCD{Version: "3.4", Tracking: "label", InstanceLabelKey: "k", Namespace: "ops",
				Helm: ArgoHelm{ValuesFileSchemes: &schemes}, Kustomize: ArgoKustomize{BuildOptions: "--enable-helm"}, ApplicationSet: ArgoApplicationSet{NewGitFileGlobbing: true}}}, ""},
		{"other keys unknown to this version are ignored", "gone: [1]\ncomponents: 5\nargocd: {version: '3.5'}\n", Deployment{Argo: ArgoCD{Version: "3.5"}}, ""},
		{"a typo in the argocd block is an error", "argocd: {verison: '3.4'}\n", Deployment{}, "field verison not found"},
		{"validated as Parse validates", "x: 1\nargocd:\n  version: banana\n", Deployment{}, ".promote.yaml:3: argocd.version"},
		{"not YAML", "argocd: [\n", Deployment{}, "parsing .promote.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDeployment([]byte(tc.data))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestWithDeployment(t *testing.T) {
	c := &Config{RepoURL: "r", Ignore: []string{"x"}, KubeVersion: "1.30.0", Argo: ArgoCD{Version: "3.6"}}
	base := c.WithDeployment(Deployment{KubeVersion: "1.29.0", Argo: ArgoCD{Version: "3.4"}})
	if base.Argo.HelmMajor() != 3 || base.KubeVersion != "1.29.0" || base.RepoURL != "r" || base.Ignore[0] != "x" {
		t.Errorf("base = %+v", base)
	}
	if c.Argo.HelmMajor() != 4 || c.KubeVersion != "1.30.0" {
		t.Errorf("the head config changed: %+v", c)
	}
	if c.Deployment().Same(base.Deployment()) || !c.Deployment().Same(c.WithDeployment(c.Deployment()).Deployment()) {
		t.Error("Same is wrong")
	}
}

// FuzzParseDeployment: any bytes give deployment settings Parse would
// accept, or a one-line error; never a panic.
func FuzzParseDeployment(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte("argocd: {version: '3.4', tracking: label, helm: {valuesFileSchemes: ''}}\nkubeVersion: v1.31.0\n"))
	f.Add([]byte("argocd: [\n"))
	f.Add([]byte("argocd: 5\napiVersions: {a: 1}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseDeployment(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err)
			}
			return
		}
		if err := d.Argo.validate(locator{}); err != nil {
			t.Fatalf("accepted invalid settings %+v: %v", d.Argo, err)
		}
	})
}

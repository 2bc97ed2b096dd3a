//go:build bundled

package render

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/argo"
	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/testutil/toolbin"
)

// echoChart prints everything an Argo CD resolution decides: values
// (after files, parameters and file parameters), the release, and the
// capabilities.
var echoChart = map[string]string{
	"Chart.yaml":      "apiVersion: v2\nname: echo\nversion: 0.1.0\n",
	"values.yaml":     "from: chart\n",
	"ci/b.yaml":       "from: ci-b\nci: b\n",
	"ci/a.yaml":       "from: ci-a\nci: a\n",
	"ci/deep/c.yaml":  "deep: c\n",
	"values-one.yaml": "one: 1\n",
	"templates/cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata: {name: {{ .Release.Name }}, namespace: {{ .Release.Namespace }}}
data:
  values: {{ toYaml .Values | quote }}
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
  widgets: {{ .Capabilities.APIVersions.Has "example.com/v1" | quote }}
  gadgets: {{ .Capabilities.APIVersions.Has "gadgets.example.com/v2" | quote }}
`,
}

type chartBytesFetcher []byte

func (c chartBytesFetcher) Fetch(context.Context, string, string, string) ([]byte, error) {
	return c, nil
}

// TestArgoResolutionParity renders a Helm source through argo's
// resolution and HelmSource, and compares with the real helm binary that
// the configured Argo CD bundles (helm 3 for 3.4, helm 4 for 3.6), run
// with the command line Argo CD's repo-server builds for the same
// Application (written out by hand from its rules): the build
// environment in parameter values and value file paths ($$ escaping),
// value file globs in Argo CD's order with an explicit file keeping its
// place, a `$ref` file parameter, and source capabilities replacing the
// config's.
func TestArgoResolutionParity(t *testing.T) {
	for _, tc := range []struct {
		argo string
		tool toolbin.Tool
	}{{"3.4", toolbin.Helm3}, {"3.6", toolbin.Helm4}} {
		t.Run("argo cd "+tc.argo, func(t *testing.T) { checkArgoResolutionParity(t, tc.argo, tc.tool) })
	}
}

func checkArgoResolutionParity(t *testing.T, argoVersion string, tool toolbin.Tool) {
	bin := toolbin.Path(t, tool)
	const repoURL = "https://git.example.org/fleet.git"
	repo := fstest.MapFS{
		"values/glob/20-b.yaml":     {Data: []byte("glob: b\nlayer: b\n")},
		"values/glob/10-a.yaml":     {Data: []byte("glob: a\nlayer: a\n")},
		"values/glob/sub/30-c.yaml": {Data: []byte("layer: c-sub\n")},
		"values/glob/README.md":     {Data: []byte("not matched\n")},
		"values/guestbook.yaml":     {Data: []byte("named: by-app-name\n")},
		"files/guestbook/motd.txt":  {Data: []byte("hello from $values\n")},
		"values/explicit.yaml":      {Data: []byte("layer: explicit\n")},
		"values/glob/explicit.yaml": {Data: []byte("layer: explicit-in-glob\n")},
	}
	cfg := &config.Config{RepoURL: repoURL, KubeVersion: "v1.31.0", APIVersions: []string{"gadgets.example.com/v2"},
		Argo: config.ArgoCD{Version: argoVersion}}
	src := argo.Source{RepoURL: "https://charts.example.org", Chart: "echo", TargetRevision: "0.1.0", Kind: argo.KindHelm,
		Helm: &argo.Helm{
			ValueFiles: []string{"ci/*.yaml", "$values/values/glob/*.yaml", "$values/values/$ARGOCD_APP_NAME.yaml",
				"$values/values/glob/explicit.yaml", "values-one.yaml", "ci/**/*.yaml"},
			Parameters: []argo.Parameter{
				{Name: "electionID", Value: "$ARGOCD_APP_NAME-leader"},
				{Name: "ns", Value: "${ARGOCD_APP_NAMESPACE}/$ARGOCD_APP_PROJECT_NAME"},
				{Name: "price", Value: "$$5 and $UNKNOWN.", ForceString: true},
				{Name: "rev", Value: "$ARGOCD_APP_REVISION_SHORT"},
			},
			FileParameters: []argo.FileParameter{{Name: "motd", Path: "$values/files/$ARGOCD_APP_NAME/motd.txt"}},
			KubeVersion:    "1.29.4",
			APIVersions:    []string{"example.com/v1"},
		}}
	ref := argo.Source{RepoURL: repoURL, Ref: "values", Kind: argo.KindRef}
	app := argo.App{Env: "prod", Name: "guestbook", Namespace: "shop", Project: "retail", Sources: []argo.Source{src, ref}}

	req, err := app.Resolve(src, argo.ResolveOptions{Config: cfg, FS: repo, Revision: "0.1.0"})
	if err != nil {
		t.Fatal(err)
	}
	chartDir := writeChartDir(t, echoChart)
	tgz := packageDir(t, chartDir)
	got, err := HelmSource{}.Render(context.Background(), Input{FS: repo, Charts: chartBytesFetcher(tgz)}, req)
	if err != nil {
		t.Fatal(err)
	}

	// What the repo-server runs: helm template in the extracted chart with
	// absolute value file paths in its resolved order.
	repoDir := t.TempDir()
	for name, f := range repo {
		p := filepath.Join(repoDir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := func(p string) string { return filepath.Join(repoDir, p) }
	c := func(p string) string { return filepath.Join(chartDir, p) }
	args := []string{"template", chartDir, "--name-template", "guestbook", "--namespace", "shop", "--kube-version", "1.29.4",
		"--set", "electionID=guestbook-leader", "--set", "ns=shop/retail", "--set", "rev=0.1.0",
		"--set-string", "price=$5 and .",
		"--set-file", "motd=" + r("files/guestbook/motd.txt"),
		"--values", c("ci/a.yaml"), "--values", c("ci/b.yaml"),
		"--values", r("values/glob/10-a.yaml"), "--values", r("values/glob/20-b.yaml"),
		"--values", r("values/guestbook.yaml"), "--values", r("values/glob/explicit.yaml"),
		"--values", c("values-one.yaml"), "--values", c("ci/deep/c.yaml"),
		"--api-versions", "example.com/v1", "--include-crds"}
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"HOME=" + t.TempDir(), "KUBECONFIG=/nonexistent"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	want, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm template: %v\n%s", err, stderr.String())
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("HelmSource differs from helm template with Argo CD's arguments (-helm +ours):\n%s", diff)
	}
	for _, s := range []string{"electionID: guestbook-leader", "price: $5 and .", "hello from $values", `widgets: "true"`, `gadgets: "false"`} {
		if !bytes.Contains(got, []byte(s)) {
			t.Errorf("output lacks %q:\n%s", s, got)
		}
	}
}

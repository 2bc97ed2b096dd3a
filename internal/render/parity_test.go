package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// helmBuildDir holds the helm binary built for parity; TestMain removes it.
var helmBuildDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if helmBuildDir != "" {
		os.RemoveAll(helmBuildDir)
	}
	os.Exit(code)
}

// helmBinary builds the real helm CLI (helm.sh/helm/v3/cmd/helm) at the
// versions in this repository's go.mod, once per test binary. The build
// runs in a scratch copy of go.mod/go.sum, because cmd/helm needs a few
// modules (gofrs/flock, Masterminds/vcs, go-md2man) this module never
// imports and the repository's own go.sum must not change.
var helmBinary = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	gomod := strings.TrimSpace(string(out))
	dir, err := os.MkdirTemp("", "render-helm-")
	if err != nil {
		return "", err
	}
	helmBuildDir = dir
	mod, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	sum, err := os.ReadFile(filepath.Join(filepath.Dir(gomod), "go.sum"))
	if err != nil {
		return "", err
	}
	mod = regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(mod, []byte("module helmparity"))
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), mod, 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "helm")
	cmd := exec.Command("go", "build", "-mod=mod", "-o", bin, "helm.sh/helm/v3/cmd/helm")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build helm: %w\n%s", err, out)
	}
	return bin, nil
})

// helmTemplate runs `helm template` with the arguments Argo CD's
// repo-server passes for req, in a sandbox without kubeconfig,
// repositories or plugins. A failure returns the CLI's error message.
func helmTemplate(t *testing.T, bin string, req Request) ([]byte, error) {
	t.Helper()
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cmd := exec.Command(bin, argoArgs(req, write)...)
	cmd.Dir = dir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + dir,
		"HELM_CACHE_HOME=" + dir + "/cache", "HELM_CONFIG_HOME=" + dir + "/config",
		"HELM_DATA_HOME=" + dir + "/data", "KUBECONFIG=" + dir + "/no-kubeconfig",
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimPrefix(stderr.String(), "Error: ")
		msg, _, _ = strings.Cut(msg, "Use --debug flag")
		return nil, errors.New(oneLine(msg))
	}
	return stdout.Bytes(), nil
}

// argoArgs is the command line Argo CD's util/helm/cmd.go builds, with
// value files written through write.
func argoArgs(req Request, write func(name string, data []byte) string) []string {
	args := []string{"template", write("chart.tgz", req.Chart), "--name-template", releaseName(req)}
	if req.Namespace != "" {
		args = append(args, "--namespace", req.Namespace)
	}
	kv := req.KubeVersion
	if kv == "" {
		kv = DefaultKubeVersion() // a source-built helm would say v1.20.0
	}
	args = append(args, "--kube-version", kv)
	for _, p := range req.Parameters {
		flag := "--set"
		if p.ForceString {
			flag = "--set-string"
		}
		args = append(args, flag, p.Name+"="+escapeParameter(p.Value))
	}
	for i, f := range req.FileParameters {
		args = append(args, "--set-file", f.Name+"="+escapeParameter(write(fmt.Sprintf("file-param-%d", i), f.Data)))
	}
	for i, f := range req.ValueFiles {
		args = append(args, "--values", write(fmt.Sprintf("values-%d.yaml", i), f.Data))
	}
	if len(req.Values) > 0 {
		args = append(args, "--values", write("extra-values.yaml", req.Values))
	}
	for _, v := range req.APIVersions {
		args = append(args, "--api-versions", v)
	}
	for _, f := range []struct {
		flag string
		on   bool
	}{
		{"--include-crds", !req.SkipCrds},
		{"--skip-schema-validation", req.SkipSchemaValidation},
		{"--skip-tests", req.SkipTests},
	} {
		if f.on {
			args = append(args, f.flag)
		}
	}
	return args
}

// TestHelmParity proves Helm's output is byte for byte what the real helm
// CLI prints for the same inputs, and that both fail on the same inputs.
func TestHelmParity(t *testing.T) {
	bin, err := helmBinary()
	if err != nil {
		t.Fatalf("parity needs the real helm binary: %v", err)
	}
	for _, tc := range parityCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			want, wantErr := helmTemplate(t, bin, tc.req)
			got, gotErr := Helm(context.Background(), tc.req)
			if (wantErr != nil) != (gotErr != nil) {
				t.Fatalf("helm CLI error = %v\nHelm() error = %v", wantErr, gotErr)
			}
			if tc.wantErr != (gotErr != nil) {
				t.Fatalf("error = %v, want error %v", gotErr, tc.wantErr)
			}
			if wantErr != nil {
				// The CLI words some context differently; its root cause
				// (the text after the last colon) must be in ours.
				cause := wantErr.Error()[strings.LastIndex(wantErr.Error(), ": ")+2:]
				if !strings.Contains(gotErr.Error(), cause) {
					t.Errorf("error %q lacks the CLI's cause %q", gotErr, cause)
				}
				return
			}
			if len(bytes.TrimSpace(got)) == 0 {
				t.Fatalf("empty output")
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("Helm() differs from helm template (-cli +ours):\n%s", diff)
			}
		})
	}
}

type parityCase struct {
	name    string
	req     Request
	wantErr bool // both must fail; guards against two empty successes
}

func parityCases(t *testing.T) []parityCase {
	demo := chartBytes(t, "demo")
	sub := chartBytes(t, "subchart")
	subExtra, err := os.ReadFile("testdata/charts/subchart/extra_values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cases := []parityCase{
		{"demo defaults", Request{Chart: demo}, false},
		{"demo all inputs", Request{
			ReleaseName: "shop", Namespace: "qa", Chart: demo,
			ValueFiles: []NamedBytes{
				{"envs/common.yaml", []byte("env: common\nreplicas: 2\nimage: {tag: '2.0'}\n")},
				{"envs/qa.yaml", []byte("env: qa\nhosts: [qa1.example.com, qa2.example.com]\n")},
			},
			Values: []byte("replicas: 3\nimage:\n  repository: registry.example.com/nginx\n"),
			Parameters: []Parameter{
				{Name: "image.tag", Value: "1.2,3"},
				{Name: "password", Value: "12345", ForceString: true},
				{Name: "hosts", Value: "{x.example.com,y.example.com}"},
				{Name: "replicas", Value: "5"},
			},
			KubeVersion: "1.29.4", APIVersions: []string{"example.com/v1", "example.com/v1/Widget"},
		}, false},
		{"demo file parameters", Request{Chart: demo,
			Parameters: []Parameter{{Name: "image.tag", Value: "from-set"}, {Name: "env", Value: "from-set-string", ForceString: true}},
			FileParameters: []NamedBytes{
				{"image.tag", []byte("from-file")},          // --set-file wins over --set
				{"env", []byte("line one\nline: two, 3\n")}, // multi-line, colon, comma: a string
				{"hosts[1]", []byte("z.example.com")},
			}}, false},
		{"demo skip crds and tests", Request{Chart: demo, SkipCrds: true, SkipTests: true}, false},
		{"demo template failure", Request{Chart: demo, Parameters: []Parameter{{Name: "fail", Value: "true"}}}, true},
		{"demo bad kube version", Request{Chart: demo, KubeVersion: "banana"}, true},
		{"subchart extra values", Request{Chart: sub, Namespace: "ns",
			ValueFiles: []NamedBytes{{"extra_values.yaml", subExtra}}}, false},
		{"subchart skip tests", Request{Chart: sub, SkipTests: true, SkipCrds: true}, false},
	}
	for _, c := range []struct {
		name    string
		wantErr bool
	}{
		{"alpine", false}, {"object-order", false}, {"chart-with-lib-dep", false},
		{"chart-with-only-crds", false}, {"chart-with-secret", false}, {"subpop", false},
		{"frobnitz-1.2.3.tgz", true}, {"chart-with-template-with-invalid-yaml", true},
		{"chart-with-schema-negative", true},
	} {
		cases = append(cases, parityCase{c.name, Request{Chart: chartBytes(t, c.name), ReleaseName: "rel"}, c.wantErr})
	}
	cases = append(cases,
		parityCase{"library chart", Request{Chart: demoVariant(t, "type: library\n")}, true},
		parityCase{"missing dependency", Request{Chart: demoVariant(t, missingDependency)}, true},
		parityCase{"schema negative skipped", Request{
			Chart: chartBytes(t, "chart-with-schema-negative"), SkipSchemaValidation: true}, false},
	)
	return cases
}

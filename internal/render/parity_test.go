//go:build bundled

package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/testutil/toolbin"
)

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
		if strings.HasPrefix(msg, "panic: ") {
			msg, _, _ = strings.Cut(msg, "\n") // the goroutine dump is noise
		}
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
	if req.KubeVersion != "" {
		args = append(args, "--kube-version", req.KubeVersion)
	}
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

// TestHelmParity proves that each renderer's output is byte for byte
// what the released helm binary of its major prints for the same inputs,
// and that both fail on the same inputs.
func TestHelmParity(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the real helm binaries; run without -short")
	}
	cases := parityCases(t)
	for _, m := range helmMajors {
		t.Run(m.name, func(t *testing.T) {
			bin := toolbin.Path(t, m.tool)
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) { checkParity(t, m, bin, tc) })
			}
		})
	}
}

// checkParity renders tc with the binary and with m's renderer and fails
// on any difference, or when the failure is not the one tc expects.
func checkParity(t *testing.T, m helmMajor, bin string, tc parityCase) []byte {
	t.Helper()
	want, wantErr := helmTemplate(t, bin, tc.req)
	got, gotErr := recovering(m.render)(context.Background(), tc.req)
	if (wantErr != nil) != (gotErr != nil) {
		t.Fatalf("helm CLI error = %v\nour error = %v", wantErr, gotErr)
	}
	if expect := tc.wantErr&m.errOn != 0; expect != (gotErr != nil) {
		t.Fatalf("error = %v, want error %v", gotErr, expect)
	}
	if wantErr != nil {
		// The CLI words some context differently; its root cause (the
		// text after the last ": ") must be in ours, as is or with the
		// input values (the chart's own defaults among them) masked as ours
		// masks them (docs/security.md).
		cause := wantErr.Error()[strings.LastIndex(wantErr.Error(), ": ")+2:]
		masked := inputSecrets(tc.req, chartOf(tc.req)).Foreign(cause)
		if !strings.Contains(gotErr.Error(), cause) && !strings.Contains(gotErr.Error(), masked) {
			t.Errorf("error %q lacks the CLI's cause %q (masked: %q)", gotErr, cause, masked)
		}
		return nil
	}
	if len(bytes.TrimSpace(got)) == 0 {
		t.Fatalf("empty output")
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs from helm template (-cli +ours):\n%s", m.name, diff)
	}
	return want
}

type parityCase struct {
	name    string
	req     Request
	wantErr errOn // the majors that must fail; guards against two empty successes
}

func parityCases(t *testing.T) []parityCase {
	demo := chartBytes(t, "demo")
	sub := chartBytes(t, "subchart")
	subExtra, err := os.ReadFile("testdata/charts/subchart/extra_values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cases := []parityCase{
		{"demo defaults", Request{Chart: demo}, errNone},
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
		}, errNone},
		{"demo file parameters", Request{Chart: demo,
			Parameters: []Parameter{{Name: "image.tag", Value: "from-set"}, {Name: "env", Value: "from-set-string", ForceString: true}},
			FileParameters: []NamedBytes{
				{"image.tag", []byte("from-file")},          // --set-file wins over --set
				{"env", []byte("line one\nline: two, 3\n")}, // multi-line, colon, comma: a string
				{"hosts[1]", []byte("z.example.com")},
			}}, errNone},
		{"demo skip crds and tests", Request{Chart: demo, SkipCrds: true, SkipTests: true}, errNone},
		{"demo template failure", Request{Chart: demo, Parameters: []Parameter{{Name: "fail", Value: "true"}}}, errBoth},
		{"demo bad kube version", Request{Chart: demo, KubeVersion: "banana"}, errBoth},
		{"demo bad parameter index", Request{Chart: demo, Parameters: []Parameter{{Name: "hosts[x]", Value: "1"}}}, errBoth},
		{"demo kube version with vendor suffix", Request{Chart: demo, KubeVersion: "v1.30.5-eks-ce1d5eb"}, errNone},
		{"subchart extra values", Request{Chart: sub, Namespace: "ns",
			ValueFiles: []NamedBytes{{"extra_values.yaml", subExtra}}}, errNone},
		{"subchart skip tests", Request{Chart: sub, SkipTests: true, SkipCrds: true}, errNone},
	}
	for _, c := range []struct {
		name    string
		wantErr errOn
	}{
		{"alpine", errNone}, {"object-order", errNone}, {"chart-with-lib-dep", errNone},
		{"chart-with-only-crds", errNone}, {"chart-with-secret", errNone}, {"subpop", errNone},
		{"frobnitz-1.2.3.tgz", errBoth}, {"chart-with-template-with-invalid-yaml", errBoth},
		{"chart-with-schema-negative", errBoth},
	} {
		cases = append(cases, parityCase{c.name, Request{Chart: chartBytes(t, c.name), ReleaseName: "rel"}, c.wantErr})
	}
	cases = append(cases,
		parityCase{"library chart", Request{Chart: demoVariant(t, "type: library\n")}, errBoth},
		parityCase{"missing dependency", Request{Chart: demoVariant(t, missingDependency)}, errBoth},
		parityCase{"schema negative skipped", Request{
			Chart: chartBytes(t, "chart-with-schema-negative"), SkipSchemaValidation: true}, errNone},
	)
	return cases
}

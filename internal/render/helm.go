package render

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/release"
)

// Request is one `helm template` invocation as Argo CD's repo-server builds
// it for a Helm source.
type Request struct {
	// ReleaseName defaults to "release-name", like `helm template`.
	ReleaseName string
	// Namespace defaults to "default", the namespace helm falls back to
	// when Argo CD passes no --namespace.
	Namespace string
	// Chart is a packaged chart (.tgz), dependencies included.
	Chart []byte
	// ChartDir, when set instead of Chart, is a chart directory on disk,
	// loaded as `helm template DIR` loads it (kustomize's helmCharts).
	ChartDir string
	// ValueFiles are applied in order (-f); later files win.
	ValueFiles []NamedBytes
	// Values is helm.values / helm.valuesObject as YAML, applied after
	// ValueFiles like the extra --values file Argo CD writes.
	Values []byte
	// Parameters are helm.parameters (--set / --set-string).
	Parameters []Parameter
	// FileParameters are helm.fileParameters (--set-file): the value at
	// Name is set to Data as a string, after every Parameter.
	FileParameters []NamedBytes
	// SkipCrds drops crds/ from the output; Argo CD passes --include-crds
	// unless skipCrds is set.
	SkipCrds bool
	// SkipTests drops test hooks (--skip-tests, helm.skipTests).
	SkipTests bool
	// NoHooks drops every hook from the output (--no-hooks, kustomize's
	// skipHooks).
	NoHooks bool
	// SkipSchemaValidation disables values.schema.json checks
	// (--skip-schema-validation, helm.skipSchemaValidation).
	SkipSchemaValidation bool
	// KubeVersion is .Capabilities.KubeVersion; "" means DefaultKubeVersion.
	KubeVersion string
	// APIVersions are added to Helm's default API versions.
	APIVersions []string
}

// NamedBytes is the content of one file; Name only appears in errors.
type NamedBytes struct {
	Name string
	Data []byte
}

// Parameter is one helm.parameters entry.
type Parameter struct {
	Name, Value string
	// ForceString selects --set-string instead of --set.
	ForceString bool
}

// Helm renders req.Chart and returns the bytes `helm template` prints for
// the same inputs: the manifests (CRDs first unless SkipCrds) in Helm's
// install order, then every hook as "---\n# Source: <path>\n<manifest>".
// A failure is an *Error whose text never shows an input value.
func Helm(ctx context.Context, req Request) ([]byte, error) {
	out, ch, rerr := helmRender(ctx, req)
	if rerr != nil {
		rerr.secrets = inputSecrets(req, ch)
		return nil, rerr
	}
	return out, nil
}

func helmRender(ctx context.Context, req Request) ([]byte, *chart.Chart, *Error) {
	rerr := &Error{Release: releaseName(req)}
	if err := ctx.Err(); err != nil {
		return nil, nil, rerr.wrap(err)
	}
	ch, err := loadChart3(req)
	if err != nil {
		return nil, nil, rerr.wrap(fmt.Errorf("load chart: %w", err))
	}
	rerr.Chart = ch.Name() + "-" + ch.Metadata.Version
	if err := checkInstallable(ch); err != nil {
		return nil, ch, rerr.wrap(err)
	}
	vals, verr := mergeValues(req, rerr)
	if verr != nil {
		return nil, ch, verr
	}
	client, err := newInstall(req)
	if err != nil {
		return nil, ch, rerr.wrap(err)
	}
	rel, err := client.RunWithContext(ctx, ch, vals)
	if err != nil {
		return nil, ch, rerr.wrap(err)
	}
	return templateOutput(rel, req), ch, nil
}

func loadChart3(req Request) (*chart.Chart, error) {
	if req.ChartDir != "" {
		return loader.Load(req.ChartDir)
	}
	return loadArchive3(req.Chart) // unpacked once per archive (chart_cache.go)
}

// newInstall configures an install action exactly as `helm template`
// configures it, on a fresh Configuration so parallel renders share
// nothing.
func newInstall(req Request) (*action.Install, error) {
	kv := req.KubeVersion
	if kv == "" {
		kv = DefaultKubeVersion()
	}
	parsed, err := chartutil.ParseKubeVersion(kv)
	if err != nil {
		return nil, fmt.Errorf("invalid kube version %q: %w", kv, err)
	}
	cfg := &action.Configuration{Log: func(string, ...interface{}) {}}
	client := action.NewInstall(cfg)
	client.DryRun = true
	client.DryRunOption = "true"
	client.ClientOnly = true
	client.Replace = true
	client.IncludeCRDs = !req.SkipCrds
	client.SkipSchemaValidation = req.SkipSchemaValidation
	client.ReleaseName = releaseName(req)
	client.Namespace = req.Namespace
	if client.Namespace == "" {
		client.Namespace = "default"
	}
	client.KubeVersion = parsed
	// Helm appends these to its defaults (chartutil.DefaultVersionSet, a
	// full slice, so the append copies); our copy keeps the caller's slice
	// out of the release.
	client.APIVersions = chartutil.VersionSet(append([]string(nil), req.APIVersions...))
	return client, nil
}

// checkInstallable repeats the checks `helm template` runs on a chart
// before rendering, so the same charts fail with the same reasons.
func checkInstallable(ch *chart.Chart) error {
	switch ch.Metadata.Type {
	case "", "application":
	default:
		return fmt.Errorf("%s charts are not installable", ch.Metadata.Type)
	}
	if deps := ch.Metadata.Dependencies; deps != nil {
		if err := action.CheckDependencies(ch, deps); err != nil {
			return fmt.Errorf("check chart dependencies: %w", err)
		}
	}
	return nil
}

// templateOutput formats a dry-run release like cmd/helm/template.go.
func templateOutput(rel *release.Release, req Request) []byte {
	var b bytes.Buffer
	fmt.Fprintln(&b, strings.TrimSpace(rel.Manifest))
	if req.NoHooks {
		return b.Bytes()
	}
	for _, h := range rel.Hooks {
		if req.SkipTests && isTestHook(h) {
			continue
		}
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", h.Path, h.Manifest)
	}
	return b.Bytes()
}

func isTestHook(h *release.Hook) bool {
	for _, e := range h.Events {
		if e == release.HookTest {
			return true
		}
	}
	return false
}

func releaseName(req Request) string {
	if req.ReleaseName == "" {
		return "release-name"
	}
	return req.ReleaseName
}

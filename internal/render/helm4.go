package render

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	action4 "helm.sh/helm/v4/pkg/action"
	chart4 "helm.sh/helm/v4/pkg/chart"
	common4 "helm.sh/helm/v4/pkg/chart/common"
	loader4 "helm.sh/helm/v4/pkg/chart/loader"
	release4 "helm.sh/helm/v4/pkg/release/v1"
)

// Helm4 is Helm with the Helm 4 SDK: it returns the bytes `helm template`
// of Helm 4 prints for req, with the arguments Argo CD's repo-server
// passes (see Helm for the format). Argo CD bundles Helm 4 from v3.5 on
// (config.ArgoCD.HelmMajor).
//
// Helm 4.3.1 panics on some charts (apiVersion v3 charts whose
// dependencies index past their dependency list): Render, above every
// engine, turns that into the app's error.
func Helm4(ctx context.Context, req Request) (out []byte, err error) {
	rerr := &Error{Release: releaseName(req)}
	defer func() { withInputs(err, req) }() // its text never shows an input value
	if err := ctx.Err(); err != nil {
		return nil, rerr.wrap(err)
	}
	// Helm 4's template command merges the values before it loads the
	// chart, so a bad value file wins over a bad chart, as there.
	vals, err := mergeValues4(req, rerr)
	if err != nil {
		return nil, err
	}
	ch, err := loadChart4(req)
	if err != nil {
		return nil, rerr.wrap(fmt.Errorf("load chart: %w", err))
	}
	acc, err := chart4.NewAccessor(ch)
	if err != nil {
		return nil, rerr.wrap(fmt.Errorf("load chart: %w", err))
	}
	rerr.Chart = fmt.Sprintf("%s-%v", acc.Name(), acc.MetadataAsMap()["Version"])
	if err := checkInstallable4(ch, acc); err != nil {
		return nil, rerr.wrap(err)
	}
	client, err := newInstall4(req)
	if err != nil {
		return nil, rerr.wrap(err)
	}
	res, err := client.RunWithContext(ctx, ch, vals)
	if err != nil {
		return nil, rerr.wrap(err)
	}
	rel, ok := res.(*release4.Release)
	if !ok {
		return nil, rerr.wrap(fmt.Errorf("helm 4 returned a %T, not a v1 release", res))
	}
	return templateOutput4(rel, req), nil
}

func loadChart4(req Request) (chart4.Charter, error) {
	if req.ChartDir != "" {
		return loader4.Load(req.ChartDir)
	}
	return loadArchive4(req.Chart) // unpacked once per archive (chart_cache.go)
}

// quietHelm4 receives the log records of Helm 4 actions, which would
// otherwise go to the process's default slog logger: progress and
// warnings that `helm template` prints on stderr, never in its output.
var quietHelm4 = slog.NewTextHandler(io.Discard, nil)

// newInstall4 configures an install action as Helm 4's `helm template`
// does, on a fresh Configuration so parallel renders share nothing.
func newInstall4(req Request) (*action4.Install, error) {
	kv := req.KubeVersion
	if kv == "" {
		kv = DefaultKubeVersion()
	}
	parsed, err := common4.ParseKubeVersion(kv)
	if err != nil {
		return nil, fmt.Errorf("invalid kube version %q: %w", kv, err)
	}
	client := action4.NewInstall(action4.NewConfiguration(action4.ConfigurationSetLogger(quietHelm4)))
	client.DryRunStrategy = action4.DryRunClient
	client.Replace = true
	client.IncludeCRDs = !req.SkipCrds
	client.SkipSchemaValidation = req.SkipSchemaValidation
	client.ReleaseName = releaseName(req)
	client.Namespace = req.Namespace
	if client.Namespace == "" {
		client.Namespace = "default"
	}
	client.KubeVersion = parsed
	// Helm appends these to its defaults (a fresh slice: the append
	// copies); our copy keeps the caller's slice out of the release.
	client.APIVersions = common4.VersionSet(slices.Clone(req.APIVersions))
	return client, nil
}

// checkInstallable4 repeats the checks Helm 4's `helm template` runs on a
// chart before rendering, so the same charts fail with the same reasons.
func checkInstallable4(ch chart4.Charter, acc chart4.Accessor) error {
	switch t := acc.MetadataAsMap()["Type"]; t {
	case nil, "", "application":
	default:
		return fmt.Errorf("%v charts are not installable", t)
	}
	if deps := acc.MetaDependencies(); len(deps) > 0 {
		if err := action4.CheckDependencies(ch, deps); err != nil {
			return fmt.Errorf("check chart dependencies: %w", err)
		}
	}
	return nil
}

// templateOutput4 formats a dry-run release like Helm 4's pkg/cmd/template.go
// (the same layout as Helm 3's).
func templateOutput4(rel *release4.Release, req Request) []byte {
	var b bytes.Buffer
	fmt.Fprintln(&b, strings.TrimSpace(rel.Manifest))
	if req.NoHooks {
		return b.Bytes()
	}
	for _, h := range rel.Hooks {
		if req.SkipTests && slices.Contains(h.Events, release4.HookTest) {
			continue
		}
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", h.Path, h.Manifest)
	}
	return b.Bytes()
}

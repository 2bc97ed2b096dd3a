package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/Masterminds/semver/v3"
	action3 "helm.sh/helm/v3/pkg/action"
	chartutil3 "helm.sh/helm/v3/pkg/chartutil"
	action4 "helm.sh/helm/v4/pkg/action"
	chartutil4 "helm.sh/helm/v4/pkg/chart/v2/util"

	"github.com/gitops-promote/gitops-promote/internal/charts"
	"github.com/gitops-promote/gitops-promote/internal/render/kustomizehelm"
)

// KustomizeHelm is what a kustomize build needs to inflate helmCharts
// with --enable-helm as Argo CD's repo-server does, where kustomize runs
// the helm binary of Argo CD's image: here the Helm SDK of that binary's
// major answers kustomize's helm commands (internal/render/kustomizehelm)
// and charts come through the run's chart fetcher.
type KustomizeHelm struct {
	// Charts fetches the charts kustomize pulls; a ChartVersionLister
	// also resolves versions that are not exact (none, a range, --devel).
	Charts ChartFetcher
	// Major is the Helm major of Argo CD's image (3 or 4; 0 means 4).
	Major int
	// KubeVersion and APIVersions are the capabilities Argo CD appends as
	// --helm-kube-version and --helm-api-versions when the build options
	// contain --enable-helm; they override a chart's own kubeVersion and
	// apiVersions, as kustomize's flags do.
	KubeVersion string
	APIVersions []string
}

// ChartVersionLister lists a chart's versions, newest first
// (charts.Client does).
type ChartVersionLister interface {
	Versions(ctx context.Context, repoURL, chart string) ([]string, error)
}

// kustomizeHelmBackend answers the helm commands of one build, on the
// files of its staged copy only (jail): a chart home, chart or values file
// elsewhere is refused with ErrOutsideRepo (helmpaths.go).
type kustomizeHelmBackend struct {
	KustomizeHelm
	jail *confinement
}

func (b kustomizeHelmBackend) Version() string {
	if b.Major == 3 {
		return helm3Version
	}
	return helm4Version
}

// Pull is `helm pull --untar`: resolve the version as helm does against
// the repository's index or tags, fetch through the chart fetcher, and
// extract as helm does (the chart's own name below UntarDir, refused when
// UntarDir/<chart argument> exists).
func (b kustomizeHelmBackend) Pull(ctx context.Context, p kustomizehelm.Pull) error {
	repo, name := p.Repo, p.Chart
	if rest, ok := strings.CutPrefix(p.Chart, "oci://"); ok {
		i := strings.LastIndex(rest, "/")
		if i < 0 {
			return fmt.Errorf("chart %s: no repository in the reference", p.Chart)
		}
		repo, name = "oci://"+rest[:i], rest[i+1:]
	}
	what := fmt.Sprintf("helm chart %s version %s from %s", name, firstNonEmpty(p.Version, "(latest)"), repoHost(repo))
	if err := validChartName(name); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	ud, err := b.jail.check(p.UntarDir)
	if err != nil {
		return fmt.Errorf("%s: untar directory: %w", what, err)
	}
	if repo == "" {
		return fmt.Errorf("%s: kustomize names no repository", what)
	}
	if b.Charts == nil {
		return fmt.Errorf("%s: no chart source to pull from", what)
	}
	version, err := b.resolve(ctx, repo, name, p.Version)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	data, err := b.Charts.Fetch(ctx, repo, name, version)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	check := filepath.Join(ud, name)
	if err := archiveChartName(data); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if _, err := os.Stat(check); err == nil {
		return fmt.Errorf("%s: failed to untar: a file or directory with the name %s already exists", what, check)
	}
	if err := os.MkdirAll(check, 0o755); err != nil {
		return fmt.Errorf("%s: failed to untar (mkdir): %w", what, err)
	}
	if err := checkArchive(data); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if b.Major == 3 {
		err = chartutil3.Expand(ud, bytes.NewReader(data))
	} else {
		err = chartutil4.Expand(ud, bytes.NewReader(data))
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// resolve picks the version helm pulls for want: an entry spelled exactly
// so, else the newest that satisfies want as a constraint ("*", stable
// versions only, when want is empty).
func (b kustomizeHelmBackend) resolve(ctx context.Context, repo, chart, want string) (string, error) {
	lister, ok := b.Charts.(ChartVersionLister)
	if !ok {
		if _, err := semver.StrictNewVersion(strings.TrimPrefix(want, "v")); err == nil {
			return want, nil
		}
		return "", fmt.Errorf("version %q needs the repository's version list, which this chart source cannot give", want)
	}
	versions, err := lister.Versions(ctx, repo, chart)
	if err != nil {
		return "", err
	}
	return pickVersion(versions, want)
}

// pickVersion is helm's choice among versions (newest first), shared by
// an HTTP repository's index and an OCI repository's tags.
func pickVersion(versions []string, want string) (string, error) {
	c := "*"
	if want != "" {
		for _, v := range versions {
			if v == want {
				return v, nil
			}
		}
		c = want
	}
	constraint, err := semver.NewConstraint(c)
	if err != nil {
		return "", fmt.Errorf("invalid version %q: %w", want, err)
	}
	for _, v := range versions {
		if sv, err := semver.NewVersion(v); err == nil && constraint.Check(sv) {
			return v, nil
		}
	}
	newest := versions[:min(len(versions), 5)]
	return "", fmt.Errorf("no version matching %q among the %d published (newest: %s): %w", firstNonEmpty(want, "*"), len(versions),
		firstNonEmpty(strings.Join(newest, ", "), "none"), charts.ErrVersionNotFound)
}

// Template is `helm template` on the chart directory kustomize names,
// with the release name helm's template command picks (a NAME argument,
// else --name-template, else "release-name": helm template never honours
// --generate-name, which kustomize passes when it has no releaseName).
func (b kustomizeHelmBackend) Template(ctx context.Context, t kustomizehelm.Template) ([]byte, error) {
	name, chartPath, err := b.nameAndChart(t)
	if err != nil {
		return nil, err
	}
	if err := validReleaseName(name); err != nil {
		return nil, err
	}
	chartPath, err = b.jail.check(chartPath)
	if err != nil {
		return nil, fmt.Errorf("chart: %w", err)
	}
	if _, err := os.Stat(chartPath); err != nil {
		return nil, fmt.Errorf("chart %s: %w", b.jail.name(chartPath), errors.Unwrap(err))
	}
	req := Request{ReleaseName: name, Namespace: t.Namespace, ChartDir: chartPath,
		SkipCrds: !t.IncludeCRDs, SkipTests: t.SkipTests, NoHooks: t.NoHooks,
		KubeVersion: t.KubeVersion, APIVersions: t.APIVersions}
	for _, f := range t.ValueFiles {
		f, err := b.valuesFile(f, chartPath)
		if err != nil {
			return nil, err
		}
		data, err := os.ReadFile(f)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the path is kustomize's temporary file
			}
			return nil, fmt.Errorf("values file %s: %w", filepath.Base(f), err)
		}
		req.ValueFiles = append(req.ValueFiles, NamedBytes{Name: filepath.Base(f), Data: data})
	}
	return HelmFor(b.Major)(ctx, req)
}

func (b kustomizeHelmBackend) nameAndChart(t kustomizehelm.Template) (string, string, error) {
	if b.Major == 3 {
		i := action3.NewInstall(&action3.Configuration{})
		i.ReleaseName, i.GenerateName, i.NameTemplate = "release-name", t.GenerateName, t.NameTemplate
		return i.NameAndChart(t.Args)
	}
	i := action4.NewInstall(action4.NewConfiguration(action4.ConfigurationSetLogger(quietHelm4)))
	i.ReleaseName, i.GenerateName, i.NameTemplate = "release-name", t.GenerateName, t.NameTemplate
	return i.NameAndChart(t.Args)
}

// repoHost names a chart repository in errors: its host, never a
// credential written into its URL.
func repoHost(repo string) string {
	u, err := url.Parse(repo)
	if err != nil || u.Host == "" {
		return "(unparsable repository URL)"
	}
	return u.Host
}

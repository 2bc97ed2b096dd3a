package render

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/provenance"
	"sigs.k8s.io/yaml"
)

// versionLister lists a chart's versions in a repository, newest first
// (charts.Client does); version ranges without a Chart.lock need it.
type versionLister interface {
	Versions(ctx context.Context, repoURL, chart string) ([]string, error)
}

// depBuild is `helm dependency build` in a chart directory as Argo CD's
// repo-server runs it: before it, the repo-server has `helm repo add`ed
// each https:// repository the dependencies name (and logged in to OCI
// registries), so those are the configured repositories; any other URL is
// one helm adds on the fly when there is no Chart.lock, and refuses with
// one. With a Chart.lock the locked versions are downloaded (after the
// lock's digest is checked against Chart.yaml); without one the versions
// are resolved from the repositories, newest matching first. Downloaded
// archives go to charts/, replacing the archives there that are not
// dependencies without a repository; local (file://) dependencies are
// packaged from the repository.
type depBuild struct {
	fsys   fs.FS
	dir    string
	charts ChartFetcher
	chart  *chart.Chart
	added  []string // repositories Argo CD `helm repo add`s first
}

// argoAddedRepos lists the https:// repositories of Chart.yaml's
// dependencies: Argo CD reads them from Chart.yaml only (not from a v1
// chart's requirements.yaml) and adds them before running helm.
func argoAddedRepos(files []dirFile) []string {
	var added []string
	for _, f := range files {
		if f.name != "Chart.yaml" {
			continue
		}
		var c struct {
			Dependencies []struct {
				Repository string `json:"repository"`
			} `json:"dependencies"`
		}
		if yaml.Unmarshal(f.data, &c) != nil {
			return nil
		}
		for _, d := range c.Dependencies {
			if u, err := url.Parse(d.Repository); err == nil && u.Scheme == "https" {
				added = append(added, d.Repository)
			}
		}
	}
	return added
}

func (b *depBuild) run(ctx context.Context, files []dirFile) ([]dirFile, error) {
	req := b.chart.Metadata.Dependencies
	lock := b.chart.Lock
	b.added = argoAddedRepos(files)
	if err := b.checkRepos(req); err != nil {
		return nil, err
	}
	var deps []*chart.Dependency
	if lock == nil {
		var err error
		if deps, err = b.resolve(ctx, req); err != nil {
			return nil, err
		}
	} else {
		if err := b.checkLock(req, lock); err != nil {
			return nil, err
		}
		deps = lock.Dependencies
	}
	return b.download(ctx, files, deps)
}

// checkRepos is helm's resolveRepoNames: local paths must exist, and a
// repository must be a URL (or a name Argo CD's settings would have
// added, which cannot be known offline).
func (b *depBuild) checkRepos(req []*chart.Dependency) error {
	var missing []string
	for _, d := range req {
		switch r := d.Repository; {
		case r == "" || strings.HasPrefix(r, "oci://"):
		case strings.HasPrefix(r, "file://"):
			if _, err := b.localPath(r); err != nil {
				return err
			}
		case strings.HasPrefix(r, "@") || strings.HasPrefix(r, "alias:"):
			return fmt.Errorf("dependency %s names repository %s: named repositories come from Argo CD's settings, which cannot be read offline; use the repository URL", d.Name, r)
		default:
			if _, err := url.ParseRequestURI(r); err != nil {
				missing = append(missing, r)
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("no repository definition for %s. Please add them via 'helm repo add'", strings.Join(missing, ", "))
	}
	return nil
}

// checkLock is helm's lock verification: the digest of Chart.yaml's
// dependencies and the lock must match, and every locked repository that
// is neither local nor OCI must be configured (for Argo CD: https).
func (b *depBuild) checkLock(req []*chart.Dependency, lock *chart.Lock) error {
	if sum, err := hashDeps(req, lock.Dependencies); err != nil || sum != lock.Digest {
		v1 := b.chart.Metadata.APIVersion == chart.APIVersionV1
		if !v1 {
			return errors.New("the lock file (Chart.lock) is out of sync with the dependencies file (Chart.yaml). Please update the dependencies")
		}
		if v2, err := hashDepsV2(req); err != nil || v2 != lock.Digest {
			return errors.New("the lock file (requirements.lock) is out of sync with the dependencies file (requirements.yaml). Please update the dependencies")
		}
	}
	var missing []string
	for _, d := range lock.Dependencies {
		r := d.Repository
		if r == "" || strings.HasPrefix(r, "file://") || strings.HasPrefix(r, "oci://") ||
			slices.ContainsFunc(b.added, func(a string) bool { return sameURL(a, r) }) {
			continue
		}
		missing = append(missing, r)
	}
	if len(missing) > 0 {
		return fmt.Errorf("no repository definition for %s", strings.Join(missing, ", "))
	}
	return nil
}

func sameURL(a, b string) bool {
	return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

// hashDeps is helm's lock digest of Chart.yaml's dependencies and the
// lock's.
func hashDeps(req, lock []*chart.Dependency) (string, error) {
	data, err := json.Marshal([2][]*chart.Dependency{req, lock})
	if err != nil {
		return "", err
	}
	s, err := provenance.Digest(bytes.NewBuffer(data))
	return "sha256:" + s, err
}

// hashDepsV2 is the digest Helm 2 wrote into requirements.lock.
func hashDepsV2(req []*chart.Dependency) (string, error) {
	data, err := json.Marshal(map[string][]*chart.Dependency{"dependencies": req})
	if err != nil {
		return "", err
	}
	s, err := provenance.Digest(bytes.NewBuffer(data))
	return "sha256:" + s, err
}

// resolve is helm's resolver: each constraint to the newest version the
// repository (index, OCI tags, or local chart) has that satisfies it.
func (b *depBuild) resolve(ctx context.Context, req []*chart.Dependency) ([]*chart.Dependency, error) {
	locked := make([]*chart.Dependency, len(req))
	var missing []string
	for i, d := range req {
		c, err := semver.NewConstraint(d.Version)
		if err != nil {
			return nil, fmt.Errorf("dependency %q has an invalid version/constraint format: %w", d.Name, err)
		}
		locked[i] = &chart.Dependency{Name: d.Name, Repository: d.Repository, Version: d.Version}
		var found bool
		switch r := d.Repository; {
		case r == "":
			if _, err := b.localPath("charts/" + d.Name); err != nil {
				return nil, err
			}
			continue
		case strings.HasPrefix(r, "file://"):
			sub, err := b.localChart(r)
			if err != nil {
				return nil, err
			}
			if v, err := semver.NewVersion(sub.Metadata.Version); err != nil {
				continue // helm skips a local chart without a version
			} else if found = c.Check(v); found {
				locked[i].Version = sub.Metadata.Version
			}
		case strings.HasPrefix(r, "oci://") && isVersion(d.Version):
			found = true
		default:
			v, err := b.newest(ctx, d, c)
			if err != nil {
				return nil, err
			}
			found, locked[i].Version = v != "", v
		}
		if !found {
			missing = append(missing, fmt.Sprintf("%q (repository %q, version %q)", d.Name, d.Repository, d.Version))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("can't get a valid version for %d subchart(s): %s. Make sure a matching chart version exists in the repo, or change the version constraint in Chart.yaml", len(missing), strings.Join(missing, ", "))
	}
	return locked, nil
}

// newest returns the first of the repository's versions (newest first)
// that satisfies c, "" if none does.
func (b *depBuild) newest(ctx context.Context, d *chart.Dependency, c *semver.Constraints) (string, error) {
	vl, ok := b.charts.(versionLister)
	if !ok && isVersion(d.Version) {
		return d.Version, nil // a pinned version needs no listing: the download checks it
	}
	if !ok {
		return "", fmt.Errorf("dependency %s: resolving %q needs the repository's index, which this chart source cannot list", d.Name, d.Version)
	}
	vs, err := vl.Versions(ctx, d.Repository, d.Name)
	if err != nil {
		return "", fmt.Errorf("dependency %s: %w", d.Name, err)
	}
	for _, s := range vs {
		if v, err := semver.NewVersion(s); err == nil && c.Check(v) {
			return v.Original(), nil
		}
	}
	return "", nil
}

func isVersion(s string) bool {
	_, err := semver.NewVersion(s)
	return err == nil
}

// localPath is helm's GetLocalPath: a file:// path (or charts/<name>)
// relative to the chart directory, which must exist in the repository.
func (b *depBuild) localPath(repo string) (string, error) {
	p := strings.TrimPrefix(repo, "file://")
	full := path.Join(b.dir, p)
	if strings.HasPrefix(p, "/") || full == ".." || strings.HasPrefix(full, "../") {
		return "", fmt.Errorf("directory %s not found: it is %w", p, ErrOutsideRepo)
	}
	if _, err := fs.Stat(b.fsys, full); err != nil {
		return "", fmt.Errorf("directory %s not found", full)
	}
	return full, nil
}

// localChart loads a file:// dependency's directory as helm loads it.
func (b *depBuild) localChart(repo string) (*chart.Chart, error) {
	p, err := b.localPath(repo)
	if err != nil {
		return nil, err
	}
	files, err := readChartDir(b.fsys, p)
	if err != nil {
		return nil, err
	}
	return loader.LoadFiles(loadable(files))
}

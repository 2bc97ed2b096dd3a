package charts

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/scrub"
)

// LoadRepositories reads Helm's repositories.yaml; a missing file has no
// repositories, as for Helm.
func LoadRepositories(path string) ([]Repository, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading chart repositories: %w", err)
	}
	var f struct {
		Repositories []struct {
			Name                  string `yaml:"name"`
			URL                   string `yaml:"url"`
			Username              string `yaml:"username"`
			Password              string `yaml:"password"`
			CertFile              string `yaml:"certFile"`
			KeyFile               string `yaml:"keyFile"`
			CAFile                string `yaml:"caFile"`
			InsecureSkipTLSVerify bool   `yaml:"insecure_skip_tls_verify"`
			PassCredentialsAll    bool   `yaml:"pass_credentials_all"`
		} `yaml:"repositories"`
	}
	if err := yaml.Unmarshal(data, &f); err != nil {
		// the file holds passwords: the parser's quotes of it are masked
		var s scrub.Set
		s.AddYAML(data)
		return nil, fmt.Errorf("reading chart repositories %s: %s", path, oneLine(s.Error(err).Error()))
	}
	out := make([]Repository, 0, len(f.Repositories))
	for _, e := range f.Repositories {
		out = append(out, Repository(e))
	}
	return out, nil
}

// Environment variables the credentials come from, with Helm's and
// docker's names.
const (
	EnvRepositoryConfig = "HELM_REPOSITORY_CONFIG"
	EnvRegistryConfig   = "HELM_REGISTRY_CONFIG"
	EnvUsername         = "HELM_REPO_USERNAME"
	EnvPassword         = "HELM_REPO_PASSWORD"
	EnvPairURL          = "HELM_REPO_URL"
)

// CredentialsFromEnv loads what Helm and docker would use, from the files
// their variables name or their default places: HELM_REPOSITORY_CONFIG
// (repositories.yaml), HELM_REGISTRY_CONFIG (registry/config.json), then
// docker's config.json in DOCKER_CONFIG or ~/.docker, and the pair
// HELM_REPO_USERNAME/HELM_REPO_PASSWORD scoped by HELM_REPO_URL.
func CredentialsFromEnv(getenv func(string) string) (*Credentials, error) {
	cr := &Credentials{RepositoryConfig: firstSet(getenv(EnvRepositoryConfig), helmConfigPath(getenv, "repositories.yaml"))}
	var err error
	if cr.Repositories, err = LoadRepositories(cr.RepositoryConfig); err != nil {
		return nil, err
	}
	for _, p := range []string{firstSet(getenv(EnvRegistryConfig), helmConfigPath(getenv, "registry", "config.json")), dockerConfigPath(getenv)} {
		if p == "" {
			continue
		}
		rc, err := LoadRegistryConfig(p)
		if err != nil {
			return nil, err
		}
		cr.Registries = append(cr.Registries, rc)
	}
	cr.Pair = Auth{Username: getenv(EnvUsername), Password: getenv(EnvPassword), Source: EnvUsername + "/" + EnvPassword}
	if cr.PairURLs, err = ParsePairURLs(getenv(EnvPairURL)); err != nil {
		return nil, err
	}
	return cr, nil
}

// UnscopedWarning is what to tell a user whose pair is Unscoped.
const UnscopedWarning = "HELM_REPO_USERNAME/HELM_REPO_PASSWORD are set without HELM_REPO_URL, so they are sent to no chart repository: " +
	"set HELM_REPO_URL to the repositories they are for (e.g. HELM_REPO_URL=https://charts.example.com)"

// Unscoped reports a pair set without HELM_REPO_URL: it is sent nowhere.
func (cr *Credentials) Unscoped() bool {
	return cr != nil && cr.Pair.set() && len(cr.PairURLs) == 0
}

func firstSet(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// helmConfigPath is Helm's helmpath.ConfigPath: HELM_CONFIG_HOME, else
// $XDG_CONFIG_HOME/helm, else the platform's configuration directory.
func helmConfigPath(getenv func(string) string, elem ...string) string {
	base := getenv("HELM_CONFIG_HOME")
	if base == "" {
		xdg := getenv("XDG_CONFIG_HOME")
		if xdg == "" {
			home := getenv("HOME")
			if home == "" {
				return ""
			}
			xdg = filepath.Join(home, ".config")
			if runtime.GOOS == "darwin" {
				xdg = filepath.Join(home, "Library", "Preferences")
			}
		}
		base = filepath.Join(xdg, "helm")
	}
	return filepath.Join(append([]string{base}, elem...)...)
}

// dockerConfigPath is docker's config.json: in DOCKER_CONFIG, else ~/.docker.
func dockerConfigPath(getenv func(string) string) string {
	if d := getenv("DOCKER_CONFIG"); d != "" {
		return filepath.Join(d, "config.json")
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".docker", "config.json")
	}
	return ""
}

// SecretsFromEnv lists the credentials of every file and variable
// CredentialsFromEnv reads, as user and secret pairs, skipping a file that
// does not parse (its neighbours still count): for a caller that keeps
// them out of what it prints, whatever else failed.
func SecretsFromEnv(getenv func(string) string) [][2]string {
	cr := &Credentials{Pair: Auth{Username: getenv(EnvUsername), Password: getenv(EnvPassword)}}
	if repos, err := LoadRepositories(firstSet(getenv(EnvRepositoryConfig), helmConfigPath(getenv, "repositories.yaml"))); err == nil {
		cr.Repositories = repos
	}
	for _, p := range []string{firstSet(getenv(EnvRegistryConfig), helmConfigPath(getenv, "registry", "config.json")), dockerConfigPath(getenv)} {
		if rc, err := LoadRegistryConfig(p); p != "" && err == nil {
			cr.Registries = append(cr.Registries, rc)
		}
	}
	return cr.Secrets()
}

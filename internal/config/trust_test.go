package config

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

const trustBase = `repoURL: https://gitlab.example.com/org/gitops.git
environments: [qa, prod]
versions: versions/{env}.yaml
manifests: ["argocd/{env}/*.yaml"]
components: {app: {chart: app}}
`

func TestTrustedRoundTrip(t *testing.T) {
	c, err := Parse([]byte(trustBase + `argocd:
  version: "3.4"
  helm: {valuesFileSchemes: "https"}
  kustomize: {buildOptions: --enable-helm}
live: [{env: qa, context: qa-ro}]
ignore: [metadata.labels]
localRepos: ["file:///srv/git/"]
syncReadiness: {kubeVersions: {prod: "1.31"}, severity: {api-deprecated: info}}
`))
	if err != nil {
		t.Fatal(err)
	}
	got := c.Trusted()
	fromFile, err := ParseTrusted([]byte(trustBase + `argocd: {helm: {valuesFileSchemes: "https"}, kustomize: {buildOptions: --enable-helm}}
live: [{env: qa, context: qa-ro}]
ignore: [metadata.labels]
localRepos: ["file:///srv/git/"]
syncReadiness: {kubeVersions: {prod: "1.31"}, severity: {api-deprecated: info}}
unknownKeyOfALaterVersion: true
`))
	if err != nil {
		t.Fatal(err)
	}
	if changed := got.Changed(fromFile); len(changed) != 0 {
		t.Errorf("Parse and ParseTrusted differ on %v", changed)
	}
	plain, _ := Parse([]byte(trustBase))
	mixed := plain.WithTrusted(got)
	if mixed.Argo.Version != "" || mixed.Argo.Kustomize.BuildOptions != "--enable-helm" || mixed.Live[0].Context != "qa-ro" {
		t.Errorf("WithTrusted: %+v", mixed)
	}
	if changed := plain.Trusted().Changed(got); !slices.Equal(changed, []string{"argocd.helm.valuesFileSchemes",
		"argocd.kustomize.buildOptions", "live", "ignore", "localRepos", "syncReadiness"}) {
		t.Errorf("Changed = %v", changed)
	}
	other := got
	other.RepoURL = "https://evil.example/x.git"
	if changed := got.Changed(other); !slices.Equal(changed, []string{"repoURL"}) {
		t.Errorf("Changed = %v, want [repoURL]", changed)
	}
}

func TestLocalReposValidated(t *testing.T) {
	for _, bad := range []string{"/srv/git", "file://srv/git", "file:///srv/../etc", "https://h/x", "file://relative"} {
		_, err := Parse([]byte(trustBase + "localRepos: [\"" + bad + "\"]\n"))
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "localRepos") {
			t.Errorf("%q: %v, want a localRepos error", bad, err)
		}
		if _, err := ParseTrusted([]byte(trustBase + "localRepos: [\"" + bad + "\"]\n")); !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseTrusted %q: %v", bad, err)
		}
	}
	for _, good := range []string{"file:///srv/git/", "file:///srv/git", "file:///"} {
		if _, err := Parse([]byte(trustBase + "localRepos: [\"" + good + "\"]\n")); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
	if _, err := ParseTrusted([]byte("environments: [qa]\n")); !errors.Is(err, ErrInvalid) {
		t.Errorf("no repoURL: %v", err)
	}
}

// A mistyped key names itself, its line and what was meant, in the file's
// terms rather than the decoder's Go type names.
func TestUnknownKeyDidYouMean(t *testing.T) {
	for _, tc := range []struct{ extra, want string }{
		{"version: versions/{env}.yaml\n", `.promote.yaml:6: unknown key "version" (did you mean versions?)`},
		{"argocd: {verison: \"3.5\"}\n", `unknown key "verison" (did you mean version?)`},
		{"argocd: {kustomize: {buildOption: x}}\n", `unknown key "buildOption" (did you mean buildOptions?)`},
		{"zzzqqq: 1\n", `unknown key "zzzqqq" (known keys: repoURL, environments,`},
	} {
		_, err := Parse([]byte(trustBase + tc.extra))
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "rawConfig") {
			t.Errorf("%q: %v, want %q", tc.extra, err, tc.want)
		}
	}
}

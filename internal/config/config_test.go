package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const good = `repoURL: https://gitlab.example.com/org/gitops-repo.git  # this repo
environments: [qa, preprod, prod]
versions: versions/{env}.yaml
manifests:
  - argocd/{env}/*.yaml
components:
  dlt-node.backend: {chart: dlt-backend}
  shared-services: {chart: dlt-shared-services}
`

func TestParseGood(t *testing.T) {
	c, err := Parse([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	want := []Component{
		{Key: "dlt-node.backend", Path: []string{"dlt-node", "backend"}, Chart: "dlt-backend"},
		{Key: "shared-services", Path: []string{"shared-services"}, Chart: "dlt-shared-services"},
	}
	if diff := cmp.Diff(want, c.Components); diff != "" {
		t.Errorf("components (-want +got):\n%s", diff)
	}
	if got := c.VersionsPath("prod"); got != "versions/prod.yaml" {
		t.Errorf("VersionsPath = %q", got)
	}
	if got := c.ManifestGlobs("qa"); !cmp.Equal(got, []string{"argocd/qa/*.yaml"}) {
		t.Errorf("ManifestGlobs = %q", got)
	}
	if c.Previous("prod") != "preprod" || c.Previous("qa") != "" {
		t.Errorf("Previous wrong")
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, edit, want string
	}{
		{"unknown key", good + "extra: 1\n", `unknown key "extra" (known keys: repoURL,`},
		{"unknown component key", strings.Replace(good, "{chart: dlt-backend}", "{chart: dlt-backend, version: 1}", 1), `components.dlt-node.backend: unknown key "version"`},
		{"missing chart", strings.Replace(good, "{chart: dlt-backend}", "{}", 1), "components.dlt-node.backend: chart is required"},
		{"no repoURL", strings.Replace(good, "repoURL: https://gitlab.example.com/org/gitops-repo.git", "repoURL: \"\"", 1), "repoURL is required"},
		{"no env placeholder", strings.Replace(good, "versions/{env}.yaml", "versions/prod.yaml", 1), "must contain {env}"},
		{"duplicate env", strings.Replace(good, "[qa, preprod, prod]", "[qa, qa]", 1), `"qa" is listed twice`},
		{"nested components", good + "  dlt-node: {chart: x}\n", `"dlt-node.backend" is nested inside "dlt-node"`},
		{"not yaml", "repoURL: [\n", "parsing .promote.yaml"},
		{"unquoted flow glob", strings.Replace(good, "manifests:\n  - argocd/{env}/*.yaml", "manifests: [argocd/{env}/*.yaml]", 1), `quote globs with {env} inside [...]`},
		{"components list", strings.Replace(good, "  dlt-node.backend: {chart: dlt-backend}\n  shared-services: {chart: dlt-shared-services}\n", "  - a\n", 1), "components: must be a mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.edit))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			if !strings.HasPrefix(err.Error(), "parsing") && !errors.Is(err, ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestSelectEnvs(t *testing.T) {
	c, err := Parse([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.SelectEnvs([]string{"prod", "qa", "prod", "qa"})
	if err != nil || !cmp.Equal(got, []string{"prod", "qa"}) {
		t.Errorf("SelectEnvs = %v, %v; want [prod qa]", got, err)
	}
	if all, _ := c.SelectEnvs(nil); !cmp.Equal(all, []string{"qa", "preprod", "prod"}) {
		t.Errorf("default = %v", all)
	}
	if _, err := c.SelectEnvs([]string{"staging"}); err == nil || !strings.Contains(err.Error(), `unknown environment "staging"`) {
		t.Errorf("unknown env: %v", err)
	}
}

func TestOrderingSection(t *testing.T) {
	c, err := Parse([]byte(good + "ordering:\n  manualSync: [preprod, prod]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Ordering.IsManualSync("prod") || c.Ordering.IsManualSync("qa") {
		t.Errorf("manualSync = %v", c.Ordering.ManualSync)
	}
	for _, bad := range []string{"ordering:\n  manual: [prod]\n", "ordering:\n  manualSync: [staging]\n"} {
		if _, err := Parse([]byte(good + bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestParseErrorsNameLines: every rule checked after decoding names the
// line it is about, as the decoder's own errors do. A component listed
// twice used to be reported without a line: components are read as a
// node, which keeps repeated keys without complaint.
func TestParseErrorsNameLines(t *testing.T) {
	tests := []struct{ name, edit, want string }{
		{"component twice", good + "  dlt-node.backend: {chart: other}\n",
			`.promote.yaml:9: components: "dlt-node.backend" is listed twice (first at line 7)`},
		{"env twice", strings.Replace(good, "[qa, preprod, prod]", "[qa, preprod,\n  qa]", 1),
			`.promote.yaml:3: environments: "qa" is listed twice (first at line 2)`},
		{"bad env name", strings.Replace(good, "[qa, preprod, prod]", "[qa, 'pre prod']", 1),
			`.promote.yaml:2: environments: "pre prod" is not a valid name`},
		{"no env placeholder", strings.Replace(good, "versions/{env}.yaml", "versions/prod.yaml", 1),
			`.promote.yaml:3: versions: "versions/prod.yaml" must contain {env}`},
		{"bad glob", strings.Replace(good, "  - argocd/{env}/*.yaml", "  - argocd/{env}/*.yaml\n  - 'argocd/[/*.yaml'", 1),
			`.promote.yaml:6: manifests: bad glob "argocd/[/*.yaml"`},
		{"nested component", good + "  dlt-node: {chart: x}\n",
			`.promote.yaml:7: components: "dlt-node.backend" is nested inside "dlt-node"`},
		{"live twice", good + "live:\n  - qa\n  - {env: qa}\n",
			`.promote.yaml:11: live: "qa" is listed twice (first at line 10)`},
		{"live unknown env", good + "live: [staging]\n",
			`.promote.yaml:9: live: "staging" is not one of the environments`},
		{"argocd tracking", good + "argocd:\n  tracking: labels\n",
			`.promote.yaml:10: argocd.tracking: "labels" is not one of`},
		{"ordering", good + "ordering:\n  manualSync: [staging]\n",
			`.promote.yaml:10: ordering.manualSync: unknown environment "staging"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.edit))
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) || !errors.Is(err, ErrInvalid) {
				t.Errorf("err = %v, want it to start with %q", err, tt.want)
			}
		})
	}
}

package versions

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/config"
	"github.com/gitops-promote/gitops-promote/internal/patch"
)

var comps = []config.Component{
	{Key: "dlt-node.backend", Path: []string{"dlt-node", "backend"}, Chart: "dlt-backend"},
	{Key: "backup", Path: []string{"backup"}, Chart: "dlt-backup"},
}

const prodYAML = `# prod
dlt-node:
  backend:
    chartVersion: "3.0.0"   # pinned
    imageTag: v2.0.0
    resources: {cpu: 1}
backup: &b
  chartVersion: "0.3.0"
  imageTag: "v1.1.0"
  extra: keep-me
`

const preprodYAML = `dlt-node:
  backend:
    chartVersion: "3.1.0"
    imageTag: v2.1.0
backup:
  chartVersion: "0.3.0"
  imageTag: "v1.2.0"
`

func mustRead(t *testing.T, path, data string) *File {
	t.Helper()
	f, err := Read(path, []byte(data), comps)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestReadFields(t *testing.T) {
	f := mustRead(t, "versions/prod.yaml", prodYAML)
	got, _ := f.Component("dlt-node.backend")
	want := Component{Key: "dlt-node.backend", Chart: "dlt-backend", Found: true, Fields: []Field{
		{Key: "chartVersion", Value: "3.0.0", Line: 4}, {Key: "imageTag", Value: "v2.0.0", Line: 5},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("component (-want +got):\n%s", diff)
	}
}

func TestReadBadYAML(t *testing.T) {
	_, err := Read("versions/qa.yaml", []byte("a: [\n"), comps)
	if !errors.Is(err, ErrParse) || err.Error() == "" {
		t.Fatalf("err = %v, want ErrParse", err)
	}
}

// A repeated key anywhere in the file (not only in a component) is an
// error naming file:line and the first occurrence: readers disagree about
// which value wins.
func TestReadDuplicateKey(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"dlt-node:\n  backend:\n    imageTag: v1\n    imageTag: v2\n", `versions/qa.yaml:4: key "imageTag" is already defined at line 3`},
		{"backup: {chartVersion: 1.0.0}\nother: 1\nbackup: {chartVersion: 2.0.0}\n", `versions/qa.yaml:3: key "backup" is already defined at line 1`},
		{"notes:\n  a: 1\n  a: 2\n", `versions/qa.yaml:3: key "a" is already defined at line 2`},
	} {
		_, err := Read("versions/qa.yaml", []byte(tt.in), comps)
		if !errors.Is(err, patch.ErrDuplicateKey) || err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Read(%q) = %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestCompare(t *testing.T) {
	src := mustRead(t, "versions/preprod.yaml", preprodYAML)
	dst := mustRead(t, "versions/prod.yaml", prodYAML)
	got, err := Compare(src, dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{
		{Component: "dlt-node.backend", Chart: "dlt-backend", Key: "chartVersion", From: "3.0.0", To: "3.1.0"},
		{Component: "dlt-node.backend", Chart: "dlt-backend", Key: "imageTag", From: "v2.0.0", To: "v2.1.0"},
		{Component: "backup", Chart: "dlt-backup", Key: "imageTag", From: "v1.1.0", To: "v1.2.0"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	only, err := Compare(src, dst, []string{"backup"})
	if err != nil || len(only) != 1 || only[0].Component != "backup" {
		t.Errorf("--only backup: %v %v", only, err)
	}
}

func TestCompareMissingInDst(t *testing.T) {
	src := mustRead(t, "versions/preprod.yaml", preprodYAML+"  digest: sha256:abc\n")
	dst := mustRead(t, "versions/prod.yaml", prodYAML)
	_, err := Compare(src, dst, nil)
	if !errors.Is(err, ErrMissing) {
		t.Fatalf("err = %v, want ErrMissing", err)
	}
	want := "cannot promote versions/preprod.yaml into versions/prod.yaml, missing: backup.digest (absent from versions/prod.yaml): missing in versions file"
	if err.Error() != want {
		t.Errorf("err = %q\nwant %q", err, want)
	}
}

func TestCheckPinned(t *testing.T) {
	tests := []struct {
		key, value string
		ok         bool
	}{
		{"chartVersion", "1.2.3", true},
		{"chartVersion", "v1.2.3", true},
		{"chartVersion", "1.2.3-rc.1+build.5", true},
		{"chartVersion", "1.2", false},
		{"chartVersion", "^1.2.0", false},
		{"chartVersion", "~1", false},
		{"chartVersion", "1.x", false},
		{"chartVersion", "*", false},
		{"chartVersion", "", false},
		{"chartVersion", "main", false},
		{"chartVersion", ">=1.0.0", false},
		{"imageTag", "v2.1.0", true},
		{"imageTag", "2024.01.15-abc123", true},
		{"imageTag", "sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", true},
		{"imageTag", "latest", false},
		{"imageTag", "LATEST", false},
		{"imageTag", "main", false},
		{"imageTag", "feature-login", false},
		{"imageTag", "1.x", false},
		{"imageTag", "v1.*", false},
		{"imageTag", "~1.2", false},
		{"imageTag", "", false},
		{"imageTag", "1.0 || 2.0", false},
	}
	for _, tt := range tests {
		err := CheckPinned(tt.key, tt.value)
		if (err == nil) != tt.ok {
			t.Errorf("CheckPinned(%q, %q) = %v, want ok=%v", tt.key, tt.value, err, tt.ok)
		}
		if err != nil && !errors.Is(err, ErrUnpinned) {
			t.Errorf("CheckPinned(%q, %q) = %v, want ErrUnpinned", tt.key, tt.value, err)
		}
	}
}

func TestCheckUpgrade(t *testing.T) {
	if err := CheckUpgrade("c", "1.2.0", "1.10.0"); err != nil {
		t.Errorf("1.2.0 -> 1.10.0: %v", err)
	}
	if err := CheckUpgrade("c", "1.2.0", "1.2.0-rc.1"); !errors.Is(err, ErrDowngrade) {
		t.Errorf("1.2.0 -> 1.2.0-rc.1: %v, want ErrDowngrade", err)
	}
	err := CheckUpgrade("dlt-node.vault", "1.3.0", "1.2.0")
	want := "dlt-node.vault.chartVersion would go from 1.3.0 down to 1.2.0: chart version downgrade"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %q", err, want)
	}
}

func TestCheckPath(t *testing.T) {
	envs := []string{"qa", "preprod", "prod"}
	tests := []struct {
		from, to string
		want     string
	}{
		{"qa", "preprod", ""},
		{"preprod", "prod", ""},
		{"qa", "prod", "qa -> prod: prod is promoted from preprod: not the next step of the promotion path"},
		{"prod", "preprod", "prod -> preprod: preprod is promoted from qa: not the next step of the promotion path"},
		{"prod", "qa", "prod -> qa: qa is promoted from nothing (it is the first environment): not the next step of the promotion path"},
		{"qa", "qa", "cannot promote qa into itself: --from and --to name the same environment"},
		{"qa", "staging", "unknown environment in qa -> staging (configured: qa, preprod, prod)"},
	}
	for _, tt := range tests {
		err := CheckPath(envs, tt.from, tt.to)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("CheckPath(%s, %s) = %q, want %q", tt.from, tt.to, got, tt.want)
		}
	}
}

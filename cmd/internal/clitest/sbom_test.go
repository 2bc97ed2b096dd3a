package clitest

import (
	"bytes"
	gobuildinfo "debug/buildinfo"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"text/template"

	"go.yaml.in/yaml/v3"
)

// releaseConfig is the part of .goreleaser.yaml the SBOM test runs.
type releaseConfig struct {
	Builds []struct {
		ID      string
		Main    string
		Ldflags []string
	}
	SBOMs []struct {
		Artifacts string
		Cmd       string
		Args      []string
		Env       []string
	}
}

// sbomPassthrough is the environment GoReleaser hands an sboms command
// besides the entry's own env (its pipe/sbom passthroughEnvVars): the
// test runs the command in the same narrow environment.
var sbomPassthrough = []string{"HOME", "USER", "TMPDIR", "PATH"}

// TestReleaseSBOM: the release's SBOM step, run as .goreleaser.yaml
// configures it on promote built with the release's -ldflags, describes
// the binary a user downloads: every module linked in, with the version
// `go version -m` shows, the standard library at the binary's Go release,
// and as the main component the version the binary's version verb prints.
// The same binary gives the same document, byte for byte.
func TestReleaseSBOM(t *testing.T) {
	root := "../../.."
	data, err := os.ReadFile(filepath.Join(root, ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg releaseConfig
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if len(cfg.Builds) == 0 || cfg.Builds[0].ID != "promote" || len(cfg.SBOMs) != 1 || cfg.SBOMs[0].Artifacts != "binary" {
		t.Fatalf(".goreleaser.yaml: want the promote build first and one sboms entry over binaries, got %+v", cfg)
	}
	const version = "0.4.1-snapshot+abc1234"
	vars := map[string]any{"Version": version, "FullCommit": Commit, "IsGitDirty": false, "CommitDate": Date,
		"Binary": "promote", "Os": runtime.GOOS, "Arch": runtime.GOARCH}
	dir := t.TempDir()
	bin := filepath.Join(dir, "promote")
	cmd := exec.Command("go", "build", "-ldflags", render(t, strings.Join(cfg.Builds[0].Ldflags, " "), vars), "-o", bin, cfg.Builds[0].Main)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var verb struct{ Version string }
	if err := json.Unmarshal([]byte(run(t, bin, "version", "-o", "json")), &verb); err != nil || verb.Version != version {
		t.Fatalf("promote version says %q (%v), want %q", verb.Version, err, version)
	}

	doc := runSBOM(t, cfg, bin, filepath.Join(dir, "first.cdx.json"), vars)
	if again := runSBOM(t, cfg, bin, filepath.Join(dir, "again.cdx.json"), vars); !bytes.Equal(doc, again) {
		t.Errorf("two SBOMs of one binary differ:\n%s\n%s", doc, again)
	}
	var bom struct {
		BOMFormat, SpecVersion string
		Metadata               struct {
			Component struct{ Name, Version, PURL string }
		}
		Components []struct{ Name, Version string }
	}
	if err := json.Unmarshal(doc, &bom); err != nil {
		t.Fatalf("the SBOM is not JSON: %v\n%s", err, doc)
	}
	if bom.BOMFormat != "CycloneDX" || !strings.HasPrefix(bom.SpecVersion, "1.") {
		t.Errorf("format %s %s, want CycloneDX 1.x", bom.BOMFormat, bom.SpecVersion)
	}
	if m := bom.Metadata.Component; m.Name != "github.com/gitops-promote/gitops-promote" || m.Version != "v"+verb.Version ||
		!strings.Contains(m.PURL, "@v"+verb.Version) {
		t.Errorf("main component %s %s (%s), want the module at the version promote prints, v%s", m.Name, m.Version, m.PURL, verb.Version)
	}
	listed := map[string]string{}
	for _, c := range bom.Components {
		listed[c.Name] = c.Version
	}
	bi, err := gobuildinfo.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if listed["std"] != bi.GoVersion {
		t.Errorf("the standard library is listed at %q, the binary was built by %s", listed["std"], bi.GoVersion)
	}
	for _, d := range bi.Deps {
		if d.Replace != nil {
			d = d.Replace // what was linked
		}
		if listed[d.Path] != d.Version {
			t.Errorf("module %s is listed at %q, the binary links %s", d.Path, listed[d.Path], d.Version)
		}
	}
	if len(bom.Components) != len(bi.Deps)+1 {
		t.Errorf("%d components, want the binary's %d modules and std", len(bom.Components), len(bi.Deps))
	}
}

// runSBOM runs the sboms entry of cfg on bin as GoReleaser runs it, with
// $artifact, $document and the entry's env expanded and its templates
// rendered, and returns the document written.
func runSBOM(t *testing.T, cfg releaseConfig, bin, document string, vars map[string]any) []byte {
	t.Helper()
	s := cfg.SBOMs[0]
	env := map[string]string{"artifact": bin, "document": document}
	var environ []string
	for _, k := range sbomPassthrough {
		if v := os.Getenv(k); v != "" {
			environ = append(environ, k+"="+v)
		}
	}
	for _, kv := range s.Env {
		kv = render(t, os.Expand(kv, func(k string) string { return firstNonEmpty(env[k], os.Getenv(k)) }), vars)
		environ = append(environ, kv)
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	var args []string
	for _, a := range s.Args {
		args = append(args, render(t, os.Expand(a, func(k string) string { return env[k] }), vars))
	}
	cmd := exec.Command(s.Cmd, args...)
	cmd.Dir = t.TempDir()
	cmd.Env = environ
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", s.Cmd, strings.Join(args, " "), err, out)
	}
	data, err := os.ReadFile(document)
	if err != nil {
		t.Fatalf("the SBOM command wrote no document: %v", err)
	}
	return data
}

// render executes a GoReleaser template over vars (the fields it uses).
func render(t *testing.T, text string, vars map[string]any) string {
	t.Helper()
	tmpl, err := template.New("").Option("missingkey=error").Parse(text)
	if err != nil {
		t.Fatalf("template %q: %v", text, err)
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, vars); err != nil {
		t.Fatalf("template %q: %v", text, err)
	}
	return b.String()
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

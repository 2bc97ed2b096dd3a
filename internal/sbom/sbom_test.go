package sbom

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestFromBuildInfo(t *testing.T) {
	bi := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Path:      "github.com/gitops-promote/gitops-promote/cmd/promote",
		Main:      debug.Module{Path: "github.com/gitops-promote/gitops-promote", Version: "v1.2.0"},
		Deps: []*debug.Module{
			{Path: "github.com/go-git/go-git/v5", Version: "v5.19.3", Sum: "h1:abc="},
			{Path: "example.com/Old", Version: "v1.0.0", Replace: &debug.Module{Path: "example.com/fork", Version: "v1.0.1+incompatible", Sum: "h1:def="}},
		},
		Settings: []debug.BuildSetting{{Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "arm64"}, {Key: "CGO_ENABLED", Value: "0"}},
	}
	created := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	doc := FromBuildInfo("promote", bi, strings.Repeat("ab", 32), created)

	main := doc.Metadata.Component
	if main.PURL != "pkg:golang/github.com/gitops-promote/gitops-promote@v1.2.0?goarch=arm64&goos=linux" {
		t.Errorf("main purl = %s", main.PURL)
	}
	if main.Hashes[0].Content != strings.Repeat("ab", 32) || doc.Metadata.Timestamp != "2026-11-01T12:00:00Z" {
		t.Errorf("main hash %v, timestamp %q", main.Hashes, doc.Metadata.Timestamp)
	}
	var got []string
	for _, c := range doc.Components {
		got = append(got, c.PURL)
	}
	want := []string{
		"pkg:golang/std@go1.26.8",
		"pkg:golang/github.com/go-git/go-git/v5@v5.19.3",
		"pkg:golang/example.com/fork@v1.0.1+incompatible", // the replacement is what was linked
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("components (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Property{{"go:replaces", "example.com/Old@v1.0.0"}, {"go:sum", "h1:def="}}, doc.Components[2].Properties); diff != "" {
		t.Errorf("replaced module properties (-want +got):\n%s", diff)
	}
	if len(doc.Dependencies) != 1 || len(doc.Dependencies[0].DependsOn) != 3 || doc.Dependencies[0].Ref != main.BOMRef {
		t.Errorf("dependencies = %+v", doc.Dependencies)
	}
	if !strings.HasPrefix(doc.SerialNumber, "urn:uuid:abababab-abab-5bab-abab-") {
		t.Errorf("serial %s is not derived from the binary's hash", doc.SerialNumber)
	}
}

// TestFromFile builds a real binary of this module (the image builder,
// which links go-containerregistry) and reads its embedded build information.
func TestFromFile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary; run without -short")
	}
	exe := filepath.Join(t.TempDir(), "image")
	cmd := exec.Command("go", "build", "-o", exe, "github.com/gitops-promote/gitops-promote/build/image")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	doc, err := FromFile(exe, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, doc); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatalf("SBOM is not JSON: %v", err)
	}
	if back["bomFormat"] != "CycloneDX" || back["specVersion"] != "1.5" {
		t.Errorf("header = %v %v", back["bomFormat"], back["specVersion"])
	}
	if _, ok := back["metadata"].(map[string]any)["timestamp"]; ok {
		t.Error("zero creation time still wrote a timestamp")
	}
	var modules []string
	for _, c := range doc.Components {
		modules = append(modules, c.Name)
	}
	if !strings.Contains(strings.Join(modules, " "), "github.com/google/go-containerregistry") {
		t.Errorf("components %v miss go-containerregistry, which the binary links", modules)
	}
	if m := doc.Metadata.Component; m.Name != "image" || !strings.HasPrefix(m.PURL, "pkg:golang/github.com/gitops-promote/gitops-promote?") || m.Version != "(devel)" {
		t.Errorf("main component = %s %s %s, want the unstamped build as (devel) with no purl version", m.Name, m.Version, m.PURL)
	}
	if _, err := FromFile("sbom.go", time.Time{}); err == nil || !strings.Contains(err.Error(), "sbom.go") {
		t.Errorf("a non-binary gave %v, want an error naming it", err)
	}
}

// A release build's -ldflags stamp its version; the toolchain's own stamp
// is "(devel)" in a work tree. The SBOM names the stamped one.
func TestStampedVersion(t *testing.T) {
	const p = "github.com/gitops-promote/gitops-promote/internal/buildinfo"
	tests := []struct {
		main, ldflags, version, purl string
	}{
		{"(devel)", "-s -w -X " + p + ".version=1.2.1-snapshot+3720d92", "1.2.1-snapshot+3720d92",
			"pkg:golang/github.com/gitops-promote/gitops-promote@v1.2.1-snapshot+3720d92?goarch=amd64&goos=linux"},
		{"(devel)", "-X " + p + ".version=v1.2.0", "v1.2.0",
			"pkg:golang/github.com/gitops-promote/gitops-promote@v1.2.0?goarch=amd64&goos=linux"},
		{"v1.3.0", "", "v1.3.0", "pkg:golang/github.com/gitops-promote/gitops-promote@v1.3.0?goarch=amd64&goos=linux"},
		{"(devel)", "-s -w", "(devel)", "pkg:golang/github.com/gitops-promote/gitops-promote?goarch=amd64&goos=linux"},
	}
	for _, tt := range tests {
		bi := &debug.BuildInfo{
			Path:     "github.com/gitops-promote/gitops-promote/cmd/promote",
			Main:     debug.Module{Path: "github.com/gitops-promote/gitops-promote", Version: tt.main},
			Settings: []debug.BuildSetting{{Key: "-ldflags", Value: tt.ldflags}, {Key: "GOOS", Value: "linux"}, {Key: "GOARCH", Value: "amd64"}},
		}
		m := FromBuildInfo("promote", bi, strings.Repeat("ab", 32), time.Time{}).Metadata.Component
		if m.Version != tt.version || m.PURL != tt.purl || m.BOMRef != tt.purl {
			t.Errorf("main %s, -ldflags %q: version %q purl %q, want %q %q", tt.main, tt.ldflags, m.Version, m.PURL, tt.version, tt.purl)
		}
	}
}

// The SBOM of a real promote built as GoReleaser builds it names the
// version that binary's `version` verb prints.
func TestFromFileMatchesVersionVerb(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary; run without -short")
	}
	const stamp = "0.4.1-snapshot+abc1234"
	exe := filepath.Join(t.TempDir(), "promote")
	cmd := exec.Command("go", "build", "-o", exe,
		"-ldflags", "-s -w -X github.com/gitops-promote/gitops-promote/internal/buildinfo.version="+stamp,
		"github.com/gitops-promote/gitops-promote/cmd/promote")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(exe, "version", "-o", "json").Output()
	if err != nil {
		t.Fatalf("promote version: %v", err)
	}
	var v struct{ Version string }
	if err := json.Unmarshal(out, &v); err != nil || v.Version != stamp {
		t.Fatalf("promote version says %q (%v), want %q", v.Version, err, stamp)
	}
	doc, err := FromFile(exe, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if m := doc.Metadata.Component; m.Version != v.Version || !strings.Contains(m.PURL, "@v"+url.PathEscape(stamp)) {
		t.Errorf("SBOM main component %q %s, the binary says %q", m.Version, m.PURL, v.Version)
	}
}

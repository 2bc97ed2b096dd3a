// Package sbom writes a CycloneDX software bill of materials for a Go
// binary from the build information the Go linker embeds in it (what
// `go version -m` prints): the main module, every module linked in with its
// version and go.sum hash, the Go release and the build settings. It is
// what the release's `sboms:` step runs for each binary: it describes what
// is in the shipped file, not what go.mod could pull in.
package sbom

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	stamp "github.com/gitops-promote/gitops-promote/internal/buildinfo"
)

// SpecVersion is the CycloneDX version written.
const SpecVersion = "1.5"

// Document is the subset of CycloneDX 1.5 JSON that we fill in.
type Document struct {
	BOMFormat    string       `json:"bomFormat"`
	SpecVersion  string       `json:"specVersion"`
	SerialNumber string       `json:"serialNumber"`
	Version      int          `json:"version"`
	Metadata     Metadata     `json:"metadata"`
	Components   []Component  `json:"components"`
	Dependencies []Dependency `json:"dependencies"`
}

type Metadata struct {
	Timestamp string    `json:"timestamp,omitempty"`
	Tools     Tools     `json:"tools"`
	Component Component `json:"component"`
}

type Tools struct {
	Components []Component `json:"components"`
}

type Component struct {
	Type       string     `json:"type"`
	BOMRef     string     `json:"bom-ref,omitempty"`
	Name       string     `json:"name"`
	Version    string     `json:"version,omitempty"`
	PURL       string     `json:"purl,omitempty"`
	Hashes     []Hash     `json:"hashes,omitempty"`
	Properties []Property `json:"properties,omitempty"`
}

type Hash struct {
	Alg     string `json:"alg"`
	Content string `json:"content"`
}

type Property struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type Dependency struct {
	Ref       string   `json:"ref"`
	DependsOn []string `json:"dependsOn"`
}

// FromFile reads the build information of the Go binary at path.
// created, when not zero, becomes the document's timestamp.
func FromFile(path string, created time.Time) (*Document, error) {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading Go build information of %s: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, fmt.Errorf("hashing %s: %w", path, err)
	}
	return FromBuildInfo(filepath.Base(path), bi, hex.EncodeToString(h.Sum(nil)), created), nil
}

// FromBuildInfo builds the document for a binary named name whose file has
// the given SHA-256. The serial number derives from that hash, so the same
// binary always gets the same document. The binary's version is the one
// its --version prints (internal/buildinfo): a release's -ldflags stamp
// it, and the toolchain's own stamp is "(devel)" outside a module download.
func FromBuildInfo(name string, bi *debug.BuildInfo, sha256Hex string, created time.Time) *Document {
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	version := stamp.Of(bi).Version
	main := Component{
		Type:    "application",
		Name:    name,
		Version: version,
		PURL:    purl(bi.Main.Path, moduleVersion(version), settings["GOOS"], settings["GOARCH"]),
		Hashes:  []Hash{{Alg: "SHA-256", Content: sha256Hex}},
		Properties: []Property{
			{Name: "go:module", Value: bi.Main.Path},
			{Name: "go:package", Value: bi.Path},
			{Name: "go:toolchain", Value: bi.GoVersion},
		},
	}
	for _, s := range bi.Settings {
		main.Properties = append(main.Properties, Property{Name: "go:build:" + s.Key, Value: s.Value})
	}
	main.BOMRef = main.PURL
	doc := &Document{
		BOMFormat:    "CycloneDX",
		SpecVersion:  SpecVersion,
		SerialNumber: "urn:uuid:" + uuidFrom(sha256Hex),
		Version:      1,
		Metadata: Metadata{
			Tools:     Tools{Components: []Component{{Type: "application", Name: "gitops-promote sbom (internal/sbom)"}}},
			Component: main,
		},
	}
	if !created.IsZero() {
		doc.Metadata.Timestamp = created.UTC().Format(time.RFC3339)
	}
	std := library("std", bi.GoVersion)
	doc.Components = append(doc.Components, std)
	dep := Dependency{Ref: main.BOMRef, DependsOn: []string{std.BOMRef}}
	for _, m := range bi.Deps {
		c := moduleComponent(m)
		doc.Components = append(doc.Components, c)
		dep.DependsOn = append(dep.DependsOn, c.BOMRef)
	}
	doc.Dependencies = []Dependency{dep}
	return doc
}

// moduleComponent describes one linked module; a replaced module is the
// replacement (that is what was compiled), with the original named.
func moduleComponent(m *debug.Module) Component {
	used := m
	var props []Property
	if m.Replace != nil {
		used = m.Replace
		props = append(props, Property{Name: "go:replaces", Value: m.Path + "@" + m.Version})
	}
	if used.Sum != "" {
		props = append(props, Property{Name: "go:sum", Value: used.Sum})
	}
	return library(used.Path, used.Version, props...)
}

// library is a Go module (or the standard library, "std") linked into the
// binary, referred to by its package URL.
func library(path, version string, props ...Property) Component {
	p := purl(path, version, "", "")
	return Component{Type: "library", BOMRef: p, Name: path, Version: version, PURL: p, Properties: props}
}

// moduleVersion is version as the Go module version a package URL names:
// release tools stamp "1.2.0" for the tag v1.2.0, and a local build's
// "(devel)" names no module version at all.
func moduleVersion(version string) string {
	switch {
	case version == "(devel)":
		return ""
	case version != "" && version[0] >= '0' && version[0] <= '9':
		return "v" + version
	}
	return version
}

// purl is the package URL of a Go module (pkg:golang/<path>@<version>).
func purl(path, version, goos, goarch string) string {
	var b strings.Builder
	b.WriteString("pkg:golang/")
	for i, seg := range strings.Split(path, "/") {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(url.PathEscape(seg))
	}
	if version != "" {
		b.WriteString("@" + url.PathEscape(version))
	}
	if goos != "" && goarch != "" {
		b.WriteString("?goarch=" + goarch + "&goos=" + goos)
	}
	return b.String()
}

// uuidFrom shapes the first 16 bytes of a hex digest as a version-5-style UUID.
func uuidFrom(hexDigest string) string {
	b, err := hex.DecodeString(hexDigest)
	if err != nil || len(b) < 16 {
		b = make([]byte, 16)
	}
	b = b[:16]
	b[6] = (b[6] & 0x0f) | 0x50
	b[8] = (b[8] & 0x3f) | 0x80
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// Write encodes doc as indented JSON.
func Write(w io.Writer, doc *Document) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

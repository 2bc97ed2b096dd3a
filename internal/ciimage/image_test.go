package ciimage

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

var created = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)

// goBuild builds a static linux binary of pkg into dir.
func goBuild(t *testing.T, dir, pkg string) string {
	t.Helper()
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

// testSpec is an image of the hello program under two names, with hello
// standing in for busybox too: the layer tests need no Debian package.
func testSpec(t *testing.T) Spec {
	t.Helper()
	dir := t.TempDir()
	hello := goBuild(t, dir, "./testdata/hello")
	for _, n := range []string{"promote", "manifestdiff"} {
		b, err := os.ReadFile(hello)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ca := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(ca, []byte("-----BEGIN CERTIFICATE-----\nMA==\n-----END CERTIFICATE-----\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return Spec{
		Binaries: []string{filepath.Join(dir, "promote"), filepath.Join(dir, "manifestdiff")},
		Busybox:  hello,
		Applets:  []string{"/bin/sh", "/usr/bin/env", "/bin/busybox"},
		CABundle: ca,
		Arch:     goarch(t),
		Labels:   map[string]string{"org.opencontainers.image.version": "1.2.3"},
		Created:  created,
	}
}

func goarch(t *testing.T) string {
	out, err := exec.Command("go", "env", "GOARCH").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

type entry struct {
	typ      byte
	mode     int64
	uid, gid int
	link     string
	mtime    time.Time
}

func listImage(t *testing.T, img v1.Image) map[string]entry {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	got := map[string]entry{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return got
		}
		if err != nil {
			t.Fatal(err)
		}
		got[strings.TrimSuffix(h.Name, "/")] = entry{h.Typeflag, h.Mode, h.Uid, h.Gid, h.Linkname, h.ModTime.UTC()}
	}
}

func TestBuildLayout(t *testing.T) {
	s := testSpec(t)
	img, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	files := listImage(t, img)
	for _, tc := range []struct {
		path string
		want entry
	}{
		{"usr/local/bin/promote", entry{typ: tar.TypeReg, mode: 0o755}},
		{"usr/local/bin/manifestdiff", entry{typ: tar.TypeReg, mode: 0o755}},
		{"bin/busybox", entry{typ: tar.TypeReg, mode: 0o755}},
		{"bin/sh", entry{typ: tar.TypeSymlink, mode: 0o777, link: "/bin/busybox"}},
		{"usr/bin/env", entry{typ: tar.TypeSymlink, mode: 0o777, link: "/bin/busybox"}},
		{"etc/ssl/certs/ca-certificates.crt", entry{typ: tar.TypeReg, mode: 0o644}},
		{"etc/passwd", entry{typ: tar.TypeReg, mode: 0o644}},
		{"tmp", entry{typ: tar.TypeDir, mode: 0o1777}},
		{"home/promote", entry{typ: tar.TypeDir, mode: 0o755, uid: UID, gid: GID}},
		{"root", entry{typ: tar.TypeDir, mode: 0o700}},
	} {
		got, ok := files[tc.path]
		tc.want.mtime = created
		if !ok {
			t.Errorf("%s missing from the image", tc.path)
		} else if got != tc.want {
			t.Errorf("%s = %+v, want %+v", tc.path, got, tc.want)
		}
	}

	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Config.User != "65532:65532" || len(cfg.Config.Entrypoint) != 0 || strings.Join(cfg.Config.Cmd, " ") != "/bin/sh" {
		t.Errorf("config user %q entrypoint %q cmd %q: want a non-root user, no entrypoint, /bin/sh",
			cfg.Config.User, cfg.Config.Entrypoint, cfg.Config.Cmd)
	}
	if cfg.Config.Labels["org.opencontainers.image.version"] != "1.2.3" || cfg.OS != "linux" || cfg.Architecture != s.Arch {
		t.Errorf("labels %v, platform %s/%s", cfg.Config.Labels, cfg.OS, cfg.Architecture)
	}
	if mt, _ := img.MediaType(); mt != types.OCIManifestSchema1 {
		t.Errorf("manifest media type %s, want OCI", mt)
	}
	if layers, _ := img.Layers(); len(layers) != 2 {
		t.Errorf("%d layers, want base + binaries", len(layers))
	}

	// Same inputs, same digest: no clock or host state leaks into the image.
	again, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	d1, _ := img.Digest()
	d2, _ := again.Digest()
	if d1 != d2 {
		t.Errorf("two builds of the same inputs: %s and %s", d1, d2)
	}
}

func TestBuildRefuses(t *testing.T) {
	good := testSpec(t)
	script := filepath.Join(t.TempDir(), "promote")
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	other := map[string]string{"amd64": "arm64", "arm64": "amd64"}[good.Arch]
	for _, tc := range []struct {
		name string
		edit func(*Spec)
		want string
	}{
		{"no shell", func(s *Spec) { s.Applets = []string{"/usr/bin/env"} }, "/bin/sh"},
		{"no binaries", func(s *Spec) { s.Binaries = nil }, "no binaries"},
		{"not an executable", func(s *Spec) { s.Binaries = []string{script} }, "not a linux executable"},
		{"other architecture", func(s *Spec) { s.Arch = other }, "built for"},
		{"missing file", func(s *Spec) { s.CABundle = "/nonexistent/ca.crt" }, "/nonexistent/ca.crt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := good
			tc.edit(&s)
			_, err := Build(s)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Build = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestWriteLayoutRoundTrip(t *testing.T) {
	img, err := Build(testSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "oci")
	if err := WriteLayout(dir, img, "gitops-promote:1.2.3"); err != nil {
		t.Fatal(err)
	}
	back := readLayout(t, dir)
	want, _ := img.Digest()
	got, _ := back.Digest()
	if got != want {
		t.Errorf("layout holds %s, built %s", got, want)
	}
	tarFile := filepath.Join(t.TempDir(), "image.tar")
	if err := WriteTarball(tarFile, img, "gitops-promote:1.2.3"); err != nil {
		t.Fatal(err)
	}
	if err := WriteTarball(tarFile, img, "not a ref"); err == nil {
		t.Error("an invalid reference was accepted")
	}
}

func readLayout(t *testing.T, dir string) v1.Image {
	t.Helper()
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 || m.Manifests[0].Annotations["org.opencontainers.image.ref.name"] == "" {
		t.Fatalf("layout index = %+v, want one tagged image", m.Manifests)
	}
	img, err := idx.Image(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// Every date the image carries is RFC 3339 in UTC with "Z", whatever
// offset the creation time came with (`git log --format=%cI` keeps the
// committer's), and the OCI labels are the manifest's annotations too.
func TestCreatedIsUTC(t *testing.T) {
	s := testSpec(t)
	s.Created = created.In(time.FixedZone("CEST", 2*3600))
	s.Labels = map[string]string{"org.opencontainers.image.version": "1.2.3", CreatedKey: "2026-11-01T12:00:00+02:00", "com.example.other": "x"}
	img, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	const want = "2026-11-01T10:00:00Z"
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	m, err := img.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Config.Labels[CreatedKey]; got != want {
		t.Errorf("label %s = %q, want %q", CreatedKey, got, want)
	}
	wantAnn := map[string]string{CreatedKey: want, "org.opencontainers.image.version": "1.2.3"}
	if len(m.Annotations) != len(wantAnn) || m.Annotations[CreatedKey] != want || m.Annotations["org.opencontainers.image.version"] != "1.2.3" {
		t.Errorf("manifest annotations %v, want %v", m.Annotations, wantAnn)
	}
	rawCfg, _ := img.RawConfigFile()
	rawMan, _ := img.RawManifest()
	for name, raw := range map[string][]byte{"config": rawCfg, "manifest": rawMan} {
		if strings.Contains(string(raw), "+02:00") || strings.Contains(string(raw), "+00:00") {
			t.Errorf("%s carries a date with an offset:\n%s", name, raw)
		}
	}
	if !strings.Contains(string(rawCfg), `"created":"`+want+`"`) {
		t.Errorf("config's created is not %s:\n%s", want, rawCfg)
	}
	// the same instant in another zone is the same image
	s.Created = created
	utc, err := Build(s)
	if err != nil {
		t.Fatal(err)
	}
	d1, _ := img.Digest()
	d2, _ := utc.Digest()
	if d1 != d2 {
		t.Errorf("the same creation time in two zones gave %s and %s", d1, d2)
	}
}

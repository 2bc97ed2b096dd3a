// Package ciimage builds the container image our users run in GitLab CI
// jobs, without a Docker daemon or a base image: an OCI image from scratch
// holding the two static binaries, Debian's CA bundle and Debian's static
// busybox (GitLab's `script:` needs /bin/sh), running as a non-root user.
//
// The image is assembled with go-containerregistry from tar layers we
// write ourselves, so the same inputs always give the same digest: every
// file carries the image's creation time and root or user ownership, and
// layers are gzipped without a header timestamp.
package ciimage

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The user jobs run as. 65532 is the "nonroot" id distroless images use,
// so volume permissions set up for those images fit ours too.
const (
	UID      = 65532
	GID      = 65532
	UserName = "promote"
	Home     = "/home/promote"
	BinDir   = "/usr/local/bin"
	CAFile   = "/etc/ssl/certs/ca-certificates.crt"
)

// Spec is everything that goes into the image.
type Spec struct {
	// Binaries are host paths of static linux executables, installed under
	// BinDir by their base name (promote, manifestdiff).
	Binaries []string
	// Busybox is the host path of a static busybox; Applets are the
	// absolute paths it answers to (`busybox --list-full`, with a leading
	// slash), each installed as a symlink to it.
	Busybox string
	Applets []string
	// CABundle is the host path of a PEM bundle installed as CAFile.
	CABundle string
	// Arch is the GOARCH of the binaries and busybox (amd64, arm64).
	Arch string
	// Labels are OCI labels (org.opencontainers.image.*) for the config.
	// Build adds CreatedKey from Created; those of the OCI namespace are
	// the manifest's annotations too.
	Labels map[string]string
	// Created is the image's creation time and every file's mtime.
	Created time.Time
}

// CreatedKey is the OCI label and annotation of the creation time, RFC 3339
// in UTC with "Z" as every date the image carries (the config's and each
// layer's history): a commit time with the committer's offset becomes UTC.
const CreatedKey = "org.opencontainers.image.created"

// labels are s.Labels with the creation time, and the annotations the OCI
// image spec defines: the same org.opencontainers.image.* keys, for
// registries and tools that read the manifest rather than the config.
func (s Spec) labels() (labels, annotations map[string]string) {
	labels = map[string]string{}
	for k, v := range s.Labels {
		labels[k] = v
	}
	labels[CreatedKey] = s.Created.UTC().Format(time.RFC3339)
	annotations = map[string]string{}
	for k, v := range labels {
		if strings.HasPrefix(k, "org.opencontainers.image.") {
			annotations[k] = v
		}
	}
	return labels, annotations
}

// Build assembles the image: a base layer (busybox, users, certificates,
// writable /tmp and home) and a layer with the binaries, which change on
// every release while the base rarely does.
func Build(s Spec) (v1.Image, error) {
	if err := s.validate(); err != nil {
		return nil, err
	}
	base, err := s.baseLayer()
	if err != nil {
		return nil, err
	}
	bins, err := s.binLayer()
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	created := v1.Time{Time: s.Created.UTC()}
	labels, annotations := s.labels()
	img, err = mutate.Append(img,
		mutate.Addendum{Layer: base, History: v1.History{Created: created, CreatedBy: "ciimage: busybox-static, ca-certificates, user " + UserName}},
		mutate.Addendum{Layer: bins, History: v1.History{Created: created, CreatedBy: "ciimage: " + strings.Join(s.binNames(), ", ")}},
	)
	if err != nil {
		return nil, fmt.Errorf("appending layers: %w", err)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.Architecture, cfg.OS = s.Arch, "linux"
	cfg.Created = created
	cfg.Config = v1.Config{
		User: fmt.Sprintf("%d:%d", UID, GID),
		Env: []string{
			"PATH=" + BinDir + ":/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin",
			"HOME=" + Home,
			"SSL_CERT_FILE=" + CAFile,
		},
		// No entrypoint: GitLab's Docker executor hands the job script to
		// the image's shell, and an entrypoint would swallow it.
		Cmd:        []string{"/bin/sh"},
		WorkingDir: Home,
		Labels:     labels,
	}
	img, err = mutate.ConfigFile(img, cfg)
	if err != nil {
		return nil, fmt.Errorf("writing image config: %w", err)
	}
	annotated, ok := mutate.Annotations(img, annotations).(v1.Image)
	if !ok {
		return nil, errors.New("annotating the image manifest: not an image")
	}
	return annotated, nil
}

func (s Spec) validate() error {
	var missing []string
	if len(s.Binaries) == 0 {
		missing = append(missing, "binaries")
	}
	if s.Busybox == "" {
		missing = append(missing, "busybox")
	}
	if s.CABundle == "" {
		missing = append(missing, "CA bundle")
	}
	if s.Arch == "" {
		missing = append(missing, "architecture")
	}
	if len(missing) > 0 {
		return fmt.Errorf("image spec: no %s", strings.Join(missing, ", no "))
	}
	for _, p := range append([]string{s.Busybox}, s.Binaries...) {
		if err := checkStatic(p, s.Arch); err != nil {
			return err
		}
	}
	if !hasApplet(s.Applets, "/bin/sh") {
		return errors.New("image spec: busybox applets do not include /bin/sh, which GitLab's script: needs")
	}
	return nil
}

func hasApplet(applets []string, p string) bool {
	for _, a := range applets {
		if a == p {
			return true
		}
	}
	return false
}

func (s Spec) binNames() []string {
	names := make([]string, len(s.Binaries))
	for i, b := range s.Binaries {
		names[i] = path.Base(b)
	}
	return names
}

func (s Spec) baseLayer() (v1.Layer, error) {
	l := newLayer(s.Created)
	for _, d := range []string{"/bin", "/sbin", "/usr/bin", "/usr/sbin", BinDir, "/usr/local/sbin", "/etc/ssl/certs", "/home"} {
		l.dir(d, 0o755, 0, 0)
	}
	l.dir("/root", 0o700, 0, 0)
	l.dir("/tmp", 0o1777, 0, 0)
	l.dir("/var/tmp", 0o1777, 0, 0)
	l.dir(Home, 0o755, UID, GID)
	if err := l.hostFile("/bin/busybox", s.Busybox, 0o755); err != nil {
		return nil, err
	}
	applets := append([]string(nil), s.Applets...)
	sort.Strings(applets)
	for _, a := range applets {
		if a == "/bin/busybox" || path.Dir(a) == "/" { // /linuxrc: an init, not a tool
			continue
		}
		l.dir(path.Dir(a), 0o755, 0, 0)
		l.symlink(a, "/bin/busybox")
	}
	if err := l.hostFile(CAFile, s.CABundle, 0o644); err != nil {
		return nil, err
	}
	l.file("/etc/passwd", 0o644, fmt.Sprintf("root:x:0:0:root:/root:/bin/sh\n%s:x:%d:%d:%s:%s:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n",
		UserName, UID, GID, UserName, Home))
	l.file("/etc/group", 0o644, fmt.Sprintf("root:x:0:\n%s:x:%d:\nnogroup:x:65534:\n", UserName, GID))
	// Go's resolver and git read these; an empty nsswitch means "files dns"
	l.file("/etc/nsswitch.conf", 0o644, "hosts: files dns\n")
	return l.close()
}

func (s Spec) binLayer() (v1.Layer, error) {
	l := newLayer(s.Created)
	for _, b := range s.Binaries {
		if err := l.hostFile(path.Join(BinDir, path.Base(b)), b, 0o755); err != nil {
			return nil, err
		}
	}
	return l.close()
}

// layerFromBytes gzips an uncompressed tar as an OCI layer. Go's gzip
// writes no timestamp, so the digest depends on content alone.
func layerFromBytes(tarBytes []byte) (v1.Layer, error) {
	return tarball.LayerFromOpener(func() (readCloser, error) {
		return nopCloser{bytes.NewReader(tarBytes)}, nil
	}, tarball.WithMediaType(types.OCILayer))
}

func readHost(p string) ([]byte, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("reading image input: %w", err)
	}
	return b, nil
}

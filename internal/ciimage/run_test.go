package ciimage

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// TestImageRuns builds the real image (both commands, Debian's busybox and
// CA bundle), writes it as an OCI layout, reads it back, unpacks it and runs
// inside it with chroot, as the user its config names: both commands'
// --version, and the shell a GitLab job script gets.
func TestImageRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds both commands and downloads Debian packages; run without -short")
	}
	bins := t.TempDir()
	promote := goBuild(t, bins, "github.com/gitops-promote/gitops-promote/cmd/promote")
	manifestdiff := goBuild(t, bins, "github.com/gitops-promote/gitops-promote/cmd/manifestdiff")
	arch := goarch(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	in, err := FetchDebian(ctx, debianCache(t), arch)
	if err != nil {
		t.Fatal(err)
	}
	img, err := Build(Spec{
		Binaries: []string{promote, manifestdiff}, Busybox: in.Busybox, Applets: in.Applets,
		CABundle: in.CABundle, Arch: arch, Created: created,
		Labels: map[string]string{"org.opencontainers.image.version": "test"},
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "oci")
	if err := WriteLayout(dir, img, "gitops-promote:test"); err != nil {
		t.Fatal(err)
	}
	img = readLayout(t, dir)
	root := filepath.Join(t.TempDir(), "rootfs")
	unpack(t, img, root)
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	uid, gid := parseUser(t, cfg.Config.User)
	if uid == 0 {
		t.Fatalf("image config user %q is root", cfg.Config.User)
	}

	for _, name := range []string{"promote", "manifestdiff"} {
		out := inImage(t, root, cfg, uid, gid, name, "--version")
		if !strings.HasPrefix(out, name+" ") || !strings.Contains(out, "helm SDK:") {
			t.Errorf("%s --version in the image printed %q", name, out)
		}
	}
	script := `set -e; id -u; id -g; echo "$HOME"; touch "$HOME/w" /tmp/w; ` +
		`grep -c "BEGIN CERTIFICATE" /etc/ssl/certs/ca-certificates.crt; command -v promote; command -v manifestdiff`
	out := inImage(t, root, cfg, uid, gid, "sh", "-c", script)
	want := fmt.Sprintf("%d\n%d\n%s\n", uid, gid, Home)
	if !strings.HasPrefix(out, want) {
		t.Fatalf("sh -c in the image printed %q, want it to start with %q", out, want)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if n, err := strconv.Atoi(lines[3]); err != nil || n < 100 {
		t.Errorf("CA bundle holds %q certificates, want Debian's (over 100)", lines[3])
	}
	if got := strings.Join(lines[4:], " "); got != BinDir+"/promote "+BinDir+"/manifestdiff" {
		t.Errorf("PATH finds %q", got)
	}
}

func debianCache(t *testing.T) string {
	c, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(c, "gitops-promote", "debian")
}

func parseUser(t *testing.T, user string) (int, int) {
	t.Helper()
	u, g, ok := strings.Cut(user, ":")
	uid, err1 := strconv.Atoi(u)
	gid, err2 := strconv.Atoi(g)
	if !ok || err1 != nil || err2 != nil {
		t.Fatalf("image config user %q is not UID:GID", user)
	}
	return uid, gid
}

// inImage runs argv chrooted into root as uid:gid, with the config's
// environment and working directory, as a container runtime would: as
// root with chroot, otherwise inside a user namespace (unshare).
func inImage(t *testing.T, root string, cfg *v1.ConfigFile, uid, gid int, argv ...string) string {
	t.Helper()
	path := ""
	for _, e := range cfg.Config.Env {
		if p, ok := strings.CutPrefix(e, "PATH="); ok {
			path = p
		}
	}
	exe := ""
	for _, d := range strings.Split(path, ":") {
		if _, err := os.Lstat(filepath.Join(root, d, argv[0])); err == nil {
			exe = filepath.Join(d, argv[0])
			break
		}
	}
	if exe == "" {
		t.Fatalf("%s is not on the image's PATH %s", argv[0], path)
	}
	cmd := exec.Command(exe, argv[1:]...)
	cmd.Env = cfg.Config.Env
	cmd.Dir = cfg.Config.WorkingDir
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Chroot:     root,
		Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)},
	}
	if os.Geteuid() != 0 {
		// Not root: a user namespace in which our own user is the image's
		// user, and a mount namespace that lets us chroot. Files we
		// unpacked are ours, so they appear as the image user's.
		cmd.SysProcAttr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: os.Getuid(), Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: os.Getgid(), Size: 1}}
		cmd.SysProcAttr.Credential.NoSetGroups = true
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v in the image: %v\n%s", argv, err, out.String())
	}
	return out.String()
}

// unpack writes the image's flattened file system to root, keeping modes,
// and owners when we are root, as a container runtime would.
func unpack(t *testing.T, img v1.Image, root string) {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(root, filepath.Clean("/"+h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(p, 0o755)
		case tar.TypeReg:
			err = writeFile(p, tr)
		case tar.TypeSymlink:
			err = os.Symlink(h.Linkname, p)
		default:
			t.Fatalf("unexpected entry %s of type %c", h.Name, h.Typeflag)
		}
		if err == nil && h.Typeflag != tar.TypeSymlink {
			err = os.Chmod(p, os.FileMode(h.Mode&0o777)|modeBits(h.Mode))
		}
		if err == nil && os.Geteuid() == 0 { // not root: everything stays ours (see inImage)
			err = os.Lchown(p, h.Uid, h.Gid)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func modeBits(m int64) os.FileMode {
	var out os.FileMode
	if m&0o1000 != 0 {
		out |= os.ModeSticky
	}
	return out
}

func writeFile(p string, r io.Reader) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

package ciimage

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Debian packages the image takes files from. They are fetched at build
// time with `apt-get download` (never committed) and unpacked with
// `dpkg-deb`, so the image carries exactly what Debian ships.
const (
	BusyboxPackage = "busybox-static"
	CAPackage      = "ca-certificates"
)

// Inputs are the files a build takes from Debian, on the host.
type Inputs struct {
	Busybox  string   // the static busybox binary
	Applets  []string // absolute paths busybox installs itself as
	CABundle string   // PEM bundle of every certificate Debian trusts by default
	Versions map[string]string
}

// FetchDebian downloads busybox-static and ca-certificates for arch into
// dir (reusing .deb files already there), unpacks them, and builds the CA
// bundle. apt's package lists are refreshed once if a download fails, as
// on a fresh machine whose lists are empty.
func FetchDebian(ctx context.Context, dir, arch string) (Inputs, error) {
	in := Inputs{Versions: map[string]string{}}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return in, err
	}
	debs := map[string]string{}
	for _, pkg := range []string{BusyboxPackage, CAPackage} {
		spec := pkg
		if pkg != CAPackage { // ca-certificates is architecture: all
			spec += ":" + arch
		}
		deb, err := download(ctx, dir, pkg, spec)
		if err != nil {
			return in, err
		}
		debs[pkg] = deb
		v, err := run(ctx, "", "dpkg-deb", "--field", deb, "Version")
		if err != nil {
			return in, err
		}
		in.Versions[pkg] = strings.TrimSpace(v)
	}
	root := filepath.Join(dir, "root-"+arch)
	if err := os.RemoveAll(root); err != nil {
		return in, err
	}
	for _, deb := range debs {
		if _, err := run(ctx, "", "dpkg-deb", "-x", deb, root); err != nil {
			return in, err
		}
	}
	in.Busybox = filepath.Join(root, "bin", "busybox")
	applets, err := listApplets(ctx, in.Busybox)
	if err != nil {
		return in, err
	}
	in.Applets = applets
	in.CABundle = filepath.Join(dir, "ca-certificates-"+in.Versions[CAPackage]+".crt")
	if err := WriteCABundle(filepath.Join(root, "usr", "share", "ca-certificates"), in.CABundle); err != nil {
		return in, err
	}
	return in, nil
}

// download returns the .deb of pkg in dir, fetching it if none is there.
func download(ctx context.Context, dir, pkg, spec string) (string, error) {
	if deb := findDeb(dir, pkg, spec); deb != "" {
		return deb, nil
	}
	if _, err := run(ctx, dir, "apt-get", "download", spec); err != nil {
		// empty or stale package lists: refresh once and retry
		if _, uerr := run(ctx, "", "apt-get", "update", "-qq"); uerr != nil {
			return "", fmt.Errorf("%w (and apt-get update: %v)", err, uerr)
		}
		if _, err := run(ctx, dir, "apt-get", "download", spec); err != nil {
			return "", err
		}
	}
	if deb := findDeb(dir, pkg, spec); deb != "" {
		return deb, nil
	}
	return "", fmt.Errorf("apt-get download %s left no %s_*.deb in %s", spec, pkg, dir)
}

func findDeb(dir, pkg, spec string) string {
	arch := "all"
	if i := strings.IndexByte(spec, ':'); i >= 0 {
		arch = spec[i+1:]
	}
	m, _ := filepath.Glob(filepath.Join(dir, pkg+"_*_"+arch+".deb"))
	sort.Strings(m)
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1]
}

// listApplets asks busybox where it installs itself. Only a busybox of the
// host's architecture can answer, so images are built for the host's.
func listApplets(ctx context.Context, busybox string) ([]string, error) {
	out, err := run(ctx, "", busybox, "--list-full")
	if err != nil {
		return nil, err
	}
	var applets []string
	for _, line := range strings.Fields(out) {
		applets = append(applets, "/"+strings.TrimPrefix(line, "/"))
	}
	return applets, nil
}

// WriteCABundle concatenates every certificate under certDir (Debian's
// /usr/share/ca-certificates), in sorted path order, into one PEM file: the
// bundle update-ca-certificates builds when every certificate is enabled,
// which is Debian's default.
func WriteCABundle(certDir, out string) error {
	var certs []string
	err := filepath.WalkDir(certDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".crt") {
			certs = append(certs, p)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("reading CA certificates: %w", err)
	}
	if len(certs) == 0 {
		return fmt.Errorf("no CA certificates under %s", certDir)
	}
	sort.Strings(certs)
	var bundle bytes.Buffer
	for _, c := range certs {
		b, err := os.ReadFile(c)
		if err != nil {
			return err
		}
		if !bytes.Contains(b, []byte("-----BEGIN CERTIFICATE-----")) {
			return fmt.Errorf("%s is not a PEM certificate", c)
		}
		bundle.Write(b)
		if !bytes.HasSuffix(b, []byte("\n")) {
			bundle.WriteByte('\n')
		}
	}
	return os.WriteFile(out, bundle.Bytes(), 0o644)
}

func run(ctx context.Context, dir, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if errors.Is(err, exec.ErrNotFound) {
			msg = "not installed (the image build needs Debian's apt-get and dpkg-deb)"
		}
		return "", fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, msg)
	}
	return stdout.String(), nil
}

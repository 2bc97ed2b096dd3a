// Command image builds the gitops-promote CI image (see internal/ciimage)
// from the static binaries of `make image`, and writes it as an OCI layout
// and a tarball. It is a build tool of this repository, not a shipped
// command: `make image` runs it with `go run ./build/image`.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/gitops-promote/gitops-promote/internal/ciimage"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		binaries = flag.String("binaries", "", "comma-separated static linux binaries to install in "+ciimage.BinDir)
		cache    = flag.String("debian-dir", "", "where Debian packages are downloaded and unpacked (default: user cache dir)")
		ref      = flag.String("ref", "gitops-promote:dev", "image reference the layout and tarball are tagged with")
		version  = flag.String("version", "dev", "org.opencontainers.image.version")
		revision = flag.String("revision", "", "org.opencontainers.image.revision (git commit)")
		created  = flag.String("created", "", "creation time, RFC 3339, any offset; the image carries it in UTC (default: the SOURCE_DATE_EPOCH, else the Unix epoch)")
		source   = flag.String("source", "", "org.opencontainers.image.source (the project's URL)")
		out      = flag.String("layout", "", "write an OCI image layout to this directory")
		tarFile  = flag.String("tarball", "", "write a docker-load/crane-push tarball to this file")
	)
	flag.Parse()
	if *binaries == "" || (*out == "" && *tarFile == "") {
		return fmt.Errorf("need --binaries and --layout and/or --tarball (see -h)")
	}
	when, err := creationTime(*created)
	if err != nil {
		return err
	}
	dir := *cache
	if dir == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return err
		}
		dir = filepath.Join(c, "gitops-promote", "debian")
	}
	in, err := ciimage.FetchDebian(context.Background(), dir, runtime.GOARCH)
	if err != nil {
		return err
	}
	labels := map[string]string{
		"org.opencontainers.image.title":       "gitops-promote",
		"org.opencontainers.image.description": "promote and manifestdiff for Argo CD + Helm GitOps repositories, with a busybox shell for GitLab CI jobs",
		"org.opencontainers.image.version":     *version,
		"org.opencontainers.image.licenses":    "Apache-2.0",
		"org.opencontainers.image.base.name":   "scratch",
	}
	if *revision != "" {
		labels["org.opencontainers.image.revision"] = *revision
	}
	if *source != "" {
		labels["org.opencontainers.image.source"] = *source
		labels["org.opencontainers.image.url"] = *source
	}
	img, err := ciimage.Build(ciimage.Spec{
		Binaries: strings.Split(*binaries, ","),
		Busybox:  in.Busybox,
		Applets:  in.Applets,
		CABundle: in.CABundle,
		Arch:     runtime.GOARCH,
		Labels:   labels,
		Created:  when,
	})
	if err != nil {
		return err
	}
	digest, err := img.Digest()
	if err != nil {
		return err
	}
	if *out != "" {
		if err := ciimage.WriteLayout(*out, img, *ref); err != nil {
			return err
		}
		fmt.Printf("OCI layout: %s\n", *out)
	}
	if *tarFile != "" {
		if err := ciimage.WriteTarball(*tarFile, img, *ref); err != nil {
			return err
		}
		fmt.Printf("tarball:    %s\n", *tarFile)
	}
	fmt.Printf("image:      %s@%s (linux/%s; busybox-static %s, ca-certificates %s)\n",
		*ref, digest, runtime.GOARCH, in.Versions[ciimage.BusyboxPackage], in.Versions[ciimage.CAPackage])
	return nil
}

// creationTime is reproducible by default: the same commit gives the same
// digest. Makefile passes the commit time.
func creationTime(s string) (time.Time, error) {
	if s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return t, fmt.Errorf("--created %q: %w", s, err)
		}
		return t.UTC(), nil
	}
	if e := os.Getenv("SOURCE_DATE_EPOCH"); e != "" {
		var sec int64
		if _, err := fmt.Sscan(e, &sec); err != nil {
			return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: %w", e, err)
		}
		return time.Unix(sec, 0).UTC(), nil
	}
	return time.Unix(0, 0).UTC(), nil
}

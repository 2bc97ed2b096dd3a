package ciimage

import (
	"fmt"
	"os"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// WriteLayout writes img as the only image of a fresh OCI image layout at
// dir, tagged ref (org.opencontainers.image.ref.name), for `crane push DIR`,
// skopeo or podman.
func WriteLayout(dir string, img v1.Image, ref string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("writing OCI layout %s: %w", dir, err)
	}
	annotations := map[string]string{"org.opencontainers.image.ref.name": ref}
	if err := p.AppendImage(img, layout.WithAnnotations(annotations)); err != nil {
		return fmt.Errorf("writing OCI layout %s: %w", dir, err)
	}
	return nil
}

// WriteTarball writes img as a `docker save` style tarball tagged ref, for
// `docker load`, `podman load` and `crane push FILE`.
func WriteTarball(file string, img v1.Image, ref string) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return fmt.Errorf("image reference %q: %w", ref, err)
	}
	if err := tarball.WriteToFile(file, tag, img); err != nil {
		return fmt.Errorf("writing %s: %w", file, err)
	}
	return nil
}

package charts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// Media types of a Helm chart stored in an OCI registry.
const (
	mediaOCIManifest    = "application/vnd.oci.image.manifest.v1+json"
	mediaDockerManifest = "application/vnd.docker.distribution.manifest.v2+json"
	mediaHelmConfig     = "application/vnd.cncf.helm.config.v1+json"
	mediaHelmChart      = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"
	// mediaLegacyChart is what Helm 3.0-3.7 pushed; Helm still reads it.
	mediaLegacyChart = "application/tar+gzip"
)

var manifestAccept = []string{mediaOCIManifest, mediaDockerManifest}

type ociManifest struct {
	MediaType string          `json:"mediaType"`
	Layers    []ociDescriptor `json:"layers"`
}

type ociDescriptor struct {
	MediaType string `json:"mediaType"`
	Digest    string `json:"digest"`
	Size      int64  `json:"size"`
}

func (r *repoRef) repository(chart string) string {
	if r.path == "" {
		return chart
	}
	return r.path + "/" + chart
}

// ociTag is the tag Helm pushes a version under: OCI tags cannot hold
// "+", so build metadata is written with "_".
func ociTag(version string) string { return strings.ReplaceAll(version, "+", "_") }

func (r *repoRef) v2URL(repo, rest string) string {
	return r.base.String() + "/v2/" + repo + "/" + rest
}

func (c *Client) ociVersions(ctx context.Context, r *repoRef, chart string) ([]string, error) {
	tags, err := c.ociTags(ctx, r, chart)
	if err != nil {
		return nil, err
	}
	// Like Helm, only tags that are versions count: registries also hold
	// "latest", signatures and attestations next to charts.
	vs := make([]string, 0, len(tags))
	for _, t := range tags {
		v := strings.ReplaceAll(t, "_", "+")
		if _, err := semver.NewVersion(v); err == nil {
			vs = append(vs, v)
		}
	}
	return sortVersions(vs), nil
}

func (c *Client) ociHasVersion(ctx context.Context, r *repoRef, chart, version string) error {
	repo := r.repository(chart)
	what := fmt.Sprintf("chart %s version %s", chart, version)
	resp, err := c.ociDo(ctx, r, repo, http.MethodHead, r.v2URL(repo, "manifests/"+ociTag(version)), what, manifestAccept...)
	if err != nil {
		return err
	}
	resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		return nil
	case http.StatusNotFound:
		_, err := c.ociResolve(ctx, r, chart, version)
		return err
	}
	return c.ociStatusError(ctx, r, what, resp)
}

// ociResolve runs after an exact tag was not found: it lists the tags to
// tell a missing chart from a missing version, and accepts a tag that is
// the same semantic version written differently ("v1.2.3").
func (c *Client) ociResolve(ctx context.Context, r *repoRef, chart, version string) (string, error) {
	vs, err := c.ociVersions(ctx, r, chart)
	if errors.Is(err, ErrChartNotFound) {
		return "", chartNotFound(r, chart, version)
	}
	if err != nil {
		return "", err
	}
	for _, v := range vs {
		if v != version && sameVersion(v, version) {
			return ociTag(v), nil
		}
	}
	return "", versionNotFound(r, chart, version, vs)
}

func (c *Client) ociFetch(ctx context.Context, r *repoRef, chart, version string) ([]byte, error) {
	what := fmt.Sprintf("chart %s version %s", chart, version)
	m, err := c.ociManifest(ctx, r, chart, ociTag(version), what)
	if m == nil && err == nil {
		tag, rerr := c.ociResolve(ctx, r, chart, version)
		if rerr != nil {
			return nil, rerr
		}
		m, err = c.ociManifest(ctx, r, chart, tag, what)
		if m == nil && err == nil {
			return nil, versionNotFound(r, chart, version, nil)
		}
	}
	if err != nil {
		return nil, err
	}
	layer, err := chartLayer(m, r, what)
	if err != nil {
		return nil, err
	}
	return c.ociBlob(ctx, r, r.repository(chart), layer, what)
}

// ociManifest returns (nil, nil) when the tag does not exist.
func (c *Client) ociManifest(ctx context.Context, r *repoRef, chart, tag, what string) (*ociManifest, error) {
	repo := r.repository(chart)
	resp, err := c.ociDo(ctx, r, repo, http.MethodGet, r.v2URL(repo, "manifests/"+tag), what, manifestAccept...)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, nil
	}
	if resp.StatusCode != http.StatusOK {
		return nil, c.ociStatusError(ctx, r, what, resp)
	}
	data, err := readCapped(resp.Body, maxManifestBytes, what+" manifest", r)
	if err != nil {
		return nil, err
	}
	if d := resp.Header.Get("Docker-Content-Digest"); strings.HasPrefix(d, "sha256:") {
		if err := verifyDigest(data, d, r, what+" manifest"); err != nil {
			return nil, err
		}
	}
	var m ociManifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s in %s: invalid manifest: %v", what, r.display, err)
	}
	return &m, nil
}

func chartLayer(m *ociManifest, r *repoRef, what string) (ociDescriptor, error) {
	for _, want := range []string{mediaHelmChart, mediaLegacyChart} {
		for _, l := range m.Layers {
			if l.MediaType == want {
				return l, nil
			}
		}
	}
	return ociDescriptor{}, fmt.Errorf("%s in %s is not a helm chart: no %s layer", what, r.display, mediaHelmChart)
}

func (c *Client) ociBlob(ctx context.Context, r *repoRef, repo string, layer ociDescriptor, what string) ([]byte, error) {
	if !strings.Contains(layer.Digest, ":") || strings.ContainsAny(layer.Digest, "/?#") {
		return nil, fmt.Errorf("%s in %s: invalid layer digest %q", what, r.display, layer.Digest)
	}
	if layer.Size > maxChartBytes {
		return nil, fmt.Errorf("%s in %s: layer of %d bytes is too large for a chart", what, r.display, layer.Size)
	}
	resp, err := c.ociDo(ctx, r, repo, http.MethodGet, r.v2URL(repo, "blobs/"+layer.Digest), what)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, c.ociStatusError(ctx, r, what, resp)
	}
	data, err := readCapped(resp.Body, maxChartBytes, what, r)
	if err != nil {
		return nil, err
	}
	if err := verifyDigest(data, layer.Digest, r, what); err != nil {
		return nil, err
	}
	return data, nil
}

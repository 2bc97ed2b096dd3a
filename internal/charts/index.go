package charts

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"

	"github.com/gitops-promote/gitops-promote/internal/blockyaml"
)

// index is the part of a repository's index.yaml this package needs.
type index struct {
	APIVersion string                  `yaml:"apiVersion"`
	Entries    map[string][]indexEntry `yaml:"entries"`
}

type indexEntry struct {
	Version string   `yaml:"version"`
	URLs    []string `yaml:"urls"`
	Digest  string   `yaml:"digest"`
}

// parseIndex decodes index.yaml (YAML or JSON). Like Helm it requires
// apiVersion and drops entries without a version instead of failing, since
// public indexes carry the odd broken entry.
func parseIndex(data []byte) (*index, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var idx index
	if err := decodeIndex(data, &idx); err != nil {
		return nil, fmt.Errorf("parse index.yaml: %s", oneLine(err.Error()))
	}
	if idx.APIVersion == "" {
		return nil, errors.New("parse index.yaml: no apiVersion (is this a chart repository?)")
	}
	for name, entries := range idx.Entries {
		kept := entries[:0]
		for _, e := range entries {
			if e.Version != "" {
				kept = append(kept, e)
			}
		}
		idx.Entries[name] = kept
	}
	return &idx, nil
}

// decodeIndex is yaml.Unmarshal of data's first document into idx. The
// plain block YAML that Helm writes index files in is parsed by blockyaml,
// several times faster than yaml.v3's scanner: the index is fetched while
// `promote apply` plans, and the chart check waits for it. blockyaml builds
// the nodes yaml.v3 would, so the decode, and its errors, are yaml.v3's
// (FuzzDecodeIndexEqualsUnmarshal); anything else goes to yaml.v3.
func decodeIndex(data []byte, idx *index) error {
	docs, ok := blockyaml.Parse(data)
	if !ok {
		return yaml.Unmarshal(data, idx)
	}
	if len(docs) == 0 || docs[0] == nil {
		return nil
	}
	return docs[0].Decode(idx)
}

// oneLine keeps multi-line parser messages to one line.
func oneLine(s string) string {
	return string(bytes.Join(bytes.Fields([]byte(s)), []byte(" ")))
}

// loadIndex fetches and parses the repository index once per Client;
// failures are not remembered so a later call can retry.
func (c *Client) loadIndex(ctx context.Context, r *repoRef) (*index, error) {
	return c.indexes.do(ctx, r.display, true, func(ctx context.Context) (*index, error) {
		u := r.indexURL()
		data, err := c.httpGet(ctx, r, u, "index.yaml", maxIndexBytes)
		if err != nil {
			return nil, err
		}
		idx, err := parseIndex(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.display, err)
		}
		return idx, nil
	})
}

// Prefetch loads an HTTP repository's index into the Client, so that a
// later HasVersion or Versions answers without waiting on the network. It
// does nothing for OCI or local repositories (their lookups are per chart).
// Errors are dropped: the lookup that needs the index reports its own.
func (c *Client) Prefetch(ctx context.Context, repoURL string) {
	r, err := c.repo(repoURL)
	if err != nil || r.oci {
		return
	}
	if c.LocalDir != "" {
		return
	}
	_, _ = c.loadIndex(ctx, r)
}

func (c *Client) httpVersions(ctx context.Context, r *repoRef, chart string) ([]string, error) {
	idx, err := c.loadIndex(ctx, r)
	if err != nil {
		return nil, err
	}
	entries, ok := idx.Entries[chart]
	if !ok {
		return nil, chartNotFound(r, chart, "")
	}
	vs := make([]string, len(entries))
	for i, e := range entries {
		vs[i] = e.Version
	}
	return sortVersions(vs), nil
}

// httpEntry finds chart@version in the index, preferring an exact match
// over a semantically equal one.
func (c *Client) httpEntry(ctx context.Context, r *repoRef, chart, version string) (*indexEntry, error) {
	idx, err := c.loadIndex(ctx, r)
	if err != nil {
		return nil, err
	}
	entries, ok := idx.Entries[chart]
	if !ok {
		return nil, chartNotFound(r, chart, version)
	}
	for i := range entries {
		if entries[i].Version == version {
			return &entries[i], nil
		}
	}
	vs := make([]string, len(entries))
	for i := range entries {
		if sameVersion(entries[i].Version, version) {
			return &entries[i], nil
		}
		vs[i] = entries[i].Version
	}
	return nil, versionNotFound(r, chart, version, vs)
}

// chartNotFound names the wanted version too, when there is one: the
// message then says everything the caller asked for.
func chartNotFound(r *repoRef, chart, version string) error {
	if version != "" {
		return wrapf(ErrChartNotFound, "chart %s not found in %s (wanted version %s)", chart, r.display, version)
	}
	return wrapf(ErrChartNotFound, "chart %s not found in %s", chart, r.display)
}

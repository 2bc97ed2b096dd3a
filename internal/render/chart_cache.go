package render

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io/fs"
	"sync"
	"sync/atomic"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	chart4 "helm.sh/helm/v4/pkg/chart"
	loader4 "helm.sh/helm/v4/pkg/chart/loader"
	"helm.sh/helm/v4/pkg/chart/loader/archive"
	c2load "helm.sh/helm/v4/pkg/chart/v2/loader"
	"sigs.k8s.io/yaml"
)

// Every app of a chart version renders the same archive, at both
// revisions. Unpacking it (gzip, tar, Helm's path checks) is done once per
// archive and Helm major; each render still builds its own chart from the
// unpacked files, because Helm writes into the chart it renders (enabled
// dependencies, imported values). The files' bytes are shared: nothing
// writes into them.
type unpacked struct {
	once  sync.Once
	files any // []*loader.BufferedFile (Helm 3) or []*archive.BufferedFile (Helm 4)
	err   error
	v2    bool // Helm 4: a chart the v2 loader reads
}

// maxCachedCharts bounds the cache; past it, archives are unpacked per render.
const maxCachedCharts = 512

type chartCache struct {
	m sync.Map // [32]byte -> *unpacked
	n atomic.Int64
}

var unpacked3, unpacked4, chartFiles chartCache

func (c *chartCache) get(tgz []byte, unpack func(*unpacked)) *unpacked {
	// every archive is checked against its bounds before anything of it
	// is unpacked and kept (archive.go)
	unpack = checked(tgz, unpack)
	key := sha256.Sum256(tgz)
	if v, ok := c.m.Load(key); ok {
		u := v.(*unpacked)
		u.once.Do(func() { unpack(u) })
		return u
	}
	u := &unpacked{}
	if c.n.Load() < maxCachedCharts {
		if v, loaded := c.m.LoadOrStore(key, u); loaded {
			u = v.(*unpacked)
		} else {
			c.n.Add(1)
		}
	}
	u.once.Do(func() { unpack(u) })
	return u
}

func checked(tgz []byte, unpack func(*unpacked)) func(*unpacked) {
	return func(u *unpacked) {
		if u.err = checkArchive(tgz); u.err == nil {
			unpack(u)
		}
	}
}

// loadArchive3 is Helm 3's loader.LoadArchive with the unpacking cached.
func loadArchive3(tgz []byte) (*chart.Chart, error) {
	u := unpacked3.get(tgz, func(u *unpacked) {
		u.files, u.err = loader.LoadArchiveFiles(bytes.NewReader(tgz))
	})
	if errors.Is(u.err, ErrTooLarge) {
		return nil, u.err
	}
	if u.err != nil {
		return loader.LoadArchive(bytes.NewReader(tgz)) // its own error, as Helm words it
	}
	cached := u.files.([]*loader.BufferedFile)
	files := make([]*loader.BufferedFile, len(cached))
	for i, f := range cached {
		c := *f
		files[i] = &c
	}
	return loader.LoadFiles(files)
}

// loadArchive4 is Helm 4's loader.LoadArchive with the unpacking cached,
// for the charts its v2 loader reads (apiVersion v1 and v2); others take
// Helm's own path.
func loadArchive4(tgz []byte) (chart4.Charter, error) {
	u := unpacked4.get(tgz, func(u *unpacked) {
		files, err := archive.LoadArchiveFiles(bytes.NewReader(tgz))
		u.files, u.err = files, err
		for _, f := range files {
			if f.Name == "Chart.yaml" {
				var base struct {
					APIVersion string `json:"apiVersion,omitempty"`
				}
				if yaml.Unmarshal(f.Data, &base) == nil {
					u.v2 = base.APIVersion == "v1" || base.APIVersion == "v2" || base.APIVersion == ""
				}
				break // Helm reads the first Chart.yaml
			}
		}
	})
	if errors.Is(u.err, ErrTooLarge) {
		return nil, u.err
	}
	if u.err != nil || !u.v2 {
		return loader4.LoadArchive(bytes.NewReader(tgz))
	}
	cached := u.files.([]*archive.BufferedFile)
	files := make([]*archive.BufferedFile, len(cached))
	for i, f := range cached {
		c := *f
		files[i] = &c
	}
	return c2load.LoadFiles(files)
}

// cachedChartFS is chartFS once per archive: a read-only view.
func cachedChartFS(tgz []byte) (fs.FS, error) {
	u := chartFiles.get(tgz, func(u *unpacked) { u.files, u.err = chartFS(tgz) })
	if u.err != nil {
		return nil, u.err
	}
	return u.files.(fs.FS), nil
}

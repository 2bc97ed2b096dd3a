package manifestdiff

import (
	"io/fs"
	"strings"

	"github.com/gitops-promote/gitops-promote/internal/report"
	"github.com/gitops-promote/gitops-promote/internal/versions"
)

// moveFinder finds the version moves of each app (report.Move): what the
// report leads with and what lets it fold the changes that only follow
// from them. It reads each env's versions file at both revisions once.
type moveFinder struct {
	d     *Diff
	byEnv map[string][]report.Move // the versions file's moved version fields
}

func (d *Diff) newMoveFinder() *moveFinder {
	return &moveFinder{d: d, byEnv: map[string][]report.Move{}}
}

// of lists the moves that reach p's app: each chart source whose version
// moves (its targetRevision), then the version fields its chart's
// component moves in the env's versions file (an image tag), each once.
func (f *moveFinder) of(p *pair) []report.Move {
	if p.base == nil || p.head == nil || p.result.Status != report.StatusChanged {
		return nil
	}
	file := f.versionMoves(p.env)
	var out []report.Move
	add := func(m report.Move) {
		for _, o := range out {
			if o.Component == m.Component && o.Old == m.Old && o.New == m.New {
				return // the versions file's chartVersion and the targetRevision it sets
			}
		}
		out = append(out, m)
	}
	for _, hs := range p.head.Sources {
		if hs.Chart == "" {
			continue
		}
		comp := f.component(hs.Chart)
		for _, bs := range p.base.Sources {
			if bs.Chart == hs.Chart && bs.RepoURL == hs.RepoURL && bs.TargetRevision != hs.TargetRevision {
				add(report.Move{Component: comp, Field: "targetRevision", Old: bs.TargetRevision, New: hs.TargetRevision})
			}
		}
		for _, m := range file {
			if m.Component == comp {
				add(m)
			}
		}
	}
	return out
}

// component names a chart as the report does: its component's key, or the
// chart itself when no component pins it.
func (f *moveFinder) component(chart string) string {
	if c, ok := f.d.Config.ComponentByChart(chart); ok {
		return c.Key
	}
	return chart
}

// versionMoves are the version fields (chartVersion, and any field whose
// name says tag, version or digest) that env's versions file moves
// between the revisions. A file missing or unreadable at either revision
// moves nothing: the story is then told from targetRevisions alone, and
// the renders report what is wrong with the file.
func (f *moveFinder) versionMoves(env string) []report.Move {
	if ms, ok := f.byEnv[env]; ok {
		return ms
	}
	var ms []report.Move
	base, errB := f.read(f.d.Base, env)
	head, errH := f.read(f.d.Head, env)
	if errB == nil && errH == nil {
		for _, hc := range head.Components {
			bc, _ := base.Component(hc.Key)
			if !hc.Found || !bc.Found {
				continue
			}
			for _, hf := range hc.Fields {
				bf, ok := bc.Field(hf.Key)
				if ok && bf.Value != hf.Value && versionField(hf.Key) {
					ms = append(ms, report.Move{Component: hc.Key, Field: hf.Key, Old: bf.Value, New: hf.Value})
				}
			}
		}
	}
	f.byEnv[env] = ms
	return ms
}

func (f *moveFinder) read(s Side, env string) (*versions.File, error) {
	cfg := f.d.Config
	if s.Config != nil {
		cfg = s.Config
	}
	path := cfg.VersionsPath(env)
	data, err := fs.ReadFile(s.FS, path)
	if err != nil {
		return nil, err
	}
	return versions.Read(path, data, f.d.Config.Components)
}

// versionField says whether a versions-file field pins a version: a
// replica count moving is a person's change, not a promotion's.
func versionField(key string) bool {
	k := strings.ToLower(key)
	return key == versions.ChartVersionKey || strings.Contains(k, "tag") || strings.Contains(k, "version") || strings.Contains(k, "digest")
}

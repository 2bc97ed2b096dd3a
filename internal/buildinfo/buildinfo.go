// Package buildinfo says which build of the tools is running: module
// version, commit, build date, Go version and the Helm SDK version.
//
// Everything comes from the build information the Go toolchain stamps into
// every binary (debug.ReadBuildInfo, also shown by `go version -m`): the
// module version and, when built from a git checkout, the commit and its
// time. Release builds override any of it with the linker:
//
//	go build -ldflags "-X github.com/gitops-promote/gitops-promote/internal/buildinfo.version=v1.2.0
//	  -X github.com/gitops-promote/gitops-promote/internal/buildinfo.commit=<sha>
//	  -X github.com/gitops-promote/gitops-promote/internal/buildinfo.date=2026-11-22T21:00:00Z"
//
// and `go version -m` then shows those flags too. `make build` sets the
// commit, modified and date this way, because the toolchain stamps no
// commit in a git worktree (its .git is a file) or under -buildvcs=false.
package buildinfo

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// Set by -ldflags -X in release builds; empty means "read the stamped build
// information".
var (
	version  string
	commit   string
	modified string // "true" when built from a work tree with uncommitted changes
	date     string
	helmSDK  string
)

// HelmModule is the Helm SDK module manifestdiff renders with.
const HelmModule = "helm.sh/helm/v3"

// helmRequired is the Helm SDK version go.mod requires. promote does not
// link Helm (it must start in milliseconds), so its build information has
// no Helm dependency to read; TestHelmRequiredMatchesGoMod keeps this true.
const helmRequired = "v3.22.0"

// Info describes one build.
type Info struct {
	Version   string `json:"version"`          // module version, "(devel)" for a plain local build
	Commit    string `json:"commit,omitempty"` // full commit hash, when known
	Modified  bool   `json:"modified"`         // built from a work tree with uncommitted changes
	Date      string `json:"date,omitempty"`   // RFC 3339 build date (release builds), else the commit time
	DateKind  string `json:"dateKind"`         // "build", "commit" or "unknown": what Date is
	GoVersion string `json:"goVersion"`        // e.g. go1.26.0
	Platform  string `json:"platform"`         // GOOS/GOARCH
	HelmSDK   string `json:"helmSDK"`          // Helm SDK version of this release
	HelmInBin bool   `json:"helmLinked"`       // whether this binary links the Helm SDK
}

// Get reads the running binary's build information.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return from(bi, overrides{version: version, commit: commit, modified: modified, date: date, helmSDK: helmSDK})
}

type overrides struct{ version, commit, modified, date, helmSDK string }

func from(bi *debug.BuildInfo, ov overrides) Info {
	info := Info{Version: "(devel)", DateKind: "unknown", GoVersion: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH, HelmSDK: helmRequired}
	if bi != nil {
		if bi.Main.Version != "" {
			info.Version = bi.Main.Version
		}
		if bi.GoVersion != "" {
			info.GoVersion = bi.GoVersion
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Commit = s.Value
			case "vcs.time":
				info.Date, info.DateKind = s.Value, "commit"
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
		for _, d := range bi.Deps {
			if d.Path == HelmModule {
				info.HelmSDK, info.HelmInBin = d.Version, true
				if d.Replace != nil {
					info.HelmSDK = d.Replace.Version
				}
			}
		}
		// Go stamps "+dirty" into a pseudo-version built from a modified tree.
		if strings.HasSuffix(info.Version, "+dirty") {
			info.Modified = true
		}
	}
	if ov.version != "" {
		info.Version = ov.version
	}
	if ov.commit != "" {
		info.Commit, info.Modified = ov.commit, ov.modified == "true"
	}
	if ov.date != "" {
		info.Date, info.DateKind = ov.date, "build"
	}
	if ov.helmSDK != "" {
		info.HelmSDK = ov.helmSDK
	}
	return info
}

// ShortCommit is the commit's first 12 hex digits, or "unknown".
func (i Info) ShortCommit() string {
	switch {
	case i.Commit == "":
		return "unknown"
	case len(i.Commit) > 12:
		return i.Commit[:12]
	}
	return i.Commit
}

// Package buildinfo says which build of the tools is running: module
// version, commit, build date, Go version and the Helm SDKs it links.
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
	"time"
)

// Set by -ldflags -X in release builds; empty means "read the stamped build
// information".
var (
	version  string
	commit   string
	modified string // "true" when built from a work tree with uncommitted changes
	date     string
)

// HelmSDK is one Helm SDK linked into a binary: manifestdiff renders with
// the major the configured Argo CD bundles.
type HelmSDK struct {
	Module  string `json:"module"`  // e.g. helm.sh/helm/v4
	Version string `json:"version"` // as linked; a replacement's version when go.mod replaces the module
	ArgoCD  string `json:"argocd"`  // the Argo CD releases whose repo-server bundles this major
}

// helmSDKs are the Helm SDKs manifestdiff links, newest major first, at
// the versions go.mod requires (TestHelmSDKsMatchGoMod keeps them so),
// and the Argo CD releases each stands for (config.ArgoCD.HelmMajor,
// TestHelmSDKsMatchArgoCD).
var helmSDKs = []HelmSDK{
	{Module: "helm.sh/helm/v4", Version: "v4.3.1", ArgoCD: ">= 3.5"},
	{Module: "helm.sh/helm/v3", Version: "v3.22.0", ArgoCD: "< 3.5"},
}

// Info describes one build.
type Info struct {
	Version   string `json:"version"`          // module version, "(devel)" for a plain local build
	Commit    string `json:"commit,omitempty"` // full commit hash, when known
	Modified  bool   `json:"modified"`         // built from a work tree with uncommitted changes
	Date      string `json:"date,omitempty"`   // RFC 3339 build date (release builds), else the commit time
	DateKind  string `json:"dateKind"`         // "build", "commit" or "unknown": what Date is
	GoVersion string `json:"goVersion"`        // e.g. go1.26.0
	Platform  string `json:"platform"`         // GOOS/GOARCH
	// Helm lists the Helm SDKs linked into this binary, newest major
	// first: both in manifestdiff, none in promote (which renders nothing
	// and must start in milliseconds).
	Helm []HelmSDK `json:"helm"`
}

// Get reads the running binary's build information.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return from(bi, overrides{version: version, commit: commit, modified: modified, date: date})
}

type overrides struct{ version, commit, modified, date string }

func from(bi *debug.BuildInfo, ov overrides) Info {
	info := Info{Version: "(devel)", DateKind: "unknown", GoVersion: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH, Helm: []HelmSDK{}}
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
				info.Date, info.DateKind = utc(s.Value), "commit"
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
		info.Helm = linkedHelm(bi.Deps)
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
		info.Date, info.DateKind = utc(ov.date), "build"
	}
	return info
}

// utc writes an RFC 3339 time in UTC with "Z", as every date of the tools
// and the image is: `git log --format=%cI`, which release tools pass for
// the date, keeps the committer's offset ("+00:00", "+02:00"). Anything
// else is kept as it came.
func utc(s string) string {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return s
	}
	return t.UTC().Format(time.RFC3339)
}

// linkedHelm returns the Helm SDKs among a binary's dependencies, in
// helmSDKs' order. Go lists only the modules whose packages are linked,
// so a binary that does not import Helm lists none.
func linkedHelm(deps []*debug.Module) []HelmSDK {
	out := []HelmSDK{}
	for _, sdk := range helmSDKs {
		for _, d := range deps {
			if d.Path != sdk.Module {
				continue
			}
			sdk.Version = d.Version
			if d.Replace != nil && d.Replace.Version != "" {
				sdk.Version = d.Replace.Version
			}
			out = append(out, sdk)
		}
	}
	return out
}

// HelmSDKs are the Helm SDKs manifestdiff links, whichever binary asks.
func HelmSDKs() []HelmSDK { return append([]HelmSDK(nil), helmSDKs...) }

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

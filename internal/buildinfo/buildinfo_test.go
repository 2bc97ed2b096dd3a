package buildinfo

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gitops-promote/gitops-promote/internal/config"
)

// Stamped build information as `go version -m` prints it (tabs as Go writes
// them), from a build of a clean clone and of a plain local build.
const (
	cloneBuild = "go\tgo1.26.8\n" +
		"path\tgithub.com/gitops-promote/gitops-promote/cmd/manifestdiff\n" +
		"mod\tgithub.com/gitops-promote/gitops-promote\tv0.0.0-20261122205925-3720d9297760\t\n" +
		"dep\thelm.sh/helm/v3\tv3.22.0\th1:n1if5iQgHYsujPAcO5oonH/KiSNUmqmUF0iGVjSF3AU=\n" +
		"dep\thelm.sh/helm/v4\tv4.3.1\th1:n1if5iQgHYsujPAcO5oonH/KiSNUmqmUF0iGVjSF3AU=\n" +
		"build\t-compiler=gc\n" +
		"build\tvcs=git\n" +
		"build\tvcs.revision=3720d9297760bc860d0d6ce3f2bfb4a78d06e53c\n" +
		"build\tvcs.time=2026-11-22T20:59:25Z\n" +
		"build\tvcs.modified=false\n"
	dirtyBuild = "go\tgo1.26.8\n" +
		"path\tgithub.com/gitops-promote/gitops-promote/cmd/promote\n" +
		"mod\tgithub.com/gitops-promote/gitops-promote\tv0.0.0-20261122205925-3720d9297760+dirty\t\n" +
		"build\tvcs.revision=3720d9297760bc860d0d6ce3f2bfb4a78d06e53c\n" +
		"build\tvcs.modified=true\n"
	localBuild = "go\tgo1.26.8\n" +
		"path\tgithub.com/gitops-promote/gitops-promote/cmd/promote\n" +
		"mod\tgithub.com/gitops-promote/gitops-promote\t(devel)\t\n" +
		"build\t-compiler=gc\n"
	replacedHelm = "go\tgo1.26.8\n" +
		"path\tgithub.com/gitops-promote/gitops-promote/cmd/manifestdiff\n" +
		"mod\tgithub.com/gitops-promote/gitops-promote\t(devel)\t\n" +
		"dep\thelm.sh/helm/v3\tv3.22.0\t\n" +
		"=>\t../helm\tv3.22.1-fork\t\n" +
		"dep\thelm.sh/helm/v4\tv4.3.1\t\n"
)

// both is what a manifestdiff built from this module links.
var both = []HelmSDK{
	{Module: "helm.sh/helm/v4", Version: "v4.3.1", ArgoCD: ">= 3.5"},
	{Module: "helm.sh/helm/v3", Version: "v3.22.0", ArgoCD: "< 3.5"},
}

func TestFrom(t *testing.T) {
	base := Info{GoVersion: "go1.26.8", Helm: []HelmSDK{}}
	with := func(f func(*Info)) Info {
		i := base
		i.Platform = Get().Platform
		f(&i)
		return i
	}
	tests := []struct {
		name  string
		stamp string
		ov    overrides
		want  Info
	}{
		{"clone of a tag-less repo", cloneBuild, overrides{}, with(func(i *Info) {
			i.Version = "v0.0.0-20261122205925-3720d9297760"
			i.Commit = "3720d9297760bc860d0d6ce3f2bfb4a78d06e53c"
			i.Date, i.DateKind = "2026-11-22T20:59:25Z", "commit"
			i.Helm = both
		})},
		{"modified work tree", dirtyBuild, overrides{}, with(func(i *Info) {
			i.Version = "v0.0.0-20261122205925-3720d9297760+dirty"
			i.Commit = "3720d9297760bc860d0d6ce3f2bfb4a78d06e53c"
			i.Modified, i.DateKind = true, "unknown"
		})},
		{"plain local build knows only the toolchain", localBuild, overrides{}, with(func(i *Info) {
			i.Version, i.DateKind = "(devel)", "unknown"
		})},
		{"release build: the linker's values win", cloneBuild,
			overrides{version: "v1.2.0", commit: "abc123", date: "2026-12-01T10:00:00Z"},
			with(func(i *Info) {
				i.Version, i.Commit = "v1.2.0", "abc123"
				i.Date, i.DateKind = "2026-12-01T10:00:00Z", "build"
				i.Helm = both
			})},
		{"make build in a worktree: commit and date from the linker", localBuild,
			overrides{commit: "3720d9297760bc860d0d6ce3f2bfb4a78d06e53c", modified: "true", date: "2026-12-01T10:00:00Z"},
			with(func(i *Info) {
				i.Version, i.Commit, i.Modified = "(devel)", "3720d9297760bc860d0d6ce3f2bfb4a78d06e53c", true
				i.Date, i.DateKind = "2026-12-01T10:00:00Z", "build"
			})},
		{"replaced helm module reports the replacement", replacedHelm, overrides{}, with(func(i *Info) {
			i.Version, i.DateKind = "(devel)", "unknown"
			i.Helm = []HelmSDK{both[0], {Module: "helm.sh/helm/v3", Version: "v3.22.1-fork", ArgoCD: "< 3.5"}}
		})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bi, err := debug.ParseBuildInfo(tt.stamp)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, from(bi, tt.ov)); diff != "" {
				t.Errorf("from() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// Dates are RFC 3339 in UTC with "Z" whatever offset the stamp carries
// (git log --format=%cI keeps the committer's).
func TestDatesInUTC(t *testing.T) {
	for in, want := range map[string]string{
		"2026-11-22T23:52:32+00:00": "2026-11-22T23:52:32Z",
		"2026-11-23T01:52:32+02:00": "2026-11-22T23:52:32Z",
		"2026-11-22T23:52:32Z":      "2026-11-22T23:52:32Z",
		"yesterday":                 "yesterday",
	} {
		if got := from(nil, overrides{date: in}).Date; got != want {
			t.Errorf("build date %q shows as %q, want %q", in, got, want)
		}
	}
	bi, err := debug.ParseBuildInfo(localBuild + "build\tvcs.time=2026-11-23T01:52:32+02:00\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := from(bi, overrides{}).Date; got != "2026-11-22T23:52:32Z" {
		t.Errorf("commit time shows as %q", got)
	}
}

func TestFromWithoutBuildInfo(t *testing.T) {
	got := from(nil, overrides{version: "v1.0.0"})
	if got.Version != "v1.0.0" || got.Helm == nil || len(got.Helm) != 0 || got.GoVersion == "" || got.Platform == "" {
		t.Errorf("from(nil) = %+v", got)
	}
}

// The test binary itself carries real stamped build information.
func TestGetReadsTheRunningBinary(t *testing.T) {
	got := Get()
	// this test binary links no Helm, as promote does not
	if got.GoVersion == "" || !strings.HasPrefix(got.GoVersion, "go") || got.Version == "" || got.Helm == nil || len(got.Helm) != 0 {
		t.Errorf("Get() = %+v", got)
	}
}

func TestShortCommit(t *testing.T) {
	for in, want := range map[string]string{"": "unknown", "abc": "abc",
		"3720d9297760bc860d0d6ce3f2bfb4a78d06e53c": "3720d9297760"} {
		if got := (Info{Commit: in}).ShortCommit(); got != want {
			t.Errorf("ShortCommit(%q) = %q, want %q", in, got, want)
		}
	}
}

// The Helm SDK versions are what go.mod requires: a binary that does not
// link Helm cannot read them from its build information, and a build
// that does must agree with them (TestFrom's fixtures are go.mod's).
func TestHelmSDKsMatchGoMod(t *testing.T) {
	data, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	required := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(f) >= 2 {
			required[f[0]] = f[1]
		}
	}
	for _, sdk := range HelmSDKs() {
		if got := required[sdk.Module]; got != sdk.Version {
			t.Errorf("go.mod requires %s %q, buildinfo says %s: update helmSDKs", sdk.Module, got, sdk.Version)
		}
	}
	if len(HelmSDKs()) != 2 {
		t.Errorf("HelmSDKs() = %v, want Helm 4 and Helm 3", HelmSDKs())
	}
}

// Each SDK names the Argo CD releases config.ArgoCD.HelmMajor gives it.
func TestHelmSDKsMatchArgoCD(t *testing.T) {
	major := map[string]int{"helm.sh/helm/v4": 4, "helm.sh/helm/v3": 3}
	for _, v := range []string{"2.14", "3.0", "3.4", "3.4.9", "3.5", "3.6", "4.0"} {
		want := config.ArgoCD{Version: v}.HelmMajor()
		var got []int
		for _, sdk := range HelmSDKs() {
			if covers(t, sdk.ArgoCD, v) {
				got = append(got, major[sdk.Module])
			}
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("Argo CD %s: SDKs %v claim it, config renders it with Helm %d", v, got, want)
		}
	}
}

// covers evaluates ">= 3.5" or "< 3.5" for an Argo CD version.
func covers(t *testing.T, rng, version string) bool {
	t.Helper()
	op, bound, _ := strings.Cut(rng, " ")
	cmp := compareMinor(t, version, bound)
	switch op {
	case ">=":
		return cmp >= 0
	case "<":
		return cmp < 0
	}
	t.Fatalf("range %q", rng)
	return false
}

func compareMinor(t *testing.T, a, b string) int {
	t.Helper()
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := range 2 {
		x, err1 := strconv.Atoi(pa[i])
		y, err2 := strconv.Atoi(pb[i])
		if err1 != nil || err2 != nil {
			t.Fatalf("versions %q %q", a, b)
		}
		if x != y {
			return x - y
		}
	}
	return 0
}

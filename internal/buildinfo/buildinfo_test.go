package buildinfo

import (
	"os"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Stamped build information as `go version -m` prints it (tabs as Go writes
// them), from a build of a clean clone and of a plain local build.
const (
	cloneBuild = "go\tgo1.26.8\n" +
		"path\tgithub.com/gitops-promote/gitops-promote/cmd/manifestdiff\n" +
		"mod\tgithub.com/gitops-promote/gitops-promote\tv0.0.0-20261122205925-3720d9297760\t\n" +
		"dep\thelm.sh/helm/v3\tv3.22.0\th1:n1if5iQgHYsujPAcO5oonH/KiSNUmqmUF0iGVjSF3AU=\n" +
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
		"=>\t../helm\tv3.22.1-fork\t\n"
)

func TestFrom(t *testing.T) {
	base := Info{GoVersion: "go1.26.8", HelmSDK: helmRequired}
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
			i.HelmSDK, i.HelmInBin = "v3.22.0", true
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
			overrides{version: "v1.2.0", commit: "abc123", date: "2026-12-01T10:00:00Z", helmSDK: "v3.22.0"},
			with(func(i *Info) {
				i.Version, i.Commit = "v1.2.0", "abc123"
				i.Date, i.DateKind = "2026-12-01T10:00:00Z", "build"
				i.HelmSDK, i.HelmInBin = "v3.22.0", true
			})},
		{"make build in a worktree: commit and date from the linker", localBuild,
			overrides{commit: "3720d9297760bc860d0d6ce3f2bfb4a78d06e53c", modified: "true", date: "2026-12-01T10:00:00Z"},
			with(func(i *Info) {
				i.Version, i.Commit, i.Modified = "(devel)", "3720d9297760bc860d0d6ce3f2bfb4a78d06e53c", true
				i.Date, i.DateKind = "2026-12-01T10:00:00Z", "build"
			})},
		{"replaced helm module reports the replacement", replacedHelm, overrides{}, with(func(i *Info) {
			i.Version, i.DateKind = "(devel)", "unknown"
			i.HelmSDK, i.HelmInBin = "v3.22.1-fork", true
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

func TestFromWithoutBuildInfo(t *testing.T) {
	got := from(nil, overrides{version: "v1.0.0"})
	if got.Version != "v1.0.0" || got.HelmSDK != helmRequired || got.GoVersion == "" || got.Platform == "" {
		t.Errorf("from(nil) = %+v", got)
	}
}

// The test binary itself carries real stamped build information.
func TestGetReadsTheRunningBinary(t *testing.T) {
	got := Get()
	if got.GoVersion == "" || !strings.HasPrefix(got.GoVersion, "go") || got.Version == "" || got.HelmSDK == "" {
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

// promote does not link Helm, so the Helm SDK version it reports is the
// constant; it must be the version go.mod requires.
func TestHelmRequiredMatchesGoMod(t *testing.T) {
	data, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(f) >= 2 && f[0] == HelmModule {
			if f[1] != helmRequired {
				t.Fatalf("go.mod requires %s %s, buildinfo.helmRequired is %s: update it", HelmModule, f[1], helmRequired)
			}
			return
		}
	}
	t.Fatalf("go.mod does not require %s", HelmModule)
}

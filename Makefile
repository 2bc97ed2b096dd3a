# gitops-promote: build, test, demo and benchmark targets.
GO      ?= go
BIN     := bin
GOFLAGS_TEST ?=

# Every target builds and tests without cgo, as release builds are made:
# the tests link the release binaries too, and one cgo setting compiles the
# dependency graph once instead of twice (net's cgo resolver changes every
# package above it). Only the race detector needs cgo.
CGO_ENABLED ?= 0
export CGO_ENABLED

# Build stamps, read by internal/buildinfo (`promote --version`) and shown
# by `go version -m`. The toolchain stamps no commit in a git worktree or
# under -buildvcs=false, so make passes it; release builds also set VERSION.
BUILDINFO := github.com/gitops-promote/gitops-promote/internal/buildinfo
VERSION   ?=
COMMIT    ?= $(shell git rev-parse HEAD 2>/dev/null)
MODIFIED  ?= $(shell test -n "$$(git status --porcelain --untracked-files=no 2>/dev/null)" && echo true)
DATE      ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS   := -X $(BUILDINFO).commit=$(COMMIT) -X $(BUILDINFO).modified=$(MODIFIED) -X $(BUILDINFO).date=$(DATE) \
             $(if $(VERSION),-X $(BUILDINFO).version=$(VERSION))

.PHONY: all build test test-crash test-short test-live test-browser test-argocd demo demo-clean bench bench-html lint fuzz man clean release-snapshot image test-ci-local ci-lint

all: build

# Static binaries (no cgo): they run on any CI image, and promote starts
# without the dynamic loader (0.6 ms of a ~17 ms apply).
build:
	CGO_ENABLED=0 $(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/promote ./cmd/promote
	CGO_ENABLED=0 $(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/manifestdiff ./cmd/manifestdiff

# Man pages of both tools (cobra/doc, which uses go-md2man), into
# $(BIN)/man/man1: `man -l bin/man/man1/promote-plan.1`, or MANPATH=bin/man.
# Only builds with -tags mangen have the hidden verb that writes them.
man:
	$(GO) run -tags mangen ./cmd/promote man $(BIN)/man/man1
	$(GO) run -tags mangen ./cmd/manifestdiff man $(BIN)/man/man1

# The whole suite: unit, golden, integration (real git, real chart repo).
# One vet, with the build tags of the suites their own targets run, so
# those still compile; go test's own vet (a subset of the same checks,
# run again over every dependency for facts) is off here and in those
# targets. No per-package time
# limit: a loaded machine slows every package, and a limit it trips fails
# a suite that passes; a test that can hang bounds itself.
test:
	$(GO) vet -tags live,browser,crashtest,bundled,mangen,parity ./...
	$(GO) test -count=1 -timeout 0 -vet=off $(GOFLAGS_TEST) ./...
	# tree views read one repository from many goroutines without its lock
	# (internal/git/objects.go): their concurrency test under the race
	# detector, which needs cgo
	CGO_ENABLED=1 $(GO) test -count=1 -vet=off -race -run 'Concurrent' ./internal/git

# promote killed at every durable step (under strace), killed mid-apply,
# and racing pushers (64 at once): the crashtest-tagged tests of
# cmd/promote, which run promote hundreds of times. TestTagTargets holds
# CRASH_TESTS to every test those files define.
CRASH_TESTS := ^Test(CrashAtEveryStep|CrashPointsCoverEverySyscall|KillDuringApply|ManyConcurrentPushersAllLand|PushGivesUpSayingWhatItTried|ConcurrentPinPushAllLand)
test-crash:
	$(GO) test -tags crashtest -count=1 -timeout 0 -vet=off $(GOFLAGS_TEST) -run '$(CRASH_TESTS)' ./cmd/promote/

test-short:
	$(GO) test -short ./...

# The live diff against a real kube-apiserver and etcd (build tag live).
# scripts/kube-build.sh builds both from the Go module proxy once into
# ~/.cache/gitops-promote/kube/ (10-20 min cold, see README); the tests
# generate their GitOps repo with scripts/gen_gitops_repo.py.
test-live:
	ARGOCD_GO=$(ARGOCD_GO) ./scripts/kube-build.sh >/dev/null
	KUBE_ASSETS="$$(ARGOCD_GO=$(ARGOCD_GO) ./scripts/kube-build.sh)" \
		$(GO) test -tags live -count=1 -timeout 30m -vet=off $(GOFLAGS_TEST) -run TestLive ./internal/manifestdiff/ ./internal/syncready/

# The Argo CD parity suite (test/argocd-parity, a module of its own: Argo
# CD v3.6 needs Go 1.27, fetched as a toolchain there only): every app of
# its corpora rendered by manifestdiff (built with -tags parity, which adds
# a hidden verb printing each app's objects) and by Argo CD's own code, in
# process, with the helm and kustomize Argo CD bundles on PATH. It runs
# without go test's vet, which `make test`'s vet does not cover (another
# module): for the suite's few files, that vet would type-check Argo CD's
# whole graph again for facts, 72 s of CPU beside the suite's 188 s
# compile (measured 2026-11-29).
# First the bundled-tagged tests: our rendering against (or with charts
# pushed by) the helm 3, helm 4
# and kustomize binaries Argo CD bundles, built from the module proxy
# (internal/testutil/toolbin, 5-10 min each cold). TestTagTargets holds
# BUNDLED_TESTS to every test those files define.
ARGOCD_GO ?= go1.27.4
BUNDLED_TESTS := Parity$$|^TestInstall$$|^TestKustomize(SourceHelmCharts|HelmPullErrors)$$
test-argocd:
	$(GO) test -tags bundled -count=1 -timeout 0 -vet=off $(GOFLAGS_TEST) -run '$(BUNDLED_TESTS)' ./internal/render/ ./internal/testutil/toolbin/
	CGO_ENABLED=0 $(GO) build -tags parity -o $(BIN)/manifestdiff-parity ./cmd/manifestdiff
	tools="$$($(GO) run ./internal/testutil/toolbin/install | paste -sd:)" && \
	cd test/argocd-parity && GOTOOLCHAIN=$(ARGOCD_GO) PARITY_MANIFESTDIFF=$(CURDIR)/$(BIN)/manifestdiff-parity \
		PARITY_TOOLS="$$tools" $(GO) test -count=1 -timeout 0 -vet=off $(GOFLAGS_TEST) .

# The HTML report in a real browser: Debian's headless chromium (installed
# here when missing), driven by chromedp. Only files tagged `browser` need
# it, so `make test` does not.
BROWSER_PKGS := ./internal/testutil/browser ./internal/report/html/... ./cmd/manifestdiff/...
test-browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  command -v apt-get >/dev/null 2>&1 || { echo "test-browser: chromium is missing and apt-get is not here to install it" >&2; exit 1; }; \
	  echo "test-browser: installing Debian's chromium" >&2; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
	$(GO) test -count=1 -tags browser -vet=off -run Browser $(BROWSER_PKGS)

# Runs a real promotion plan + apply on the bundled example repo, in a
# playground directory (./demo) that stays for you to try more; demo-clean
# removes it.
demo: build
	./scripts/demo.sh

demo-clean:
	@if [ -e demo/.gitops-promote-demo ]; then rm -rf demo; elif [ -e demo ]; then echo "demo/ is not a demo playground: left alone" >&2; exit 1; fi

# Compares our tools with the shell baseline they replace (scripts/baseline),
# on generated repos (scripts/gen_gitops_repo.py); see docs/benchmarks.md.
bench: build
	./scripts/bench.sh

# The HTML report on generated 12- and 50-node promotions: size, time to
# render in chromium, and the screenshots of docs/ (see docs/benchmarks.md).
bench-html: build
	BENCH_ONLY=html BENCH_MANIFESTDIFF=0 ./scripts/bench.sh

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet ./...

# A short fuzz pass over every fuzz target (corpus under testdata/fuzz).
fuzz:
	./scripts/fuzz.sh 20s

clean:
	rm -rf $(BIN) dist

# ---- distribution: release builds, CI image, GitLab CI component ----------
# The image's version: VERSION (a release), else the nearest tag or the
# short commit. Its binaries and its creation time carry the commit's time,
# not the build's, so a rebuild of the same commit gives the same digest.
# No -trimpath, as in release builds: `go version -m` shows the -ldflags.
IMAGE_VERSION := $(or $(VERSION),$(shell git describe --tags --always --dirty 2>/dev/null),dev)
# RFC 3339 in UTC with Z, as every other date (%cI keeps the committer's offset)
COMMIT_DATE   := $(shell TZ=UTC0 git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd 2>/dev/null)
IMAGE_LDFLAGS := -s -w -X $(BUILDINFO).version=$(IMAGE_VERSION) -X $(BUILDINFO).commit=$(COMMIT) \
                 -X $(BUILDINFO).modified=$(MODIFIED) -X $(BUILDINFO).date=$(COMMIT_DATE)
IMAGE     ?= gitops-promote
TOOLS     := ./scripts/tools.sh

# Static linux/darwin x amd64/arm64 archives of both binaries, checksums and
# one SBOM per binary, in dist/release (GoReleaser, installed once per machine).
release-snapshot:
	"$$($(TOOLS) goreleaser)" release --snapshot --clean

# The CI image (internal/ciimage): from scratch, both static binaries,
# Debian's busybox-static and CA bundle, user 65532. Writes an OCI layout
# (dist/image/oci) and a tarball (dist/image/gitops-promote.tar).
image:
	mkdir -p dist/image/bin
	CGO_ENABLED=0 GOOS=linux $(GO) build -ldflags '$(IMAGE_LDFLAGS)' -o dist/image/bin/promote ./cmd/promote
	CGO_ENABLED=0 GOOS=linux $(GO) build -ldflags '$(IMAGE_LDFLAGS)' -o dist/image/bin/manifestdiff ./cmd/manifestdiff
	$(GO) run ./build/image --binaries dist/image/bin/promote,dist/image/bin/manifestdiff \
		--ref $(IMAGE):$(IMAGE_VERSION) --version $(IMAGE_VERSION) --revision $(COMMIT) --created $(COMMIT_DATE) \
		--layout dist/image/oci --tarball dist/image/gitops-promote.tar

# The GitLab CI/CD component's jobs (templates/) run by gitlab-ci-local on a
# generated GitOps repo, and every pipeline file checked against GitLab's
# CI schema. Installs gitlab-ci-local (npm) once per machine.
test-ci-local: build
	./scripts/test-ci-local.sh

# Only the schema check of .gitlab-ci.yml and templates/ (fast, no jobs run).
ci-lint:
	./scripts/test-ci-local.sh --lint-only

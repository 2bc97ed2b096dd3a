# gitops-promote: build, test, demo and benchmark targets.
GO      ?= go
BIN     := bin
SHARED  ?= ../shared
GOFLAGS_TEST ?=

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

.PHONY: all build test test-short test-live test-browser demo bench bench-html lint fuzz man clean

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
test:
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m $(GOFLAGS_TEST) ./...

test-short:
	$(GO) test -short ./...

# The live diff against a real kube-apiserver and etcd (build tag live).
# scripts/kube-build.sh builds both from the Go module proxy once into
# ~/.cache/gitops-promote/kube/ (10-20 min cold, see README); the tests
# generate their GitOps repo with $(SHARED)/bench/gen_gitops_repo.py.
test-live:
	./scripts/kube-build.sh >/dev/null
	KUBE_ASSETS="$$(./scripts/kube-build.sh)" SHARED="$(abspath $(SHARED))" \
		$(GO) test -tags live -count=1 -timeout 30m $(GOFLAGS_TEST) -run TestLive ./internal/manifestdiff/

# The HTML report in a real browser: Debian's headless chromium (installed
# here when missing), driven by chromedp. Only files tagged `browser` need
# it, so `make test` does not.
BROWSER_PKGS := ./internal/report/html/... ./cmd/manifestdiff/...
test-browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  command -v apt-get >/dev/null 2>&1 || { echo "test-browser: chromium is missing and apt-get is not here to install it" >&2; exit 1; }; \
	  echo "test-browser: installing Debian's chromium" >&2; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
	$(GO) test -count=1 -tags browser -run Browser $(BROWSER_PKGS)

# Runs a real promotion plan + apply on the bundled example repo in a temp dir.
demo: build
	./scripts/demo.sh

# Compares our tools with the shell baseline; needs ../shared (see docs/benchmarks.md).
bench: build
	SHARED=$(SHARED) ./scripts/bench.sh

# The HTML report on generated 12- and 50-node promotions: size, time to
# render in chromium, and the screenshots of docs/ (see docs/benchmarks.md).
bench-html: build
	SHARED=$(SHARED) BENCH_ONLY=html BENCH_MANIFESTDIFF=0 ./scripts/bench.sh

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet ./...

# A short fuzz pass over every fuzz target (corpus under testdata/fuzz).
fuzz:
	./scripts/fuzz.sh 20s

clean:
	rm -rf $(BIN)

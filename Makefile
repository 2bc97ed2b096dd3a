# gitops-promote: build, test, demo and benchmark targets.
GO      ?= go
BIN     := bin
SHARED  ?= ../shared
GOFLAGS_TEST ?=

.PHONY: all build test test-short demo bench lint fuzz clean

all: build

# Static binaries (no cgo): they run on any CI image, and promote starts
# without the dynamic loader (0.6 ms of a ~17 ms apply).
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN)/promote ./cmd/promote
	CGO_ENABLED=0 $(GO) build -o $(BIN)/manifestdiff ./cmd/manifestdiff

# The whole suite: unit, golden, integration (real git, real chart repo).
test:
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 20m $(GOFLAGS_TEST) ./...

test-short:
	$(GO) test -short ./...

# Runs a real promotion plan + apply on the bundled example repo in a temp dir.
demo: build
	./scripts/demo.sh

# Compares our tools with the shell baseline; needs ../shared (see docs/benchmarks.md).
bench: build
	SHARED=$(SHARED) ./scripts/bench.sh

lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet ./...

# A short fuzz pass over every fuzz target (corpus under testdata/fuzz).
fuzz:
	./scripts/fuzz.sh 20s

clean:
	rm -rf $(BIN)

#!/usr/bin/env bash
# make fuzz: run every fuzz target of the module for a short time each
# (default 20s). New crashers land in <pkg>/testdata/fuzz/<Target>/ and then
# run as regression cases in every `make test`.
#
# Minimisation is capped by count, not time: Go minimises every new
# interesting input, and with a time cap (-fuzzminimizetime=3s) the targets
# whose inputs are slow to minimise (FuzzInventory, FuzzHelmSources,
# FuzzEncodePack, FuzzSplitMarkdown) spent most of their budget there and
# ran a few thousand inputs in 20s. At 100 executions per minimisation they
# run tens of thousands (docs/benchmarks.md). FUZZ_MINIMIZE overrides it.
set -euo pipefail
cd "$(dirname "$0")/.."
time=${1:-20s}
minimize=${FUZZ_MINIMIZE:-100x}
for pkg in $(go list ./...); do
  dir=$(go list -f '{{.Dir}}' "$pkg")
  for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //' | sort -u); do
    echo "== $pkg $target ($time)"
    go test -run='^$' -fuzz="^${target}\$" -fuzztime="$time" -fuzzminimizetime="$minimize" "$pkg"
  done
done

#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the Go module proxy into a cache dir
# outside the repository, for the live-diff tests (`make test-live`).
#
#   scripts/kube-build.sh        builds if missing, prints the bin dir
#
# kube-apiserver is built inside the Argo CD parity module
# (test/argocd-parity), at the k8s.io/kubernetes version Argo CD v3.6
# requires there and with that module's Go toolchain: the Kubernetes
# packages both link then compile once for `make test-argocd` and this
# build, instead of once each (kubeapiserver_tools.go keeps the command's
# dependencies in that module's go.mod). etcd comes from a one-line main
# over go.etcd.io/etcd/server/v3's etcdmain. Nothing built or generated
# here lands in the repository.
set -euo pipefail

PARITY="$(cd "$(dirname "$0")/../test/argocd-parity" && pwd)"
KUBE_VERSION="$(sed -n 's#^[[:space:]]*k8s\.io/kubernetes \(v[0-9.]*\).*#\1#p' "$PARITY/go.mod" | head -1)"
[[ -n "$KUBE_VERSION" ]] || { echo "kube-build: no k8s.io/kubernetes in $PARITY/go.mod" >&2; exit 1; }
# The parity module's toolchain (the Makefile's ARGOCD_GO), fetched by the
# go command like make test-argocd fetches it.
toolchain="${ARGOCD_GO:-$(sed -n 's/^toolchain //p' "$PARITY/go.mod")}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
CACHE="${GITOPS_PROMOTE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gitops-promote}"
OUT="$CACHE/kube/$KUBE_VERSION-etcd-$ETCD_VERSION"
BIN="$OUT/bin"

if [[ -x "$BIN/kube-apiserver" && -x "$BIN/etcd" ]]; then
	echo "$BIN"
	exit 0
fi

GO="${GO:-go}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GOFLAGS=-mod=mod CGO_ENABLED=0 GOWORK=off

log() { printf 'kube-build: %s\n' "$*" >&2; }

build_apiserver() {
	log "kube-apiserver $KUBE_VERSION: go build in $PARITY (about 10 min cold on 2 cores, less after make test-argocd)"
	(cd "$PARITY" && GOTOOLCHAIN="$toolchain" GOFLAGS=-mod=readonly "$GO" build -o "$work/out/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver)
}

build_etcd() {
	local dir="$work/etcd"
	mkdir -p "$dir"
	cat >"$dir/go.mod" <<-EOF
		module etcdbuild

		go 1.24

		require go.etcd.io/etcd/server/v3 $ETCD_VERSION
	EOF
	cat >"$dir/main.go" <<-'EOF'
		package main

		import (
			"os"

			"go.etcd.io/etcd/server/v3/etcdmain"
		)

		func main() { etcdmain.Main(os.Args) }
	EOF
	log "etcd $ETCD_VERSION: go mod tidy"
	(cd "$dir" && "$GO" mod tidy)
	log "etcd $ETCD_VERSION: go build"
	(cd "$dir" && "$GO" build -o "$work/out/etcd" .)
}

mkdir -p "$work/out"
start=$SECONDS
build_etcd
build_apiserver
mkdir -p "$OUT"
# Renamed into place only when both built, so a killed build leaves no half.
rm -rf "$OUT/bin.tmp"
mv "$work/out" "$OUT/bin.tmp"
rm -rf "$BIN"
mv "$OUT/bin.tmp" "$BIN"
log "built in $((SECONDS - start)) s into $BIN"
echo "$BIN"

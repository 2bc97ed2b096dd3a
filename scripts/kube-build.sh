#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the Go module proxy into a cache dir
# outside the repository, for the live-diff tests (`make test-live`).
#
#   scripts/kube-build.sh        builds if missing, prints the bin dir
#
# Both are built inside the Argo CD parity module (test/argocd-parity),
# at the k8s.io/kubernetes and etcd versions Argo CD v3.6 selects there
# and with that module's Go toolchain, in one go build: the Kubernetes
# packages they share with the parity suite, and the gRPC, OpenTelemetry
# and Prometheus packages they share with each other, compile once
# (kubeapiserver_tools.go and cmd/etcd keep their dependencies in that
# module's go.mod). Nothing built or generated here lands in the
# repository.
set -euo pipefail

PARITY="$(cd "$(dirname "$0")/../test/argocd-parity" && pwd)"
# required MODULE: its version in the parity module's go.mod
required() {
	local v
	v="$(awk -v m="$1" '$1 == m { print $2; exit } $1 == "require" && $2 == m { print $3; exit }' "$PARITY/go.mod")"
	[[ -n "$v" ]] || { echo "kube-build: no $1 in $PARITY/go.mod" >&2; exit 1; }
	echo "$v"
}
KUBE_VERSION="$(required k8s.io/kubernetes)"
ETCD_VERSION="$(required go.etcd.io/etcd/server/v3)"
# The parity module's toolchain (the Makefile's ARGOCD_GO), fetched by the
# go command like make test-argocd fetches it.
toolchain="${ARGOCD_GO:-$(sed -n 's/^toolchain //p' "$PARITY/go.mod")}"
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
export CGO_ENABLED=0 GOWORK=off

log() { printf 'kube-build: %s\n' "$*" >&2; }

log "kube-apiserver $KUBE_VERSION and etcd $ETCD_VERSION: go build in $PARITY (about 10 min cold on 2 cores, less after make test-argocd)"
start=$SECONDS
mkdir -p "$work/out"
(cd "$PARITY" && GOTOOLCHAIN="$toolchain" GOFLAGS=-mod=readonly "$GO" build -o "$work/out/" \
	k8s.io/kubernetes/cmd/kube-apiserver ./cmd/etcd)
mkdir -p "$OUT"
# Renamed into place only when both built, so a killed build leaves no half.
rm -rf "$OUT/bin.tmp"
mv "$work/out" "$OUT/bin.tmp"
rm -rf "$BIN"
mv "$OUT/bin.tmp" "$BIN"
log "built in $((SECONDS - start)) s into $BIN"
echo "$BIN"

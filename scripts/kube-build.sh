#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the Go module proxy into a cache dir
# outside the repository, for the live-diff tests (`make test-live`).
#
#   scripts/kube-build.sh        builds if missing, prints the bin dir
#
# kube-apiserver comes from k8s.io/kubernetes, whose go.mod points its
# staging modules at ./staging/src/...; a throwaway module generated here
# copies those replace lines pointed at the published k8s.io modules of the
# same minor. etcd comes from a one-line main over go.etcd.io/etcd/server/v3's
# etcdmain. Nothing built or generated here lands in the repository.
set -euo pipefail

KUBE_VERSION="${KUBE_VERSION:-v1.36.3}"
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
CACHE="${GITOPS_PROMOTE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gitops-promote}"
OUT="$CACHE/kube/$KUBE_VERSION-etcd-$ETCD_VERSION"
BIN="$OUT/bin"

if [[ -x "$BIN/kube-apiserver" && -x "$BIN/etcd" ]]; then
	echo "$BIN"
	exit 0
fi

GO="${GO:-go}"
staging="v0.${KUBE_VERSION#v1.}"   # v1.36.3 -> v0.36.3
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export GOFLAGS=-mod=mod CGO_ENABLED=0 GOWORK=off

log() { printf 'kube-build: %s\n' "$*" >&2; }

build_apiserver() {
	local dir="$work/apiserver"
	mkdir -p "$dir"
	local kmod
	kmod="$(cd "$dir" && "$GO" mod download -json "k8s.io/kubernetes@$KUBE_VERSION" |
		sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')"
	[[ -f "$kmod" ]] || { log "no go.mod downloaded for k8s.io/kubernetes@$KUBE_VERSION"; return 1; }
	{
		echo "module kubebuild"
		echo
		echo "go $(sed -n 's/^go \([0-9.]*\)$/\1/p' "$kmod")"
		echo
		echo "require k8s.io/kubernetes $KUBE_VERSION"
		echo
		echo "replace ("
		sed -n 's#^[[:space:]]*\(k8s\.io/[A-Za-z0-9._/-]*\) => \./staging/src/.*$#\t\1 => \1 '"$staging"'#p' "$kmod"
		echo ")"
	} >"$dir/go.mod"
	grep -q "k8s.io/api => k8s.io/api $staging" "$dir/go.mod" ||
		{ log "no staging replace lines found in $kmod"; return 1; }
	cat >"$dir/tools.go" <<-'EOF'
		//go:build tools

		package kubebuild

		import _ "k8s.io/kubernetes/cmd/kube-apiserver"
	EOF
	log "kube-apiserver $KUBE_VERSION (staging $staging): go mod tidy"
	(cd "$dir" && "$GO" mod tidy)
	log "kube-apiserver $KUBE_VERSION: go build (about 10 min cold on 2 cores)"
	(cd "$dir" && "$GO" build -o "$work/out/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver)
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

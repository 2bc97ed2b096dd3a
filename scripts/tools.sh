#!/usr/bin/env bash
# scripts/tools.sh NAME: print the path of a pinned build/CI tool, installing
# it first if needed. Go tools are built from the Go module proxy, npm tools
# installed from the npm registry, each once per machine into
# $GITOPS_PROMOTE_TOOLS (default ~/.cache/gitops-promote/tools), never into
# the repository. helm is the helm 3 the parity tests build
# (internal/testutil/toolbin, the release's -ldflags): one build serves both.
set -euo pipefail
name=${1:?usage: tools.sh goreleaser|crane|yq|helm|gitlab-ci-local}
root=${GITOPS_PROMOTE_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/gitops-promote/tools}
if [ "$name" = helm ]; then
  dir=$(cd "$(dirname "$0")/.." && CGO_ENABLED=0 go run ./internal/testutil/toolbin/install helm3)
  echo "$dir/helm"
  exit 0
fi

# name -> package@version, major, extra ldflags. Versions are the newest the
# module proxy / npm registry serve that build here with our Go and Node.
case $name in
  goreleaser) pkg=github.com/goreleaser/goreleaser/v2 ver=v2.15.1 major=v2 ldflags="-X main.version=2.15.1" ;;
  crane) pkg=github.com/google/go-containerregistry/cmd/crane ver=v0.22.1 major=v0 ldflags="" ;;
  yq) pkg=github.com/mikefarah/yq/v4 ver=v4.54.1 major=v4 ldflags="" ;;
  gitlab-ci-local) pkg=gitlab-ci-local ver=4.53.0 major=npm ldflags="" ;;
  *) echo "tools.sh: unknown tool $name" >&2; exit 2 ;;
esac

dir=$root/$name-${ver#v}-$major
bin=$dir/$name
[ "$major" = npm ] && bin=$dir/node_modules/.bin/$name
if [ -x "$bin" ]; then echo "$bin"; exit 0; fi

mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9 # another process may be installing the same tool: wait for it
if [ ! -x "$bin" ]; then
  echo "tools.sh: installing $name $ver into $dir (once per machine)" >&2
  if [ "$major" = npm ]; then
    npm install --prefix "$dir" --no-audit --no-fund --loglevel=error "$pkg@$ver" >&2
  else
    tmp=$(mktemp -d "$dir/.build-XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
    # outside any module, so the tool builds with its own go.mod
    (cd "$tmp" && GOBIN=$tmp CGO_ENABLED=0 GOFLAGS= go install -trimpath ${ldflags:+-ldflags "$ldflags"} "$pkg@$ver") >&2
    built=$tmp/$(basename "${pkg%/$major}")
    [ -x "$built" ] || built=$tmp/$name
    mv "$built" "$bin"
  fi
fi
echo "$bin"

#!/usr/bin/env bash
# make bench: our tools against the shell baseline of ../shared/bench, on
# generated repos, in one run. Installs the baseline's CLIs (yq, helm) into
# .bench/bin from the Go module proxy on first use.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${SHARED:-$root/../shared}
[ -f "$shared/bench/gen_gitops_repo.py" ] || { echo "bench: $shared/bench not found (set SHARED=...)" >&2; exit 1; }
shared=$(cd "$shared" && pwd)
mkdir -p "$root/.bench/bin"
export GOBIN=$root/.bench/bin PATH=$root/.bench/bin:$PATH
[ -x "$GOBIN/yq" ] || go install github.com/mikefarah/yq/v4@v4.54.1
if [ "${BENCH_MANIFESTDIFF:-1}" = 1 ] && [ ! -x "$GOBIN/helm" ]; then go install helm.sh/helm/v3/cmd/helm@v3.22.0; fi
exec python3 "$root/scripts/bench.py" --shared "$shared" --bin "$root/bin" --out "$root/.bench" "$@"

#!/usr/bin/env bash
# make bench: our tools against the shell baseline they replace
# (scripts/baseline), on repositories from scripts/gen_gitops_repo.py, in
# one run. The baseline's CLIs (yq, helm) are built once per machine from
# the Go module proxy by scripts/tools.sh. BASELINE=DIR compares against
# another copy of promote.sh / manifestdiff.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tools=$root/scripts/tools.sh
yq=$("$tools" yq)
path=$(dirname "$yq")
if [ "${BENCH_MANIFESTDIFF:-1}" = 1 ]; then path=$path:$(dirname "$("$tools" helm)"); fi
export PATH=$path:$PATH
mkdir -p "$root/.bench"
exec python3 "$root/scripts/bench.py" --baseline "${BASELINE:-$root/scripts/baseline}" \
  --bin "$root/bin" --out "$root/.bench" "$@"

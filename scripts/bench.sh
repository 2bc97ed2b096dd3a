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
# Every binary the bench runs, ours and the baseline's CLIs, is an
# installed copy, written by install(1) as the README's release steps
# install promote: on this kernel a binary written in small pieces (by the
# Go linker, or by tar) starts 0.3-0.4 ms slower than the same bytes
# written by install or cp, its page cache being made of smaller folios.
staged=$root/.bench/bin
rm -rf "$staged"
mkdir -p "$staged"
install -m 755 "$root/bin/promote" "$root/bin/manifestdiff" "$yq" "$staged/"
if [ "${BENCH_MANIFESTDIFF:-1}" = 1 ]; then install -m 755 "$("$tools" helm)" "$staged/"; fi
# BENCH_B=DIR[:DIR...]: other builds' promote and manifestdiff (e.g. main's,
# built with `go build -o DIR/...`), each timed alternating with ours in
# every workload under its directory's name: the A/B that
# docs/architecture.md's rule asks for.
others=()
IFS=: read -ra bdirs <<< "${BENCH_B:-}"
for d in "${bdirs[@]}"; do
  b=$staged/b-$(basename "$d")
  mkdir -p "$b"
  install -m 755 "$d/promote" "$d/manifestdiff" "$b/"
  others+=("$b")
done
export PATH=$staged:$PATH
exec python3 "$root/scripts/bench.py" --baseline "${BASELINE:-$root/scripts/baseline}" \
  --bin "$staged" --b "$(IFS=:; echo "${others[*]}")" --out "$root/.bench" "$@"

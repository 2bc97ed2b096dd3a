#!/usr/bin/env bash
# make demo: a real promotion on the bundled example fleet, in a
# playground directory that stays (DEMO_DIR, default ./demo; make
# demo-clean removes it). Packages the example charts and serves them on
# loopback (the chart check and manifestdiff fetch from there), makes the
# fleet a git repo with a bare remote (upstream set), then runs check,
# plan, apply --push, manifestdiff of the promotion, and two refused
# commands, and says what to try next there. DEMO_BIN names another
# directory holding both binaries (the demo's test builds its own).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${DEMO_BIN:-$root/bin}
work=${DEMO_DIR:-$root/demo}
# A directory the demo did not make is never removed.
if [ -e "$work" ] && [ ! -e "$work/.gitops-promote-demo" ] && [ -n "$(ls -A "$work" 2>/dev/null)" ]; then
  echo "demo: $work exists and is not a demo playground; set DEMO_DIR to another directory" >&2
  exit 1
fi
rm -rf "$work"
mkdir -p "$work"
touch "$work/.gitops-promote-demo"
work=$(cd "$work" && pwd)
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; true; }
trap cleanup EXIT

# Bold headings only on a terminal and without NO_COLOR, as the tools
# colour their own output (--color auto): a log or a pipe gets plain text.
# git, which ignores NO_COLOR, gets the same rule, and no pager: the demo
# must not stop for a keypress.
bold="" plain="" gitcolor=never
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
  bold=$'\033[1m' plain=$'\033[0m' gitcolor=auto
fi
git() { command git --no-pager -c color.ui="$gitcolor" "$@"; }
step() { printf '\n%s==> %s%s\n' "$bold" "$*" "$plain"; }
run() { printf '$ %s\n' "$*"; "$@"; }

step "packaging the example charts and serving them on loopback"
python3 "$root/scripts/package_charts.py" "$root/examples/charts" "$work/charts"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd "$work/charts" && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1) &
server=$!
for _ in $(seq 50); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/index.yaml')" 2>/dev/null && break
  sleep 0.1
done
echo "chart repository: http://127.0.0.1:$port"
printf '#!/bin/sh\n# Serves the demo chart repository again, on the port its Applications name.\nexec python3 -m http.server %s --bind 127.0.0.1 --directory "%s"\n' \
  "$port" "$work/charts" > "$work/serve-charts.sh"
chmod +x "$work/serve-charts.sh"

step "making the example fleet a git repository with a bare remote"
cp -r "$root/examples/fleet" "$work/repo"
sed -i "s#http://127.0.0.1:8879#http://127.0.0.1:$port#" "$work/repo"/argocd/*.yaml "$work/repo"/argocd/*/*.yaml
export GIT_AUTHOR_NAME="Demo Release Manager" GIT_AUTHOR_EMAIL="release@example.com"
export GIT_COMMITTER_NAME="Demo Release Manager" GIT_COMMITTER_EMAIL="release@example.com"
git -C "$work/repo" init -q -b main
git -C "$work/repo" add -A
git -C "$work/repo" commit -q -m "ledger fleet: initial layout"
git init -q --bare -b main "$work/remote.git"
git -C "$work/repo" remote add origin "file://$work/remote.git"
git -C "$work/repo" push -q -u origin main
cd "$work/repo"
echo "repo: $work/repo  remote: $work/remote.git"

step "promote check: revisions match the versions files, nothing floats, sync waves and dependencies in order"
run "$bin/promote" check

step "promote waves: the order Argo CD will sync prod in"
run "$bin/promote" waves --env prod

step "promote plan: what qa -> preprod would change (nothing is written)"
run "$bin/promote" plan --from qa --to preprod

step "promote apply --push: one commit, pushed; the chart versions were looked up first"
run "$bin/promote" apply --from qa --to preprod --push

step "the commit: only the changed values moved"
run git log -1 --format='%an <%ae>%n%n%B'
run git show --stat --format= HEAD
run git diff --numstat HEAD~1 HEAD
echo "remote main: $(git -C "$work/remote.git" rev-parse --short main), local HEAD: $(git rev-parse --short HEAD)"

step "manifestdiff: what the promotion does to the rendered manifests (offline Helm renders, per resource)"
run "$bin/manifestdiff" --base HEAD~1 --head HEAD --cache-dir "$work/cache"
echo
run "$bin/manifestdiff" --base HEAD~1 --head HEAD --cache-dir "$work/cache" -o markdown --output-file "$work/mr-note.md"
echo "the merge request note starts like this:"
head -12 "$work/mr-note.md"

step "running it again is a no-op (exit 0)"
run "$bin/promote" apply --from qa --to preprod --push

step "bad input is refused with one line and exit 1, and nothing is written"
set +e
run "$bin/promote" pin --env qa ledger-node.api.imageTag=latest; echo "exit $?"
run "$bin/promote" apply --from qa --to prod; echo "exit $?"
set -e
git diff --quiet && echo "work tree clean, HEAD still $(git rev-parse --short HEAD)"

step "the playground stays: try it"
echo "$work/repo is a git repository with its remote ($work/remote.git) and upstream set."
echo "The chart repository stopped with this demo; start it again in another terminal:"
echo "  $work/serve-charts.sh"
echo "then, in $work/repo:"
echo "  $bin/promote status                                 # every env at a glance"
echo "  $bin/promote plan --from preprod --to prod          # the next step of the path"
echo "  $bin/promote apply --from preprod --to prod --push  # one commit, pushed"
echo "  $bin/manifestdiff --base HEAD~1 --head HEAD --cache-dir $work/cache"
echo "make demo-clean removes it."

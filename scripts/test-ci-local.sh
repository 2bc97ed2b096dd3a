#!/usr/bin/env bash
# make test-ci-local: prove the GitLab CI/CD component (templates/) as a
# drop-in, not just parsed.
#  1. every pipeline file is checked: the components' spec:inputs headers
#     (scripts/ci_pipeline.js) and this project's .gitlab-ci.yml against
#     GitLab's CI schema (gitlab-ci-local validates on load);
#  2. a generated GitOps repo (scripts/gen_gitops_repo.py, with a bare
#     remote and its chart repository on loopback) includes both components
#     with inputs, with docs/adopt.md's pipeline snippet, and gitlab-ci-local runs
#     their jobs there: plan-preprod, manifest-diff as in a merge request
#     pipeline, and the manual promote-preprod (mode push, into the bare
#     remote, after main moved past the pipeline's commit: it must promote
#     qa as it is on main); then, with prod gated on preprod's health,
#     plan-prod and promote-prod: a gate refusal is an allowed exit 3 in
#     plan-prod, promote-prod still runs (needs) and refuses, and an
#     override variable lets it push. Each job's result is checked.
# No container runtime runs here: the jobs run under gitlab-ci-local's
# shell executor with bin/ on PATH (the image itself is tested by
# internal/ciimage). That is the one difference from GitLab, and the only
# edit made to the expanded pipeline (scripts/ci_pipeline.js shell-jobs).
# --lint-only stops after step 1.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
gcl=$("$root/scripts/tools.sh" gitlab-ci-local)
# gitlab-ci-local copies the work tree for each job with rsync (Debian's)
command -v rsync >/dev/null || { apt-get install -y -qq rsync >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq rsync >/dev/null; }; }
export NODE_PATH=$(cd "$(dirname "$gcl")/.." && pwd)
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
finish() {
  echo "test-ci-local: $passed passed, $failed failed"
  exit $((failed > 0))
}

# ---- 1. pipeline files
if node "$root/scripts/ci_pipeline.js" check-spec "$root"/templates/*.yml; then
  ok "templates/*.yml: spec:inputs headers"
else
  fail "templates/*.yml: spec:inputs headers"
fi
lint=$(mktemp -d)
trap 'rm -rf "$lint"' EXIT
# gitlab-ci-local reads the git data of its working directory: validate a copy with one commit
cp "$root/.gitlab-ci.yml" "$lint/"
git -C "$lint" init -q -b main && git -C "$lint" add -A
git -C "$lint" -c user.name=lint -c user.email=lint@example.com commit -q -m lint
git -C "$lint" remote add origin https://gitlab.example.com/platform/gitops-promote.git
if out=$(cd "$lint" && "$gcl" --list 2>&1); then
  ok ".gitlab-ci.yml: valid against GitLab's CI schema"
else
  fail ".gitlab-ci.yml: $out"
fi
if [ "${1:-}" = --lint-only ]; then
  finish
fi

# ---- 2. the component's jobs on a generated GitOps repo
work=$(mktemp -d)
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work" "$lint"; }
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# gen DIR: the generated GitOps repo, its charts served from $port
gen() {
  python3 "$root/scripts/gen_gitops_repo.py" --out "$1" --nodes 3 --git --scenario promote-prod \
    --helm-url "http://127.0.0.1:$port" >/dev/null
}
gen "$work/gen"
(cd "$work/gen/charts" && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1) &
server=$!
for _ in $(seq 50); do
  python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$port/index.yaml')" 2>/dev/null && break
  sleep 0.1
done
# the generator is deterministic: the same arguments give the same bytes and commits
gen "$work/again"
if diff -r -x .git "$work/gen" "$work/again" >/dev/null &&
  [ "$(git -C "$work/gen/repo" rev-parse HEAD)" = "$(git -C "$work/again/repo" rev-parse HEAD)" ]; then
  ok "gen_gitops_repo.py: deterministic (same files, same charts, same commits)"
else
  fail "gen_gitops_repo.py: two runs with the same arguments differ"
fi
repo=$work/gen/repo
git init -q --bare -b main "$work/remote.git"
git -C "$repo" remote add origin "file://$work/remote.git"
git -C "$repo" push -q origin main
git -C "$repo" fetch -q origin
# the component files and gitlab-ci-local's state stay out of the repo's status
mkdir -p "$repo/.gitops-promote"
cp -r "$root/templates" "$repo/.gitops-promote/"
printf '%s\n' /.gitops-promote/ /.gitlab-ci-local/ /.gitlab-ci.yml /.gitlab-ci-shell.yml /manifest-diff.html /.cache/ \
  >>"$repo/.git/info/exclude"
# The pipeline is docs/adopt.md's, as a newcomer copies it: the yaml block
# after its "test-ci-local" marker. Its includes read
# `component: $CI_SERVER_FQDN/<group>/gitops-promote/<name>@<version>`; here
# each is the local copy of templates/<name>.yml, with the same inputs.
adopt=$root/docs/adopt.md
awk '/<!-- test-ci-local: .gitlab-ci.yml -->/ {m = 1; next} m == 1 && /^```yaml$/ {m = 2; next} m == 2 && /^```$/ {exit} m == 2' "$adopt" |
  sed -E 's#component: \$CI_SERVER_FQDN/[^/]+/gitops-promote/([a-z]+)@[^ ]+#local: .gitops-promote/templates/\1.yml#' >"$repo/.gitlab-ci.yml"
if grep -q "^include:" "$repo/.gitlab-ci.yml" && ! grep -q "component:" "$repo/.gitlab-ci.yml"; then
  ok "docs/adopt.md: its pipeline snippet extracted"
else
  fail "docs/adopt.md: no pipeline snippet after its test-ci-local marker, or an include that is not a component:"$'\n'"$(cat "$repo/.gitlab-ci.yml")"
fi

export PATH=$root/bin:$PATH
export GIT_AUTHOR_NAME="CI Bot" GIT_AUTHOR_EMAIL=ci-bot@example.com GIT_COMMITTER_NAME="CI Bot" GIT_COMMITTER_EMAIL=ci-bot@example.com
# load, interpolate and schema-validate the including pipeline; keep the expansion
if out=$(cd "$repo" && "$gcl" --list 2>&1); then
  ok "GitOps repo pipeline with both components: loaded, inputs interpolated, valid against GitLab's CI schema"
else
  fail "GitOps repo pipeline: $out"
fi
node "$root/scripts/ci_pipeline.js" shell-jobs "$repo/.gitlab-ci-local/expanded-gitlab-ci.yml" "$repo/.gitlab-ci-shell.yml"
# As GitLab's runner leaves it: the pipeline's commit checked out detached,
# CI_COMMIT_BRANCH naming the branch, GITLAB_USER_* whoever started the job
# (the promote job commits as that user).
git -C "$repo" checkout -q --detach
run_job() {
  (cd "$repo" && "$gcl" --file .gitlab-ci-shell.yml --shell-executor-no-image --variable CI_COMMIT_BRANCH=main \
    --variable "GITLAB_USER_NAME=Release Manager" --variable GITLAB_USER_EMAIL=release@example.com "$@" 2>&1)
}

out=$(run_job plan-preprod) || true
if grep -q "dlt-node.backend" <<<"$out" && grep -q '3.1.0 -> 3.2.0' <<<"$out" && grep -q "PASS.*plan-preprod" <<<"$out"; then
  ok "plan-preprod: prints the qa -> preprod plan"
else
  fail "plan-preprod:"$'\n'"$out"
fi

# as in a merge request pipeline: the change is the generator's promote-prod commit
base=$(git -C "$repo" rev-parse HEAD~1)
out=$(run_job manifest-diff --variable CI_PIPELINE_SOURCE=merge_request_event \
  --variable "CI_MERGE_REQUEST_DIFF_BASE_SHA=$base") || true
report=$repo/manifest-diff.html
# ground truth of that commit: 12 prod apps (new chart versions) and one
# preprod node app (its values) changed, of 45; nothing failed to render
if [ -s "$report" ] && grep -q "<html" "$report" && grep -q "13 of 45 apps differ" "$report" &&
  grep -q "dlt-node-beta-frontend-preprod" "$report" && ! grep -qi "failed to render" "$report" &&
  grep -q "PASS.*manifest-diff" <<<"$out"; then
  ok "manifest-diff: HTML report artifact, 13 of 45 apps changed as the commit says"
else
  fail "manifest-diff:"$'\n'"$out"$'\n'"$(head -40 "$report" 2>/dev/null)"
fi

# main moves after the pipeline's commit: a build pins a new qa backend
# image with [skip ci]. The job must promote qa as it is on main now.
git clone -q "file://$work/remote.git" "$work/other"
sed -i 's/imageTag: "v2.2.0"/imageTag: "v2.7.0"/' "$work/other/versions/qa.yaml"
git -C "$work/other" commit -qam "chore(qa): pin dlt-node.backend.imageTag=v2.7.0 [skip ci]"
git -C "$work/other" push -q origin main
before=$(git -C "$work/remote.git" rev-parse main)
out=$(run_job promote-preprod) || true
after=$(git -C "$work/remote.git" rev-parse main)
msg=$(git -C "$work/remote.git" log -1 --format=%s main)
author=$(git -C "$work/remote.git" log -1 --format='%an <%ae>' main)
from=$(git -C "$work/remote.git" log -1 --format=%B main | sed -n 's/^Promoted-From: //p')
if [ "$before" != "$after" ] && [ "$msg" = "chore(preprod): promote versions from qa [skip ci]" ] &&
  [ "$author" = "Release Manager <release@example.com>" ] && [ "$from" = "qa@$before" ] &&
  git -C "$work/remote.git" show main:versions/preprod.yaml | grep -q 'chartVersion: "3.2.0"' &&
  git -C "$work/remote.git" show main:versions/preprod.yaml | grep -q 'imageTag: "v2.7.0"'; then
  ok "promote-preprod: checked preprod, pushed \"$msg\" by $author, qa read at origin/main"
else
  fail "promote-preprod (remote main $before -> $after, \"$msg\"):"$'\n'"$out"
fi

# ---- 3. gates: prod is gated on preprod's health, which GitLab cannot
# tell here (no GitLab API: the gate cannot be evaluated, as with a token
# that cannot read statuses). plan-prod exits 3, which the component
# allows: a warning, and promote-prod, which needs plan-prod, still runs.
# It refuses too, unless the person running it gives an override reason
# as a job variable; the commit records it.
git -C "$repo" fetch -q origin
git -C "$repo" checkout -q --detach origin/main
printf 'gates:\n  prod: {sourceHealthy: true}\n' >>"$repo/.promote.yaml"
git -C "$repo" commit -qam "chore: gate prod on preprod's health"
git -C "$repo" push -q origin HEAD:main
git -C "$repo" fetch -q origin
out=$(run_job plan-prod) || true
if grep -q "refused by gate sourceHealthy: cannot evaluate: GitLab is not configured" <<<"$out" &&
  grep -q "plan-prod.*WARN 3" <<<"$out" && ! grep -q "FAIL" <<<"$out"; then
  ok "plan-prod: a gate refusal exits 3, allowed: a warning, not a failed pipeline"
else
  fail "plan-prod (gate refusal):"$'\n'"$out"
fi
before=$(git -C "$work/remote.git" rev-parse main)
out=$(run_job promote-prod --needs) || true
after=$(git -C "$work/remote.git" rev-parse main)
if grep -q "plan-prod.*WARN 3" <<<"$out" && grep -q "promote-prod.*FAIL 3" <<<"$out" &&
  [ "$(grep -c "refused by gate sourceHealthy" <<<"$out")" -ge 2 ] && [ "$before" = "$after" ]; then
  ok "promote-prod: runs after plan-prod's warning (needs), refuses with exit 3, pushes nothing"
else
  fail "promote-prod (needs plan-prod, no override; remote main $before -> $after):"$'\n'"$out"
fi
reason="preprod checked by hand, INC-4711"
out=$(run_job promote-prod --variable "PROMOTE_OVERRIDE_SOURCE_HEALTHY=$reason") || true
trailer=$(git -C "$work/remote.git" log -1 --format=%B main | grep '^Gate-Overridden: ' || true)
if grep -q "PASS.*promote-prod" <<<"$out" && [ "$(git -C "$work/remote.git" log -1 --format=%s main)" = \
  "chore(prod): promote versions from preprod [skip ci]" ] && [[ "$trailer" == "Gate-Overridden: sourceHealthy by "*": $reason" ]]; then
  ok "promote-prod with PROMOTE_OVERRIDE_SOURCE_HEALTHY: pushed, the commit records \"$trailer\""
else
  fail "promote-prod (override; trailer \"$trailer\"):"$'\n'"$out"
fi

finish

#!/usr/bin/env bash
# The merge request diff our users ran before manifestdiff, kept as the bench
# baseline: for every env, node and component (vault, backend, frontend) it
# renders the chart twice with `helm template`, once from the work tree and
# once from BASE via `git show`, and appends `diff -u` of the two to a
# markdown report. Failed renders are ignored, as in the job it stands for.
# Usage: manifestdiff.sh REPO BASE CHART_REPO_URL [OUT]
# (needs helm 3, mikefarah yq v4 and git on PATH)
set -uo pipefail
repo=$1 base=$2 charts=$3 out=${4:-/dev/stdout}
cd "$repo"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HELM_CACHE_HOME=$tmp/cache HELM_CONFIG_HOME=$tmp/config HELM_DATA_HOME=$tmp/data
helm repo add dlt "$charts" >/dev/null
helm repo update >/dev/null
mkdir -p "$tmp/head" "$tmp/base"

at_base() { # at_base PATH DEST: the file at BASE, or an empty map
  git show "$base:$1" >"$2" 2>/dev/null || echo "{}" >"$2"
}

report=""
for env in qa preprod prod; do
  [ -d "envs/$env/nodes" ] || continue
  for dir in envs/"$env"/nodes/*/; do
    node=$(basename "$dir")
    for comp in vault backend frontend; do
      release="dlt-$node-$comp-$env"
      key="$env-$node-$comp"
      version=$(yq e ".dlt-node.$comp.chartVersion" "versions/$env.yaml")
      helm template "$release" "dlt/dlt-$comp" --version "$version" \
        --values "versions/$env.yaml" --values "envs/$env/common-node-values.yaml" \
        --values "$dir/values-$comp.yaml" >"$tmp/head/$key.yaml" 2>/dev/null || true

      at_base "versions/$env.yaml" "$tmp/base-versions.yaml"
      base_version=$(yq e ".dlt-node.$comp.chartVersion" "$tmp/base-versions.yaml")
      at_base "envs/$env/nodes/$node/values-$comp.yaml" "$tmp/base-node.yaml"
      at_base "envs/$env/common-node-values.yaml" "$tmp/base-common.yaml"
      helm template "$release" "dlt/dlt-$comp" --version "$base_version" \
        --values "$tmp/base-versions.yaml" --values "$tmp/base-common.yaml" \
        --values "$tmp/base-node.yaml" >"$tmp/base/$key.yaml" 2>/dev/null || : >"$tmp/base/$key.yaml"

      d=$(diff -u "$tmp/base/$key.yaml" "$tmp/head/$key.yaml" || true)
      [ -n "$d" ] || continue
      report+=$'\n'"### $env / $node / $comp"$'\n```diff\n'"$d"$'\n```\n'
    done
  done
done
if [ -z "$report" ]; then
  echo "No changes to rendered Kubernetes manifests." >"$out"
else
  printf '## Rendered Manifest Diff\n%s\n' "$report" >"$out"
fi

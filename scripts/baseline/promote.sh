#!/usr/bin/env bash
# The promotion step our users ran before gitops-promote, kept as the bench
# baseline: one `yq` process per value read from versions/SRC.yaml, one per
# value written to versions/DST.yaml, one per targetRevision patched (the
# first source of each Application / ApplicationSet in argocd/DST), then
# `git add` + `git commit`. It does what their CI job did, no more: no
# policy, no chart look-up, no push.
# Usage: promote.sh REPO SRC DST    (needs mikefarah yq v4 and git on PATH)
set -euo pipefail
repo=$1 src=$2 dst=$3
cd "$repo"

# versions-file key paths moved by a promotion, and the manifest whose first
# source pins each chart (ApplicationSets keep it under .spec.template.spec)
fields=(
  dlt-node.namespace.chartVersion
  dlt-node.vault.chartVersion dlt-node.vault.imageTag
  dlt-node.backend.chartVersion dlt-node.backend.imageTag
  dlt-node.frontend.chartVersion dlt-node.frontend.imageTag
  shared-services.chartVersion shared-services.imageTag
  backup.chartVersion backup.imageTag
)
declare -A value
for f in "${fields[@]}"; do
  value[$f]=$(yq e ".$f" "versions/$src.yaml")
done
for f in "${fields[@]}"; do
  yq e ".$f = \"${value[$f]}\"" -i "versions/$dst.yaml"
done

pin() { # pin FILE YQ_PATH_OF_SOURCES VERSIONS_KEY
  yq e "$2[0].targetRevision = \"${value[$3.chartVersion]}\"" -i "argocd/$dst/$1"
}
for c in namespace vault backend frontend; do
  pin "appset-$c.yaml" .spec.template.spec.sources "dlt-node.$c"
done
pin app-shared-services.yaml .spec.sources shared-services
pin app-backup.yaml .spec.sources backup

git add "versions/$dst.yaml" "argocd/$dst/"
if git diff --cached --quiet; then
  echo "No changes to commit"
  exit 0
fi
git -c user.name="CI Bot" -c user.email=ci-bot@example.com \
  commit -q -m "chore($dst): promote versions from $src [skip ci]"

#!/usr/bin/env bash
# Peak memory of manifestdiff on a chart whose output nests a list DEPTH
# deep (issue 9 item 11; docs/benchmarks.md). Builds a throwaway repository
# with that chart as a path source at two revisions, then runs the binary
# (default bin/manifestdiff) under /usr/bin/time -v, RUNS times.
#   scripts/deep_rss.sh [DEPTH] [RUNS] [BINARY]
set -euo pipefail
depth=${1:-9000}
runs=${2:-5}
bin=$(realpath "${3:-bin/manifestdiff}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
repo=$work/repo
mkdir -p "$repo/argocd/qa" "$repo/versions" "$repo/charts/deep/templates" "$work/charts"
cd "$repo"
cat > .promote.yaml <<'YAML'
repoURL: https://gitlab.example.com/platform/deep.git
environments: [qa]
versions: versions/{env}.yaml
manifests: ["argocd/{env}/*.yaml"]
components:
  deep: {chart: deep}
YAML
echo 'deep: {chartVersion: "0.1.0"}' > versions/qa.yaml
printf 'apiVersion: v2\nname: deep\nversion: 0.1.0\n' > charts/deep/Chart.yaml
printf 'depth: %s\nleaf: a\n' "$depth" > charts/deep/values.yaml
cat > charts/deep/templates/cm.yaml <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata:
  name: deep
spec: {{ repeat (int .Values.depth) "[" }}{{ .Values.leaf }}{{ repeat (int .Values.depth) "]" }}
YAML
cat > argocd/qa/app.yaml <<'YAML'
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: deep-qa, namespace: argocd}
spec:
  project: default
  source: {repoURL: https://gitlab.example.com/platform/deep.git, path: charts/deep, targetRevision: main, helm: {}}
  destination: {server: https://kubernetes.default.svc, namespace: deep}
YAML
git init -q -b main && git add -A && git -c user.name=b -c user.email=b@b commit -qm base
sed -i 's/leaf: a/leaf: b/' charts/deep/values.yaml && git -c user.name=b -c user.email=b@b commit -qam head
for i in $(seq "$runs"); do
  /usr/bin/time -v "$bin" --repo "$repo" --base HEAD~1 --head HEAD --charts-dir "$work/charts" --format json \
    > "$work/out.json" 2> "$work/err" || true
  rss=$(awk '/Maximum resident/ {print $NF}' "$work/err")
  status=$(grep -o '"status": "[a-z]*"' "$work/out.json" | head -1)
  echo "run $i: max RSS $((rss / 1024)) MB, app $status"
done
grep -o '"error": "[^"]*"' "$work/out.json" || true

#!/usr/bin/env python3
"""Write a synthetic DLT GitOps repository and the Helm chart repository it pins.

The fleet follows the layout our users run (README, docs/architecture.md):

  OUT/repo/.promote.yaml
  OUT/repo/versions/<env>.yaml                   chart versions and image tags
  OUT/repo/envs/<env>/common-node-values.yaml     values every node of an env shares
  OUT/repo/envs/<env>/{backup,shared-services}/values.yaml
  OUT/repo/envs/<env>/nodes/<node>/values-<component>.yaml
  OUT/repo/argocd/<env>/app-{root,backup,shared-services}.yaml
  OUT/repo/argocd/<env>/appset-<component>.yaml   multi-source Helm ApplicationSets
  OUT/repo/projects/<env>.yaml                    the env's AppProject (appProjects:)
  OUT/charts/index.yaml + <chart>-<version>.tgz   serve with python3 -m http.server

Envs other than qa, preprod and prod start at prod's versions. --git makes
OUT/repo a repository with one commit on main; --scenario promote-prod adds a
second commit that pins prod to preprod's versions by hand (only the pinned
values change) and edits one preprod node's frontend values, so HEAD~1..HEAD
is a known diff. The same arguments always give the same bytes, charts and
commits included.

scripts/bench.py drives it; scripts/baseline/*.sh read the same layout.
"""
import argparse
import gzip
import hashlib
import io
import os
import subprocess
import tarfile

REPO_URL = "https://gitlab.example.com/org/gitops-repo.git"
EPOCH = 1700000000  # every mtime in the chart archives
GIT_DATE = "2026-01-01T00:00:00Z"

# Node components (one ApplicationSet each) in sync-wave order, with their chart.
NODE_COMPONENTS = [("namespace", "dlt-node-namespace", -1), ("vault", "dlt-vault", 1),
                   ("backend", "dlt-backend", 2), ("frontend", "dlt-frontend", 3)]
# Env-wide Applications: (short name, chart, wave, namespace).
ENV_APPS = [("backup", "dlt-backup", -2, "dlt-ops"), ("shared-services", "dlt-shared-services", 0, "dlt-shared")]

# What the chart repository publishes.
PUBLISHED = {
    "dlt-node-namespace": ("1.0.0", "1.1.0"),
    "dlt-vault": ("1.1.0", "1.2.0", "1.3.0"),
    "dlt-backend": ("3.0.0", "3.1.0", "3.2.0"),
    "dlt-frontend": ("2.3.0", "2.3.1", "2.4.0"),
    "dlt-shared-services": ("2.0.0", "2.1.0"),
    "dlt-backup": ("0.3.0", "0.3.1"),
}

# Pins per env, component -> (chartVersion, imageTag or None). qa runs ahead
# of preprod, preprod ahead of prod, so every promotion has work to do.
PINS = {
    "qa": {"namespace": ("1.1.0", None), "vault": ("1.3.0", "v1.3.0"), "backend": ("3.2.0", "v2.2.0"),
           "frontend": ("2.4.0", "v1.6.0"), "shared-services": ("2.1.0", "v1.8.3"), "backup": ("0.3.1", "v1.2.0")},
    "preprod": {"namespace": ("1.0.0", None), "vault": ("1.2.0", "v1.2.0"), "backend": ("3.1.0", "v2.1.0"),
                "frontend": ("2.3.1", "v1.5.0"), "shared-services": ("2.1.0", "v1.8.3"), "backup": ("0.3.1", "v1.2.0")},
    "prod": {"namespace": ("1.0.0", None), "vault": ("1.1.0", "v1.1.0"), "backend": ("3.0.0", "v2.0.0"),
             "frontend": ("2.3.0", "v1.4.0"), "shared-services": ("2.0.0", "v1.8.0"), "backup": ("0.3.0", "v1.1.0")},
}

GREEK = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu"]


def nodes_for(count):
    """node-alpha .. node-mu, then node-alpha-1 .. node-mu-1, and so on."""
    names = []
    for i in range(count):
        round_, letter = divmod(i, len(GREEK))
        names.append(f"node-{GREEK[letter]}" + (f"-{round_}" if round_ else ""))
    return names


def put(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


# ------------------------------------------------------------------ charts --

LABELS_HELPER = """{{- define "dlt.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}
"""


def node_workload(comp, kind):
    """A workload chart for one node component; it reads .Values.<comp> and
    the image tag that versions/<env>.yaml pins under dlt-node.<comp>."""
    v = f".Values.{comp}"
    tag = f'index .Values "dlt-node" "{comp}" "imageTag" | default .Chart.AppVersion'
    meta = ("metadata:\n  name: {{ .Release.Name }}%s\n"
            "  labels:\n    {{- include \"dlt.labels\" . | nindent 4 }}\n")
    return {
        "templates/_helpers.tpl": LABELS_HELPER,
        "templates/workload.yaml": (
            f"apiVersion: apps/v1\nkind: {kind}\n" + meta % "" +
            "spec:\n"
            f"  replicas: {{{{ {v}.replicaCount | default 1 }}}}\n"
            "  selector:\n    matchLabels:\n      app.kubernetes.io/instance: {{ .Release.Name }}\n"
            "  template:\n    metadata:\n      labels:\n        app.kubernetes.io/instance: {{ .Release.Name }}\n"
            "    spec:\n      containers:\n"
            f"        - name: {comp}\n"
            f"          image: \"registry.example.com/dlt/{comp}:{{{{ {tag} }}}}\"\n"
            f"          {{{{- with {v}.resources }}}}\n"
            "          resources:\n            {{- toYaml . | nindent 12 }}\n"
            "          {{- end }}\n"
            "          env:\n"
            f"            {{{{- range $name, $value := {v}.env }}}}\n"
            "            - name: {{ $name }}\n              value: {{ $value | quote }}\n"
            "            {{- end }}\n"),
        "templates/service.yaml": (
            "apiVersion: v1\nkind: Service\n" + meta % "" +
            "spec:\n  selector:\n    app.kubernetes.io/instance: {{ .Release.Name }}\n"
            f"  ports:\n    - port: {{{{ {v}.port | default 8080 }}}}\n"),
        "templates/configmap.yaml": (
            "apiVersion: v1\nkind: ConfigMap\n" + meta % "-config" +
            f"data:\n  config.yaml: |\n    {{{{- toYaml ({v} | default dict) | nindent 4 }}}}\n"),
        # a Secret, so diffs must redact
        "templates/secret.yaml": (
            "apiVersion: v1\nkind: Secret\n" + meta % "-credentials" +
            "type: Opaque\n"
            "data:\n  api-key: {{ printf \"%s-%s-key\" .Release.Name .Chart.Version | b64enc | quote }}\n"
            "stringData:\n  password: {{ printf \"pw-%s-%s\" .Release.Namespace .Chart.Version | quote }}\n"),
    }


def chart_templates(chart):
    if chart == "dlt-node-namespace":
        pat = ".Values.projectApplicationTemplate"
        return {"templates/pat.yaml": (
            "apiVersion: platform.example.com/v1alpha1\nkind: ProjectApplicationTemplate\n"
            f"metadata:\n  name: {{{{ {pat}.name }}}}\n"
            "  labels:\n    helm.sh/chart: {{ printf \"%s-%s\" .Chart.Name .Chart.Version }}\n"
            f"spec:\n  project: {{{{ {pat}.project }}}}\n  namespace: {{{{ {pat}.namespace }}}}\n"
            f"  destination:\n    {{{{- toYaml {pat}.destination | nindent 4 }}}}\n")}
    if chart == "dlt-vault":
        files = node_workload("vault", "StatefulSet")
        # like many real charts, a value generated at render time: two
        # renders of the same inputs differ here
        files["templates/unseal.yaml"] = (
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}-unseal\n"
            "type: Opaque\ndata:\n  token: {{ randAlphaNum 24 | b64enc | quote }}\n")
        return files
    if chart in ("dlt-backend", "dlt-frontend"):
        return node_workload(chart.removeprefix("dlt-"), "Deployment")
    if chart == "dlt-shared-services":
        return {"templates/_helpers.tpl": LABELS_HELPER, "templates/postgres.yaml": (
            "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: {{ .Release.Name }}-postgres\n"
            "  labels:\n    {{- include \"dlt.labels\" . | nindent 4 }}\n"
            "spec:\n  selector:\n    matchLabels:\n      app: postgres\n"
            "  template:\n    metadata:\n      labels:\n        app: postgres\n"
            "    spec:\n      containers:\n        - name: postgres\n"
            "          image: \"registry.example.com/dlt/shared:{{ index .Values \"shared-services\" \"imageTag\" }}\"\n")}
    if chart == "dlt-backup":
        b = ".Values.backup"
        return {"templates/backup-job.yaml": (
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: \"{{ .Release.Name }}-backup\"\n"
            "  annotations:\n    argocd.argoproj.io/hook: PreSync\n"
            "    argocd.argoproj.io/hook-delete-policy: BeforeHookCreation\n"
            "spec:\n  template:\n    spec:\n      restartPolicy: OnFailure\n      containers:\n        - name: backup\n"
            f"          image: \"{{{{ {b}.image.repository }}}}:{{{{ {b}.imageTag | default .Chart.AppVersion }}}}\"\n"
            "          command: [\"./backup.sh\"]\n"
            f"          env:\n            - name: ENV\n              value: \"{{{{ {b}.env }}}}\"\n"
            f"            - name: TARGET\n              value: \"{{{{ {b}.target }}}}\"\n")}
    raise ValueError(chart)


def chart_archive(chart, version):
    """The packaged chart: a gzipped tar whose bytes depend on nothing but its content."""
    files = dict(chart_templates(chart))
    files["Chart.yaml"] = (f"apiVersion: v2\nname: {chart}\nversion: {version}\n"
                           f"appVersion: \"v{version}\"\ntype: application\n")
    files["values.yaml"] = "# defaults only\n"
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for rel in sorted(files):
            data = files[rel].encode()
            entry = tarfile.TarInfo(f"{chart}/{rel}")
            entry.size, entry.mtime, entry.mode = len(data), EPOCH, 0o644
            tar.addfile(entry, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as gz:  # mtime=0: no wall clock in the header
        gz.write(raw.getvalue())
    return out.getvalue()


def write_charts(out_dir, helm_url):
    index = ["apiVersion: v1", "entries:"]
    for chart in sorted(PUBLISHED):
        index.append(f"  {chart}:")
        for version in sorted(PUBLISHED[chart], key=lambda v: tuple(map(int, v.split("."))), reverse=True):
            blob = chart_archive(chart, version)
            name = f"{chart}-{version}.tgz"
            os.makedirs(out_dir, exist_ok=True)
            with open(os.path.join(out_dir, name), "wb") as f:
                f.write(blob)
            index += ["  - apiVersion: v2", f"    appVersion: v{version}", f"    created: \"{GIT_DATE}\"",
                      f"    digest: {hashlib.sha256(blob).hexdigest()}", f"    name: {chart}",
                      "    type: application", "    urls:", f"    - {helm_url.rstrip('/')}/{name}",
                      f"    version: {version}"]
    index.append(f"generated: \"{GIT_DATE}\"")
    put(os.path.join(out_dir, "index.yaml"), "\n".join(index) + "\n")


# ------------------------------------------------------------- gitops repo --

def versions_file(env):
    pins = PINS[env]
    lines = [f"# versions/{env}.yaml: chart versions and image tags for {env} (CI-managed)", "dlt-node:"]
    for comp, _, _ in NODE_COMPONENTS:
        chart_v, tag = pins[comp]
        note = "          # thin wrapper chart for PAT CR" if comp == "namespace" else ""
        lines += [f"  {comp}:", f"    chartVersion: \"{chart_v}\"{note}"]
        if tag:
            lines.append(f"    imageTag: \"{tag}\"")
    for top in ("shared-services", "backup"):
        chart_v, tag = pins[top]
        lines += ["", f"{top}:", f"  chartVersion: \"{chart_v}\"", f"  imageTag: \"{tag}\""]
    return "\n".join(lines) + "\n"


def common_node_values(env):
    prod = env == "prod"
    return "\n".join([
        f"# envs/{env}/common-node-values.yaml", "",
        "# Namespace / PAT defaults",
        "projectApplicationTemplate:", f"  project: dlt-{env}", "  destination:",
        "    server: https://kubernetes.default.svc", "",
        "vault:", "  server:", "    ha:", f"      enabled: {str(prod).lower()}", "  injector:", "    enabled: true", "",
        "backend:", "  chain:", f"    networkId: {env}-net-001", f"    genesisConfigMap: {env}-genesis",
        "    consensusTimeout: 5s", "  persistence:", "    storageClass: fast-ssd", "    size: 50Gi",
        "  resources:", "    requests:", "      cpu: 500m", "      memory: 1Gi",
        "    limits:", "      cpu: 2", "      memory: 4Gi", "",
        "frontend:", f"  replicaCount: {3 if prod else 1}", "  ingress:", "    enabled: false",
        "  env:", f"    LOG_LEVEL: {'info' if prod else 'debug'}", ""])


def node_value_files(node, peers):
    """values-<component>.yaml of one node. values-frontend.yaml ends inside
    frontend.env, so a bench can append `    KEY: value` lines to it."""
    short = node.removeprefix("node-")
    role = "validator" if short in ("alpha", "beta") else "observer"
    return {
        "namespace": f"projectApplicationTemplate:\n  name: dlt-{node}\n  namespace: dlt-{node}\n",
        "vault": f"vault:\n  server:\n    extraEnv:\n    - name: VAULT_CLUSTER_NAME\n      value: {node}\n",
        "backend": (f"backend:\n  node:\n    id: {short}\n    role: {role}\n    peers:\n" +
                    "".join(f"    - {p}.dlt-{p}.svc.cluster.local\n" for p in peers)),
        "frontend": (f"frontend:\n  env:\n    NODE_ID: {short}\n"
                     f"    BACKEND_URL: http://backend.dlt-{node}.svc.cluster.local\n"),
    }


def helm_source(indent, chart, version, value_files, helm_url):
    pad = " " * indent
    vf = "".join(f"{pad}    - $values/{f}\n" for f in value_files)
    return (f"{pad}- repoURL: {helm_url}\n{pad}  chart: {chart}\n"
            f"{pad}  targetRevision: \"{version}\"        # CI patches this on promotion\n"
            f"{pad}  helm:\n{pad}    valueFiles:\n{vf}"
            f"{pad}- repoURL: {REPO_URL}\n{pad}  targetRevision: main\n{pad}  ref: values\n")


def node_appset(env, comp, chart, wave, helm_url):
    """One ApplicationSet per component: a git directory generator over the env's nodes."""
    files = [] if comp == "namespace" else [f"versions/{env}.yaml"]
    files += [f"envs/{env}/common-node-values.yaml", f"envs/{env}/nodes/{{{{path.basename}}}}/values-{comp}.yaml"]
    dest = "argocd              # PAT CR lives in argocd namespace" if comp == "namespace" else "\"dlt-{{path.basename}}\""
    if env == "qa":  # qa syncs by itself; preprod and prod wait for an operator
        sync = "      syncPolicy:\n        automated:\n          prune: true\n          selfHeal: true\n"
        if comp != "namespace":
            sync += "        syncOptions:\n        - CreateNamespace=false\n"
    elif comp == "namespace":
        sync = "      syncPolicy: {}\n"
    else:
        sync = "      syncPolicy:\n        syncOptions:\n        - CreateNamespace=false\n"
    return (f"# argocd/{env}/appset-{comp}.yaml\n"
            "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\n"
            f"metadata:\n  name: dlt-nodes-{comp}-{env}\n  namespace: argocd\n"
            "spec:\n  generators:\n  - git:\n"
            f"      repoURL: {REPO_URL}\n      revision: main\n      directories:\n      - path: envs/{env}/nodes/*\n"
            "  template:\n    metadata:\n"
            f"      name: \"dlt-{{{{path.basename}}}}-{comp}-{env}\"\n"
            f"      annotations:\n        argocd.argoproj.io/sync-wave: \"{wave}\"\n"
            f"    spec:\n      project: dlt-{env}\n      sources:\n"
            + helm_source(6, chart, PINS[env][comp][0], files, helm_url) +
            f"      destination:\n        server: https://kubernetes.default.svc\n        namespace: {dest}\n"
            + sync)


def env_app(env, short, chart, wave, namespace, helm_url):
    files = ([f"envs/{env}/backup/values.yaml"] if short == "backup" else
             [f"versions/{env}.yaml", f"envs/{env}/{short}/values.yaml"])
    if env == "qa":
        heal = "false" if short == "backup" else "true"  # a backup job is never pruned
        sync = f"  syncPolicy:\n    automated:\n      prune: {heal}\n      selfHeal: {heal}\n"
    else:
        sync = "  syncPolicy: {}\n"
    return (f"# argocd/{env}/app-{short}.yaml\n"
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\n"
            f"metadata:\n  name: dlt-{short}-{env}\n  namespace: argocd\n"
            f"  annotations:\n    argocd.argoproj.io/sync-wave: \"{wave}\"\n"
            f"spec:\n  project: dlt-{env}\n  sources:\n"
            + helm_source(2, chart, PINS[env][short][0], files, helm_url) +
            f"  destination:\n    server: https://kubernetes.default.svc\n    namespace: {namespace}\n" + sync)


def root_app(env):
    return (f"apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata:\n  name: dlt-root-{env}\n"
            "  namespace: argocd\n  finalizers:\n  - resources-finalizer.argocd.argoproj.io\n"
            f"spec:\n  project: dlt-{env}\n  source:\n    repoURL: {REPO_URL}\n    targetRevision: main\n"
            f"    path: argocd/{env}\n    directory:\n      recurse: false\n      include: \"*.yaml\"\n"
            "      exclude: \"app-root.yaml\"      # prevent self-reconciliation\n"
            "  destination:\n    server: https://kubernetes.default.svc\n    namespace: argocd\n"
            "  syncPolicy:\n    automated:\n      prune: true\n      selfHeal: true\n")


def promote_config(envs):
    comps = "".join(f"  dlt-node.{c}: {{chart: {chart}}}\n" for c, chart, _ in NODE_COMPONENTS)
    comps += "".join(f"  {short}: {{chart: {chart}}}\n" for short, chart, _, _ in reversed(ENV_APPS))
    return ("# .promote.yaml: how promote and manifestdiff read this repository\n"
            f"repoURL: {REPO_URL}          # this repository, as Argo CD `ref:` sources name it\n"
            f"environments: [{', '.join(envs)}]       # promotion order: each env is promoted from the one before it\n"
            "versions: versions/{env}.yaml\nmanifests:\n  - argocd/{env}/*.yaml\n"
            "appProjects:                 # the AppProjects the admin Argo CD applies\n  - projects/{env}.yaml\n"
            "components:                  # versions-file key path -> the Helm chart it pins\n" + comps)


def app_project(env, helm_url):
    """The env's AppProject, as the non-admin Argo CD's: this repository and
    the chart repository, any namespace of the in-cluster destination, and
    no cluster-scoped kind (the charts render none)."""
    return (f"# projects/{env}.yaml\n"
            "apiVersion: argoproj.io/v1alpha1\nkind: AppProject\n"
            f"metadata:\n  name: dlt-{env}\n  namespace: argocd\n"
            f"spec:\n  sourceRepos:\n  - {REPO_URL}\n  - {helm_url}\n"
            "  destinations:\n  - server: https://kubernetes.default.svc\n    namespace: '*'\n")


def write_repo(root, envs, node_count, helm_url):
    nodes = nodes_for(node_count)
    put(f"{root}/.promote.yaml", promote_config(envs))
    for env in envs:
        put(f"{root}/versions/{env}.yaml", versions_file(env))
        put(f"{root}/envs/{env}/common-node-values.yaml", common_node_values(env))
        put(f"{root}/envs/{env}/backup/values.yaml",
            f"backup:\n  env: {env}\n  target: s3://company-backups/dlt/{env}\n  retention: 7d\n"
            "  image:\n    repository: artifactory.example.com/tools/backup\n")
        put(f"{root}/envs/{env}/shared-services/values.yaml",
            f"shared-services:\n  replicas: {3 if env == 'prod' else 1}\n")
        for node in nodes:
            peers = [p for p in nodes if p != node][:3]
            for comp, text in node_value_files(node, peers).items():
                put(f"{root}/envs/{env}/nodes/{node}/values-{comp}.yaml", text)
        put(f"{root}/projects/{env}.yaml", app_project(env, helm_url))
        put(f"{root}/argocd/{env}/app-root.yaml", root_app(env))
        for short, chart, wave, ns in ENV_APPS:
            put(f"{root}/argocd/{env}/app-{short}.yaml", env_app(env, short, chart, wave, ns, helm_url))
        for comp, chart, wave in NODE_COMPONENTS:
            put(f"{root}/argocd/{env}/appset-{comp}.yaml", node_appset(env, comp, chart, wave, helm_url))


def promote_prod_by_hand(root, envs, node_count):
    """What a careful human does to pin prod to preprod: change only the
    pinned values (versions file and each chart's targetRevision), plus one
    unrelated edit of a preprod node's frontend values. qa is untouched."""
    if not {"preprod", "prod"} <= set(envs):
        raise SystemExit("--scenario promote-prod needs the envs preprod and prod")
    old, new = PINS["prod"], PINS["preprod"]
    path = f"{root}/versions/prod.yaml"
    out, block = [], None
    for line in open(path).read().split("\n"):
        key = line.strip()
        if key.endswith(":") and key[:-1] in old:
            block = key[:-1]
        for field, i in (("chartVersion", 0), ("imageTag", 1)):
            if block and key.startswith(field + ":") and old[block][i] and new[block][i]:
                line = line.replace(f'"{old[block][i]}"', f'"{new[block][i]}"', 1)
        out.append(line)
    put(path, "\n".join(out))
    files = [(f"appset-{c}.yaml", c) for c, _, _ in NODE_COMPONENTS] + [(f"app-{s}.yaml", s) for s, _, _, _ in ENV_APPS]
    for name, comp in files:
        p = f"{root}/argocd/prod/{name}"
        text = open(p).read().replace(f'targetRevision: "{old[comp][0]}"', f'targetRevision: "{new[comp][0]}"', 1)
        put(p, text)
    nodes = nodes_for(node_count)
    node = nodes[1 if len(nodes) > 1 else 0]
    with open(f"{root}/envs/preprod/nodes/{node}/values-frontend.yaml", "a") as f:
        f.write("    LOG_LEVEL: trace\n")


def git(root, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="Fixture", GIT_AUTHOR_EMAIL="fixture@example.com",
               GIT_COMMITTER_NAME="Fixture", GIT_COMMITTER_EMAIL="fixture@example.com",
               GIT_AUTHOR_DATE=GIT_DATE, GIT_COMMITTER_DATE=GIT_DATE)
    subprocess.run(["git", *args], cwd=root, env=env, check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True, help="output directory: OUT/repo and OUT/charts")
    ap.add_argument("--nodes", type=int, default=3, help="nodes per env (default 3)")
    ap.add_argument("--envs", default="qa,preprod,prod", help="comma-separated, in promotion order")
    ap.add_argument("--helm-url", default="http://127.0.0.1:8879",
                    help="chart repository URL written into the manifests and index.yaml")
    ap.add_argument("--git", action="store_true", help="make OUT/repo a git repository, one commit on main")
    ap.add_argument("--scenario", choices=["none", "promote-prod"], default="none",
                    help="with --git: a second commit, prod pinned to preprod by hand plus one preprod values edit")
    a = ap.parse_args()
    envs = [e for e in a.envs.split(",") if e]
    for env in envs:
        if not env.isidentifier() or env.startswith("_"):
            ap.error(f"env names are plain words: {env!r}")
        PINS.setdefault(env, PINS["prod"])
    if a.nodes < 1:
        ap.error("--nodes must be at least 1")
    if a.scenario != "none" and not a.git:
        ap.error("--scenario needs --git")
    root = os.path.join(a.out, "repo")
    write_repo(root, envs, a.nodes, a.helm_url)
    write_charts(os.path.join(a.out, "charts"), a.helm_url)
    if a.git:
        git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "initial gitops layout")
        if a.scenario == "promote-prod":
            promote_prod_by_hand(root, envs, a.nodes)
            git(root, "add", "-A")
            git(root, "commit", "-q", "-m", "promote preprod to prod; tune node-beta frontend")
    print(f"repo: {root}\ncharts: {os.path.join(a.out, 'charts')}")


if __name__ == "__main__":
    main()

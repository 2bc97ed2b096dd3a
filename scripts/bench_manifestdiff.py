"""manifestdiff part of `make bench` (imported by bench.py).

`manifestdiff --base HEAD~1` vs baseline/manifestdiff.sh on the promote-prod
scenario (12 and 50 nodes), alternating runs on the same repo; then how our
time grows with the number of nodes and with the size of the change.
"""
import os
import shutil
import statistics
import subprocess
import tempfile
import time


def _ours(a, repo, cache, binary=None):
    return [binary or f"{a.bin}/manifestdiff", "--repo", repo, "--base", "HEAD~1", "-o", "markdown",
            "--cache-dir", cache, "--output-file", os.devnull]


def _time(cmd, env, ok_codes=(0,)):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    if r.returncode not in ok_codes:
        raise SystemExit(f"bench: {' '.join(cmd)} failed ({r.returncode}): {r.stderr[-2000:]}")
    return dt


def commit_change(repo, nodes, sh):
    """One commit changing the frontend values of the first `nodes` prod nodes."""
    base = f"{repo}/envs/prod/nodes"
    for node in sorted(os.listdir(base))[:nodes]:
        with open(f"{base}/{node}/values-frontend.yaml", "a") as f:
            f.write("    FEATURE_FLAG: \"on\"\n")
    sh(["git", "add", "-A"], cwd=repo)
    sh(["git", "commit", "-q", "-m", f"change {nodes} nodes"], cwd=repo)


def run(a, work, url, generate, alternate, sh):
    env = dict(os.environ)
    rows = []
    runs = int(os.environ.get("BENCH_MD_RUNS", "3"))
    warm = f"{work}/md-cache-warm"
    for nodes in (12, 50):
        repo, _ = generate(a.gen, f"{work}/md-{nodes}", nodes, url, "promote-prod")
        base_times, cold_times, warm_times = [], [], []
        other_times = {name: [] for name, _ in a.others}
        _time(_ours(a, repo, warm), env)  # fill the warm cache once
        for _ in range(runs):
            base_times.append(_time(["bash", f"{a.baseline}/manifestdiff.sh", repo, "HEAD~1", url,
                                     os.devnull], env))
            cold = tempfile.mkdtemp(dir=work)
            cold_times.append(_time(_ours(a, repo, cold), env))
            shutil.rmtree(cold)
            warm_times.append(_time(_ours(a, repo, warm), env))
            for name, d in a.others:  # other builds (BENCH_B), alternating with ours
                other_times[name].append(_time(_ours(a, repo, warm, f"{d}/manifestdiff"), env))
        b = statistics.median(base_times)
        rows.append((f"manifestdiff, promote-prod, {nodes} nodes", "manifestdiff (cold chart cache)", b, statistics.median(cold_times)))
        rows.append((f"manifestdiff, promote-prod, {nodes} nodes", "manifestdiff (warm chart cache)", b, statistics.median(warm_times)))
        for name, ts in other_times.items():
            rows.append((f"manifestdiff, promote-prod, {nodes} nodes", f"manifestdiff (warm chart cache), {name}",
                         b, statistics.median(ts)))
    _growth(a, work, url, generate, sh, env, warm)
    return rows


def _growth(a, work, url, generate, sh, env, cache):
    """Print how our time grows with nodes (promote-prod) and with the change."""
    print("\nmanifestdiff growth (median of 5, warm chart cache):\n")
    print("| repo | change | apps changed | time |")
    print("|---|---|---|---|")
    for nodes in (3, 12, 25, 50, 100):
        repo, _ = generate(a.gen, f"{work}/grow-{nodes}", nodes, url, "promote-prod")
        t = statistics.median(_time(_ours(a, repo, cache), env) for _ in range(5))
        print(f"| {nodes} nodes x 3 envs | promote-prod | {nodes * 3 + 4} | {t * 1000:.0f} ms |")
    repo, _ = generate(a.gen, f"{work}/grow-change", 50, url)
    for k in (1, 5, 25, 50):
        commit_change(repo, k, sh)
        t = statistics.median(_time(_ours(a, repo, cache), env) for _ in range(5))
        print(f"| 50 nodes x 3 envs | frontend values of {k} prod nodes | {k} | {t * 1000:.0f} ms |")

"""The 1000-node promote-prod MR (12,009 apps, 3,004 changed) for `make bench`
(BENCH_ONLY=manifestdiff-1000), against the targets of issue 14: under 10 s
and under 300 MB on 2 cores, the same report.

Alternating runs on the same repo and warm chart cache:

  whole    manifestdiff --base HEAD~1 -o json (one job)
  sharded  4 shards (--shard i/4, as GitLab CI parallel: 4 runs them, here
           one after another) + merge; the figure is the slowest shard (what
           a parallel pipeline waits for) and the merge

Then the same one-app change (one prod node's frontend values) on 12, 100
and 1000 nodes: how a run's time and memory follow the repository's size
when the change stays the same.

With BENCH_B (bench.sh: one or more builds) or
BENCH_MD_B=/path/to/other/manifestdiff, the same whole run with each other
binary alternates too (an A/B of builds), and so do the one-app changes;
another build's report may lack the findings (an older build). Each run's CPU
(user+sys) and peak RSS come from wait4's rusage (benchproc); medians are printed. On a
shared machine, wall-clock is noisy: compare CPU, and take wall figures
on a quiet one. Every run's report is checked equal to the first.
"""
import json
import os
import statistics
import tempfile
import time

import bench_manifestdiff
import benchproc

TARGET_S, TARGET_MB = 10.0, 300


def _run(cmd, env):
    """Wall seconds, CPU seconds and peak RSS (MB) of one child process."""
    return benchproc.measure(cmd, env)


def _same(path, ref, other_build=False):
    """Every run's report must equal the first. Another build (BENCH_B) may
    be older than the sync-readiness rules: its report is held equal except
    for the findings, which it may not compute."""
    with open(path, "rb") as a, open(ref, "rb") as b:
        got, want = a.read(), b.read()
    if got == want:
        return
    if other_build:
        got, want = json.loads(got), json.loads(want)
        got.pop("findings", None)
        want.pop("findings", None)
        if got == want:
            return
    raise SystemExit(f"bench: {path} differs from {ref}: the report changed between runs")


def run(a, work, url, generate, sh, nodes=1000):
    runs = int(os.environ.get("BENCH_MD_RUNS", "3"))
    other = [(name, f"{d}/manifestdiff") for name, d in a.others]
    if os.environ.get("BENCH_MD_B"):
        other.append(("BENCH_MD_B", os.environ["BENCH_MD_B"]))
    repo, _ = generate(a.gen, f"{work}/fleet-{nodes}", nodes, url, "promote-prod")
    cache = f"{work}/fleet-cache"
    out = tempfile.mkdtemp(dir=work)
    env = dict(os.environ)

    def whole(binary, name):
        return [binary, "--repo", repo, "--base", "HEAD~1", "-o", "json", "--cache-dir", cache,
                "--output-file", f"{out}/{name}.json"]

    ref = f"{out}/ref.json"
    _run(whole(f"{a.bin}/manifestdiff", "ref"), env)  # fill the chart cache, the reference report
    res = {"whole": [], "shards": [], "merge": []}
    for name, _ in other:
        res[f"whole, {name}"] = []
    for i in range(runs):
        res["whole"].append(_run(whole(f"{a.bin}/manifestdiff", "whole"), env))
        _same(f"{out}/whole.json", ref)
        shard_times = []
        for k in range(1, 5):
            shard_times.append(_run(whole(f"{a.bin}/manifestdiff", f"shard-{k}") + ["--shard", f"{k}/4"], env))
        res["shards"].append(max(shard_times, key=lambda r: r[0]))
        res["merge"].append(_run([f"{a.bin}/manifestdiff", "merge", "-o", "json", "--output-file", f"{out}/merged.json"]
                                 + [f"{out}/shard-{k}.json" for k in range(1, 5)], env))
        _same(f"{out}/merged.json", ref)
        for name, binary in other:
            res[f"whole, {name}"].append(_run(whole(binary, "other"), env))
            _same(f"{out}/other.json", ref, other_build=True)
    print(f"\nmanifestdiff, promote-prod, {nodes} nodes ({runs} alternating runs, medians; "
          f"load average at the end {os.getloadavg()[0]:.1f}):\n")
    print(f"| run | wall | CPU (user+sys) | peak RSS | target |")
    print("|---|---|---|---|---|")
    for name, rs in res.items():
        wall = statistics.median(r[0] for r in rs)
        cpu = statistics.median(r[1] for r in rs)
        rss = max(r[2] for r in rs)
        target = f"{TARGET_S:.0f} s, {TARGET_MB} MB" if name.startswith("whole") else ""
        if name == "shards":
            name = "slowest of 4 shards (--shard i/4)"
        if name == "merge":
            name = "merge of the 4 shards"
        print(f"| {name} | {wall:.2f} s | {cpu:.2f} s | {rss:.0f} MB | {target} |")
    by_size(a, work, url, generate, sh, repo, cache, env, runs, other)


def by_size(a, work, url, generate, sh, fleet_repo, cache, env, runs, other):
    """The same one-app change on 12, 100 and 1000 nodes: what a run costs
    as the repository grows and the change does not."""
    print(f"\nmanifestdiff, one app changed (one prod node's frontend values), by repository size "
          f"({runs} runs, medians; peak RSS the largest):\n")
    print("| repo | apps | wall | CPU (user+sys) | peak RSS |")
    print("|---|---|---|---|---|")
    for nodes in (12, 100, 1000):
        src = fleet_repo if nodes == 1000 else generate(a.gen, f"{work}/size-{nodes}", nodes, url)[0]
        repo = f"{work}/size-{nodes}-change"
        sh(["cp", "-a", src, repo])
        bench_manifestdiff.commit_change(repo, 1, sh)  # one prod node's frontend values
        out = f"{work}/size-{nodes}.json"
        cmd = [f"{a.bin}/manifestdiff", "--repo", repo, "--base", "HEAD~1", "-o", "json",
               "--cache-dir", cache, "--output-file", out]
        _run(cmd, env)  # the chart versions of a new repository into the cache
        rs, other_rs = [], {name: [] for name, _ in other}
        for _ in range(runs):
            rs.append(_run(cmd, env))
            for name, binary in other:
                other_rs[name].append(_run([binary] + cmd[1:], env))
        with open(out) as f:
            summary = json.load(f)["summary"]
        if summary["byStatus"]["changed"] != 1 or summary["errors"] != 0:
            raise SystemExit(f"bench: {repo}: expected one changed app and no errors, got {summary}")
        wall = statistics.median(r[0] for r in rs)
        cpu = statistics.median(r[1] for r in rs)
        rss = max(r[2] for r in rs)
        print(f"| {nodes} nodes x 3 envs | {summary['apps']:,} | {wall:.2f} s | {cpu:.2f} s | {rss:.0f} MB |")
        for name, ors in other_rs.items():
            wall = statistics.median(r[0] for r in ors)
            cpu = statistics.median(r[1] for r in ors)
            rss = max(r[2] for r in ors)
            print(f"| {nodes} nodes x 3 envs, {name} | {summary['apps']:,} | {wall:.2f} s | {cpu:.2f} s | {rss:.0f} MB |")

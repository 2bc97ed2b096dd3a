#!/usr/bin/env python3
"""Benchmark gitops-promote against the shell baseline, in one run.

promote: `promote apply --from preprod --to prod` vs baseline/promote.sh on a
generated 12-node repo and on the same repo padded with 20,000 unrelated
files, then `promote apply` and `promote status` on a 1000-node repo (no
baseline there: the shell pipeline takes minutes). Runs alternate
(baseline, ours, baseline, ours, ...) on fresh copies of the repo, so all
see the same machine state; medians and their ratio are printed as a
markdown table for docs/benchmarks.md. With --b DIR[:DIR...] (BENCH_B in
bench.sh), each DIR's promote and manifestdiff alternate with ours in
every workload; BENCH_PADDED=0 leaves out the 20,000-file repository.
"""
import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

import benchproc

ENV = dict(os.environ, GIT_AUTHOR_NAME="Bench", GIT_AUTHOR_EMAIL="bench@example.com",
           GIT_COMMITTER_NAME="Bench", GIT_COMMITTER_EMAIL="bench@example.com")


def sh(cmd, cwd=None, check=True):
    return subprocess.run(cmd, cwd=cwd, env=ENV, check=check, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


class Server:
    """A chart repository served by a process of its own: a server thread
    in this process would wait for the GIL held by the loop that times the
    runs (up to the 5 ms switch interval per request), which the chart check
    of `promote apply` would then be charged with, as a real repository's
    host never would."""

    def __init__(self, directory, port):
        self.proc = subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1",
                                      "--directory", directory, str(port)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return
            except OSError:
                if self.proc.poll() is not None or time.time() > deadline:
                    raise SystemExit(f"bench: the chart repository server did not start on port {port}")
                time.sleep(0.05)

    def shutdown(self):
        self.proc.terminate()
        self.proc.wait()


def serve(directory, port):
    """Serve a chart repository directory on a loopback port."""
    return Server(directory, port)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def generate(gen, out, nodes, helm_url, scenario="none"):
    args = [sys.executable, gen, "--out", out, "--nodes", str(nodes),
            "--helm-url", helm_url, "--git"]
    if scenario != "none":
        args += ["--scenario", scenario]
    sh(args)
    settle(f"{out}/repo")
    return f"{out}/repo", f"{out}/charts"


def settle(repo):
    """Pack now and never in the background: copies of the repo must not race git's auto-gc."""
    sh(["git", "config", "gc.auto", "0"], cwd=repo)
    sh(["git", "gc", "-q"], cwd=repo)


def pad(repo, n):
    """Add n unrelated files in one commit, like a repo that also holds docs and tooling."""
    for i in range(n):
        d = f"{repo}/unrelated/d{i // 500:03d}"
        os.makedirs(d, exist_ok=True)
        with open(f"{d}/f{i:05d}.txt", "w") as f:
            f.write(f"unrelated file {i}\n")
    sh(["git", "add", "-A"], cwd=repo)
    sh(["git", "commit", "-q", "-m", f"pad with {n} files"], cwd=repo)
    settle(repo)


def timed(cmd, cwd):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=cwd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"bench: {' '.join(cmd)} failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
    return dt


def peak_rss(cmd, cwd):
    """Run cmd once, untimed; its peak RSS in MB (the kernel's high-water mark)."""
    return benchproc.measure(cmd, ENV, cwd)[2]


def alternate(runs, setup, cmds):
    """Run each named command `runs` times, interleaved, each on a fresh setup()."""
    times = {name: [] for name in cmds}
    for _ in range(runs):
        for name, cmd in cmds.items():
            cwd = setup()
            times[name].append(timed(cmd(cwd), cwd))
            shutil.rmtree(os.path.dirname(cwd), ignore_errors=True)
    return {name: statistics.median(ts) for name, ts in times.items()}, times


# The targets of promote apply (issue 30): under 50 ms on 12 nodes, under
# 1 s on 1000 nodes.
PROMOTE_TARGETS = {"12 nodes": (None, 50), "12 nodes + 20,000 files": (None, 50), "1000 nodes": (None, 1000)}


def others(a):
    """The other builds of --b, as (name, directory): b-NAME is how bench.sh stages NAME."""
    return [(os.path.basename(d).removeprefix("b-"), d) for d in a.b.split(":") if d]


def target_text(target):
    speedup, ms = target
    parts = ([f">= {speedup}x"] if speedup else []) + ([f"< {ms} ms"] if ms else [])
    return ", ".join(parts)


def target_met(target, baseline, ours):
    """"yes", "NO", or per part when only one part of a two-part target holds."""
    speedup, ms = target
    parts = []
    if speedup:
        parts.append((f">= {speedup}x", baseline / ours >= speedup))
    if ms:
        parts.append((f"< {ms} ms", ours * 1000 < ms))
    if all(ok for _, ok in parts):
        return "yes"
    if not any(ok for _, ok in parts):
        return "NO"
    return ", ".join(f"{name} {'yes' if ok else 'NO'}" for name, ok in parts)


def bench_promote(a, work, chart_url):
    rows = []
    scenarios = [("12 nodes", 12, 0), ("12 nodes + 20,000 files", 12, 20000), ("1000 nodes", 1000, 0)]
    if os.environ.get("BENCH_PADDED", "1") == "0":
        scenarios = [s for s in scenarios if not s[2]]
    for label, nodes, padding in scenarios:
        base = f"{work}/promote-{nodes}-{padding}"
        repo, _ = generate(a.gen, base, nodes, chart_url)
        if padding:
            pad(repo, padding)

        def setup(repo=repo):
            d = tempfile.mkdtemp(dir=work)
            # cp -a: shutil.copytree takes seconds per copy of 20,000 files
            subprocess.run(["cp", "-a", repo, f"{d}/repo"], check=True)
            # flush the copy now, so neither tool pays for writing it back
            subprocess.run(["sync"], check=True)
            return f"{d}/repo"

        def apply(binary, *extra):
            return lambda cwd: [binary, "apply", "--from", "preprod", "--to", "prod", "--repo", cwd, *extra]

        cmds = {}
        if nodes == 12:
            cmds["baseline promote.sh"] = lambda cwd: ["bash", f"{a.baseline}/promote.sh", cwd, "preprod", "prod"]
        cmds["promote apply"] = apply(f"{a.bin}/promote")
        cmds["promote apply --skip-chart-check"] = apply(f"{a.bin}/promote", "--skip-chart-check")
        for name, d in a.others:
            cmds[f"promote apply, {name}"] = apply(f"{d}/promote")
        med, _ = alternate(a.runs, setup, cmds)
        # the numstat of our commit, as the acceptance counts it, and the
        # peak RSS of that run (memory should not grow with the files)
        cwd = setup()
        rss = peak_rss(cmds["promote apply"](cwd), cwd)
        numstat = sh(["git", "diff", "--numstat", "HEAD~1", "HEAD"], cwd=cwd).stdout
        added = sum(int(l.split()[0]) for l in numstat.splitlines())
        removed = sum(int(l.split()[1]) for l in numstat.splitlines())
        base_t = med.get("baseline promote.sh")
        for name in cmds:
            if name != "baseline promote.sh":
                rows.append((f"promote, {label}", name, base_t, med[name], PROMOTE_TARGETS[label]))
        print(f"promote {label}: our commit changes {added}+{removed} lines ({added + removed} in numstat); "
              f"peak RSS of promote apply {rss:.1f} MB", file=sys.stderr)
        if nodes == 1000:
            rows += bench_status(a, repo, label)
    return rows


def bench_status(a, repo, label):
    """promote status on one repository (it only reads): ours and the other builds' alternating."""
    cmds = {"promote status": [f"{a.bin}/promote", "status", "--repo", repo]}
    for name, d in a.others:
        cmds[f"promote status, {name}"] = [f"{d}/promote", "status", "--repo", repo]
    times = {name: [] for name in cmds}
    for _ in range(a.runs):
        for name, cmd in cmds.items():
            times[name].append(timed(cmd, repo))
    return [(f"promote, {label}", name, None, statistics.median(ts)) for name, ts in times.items()]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--gen", default=f"{here}/gen_gitops_repo.py", help="the repository generator")
    ap.add_argument("--baseline", default=f"{here}/baseline", help="directory of promote.sh and manifestdiff.sh")
    ap.add_argument("--bin", required=True)
    ap.add_argument("--b", default="", help="other builds' directories (DIR:DIR...) of promote and manifestdiff, alternating with ours")
    ap.add_argument("--out", required=True)
    ap.add_argument("--runs", type=int, default=int(os.environ.get("BENCH_RUNS", "7")))
    ap.add_argument("--only", choices=["promote", "manifestdiff", "manifestdiff-1000", "html", "all"],
                    default=os.environ.get("BENCH_ONLY", "all"))
    a = ap.parse_args()
    a.others = others(a)
    os.makedirs(a.out, exist_ok=True)
    work = tempfile.mkdtemp(dir=a.out, prefix="run-")
    # one chart repository on loopback, for the chart check of `promote apply`
    # and the renders of manifestdiff; its index.yaml names this port
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    _, charts = generate(a.gen, f"{work}/charts-src", 1, url)
    srv = serve(charts, port)
    rows = []
    if a.only in ("promote", "all"):
        rows += bench_promote(a, work, url)
    if a.only in ("manifestdiff", "all"):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import bench_manifestdiff
        rows += bench_manifestdiff.run(a, work, url, generate, alternate, sh)
    if a.only in ("manifestdiff-1000", "all"):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import bench_manifestdiff_fleet
        bench_manifestdiff_fleet.run(a, work, url, generate, sh)
    if a.only in ("html", "all"):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import bench_html
        bench_html.run(a, work, url, generate, sh)
    if not rows:
        srv.shutdown()
        shutil.rmtree(work, ignore_errors=True)
        return
    counts = []  # each part alternates its own number of runs
    if any(r[0].startswith("promote") for r in rows):
        counts.append(f"promote {a.runs}")
    if any(r[0].startswith("manifestdiff") for r in rows):
        counts.append(f"manifestdiff {os.environ.get('BENCH_MD_RUNS', '3')} (BENCH_MD_RUNS)")
    print(f"\nalternating runs each: {', '.join(counts)}; medians, {os.cpu_count()} cores, {time.strftime('%Y-%m-%d')}\n")
    print("| scenario | tool | baseline median | ours median | speed-up | target | met |")
    print("|---|---|---|---|---|---|---|")
    for scen, name, b, o, *target in rows:
        goal, met = "-", "-"
        if target:
            goal, met = target_text(target[0]), target_met(target[0], b, o)
        base, speedup = ("-", "-") if b is None else (f"{b * 1000:.0f} ms", f"{b / o:.1f}x")
        print(f"| {scen} | {name} | {base} | {o * 1000:.1f} ms | {speedup} | {goal} | {met} |")
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")
    srv.shutdown()
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

"""HTML report part of `make bench` (imported by bench.py; `make bench-html`).

manifestdiff -o html on the generated promote-prod scenario (12 and 50
nodes): the file's size, the time to write it next to -o json, and, in
headless chromium (scripts/htmlbench), the time from navigation start to
the page's "rendered" marker. The 12-node run also refreshes the
screenshots in docs/. Then the worst case the page is built for: apps
whose big diffs share nothing.
"""
import os
import statistics
import subprocess
import time


def _time(cmd):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise SystemExit(f"bench: {' '.join(cmd)} failed ({r.returncode}): {r.stderr[-2000:]}")
    return time.perf_counter() - t0


def _htmlbench(tool, *args):
    r = subprocess.run([tool, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise SystemExit(f"bench: htmlbench {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout.strip()


def run(a, work, url, generate, sh):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tool = f"{work}/htmlbench"
    sh(["go", "build", "-o", tool, "./scripts/htmlbench"], cwd=root)
    cache = f"{work}/html-cache"
    runs = int(os.environ.get("BENCH_HTML_RUNS", "7"))
    print("\nHTML report (manifestdiff -o html), medians:\n")
    for nodes in (12, 50):
        repo, _ = generate(a.gen, f"{work}/html-{nodes}", nodes, url, "promote-prod")
        out = {}
        for fmt in ("json", "html"):
            out[fmt] = f"{work}/html-{nodes}/report.{fmt}"
            cmd = [f"{a.bin}/manifestdiff", "--repo", repo, "--base", "HEAD~1", "-o", fmt, "--cache-dir", cache,
                   "--output-file", out[fmt], "-q"]
            _time(cmd)  # warm the chart cache
            t = statistics.median(_time(cmd) for _ in range(3))
            print(f"- {nodes} nodes, manifestdiff -o {fmt}: {t * 1000:.0f} ms (warm chart cache, median of 3)")
        args = ["-html", out["html"], "-json", out["json"], "-runs", str(runs)]
        if nodes == 12:
            args += ["-shot", f"{root}/docs/html-report-12-nodes.png", "-shot-filter", "LOG_LEVEL"]
        print("- " + _htmlbench(tool, *args))
    for apps, lines in ((100, 1000), (200, 1000)):
        print(f"- worst case, {apps} apps each adding its own {lines}-line ConfigMap: " +
              _htmlbench(tool, "-synthetic-apps", str(apps), "-synthetic-lines", str(lines), "-runs", str(runs)))
    return []

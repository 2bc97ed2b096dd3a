"""Run a benchmark's child process and measure it: wall, CPU (user+sys)
and peak RSS from wait4's rusage.

Children are started by a small launcher process, not by the bench
itself: Linux keeps the RSS high-water mark across exec, so a child forked
from the bench (which holds reports of tens of MB) would report the
bench's own peak as its own. The launcher stays at about 13 MB, under
any figure it measures."""
import json
import os
import subprocess
import sys

_LAUNCHER = r"""
import json, os, subprocess, sys, time
for line in sys.stdin:
    req = json.loads(line)
    t0 = time.perf_counter()
    p = subprocess.Popen(req["cmd"], cwd=req["cwd"], env=req["env"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    p.stderr.close()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    print(json.dumps({"code": os.waitstatus_to_exitcode(status), "wall": wall,
                      "cpu": ru.ru_utime + ru.ru_stime, "rss_mb": ru.ru_maxrss / 1024,
                      "err": err[-2000:].decode(errors="replace")}), flush=True)
"""

_launcher = None


def measure(cmd, env=None, cwd=None):
    """Wall seconds, CPU seconds and peak RSS (MB) of one run of cmd; exits
    the bench when it fails."""
    global _launcher
    if _launcher is None:
        _launcher = subprocess.Popen([sys.executable, "-c", _LAUNCHER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
    req = {"cmd": cmd, "cwd": cwd, "env": dict(os.environ if env is None else env)}
    _launcher.stdin.write(json.dumps(req) + "\n")
    _launcher.stdin.flush()
    r = json.loads(_launcher.stdout.readline())
    if r["code"] != 0:
        raise SystemExit(f"bench: {' '.join(cmd)} failed ({r['code']}): {r['err']}")
    return r["wall"], r["cpu"], r["rss_mb"]

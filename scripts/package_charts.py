#!/usr/bin/env python3
"""Package the example charts into a Helm chart repository directory.

Usage: package_charts.py SRC_DIR OUT_DIR

Every SRC_DIR/<chart>/ with a `versions` file (space-separated versions) is
packaged once per version as OUT_DIR/<chart>-<version>.tgz, with Chart.yaml's
version and appVersion set, and OUT_DIR/index.yaml lists them with relative
URLs and sha256 digests, so the directory can be served on any port.
Deterministic: the same input gives the same bytes.
"""
import gzip
import hashlib
import io
import os
import re
import sys
import tarfile


def package(chart_dir, name, version):
    tar_buf = io.BytesIO()
    with tarfile.open(fileobj=tar_buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for root, _, files in sorted(os.walk(chart_dir)):
            for f in sorted(files):
                if f == "versions":
                    continue
                path = os.path.join(root, f)
                rel = os.path.relpath(path, chart_dir)
                data = open(path, "rb").read()
                if rel == "Chart.yaml":
                    text = data.decode()
                    text = re.sub(r"(?m)^version:.*$", f"version: {version}", text)
                    text = re.sub(r"(?m)^appVersion:.*$", f'appVersion: "v{version}"', text)
                    data = text.encode()
                info = tarfile.TarInfo(f"{name}/{rel}")
                info.size, info.mtime, info.mode = len(data), 1700000000, 0o644
                tar.addfile(info, io.BytesIO(data))
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=1700000000) as gz:
        gz.write(tar_buf.getvalue())
    return out.getvalue()


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    lines = ["apiVersion: v1", "entries:"]
    for name in sorted(os.listdir(src)):
        chart_dir = os.path.join(src, name)
        vfile = os.path.join(chart_dir, "versions")
        if not os.path.isfile(vfile):
            continue
        lines.append(f"  {name}:")
        for version in reversed(open(vfile).read().split()):
            raw = package(chart_dir, name, version)
            fname = f"{name}-{version}.tgz"
            with open(os.path.join(out, fname), "wb") as f:
                f.write(raw)
            lines += [
                "  - apiVersion: v2",
                f"    appVersion: v{version}",
                '    created: "2026-11-01T00:00:00Z"',
                f"    digest: {hashlib.sha256(raw).hexdigest()}",
                f"    name: {name}",
                "    type: application",
                "    urls:",
                f"    - {fname}",
                f"    version: {version}",
            ]
    lines.append('generated: "2026-11-01T00:00:00Z"')
    with open(os.path.join(out, "index.yaml"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Benchmark and check: `lathe info` against `llvm-readelf --notes` on the
same code objects, per generation: every code object of the
jax-rocm7-plugin wheel (`.cache/`, installed by scripts/setup.sh) for each
processor asked for, and Debian's librocSPARSE's for a few. `lathe info`
prints more (descriptors decoded per generation, initial SGPRs, the
occupancy estimate, arguments, symbols, checks) than readelf's metadata
notes, so this measures what the richer summary costs.

Check, per object: the kernels `lathe info --json` lists are exactly the
metadata's (`.name` in readelf's notes), with the same
`.group_segment_fixed_size`, `.wavefront_size`, `.sgpr_count` and
`.vgpr_count`, and every kernel has an occupancy estimate. Any
difference exits 1. Then both tools are timed over all the objects of a
processor, alternating, --runs times; reported as median and spread
(bench/stats.py).

Usage: bench/info_targets.py [--targets gfx90a,gfx942,gfx1030,gfx1100,gfx1151,gfx1201]
                             [--rocsparse gfx803,gfx90a:xnack-,gfx1030] [--runs N]
Set LATHE_BIN to use an existing binary (else `cargo build --profile ci`).
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats import describe, fail, ratio  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
READELF = "/usr/lib/llvm-22/bin/llvm-readelf"
ROCSPARSE = "/usr/lib/x86_64-linux-gnu/librocsparse.so.0"


def notes_kernels(path):
    """{name: {field: value}} from llvm-readelf --notes: the kernel-level
    keys of each `amdhsa.kernels` entry (`  - .key` starts an entry, its
    keys are indented four spaces; the arguments' deeper)."""
    text = subprocess.run([READELF, "--notes", path], capture_output=True, text=True,
                          check=True).stdout
    kernels, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"^(  - |    )\.(\w+):\s*(\S*)", line)
        if not m:
            continue
        start, key, val = m.groups()
        if start == "  - ":
            cur = {}
        if cur is None:
            continue
        if key == "name":
            kernels[val] = cur
        elif key in ("group_segment_fixed_size", "wavefront_size", "sgpr_count", "vgpr_count"):
            cur[key] = int(val)
    return kernels


def check(lathe, path):
    theirs = notes_kernels(path)
    j = json.loads(subprocess.run([lathe, "-q", "--json", "info", path], capture_output=True,
                                  text=True, check=True).stdout)
    ours = {}
    for co in j["code_objects"]:
        for k in co["kernels"]:
            if k.get("occupancy") is None or "waves_per_simd" not in k["occupancy"]:
                fail(f"{path}: {k['name']}: no occupancy estimate")
            m = k["metadata"]
            ours[k["name"]] = {
                "group_segment_fixed_size": k["descriptor"]["group_segment_fixed_size"],
                "wavefront_size": k["descriptor"]["wavefront_size"],
                "sgpr_count": m["sgpr_count"],
                "vgpr_count": m["vgpr_count"],
            }
    if set(ours) != set(theirs):
        fail(f"{path}: kernels differ: {sorted(set(ours) ^ set(theirs))[:3]}")
    for n, f in theirs.items():
        for key, v in f.items():
            if ours[n][key] != v:
                fail(f"{path}: {n}: {key} {ours[n][key]} vs readelf {v}")
    return len(ours)


def extract(lathe, lib, proc, out):
    r = subprocess.run([lathe, "-q", "bundle", "extract", lib, "-t", proc, "-o", out],
                       capture_output=True)
    return sorted(glob.glob(os.path.join(out, "*.co"))) if r.returncode == 0 else []


def measure(lathe, label, objs, runs):
    kernels = sum(check(lathe, p) for p in objs)
    size = sum(os.path.getsize(p) for p in objs)
    times = {"lathe": [], "llvm": []}
    for _ in range(runs):
        for tool, cmd in (("lathe", lambda p: [lathe, "-q", "info", p]),
                          ("llvm", lambda p: [READELF, "--notes", p])):
            t0 = time.perf_counter()
            for p in objs:
                subprocess.run(cmd(p), stdout=subprocess.DEVNULL, check=True)
            times[tool].append(time.perf_counter() - t0)
    print(f"{label}: {len(objs)} code objects ({size / 1e6:.1f} MB), {kernels} kernels agree "
          f"with readelf's notes")
    print(f"  lathe info:           {describe(times['lathe'], 's', 1, '{:.3f}')}")
    print(f"  llvm-readelf --notes: {describe(times['llvm'], 's', 1, '{:.3f}')}")
    print(f"  readelf / lathe: {ratio(times['llvm'], times['lathe'])}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--targets", default="gfx90a,gfx942,gfx1030,gfx1100,gfx1151,gfx1201")
    ap.add_argument("--rocsparse", default="gfx803,gfx90a:xnack-,gfx1030")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    lathe = os.environ.get("LATHE_BIN")
    if not lathe:
        subprocess.run(["cargo", "build", "--profile", "ci", "-q", "-p", "lathe-cli"], cwd=ROOT,
                       check=True)
        lathe = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")),
                             "ci/lathe")
    libs = sorted(glob.glob(os.path.join(ROOT, ".cache", "jax-rocm7-plugin", "**", "*.so*"),
                            recursive=True))
    wd = tempfile.mkdtemp(prefix="lathe-info-bench-")
    try:
        if not libs:
            print("jax wheel not in .cache (scripts/setup.sh): skipped")
        for proc in [t for t in a.targets.split(",") if t] if libs else []:
            objs = []
            for i, lib in enumerate(libs):
                objs += extract(lathe, lib, proc, os.path.join(wd, "jax", proc, str(i)))
            if objs:
                measure(lathe, f"jax {proc}", objs, a.runs)
            else:
                print(f"jax {proc}: no code objects in the wheel")
        if os.path.exists(ROCSPARSE):
            for proc in [t for t in a.rocsparse.split(",") if t]:
                objs = extract(lathe, ROCSPARSE, proc, os.path.join(wd, "rocsparse", proc))
                if objs:
                    measure(lathe, f"rocSPARSE {proc}", objs, a.runs)
                else:
                    print(f"rocSPARSE {proc}: no code objects")
        else:
            print(f"{ROCSPARSE} not installed: skipped")
    finally:
        shutil.rmtree(wd, ignore_errors=True)


if __name__ == "__main__":
    main()

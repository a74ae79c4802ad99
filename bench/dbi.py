#!/usr/bin/env python3
"""Instrumentation-time benchmark: extract the gfx90a code objects of
Debian's librocsparse.so.0.1, then lift + analyse + rewrite each with the
`instr-count` tool (crates/dbi/examples/dbi_bench.rs) and check that every
result parses again as a code object. Reports per-kernel time (each code
object's time divided by its kernels: the rewriter re-emits a whole code
object at once) as median and p99, and the total. Goals: median <= 1 ms,
total <= 30 s. Exits non-zero if any code object fails or does not reparse.

There is no peer instrumenter installed to run side by side; the anchors in
issue 10 (Omniprobe > 10 min to disassemble rocBLAS, rocjitsu <= 20 s per
200 MB) are quoted, not measured.
Usage: bench/dbi.py [--limit N]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB = "/usr/lib/x86_64-linux-gnu/librocsparse.so.0.1"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=0)
    a = ap.parse_args()
    if not os.path.exists(LIB):
        sys.exit("needs librocsparse0")
    tgt = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    subprocess.run(["cargo", "build", "--profile", "ci", "-q", "-p", "lathe-cli", "-p", "lathe-dbi",
                    "--example", "dbi_bench"], cwd=ROOT, check=True)
    subprocess.run(["cargo", "build", "--profile", "ci", "-q", "-p", "lathe-cli"], cwd=ROOT, check=True)
    lathe = os.path.join(tgt, "ci/lathe")
    bench = os.path.join(tgt, "ci/examples/dbi_bench")
    wd = tempfile.mkdtemp(prefix="lathe-dbi-")
    cos = os.path.join(wd, "co")
    subprocess.run([lathe, "-q", "bundle", "extract", LIB, "-t", "gfx90a:xnack-", "-o", cos], check=True,
                   capture_output=True)
    files = sorted(os.path.join(cos, f) for f in os.listdir(cos))
    if a.limit:
        files = files[: a.limit]
    t = time.time()
    out = subprocess.run([bench] + files, check=True, capture_output=True, text=True).stdout
    wall = time.time() - t
    per_kernel = []
    bad = []
    total = kernels = insts = 0
    for line in out.splitlines():
        r = json.loads(line)
        if "error" in r or not r.get("reparses"):
            bad.append(r)
            continue
        s = r["lift_s"] + r["rewrite_s"]
        total += s
        kernels += r["kernels"]
        insts += r["instructions"]
        per_kernel += [s / max(r["kernels"], 1)] * r["kernels"]
    per_kernel.sort()
    med = statistics.median(per_kernel) if per_kernel else 0
    p99 = per_kernel[min(len(per_kernel) - 1, int(0.99 * len(per_kernel)))] if per_kernel else 0
    print(f"{len(files)} code objects, {kernels} kernels, {insts} instructions")
    print(f"per kernel: median {med*1e3:.3f} ms, p99 {p99*1e3:.3f} ms (goal median <= 1 ms)")
    print(f"total {total:.2f} s in-process, {wall:.2f} s wall (goal <= 30 s)")
    for r in bad[:10]:
        print("FAILED:", r)
    if bad:
        print(f"{len(bad)} code objects failed")
        sys.exit(1)


if __name__ == "__main__":
    main()

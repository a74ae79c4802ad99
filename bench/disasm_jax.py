#!/usr/bin/env python3
"""Benchmark and check: `lathe disasm --format llvm` against
`llvm-objdump -d --no-show-raw-insn --no-leading-addr --mcpu=<processor>` on
every code object of the jax-rocm7-plugin wheel (`.cache/`, installed by
scripts/setup.sh) for each processor asked for -- by default gfx1201
(GFX12), gfx1151 (GFX11.5), gfx1100 (GFX11), gfx1030 (GFX10.3) and gfx1010,
gfx1012 (GFX10.1), and gfx90a for
comparison; any processor lathe-isa decodes can be named. Per processor: the listings are compared line by line after
collapsing whitespace (any difference exits 1), then both tools are timed
over all its objects, alternating, --runs times; reported as median and
spread (bench/stats.py).

Usage: bench/disasm_jax.py [--targets gfx1201,gfx1151,gfx1100,gfx1030,gfx1010,gfx1012,gfx90a] [--runs N]
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats import describe, fail, ratio  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OBJDUMP = "/usr/lib/llvm-22/bin/llvm-objdump"


def squash(text):
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--targets", default="gfx1201,gfx1151,gfx1100,gfx1030,gfx1010,gfx1012,gfx90a")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    libs = sorted(glob.glob(os.path.join(ROOT, ".cache", "jax-rocm7-plugin", "**", "*.so*"),
                            recursive=True))
    if not libs:
        sys.exit("needs the jax-rocm7-plugin wheel in .cache: run scripts/setup.sh")
    lathe = os.environ.get("LATHE_BIN")
    if not lathe:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "lathe-cli"], cwd=ROOT, check=True)
        lathe = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")),
                             "release/lathe")
    wd = tempfile.mkdtemp(prefix="lathe-disasm-jax-")
    try:
        for proc in a.targets.split(","):
            objs = []
            for i, lib in enumerate(libs):
                out = os.path.join(wd, proc, str(i))
                r = subprocess.run([lathe, "-q", "bundle", "extract", lib, "-t", proc, "-o", out],
                                   capture_output=True)
                if r.returncode == 0:
                    objs += sorted(glob.glob(os.path.join(out, "*.co")))
            if not objs:
                print(f"{proc}: no code objects in the wheel")
                continue
            lines = 0
            for p in objs:
                ours = squash(subprocess.run([lathe, "-q", "disasm", "--format", "llvm", p],
                                             capture_output=True, text=True, check=True).stdout)
                theirs = squash(subprocess.run(
                    [OBJDUMP, "-d", "--no-show-raw-insn", "--no-leading-addr", "--mcpu=" + proc, p],
                    capture_output=True, text=True, check=True).stdout)
                while theirs and not theirs[0].endswith(">:"):
                    theirs.pop(0)
                lines += sum(1 for x in theirs if not x.endswith(">:"))
                diffs = [(x, y) for x, y in zip(ours, theirs) if x != y]
                if diffs or len(ours) != len(theirs):
                    fail(f"{proc} {p}: {len(diffs)} differing lines, first {diffs[:1]}, "
                         f"{len(ours)} vs {len(theirs)} lines")
            times = {"lathe": [], "llvm": []}
            for _ in range(a.runs):
                for tool, cmd in (("lathe", lambda p: [lathe, "-q", "disasm", "--format", "llvm", p,
                                                       "-o", os.devnull]),
                                  ("llvm", lambda p: [OBJDUMP, "-d", "--no-show-raw-insn",
                                                      "--no-leading-addr", "--mcpu=" + proc, p])):
                    t0 = time.perf_counter()
                    for p in objs:
                        subprocess.run(cmd(p), stdout=subprocess.DEVNULL, check=True)
                    times[tool].append(time.perf_counter() - t0)
            print(f"{proc}: {len(objs)} code objects, {lines} instruction lines, 0 differing lines")
            print(f"  lathe disasm: {describe(times['lathe'], 's', 1, '{:.3f}')}")
            print(f"  llvm-objdump: {describe(times['llvm'], 's', 1, '{:.3f}')}")
            print(f"  speed-up: {ratio(times['llvm'], times['lathe'])}")
    finally:
        shutil.rmtree(wd, ignore_errors=True)


if __name__ == "__main__":
    main()

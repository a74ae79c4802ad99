#!/usr/bin/env python3
"""Benchmark and corpus check: disassemble every gfx90a code object of
Debian's librocsparse.so.0.1 with `lathe disasm --format llvm` and with
`llvm-objdump -d --no-show-raw-insn --no-leading-addr --mcpu=gfx90a`, side by
side in one run, output to files. Reports the time ratio, Lathe's decode rate
(instructions per second), and the number of listing lines that differ after
collapsing whitespace: any difference exits with status 1. Times are the
median of --runs passes with their spread.

Needs librocsparse0 (`scripts/setup.sh` installs it). Usage: bench/disasm_rocsparse.py [--limit N]
[--runs N] [--threads N] (N is passed to `lathe disasm --threads`; default: all cores)
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import statistics
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats import describe, fail, ratio  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB = "/usr/lib/x86_64-linux-gnu/librocsparse.so.0.1"
OBJDUMP = "/usr/lib/llvm-22/bin/llvm-objdump"


def squash(text):
    out = []
    for line in text.splitlines():
        s = " ".join(line.split())
        if s:
            out.append(s)
    return out


def digest(path):
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=0, help="only the first N code objects")
    ap.add_argument("--threads", type=int, default=None, help="pass --threads N to lathe disasm")
    ap.add_argument("--runs", type=int, default=3, help="passes over all code objects")
    a = ap.parse_args()
    if not os.path.exists(LIB):
        sys.exit("needs librocsparse0: run scripts/setup.sh")
    lathe = os.environ.get("LATHE_BIN")
    if not lathe:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "lathe-cli"], cwd=ROOT, check=True)
        lathe = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release/lathe")
    wd = tempfile.mkdtemp(prefix="lathe-disasm-")
    cos = os.path.join(wd, "co")
    subprocess.run([lathe, "-q", "bundle", "extract", LIB, "-t", "gfx90a:xnack-", "-o", cos], check=True,
                   capture_output=True)
    files = sorted(os.listdir(cos))
    if a.limit:
        files = files[: a.limit]
    extra = [] if a.threads is None else ["--threads", str(a.threads)]
    times = {"lathe": [], "llvm": []}
    insts = 0
    # Run 0 compares the listings line by line; later runs compare each
    # output's digest with run 0's (the same check, cheaper).
    first_digests = {}
    for run in range(a.runs):
        t_lathe = t_llvm = 0.0
        mismatched = 0
        first_diff = None
        for f in files:
            p = os.path.join(cos, f)
            ol, oo = os.path.join(wd, f + ".lathe"), os.path.join(wd, f + ".llvm")
            t0 = time.perf_counter()
            subprocess.run([lathe, "-q", "disasm", "--format", "llvm", p, "-o", ol] + extra, check=True)
            t1 = time.perf_counter()
            with open(oo, "w") as fh:
                subprocess.run([OBJDUMP, "-d", "--no-show-raw-insn", "--no-leading-addr", "--mcpu=gfx90a", p],
                               stdout=fh, check=True)
            t2 = time.perf_counter()
            t_lathe += t1 - t0
            t_llvm += t2 - t1
            if run == 0:
                ours = squash(open(ol).read())
                theirs = squash(open(oo).read())
                # llvm-objdump's own headers come before the first symbol label.
                while theirs and not theirs[0].endswith(">:"):
                    theirs.pop(0)
                insts += sum(1 for x in theirs if not x.endswith(">:"))
                diffs = [(x, y) for x, y in zip(ours, theirs) if x != y] + (
                    [("<len>", "<len>")] if len(ours) != len(theirs) else [])
                mismatched += len(diffs)
                if diffs and first_diff is None:
                    first_diff = (f, diffs[0])
                first_digests[f] = (digest(ol), digest(oo))
            elif (digest(ol), digest(oo)) != first_digests[f]:
                mismatched += 1
                first_diff = first_diff or (f, ("output differs from run 0", ""))
            # Both outputs go once compared: hundreds of MB of dirty page
            # cache would otherwise be written back during later runs.
            os.remove(ol)
            os.remove(oo)
        times["lathe"].append(t_lathe)
        times["llvm"].append(t_llvm)
        print(f"run {run}: lathe {t_lathe:.2f} s, llvm-objdump {t_llvm:.2f} s, {mismatched} mismatching lines",
              flush=True)
        if mismatched:
            shutil.rmtree(wd, ignore_errors=True)
            fail(f"run {run}: {mismatched} mismatching lines; first in {first_diff[0]}: "
                 f"lathe {first_diff[1][0]!r} vs llvm {first_diff[1][1]!r}")
    shutil.rmtree(wd, ignore_errors=True)
    rate = [insts / t / 1e6 for t in times["lathe"]]
    print(f"{len(files)} gfx90a code objects, {insts} instruction lines, 0 mismatching lines in {a.runs} runs")
    print(f"lathe disasm: {describe(times['lathe'], 's', 1, '{:.2f}')} "
          f"({statistics.median(rate):.2f} M instructions/s incl. process start and output)")
    print(f"llvm-objdump: {describe(times['llvm'], 's', 1, '{:.2f}')}")
    print(f"speed-up: {ratio(times['llvm'], times['lathe'])}")

if __name__ == "__main__":
    main()

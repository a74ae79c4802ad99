#!/usr/bin/env python3
"""`lathe exec --check memcheck`, `initcheck`, `racecheck` and `all`
against the plain `lathe exec`, side by side (the sides alternate, so each
round saw similar machine load), on the project's HIP programs built by Debian's hipcc for
gfx90a: wall time of the whole program (HIP start-up, copies, every
kernel) and the emulator's time in kernels (the sum of `--stats-json`
seconds, which HIP's start-up does not blur), and the process's CPU
time (user + system, which a loaded machine blurs less than wall time, but
which includes HIP's start-up). Every checked run's program output must equal the plain run's
output and its exit status must be the program's (no finding: the
programs are correct); any mismatch exits 1. Reports each side's median
and spread and the median of the per-run ratios (goals, issue 21:
memcheck <= 1.5x, initcheck <= 2x, racecheck <= 5x, all four <= 6x). Needs the lathe binary and the HSA
runtime (`cargo build --release --workspace`, or `--lathe
target/ci/lathe` after a ci build). Usage:
bench/exec_check.py [--repeat N] [--lathe PATH] [--only NAME,...]"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats import describe, fail, ratio  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# (source, arguments): programs whose kernels do real work.
PROGRAMS = [
    ("crates/cli/tests/exec/app.hip", ["2000000", "10", "0"]),
    ("crates/cli/tests/exec/sanitize.hip", ["ok"]),
    # LDS atomics, a dynamic-LDS reduction and barriers (racecheck's work).
    ("crates/cli/tests/exec/sanitize2.hip", ["ok", "1000000"]),
    ("crates/hsa/tests/hip/basics.hip", []),
    ("crates/cli/tests/exec/tools_app.hip", []),
    # Global racecheck's work (D33): plain stores and loads across blocks
    # ordered by an atomic counter, and a histogram of global atomics.
    ("crates/cli/tests/exec/sanitize3.hip", ["reduce", "2000"]),
    ("crates/cli/tests/exec/sanitize3.hip", ["hist", "1000000"]),
]
SIDES = [("plain", []), ("memcheck", ["--check", "memcheck"]),
         ("initcheck", ["--check", "initcheck"]),
         ("racecheck", ["--check", "racecheck"]),
         ("all", ["--check", "all"])]
GOALS = {"memcheck": 1.5, "initcheck": 2.0, "racecheck": 5.0, "all": 6.0}


def run(lathe, app, args, extra):
    stats = app + ".stats.json"
    cmd = [lathe, "exec", "--stats-json", stats] + extra + ["--", app] + args
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    with open(stats) as f:
        kt = sum(r["seconds"] for r in json.load(f))
    return dt, kt, cpu, p


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--lathe", default=os.path.join(ROOT, "target/release/lathe"))
    ap.add_argument("--only", default="",
                    help="comma-separated program names (e.g. sanitize3,app): only those")
    a = ap.parse_args()
    only = [n for n in a.only.split(",") if n]
    with tempfile.TemporaryDirectory() as tmp:
        for src, args in PROGRAMS:
            name = os.path.splitext(os.path.basename(src))[0]
            if only and name not in only:
                continue
            app = os.path.join(tmp, name)
            subprocess.run(["hipcc", "--offload-arch=gfx90a", "-O2", "-g", "-o", app,
                            os.path.join(ROOT, src)], check=True, capture_output=True)
            _, _, _, ref = run(a.lathe, app, args, [])
            if ref.returncode != 0:
                fail(f"{name}: plain run exited {ref.returncode}: {ref.stderr[-2000:]}")
            times = {s: [] for s, _ in SIDES}
            ktimes = {s: [] for s, _ in SIDES}
            ctimes = {s: [] for s, _ in SIDES}
            for _ in range(a.repeat):
                for side, extra in SIDES:
                    dt, kt, cpu, p = run(a.lathe, app, args, extra)
                    ktimes[side].append(kt)
                    ctimes[side].append(cpu)
                    if p.returncode != ref.returncode:
                        fail(f"{name} {side}: exit {p.returncode}: {p.stderr[-2000:]}")
                    if p.stdout != ref.stdout:
                        fail(f"{name} {side}: output differs from the plain run")
                    times[side].append(dt)
            print(f"{name} {' '.join(args)}:")
            for side, _ in SIDES:
                print(f"  {side:9} wall {describe(times[side])}")
                print(f"  {side:9} kernels {describe(ktimes[side])}")
                print(f"  {side:9} cpu {describe(ctimes[side])}")
            for side, goal in GOALS.items():
                print(f"  {side} / plain: wall {ratio(times[side], times['plain'])}, "
                      f"kernels {ratio(ktimes[side], ktimes['plain'])}, "
                      f"cpu {ratio(ctimes[side], ctimes['plain'])} (goal <= {goal}x)")
            sys.stdout.flush()


if __name__ == "__main__":
    main()

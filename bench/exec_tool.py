#!/usr/bin/env python3
"""`lathe exec --tool instr-count` against the uninstrumented `lathe exec`,
and the same count done by a tool written in HIP (examples/tools/
instr-count: a hook call per block entry and after each EXEC write)
against the built-in inline-probe form, side by side in one run (the
three alternate), on the project's HIP programs built by Debian's hipcc
for gfx90a:

* wall time of the whole program (HIP start-up, copies, every kernel);
* dynamic wave-instructions the emulator executed (from --stats-json):
  each instrumented run's (program + probes or hook calls) over the
  original's.

Every run's program output must equal the uninstrumented output, and both
tools' per-launch wave- and thread-instruction counts must equal the
uninstrumented run's ground truth (LATHE_GROUND_TRUTH); any mismatch exits
1. Reports median and spread. Needs `cargo build --release --workspace`
(the lathe binary, the HSA runtime and liblathe_tool.so). Usage:
bench/exec_tool.py [--repeat N]"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats import describe, fail, median  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAMS = [
    "crates/cli/tests/exec/tools_app.hip",
    "crates/hsa/tests/hip/basics.hip",
    "crates/hsa/tests/hip/launches.hip",
]


def run(lathe, app, extra, tmp, tag, env=None):
    stats = os.path.join(tmp, f"{tag}.stats.json")
    cmd = [lathe, "exec", "--stats-json", stats] + extra + ["--", app]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True,
                       env=dict(os.environ, **(env or {})))
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr[-2000:]}")
    with open(stats) as f:
        return dt, p.stdout, json.load(f)


def check_counts(name, form, recs, truth):
    if len(recs) != len(truth):
        fail(f"{name} {form}: {len(recs)} tool records for {len(truth)} launches")
    for r, g in zip(recs, truth):
        for k in ("wave_instructions", "thread_instructions"):
            if r["tool"].get(k) != g[k]:
                fail(f"{name} {form} launch {r['launch']}: {k} {r['tool'].get(k)}, "
                     f"ground truth {g[k]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    lathe = os.path.join(ROOT, "target", "release", "lathe")
    for f in ["lathe", "libhsa_runtime64.so", "liblathe_tool.so"]:
        if not os.path.exists(os.path.join(ROOT, "target", "release", f)):
            fail(f"target/release/{f} missing: run cargo build --release --workspace")
    hip_tool = os.path.join(ROOT, "examples", "tools", "instr-count")
    tmp = tempfile.mkdtemp(prefix="lathe-exec-tool-bench-")
    print("| program | uninstrumented | inline instr-count | HIP instr-count | "
          "time: inline / orig | time: HIP / orig | time: HIP / inline | "
          "wave-instr: inline / orig | wave-instr: HIP / orig |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for src in PROGRAMS:
        name = os.path.splitext(os.path.basename(src))[0]
        app = os.path.join(tmp, name)
        subprocess.run(["hipcc", "--offload-arch=gfx90a", "-O2", "-o", app,
                        os.path.join(ROOT, src)], check=True, capture_output=True)
        truth_file = os.path.join(tmp, f"{name}.truth.json")
        _, out_ref, _ = run(lathe, app, [], tmp, f"{name}-truth",
                            {"LATHE_GROUND_TRUTH": truth_file})
        with open(truth_file) as f:
            truth = json.load(f)
        times = {"base": [], "inline": [], "hip": []}
        winstr = {}
        for i in range(a.repeat):
            for form, extra in [("base", []), ("inline", ["--tool", "instr-count"]),
                                ("hip", ["--tool", hip_tool])]:
                out = os.path.join(tmp, f"{name}-{form}.json")
                if extra:
                    extra = extra + ["--tool-out", out]
                t, stdout, st = run(lathe, app, extra, tmp, f"{name}-{form}")
                if stdout != out_ref:
                    fail(f"{name} {form}: program output differs")
                if extra:
                    with open(out) as f:
                        check_counts(name, form, json.load(f), truth)
                times[form].append(t)
                winstr[form] = sum(s["wave_instructions"] for s in st)
        r = lambda x, y: [p / q for p, q in zip(times[x], times[y])]  # noqa: E731
        fmt = lambda rs: f"{median(rs):.2f}x ({min(rs):.2f}..{max(rs):.2f})"  # noqa: E731
        print(f"| {name} | {describe(times['base'])} | {describe(times['inline'])} | "
              f"{describe(times['hip'])} | {fmt(r('inline', 'base'))} | "
              f"{fmt(r('hip', 'base'))} | {fmt(r('hip', 'inline'))} | "
              f"{winstr['inline'] / winstr['base']:.2f}x | "
              f"{winstr['hip'] / winstr['base']:.2f}x |", flush=True)


if __name__ == "__main__":
    main()

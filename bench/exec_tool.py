#!/usr/bin/env python3
"""`lathe exec --tool instr-count` against the uninstrumented `lathe exec`,
side by side in one run (the two alternate), on the project's HIP programs
built by Debian's hipcc for gfx90a:

* wall time of the whole program (HIP start-up, copies, every kernel);
* dynamic wave-instructions the emulator executed (from --stats-json):
  the instrumented run's (program + probes) over the original's.

Every run's program output must equal the uninstrumented output, and the
tool's per-launch wave-instruction counts must equal the uninstrumented
run's per-launch counts; any mismatch exits 1. Reports median and spread.
Needs `cargo build --release --workspace` (the lathe binary, the HSA
runtime and liblathe_tool.so). Usage: bench/exec_tool.py [--repeat N]"""
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


def run(lathe, app, extra, tmp, tag):
    stats = os.path.join(tmp, f"{tag}.stats.json")
    cmd = [lathe, "exec", "--stats-json", stats] + extra + ["--", app]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        fail(f"{' '.join(cmd)} exited {p.returncode}: {p.stderr[-2000:]}")
    with open(stats) as f:
        return dt, p.stdout, json.load(f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    lathe = os.path.join(ROOT, "target", "release", "lathe")
    for f in ["lathe", "libhsa_runtime64.so", "liblathe_tool.so"]:
        if not os.path.exists(os.path.join(ROOT, "target", "release", f)):
            fail(f"target/release/{f} missing: run cargo build --release --workspace")
    tmp = tempfile.mkdtemp(prefix="lathe-exec-tool-bench-")
    print("| program | uninstrumented | instr-count | time ratio | wave-instr ratio |")
    print("| --- | --- | --- | --- | --- |")
    for src in PROGRAMS:
        name = os.path.splitext(os.path.basename(src))[0]
        app = os.path.join(tmp, name)
        subprocess.run(["hipcc", "--offload-arch=gfx90a", "-O2", "-o", app,
                        os.path.join(ROOT, src)], check=True, capture_output=True)
        base_t, tool_t, ratios, wratio = [], [], [], None
        for i in range(a.repeat):
            t0, out0, st0 = run(lathe, app, [], tmp, f"{name}-base")
            tool_out = os.path.join(tmp, f"{name}-tool.json")
            t1, out1, st1 = run(lathe, app, ["--tool", "instr-count", "--tool-out", tool_out],
                                tmp, f"{name}-tool")
            if out1 != out0:
                fail(f"{name}: instrumented output differs")
            with open(tool_out) as f:
                recs = json.load(f)
            if len(recs) != len(st0):
                fail(f"{name}: {len(recs)} tool records for {len(st0)} launches")
            for r, s in zip(recs, st0):
                if r["tool"]["wave_instructions"] != s["wave_instructions"]:
                    fail(f"{name} launch {r['launch']}: tool counted "
                         f"{r['tool']['wave_instructions']}, emulator ran {s['wave_instructions']}")
            w0 = sum(s["wave_instructions"] for s in st0)
            w1 = sum(s["wave_instructions"] for s in st1)
            wratio = w1 / w0
            base_t.append(t0)
            tool_t.append(t1)
            ratios.append(t1 / t0)
        print(f"| {name} | {describe(base_t)} | {describe(tool_t)} | "
              f"{median(ratios):.2f}x ({min(ratios):.2f}..{max(ratios):.2f}) | {wratio:.2f}x |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Emulator throughput: wave-instructions per second (wave-instructions over
dispatch wall time, as `lathe run --json` reports them) for a memory-heavy
(axpy), an LDS/barrier-heavy (block_sum) and a call/ALU-heavy (fib,
recursive device function) kernel of the embedded demo library, with 1 and
2 host threads. Every run's output buffer is checked against a CPU
reference (exit status 1 on a mismatch); reports the median rate of
--repeat runs with its spread.
Usage: bench/emu.py [--scale N] [--repeat N]"""
import argparse
import array
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats import describe, fail  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO = os.path.join(ROOT, "crates/cli/demo/libdemo.so")


def f32(x):
    """Rounds a Python float to binary32 (exact for one f32 add or mul)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def floats(path):
    a = array.array("f")
    with open(path, "rb") as fh:
        a.frombytes(fh.read())
    return a


def ints(path):
    a = array.array("i")
    with open(path, "rb") as fh:
        a.frombytes(fh.read())
    return a


def check_axpy(n):
    def check(out):
        y = floats(out)
        # y = 0.5 * 2.0 + iota: exact in f32 below 2^24.
        bad = next((i for i in range(n) if y[i] != i + 1.0), None)
        return None if bad is None else f"y[{bad}] = {y[bad]}, want {bad + 1.0}"
    return check


def check_block_sum(count):
    def check(out):
        got = floats(out)
        if len(got) != count // 256:
            return f"{len(got)} sums, want {count // 256}"
        for b in range(count // 256):
            # The kernel's tree: tile[t] += tile[t + s] for s = 128, 64, ..., 1.
            tile = [float(256 * b + t) for t in range(256)]
            s = 128
            while s:
                for t in range(s):
                    tile[t] = f32(tile[t] + tile[t + s])
                s //= 2
            if got[b] != tile[0]:
                return f"out[{b}] = {got[b]}, want {tile[0]}"
        return None
    return check


def check_fib(size):
    def fib(k):
        return k if k < 2 else fib(k - 1) + fib(k - 2)

    def check(out):
        got = ints(out)
        want = [fib(t % 12) for t in range(64)] + [0] * (size // 4 - 64)
        bad = next((i for i in range(len(want)) if got[i] != want[i]), None)
        return None if bad is None else f"out[{bad}] = {got[bad]}, want {want[bad]}"
    return check


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5, help="runs per measurement; the median is reported")
    a = ap.parse_args()
    lathe = os.environ.get("LATHE_BIN")
    if not lathe:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "lathe-cli"], cwd=ROOT, check=True)
        lathe = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release/lathe")
    n = 1 << 20
    n *= a.scale
    fib_size = 4 * 64 * 64 * a.scale
    wd = tempfile.mkdtemp(prefix="lathe-emu-bench-")
    out = os.path.join(wd, "out.bin")
    # name -> (arguments, check of the output buffer written to `out`)
    jobs = {
        "memory (axpy)": (["--kernel", "axpy", "--grid", str(n), "--block", "256",
                           "-a", f"buf:y:{4 * n}:iota_f32:out={out}", "-a", f"buf:x:{4 * n}:f32:2",
                           "-a", "f32:0.5", "-a", f"i32:{n}"], check_axpy(n)),
        "LDS/barrier (block_sum)": (["--kernel", "block_sum", "--grid", str(n // 4), "--block", "256",
                                     "-a", f"buf:in:{n}:iota_f32", "-a", f"buf:out:{n // 256}:zero:out={out}",
                                     "-a", f"i32:{n // 4}"], check_block_sum(n // 4)),
        "calls/ALU (fib)": (["--kernel", "fib_kernel", "--grid", str(64 * 64 * a.scale), "--block", "64",
                             "-a", f"buf:out:{fib_size}:zero:out={out}"], check_fib(fib_size)),
    }
    for name, (args, check) in jobs.items():
        for threads in (1, 2):
            rates, instrs = [], set()
            for r in range(a.repeat):
                if os.path.exists(out):
                    os.remove(out)
                res = subprocess.run([lathe, "-q", "--json", "run", DEMO, "--threads", str(threads)] + args,
                                     capture_output=True, text=True)
                if res.returncode != 0:
                    fail(f"{name} threads={threads} run {r}: lathe run exited {res.returncode}: {res.stderr.strip()}")
                j = json.loads(res.stdout)
                why = check(out)
                if why:
                    fail(f"{name} threads={threads} run {r}: {why}")
                rates.append(j["wave_instructions_per_second"])
                instrs.add(j["wave_instructions"])
            if len(instrs) != 1:
                fail(f"{name} threads={threads}: wave-instruction counts differ between runs: {sorted(instrs)}")
            print(f"{name:26} threads={threads}: {instrs.pop():>10} wave-instr, outputs checked; "
                  f"{describe(rates, 'M wave-instr/s', 1e-6, '{:.2f}')}", flush=True)
    shutil.rmtree(wd, ignore_errors=True)


if __name__ == "__main__":
    main()

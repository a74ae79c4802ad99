#!/usr/bin/env python3
"""Emulator throughput: wave-instructions per second (wave-instructions over
dispatch wall time, as `lathe run --json` reports them) for a memory-heavy
(axpy), an LDS/barrier-heavy (block_sum) and a call/ALU-heavy (fib,
recursive device function) kernel of the embedded demo library, with 1 and
2 host threads. Every run's output buffer is checked against a CPU
reference (exit status 1 on a mismatch); reports the median rate of
--repeat runs with its spread.
Also one clang-22 kernel per workload class of issue 12
(corpus/hip/bench_emu.hip: VALU loop, streaming triad, LDS/barrier, calls,
fp16 MFMA GEMM 256^3 and 1024^3, fp8 1024^3 on gfx942, and two loops
written plainly: xs_select and addr64), each run's output checked
against a CPU reference; `--baseline BIN` runs an older lathe binary
interleaved with this one and reports the per-run speed-up, in wall time
and in CPU time (user + system of the lathe process, which a loaded
machine blurs less).
Usage: bench/emu.py [--scale N] [--repeat N] [--only NAME] [--threads 1,2]
[--no-demo] [--baseline BIN]"""
import argparse
import array
import json
import math
import os
import resource
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats import describe, fail, ratio  # noqa: E402

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
    ap.add_argument("--only", action="append", help="run only the workload classes whose name contains this")
    ap.add_argument("--threads", default="1,2", help="host thread counts, comma-separated")
    ap.add_argument("--no-demo", action="store_true", help="skip the demo-library kernels")
    ap.add_argument("--baseline", help="another lathe binary, run interleaved (before/after)")
    ap.add_argument("--target", action="append",
                    help="run the gfx90a classes on this processor too (repeatable, e.g. "
                         "--target gfx90a --target gfx950: each class on both, side by side; "
                         "gfx950 adds its f8f6f4 GEMM)")
    a = ap.parse_args()
    lathe = os.environ.get("LATHE_BIN")
    if not lathe:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "lathe-cli"], cwd=ROOT, check=True)
        lathe = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release/lathe")
    threads_list = [int(t) for t in a.threads.split(",")]
    run_classes(lathe, a.scale, a.repeat, threads_list, a.only, a.baseline, a.target)
    if a.no_demo or a.only:
        return
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
        for threads in threads_list:
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



# ---------------------------------------------------------------------------
# Workload classes of issue 12 (corpus/hip/bench_emu.hip), each output
# checked against a CPU reference; median and spread over --repeat runs.

BENCH_SRC = os.path.join(ROOT, "corpus/hip/bench_emu.hip")
# Kernels written as ordinary HIP code (compares, selects, clamps, 64-bit
# address arithmetic, division, f16/packed f16, f64): issue 17.
ORDINARY_SRC = os.path.join(ROOT, "corpus/hip/bench_ordinary.hip")
USER_SRC = os.path.join(ROOT, "bench/hip/user_noise.hip")
TONE_SRC = os.path.join(ROOT, "bench/hip/tone_map.hip")
CLANG = "/usr/lib/llvm-22/bin/clang++"


def build_bench(out_dir, arch="gfx90a", src=BENCH_SRC):
    """Compiles `src` with clang-22 -O3 for `arch`."""
    stem = os.path.splitext(os.path.basename(src))[0]
    co = os.path.join(out_dir, f"{stem}-{arch}.co")
    if not os.path.exists(co):
        subprocess.run([CLANG, "-x", "hip", "-nogpuinc", "-nogpulib", "-O3",
                        "-I", os.path.join(ROOT, "corpus/include"), f"--offload-arch={arch}",
                        "--cuda-device-only", "--no-gpu-bundle-output", src, "-o", co],
                       check=True)
    return co


def floats_b(b):
    return struct.unpack(f"<{len(b) // 4}f", b)


def words(b):
    return struct.unpack(f"<{len(b) // 4}I", b)


def close(got, want, rel):
    return abs(got - want) <= rel * max(abs(want), 1e-30)


def check_valu(d, n, iters):
    fo, uo = floats_b(d["fout"]), words(d["uout"])
    m = 0xFFFFFFFF
    for i in range(0, n, max(1, n // 97)):
        a, b, c, dd = f32((i & 255) * f32(0.001)), 0.5, 1.0, 0.25
        x, y = (i * 2654435761) & m, i ^ 0x9E3779B9
        for _ in range(iters):
            a = f32(a * 0.5 + f32(b * 0.25))
            b = f32(b * 0.5 + f32(c * 0.25))
            c = f32(c * 0.5 + f32(dd * 0.25))
            dd = f32(dd * 0.5 + f32(a * 0.25 + 1.0))
            x = ((x << 5) & m) ^ (x >> 3) ^ y
            y = (y + x) & m
            x ^= y >> 7
        want = f32(f32(f32(a + b) + c) + dd)
        if uo[i] != (x ^ y) or not close(fo[i], want, 1e-5):
            return f"lane {i}: got {fo[i]} {uo[i]:#x}, want {want} {x ^ y:#x}"
    return None


def check_triad(d, n, s):
    a = floats_b(d["a"])
    for i in range(n):
        want = f32(float(i) + f32(s * 2.0))
        if a[i] != want:
            return f"a[{i}] = {a[i]}, want {want}"
    return None


def check_lds(d, blocks, rounds):
    out = words(d["out"])
    for blk in range(blocks):
        base = sum(range(blk * 256, blk * 256 + 256))
        want = sum(base + 256 * r for r in range(rounds)) & 0xFFFFFFFF
        if out[blk] != want:
            return f"out[{blk}] = {out[blk]}, want {want}"
    return None


def check_fib_calls(d, n, base):
    fib = [0, 1]
    while len(fib) < base + 4:
        fib.append(fib[-1] + fib[-2])
    out = words(d["out"])
    for i in range(n):
        if out[i] != fib[base + (i & 3)]:
            return f"out[{i}] = {out[i]}, want {fib[base + (i & 3)]}"
    return None


def gemm_inputs(n):
    """Small integers (exact in f16; every partial sum exact in f32)."""
    a = [((i * 7 + 3) % 5) - 2 for i in range(n * n)]
    bt = [((i * 11 + 1) % 5) - 2 for i in range(n * n)]
    return a, bt


def check_gemm(d, n):
    a, bt = gemm_inputs(n)
    c = floats_b(d["C"])
    step = max(1, (n * n) // 211)
    for e in range(0, n * n, step):
        i, j = divmod(e, n)
        want = sum(a[i * n + k] * bt[j * n + k] for k in range(n))
        if c[e] != want:
            return f"C[{i}][{j}] = {c[e]}, want {want}"
    return None


def once(f):
    """`f()` computed on the first call only (the CPU reference of a job,
    compared with every run's output)."""
    memo = []

    def get():
        if not memo:
            memo.append(f())
        return memo[0]
    return get


def f16(x):
    """Rounds a Python float to binary16."""
    return struct.unpack("<e", struct.pack("<e", x))[0]


def fma64(a, b, c):
    """a * b + c rounded once to binary64 (Python 3.11 has no math.fma)."""
    from fractions import Fraction
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def sample(n):
    return range(0, n, max(1, n // 41))


def close_abs(got, want, rel, floor):
    return abs(got - want) <= rel * max(abs(want), floor)


def f32_bits(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f32_of_bits(b):
    return struct.unpack("<f", struct.pack("<I", b & 0xFFFFFFFF))[0]


def add32(a, b):
    """a + b of two binary32 values rounded once to binary32 (nearest-even):
    the binary64 sum and its exact error (TwoSum); only a binary64 sum that
    falls exactly on a binary32 midpoint needs the error to break the tie."""
    s = a + b
    bb = s - a
    err = (a - (s - bb)) + (b - bb)
    r = f32(s)
    if err == 0 or r == s:
        return r
    # The binary32 neighbour of r on s's side.
    k = f32_bits(r)
    step = 1 if (s > r) == (r >= 0) else -1
    other = f32_of_bits(k + step) if r != 0 else math.copysign(2.0 ** -149, s)
    if (r + other) / 2 != s:
        return r
    return max(r, other) if err > 0 else min(r, other)


def ref_xs_select(i, iters):
    """xs_select's lane `i`: every f32 operation rounded once, as the GPU
    does (the two fmas and the scaling are exact in binary64)."""
    m = 0xFFFFFFFF
    s = (i * 747796405 + 2891336453) & m
    acc, above = 0.0, 0
    for _ in range(iters):
        s ^= (s << 13) & m
        s ^= s >> 17
        s ^= (s << 5) & m
        u = (s & 0xFFFFFF) * 2.0 ** -24
        x = f32(4.0 * u - 2.0)
        y = f32(x * x - 1.0)
        y = min(max(y, -0.5), 1.5)
        if y > 0.25:
            acc = add32(acc, y)
            above = (above + (s >> 28) + 1) & m
        else:
            acc = add32(acc, -0.5 * y)
    return acc, above ^ s


def check_xs_select(n, iters):
    want = once(lambda: {i: ref_xs_select(i, iters) for i in sample(n)})

    def check(d):
        fo, uo = floats_b(d["out"]), words(d["cnt"])
        for i, (acc, c) in want().items():
            if f32_bits(fo[i]) != f32_bits(acc) or uo[i] != c:
                return f"lane {i}: ({fo[i]}, {uo[i]:#x}), want ({acc}, {c:#x}) exactly"
        return None
    return check


ADDR_BASE, ADDR_STRIDE = 0x7F00_1234_0000, 8216


def ref_addr64(i, iters):
    m32, m64 = 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF
    h, off, acc = i, (ADDR_BASE + i * 4096) & m64, 0
    for _ in range(iters):
        h = (h * 1664525 + 1013904223) & m32
        row, col = (h >> 20) & 1023, (h & 0xFFFF) - 32768
        a = (off + row * ADDR_STRIDE + col * 8) & m64
        acc = (acc + (a ^ (a >> 7))) & m64
        off = (off + (64 if a & 0x40 else 8)) & m64
    return acc


def check_addr64(n, iters):
    want = once(lambda: {i: ref_addr64(i, iters) for i in sample(n)})

    def check(d):
        got = struct.unpack(f"<{len(d['out']) // 8}Q", d["out"])
        for i, v in want().items():
            if got[i] != v:
                return f"out[{i}] = {got[i]:#x}, want {v:#x}"
        return None
    return check


def ref_mix_clamp(i, iters):
    m = 0xFFFFFFFF
    x = (i * 2654435761 + 1) & m
    v, acc, hits = f32((i & 1023) / 1024.0), 0.0, 0
    for _ in range(iters):
        x ^= (x << 13) & m
        x ^= x >> 17
        x ^= (x << 5) & m
        r = (x >> 8) * 2.0 ** -24
        v = f32(v * 0.75 + (r * 0.5 - 0.125))
        v = 1.0 if v > 1.0 else (-1.0 if v < -1.0 else v)
        acc = f32(acc + (f32(v + 1.0) if r > 0.5 else f32(0.5 * v + 0.75)))
        q = min(max((x & 0xFFFF) - 32768, -1000), 1000)
        hits = (hits + (q & m) + (3 if q > 0 else 1) + (x >> 31)) & m
    return f32(acc + v), hits ^ x


def check_mix_clamp(n, iters):
    want = once(lambda: {i: ref_mix_clamp(i, iters) for i in sample(n)})

    def check(d):
        fo, uo = floats_b(d["fout"]), words(d["uout"])
        for i, (wf, wu) in want().items():
            if uo[i] != wu or not close(fo[i], wf, 1e-4):
                return f"lane {i}: got {fo[i]} {uo[i]:#x}, want {wf} {wu:#x}"
        return None
    return check


BIN_BASE, BIN_LO, BIN_SCALE = 0x7F1234567000, 0.5, 1.75


def ref_bin_addr(i, iters):
    m, m64 = 0xFFFFFFFF, (1 << 64) - 1
    x = (i * 747796405 + 2891336453) & m
    s, h, top = 0, i, 0
    for _ in range(iters):
        x = (x * 1664525 + 1013904223) & m
        val = (x >> 9) * 2.0 ** -17 - 4.0
        b = int(f32((val - BIN_LO) * BIN_SCALE))
        b = min(max(b, 0), 63)
        addr = (BIN_BASE + b * 4096 + (x & 0xFF) * 8) & m64
        s = (s + (addr >> 3)) & m64
        h = (h * 0x9E3779B1 + x) & m64
        top += b == 63
    return s, h, top


def check_bin_addr(n, iters):
    want = once(lambda: {i: ref_bin_addr(i, iters) for i in sample(n)})

    def check(d):
        o = struct.unpack(f"<{len(d['out']) // 8}Q", d["out"])
        c = words(d["cnt"])
        for i, (ws, wh, wt) in want().items():
            if (o[2 * i], o[2 * i + 1], c[i]) != (ws, wh, wt):
                return f"lane {i}: got {o[2 * i]:#x} {o[2 * i + 1]:#x} {c[i]}, want {ws:#x} {wh:#x} {wt}"
        return None
    return check


def ref_act(i, iters):
    x = f32(float((i & 255) - 128) / 32.0)
    acc = 0.0
    h = [f16(0.25), f16(-0.25)]
    c = [0.5, 0.75]
    for k in range(iters):
        t = 3.0 if x > 3.0 else (-3.0 if x < -3.0 else x)
        t2 = f32(t * t)
        th = f32(f32(t * f32(27.0 + t2)) / f32(f32(9.0 * t2) + 27.0))
        sg = f32(0.5 + 0.5 * th)
        acc = f32(acc + sg)
        x = f32(f32(th * 0.0625 + f32(x * 0.96875)) + (0.03125 if k & 1 else -0.03125))
        inp = [f16(th), f16(sg)]
        h = [min(max(f16(h[j] * c[j] + inp[j]), -2.0), 2.0) for j in range(2)]
    return acc, h


def check_act(n, iters):
    want = once(lambda: {i: ref_act(i, iters) for i in sample(n)})

    def check(d):
        fo = floats_b(d["fout"])
        ho = struct.unpack(f"<{len(d['hout']) // 2}e", d["hout"])
        for i, (wa, wh) in want().items():
            got = (fo[i], ho[2 * i], ho[2 * i + 1])
            if not (close(fo[i], wa, 1e-4) and all(close_abs(ho[2 * i + j], wh[j], 4e-3, 1e-2) for j in range(2))):
                return f"lane {i}: got {got}, want {(wa, *wh)}"
        return None
    return check


def ref_poly(i, iters):
    x = fma64(float(i & 1023), 2.0 ** -10, -0.5)
    s = 0.0
    for k in range(iters):
        p = fma64(0.0083, x, 0.0416)
        for cst in (0.1666, 0.5, 1.0, 1.0):
            p = fma64(x, p, cst)
        s += p - 1.0 if p > 1.0 else 0.5 * p
        x = fma64(x, 0.9990234375, (k & 7) * 0.0001220703125)
    return s


def check_poly(n, iters):
    want = once(lambda: {i: ref_poly(i, iters) for i in sample(n)})

    def check(d):
        o = struct.unpack(f"<{len(d['out']) // 8}d", d["out"])
        for i, w in want().items():
            if o[i] != w:
                return f"lane {i}: got {o[i]!r}, want {w!r}"
        return None
    return check


def ref_particles(i, iters):
    """The CPU model of `particles` in double precision (the kernel's f32
    rsqrt/sqrt are approximate, so the check has a tolerance)."""
    x, y = (i & 63) * 0.25 - 8.0, ((i >> 6) & 63) * 0.25 - 8.0
    vx = vy = 0.0
    att = ((-3.0, 1.0, 1.0), (2.5, -2.0, 0.75), (0.5, 3.5, 0.5))
    for _ in range(iters):
        fx = fy = 0.0
        for ax, ay, am in att:
            dx, dy = ax - x, ay - y
            inv = (dx * dx + dy * dy + 0.25) ** -0.5
            s = am * inv ** 3
            fx += s * dx
            fy += s * dy
        vx += fx * 0.01
        vy += fy * 0.01
        sp = (vx * vx + vy * vy) ** 0.5
        if sp > 4.0:
            vx, vy = vx * 4.0 / sp, vy * 4.0 / sp
        x += vx * 0.01
        y += vy * 0.01
        if x < -10.0 or x > 10.0:
            vx = -vx
        if y < -10.0 or y > 10.0:
            vy = -vy
        x, y = min(max(x, -10.0), 10.0), min(max(y, -10.0), 10.0)
    return x, y, vx, vy


def check_particles(n, iters):
    # A few hundred steps of a smooth system: f32 against f64 drifts a
    # little; the tolerance is loose next to a wrong compare or select.
    want = once(lambda: {i: ref_particles(i, iters) for i in sample(n)})

    def check(d):
        p, v = floats_b(d["pos"]), floats_b(d["vel"])
        for i, w in want().items():
            got = (p[2 * i], p[2 * i + 1], v[2 * i], v[2 * i + 1])
            if not all(close_abs(g, e, 2e-2, 1e-1) for g, e in zip(got, w)):
                return f"particle {i}: got {got}, want {w}"
        return None
    return check


HASH_BASE = 0x7F0000100000


def ref_hash(i, iters):
    m = 0xFFFFFFFF
    key, s, bucket = i, 0, 0
    for k in range(iters):
        h = key ^ k
        h ^= h >> 16
        h = (h * 0x85EBCA6B) & m
        h ^= h >> 13
        h = (h * 0xC2B2AE35) & m
        h ^= h >> 16
        bucket = h & 255
        way = (h >> 8) % 12
        addr = HASH_BASE + bucket * 384 + way * 32 + (key & 3) * 8
        s = (s + (addr - HASH_BASE if addr > HASH_BASE + 49152 else addr >> 4)) & ((1 << 64) - 1)
        key = h
    return s, bucket


def check_hash(n, iters):
    # Every thread's final bucket is needed for the histogram: all of them.
    want = once(lambda: [ref_hash(i, iters) for i in range(n)])

    def check(d):
        sums = struct.unpack(f"<{n}Q", d["sums"][:8 * n])
        hist = words(d["hist"])
        ref = want()
        for i in sample(n):
            if sums[i] != ref[i][0]:
                return f"sums[{i}] = {sums[i]:#x}, want {ref[i][0]:#x}"
        counts = [0] * 256
        for _, b in ref:
            counts[b] += 1
        for b in range(256):
            if hist[b] != counts[b]:
                return f"hist[{b}] = {hist[b]}, want {counts[b]}"
        return None
    return check


def ref_saxpy(i, a, reps):
    """y[i] after `reps` clamped saxpy passes (x = iota, y = 0), in f64 with
    each pass rounded to f32 (the kernel may fuse a * x + y: the check has a
    tolerance)."""
    y = 0.0
    for _ in range(reps):
        v = f32(a * float(i) + y)
        y = -2.0 if v < -2.0 else (2.0 if v > 2.0 else v)
    return y


def check_saxpy(n, a, reps):
    want = once(lambda: {i: ref_saxpy(i, a, reps) for i in sample(n)})

    def check(d):
        y = floats_b(d["y"])
        for i, w in want().items():
            if not close_abs(y[i], w, 1e-5, 1e-6):
                return f"y[{i}] = {y[i]}, want {w}"
        return None
    return check


def mix32(x):
    m = 0xFFFFFFFF
    x ^= x >> 16
    x = (x * 0x7FEB352D) & m
    x ^= x >> 15
    x = (x * 0x846CA68B) & m
    return x ^ (x >> 16)


def ref_user_noise(i, iters):
    """bench/hip/user_noise.hip's lane `i`: the key exactly, the f32 sum
    in binary64 (compared with a tolerance: clang may contract the f32
    expressions into fmas)."""
    m = 0xFFFFFFFF
    h = mix32((i & m) ^ 0x9E3779B9)
    x = (i & 1023) / 1024.0
    acc, cursor = 0.0, i * 3
    for k in range(iters):
        h = mix32((h + k) & m)
        r = (h >> 8) / 16777216.0
        y = x * r - 0.5 * r * r
        y = y - 0.125 if y > 0.125 else y * 2.0 + 0.01
        acc += min(max(y, -0.75), 0.75)
        cursor += (h & 15) + 1
        acc += (cursor & 255) / 256.0
    return acc, (h ^ (cursor >> 3)) & m


def check_user_noise(n, iters):
    want = once(lambda: {i: ref_user_noise(i, iters) for i in sample(n)})

    def check(d):
        fo, uo = floats_b(d["out"]), words(d["keys"])
        for i, (acc, key) in want().items():
            if uo[i] != key or not close_abs(fo[i], acc, 1e-3, 1.0):
                return f"lane {i}: ({fo[i]}, {uo[i]:#x}), want ({acc}, {key:#x})"
        return None
    return check


TONE_NPIX = 4096


def tone_image():
    """bench/hip/tone_map.hip's input: TONE_NPIX hashed RGBA8 pixels."""
    return [mix32(k * 0x9E3779B9 & 0xFFFFFFFF) for k in range(TONE_NPIX)]


def ref_tone_map(i, px_of, exposure, passes):
    """tone_map's thread `i`: (sum of the quantised channels and alphas,
    last luminance, sum of the luminances), each f32 operation rounded
    to binary32 (clang may contract some into fmas: compared with a
    tolerance)."""
    def tone(c, e):
        v = f32(f32(f32(c * c) * f32(0.5 + f32(0.5 * c))) * e)
        return f32(v / f32(1.0 + v))

    def quant(v):
        return min(max(math.floor(f32(f32(v * 255.0) + 0.5)), 0), 255)

    q, total, y = 0, 0.0, 0.0
    inv = f32(1.0 / 255.0)
    for p in range(passes):
        px = px_of[(i * 7 + p * 61) & (TONE_NPIX - 1)]
        e = f32(exposure * f32(1.0 + f32(0.0625 * (p & 7))))
        r = tone(f32((px & 255) * inv), e)
        g = tone(f32((px >> 8 & 255) * inv), e)
        b = tone(f32((px >> 16 & 255) * inv), e)
        y = f32(f32(f32(f32(0.2126) * r) + f32(f32(0.7152) * g)) + f32(f32(0.0722) * b))
        if y < f32(0.05):
            r = g = b = y
        elif y > f32(0.6):
            lift = f32(0.25 * f32(y - f32(0.6)))
            r, g, b = (min(f32(c + lift), 1.0) for c in (r, g, b))
        q += quant(max(r, 0.0)) + quant(g) + quant(b) + (px >> 24)
        total += y
    return q & 0xFFFFFFFF, y, total


def check_tone_map(n, exposure, passes):
    want = once(lambda: (lambda img: {i: ref_tone_map(i, img, exposure, passes)
                                      for i in sample(n)})(tone_image()))

    def check(d):
        qs = words(d["qsum"])
        lum = struct.unpack(f"<{len(d['lum']) // 2}e", d["lum"])
        ys = struct.unpack(f"<{len(d['ysum']) // 8}d", d["ysum"])
        for i, (q, y, total) in want().items():
            # A quantised channel may differ by one where a contracted
            # fma rounds across a half: a few per thread at most.
            if abs(qs[i] - q) > 8 or not close_abs(lum[i], y, 2e-3, 1e-3) \
                    or not close_abs(ys[i], total, 1e-5, 1.0):
                return f"thread {i}: ({qs[i]}, {lum[i]}, {ys[i]}), want ({q}, {y}, {total})"
        return None
    return check


def stencil_input(width, height):
    return [((k * 37) % 1000) / 500.0 - 0.75 for k in range(width * height)]


def check_stencil(width, height):
    def ref():
        g = stencil_input(width, height)
        at = lambda r, j: g[r * width + j]  # noqa: E731
        out = {}
        for j in sample(width):
            jl, jr = max(j - 1, 0), min(j + 1, width - 1)
            for r in range(height):
                ru, rd = max(r - 1, 0), min(r + 1, height - 1)
                s = at(r, jl) + at(r, jr) + at(ru, j) + at(rd, j)
                v = 0.5 * at(r, j) + 0.125 * s
                out[r * width + j] = min(v, 1.0)
        return out
    want = once(ref)

    def check(d):
        o = struct.unpack(f"<{len(d['out']) // 8}d", d["out"])
        for k, w in want().items():
            if not close_abs(o[k], w, 1e-14, 1e-14):
                return f"out[{k}] = {o[k]!r}, want {w!r}"
        return None
    return check


FP8 = {-2: 0xC8, -1: 0xC0, 0: 0x00, 1: 0x40, 2: 0x48}  # gfx942 E4M3 (bias 8)


def class_jobs(scale, tmp):
    """(name, kernel, grid, block, args, outputs, check, arch) per workload class."""
    jobs = []
    n = 4096 * scale
    # 2000 iterations (3.6 M wave-instructions): long enough that the
    # dispatch's fixed costs (threads, first decode) do not hide the rate.
    iters = 2000
    jobs.append(("VALU loop (valu_loop)", "_Z9valu_loopPfPji", n, 256,
                 [f"buf:fout:{4 * n}", f"buf:uout:{4 * n}", f"i32:{iters}"],
                 ["fout", "uout"], lambda d: check_valu(d, n, iters)))
    m = (1 << 20) * scale
    jobs.append(("streaming (triad)", "_Z5triadPfPKfS1_fi", m, 256,
                 [f"buf:a:{4 * m}", f"buf:b:{4 * m}:iota_f32", f"buf:c:{4 * m}:f32:2", "f32:0.75", f"i32:{m}"],
                 ["a"], lambda d: check_triad(d, m, 0.75)))
    blocks, rounds = 256 * scale, 8
    jobs.append(("LDS/barrier (lds_reduce)", "_Z10lds_reducePjPKji", blocks * 256, 256,
                 [f"buf:out:{4 * blocks}", f"buf:in:{4 * blocks * 256}:iota_u32", f"i32:{rounds}"],
                 ["out"], lambda d: check_lds(d, blocks, rounds)))
    nf, base = 2048 * scale, 12
    jobs.append(("calls (fib_calls)", "_Z9fib_callsPji", nf, 64,
                 [f"buf:out:{4 * nf}", f"i32:{base}"], ["out"], lambda d: check_fib_calls(d, nf, base)))
    for g in (256, 1024):
        a, bt = gemm_inputs(g)
        pa, pb = os.path.join(tmp, f"A{g}.bin"), os.path.join(tmp, f"Bt{g}.bin")
        with open(pa, "wb") as f:
            f.write(struct.pack(f"<{g * g}e", *a))
        with open(pb, "wb") as f:
            f.write(struct.pack(f"<{g * g}e", *bt))
        jobs.append((f"MFMA GEMM f16 {g}^3", "_Z8gemm_f16PfPKDF16_S1_i", (g // 32) ** 2 * 64, 64,
                     [f"buf:C:{4 * g * g}", f"buf:A:@{pa}", f"buf:Bt:@{pb}", f"i32:{g}"],
                     ["C"], (lambda g: lambda d: check_gemm(d, g))(g)))
    g = 1024
    a, bt = gemm_inputs(g)
    pa, pb = os.path.join(tmp, f"A8-{g}.bin"), os.path.join(tmp, f"Bt8-{g}.bin")
    with open(pa, "wb") as f:
        f.write(bytes(FP8[x] for x in a))
    with open(pb, "wb") as f:
        f.write(bytes(FP8[x] for x in bt))
    jobs.append((f"MFMA GEMM fp8 {g}^3 gfx942", "_Z8gemm_fp8PfPKhS1_i", (g // 32) ** 2 * 64, 64,
                 [f"buf:C:{4 * g * g}", f"buf:A:@{pa}", f"buf:Bt:@{pb}", f"i32:{g}"],
                 ["C"], lambda d: check_gemm(d, g), "gfx942"))
    # Written plainly, apart from the µop list (bench_emu.hip): divergent
    # compare/select/clamp code and 64-bit index arithmetic, checked exactly.
    n, it = 4096 * scale, 1500
    jobs.append(("plain: xs_select", "_Z9xs_selectPfPji", n, 256,
                 [f"buf:out:{4 * n}", f"buf:cnt:{4 * n}", f"i32:{it}"],
                 ["out", "cnt"], check_xs_select(n, it)))
    jobs.append(("plain: addr64", "_Z6addr64Pyyxi", n, 256,
                 [f"buf:out:{8 * n}", f"u64:{ADDR_BASE}", f"u64:{ADDR_STRIDE}", f"i32:{it}"],
                 ["out"], check_addr64(n, it)))
    # Ordinary code (bench_ordinary.hip); about 3-4 M wave-instructions each.
    n, it = 4096 * scale, 1500
    jobs.append(("ordinary: mix_clamp", "_Z9mix_clampPfPji", n, 256,
                 [f"buf:fout:{4 * n}", f"buf:uout:{4 * n}", f"i32:{it}"],
                 ["fout", "uout"], check_mix_clamp(n, it), "gfx90a", ORDINARY_SRC))
    jobs.append(("ordinary: bin_addr", "_Z8bin_addrPyPjyffi", n, 256,
                 [f"buf:out:{16 * n}", f"buf:cnt:{4 * n}", f"u64:{BIN_BASE}", f"f32:{BIN_LO}",
                  f"f32:{BIN_SCALE}", f"i32:{it}"],
                 ["out", "cnt"], check_bin_addr(n, it), "gfx90a", ORDINARY_SRC))
    jobs.append(("ordinary: act_approx", "_Z10act_approxPfPDF16_i", n, 256,
                 [f"buf:fout:{4 * n}", f"buf:hout:{4 * n}", f"i32:{it}"],
                 ["fout", "hout"], check_act(n, it), "gfx90a", ORDINARY_SRC))
    jobs.append(("ordinary: poly_f64", "_Z8poly_f64Pdi", n, 256,
                 [f"buf:out:{8 * n}", f"i32:{2 * it}"],
                 ["out"], check_poly(n, 2 * it), "gfx90a", ORDINARY_SRC))
    jobs.append(("ordinary: particles", "_Z9particlesPfS_i", n, 256,
                 [f"buf:pos:{8 * n}", f"buf:vel:{8 * n}", f"i32:{it // 3}"],
                 ["pos", "vel"], check_particles(n, it // 3), "gfx90a", ORDINARY_SRC))
    jobs.append(("ordinary: hash_hist", "_Z9hash_histPjPyyi", n, 256,
                 [f"buf:hist:1024:zero", f"buf:sums:{8 * n}", f"u64:{HASH_BASE}", f"i32:{it}"],
                 ["hist", "sums"], check_hash(n, it), "gfx90a", ORDINARY_SRC))
    # Written apart from the fast tier's µop list (issue 17): a tutorial
    # saxpy and a 2-D f64 stencil, memory accesses included.
    ns, a, reps = 65536 * scale, 1e-6, 100
    jobs.append(("ordinary: saxpy_clamp", "_Z11saxpy_clampPfPKffii", 4096, 256,
                 [f"buf:y:{4 * ns}:zero", f"buf:x:{4 * ns}:iota_f32", f"f32:{a}", f"i32:{ns}", f"i32:{reps}"],
                 ["y"], check_saxpy(ns, a, reps), "gfx90a", ORDINARY_SRC))
    sw, sh = 4096 * scale, 384
    sp = os.path.join(tmp, f"stencil{sw}.bin")
    with open(sp, "wb") as f:
        f.write(struct.pack(f"<{sw * sh}d", *stencil_input(sw, sh)))
    jobs.append(("ordinary: stencil_f64", "_Z11stencil_f64PdPKdii", sw, 256,
                 [f"buf:out:{8 * sw * sh}", f"buf:in:@{sp}", f"i32:{sw}", f"i32:{sh}"],
                 ["out"], check_stencil(sw, sh), "gfx90a", ORDINARY_SRC))
    # Written outside the project's kernel files, as ordinary user code
    # (bench/hip/user_noise.hip): hashing, clamps, selects, 64-bit indices.
    nu, itu = 4096 * scale, 1000
    jobs.append(("user: user_noise", "_Z10user_noisePfPjPKfxi", nu, 256,
                 [f"buf:out:{4 * nu}", f"buf:keys:{4 * nu}", "buf:table:1024:iota_f32",
                  f"u64:{nu}", f"i32:{itu}"],
                 ["out", "keys"], check_user_noise(nu, itu), "gfx90a", USER_SRC))
    # A second kernel in user style (bench/hip/tone_map.hip): an image
    # tone-mapping pass (unpack, division, selects, clamps, quantisation,
    # f16 and f64 results), through a divergent branch.
    nt, passes, expo = 4096 * scale, 500, 1.5
    tp = os.path.join(tmp, "tone_img.bin")
    with open(tp, "wb") as f:
        f.write(struct.pack(f"<{TONE_NPIX}I", *tone_image()))
    jobs.append(("user: tone_map", "_Z8tone_mapPjPDF16_PdPKjifi", nt, 256,
                 [f"buf:qsum:{4 * nt}", f"buf:lum:{2 * nt}", f"buf:ysum:{8 * nt}", f"buf:img:@{tp}",
                  f"i32:{TONE_NPIX}", f"f32:{expo}", f"i32:{passes}"],
                 ["qsum", "lum", "ysum"], check_tone_map(nt, expo, passes), "gfx90a", TONE_SRC))
    jobs = [j if len(j) >= 8 else j + ("gfx90a",) for j in jobs]
    return [j if len(j) == 9 else j + (BENCH_SRC,) for j in jobs]


GFX950_SRC = os.path.join(ROOT, "corpus/hip/bench_gfx950.hip")
FP8_OCP = {-2: 0xC0, -1: 0xB8, 0: 0x00, 1: 0x38, 2: 0x40}  # OCP E4M3 (bias 7)


def retarget(jobs, targets, tmp):
    """The gfx90a jobs once per processor of `targets` (same kernels built
    for each, named with the processor), the others as they are; with
    gfx950 among them, its fp8 (OCP) f8f6f4 GEMM too."""
    if not targets:
        return jobs
    out = []
    for j in jobs:
        if j[7] != "gfx90a":
            out.append(j)
            continue
        for t in targets:
            out.append((f"{j[0]} [{t}]",) + j[1:7] + (t,) + j[8:])
    if "gfx950" in targets:
        g = 1024
        a, bt = gemm_inputs(g)
        pa, pb = os.path.join(tmp, f"A8ocp-{g}.bin"), os.path.join(tmp, f"Bt8ocp-{g}.bin")
        with open(pa, "wb") as f:
            f.write(bytes(FP8_OCP[x] for x in a))
        with open(pb, "wb") as f:
            f.write(bytes(FP8_OCP[x] for x in bt))
        out.append((f"MFMA GEMM f8f6f4 fp8 {g}^3 gfx950", "gemm_f8f6f4", (g // 32) ** 2 * 64, 64,
                    [f"buf:C:{4 * g * g}", f"buf:A:@{pa}", f"buf:Bt:@{pb}", f"i32:{g}"],
                    ["C"], lambda d: check_gemm(d, g), "gfx950", GFX950_SRC))
    return out


def run_classes(lathe, scale, repeat, threads_list, only=None, baseline=None, targets=None):
    """Runs each class job, interleaved with `baseline` if given; every
    run's output is checked (exit status 1 on a mismatch)."""
    bins = [("", lathe)] + ([("baseline ", baseline)] if baseline else [])
    with tempfile.TemporaryDirectory() as tmp:
        for name, kernel, grid, block, args, outs, check, arch, src in retarget(
                class_jobs(scale, tmp), targets, tmp):
            if only and not any(o in name for o in only):
                continue
            co = build_bench(tmp, arch, src)
            for threads in threads_list:
                rates = {t: [] for t, _ in bins}
                secs = {t: [] for t, _ in bins}
                cpu = {t: [] for t, _ in bins}
                instrs = set()
                for r in range(repeat):
                    for tag, exe in bins:
                        full = list(args)
                        paths = {}
                        for k, arg in enumerate(full):
                            nm = arg.split(":")[1] if arg.startswith("buf:") else None
                            if nm in outs:
                                paths[nm] = os.path.join(tmp, f"out-{nm}.bin")
                                full[k] = arg + f":out={paths[nm]}"
                                if os.path.exists(paths[nm]):
                                    os.remove(paths[nm])
                        cmd = [exe, "-q", "--json", "run", co, "--target", arch, "--threads", str(threads),
                               "--kernel", kernel, "--grid", str(grid), "--block", str(block)]
                        for arg in full:
                            cmd += ["-a", arg]
                        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                        res = subprocess.run(cmd, capture_output=True, text=True)
                        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                        # The whole process's CPU time (start-up included,
                        # a few ms): what a loaded machine blurs least.
                        cpu[tag].append(ru1.ru_utime - ru0.ru_utime + ru1.ru_stime - ru0.ru_stime)
                        if res.returncode != 0:
                            fail(f"{tag}{name} threads={threads} run {r}: lathe run exited "
                                 f"{res.returncode}: {res.stderr.strip()}")
                        j = json.loads(res.stdout)
                        data = {nm: open(p, "rb").read() for nm, p in paths.items()}
                        why = check(data)
                        if why:
                            fail(f"{tag}{name} threads={threads} run {r}: {why}")
                        rates[tag].append(j["wave_instructions_per_second"])
                        secs[tag].append(j["seconds"])
                        instrs.add(j["wave_instructions"])
                if len(instrs) != 1:
                    fail(f"{name} threads={threads}: wave-instruction counts differ: {sorted(instrs)}")
                wi = instrs.pop()
                for tag, _ in bins:
                    print(f"{tag}{name:26} threads={threads}: {wi:>10} wave-instr, outputs checked; "
                          f"{describe(rates[tag], 'M wave-instr/s', 1e-6, '{:.2f}')}; "
                          f"dispatch {describe(secs[tag], 'ms', 1e3, '{:.1f}')}", flush=True)
                    print(f"{'':9}CPU time (user+sys of the process): "
                          f"{describe([wi / c for c in cpu[tag]], 'M wave-instr/CPU-s', 1e-6, '{:.2f}')}",
                          flush=True)
                if baseline:
                    print(f"{'':9}speed-up over baseline: wall {ratio(secs['baseline '], secs[''])}; "
                          f"CPU time {ratio(cpu['baseline '], cpu[''])}", flush=True)


if __name__ == "__main__":
    main()

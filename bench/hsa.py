#!/usr/bin/env python3
"""Lathe's HSA runtime under real HIP programs (built by Debian's hipcc for
gfx90a, run through Debian's libamdhip64.so.5), side by side in one run:

* launch latency: an almost empty kernel (it counts its runs; the count is
  checked) with hipLaunchKernelGGL + hipStreamSynchronize, N times after a
  warm-up; goal <= 14 us per launch (a real MI-series GPU on ROCm);
* copy bandwidth: hipMemcpy of 256 MiB host->device and device->host,
  pageable and pinned, against the host's memcpy in the same process;
  every copy is compared; goal >= 50 % of memcpy;
* runtime overhead: a tiled f32 matmul launched by the HIP program (launch
  to synchronize, result checked against a CPU product) against
  `lathe run` of the same kernel in the same binary; goal <= 5 %.

Reports median and spread (min..max) over --repeat runs and exits non-zero
if any output check fails. Usage: bench/hsa.py [--repeat N] [--launches N]
[--mib N] [--n N] [--threads N]"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "bench", "hsa")


def spread(xs):
    return f"median {statistics.median(xs):.3f} (min {min(xs):.3f}, max {max(xs):.3f}, n={len(xs)})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--launches", type=int, default=10000)
    ap.add_argument("--mib", type=int, default=256)
    ap.add_argument("--n", type=int, default=256, help="matmul size (multiple of 16)")
    ap.add_argument("--threads", type=int, default=1, help="emulator threads for the matmul (both sides)")
    a = ap.parse_args()
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "lathe-cli", "-p", "lathe-hsa"], cwd=ROOT, check=True)
    rel = os.path.join(target, "release")
    lathe = os.path.join(rel, "lathe")
    work = tempfile.mkdtemp(prefix="lathe-bench-hsa-")
    libdir = os.path.join(work, "lib")
    os.makedirs(libdir)
    os.symlink(os.path.join(rel, "libhsa_runtime64.so"), os.path.join(libdir, "libhsa-runtime64.so.1"))
    env = dict(os.environ, LD_LIBRARY_PATH=libdir)
    env.pop("LATHE_TRACE", None)
    exe = {}
    for p in ("latency", "bandwidth", "matmul"):
        exe[p] = os.path.join(work, p)
        subprocess.run(["hipcc", "--offload-arch=gfx90a", "-O2", "-o", exe[p], os.path.join(SRC, p + ".hip")], check=True)
    failed = False

    def run(args, extra_env=None):
        nonlocal failed
        e = dict(env, **(extra_env or {}))
        r = subprocess.run(args, env=e, capture_output=True, text=True)
        if r.returncode != 0:
            failed = True
            print(f"FAILED: {' '.join(args)} exited {r.returncode}\n{r.stdout}{r.stderr}", file=sys.stderr)
        return r.stdout

    # Launch latency.
    lat = []
    out = run([exe["latency"], str(a.launches), str(a.repeat)])
    lat = [float(l.split()[1]) for l in out.splitlines() if l.startswith("latency_us")]
    print(f"launch latency (us per launch+sync, {a.launches} launches): {spread(lat)}; goal <= 14")

    # Copy bandwidth.
    out = run([exe["bandwidth"], str(a.mib), str(a.repeat)])
    bw = {}
    for l in out.splitlines():
        k, v = l.split()
        if k != "mismatches":
            bw.setdefault(k, []).append(float(v))
    base = statistics.median(bw.get("memcpy", [1]))
    for k, xs in bw.items():
        pct = 100 * statistics.median(xs) / base
        print(f"{k:13s} GB/s: {spread(xs)}  ({pct:.0f} % of memcpy; goal >= 50 %)")

    # Runtime overhead: the HIP program vs lathe run of the same kernel.
    n = a.n
    hip_s, run_s = [], []
    for _ in range(a.repeat):
        out = run([exe["matmul"], str(n)], {"LATHE_THREADS": str(a.threads)})
        for l in out.splitlines():
            if l.startswith("seconds"):
                hip_s.append(float(l.split()[1]))
        out = run([lathe, "-q", "--json", "run", exe["matmul"], "--kernel", "matmul",
                   "--grid", f"{n},{n}", "--block", "16,16", "--threads", str(a.threads),
                   "-a", f"buf:c:{4 * n * n}", "-a", f"buf:a:{4 * n * n}:f32:1",
                   "-a", f"buf:b:{4 * n * n}:f32:1", "-a", f"i32:{n}"])
        if out:
            run_s.append(json.loads(out)["seconds"])
    if hip_s and run_s:
        over = 100 * (statistics.median(hip_s) / statistics.median(run_s) - 1)
        print(f"matmul {n}x{n} via HIP (s):   {spread(hip_s)}")
        print(f"matmul {n}x{n} lathe run (s): {spread(run_s)}")
        print(f"runtime overhead: {over:+.1f} % (goal <= 5 %)")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()

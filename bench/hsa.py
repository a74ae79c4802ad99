#!/usr/bin/env python3
"""Lathe's HSA runtime under real HIP programs (built by Debian's hipcc for
gfx90a, run through Debian's libamdhip64.so.5), side by side in one run:

* launch latency, two patterns: an empty kernel on the null stream with
  hipDeviceSynchronize, and a counting kernel (the count is checked) on a
  created stream with hipStreamSynchronize, N times after a warm-up; with
  --loaded also while a busy loop runs on every core; goal <= 14 us per
  launch (a real MI-series GPU on ROCm), in every run. --baseline DIR
  runs another libhsa_runtime64.so (e.g. main's) interleaved with this
  one, run by run, and reports both side by side with per-run ratios;
* copy bandwidth: hipMemcpy of 256 MiB host->device and device->host,
  pageable and pinned, against the host's memcpy in the same process;
  every copy direction is checked with a pattern that changes per
  repetition; goal >= 50 % of memcpy;
* runtime overhead: a tiled f32 matmul launched by the HIP program (launch
  to synchronize, the timed launch's result checked against a CPU product)
  against `lathe run` of the same kernel in the same binary from the same
  inputs (its result compared bit for bit); the ratio is taken per pair of
  runs; goal <= 5 %.

Reports median and spread (min..max) over --repeat runs and exits non-zero
if any output check fails. Usage: bench/hsa.py [--repeat N] [--launches N]
[--mib N] [--n N] [--threads N] [--loaded] [--bindir DIR] [--latency-only]
[--baseline DIR] [--cpu N]

--cpu N also measures the CPU time of a launch (`perf stat -e task-clock`,
user + system, all threads): a run of N launches of each pattern minus a
run of none, per pair of launches (one of each pattern), --repeat times,
interleaved with the baseline's when given, with per-pair ratios; the
wall clock under shared cores is this cost divided by the thread's share
of a core (D56).

--bindir takes lathe and libhsa_runtime64.so from DIR (e.g. target/ci)
instead of building the release profile; --latency-only skips the
bandwidth and matmul parts."""
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
    ap.add_argument("--loaded", action="store_true", help="also measure latency with a busy loop on every core")
    ap.add_argument("--baseline", help="a directory with another libhsa_runtime64.so to run interleaved (latency)")
    ap.add_argument("--bindir", help="use lathe and libhsa_runtime64.so from here (no build)")
    ap.add_argument("--latency-only", action="store_true", help="only the launch-latency part")
    ap.add_argument("--cpu", type=int, default=0, metavar="N",
                    help="also CPU per launch pair from perf stat task-clock: N launches minus none")
    a = ap.parse_args()
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    if a.bindir:
        rel = os.path.abspath(a.bindir)
    else:
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
    for p in ("latency",) if a.latency_only else ("latency", "bandwidth", "matmul"):
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

    # Launch latency: both patterns, alone and optionally with a competing
    # job (a busy loop per core), each run of this runtime next to a run of
    # the baseline's when given, so both see the same machine.
    libs = [("this", libdir)]
    if a.baseline:
        bdir = os.path.join(work, "baseline")
        os.makedirs(bdir)
        os.symlink(os.path.join(os.path.abspath(a.baseline), "libhsa_runtime64.so"),
                   os.path.join(bdir, "libhsa-runtime64.so.1"))
        libs.append(("baseline", bdir))
    keys = (("latency_null_us", "empty kernel, null stream, hipDeviceSynchronize"),
            ("latency_stream_us", "counting kernel, created stream, hipStreamSynchronize"))
    for load in ([False, True] if a.loaded else [False]):
        rivals = []
        if load:
            rivals = [subprocess.Popen(["sh", "-c", "while :; do :; done"])
                      for _ in range(os.cpu_count() or 1)]
        got = {(name, k): [] for name, _ in libs for k, _ in keys}
        try:
            for _ in range(a.repeat):
                for name, d in libs:
                    out = run([exe["latency"], str(a.launches), "1"], {"LD_LIBRARY_PATH": d})
                    for k, _ in keys:
                        xs = [float(l.split()[1]) for l in out.splitlines() if l.startswith(k + " ")]
                        got[(name, k)].extend(xs)
        finally:
            for r in rivals:
                r.kill()
                r.wait()
        tag = f"with a busy loop on each of {len(rivals)} cores" if load else "alone"
        for k, what in keys:
            for name, _ in libs:
                xs = got[(name, k)]
                if len(xs) != a.repeat:
                    failed = True
                    print(f"FAILED: {name}: {len(xs)} {k} lines of {a.repeat}", file=sys.stderr)
                    continue
                over = " > 14 in some run" if name == "this" and max(xs) > 14 else ""
                print(f"launch latency ({what}; {tag}; {name}; us per launch+wait, {a.launches} launches): {spread(xs)}; goal <= 14{over}")
            if a.baseline and all(len(got[(n, k)]) == a.repeat for n, _ in libs):
                ratio = [b / t for t, b in zip(got[("this", k)], got[("baseline", k)])]
                print(f"  baseline / this per run ({k}): {spread(ratio)}")

    if a.cpu:
        cpu = {name: [] for name, _ in libs}

        def task_ms(d, n):
            with tempfile.NamedTemporaryFile("r", suffix=".perf") as f:
                run(["perf", "stat", "-x", ",", "-e", "task-clock", "-o", f.name,
                     exe["latency"], str(n), "1"], {"LD_LIBRARY_PATH": d})
                for l in f.read().splitlines():
                    parts = l.split(",")
                    if len(parts) > 2 and parts[2].startswith("task-clock"):
                        return float(parts[0])
            return None

        for i in range(a.repeat):
            # Alternate which runtime goes first, so a drift in the load
            # does not favour one.
            for name, d in (libs if i % 2 == 0 else libs[::-1]):
                full, none = task_ms(d, a.cpu), task_ms(d, 0)
                if full is None or none is None:
                    failed = True
                    print(f"FAILED: no task-clock from perf stat ({name})", file=sys.stderr)
                    continue
                cpu[name].append(1000 * (full - none) / a.cpu)
        for name, _ in libs:
            if cpu[name]:
                print(f"CPU per launch pair (us, task-clock, {a.cpu} of each minus none; {name}): {spread(cpu[name])}")
        if a.baseline and all(len(cpu[n]) == a.repeat for n, _ in libs):
            ratio = [b / t for t, b in zip(cpu["this"], cpu["baseline"])]
            print(f"  baseline / this per pair (CPU): {spread(ratio)}")

    if a.latency_only:
        sys.exit(1 if failed else 0)

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

    # Runtime overhead: the HIP program vs lathe run of the same kernel from
    # the same inputs; lathe run's result must equal the program's bit for
    # bit (same emulator), and the ratio is taken per pair of runs.
    n = a.n
    hip_s, run_s, ratios = [], [], []
    size = 4 * n * n
    for i in range(a.repeat):
        d = os.path.join(work, f"mm{i}")
        os.makedirs(d)
        out = run([exe["matmul"], str(n), d], {"LATHE_THREADS": str(a.threads)})
        h = [float(l.split()[1]) for l in out.splitlines() if l.startswith("seconds")]
        out = run([lathe, "-q", "--json", "run", exe["matmul"], "--kernel", "matmul",
                   "--grid", f"{n},{n}", "--block", "16,16", "--threads", str(a.threads),
                   "-a", f"buf:c:{size}", "-a", f"buf:a:@{d}/a.bin", "-a", f"buf:b:@{d}/b.bin",
                   "-a", f"i32:{n}", "--expect", f"c={d}/c.bin"])
        r = json.loads(out)["seconds"] if out else None
        if h and r:
            hip_s.append(h[0])
            run_s.append(r)
            ratios.append(h[0] / r)
    if ratios:
        print(f"matmul {n}x{n} via HIP (s):   {spread(hip_s)}")
        print(f"matmul {n}x{n} lathe run (s): {spread(run_s)} (result equal to the program's)")
        over = [100 * (x - 1) for x in ratios]
        print(f"runtime overhead per pair (%): {spread(over)} (goal <= 5 %)")
    if failed:
        sys.exit(1)


if __name__ == "__main__":
    main()

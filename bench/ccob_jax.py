#!/usr/bin/env python3
"""Benchmark: CCOB (compressed bundle) decompression on the jax-rocm7-plugin
wheel's shared libraries, `lathe bundle extract --all` against
`llvm-objcopy --dump-section` + `clang-offload-bundler --unbundle` (LLVM 22),
side by side in one run. Both write every code object of every target.
Reports the median wall time of each side with its spread, the median
per-run ratio, and decompressed MB/s. Every run's outputs are compared byte
for byte with the first run's; a difference exits with status 1.

clang-offload-bundler 22 reads only the first bundle of a file (and fails on
a section holding two CCOBs back to back, as `_solver.so` does), so the peer
pipeline first cuts the section into bundles (bench/peer.py).
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time
import json
import hashlib
import statistics

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer import split_fatbin  # noqa: E402
from stats import describe, fail, ratio  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LLVM = "/usr/lib/llvm-22/bin"


def sh(args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def libs():
    return sorted(p for p in glob.glob(os.path.join(ROOT, ".cache/jax-rocm7-plugin/jax_rocm7_plugin/*.so"))
                  if ".hip_fatbin" in sh([f"{LLVM}/llvm-readelf", "-S", "-W", p]))


def peer(lib_paths, wd):
    outs = []
    for i, lib in enumerate(lib_paths):
        d = os.path.join(wd, str(i))
        os.makedirs(d)
        for j, fb in enumerate(split_fatbin(lib, d)):
            ids = [x for x in sh([f"{LLVM}/clang-offload-bundler", "--list", "--type=o", f"--input={fb}"]).split()
                   if not x.startswith("host-")]
            o = [os.path.join(d, f"{j}-{x}.co") for x in ids]
            sh([f"{LLVM}/clang-offload-bundler", "--unbundle", "--type=o", f"--input={fb}",
                "--targets=" + ",".join(ids)] + [f"--output={p}" for p in o])
            os.remove(fb)
            outs += o
    return outs


def lathe(lathe_bin, lib_paths, wd):
    outs = []
    for i, lib in enumerate(lib_paths):
        d = os.path.join(wd, str(i))
        j = json.loads(sh([lathe_bin, "-q", "--json", "bundle", "extract", lib, "--all", "-o", d]))
        outs += [w["path"] for w in j["written"]]
    return outs


def main():
    lib_paths = libs()
    if not lib_paths:
        sys.exit("no jax wheel: run scripts/setup.sh")
    lathe_bin = os.environ.get("LATHE_BIN") or os.path.join(ROOT, "target/release/lathe")
    if not os.environ.get("LATHE_BIN"):
        sh(["cargo", "build", "--release", "-q", "-p", "lathe-cli"])
    runs = int(os.environ.get("RUNS", "5"))
    times = {"lathe": [], "peer": []}
    reference = None
    for r in range(runs):
        for name in (["lathe", "peer"] if r % 2 == 0 else ["peer", "lathe"]):
            wd = tempfile.mkdtemp(prefix=f"ccob-{name}-")
            t0 = time.perf_counter()
            outs = lathe(lathe_bin, lib_paths, wd) if name == "lathe" else peer(lib_paths, wd)
            dt = time.perf_counter() - t0
            size = sum(os.path.getsize(p) for p in outs)
            # Every run's outputs, by content (names differ between sides).
            result = (len(outs), size, sorted(hashlib.sha256(open(p, "rb").read()).hexdigest() for p in outs))
            shutil.rmtree(wd, ignore_errors=True)
            if reference is None:
                reference = result
            elif result != reference:
                fail(f"run {r} {name}: {result[0]} code objects, {result[1]} bytes; "
                     f"first run: {reference[0]} code objects, {reference[1]} bytes (or contents differ)")
            times[name].append(dt)
            print(f"run {r} {name:5}: {dt * 1000:7.0f} ms  {len(outs)} code objects", flush=True)
    n, size, _ = reference
    mbs = [size / 1e6 / t for t in times["lathe"]]
    print(f"{len(lib_paths)} libraries, {n} code objects, {size / 1e6:.1f} MB decompressed, identical in every run of both")
    print(f"lathe: {describe(times['lathe'], 'ms', 1000, '{:.0f}')}, {statistics.median(mbs):.0f} MB/s")
    print(f"llvm-objcopy + clang-offload-bundler: {describe(times['peer'], 'ms', 1000, '{:.0f}')}")
    print(f"speed-up: {ratio(times['peer'], times['lathe'])}")

if __name__ == "__main__":
    main()

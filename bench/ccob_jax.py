#!/usr/bin/env python3
"""Benchmark: CCOB (compressed bundle) decompression on the jax-rocm7-plugin
wheel's shared libraries, `lathe bundle extract --all` against
`llvm-objcopy --dump-section` + `clang-offload-bundler --unbundle` (LLVM 22),
side by side in one run. Both write every code object of every target.
Reports wall time, the ratio, and decompressed MB/s. Outputs are compared
byte for byte.

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
import filecmp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer import split_fatbin  # noqa: E402

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
    best = {}
    for r in range(runs):
        for name in (["lathe", "peer"] if r % 2 == 0 else ["peer", "lathe"]):
            wd = tempfile.mkdtemp(prefix=f"ccob-{name}-")
            t0 = time.perf_counter()
            outs = lathe(lathe_bin, lib_paths, wd) if name == "lathe" else peer(lib_paths, wd)
            dt = time.perf_counter() - t0
            size = sum(os.path.getsize(p) for p in outs)
            if name not in best or dt < best[name][0]:
                if name in best:
                    shutil.rmtree(best[name][3], ignore_errors=True)
                best[name] = (dt, len(outs), size, wd, outs)
            else:
                shutil.rmtree(wd, ignore_errors=True)
    tl, nl, sl, wdl, ol = best["lathe"]
    tp, np_, sp, wdp, op = best["peer"]
    # Compare contents: sort both by size+content hash.
    def key(p):
        return (os.path.getsize(p), open(p, "rb").read())
    same = sorted(map(key, ol)) == sorted(map(key, op))
    print(f"{len(lib_paths)} libraries, {nl}/{np_} code objects, {sl/1e6:.1f} MB decompressed, identical: {same}")
    print(f"lathe: {tl*1000:.0f} ms ({sl/1e6/tl:.0f} MB/s); llvm-objcopy + clang-offload-bundler: {tp*1000:.0f} ms ({sp/1e6/tp:.0f} MB/s)")
    print(f"speed-up: {tp/tl:.1f}x (best of {runs})")
    shutil.rmtree(wdl, ignore_errors=True)
    shutil.rmtree(wdp, ignore_errors=True)
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()

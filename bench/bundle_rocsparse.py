#!/usr/bin/env python3
"""Benchmark: list every bundle entry of Debian's librocsparse.so.0.1 (1.3 GB,
111 bundles, ROCm 5.3) and extract every gfx90a code object (xnack- and xnack+),
with `lathe` and with the LLVM tools, side by side in one run.

Peer pipeline (what one does without Lathe):
  1. llvm-objcopy --dump-section .hip_fatbin=...   (the fat binary section)
  2. llvm-readelf -S -r                              (find the .hipFatBinSegment
     wrappers and their R_X86_64_RELATIVE addends = bundle addresses)
  3. cut each bundle out of the section (Python slicing, written to a file)
  4. clang-offload-bundler --list, then --unbundle for the gfx90a IDs.
clang-offload-bundler 22 rejects these ROCm 5.3 bundle IDs, so the peer uses
LLVM 15's bundler (Debian clang-tools-15), which reads them.

Lathe: `lathe bundle list FILE --json` and
       `lathe bundle extract FILE -t gfx90a:xnack- -t gfx90a:xnack+ -o DIR`.

Every run's outputs are compared byte for byte with the first run's (exit
status 1 on a difference). Prints the median time of each side with its
spread, and the median per-run ratio. Run with
`bench/bundle_rocsparse.py [--runs N]`; needs librocsparse0, which `scripts/setup.sh` installs.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer import digests, sh, split_fatbin  # noqa: E402
from stats import describe, fail, ratio  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB = "/usr/lib/x86_64-linux-gnu/librocsparse.so.0.1"
BUNDLER15 = "/usr/lib/llvm-15/bin/clang-offload-bundler"
TARGETS = ["gfx90a:xnack-", "gfx90a:xnack+"]


def peer(workdir):
    out = os.path.join(workdir, "out")
    os.makedirs(out)
    entries = 0
    paths = split_fatbin(LIB, workdir)
    for i, b in enumerate(paths):
        ids = sh([BUNDLER15, "--list", "--type=o", f"--input={b}"]).split()
        entries += len(ids)
        want = [f"hipv4-amdgcn-amd-amdhsa--{t}" for t in TARGETS]
        have = [w for w in want if w in ids]
        if have:
            outs = [os.path.join(out, f"{i:03}-{w.rsplit('--', 1)[1]}.co") for w in have]
            sh([BUNDLER15, "--unbundle", "--type=o", f"--input={b}",
                "--targets=" + ",".join(have)] + [f"--output={o}" for o in outs])
        os.remove(b)
    return len(paths), entries, out


def lathe(lathe_bin, workdir):
    import json
    listing = json.loads(sh([lathe_bin, "-q", "bundle", "list", LIB, "--json"]))
    out = os.path.join(workdir, "out")
    args = [lathe_bin, "-q", "bundle", "extract", LIB, "-o", out]
    for t in TARGETS:
        args += ["-t", t]
    sh(args)
    bundles = listing["bundles"]
    return len(bundles), sum(len(b["entries"]) for b in bundles), out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    if not os.path.exists(LIB) or not os.path.exists(BUNDLER15):
        sys.exit("needs librocsparse0 and clang-tools-15: run scripts/setup.sh")
    lathe_bin = os.environ.get("LATHE_BIN")
    if not lathe_bin:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "lathe-cli"], cwd=ROOT, check=True)
        lathe_bin = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release/lathe")
    times = {"lathe": [], "peer": []}
    reference = None
    for run in range(a.runs):
        for name in (["lathe", "peer"] if run % 2 == 0 else ["peer", "lathe"]):
            wd = tempfile.mkdtemp(prefix=f"lathe-bench-{name}-", dir=os.environ.get("TMPDIR"))
            t0 = time.perf_counter()
            nb, ne, out = lathe(lathe_bin, wd) if name == "lathe" else peer(wd)
            dt = time.perf_counter() - t0
            # Every run's result is checked against the first one: counts,
            # and every extracted code object byte for byte (by content:
            # the two sides name files differently).
            result = (nb, ne, digests(out))
            shutil.rmtree(wd, ignore_errors=True)
            if reference is None:
                reference = result
            elif result != reference:
                fail(f"run {run} {name}: bundles={nb} entries={ne} code objects={len(result[2])} differ "
                     f"from the first run's bundles={reference[0]} entries={reference[1]} "
                     f"code objects={len(reference[2])}")
            times[name].append(dt)
            print(f"run {run} {name:5}: {dt:7.3f} s  bundles={nb} entries={ne} gfx90a code objects={len(result[2])}",
                  flush=True)
    print(f"lathe: {describe(times['lathe'])}")
    print(f"peer (llvm-objcopy + llvm-readelf + clang-offload-bundler-15): {describe(times['peer'])}")
    print(f"bundles {reference[0]}, entries {reference[1]}, gfx90a code objects {len(reference[2])}: "
          f"identical in every run of both")
    print(f"speed-up: {ratio(times['peer'], times['lathe'])}")

if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""`lathe exec --capture` and `lathe replay` (issue 22) on three HIP
programs built by Debian's hipcc for gfx90a (the test app: five launches
of two kernels; tools_app's 2-D/3-D kernels; rocSPARSE's csrmv, AMD's
kernels):

* capture overhead: wall time of `lathe exec --capture DIR` over plain
  `lathe exec` (runs alternate; the ratio is the median of per-pair
  ratios);
* capsule size: bytes stored before compression (`before_bytes`) and on
  disk (zstd blobs and code objects) against the program's device memory
  (every live allocation's size) and against the bytes the dispatch
  touched (its touched pages: the stored runs outside the `queue` and
  `packet` allocations, which are stored whole; format 3 stores a `code`
  allocation's touched pages only, the rest is its code object loaded at
  replay);
* replay: wall time of `lathe replay` against the dispatch's own time in
  the original run, and its start-up (wall time minus the replayed
  kernel's time), with the replay process's CPU time (user + system),
  side by side with a process that does nothing (`lathe --version`, run
  alternately with the replays: the floor any start-up includes).

Every capture run's program output must equal the plain run's, and every
replay must be bit-identical (exit 0, `identical`); any mismatch exits 1.
Goals: capture <= 1.5x, replay start-up <= 50 ms beyond the kernel.
Usage: bench/capture.py [--repeat N] [--profile release|ci]"""
import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats import describe, fail, median  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HIP = os.path.join(ROOT, "crates/hsa/tests/hip")
PROGRAMS = [
    # name, source, hipcc flags, program args, capture selection
    ("app", "crates/cli/tests/exec/app.hip", [], ["100000", "3", "0"], []),
    ("tools_app", "crates/cli/tests/exec/tools_app.hip", [], [], ["--kernels", "grid"]),
    ("rocsparse", "crates/hsa/tests/hip/rocsparse.hip", [f"-I{HIP}", "-lrocsparse"], [],
     ["--kernels", "csrmv"]),
]


def timed(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    return time.perf_counter() - t0, p


def timed_cpu(cmd):
    """Wall time, CPU time (user + system) of the child, and the result."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    dt, p = timed(cmd)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return dt, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), p


def du(path):
    total = 0
    for d, _, files in os.walk(path):
        total += sum(os.path.getsize(os.path.join(d, f)) for f in files)
    return total


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--profile", default="release")
    a = ap.parse_args()
    lathe = os.path.join(ROOT, "target", a.profile, "lathe")
    if not os.path.exists(lathe):
        fail(f"{lathe} is not built (cargo build --profile {a.profile} --workspace)")
    tmp = tempfile.mkdtemp(prefix="lathe-capture-bench-")
    try:
        for name, src, flags, args, sel in PROGRAMS:
            app = os.path.join(tmp, name)
            subprocess.run(["hipcc", "--offload-arch=gfx90a", "-O2", *flags, "-o", app,
                            os.path.join(ROOT, src)], check=True, capture_output=True)
            plain_t, cap_t, ratios = [], [], []
            last = None
            for i in range(a.repeat):
                dt, p = timed([lathe, "exec", "--", app, *args])
                if p.returncode != 0:
                    fail(f"{name}: plain run exited {p.returncode}: {p.stderr[-2000:]}")
                want = p.stdout
                plain_t.append(dt)
                cdir = os.path.join(tmp, f"{name}-cap{i}")
                dc, q = timed([lathe, "exec", "--capture", cdir, *sel, "--", app, *args])
                if q.returncode != 0 or q.stdout != want:
                    fail(f"{name}: the capture run's output or status differs")
                cap_t.append(dc)
                ratios.append(dc / dt)
                if last:
                    shutil.rmtree(last)
                last = cdir
            caps = sorted(os.path.join(last, c) for c in os.listdir(last))
            print(f"{name}: {len(caps)} capsule(s) per run")
            print(f"  plain exec    {describe(plain_t)}")
            print(f"  with capture  {describe(cap_t)}")
            print(f"  capture / plain: median {median(ratios):.2f}x "
                  f"(per run {min(ratios):.2f}x..{max(ratios):.2f}x, n={len(ratios)})")
            for c in caps:
                with open(os.path.join(c, "capsule.json")) as f:
                    m = json.load(f)
                size = du(c)
                changed = sum(p[2] for p in m["after_pages"])
                allocs = m["allocations"]
                total = sum(x["size"] for x in allocs)
                whole = {i for i, x in enumerate(allocs) if x["kind"] in ("queue", "packet")}
                code = {i for i, x in enumerate(allocs) if x["kind"] == "code"}
                runs = m.get("before_pages") or [[i, 0, x["size"]] for i, x in enumerate(allocs)]
                touched = sum(r[2] for r in runs if r[0] not in whole)
                code_stored = sum(r[2] for r in runs if r[0] in code)
                code_size = sum(allocs[i]["size"] for i in code)
                ratio = m["before_bytes"] / max(touched, 1)
                print(f"  {os.path.basename(c)} (format {m['version']}): device memory "
                      f"{total / 1e6:.2f} MB; stored {m['before_bytes'] / 1e6:.3f} MB before "
                      f"compression ({m['before_bytes'] / total * 100:.1f} % of it), of which "
                      f"code pages {code_stored / 1e6:.3f} MB of a {code_size / 1e6:.3f} MB code "
                      f"allocation; on disk {size / 1e6:.2f} MB (code objects "
                      f"{sum(co['size'] for co in m['code_objects']) / 1e6:.2f} MB); pages "
                      f"changed {changed / 1e3:.1f} kB")
                print(f"    stored / touched pages: {ratio:.3f}x (goal <= 2x{'' if ratio <= 2 else ': MISSED'}; "
                      f"the rest is the queue and packet)")
                wall, startup, kern, phases, cpu, floor = [], [], [], [], [], []
                for _ in range(a.repeat):
                    dv, pv = timed([lathe, "--version"])
                    if pv.returncode != 0:
                        fail("lathe --version failed")
                    floor.append(dv)
                    dt, ct, p = timed_cpu([lathe, "--json", "replay", c])
                    if p.returncode != 0:
                        fail(f"{c}: replay failed: {p.stdout[-1500:]}{p.stderr[-1500:]}")
                    j = json.loads(p.stdout)
                    if not j["identical"]:
                        fail(f"{c}: replay differs")
                    wall.append(dt)
                    cpu.append(ct)
                    kern.append(j["seconds"])
                    startup.append(dt - j["seconds"])
                    phases.append(j["phases"]["read"] + j["phases"]["place"])
                print(f"    replay wall {describe(wall, 'ms', 1e3, '{:.1f}')}; "
                      f"CPU {describe(cpu, 'ms', 1e3, '{:.1f}')}")
                print(f"    replayed kernel {describe(kern, 'ms', 1e3, '{:.1f}')}; "
                      f"original dispatch {m['original']['seconds'] * 1e3:.1f} ms")
                goal = "met" if median(startup) <= 0.050 else "MISSED"
                print(f"    start-up beyond the kernel {describe(startup, 'ms', 1e3, '{:.1f}')} "
                      f"(goal <= 50 ms: {goal}); of it reading + placing "
                      f"{describe(phases, 'ms', 1e3, '{:.1f}')}; a bare process "
                      f"(lathe --version) {describe(floor, 'ms', 1e3, '{:.1f}')}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

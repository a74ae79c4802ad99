#!/usr/bin/env python3
"""Benchmark and check (issue 18): `lathe disasm --format llvm` against
`llvm-objdump -d --no-show-raw-insn --no-leading-addr --mcpu=<processor>`
(LLVM 22) on every code object of the jax-rocm7-plugin wheel (`.cache/`,
installed by scripts/setup.sh), per GPU generation.

What is compared. Both tools get the same files: every code object of every
CCOB bundle in the wheel's libraries, extracted once beforehand with
`lathe bundle extract --all` (llvm-objdump cannot read a CCOB bundle inside
a host library). The extraction is timed and reported on its own line and
counted on neither side. Each tool is run once per code object, with its
listing on stdout going to /dev/null, so each side pays its own process
start-up per object, as a user running it per file would.

Check. Every object's two listings are compared line by line (any
difference exits 1). Normalised, as documented: whitespace runs collapsed
to one space, empty lines dropped, and llvm-objdump's header before the
first `<symbol>:` label (file name and format, section title) dropped,
since lathe prints the listing only.

Timing. Per run, the generations in turn, each tool over all of that
generation's objects, the tools' order alternating from run to run; the
ratio is the median of the per-run ratios llvm-objdump / lathe (paired:
both sides of a pair saw similar machine load), with its range. Wall time
and CPU time (user + system of the child processes, from rusage, much less
sensitive to a busy machine) are both reported. `--baseline BIN` times a
second lathe binary (e.g. main's) in the same runs, paired the same way.
A start-up line times `lathe --version`, `/bin/true` and
`llvm-objdump --version`; a phases line splits lathe's CPU time into a
cost per run and a cost per line (from the objects with the fewest and
the most lines), with `/bin/true` for the floor of a process start.

Usage: bench/disasm_jax.py [--runs N] [--generations GFX9,GFX11,...]
                           [--baseline /work/main/target/release/lathe]
"""
import argparse
import glob
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stats import describe, fail, median  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OBJDUMP = "/usr/lib/llvm-22/bin/llvm-objdump"
GENERATIONS = ["GFX9", "GFX10.1", "GFX10.3", "GFX11", "GFX11.5", "GFX12", "GFX12.5"]


def generation(proc):
    """GFX9, GFX10.1, ... for a processor name (`gfx1151` -> GFX11.5)."""
    m = re.fullmatch(r"gfx(\d+?)([0-9a-f])([0-9a-f])", proc)
    if not m:
        return None
    major, minor = m.group(1), m.group(2)
    if major == "9":
        return "GFX9"
    g = f"GFX{major}"
    return g if minor == "0" else f"{g}.{int(minor, 16)}"


def squash(text):
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def timed(cmd, check=True):
    """Runs cmd (stdout to /dev/null); returns (wall, cpu) seconds."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=None if check else subprocess.DEVNULL,
                   check=check)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def ratios(peer, ours):
    rs = [p / o for p, o in zip(peer, ours)]
    return f"{median(rs):.1f}x (per-run {min(rs):.1f}x..{max(rs):.1f}x, n={len(rs)})"


def ms(xs):
    return describe(xs, "ms", 1e3, "{:.1f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--generations", default=",".join(GENERATIONS),
                    help="comma-separated subset of " + ",".join(GENERATIONS))
    ap.add_argument("--baseline", help="another lathe binary timed in the same runs")
    a = ap.parse_args()
    libs = sorted(glob.glob(os.path.join(ROOT, ".cache", "jax-rocm7-plugin", "**", "*.so*"),
                            recursive=True))
    if not libs:
        sys.exit("needs the jax-rocm7-plugin wheel in .cache: run scripts/setup.sh")
    lathe = os.environ.get("LATHE_BIN")
    if not lathe:
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "lathe-cli"], cwd=ROOT,
                       check=True)
        lathe = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")),
                             "release/lathe")
    wanted = a.generations.split(",")
    with open("/proc/loadavg") as f:
        print(f"load average at start: {' '.join(f.read().split()[:3])} "
              f"({os.cpu_count()} CPUs)")
    wd = tempfile.mkdtemp(prefix="lathe-disasm-jax-")
    try:
        # Extraction, once, timed on its own.
        objs = {}
        ext = []
        for i, lib in enumerate(libs):
            out = os.path.join(wd, str(i))
            # Libraries without device code fail ("no offload bundles"):
            # they have nothing to list.
            ext.append(timed([lathe, "-q", "bundle", "extract", "--all", lib, "-o", out],
                             check=False)[0])
            for p in sorted(glob.glob(os.path.join(out, "*.co"))):
                proc = re.search(r"--(gfx[0-9a-f]+)", os.path.basename(p))
                g = proc and generation(proc.group(1))
                if g in wanted:
                    objs.setdefault(g, []).append((proc.group(1), p))
        total = sum(len(v) for v in objs.values())
        print(f"extraction (lathe bundle extract --all, {len(libs)} libraries, {total} code "
              f"objects; counted on neither side): {sum(ext) * 1e3:.1f} ms")
        if not objs:
            sys.exit("no code objects of the generations asked for in the wheel")

        # Check: identical listings.
        lines = {}
        per_object = {}
        for g, items in objs.items():
            n = 0
            for proc, p in items:
                ours = squash(subprocess.run([lathe, "-q", "disasm", "--format", "llvm", p],
                                             capture_output=True, text=True, check=True).stdout)
                theirs = squash(subprocess.run(
                    [OBJDUMP, "-d", "--no-show-raw-insn", "--no-leading-addr", "--mcpu=" + proc,
                     p], capture_output=True, text=True, check=True).stdout)
                while theirs and not theirs[0].endswith(">:"):
                    theirs.pop(0)
                k = sum(1 for x in theirs if not x.endswith(">:"))
                per_object[p] = k
                n += k
                diffs = [(x, y) for x, y in zip(ours, theirs) if x != y]
                if diffs or len(ours) != len(theirs):
                    fail(f"{g} {p}: {len(diffs)} differing lines, first {diffs[:1]}, "
                         f"{len(ours)} vs {len(theirs)} lines")
            lines[g] = n

        # Start-up.
        st = {"lathe --version": [lathe, "--version"], "/bin/true": ["/bin/true"],
              "llvm-objdump --version": [OBJDUMP, "--version"]}
        if a.baseline:
            st["baseline --version"] = [a.baseline, "--version"]
        print("start-up (median of 30, wall / CPU):")
        for name, cmd in st.items():
            xs = [timed(cmd) for _ in range(30)]
            print(f"  {name:24} {median([x[0] for x in xs]) * 1e3:6.2f} ms / "
                  f"{median([x[1] for x in xs]) * 1e3:6.2f} ms")

        # Where lathe's time goes: the runs on the objects with the fewest
        # and the most lines give the cost of a line (the slope) and the
        # cost of a run without lines (the intercept), which holds process
        # start-up (`/bin/true` is a floor: exec, the C library's start)
        # and a disasm run's fixed work (the file, the tables paged in).
        by_lines = sorted((n, p) for p, n in per_object.items())
        if len(by_lines) >= 2:
            (n0, p0), (n1, p1) = by_lines[0], by_lines[-1]
            cpu = {}
            for name, cmd in (("true", ["/bin/true"]),
                              ("small", [lathe, "-q", "disasm", "--format", "llvm", p0]),
                              ("large", [lathe, "-q", "disasm", "--format", "llvm", p1])):
                cpu[name] = median([timed(cmd)[1] for _ in range(30)])
            per_line = (cpu["large"] - cpu["small"]) / max(n1 - n0, 1)
            print(f"lathe phases (CPU, median of 30): per run {(cpu['small'] - n0 * per_line) * 1e3:.2f}"
                  f" ms (/bin/true {cpu['true'] * 1e3:.2f} ms), per line {per_line * 1e9:.0f} ns "
                  f"(objects of {n0} and {n1} lines: {cpu['small'] * 1e3:.2f} and "
                  f"{cpu['large'] * 1e3:.2f} ms)")

        # Timing.
        tools = {
            "lathe": lambda proc, p: [lathe, "-q", "disasm", "--format", "llvm", p],
            "llvm": lambda proc, p: [OBJDUMP, "-d", "--no-show-raw-insn", "--no-leading-addr",
                                     "--mcpu=" + proc, p],
        }
        if a.baseline:
            tools["baseline"] = lambda proc, p: [a.baseline, "-q", "disasm", "--format", "llvm",
                                                 p]
        wall = {g: {t: [] for t in tools} for g in objs}
        cpu = {g: {t: [] for t in tools} for g in objs}
        order = list(tools)
        for r in range(a.runs):
            for g in (x for x in GENERATIONS if x in objs):
                for t in (order if r % 2 == 0 else order[::-1]):
                    w = c = 0.0
                    for proc, p in objs[g]:
                        dw, dc = timed(tools[t](proc, p))
                        w += dw
                        c += dc
                    wall[g][t].append(w)
                    cpu[g][t].append(c)
        for g in (x for x in GENERATIONS if x in objs):
            procs = sorted({proc for proc, _ in objs[g]})
            print(f"{g}: {len(objs[g])} code objects ({', '.join(procs)}), {lines[g]} "
                  f"instruction lines, 0 differing lines")
            for t, name in (("lathe", "lathe disasm"), ("baseline", "baseline lathe"),
                            ("llvm", "llvm-objdump")):
                if t in tools:
                    print(f"  {name:15} wall {ms(wall[g][t])}")
                    print(f"  {'':15} CPU  {ms(cpu[g][t])}")
            print(f"  speed-up over llvm-objdump: wall {ratios(wall[g]['llvm'], wall[g]['lathe'])}"
                  f", CPU {ratios(cpu[g]['llvm'], cpu[g]['lathe'])}")
            if a.baseline:
                print(f"  speed-up over baseline: wall "
                      f"{ratios(wall[g]['baseline'], wall[g]['lathe'])}, CPU "
                      f"{ratios(cpu[g]['baseline'], cpu[g]['lathe'])}")
        with open("/proc/loadavg") as f:
            print(f"load average at end: {' '.join(f.read().split()[:3])}")
    finally:
        shutil.rmtree(wd, ignore_errors=True)


if __name__ == "__main__":
    main()

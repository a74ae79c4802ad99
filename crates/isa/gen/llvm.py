"""Batch access to LLVM 22's AMDGPU disassembler for the lathe-isa generator
and sweeps.

`disasm(cpu, probes)` lays each probe (a list of 32-bit words, at most 3) in
its own 16-byte slot of a `.text` section (padding with `s_nop 0`), assembles
that with llvm-mc, disassembles it with llvm-objdump, and returns, per probe,
`(text, nwords)` -- the instruction text objdump printed at the slot start and
how many words it consumed -- or `(None, 1)` when objdump printed `.long`.
"""

import os
import re
import subprocess
import tempfile

LLVM_BIN = "/usr/lib/llvm-22/bin"
NOP = 0xBF800000
LINE = re.compile(r"^\t(.*?)\s*// ([0-9A-F]{12}): ((?:[0-9A-F]{8} ?)+)(.*)$")


def llvm_version():
    out = subprocess.run([os.path.join(LLVM_BIN, "llvm-mc"), "--version"],
                         capture_output=True, text=True, check=True).stdout
    m = re.search(r"LLVM version (\S+)", out)
    return m.group(1) if m else "unknown"


def cpu_args(cpu):
    """`gfx1030:w64` -> ("gfx1030", ["--mattr=+wavefrontsize64"]): a wave64
    probe of a processor whose default (for the disassembler) is wave32;
    `gfx1100:fake16` (or `gfx1100:w64:fake16`) reads GFX11 without the
    true16 tables."""
    name, *tags = cpu.split(":")
    attrs = ["+wavefrontsize64"] if "w64" in tags else []
    # `:fake16`: GFX11's fake16 reading alone (the true16 tables disabled;
    # D71 probes both readings of a VOP3 DPP word).
    attrs += ["-real-true16"] if "fake16" in tags else []
    return name, (["--mattr=" + ",".join(attrs)] if attrs else [])


CRASHED = []  # probes that make llvm-objdump crash (reported, treated as invalid)


def disasm(cpu, probes, chunk=150000):
    out = []
    for i in range(0, len(probes), chunk):
        out.extend(_disasm_safe(cpu, probes[i:i + chunk]))
    return out


def _disasm_safe(cpu, probes):
    try:
        return _disasm(cpu, probes)
    except subprocess.CalledProcessError:
        if len(probes) == 1:
            CRASHED.append((cpu, list(probes[0])))
            return [("<crash>", 0)]
        mid = len(probes) // 2
        return _disasm_safe(cpu, probes[:mid]) + _disasm_safe(cpu, probes[mid:])


def _disasm(cpu, probes):
    with tempfile.TemporaryDirectory() as d:
        s = os.path.join(d, "p.s")
        o = os.path.join(d, "p.o")
        with open(s, "w") as f:
            f.write(".text\n")
            for p in probes:
                assert 1 <= len(p) <= 3
                words = list(p) + [NOP] * (4 - len(p))
                f.write(".long " + ",".join("0x%08x" % w for w in words) + "\n")
        mcpu, attrs = cpu_args(cpu)
        subprocess.run([os.path.join(LLVM_BIN, "llvm-mc"), "-triple=amdgcn-amd-amdhsa",
                        "-mcpu=" + mcpu, "-filetype=obj", s, "-o", o] + attrs, check=True)
        txt = subprocess.run([os.path.join(LLVM_BIN, "llvm-objdump"), "-d",
                              "--mcpu=" + mcpu, o] + attrs,
                             capture_output=True, text=True, check=True,
                             env=dict(os.environ, LLVM_DISABLE_SYMBOLIZATION="1"),
                             ).stdout
    res = {}
    for line in txt.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        addr = int(m.group(2), 16)
        if addr % 16:
            continue
        nw = len(m.group(3).split())
        text = m.group(1)
        rest = m.group(4).strip()
        if rest:
            text += " //" + rest
        if text.startswith(".long "):
            res[addr // 16] = (None, 1)
        else:
            res[addr // 16] = (text, nw)
    return [res.get(i, (None, 0)) for i in range(len(probes))]


if __name__ == "__main__":
    import sys
    cpu = sys.argv[1]
    probes = [[int(w, 16) for w in l.split()] for l in sys.stdin if l.strip()]
    for p, (t, n) in zip(probes, disasm(cpu, probes)):
        print(" ".join("%08x" % w for w in p), "|", n, "|", t)

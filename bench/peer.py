"""The LLVM-tools pipeline Lathe's bundle benchmarks compare against: dump
`.hip_fatbin` with llvm-objcopy, find where each bundle starts from the
`.hipFatBinSegment` wrappers' R_X86_64_RELATIVE addends (llvm-readelf), and cut
the section into one file per bundle (clang-offload-bundler reads only the
first bundle of a file)."""
import hashlib
import os
import re
import subprocess

LLVM22 = "/usr/lib/llvm-22/bin"


def sh(args):
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def split_fatbin(lib, workdir):
    """Returns the paths of the per-bundle files cut from `lib`'s .hip_fatbin."""
    fatbin = os.path.join(workdir, "fatbin")
    # Only the section's bytes are written: `-O binary` with one allocated
    # section outputs exactly its contents. (`--dump-section` would also
    # write a full copy of the input as objcopy's output file.)
    sh([f"{LLVM22}/llvm-objcopy", "-O", "binary", "--only-section=.hip_fatbin", lib, fatbin])
    secs = sh([f"{LLVM22}/llvm-readelf", "-S", "-W", lib])
    addr = {}
    for m in re.finditer(r"\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", secs):
        addr[m.group(1)] = (int(m.group(2), 16), int(m.group(4), 16))
    fb_va, _ = addr[".hip_fatbin"]
    seg_va, seg_size = addr[".hipFatBinSegment"]
    starts = []
    for line in sh([f"{LLVM22}/llvm-readelf", "-r", "-W", lib]).splitlines():
        f = line.split()
        if len(f) >= 4 and f[2] == "R_X86_64_RELATIVE":
            off = int(f[0], 16)
            if seg_va <= off < seg_va + seg_size and (off - seg_va) % 24 == 8:
                starts.append(int(f[3], 16) - fb_va)
    starts = sorted(set(starts))
    data = open(fatbin, "rb").read()
    os.remove(fatbin)
    ends = starts[1:] + [len(data)]
    paths = []
    for i, (s, e) in enumerate(zip(starts, ends)):
        # A CCOB must be cut to its exact size (its header's total size,
        # v2: u32 at 8, v3: u64 at 8): the bundler rejects trailing padding.
        if data[s:s + 4] == b"CCOB":
            version = int.from_bytes(data[s + 4:s + 6], "little")
            if version == 2:
                e = s + int.from_bytes(data[s + 8:s + 12], "little")
            elif version == 3:
                e = s + int.from_bytes(data[s + 8:s + 16], "little")
        p = os.path.join(workdir, f"bundle{i:03}")
        with open(p, "wb") as fh:
            fh.write(data[s:e])
        paths.append(p)
    return paths


def digests(directory):
    """Sorted SHA-256 digests of every file in `directory`: equal lists mean
    the same set of outputs, whatever the files are called."""
    out = []
    for name in os.listdir(directory):
        with open(os.path.join(directory, name), "rb") as fh:
            out.append(hashlib.sha256(fh.read()).hexdigest())
    return sorted(out)

"""GFX11's plain VOP3 true16/fake16 fallback (D79): the probe stage.

LLVM 22 decodes a GFX11 64-bit VOP3 word with the true16 table first and,
when that decoder rejects it, with the fake16 one (the same order D71
models for VOP3 DPP). For the 16-bit opcodes the two tables print one word
differently (`v8.l, v2.l, v16.l` against `v8, v2, v16`), and which words
the true16 decoder rejects depends on bits a per-field probe does not see
(an `op_sel` bit of an operand the opcode lacks, a source that is not a
VGPR where the true16 operand must be one). So, per GFX11 column:

  * every `VOP3_10` record's base word is read again as `cpu:fake16` (the
    true16 tables off); where the text differs, a fallback record
    (`VOP3F16_10`, Rust `Vop3F16`) is probed entirely under that reading
    (stages C and D);
  * every bit-scan word of such a two-reading record is read as fake16 as
    well, and a flip whose default text equals its fake16 text (LLVM fell
    back) becomes invalid for the true16 record, so its ordinary
    must-be-zero/must-be-one masks say when the fallback row applies.

No per-mnemonic lists: the rule is whatever the scans show per opcode.
The fallback records are probed under the `VOP3_10` name (the layout is
the same) and renamed afterwards.
"""

import probe as P
from llvm import disasm

# The fallback encoding (same layout as VOP3_10).
ENC = "VOP3F16_10"
LAYOUT = "VOP3_10"
# VOP3's `op_sel` bits (word 0, 14:11), as bit-scan keys.
OP_SEL_BITS = ("11", "12", "13", "14")


def add_gfx11_vop3_t16(cpu, recs):
    """Appends the fake16 fallback records of `cpu`'s plain VOP3 opcodes
    to `recs` and marks the true16 records' fallback flips invalid.
    Returns how many records were added (0 off GFX11)."""
    if P.generation(cpu) != 11:
        return 0
    f16 = cpu + ":fake16"
    plain = [r for r in recs if r["enc"] == LAYOUT]
    fake16, two = [], []
    readings = zip(plain, disasm(f16, [r["base"] for r in plain]))
    for r, (tf, nwf) in readings:
        if tf is None or tf == "<crash>" or nwf != r["nwords"] or tf == r["text"]:
            continue
        two.append(r)
        fake16.append(dict(enc=LAYOUT, op=r["op"], template=r["template"], base=list(r["base"]),
                           text=tf, nwords=nwf))
    # Which flips of a two-reading word the true16 decoder rejects: those
    # whose default text is the fake16 text. Where the two readings could
    # print a flip alike without a fallback (`v_cvt_f32_f16 v1, s2`: no
    # 16-bit VGPR left), the flip is read again with a witness, an `op_sel`
    # bit the true16 reading prints and the fake16 one does not: the
    # decoder fell back only if the witnessed word still prints as fake16.
    shadow = [dict(r) for r in two]
    P.bit_scans(f16, shadow)
    same, probes = [], []
    for r, s in zip(two, shadow):
        wit = [b for b in OP_SEL_BITS if r["scan"].get(b) and "op_sel" in r["scan"][b]
               and r["scan"][b] != s["scan"].get(b)]
        for b, t in r["scan"].items():
            if t is None or t != s["scan"][b]:
                continue
            w = next((x for x in wit if x != b), None)
            if w is None:
                r["scan"][b] = None
                continue
            p = list(r["base"]) + [0] * (r["nwords"] - len(r["base"]))
            for bit in (int(b), int(w)):
                p[bit // 32] ^= 1 << (bit % 32)
            same.append((r, b))
            probes.append(p)
    for (r, b), d, f in zip(same, disasm(cpu, probes), disasm(f16, probes)):
        if d == f:
            r["scan"][b] = None
    P.bit_scans(f16, fake16)
    P.type_probes(f16, fake16)
    P.class_probes(f16, fake16)
    for r in fake16:
        r["enc"] = ENC
    recs.extend(fake16)
    return len(fake16)

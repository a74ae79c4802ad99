"""Stage 2 of the lathe-isa generator: turn the LLVM probes (`probe.json`,
written by probe.py) into the Rust opcode tables in src/generated/gfx9.rs.

    python3 crates/isa/gen/gen.py            # probe LLVM, rewrite the tables
    python3 crates/isa/gen/gen.py --check    # probe LLVM, diff against the committed tables

What is derived from LLVM (nothing here is typed in by hand per opcode):
  * the opcode list of every encoding and target, and each mnemonic;
  * the printed operands, in order, with the encoding field each comes from,
    its register file and width (from the text of a probe with distinctive
    register numbers, and from which operand changes when each bit flips);
  * which source modifiers (neg/abs/sext) each operand prints;
  * which trailing modifiers (clamp, omod, op_sel, glc, offset, ...) print;
  * the bits that must be zero (a single flip makes LLVM reject the word);
  * how each source operand prints constants and literals (its "immediate
    type"), by matching probe texts against a model of LLVM's printer;
  * hwreg() names and sendmsg() texts.
What is hand-written (per encoding, not per opcode): the field layouts in
probe.py, the field roles below, and the semantic rules in `semantics()`
(implicit registers, memory class, waitcnt counters, branch kinds), which
follow the ISA manuals and are keyed on mnemonic patterns.
"""

import json
import os
import re
import struct
import subprocess
import sys
import tempfile
from collections import Counter, OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import probe as P  # noqa: E402
import vimage as V  # noqa: E402
import mimg10 as M10  # noqa: E402
from llvm import llvm_version  # noqa: E402
from tok import COMMENT, is_t16, parse_reg, tokenize  # noqa: E402

OUT = os.path.join(HERE, "..", "src", "generated", "gfx9.rs")

ENC_RUST = OrderedDict([
    ("SOP2", "Sop2"), ("SOPK", "Sopk"), ("SOP1", "Sop1"), ("SOPC", "Sopc"), ("SOPP", "Sopp"),
    ("SMEM", "Smem"), ("VOP2", "Vop2"), ("VOP1", "Vop1"), ("VOPC", "Vopc"), ("VOP3", "Vop3"),
    ("VOP3P", "Vop3p"), ("MAI", "Mai"), ("SDWA_VOP2", "Vop2Sdwa"), ("SDWA_VOP1", "Vop1Sdwa"),
    ("SDWA_VOPC", "VopcSdwa"), ("DPP_VOP2", "Vop2Dpp"), ("DPP_VOP1", "Vop1Dpp"), ("DPP_VOPC", "VopcDpp"), ("DS", "Ds"),
    ("FLAT", "Flat"), ("GLOBAL", "Global"), ("SCRATCH", "Scratch"), ("MUBUF", "Mubuf"),
    ("MTBUF", "Mtbuf"), ("MIMG", "Mimg"),
    ("SMEM_10", "SmemGfx10"), ("VOP3_10", "Vop3Gfx10"), ("VOP3P_10", "Vop3pGfx10"),
    ("DS_10", "DsGfx10"), ("FLAT_10", "FlatGfx10"), ("GLOBAL_10", "GlobalGfx10"),
    ("SCRATCH_10", "ScratchGfx10"), ("MUBUF_10", "MubufGfx10"),
    ("SMEM_11", "SmemGfx11"), ("MUBUF_11", "MubufGfx11"), ("FLAT_11", "FlatGfx11"),
    ("GLOBAL_11", "GlobalGfx11"), ("SCRATCH_11", "ScratchGfx11"), ("VOPDX_11", "VopdX"),
    ("VOPDY_11", "VopdY"),
    ("SMEM_12", "SmemGfx12"), ("MUBUF_12", "MubufGfx12"), ("FLAT_12", "FlatGfx12"),
    ("GLOBAL_12", "GlobalGfx12"), ("SCRATCH_12", "ScratchGfx12"),
    ("VOPD3X_12", "Vopd3X"), ("VOPD3Y_12", "Vopd3Y"),
    ("DPP_VOP3_10", "Vop3Dpp"), ("DPP8_VOP3_10", "Vop3Dpp8"),
    ("DPP8_VOP2", "Vop2Dpp8"), ("DPP8_VOP1", "Vop1Dpp8"), ("DPP8_VOPC", "VopcDpp8"),
    ("DPP_VOP3F16_10", "Vop3DppF16"), ("DPP8_VOP3F16_10", "Vop3Dpp8F16"),
    ("VIMAGE_12", "VimageGfx12"), ("VSAMPLE_12", "VsampleGfx12"),
    ("VOP3F16_10", "Vop3F16"),

    ("MIMG_10", "MimgGfx10"), ("MIMG_HI_10", "MimgHiGfx10"), ("MIMG_11", "MimgGfx11"),
])
# Size of each encoding's opcode space (decode table length).
OP_SPACE = {"SOP2": 128, "SOPK": 32, "SOP1": 256, "SOPC": 128, "SOPP": 128, "SMEM": 256,
            "VOP2": 64, "VOP1": 256, "VOPC": 256, "VOP3": 1024, "VOP3P": 128, "MAI": 128,
            "SDWA_VOP2": 64, "SDWA_VOP1": 256, "SDWA_VOPC": 256, "DPP_VOP2": 64, "DPP_VOP1": 256, "DPP_VOPC": 256,
            "DS": 256, "FLAT": 128, "GLOBAL": 128, "SCRATCH": 128, "MUBUF": 128, "MTBUF": 16,
            "MIMG": 128, "SMEM_10": 256, "VOP3_10": 1024, "VOP3P_10": 128, "DS_10": 256,
            "FLAT_10": 128, "GLOBAL_10": 128, "SCRATCH_10": 128, "MUBUF_10": 128,
            "SMEM_11": 256, "MUBUF_11": 256, "FLAT_11": 128, "GLOBAL_11": 128,
            "SCRATCH_11": 128, "VOPDX_11": 16, "VOPDY_11": 32,
            "SMEM_12": 64, "MUBUF_12": 256, "FLAT_12": 256, "GLOBAL_12": 256, "SCRATCH_12": 256,
            "VOPD3X_12": 64, "VOPD3Y_12": 64, "DPP_VOP3_10": 1024, "DPP8_VOP3_10": 1024,
            "DPP8_VOP2": 64, "DPP8_VOP1": 256, "DPP8_VOPC": 256,
            "DPP_VOP3F16_10": 1024, "DPP8_VOP3F16_10": 1024, "VIMAGE_12": 256,
            "VSAMPLE_12": 256, "VOP3F16_10": 1024, "MIMG_10": 128, "MIMG_HI_10": 128,
            "MIMG_11": 256}
fam = P.fam

# Probe field name -> Rust Field variant, for fields that hold operands.
VALUE_FIELDS = {
    "sdst": "Sdst", "ssrc0": "Ssrc0", "ssrc1": "Ssrc1", "simm16": "Simm16", "sbase": "Sbase",
    "sdata": "Sdata", "offset": "Offset", "soffset": "Soffset", "vdst": "Vdst", "src0": "Src0",
    "src1": "Src1", "src2": "Src2", "vsrc1": "Vsrc1", "sdst3": "Sdst", "addr": "Addr",
    "data0": "Data0", "data1": "Data1", "data": "Data", "saddr": "Saddr", "vaddr": "Vaddr",
    "vdata": "Vdata", "srsrc": "Srsrc", "ssamp": "Ssamp", "vdsty": "VdstY",
}
DST_FIELDS = {"sdst", "vdst", "sdst3", "vdsty"}


def fields_of(enc):
    if enc in P.VOP3_DPP:
        f = P.vop3_dpp_fields(enc)
        f["sdst3"] = (0, 8, 7)  # VOPC/VOP3b e64 forms
        return f
    if enc.startswith("SDWA_"):
        f = dict(P.ENCODINGS[enc[5:]]["fields"])
        f.pop("src0")
        f.update(P.SDWA_FIELDS)
        if enc == "SDWA_VOPC":
            # VOPC SDWA: bits 14:8 are sdst, 15 is sd; clamp at 13 overlaps.
            f["sdst3"] = (1, 8, 7)
        return f
    if enc.startswith("DPP_"):
        f = dict(P.ENCODINGS[enc[4:]]["fields"])
        f.pop("src0")
        f.update(P.DPP_FIELDS)
        return f
    if enc in P.DPP8_32:
        f = dict(P.ENCODINGS[enc[5:]]["fields"])
        f.pop("src0")
        f.update(P.DPP8_32_FIELDS)
        return f
    f = dict(P.ENCODINGS[enc]["fields"])
    if fam(enc) == "VOP3":
        f["sdst3"] = (0, 8, 7)  # VOP3b
    return f


# ---------------------------------------------------------------------------
# Bit-scan analysis


def strip_mods(tok):
    t = COMMENT.sub("", tok)
    t = re.sub(r"^(neg|sext)\((.*)\)$", r"\2", t)
    t = t.lstrip("-")
    t = t.strip("|")
    t = re.sub(r"^(neg|sext)\((.*)\)$", r"\2", t)
    return t


def wrapper(tok):
    t = COMMENT.sub("", tok)
    w = set()
    if t.startswith("-") or t.startswith("neg("):
        w.add("neg")
    if "|" in t:
        w.add("abs")
    if t.startswith("sext("):
        w.add("sext")
    return w


def mod_name(m):
    m = COMMENT.sub("", m)
    if m.startswith("offset:swizzle("):
        return "swizzle"
    if m in ("mul:2", "mul:4", "div:2"):
        return "omod"
    return m.split(":", 1)[0]


def bit_effect(base, text):
    """Classify what flipping one bit did to the printed text."""
    if text is None:
        return ("inv",)
    if text == "<crash>":
        return ("crash",)
    if text == base:
        return ("same",)
    bm, bo, bmods, bc = tokenize(base)
    m, o, mods, c = tokenize(text)
    if m != bm:
        return ("mnem", m)
    eff = {"vals": set(), "wraps": {}, "mods": set(), "nops": len(o) != len(bo), "cmt": c != bc}
    if len(o) == len(bo):
        for i, (x, y) in enumerate(zip(bo, o)):
            if x == y:
                continue
            if strip_mods(x) != strip_mods(y):
                eff["vals"].add(i)
            else:
                eff["wraps"][i] = wrapper(x) ^ wrapper(y)
    a, b = Counter(mod_name(x) for x in bmods), Counter(mod_name(x) for x in mods)
    changed = {mod_name(x) for x in set(bmods) ^ set(mods)}
    eff["mods"] = changed | set((a - b) + (b - a))
    return ("chg", eff)


class Analysis:
    def __init__(self, rec):
        self.rec = rec
        self.enc = rec["enc"]
        self.fields = fields_of(self.enc)
        self.mn, self.ops, self.mods, self.cmt = tokenize(rec["text"])
        self.bits = {}
        for b, t in rec["scan"].items():
            # A DPP/SDWA word LLVM re-decodes as the plain 32-bit form (e.g.
            # v_nop) is not this opcode: treat it as invalid for this entry.
            if t and self.enc.startswith("DPP_") and "row_mask" not in t:
                t = None
            if t and self.enc.startswith("DPP8_") and "dpp8:" not in t:
                t = None
            if t and " <nwords=" in t:
                t = None
            self.bits[int(b)] = bit_effect(rec["text"], t)

    def field_bits(self, name):
        w, lo, width = self.fields[name]
        return [w * 32 + lo + i for i in range(width)]

    def effects(self, name):
        return [self.bits.get(b, ("fixed",)) for b in self.field_bits(name)]

    def zero_mask(self):
        """Bits that are 0 in the base and make LLVM reject the word when set."""
        z = [0, 0, 0]
        for b, e in self.bits.items():
            if e[0] == "inv" and not self.base_bit(b):
                z[b // 32] |= 1 << (b % 32)
        return z

    def one_mask(self):
        """Bits that are 1 in the base and make LLVM reject the word when
        cleared (e.g. `gds` of the GWS ops)."""
        o = [0, 0, 0]
        for b, e in self.bits.items():
            if e[0] == "inv" and self.base_bit(b):
                o[b // 32] |= 1 << (b % 32)
        return o

    def base_bit(self, b):
        w = self.rec["base"]
        return (w[b // 32] >> (b % 32)) & 1 if b // 32 < len(w) else 0

    def value_field_of_token(self):
        """token index -> probe field name whose bits change its value."""
        votes = {}
        for name in self.fields:
            if name not in VALUE_FIELDS:
                continue
            c = Counter()
            for e in self.effects(name):
                if e[0] == "chg":
                    for i in e[1]["vals"]:
                        c[i] += 1
            for i, n in c.items():
                votes.setdefault(i, Counter())[name] += n
        out = {}
        for i, c in votes.items():
            best = c.most_common()
            # Prefer real fields over the VOP3b sdst overlay when tied.
            best.sort(key=lambda x: (-x[1], x[0] == "sdst3"))
            out[i] = best[0][0]
        return out

    def wraps_of_token(self):
        """token index -> set of modifier kinds (neg/abs/sext) some bit toggles."""
        out = {}
        for b, e in self.bits.items():
            if e[0] == "chg":
                for i, w in e[1]["wraps"].items():
                    out.setdefault(i, set()).update(w)
        return out

    def printed_mods(self):
        """Names of trailing modifiers some bit makes LLVM print, plus those
        printed in the base text."""
        out = {mod_name(m) for m in self.mods}
        for b, e in self.bits.items():
            if e[0] == "chg":
                out |= e[1]["mods"]
        return out

    def field_mods(self, name):
        out = set()
        for e in self.effects(name):
            if e[0] == "chg":
                out |= e[1]["mods"]
        return out

    def field_changes_nops(self, name):
        return any(e[0] == "chg" and e[1]["nops"] for e in self.effects(name))


# ---------------------------------------------------------------------------
# Constant printing model (mirrors what src/print.rs implements), used to
# classify each source operand's immediate type from the probe texts.

INT_INLINE = {128 + i: str(i) for i in range(65)}
INT_INLINE.update({192 + i: str(-i) for i in range(1, 17)})
FP_NAMES = {240: "0.5", 241: "-0.5", 242: "1.0", 243: "-1.0", 244: "2.0", 245: "-2.0",
            246: "4.0", 247: "-4.0"}
F16_BITS = {240: 0x3800, 241: 0xB800, 242: 0x3C00, 243: 0xBC00, 244: 0x4000, 245: 0xC000,
            246: 0x4400, 247: 0xC400, 248: 0x3118}
F32_BITS = {240: 0x3F000000, 241: 0xBF000000, 242: 0x3F800000, 243: 0xBF800000,
            244: 0x40000000, 245: 0xC0000000, 246: 0x40800000, 247: 0xC0800000, 248: 0x3E22F983}
F64_HI = {240: 0x3FE00000, 241: 0xBFE00000, 242: 0x3FF00000, 243: 0xBFF00000, 244: 0x40000000,
          245: 0xC0000000, 246: 0x40100000, 247: 0xC0100000}


def s16(v):
    v &= 0xFFFF
    return v - 0x10000 if v & 0x8000 else v


def s32(v):
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v & 0x80000000 else v


def inline32(v):
    return -16 <= s32(v) <= 64 or v in F32_BITS.values()


def inline_f16(v):
    return -16 <= s16(v) <= 64 or (v & 0xFFFF) in F16_BITS.values()


# bf16 inline constants (0.5 ... -4.0, 1/(2*pi)).
BF16_BITS = {240: 0x3F00, 241: 0xBF00, 242: 0x3F80, 243: 0xBF80, 244: 0x4000, 245: 0xC000,
             246: 0x4080, 247: 0xC080, 248: 0x3E22}


def inline_bf16(v):
    return -16 <= s16(v) <= 64 or (v & 0xFFFF) in BF16_BITS.values()


def model(ty, key):
    """Predicted printed text of source value `key` for immediate type `ty`."""
    if not key.startswith("lit:") and not key.isdigit():
        return None
    if not key.startswith("lit:"):
        v = int(key)
        if v in INT_INLINE:
            return INT_INLINE[v]
        if v in FP_NAMES:
            if ty == "I16":
                return "0x%x" % F16_BITS[v]
            return FP_NAMES[v]
        if v == 248:
            if ty in ("F64", "I64"):
                return "0.15915494309189532"
            if ty == "I16":
                return "0x3118"
            return "0.15915494"
        return None
    lit = int(key[4:], 16)
    if ty == "B32":
        return ("lit(0x%x)" if inline32(lit) else "0x%x") % lit
    if ty == "I64":
        return "lit(0x%x)" % lit if -16 <= lit <= 64 else "0x%x" % lit
    if ty == "F64":
        # A 32-bit literal is the high half of the double; LLVM prints the
        # double's name when it is an inline value, never lit().
        for k, v in F64_HI.items():
            if v == lit:
                return FP_NAMES[k]
        return "0x%x" % lit
    if ty == "F16":
        return "lit(0x%x)" % lit if inline_f16(lit) else "0x%x" % (lit & 0xFFFF)
    if ty == "I16":
        return "lit(0x%x)" % lit if inline32(lit) else "0x%x" % (lit & 0xFFFF)
    if ty in ("V2F16", "V2I16"):
        ok = -16 <= s32(lit) <= 64 or (lit <= 0xFFFF and lit in F16_BITS.values())
        return ("lit(0x%x)" if ok else "0x%x") % lit
    if ty == "BF16":
        # The whole literal is printed; lit() when its low half is inline.
        return ("lit(0x%x)" if inline_bf16(lit) else "0x%x") % lit
    if ty == "V2BF16":
        ok = -16 <= s32(lit) <= 64 or (lit <= 0xFFFF and lit in BF16_BITS.values())
        return ("lit(0x%x)" if ok else "0x%x") % lit
    return None


# Tried in order; the first that predicts every sample wins.
TYPES = ["B32", "I64", "F64", "F16", "I16", "V2F16", "V2I16", "BF16", "V2BF16"]


def classify_type(samples):
    """samples: {key: printed operand text}. Returns the first type whose model
    predicts every sample, or None."""
    fits = []
    for ty in TYPES:
        ok = True
        for k, t in samples.items():
            want = model(ty, k)
            if want is None:
                continue
            if t is None or COMMENT.sub("", t) != want:
                ok = False
                break
        if ok:
            fits.append(ty)
    return fits


# ---------------------------------------------------------------------------
# Building table entries


def token_reg(tok):
    return parse_reg(tok)


def kind_of(enc, field, tok, an, idx):
    """Rust Kind of operand printed as `tok` (operand `idx`) from probe field
    `field`."""
    reg = token_reg(tok)
    cls = reg[0] if reg else None
    acc_fields = [f for f in ("acc", "acc_cd") if f in an.fields]
    acc_affects = False
    for f in acc_fields:
        for e in an.effects(f):
            if e[0] == "chg" and (idx in e[1]["vals"]):
                acc_affects = True
    if field == "simm16":
        return None  # decided by simm16_kind
    if field == "src2" and fam(enc) in ("VOPD3X", "VOPD3Y"):
        # VOPD3's 8-bit src2: a VGPR (`fma`) or an SGPR (`cndmask`'s mask).
        return "VReg" if cls == "v" else "SReg"
    if field in ("src0", "src1", "src2"):
        if enc.startswith("SDWA_"):
            return "SdwaSrc"
        if enc in P.VOP3_DPP:
            # VOP3 DPP: src0 is the lane-shuffled VGPR of the third dword;
            # src1/src2 are VOP3's 9-bit sources.
            return "VReg" if field == "src0" else "VSrc"
        if enc.startswith("DPP_") or enc in P.DPP8_32:
            return "VReg"
        if acc_affects:
            return "AvSrc"
        if cls == "a":
            return "ASrc"
        return "VSrc"
    if field == "vsrc1":
        if enc.startswith("SDWA_"):
            return "SdwaSrc"
        return "VReg"
    if field in ("ssrc0", "ssrc1"):
        # `s_sendmsg_rtn_b32/b64` (GFX11+): the 8-bit source field is a
        # message id, printed with `s_sendmsg`'s texts (`sendmsg(MSG_RTN_*)`).
        if tok.startswith("sendmsg("):
            return "SendMsg"
        return "SSrc"
    if field == "soffset":
        return "SSrc" if fam(enc) in ("MUBUF", "MTBUF") else "SReg"
    if field == "sbase":
        return "SRegX2"
    if field in ("srsrc", "ssamp"):
        # GFX12 VBUFFER holds the register number itself.
        return "SReg" if enc.endswith("_12") else "SRegX4"
    if field in ("sdst", "sdata", "sdst3", "saddr"):
        return "SReg"
    if field == "offset":
        return "SmemOffset"
    # 8-bit vector fields
    if cls == "s" or cls == "ttmp" or (reg is None and field == "vdst"):
        return "SReg"
    if acc_affects:
        return "AvReg"
    if cls == "a":
        return "AReg"
    return "VReg"


def simm16_kind(an):
    types = an.rec.get("types", {}).get("simm16", {})
    tok0 = None
    idx = None
    for i, t in enumerate(an.ops):
        if an.value_field_of_token().get(i) == "simm16":
            idx, tok0 = i, t
    if tok0 is None:
        return None, None
    if tok0.startswith("hwreg("):
        return idx, "Hwreg"
    if tok0.startswith("sendmsg("):
        return idx, "SendMsg"
    if an.mn == "s_waitcnt":
        return idx, "Waitcnt"
    if an.mn == "s_delay_alu":
        return idx, "DelayAlu"
    if an.mn in ("s_waitcnt_depctr", "s_wait_alu"):
        return idx, "Depctr"
    if tok0.startswith("gpr_idx("):
        return idx, "GprIdx"
    if "<" in an.cmt or an.mn in ("s_call_b64", "s_call_i64", "s_cbranch_i_fork"):
        return idx, "Branch"
    if an.mn == "s_endpgm":
        return idx, "Endpgm"
    t4660 = types.get("4660", "")
    if t4660 and t4660.endswith(", 0x1234") or t4660.endswith(" 0x1234"):
        t3 = types.get("3", "")
        if t3.endswith("0x3"):
            return idx, "Hex16"
        return idx, "Imm16"
    return idx, "Dec16"


def src_samples(an, field, tok_index):
    out = {}
    for k, text in an.rec.get("types", {}).get(field, {}).items():
        if text is None:
            out[k] = None
            continue
        m, o, mods, c = tokenize(text)
        if tok_index < len(o):
            out[k] = o[tok_index]
    return out


def lit_token_index(an):
    """Index of a literal operand (madmk/madak K, s_setreg_imm32 value)."""
    if an.rec["nwords"] <= P.ENCODINGS.get(an.enc, {"nwords": 99})["nwords"]:
        return None
    for i, t in enumerate(an.ops):
        # GFX12.5's `v_fmamk_f64`/`v_fmaak_f64` K is 64 bits (two s_nop
        # words of the probe's slot).
        if t in ("0xbf800000", "-1.0", "0xbf800000bf800000"):
            return i
    return None


RC_COMMENT = re.compile(r"/\*Invalid register, operand has '([^']+)' register class\*/")


def reg_class_info(samples):
    """From source-value probes: the LLVM register class named in
    /*Invalid register*/ comments and which value groups draw one."""
    rc = None
    bad = set()
    for k, t in samples.items():
        if not t:
            continue
        m = RC_COMMENT.search(t)
        if m:
            if k != "257acc":
                rc = m.group(1)
            if k in ("0", "106", "124", "126"):
                bad.add("bad_sgpr")
            elif k == "256":
                bad.add("bad_vgpr")
            elif k == "254":
                bad.add("bad_lds")
            elif k == "257":
                bad.add("align")
            elif k == "257acc":
                bad.add("align_acc")
        if "/*Invalid immediate*/" in t:
            bad.add("bad_imm")
    return rc, bad


# Modifiers GFX12.5 prints that the tables cannot express yet (D54).
UNPRINTED_MODS = ("scale_sel", "matrix_a_reuse", "matrix_b_reuse", "matrix_a_fmt",
                  "matrix_b_fmt")


def opsel_dpp_flags(rec, an, flags):
    """VOP3 DPP's `op_sel` list, from single-bit flips (D71): whether its
    last entry is src1 (bit 12) rather than the destination (bit 14), and
    whether LLVM leaves bits 0 and 1 unprinted though it prints others."""
    texts = {b: rec["scan"].get(str(b)) or "" for b in an.field_bits("op_sel")}
    lists = {b: re.search(r"op_sel:\[([0-9,]+)\]", t) for b, t in texts.items()}
    lists = {b: m.group(1).split(",") for b, m in lists.items() if m}
    if 12 in lists and len(lists[12]) == 2 and lists[12][-1] == "1" and 14 not in lists:
        flags.add("opsel_no_dst")
    if lists and 11 not in lists and 12 not in lists and all(
            texts[b] == rec["text"] for b in (11, 12)):
        flags.add("opsel_skip01")


def analyze(rec, cpu):
    an = Analysis(rec)
    enc = rec["enc"]
    vf = an.value_field_of_token()
    wraps = an.wraps_of_token()
    litidx = lit_token_index(an)
    simm_idx, simm_kind = simm16_kind(an) if enc in ("SOPP", "SOPK") else (None, None)
    operands = []
    problems = []
    for i, tok in enumerate(an.ops):
        field = vf.get(i)
        if i == litidx:
            if tok == "0xbf800000bf800000":
                operands.append(dict(field="Lit", kind="Lit64", width=2, ty="F64", access="R",
                                     mods=set()))
                continue
            operands.append(dict(field="Lit", kind="Lit32" if tok.startswith("0x") else "LitImm32",
                                 width=1, ty="None", access="R", mods=set()))
            continue
        if i == simm_idx:
            operands.append(dict(field="Simm16", kind=simm_kind, width=0, ty="None",
                                 access="R", mods=set()))
            continue
        if field is None:
            t = COMMENT.sub("", tok)
            if t.startswith("gpr_idx(") or re.fullmatch(r"0x[0-9a-f]+", t):
                operands.append(dict(field="Ssrc1", kind="GprIdx8", width=0, ty="None",
                                     access="R", mods=set()))
            elif t in ("vcc", "vcc_lo"):
                # `vcc_lo`: the wave32 form of the same implicit operand.
                operands.append(dict(field="Implicit", kind="Vcc", width=2 if t == "vcc" else 1,
                                     ty="None", access="R", mods=set()))
            elif t == "off":
                operands.append(dict(field="Implicit", kind="Off", width=0, ty="None",
                                     access="R", mods=set()))
            else:
                problems.append("token %d %r has no field" % (i, tok))
                operands.append(dict(field="Implicit", kind="Unknown", width=0, ty="None",
                                     access="R", mods=set()))
            continue
        kind = kind_of(enc, field, tok, an, i)
        reg = token_reg(tok)
        if reg is None and re.fullmatch(r"\d+", COMMENT.sub("", tok)):
            kind = "Imm16"  # s_atc_probe's 7-bit immediate
        width = reg[2] if reg else (0 if kind in ("SmemOffset",) else 1)
        if kind == "SReg" and reg is None:
            t = COMMENT.sub("", tok)
            width = 1
            if t in ("off",):
                kind = "SReg"
        access = "W" if field in DST_FIELDS else "R"
        ty = "None"
        mods_i = set(wraps.get(i, set()))
        if is_t16(tok):
            mods_i.add("t16")
        rc = None
        if kind in ("SSrc", "VSrc", "AvSrc", "ASrc", "SdwaSrc"):
            samples = src_samples(an, field, i)
            if cpu.startswith("gfx125"):
                # Source 254 is a 64-bit literal there (D54): the probe's
                # value is the slot's padding words, not a constant.
                samples.pop("254", None)
            if not samples and kind == "SdwaSrc":
                samples = {"248": "0.15915494"}
            if (samples.get("0") or "").startswith("gpr_idx("):
                kind, width = "GprIdx8", 0
            else:
                rc, bad = reg_class_info(samples)
                mods_i |= bad
                fits = classify_type(samples) if samples else ["B32"]
                if "bad_imm" in bad:
                    ty = "Reg"
                elif not fits:
                    problems.append("token %d (%s): no immediate type fits %s" % (
                        i, field, {k: v for k, v in samples.items()}))
                    ty = "B32"
                else:
                    ty = fits[0]
        # Register-class probes of non-source fields (alignment, m0, ...).
        regs = an.rec.get("regs", {}).get(field)
        if regs:
            for k, text in regs.items():
                if not text:
                    continue
                _, o2, _, _ = tokenize(text)
                if i >= len(o2):
                    continue
                m = RC_COMMENT.search(o2[i])
                if not m:
                    continue
                if k.startswith("rtn_"):
                    continue
                if k == "odd_acc":
                    mods_i.add("align_acc")
                    continue
                rc = m.group(1)
                if k == "128" and width == 1 and o2[i].startswith("v128"):
                    # GFX12's fake16 VALU forms take v0-v127 only
                    # (`VGPR_32_Lo128`, D66).
                    mods_i.add("lo128")
                elif k == "124":
                    mods_i.add("bad_m0")
                elif k == "254":
                    mods_i.add("bad_lds")
                elif k == "126":
                    mods_i.add("bad_exec")
                elif width >= 2 and k in ("odd", "1", "3", "125", "235", "255"):
                    mods_i.add("align")
        operands.append(dict(field=VALUE_FIELDS[field], kind=kind, width=width, ty=ty,
                             access=access, mods=mods_i, pfield=field, rc=rc))
    mods = an.printed_mods()
    flags = set()
    for m in mods:
        flags.add(m)
    if fam(enc) == "VOP3P" and "op_sel_hi" in mods and "op_sel_hi" not in {mod_name(m) for m in an.mods}:
        flags.add("packed")
    if "DP ALU dpp" in rec["text"]:
        flags.add("dpp_dp")
    # Returning atomics (GLC adds a destination): record its width from the
    # probe with GLC set; the operand is listed last and marked by RTN_GLC.
    # GFX12: bit 0 of `th` (TH_ATOMIC_RETURN) is that bit.
    rtn = "glc" if "glc" in an.fields else "th"
    if rtn in an.fields and an.field_changes_nops(rtn):
        b = an.field_bits(rtn)[0]
        t = rec["scan"].get(str(b))
        if t:
            _, o2, _, _ = tokenize(t)
            r = token_reg(o2[0]) if o2 else None
            if r:
                mods_r, rc_r = set(), None
                for k, text in an.rec.get("regs", {}).get("vdst", {}).items():
                    if not k.startswith("rtn_") or not text:
                        continue
                    _, o3, _, _ = tokenize(text)
                    m = o3 and RC_COMMENT.search(o3[0])
                    if m:
                        if k == "rtn_odd_acc":
                            mods_r.add("align_acc")
                        else:
                            mods_r.add("align")
                            rc_r = m.group(1)
                operands.append(dict(field="Vdst", kind="AvReg", width=r[2], ty="None",
                                     access="W", mods=mods_r, pfield="vdst", rc=rc_r))
                regs_v = an.rec.get("regs", {}).get("vdst", {})
                if regs_v.get("rtn_base") and not regs_v.get("rtn_base_acc"):
                    flags.add("rtn_no_acc")
                if regs_v.get("rtn_base_acc") and not regs_v.get("rtn_base_acc_scc"):
                    flags.add("rtn_acc_scc_bad")
                if "scc" in flags and not regs_v.get("base_acc_scc"):
                    flags.add("acc_scc_bad")
    # Structural facts from the scan.
    for f in ("glc", "lds", "tfe", "d16", "dmask", "acc"):
        if f in an.fields and an.field_changes_nops(f):
            flags.add("nops_" + f)
    if "th" in an.fields and an.field_changes_nops("th"):
        flags.add("nops_glc")
    # GFX12 cache policy: which of LLVM's `th:` name sets (TH_LOAD_*,
    # TH_STORE_*, TH_ATOMIC_*) this opcode prints.
    if "th" in an.fields:
        texts = [rec["scan"].get(str(b)) or "" for b in an.field_bits("th")]
        if any("th:TH_STORE" in t for t in texts):
            flags.add("th_store")
        elif any("th:TH_ATOMIC" in t for t in texts):
            flags.add("th_atomic")
    # op_sel list length (VOP3 lists the sources, then the destination).
    if (fam(enc) == "VOP3" or enc in P.VOP3_DPP) and "op_sel" in an.fields:
        t = rec["scan"].get(str(an.field_bits("op_sel")[0]))
        m = t and re.search(r"op_sel:\[([0-9,]+)\]", t)
        if m:
            flags.add("opsel_n%d" % len(m.group(1).split(",")))
        if enc in P.VOP3_DPP or (enc == "VOP3_10" and P.generation(cpu) == 11):
            opsel_dpp_flags(rec, an, flags)  # GFX11's plain VOP3 too (D79)
    # GFX12 fp8/bf8 conversions: `byte_sel:` is two op_sel bits; which
    # ones (and which is the low bit) from the texts of single flips.
    if "byte_sel" in flags:
        sel = {}
        for b in an.field_bits("op_sel"):
            m = re.search(r"byte_sel:(\d)", rec["scan"].get(str(b)) or "")
            if m:
                sel[int(m.group(1))] = b
        if sel == {1: 12, 2: 11}:
            flags.add("byte_sel_lo")
        elif sel == {1: 13, 2: 14}:
            flags.add("byte_sel_hi")
        else:
            problems.append("byte_sel bits %r" % sel)
    zero, one = an.zero_mask(), an.one_mask()
    # GFX12.5 modifiers no table flag stands for yet (D50, D54): a word
    # that would print one decodes as invalid (`.long`) rather than
    # without it.
    for b, t in rec["scan"].items():
        if b.isdigit() and t and any(m in t and m not in rec["text"] for m in UNPRINTED_MODS):
            zero[int(b) // 32] |= 1 << (int(b) % 32)
    flags -= set(UNPRINTED_MODS)
    # GFX12.5's VFLAT takes an SGPR base like VGLOBAL (`flat_load_b32 v2,
    # v0, s[4:5]`); `null`, the probes' value, prints nothing. The
    # operand goes last (after a returning atomic's destination, which
    # `enc::gfx12` moves to the front).
    flat_saddr = enc == "FLAT_12" and cpu.startswith("gfx125")
    if flat_saddr:
        operands.append(dict(field="Saddr", kind="SReg", width=2, ty="None", access="R",
                             mods=set(), pfield="saddr"))
    if flat_saddr or enc in ("GLOBAL_10", "SCRATCH_10", "GLOBAL_11", "SCRATCH_11", "GLOBAL_12",
                             "SCRATCH_12"):
        # GFX10 `saddr` is a register or `null` (0x7D, the probes' value):
        # single-bit flips of it say nothing about which values are valid.
        w, lo, width = an.fields["saddr"]
        m = ((1 << width) - 1) << lo
        zero[w] &= ~m
        one[w] &= ~m
    # The tables hold masks of words 0 and 1; word 2 (GFX12 VMEM: address
    # register and offset) must have no invalid bits.
    if enc == "MUBUF_12":
        # VBUFFER offsets are unsigned: the sign bit (word 2, bit 31) is
        # rejected for every opcode; `enc::gfx12::valid` checks it.
        zero[2] &= ~0x80000000
    if enc == "VOPD3Y_12":
        # The Y half of VOPD3 has no must-be bits in word 0 (its opcode and
        # the X half are fixed); its word-2 masks (an unused vsrc1/src2 must
        # be zero) take word 0's place in the tables (D57).
        if zero[0] or one[0]:
            problems.append("VOPD3 Y bits in word 0: %x %x" % (zero[0], one[0]))
        zero[0], one[0], zero[2], one[2] = zero[2], one[2], 0, 0
    if enc in V.ENCODINGS:
        # VIMAGE/VSAMPLE (D72): which address fields must be zero depends
        # on dim/a16 (the `vimage` probe stage); the masks leave them out.
        for name in V.ADDR_FIELDS[enc]:
            w, lo, width = an.fields[name]
            zero[w] &= ~(((1 << width) - 1) << lo)
            one[w] &= ~(((1 << width) - 1) << lo)
        # Their `dim`, `r128`, `unorm` and `lwe` have flags of their own.
        flags = {"img_" + m if m in ("dim", "r128", "unorm", "lwe") else m for m in flags}
        if "vimage" not in rec:
            problems.append("no vimage probes")
        problems += rec.get("vimage_problems", [])
    if enc in M10.ENCODINGS:
        # GFX10/11 MIMG (D81): the NSA bits select the form (`mimg10`
        # probe stage), not an invalid word.
        w, lo, width = M10.ENCODINGS[enc]["fields"]["nsa"]
        zero[w] &= ~(((1 << width) - 1) << lo)
        one[w] &= ~(((1 << width) - 1) << lo)
        flags = {"img_" + m if m in ("dim", "r128", "unorm", "lwe") else m for m in flags}
        if "mimg10" not in rec:
            problems.append("no mimg10 probes")
        problems += rec.get("mimg10_problems", [])
    if zero[2] or one[2]:
        problems.append("invalid bits in word 2: %x %x" % (zero[2], one[2]))
    zero, one = zero[:2], one[:2]
    return dict(name=an.mn, enc=enc, code=rec["op"], operands=operands, zero=zero,
                one=one, mimg_widths=rec.get("mimg_widths"), vimage=rec.get("vimage"),
                mimg10=rec.get("mimg10"),
                flags=flags, problems=problems, nwords=rec["nwords"])


def main():
    check = "--check" in sys.argv
    # Named per table layout: a cache with GFX10 records must not be read
    # by a GFX9-only generator (another checkout sharing /tmp).
    # The name changed with the 32-bit DPP8 records (D66): a generator
    # without them must not read them, so the older cache is only read
    # (and upgraded into the new file), never rewritten.
    # The name changed again with GFX11's VOP3 DPP records (D71), the
    # VIMAGE/VSAMPLE records (D72), GFX11's plain VOP3 fake16 records
    # (D79), GFX10/11 MIMG (D81) and GFX11's BVH template (D82): the first
    # run reads the newest older cache and writes this one, leaving the
    # older files as their generators expect them.
    path = os.environ.get("LATHE_ISA_PROBE_CACHE",
                          os.path.join(tempfile.gettempdir(),
                                       "lathe-isa-probe-gfx9-12-gfx11dpp-vimage-t16-mimg10-bvh11"
                                       ".json"))
    older = [os.path.join(tempfile.gettempdir(), n) for n in
             ("lathe-isa-probe-gfx9-12-gfx11dpp-vimage-t16-mimg10.json",
              "lathe-isa-probe-gfx9-12-gfx11dpp-vimage-mimg10.json",
              "lathe-isa-probe-gfx9-12-gfx11dpp-vimage-t16.json",
              "lathe-isa-probe-gfx9-12-gfx11dpp-vimage.json",
              "lathe-isa-probe-gfx9-12-gfx11dpp.json", "lathe-isa-probe-gfx9-12-vimage.json",
              "lathe-isa-probe-gfx9-12-dpp8.json", "lathe-isa-probe-gfx9-12.json")]
    path_in = path
    if "LATHE_ISA_PROBE_CACHE" not in os.environ and not os.path.exists(path):
        path_in = next((p for p in older if os.path.exists(p)), older[-1])
    if "--cached" in sys.argv and os.path.exists(path_in):
        data = json.load(open(path_in))
        # Caches written before a probe stage existed: the stage's records
        # are probed and added to each column's representative, in this
        # order, and the upgraded cache written to `path`. 32-bit DPP8
        # (D66); GFX11's VOP3 DPP (D71); VIMAGE/VSAMPLE (D72: GFX12 columns
        # only, gfx1250 and gfx1251 have no image instructions in LLVM 22).
        vimage_stages = [P.bit_scans, P.type_probes, P.class_probes]
        upgrades = [
            ("dpp8_32", "32-bit DPP8", P.add_dpp8_32),
            ("gfx11_vop3_dpp", "GFX11 VOP3 DPP", P.add_gfx11_vop3_dpp),
            ("vimage", "VIMAGE/VSAMPLE", lambda c, recs: V.add_vimage(c, recs, vimage_stages)),
            ("gfx11_vop3_t16", "GFX11 VOP3 fake16", P.t16.add_gfx11_vop3_t16),
            # GFX10/11 MIMG (D81): columns whose processors print other
            # MIMG opcodes (gfx1013) are split first.
            ("mimg10", "GFX10/11 MIMG", lambda c, recs: M10.add_mimg10(c, recs, vimage_stages)),
            # GFX11's BVH opcodes (D82: a template with `unorm`).
            ("bvh11", "GFX11 BVH", lambda c, recs: M10.add_bvh11(c, recs, vimage_stages)),
        ]
        if "mimg10" not in data:
            print("MIMG columns split off:", M10.split_groups(data), file=sys.stderr)
        for key, what, add in upgrades:
            done = set(data.get(key, []))
            old = [g[0] for g in data["groups"] if g[0] not in done]
            if not old:
                continue
            from concurrent.futures import ThreadPoolExecutor
            with ThreadPoolExecutor(os.cpu_count() or 1) as ex:
                added = list(ex.map(lambda c: add(c, data[c]), old))
            print(what, "records added:", dict(zip(old, added)), file=sys.stderr)
            data[key] = sorted(done | set(old))
            with open(path, "w") as f:
                json.dump(data, f)
        # Processors the cache does not have yet (a new generation) are
        # probed and added; the cached ones are kept.
        have = {c for g in data["groups"] for c in g}
        todo = [t for t in P.TARGETS if t not in have]
        if todo:
            # A new processor whose fingerprint equals a cached column's
            # representative joins that column (as it would in a probe from
            # scratch); the others are probed and get columns of their own.
            from concurrent.futures import ThreadPoolExecutor
            reps = [g[0] for g in data["groups"]]
            with ThreadPoolExecutor(os.cpu_count() or 1) as ex:
                fps = dict(zip(todo + reps, ex.map(P.fingerprint, todo + reps)))
            rest = []
            for cpu in todo:
                g = next((g for g in data["groups"] if fps[g[0]] == fps[cpu]), None)
                if g is not None:
                    g.append(cpu)
                else:
                    rest.append(cpu)
            if rest:
                new = P.probe_all(full="--full" in sys.argv, targets=rest)
                data["groups"] += new.pop("groups")
                data["dpp8_32"] += new.pop("dpp8_32")
                data["gfx11_vop3_dpp"] += new.pop("gfx11_vop3_dpp")
                data["vimage"] += new.pop("vimage")
                data["gfx11_vop3_t16"] += new.pop("gfx11_vop3_t16")
                data["mimg10"] += new.pop("mimg10")
                data["bvh11"] += new.pop("bvh11")
                data.update(new)
            with open(path, "w") as f:
                json.dump(data, f)
        order = {t: i for i, t in enumerate(P.TARGETS)}
        data["groups"] = sorted((g for g in data["groups"] if g[0] in order),
                                key=lambda g: order[g[0]])
    else:
        data = P.probe_all(full="--full" in sys.argv)
        with open(path, "w") as f:
            json.dump(data, f)
    columns = [g[0] for g in data["groups"]]
    for cpu in columns:
        # Caches written before the s_delay_alu names were probed.
        sym = data[cpu + ":symbols"]
        if "delay_alu" not in sym:
            sym["delay_alu"] = P.delay_alu_names(cpu, data[cpu])
        if "depctr" not in sym:
            sym["depctr"] = P.depctr_probes(cpu, data[cpu])
        if "cpol" not in sym:
            sym["cpol"] = P.cpol_names(cpu, data[cpu])
    entries = {}
    nprob = 0
    for cpu in columns:
        for rec in data[cpu]:
            # Graphics-only VOP3 interpolation (v_interp_*_e64, pre-gfx90a:
            # attribute operands, `high`): not in the tables, like VINTRP.
            if fam(rec["enc"]) == "VOP3" and rec["text"].startswith("v_interp_"):
                continue
            # GFX12's export shares a major opcode with VBUFFER: a buffer
            # probe word can decode as `exp ... compr`. Exports (graphics
            # only) are not in the tables.
            if rec["text"].startswith("exp ") and fam(rec["enc"]) != "EXP":
                continue
            P.project_vopd(rec)
            if not rec["text"]:
                continue
            if rec["enc"] == P.t16.ENC:
                # GFX11's fake16 VOP3 fallback (D79): VOP3's layout.
                e = dict(analyze(dict(rec, enc=P.t16.LAYOUT), cpu), enc=P.t16.ENC)
            else:
                e = analyze(rec, cpu)
            if e["problems"] and rec["enc"] in P.VOP3_DPP:
                # A VOP3 DPP form whose operands the model cannot print
                # (`v_fmac_*_e64_dpp`: src1 constants print as raw hex) is
                # left out: it decodes as `.long` (D61).
                continue
            if e["problems"]:
                nprob += 1
                if "-v" in sys.argv:
                    print(cpu, rec["enc"], hex(rec["op"]), rec["text"], e["problems"],
                          file=sys.stderr)
            entries.setdefault(cpu, []).append(e)
    print("entries with problems:", nprob, file=sys.stderr)
    if "--dump" in sys.argv:
        for cpu in entries:
            for e in entries[cpu]:
                print(cpu, e["enc"], hex(e["code"]), e["name"],
                      [(o["field"], o["kind"], o["width"], o["ty"], o["access"],
                        "".join(sorted(o["mods"]))) for o in e["operands"]],
                      sorted(e["flags"]), [hex(z) for z in e["zero"]])
        return
    import emit  # noqa: E402
    text = emit.render(entries, data, llvm_version())
    # The committed file is rustfmt'ed: format the new text the same way.
    with tempfile.NamedTemporaryFile("w", suffix=".rs", delete=False) as f:
        f.write(text)
        tmp = f.name
    subprocess.run(["rustfmt", "--edition", "2021", tmp], check=True)
    text = open(tmp).read()
    os.unlink(tmp)
    if check:
        old = open(OUT).read() if os.path.exists(OUT) else ""
        if old != text:
            import difflib
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), text.splitlines(True), "committed", "regenerated", n=1))
            sys.exit(1)
        print("generated tables are up to date", file=sys.stderr)
    else:
        os.makedirs(os.path.dirname(OUT), exist_ok=True)
        with open(OUT, "w") as f:
            f.write(text)
        print("wrote", OUT, file=sys.stderr)


if __name__ == "__main__":
    main()

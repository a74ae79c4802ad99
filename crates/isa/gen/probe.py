"""Stage 1 of the lathe-isa generator: enumerate every opcode of every GFX9
encoding by asking LLVM's disassembler, and bit-scan each one.

For each encoding (layout below, hand-written), each opcode value and each
target, a few "template" words are tried (distinctive register numbers in
every field); the first one llvm-objdump accepts is the opcode's base. Then
every non-opcode bit of the base is flipped, one at a time, and the printed
text recorded. The result (a JSON cache, `probe.json`) is what `gen.py`
turns into Rust tables.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from llvm import disasm  # noqa: E402

# Every processor the tables cover, in `Target` discriminant order (the Rust
# enum lists them in this order). Processors whose probes are identical share
# one table column (see `columns` in gen.py).
ALL_TARGETS = ["gfx90a", "gfx942", "gfx900", "gfx902", "gfx904", "gfx906", "gfx908", "gfx909",
               "gfx90c", "gfx950", "gfx9-generic", "gfx9-4-generic",
               # GFX10.3 (RDNA2), wave32 then wave64 (`:w64`, see llvm.cpu_args).
               "gfx1030", "gfx1030:w64",
               # GFX11 (RDNA3), wave32 then wave64.
               "gfx1100", "gfx1100:w64"]
# The other GFX10.3 and GFX11 processors, each wave32 then wave64 (D35):
# after the first ones so that adding them moved no `Target` discriminant.
# Which of them share a column with gfx1030/gfx1100 is decided by the
# fingerprints, not by this list.
for _cpu in ["gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036", "gfx10-3-generic",
             "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153",
             "gfx11-generic",
             # GFX12 (RDNA4), D39.
             "gfx1200", "gfx1201", "gfx12-generic",
             # GFX10.1 (RDNA1), D46: gfx1011/1012 add dot products, gfx1013
             # image BVH; the fingerprints decide the columns.
             "gfx1010", "gfx1011", "gfx1012", "gfx1013", "gfx10-1-generic"]:
    ALL_TARGETS += [_cpu, _cpu + ":w64"]
# GFX12.5 (D50, D54): wave32 only (LLVM 22 refuses `wavefrontsize64`).
ALL_TARGETS += ["gfx1250", "gfx1251"]
TARGETS = [t for t in os.environ.get("LATHE_ISA_TARGETS", ",".join(ALL_TARGETS)).split(",") if t]
# The GFX940 family: `sc0 sc1 nt` cache bits, scratch SVE bit.
GFX940 = ["gfx942", "gfx950", "gfx9-4-generic"]


def F(word, lo, width):
    return (word, lo, width)


# name: (nwords, prefix_mask(w0), prefix_value(w0), op field, op range,
#        fields, templates)
ENCODINGS = {
    "SOP2": dict(nwords=1, mask=0xC0000000, value=0x80000000, op=F(0, 23, 7), ops=range(0x60),
                 fields=dict(ssrc0=F(0, 0, 8), ssrc1=F(0, 8, 8), sdst=F(0, 16, 7)),
                 templates=[dict(sdst=8, ssrc0=16, ssrc1=24), dict()]),
    "SOPK": dict(nwords=1, mask=0xF0000000, value=0xB0000000, op=F(0, 23, 5), ops=range(0x1D),
                 fields=dict(simm16=F(0, 0, 16), sdst=F(0, 16, 7)),
                 templates=[dict(sdst=8, simm16=0x1234), dict(sdst=8), dict()]),
    "SOP1": dict(nwords=1, mask=0xFF800000, value=0xBE800000, op=F(0, 8, 8), ops=range(256),
                 fields=dict(ssrc0=F(0, 0, 8), sdst=F(0, 16, 7)),
                 templates=[dict(sdst=8, ssrc0=16), dict(sdst=8), dict(ssrc0=16), dict()]),
    "SOPC": dict(nwords=1, mask=0xFF800000, value=0xBF000000, op=F(0, 16, 7), ops=range(128),
                 fields=dict(ssrc0=F(0, 0, 8), ssrc1=F(0, 8, 8)),
                 templates=[dict(ssrc0=16, ssrc1=24), dict()]),
    "SOPP": dict(nwords=1, mask=0xFF800000, value=0xBF800000, op=F(0, 16, 7), ops=range(128),
                 fields=dict(simm16=F(0, 0, 16)),
                 templates=[dict(simm16=3), dict()]),
    "SMEM": dict(nwords=2, mask=0xFC000000, value=0xC0000000, op=F(0, 18, 8), ops=range(256),
                 fields=dict(sbase=F(0, 0, 6), sdata=F(0, 6, 7), soe=F(0, 14, 1), nv=F(0, 15, 1),
                             glc=F(0, 16, 1), imm=F(0, 17, 1), offset=F(1, 0, 21),
                             soffset=F(1, 25, 7)),
                 templates=[dict(sbase=8, sdata=24, imm=1, offset=0x10),
                            dict(sbase=8, imm=1, offset=0x10), dict(imm=1),
                            # s_memtime/s_memrealtime (sdata only) and the
                            # cache controls (no operand) are valid only with
                            # imm=0 and no offset.
                            dict(sdata=24), dict()]),
    "VOP2": dict(nwords=1, mask=0x80000000, value=0x00000000, op=F(0, 25, 6), ops=range(0x3E),
                 fields=dict(src0=F(0, 0, 9), vsrc1=F(0, 9, 8), vdst=F(0, 17, 8)),
                 templates=[dict(vdst=8, src0=256 + 16, vsrc1=24), dict()]),
    "VOP1": dict(nwords=1, mask=0xFE000000, value=0x7E000000, op=F(0, 9, 8), ops=range(256),
                 fields=dict(src0=F(0, 0, 9), vdst=F(0, 17, 8)),
                 templates=[dict(vdst=8, src0=256 + 16), dict()]),
    "VOPC": dict(nwords=1, mask=0xFE000000, value=0x7C000000, op=F(0, 17, 8), ops=range(256),
                 fields=dict(src0=F(0, 0, 9), vsrc1=F(0, 9, 8)),
                 templates=[dict(src0=256 + 16, vsrc1=24), dict()]),
    "VOP3": dict(nwords=2, mask=0xFC000000, value=0xD0000000, op=F(0, 16, 10), ops=range(0x380),
                 fields=dict(vdst=F(0, 0, 8), abs=F(0, 8, 3), op_sel=F(0, 11, 4), clamp=F(0, 15, 1),
                             src0=F(1, 0, 9), src1=F(1, 9, 9), src2=F(1, 18, 9), omod=F(1, 27, 2),
                             neg=F(1, 29, 3)),
                 templates=[dict(vdst=8, src0=256 + 16, src1=256 + 24, src2=256 + 32),
                            dict(vdst=8, src0=256 + 16, src1=256 + 24),
                            dict(vdst=8, src0=256 + 16), dict(vdst=8), dict()]),
    "VOP3P": dict(nwords=2, mask=0xFF800000, value=0xD3800000, op=F(0, 16, 7), ops=range(128),
                  fields=dict(vdst=F(0, 0, 8), neg_hi=F(0, 8, 3), op_sel=F(0, 11, 3),
                              op_sel_hi2=F(0, 14, 1), clamp=F(0, 15, 1),
                              src0=F(1, 0, 9), src1=F(1, 9, 9), src2=F(1, 18, 9),
                              op_sel_hi=F(1, 27, 2), neg_lo=F(1, 29, 3)),
                  templates=[dict(vdst=8, src0=256 + 16, src1=256 + 24, src2=256 + 32,
                                  op_sel_hi2=1, op_sel_hi=3),
                             dict(vdst=8, src0=256 + 16, src1=256 + 24, src2=256 + 32),
                             dict(vdst=8, src0=256 + 16, op_sel_hi2=1, op_sel_hi=3),
                             dict()]),
    # VOP3P-encoded matrix ops (v_mfma_*, v_smfmac_*): same prefix and opcode
    # field as VOP3P, different field layout. Probed only for ops whose VOP3P
    # probe printed an MFMA/SMFMAC mnemonic.
    "MAI": dict(nwords=2, mask=0xFF800000, value=0xD3800000, op=F(0, 16, 7), ops=range(0),
                fields=dict(vdst=F(0, 0, 8), cbsz=F(0, 8, 3), abid=F(0, 11, 4), acc_cd=F(0, 15, 1),
                            src0=F(1, 0, 9), src1=F(1, 9, 9), src2=F(1, 18, 9), acc=F(1, 27, 2),
                            blgp=F(1, 29, 3)),
                templates=[dict(vdst=8, src0=256 + 16, src1=256 + 24, src2=256 + 32),
                           dict(vdst=8, src0=256 + 16, src1=256 + 24, src2=32)]),
    "DS": dict(nwords=2, mask=0xFC000000, value=0xD8000000, op=F(0, 17, 8), ops=range(256),
               fields=dict(offset0=F(0, 0, 8), offset1=F(0, 8, 8), gds=F(0, 16, 1), acc=F(0, 25, 1),
                           addr=F(1, 0, 8), data0=F(1, 8, 8), data1=F(1, 16, 8), vdst=F(1, 24, 8)),
               templates=[dict(addr=32, data0=24, data1=16, vdst=8), dict(addr=32), dict(),
                          # GWS ops exist only with gds set.
                          dict(addr=32, data0=24, data1=16, vdst=8, gds=1), dict(data0=24, gds=1),
                          dict(addr=32, gds=1), dict(gds=1)]),
    "FLAT": dict(nwords=2, mask=0xFC00C000, value=0xDC000000, op=F(0, 18, 7), ops=range(128),
                 fields=dict(offset=F(0, 0, 13), lds=F(0, 13, 1), glc=F(0, 16, 1),
                             slc=F(0, 17, 1), scc=F(0, 25, 1), addr=F(1, 0, 8), data=F(1, 8, 8),
                             saddr=F(1, 16, 7), acc=F(1, 23, 1), vdst=F(1, 24, 8)),
                 templates=[dict(addr=24, data=16, saddr=0x7F, vdst=8), dict(saddr=0x7F), dict()]),
    "GLOBAL": dict(nwords=2, mask=0xFC00C000, value=0xDC008000, op=F(0, 18, 7), ops=range(128),
                   fields=dict(offset=F(0, 0, 13), lds=F(0, 13, 1), glc=F(0, 16, 1),
                               slc=F(0, 17, 1), scc=F(0, 25, 1), addr=F(1, 0, 8), data=F(1, 8, 8),
                               saddr=F(1, 16, 7), acc=F(1, 23, 1), vdst=F(1, 24, 8)),
                   templates=[dict(addr=24, data=16, saddr=0x7F, vdst=8), dict(saddr=0x7F), dict()]),
    "SCRATCH": dict(nwords=2, mask=0xFC00C000, value=0xDC004000, op=F(0, 18, 7), ops=range(128),
                    fields=dict(offset=F(0, 0, 13), lds=F(0, 13, 1), glc=F(0, 16, 1),
                                slc=F(0, 17, 1), scc=F(0, 25, 1), addr=F(1, 0, 8),
                                data=F(1, 8, 8), saddr=F(1, 16, 7), acc=F(1, 23, 1),
                                vdst=F(1, 24, 8)),
                    # gfx940: bit 13 is SVE (vaddr in use); gfx90a: it is the
                    # LDS-DMA bit, so that template is gfx940-only.
                    templates=[dict(addr=24, data=16, saddr=0x7F, vdst=8, lds=1, _targets=GFX940),
                               dict(addr=24, data=16, saddr=0x7F, vdst=8),
                               dict(saddr=0x7F), dict()]),
    "MUBUF": dict(nwords=2, mask=0xFC000000, value=0xE0000000, op=F(0, 18, 7), ops=range(128),
                  fields=dict(offset=F(0, 0, 12), offen=F(0, 12, 1), idxen=F(0, 13, 1),
                              glc=F(0, 14, 1), scc=F(0, 15, 1), lds=F(0, 16, 1), slc=F(0, 17, 1),
                              vaddr=F(1, 0, 8), vdata=F(1, 8, 8), srsrc=F(1, 16, 5),
                              acc=F(1, 23, 1), soffset=F(1, 24, 8)),
                  templates=[dict(vaddr=24, vdata=16, srsrc=2, soffset=4), dict(srsrc=2), dict()]),
    "MTBUF": dict(nwords=2, mask=0xFC000000, value=0xE8000000, op=F(0, 15, 4), ops=range(16),
                  fields=dict(offset=F(0, 0, 12), offen=F(0, 12, 1), idxen=F(0, 13, 1),
                              glc=F(0, 14, 1), dfmt=F(0, 19, 4), nfmt=F(0, 23, 3),
                              vaddr=F(1, 0, 8), vdata=F(1, 8, 8), srsrc=F(1, 16, 5),
                              slc=F(1, 22, 1), acc=F(1, 23, 1), soffset=F(1, 24, 8)),
                  templates=[dict(vaddr=24, vdata=16, srsrc=2, soffset=4, dfmt=4, nfmt=7),
                             dict(vaddr=24, vdata=16, srsrc=2, soffset=4), dict()]),
    # gfx90a: bit 16 (tfe on older targets) selects AGPR data; bit 7 is scc.
    "MIMG": dict(nwords=2, mask=0xFC000000, value=0xF0000000, op=F(0, 18, 7), ops=range(128),
                 fields=dict(scc=F(0, 7, 1), dmask=F(0, 8, 4), unorm=F(0, 12, 1), glc=F(0, 13, 1),
                             da=F(0, 14, 1), r128=F(0, 15, 1), acc=F(0, 16, 1), lwe=F(0, 17, 1),
                             slc=F(0, 25, 1),
                             vaddr=F(1, 0, 8), vdata=F(1, 8, 8), srsrc=F(1, 16, 5),
                             ssamp=F(1, 21, 5), d16=F(1, 31, 1)),
                 templates=[dict(dmask=0xF, vaddr=24, vdata=16, srsrc=2, ssamp=4),
                            dict(dmask=1, vaddr=24, vdata=16, srsrc=2, ssamp=4), dict()]),
}

# GFX10 (RDNA1/2) layouts. The scalar ALU and the 32-bit VOP encodings keep
# their GFX9 layout (same names, same decode tables); the others moved or
# changed and are separate encodings (suffix `_10`).
ENCODINGS10 = {
    "SMEM_10": dict(nwords=2, mask=0xFC000000, value=0xF4000000, op=F(0, 18, 8), ops=range(256),
                    fields=dict(sbase=F(0, 0, 6), sdata=F(0, 6, 7), dlc=F(0, 14, 1),
                                glc=F(0, 16, 1), offset=F(1, 0, 21), soffset=F(1, 25, 7)),
                    templates=[dict(sbase=8, sdata=24, offset=0x10, soffset=0x7D),
                               dict(sbase=8, offset=0x10, soffset=0x7D),
                               dict(sdata=24, soffset=0x7D), dict(soffset=0x7D), dict()]),
    "VOP3_10": dict(nwords=2, mask=0xFC000000, value=0xD4000000, op=F(0, 16, 10), ops=range(0x380),
                    fields=dict(vdst=F(0, 0, 8), abs=F(0, 8, 3), op_sel=F(0, 11, 4),
                                clamp=F(0, 15, 1), src0=F(1, 0, 9), src1=F(1, 9, 9),
                                src2=F(1, 18, 9), omod=F(1, 27, 2), neg=F(1, 29, 3)),
                    templates=[dict(vdst=8, src0=256 + 16, src1=256 + 24, src2=256 + 32),
                               dict(vdst=8, src0=256 + 16, src1=256 + 24),
                               dict(vdst=8, src0=256 + 16), dict(vdst=8), dict()]),
    "VOP3P_10": dict(nwords=2, mask=0xFF800000, value=0xCC000000, op=F(0, 16, 7), ops=range(128),
                     fields=dict(vdst=F(0, 0, 8), neg_hi=F(0, 8, 3), op_sel=F(0, 11, 3),
                                 op_sel_hi2=F(0, 14, 1), clamp=F(0, 15, 1),
                                 src0=F(1, 0, 9), src1=F(1, 9, 9), src2=F(1, 18, 9),
                                 op_sel_hi=F(1, 27, 2), neg_lo=F(1, 29, 3)),
                     templates=[dict(vdst=8, src0=256 + 16, src1=256 + 24, src2=256 + 32,
                                     op_sel_hi2=1, op_sel_hi=3),
                                dict(vdst=8, src0=256 + 16, src1=256 + 24, src2=256 + 32),
                                dict(vdst=8, src0=256 + 16, op_sel_hi2=1, op_sel_hi=3),
                                dict()]),
    "DS_10": dict(nwords=2, mask=0xFC000000, value=0xD8000000, op=F(0, 18, 8), ops=range(256),
                  fields=dict(offset0=F(0, 0, 8), offset1=F(0, 8, 8), gds=F(0, 17, 1),
                              addr=F(1, 0, 8), data0=F(1, 8, 8), data1=F(1, 16, 8),
                              vdst=F(1, 24, 8)),
                  templates=[dict(addr=32, data0=24, data1=16, vdst=8), dict(addr=32), dict(),
                             dict(addr=32, data0=24, data1=16, vdst=8, gds=1),
                             dict(data0=24, gds=1), dict(addr=32, gds=1), dict(gds=1)]),
    "MUBUF_10": dict(nwords=2, mask=0xFC000000, value=0xE0000000, op=F(0, 18, 7), ops=range(128),
                     fields=dict(offset=F(0, 0, 12), offen=F(0, 12, 1), idxen=F(0, 13, 1),
                                 glc=F(0, 14, 1), dlc=F(0, 15, 1), lds=F(0, 16, 1),
                                 vaddr=F(1, 0, 8), vdata=F(1, 8, 8), srsrc=F(1, 16, 5),
                                 slc=F(1, 22, 1), tfe=F(1, 23, 1), soffset=F(1, 24, 8)),
                     templates=[dict(vaddr=24, vdata=16, srsrc=2, soffset=4), dict(srsrc=2),
                                dict()]),
}
for _seg, _name in ((0, "FLAT_10"), (0x8000, "GLOBAL_10"), (0x4000, "SCRATCH_10")):
    ENCODINGS10[_name] = dict(
        nwords=2, mask=0xFC00C000, value=0xDC000000 | _seg, op=F(0, 18, 7), ops=range(128),
        fields=dict(offset=F(0, 0, 12), dlc=F(0, 12, 1), lds=F(0, 13, 1), glc=F(0, 16, 1),
                    slc=F(0, 17, 1), addr=F(1, 0, 8), data=F(1, 8, 8), saddr=F(1, 16, 7),
                    vdst=F(1, 24, 8)),
        templates=[dict(addr=24, data=16, saddr=0x7D, vdst=8), dict(saddr=0x7D), dict()])
ENCODINGS.update(ENCODINGS10)

# GFX11 (RDNA3) layouts. VOP3, VOP3P and DS keep GFX10's (the `_10`
# encodings, with GFX11's opcode numbers in GFX11's columns); SMEM, the FLAT
# family (segment in bits 17:16) and MUBUF moved their bits (suffix `_11`).
# `null` is SGPR 124 on GFX11 (m0 is 125).
NULL11 = 0x7C
ENCODINGS11 = {
    "SMEM_11": dict(nwords=2, mask=0xFC000000, value=0xF4000000, op=F(0, 18, 8), ops=range(256),
                    fields=dict(sbase=F(0, 0, 6), sdata=F(0, 6, 7), dlc=F(0, 13, 1),
                                glc=F(0, 14, 1), offset=F(1, 0, 21), soffset=F(1, 25, 7)),
                    templates=[dict(sbase=8, sdata=24, offset=0x10, soffset=NULL11),
                               dict(sbase=8, offset=0x10, soffset=NULL11),
                               dict(sdata=24, soffset=NULL11), dict(soffset=NULL11), dict()]),
    "MUBUF_11": dict(nwords=2, mask=0xFC000000, value=0xE0000000, op=F(0, 18, 8), ops=range(256),
                     fields=dict(offset=F(0, 0, 12), slc=F(0, 12, 1), dlc=F(0, 13, 1),
                                 glc=F(0, 14, 1), lds=F(0, 16, 1),
                                 vaddr=F(1, 0, 8), vdata=F(1, 8, 8), srsrc=F(1, 16, 5),
                                 tfe=F(1, 21, 1), offen=F(1, 22, 1), idxen=F(1, 23, 1),
                                 soffset=F(1, 24, 8)),
                     templates=[dict(vaddr=24, vdata=16, srsrc=2, soffset=4, offen=1),
                                dict(vdata=16, srsrc=2, soffset=4), dict(srsrc=2), dict()]),
}
for _seg, _name in ((0, "FLAT_11"), (2, "GLOBAL_11"), (1, "SCRATCH_11")):
    ENCODINGS11[_name] = dict(
        nwords=2, mask=0xFC030000, value=0xDC000000 | _seg << 16, op=F(0, 18, 7), ops=range(128),
        fields=dict(offset=F(0, 0, 13), dlc=F(0, 13, 1), glc=F(0, 14, 1), slc=F(0, 15, 1),
                    addr=F(1, 0, 8), data=F(1, 8, 8), saddr=F(1, 16, 7), sve=F(1, 23, 1),
                    vdst=F(1, 24, 8)),
        templates=([dict(addr=24, data=16, saddr=NULL11, vdst=8, sve=1)] if _seg == 1 else [])
        + [dict(addr=24, data=16, saddr=NULL11, vdst=8), dict(saddr=NULL11), dict()])
# VOPD (dual issue): two VALU ops in one 64-bit word, printed `X :: Y`. Each
# half is probed as its own encoding with the other half fixed to
# v_dual_mov_b32 (X and Y opcode 8); `half` says which side of ` :: ` its
# text is, `fixed` the other half's bits (not scanned).
VOPD_MOV = 8
ENCODINGS11["VOPDX_11"] = dict(
    nwords=2, mask=0xFC000000, value=0xC8000000 | VOPD_MOV << 17, op=F(0, 22, 4), ops=range(16),
    half=0, fixed=[0x3E << 16, 0x00FFFFFF],
    fields=dict(src0=F(0, 0, 9), vsrc1=F(0, 9, 8), vdst=F(1, 24, 8)),
    templates=[dict(vdst=8, src0=256 + 16, vsrc1=24, _w1=(256 + 33) | 5 << 17),
               dict(vdst=8, src0=256 + 16, _w1=(256 + 33) | 5 << 17)])
ENCODINGS11["VOPDY_11"] = dict(
    nwords=2, mask=0xFC000000, value=0xC8000000 | VOPD_MOV << 22, op=F(0, 17, 5), ops=range(32),
    half=1, fixed=[0x0001FFFF, 0xFF000000],
    fields=dict(src0=F(1, 0, 9), vsrc1=F(1, 9, 8), vdsty=F(1, 17, 7)),
    templates=[dict(vdsty=5, src0=256 + 16, vsrc1=24, _w0=256 + 33, _w1=8 << 24),
               dict(vdsty=5, src0=256 + 16, _w0=256 + 33, _w1=8 << 24)])
ENCODINGS.update(ENCODINGS11)

# GFX12 (RDNA4) layouts (D39). VOP3, VOP3P, DS and VOPD keep GFX11's; SMEM
# moved its opcode and cache-policy bits (`th` and `scope` replace
# glc/slc/dlc) and has a 24-bit offset; the FLAT family (VFLAT, VGLOBAL,
# VSCRATCH) and MUBUF/MTBUF (VBUFFER) are 96-bit words with the address
# register and a 24-bit offset in word 2. `null` is 0x7C as on GFX11.
ENCODINGS12 = {
    "SMEM_12": dict(nwords=2, mask=0xFC000000, value=0xF4000000, op=F(0, 13, 6), ops=range(64),
                    fields=dict(sbase=F(0, 0, 6), sdata=F(0, 6, 7), nv=F(0, 20, 1),
                                scope=F(0, 21, 2),
                                th=F(0, 23, 3), offset=F(1, 0, 24), soffset=F(1, 25, 7)),
                    templates=[dict(sbase=8, sdata=24, offset=0x10, soffset=NULL11),
                               dict(sbase=8, offset=0x10, soffset=NULL11),
                               dict(sdata=24, soffset=NULL11), dict(soffset=NULL11), dict()]),
    "MUBUF_12": dict(nwords=3, mask=0xFC000000, value=0xC4000000, op=F(0, 14, 8), ops=range(128),
                     fields=dict(soffset=F(0, 0, 7), tfe=F(0, 22, 1), vdata=F(1, 0, 8),
                                 srsrc=F(1, 9, 7), scope=F(1, 18, 2), th=F(1, 20, 3),
                                 format=F(1, 23, 7), offen=F(1, 30, 1), idxen=F(1, 31, 1),
                                 vaddr=F(2, 0, 8), offset=F(2, 8, 24)),
                     templates=[dict(vaddr=24, vdata=16, srsrc=4, soffset=6, offen=1, format=1),
                                dict(vdata=16, srsrc=4, soffset=6, format=1),
                                dict(vaddr=24, vdata=16, srsrc=4, soffset=6, offen=1),
                                dict(srsrc=4, soffset=6), dict()]),
}
for _seg, _name in ((0, "FLAT_12"), (2, "GLOBAL_12"), (1, "SCRATCH_12")):
    ENCODINGS12[_name] = dict(
        nwords=3, mask=0xFF000000, value=0xEC000000 | _seg << 24, op=F(0, 14, 8), ops=range(256),
        fields=dict(saddr=F(0, 0, 7), vdst=F(1, 0, 8), sve=F(1, 17, 1), scope=F(1, 18, 2),
                    th=F(1, 20, 3), data=F(1, 23, 8), addr=F(2, 0, 8), offset=F(2, 8, 24)),
        templates=([dict(addr=24, data=16, saddr=NULL11, vdst=8, sve=1)] if _seg == 1 else [])
        + [dict(addr=24, data=16, saddr=NULL11, vdst=8), dict(saddr=NULL11), dict()])
# GFX12.5 VOPD3 (D57): 96-bit dual issue, word 0 bits 31:24 = 0xCF. Each
# half has three sources (src0 9 bits; vsrc1 and src2 8 bits, src2 also an
# SGPR or `v_dual_bitop2_b32`'s `bitop3:` byte) and per-source `neg` bits;
# the destinations are whole 8-bit VGPRs (no parity trick). Probed like
# VOPD: the other half fixed to v_dual_mov_b32 and left out of the scan.
# Bits 11:9 of word 0 and 15 of word 1 belong to neither half (both scan
# them). Only GFX12.5 has it (`encodings`).
VOPD3_FIELDS = (dict(src0=F(0, 0, 9), neg=F(1, 9, 3), vsrc1=F(1, 16, 8), src2=F(1, 24, 8),
                     vdst=F(2, 0, 8)),
                dict(src0=F(1, 0, 9), neg=F(1, 12, 3), vsrc1=F(2, 8, 8), src2=F(2, 16, 8),
                     vdst=F(2, 24, 8)))
ENCODINGS12["VOPD3X_12"] = dict(
    nwords=3, mask=0xFF000000, value=0xCF000000 | VOPD_MOV << 12, op=F(0, 18, 6), ops=range(64),
    half=0, fixed=[0x3F << 12, 0x1FF | 7 << 12, 0xFFFFFF00], fields=VOPD3_FIELDS[0],
    templates=[dict(vdst=8, src0=256 + 16, vsrc1=24, src2=32, _w1=256 + 33, _w2=5 << 24),
               dict(vdst=8, src0=256 + 16, vsrc1=24, _w1=256 + 33, _w2=5 << 24),
               dict(vdst=8, src0=256 + 16, _w1=256 + 33, _w2=5 << 24)])
ENCODINGS12["VOPD3Y_12"] = dict(
    nwords=3, mask=0xFF000000, value=0xCF000000 | VOPD_MOV << 18, op=F(0, 12, 6), ops=range(64),
    half=1, fixed=[0x3F << 18 | 0x1FF, 7 << 9 | 0xFFFF0000, 0xFF], fields=VOPD3_FIELDS[1],
    templates=[dict(vdst=8, src0=256 + 16, vsrc1=24, src2=32, _w0=256 + 33, _w2=5),
               dict(vdst=8, src0=256 + 16, vsrc1=24, _w0=256 + 33, _w2=5),
               dict(vdst=8, src0=256 + 16, _w0=256 + 33, _w2=5)])
ENCODINGS.update(ENCODINGS12)
# GFX12 VIMAGE/VSAMPLE (D72): layouts and their probe stage in vimage.py.
import vimage  # noqa: E402
ENCODINGS.update(vimage.ENCODINGS)
# GFX11's plain VOP3 fake16 fallback (D79): its probe stage in t16.py.
import t16  # noqa: E402
# GFX10/GFX11 MIMG (D81): layouts and their probe stage in mimg10.py.
import mimg10  # noqa: E402
ENCODINGS.update(mimg10.ENCODINGS)
# Encodings shared by GFX9, GFX10, GFX11 and GFX12 (same layout and
# decode-table space; the opcode numbers are per column).
SHARED = ("SOP2", "SOPK", "SOP1", "SOPC", "SOPP", "VOP2", "VOP1", "VOPC")
# GFX10 layouts GFX11 and GFX12 keep.
SHARED_10_11 = ("VOP3_10", "VOP3P_10", "DS_10")
# GFX11 layouts GFX12 keeps.
SHARED_11_12 = ("VOPDX_11", "VOPDY_11")


def generation(cpu):
    """9 for gfx9*, 10 for gfx10* (GFX10.1 and GFX10.3), 11 for gfx11*, 12
    for gfx12*."""
    name = cpu.split(":")[0]
    if name.startswith("gfx12"):
        return 12
    if name.startswith("gfx11"):
        return 11
    return 10 if name.startswith("gfx10") else 9


def encodings(cpu):
    """The encodings probed for `cpu`, in table order (VOPD3 on GFX12.5
    only)."""
    return [e for e in _encodings(cpu) if not e.startswith("VOPD3") or cpu.startswith("gfx125")
            if e not in vimage.ENCODINGS or vimage.has_images(cpu)]


def _encodings(cpu):
    g = generation(cpu)
    if g == 9:
        return [e for e in ENCODINGS if not e.endswith(("_10", "_11"))]
    if g == 10:
        return [e for e in ENCODINGS if e in SHARED or e.endswith("_10")]
    if g == 11:
        return [e for e in ENCODINGS if e in SHARED or e in SHARED_10_11 or e.endswith("_11")]
    return [e for e in ENCODINGS
            if e in SHARED or e in SHARED_10_11 or e in SHARED_11_12 or e.endswith("_12")]


def fam(enc):
    """The GFX9 family name of an encoding (`VOP3_10` -> `VOP3`)."""
    return enc[:-3] if enc.endswith(("_10", "_11", "_12")) else enc


# SDWA / DPP second dwords; the first dword is the VOP1/VOP2/VOPC word with
# src0 = 0xF9 (SDWA) or 0xFA (DPP).
SDWA_FIELDS = dict(src0=F(1, 0, 8), dst_sel=F(1, 8, 3), dst_unused=F(1, 11, 2), clamp=F(1, 13, 1),
                   omod=F(1, 14, 2), src0_sel=F(1, 16, 3), src0_sext=F(1, 19, 1),
                   src0_neg=F(1, 20, 1), src0_abs=F(1, 21, 1), s0=F(1, 23, 1),
                   src1_sel=F(1, 24, 3), src1_sext=F(1, 27, 1), src1_neg=F(1, 28, 1),
                   src1_abs=F(1, 29, 1), s1=F(1, 31, 1))
SDWA_TEMPLATES = [16 | 6 << 8 | 6 << 16 | 6 << 24, 16 | 6 << 8 | 6 << 16]
DPP_FIELDS = dict(src0=F(1, 0, 8), dpp_ctrl=F(1, 8, 9), bound_ctrl=F(1, 19, 1),
                  src0_neg=F(1, 20, 1), src0_abs=F(1, 21, 1), src1_neg=F(1, 22, 1),
                  src1_abs=F(1, 23, 1), bank_mask=F(1, 24, 4), row_mask=F(1, 28, 4))
DPP_TEMPLATE = 16 | 0xE4 << 8 | 0xF << 24 | 0xF << 28
# VOP3 DPP (GFX11+): a VOP3 word whose src0 field is 0xFA (DPP16) or 0xE9
# (DPP8; 0xEA is DPP8 with `fi:1`), then a third dword. DPP16's third dword
# is the VOP1/VOP2 DPP dword without the neg/abs bits (VOP3 has its own);
# DPP8's holds src0 and eight 3-bit lane selects.
DPP3_FIELDS = dict(src0=F(2, 0, 8), dpp_ctrl=F(2, 8, 9), fi=F(2, 18, 1), bound_ctrl=F(2, 19, 1),
                   bank_mask=F(2, 24, 4), row_mask=F(2, 28, 4))
DPP8_3_FIELDS = dict(src0=F(2, 0, 8), dpp8=F(2, 8, 24))
DPP8_ID = sum(i << (3 * i) for i in range(8))
DPP8_TEMPLATE = 16 | DPP8_ID << 8
SRC0_DPP16, SRC0_DPP8, SRC0_DPP8_FI = 0xFA, 0xE9, 0xEA
# GFX11's fake16 readings of the opcodes whose VOP3 DPP word LLVM reads
# with the true16 tables first (D71): the fallback rows.
VOP3_DPP_F16 = ("DPP_VOP3F16_10", "DPP8_VOP3F16_10")
VOP3_DPP = ("DPP_VOP3_10", "DPP8_VOP3_10") + VOP3_DPP_F16
# DPP8 of the 32-bit encodings (GFX10+, D66): a VOP1/VOP2/VOPC word whose
# src0 field is 0xE9 (0xEA: `fi:1`), then a dword with src0 in bits 7:0 and
# eight 3-bit lane selects in 31:8 (the VOP3 DPP8 dword, one word earlier).
DPP8_32 = ("DPP8_VOP1", "DPP8_VOP2", "DPP8_VOPC")
DPP8_32_FIELDS = dict(src0=F(1, 0, 8), dpp8=F(1, 8, 24))


def has_dpp8_32(cpu):
    """32-bit DPP8 is probed from GFX10 on (GFX9 has no DPP8); which
    opcodes have it is the probes'."""
    return generation(cpu) >= 10


def has_vop3_dpp(cpu):
    """VOP3 DPP is probed in stage B on GFX12 and GFX12.5 (D61); GFX11's
    has two readings per 16-bit opcode and its own stage
    (`add_gfx11_vop3_dpp`, D71)."""
    return generation(cpu) >= 12


def vop3_dpp_fields(enc):
    """Fields of a VOP3 DPP16/DPP8 record: VOP3's, src0 from the third
    dword."""
    f = dict(ENCODINGS["VOP3_10"]["fields"])
    f.update(DPP3_FIELDS if enc.startswith("DPP_") else DPP8_3_FIELDS)
    return f


def put(words, f, v):
    w, lo, width = f
    assert 0 <= v < (1 << width), (f, v)
    words[w] |= v << lo


def build(enc, op, tmpl):
    e = ENCODINGS[enc]
    words = [0] * e["nwords"]
    words[0] |= e["value"]
    put(words, e["op"], op)
    for k, v in tmpl.items():
        if k in ("_w0", "_w1", "_w2"):
            words[int(k[2])] |= v
        elif not k.startswith("_"):
            put(words, e["fields"][k], v)
    return words


def fixed_bits(enc):
    """Per word, the mask of bits fixed by the encoding prefix and opcode."""
    e = ENCODINGS[enc]
    m = list(e.get("fixed", [0] * e["nwords"]))
    m[0] |= e["mask"]
    w, lo, width = e["op"]
    m[w] |= ((1 << width) - 1) << lo
    return m


def scan(cpu, base, fixed, nwords_used):
    """Flip every non-fixed bit of `base` (only words < nwords_used)."""
    probes = []
    bits = []
    for w in range(nwords_used):
        for b in range(32):
            if fixed[w] >> b & 1:
                continue
            p = list(base)
            p[w] ^= 1 << b
            probes.append(p)
            bits.append(w * 32 + b)
    return bits, probes


def sdwa_crashes(p):
    """LLVM 22's printer hits llvm_unreachable (a crash in release builds) on
    SDWA selects of 7; such probes are not sent to llvm-objdump."""
    if len(p) < 2 or (p[0] & 0x1FF) != 0xF9:
        return False
    if (p[0] >> 25) == 0x3F or (p[0] >> 25) == 0x3E:
        pass  # VOP1 / VOPC: all three selects still decoded
    elif (p[0] >> 31) != 0:
        return False
    w = p[1]
    return ((w >> 8) & 7) == 7 or ((w >> 16) & 7) == 7 or ((w >> 24) & 7) == 7


def disasm_filtered(cpu, probes):
    keep = [i for i, p in enumerate(probes) if not sdwa_crashes(p)]
    res = disasm(cpu, [probes[i] for i in keep])
    out = [("<crash>", 0)] * len(probes)
    for i, r in zip(keep, res):
        out[i] = r
    return out


def enumerate_target(cpu):
    recs = enumerate_ops(cpu)
    bit_scans(cpu, recs)
    return recs


def enumerate_ops(cpu):
    """Stages A and B: every opcode's base word and text (no bit scans)."""
    recs = []
    # Stage A: base probes.
    probes, keys = [], []
    for enc in encodings(cpu):
        e = ENCODINGS[enc]
        for op in e["ops"]:
            for ti, t in enumerate(e["templates"]):
                if cpu not in t.get("_targets", [cpu]):
                    continue
                probes.append(build(enc, op, t))
                keys.append((enc, op, ti))
    res = disasm(cpu, probes)
    found = {}
    for (enc, op, ti), p, r in zip(keys, probes, res):
        if r[0] is None or r[0] == "<crash>" or (enc, op) in found:
            continue
        found[(enc, op)] = (ti, p, r)
    # MFMA/SMFMAC: re-probe with the MAI layout.
    mai = [op for (enc, op), (ti, p, (text, nw)) in found.items()
           if enc == "VOP3P" and text.startswith(("v_mfma", "v_smfmac"))]
    probes, keys = [], []
    for op in mai:
        for ti, t in enumerate(ENCODINGS["MAI"]["templates"]):
            probes.append(build("MAI", op, t))
            keys.append(("MAI", op, ti))
    for (enc, op, ti), p, r in zip(keys, probes, disasm(cpu, probes)):
        if r[0] is None or r[0] == "<crash>" or (enc, op) in found:
            continue
        found[(enc, op)] = (ti, p, r)
        del found[("VOP3P", op)]
    for (enc, op), (ti, p, (text, nw)) in sorted(found.items(), key=lambda x: (list(ENCODINGS).index(x[0][0]), x[0][1])):
        recs.append(dict(enc=enc, op=op, template=ti, base=p, text=text, nwords=nw))
    # Stage B: SDWA and DPP forms of VOP1/VOP2/VOPC.
    probes, keys = [], []
    for r in list(recs):
        if r["enc"] not in ("VOP1", "VOP2", "VOPC"):
            continue
        w0 = r["base"][0] & ~0x1FF
        for t in SDWA_TEMPLATES:
            probes.append([w0 | 0xF9, t])
            keys.append((r, "SDWA"))
        probes.append([w0 | 0xFA, DPP_TEMPLATE])
        keys.append((r, "DPP"))
    for r in list(recs):
        # VOP3 DPP16 and DPP8 (GFX11+).
        if r["enc"] != "VOP3_10" or not has_vop3_dpp(cpu):
            continue
        w0, w1 = r["base"][0], r["base"][1] & ~0x1FF
        probes.append([w0, w1 | SRC0_DPP16, DPP_TEMPLATE])
        keys.append((r, "DPP"))
        probes.append([w0, w1 | SRC0_DPP8, DPP8_TEMPLATE])
        keys.append((r, "DPP8"))
    probes_dpp8_32(cpu, recs, probes, keys)
    res = disasm(cpu, probes)
    seen = set()
    for (r, kind), p, (text, nw) in zip(keys, probes, res):
        # LLVM reading an SDWA/DPP word as the 32-bit form (v_nop) is not an
        # SDWA/DPP opcode.
        if nw != len(p):
            continue
        if text is None or text == "<crash>" or (kind, r["enc"], r["op"]) in seen:
            continue
        seen.add((kind, r["enc"], r["op"]))
        recs.append(dict(enc=kind + "_" + r["enc"], op=r["op"], template=0, base=p, text=text,
                         nwords=nw))
    return recs


def probes_dpp8_32(cpu, recs, probes, keys):
    """Stage B's 32-bit DPP8 probes (D66): one per VOP1/VOP2/VOPC record."""
    if not has_dpp8_32(cpu):
        return
    for r in list(recs):
        if r["enc"] in ("VOP1", "VOP2", "VOPC"):
            probes.append([(r["base"][0] & ~0x1FF) | SRC0_DPP8, DPP8_TEMPLATE])
            keys.append((r, "DPP8"))


def add_dpp8_32(cpu, recs):
    """Adds the 32-bit DPP8 records (stages B-D) to a cached probe of `cpu`
    made before they were probed; the records land where a probe from
    scratch puts them (after the VOP3 DPP ones)."""
    probes, keys = [], []
    probes_dpp8_32(cpu, recs, probes, keys)
    new, seen = [], set()
    for (r, kind), p, (text, nw) in zip(keys, probes, disasm(cpu, probes)):
        if nw != len(p) or text is None or text == "<crash>" or (kind, r["enc"], r["op"]) in seen:
            continue
        seen.add((kind, r["enc"], r["op"]))
        new.append(dict(enc=kind + "_" + r["enc"], op=r["op"], template=0, base=p, text=text,
                        nwords=nw))
    bit_scans(cpu, new)
    type_probes(cpu, new)
    class_probes(cpu, new)
    recs.extend(new)
    return len(new)


def add_gfx11_vop3_dpp(cpu, recs):
    """GFX11's VOP3 DPP16/DPP8 records (D71), stages B-D; appended to
    `recs`. Returns how many were added (0 off GFX11).

    LLVM 22 decodes a GFX11 VOP3 DPP word with the true16 table first and
    the fake16 one when the true16 decoder rejects it. Each opcode gets
    its default reading (`DPP_VOP3_10`/`DPP8_VOP3_10`) and, where the
    fake16 reading (`cpu:fake16`, the true16 tables off) prints the base
    word differently, a fallback record (`DPP_VOP3F16_10`/
    `DPP8_VOP3F16_10`) probed under that reading. Which words the true16
    decoder rejects is learned bit by bit: every bit-scan word of a
    two-reading record is also read as fake16, and a flip whose default
    text is the fake16 text (LLVM fell back) is recorded as invalid for
    the true16 record, so its must-be-zero/must-be-one masks say when the
    fallback record applies (op_sel bits of unused operands; a src2 that
    is not a VGPR for `v_alignbit_b32`/`v_alignbyte_b32`)."""
    if generation(cpu) != 11:
        return 0
    f16 = cpu + ":fake16"
    probes, keys = [], []
    for r in recs:
        if r["enc"] != "VOP3_10":
            continue
        w0, w1 = r["base"][0], r["base"][1] & ~0x1FF
        probes.append([w0, w1 | SRC0_DPP16, DPP_TEMPLATE])
        keys.append((r, "DPP"))
        probes.append([w0, w1 | SRC0_DPP8, DPP8_TEMPLATE])
        keys.append((r, "DPP8"))
    true16, fake16, seen = [], [], set()
    readings = zip(keys, probes, disasm(cpu, probes), disasm(f16, probes))
    for (r, kind), p, (t, nw), (tf, nwf) in readings:
        if nw != len(p) or t is None or t == "<crash>" or (kind, r["op"]) in seen:
            continue
        seen.add((kind, r["op"]))
        rec = dict(enc=kind + "_VOP3_10", op=r["op"], template=0, base=p, text=t, nwords=nw)
        true16.append(rec)
        if tf is not None and tf != "<crash>" and nwf == len(p) and tf != t:
            rec["_two"] = True
            fake16.append(dict(enc=kind + "_VOP3F16_10", op=r["op"], template=0, base=p,
                               text=tf, nwords=nwf))
    bit_scans(cpu, true16)
    two = [r for r in true16 if r.pop("_two", False)]
    shadow = [dict(r) for r in two]
    bit_scans(f16, shadow)
    for r, s in zip(two, shadow):
        for b, t in r["scan"].items():
            if t is not None and t == s["scan"][b]:
                r["scan"][b] = None  # the true16 decoder rejected it
    type_probes(cpu, true16)
    class_probes(cpu, true16)
    bit_scans(f16, fake16)
    type_probes(f16, fake16)
    class_probes(f16, fake16)
    recs.extend(true16 + fake16)
    return len(true16) + len(fake16)


def bit_scans(cpu, recs):
    """Stage C: flip every non-opcode bit of each base word."""
    probes, spans = [], []
    for r in recs:
        enc = r["enc"]
        if enc in VOP3_DPP:
            fixed = fixed_bits("VOP3_10") + [0]
            fixed[1] |= 0x1FF  # src0 = 0xFA/0xE9 selects the form
            nwu = 3
        elif enc.startswith(("SDWA_", "DPP_", "DPP8_")):
            fixed = fixed_bits(enc.split("_", 1)[1]) + [0]
            fixed[0] |= 0x1FF  # src0 = 0xF9/0xFA/0xE9 selects the form
            nwu = 2
        else:
            fixed = fixed_bits(enc)
            nwu = ENCODINGS[enc]["nwords"]
        base = list(r["base"])
        bits, ps = scan(cpu, base, fixed, nwu)
        # Keep any literal word the base consumed.
        if r["nwords"] > len(base):
            from llvm import NOP
            base = base + [NOP] * (r["nwords"] - len(base))
            ps = [p + base[len(p):] for p in ps]
        spans.append((r, bits, len(probes), len(ps)))
        probes.extend(ps)
    res = disasm_filtered(cpu, probes)
    for r, bits, start, n in spans:
        sc = {}
        for i, b in enumerate(bits):
            t, nw = res[start + i]
            # A flip that changes how many words LLVM consumes (an SDWA/DPP
            # word re-read as the 32-bit form) is marked.
            if t is not None and t != "<crash>" and nw != r["nwords"]:
                t = t + " <nwords=%d>" % nw
            sc[str(b)] = t
        r["scan"] = sc
    return recs


# Stage D: values probed in every source field, to learn how each operand
# prints constants, literals and special registers.
SRC_VALUES = [0, 102, 103, 104, 106, 107, 108, 123, 124, 125, 126, 127, 128, 129, 192, 193, 208,
              209, 215, 224, 235, 236, 237, 238, 239, 240, 241, 242, 243, 244, 245, 246, 247, 248,
              249, 250, 251, 252, 253, 254, 256, 257]
LITERALS = [0x3F800000, 0x12345678, 0x3C00, 0x1, 0xBFF00000, 0xFFFFFFF0, 0x80000000, 0x3E22F983,
            0x3118, 0x3C003C00, 0xFFFF, 0x10000, 0x40, 0x41, 0xFFFF3C00, 0x13C00, 0x3FC45F30,
            0xC400, 0x4400, 0xFFC0, 0x3F000000]
# Source fields, per encoding; VOP3/VOP3P/MAI/MUBUF/MTBUF literals make LLVM 22 crash, so
# those fields get no literal probes.
SRC_FIELDS = {"DPP_VOP3": ["src1", "src2"], "DPP8_VOP3": ["src1", "src2"],
              "DPP_VOP3F16": ["src1", "src2"], "DPP8_VOP3F16": ["src1", "src2"], "VOPDX": ["src0"], "VOPDY": ["src0"], "VOPD3X": ["src0"], "VOPD3Y": ["src0"],
              "SOP2": ["ssrc0", "ssrc1"], "SOP1": ["ssrc0"], "SOPC": ["ssrc0", "ssrc1"],
              "VOP2": ["src0"], "VOP1": ["src0"], "VOPC": ["src0"],
              "VOP3": ["src0", "src1", "src2"], "VOP3P": ["src0", "src1", "src2"],
              "MAI": ["src0", "src1", "src2"], "MUBUF": ["soffset"], "MTBUF": ["soffset"]}
# VOPD3 with a literal is four words (an `Instruction` holds three, D57).
NO_LITERAL = {"DPP_VOP3_10", "DPP8_VOP3_10", "DPP_VOP3F16_10", "DPP8_VOP3F16_10", "VOP3", "VOP3P", "MAI", "MUBUF", "MTBUF", "MUBUF_10", "MUBUF_11", "MUBUF_12",
              "VOPD3X_12", "VOPD3Y_12"}


SIMM16_VALUES = [0, 1, 3, 0x1234, 0x7FFF, 0x8000, 0xFFFF, 0xC07F, 0x0F70, 0x1F, 0x3F80, 0x22]


def type_probes(cpu, recs):
    probes, keys = [], []
    for ri, r in enumerate(recs):
        enc = r["enc"]
        if enc.startswith("SDWA_"):
            # src0 with s0 = 1, vsrc1 with s1 = 1: scalar sources.
            for v in SRC_VALUES:
                if v > 0xFF:
                    continue
                p = [r["base"][0], (r["base"][1] & ~0xFF) | v | 1 << 23]
                probes.append(p)
                keys.append((ri, "src0", str(v)))
                if enc != "SDWA_VOP1":
                    p = [(r["base"][0] & ~(0xFF << 9)) | v << 9, r["base"][1] | 1 << 31]
                    probes.append(p)
                    keys.append((ri, "vsrc1", str(v)))
            continue
        if enc in ("SOPP", "SOPK"):
            w, lo, width = ENCODINGS[enc]["fields"]["simm16"]
            for v in SIMM16_VALUES:
                p = list(r["base"])
                p[0] = (p[0] & ~0xFFFF) | v
                probes.append(p)
                keys.append((ri, "simm16", str(v)))
            continue
        if fam(enc) not in SRC_FIELDS:
            continue
        e = dict(fields=vop3_dpp_fields(enc), nwords=3) if enc in VOP3_DPP else ENCODINGS[enc]
        for f in SRC_FIELDS[fam(enc)]:
            w, lo, width = e["fields"][f]
            for v in SRC_VALUES + ([255] if enc not in NO_LITERAL else []):
                if v >= 1 << width:
                    continue
                p = list(r["base"][:e["nwords"]])
                p[w] = (p[w] & ~(((1 << width) - 1) << lo)) | v << lo
                if v == 255:
                    for lit in LITERALS:
                        probes.append(p + [lit])
                        keys.append((ri, f, "lit:%x" % lit))
                else:
                    probes.append(p)
                    keys.append((ri, f, str(v)))
                if v == 257 and enc == "MAI":
                    q = list(p)
                    acc = {"src0": 59, "src1": 60, "src2": 15}[f]
                    q[acc // 32] |= 1 << (acc % 32)
                    probes.append(q)
                    keys.append((ri, f, "257acc"))
    res = disasm(cpu, probes)
    for (ri, f, k), (text, nw) in zip(keys, res):
        recs[ri].setdefault("types", {}).setdefault(f, {})[k] = text


# Stage D2: register-class probes for the non-source operand fields: an odd
# register (alignment), m0, lds_direct, null, exec, a constant, ...
REG_FIELDS = {
    "SOP2": ["sdst"], "SOPK": ["sdst"], "SOP1": ["sdst"], "SMEM": ["sdata", "sbase", "soffset"],
    "VOP2": ["vdst", "vsrc1"], "VOP1": ["vdst"], "VOPC": ["vsrc1"], "VOP3": ["vdst"],
    "VOP3P": ["vdst"], "MAI": ["vdst"], "DS": ["addr", "data0", "data1", "vdst"],
    "FLAT": ["addr", "data", "vdst"], "GLOBAL": ["addr", "data", "vdst", "saddr"],
    "SCRATCH": ["addr", "data", "vdst", "saddr"], "MUBUF": ["vaddr", "vdata", "srsrc"],
    "MTBUF": ["vaddr", "vdata", "srsrc"], "MIMG": ["vaddr", "vdata", "srsrc", "ssamp"],
    "SDWA_VOP2": ["vdst", "vsrc1"], "SDWA_VOP1": ["vdst"], "SDWA_VOPC": ["vsrc1"],
    "DPP_VOP2": ["vdst", "vsrc1", "src0"], "DPP_VOP1": ["vdst", "src0"],
    "DPP_VOP3": ["vdst", "src0"], "DPP8_VOP3": ["vdst", "src0"],
    "DPP_VOP3F16": ["vdst", "src0"], "DPP8_VOP3F16": ["vdst", "src0"],
    "DPP8_VOP2": ["vdst", "vsrc1", "src0"], "DPP8_VOP1": ["vdst", "src0"],
    "DPP8_VOPC": ["vsrc1", "src0"],
    "VOPD3X": ["vdst", "vsrc1", "src2"], "VOPD3Y": ["vdst", "vsrc1", "src2"],
    "VIMAGE": ["vdata", "srsrc"], "VSAMPLE": ["vdata", "srsrc", "ssamp"],
    "MIMG_HI": ["vaddr", "vdata", "srsrc"],
}
REG_VALUES = [1, 3, 124, 125, 126, 235, 254, 128, 255]
# Bit selecting AGPRs for the data operands, per encoding.
ACC_BIT = {"DS": 25, "FLAT": 55, "GLOBAL": 55, "SCRATCH": 55, "MUBUF": 55, "MTBUF": 55,
           "MIMG": 16, "MAI": 15}


def class_probes(cpu, recs):
    probes, keys = [], []
    for ri, r in enumerate(recs):
        enc = r["enc"]
        if fam(enc) not in REG_FIELDS:
            continue
        if enc in VOP3_DPP:
            fields = vop3_dpp_fields(enc)
            nwords = 3
        elif enc.startswith("SDWA_"):
            fields = dict(ENCODINGS[enc[5:]]["fields"], **SDWA_FIELDS)
            nwords = 2
        elif enc.startswith("DPP_"):
            fields = dict(ENCODINGS[enc[4:]]["fields"], **DPP_FIELDS)
            nwords = 2
        elif enc in DPP8_32:
            fields = dict(ENCODINGS[enc[5:]]["fields"], **DPP8_32_FIELDS)
            nwords = 2
        else:
            fields = ENCODINGS[enc]["fields"]
            nwords = ENCODINGS[enc]["nwords"]
        acc = ACC_BIT.get(enc)
        for f in REG_FIELDS[fam(enc)]:
            w, lo, width = fields[f]
            base = (r["base"][w] >> lo) & ((1 << width) - 1)
            for v in REG_VALUES + [base + 1]:
                if v >= 1 << width:
                    continue
                p = list(r["base"][:nwords])
                p[w] = (p[w] & ~(((1 << width) - 1) << lo)) | v << lo
                probes.append(p)
                keys.append((ri, f, "odd" if v == base + 1 else str(v)))
                if v == base + 1 and acc is not None:
                    q = list(p)
                    q[acc // 32] |= 1 << (acc % 32)
                    probes.append(q)
                    keys.append((ri, f, "odd_acc"))
                # Returning atomics: the destination appears with GLC set.
                if (f == "vdst" and v == base + 1 and fam(enc) in ("FLAT", "GLOBAL")
                        and not enc.endswith("_12")):
                    for k in ("rtn_base", "rtn_base_acc", "rtn_base_acc_scc", "base_acc_scc"):
                        q = list(r["base"][:nwords])
                        if k.startswith("rtn"):
                            q[0] |= 1 << 16
                        if "acc" in k:
                            q[1] |= 1 << 23
                        if k.endswith("scc"):
                            q[0] |= 1 << 25
                        probes.append(q)
                        keys.append((ri, f, k))
                    q = list(p)
                    q[0] |= 1 << 16
                    probes.append(q)
                    keys.append((ri, f, "rtn_odd"))
                    q = list(q)
                    q[1] |= 1 << 23
                    probes.append(q)
                    keys.append((ri, f, "rtn_odd_acc"))
    # A VOP3 vdst of 255 makes LLVM read a literal (v_readlane) and crashes
    # pre-gfx90a llvm-objdump for most opcodes: those probes go in their own
    # batch so that bisecting the crashes stays cheap.
    risky = [i for i, (ri, f, k) in enumerate(keys) if fam(recs[ri]["enc"]) == "VOP3" and k == "255"
             and f == "vdst"]
    rset = set(risky)
    safe = [i for i in range(len(keys)) if i not in rset]
    res = [None] * len(keys)
    for idx, chunk in ((safe, 150000), (risky, 16)):
        for i, r in zip(idx, disasm(cpu, [probes[i] for i in idx], chunk=chunk)):
            res[i] = r
    for (ri, f, k), (text, nw) in zip(keys, res):
        recs[ri].setdefault("regs", {}).setdefault(f, {})[k] = text


def symbol_tables(cpu, ops=None):
    """hwreg() register names and sendmsg() texts, straight from LLVM."""
    # s_getreg_b32 s0, hwreg(id) with default offset 0 / width 32 (its SOPK
    # opcode is found by the enumeration on generations other than GFX9).
    getreg = 0xB8800000
    for r in ops or []:
        if r["enc"] == "SOPK" and r["text"].startswith("s_getreg_b32 "):
            getreg = r["base"][0] & 0xFF800000
    probes = [[getreg | i | 31 << 11] for i in range(64)]
    hw = {}
    for i, (t, n) in enumerate(disasm(cpu, probes)):
        m = t and __import__("re").search(r"hwreg\((\w+)\)", t)
        if m and not m.group(1).isdigit():
            hw[str(i)] = m.group(1)
    # s_sendmsg with every 10-bit immediate.
    sendmsg = 0xBF900000
    for r in ops or []:
        if r["enc"] == "SOPP" and r["text"].startswith("s_sendmsg "):
            sendmsg = r["base"][0] & 0xFFFF0000
    probes = [[sendmsg | v] for v in range(1024)]
    msg = {}
    for v, (t, n) in enumerate(disasm(cpu, probes)):
        txt = t.split(" ", 1)[1] if t and " " in t else None
        if txt != str(v):
            msg[str(v)] = txt
    # tbuffer_load_format_x with every dfmt/nfmt.
    probes = [[0xE8000000 | (v & 0xF) << 19 | (v >> 4) << 23, 24 | 16 << 8 | 2 << 16 | 4 << 24]
              for v in range(128)]
    fmt = {}
    if generation(cpu) != 9:
        probes = []  # GFX10 MTBUF (unified formats) is not probed yet
    for v, (t, n) in enumerate(disasm(cpu, probes)):
        m = t and __import__("re").search(r" (format:\S+)", t)
        if m:
            fmt[str(v)] = m.group(1)
    return dict(hwreg=hw, sendmsg=msg, format=fmt, delay_alu=delay_alu_names(cpu, ops),
                depctr=depctr_probes(cpu, ops), cpol=cpol_names(cpu, ops))


# The GFX12 cache-policy texts come from one load, one store and one atomic.
CPOL_PROBES = (("load", "global_load_b32 "), ("store", "global_store_b32 "),
               ("atomic", "global_atomic_add_u32 "))


def cpol_names(cpu, ops=None):
    """GFX12 `th:`/`scope:` texts: for a VGLOBAL load, store and atomic,
    the modifiers LLVM prints for each `th << 2 | scope` (0-31); {} on
    processors without them."""
    import re as _re
    out = {}
    for cls, prefix in CPOL_PROBES:
        rec = next((r for r in ops or [] if r["enc"] == "GLOBAL_12"
                    and r["text"].startswith(prefix)), None)
        if rec is None:
            continue
        f = ENCODINGS["GLOBAL_12"]["fields"]
        probes = []
        for v in range(32):
            p = list(rec["base"])
            for name, val in (("th", v >> 2), ("scope", v & 3)):
                w, lo, width = f[name]
                p[w] = (p[w] & ~(((1 << width) - 1) << lo)) | val << lo
            probes.append(p)
        out[cls] = [" ".join(_re.findall(r"(?:th|scope):\S+", t or ""))
                    for t, n in disasm(cpu, probes)]
    return out


def depctr_probes(cpu, ops=None):
    """`s_waitcnt_depctr` texts of the immediates 0 and 1 << i (i < 16),
    from which gen.py derives the named counters; {} without it."""
    op = None
    for r in ops or []:
        if r["enc"] == "SOPP" and r["text"].startswith(("s_waitcnt_depctr", "s_wait_alu")):
            op = r["base"][0] & 0xFFFF0000
    if op is None:
        return {}
    vals = [0] + [1 << i for i in range(16)]
    return {str(v): t for v, (t, n) in zip(vals, disasm(cpu, [[op | v] for v in vals]))}


def delay_alu_names(cpu, ops=None):
    """`s_delay_alu` (GFX11+) field names: instid0 values 0-15, then instskip
    values 0-7, as LLVM prints them (empty where it prints nothing); {} on
    processors without it."""
    op = None
    for r in ops or []:
        if r["enc"] == "SOPP" and r["text"].startswith("s_delay_alu "):
            op = r["base"][0] & 0xFFFF0000
    if op is None:
        return {}
    probes = [[op | v] for v in range(16)] + [[op | v << 4] for v in range(8)]
    out = {}
    import re as _re
    for i, (t, n) in enumerate(disasm(cpu, probes)):
        m = t and _re.search(r"\((.*)\)", t)
        if m:
            out[str(i)] = m.group(1)
    return out


def mimg_widths(cpu, recs):
    """vdata width LLVM decodes for each dmask (x d16) of each MIMG opcode."""
    probes, keys = [], []
    for ri, r in enumerate(recs):
        if r["enc"] != "MIMG":
            continue
        for d16 in (0, 1):
            for dm in range(16):
                w0 = (r["base"][0] & ~(0xF << 8)) | dm << 8
                w1 = (r["base"][1] & ~(0xFF << 8) & ~(1 << 31)) | 16 << 8 | d16 << 31
                probes.append([w0, w1])
                keys.append((ri, d16 * 16 + dm))
    import re as _re
    for (ri, k), (t, n) in zip(keys, disasm(cpu, probes)):
        w = 0
        if t:
            m = _re.match(r"\S+ [av](\d+)|\S+ [av]\[(\d+):(\d+)\]", t)
            if m:
                w = 1 if m.group(1) else int(m.group(3)) - int(m.group(2)) + 1
        recs[ri].setdefault("mimg_widths", [0] * 32)[k] = w


def fingerprint(cpu):
    """What decides a processor's table column, cheaply: every opcode's base
    text (stages A and B) and the symbol tables. Processors with equal
    fingerprints get one full probe between them (`--full` probes each one
    and checks that the full probes agree too)."""
    ops = enumerate_ops(cpu)
    return dict(ops=ops, symbols=symbol_tables(cpu, ops))


def full_probe(cpu, recs=None):
    """Stages A-D for one processor: its records and symbol tables."""
    if recs is None:
        recs = enumerate_ops(cpu)
    bit_scans(cpu, recs)
    type_probes(cpu, recs)
    class_probes(cpu, recs)
    mimg_widths(cpu, recs)
    add_gfx11_vop3_dpp(cpu, recs)
    vimage.probe_vimage(cpu, recs)
    t16.add_gfx11_vop3_t16(cpu, recs)
    # GFX10/11 MIMG (D81) runs after every column's stages A-D, in
    # `probe_all`: columns whose MIMG words decode alike share it (D82).
    return recs


def group_targets(fps, targets=None):
    """Groups of processors with identical fingerprints, in TARGETS order;
    the first of each group is its representative."""
    groups = []
    for cpu in targets or TARGETS:
        for g in groups:
            if fps[g[0]] == fps[cpu]:
                g.append(cpu)
                break
        else:
            groups.append([cpu])
    return groups


def probe_all(full=False, jobs=None, targets=None):
    """Probe every target: returns {cpu: recs, cpu + ":symbols": ...,
    "groups": [[cpu, ...], ...]} with records for each group's
    representative (for every processor with `full`)."""
    from concurrent.futures import ThreadPoolExecutor
    jobs = jobs or os.cpu_count() or 1
    with ThreadPoolExecutor(jobs) as ex:
        targets = targets or TARGETS
        fps = dict(zip(targets, ex.map(fingerprint, targets)))
        groups = group_targets(fps, targets)
        todo = [c for g in groups for c in (g if full else g[:1])]
        # enumerate_ops output is deterministic: reuse the fingerprint's.
        recs = dict(zip(todo, ex.map(lambda c: full_probe(c, fps[c]["ops"]), todo)))
        probed = mimg10.probe_shared(recs, ex)
        print("MIMG stage probed on %s for %d columns" % (probed, len(
            [c for c in todo if any("mimg10" in r for r in recs[c])])), file=sys.stderr)
    # The columns whose records include 32-bit DPP8 (D66; gen.py adds it to
    # older caches).
    out = {"groups": groups, "dpp8_32": todo, "gfx11_vop3_dpp": todo, "vimage": todo,
           "gfx11_vop3_t16": todo, "mimg10": todo, "bvh11": todo}
    for cpu in todo:
        out[cpu] = recs[cpu]
        out[cpu + ":symbols"] = fps[cpu]["symbols"]
    if full:
        for g in groups:
            for cpu in g[1:]:
                if json.dumps(recs[cpu], sort_keys=True) != json.dumps(recs[g[0]], sort_keys=True):
                    raise SystemExit("%s and %s have equal fingerprints but different probes"
                                     % (g[0], cpu))
    return out


def main():
    full = "--full" in sys.argv
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    out = probe_all(full)
    for g in out["groups"]:
        print(" ".join(g), len(out[g[0]]), "opcodes", file=sys.stderr)
    path = args[0] if args else os.path.join(os.path.dirname(__file__), "probe.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=0)
    import llvm
    print("llvm-objdump crashed on", len(llvm.CRASHED), "probes", file=sys.stderr)


if __name__ == "__main__":
    main()


def vopd_half(text, half):
    """The `half` (0: X, 1: Y) of a VOPD text `X :: Y`; a word-count marker
    (`<nwords=..>`) stays on both."""
    if not text or text == "<crash>":
        return text
    mark = ""
    if " <nwords=" in text:
        text, mark = text.split(" <nwords=", 1)
        mark = " <nwords=" + mark
    parts = text.split(" :: ")
    if len(parts) != 2:
        return None
    return parts[half].strip() + mark


def project_vopd(rec):
    """Replaces every text of a VOPD half's record by that half."""
    h = ENCODINGS.get(rec["enc"], {}).get("half")
    if h is None:
        return
    rec["text"] = vopd_half(rec["text"], h)
    for k in ("scan",):
        rec[k] = {b: vopd_half(t, h) for b, t in rec.get(k, {}).items()}
    for k in ("types", "regs"):
        for f, d in rec.get(k, {}).items():
            rec[k][f] = {v: vopd_half(t, h) for v, t in d.items()}

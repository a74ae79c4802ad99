#!/usr/bin/env python3
"""The semantic description of every opcode: `src/generated/sem_gfx9.rs`.

Reads the opcode table the main generator wrote (`src/generated/gfx9.rs`,
in `Opcode` order) and classifies each mnemonic, once, into the typed
description of `src/sem.rs`: a per-family operation enum (one variant per
VALU/SALU/packed operation), compares as predicate + type, memory as space
+ kind + size + sign + d16 half, branches as their condition, and an
explicit `Unsupported(reason)` for what a compute emulator has no use for
(graphics, GDS, debugger and trap-handler state). Nothing here probes LLVM,
so regenerating takes a fraction of a second:

    python3 crates/isa/gen/sem.py           # rewrite the file
    python3 crates/isa/gen/sem.py --check   # exit 1 if it differs

A mnemonic this script cannot classify is an error: a new generation's
table (GFX10-12, gfx950) adds its names here as rows, and the Rust side's
exhaustive matches then ask for their semantics.
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TABLE = os.path.join(HERE, "..", "src", "generated", "gfx9.rs")
OUT = os.path.join(HERE, "..", "src", "generated", "sem_gfx9.rs")

SUFFIXES = ("_e64_dpp", "_e32", "_e64", "_sdwa", "_dpp")


def entries():
    src = open(TABLE).read()
    start = src.index("pub(crate) static OPS:")
    body = src[start:src.index("\n];", start)]
    # Names are packed texts (`offset << 8 | length`) in the TEXT blob (D52).
    blob = re.search(r'static TEXT: &str = "((?:[^"\\]|\\.)*)";', src)
    if not blob:
        raise SystemExit("no TEXT blob in %s" % TABLE)
    blob = re.sub(r"\\(.)", r"\1", blob.group(1))
    out = [(blob[int(n) >> 8:(int(n) >> 8) + (int(n) & 0xFF)], e, t) for n, e, t in re.findall(
        r"name: (\d+),\s*enc: E::(\w+),\s*code: \w+,\s*index: \d+,\s*targets: (\d+),", body)]
    if not out:
        raise SystemExit("no OPS entries in %s" % TABLE)
    # Table columns of the processors the emulator runs (gfx90a, gfx942,
    # gfx950, gfx1030 wave32 and wave64, gfx1100 wave32 and wave64,
    # gfx1201 wave32 and wave64: `Target` discriminants 0, 1, 9, 12-15, 48
    # and 49).
    col = re.search(r"static COLUMN: \[u8; \d+\] = \[([^\]]*)\]", src)
    if not col:
        raise SystemExit("no COLUMN table in %s" % TABLE)
    cols = [int(c) for c in col.group(1).split(",") if c.strip()]
    emulated = ((1 << cols[0]) | (1 << cols[1]) | (1 << cols[9]) | (1 << cols[12]) | (1 << cols[13])
                | (1 << cols[14]) | (1 << cols[15]) | (1 << cols[48]) | (1 << cols[49]))
    # An encoding's GFX10-12 layout (`SmemGfx10`, `GlobalGfx12`) classifies
    # like its family, and GFX11's fake16 VOP3 reading (`Vop3F16`, D79) like
    # VOP3.
    return [(name, re.sub(r"Gfx1[012]$", "", enc).replace("Vop3F16", "Vop3"),
             int(t) & emulated != 0) for name, enc, t in out]


def base(name):
    for s in SUFFIXES:
        if name.endswith(s):
            return name[: -len(s)]
    return name


def camel(s):
    return "".join(p[:1].upper() + p[1:] for p in re.split(r"[^A-Za-z0-9]", s) if p)


NUM_TY = {t: t.capitalize() for t in
          ("i16", "u16", "f16", "i32", "u32", "f32", "i64", "u64", "f64", "b32", "b64")}
INT_PRED = {"f": "F", "lt": "Lt", "eq": "Eq", "le": "Le", "gt": "Gt", "ne": "Ne", "lg": "Ne",
            "ge": "Ge", "t": "T"}
FLT_PRED = {"f": "F", "t": "T", "lt": "Lt", "eq": "Eq", "le": "Le", "gt": "Gt", "lg": "Lg", "ge": "Ge",
            "o": "O", "u": "U", "nge": "Nge", "nlg": "Nlg", "ngt": "Ngt", "nle": "Nle",
            "neq": "Neq", "nlt": "Nlt", "tru": "T", "class": "Class"}

ATOMIC = {"swap": "Swap", "cmpswap": "CmpSwap", "add": "Add", "sub": "Sub", "rsub": "Rsub",
          "smin": "SMin", "umin": "UMin", "smax": "SMax", "umax": "UMax", "and": "And",
          "or": "Or", "xor": "Xor", "inc": "Inc", "dec": "Dec", "add_f32": "FAdd",
          "add_f64": "FAdd", "min_f64": "FMin", "max_f64": "FMax", "pk_add_f16": "PkAddF16",
          "pk_add_bf16": "PkAddBf16"}

# DS read-modify-write names: op -> (AtomicOp, float)
DS_ATOMIC = {"add": "Add", "sub": "Sub", "rsub": "Rsub", "inc": "Inc", "dec": "Dec",
             "min": None, "max": None, "and": "And", "or": "Or", "xor": "Xor",
             "mskor": "Mskor", "wrxchg": "Swap", "cmpst": "CmpSt", "wrap": "Wrap",
             "condxchg32": "CondXchg32", "pk_add": None}

WHY_GRAPHICS = "Why::Graphics"


def why(w):
    return "Sem::Unsupported(%s)" % w


class Unknown(Exception):
    pass


def mem(space, op, size, elems=1, signed=False, d16="No", fmt=False):
    return ("Sem::Mem(Mem { space: Space::%s, op: MemOp::%s, size: %d, elems: %d, "
            "signed: %s, d16: D16::%s, format: %s })"
            % (space, op, size, elems, "true" if signed else "false", d16,
               "true" if fmt else "false"))


LOAD_SIZES = {"dword": (4, 1), "dwordx2": (4, 2), "dwordx3": (4, 3), "dwordx4": (4, 4),
              "dwordx8": (4, 8), "dwordx16": (4, 16), "ubyte": (1, 1), "sbyte": (1, 1),
              "ushort": (2, 1), "sshort": (2, 1), "byte": (1, 1), "short": (2, 1)}
FMT_COMPS = {"x": 1, "xy": 2, "xyz": 3, "xyzw": 4}


def vector_mem(space, rest):
    """FLAT/GLOBAL/SCRATCH/MUBUF/MTBUF data operations (`rest` after the space prefix)."""
    if rest.startswith("atomic_"):
        a = rest[len("atomic_"):]
        size = 4
        if a.endswith("_x2"):
            a, size = a[:-3], 8
        if a.endswith("_f64"):
            size = 8
        if a not in ATOMIC:
            raise Unknown(rest)
        return mem(space, "Atomic(Atomic { op: AtomicOp::%s, ret: Ret::Glc })" % ATOMIC[a], size)
    m = re.fullmatch(r"(load|store)_(lds_)?(format_)?(d16_)?(hi_)?(\w+?)(_d16)?(_hi)?", rest)
    if not m:
        raise Unknown(rest)
    kind, lds, fmt, d16a, hia, what, d16b, hib = m.groups()
    d16 = "No"
    if d16a or d16b:
        d16 = "Hi" if (hia or hib) else "Lo"
    elif hib and what in ("byte", "short"):
        # store_byte_d16_hi is matched above; a bare `_hi` does not occur.
        raise Unknown(rest)
    if rest.endswith("_d16_hi") and not fmt:
        d16 = "Hi"
    op = "Load" if kind == "load" else "Store"
    if lds:
        op = "LoadToLds"
    if fmt:
        if what not in FMT_COMPS:
            raise Unknown(rest)
        return mem(space, op, 2 if d16 != "No" else 4, FMT_COMPS[what], d16=d16, fmt=True)
    if what not in LOAD_SIZES:
        raise Unknown(rest)
    size, elems = LOAD_SIZES[what]
    return mem(space, op, size, elems, signed=what in ("sbyte", "sshort"), d16=d16)


def ds(rest):
    if rest.startswith("gws_"):
        return why("Why::Gds")
    simple = {"nop": "Nop", "permute_b32": "Permute", "bpermute_b32": "Bpermute",
              "swizzle_b32": "Swizzle", "append": "Append", "consume": "Consume",
              "read_addtid_b32": "ReadAddTid", "write_addtid_b32": "WriteAddTid"}
    if rest in simple:
        return "Sem::Ds(DsOp::%s)" % simple[rest]
    # gfx950 transposing reads: each lane gets elements gathered from the
    # addresses of other lanes of its group (see `DsOp::ReadTr`).
    m = re.fullmatch(r"read_b(64|96)_tr_b(4|6|8|16)", rest)
    if m:
        return "Sem::Ds(DsOp::ReadTr { bits: %s })" % m.group(2)
    m = re.fullmatch(r"(read|write)(2st64|2)?_(b8|b16|b32|b64|b96|b128|u8|i8|u16|i16)"
                     r"(_d16_hi|_d16)?", rest)
    if m:
        kind, two, ty, d16 = m.groups()
        size = {"b8": 1, "u8": 1, "i8": 1, "b16": 2, "u16": 2, "i16": 2}.get(ty, 4)
        elems = {"b64": 2, "b96": 3, "b128": 4}.get(ty, 1)
        half = {"_d16": "Lo", "_d16_hi": "Hi", None: "No"}[d16]
        if two:
            op = ("Load2" if kind == "read" else "Store2") + (
                " { st64: true }" if two == "2st64" else " { st64: false }")
        else:
            op = "Load" if kind == "read" else "Store"
        return mem("Lds", op, size, elems, signed=ty in ("i8", "i16"), d16=half)
    m = re.fullmatch(r"(wrxchg2st64|wrxchg2)_rtn_(b32|b64)", rest)
    if m:
        st64 = "true" if "st64" in m.group(1) else "false"
        return mem("Lds", "Xchg2 { st64: %s }" % st64, 4, 2 if m.group(2) == "b64" else 1)
    m = re.fullmatch(r"(\w+?)(_rtn)?_(b32|b64|u32|u64|i32|i64|f32|f64|f16|bf16)", rest)
    if not m:
        raise Unknown(rest)
    op, rtn, ty = m.groups()
    ret = "Yes" if rtn else "No"
    size = 8 if ty.endswith("64") else 4
    if op == "condxchg32":
        size = 8
    if op in ("min", "max"):
        a = {("min", "f"): "FMin", ("max", "f"): "FMax", ("min", "i"): "SMin",
             ("max", "i"): "SMax", ("min", "u"): "UMin", ("max", "u"): "UMax"}[(op, ty[0])]
    elif op == "add" and ty[0] == "f":
        a = "FAdd"
    elif op == "pk_add":
        a = {"f16": "PkAddF16", "bf16": "PkAddBf16"}[ty]
    elif op == "cmpst" and ty[0] == "f":
        a = "CmpStF"
    elif op in DS_ATOMIC and DS_ATOMIC[op]:
        a = DS_ATOMIC[op]
    else:
        raise Unknown(rest)
    return mem("Lds", "Atomic(Atomic { op: AtomicOp::%s, ret: Ret::%s })" % (a, ret), size)


def smem(rest, prefix):
    """SMEM (`s_` names): loads, stores, atomics, cache control, clocks."""
    space = {"": "Scalar", "buffer_": "ScalarBuffer", "scratch_": "ScalarScratch"}[prefix]
    if rest.startswith("atomic_"):
        a = rest[len("atomic_"):]
        size = 4
        if a.endswith("_x2"):
            a, size = a[:-3], 8
        return mem(space, "Atomic(Atomic { op: AtomicOp::%s, ret: Ret::Glc })" % ATOMIC[a], size)
    m = re.fullmatch(r"(load|store)_(dword\w*|ubyte|sbyte|ushort|sshort)", rest)
    if not m:
        raise Unknown(rest)
    # GFX12's sub-dword loads (`s_load_u16`) zero- or sign-extend into one
    # SGPR.
    size, elems = LOAD_SIZES[m.group(2)]
    return mem(space, "Load" if m.group(1) == "load" else "Store", size, elems,
               signed=m.group(2)[0] == "s" and size < 4)


CONTROL = {
    "s_nop": "Nop", "s_endpgm": "Endpgm", "s_barrier": "Barrier", "s_waitcnt": "Waitcnt",
    "s_sleep": "Sleep", "s_setprio": "SetPrio", "s_trap": "Trap", "s_sendmsg": "SendMsg",
    "s_getpc_b64": "GetPc", "s_setpc_b64": "SetPc",
    "s_swappc_b64": "SwapPc", "s_call_b64": "Call", "s_getreg_b32": "GetReg",
    "s_setreg_b32": "SetReg", "s_setreg_imm32_b32": "SetRegImm",
    "s_set_gpr_idx_on": "GprIdxOn", "s_set_gpr_idx_off": "GprIdxOff",
    "s_set_gpr_idx_mode": "GprIdxMode", "s_set_gpr_idx_idx": "GprIdxIdx",
    "s_dcache_inv": "Cache", "s_dcache_wb": "Cache", "s_icache_inv": "Cache",
    "s_dcache_discard": "Cache", "s_dcache_discard_x2": "Cache", "buffer_wbinvl1": "Cache",
    "buffer_wbinvl1_vol": "Cache", "buffer_inv": "Cache", "buffer_wbl2": "Cache",
    "buffer_invl2": "Cache", "s_ttracedata": "TraceData", "s_incperflevel": "PerfLevel",
    "s_decperflevel": "PerfLevel", "s_wakeup": "Wakeup", "v_nop": "Nop", "v_clrexcp": "Nop",
    "s_atc_probe": "Cache", "s_atc_probe_buffer": "Cache", "s_dcache_inv_vol": "Cache",
    "s_dcache_wb_vol": "Cache",
    # GFX10 cache invalidations (L0, L1); the emulator's memory is coherent.
    "s_gl1_inv": "Cache", "buffer_gl0_inv": "Cache", "buffer_gl1_inv": "Cache",
    # GFX10 hints: instruction clauses and prefetch, dependency counters (the
    # interpreter completes each instruction before the next), the version
    # word and the padding after a kernel's end.
    "s_clause": "Nop", "s_inst_prefetch": "Nop", "s_waitcnt_depctr": "Nop",
    "s_version": "Nop", "s_code_end": "Nop", "s_ttracedata_imm": "TraceData",
    # GFX11 scheduling hints: the dependency between VALU instructions
    # (`s_delay_alu`), and the clause and prefetch controls above.
    "s_delay_alu": "Nop",
    # GFX10 counts stores in VS_CNT; the waitcnt checker counts them with
    # the loads in VM_CNT, so `s_waitcnt vmcnt` already waits for them
    # (conservative: it can only make more results ready, D65).
    "s_waitcnt_vscnt": "Nop",
}
UNSUPPORTED = {
    "s_endpgm_ordered_ps_done": WHY_GRAPHICS, "s_setkill": WHY_GRAPHICS,
    "s_endpgm_saved": "Why::TrapHandler", "s_rfe_b64": "Why::TrapHandler",
    "s_rfe_restore_b64": "Why::TrapHandler", "s_sethalt": "Why::TrapHandler",
    # Halts the wave until a debugger or trap handler resumes it (MI200 ISA:
    # "send a message and then HALT the wavefront"); no agent does here.
    "s_sendmsghalt": "Why::TrapHandler",
    "s_setvskip": WHY_GRAPHICS, "s_cbranch_g_fork": "Why::Removed",
    "s_cbranch_i_fork": "Why::Removed", "s_cbranch_join": "Why::Removed",
    "v_screen_partition_4se_b32": WHY_GRAPHICS, "v_cubeid_f32": WHY_GRAPHICS,
    "v_cubema_f32": WHY_GRAPHICS, "v_cubesc_f32": WHY_GRAPHICS, "v_cubetc_f32": WHY_GRAPHICS,
    # Ordered append through GDS.
    "ds_ordered_count": "Why::Gds",
    # GFX11 GDS registers and the ray tracer's stack.
    "ds_add_gs_reg_rtn": "Why::Gds", "ds_sub_gs_reg_rtn": "Why::Gds",
    "ds_bvh_stack_rtn_b32": WHY_GRAPHICS,
}
# GFX10 rows the emulator does not run yet (D65): float atomics under GFX10's
# names (f32 min/max with GFX10's NaN and denormal rules, float compare-swap),
# saturating `csub`, and the lane-indexed `addtid` global forms.
for _n in ("flat", "global", "buffer"):
    for _a in ("fcmpswap", "fmin", "fmax", "fcmpswap_x2", "fmin_x2", "fmax_x2"):
        UNSUPPORTED["%s_atomic_%s" % (_n, _a)] = "Why::NotEmulated"
for _n in ("global_atomic_csub", "buffer_atomic_csub", "global_load_dword_addtid",
           "global_store_dword_addtid"):
    UNSUPPORTED[_n] = "Why::NotEmulated"
BRANCH = {"s_branch": "Always", "s_cbranch_scc0": "Scc0", "s_cbranch_scc1": "Scc1",
          "s_cbranch_vccz": "Vccz", "s_cbranch_vccnz": "Vccnz", "s_cbranch_execz": "Execz",
          "s_cbranch_execnz": "Execnz", "s_cbranch_cdbgsys": "CdbgSys",
          "s_cbranch_cdbguser": "CdbgUser", "s_cbranch_cdbgsys_or_user": "CdbgSysOrUser",
          "s_cbranch_cdbgsys_and_user": "CdbgSysAndUser"}

# Operations whose destination keeps bits the instruction does not compute.
LANE_WRITE = {"v_writelane_b32"}
PARTIAL_LO = {"v_fma_mixlo_f16"}
PARTIAL_HI = {"v_fma_mixhi_f16"}


# GFX11 renamed the memory operations after their data type (`_b32` for
# `_dword`, `_u8` for `_ubyte`, DS `load`/`store` for `read`/`write`), and
# some ALU operations; each such name is read as the GFX9/GFX10 name of the
# same operation (D77). Table rows, not a branch on the target: a name
# means the same operation on every processor that has it.
GFX11_MEM_TYPES = [("load_d16_hi_u8", "load_ubyte_d16_hi"), ("load_d16_hi_i8", "load_sbyte_d16_hi"),
                   ("load_d16_hi_b16", "load_short_d16_hi"), ("load_d16_u8", "load_ubyte_d16"),
                   ("load_d16_i8", "load_sbyte_d16"), ("load_d16_b16", "load_short_d16"),
                   ("store_d16_hi_b8", "store_byte_d16_hi"),
                   ("store_d16_hi_b16", "store_short_d16_hi"),
                   ("load_d16_hi_format_", "load_format_d16_hi_"),
                   ("store_d16_hi_format_", "store_format_d16_hi_"),
                   ("load_d16_format_", "load_format_d16_"),
                   ("store_d16_format_", "store_format_d16_"),
                   ("load_u8", "load_ubyte"), ("load_i8", "load_sbyte"),
                   ("load_u16", "load_ushort"), ("load_i16", "load_sshort"),
                   ("store_b8", "store_byte"), ("store_b16", "store_short"),
                   ("_b32", "_dword"), ("_b64", "_dwordx2"), ("_b96", "_dwordx3"),
                   ("_b128", "_dwordx4"), ("_b256", "_dwordx8"), ("_b512", "_dwordx16")]
GFX11_ATOMIC = {"swap_b32": "swap", "cmpswap_b32": "cmpswap", "add_u32": "add", "sub_u32": "sub",
                "csub_u32": "csub", "min_i32": "smin", "min_u32": "umin", "max_i32": "smax",
                "max_u32": "umax", "and_b32": "and", "or_b32": "or", "xor_b32": "xor",
                "inc_u32": "inc", "dec_u32": "dec", "cmpswap_f32": "fcmpswap", "min_f32": "fmin",
                "max_f32": "fmax"}
GFX11_DS = [("storexchg_2addr_stride64_rtn_", "wrxchg2st64_rtn_"),
            ("storexchg_2addr_rtn_", "wrxchg2_rtn_"), ("storexchg_rtn_", "wrxchg_rtn_"),
            ("store_2addr_stride64_", "write2st64_"), ("store_2addr_", "write2_"),
            ("load_2addr_stride64_", "read2st64_"), ("load_2addr_", "read2_"),
            ("store_addtid_", "write_addtid_"), ("load_addtid_", "read_addtid_"),
            ("store_", "write_"), ("load_", "read_")]
GFX11_ALU = {"s_ctz_i32_b32": "s_ff1_i32_b32", "s_ctz_i32_b64": "s_ff1_i32_b64",
             "s_clz_i32_u32": "s_flbit_i32_b32", "s_clz_i32_u64": "s_flbit_i32_b64",
             "s_cls_i32": "s_flbit_i32", "s_cls_i32_i64": "s_flbit_i32_i64",
             "v_clz_i32_u32": "v_ffbh_u32", "v_ctz_i32_b32": "v_ffbl_b32", "v_cls_i32": "v_ffbh_i32",
             "v_cvt_floor_i32_f32": "v_cvt_flr_i32_f32",
             "v_cvt_nearest_i32_f32": "v_cvt_rpi_i32_f32",
             "v_cvt_pk_rtz_f16_f32": "v_cvt_pkrtz_f16_f32",
             "v_mul_dx9_zero_f32": "v_mul_legacy_f32", "v_fmac_dx9_zero_f32": "v_fmac_legacy_f32",
             "v_fma_dx9_zero_f32": "v_fma_legacy_f32", "v_dot2acc_f32_f16": "v_dot2c_f32_f16",
             "s_set_inst_prefetch_distance": "s_inst_prefetch"}
# GFX11 operations with no GFX9/GFX10 counterpart the interpreter runs yet:
# listed, so a kernel using one stops as not emulated.
GFX11_NOT_EMULATED = {
    "s_pack_hl_b32_b16", "s_sendmsg_rtn_b32", "s_sendmsg_rtn_b64", "s_wait_event",
    "v_or_b16", "v_xor_b16", "v_not_b16", "v_swap_b16",
    "v_cndmask_b16", "v_cvt_i32_i16", "v_cvt_u32_u16", "v_cvt_pk_i16_f32", "v_cvt_pk_u16_f32",
    "v_cvt_pk_norm_i16_f16", "v_cvt_pk_norm_u16_f16", "v_cvt_pk_norm_i16_f32",
    "v_cvt_pk_norm_u16_f32", "v_dot2_bf16_bf16", "v_dot2_f16_f16", "v_dot4_i32_iu8",
    "v_dot8_i32_iu4", "v_maxmin_f16", "v_minmax_f16", "v_maxmin_i32", "v_minmax_i32",
    "v_maxmin_u32", "v_minmax_u32", "v_permlane64_b32", "v_dual_dot2acc_f32_bf16",
    "v_dual_dot2acc_f32_f16", "v_dual_mul_dx9_zero_f32",
    "v_wmma_bf16_16x16x16_bf16", "v_wmma_f16_16x16x16_f16", "v_wmma_f32_16x16x16_bf16",
    "v_wmma_f32_16x16x16_f16", "v_wmma_i32_16x16x16_iu4", "v_wmma_i32_16x16x16_iu8",
    # GFX11's DS compare-store takes the new value in data0 and the compare
    # value in data1 (GFX9's `ds_cmpst` the other way round): not modelled.
    "ds_cmpstore_b32", "ds_cmpstore_f32", "ds_cmpstore_b64", "ds_cmpstore_f64",
    "ds_cmpstore_rtn_b32", "ds_cmpstore_rtn_f32", "ds_cmpstore_rtn_b64", "ds_cmpstore_rtn_f64",
}


def gfx11_alias(name):
    """The GFX9/GFX10 name of a GFX11 operation (the name itself otherwise)."""
    b = base(name)
    suffix = name[len(b):]
    m = re.fullmatch(r"(flat|global|scratch|buffer)_atomic_(\w+?)_([biuf])(32|64)", b)
    # (`_f64` atomics keep their GFX9 names.)
    if m and "%s_%s32" % (m.group(2), m.group(3)) in GFX11_ATOMIC and m.group(3) + m.group(
            4) != "f64":
        a = GFX11_ATOMIC["%s_%s32" % (m.group(2), m.group(3))]
        return "%s_atomic_%s%s%s" % (m.group(1), a, "_x2" if m.group(4) == "64" else "", suffix)
    m = re.fullmatch(r"(flat|global|scratch|buffer|s|s_buffer)_(load|store)_(\w+)", b)
    if m and re.search(r"_(b|u|i)(8|16|32|64|96|128|256|512)$|format_", b):
        rest = "%s_%s" % (m.group(2), m.group(3))
        for old, new in GFX11_MEM_TYPES:
            if old in rest:
                rest = rest.replace(old, new, 1)
                break
        if rest.endswith("_addtid_dword"):
            rest = rest[:-len("_addtid_dword")] + "_dword_addtid"
        return "%s_%s%s" % (m.group(1), rest, suffix)
    if b.startswith("ds_") and not b.startswith("ds_cmpstore"):
        for old, new in GFX11_DS:
            if b[3:].startswith(old):
                return "ds_" + new + b[3 + len(old):] + suffix
    if b.startswith("v_dual_"):
        return "v_" + b[len("v_dual_"):] + suffix
    m = re.fullmatch(r"s_(and|or)_not([01])_(\w+)", b)
    if m:
        return "s_%sn%s_%s%s" % (m.group(1), "2" if m.group(2) == "1" else "1", m.group(3), suffix)
    if b in GFX11_ALU:
        return GFX11_ALU[b] + suffix
    return name


# GFX11 true16 operations that are a 32-bit row's operation on the low 16
# bits: the emulator's true16 wrapper (`interp/t16.rs`) stages `.h` sources
# into low halves and writes the low 16 bits of the result into the half
# the destination names. Their fake16 readings (`...F16` encodings) would
# write all 32 bits: not emulated.
GFX11_T16_ALIAS = {"v_mov_b16": "v_mov_b32", "v_and_b16": "v_and_b32"}


# GFX12 renames of a GFX9-GFX11 operation (D85): read as that row.
GFX12_ALU = {"s_add_co_i32": "s_add_i32", "s_add_co_u32": "s_add_u32",
             "s_add_co_ci_u32": "s_addc_u32", "s_sub_co_i32": "s_sub_i32",
             "s_sub_co_u32": "s_sub_u32", "s_sub_co_ci_u32": "s_subb_u32",
             "s_addk_co_i32": "s_addk_i32",
             "v_mad_co_u64_u32": "v_mad_u64_u32", "v_mad_co_i64_i32": "v_mad_i64_i32",
             # GFX12 has no IEEE mode: `_num` is the old min/max (maxNum).
             "v_max_num_f32": "v_max_f32", "v_min_num_f32": "v_min_f32",
             "v_max_num_f16": "v_max_f16", "v_min_num_f16": "v_min_f16",
             "v_max_num_f64": "v_max_f64", "v_min_num_f64": "v_min_f64",
             "v_max3_num_f32": "v_max3_f32", "v_min3_num_f32": "v_min3_f32",
             "v_med3_num_f32": "v_med3_f32", "v_max3_num_f16": "v_max3_f16",
             "v_min3_num_f16": "v_min3_f16", "v_med3_num_f16": "v_med3_f16",
             "v_maxmin_num_f32": "v_maxmin_f32", "v_minmax_num_f32": "v_minmax_f32",
             "v_maxmin_num_f16": "v_maxmin_f16", "v_minmax_num_f16": "v_minmax_f16",
             "v_pk_max_num_f16": "v_pk_max_f16", "v_pk_min_num_f16": "v_pk_min_f16",
             "v_dual_max_num_f32": "v_dual_max_f32", "v_dual_min_num_f32": "v_dual_min_f32",
             "global_inv": "buffer_gl0_inv", "global_wb": "buffer_wbl2",
             "global_wbinv": "buffer_wbl2"}
# GFX12's split wait counters (`s_wait_loadcnt` ... `s_wait_kmcnt`) are
# waits (`waitcnt::decode_for` reads which counter from the word); the
# split barrier is GFX9's barrier at the signal (`s_barrier_signal -1`)
# and nothing at the wait; the ALU dependency wait and the prefetches are
# hints.
GFX12_CONTROL = {"s_wait_loadcnt": "Waitcnt", "s_wait_storecnt": "Waitcnt",
                 "s_wait_samplecnt": "Waitcnt", "s_wait_bvhcnt": "Waitcnt",
                 "s_wait_expcnt": "Waitcnt", "s_wait_dscnt": "Waitcnt",
                 "s_wait_kmcnt": "Waitcnt", "s_wait_loadcnt_dscnt": "Waitcnt",
                 "s_wait_storecnt_dscnt": "Waitcnt", "s_wait_alu": "Nop",
                 "s_barrier_signal": "Barrier", "s_barrier_wait": "Nop",
                 "s_prefetch_inst": "Cache", "s_prefetch_inst_pc_rel": "Cache",
                 "s_prefetch_data": "Cache", "s_buffer_prefetch_data": "Cache",
                 "s_prefetch_data_pc_rel": "Cache"}
# GFX12 operations with no GFX9-GFX11 counterpart the interpreter runs yet:
# listed, so a kernel using one stops as not emulated.
GFX12_NOT_EMULATED = {
    "s_barrier_signal_isfirst", "s_barrier_init", "s_barrier_join", "s_barrier_leave",
    "s_get_barrier_state", "s_alloc_vgpr", "s_sleep_var",
    "v_permlane16_var_b32", "v_permlanex16_var_b32",
    "v_maximum_f32", "v_minimum_f32", "v_maximum_f16", "v_minimum_f16", "v_maximum_f64",
    "v_minimum_f64", "v_maximum3_f16", "v_minimum3_f16", "v_wmma_i32_16x16x32_iu4",
    "v_maximumminimum_f32", "v_minimummaximum_f32", "v_maximumminimum_f16",
    "v_minimummaximum_f16", "v_pk_maximum_f16", "v_pk_minimum_f16",
    "v_s_exp_f32", "v_s_exp_f16", "v_s_log_f32", "v_s_log_f16", "v_s_rcp_f32", "v_s_rcp_f16",
    "v_s_rsq_f32", "v_s_rsq_f16", "v_s_sqrt_f32", "v_s_sqrt_f16",
    "v_dot4_f32_fp8_bf8", "v_dot4_f32_bf8_fp8", "v_dot4_f32_fp8_fp8", "v_dot4_f32_bf8_bf8",
    # Sub-dword buffer loads: the scalar buffer handler loads whole dwords.
    "s_buffer_load_i8", "s_buffer_load_u8", "s_buffer_load_i16", "s_buffer_load_u16",
    "ds_bpermute_fi_b32", "ds_cond_sub_u32", "ds_sub_clamp_u32", "ds_cond_sub_rtn_u32",
    "ds_sub_clamp_rtn_u32", "ds_min_num_f32", "ds_max_num_f32", "ds_min_num_rtn_f32",
    "ds_max_num_rtn_f32", "ds_min_num_f64", "ds_max_num_f64", "ds_min_num_rtn_f64",
    "ds_max_num_rtn_f64", "ds_bvh_stack_push4_pop1_rtn_b32", "ds_bvh_stack_push8_pop1_rtn_b32",
    "ds_bvh_stack_push8_pop2_rtn_b64",
    "global_load_block", "global_store_block", "scratch_load_block", "scratch_store_block",
    "global_load_tr_b128", "global_load_tr_b64", "global_atomic_ordered_add_b64",
}
# GFX12 atomics without a GFX9 row (the float min/max are `_num` now, and
# two new subtractions): not emulated.
GFX12_NOT_EMULATED_RE = re.compile(
    r"(flat|global|buffer)_atomic_(sub_clamp_u32|cond_sub_u32|min_num_f32|max_num_f32)$")
# Scalar float operations (GFX11.5 and GFX12) but the f32 add, subtract,
# multiply and the f32/32-bit integer conversions (`interp/salu.rs`, D85):
# not emulated yet.
GFX12_SALU_EMULATED = {"s_add_f32", "s_sub_f32", "s_mul_f32", "s_cvt_f32_i32", "s_cvt_f32_u32",
                       "s_cvt_i32_f32", "s_cvt_u32_f32", "s_add_nc_u64", "s_sub_nc_u64",
                       "s_mul_u64"}
GFX12_SALU_NOT_EMULATED_RE = re.compile(
    r"s_(add|sub|mul|fmac|fmaak|fmamk|min_num|max_num|minimum|maximum|ceil|floor|trunc|rndne"
    r"|cvt_\w+|cmp_\w+)_(f16|f32|f32_f16|f16_f32|i32_f32|u32_f32|f32_i32|f32_u32|hi_f32_f16"
    r"|pk_rtz_f16_f32)$|s_cvt_\w+$|s_swmmac|v_swmmac_|v_wmma_\w+_(fp8|bf8)")


def gfx12_alias(name):
    """The GFX9-GFX11 name of a GFX12 operation (the name itself otherwise)."""
    b = base(name)
    if b in GFX12_ALU:
        return GFX12_ALU[b] + name[len(b):]
    return name


def classify(name, enc):
    """(sem expression, valu variant or None, salu variant or None, packed variant or None)."""
    b = base(name)
    if b in GFX12_NOT_EMULATED or GFX12_NOT_EMULATED_RE.match(b) or (
            GFX12_SALU_NOT_EMULATED_RE.match(b) and b not in GFX12_SALU_EMULATED
            and not b.startswith("s_cmp_")) or (
            b.startswith("s_cmp_") and re.search(r"_f(16|32)$", b)):
        return why("Why::NotEmulated")
    if b in GFX12_CONTROL:
        return "Sem::Control(Control::%s)" % GFX12_CONTROL[b]
    name = gfx12_alias(name)
    if base(name) in GFX11_NOT_EMULATED:
        return why("Why::NotEmulated")
    if base(name) in GFX11_T16_ALIAS:
        if enc.endswith("F16"):
            return why("Why::NotEmulated")
        name = GFX11_T16_ALIAS[base(name)] + name[len(base(name)):]
    name = gfx11_alias(name)
    b = base(name)
    if b in UNSUPPORTED:
        return why(UNSUPPORTED[b])
    if b in CONTROL:
        return "Sem::Control(Control::%s)" % CONTROL[b]
    if b in BRANCH:
        return "Sem::Branch(Cond::%s)" % BRANCH[b]
    if b == "s_memtime":
        return "Sem::Time(Clock::Shader)"
    if b == "s_memrealtime":
        return "Sem::Time(Clock::Real)"
    if enc == "Mimg" or b.startswith("image_"):
        return why(WHY_GRAPHICS)
    m = re.fullmatch(r"v_cmp(x?)_(\w+)_(i16|u16|f16|i32|u32|f32|i64|u64|f64)", b)
    if m:
        x, pred, ty = m.groups()
        table = FLT_PRED if ty[0] == "f" else INT_PRED
        if pred not in table:
            raise Unknown(name)
        return ("Sem::Cmp(Cmp { pred: Pred::%s, ty: NumTy::%s, exec: %s })"
                % (table[pred], NUM_TY[ty], "true" if x else "false"))
    m = re.fullmatch(r"s_cmpk?_(\w+)_(i32|u32|u64)", b)
    if m:
        pred, ty = m.groups()
        return ("Sem::SCmp(SCmp { pred: Pred::%s, ty: NumTy::%s, imm: %s })"
                % (INT_PRED[pred], NUM_TY[ty], "true" if b.startswith("s_cmpk") else "false"))
    if enc == "Ds":
        return ds(b[3:])
    for space, pre in (("Flat", "flat_"), ("Global", "global_"), ("Scratch", "scratch_"),
                       ("Buffer", "buffer_"), ("TypedBuffer", "tbuffer_")):
        if b.startswith(pre) and enc in ("Flat", "Global", "Scratch", "Mubuf", "Mtbuf"):
            return vector_mem(space, b[len(pre):])
    if enc == "Smem":
        for pre in ("buffer_", "scratch_", ""):
            if b.startswith("s_" + pre) and (pre or not b.startswith(("s_buffer_",
                                                                     "s_scratch_"))):
                return smem(b[2 + len(pre):], pre)
    if enc == "Mai" or b.startswith(("v_mfma_", "v_smfmac_")):
        return "Sem::Mfma"
    if b.startswith("v_pk_") and enc == "Vop3p":
        return "Sem::Packed(Packed::%s)" % camel(b[5:])
    if b.startswith("v_"):
        return "Sem::Valu(Valu::%s)" % camel(b[2:])
    if b.startswith("s_"):
        return "Sem::Salu(Salu::%s)" % camel(b[2:])
    raise Unknown(name)


def is_float(name, sem):
    """Vector ALU work whose result depends on the float MODE (rounding,
    denormals): any f16/f32/f64/bf16 type in the name, MFMA, packed ops."""
    if not sem.startswith(("Sem::Valu", "Sem::Cmp", "Sem::Packed", "Sem::Mfma")):
        return False
    return sem == "Sem::Mfma" or "_pk_" in name or any(
        t in name for t in ("_f16", "_f32", "_f64", "bf16"))


def result_ty(b):
    """The type of the result: the first type among the name's parts
    (`v_cvt_f32_f16` -> f32, `v_mad_u32_u16` -> u32); packing ops give 32 bits."""
    if "pk" in b or b in ("v_sad_u16", "v_pack_b32_f16"):
        return "b32"
    for p in b.split("_")[2:]:
        if re.fullmatch(r"[iufb](8|16|32|64)", p):
            return p
    return None


def partial(name, enc, sem):
    """Which part of the destination the instruction writes (see `Partial`)."""
    b = base(name)
    if sem.startswith(("Sem::Cmp", "Sem::Unsupported")) or "op: MemOp::Store" in sem:
        return "Partial::Full"
    if b in LANE_WRITE:
        return "Partial::Lane"
    if b in PARTIAL_LO or "d16: D16::Lo" in sem:
        return "Partial::Lo16"
    if b in PARTIAL_HI or "d16: D16::Hi" in sem:
        return "Partial::Hi16"
    if name.endswith("_sdwa"):
        return "Partial::BySdwa"
    if enc == "Vop3" and sem.startswith("Sem::Valu") and result_ty(b) in (
            "f16", "i16", "u16", "b16"):
        return "Partial::ByOpSel"
    return "Partial::Full"


BANNER = """\
// @generated by crates/isa/gen/sem.py from src/generated/gfx9.rs.
// Do not edit by hand: run `python3 crates/isa/gen/sem.py` to regenerate,
// `python3 crates/isa/gen/sem.py --check` to verify.
"""


def render():
    es = entries()
    rows = []
    variants = {"Valu": {}, "Salu": {}, "Packed": {}}
    for name, enc, emulated in es:
        # DPP8 (D66) is decoded from GFX10 on, where the emulator runs
        # gfx1030; the interpreter has no lane selects: not emulated.
        if not emulated or enc.endswith("Dpp8"):
            # Only on processors the emulator does not run yet (gfx900-908,
            # gfx950): listed, with that reason, until it does (a graphics
            # or GDS row keeps its own reason).
            # What it writes is known from its classification all the
            # same (the instrumenter's liveness reads it on every target).
            try:
                s = classify(name, enc)
            except (Unknown, KeyError):
                s = ""
            p = partial(name, enc, s) if s else "Partial::Full"
            if not s.startswith("Sem::Unsupported"):
                s = why("Why::NotEmulated")
            rows.append((name, s, p, False))
            continue
        try:
            s = classify(name, enc)
        except (Unknown, KeyError) as e:
            raise SystemExit("cannot classify %s (%s): %s" % (name, enc, e))
        for fam in variants:
            m = re.match(r"Sem::%s\(%s::(\w+)\)" % (fam, fam), s)
            if m:
                # One variant per operation, documented by its first name
                # in sorted order (GFX11 names of a GFX9 row share it).
                v, b = m.group(1), base(gfx11_alias(gfx12_alias(name)))
                b = GFX11_T16_ALIAS.get(b, b)
                if v not in variants[fam] or b < variants[fam][v]:
                    variants[fam][v] = b
        rows.append((name, s, partial(name, enc, s), is_float(name, s)))
    out = [BANNER, "",
           "//! Generated semantic description, one row per `Opcode` (see [`crate::sem`]).",
           "", "use crate::sem::*;", ""]
    docs = {"Valu": "A vector ALU operation (VOP1/VOP2/VOP3, not a compare): one variant per "
                    "operation, named after its mnemonic without `v_`.",
            "Salu": "A scalar ALU operation (SOP1/SOP2/SOPK, not a compare): one variant per "
                    "operation, named after its mnemonic without `s_`.",
            "Packed": "A VOP3P packed operation (`v_pk_*`): one variant per operation."}
    for fam in ("Valu", "Salu", "Packed"):
        out.append("/// %s" % docs[fam])
        out.append("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]")
        out.append("pub enum %s {" % fam)
        for v, b in sorted(variants[fam].items()):
            out.append("    /// `%s`" % b)
            out.append("    %s," % v)
        out.append("}")
        out.append("")
    out.append("/// The description of `Opcode(i)` is `SEM[i]`.")
    out.append("pub static SEM: [Desc; %d] = [" % len(rows))
    for name, s, p, f in rows:
        out.append("    // %s" % name)
        out.append("    Desc { sem: %s, partial: %s, float: %s }," % (s, p, "true" if f else "false"))
    out.append("];")
    out.append("")
    return "\n".join(out)


def main():
    text = render()
    if "--check" in sys.argv:
        old = open(OUT).read() if os.path.exists(OUT) else ""
        if old != text:
            sys.stderr.write("%s is stale: run python3 crates/isa/gen/sem.py\n" % OUT)
            sys.exit(1)
        return
    open(OUT, "w").write(text)


if __name__ == "__main__":
    main()

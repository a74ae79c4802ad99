"""Hand-written semantic rules for the lathe-isa generator.

LLVM's disassembler output does not say which registers an instruction
reads or writes implicitly, which counters it increments, or how it moves
control. These rules, keyed on encoding and mnemonic, follow the AMD
"Vega" / "CDNA2" / "CDNA3" ISA manuals. They produce the semantic flag names
(`flags::*` in src/opcode.rs) and fix operand access modes.
"""

import re

SOP = ("SOP2", "SOPK", "SOP1", "SOPC")
VALU = ("VOP2", "VOP1", "VOPC", "VOP3", "VOP3P", "MAI", "SDWA_VOP2", "SDWA_VOP1", "SDWA_VOPC",
        "DPP_VOP2", "DPP_VOP1", "DPP_VOPC",
        # Dual issue: each half is a VALU operation under EXEC (D57).
        "VOPDX", "VOPDY", "VOPD3X", "VOPD3Y")
VMEM = ("FLAT", "GLOBAL", "SCRATCH", "MUBUF", "MTBUF", "MIMG")

SCC_WRITERS_SOP2 = re.compile(
    r"^s_(add|sub|addc|subb)_[iu]32$|^s_(min|max)_[iu]32$|"
    r"^s_(add|sub)_co_[iu]32$|^s_(add|sub)_co_ci_u32$|"  # GFX12's names
    r"^s_(and|or|xor|andn2|orn2|and_not1|or_not1|nand|nor|xnor)_b(32|64)$|^s_(lshl|lshr)_b(32|64)$|"
    r"^s_ashr_i(32|64)$|^s_bfe_[iu](32|64)$|^s_absdiff_i32$|^s_lshl[1-4]_add_u32$")
SCC_WRITERS_SOP1 = re.compile(
    r"^s_(not|wqm)_b(32|64)$|^s_bcnt[01]_i32_b(32|64)$|^s_quadmask_b(32|64)$|"
    r"_saveexec_b(32|64)$|_wrexec_b(32|64)$|^s_abs_i32$")


# VOP3 DPP families (D61; GFX11's fake16 readings, D71).
VOP3_DPP_FAMS = ("DPP_VOP3", "DPP8_VOP3", "DPP_VOP3F16", "DPP8_VOP3F16")
# Families with VOP3's rules: the DPP forms and GFX11's fake16 VOP3 (D79).
VOP3_FAMS = VOP3_DPP_FAMS + ("VOP3F16",)


def base_name(name):
    return re.sub(r"(_e64_dpp|_e32|_e64|_sdwa|_dpp)$", "", name)


def semantics(e):
    """Semantic flag names for table entry `e` (from gen.analyze)."""
    enc, name = e["enc"], e["name"]
    enc = enc[:-3] if enc.endswith(("_10", "_11", "_12")) else enc  # same rules on GFX10-12
    enc = "VOP3" if enc in VOP3_FAMS else enc  # VOP3 DPP, fake16 VOP3: VOP3's rules

    enc = "MIMG" if enc == "MIMG_HI" else enc  # GFX10 opcodes 0x80-0xFF (D81)
    enc = enc.replace("DPP8_", "DPP_")  # 32-bit DPP8 (D66): the DPP16 forms' rules
    b = base_name(name)
    f = set()
    if enc in SOP:
        f.add("SALU")
    if enc in VALU:
        f.add("VALU")
        if b not in ("v_readlane_b32", "v_writelane_b32", "v_nop"):
            f.add("READS_EXEC")
    if enc in VMEM or enc == "DS":
        f.add("READS_EXEC")
    if enc == "MAI":
        f.add("MATRIX")

    # Scalar condition code.
    if enc == "SOP2":
        if SCC_WRITERS_SOP2.search(b):
            f.add("WRITES_SCC")
        if re.match(r"^s_(addc|subb)_u32$|^s_(add|sub)_co_ci_u32$|^s_cselect_", b):
            f.add("READS_SCC")
    if enc == "SOP1":
        if SCC_WRITERS_SOP1.search(b):
            f.add("WRITES_SCC")
        if b.startswith("s_cmov_"):
            f.add("READS_SCC")
        # Every wave size's forms (GFX10+ `_b32` for wave32, GFX11's
        # `s_and_not1_saveexec_*` names).
        if re.search(r"_saveexec_b(32|64)$|_wrexec_b(32|64)$", b):
            f.update({"READS_EXEC", "WRITES_EXEC"})
        if b.startswith("s_movrel"):
            f.add("READS_M0")
        if b == "s_set_gpr_idx_idx":
            f.add("WRITES_M0")
        # GFX12.5 renames the PC operations (`s_set_pc_i64`, ...) and adds
        # `s_add_pc_i64` (PC += source, D54).
        if b in ("s_setpc_b64", "s_rfe_b64", "s_set_pc_i64", "s_rfe_i64", "s_add_pc_i64"):
            f.add("INDIRECT")
        if b in ("s_swappc_b64", "s_swap_pc_i64"):
            f.update({"INDIRECT", "CALL"})
        if b == "s_cbranch_join":
            f.add("INDIRECT")
    if enc == "SOPC":
        if b not in ("s_setvskip", "s_set_gpr_idx_on"):
            f.add("WRITES_SCC")
        if b == "s_set_gpr_idx_on":
            f.add("WRITES_M0")
    if enc == "SOPK":
        if b.startswith("s_cmpk_") or b == "s_addk_i32":
            f.add("WRITES_SCC")
        if b == "s_cmovk_i32":
            f.add("READS_SCC")
        if b in ("s_call_b64", "s_call_i64"):
            f.add("CALL")
        if b == "s_cbranch_i_fork":
            f.add("CBRANCH")
    if enc == "SOP2" and b == "s_cbranch_g_fork":
        f.add("INDIRECT")
    if enc == "SOPP":
        if b == "s_branch":
            f.add("BRANCH")
        elif b.startswith("s_cbranch_"):
            f.add("CBRANCH")
            if "scc" in b:
                f.add("READS_SCC")
            if "vcc" in b:
                f.add("READS_VCC")
            if "exec" in b:
                f.add("READS_EXEC")
        if b.startswith("s_endpgm"):
            f.add("ENDPGM")
        if b == "s_trap":
            f.add("TRAP")
        if b == "s_barrier":
            f.add("BARRIER")
        if b == "s_waitcnt":
            f.add("WAITCNT")
        if b in ("s_sendmsg", "s_sendmsghalt"):
            f.update({"LGKM_CNT", "READS_M0"})
        if b == "s_set_gpr_idx_off" or b == "s_set_gpr_idx_mode":
            pass

    # Vector condition code and implicit vcc.
    if enc in ("VOPC", "SDWA_VOPC"):
        f.add("WRITES_VCC")
        if "cmpx" in b:
            f.add("WRITES_EXEC")
    if enc == "VOP3" and "_cmpx_" in b:
        f.add("WRITES_EXEC")
    if enc in ("VOP2", "SDWA_VOP2", "DPP_VOP2"):
        if re.match(r"^v_(add|sub|subrev)_co_u32$", b):
            f.add("WRITES_VCC")
        if re.match(r"^v_(addc|subb|subbrev)_co_u32$", b):
            f.update({"READS_VCC", "WRITES_VCC"})
        if b == "v_cndmask_b32":
            f.add("READS_VCC")
    # VOPD's cndmask reads vcc_lo without printing it (VOPD3's names its
    # mask as src2).
    if enc in ("VOPDX", "VOPDY") and b == "v_dual_cndmask_b32":
        f.add("READS_VCC")
    if enc == "VOP3" and b in ("v_div_fmas_f32", "v_div_fmas_f64"):
        f.add("READS_VCC")

    # Memory.
    if enc == "SMEM":
        f.add("LGKM_CNT")
        if re.match(r"^s_(buffer_|scratch_)?load_", b):
            f.add("LOAD")
        elif re.match(r"^s_(buffer_|scratch_)?store_", b):
            f.add("STORE")
        elif "atomic" in b:
            f.add("ATOMIC")
    if enc == "DS":
        f.add("LGKM_CNT")
        if b in ("ds_nop",):
            pass
        elif b in ("ds_swizzle_b32", "ds_permute_b32", "ds_bpermute_b32"):
            pass
        elif "read" in b:
            f.add("LOAD")
        elif "write" in b and "wrxchg" not in b:
            f.add("STORE")
        else:
            f.add("ATOMIC")
        if b in ("ds_append", "ds_consume", "ds_read_addtid_b32", "ds_write_addtid_b32") or \
                "gws" in b or "ordered" in b:
            f.add("READS_M0")
    if enc in VMEM:
        f.add("VM_CNT")
        if enc == "FLAT":
            f.add("LGKM_CNT")
        if re.search(r"_load_lds_", b):
            f.update({"LOAD", "STORE", "READS_M0", "LGKM_CNT"} if enc != "MUBUF" else
                     {"LOAD", "STORE", "READS_M0"})
        elif re.search(r"_load|image_sample|image_gather|image_get", b):
            f.add("LOAD")
        elif "_store" in b:
            f.add("STORE")
        elif "atomic" in b:
            f.add("ATOMIC")
    return f


def fix_access(e):
    """Adjust operand access modes that depend on the mnemonic."""
    enc, name = e["enc"], e["name"]
    enc = enc[:-3] if enc.endswith(("_10", "_11", "_12")) else enc  # same rules on GFX10-12
    enc = "VOP3" if enc in VOP3_FAMS else enc  # VOP3 DPP, fake16 VOP3: VOP3's rules

    enc = "MIMG" if enc == "MIMG_HI" else enc  # GFX10 opcodes 0x80-0xFF (D81)
    enc = enc.replace("DPP8_", "DPP_")  # 32-bit DPP8 (D66): the DPP16 forms' rules
    b = base_name(name)
    ops = e["operands"]
    for o in ops:
        if o["field"] in ("Sdst", "Vdst") and o["access"] == "W":
            pass
    def setacc(field, acc):
        for o in ops:
            if o["field"] == field:
                o["access"] = acc
    if enc == "SOPK":
        if b.startswith("s_cmpk_") or b == "s_setreg_b32":
            setacc("Sdst", "R")
        if b in ("s_addk_i32", "s_mulk_i32", "s_cmovk_i32"):
            setacc("Sdst", "RW")
    if enc == "SOP1" and (b.startswith("s_cmov_") or b.startswith("s_bitset")):
        setacc("Sdst", "RW")
    if enc in ("VOP2", "VOP3", "SDWA_VOP2", "DPP_VOP2") and re.match(r"^v_(mac|fmac)_|^v_pk_fmac|^v_dot\dc_", b):
        setacc("Vdst", "RW")
    # Dual issue (VOPD, VOPD3): `fmac` and `dot2acc` accumulate into their
    # destination (D57); so does VOP2's `v_dot2acc_f32_*` (GFX11+).
    if enc in ("VOPDX", "VOPDY", "VOPD3X", "VOPD3Y") and re.match(r"^v_dual_(fmac|dot2acc)_", b):
        setacc("Vdst", "RW")
        setacc("VdstY", "RW")
    if enc in ("VOP2", "DPP_VOP2") and b.startswith("v_dot2acc_"):
        setacc("Vdst", "RW")
    if b == "v_writelane_b32":
        setacc("Vdst", "RW")
    if b == "v_swap_b32":
        setacc("Vdst", "RW")
        setacc("Src0", "RW")
    if enc == "SMEM":
        if re.match(r"^s_(buffer_|scratch_)?load_", b):
            setacc("Sdata", "W")
        elif "atomic" in b:
            setacc("Sdata", "RW")
    if enc in ("MUBUF", "MTBUF", "MIMG"):
        if re.search(r"_load|image_sample|image_gather|image_get", b):
            setacc("Vdata", "W")
        elif "atomic" in b:
            setacc("Vdata", "RW")

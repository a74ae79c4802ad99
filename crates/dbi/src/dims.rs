//! HIP's `gridDim` and `blockDim` from the AQL dispatch packet, for code
//! object v4 kernels (Debian's hipcc 5.2 builds those): they have no
//! `hidden_block_count`/`hidden_group_size` arguments, and HIP computes
//! `gridDim` as the grid size over the work-group size, rounded up
//! (`__ockl_get_num_groups`), from the packet the dispatch pointer points
//! at.
//!
//! [`emit_dim`] is machine code for kernel entry (where SCC is dead): it
//! reads the packet through the kernel's dispatch-pointer SGPR pair and
//! leaves one axis's `gridDim` and `blockDim` in two SGPRs. The division
//! is done in double precision (exact operands: a 32-bit grid size and a
//! 16-bit work-group size; the reciprocal refined by Newton steps to
//! about 2^-52, so the product is within 2^-20 of n / d while quotients
//! of distinct n are at least 2^-16 apart) and corrected with integer
//! arithmetic, so the quotient is exact.

use lathe_isa::{BuildError, Instruction, Modifiers, Opcode, Operand, RegRange, Target};

use crate::asm::{build, build_m, smem_load, waitcnt};

/// Byte offset of `workgroup_size_x` in the AQL kernel dispatch packet
/// (16-bit fields x, y, z).
pub const PACKET_WORKGROUP_SIZE: u32 = 4;
/// Byte offset of `grid_size_x` (32-bit fields x, y, z).
pub const PACKET_GRID_SIZE: u32 = 12;

fn s(n: u16) -> Operand {
    Operand::Reg(RegRange::sgpr(n, 1))
}

fn v(n: u16, c: u8) -> Operand {
    Operand::Reg(RegRange::vgpr(n, c))
}

/// Appends code that sets `q` to `gridDim[ax]` and `d` to `blockDim[ax]`
/// of this dispatch (`ax` 0..3), read through the dispatch pointer in
/// `dp..dp+1`. Uses the SGPRs `tmp..tmp+1` and the VGPRs `vt..vt+3` (`vt`
/// even), writes SCC: emit it where SCC is dead (kernel entry). `q`, `d`,
/// `tmp` and `dp` must not overlap.
#[allow(clippy::too_many_arguments)]
pub fn emit_dim(
    t: Target,
    dp: u16,
    ax: u8,
    q: u16,
    d: u16,
    tmp: u16,
    vt: u16,
    code: &mut Vec<Instruction>,
) -> Result<(), BuildError> {
    // blockDim: the packet's 16-bit work-group size (x and y share a
    // dword; S_BFE_U32's second operand is width << 16 | offset).
    let ax = u32::from(ax.min(2));
    code.push(smem_load(
        t,
        Opcode::S_LOAD_DWORD,
        d,
        dp,
        PACKET_WORKGROUP_SIZE + 4 * (ax / 2),
    )?);
    // n = grid_size[ax] (in tmp).
    code.push(smem_load(
        t,
        Opcode::S_LOAD_DWORD,
        tmp,
        dp,
        PACKET_GRID_SIZE + 4 * ax,
    )?);
    code.push(waitcnt(t, 63, 0)?);
    code.push(build(
        t,
        Opcode::S_BFE_U32,
        &[s(d), s(d), Operand::Literal((16 << 16) | (16 * (ax % 2)))],
    )?);
    // r = 1 / d: the hardware reciprocal (2^29 ulp) refined by two Newton
    // steps (e = 1 - d r; r += r e), each squaring the error.
    code.push(build(t, Opcode::V_CVT_F64_U32_E32, &[v(vt + 2, 2), s(d)])?);
    code.push(build(
        t,
        Opcode::V_RCP_F64_E32,
        &[v(vt + 2, 2), v(vt + 2, 2)],
    )?);
    let mut neg0 = Modifiers::default();
    neg0.neg = 1;
    for _ in 0..2 {
        code.push(build(t, Opcode::V_CVT_F64_U32_E32, &[v(vt, 2), s(d)])?);
        code.push(build_m(
            t,
            Opcode::V_FMA_F64,
            &neg0,
            &[
                v(vt, 2),
                v(vt, 2),
                v(vt + 2, 2),
                Operand::Float(lathe_isa::InlineFloat::One),
            ],
        )?);
        code.push(build(
            t,
            Opcode::V_FMA_F64,
            &[v(vt + 2, 2), v(vt + 2, 2), v(vt, 2), v(vt + 2, 2)],
        )?);
    }
    // q = trunc(n r): floor(n / d), or one less when n / d is whole.
    code.push(build(t, Opcode::V_CVT_F64_U32_E32, &[v(vt, 2), s(tmp)])?);
    code.push(build(
        t,
        Opcode::V_MUL_F64,
        &[v(vt, 2), v(vt, 2), v(vt + 2, 2)],
    )?);
    code.push(build(t, Opcode::V_CVT_U32_F64_E32, &[v(vt, 1), v(vt, 2)])?);
    code.push(build(t, Opcode::V_READFIRSTLANE_B32, &[s(q), v(vt, 1)])?);
    // tmp+1 = r = n - q d.
    code.push(build(t, Opcode::S_MUL_I32, &[s(tmp + 1), s(q), s(d)])?);
    code.push(build(
        t,
        Opcode::S_SUB_U32,
        &[s(tmp + 1), s(tmp), s(tmp + 1)],
    )?);
    // r >= d: q += 1, r -= d.
    code.push(build(t, Opcode::S_CMP_GE_U32, &[s(tmp + 1), s(d)])?);
    code.push(build(
        t,
        Opcode::S_CSELECT_B32,
        &[s(tmp), s(d), Operand::Int(0)],
    )?);
    code.push(build(
        t,
        Opcode::S_ADDC_U32,
        &[s(q), s(q), Operand::Int(0)],
    )?);
    code.push(build(
        t,
        Opcode::S_SUB_U32,
        &[s(tmp + 1), s(tmp + 1), s(tmp)],
    )?);
    // Rounded up: r != 0: q += 1.
    code.push(build(
        t,
        Opcode::S_CMP_LG_U32,
        &[s(tmp + 1), Operand::Int(0)],
    )?);
    code.push(build(
        t,
        Opcode::S_ADDC_U32,
        &[s(q), s(q), Operand::Int(0)],
    )?);
    Ok(())
}

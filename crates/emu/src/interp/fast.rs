//! The fast tier: common VALU instructions as compact µops that compute
//! straight into the destination VGPR.
//!
//! At decode ([`Fast::of`]) an instruction whose semantics are a pure
//! per-lane function of 32-bit sources — integer ALU, f32 add/mul/FMA with
//! `abs`/`neg`, packed f32 — and that has none of what the general
//! handlers deal with (clamp, output modifiers, SDWA, DPP, AGPRs, 64-bit
//! or special scalar operands) becomes a [`Fast`]: the operation and its
//! operands as VGPR indices, SGPR numbers or constants. When the wave
//! runs it with a full EXEC, no `s_set_gpr_idx_on` indexing and nothing
//! for the `s_waitcnt` check to look at, [`run`] executes it:
//!
//! - the register file is viewed as cells (`Cell<u32>` per lane), so a
//!   destination may be one of the sources without a copy and without
//!   `unsafe`;
//! - lanes are computed eight at a time, every source lane of a group read
//!   before any is written, so the loop compiles to vector loads, one
//!   vector operation and vector stores (AVX2/FMA clone chosen at run
//!   time, as in [`crate::lanes`]);
//! - a scalar or constant source is one value, splatted by the compiler.
//!
//! Results are bit-identical to the general handlers: the same host
//! operations under the same denormal flushing. What the general handler
//! would send to its reference path (packed-f32 NaN results) is left to
//! it: [`run`] returns `false` before writing anything when any packed
//! input is not finite, and the caller takes the general path.

use std::cell::Cell;

use lathe_isa::{Encoding, Instruction, Operand, RegFile, RegRange};
use multiversion::multiversion;

use super::regs::{const32, const64, sreg_read, vop3_clamp_omod};
use super::valu::{mode_modelled, Flush, M};
use super::{DecodeCache, OpList};
use crate::lanes::flush32;
use crate::wave::{Wave, LANES, SGPRS};
use lathe_isa::reg::sreg::EXEC_LO;

/// What a [`Fast`] µop computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FOp {
    Mov,
    Not,
    Add,
    Sub,
    Subrev,
    And,
    Or,
    Xor,
    Lshl,
    Lshr,
    Ashr,
    MulLo,
    MulHi,
    MulU24,
    MinU,
    MaxU,
    MinI,
    MaxI,
    Add3,
    LshlAdd,
    AddLshl,
    LshlOr,
    AndOr,
    Or3,
    Xad,
    Bfi,
    MadU24,
    /// `v_add_co_u32`: carry-out lane mask to an SGPR pair or VCC.
    AddCo,
    /// `v_addc_co_u32`: carry-in from an SGPR pair or VCC too.
    AddcCo,
    AddF,
    SubF,
    SubrevF,
    MulF,
    FmaF,
    /// `d = a * b + d`.
    FmacF,
    PkFma,
    PkMul,
    PkAdd,
    // Scalar ALU: `dst` is an SGPR (s0..s101 or VCC), SCC as the ISA says.
    SMov,
    SAddU32,
    SSubU32,
    SAddI32,
    SSubI32,
    SAnd,
    SOr,
    SXor,
    SLshl,
    SLshr,
    SMulI32,
    // Scalar compares: SCC only.
    SCmpEq,
    SCmpLg,
    SCmpLtU,
    SCmpLeU,
    SCmpGtU,
    SCmpGeU,
    SCmpLtI,
    SCmpLeI,
    SCmpGtI,
    SCmpGeI,
    // Control: no-op and direct branches (taken: the decoded target).
    SAddcU32,
    SCselect,
    // 64-bit scalar logic (a pair of SGPRs or EXEC as a source, never EXEC
    // as the destination).
    SMov64,
    SAnd64,
    SOr64,
    SXor64,
    SAndn2_64,
    // Lane access, whatever EXEC is.
    ReadLane,
    WriteLane,
    SNop,
    Branch,
    BranchScc0,
    BranchScc1,
    BranchVccz,
    BranchVccnz,
    BranchExecz,
    BranchExecnz,
}

impl FOp {
    /// The µop of a mnemonic (without its `_e32`/`_e64` suffix).
    fn of(name: &str) -> Option<FOp> {
        use FOp::*;
        Some(match name {
            "v_mov_b32" => Mov,
            "v_not_b32" => Not,
            "v_add_u32" => Add,
            "v_sub_u32" => Sub,
            "v_subrev_u32" => Subrev,
            "v_and_b32" => And,
            "v_or_b32" => Or,
            "v_xor_b32" => Xor,
            "v_lshlrev_b32" => Lshl,
            "v_lshrrev_b32" => Lshr,
            "v_ashrrev_i32" => Ashr,
            "v_mul_lo_u32" => MulLo,
            "v_mul_hi_u32" => MulHi,
            "v_mul_u32_u24" => MulU24,
            "v_min_u32" => MinU,
            "v_max_u32" => MaxU,
            "v_min_i32" => MinI,
            "v_max_i32" => MaxI,
            "v_add3_u32" => Add3,
            "v_lshl_add_u32" => LshlAdd,
            "v_add_lshl_u32" => AddLshl,
            "v_lshl_or_b32" => LshlOr,
            "v_and_or_b32" => AndOr,
            "v_or3_b32" => Or3,
            "v_xad_u32" => Xad,
            "v_bfi_b32" => Bfi,
            "v_mad_u32_u24" => MadU24,
            "v_add_co_u32" => AddCo,
            "v_addc_co_u32" => AddcCo,
            "v_add_f32" => AddF,
            "v_sub_f32" => SubF,
            "v_subrev_f32" => SubrevF,
            "v_mul_f32" => MulF,
            "v_fma_f32" => FmaF,
            "v_fmac_f32" => FmacF,
            "v_pk_fma_f32" => PkFma,
            "v_pk_mul_f32" => PkMul,
            "v_pk_add_f32" => PkAdd,
            "s_mov_b32" => SMov,
            "s_add_u32" => SAddU32,
            "s_sub_u32" => SSubU32,
            "s_add_i32" => SAddI32,
            "s_sub_i32" => SSubI32,
            "s_and_b32" => SAnd,
            "s_or_b32" => SOr,
            "s_xor_b32" => SXor,
            "s_lshl_b32" => SLshl,
            "s_lshr_b32" => SLshr,
            "s_mul_i32" => SMulI32,
            "s_cmp_eq_u32" | "s_cmp_eq_i32" => SCmpEq,
            "s_cmp_lg_u32" | "s_cmp_lg_i32" => SCmpLg,
            "s_cmp_lt_u32" => SCmpLtU,
            "s_cmp_le_u32" => SCmpLeU,
            "s_cmp_gt_u32" => SCmpGtU,
            "s_cmp_ge_u32" => SCmpGeU,
            "s_cmp_lt_i32" => SCmpLtI,
            "s_cmp_le_i32" => SCmpLeI,
            "s_cmp_gt_i32" => SCmpGtI,
            "s_cmp_ge_i32" => SCmpGeI,
            "s_addc_u32" => SAddcU32,
            "s_cselect_b32" => SCselect,
            "s_mov_b64" => SMov64,
            "s_and_b64" => SAnd64,
            "s_or_b64" => SOr64,
            "s_xor_b64" => SXor64,
            "s_andn2_b64" => SAndn2_64,
            "v_readlane_b32" => ReadLane,
            "v_writelane_b32" => WriteLane,
            "s_cbranch_execz" => BranchExecz,
            "s_cbranch_execnz" => BranchExecnz,
            "s_nop" => SNop,
            "s_branch" => Branch,
            "s_cbranch_scc0" => BranchScc0,
            "s_cbranch_scc1" => BranchScc1,
            "s_cbranch_vccz" => BranchVccz,
            "s_cbranch_vccnz" => BranchVccnz,
            _ => return None,
        })
    }

    fn sources(self) -> usize {
        use FOp::*;
        match self {
            SNop | Branch | BranchScc0 | BranchScc1 | BranchVccz | BranchVccnz | BranchExecz
            | BranchExecnz => 0,
            Mov | Not | SMov | SMov64 => 1,
            Add3 | LshlAdd | AddLshl | LshlOr | AndOr | Or3 | Xad | Bfi | MadU24 | FmaF | PkFma => {
                3
            }
            _ => 2,
        }
    }

    fn float(self) -> bool {
        use FOp::*;
        matches!(
            self,
            AddF | SubF | SubrevF | MulF | FmaF | FmacF | PkFma | PkMul | PkAdd
        )
    }

    fn branch(self) -> bool {
        use FOp::*;
        matches!(
            self,
            Branch
                | BranchScc0
                | BranchScc1
                | BranchVccz
                | BranchVccnz
                | BranchExecz
                | BranchExecnz
        )
    }

    /// Writes one SGPR.
    fn scalar(self) -> bool {
        use FOp::*;
        matches!(
            self,
            SMov | SAddU32
                | SSubU32
                | SAddI32
                | SSubI32
                | SAnd
                | SOr
                | SXor
                | SLshl
                | SLshr
                | SMulI32
                | SAddcU32
                | SCselect
                | ReadLane
        )
    }

    /// Writes a pair of SGPRs.
    fn wide(self) -> bool {
        use FOp::*;
        matches!(self, SMov64 | SAnd64 | SOr64 | SXor64 | SAndn2_64)
    }

    /// Writes nothing but SCC or the PC.
    fn no_dst(self) -> bool {
        use FOp::*;
        self.branch()
            || matches!(
                self,
                SCmpEq
                    | SCmpLg
                    | SCmpLtU
                    | SCmpLeU
                    | SCmpGtU
                    | SCmpGeU
                    | SCmpLtI
                    | SCmpLeI
                    | SCmpGtI
                    | SCmpGeI
                    | SNop
            )
    }

    /// Reads or writes one lane of a VGPR.
    fn lanewise(self) -> bool {
        matches!(self, FOp::ReadLane | FOp::WriteLane)
    }

    /// Runs in the scalar part of [`exec`] (no lane loop).
    fn salu(self) -> bool {
        self.scalar() || self.wide() || self.no_dst() || self == FOp::WriteLane
    }

    /// A whole-wave vector operation: needs a full EXEC.
    fn full_exec(self) -> bool {
        !self.salu()
    }

    fn packed(self) -> bool {
        matches!(self, FOp::PkFma | FOp::PkMul | FOp::PkAdd)
    }
}

/// A source as decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Src {
    /// VGPR number.
    V(u16),
    /// Scalar register number (read with the general scalar read).
    S(u16),
    /// Constant.
    K(u32),
}

/// One fast µop: the operation, the destination VGPR, up to three sources
/// with their f32 sign modifiers as masks (element = `(x & and) ^ xor`),
/// and for packed ops which half of each source feeds each result half.
#[derive(Clone, Copy, Debug)]
pub(super) struct Fast {
    op: FOp,
    dst: u16,
    /// The sources (for packed ops: of the low result).
    src: [Src; 3],
    /// Packed ops: the sources of the high result.
    hi: [Src; 3],
    /// One past the highest VGPR the µop touches (checked against the
    /// wave's file once per execution).
    top: u16,
    and: [u32; 3],
    xor: [u32; 3],
    /// Packed ops: the `neg` of the high result's sources (bit `k`).
    neg_hi: u8,
    /// 64-bit scalar ops: the constant sources.
    k64: [u64; 2],
    /// Carry ops: the SGPR pairs (VCC is 106) receiving the carry-out and
    /// giving the carry-in.
    carry: [u16; 2],
}

impl Fast {
    /// Whether the µop needs a full EXEC (whole-wave vector operations;
    /// scalar and lane-access µops run under any EXEC).
    pub(super) fn full_exec(&self) -> bool {
        self.op.full_exec()
    }

    /// The µop of the instruction decoded at `pc`, if it has one (a branch
    /// only when its target is known at decode).
    pub(super) fn of(inst: &Instruction, pc: u64, ops: &OpList) -> Option<Fast> {
        let info = inst.opcode();
        if info.is_invalid() {
            return None;
        }
        let op = FOp::of(super::base_name(info.info().name))?;
        if op.branch() && inst.branch_target(pc).is_none() {
            return None;
        }
        let enc = inst.encoding();
        let salu = op.salu();
        let encodings: &[Encoding] = if salu && !op.lanewise() {
            &[
                Encoding::Sop1,
                Encoding::Sop2,
                Encoding::Sopc,
                Encoding::Sopp,
            ]
        } else {
            &[
                Encoding::Vop1,
                Encoding::Vop2,
                Encoding::Vop3,
                Encoding::Vop3p,
            ]
        };
        if !encodings.contains(&enc) {
            return None;
        }
        if op.no_dst() && op.sources() == 0 {
            // s_nop and direct branches: nothing to resolve.
            return Some(Fast {
                op,
                dst: 0,
                src: [Src::K(0); 3],
                hi: [Src::K(0); 3],
                top: 0,
                and: [u32::MAX; 3],
                xor: [0; 3],
                neg_hi: 0,
                k64: [0; 2],
                carry: [0; 2],
            });
        }
        if vop3_clamp_omod(inst) != (false, 0) {
            return None;
        }
        let words = inst.words();
        let (w0, w1) = (words[0], words.get(1).copied().unwrap_or(0));
        if enc == Encoding::Vop3 && w0 >> 11 & 15 != 0 {
            // op_sel (f16 forms only; never on these ops, but be exact).
            return None;
        }
        if op.packed() != (enc == Encoding::Vop3p) {
            return None;
        }
        let carry = matches!(op, FOp::AddCo | FOp::AddcCo);
        // A carry op's second destination and the carry-in source of
        // `v_addc_co_u32_e64`: plain SGPR pairs.
        let pair = |k: Option<&lathe_isa::Op>| match k.map(|o| o.value) {
            Some(Operand::Reg(RegRange {
                file: RegFile::Scalar,
                first,
                ..
            })) if usize::from(first) + 1 < SGPRS => Some(first),
            _ => None,
        };
        let (extra_dst, extra_src) = if carry {
            (
                usize::from(ops.ndst == 2),
                usize::from(op == FOp::AddcCo && ops.nsrc == 3),
            )
        } else {
            (0, 0)
        };
        if usize::from(ops.ndst) != usize::from(!op.no_dst()) + extra_dst
            || ops.nsrc as usize != op.sources() + extra_src
        {
            return None;
        }
        let carry_pairs = [
            if extra_dst == 1 {
                pair(ops.dst(1))?
            } else {
                VCC_PAIR
            },
            if extra_src == 1 {
                pair(ops.src(2))?
            } else {
                VCC_PAIR
            },
        ];
        let dst = match ops.dst(0).map(|d| d.value) {
            None => 0,
            Some(Operand::Reg(RegRange {
                file: RegFile::Vgpr,
                first,
                ..
            })) if !salu || op == FOp::WriteLane => first,
            // s0..s101 and VCC: plain writes.
            Some(Operand::Reg(RegRange {
                file: RegFile::Scalar,
                first,
                ..
            })) if op.scalar() && usize::from(first) < SGPRS => first,
            Some(Operand::Reg(RegRange {
                file: RegFile::Scalar,
                first,
                ..
            })) if op.wide() && usize::from(first) + 1 < SGPRS => first,
            _ => return None,
        };
        let mut f = Fast {
            op,
            dst,
            src: [Src::K(0); 3],
            hi: [Src::K(0); 3],
            top: if salu && op != FOp::WriteLane {
                0
            } else {
                dst + 1
            },
            and: [u32::MAX; 3],
            xor: [0; 3],
            neg_hi: 0,
            k64: [0; 2],
            carry: carry_pairs,
        };
        for k in 0..op.sources() {
            let s = ops.src(k)?;
            f.src[k] = match s.value {
                Operand::Reg(RegRange {
                    file: RegFile::Vgpr,
                    first,
                    ..
                }) => Src::V(first),
                // Vector µops read plain SGPRs (a packed one a pair of
                // them); scalar µops any scalar register.
                Operand::Reg(RegRange {
                    file: RegFile::Scalar,
                    first,
                    ..
                }) if (salu && !op.wide())
                    || usize::from(first) + usize::from(op.packed() || op.wide()) < SGPRS
                    || (op.wide() && first == EXEC_LO) =>
                {
                    Src::S(first)
                }
                Operand::Reg(_) => return None,
                _ if op.wide() => {
                    f.k64[k] = const64(s)?;
                    Src::K(0)
                }
                _ => Src::K(const32(s)?),
            };
            if s.sext {
                return None;
            }
            if op.float() {
                if s.abs {
                    f.and[k] = 0x7fff_ffff;
                }
                if s.neg {
                    f.xor[k] = 0x8000_0000;
                }
            } else if s.abs || s.neg {
                return None;
            }
        }
        if op.packed() {
            if w0 >> 15 & 1 == 1 {
                return None; // clamp
            }
            // A pair's half: the register `first + half`, or the scalar
            // pair's half; a constant feeds both.
            let half = |s: Src, h: u32| match s {
                Src::V(r) => Src::V(r + h as u16),
                Src::S(r) => Src::S(r + h as u16),
                k => k,
            };
            for k in 0..op.sources() {
                let lo = w0 >> (11 + k) & 1;
                let hi = if k < 2 {
                    w1 >> (27 + k) & 1
                } else {
                    w0 >> 14 & 1
                };
                let s = f.src[k];
                (f.src[k], f.hi[k]) = (half(s, lo), half(s, hi));
                // Packed modifiers come from the instruction words, not the
                // operand list.
                f.xor[k] = if w1 >> (29 + k) & 1 == 1 {
                    0x8000_0000
                } else {
                    0
                };
                f.and[k] = u32::MAX;
                f.neg_hi |= ((w0 >> (8 + k) & 1) as u8) << k;
                // The low result is written first: no source of the high
                // result may read it.
                if f.hi[k] == Src::V(dst) {
                    return None;
                }
            }
            f.top = dst + 2;
        }
        for s in f.src.iter().chain(&f.hi) {
            if let Src::V(r) = *s {
                f.top = f.top.max(r + 1);
            }
        }
        Some(f)
    }
}

/// What executing a µop did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Out {
    /// Nothing: the general handler must run instead.
    Declined,
    /// Done; the next instruction follows.
    Next,
    /// A branch taken to the decoded target.
    Taken,
}

/// Lanes of a source.
trait Lanes: Copy {
    fn at(self, l: usize) -> u32;
}

impl Lanes for &[Cell<u32>; LANES] {
    #[inline(always)]
    fn at(self, l: usize) -> u32 {
        self[l].get()
    }
}

impl Lanes for u32 {
    #[inline(always)]
    fn at(self, _l: usize) -> u32 {
        self
    }
}

/// VCC's index in [`Wave::sgpr`].
const VCC_PAIR: u16 = 106;

/// The lanes of VGPR `r` in the register file viewed as cells (`r` was
/// checked against the file: a miss is a bug, and panics).
#[inline(always)]
fn reg(cells: &[Cell<u32>], r: usize) -> &[Cell<u32>; LANES] {
    cells[r * LANES..(r + 1) * LANES]
        .try_into()
        .expect("a whole register")
}

/// The value of a scalar or constant source (`S` numbers below
/// [`SGPRS`], checked at decode).
#[inline(always)]
fn splat(sg: &[u32; SGPRS], s: Src) -> u32 {
    match s {
        Src::S(r) => sg[usize::from(r)],
        Src::K(k) => k,
        Src::V(_) => 0,
    }
}

/// `d[l] = f(l)` for every lane, eight lanes at a time: each group's
/// sources are read before its results are written, so `d` may be a
/// source.
#[inline(always)]
fn apply(d: &[Cell<u32>; LANES], f: impl Fn(usize) -> u32) {
    let mut c = 0;
    while c < LANES {
        let mut r = [0u32; 8];
        for (i, x) in r.iter_mut().enumerate() {
            *x = f(c + i);
        }
        for (i, x) in r.into_iter().enumerate() {
            d[c + i].set(x);
        }
        c += 8;
    }
}

/// [`apply`], with the lanes whose result is a NaN recomputed by `fix`
/// (from the same, not yet overwritten, sources).
#[inline(always)]
fn apply_nan(d: &[Cell<u32>; LANES], f: impl Fn(usize) -> u32, fix: impl Fn(usize) -> u32) {
    let mut c = 0;
    while c < LANES {
        let mut r = [0u32; 8];
        for (i, x) in r.iter_mut().enumerate() {
            *x = f(c + i);
        }
        // Branch-free, so the check stays a vector compare.
        let mut nan = 0u32;
        for x in r {
            nan |= u32::from(x & 0x7fff_ffff > 0x7f80_0000);
        }
        if nan != 0 {
            for (i, x) in r.iter_mut().enumerate() {
                if *x & 0x7fff_ffff > 0x7f80_0000 {
                    *x = fix(c + i);
                }
            }
        }
        for (i, x) in r.into_iter().enumerate() {
            d[c + i].set(x);
        }
        c += 8;
    }
}

/// Expands `$body` once per combination of resolved source kinds, with
/// each `$x` bound to the lanes of its source.
macro_rules! kinds {
    ($cells:expr, $sg:expr, [$($s:expr => $x:ident),*], $body:expr) => {
        kinds!(@ $cells, $sg, [$($s => $x),*], [], $body)
    };
    (@ $cells:expr, $sg:expr, [], [$($done:tt)*], $body:expr) => {{
        $($done)*
        $body
    }};
    (@ $cells:expr, $sg:expr, [$s:expr => $x:ident $(, $rs:expr => $rx:ident)*], [$($done:tt)*], $body:expr) => {
        match $s {
            Src::V(r) => kinds!(@ $cells, $sg, [$($rs => $rx),*],
                [$($done)* let $x = reg($cells, usize::from(r));], $body),
            s => kinds!(@ $cells, $sg, [$($rs => $rx),*],
                [$($done)* let $x = splat($sg, s);], $body),
        }
    };
}

/// Executes `f` on `w` (full EXEC assumed by the caller). Returns `false`,
/// having changed nothing, when the general handler must run instead: a
/// register outside the wave's file, a MODE the fast tier does not model,
/// or a packed input that is not finite.
#[multiversion(targets("x86_64+avx2+fma+f16c"))]
pub(super) fn run(f: &Fast, w: &mut Wave) -> Out {
    exec(f, w)
}

/// Runs the µops of straight-line code from the decode-cache entry `k`
/// (the instruction at `w.pc`) on, at most `budget` of them, counting
/// each in `counts` and `w.instructions` and advancing `w.pc`; stops at
/// the first entry without a µop, whose µop declines, or that needs a
/// full EXEC the wave does not have. The caller has checked what µops
/// cannot change (no GPR indexing, nothing owed to `s_waitcnt`); no µop
/// writes EXEC. Returns how many ran and the cache entry of the
/// instruction now at `w.pc`, when it is decoded.
#[multiversion(targets("x86_64+avx2+fma+f16c"))]
pub(super) fn lane(
    cache: &mut DecodeCache,
    counts: &mut [u64],
    w: &mut Wave,
    mut k: usize,
    budget: u64,
) -> (u64, Option<usize>) {
    let mut n = 0;
    while n < budget {
        let d = &cache.arena[k];
        let Some(f) = &d.fast else { break };
        if f.op.full_exec() && w.exec != u64::MAX {
            break;
        }
        let taken = match exec(f, w) {
            Out::Declined => break,
            Out::Next => {
                w.pc += u64::from(d.len);
                false
            }
            Out::Taken => {
                // Only branches with a decoded target get a µop.
                w.pc = d.target.unwrap_or(w.pc + u64::from(d.len));
                true
            }
        };
        n += 1;
        w.instructions += 1;
        if let Some(c) = counts.get_mut(d.slot as usize) {
            *c += 1;
        }
        let link = if taken { d.taken.get() } else { d.next.get() };
        k = match link {
            0 => match cache.find(w.pc) {
                Some(j) => {
                    let d = &cache.arena[k];
                    (if taken { &d.taken } else { &d.next }).set(j as u32 + 1);
                    j
                }
                None => return (n, None),
            },
            j => j as usize - 1,
        };
    }
    (n, Some(k))
}

/// [`run`]'s body, inlined into each compiled version.
#[inline(always)]
fn exec(f: &Fast, w: &mut Wave) -> Out {
    let n = w.vgpr.len();
    let fz = if f.op.float() {
        if w.mode != M.bits() && !mode_modelled(w.mode, false) {
            return Out::Declined;
        }
        Flush::f32(w.mode)
    } else {
        Flush::f32(M.bits())
    };
    let (fi, fo) = (fz.input, fz.output);
    let dst = f.dst as usize;
    if usize::from(f.top) > n {
        return Out::Declined;
    }
    if f.op.wide() {
        return wide(f, w);
    }
    if f.op.salu() {
        // Scalar sources of scalar µops: any scalar register.
        let res = |s: Src| match s {
            Src::S(r) => sreg_read(w, r),
            Src::K(c) => c,
            Src::V(_) => 0,
        };
        let (a, b) = (res(f.src[0]), res(f.src[1]));
        if f.op == FOp::WriteLane {
            w.vgpr[dst][b as usize & (LANES - 1)] = a;
            return Out::Next;
        }
        return scalar(f, w, [a, b]);
    }
    // VGPR numbers were checked against the file above; scalar sources
    // are plain SGPRs (the register file and the SGPRs are disjoint
    // fields, borrowed apart).
    if matches!(f.op, FOp::AddCo | FOp::AddcCo) {
        return carry(f, w);
    }
    let mode = w.mode;
    let sg = &w.sgpr;
    let cells = Cell::from_mut(w.vgpr.as_flattened_mut()).as_slice_of_cells();
    let d = reg(cells, dst);
    use FOp::*;
    match f.op {
        Mov => kinds!(cells, sg, [f.src[0] => a], apply(d, |l| a.at(l))),
        Not => kinds!(cells, sg, [f.src[0] => a], apply(d, |l| !a.at(l))),
        Add => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| a.at(l).wrapping_add(b.at(l))))
        }
        Sub => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| a.at(l).wrapping_sub(b.at(l))))
        }
        Subrev => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| b.at(l).wrapping_sub(a.at(l))))
        }
        And => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| a.at(l) & b.at(l))),
        Or => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| a.at(l) | b.at(l))),
        Xor => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| a.at(l) ^ b.at(l))),
        Lshl => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| b.at(l) << (a.at(l) & 31)))
        }
        Lshr => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| b.at(l) >> (a.at(l) & 31)))
        }
        Ashr => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            ((b.at(l) as i32) >> (a.at(l) & 31)) as u32
        })),
        MulLo => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| a.at(l).wrapping_mul(b.at(l))))
        }
        MulHi => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            ((u64::from(a.at(l)) * u64::from(b.at(l))) >> 32) as u32
        })),
        MulU24 => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            (a.at(l) & 0xff_ffff).wrapping_mul(b.at(l) & 0xff_ffff)
        })),
        MinU => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| a.at(l).min(b.at(l))))
        }
        MaxU => {
            kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| a.at(l).max(b.at(l))))
        }
        MinI => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            (a.at(l) as i32).min(b.at(l) as i32) as u32
        })),
        MaxI => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            (a.at(l) as i32).max(b.at(l) as i32) as u32
        })),
        Add3 => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            a.at(l).wrapping_add(b.at(l)).wrapping_add(c.at(l))
        })),
        LshlAdd => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            (a.at(l) << (b.at(l) & 31)).wrapping_add(c.at(l))
        })),
        AddLshl => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            a.at(l).wrapping_add(b.at(l)) << (c.at(l) & 31)
        })),
        LshlOr => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            (a.at(l) << (b.at(l) & 31)) | c.at(l)
        })),
        AndOr => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            (a.at(l) & b.at(l)) | c.at(l)
        })),
        Or3 => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            a.at(l) | b.at(l) | c.at(l)
        })),
        Xad => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            (a.at(l) ^ b.at(l)).wrapping_add(c.at(l))
        })),
        Bfi => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            let m = a.at(l);
            (m & b.at(l)) | (!m & c.at(l))
        })),
        MadU24 => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            (a.at(l) & 0xff_ffff)
                .wrapping_mul(b.at(l) & 0xff_ffff)
                .wrapping_add(c.at(l))
        })),
        AddF | SubF | SubrevF | MulF | FmaF | FmacF | PkFma | PkMul | PkAdd => {
            return match (fi, fo) {
                (false, false) => float::<false, false>(f, cells, sg, d, mode),
                (true, true) => float::<true, true>(f, cells, sg, d, mode),
                (true, false) => float::<true, false>(f, cells, sg, d, mode),
                (false, true) => float::<false, true>(f, cells, sg, d, mode),
            };
        }
        // Scalar µops returned above.
        _ => return Out::Declined,
    }
    Out::Next
}

/// The float µops of [`run`], with the denormal flushing of MODE as
/// constants (`FI`: inputs, `FO`: results), so the usual MODE (no
/// flushing) costs nothing per lane.
#[inline(always)]
fn float<const FI: bool, const FO: bool>(
    f: &Fast,
    cells: &[Cell<u32>],
    sg: &[u32; SGPRS],
    d: &[Cell<u32>; LANES],
    mode: u32,
) -> Out {
    let [and0, and1, and2] = f.and;
    let [xor0, xor1, xor2] = f.xor;
    let fl = |x: u32, and: u32, xor: u32| f32::from_bits(flush32(FI, (x & and) ^ xor));
    let out = |x: f32| flush32(FO, x.to_bits());
    let dst = f.dst as usize;
    use FOp::*;
    match f.op {
        AddF => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            out(fl(a.at(l), and0, xor0) + fl(b.at(l), and1, xor1))
        })),
        SubF => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            out(fl(a.at(l), and0, xor0) - fl(b.at(l), and1, xor1))
        })),
        SubrevF => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            out(fl(b.at(l), and1, xor1) - fl(a.at(l), and0, xor0))
        })),
        MulF => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            out(fl(a.at(l), and0, xor0) * fl(b.at(l), and1, xor1))
        })),
        FmaF => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b, f.src[2] => c], apply(d, |l| {
            out(fl(a.at(l), and0, xor0).mul_add(fl(b.at(l), and1, xor1), fl(c.at(l), and2, xor2)))
        })),
        FmacF => kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            out(fl(a.at(l), and0, xor0).mul_add(fl(b.at(l), and1, xor1), fl(d[l].get(), u32::MAX, 0)))
        })),
        PkFma | PkMul | PkAdd => {
            // NaN results take the general handler's reference path, lane
            // by lane, as there.
            let m = crate::alu::Mode::from_bits(mode);
            let dh = reg(cells, dst + 1);
            for (half, dd, srcs) in [(0, d, f.src), (1, dh, f.hi)] {
                let x = |k: usize| {
                    if half == 0 {
                        f.xor[k]
                    } else if f.neg_hi >> k & 1 == 1 {
                        0x8000_0000
                    } else {
                        0
                    }
                };
                let (x0, x1, x2) = (x(0), x(1), x(2));
                let mx = u32::MAX;
                match f.op {
                    PkFma => {
                        kinds!(cells, sg, [srcs[0] => a, srcs[1] => b, srcs[2] => c], apply_nan(dd, |l| {
                        out(fl(a.at(l), mx, x0).mul_add(fl(b.at(l), mx, x1), fl(c.at(l), mx, x2)))
                    }, |l| crate::alu::float::fma_f32(a.at(l) ^ x0, b.at(l) ^ x1, c.at(l) ^ x2, m)))
                    }
                    PkMul => kinds!(cells, sg, [srcs[0] => a, srcs[1] => b], apply_nan(dd, |l| {
                        out(fl(a.at(l), mx, x0) * fl(b.at(l), mx, x1))
                    }, |l| crate::alu::float::mul_f32(a.at(l) ^ x0, b.at(l) ^ x1, m))),
                    _ => kinds!(cells, sg, [srcs[0] => a, srcs[1] => b], apply_nan(dd, |l| {
                        out(fl(a.at(l), mx, x0) + fl(b.at(l), mx, x1))
                    }, |l| crate::alu::float::add_f32(a.at(l) ^ x0, b.at(l) ^ x1, m))),
                }
            }
        }
        _ => return Out::Declined,
    }
    Out::Next
}

/// The scalar µops of [`run`]: SALU results and SCC exactly as the SALU
/// handlers compute them; a branch reports whether it is taken.
#[inline(always)]
fn scalar(f: &Fast, w: &mut Wave, [a, b]: [u32; 2]) -> Out {
    use FOp::*;
    let (res, scc) = match f.op {
        SMov => (a, None),
        SAddU32 => (
            a.wrapping_add(b),
            Some(u64::from(a) + u64::from(b) > 0xffff_ffff),
        ),
        SSubU32 => (a.wrapping_sub(b), Some(b > a)),
        SAddI32 => (
            a.wrapping_add(b),
            Some((a as i32).checked_add(b as i32).is_none()),
        ),
        SSubI32 => (
            a.wrapping_sub(b),
            Some((a as i32).checked_sub(b as i32).is_none()),
        ),
        SAnd => nz(a & b),
        SOr => nz(a | b),
        SXor => nz(a ^ b),
        SLshl => nz(a << (b & 31)),
        SLshr => nz(a >> (b & 31)),
        SMulI32 => (a.wrapping_mul(b), None),
        SAddcU32 => {
            let t = u64::from(a) + u64::from(b) + u64::from(w.scc);
            (t as u32, Some(t > 0xffff_ffff))
        }
        SCselect => (if w.scc { a } else { b }, None),
        ReadLane => {
            // `top` covers the source VGPR.
            let Src::V(v) = f.src[0] else {
                return Out::Declined;
            };
            (w.vgpr[usize::from(v)][b as usize & (LANES - 1)], None)
        }
        SCmpEq => return cmp(w, a == b),
        SCmpLg => return cmp(w, a != b),
        SCmpLtU => return cmp(w, a < b),
        SCmpLeU => return cmp(w, a <= b),
        SCmpGtU => return cmp(w, a > b),
        SCmpGeU => return cmp(w, a >= b),
        SCmpLtI => return cmp(w, (a as i32) < (b as i32)),
        SCmpLeI => return cmp(w, (a as i32) <= (b as i32)),
        SCmpGtI => return cmp(w, (a as i32) > (b as i32)),
        SCmpGeI => return cmp(w, (a as i32) >= (b as i32)),
        SNop => return Out::Next,
        Branch => return Out::Taken,
        BranchScc0 => return taken(!w.scc),
        BranchScc1 => return taken(w.scc),
        BranchVccz => return taken(w.vcc() == 0),
        BranchVccnz => return taken(w.vcc() != 0),
        BranchExecz => return taken(w.exec == 0),
        BranchExecnz => return taken(w.exec != 0),
        _ => return Out::Declined,
    };
    if let Some(s) = scc {
        w.scc = s;
    }
    w.sgpr[usize::from(f.dst)] = res;
    Out::Next
}

#[inline(always)]
fn nz(x: u32) -> (u32, Option<bool>) {
    (x, Some(x != 0))
}

#[inline(always)]
fn cmp(w: &mut Wave, c: bool) -> Out {
    w.scc = c;
    Out::Next
}

#[inline(always)]
fn taken(c: bool) -> Out {
    if c {
        Out::Taken
    } else {
        Out::Next
    }
}

/// The 64-bit scalar µops (SCC as the SALU handlers set it).
#[inline(always)]
fn wide(f: &Fast, w: &mut Wave) -> Out {
    let val = |k: usize| match f.src[k] {
        Src::S(EXEC_LO) => w.exec,
        Src::S(r) => {
            let r = usize::from(r);
            u64::from(w.sgpr[r]) | u64::from(w.sgpr[r + 1]) << 32
        }
        _ => f.k64[k],
    };
    use FOp::*;
    let (res, scc) = match f.op {
        SMov64 => (val(0), None),
        SAnd64 => (val(0) & val(1), Some(())),
        SOr64 => (val(0) | val(1), Some(())),
        SXor64 => (val(0) ^ val(1), Some(())),
        SAndn2_64 => (val(0) & !val(1), Some(())),
        _ => return Out::Declined,
    };
    if scc.is_some() {
        w.scc = res != 0;
    }
    let d = usize::from(f.dst);
    w.sgpr[d] = res as u32;
    w.sgpr[d + 1] = (res >> 32) as u32;
    Out::Next
}

/// `v_add_co_u32` and `v_addc_co_u32` under a full EXEC: the sums into
/// the destination VGPR, the carries as a lane mask into the carry-out
/// pair (as the general handler: carry-in bit `l` of the carry-in pair).
#[inline(always)]
fn carry(f: &Fast, w: &mut Wave) -> Out {
    let pair = |r: u16| {
        let r = usize::from(r);
        u64::from(w.sgpr[r]) | u64::from(w.sgpr[r + 1]) << 32
    };
    let cin = if f.op == FOp::AddcCo {
        pair(f.carry[1])
    } else {
        0
    };
    // The carries gathered as `apply` computes the lanes.
    let carries = Cell::new(0u64);
    {
        let sg = &w.sgpr;
        let cells = Cell::from_mut(w.vgpr.as_flattened_mut()).as_slice_of_cells();
        let d = reg(cells, usize::from(f.dst));
        kinds!(cells, sg, [f.src[0] => a, f.src[1] => b], apply(d, |l| {
            let t = u64::from(a.at(l)) + u64::from(b.at(l)) + (cin >> l & 1);
            carries.set(carries.get() | (t >> 32) << l);
            t as u32
        }));
    }
    let cout = carries.get();
    let o = usize::from(f.carry[0]);
    w.sgpr[o] = cout as u32;
    w.sgpr[o + 1] = (cout >> 32) as u32;
    Out::Next
}

//! Matrix instructions (MFMA, SMFMAC) of gfx90a and gfx942, independent of
//! the decoder: the interpreter reads the A, B and C registers (VGPRs or
//! AGPRs), calls [`mfma`] or [`smfmac`], and writes the D registers back.
//!
//! # Shapes
//!
//! Every operation is a row of [`SHAPES`]: per-block dimensions M×N×K, the
//! number of blocks, A/B element types, accumulator type, and per target the
//! mnemonic, VOP3P-MAI opcode and what BLGP means. One generic mapping turns
//! (block, row, column, k) into (register, lane, bits) and back, for A, B
//! and C/D ([`Shape::a_slot`], [`Shape::b_slot`], [`Shape::cd_slot`] and
//! their inverses), following the general layout of the CDNA3/CDNA4 ISA
//! guides ("General input and output layout"):
//!
//! * Items: a lane's elements are numbered from 0 and packed little-endian,
//!   several per register for 8- and 16-bit types, one register pair per
//!   64-bit element.
//! * Inputs: with `KL = K·M·blocks/64` (the k values one lane holds),
//!   `A[b][i][k]` is item `k % KL` of lane `i + M·(b + blocks·(k / KL))`;
//!   `B[b][k][j]` likewise with `j` and N.
//! * 32-bit outputs: rows are grouped in 4s (`H = 4`), `B_I = ⌈64/(N·M/4)⌉`
//!   blocks share a register, `M_I = 64/B_I/N` row groups share one, `G =
//!   M/(4·M_I)`; `D[b][i][j]` is item `i%4 + 4·(i/(4·M_I) + G·(b/B_I))` of
//!   lane `j + N·((i/4)%M_I + M_I·(b%B_I))`.
//! * 64-bit outputs (f64) are laid out like the inputs with the row in place
//!   of k: with `R = 64/(N·blocks)`, `D[b][i][j]` is item `i / R` of lane
//!   `j + N·(b + blocks·(i % R))`. This is what AMD's matrix instruction
//!   calculator and the ROCm CDNA2 MFMA reference give for both f64 shapes
//!   (`v_mfma_f64_4x4x4f64`: lane `16i + 4b + j`); the ISA guide's general
//!   formula with `H = 1` would put it at `4i + 16b + j` instead, and an
//!   independent project reports the former from MI350 silicon.
//!
//! # Modifiers
//!
//! * CBSZ/ABID (multi-block shapes other than f64): block `b` reads its A
//!   from block `(b >> cbsz << cbsz) + abid`, i.e. one block of each group
//!   of `2^cbsz` neighbouring blocks is broadcast to the group. This is the
//!   rule of AMD's matrix instruction calculator and ROCm's MFMA intrinsic
//!   reference ("cbsz = 1: blocks 0 and 1 receive the same input values,
//!   blocks 2 and 3 ..."). The CDNA4 ISA guide words it per lane instead
//!   (`lane % S + S·abid` with `S = 64 >> cbsz`), which differs for the 4-
//!   and 16-block shapes with `0 < cbsz < log2(blocks)` — an open question.
//!   Requires `cbsz <= log2(blocks)` and `abid < 2^cbsz`; single-block shapes
//!   require both 0; f64 shapes ignore both (ISA guide).
//! * BLGP as a lane pattern: the B value that sits in lane `l` is read from
//!   lane 0: `l`, 1: `l % 32`, 2: `l % 32 + 32`, 3: `(l + 16) % 64`, 4–7:
//!   `l % 16 + 16·(blgp - 4)` (ISA guide table "Permutations corresponding to
//!   BLGP values"). On gfx942 the f64 shapes use BLGP bits 0/1/2 to negate
//!   A/B/C. Where a target does not support BLGP (see [`SHAPES`]) a non-zero
//!   value is an error.
//! * SMFMAC: CBSZ/ABID select the index set instead (below); BLGP must be 0.
//!
//! # Numerics
//!
//! `D = C + Σ_k A·B` per block, evaluated as `acc = C; for k in 0..K: acc =
//! fma(A[i][k], B[k][j], acc)` in k order, one rounding per step,
//! round-to-nearest-even (the ISA guide: MFMA ignores MODE.round and forces
//! RNE). Hardware sums in a wider, unspecified internal order; this choice is
//! exact whenever every partial sum is representable, and otherwise within a
//! few ulps of any other order. Specifically:
//!
//! * f16, bf16, fp8, bf8 inputs widen exactly to f32; their products are
//!   exact in f32, so each step rounds only the sum. Accumulation in f32.
//! * f32 inputs: f32 fma. xf32 inputs are first rounded to 10 mantissa bits
//!   (nearest-even; the rounding AMD's hardware applies is not documented).
//! * f64: f64 fma, accumulation in f64.
//! * i8: products are exact; the sum of C and all products is computed
//!   exactly and wraps to i32 (ISA: "carry out bits are dropped"); with the
//!   clamp bit it saturates instead.
//! * Denormals: kept for every input and output, except that f32/xf32 A and
//!   B inputs are flushed when [`Mods::flush_f32_input_denorms`] says MODE
//!   asks for it (ISA guide: `V_MFMA_F32_*_F32` honour MODE's denormal flags
//!   for their inputs; C, D and the small types ignore MODE).
//! * Clamp (float): a ±∞ result produced from finite inputs becomes ±MAX.
//! * NaN results are returned as the canonical quiet NaN (payloads are not
//!   modelled).
//! * EXEC is ignored: every lane of D is computed and written (ISA guide:
//!   "ignores exec mask ... forces it to 1 for all threads").
//!
//! The dense shapes other than f64 are evaluated by [`DenseKernel`] (A and
//! B widened once per execution into matrix layout, D accumulated in place,
//! vectorised), the rest element by element; both follow exactly the order
//! and rounding above, and the kernel is tested against the
//! element-by-element evaluation bit for bit.
//!
//! # SMFMAC (gfx942)
//!
//! A is 4:2 structured-sparse. Per lane, A holds half of its `KL` (dense)
//! k values: for each group of 4 consecutive k values two stored values
//! (items `2g`, `2g+1`) and, in the index register, two 2-bit positions
//! (bits `2t+1:2t` of the index set for item `t`) saying where in the group
//! they sit. `D = C + Σ` of the stored values times the B rows at those
//! positions (items in order); C is the destination's old value. The index
//! set (`KL` bits wide: 8 bits for 16-bit data, 16 for 8-bit) is chosen by
//! ABID when `CBSZ[1:0] == 0` and is set 0 otherwise (CDNA3 ISA guide; the
//! calculator was corrected to match in 2025). ABID bits beyond the set count
//! are ignored.

mod float;
mod kernel;
mod shapes;

pub use kernel::{DenseKernel, Frags};
pub use shapes::SHAPES;

use crate::wave::{VReg, LANES};
use std::fmt;

/// A processor with matrix cores (the emulator's targets).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// CDNA2 (MI200).
    Gfx90a,
    /// CDNA3 (MI300).
    Gfx942,
    /// CDNA4 (MI350): gfx942's operations without xf32, with OCP fp8/bf8,
    /// plus the doubled-K shapes and the f8f6f4 MFMAs.
    Gfx950,
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Target::Gfx90a => "gfx90a",
            Target::Gfx942 => "gfx942",
            Target::Gfx950 => "gfx950",
        })
    }
}

/// A/B element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InType {
    /// IEEE binary32.
    F32,
    /// binary32 storage, used at 10 mantissa bits (gfx942 `_xf32`).
    Xf32,
    /// IEEE binary16.
    F16,
    /// bfloat16.
    Bf16,
    /// Signed 8-bit integer.
    I8,
    /// gfx942 fp8: E4M3, bias 8, NaN = 0x80, no infinities.
    Fp8,
    /// gfx942 bf8: E5M2, bias 16, NaN = 0x80, no infinities.
    Bf8,
    /// OCP fp8 (gfx950): E4M3FN, bias 7, NaN = S.1111.111, no infinities.
    Fp8Ocp,
    /// OCP bf8 (gfx950): E5M2, bias 15, infinities and NaNs as IEEE.
    Bf8Ocp,
    /// OCP fp4 (gfx950 f8f6f4): E2M1, bias 1, no infinities or NaNs.
    Fp4,
    /// IEEE binary64.
    F64,
}

impl InType {
    /// Storage bits per element.
    pub const fn bits(self) -> u32 {
        match self {
            InType::Fp4 => 4,
            InType::I8 | InType::Fp8 | InType::Bf8 | InType::Fp8Ocp | InType::Bf8Ocp => 8,
            InType::F16 | InType::Bf16 => 16,
            InType::F32 | InType::Xf32 => 32,
            InType::F64 => 64,
        }
    }
}

/// C/D element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccType {
    /// binary32.
    F32,
    /// Signed 32-bit integer.
    I32,
    /// binary64.
    F64,
}

impl AccType {
    /// Storage bits per element.
    pub const fn bits(self) -> u32 {
        match self {
            AccType::F32 | AccType::I32 => 32,
            AccType::F64 => 64,
        }
    }
}

/// What the BLGP field means for an instruction on a target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlgpUse {
    /// Must be 0.
    Unsupported,
    /// B lane-group pattern.
    LaneGroups,
    /// Bits 0/1/2 negate A/B/C (gfx942 f64).
    Negate,
}

/// An instruction's spelling and encoding on one target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Variant {
    /// LLVM mnemonic as the disassembler prints it.
    pub name: &'static str,
    /// VOP3P-MAI opcode (bits 22:16 of the first dword).
    pub opcode: u8,
    /// Meaning of BLGP.
    pub blgp: BlgpUse,
}

/// One MFMA/SMFMAC operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shape {
    /// The instruction on gfx90a, if it exists there.
    pub gfx90a: Option<Variant>,
    /// The instruction on gfx942, if it exists there.
    pub gfx942: Option<Variant>,
    /// The instruction on gfx950, if it exists there.
    pub gfx950: Option<Variant>,
    /// Rows of A, C, D per block.
    pub m: usize,
    /// Columns of B, C, D per block.
    pub n: usize,
    /// Reduction length per block (dense K for SMFMAC).
    pub k: usize,
    /// Independent blocks.
    pub blocks: usize,
    /// Element type of A.
    pub a: InType,
    /// Element type of B.
    pub b: InType,
    /// Element type of C and D.
    pub acc: AccType,
    /// SMFMAC (4:2 sparse A, index register in src2).
    pub sparse: bool,
    /// CBSZ/ABID broadcast of A blocks is available.
    pub broadcast: bool,
    /// gfx950 `*_f8f6f4`: CBSZ and BLGP pick the A and B formats (0 fp8,
    /// 1 bf8, 2 fp6, 3 bf6, 4 fp4; see [`Shape::with_formats`]); `a`/`b`
    /// are fp8 here.
    pub f8f6f4: bool,
}

/// Where one matrix element lives: `bits` bits at `shift` of lane `lane`
/// of register `reg` (relative to the operand's first register); a 64-bit
/// element uses registers `reg` (low half) and `reg + 1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Slot {
    /// Register offset.
    pub reg: usize,
    /// Lane.
    pub lane: usize,
    /// Bit offset within the 32-bit register.
    pub shift: u32,
    /// Element size in bits (8, 16, 32 or 64).
    pub bits: u32,
}

impl Slot {
    fn at_item(item: usize, bits: u32, lane: usize) -> Slot {
        let bit = item * bits as usize;
        Slot {
            reg: bit / 32,
            lane,
            shift: (bit % 32) as u32,
            bits,
        }
    }

    /// The element's bits, zero-extended.
    pub fn read(&self, regs: &[VReg]) -> u64 {
        if self.bits == 64 {
            u64::from(regs[self.reg][self.lane]) | u64::from(regs[self.reg + 1][self.lane]) << 32
        } else {
            let mask = (1u64 << self.bits) - 1;
            (u64::from(regs[self.reg][self.lane]) >> self.shift) & mask
        }
    }

    /// Stores the element's bits (the low `bits` of `value`).
    pub fn write(&self, regs: &mut [VReg], value: u64) {
        if self.bits == 64 {
            regs[self.reg][self.lane] = value as u32;
            regs[self.reg + 1][self.lane] = (value >> 32) as u32;
        } else {
            let mask = (((1u64 << self.bits) - 1) as u32) << self.shift;
            let r = &mut regs[self.reg][self.lane];
            *r = (*r & !mask) | (((value as u32) << self.shift) & mask);
        }
    }
}

/// Registers needed for `items` elements of `bits` bits per lane.
const fn regs_for(items: usize, bits: u32) -> usize {
    (items * bits as usize).div_ceil(32)
}

/// Element index within a lane for (register, sub-element).
fn item_of(reg: usize, part: usize, bits: u32) -> Option<usize> {
    if bits == 64 {
        (part == 0).then_some(reg / 2)
    } else {
        let per = (32 / bits) as usize;
        (part < per).then_some(reg * per + part)
    }
}

impl Shape {
    /// The instruction on `target`, if it exists there.
    pub const fn variant(&self, target: Target) -> Option<&Variant> {
        match target {
            Target::Gfx90a => self.gfx90a.as_ref(),
            Target::Gfx942 => self.gfx942.as_ref(),
            Target::Gfx950 => self.gfx950.as_ref(),
        }
    }

    /// A `*_f8f6f4` shape with the A and B formats CBSZ (`a`) and BLGP
    /// (`b`) select: 0 fp8, 1 bf8, 4 fp4 (OCP). `None` for fp6/bf6 (2, 3:
    /// not modelled, D51) and values above 4. The operand registers follow
    /// from the element width (8 for fp8/bf8, 4 for fp4 at K = 128/64).
    pub fn with_formats(&self, a: u8, b: u8) -> Option<Shape> {
        let ty = |f: u8| match f {
            0 => Some(InType::Fp8Ocp),
            1 => Some(InType::Bf8Ocp),
            4 => Some(InType::Fp4),
            _ => None,
        };
        Some(Shape {
            a: ty(a)?,
            b: ty(b)?,
            ..*self
        })
    }

    /// A name for messages: the gfx90a mnemonic, else the gfx942 one.
    pub fn name(&self) -> &'static str {
        match (&self.gfx90a, &self.gfx942, &self.gfx950) {
            (Some(v), _, _) | (None, Some(v), _) | (None, None, Some(v)) => v.name,
            (None, None, None) => "?",
        }
    }

    /// The operation LLVM spells `name` on `target`. On gfx942 the older
    /// spellings LLVM's assembler also accepts are found too
    /// (`v_mfma_f32_32x32x1f32`, `v_mfma_f32_32x32x4bf16_1k`,
    /// `v_mfma_i32_16x16x32i8`): block suffixes (`_2b`), `_1k` and
    /// underscores are ignored there. On gfx90a only exact names match
    /// (`v_mfma_f32_32x32x4bf16` and `..._1k` are different operations).
    pub fn find(target: Target, name: &str) -> Option<&'static Shape> {
        let on = |s: &&Shape| s.variant(target).is_some_and(|v| v.name == name);
        if let Some(s) = SHAPES.iter().find(on) {
            return Some(s);
        }
        if target == Target::Gfx90a {
            return None;
        }
        let want = loose_name(name);
        SHAPES.iter().find(|s| {
            s.variant(target)
                .is_some_and(|v| loose_name(v.name) == want)
        })
    }

    /// The operation a decoded matrix opcode performs on `target`, keyed by
    /// its encoding and opcode field (the decoder's data, not its
    /// mnemonic): `None` for an opcode outside the VOP3P-MAI space or one
    /// the table has no row for.
    pub fn of_opcode(target: Target, op: lathe_isa::Opcode) -> Option<&'static Shape> {
        let info = op.info();
        if info.enc != lathe_isa::Encoding::Mai {
            return None;
        }
        Self::by_opcode(target, u8::try_from(info.code).ok()?)
    }

    /// The operation with VOP3P-MAI opcode `opcode` on `target`.
    pub fn by_opcode(target: Target, opcode: u8) -> Option<&'static Shape> {
        SHAPES
            .iter()
            .find(|s| s.variant(target).is_some_and(|v| v.opcode == opcode))
    }

    /// Dense k values each lane holds for A (`K·M·blocks/64`).
    pub const fn a_k_per_lane(&self) -> usize {
        self.k * self.m * self.blocks / LANES
    }

    /// Dense k values each lane holds for B (`K·N·blocks/64`).
    pub const fn b_k_per_lane(&self) -> usize {
        self.k * self.n * self.blocks / LANES
    }

    /// Registers of src0 (A). For SMFMAC, of the compressed A.
    pub const fn a_regs(&self) -> usize {
        let items = if self.sparse {
            self.a_k_per_lane() / 2
        } else {
            self.a_k_per_lane()
        };
        regs_for(items, self.a.bits())
    }

    /// Registers of src1 (B).
    pub const fn b_regs(&self) -> usize {
        regs_for(self.b_k_per_lane(), self.b.bits())
    }

    /// Registers of C and of D (they are the same size).
    pub const fn cd_regs(&self) -> usize {
        regs_for(self.m * self.n * self.blocks / LANES, self.acc.bits())
    }

    /// Where `A[block][i][k]` lives (dense shapes; for SMFMAC see
    /// [`Shape::sparse_a_slot`]).
    pub fn a_slot(&self, block: usize, i: usize, k: usize) -> Slot {
        debug_assert!(block < self.blocks && i < self.m && k < self.k && !self.sparse);
        in_slot(
            self.m,
            self.blocks,
            self.a_k_per_lane(),
            self.a.bits(),
            block,
            i,
            k,
        )
    }

    /// Where `B[block][k][j]` lives.
    pub fn b_slot(&self, block: usize, k: usize, j: usize) -> Slot {
        debug_assert!(block < self.blocks && j < self.n && k < self.k);
        in_slot(
            self.n,
            self.blocks,
            self.b_k_per_lane(),
            self.b.bits(),
            block,
            j,
            k,
        )
    }

    /// Where `C[block][i][j]` and `D[block][i][j]` live.
    pub fn cd_slot(&self, block: usize, i: usize, j: usize) -> Slot {
        debug_assert!(block < self.blocks && i < self.m && j < self.n);
        let (m, n, nb) = (self.m, self.n, self.blocks);
        let bits = self.acc.bits();
        if bits == 64 {
            let r = LANES / (n * nb);
            Slot::at_item(i / r, bits, j + n * (block + nb * (i % r)))
        } else {
            let bi = LANES.div_ceil(n * m / 4);
            let mi = LANES / bi / n;
            let g = m / (4 * mi);
            let item = i % 4 + 4 * (i / (4 * mi) + g * (block / bi));
            Slot::at_item(item, bits, j + n * ((i / 4) % mi + mi * (block % bi)))
        }
    }

    /// The A element (block, i, k) in sub-element `part` of register `reg`,
    /// lane `lane` (`part` counts elements from bit 0; always 0 for 32/64-bit
    /// types; for f64 either register of the pair names the element).
    /// `None` outside the operand. Dense shapes only.
    pub fn a_elem(&self, reg: usize, lane: usize, part: usize) -> Option<(usize, usize, usize)> {
        let item = item_of(reg, part, self.a.bits())?;
        in_elem(self.m, self.blocks, self.a_k_per_lane(), item, lane)
    }

    /// The B element (block, k, j) at (`reg`, `lane`, `part`); see
    /// [`Shape::a_elem`].
    pub fn b_elem(&self, reg: usize, lane: usize, part: usize) -> Option<(usize, usize, usize)> {
        let item = item_of(reg, part, self.b.bits())?;
        let (b, j, k) = in_elem(self.n, self.blocks, self.b_k_per_lane(), item, lane)?;
        Some((b, k, j))
    }

    /// The C/D element (block, i, j) in register `reg`, lane `lane`.
    pub fn cd_elem(&self, reg: usize, lane: usize) -> Option<(usize, usize, usize)> {
        if reg >= self.cd_regs() || lane >= LANES {
            return None;
        }
        let (m, n, nb) = (self.m, self.n, self.blocks);
        let bits = self.acc.bits();
        let item = item_of(reg, 0, bits)?;
        let (j, t) = (lane % n, lane / n);
        if bits == 64 {
            let r = LANES / (n * nb);
            Some((t % nb, item * r + t / nb, j))
        } else {
            let bi = LANES.div_ceil(n * m / 4);
            let mi = LANES / bi / n;
            let g = m / (4 * mi);
            let (rg, bl) = (t % mi, t / mi);
            let u = item / 4;
            let (hi, bh) = (u % g, u / g);
            Some((bh * bi + bl, hi * 4 * mi + rg * 4 + item % 4, j))
        }
    }

    /// SMFMAC: where stored value `which` (0 or 1) of row `i`'s group of
    /// four k values starting at `4 * group` lives in the compressed A.
    pub fn sparse_a_slot(&self, i: usize, group: usize, which: usize) -> Slot {
        debug_assert!(self.sparse && i < self.m && group < self.k / 4 && which < 2);
        let kl = self.a_k_per_lane();
        let k = group * 4;
        let item = 2 * ((k % kl) / 4) + which;
        Slot::at_item(item, self.a.bits(), i + self.m * (k / kl))
    }

    /// SMFMAC: the 2-bit position (within its group of four) of stored value
    /// `which` of row `i`, group `group`, in index set `set` of the index
    /// register (`reg` is always 0).
    pub fn sparse_index_slot(&self, i: usize, group: usize, which: usize, set: usize) -> Slot {
        let a = self.sparse_a_slot(i, group, which);
        let kl = self.a_k_per_lane();
        let item = (a.reg * 32 + a.shift as usize) / self.a.bits() as usize;
        Slot {
            reg: 0,
            lane: a.lane,
            shift: (set * kl + 2 * item) as u32,
            bits: 2,
        }
    }

    /// SMFMAC: number of index sets in the index register (4 for 16-bit
    /// data, 2 for 8-bit).
    pub const fn sparse_index_sets(&self) -> usize {
        32 / self.a_k_per_lane()
    }
}

fn in_slot(
    dim: usize,
    blocks: usize,
    kl: usize,
    bits: u32,
    block: usize,
    x: usize,
    k: usize,
) -> Slot {
    Slot::at_item(k % kl, bits, x + dim * (block + blocks * (k / kl)))
}

fn in_elem(
    dim: usize,
    blocks: usize,
    kl: usize,
    item: usize,
    lane: usize,
) -> Option<(usize, usize, usize)> {
    if item >= kl || lane >= LANES {
        return None;
    }
    let (x, t) = (lane % dim, lane / dim);
    Some((t % blocks, x, (t / blocks) * kl + item))
}

/// A mnemonic without block suffixes (`_2b`), `_1k` and underscores.
fn loose_name(name: &str) -> String {
    name.split('_')
        .filter(|t| {
            *t != "1k"
                && !(t.len() > 1
                    && t.ends_with('b')
                    && t[..t.len() - 1].bytes().all(|c| c.is_ascii_digit()))
        })
        .collect()
}

/// The prepared kernel of a gfx950 `*_f8f6f4` shape (`shape.f8f6f4`) with
/// A format `a` and B format `b` (CBSZ, BLGP), built once per combination.
pub fn f8f6f4_kernel(shape: &Shape, a: u8, b: u8) -> Option<&'static DenseKernel> {
    use std::sync::OnceLock;
    type Table = [[OnceLock<Option<DenseKernel>>; 5]; 5];
    static BY_M: [Table; 2] = [const { [const { [const { OnceLock::new() }; 5] }; 5] }; 2];
    if !shape.f8f6f4 || a > 4 || b > 4 {
        return None;
    }
    let t = &BY_M[usize::from(shape.m == 32)];
    t[usize::from(a)][usize::from(b)]
        .get_or_init(|| DenseKernel::new(&shape.with_formats(a, b)?))
        .as_ref()
}

/// Instruction modifiers of a matrix instruction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Mods {
    /// CBSZ (3 bits).
    pub cbsz: u8,
    /// ABID (4 bits).
    pub abid: u8,
    /// BLGP (3 bits; negate bits for gfx942 f64).
    pub blgp: u8,
    /// The clamp bit.
    pub clamp: bool,
    /// MODE flushes f32 input denormals (FP_DENORM[5:4] is 0 or 2). Only
    /// f32/xf32 A and B inputs are affected.
    pub flush_f32_input_denorms: bool,
}

impl Mods {
    /// The modifier fields of a VOP3P-MAI instruction: CBSZ = dword0[10:8],
    /// ABID = dword0[14:11], BLGP = dword1[31:29]. On gfx90a and gfx942
    /// dword0[15] is `acc_cd` (C and D are AGPRs), not clamp: these
    /// targets have no MFMA clamp (llvm-mc rejects it), so `clamp` is off.
    pub const fn from_words(dword0: u32, dword1: u32) -> Mods {
        Mods {
            cbsz: ((dword0 >> 8) & 7) as u8,
            abid: ((dword0 >> 11) & 0xF) as u8,
            blgp: ((dword1 >> 29) & 7) as u8,
            clamp: false,
            flush_f32_input_denorms: false,
        }
    }
}

/// Why a matrix instruction cannot be evaluated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MfmaError {
    /// The operation does not exist on the target.
    #[error("{name} does not exist on {target}")]
    Unavailable {
        /// The operation.
        name: &'static str,
        /// The target.
        target: Target,
    },
    /// Dense entry point for a sparse shape or the reverse.
    #[error("{name}: wrong entry point (sparse shape: {sparse})")]
    Kind {
        /// The operation.
        name: &'static str,
        /// The shape is sparse.
        sparse: bool,
    },
    /// An operand has the wrong number of registers.
    #[error("{name}: {operand} takes {need} registers, got {got}")]
    Registers {
        /// The operation.
        name: &'static str,
        /// "A", "B", "C" or "index".
        operand: &'static str,
        /// Registers required.
        need: usize,
        /// Registers given.
        got: usize,
    },
    /// CBSZ/ABID out of range for the shape.
    #[error("{name}: cbsz {cbsz} / abid {abid} not valid here")]
    Broadcast {
        /// The operation.
        name: &'static str,
        /// CBSZ.
        cbsz: u8,
        /// ABID.
        abid: u8,
    },
    /// Non-zero BLGP where the target does not support it.
    #[error("{name}: blgp {blgp} not supported on {target}")]
    Blgp {
        /// The operation.
        name: &'static str,
        /// BLGP.
        blgp: u8,
        /// The target.
        target: Target,
    },
}

/// The lane B data is read from under BLGP pattern `blgp` for a value whose
/// layout puts it in lane `lane`.
pub const fn blgp_lane(blgp: u8, lane: usize) -> usize {
    match blgp & 7 {
        0 => lane,
        1 => lane % 32,
        2 => lane % 32 + 32,
        3 => (lane + 16) % 64,
        p => lane % 16 + 16 * (p as usize - 4),
    }
}

/// The A block block `block` reads under CBSZ/ABID.
pub const fn broadcast_block(block: usize, cbsz: u8, abid: u8) -> usize {
    (block >> cbsz << cbsz) + abid as usize
}

fn check_regs(
    name: &'static str,
    operand: &'static str,
    need: usize,
    got: usize,
) -> Result<(), MfmaError> {
    if need == got {
        Ok(())
    } else {
        Err(MfmaError::Registers {
            name,
            operand,
            need,
            got,
        })
    }
}

/// Decoded per-call settings.
struct Plan {
    cbsz: u8,
    abid: u8,
    blgp_lanes: u8,
    neg: [bool; 3],
}

fn plan(shape: &Shape, target: Target, mods: &Mods) -> Result<Plan, MfmaError> {
    let name = shape.name();
    let v = shape
        .variant(target)
        .ok_or(MfmaError::Unavailable { name, target })?;
    let mut p = Plan {
        cbsz: 0,
        abid: 0,
        blgp_lanes: 0,
        neg: [false; 3],
    };
    match v.blgp {
        BlgpUse::LaneGroups => p.blgp_lanes = mods.blgp & 7,
        BlgpUse::Negate => p.neg = [mods.blgp & 1 != 0, mods.blgp & 2 != 0, mods.blgp & 4 != 0],
        BlgpUse::Unsupported if mods.blgp != 0 => {
            return Err(MfmaError::Blgp {
                name,
                blgp: mods.blgp,
                target,
            })
        }
        BlgpUse::Unsupported => {}
    }
    if shape.sparse || shape.acc == AccType::F64 {
        // SMFMAC: index-set select (handled by smfmac); f64: ignored.
        return Ok(p);
    }
    let log2 = shape.blocks.trailing_zeros();
    let ok = if shape.broadcast {
        u32::from(mods.cbsz) <= log2 && u32::from(mods.abid) < 1 << mods.cbsz
    } else {
        mods.cbsz == 0 && mods.abid == 0
    };
    if !ok {
        return Err(MfmaError::Broadcast {
            name,
            cbsz: mods.cbsz,
            abid: mods.abid,
        });
    }
    p.cbsz = mods.cbsz;
    p.abid = mods.abid;
    Ok(p)
}

fn to_f32(ty: InType, raw: u64, flush: bool) -> f32 {
    match ty {
        InType::F32 | InType::Xf32 => {
            let x = f32::from_bits(raw as u32);
            let x = if flush { float::flush_f32(x) } else { x };
            if ty == InType::Xf32 {
                float::round_to_xf32(x)
            } else {
                x
            }
        }
        InType::F16 => float::f16_to_f32(raw as u16),
        InType::Bf16 => float::bf16_to_f32(raw as u16),
        InType::Fp8 => float::fp8_to_f32(raw as u8),
        InType::Bf8 => float::bf8_to_f32(raw as u8),
        InType::Fp8Ocp => float::ocp_to_f32(raw as u32, float::E4M3),
        InType::Bf8Ocp => float::ocp_to_f32(raw as u32, float::E5M2),
        InType::Fp4 => float::ocp_to_f32(raw as u32, float::E2M1),
        InType::I8 => f32::from(raw as u8 as i8),
        InType::F64 => f64::from_bits(raw) as f32,
    }
}

const F32_QNAN: u32 = 0x7FC0_0000;
const F64_QNAN: u64 = 0x7FF8_0000_0000_0000;

/// One output element's accumulator.
enum Acc {
    F32 { v: f32, inf_in: bool },
    F64 { v: f64, inf_in: bool },
    I32(i64),
}

impl Acc {
    fn new(acc: AccType, raw: u64, neg: bool) -> Acc {
        match acc {
            AccType::F32 => {
                let v = f32::from_bits(raw as u32);
                let v = if neg { -v } else { v };
                Acc::F32 {
                    v,
                    inf_in: v.is_infinite(),
                }
            }
            AccType::F64 => {
                let v = f64::from_bits(raw);
                let v = if neg { -v } else { v };
                Acc::F64 {
                    v,
                    inf_in: v.is_infinite(),
                }
            }
            AccType::I32 => Acc::I32(i64::from(raw as u32 as i32)),
        }
    }

    /// acc += a * b, one rounding.
    fn step(&mut self, at: InType, a: u64, bt: InType, b: u64, p: &Plan, flush: bool) {
        match self {
            Acc::F32 { v, inf_in } => {
                let x = to_f32(at, a, flush);
                let y = to_f32(bt, b, flush);
                *inf_in |= x.is_infinite() || y.is_infinite();
                *v = x.mul_add(y, *v);
            }
            Acc::F64 { v, inf_in } => {
                let x = f64::from_bits(a);
                let y = f64::from_bits(b);
                let x = if p.neg[0] { -x } else { x };
                let y = if p.neg[1] { -y } else { y };
                *inf_in |= x.is_infinite() || y.is_infinite();
                *v = x.mul_add(y, *v);
            }
            Acc::I32(s) => *s += i64::from(a as u8 as i8) * i64::from(b as u8 as i8),
        }
    }

    fn finish(self, clamp: bool) -> u64 {
        match self {
            Acc::F32 { v, inf_in } => {
                if v.is_nan() {
                    u64::from(F32_QNAN)
                } else if clamp && v.is_infinite() && !inf_in {
                    u64::from(f32::MAX.copysign(v).to_bits())
                } else {
                    u64::from(v.to_bits())
                }
            }
            Acc::F64 { v, inf_in } => {
                if v.is_nan() {
                    F64_QNAN
                } else if clamp && v.is_infinite() && !inf_in {
                    f64::MAX.copysign(v).to_bits()
                } else {
                    v.to_bits()
                }
            }
            Acc::I32(s) => {
                let r = if clamp {
                    s.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
                } else {
                    s as i32
                };
                u64::from(r as u32)
            }
        }
    }
}

/// Evaluates a dense MFMA: `a`, `b`, `c` are the src0, src1 and src2
/// registers (an inline-constant src2 is passed as registers holding the
/// constant); returns the D registers. EXEC is not involved.
pub fn mfma(
    shape: &Shape,
    target: Target,
    a: &[VReg],
    b: &[VReg],
    c: &[VReg],
    mods: &Mods,
) -> Result<Vec<VReg>, MfmaError> {
    let name = shape.name();
    let p = plan(shape, target, mods)?;
    if shape.sparse {
        return Err(MfmaError::Kind { name, sparse: true });
    }
    check_regs(name, "A", shape.a_regs(), a.len())?;
    check_regs(name, "B", shape.b_regs(), b.len())?;
    check_regs(name, "C", shape.cd_regs(), c.len())?;
    if let Some(kern) = DenseKernel::new(shape) {
        let mut f = Box::<Frags>::default();
        kern.load(target, a, b, mods, &mut f)?;
        let mut d = c.to_vec();
        kern.accumulate(&f, &mut d);
        return Ok(d);
    }
    Ok(general(shape, &p, a, b, c, mods))
}

/// [`mfma`] element by element, for every shape and modifier (the
/// definition [`DenseKernel`] is checked against).
fn general(shape: &Shape, p: &Plan, a: &[VReg], b: &[VReg], c: &[VReg], mods: &Mods) -> Vec<VReg> {
    let flush = mods.flush_f32_input_denorms;
    let mut d = vec![[0u32; LANES]; shape.cd_regs()];
    for blk in 0..shape.blocks {
        let ablk = broadcast_block(blk, p.cbsz, p.abid);
        for i in 0..shape.m {
            for j in 0..shape.n {
                let out = shape.cd_slot(blk, i, j);
                let mut acc = Acc::new(shape.acc, out.read(c), p.neg[2]);
                for k in 0..shape.k {
                    let av = shape.a_slot(ablk, i, k).read(a);
                    let mut bs = shape.b_slot(blk, k, j);
                    bs.lane = blgp_lane(p.blgp_lanes, bs.lane);
                    acc.step(shape.a, av, shape.b, bs.read(b), p, flush);
                }
                out.write(&mut d, acc.finish(mods.clamp));
            }
        }
    }
    d
}

/// Evaluates an SMFMAC (gfx942): `a` is the compressed A (src0), `b` the
/// dense B (src1), `index` the index register (src2) and `acc` the
/// destination's current value (C); returns the new destination registers.
pub fn smfmac(
    shape: &Shape,
    target: Target,
    a: &[VReg],
    b: &[VReg],
    index: &VReg,
    acc: &[VReg],
    mods: &Mods,
) -> Result<Vec<VReg>, MfmaError> {
    let name = shape.name();
    let p = plan(shape, target, mods)?;
    if !shape.sparse {
        return Err(MfmaError::Kind {
            name,
            sparse: false,
        });
    }
    check_regs(name, "A", shape.a_regs(), a.len())?;
    check_regs(name, "B", shape.b_regs(), b.len())?;
    check_regs(name, "C", shape.cd_regs(), acc.len())?;
    let set = if mods.cbsz & 3 == 0 {
        usize::from(mods.abid) % shape.sparse_index_sets()
    } else {
        0
    };
    let idx = std::slice::from_ref(index);
    let mut d = vec![[0u32; LANES]; shape.cd_regs()];
    for i in 0..shape.m {
        for j in 0..shape.n {
            let out = shape.cd_slot(0, i, j);
            let mut s = Acc::new(shape.acc, out.read(acc), false);
            for g in 0..shape.k / 4 {
                for which in 0..2 {
                    let av = shape.sparse_a_slot(i, g, which).read(a);
                    let pos = shape.sparse_index_slot(i, g, which, set).read(idx) as usize;
                    let bv = shape.b_slot(0, 4 * g + pos, j).read(b);
                    s.step(shape.a, av, shape.b, bv, &p, false);
                }
            }
            out.write(&mut d, s.finish(mods.clamp));
        }
    }
    Ok(d)
}

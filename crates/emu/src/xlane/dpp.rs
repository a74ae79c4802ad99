//! DPP (data-parallel primitives) on wave64, GFX9 `dpp_ctrl` encoding as used
//! by gfx90a and gfx942.
//!
//! A DPP instruction (VOP1/VOP2/VOPC with src0 = 0xFA and a second dword)
//! reads src0 of lane `l` from another lane `src(l)` chosen by `dpp_ctrl`,
//! then runs the ordinary operation. The rules, lane by lane:
//!
//! 1. A lane that is inactive in EXEC is not written (as for any VALU op).
//! 2. A lane whose row (`l / 16`) is off in `row_mask`, or whose bank
//!    (`(l % 16) / 4`) is off in `bank_mask`, is not written. The masks apply
//!    to the destination write only; they do not stop other lanes from
//!    reading this lane's src0. (ISA DPP field table: "applies to the VGPR
//!    destination write only, does not impact the thread mask when fetching
//!    source VGPR data".)
//! 3. The source lane is *invalid* when `dpp_ctrl` gives none (shifted out of
//!    the row or wave, row 0 of `row_bcast:15`, rows 0–1 of `row_bcast:31`)
//!    or when it is inactive in EXEC. GFX9 has no `fi` (fetch-inactive) bit;
//!    LLVM documents GFX10's `fi:0` as "interaction with inactive lanes is
//!    controlled by bound_ctrl", i.e. an inactive source is an invalid one,
//!    and LLPC relies on exactly this ("if a write to an active lane depends
//!    on the value of an inactive lane, a zero value will be written" with
//!    BC=1, "instead of leaving the active lane unchanged" with BC=0).
//! 4. For an invalid source: with the BOUND_CTRL bit set (LLVM prints
//!    `bound_ctrl:1` today and `bound_ctrl:0` in older releases — both mean
//!    the bit is 1) src0 reads as 0 and the lane is written with the op's
//!    result on that 0; with the bit clear the lane is not written.
//!
//! [`Dpp::plan`] gives each lane's outcome; [`Dpp::fetch`] applies it to a
//! register, returning the src0 values and the mask of lanes to write, so the
//! interpreter can run any VOP1/VOP2/VOPC op on those lanes (for 64-bit
//! operands apply the same plan to both halves, [`Dpp::fetch64`]).
//! [`apply_dpp`] is the whole of `v_mov_b32_dpp`.

use crate::wave::{VReg, LANES};

/// A decoded GFX9 `dpp_ctrl` (9-bit field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DppCtrl {
    /// `quad_perm:[a,b,c,d]` (0x000–0x0FF): lane `l` reads lane
    /// `4 * (l / 4) + sel[l % 4]`.
    QuadPerm([u8; 4]),
    /// `row_shl:n` (0x101–0x10F): lane `l` reads `l + n` within its row.
    RowShl(u8),
    /// `row_shr:n` (0x111–0x11F): lane `l` reads `l - n` within its row.
    RowShr(u8),
    /// `row_ror:n` (0x121–0x12F): lane `l` reads `row + (l % 16 - n) mod 16`.
    RowRor(u8),
    /// `wave_shl:1` (0x130): lane `l` reads `l + 1`; lane 63 has no source.
    WaveShl1,
    /// `wave_rol:1` (0x134): lane `l` reads `(l + 1) mod 64`.
    WaveRol1,
    /// `wave_shr:1` (0x138): lane `l` reads `l - 1`; lane 0 has no source.
    WaveShr1,
    /// `wave_ror:1` (0x13C): lane `l` reads `(l - 1) mod 64`.
    WaveRor1,
    /// `row_mirror` (0x140): lane `l` reads `row + 15 - l % 16`.
    RowMirror,
    /// `row_half_mirror` (0x141): lane `l` reads `8 * (l / 8) + 7 - l % 8`.
    RowHalfMirror,
    /// `row_bcast:15` (0x142): rows 1–3 read the last lane of the previous
    /// row (15, 31, 47); row 0 has no source.
    RowBcast15,
    /// `row_bcast:31` (0x143): rows 2–3 read lane 31; rows 0–1 have no
    /// source.
    RowBcast31,
    /// `row_newbcast:n` (0x150–0x15F, gfx90a and later, the only control
    /// 64-bit DPP accepts): every lane of a row reads lane `n` of its row.
    RowNewBcast(u8),
}

impl DppCtrl {
    /// Decodes a `dpp_ctrl` value; `None` for reserved encodings (0x100,
    /// 0x110, 0x120, 0x131–0x133, 0x135–0x137, 0x139–0x13B, 0x13D–0x13F,
    /// 0x144–0x14F, 0x160 and above).
    pub const fn decode(ctrl: u16) -> Option<DppCtrl> {
        let n = (ctrl & 0xF) as u8;
        Some(match ctrl {
            0x000..=0x0FF => DppCtrl::QuadPerm([
                (ctrl & 3) as u8,
                ((ctrl >> 2) & 3) as u8,
                ((ctrl >> 4) & 3) as u8,
                ((ctrl >> 6) & 3) as u8,
            ]),
            0x101..=0x10F => DppCtrl::RowShl(n),
            0x111..=0x11F => DppCtrl::RowShr(n),
            0x121..=0x12F => DppCtrl::RowRor(n),
            0x130 => DppCtrl::WaveShl1,
            0x134 => DppCtrl::WaveRol1,
            0x138 => DppCtrl::WaveShr1,
            0x13C => DppCtrl::WaveRor1,
            0x140 => DppCtrl::RowMirror,
            0x141 => DppCtrl::RowHalfMirror,
            0x142 => DppCtrl::RowBcast15,
            0x143 => DppCtrl::RowBcast31,
            0x150..=0x15F => DppCtrl::RowNewBcast(n),
            _ => return None,
        })
    }

    /// The `dpp_ctrl` encoding (inverse of [`DppCtrl::decode`]). Shift and
    /// broadcast amounts are taken modulo 16 and quad selectors modulo 4.
    pub const fn encode(self) -> u16 {
        match self {
            DppCtrl::QuadPerm(s) => {
                (s[0] & 3) as u16
                    | ((s[1] & 3) as u16) << 2
                    | ((s[2] & 3) as u16) << 4
                    | ((s[3] & 3) as u16) << 6
            }
            DppCtrl::RowShl(n) => 0x100 | (n & 0xF) as u16,
            DppCtrl::RowShr(n) => 0x110 | (n & 0xF) as u16,
            DppCtrl::RowRor(n) => 0x120 | (n & 0xF) as u16,
            DppCtrl::WaveShl1 => 0x130,
            DppCtrl::WaveRol1 => 0x134,
            DppCtrl::WaveShr1 => 0x138,
            DppCtrl::WaveRor1 => 0x13C,
            DppCtrl::RowMirror => 0x140,
            DppCtrl::RowHalfMirror => 0x141,
            DppCtrl::RowBcast15 => 0x142,
            DppCtrl::RowBcast31 => 0x143,
            DppCtrl::RowNewBcast(n) => 0x150 | (n & 0xF) as u16,
        }
    }

    /// The lane that lane `lane` (0..64) reads, or `None` when the control
    /// gives it no source (out of the row or wave). EXEC is not considered
    /// here; see [`Dpp::plan`].
    pub fn source_lane(self, lane: usize) -> Option<usize> {
        debug_assert!(lane < LANES);
        let row = lane & !15;
        let pos = lane & 15;
        match self {
            DppCtrl::QuadPerm(s) => Some((lane & !3) + usize::from(s[lane & 3] & 3)),
            DppCtrl::RowShl(n) => {
                let p = pos + usize::from(n);
                (p < 16).then_some(row + p)
            }
            DppCtrl::RowShr(n) => pos.checked_sub(usize::from(n)).map(|p| row + p),
            DppCtrl::RowRor(n) => Some(row + (pos + 16 - usize::from(n & 15)) % 16),
            DppCtrl::WaveShl1 => (lane + 1 < LANES).then_some(lane + 1),
            DppCtrl::WaveRol1 => Some((lane + 1) % LANES),
            DppCtrl::WaveShr1 => lane.checked_sub(1),
            DppCtrl::WaveRor1 => Some((lane + LANES - 1) % LANES),
            DppCtrl::RowMirror => Some(row + 15 - pos),
            DppCtrl::RowHalfMirror => Some((lane & !7) + 7 - (lane & 7)),
            DppCtrl::RowBcast15 => (row >= 16).then(|| row - 1),
            DppCtrl::RowBcast31 => (lane >= 32).then_some(31),
            DppCtrl::RowNewBcast(n) => Some(row + usize::from(n & 15)),
        }
    }
}

/// The lane `lane` reads under the raw `dpp_ctrl` value `ctrl`: `None` when
/// the control gives no source or is a reserved encoding.
pub fn dpp_source_lane(ctrl: u16, lane: usize) -> Option<usize> {
    DppCtrl::decode(ctrl).and_then(|c| c.source_lane(lane))
}

/// What one lane of a DPP instruction does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DppLane {
    /// src0 is this lane's value of the source register.
    Read(usize),
    /// The source is invalid and BOUND_CTRL is set: src0 is 0 and the lane
    /// is written.
    Zero,
    /// The lane is not written (inactive, masked by `row_mask`/`bank_mask`,
    /// or an invalid source without BOUND_CTRL).
    Skip,
}

/// The DPP word of one instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dpp {
    /// The lane-selection control.
    pub ctrl: DppCtrl,
    /// Bit `r` enables the write of row `r` (lanes `16r..16r+16`).
    pub row_mask: u8,
    /// Bit `b` enables the write of bank `b` (lanes with `(l % 16) / 4 == b`).
    pub bank_mask: u8,
    /// The BOUND_CTRL bit: an invalid source reads as 0 (and the lane is
    /// written) instead of the lane not being written.
    pub bound_ctrl: bool,
}

impl Dpp {
    /// A DPP word from its fields; `None` for a reserved `dpp_ctrl`.
    pub const fn new(ctrl: u16, row_mask: u8, bank_mask: u8, bound_ctrl: bool) -> Option<Dpp> {
        match DppCtrl::decode(ctrl) {
            Some(ctrl) => Some(Dpp {
                ctrl,
                row_mask,
                bank_mask,
                bound_ctrl,
            }),
            None => None,
        }
    }

    /// Decodes the second dword of a GFX9 VOP_DPP instruction: src0 in bits
    /// 7:0, `dpp_ctrl` 16:8, BOUND_CTRL 19, src0 neg/abs 20/21, src1 neg/abs
    /// 22/23, `bank_mask` 27:24, `row_mask` 31:28. Returns the src0 VGPR
    /// number with the DPP word (modifier bits are left to the caller);
    /// `None` for a reserved `dpp_ctrl`.
    pub const fn from_dword(dword: u32) -> Option<(u8, Dpp)> {
        let ctrl = ((dword >> 8) & 0x1FF) as u16;
        match Dpp::new(
            ctrl,
            ((dword >> 28) & 0xF) as u8,
            ((dword >> 24) & 0xF) as u8,
            (dword >> 19) & 1 == 1,
        ) {
            Some(d) => Some(((dword & 0xFF) as u8, d)),
            None => None,
        }
    }

    /// Lanes whose write `row_mask` and `bank_mask` allow.
    pub fn write_mask(&self) -> u64 {
        (0..LANES)
            .filter(|&l| {
                self.row_mask >> (l / 16) & 1 == 1 && self.bank_mask >> ((l % 16) / 4) & 1 == 1
            })
            .fold(0, |m, l| m | 1 << l)
    }

    /// Each lane's outcome under `exec` (rules in the module documentation).
    pub fn plan(&self, exec: u64) -> [DppLane; LANES] {
        let masks = self.write_mask();
        let mut plan = [DppLane::Skip; LANES];
        for (l, p) in plan.iter_mut().enumerate() {
            if (exec & masks) >> l & 1 == 0 {
                continue;
            }
            *p = match self.ctrl.source_lane(l) {
                Some(s) if exec >> s & 1 == 1 => DppLane::Read(s),
                _ if self.bound_ctrl => DppLane::Zero,
                _ => DppLane::Skip,
            };
        }
        plan
    }

    /// src0 as the DPP instruction sees it, and the lanes it writes. Lanes
    /// not written carry 0 in the returned register.
    pub fn fetch(&self, src: &VReg, exec: u64) -> (VReg, u64) {
        fetch_with(&self.plan(exec), src)
    }

    /// [`Dpp::fetch`] for a 64-bit src0 held as (low, high) registers: both
    /// halves move with the same lane plan.
    pub fn fetch64(&self, lo: &VReg, hi: &VReg, exec: u64) -> (VReg, VReg, u64) {
        let plan = self.plan(exec);
        let (l, mask) = fetch_with(&plan, lo);
        let (h, _) = fetch_with(&plan, hi);
        (l, h, mask)
    }
}

fn fetch_with(plan: &[DppLane; LANES], src: &VReg) -> (VReg, u64) {
    let mut out = [0u32; LANES];
    let mut mask = 0u64;
    for (l, p) in plan.iter().enumerate() {
        match *p {
            DppLane::Read(s) => {
                out[l] = src[s];
                mask |= 1 << l;
            }
            DppLane::Zero => mask |= 1 << l,
            DppLane::Skip => {}
        }
    }
    (out, mask)
}

/// `v_mov_b32_dpp dst, src` with the destination's previous value `old`
/// (LLVM's `update_dpp(old, src, ...)`): the new destination register and
/// the mask of lanes that were written.
pub fn apply_dpp(src: &VReg, old: &VReg, exec: u64, dpp: &Dpp) -> (VReg, u64) {
    let (vals, mask) = dpp.fetch(src, exec);
    let mut out = *old;
    super::lanes::write_masked(&mut out, &vals, mask);
    (out, mask)
}

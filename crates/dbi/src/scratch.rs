//! Scratch (the private segment) for probes: enabling it in a kernel that
//! had none, growing it in one that had some, and telling probes where it
//! is at every site.
//!
//! **The area.** Each instrumented kernel that needs scratch gets a probe
//! area of [`Plan::size`] bytes per lane, placed after the kernel's own
//! frame (`private_segment_fixed_size`, rounded up to 16) so the kernel's
//! frame stays where it was; the descriptor's and the metadata's
//! `private_segment_fixed_size` grow by the area. The area starts with the
//! rewriter's own words ([`AREA_STATE`] state word, [`SPILL_SLOTS`] spill
//! slots), then the bytes probes asked for ([`crate::rewrite::Probe::scratch_bytes`]),
//! one region per request ([`ScratchCx::area`]). Offsets are per lane
//! (unswizzled): the hardware interleaves the lanes' dwords.
//!
//! **Enabling.** On processors without architected flat scratch (gfx90a),
//! scratch reaches a wave through initial SGPRs: the private segment
//! buffer descriptor (4 user SGPRs), the flat-scratch init value (2 user
//! SGPRs) and the wave's private segment offset (1 system SGPR). Turning
//! those on inserts them into the initial SGPR layout, which moves every
//! later user and system SGPR (kernarg pointer, work-group IDs, ...).
//! [`Plan::emit_entry`] is the kernel-entry preamble: it sets
//! `FLAT_SCRATCH` (init + wave offset, as LLVM's own prologue does),
//! builds the scratch buffer descriptor with the wave's offset folded into
//! its base (what the AMDGPU calling convention passes a callee in
//! `s[0:3]`), then moves the kernel's initial SGPRs back to where the
//! original code expects them. On architected-flat-scratch processors
//! (gfx942) `FLAT_SCRATCH` is set by the hardware per wave and enabling
//! only sets `ENABLE_PRIVATE_SEGMENT`: nothing moves.
//!
//! **At a site** ([`ScratchCx`]): `FLAT_SCRATCH` holds the wave's scratch
//! base, so `scratch_*` instructions with an SGPR base of
//! [`ScratchCx::area`] reach the probe's bytes; on gfx90a
//! [`ScratchCx::rsrc`] names an SGPR quad holding the buffer descriptor
//! (wave base folded in) for MUBUF access or for a callee's `s[0:3]`, and
//! [`ScratchCx::stack_pointer`] is the value a callee expects in `s32`
//! (wave-scaled on gfx90a, per-lane on gfx942).
//!
//! A probe that keeps one dword per lane in scratch (it asks for 4 bytes;
//! `regs.tmp` is an SGPR the probe may use):
//!
//! ```no_run
//! use lathe_dbi::rewrite::{build, Probe, ProbeCx};
//! use lathe_isa::{BuildError, Instruction, Opcode, Operand, RegRange};
//!
//! #[derive(Debug)]
//! struct SaveV0;
//!
//! impl Probe for SaveV0 {
//!     fn slot_bytes(&self) -> u32 {
//!         0
//!     }
//!     fn scratch_bytes(&self) -> u32 {
//!         4
//!     }
//!     fn emit(&self, cx: &ProbeCx<'_>, out: &mut Vec<Instruction>) -> Result<(), BuildError> {
//!         let sc = cx.scratch.expect("asked for scratch");
//!         let tmp = cx.regs.tmp;
//!         // s[tmp] = the lane offset of our bytes; store v0 of every active lane there.
//!         out.push(build(
//!             cx.target,
//!             Opcode::S_MOV_B32,
//!             &[Operand::Reg(RegRange::sgpr(tmp, 1)), Operand::Literal(sc.area)],
//!         )?);
//!         out.push(lathe_dbi::scratch::store_dword(cx.target, 0, tmp, 0)?);
//!         Ok(())
//!     }
//! }
//! ```
//!
//! Kernels whose stack is dynamic (`.uses_dynamic_stack`: recursion,
//! calls to functions of unknown stack size, every kernel with calls at
//! -O0) grow their stack past `private_segment_fixed_size` by an amount
//! the runtime decides at dispatch. Their probe area starts
//! [`DYNAMIC_STACK_RESERVE`] bytes per lane after the frame (see
//! [`frame_end`]): the stack may grow that far before it would reach the
//! area. Lathe's runtime and `lathe run` give such kernels 16 KiB per lane
//! past the (now larger) fixed size, so the reserve is always allocated;
//! on ROCr the packet's `private_segment_size` is what the kernel may
//! use, and a launch asking for more than the reserve cannot be
//! instrumented (the tool library refuses it and runs the original).
//! Moving the kernel's frame up instead (advancing its wave offset) would
//! not hold once its own prologue recomputes `FLAT_SCRATCH` (gfx90a) and
//! cannot be done where `FLAT_SCRATCH` is architected (gfx942).

use lathe_codeobj::kd::{InitialSgpr, KdArch, KernelDescriptor, SgprRole};
use lathe_isa::{BuildError, Instruction, Opcode, Operand, RegRange, Target};

use crate::asm::{build, sreg};

/// Bytes per lane of the rewriter's state word at the start of the area
/// (lane k holds state word k: probe-data address in lanes 0–1, the
/// scratch buffer descriptor in lanes 2–5).
pub const AREA_STATE: u32 = 4;
/// Spill slots (4 bytes per lane each) after the state word.
pub const SPILL_SLOTS: u32 = 15;
/// Bytes per lane the rewriter keeps for itself at the start of the area.
pub const AREA_RESERVED: u32 = AREA_STATE + 4 * SPILL_SLOTS;

/// The most private segment a wave64 lane can have on GFX9: the
/// hardware's per-wave scratch size (`COMPUTE_TMPRING_SIZE.WAVESIZE`, 13
/// bits in units of 256 dwords, as LLVM's `getMaxWaveScratchSize` says)
/// over 64 lanes. A probe area that would end past it is refused
/// ([`ScratchError::TooLarge`]).
pub const MAX_LANE_SCRATCH: u32 = (256 * 4) * ((1 << 13) - 1) / 64;

/// Bytes per lane a dynamic-stack kernel's stack may grow past its fixed
/// frame before it reaches the probe area (the emulator's default dynamic
/// stack, `lathe_emu::run::Options::dynamic_stack`).
pub const DYNAMIC_STACK_RESERVE: u32 = 16 * 1024;

/// Where a kernel's fixed frame ends (16-byte aligned), without the
/// dynamic-stack reserve: where a kernel's stack pointer may start.
pub fn fixed_frame_end(d: &KernelDescriptor) -> u32 {
    d.private_segment_fixed_size.next_multiple_of(16)
}

/// Where a kernel's stack ends: its frame (and its callees' frames, which
/// a static `private_segment_fixed_size` includes), plus
/// [`DYNAMIC_STACK_RESERVE`] when the stack is dynamic. The probe area may
/// start here.
pub fn frame_end(d: &KernelDescriptor) -> u32 {
    let fixed = fixed_frame_end(d);
    if d.properties().uses_dynamic_stack {
        fixed.saturating_add(DYNAMIC_STACK_RESERVE)
    } else {
        fixed
    }
}

/// Lanes of the state word / lane-mode state VGPR holding the scratch
/// buffer descriptor (gfx90a).
pub const RSRC_LANE: u16 = 2;
/// First lane free for saving borrowed SGPRs.
pub const FIRST_SAVE_LANE: u16 = 6;

/// What a probe knows about scratch at its site (when its request asked
/// for scratch bytes, or the rewriter spills there).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ScratchCx {
    /// Per-lane byte offset of the request's bytes in the private segment.
    pub area: u32,
    /// Bytes per lane the request asked for.
    pub bytes: u32,
    /// gfx90a: an SGPR quad holding the private segment buffer descriptor
    /// with this wave's offset folded into its base (offsets from 0 reach
    /// the wave's private segment; valid at this site, do not modify).
    /// `None` on architected flat scratch.
    pub rsrc: Option<u16>,
    /// Flat scratch is architected (gfx942): no descriptor, `FLAT_SCRATCH`
    /// set by the hardware.
    pub architected: bool,
    /// Lanes per wave (the wave-scaled stack pointer's factor).
    pub lanes: u32,
}

impl ScratchCx {
    /// The value a callee following the AMDGPU calling convention expects
    /// in `s32` (its stack pointer) for its frame to start at the
    /// request's area: the area times the wave size (wave-scaled) with a
    /// buffer descriptor, the area itself with architected flat scratch.
    pub fn stack_pointer(&self) -> u32 {
        if self.architected {
            self.area
        } else {
            self.area * self.lanes
        }
    }
}

/// Why scratch cannot be given to a kernel.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ScratchError {
    /// Enabling scratch would need more user SGPRs than the hardware has.
    #[error("enabling scratch needs {need} user SGPRs (at most 16)")]
    UserSgprs {
        /// User SGPRs needed.
        need: u32,
    },
    /// Not a GFX9- or GFX10-class processor.
    #[error("scratch set-up is implemented for GFX9- and GFX10-class processors only")]
    Arch,
    /// The area would end past the most scratch a lane can have
    /// ([`MAX_LANE_SCRATCH`]).
    #[error(
        "a private segment of {0} bytes per lane is more than the hardware's {MAX_LANE_SCRATCH}"
    )]
    TooLarge(u64),
    /// The enabled initial SGPRs lack one the set-up reads.
    #[error("the initial SGPRs have no {0:?} after enabling scratch")]
    MissingSgpr(SgprRole),
}

/// How one kernel gets its probe scratch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Architected flat scratch (gfx942).
    pub architected: bool,
    /// The kernel's own `private_segment_fixed_size`.
    pub old_size: u32,
    /// Per-lane byte offset of the probe area ([`frame_end`], or the
    /// component's largest).
    pub area: u32,
    /// Bytes per lane of the probe area ([`AREA_RESERVED`] + requests).
    pub size: u32,
    /// Initial SGPRs the original code expects.
    pub old_sgprs: Vec<InitialSgpr>,
    /// Initial SGPRs after enabling.
    pub new_sgprs: Vec<InitialSgpr>,
    /// New `kernel_code_properties`.
    pub properties: u16,
    /// New `COMPUTE_PGM_RSRC2`.
    pub rsrc2: u32,
    /// gfx90a: where the private segment buffer, the flat-scratch init
    /// value and the wave offset arrive in the new layout.
    pub sources: Option<(u16, u16, u16)>,
}

impl Plan {
    /// Plans `bytes` per lane of probe scratch (after the rewriter's own
    /// [`AREA_RESERVED`]) for a kernel with descriptor `d`, the area
    /// starting at `min_area` or after the kernel's frame if that is
    /// larger (kernels sharing device functions share one offset).
    pub fn new(
        d: &KernelDescriptor,
        arch: KdArch,
        min_area: u32,
        bytes: u32,
    ) -> Result<Plan, ScratchError> {
        use lathe_bundle::target::Family;
        if !matches!(arch.family, Family::Gfx9 | Family::Gfx10) {
            return Err(ScratchError::Arch);
        }
        let old_size = d.private_segment_fixed_size;
        let area = frame_end(d).max(min_area);
        let size = (AREA_RESERVED + bytes.next_multiple_of(4)).next_multiple_of(16);
        let total = u64::from(area) + u64::from(size);
        if total > u64::from(MAX_LANE_SCRATCH) {
            return Err(ScratchError::TooLarge(total));
        }
        let old_sgprs = d.initial_sgprs(arch);
        let mut nd = *d;
        nd.private_segment_fixed_size = total as u32;
        let mut rsrc2 = d.compute_pgm_rsrc2 | 1;
        let mut properties = d.kernel_code_properties;
        if !arch.architected_flat_scratch {
            // Private segment buffer (bit 0) and flat scratch init (bit 5).
            properties |= 1 | (1 << 5);
            let added = [(0u16, 4u32), (5, 2)]
                .iter()
                .filter(|(b, _)| d.kernel_code_properties >> b & 1 == 0)
                .map(|(_, n)| n)
                .sum::<u32>();
            let old_count = d.rsrc2(arch).user_sgpr_count;
            let count = old_count + added;
            nd.kernel_code_properties = properties;
            let implied = nd.implied_user_sgprs(arch);
            let count = count.max(implied);
            if count > 16 {
                return Err(ScratchError::UserSgprs { need: count });
            }
            rsrc2 = (rsrc2 & !(0x1f << 1)) | (count << 1);
        }
        nd.compute_pgm_rsrc2 = rsrc2;
        nd.kernel_code_properties = properties;
        let new_sgprs = nd.initial_sgprs(arch);
        let role = |r: SgprRole| {
            new_sgprs
                .iter()
                .find(|s| s.role == r)
                .map(|s| s.first as u16)
                .ok_or(ScratchError::MissingSgpr(r))
        };
        let sources = if arch.architected_flat_scratch {
            None
        } else {
            Some((
                role(SgprRole::PrivateSegmentBuffer)?,
                role(SgprRole::FlatScratchInit)?,
                role(SgprRole::PrivateSegmentWaveOffset)?,
            ))
        };
        Ok(Plan {
            architected: arch.architected_flat_scratch,
            old_size,
            area,
            size,
            old_sgprs,
            new_sgprs,
            properties,
            rsrc2,
            sources,
        })
    }

    /// New `private_segment_fixed_size`.
    pub fn new_size(&self) -> u32 {
        self.area + self.size
    }

    /// Writes the plan into descriptor bytes: private segment size,
    /// `kernel_code_properties`, `COMPUTE_PGM_RSRC2`.
    pub fn patch(&self, kd: &mut [u8; 64]) {
        kd[4..8].copy_from_slice(&self.new_size().to_le_bytes());
        kd[52..56].copy_from_slice(&self.rsrc2.to_le_bytes());
        kd[56..58].copy_from_slice(&self.properties.to_le_bytes());
    }

    /// SGPRs written at wave start in the new layout (to keep clear of
    /// until the entry preamble has run).
    pub fn entry_sgprs(&self) -> impl Iterator<Item = RegRange> + '_ {
        self.new_sgprs
            .iter()
            .chain(&self.old_sgprs)
            .map(|s| RegRange::sgpr(s.first as u16, s.count as u8))
    }

    /// `(destination, source)` SGPR moves that restore the original layout,
    /// in an order that never overwrites a source before it is read
    /// (every register only moves down).
    pub fn moves(&self) -> Vec<(u16, u16)> {
        let mut out = Vec::new();
        for o in &self.old_sgprs {
            let Some(n) = self.new_sgprs.iter().find(|n| n.role == o.role) else {
                continue;
            };
            for k in 0..o.count.min(n.count) {
                let (dst, src) = ((o.first + k) as u16, (n.first + k) as u16);
                if dst != src {
                    out.push((dst, src));
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// The kernel-entry preamble: on gfx90a sets `FLAT_SCRATCH` to the
    /// wave's scratch base and writes the scratch buffer descriptor (wave
    /// offset folded in) to the SGPR quad `rsrc`, then moves the initial
    /// SGPRs back to the original layout. Clobbers SCC (dead at entry).
    pub fn emit_entry(
        &self,
        t: Target,
        rsrc: Option<u16>,
        out: &mut Vec<Instruction>,
    ) -> Result<(), BuildError> {
        if let Some((psb, fsi, woff)) = self.sources {
            if t.generation() >= 10 {
                // GFX10: FLAT_SCRATCH is no SGPR pair but the hardware
                // registers FLAT_SCR_LO/HI, written with `s_setreg`. The
                // sum is formed in the init pair and taken back out, so
                // the original code finds the init value it expects.
                out.push(build(
                    t,
                    Opcode::S_ADD_U32,
                    &[sreg(fsi, 1), sreg(fsi, 1), sreg(woff, 1)],
                )?);
                out.push(build(
                    t,
                    Opcode::S_ADDC_U32,
                    &[sreg(fsi + 1, 1), sreg(fsi + 1, 1), Operand::Int(0)],
                )?);
                out.push(setreg(t, HWREG_FLAT_SCR_LO, fsi)?);
                out.push(setreg(t, HWREG_FLAT_SCR_LO + 1, fsi + 1)?);
                out.push(build(
                    t,
                    Opcode::S_SUB_U32,
                    &[sreg(fsi, 1), sreg(fsi, 1), sreg(woff, 1)],
                )?);
                out.push(build(
                    t,
                    Opcode::S_SUBB_U32,
                    &[sreg(fsi + 1, 1), sreg(fsi + 1, 1), Operand::Int(0)],
                )?);
            } else {
                let fs = lathe_isa::reg::sreg::FLAT_SCRATCH_LO;
                out.push(build(
                    t,
                    Opcode::S_ADD_U32,
                    &[sreg(fs, 1), sreg(fsi, 1), sreg(woff, 1)],
                )?);
                out.push(build(
                    t,
                    Opcode::S_ADDC_U32,
                    &[sreg(fs + 1, 1), sreg(fsi + 1, 1), Operand::Int(0)],
                )?);
            }
            if let Some(r) = rsrc {
                out.push(build(
                    t,
                    Opcode::S_ADD_U32,
                    &[sreg(r, 1), sreg(psb, 1), sreg(woff, 1)],
                )?);
                out.push(build(
                    t,
                    Opcode::S_ADDC_U32,
                    &[sreg(r + 1, 1), sreg(psb + 1, 1), Operand::Int(0)],
                )?);
                out.push(build(
                    t,
                    Opcode::S_MOV_B64,
                    &[sreg(r + 2, 2), sreg(psb + 2, 2)],
                )?);
            }
        }
        for (dst, src) in self.moves() {
            out.push(build(t, Opcode::S_MOV_B32, &[sreg(dst, 1), sreg(src, 1)])?);
        }
        Ok(())
    }
}

/// `hwreg` id of FLAT_SCR_LO (GFX10; FLAT_SCR_HI is the next one).
pub const HWREG_FLAT_SCR_LO: u32 = 20;

/// `s_setreg_b32 hwreg(id, 0, 32), s[src]`, assembled from its SOPK
/// fields and checked by decoding.
fn setreg(t: Target, id: u32, src: u16) -> Result<Instruction, BuildError> {
    let op = Opcode::S_SETREG_B32.for_target(t);
    let simm = id | (31 << 11);
    let w = 0xb000_0000 | (u32::from(op.info().code) << 23) | (u32::from(src) << 16) | simm;
    let i = lathe_isa::decode(t, &w.to_le_bytes());
    if i.opcode() != op || i.len() != 4 {
        return Err(BuildError::Invalid {
            opcode: op,
            words: vec![w],
        });
    }
    Ok(i)
}

/// A `scratch_*` dword access with an SGPR base and no VGPR address
/// (`off`), assembled from its fields (the builder's operand list has no
/// `off` form for the address VGPR) and checked by decoding. The offset
/// is 13 bits signed on GFX9, 12 on GFX10 (bit 12 is `dlc` there).
fn scratch_sgpr(
    t: Target,
    op: Opcode,
    data: u16,
    vdst: u16,
    base: u16,
    off: u32,
) -> Result<Instruction, BuildError> {
    let op = op.for_target(t);
    let max = crate::asm::max_global_offset(t);
    let w0 = 0xdc00_4000 | (u32::from(op.info().code) << 18) | (off & max);
    let w1 = (u32::from(data & 0xff) << 8)
        | (u32::from(base & 0x7f) << 16)
        | (u32::from(vdst & 0xff) << 24);
    let mut b = [0u8; 8];
    b[..4].copy_from_slice(&w0.to_le_bytes());
    b[4..].copy_from_slice(&w1.to_le_bytes());
    let i = lathe_isa::decode(t, &b);
    if i.opcode() != op || i.len() != 8 || off > max {
        return Err(BuildError::Invalid {
            opcode: op,
            words: vec![w0, w1],
        });
    }
    Ok(i)
}

/// `scratch_store_dword off, v[v], s[base] offset:off` (per-lane byte
/// offset `s[base] + off`, `off` < 4096, all active lanes).
pub fn store_dword(t: Target, v: u16, base: u16, off: u32) -> Result<Instruction, BuildError> {
    scratch_sgpr(t, Opcode::SCRATCH_STORE_DWORD, v, 0, base, off)
}

/// `scratch_load_dword v[v], off, s[base] offset:off`.
pub fn load_dword(t: Target, v: u16, base: u16, off: u32) -> Result<Instruction, BuildError> {
    scratch_sgpr(t, Opcode::SCRATCH_LOAD_DWORD, 0, v, base, off)
}

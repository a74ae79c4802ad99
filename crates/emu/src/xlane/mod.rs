//! Cross-lane semantics of a wave64 (gfx90a, gfx942), independent of the
//! instruction decoder: the interpreter decodes an instruction, reads its
//! operands and calls these functions for the lane-crossing part.
//!
//! * [`dpp`]: DPP (`dpp_ctrl`, `row_mask`, `bank_mask`, `bound_ctrl`) — which
//!   lane each lane's src0 comes from, and which lanes are written.
//! * [`sdwa`]: SDWA operand selects (`BYTE_0`..`DWORD`, `sext`) and the
//!   destination select with `dst_unused`.
//! * [`lds`]: `ds_swizzle_b32`, `ds_permute_b32`, `ds_bpermute_b32` (LDS
//!   crossbar operations that do not touch LDS memory).
//! * [`lanes`]: `v_readlane_b32`, `v_writelane_b32`, `v_readfirstlane_b32`,
//!   `v_mbcnt_lo/hi_u32_b32` and small lane-mask helpers.
//!
//! Conventions: a [`VReg`] holds one 32-bit value per lane; EXEC is a `u64`
//! with bit `l` for lane `l`. Functions that produce a vector result return
//! the values of every lane plus, where it is not simply EXEC, the mask of
//! lanes the instruction writes; [`lanes::write_masked`] merges them into a
//! destination register.
//!
//! Sources of the rules pinned here are cited per item; the main ones are the
//! AMD CDNA3/CDNA4 ISA reference guides (DS and VOP1 instruction pseudocode,
//! DPP/SDWA field tables) and LLVM's AMDGPU assembler documentation
//! (`AMDGPUModifierSyntax.rst`: `bound_ctrl`, `fi`, `row_newbcast`).

pub mod dpp;
pub mod lanes;
pub mod lds;
pub mod sdwa;

pub use dpp::{apply_dpp, dpp_source_lane, Dpp, DppCtrl, DppLane};
pub use lanes::{
    first_active_lane, lane_mask_below, mbcnt_hi, mbcnt_lo, readfirstlane, readlane, write_masked,
    writelane,
};
pub use lds::{
    bpermute_source_lane, ds_bpermute, ds_permute, ds_swizzle, permute_dest_lane,
    swizzle_source_lane, Swizzle,
};
pub use sdwa::{sdwa_dst, sdwa_src, DstUnused, SdwaSel};

//! An occupancy estimate from a kernel descriptor: how many waves of the
//! kernel one SIMD can hold at once, and which resource limits it — what
//! `cuobjdump -res-usage` users look for.
//!
//! The rules are LLVM's for GFX9 (`llvm/lib/Target/AMDGPU`):
//! - waves per SIMD at most 10, or 8 on the GFX90A class (`gfx90a`,
//!   `gfx94x`, `gfx950`) — `AMDGPU::IsaInfo::getMaxWavesPerEU` in
//!   `Utils/AMDGPUBaseInfo.cpp`; the `Occupancy: 8` lines of
//!   `test/CodeGen/AMDGPU/agpr-register-count.ll` confirm it for gfx90a;
//! - VGPRs: 256 per lane and SIMD, or 512 on the GFX90A class where the
//!   file holds VGPRs and AGPRs together, allocated in granules of 4 (8 on
//!   the GFX90A class); waves = total / allocated — `getTotalNumVGPRs`,
//!   `getVGPRAllocGranule`, `getNumWavesPerEUWithNumVGPRs`;
//! - SGPRs (GFX8/9): at most 80 SGPRs allow 10 waves, 88 allow 9, 100
//!   allow 8, more allow 7 — `GCNSubtarget::getOccupancyWithNumSGPRs`;
//! - LDS: 64 KiB per CU (160 KiB on gfx950) shared by the work-groups
//!   resident on its 4 SIMDs; waves per SIMD = work-groups that fit ×
//!   waves per work-group / 4 — `AMDGPUSubtarget::getOccupancyWithWorkGroupSizes`
//!   and `getAddressableLocalMemorySize`.
//!
//! Scratch, barriers and the CU's work-group slots also limit occupancy on
//! hardware; they are not modelled.

use crate::kd::{KdArch, KernelDescriptor};
use crate::Processor;
use lathe_bundle::target::Family;

/// SIMDs (execution units) per compute unit on GFX9.
pub const SIMDS_PER_CU: u32 = 4;

/// Which resource limits occupancy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Limiter {
    /// Nothing below the hardware's wave slots.
    WaveSlots,
    /// Vector registers.
    Vgprs,
    /// Scalar registers.
    Sgprs,
    /// Local data share.
    Lds,
}

impl Limiter {
    /// A word for reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Limiter::WaveSlots => "wave slots",
            Limiter::Vgprs => "VGPRs",
            Limiter::Sgprs => "SGPRs",
            Limiter::Lds => "LDS",
        }
    }
}

/// Waves per SIMD and what limits them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Occupancy {
    /// The estimate: the smallest of the limits below.
    pub waves_per_simd: u32,
    /// The hardware's wave slots per SIMD.
    pub max_waves_per_simd: u32,
    /// Waves per SIMD the VGPR allocation allows.
    pub by_vgprs: u32,
    /// Waves per SIMD the SGPR allocation allows.
    pub by_sgprs: u32,
    /// Waves per SIMD the LDS use allows (`None`: no LDS used).
    pub by_lds: Option<u32>,
    /// The tightest limit.
    pub limiter: Limiter,
    /// VGPRs (with AGPRs) allocated per lane.
    pub vgprs: u32,
    /// SGPRs allocated per wave.
    pub sgprs: u32,
    /// LDS bytes per work-group assumed.
    pub lds_bytes: u64,
    /// Work-group size assumed (work-items).
    pub workgroup_size: u32,
}

/// Estimates occupancy for `kd` on `processor`, for work-groups of
/// `workgroup_size` work-items using `dynamic_lds` bytes of LDS beyond the
/// descriptor's fixed size. `None` for processors other than GFX9 (the
/// rules differ and are not modelled).
pub fn estimate(
    kd: &KernelDescriptor,
    processor: Processor,
    workgroup_size: u32,
    dynamic_lds: u32,
) -> Option<Occupancy> {
    let arch = KdArch::for_processor(processor);
    if arch.family != Family::Gfx9 {
        return None;
    }
    let max = if arch.gfx90a { 8 } else { 10 };
    let (total_vgprs, granule) = if arch.gfx90a { (512, 8) } else { (256, 4) };
    let vgprs = kd.allocated_vgprs(arch).max(1).next_multiple_of(granule);
    let by_vgprs = (total_vgprs / vgprs).clamp(1, max);
    let sgprs = kd.allocated_sgprs(arch)?;
    let by_sgprs = match sgprs {
        0..=80 => 10,
        81..=88 => 9,
        89..=100 => 8,
        _ => 7,
    }
    .min(max);
    let lds_bytes = u64::from(kd.group_segment_fixed_size) + u64::from(dynamic_lds);
    let lds_per_cu: u64 = if processor.name() == "gfx950" {
        160 << 10
    } else {
        64 << 10
    };
    let wave = kd.wavefront_size(arch).max(1);
    let workgroup_size = workgroup_size.max(1);
    let by_lds = (lds_bytes > 0).then(|| {
        let wgs = lds_per_cu / lds_bytes;
        let waves_per_wg = u64::from(workgroup_size.div_ceil(wave));
        ((wgs * waves_per_wg) / u64::from(SIMDS_PER_CU)).min(u64::from(max)) as u32
    });
    let mut waves = max;
    let mut limiter = Limiter::WaveSlots;
    for (n, l) in [
        (Some(by_vgprs), Limiter::Vgprs),
        (Some(by_sgprs), Limiter::Sgprs),
        (by_lds, Limiter::Lds),
    ] {
        if let Some(n) = n {
            if n < waves {
                waves = n;
                limiter = l;
            }
        }
    }
    Some(Occupancy {
        waves_per_simd: waves,
        max_waves_per_simd: max,
        by_vgprs,
        by_sgprs,
        by_lds,
        limiter,
        vgprs,
        sgprs,
        lds_bytes,
        workgroup_size,
    })
}

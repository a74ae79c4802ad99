//! An occupancy estimate from a kernel descriptor: how many waves of the
//! kernel one SIMD can hold at once, and which resource limits it — what
//! `cuobjdump -res-usage` users look for.
//!
//! The rules are LLVM 22's (`llvm/lib/Target/AMDGPU`, the figure clang
//! prints as `Occupancy [waves/SIMD]` under
//! `-Rpass-analysis=kernel-resource-usage`), for every generation from GFX6
//! to GFX12.5. [`Resources`] holds the per-processor facts:
//! - wave slots per SIMD: 10 before GFX10, 8 on the GFX90A class
//!   (`gfx90a`, `gfx94x`, `gfx950`, `gfx9-4-generic`), 20 on GFX10.1, 16
//!   on GFX10.3 and later (`getMaxWavesPerEU`);
//! - the VGPR file per SIMD lane and the granule it is allocated in
//!   (`getTotalNumVGPRs`, `getVGPRAllocGranule`): 256 in blocks of 4
//!   before GFX10; 512 in blocks of 8 on the GFX90A class (VGPRs and AGPRs
//!   together); on GFX10+ the file is counted per wave size — wave32 1024
//!   (blocks of 8 on GFX10.1, 16 on GFX10.3+), wave64 512 (blocks of 4, 8);
//!   the processors with 1.5× the VGPRs (`gfx1100`, `gfx1101`, `gfx1151`,
//!   `gfx1200`, `gfx1201`, `gfx12-generic`) have 1536 in blocks of 24
//!   (wave32) or 768 in blocks of 12 (wave64). Waves = file / allocation;
//! - SGPRs limit waves only before GFX10 (`getOccupancyWithNumSGPRs`):
//!   on GFX8/9 at most 80 SGPRs allow 10 waves, 88 allow 9, 100 allow 8,
//!   more 7; on GFX6/7 48, 56, 64, 72, 80 allow 10 to 6, more 5;
//! - LDS and work-group slots (`getOccupancyWithWorkGroupSizes`): the
//!   work-groups resident on one CU (or, on GFX10+ in WGP mode, one
//!   work-group processor) share its LDS pool and its wave slots, and
//!   work-groups of more than one wave each need one of its barriers. The
//!   pool is 64 KiB (32 KiB on GFX6, 160 KiB on gfx950, 320 KiB on
//!   GFX12.5), doubled in WGP mode; a CU has 4 SIMDs, 2 in GFX10+'s CU
//!   mode; there are 16 barriers, 32 in WGP mode. GFX12.5 has no WGP mode.
//!   LLVM takes the work-group size range the kernel was compiled for and
//!   reports the best case over it; the code object records only the
//!   maximum (`.max_flat_workgroup_size`), and HIP's range always starts
//!   at 1, so [`Assumptions::min_workgroup_size`] defaults to 1.
//!
//! Each of these was checked against clang-22's remark on hundreds of
//! kernels per processor (crates/cli/tests/info_targets.rs).
//!
//! Scratch, the `amdgpu-waves-per-eu` attribute (not recorded in the code
//! object) and GFX12's dynamic VGPRs are not modelled: a kernel with
//! dynamic VGPRs gets [`NotEstimated::DynamicVgprs`].

use crate::kd::{KdArch, KernelDescriptor, Rsrc3};
use crate::Processor;
use lathe_bundle::target::Family;

/// SIMDs (execution units) per compute unit before GFX10.
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
    /// Work-group slots (barriers) of the CU, without LDS.
    Workgroups,
}

impl Limiter {
    /// A word for reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Limiter::WaveSlots => "wave slots",
            Limiter::Vgprs => "VGPRs",
            Limiter::Sgprs => "SGPRs",
            Limiter::Lds => "LDS",
            Limiter::Workgroups => "work-group slots",
        }
    }
}

/// How SGPR use limits waves per SIMD.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SgprRule {
    /// GFX6/GFX7: 48, 56, 64, 72, 80 SGPRs allow 10, 9, 8, 7, 6 waves; more 5.
    Gfx6,
    /// GFX8/GFX9: 80, 88, 100 SGPRs allow 10, 9, 8 waves; more 7.
    Gfx8,
    /// GFX10+: every wave has its own full set; SGPRs do not limit.
    Unlimited,
}

impl SgprRule {
    fn waves(self, sgprs: u32) -> Option<u32> {
        match self {
            SgprRule::Gfx6 => Some(match sgprs {
                0..=48 => 10,
                49..=56 => 9,
                57..=64 => 8,
                65..=72 => 7,
                73..=80 => 6,
                _ => 5,
            }),
            SgprRule::Gfx8 => Some(match sgprs {
                0..=80 => 10,
                81..=88 => 9,
                89..=100 => 8,
                _ => 7,
            }),
            SgprRule::Unlimited => None,
        }
    }
}

/// The per-processor facts occupancy depends on, for one wave size and
/// (GFX10+) one of CU and WGP mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Resources {
    /// Work-items per wave.
    pub wave_size: u32,
    /// Wave slots per SIMD.
    pub max_waves_per_simd: u32,
    /// SIMDs whose waves share one LDS pool and one set of barriers: the
    /// CU's, or on GFX10+ in WGP mode the work-group processor's.
    pub simds: u32,
    /// VGPRs per lane one SIMD holds, for this wave size.
    pub vgpr_file: u32,
    /// VGPRs are allocated to a wave in blocks of this many.
    pub vgpr_alloc_granule: u32,
    /// How SGPRs limit waves.
    pub sgpr_rule: SgprRule,
    /// LDS bytes one work-group may allocate.
    pub lds_per_workgroup: u32,
    /// LDS bytes the work-groups resident on `simds` SIMDs share.
    pub lds_pool: u32,
    /// Work-groups of more than one wave that can be resident at once
    /// (one barrier each).
    pub barriers: u32,
    /// GFX10+ work-group processor mode.
    pub wgp_mode: bool,
}

/// Whether `name` is one of the processors with 1.5× the VGPR file.
fn has_1_5x_vgprs(name: &str) -> bool {
    matches!(
        name,
        "gfx1100" | "gfx1101" | "gfx1151" | "gfx1200" | "gfx1201" | "gfx12-generic"
    )
}

/// GFX10.1 (`gfx1010`–`gfx1013` and its generic target): 20 wave slots.
fn is_gfx10_1(name: &str) -> bool {
    name.starts_with("gfx101") || name == "gfx10-1-generic"
}

impl Resources {
    /// The facts for `processor` running waves of `wave_size` (64, or 32
    /// on GFX10+) in WGP mode (`wgp_mode`, GFX10+ only; ignored elsewhere
    /// and on GFX12.5, which has none).
    pub fn new(processor: Processor, wave_size: u32, wgp_mode: bool) -> Resources {
        let name = processor.name();
        let family = processor.family();
        let arch = KdArch::for_processor(processor);
        let gfx10_plus = family >= Family::Gfx10;
        let wave32 = gfx10_plus && wave_size == 32;
        let wave_size = if wave32 { 32 } else { 64 };
        let wgp_mode = gfx10_plus && wgp_mode && !arch.gfx125;
        let max_waves_per_simd = if arch.gfx90a {
            8
        } else if !gfx10_plus {
            10
        } else if is_gfx10_1(name) {
            20
        } else {
            16
        };
        let (vgpr_file, vgpr_alloc_granule) = if arch.gfx90a {
            (512, 8)
        } else if !gfx10_plus {
            (256, 4)
        } else if has_1_5x_vgprs(name) {
            if wave32 {
                (1536, 24)
            } else {
                (768, 12)
            }
        } else if is_gfx10_1(name) {
            if wave32 {
                (1024, 8)
            } else {
                (512, 4)
            }
        } else if wave32 {
            (1024, 16)
        } else {
            (512, 8)
        };
        let sgpr_rule = match family {
            Family::Gfx6 | Family::Gfx7 => SgprRule::Gfx6,
            Family::Gfx8 | Family::Gfx9 => SgprRule::Gfx8,
            _ => SgprRule::Unlimited,
        };
        let lds_per_workgroup: u32 = if family == Family::Gfx6 {
            32 << 10
        } else if name == "gfx950" {
            160 << 10
        } else if arch.gfx125 {
            320 << 10
        } else {
            64 << 10
        };
        Resources {
            wave_size,
            max_waves_per_simd,
            simds: if gfx10_plus && !wgp_mode && !arch.gfx125 {
                2
            } else {
                SIMDS_PER_CU
            },
            vgpr_file,
            vgpr_alloc_granule,
            sgpr_rule,
            lds_per_workgroup,
            lds_pool: if wgp_mode {
                lds_per_workgroup * 2
            } else {
                lds_per_workgroup
            },
            barriers: if wgp_mode { 32 } else { 16 },
            wgp_mode,
        }
    }

    /// The facts for a kernel: its descriptor's wave size and WGP mode.
    pub fn for_kernel(kd: &KernelDescriptor, processor: Processor) -> Resources {
        let arch = KdArch::for_processor(processor);
        let wgp = kd.rsrc1(arch).wgp_mode.unwrap_or(false);
        Resources::new(processor, kd.wavefront_size(arch), wgp)
    }

    /// VGPRs a wave using `vgprs` per lane is given (rounded up to the
    /// allocation granule).
    pub fn allocated_vgprs(&self, vgprs: u32) -> u32 {
        vgprs.max(1).next_multiple_of(self.vgpr_alloc_granule)
    }

    /// Waves per SIMD that `vgprs` VGPRs per lane allow.
    pub fn waves_by_vgprs(&self, vgprs: u32) -> u32 {
        if vgprs < self.vgpr_alloc_granule {
            return self.max_waves_per_simd;
        }
        (self.vgpr_file / self.allocated_vgprs(vgprs)).clamp(1, self.max_waves_per_simd)
    }

    /// Waves per SIMD that `sgprs` SGPRs per wave allow (`None`: SGPRs do
    /// not limit on this generation).
    pub fn waves_by_sgprs(&self, sgprs: u32) -> Option<u32> {
        self.sgpr_rule
            .waves(sgprs)
            .map(|w| w.min(self.max_waves_per_simd))
    }

    /// Work-groups of `size` work-items that can be resident at once on
    /// one CU/WGP for LDS use of `lds` bytes each: (waves per work-group,
    /// work-groups).
    fn resident(&self, size: u32, lds_fit: u64) -> (u64, u64) {
        let slots = u64::from(self.max_waves_per_simd * self.simds);
        let waves = u64::from(size.max(1).div_ceil(self.wave_size));
        let by_slots = if waves <= 1 {
            slots
        } else {
            (slots / waves).min(u64::from(self.barriers))
        };
        (waves, by_slots.min(lds_fit))
    }

    /// Waves per SIMD that work-groups of `min_size..=max_size` work-items
    /// using `lds` bytes of LDS each allow at best.
    pub fn waves_by_workgroups(&self, lds: u64, min_size: u32, max_size: u32) -> u32 {
        let max_size = max_size.max(1);
        let min_size = min_size.clamp(1, max_size);
        let lds_fit = u64::from(self.lds_pool) / lds.max(1);
        if lds_fit == 0 {
            return 1;
        }
        let slots = u64::from(self.max_waves_per_simd * self.simds);
        let (small_waves, small_groups) = self.resident(min_size, lds_fit);
        let (big_waves, big_groups) = self.resident(max_size, lds_fit);
        let mut best = small_waves * small_groups;
        if big_waves * big_groups >= best {
            best = big_waves * big_groups;
        } else {
            // A size between the two may fill the slots the smallest
            // work-groups leave free with as many work-groups resident.
            let spare = slots.saturating_sub(small_groups * small_waves) / small_groups.max(1);
            let widest = u64::from((max_size - 1) / self.wave_size + 1) - small_waves;
            best += small_groups * spare.min(widest);
        }
        let simds = u64::from(self.simds);
        best.div_ceil(simds)
            .clamp(1, u64::from(self.max_waves_per_simd)) as u32
    }
}

/// What the estimate assumes beyond the descriptor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Assumptions {
    /// Smallest work-group size the kernel may be launched with (1 in HIP).
    pub min_workgroup_size: u32,
    /// Largest work-group size (the metadata's `.max_flat_workgroup_size`).
    pub max_workgroup_size: u32,
    /// LDS bytes per work-group beyond the descriptor's fixed size.
    pub dynamic_lds: u32,
    /// SGPRs the kernel uses (the metadata's `.sgpr_count`); without it,
    /// the descriptor's allocation (rounded up to 8) is used.
    pub sgprs: Option<u32>,
}

impl Assumptions {
    /// Work-groups of 1 to `max_workgroup_size` work-items, no dynamic LDS.
    pub fn up_to(max_workgroup_size: u32) -> Assumptions {
        Assumptions {
            min_workgroup_size: 1,
            max_workgroup_size,
            dynamic_lds: 0,
            sgprs: None,
        }
    }
}

/// Why no estimate was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotEstimated {
    /// GFX12 dynamic VGPRs: the block size is not in the code object.
    #[error("the kernel allocates VGPRs dynamically (GFX12 dynamic VGPRs)")]
    DynamicVgprs,
}

/// Waves per SIMD and what limits them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Occupancy {
    /// The estimate: the smallest of the limits below.
    pub waves_per_simd: u32,
    /// The hardware's wave slots per SIMD.
    pub max_waves_per_simd: u32,
    /// Waves per SIMD the VGPR allocation allows.
    pub by_vgprs: u32,
    /// Waves per SIMD the SGPR use allows (the wave slots on GFX10+,
    /// where SGPRs do not limit).
    pub by_sgprs: u32,
    /// Waves per SIMD the LDS use and work-group slots allow (`None`: no
    /// LDS used).
    pub by_lds: Option<u32>,
    /// Waves per SIMD the LDS use and work-group slots allow, also without
    /// LDS.
    pub by_workgroups: u32,
    /// The tightest limit (on a tie LDS/work-groups, then SGPRs, then
    /// VGPRs: LLVM 22 pads the descriptor's register counts up to what the
    /// other limits leave free).
    pub limiter: Limiter,
    /// VGPRs (with AGPRs) per lane as the descriptor encodes them.
    pub vgprs: u32,
    /// VGPRs per lane the hardware allocates (rounded up to its granule).
    pub vgprs_allocated: u32,
    /// SGPRs per wave counted (`None` on GFX10+).
    pub sgprs: Option<u32>,
    /// LDS bytes per work-group assumed.
    pub lds_bytes: u64,
    /// Largest work-group size assumed (work-items).
    pub workgroup_size: u32,
    /// Smallest work-group size assumed.
    pub min_workgroup_size: u32,
    /// The processor facts used.
    pub resources: Resources,
}

/// Estimates occupancy for `kd` on `processor` under `assume`.
pub fn estimate(
    kd: &KernelDescriptor,
    processor: Processor,
    assume: &Assumptions,
) -> Result<Occupancy, NotEstimated> {
    let arch = KdArch::for_processor(processor);
    let dynamic = match kd.rsrc3(arch) {
        Rsrc3::Gfx12 {
            enable_dynamic_vgpr,
            ..
        } if arch.gfx125 => enable_dynamic_vgpr,
        _ => kd.rsrc2(arch).enable_dynamic_vgpr.unwrap_or(false),
    };
    if dynamic {
        return Err(NotEstimated::DynamicVgprs);
    }
    let r = Resources::for_kernel(kd, processor);
    let max = r.max_waves_per_simd;
    let vgprs = kd.allocated_vgprs(arch);
    let by_vgprs = r.waves_by_vgprs(vgprs);
    let sgprs = match r.sgpr_rule {
        SgprRule::Unlimited => None,
        _ => assume.sgprs.or_else(|| kd.allocated_sgprs(arch)),
    };
    let by_sgprs = sgprs.and_then(|s| r.waves_by_sgprs(s)).unwrap_or(max);
    let lds_bytes = u64::from(kd.group_segment_fixed_size) + u64::from(assume.dynamic_lds);
    let workgroup_size = assume.max_workgroup_size.max(1);
    let min_workgroup_size = assume.min_workgroup_size.clamp(1, workgroup_size);
    let by_groups = r.waves_by_workgroups(lds_bytes, min_workgroup_size, workgroup_size);
    let group_limiter = if lds_bytes > 0 {
        Limiter::Lds
    } else {
        Limiter::Workgroups
    };
    let mut waves = max;
    let mut limiter = Limiter::WaveSlots;
    for (n, l) in [
        (by_groups, group_limiter),
        (by_sgprs, Limiter::Sgprs),
        (by_vgprs, Limiter::Vgprs),
    ] {
        if n < waves {
            waves = n;
            limiter = l;
        }
    }
    Ok(Occupancy {
        waves_per_simd: waves,
        max_waves_per_simd: max,
        by_vgprs,
        by_sgprs,
        by_lds: (lds_bytes > 0).then_some(by_groups),
        by_workgroups: by_groups,
        limiter,
        vgprs,
        vgprs_allocated: r.allocated_vgprs(vgprs),
        sgprs,
        lds_bytes,
        workgroup_size,
        min_workgroup_size,
        resources: r,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(name: &str) -> Processor {
        Processor::from_name(name).expect("known processor")
    }

    /// The table of facts per processor class; the end-to-end check is
    /// against clang's remarks in the CLI tests.
    #[test]
    fn resources_per_generation() {
        let row = |name: &str, wave: u32, wgp: bool| {
            let r = Resources::new(p(name), wave, wgp);
            (
                r.max_waves_per_simd,
                r.vgpr_file,
                r.vgpr_alloc_granule,
                r.lds_pool,
                r.simds,
                r.barriers,
            )
        };
        assert_eq!(row("gfx803", 64, false), (10, 256, 4, 65536, 4, 16));
        assert_eq!(row("gfx600", 64, false), (10, 256, 4, 32768, 4, 16));
        assert_eq!(row("gfx90a", 64, false), (8, 512, 8, 65536, 4, 16));
        assert_eq!(row("gfx950", 64, false), (8, 512, 8, 163840, 4, 16));
        assert_eq!(row("gfx1010", 32, true), (20, 1024, 8, 131072, 4, 32));
        assert_eq!(row("gfx1030", 64, false), (16, 512, 8, 65536, 2, 16));
        assert_eq!(row("gfx1100", 32, true), (16, 1536, 24, 131072, 4, 32));
        assert_eq!(row("gfx1102", 64, true), (16, 512, 8, 131072, 4, 32));
        assert_eq!(row("gfx1201", 64, true), (16, 768, 12, 131072, 4, 32));
        assert_eq!(row("gfx1250", 32, true), (16, 1024, 16, 327680, 4, 16));
    }

    #[test]
    fn lds_past_the_pool_gives_one_wave() {
        let r = Resources::new(p("gfx90a"), 64, false);
        assert_eq!(r.waves_by_workgroups(70_000, 1, 256), 1);
        assert_eq!(r.waves_by_workgroups(0, 1, 1024), 8);
        // Degenerate sizes do not panic.
        assert_eq!(r.waves_by_workgroups(0, 0, 0), 8);
        assert_eq!(r.waves_by_workgroups(u64::MAX, 5, 1), 1);
    }
}

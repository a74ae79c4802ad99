//! Dispatch set-up, with AQL kernel dispatch packet semantics: the packet
//! itself, grid geometry (partial work-groups included), code object v5
//! hidden kernel arguments as the HIP runtime fills them, and the initial
//! register state of each wave as the kernel descriptor asks for it.
//!
//! Nothing here executes instructions; the interpreter starts each wave from
//! a [`WaveStart`].

use lathe_bundle::target::{Family, Processor};
use lathe_codeobj::kd::{InitialSgpr, KdArch, KernelDescriptor, SgprRole};

use crate::wave::WaveSize;

pub use lathe_codeobj::aql::{AqlDispatch, Geometry, GeometryError, AQL_PACKET_SIZE};

/// Lanes per wave (wave64; GFX9).
pub const WAVE_SIZE: u32 = 64;

/// The (generation, wave size) pairs the interpreter runs (D42): GFX9
/// wave64, GFX10 in both wave sizes (D65: GFX10.3's rows of the semantics
/// column; a GFX10.1-only row stops as not emulated) and GFX11 in both
/// (D77: gfx1100's rows) and GFX12 in both (D85: gfx1200/gfx1201's rows).
/// Other generations are added as rows here once the interpreter has their
/// semantics; nothing else branches on the generation.
pub const EMULATED: &[(Family, u32)] = &[
    (Family::Gfx9, 64),
    (Family::Gfx10, 64),
    (Family::Gfx10, 32),
    (Family::Gfx11, 64),
    (Family::Gfx11, 32),
    (Family::Gfx12, 64),
    (Family::Gfx12, 32),
];

/// Whether the hardware puts the work-group IDs in trap temporaries
/// (GFX12's architected SGPRs): x in `ttmp9`, y in the low and z in the
/// high half of `ttmp7`, whatever the kernel descriptor's user SGPRs ask
/// for (LLVM reads them there from GFX12 on).
pub fn architected_workgroup_ids(arch: KdArch) -> bool {
    arch.family >= Family::Gfx12
}

/// A kernel the emulator cannot run yet: its wave size and GFX IP.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "kernel {kernel}: wave{wave_size}/{ip} execution not yet emulated (the emulator runs {runs})"
)]
pub struct NotEmulated {
    /// Kernel name.
    pub kernel: String,
    /// Lanes per wave the kernel descriptor asks for.
    pub wave_size: u32,
    /// The agent's GFX IP (`GFX10.3`).
    pub ip: String,
    /// What the emulator runs, for the message.
    pub runs: String,
}

/// Whether the emulator runs `kernel` (whose descriptor asks for
/// `wave_size` lanes) on `processor`: its family and wave size must be a
/// row of [`EMULATED`].
pub fn check_emulated(
    kernel: &str,
    processor: Processor,
    wave_size: u32,
) -> Result<(), NotEmulated> {
    if EMULATED.contains(&(processor.family(), wave_size)) {
        return Ok(());
    }
    let runs = EMULATED
        .iter()
        .map(|(f, w)| format!("{} wave{w} code", family_name(*f)))
        .collect::<Vec<_>>()
        .join(", ");
    Err(NotEmulated {
        kernel: kernel.to_string(),
        wave_size,
        ip: gfx_ip(processor.name()),
        runs,
    })
}

fn family_name(f: Family) -> String {
    // `Gfx9` → `GFX9`.
    format!("{f:?}").to_uppercase()
}

/// The GFX IP version of a processor or generic target, from its name:
/// `gfx90a` → `GFX9.0`, `gfx942` → `GFX9.4`, `gfx1030` → `GFX10.3`,
/// `gfx1151` → `GFX11.5`, `gfx1201` → `GFX12.0`, `gfx10-3-generic` →
/// `GFX10.3`, `gfx11-generic` → `GFX11`.
pub fn gfx_ip(processor: &str) -> String {
    let id = processor.strip_prefix("gfx").unwrap_or(processor);
    if let Some(g) = id.strip_suffix("-generic") {
        return format!("GFX{}", g.replace('-', "."));
    }
    // Three characters: major digit, minor, stepping (gfx90a); four: two
    // major digits (gfx1030).
    let major = if id.len() >= 4 { 2 } else { 1 };
    match (id.get(..major), id.get(major..=major)) {
        (Some(maj), Some(min)) => format!("GFX{maj}.{min}"),
        _ => processor.to_uppercase(),
    }
}

/// Values the dispatcher supplies for hidden arguments it does not derive
/// from the geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HiddenValues {
    /// Dynamic LDS bytes of the dispatch.
    pub dynamic_lds_size: u32,
    /// High 32 bits of the private (scratch) aperture base.
    pub private_base: u32,
    /// High 32 bits of the shared (LDS) aperture base.
    pub shared_base: u32,
    /// Queue address.
    pub queue_ptr: u64,
    /// Hostcall / printf buffer, if the runtime provides one.
    pub hostcall_buffer: u64,
    /// Device heap (`hidden_heap_v1`), if any.
    pub heap: u64,
}

/// One argument slot to fill: its `.value_kind`, offset and size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArgSlot<'a> {
    /// `.value_kind`.
    pub kind: &'a str,
    /// `.offset`.
    pub offset: u64,
    /// `.size`.
    pub size: u64,
}

/// Hidden argument kinds a dispatcher fills but with no value from this
/// emulator (reported so callers can tell a zero from an unsupported kind).
pub const ZERO_FILLED_HIDDEN: &[&str] = &[
    "hidden_multigrid_sync_arg",
    "hidden_default_queue",
    "hidden_completion_action",
    "hidden_none",
];

/// Writes the hidden arguments into `kernarg` (the whole segment) as the
/// HIP runtime does for code object v4/v5: block counts, group sizes,
/// remainders, zero global offsets, grid dimensions, dynamic LDS size,
/// apertures, queue and buffer pointers. Explicit arguments are left alone.
/// Returns the kinds it did not recognise (left as they were).
pub fn fill_hidden_args<'a>(
    kernarg: &mut [u8],
    args: &[ArgSlot<'a>],
    geo: &Geometry,
    v: &HiddenValues,
) -> Vec<&'a str> {
    let counts = geo.full_workgroup_count();
    let rem = geo.remainder();
    let mut unknown = Vec::new();
    for a in args {
        if !a.kind.starts_with("hidden_") {
            continue;
        }
        let d = |s: &str| match s.as_bytes().last() {
            Some(b'x') => 0,
            Some(b'y') => 1,
            _ => 2,
        };
        let value: u64 = match a.kind {
            "hidden_block_count_x" | "hidden_block_count_y" | "hidden_block_count_z" => {
                u64::from(counts[d(a.kind)])
            }
            "hidden_group_size_x" | "hidden_group_size_y" | "hidden_group_size_z" => {
                u64::from(geo.workgroup[d(a.kind)])
            }
            "hidden_remainder_x" | "hidden_remainder_y" | "hidden_remainder_z" => {
                u64::from(rem[d(a.kind)])
            }
            "hidden_global_offset_x" | "hidden_global_offset_y" | "hidden_global_offset_z" => 0,
            "hidden_grid_dims" => u64::from(geo.dims),
            "hidden_dynamic_lds_size" => u64::from(v.dynamic_lds_size),
            "hidden_private_base" => u64::from(v.private_base),
            "hidden_shared_base" => u64::from(v.shared_base),
            "hidden_queue_ptr" => v.queue_ptr,
            "hidden_hostcall_buffer" | "hidden_printf_buffer" => v.hostcall_buffer,
            "hidden_heap_v1" => v.heap,
            k if ZERO_FILLED_HIDDEN.contains(&k) => 0,
            _ => {
                unknown.push(a.kind);
                continue;
            }
        };
        let (Ok(off), Ok(size)) = (usize::try_from(a.offset), usize::try_from(a.size)) else {
            continue;
        };
        let size = size.min(8);
        if let Some(dst) = off
            .checked_add(size)
            .and_then(|end| kernarg.get_mut(off..end))
        {
            dst.copy_from_slice(&value.to_le_bytes()[..size]);
        }
    }
    unknown
}

/// Per-dispatch values of the initial SGPRs that do not vary by wave.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DispatchSgprs {
    /// Private segment buffer descriptor (V#).
    pub private_segment_buffer: [u32; 4],
    /// Address of the AQL packet.
    pub dispatch_ptr: u64,
    /// Address of the queue.
    pub queue_ptr: u64,
    /// Address of the kernarg segment.
    pub kernarg_ptr: u64,
    /// Dispatch ID.
    pub dispatch_id: u64,
    /// Flat scratch init value (GFX9 without architected flat scratch).
    pub flat_scratch_init: u64,
    /// Scratch bytes per work-item.
    pub private_segment_size: u32,
}

/// Everything a wave starts with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaveStart {
    /// Work-group ID.
    pub workgroup: [u32; 3],
    /// Wave index within the work-group.
    pub wave: u32,
    /// Initial SGPRs: (register number, value).
    pub sgprs: Vec<(u32, u32)>,
    /// Work-item IDs per active lane (x, y, z within the work-group).
    pub workitem_ids: Vec<[u32; 3]>,
    /// Active lanes.
    pub exec: u64,
}

/// Whether the target packs the three work-item IDs into v0 (10 bits each)
/// rather than v0, v1, v2 ([`KdArch::packs_workitem_ids`]).
pub fn packs_workitem_ids(arch: KdArch) -> bool {
    arch.packs_workitem_ids()
}

/// The initial VGPR values of one lane: `(register, value)` pairs (at most
/// three; no allocation, as this runs for every lane of every wave).
pub fn workitem_vgprs(
    arch: KdArch,
    enabled: u32,
    id: [u32; 3],
) -> impl Iterator<Item = (u32, u32)> {
    let n = (enabled + 1).min(3) as usize;
    let mut out = [(0u32, 0u32); 3];
    let len = if packs_workitem_ids(arch) {
        let mut v = id[0] & 0x3ff;
        if n > 1 {
            v |= (id[1] & 0x3ff) << 10;
        }
        if n > 2 {
            v |= (id[2] & 0x3ff) << 20;
        }
        out[0] = (0, v);
        1
    } else {
        for (i, o) in out.iter_mut().enumerate().take(n) {
            *o = (i as u32, id[i]);
        }
        n
    };
    out.into_iter().take(len)
}

/// Builds the start state of wave `wave` of work-group `wg`.
/// `wave_scratch_offset` is the byte offset of this wave's scratch within
/// the dispatch's scratch allocation.
pub fn wave_start(
    kd: &KernelDescriptor,
    arch: KdArch,
    geo: &Geometry,
    wg: [u32; 3],
    wave: u32,
    d: &DispatchSgprs,
    wave_scratch_offset: u32,
) -> WaveStart {
    let plan = WavePlan::new(kd, arch, geo);
    let mut sgprs = Vec::new();
    plan.for_each_sgpr(d, wg, wave, wave_scratch_offset, |r, v| sgprs.push((r, v)));
    let (exec, first, active) = plan.lanes(wg, wave);
    let mut workitem_ids = Vec::with_capacity(active as usize);
    plan.for_each_workitem(wg, first, active, |_, id| workitem_ids.push(id));
    WaveStart {
        workgroup: wg,
        wave,
        sgprs,
        workitem_ids,
        exec,
    }
}

/// What every wave of one dispatch starts with, worked out once per
/// dispatch: the kernel descriptor's initial SGPR layout and work-item ID
/// VGPRs. A dispatch starts thousands of short waves, so the per-wave part
/// ([`WavePlan::init`]) writes straight into the register files with no
/// allocation; [`wave_start`] gives the same state as a [`WaveStart`].
#[derive(Debug, Clone)]
pub struct WavePlan {
    /// Shared: a plan kept for a kernel is reused by its next dispatches
    /// with their own geometry ([`WavePlan::with_geometry`]).
    sgprs: std::sync::Arc<[InitialSgpr]>,
    geo: Geometry,
    /// Work-item IDs packed into v0 ([`packs_workitem_ids`]).
    packs: bool,
    /// Work-item ID dimensions set up (1–3).
    dims: usize,
    /// Lanes per wave, from the kernel descriptor (D42).
    wave: WaveSize,
    /// Work-group IDs in `ttmp9`/`ttmp7` ([`architected_workgroup_ids`]).
    ttmp_ids: bool,
}

impl WavePlan {
    /// The plan of a dispatch of `kd` over `geo`.
    pub fn new(kd: &KernelDescriptor, arch: KdArch, geo: &Geometry) -> Self {
        WavePlan {
            sgprs: kd.initial_sgprs(arch).into(),
            geo: *geo,
            packs: packs_workitem_ids(arch),
            dims: (kd.rsrc2(arch).enable_vgpr_workitem_id + 1).min(3) as usize,
            wave: WaveSize::from_lanes(kd.wavefront_size(arch)).unwrap_or(WaveSize::W64),
            ttmp_ids: architected_workgroup_ids(arch),
        }
    }

    /// This plan for another dispatch of the same kernel descriptor on the
    /// same architecture: everything but the geometry depends on those two
    /// alone, so the SGPR layout is shared, not worked out again.
    pub fn with_geometry(&self, geo: &Geometry) -> Self {
        WavePlan {
            sgprs: std::sync::Arc::clone(&self.sgprs),
            geo: *geo,
            packs: self.packs,
            dims: self.dims,
            wave: self.wave,
            ttmp_ids: self.ttmp_ids,
        }
    }

    /// The trap temporaries a wave of work-group `wg` starts with: on
    /// GFX12 the work-group IDs (`ttmp9` = x, `ttmp7` = z << 16 | y), else
    /// none (they stay 0).
    pub fn init_ttmp(&self, wg: [u32; 3], ttmp: &mut [u32; 16]) {
        if self.ttmp_ids {
            ttmp[9] = wg[0];
            ttmp[7] = (wg[2] & 0xffff) << 16 | wg[1] & 0xffff;
        }
    }

    /// Lanes per wave of this dispatch.
    pub fn wave_size(&self) -> WaveSize {
        self.wave
    }

    /// Waves in work-group `wg`.
    pub fn waves_in(&self, wg: [u32; 3]) -> u32 {
        self.geo.waves_in(wg, self.wave.lanes())
    }

    /// EXEC, the first work-item (linear, within the group) and the number
    /// of active lanes of wave `wave` of work-group `wg`.
    pub fn lanes(&self, wg: [u32; 3], wave: u32) -> (u64, u32, u32) {
        let size = self.geo.workgroup_size_of(wg);
        let items = size[0] * size[1] * size[2];
        let lanes = self.wave.lanes();
        let first = wave * lanes;
        let active = items.saturating_sub(first).min(lanes);
        (self.wave.first_lanes(active), first, active)
    }

    /// Calls `f(register, value)` for every initial SGPR of wave `wave`.
    pub fn for_each_sgpr(
        &self,
        d: &DispatchSgprs,
        wg: [u32; 3],
        wave: u32,
        wave_scratch_offset: u32,
        mut f: impl FnMut(u32, u32),
    ) {
        let waves = self.waves_in(wg);
        for s in self.sgprs.iter() {
            sgpr_values(s, d, wg, wave, waves, wave_scratch_offset, &mut f);
        }
    }

    /// Calls `f(lane, [x, y, z])` for the work-item IDs of the `active`
    /// lanes starting at linear work-item `first` of work-group `wg`
    /// (x fastest).
    pub fn for_each_workitem(
        &self,
        wg: [u32; 3],
        first: u32,
        active: u32,
        mut f: impl FnMut(usize, [u32; 3]),
    ) {
        if active == 0 {
            return;
        }
        let size = self.geo.workgroup_size_of(wg);
        // Divide once for the wave's first item, then count.
        let (sx, sy) = (size[0].max(1), size[1].max(1));
        let mut id = [first % sx, (first / sx) % sy, first / (sx * sy)];
        for lane in 0..active as usize {
            f(lane, id);
            id[0] += 1;
            if id[0] == sx {
                id[0] = 0;
                id[1] += 1;
                if id[1] == sy {
                    id[1] = 0;
                    id[2] += 1;
                }
            }
        }
    }

    /// Sets up wave `wave` of work-group `wg` in place: its initial SGPRs
    /// (in `sgpr`; numbers past its end are dropped) and work-item ID VGPRs
    /// (in `vgpr`, which must be zero in the lanes past the active ones, as
    /// a fresh register file is). Returns EXEC.
    pub fn init(
        &self,
        d: &DispatchSgprs,
        wg: [u32; 3],
        wave: u32,
        wave_scratch_offset: u32,
        sgpr: &mut [u32],
        vgpr: &mut [[u32; 64]],
    ) -> u64 {
        self.for_each_sgpr(d, wg, wave, wave_scratch_offset, |r, v| {
            if let Some(x) = sgpr.get_mut(r as usize) {
                *x = v;
            }
        });
        let (exec, first, active) = self.lanes(wg, wave);
        let size = self.geo.workgroup_size_of(wg);
        if size[1] == 1 && size[2] == 1 {
            // One-dimensional groups (the common case): x counts up from
            // the wave's first item; y and z are 0.
            if let Some(v0) = vgpr.first_mut() {
                for (lane, v) in v0.iter_mut().take(active as usize).enumerate() {
                    let x = first + lane as u32;
                    *v = if self.packs { x & 0x3ff } else { x };
                }
            }
            return exec;
        }
        let (packs, n) = (self.packs, self.dims);
        self.for_each_workitem(wg, first, active, |lane, id| {
            if packs {
                let mut v = id[0] & 0x3ff;
                if n > 1 {
                    v |= (id[1] & 0x3ff) << 10;
                }
                if n > 2 {
                    v |= (id[2] & 0x3ff) << 20;
                }
                if let Some(r) = vgpr.first_mut() {
                    r[lane] = v;
                }
            } else {
                for (r, x) in vgpr.iter_mut().zip(id).take(n) {
                    r[lane] = x;
                }
            }
        });
        exec
    }
}

/// The values of one initial SGPR range, as `f(register, value)` calls.
fn sgpr_values(
    s: &InitialSgpr,
    d: &DispatchSgprs,
    wg: [u32; 3],
    wave: u32,
    waves: u32,
    wave_scratch_offset: u32,
    f: &mut impl FnMut(u32, u32),
) {
    let lo = |v: u64| v as u32;
    let hi = |v: u64| (v >> 32) as u32;
    let pair = |v: u64| [lo(v), hi(v), 0, 0];
    let one = |v: u32| [v, 0, 0, 0];
    let (vals, len) = match s.role {
        SgprRole::PrivateSegmentBuffer => (d.private_segment_buffer, 4),
        SgprRole::DispatchPtr => (pair(d.dispatch_ptr), 2),
        SgprRole::QueuePtr => (pair(d.queue_ptr), 2),
        SgprRole::KernargSegmentPtr => (pair(d.kernarg_ptr), 2),
        SgprRole::DispatchId => (pair(d.dispatch_id), 2),
        SgprRole::FlatScratchInit => (pair(d.flat_scratch_init), 2),
        SgprRole::PrivateSegmentSize => (one(d.private_segment_size), 1),
        SgprRole::WorkgroupIdX => (one(wg[0]), 1),
        SgprRole::WorkgroupIdY => (one(wg[1]), 1),
        SgprRole::WorkgroupIdZ => (one(wg[2]), 1),
        // {first_wave, 14'b0, ordered_append_term[10:0], threadgroup_size_in_waves[5:0]}
        SgprRole::WorkgroupInfo => (one((u32::from(wave == 0) << 31) | (waves & 0x3f)), 1),
        SgprRole::PrivateSegmentWaveOffset => (one(wave_scratch_offset), 1),
        // Preloaded kernargs are filled by the caller from the kernarg
        // segment; leave zeros here.
        _ => ([0; 4], s.count),
    };
    for i in 0..s.count.min(len) {
        f(s.first + i, vals.get(i as usize).copied().unwrap_or(0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packet_roundtrip() {
        let p = AqlDispatch {
            header: 0x1502,
            setup: 3,
            workgroup_size: [4, 4, 2],
            grid_size: [13, 7, 5],
            private_segment_size: 64,
            group_segment_size: 1024,
            kernel_object: 0x7f00_0000_1000,
            kernarg_address: 0x7f00_0000_2000,
            completion_signal: 42,
        };
        assert_eq!(AqlDispatch::from_bytes(&p.to_bytes()), p);
        let g = p.geometry().expect("valid");
        assert_eq!(g.workgroup_count(), [4, 2, 3]);
        assert_eq!(g.remainder(), [1, 3, 1]);
        assert_eq!(g.workgroup_size_of([3, 1, 2]), [1, 3, 1]);
        assert_eq!(g.workgroup_size_of([0, 0, 0]), [4, 4, 2]);
        assert_eq!(g.total_workgroups(), 24);
        assert_eq!(g.workgroup_id(5), [1, 1, 0]);
    }

    #[test]
    fn bad_geometry() {
        assert_eq!(
            Geometry::new([1, 1, 1], [1, 1, 1], 0),
            Err(GeometryError::Dims(0))
        );
        assert_eq!(
            Geometry::new([64, 2, 1], [64, 1, 1], 1),
            Err(GeometryError::UnusedDim {
                dim: 1,
                what: "grid",
                size: 2
            })
        );
        assert_eq!(
            Geometry::new([2048, 1, 1], [2048, 1, 1], 1),
            Err(GeometryError::WorkgroupTooLarge(2048))
        );
        assert!(matches!(
            Geometry::new([0, 1, 1], [1, 1, 1], 1),
            Err(GeometryError::Zero { .. })
        ));
    }

    #[test]
    fn hidden_args_follow_the_metadata_offsets() {
        let g = Geometry::new([1000, 3, 1], [256, 2, 1], 2).expect("valid");
        let args = [
            ArgSlot {
                kind: "global_buffer",
                offset: 0,
                size: 8,
            },
            ArgSlot {
                kind: "hidden_block_count_x",
                offset: 16,
                size: 4,
            },
            ArgSlot {
                kind: "hidden_block_count_y",
                offset: 20,
                size: 4,
            },
            ArgSlot {
                kind: "hidden_group_size_x",
                offset: 28,
                size: 2,
            },
            ArgSlot {
                kind: "hidden_remainder_x",
                offset: 34,
                size: 2,
            },
            ArgSlot {
                kind: "hidden_remainder_y",
                offset: 36,
                size: 2,
            },
            ArgSlot {
                kind: "hidden_grid_dims",
                offset: 64,
                size: 2,
            },
            ArgSlot {
                kind: "hidden_dynamic_lds_size",
                offset: 68,
                size: 4,
            },
            ArgSlot {
                kind: "hidden_something_new",
                offset: 72,
                size: 4,
            },
        ];
        let mut k = vec![0xaau8; 80];
        let unknown = fill_hidden_args(
            &mut k,
            &args,
            &g,
            &HiddenValues {
                dynamic_lds_size: 512,
                ..Default::default()
            },
        );
        assert_eq!(unknown, ["hidden_something_new"]);
        let u32_at = |o: usize| u32::from_le_bytes(k[o..o + 4].try_into().expect("4"));
        let u16_at = |o: usize| u16::from_le_bytes(k[o..o + 2].try_into().expect("2"));
        // Whole groups only, as HIP's runtime writes them (1000 / 256 and
        // 3 / 2): the partial group's size comes from the remainder.
        assert_eq!(u32_at(16), 3);
        assert_eq!(u32_at(20), 1);
        assert_eq!(u16_at(28), 256);
        assert_eq!(u16_at(34), 1000 % 256);
        assert_eq!(u16_at(36), 1);
        assert_eq!(u16_at(64), 2);
        assert_eq!(u32_at(68), 512);
        assert_eq!(k[0], 0xaa, "explicit arguments untouched");
        assert_eq!(u32_at(72), 0xaaaa_aaaa, "unknown kinds untouched");
    }

    #[test]
    fn gfx_ip_from_names() {
        for (p, ip) in [
            ("gfx90a", "GFX9.0"),
            ("gfx942", "GFX9.4"),
            ("gfx950", "GFX9.5"),
            ("gfx1030", "GFX10.3"),
            ("gfx1100", "GFX11.0"),
            ("gfx1151", "GFX11.5"),
            ("gfx1201", "GFX12.0"),
            ("gfx10-3-generic", "GFX10.3"),
            ("gfx11-generic", "GFX11"),
        ] {
            assert_eq!(gfx_ip(p), ip);
        }
    }

    #[test]
    fn gfx9_wave64_gfx10_gfx11_and_gfx12_are_emulated() {
        let p = |n| Processor::from_name(n).expect(n);
        for n in [
            "gfx90a", "gfx942", "gfx950", "gfx908", "gfx1030", "gfx1100", "gfx1201",
        ] {
            assert_eq!(check_emulated("k", p(n), 64), Ok(()), "{n}");
        }
        for n in ["gfx1030", "gfx1100", "gfx1200", "gfx1201"] {
            assert_eq!(check_emulated("k", p(n), 32), Ok(()), "{n}");
        }
        let e = check_emulated("_Z4axpyPfPKffi", p("gfx90a"), 32).expect_err("gfx90a wave32");
        assert_eq!(
            e.to_string(),
            "kernel _Z4axpyPfPKffi: wave32/GFX9.0 execution not yet emulated (the emulator runs GFX9 wave64 code, GFX10 wave64 code, GFX10 wave32 code, GFX11 wave64 code, GFX11 wave32 code, GFX12 wave64 code, GFX12 wave32 code)"
        );
    }

    #[test]
    fn gfx12_waves_start_with_their_work_group_ids_in_ttmp7_and_ttmp9() {
        let arch = |p| KdArch::for_processor(Processor::from_name(p).expect(p));
        let geo = Geometry::new([64, 8, 6], [8, 4, 2], 3).expect("valid");
        let wg = [7, 1, 2];
        for (p, want9, want7) in [("gfx1201", 7, 2 << 16 | 1), ("gfx1100", 0, 0)] {
            let plan = WavePlan::new(&kd(true), arch(p), &geo);
            let mut t = [0u32; 16];
            plan.init_ttmp(wg, &mut t);
            assert_eq!((t[9], t[7]), (want9, want7), "{p}");
        }
    }

    /// A descriptor asking for wave32 (ENABLE_WAVEFRONT_SIZE32, bit 10 of
    /// kernel_code_properties) or not, with the work-item ID in v0 only.
    fn kd(wave32: bool) -> KernelDescriptor {
        let mut b = [0u8; 64];
        if wave32 {
            b[57] = 1 << 2;
        }
        KernelDescriptor::parse(&b).expect("64 bytes")
    }

    #[test]
    fn wave32_plans_split_work_groups_into_32_lane_waves() {
        let arch = |p| KdArch::for_processor(Processor::from_name(p).expect(p));
        let geo = Geometry::new([100, 1, 1], [100, 1, 1], 1).expect("valid");
        // gfx1030 wave32: 100 work-items are waves of 32, 32, 32 and 4.
        let plan = WavePlan::new(&kd(true), arch("gfx1030"), &geo);
        assert_eq!(plan.wave_size(), WaveSize::W32);
        assert_eq!(plan.waves_in([0, 0, 0]), 4);
        assert_eq!(plan.lanes([0, 0, 0], 0), (0xffff_ffff, 0, 32));
        assert_eq!(plan.lanes([0, 0, 0], 2), (0xffff_ffff, 64, 32));
        assert_eq!(plan.lanes([0, 0, 0], 3), (0xf, 96, 4));
        let mut ids = Vec::new();
        plan.for_each_workitem([0, 0, 0], 96, 4, |l, id| ids.push((l, id[0])));
        assert_eq!(ids, [(0, 96), (1, 97), (2, 98), (3, 99)]);
        // The same kernel built wave64 (and any GFX9 kernel, whose
        // descriptor bit means nothing): waves of 64 and 36.
        for (wave32_bit, p) in [(false, "gfx1030"), (true, "gfx90a"), (false, "gfx90a")] {
            let plan = WavePlan::new(&kd(wave32_bit), arch(p), &geo);
            assert_eq!(plan.wave_size(), WaveSize::W64, "{p}");
            assert_eq!(plan.waves_in([0, 0, 0]), 2);
            assert_eq!(plan.lanes([0, 0, 0], 0), (u64::MAX, 0, 64));
            assert_eq!(plan.lanes([0, 0, 0], 1), ((1 << 36) - 1, 64, 36));
        }
    }
}

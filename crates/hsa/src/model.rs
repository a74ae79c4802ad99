//! The GPU agents the runtime can model (`LATHE_TARGET`): one row of data
//! per processor — the properties HIP and HSA programs query — and the
//! rule that turns a processor name into the agent's full target ID
//! (docs/decisions.md D42).
//!
//! The values are the products' public specifications (AMD's spec sheets
//! and ROCm's "GPU architecture specifications" table) and what a ROCr
//! agent on that product reports; each row names its product.

use lathe_bundle::{Processor, TargetId};
use lathe_codeobj::kd::KdArch;
use lathe_isa::Target;

/// One modelled product.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    /// Processor (`gfx1030`).
    pub processor: &'static str,
    /// Marketing name, as `HSA_AMD_AGENT_INFO_PRODUCT_NAME` gives it.
    pub product: &'static str,
    /// Lanes per wave the agent reports (`HSA_AGENT_INFO_WAVEFRONT_SIZE`,
    /// HIP's `warpSize`): 64 on CDNA, 32 on RDNA (which also runs wave64
    /// kernels).
    pub wave_size: u32,
    pub compute_units: u32,
    pub simds_per_cu: u32,
    /// Wave slots per CU (SIMDs × waves per SIMD).
    pub waves_per_cu: u32,
    pub shader_engines: u32,
    pub arrays_per_engine: u32,
    /// LDS one work-group may allocate (the group pool's size, HIP's
    /// `sharedMemPerBlock`).
    pub lds_bytes: u32,
    /// Vector L1 (RDNA: L0) per CU.
    pub l1_bytes: u32,
    pub l2_bytes: u32,
    /// Infinity Cache (0: none).
    pub l3_bytes: u32,
    /// The L2 line (`HSA_AMD_AGENT_INFO_CACHELINE_SIZE`).
    pub cacheline: u32,
    pub memory_clock_mhz: u32,
    pub memory_width: u32,
    pub memory_bytes: u64,
    /// PCI device ID.
    pub chip_id: u32,
    pub asic_revision: u32,
}

const KIB: u32 = 1024;
const MIB: u32 = 1024 * 1024;
const GIB: u64 = 1 << 30;

/// Every modelled product, the default (gfx90a) first.
pub const SPECS: [Spec; 6] = [
    // AMD Instinct MI210 (CDNA2).
    Spec {
        processor: "gfx90a",
        product: "AMD Instinct MI210",
        wave_size: 64,
        compute_units: 104,
        simds_per_cu: 4,
        waves_per_cu: 32,
        shader_engines: 8,
        arrays_per_engine: 1,
        lds_bytes: 64 * KIB,
        l1_bytes: 16 * KIB,
        l2_bytes: 8 * MIB,
        l3_bytes: 0,
        cacheline: 128,
        memory_clock_mhz: 1600,
        memory_width: 4096,
        memory_bytes: 64 * GIB,
        chip_id: 0x740f,
        asic_revision: 1,
    },
    // AMD Instinct MI300X (CDNA3): 8 XCDs; L2 is per XCD.
    Spec {
        processor: "gfx942",
        product: "AMD Instinct MI300X",
        wave_size: 64,
        compute_units: 304,
        simds_per_cu: 4,
        waves_per_cu: 32,
        shader_engines: 32,
        arrays_per_engine: 1,
        lds_bytes: 64 * KIB,
        l1_bytes: 32 * KIB,
        l2_bytes: 4 * MIB,
        l3_bytes: 256 * MIB,
        cacheline: 128,
        memory_clock_mhz: 1300,
        memory_width: 8192,
        memory_bytes: 192 * GIB,
        chip_id: 0x74a1,
        asic_revision: 1,
    },
    // AMD Instinct MI355X (CDNA4): 160 KiB of LDS per CU.
    Spec {
        processor: "gfx950",
        product: "AMD Instinct MI355X",
        wave_size: 64,
        compute_units: 256,
        simds_per_cu: 4,
        waves_per_cu: 32,
        shader_engines: 32,
        arrays_per_engine: 1,
        lds_bytes: 160 * KIB,
        l1_bytes: 32 * KIB,
        l2_bytes: 4 * MIB,
        l3_bytes: 256 * MIB,
        cacheline: 128,
        memory_clock_mhz: 2000,
        memory_width: 8192,
        memory_bytes: 288 * GIB,
        chip_id: 0x75a3,
        asic_revision: 0,
    },
    // AMD Radeon RX 6800 (RDNA2, Navi 21): 60 CUs in 3 shader engines,
    // 16 GB GDDR6 on 256 bits at 16 Gbps, 128 MB Infinity Cache.
    Spec {
        processor: "gfx1030",
        product: "AMD Radeon RX 6800",
        wave_size: 32,
        compute_units: 60,
        simds_per_cu: 2,
        waves_per_cu: 32,
        shader_engines: 3,
        arrays_per_engine: 2,
        lds_bytes: 64 * KIB,
        l1_bytes: 16 * KIB,
        l2_bytes: 4 * MIB,
        l3_bytes: 128 * MIB,
        cacheline: 128,
        memory_clock_mhz: 2000,
        memory_width: 256,
        memory_bytes: 16 * GIB,
        chip_id: 0x73bf,
        asic_revision: 0,
    },
    // AMD Radeon RX 7900 XTX (RDNA3, Navi 31): 96 CUs in 6 shader
    // engines, 24 GB GDDR6 on 384 bits at 20 Gbps, 96 MB Infinity Cache.
    Spec {
        processor: "gfx1100",
        product: "AMD Radeon RX 7900 XTX",
        wave_size: 32,
        compute_units: 96,
        simds_per_cu: 2,
        waves_per_cu: 32,
        shader_engines: 6,
        arrays_per_engine: 2,
        lds_bytes: 64 * KIB,
        l1_bytes: 32 * KIB,
        l2_bytes: 6 * MIB,
        l3_bytes: 96 * MIB,
        cacheline: 128,
        memory_clock_mhz: 2500,
        memory_width: 384,
        memory_bytes: 24 * GIB,
        chip_id: 0x744c,
        asic_revision: 0,
    },
    // AMD Radeon RX 9070 XT (RDNA4, Navi 48): 64 CUs in 4 shader engines,
    // 16 GB GDDR6 on 256 bits at 20 Gbps, 64 MB Infinity Cache.
    Spec {
        processor: "gfx1201",
        product: "AMD Radeon RX 9070 XT",
        wave_size: 32,
        compute_units: 64,
        simds_per_cu: 2,
        waves_per_cu: 32,
        shader_engines: 4,
        arrays_per_engine: 2,
        lds_bytes: 64 * KIB,
        l1_bytes: 32 * KIB,
        l2_bytes: 8 * MIB,
        l3_bytes: 64 * MIB,
        cacheline: 128,
        memory_clock_mhz: 2518,
        memory_width: 256,
        memory_bytes: 16 * GIB,
        chip_id: 0x7550,
        asic_revision: 0,
    },
];

/// The processors [`SPECS`] models, for messages.
pub fn modelled() -> String {
    SPECS
        .iter()
        .map(|s| format!("{} ({})", s.processor, s.product))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The agent's full target ID for `LATHE_TARGET=want`: a bare processor
/// gets the features its processor has, as a ROCr agent reports them
/// (`sramecc+` where SRAM ECC exists, `xnack-` where XNACK exists:
/// `gfx90a:sramecc+:xnack-`, plain `gfx1030`); a target ID with features
/// is taken as written (and rejected if the processor lacks one).
pub fn full_target_id(want: &str) -> Result<TargetId, String> {
    let full = if want.contains(':') {
        want.to_string()
    } else {
        let p = Processor::from_name(want).ok_or_else(|| {
            format!(
                "{want} is not an AMDGPU processor (modelled: {})",
                modelled()
            )
        })?;
        let mut s = want.to_string();
        if p.supports_sramecc() {
            s.push_str(":sramecc+");
        }
        if p.supports_xnack() {
            s.push_str(":xnack-");
        }
        s
    };
    full.parse().map_err(|e| format!("{e}"))
}

/// The GPU agent being modelled.
#[derive(Debug, Clone)]
pub struct GpuModel {
    /// Full target ID (`gfx90a:sramecc+:xnack-`, `gfx1030`).
    pub target_id: TargetId,
    /// ISA name as ROCr spells it (`amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-`).
    pub isa_name: String,
    pub spec: Spec,
    /// The ISA tables' target, `None` for a processor Lathe cannot decode
    /// yet (gfx1201): its agent answers queries, its dispatches stop.
    pub target: Option<Target>,
    pub arch: KdArch,
}

impl GpuModel {
    /// The model for `LATHE_TARGET=want`.
    pub fn new(want: &str) -> Result<GpuModel, String> {
        let target_id = full_target_id(want).map_err(|e| format!("LATHE_TARGET={want}: {e}"))?;
        let processor = target_id.processor.name();
        let spec = *SPECS
            .iter()
            .find(|s| s.processor == processor)
            .ok_or_else(|| {
                format!(
                    "LATHE_TARGET={want}: no {processor} agent is modelled (modelled: {})",
                    modelled()
                )
            })?;
        Ok(GpuModel {
            isa_name: format!("amdgcn-amd-amdhsa--{target_id}"),
            spec,
            target: Target::from_name(processor).ok(),
            arch: KdArch::for_processor(target_id.processor),
            target_id,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_features_follow_the_processor() {
        let id = |w: &str| full_target_id(w).map(|t| t.to_string());
        assert_eq!(id("gfx90a").as_deref(), Ok("gfx90a:sramecc+:xnack-"));
        assert_eq!(id("gfx950").as_deref(), Ok("gfx950:sramecc+:xnack-"));
        assert_eq!(id("gfx1030").as_deref(), Ok("gfx1030"));
        assert_eq!(id("gfx1201").as_deref(), Ok("gfx1201"));
        assert_eq!(id("gfx90a:xnack+").as_deref(), Ok("gfx90a:xnack+"));
        assert!(id("gfx1030:sramecc+").is_err());
        assert!(id("gfx9999").is_err());
    }

    #[test]
    fn every_spec_is_a_processor_and_unique() {
        for (i, s) in SPECS.iter().enumerate() {
            let m = GpuModel::new(s.processor).expect(s.processor);
            assert_eq!(m.spec, *s);
            assert!(SPECS[..i].iter().all(|o| o.processor != s.processor));
            // Wave size: what the processor's code defaults to.
            let wave64 = m.target_id.processor.wave64_default();
            assert_eq!(s.wave_size, if wave64 { 64 } else { 32 }, "{}", s.processor);
            assert_eq!(s.waves_per_cu % s.simds_per_cu, 0);
        }
        assert!(GpuModel::new("gfx1031")
            .expect_err("gfx1031")
            .contains("no gfx1031 agent is modelled"));
    }
}

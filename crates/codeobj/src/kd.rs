//! AMDHSA kernel descriptors (code object V3+): the 64-byte record at each
//! `<kernel>.kd` symbol.
//!
//! Owns the byte layout of the descriptor, the per-family decoding of
//! `COMPUTE_PGM_RSRC1/2/3`, `kernel_code_properties` and `kernarg_preload`
//! (layouts per LLVM's AMDGPUUsage and `AMDHSAKernelDescriptor.h`), and the
//! derived values: register counts from granules, the user SGPR count and
//! the order of the initial SGPRs.

use lathe_bundle::target::{Family, Processor};

/// Size of a kernel descriptor in bytes.
pub const KD_SIZE: usize = 64;

/// Why a kernel descriptor could not be located or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KdError {
    /// The input is not exactly 64 bytes long.
    #[error("kernel descriptor must be 64 bytes, got {len}")]
    WrongLength {
        /// Bytes given.
        len: usize,
    },
    /// The `.kd` symbol's `st_size` is not 64.
    #[error("descriptor symbol `{symbol}` has size {size}, expected 64")]
    WrongSymbolSize {
        /// The symbol name.
        symbol: String,
        /// Its `st_size`.
        size: u64,
    },
    /// The descriptor does not lie inside the section its symbol names.
    #[error("descriptor at 0x{address:x} (64 bytes) lies outside section {section} (0x{section_address:x}..0x{section_end:x})")]
    OutsideSection {
        /// Symbol value.
        address: u64,
        /// Section name.
        section: String,
        /// Section start address.
        section_address: u64,
        /// Section end address.
        section_end: u64,
    },
    /// The section holding the descriptor has no file bytes or is out of the file.
    #[error("section {section} holding the descriptor has no data in the file")]
    NoData {
        /// Section name.
        section: String,
    },
    /// The `.kd` symbol is undefined or absolute.
    #[error("descriptor symbol `{symbol}` is not defined in a section")]
    NotInSection {
        /// The symbol name.
        symbol: String,
    },
    /// No `.kd` symbol for a kernel named in the metadata.
    #[error("no descriptor symbol `{symbol}`")]
    MissingSymbol {
        /// The expected symbol name.
        symbol: String,
    },
}

/// Architecture facts the descriptor layout depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct KdArch {
    /// GFX generation.
    pub family: Family,
    /// GFX90A-style unified VGPR/AGPR file (`gfx90a`, `gfx94x`, `gfx950`,
    /// `gfx9-4-generic`): RSRC3 holds `accum_offset`/`tg_split`.
    pub gfx90a: bool,
    /// Flat scratch is architected (GFX940+ and GFX11+): no private segment
    /// buffer / flat scratch init user SGPRs and no wave offset SGPR.
    pub architected_flat_scratch: bool,
    /// GFX12.5 (`gfx1250`, `gfx1251`): larger VGPR granule in wave32, 6-bit
    /// user SGPR count.
    pub gfx125: bool,
}

impl KdArch {
    /// Whether the processor packs the three work-item IDs into v0 (10
    /// bits each) rather than v0, v1, v2: gfx90a, gfx940-class and GFX11+.
    pub fn packs_workitem_ids(self) -> bool {
        self.gfx90a
            || self.architected_flat_scratch
            || !matches!(
                self.family,
                Family::Gfx6 | Family::Gfx7 | Family::Gfx8 | Family::Gfx9 | Family::Gfx10
            )
    }

    /// The facts for a processor.
    pub fn for_processor(p: Processor) -> KdArch {
        let name = p.name();
        let family = p.family();
        let gfx90a = matches!(
            name,
            "gfx90a" | "gfx940" | "gfx941" | "gfx942" | "gfx950" | "gfx9-4-generic"
        );
        let gfx94 = gfx90a && name != "gfx90a";
        let gfx125 = name.starts_with("gfx125") || name == "gfx12-5-generic";
        KdArch {
            family,
            gfx90a,
            architected_flat_scratch: gfx94 || family >= Family::Gfx11,
            gfx125,
        }
    }

    fn gfx10_plus(&self) -> bool {
        self.family >= Family::Gfx10
    }

    fn gfx12_plus(&self) -> bool {
        self.family >= Family::Gfx12
    }
}

fn bits(v: u32, shift: u32, width: u32) -> u32 {
    (v >> shift) & ((1u32 << width) - 1)
}

fn bit(v: u32, shift: u32) -> bool {
    (v >> shift) & 1 != 0
}

/// `COMPUTE_PGM_RSRC1`, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Rsrc1 {
    /// Bits 0–5: VGPR blocks minus one.
    pub granulated_workitem_vgpr_count: u32,
    /// Bits 6–9: SGPR blocks minus one (GFX6–GFX9; must be 0 on GFX10+).
    pub granulated_wavefront_sgpr_count: u32,
    /// Bits 10–11.
    pub priority: u32,
    /// Bits 12–13.
    pub float_round_mode_32: u32,
    /// Bits 14–15.
    pub float_round_mode_16_64: u32,
    /// Bits 16–17.
    pub float_denorm_mode_32: u32,
    /// Bits 18–19.
    pub float_denorm_mode_16_64: u32,
    /// Bit 20.
    pub priv_: bool,
    /// Bit 21 on GFX6–GFX11: `ENABLE_DX10_CLAMP`.
    pub enable_dx10_clamp: Option<bool>,
    /// Bit 21 on GFX12+: `ENABLE_WG_RR_EN` (round-robin scheduling).
    pub enable_wg_rr_en: Option<bool>,
    /// Bit 22.
    pub debug_mode: bool,
    /// Bit 23 on GFX6–GFX11: `ENABLE_IEEE_MODE`.
    pub enable_ieee_mode: Option<bool>,
    /// Bit 23 on GFX12+: `DISABLE_PERF`.
    pub disable_perf: Option<bool>,
    /// Bit 24.
    pub bulky: bool,
    /// Bit 25.
    pub cdbg_user: bool,
    /// Bit 26 on GFX9+: `FP16_OVFL`.
    pub fp16_ovfl: Option<bool>,
    /// Bit 27 on GFX12.5: `FLAT_SCRATCH_IS_NV`.
    pub flat_scratch_is_nv: Option<bool>,
    /// Bit 29 on GFX10+ except GFX12.5: `WGP_MODE`.
    pub wgp_mode: Option<bool>,
    /// Bit 30 on GFX10+: `MEM_ORDERED`.
    pub mem_ordered: Option<bool>,
    /// Bit 31 on GFX10+: `FWD_PROGRESS`.
    pub fwd_progress: Option<bool>,
    /// Bits that are reserved on this architecture but set.
    pub reserved_set: u32,
}

impl Rsrc1 {
    /// Decodes the register for an architecture.
    pub fn decode(v: u32, a: KdArch) -> Rsrc1 {
        let g10 = a.gfx10_plus();
        let g12 = a.gfx12_plus();
        let g9 = a.family >= Family::Gfx9;
        let mut reserved = 1 << 28;
        if !g9 {
            reserved |= 1 << 26;
        }
        if !a.gfx125 {
            reserved |= 1 << 27;
        }
        if !g10 {
            reserved |= 0b111 << 29;
        } else if a.gfx125 {
            reserved |= 1 << 29;
        }
        Rsrc1 {
            granulated_workitem_vgpr_count: bits(v, 0, 6),
            granulated_wavefront_sgpr_count: bits(v, 6, 4),
            priority: bits(v, 10, 2),
            float_round_mode_32: bits(v, 12, 2),
            float_round_mode_16_64: bits(v, 14, 2),
            float_denorm_mode_32: bits(v, 16, 2),
            float_denorm_mode_16_64: bits(v, 18, 2),
            priv_: bit(v, 20),
            enable_dx10_clamp: (!g12).then(|| bit(v, 21)),
            enable_wg_rr_en: g12.then(|| bit(v, 21)),
            debug_mode: bit(v, 22),
            enable_ieee_mode: (!g12).then(|| bit(v, 23)),
            disable_perf: g12.then(|| bit(v, 23)),
            bulky: bit(v, 24),
            cdbg_user: bit(v, 25),
            fp16_ovfl: g9.then(|| bit(v, 26)),
            flat_scratch_is_nv: a.gfx125.then(|| bit(v, 27)),
            wgp_mode: (g10 && !a.gfx125).then(|| bit(v, 29)),
            mem_ordered: g10.then(|| bit(v, 30)),
            fwd_progress: g10.then(|| bit(v, 31)),
            reserved_set: v & reserved,
        }
    }
}

/// `COMPUTE_PGM_RSRC2`, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Rsrc2 {
    /// Bit 0: `ENABLE_PRIVATE_SEGMENT` (called
    /// `private_segment_wavefront_offset` without architected flat scratch).
    pub enable_private_segment: bool,
    /// Bits 1–5 (1–6 on GFX12.5): `USER_SGPR_COUNT`.
    pub user_sgpr_count: u32,
    /// Bit 6 on GFX6–GFX11: `ENABLE_TRAP_HANDLER`.
    pub enable_trap_handler: Option<bool>,
    /// Bit 6 on GFX12.0: `ENABLE_DYNAMIC_VGPR`.
    pub enable_dynamic_vgpr: Option<bool>,
    /// Bit 7.
    pub enable_sgpr_workgroup_id_x: bool,
    /// Bit 8.
    pub enable_sgpr_workgroup_id_y: bool,
    /// Bit 9.
    pub enable_sgpr_workgroup_id_z: bool,
    /// Bit 10.
    pub enable_sgpr_workgroup_info: bool,
    /// Bits 11–12: 0 = X, 1 = X,Y, 2 = X,Y,Z.
    pub enable_vgpr_workitem_id: u32,
    /// Bit 13.
    pub enable_exception_address_watch: bool,
    /// Bit 14.
    pub enable_exception_memory: bool,
    /// Bits 15–23 (set by the CP, must be 0 in the descriptor).
    pub granulated_lds_size: u32,
    /// Bit 24.
    pub enable_exception_ieee_754_fp_invalid_operation: bool,
    /// Bit 25.
    pub enable_exception_fp_denormal_source: bool,
    /// Bit 26.
    pub enable_exception_ieee_754_fp_division_by_zero: bool,
    /// Bit 27.
    pub enable_exception_ieee_754_fp_overflow: bool,
    /// Bit 28.
    pub enable_exception_ieee_754_fp_underflow: bool,
    /// Bit 29.
    pub enable_exception_ieee_754_fp_inexact: bool,
    /// Bit 30.
    pub enable_exception_int_divide_by_zero: bool,
    /// Bit 31 (reserved before GFX12).
    pub bit31: bool,
}

impl Rsrc2 {
    /// Decodes the register for an architecture.
    pub fn decode(v: u32, a: KdArch) -> Rsrc2 {
        let g12 = a.gfx12_plus();
        Rsrc2 {
            enable_private_segment: bit(v, 0),
            user_sgpr_count: if a.gfx125 {
                bits(v, 1, 6)
            } else {
                bits(v, 1, 5)
            },
            enable_trap_handler: (!g12).then(|| bit(v, 6)),
            enable_dynamic_vgpr: (g12 && !a.gfx125).then(|| bit(v, 6)),
            enable_sgpr_workgroup_id_x: bit(v, 7),
            enable_sgpr_workgroup_id_y: bit(v, 8),
            enable_sgpr_workgroup_id_z: bit(v, 9),
            enable_sgpr_workgroup_info: bit(v, 10),
            enable_vgpr_workitem_id: bits(v, 11, 2),
            enable_exception_address_watch: bit(v, 13),
            enable_exception_memory: bit(v, 14),
            granulated_lds_size: bits(v, 15, 9),
            enable_exception_ieee_754_fp_invalid_operation: bit(v, 24),
            enable_exception_fp_denormal_source: bit(v, 25),
            enable_exception_ieee_754_fp_division_by_zero: bit(v, 26),
            enable_exception_ieee_754_fp_overflow: bit(v, 27),
            enable_exception_ieee_754_fp_underflow: bit(v, 28),
            enable_exception_ieee_754_fp_inexact: bit(v, 29),
            enable_exception_int_divide_by_zero: bit(v, 30),
            bit31: bit(v, 31),
        }
    }
}

/// `COMPUTE_PGM_RSRC3`, decoded per family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rsrc3 {
    /// GFX6–GFX9 (not GFX90A): the register does not exist; raw value
    /// (must be 0).
    None {
        /// The raw word.
        raw: u32,
    },
    /// GFX90A / GFX94x / GFX950.
    Gfx90a {
        /// Bits 0–5: `ACCUM_OFFSET`, first AGPR = (value + 1) * 4.
        accum_offset: u32,
        /// Bit 16: `TG_SPLIT`.
        tg_split: bool,
    },
    /// GFX10.
    Gfx10 {
        /// Bits 0–3: `SHARED_VGPR_COUNT`.
        shared_vgpr_count: u32,
    },
    /// GFX11.
    Gfx11 {
        /// Bits 0–3: `SHARED_VGPR_COUNT`.
        shared_vgpr_count: u32,
        /// Bits 4–9: `INST_PREF_SIZE`.
        inst_pref_size: u32,
        /// Bit 10: `TRAP_ON_START`.
        trap_on_start: bool,
        /// Bit 11: `TRAP_ON_END`.
        trap_on_end: bool,
        /// Bit 31: `IMAGE_OP`.
        image_op: bool,
    },
    /// GFX12 and later.
    Gfx12 {
        /// Bits 4–11: `INST_PREF_SIZE`.
        inst_pref_size: u32,
        /// Bit 13: `GLG_EN`.
        glg_en: bool,
        /// Bits 14–16 (GFX12.5): `NAMED_BAR_CNT`.
        named_bar_cnt: u32,
        /// Bit 17 (GFX12.5): `ENABLE_DYNAMIC_VGPR`.
        enable_dynamic_vgpr: bool,
        /// Bits 18–20 (GFX12.5): `TCP_SPLIT`.
        tcp_split: u32,
        /// Bit 21 (GFX12.5): `ENABLE_DIDT_THROTTLE`.
        enable_didt_throttle: bool,
        /// Bit 31: `IMAGE_OP`.
        image_op: bool,
    },
}

impl Rsrc3 {
    /// Decodes the register for an architecture.
    pub fn decode(v: u32, a: KdArch) -> Rsrc3 {
        if a.gfx90a {
            Rsrc3::Gfx90a {
                accum_offset: bits(v, 0, 6),
                tg_split: bit(v, 16),
            }
        } else if a.family >= Family::Gfx12 {
            Rsrc3::Gfx12 {
                inst_pref_size: bits(v, 4, 8),
                glg_en: bit(v, 13),
                named_bar_cnt: bits(v, 14, 3),
                enable_dynamic_vgpr: bit(v, 17),
                tcp_split: bits(v, 18, 3),
                enable_didt_throttle: bit(v, 21),
                image_op: bit(v, 31),
            }
        } else if a.family == Family::Gfx11 {
            Rsrc3::Gfx11 {
                shared_vgpr_count: bits(v, 0, 4),
                inst_pref_size: bits(v, 4, 6),
                trap_on_start: bit(v, 10),
                trap_on_end: bit(v, 11),
                image_op: bit(v, 31),
            }
        } else if a.family == Family::Gfx10 {
            Rsrc3::Gfx10 {
                shared_vgpr_count: bits(v, 0, 4),
            }
        } else {
            Rsrc3::None { raw: v }
        }
    }
}

/// `kernel_code_properties`, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct KernelCodeProperties {
    /// Bit 0.
    pub enable_sgpr_private_segment_buffer: bool,
    /// Bit 1.
    pub enable_sgpr_dispatch_ptr: bool,
    /// Bit 2.
    pub enable_sgpr_queue_ptr: bool,
    /// Bit 3.
    pub enable_sgpr_kernarg_segment_ptr: bool,
    /// Bit 4.
    pub enable_sgpr_dispatch_id: bool,
    /// Bit 5.
    pub enable_sgpr_flat_scratch_init: bool,
    /// Bit 6.
    pub enable_sgpr_private_segment_size: bool,
    /// Bit 10 (GFX10+).
    pub enable_wavefront_size32: bool,
    /// Bit 11 (V5+).
    pub uses_dynamic_stack: bool,
    /// Reserved bits (7–9, 12–15) that are set.
    pub reserved_set: u16,
}

impl KernelCodeProperties {
    /// Decodes the field.
    pub fn decode(v: u16) -> Self {
        let b = |s: u16| (v >> s) & 1 != 0;
        KernelCodeProperties {
            enable_sgpr_private_segment_buffer: b(0),
            enable_sgpr_dispatch_ptr: b(1),
            enable_sgpr_queue_ptr: b(2),
            enable_sgpr_kernarg_segment_ptr: b(3),
            enable_sgpr_dispatch_id: b(4),
            enable_sgpr_flat_scratch_init: b(5),
            enable_sgpr_private_segment_size: b(6),
            enable_wavefront_size32: b(10),
            uses_dynamic_stack: b(11),
            reserved_set: v & 0xf380,
        }
    }
}

/// `kernarg_preload`, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct KernargPreload {
    /// Bits 0–6: number of kernarg dwords preloaded into user SGPRs.
    pub length: u32,
    /// Bits 7–15: dword offset in the kernarg segment of the first preloaded dword.
    pub offset: u32,
}

/// What an initial SGPR holds when a wavefront starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SgprRole {
    /// Private segment buffer descriptor (4 SGPRs, user).
    PrivateSegmentBuffer,
    /// Dispatch packet pointer (2, user).
    DispatchPtr,
    /// Queue pointer (2, user).
    QueuePtr,
    /// Kernarg segment pointer (2, user).
    KernargSegmentPtr,
    /// Dispatch ID (2, user).
    DispatchId,
    /// Flat scratch init (2, user).
    FlatScratchInit,
    /// Private segment size (1, user).
    PrivateSegmentSize,
    /// Preloaded kernarg dwords (user).
    PreloadedKernargs,
    /// Work-group ID X (1, system).
    WorkgroupIdX,
    /// Work-group ID Y (1, system).
    WorkgroupIdY,
    /// Work-group ID Z (1, system).
    WorkgroupIdZ,
    /// Work-group info (1, system).
    WorkgroupInfo,
    /// Private segment wavefront offset (1, system).
    PrivateSegmentWaveOffset,
}

/// One initial SGPR range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InitialSgpr {
    /// What it holds.
    pub role: SgprRole,
    /// First SGPR number.
    pub first: u32,
    /// Number of SGPRs.
    pub count: u32,
    /// User SGPR (set up from the descriptor) rather than system SGPR.
    pub user: bool,
}

/// A kernel descriptor: the raw 64 bytes' fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct KernelDescriptor {
    /// Offset 0.
    pub group_segment_fixed_size: u32,
    /// Offset 4.
    pub private_segment_fixed_size: u32,
    /// Offset 8.
    pub kernarg_size: u32,
    /// Offset 12, 4 reserved bytes.
    pub reserved0: [u8; 4],
    /// Offset 16: byte offset (signed) from the descriptor to the entry point.
    pub kernel_code_entry_byte_offset: i64,
    /// Offset 24, 20 reserved bytes.
    pub reserved1: [u8; 20],
    /// Offset 44.
    pub compute_pgm_rsrc3: u32,
    /// Offset 48.
    pub compute_pgm_rsrc1: u32,
    /// Offset 52.
    pub compute_pgm_rsrc2: u32,
    /// Offset 56.
    pub kernel_code_properties: u16,
    /// Offset 58.
    pub kernarg_preload: u16,
    /// Offset 60, 4 reserved bytes.
    pub reserved3: [u8; 4],
}

impl KernelDescriptor {
    /// Reads a descriptor from exactly 64 bytes.
    pub fn parse(b: &[u8]) -> Result<Self, KdError> {
        let b: &[u8; KD_SIZE] = b
            .try_into()
            .map_err(|_| KdError::WrongLength { len: b.len() })?;
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let u16_at = |o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
        let mut e = [0u8; 8];
        e.copy_from_slice(&b[16..24]);
        let mut r0 = [0u8; 4];
        r0.copy_from_slice(&b[12..16]);
        let mut r1 = [0u8; 20];
        r1.copy_from_slice(&b[24..44]);
        let mut r3 = [0u8; 4];
        r3.copy_from_slice(&b[60..64]);
        Ok(KernelDescriptor {
            group_segment_fixed_size: u32_at(0),
            private_segment_fixed_size: u32_at(4),
            kernarg_size: u32_at(8),
            reserved0: r0,
            kernel_code_entry_byte_offset: i64::from_le_bytes(e),
            reserved1: r1,
            compute_pgm_rsrc3: u32_at(44),
            compute_pgm_rsrc1: u32_at(48),
            compute_pgm_rsrc2: u32_at(52),
            kernel_code_properties: u16_at(56),
            kernarg_preload: u16_at(58),
            reserved3: r3,
        })
    }

    /// Whether any reserved byte is non-zero.
    pub fn reserved_bytes_set(&self) -> bool {
        self.reserved0
            .iter()
            .chain(&self.reserved1)
            .chain(&self.reserved3)
            .any(|&b| b != 0)
    }

    /// `COMPUTE_PGM_RSRC1` decoded for `arch`.
    pub fn rsrc1(&self, arch: KdArch) -> Rsrc1 {
        Rsrc1::decode(self.compute_pgm_rsrc1, arch)
    }

    /// `COMPUTE_PGM_RSRC2` decoded for `arch`.
    pub fn rsrc2(&self, arch: KdArch) -> Rsrc2 {
        Rsrc2::decode(self.compute_pgm_rsrc2, arch)
    }

    /// `COMPUTE_PGM_RSRC3` decoded for `arch`.
    pub fn rsrc3(&self, arch: KdArch) -> Rsrc3 {
        Rsrc3::decode(self.compute_pgm_rsrc3, arch)
    }

    /// `kernel_code_properties` decoded.
    pub fn properties(&self) -> KernelCodeProperties {
        KernelCodeProperties::decode(self.kernel_code_properties)
    }

    /// `kernarg_preload` decoded.
    pub fn preload(&self) -> KernargPreload {
        KernargPreload {
            length: u32::from(self.kernarg_preload & 0x7f),
            offset: u32::from(self.kernarg_preload >> 7),
        }
    }

    /// Wavefront size: 32 if `ENABLE_WAVEFRONT_SIZE32` is set on GFX10+,
    /// else 64.
    pub fn wavefront_size(&self, arch: KdArch) -> u32 {
        if arch.gfx10_plus() && self.properties().enable_wavefront_size32 {
            32
        } else {
            64
        }
    }

    /// VGPRs per granule of `GRANULATED_WORKITEM_VGPR_COUNT`.
    pub fn vgpr_encoding_granule(&self, arch: KdArch) -> u32 {
        let wave32 = self.wavefront_size(arch) == 32;
        if arch.gfx90a {
            8
        } else if arch.gfx125 {
            if wave32 {
                16
            } else {
                8
            }
        } else if wave32 {
            8
        } else {
            4
        }
    }

    /// VGPRs (including AGPRs on GFX90A) the descriptor allocates per
    /// work-item: (granules + 1) × granule size. This is what LLVM's
    /// disassembler prints as `.amdhsa_next_free_vgpr`.
    pub fn allocated_vgprs(&self, arch: KdArch) -> u32 {
        (self.rsrc1(arch).granulated_workitem_vgpr_count + 1) * self.vgpr_encoding_granule(arch)
    }

    /// SGPRs the descriptor allocates per wavefront: (granules + 1) × 8 on
    /// GFX6–GFX9. `None` on GFX10+, where the field is reserved and SGPRs are
    /// allocated in full.
    pub fn allocated_sgprs(&self, arch: KdArch) -> Option<u32> {
        (!arch.gfx10_plus()).then(|| (self.rsrc1(arch).granulated_wavefront_sgpr_count + 1) * 8)
    }

    /// The first AGPR on GFX90A-class processors: (`ACCUM_OFFSET` + 1) × 4.
    pub fn accum_offset(&self, arch: KdArch) -> Option<u32> {
        match self.rsrc3(arch) {
            Rsrc3::Gfx90a { accum_offset, .. } => Some((accum_offset + 1) * 4),
            _ => None,
        }
    }

    /// The initial SGPRs in order: enabled user SGPRs, then system SGPRs.
    pub fn initial_sgprs(&self, arch: KdArch) -> Vec<InitialSgpr> {
        let p = self.properties();
        let r2 = self.rsrc2(arch);
        let mut out = Vec::new();
        let mut next = 0u32;
        let mut push = |role, count, user, on: bool| {
            if on && count > 0 {
                out.push(InitialSgpr {
                    role,
                    first: next,
                    count,
                    user,
                });
                next += count;
            }
        };
        use SgprRole::*;
        push(
            PrivateSegmentBuffer,
            4,
            true,
            p.enable_sgpr_private_segment_buffer,
        );
        push(DispatchPtr, 2, true, p.enable_sgpr_dispatch_ptr);
        push(QueuePtr, 2, true, p.enable_sgpr_queue_ptr);
        push(
            KernargSegmentPtr,
            2,
            true,
            p.enable_sgpr_kernarg_segment_ptr,
        );
        push(DispatchId, 2, true, p.enable_sgpr_dispatch_id);
        push(FlatScratchInit, 2, true, p.enable_sgpr_flat_scratch_init);
        push(
            PrivateSegmentSize,
            1,
            true,
            p.enable_sgpr_private_segment_size,
        );
        push(PreloadedKernargs, self.preload().length, true, true);
        // System SGPRs start right after the user SGPR count the hardware uses.
        let user_total: u32 = out.iter().map(|s| s.count).sum();
        let mut sys = Vec::new();
        let mut n = r2.user_sgpr_count.max(user_total);
        let mut push_sys = |role, on: bool| {
            if on {
                sys.push(InitialSgpr {
                    role,
                    first: n,
                    count: 1,
                    user: false,
                });
                n += 1;
            }
        };
        push_sys(WorkgroupIdX, r2.enable_sgpr_workgroup_id_x);
        push_sys(WorkgroupIdY, r2.enable_sgpr_workgroup_id_y);
        push_sys(WorkgroupIdZ, r2.enable_sgpr_workgroup_id_z);
        push_sys(WorkgroupInfo, r2.enable_sgpr_workgroup_info);
        push_sys(
            PrivateSegmentWaveOffset,
            r2.enable_private_segment && !arch.architected_flat_scratch,
        );
        out.extend(sys);
        out
    }

    /// Number of user SGPRs implied by `kernel_code_properties` and
    /// `kernarg_preload` (compare with `USER_SGPR_COUNT`).
    pub fn implied_user_sgprs(&self, arch: KdArch) -> u32 {
        self.initial_sgprs(arch)
            .iter()
            .filter(|s| s.user)
            .map(|s| s.count)
            .sum()
    }
}

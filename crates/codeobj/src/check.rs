//! Cross-checks between kernel descriptors and metadata.
//!
//! Owns [`check`], which compares each kernel's descriptor with its
//! `amdhsa.kernels` entry (segment sizes, wavefront size, register counts
//! versus granules, dynamic stack, WGP mode) and with itself (user SGPR
//! count, reserved bits), and reports every disagreement as a [`Warning`].

use crate::error::Result;
use crate::kd::{KdArch, Rsrc3};
use crate::CodeObject;

/// One disagreement found by [`check`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// A metadata kernel has no readable descriptor, or a descriptor has no
    /// metadata.
    Unpaired {
        /// Kernel name.
        kernel: String,
        /// What is missing or broken.
        what: String,
    },
    /// A value differs between descriptor and metadata.
    Mismatch {
        /// Kernel name.
        kernel: String,
        /// The field compared (`kernarg_size`, `wavefront_size`, ...).
        field: &'static str,
        /// The descriptor's value.
        descriptor: u64,
        /// The metadata's value.
        metadata: u64,
    },
    /// The descriptor allocates fewer registers than the metadata says the
    /// kernel uses.
    UnderAllocated {
        /// Kernel name.
        kernel: String,
        /// `vgpr` or `sgpr`.
        register: &'static str,
        /// Registers the descriptor's granule count allocates.
        allocated: u64,
        /// Registers the metadata says are used.
        used: u64,
    },
    /// The granule count is not the one the metadata's register count
    /// encodes to.
    GranuleMismatch {
        /// Kernel name.
        kernel: String,
        /// `vgpr` or `sgpr`.
        register: &'static str,
        /// Granule field in the descriptor.
        descriptor: u64,
        /// Granule field the metadata count encodes to.
        expected: u64,
    },
    /// `USER_SGPR_COUNT` is smaller than the enabled user SGPRs need.
    UserSgprCount {
        /// Kernel name.
        kernel: String,
        /// `USER_SGPR_COUNT`.
        field: u32,
        /// Sum of enabled user SGPRs and preloaded kernarg dwords.
        implied: u32,
    },
    /// Reserved bits or bytes are set.
    ReservedSet {
        /// Kernel name.
        kernel: String,
        /// Which field.
        field: &'static str,
        /// The offending bits (0 for reserved bytes).
        bits: u64,
    },
}

impl Warning {
    /// The kernel the warning is about.
    pub fn kernel(&self) -> &str {
        match self {
            Warning::Unpaired { kernel, .. }
            | Warning::Mismatch { kernel, .. }
            | Warning::UnderAllocated { kernel, .. }
            | Warning::GranuleMismatch { kernel, .. }
            | Warning::UserSgprCount { kernel, .. }
            | Warning::ReservedSet { kernel, .. } => kernel,
        }
    }
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Warning::Unpaired { kernel, what } => write!(f, "kernel {kernel}: {what}"),
            Warning::Mismatch {
                kernel,
                field,
                descriptor,
                metadata,
            } => write!(
                f,
                "kernel {kernel}: {field} is {descriptor} in the descriptor but {metadata} in the metadata"
            ),
            Warning::UnderAllocated {
                kernel,
                register,
                allocated,
                used,
            } => write!(
                f,
                "kernel {kernel}: the descriptor allocates {allocated} {register}s but the metadata says {used} are used"
            ),
            Warning::GranuleMismatch {
                kernel,
                register,
                descriptor,
                expected,
            } => write!(
                f,
                "kernel {kernel}: {register} granule count is {descriptor} in the descriptor; the metadata's count encodes to {expected}"
            ),
            Warning::UserSgprCount {
                kernel,
                field,
                implied,
            } => write!(
                f,
                "kernel {kernel}: USER_SGPR_COUNT is {field} but the enabled user SGPRs need {implied}"
            ),
            Warning::ReservedSet { kernel, field, bits } => {
                write!(f, "kernel {kernel}: reserved bits set in {field} ({bits:#x})")
            }
        }
    }
}

/// What [`check`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckReport {
    /// Kernels examined.
    pub kernels: usize,
    /// Disagreements.
    pub warnings: Vec<Warning>,
}

impl CheckReport {
    /// Whether nothing disagreed.
    pub fn is_clean(&self) -> bool {
        self.warnings.is_empty()
    }
}

/// VGPRs the descriptor must allocate for a kernel whose metadata says
/// `.vgpr_count` = `vgpr` and `.agpr_count` = `agpr`. On GFX90A-class
/// processors the register file is unified and `.vgpr_count` already counts
/// the AGPRs (which start at `ACCUM_OFFSET`); elsewhere the larger of the two
/// files decides.
pub fn allocated_vgprs_needed(arch: KdArch, vgpr: u64, agpr: u64) -> u64 {
    if arch.gfx90a {
        vgpr
    } else {
        vgpr.max(agpr)
    }
}

/// Cross-checks every kernel of `co`.
pub fn check(co: &CodeObject<'_>) -> Result<CheckReport> {
    Ok(check_symbols(co, &co.symbols()?))
}

/// Cross-checks every kernel of `co` given its already built symbol model
/// (saves building it twice).
pub fn check_symbols(co: &CodeObject<'_>, syms: &crate::Symbols<'_>) -> CheckReport {
    let mut report = CheckReport::default();
    let Some(arch) = co.kd_arch() else {
        return report;
    };
    let processor = co.processor();
    for k in syms.kernels() {
        report.kernels += 1;
        let name = k.name.to_string();
        let w = &mut report.warnings;
        let d = match &k.descriptor {
            Ok(d) => d,
            Err(e) => {
                w.push(Warning::Unpaired {
                    kernel: name,
                    what: e.to_string(),
                });
                continue;
            }
        };
        let r1 = d.rsrc1(arch);
        if r1.reserved_set != 0 {
            w.push(Warning::ReservedSet {
                kernel: name.clone(),
                field: "compute_pgm_rsrc1",
                bits: u64::from(r1.reserved_set),
            });
        }
        if d.reserved_bytes_set() {
            w.push(Warning::ReservedSet {
                kernel: name.clone(),
                field: "reserved bytes",
                bits: 0,
            });
        }
        let p = d.properties();
        if p.reserved_set != 0 {
            w.push(Warning::ReservedSet {
                kernel: name.clone(),
                field: "kernel_code_properties",
                bits: u64::from(p.reserved_set),
            });
        }
        if let Rsrc3::None { raw } = d.rsrc3(arch) {
            if raw != 0 {
                w.push(Warning::ReservedSet {
                    kernel: name.clone(),
                    field: "compute_pgm_rsrc3",
                    bits: u64::from(raw),
                });
            }
        }
        if d.allocated_sgprs(arch).is_none() && r1.granulated_wavefront_sgpr_count != 0 {
            w.push(Warning::ReservedSet {
                kernel: name.clone(),
                field: "granulated_wavefront_sgpr_count (GFX10+)",
                bits: u64::from(r1.granulated_wavefront_sgpr_count),
            });
        }
        let r2 = d.rsrc2(arch);
        let implied = d.implied_user_sgprs(arch);
        // LLVM may reserve user SGPRs no property bit describes (GFX11 at
        // -O0 sets 13 for 8 enabled), so only too few is a problem.
        if implied > r2.user_sgpr_count {
            w.push(Warning::UserSgprCount {
                kernel: name.clone(),
                field: r2.user_sgpr_count,
                implied,
            });
        }
        let Some(md) = &k.metadata else {
            w.push(Warning::Unpaired {
                kernel: name,
                what: "no amdhsa.kernels entry".into(),
            });
            continue;
        };
        let mut cmp = |field, dv: u64, mv: u64| {
            if dv != mv {
                w.push(Warning::Mismatch {
                    kernel: name.clone(),
                    field,
                    descriptor: dv,
                    metadata: mv,
                });
            }
        };
        cmp(
            "kernarg_size",
            u64::from(d.kernarg_size),
            md.kernarg_segment_size,
        );
        cmp(
            "group_segment_fixed_size",
            u64::from(d.group_segment_fixed_size),
            md.group_segment_fixed_size,
        );
        cmp(
            "private_segment_fixed_size",
            u64::from(d.private_segment_fixed_size),
            md.private_segment_fixed_size,
        );
        cmp(
            "wavefront_size",
            u64::from(d.wavefront_size(arch)),
            md.wavefront_size,
        );
        if let Some(u) = md.uses_dynamic_stack {
            cmp(
                "uses_dynamic_stack",
                u64::from(p.uses_dynamic_stack),
                u64::from(u),
            );
        }
        if let (Some(m), Some(dv)) = (md.workgroup_processor_mode, r1.wgp_mode) {
            cmp("workgroup_processor_mode", u64::from(dv), u64::from(m));
        }
        // VGPRs (+ AGPRs) versus the granule.
        let agprs = md.agpr_count.unwrap_or(0);
        let used = allocated_vgprs_needed(arch, md.vgpr_count, agprs);
        if let Some(acc) = d.accum_offset(arch) {
            // AGPRs start after the architectural VGPRs, 4-aligned.
            let arch_vgprs = md.vgpr_count.saturating_sub(agprs);
            cmp(
                "accum_offset",
                u64::from(acc),
                arch_vgprs.div_ceil(4).max(1) * 4,
            );
        }
        // LLVM 22 raises the descriptor's register counts of a kernel whose
        // occupancy LDS or its work-group size already limits, up to what
        // that occupancy leaves free: more granules than the metadata's
        // counts need are expected then.
        let padded = processor
            .and_then(|p| {
                let assume = crate::occupancy::Assumptions {
                    sgprs: None,
                    ..crate::occupancy::Assumptions::up_to(md.max_flat_workgroup_size as u32)
                };
                crate::occupancy::estimate(d, p, &assume).ok()
            })
            .is_some_and(|o| o.by_workgroups <= o.by_vgprs.min(o.by_sgprs));
        let gran = u64::from(d.vgpr_encoding_granule(arch));
        let allocated = u64::from(d.allocated_vgprs(arch));
        if used > allocated {
            w.push(Warning::UnderAllocated {
                kernel: name.clone(),
                register: "vgpr",
                allocated,
                used,
            });
        }
        let expected = used.max(1).div_ceil(gran) - 1;
        let vgpr_granules = u64::from(r1.granulated_workitem_vgpr_count);
        if expected != vgpr_granules && !(padded && vgpr_granules > expected) {
            w.push(Warning::GranuleMismatch {
                kernel: name.clone(),
                register: "vgpr",
                descriptor: u64::from(r1.granulated_workitem_vgpr_count),
                expected,
            });
        }
        if let Some(alloc) = d.allocated_sgprs(arch) {
            let alloc = u64::from(alloc);
            if md.sgpr_count > alloc {
                w.push(Warning::UnderAllocated {
                    kernel: name.clone(),
                    register: "sgpr",
                    allocated: alloc,
                    used: md.sgpr_count,
                });
            }
            let expected = md.sgpr_count.max(1).div_ceil(8) - 1;
            let sgpr_granules = u64::from(r1.granulated_wavefront_sgpr_count);
            if expected != sgpr_granules && !(padded && sgpr_granules > expected) {
                w.push(Warning::GranuleMismatch {
                    kernel: name.clone(),
                    register: "sgpr",
                    descriptor: u64::from(r1.granulated_wavefront_sgpr_count),
                    expected,
                });
            }
        }
    }
    report
}

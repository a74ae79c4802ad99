//! Descriptor and metadata patching: register counts grown to cover the
//! probes' registers, `ACCUM_OFFSET`, and the metadata note's
//! `.sgpr_count`/`.vgpr_count`/`.private_segment_fixed_size`.

use std::collections::HashMap;

use lathe_codeobj::kd::{KdArch, KernelDescriptor, Rsrc3};
use lathe_codeobj::CodeObject;

use super::layout::{Emitted, FnCode};
use super::plan::RewritePlan;
use crate::asm::*;
use crate::elfout::{self, Patch};
use crate::lift::Program;
use crate::Error;

/// New descriptor bytes with register counts covering `regs`, and the
/// kernel's new metadata `.vgpr_count` (on GFX90A-class processors the
/// unified count: `ACCUM_OFFSET` + AGPRs when AGPRs are used).
/// `md_vgpr` is the kernel's old metadata `.vgpr_count`.
pub(crate) fn patch_descriptor(
    kd: &[u8; 64],
    d: &KernelDescriptor,
    arch: KdArch,
    regs: &Reserved,
    sgpr_end: u16,
    md_vgpr: Option<u32>,
) -> ([u8; 64], u32) {
    let mut out = *kd;
    let mut rsrc1 = d.compute_pgm_rsrc1;
    let mut rsrc3 = d.compute_pgm_rsrc3;
    let granule = d.vgpr_encoding_granule(arch);
    let old_total = md_vgpr.unwrap_or_else(|| d.allocated_vgprs(arch));
    let need_arch = u32::from(regs.vgpr_end());
    let new_total = match d.rsrc3(arch) {
        Rsrc3::Gfx90a { accum_offset, .. } => {
            let old_accum = (accum_offset + 1) * 4;
            let agprs = old_total.saturating_sub(old_accum);
            let old_arch = if agprs > 0 { old_accum } else { old_total };
            let arch_vgprs = old_arch.max(need_arch);
            let new_accum = arch_vgprs.next_multiple_of(4).max(4);
            rsrc3 = (rsrc3 & !0x3f) | ((new_accum / 4 - 1) & 0x3f);
            if agprs > 0 {
                new_accum + agprs
            } else {
                arch_vgprs
            }
        }
        _ => old_total.max(need_arch),
    };
    let vg = new_total.div_ceil(granule).max(1) - 1;
    rsrc1 = (rsrc1 & !0x3f) | (vg & 0x3f);
    if let Some(old_s) = d.allocated_sgprs(arch) {
        let need = u32::from(sgpr_end) + 6;
        let s = old_s.max(need);
        let sg = s.div_ceil(8).max(1) - 1;
        rsrc1 = (rsrc1 & !(0xf << 6)) | ((sg & 0xf) << 6);
    }
    out[44..48].copy_from_slice(&rsrc3.to_le_bytes());
    out[48..52].copy_from_slice(&rsrc1.to_le_bytes());
    (out, new_total)
}

/// A kernel's new metadata values.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NewCounts {
    pub(crate) sgprs: u64,
    pub(crate) vgprs: u64,
    /// New `.private_segment_fixed_size`.
    pub(crate) private: Option<u64>,
}

/// Metadata notes with each kernel's `.sgpr_count`/`.vgpr_count` raised to
/// cover the reserved registers, one per `NT_AMDGPU_METADATA` note.
pub(crate) fn metadata_notes(
    co: &CodeObject<'_>,
    new_counts: &HashMap<String, NewCounts>,
) -> Result<Vec<Vec<u8>>, Error> {
    let mut out = Vec::new();
    for desc in co.metadata_notes()? {
        let Ok(mut v) = lathe_codeobj::msgpack::parse(desc) else {
            out.push(desc.to_vec());
            continue;
        };
        if let lathe_codeobj::Value::Map(root) = &mut v {
            for (k, val) in root.iter_mut() {
                if k.as_str() != Some("amdhsa.kernels") {
                    continue;
                }
                if let lathe_codeobj::Value::Array(ks) = val {
                    for kv in ks.iter_mut() {
                        if let lathe_codeobj::Value::Map(m) = kv {
                            let sym = m
                                .iter()
                                .find(|(k, _)| k.as_str() == Some(".symbol"))
                                .and_then(|(_, v)| v.as_str())
                                .unwrap_or("")
                                .to_string();
                            let Some(nc) = new_counts.get(&sym) else {
                                continue;
                            };
                            for (mk, mv) in m.iter_mut() {
                                let need = match mk.as_str() {
                                    Some(".sgpr_count") => nc.sgprs,
                                    Some(".vgpr_count") => nc.vgprs,
                                    Some(".private_segment_fixed_size") => {
                                        if let Some(p) = nc.private {
                                            *mv = lathe_codeobj::Value::UInt(p);
                                        }
                                        continue;
                                    }
                                    _ => continue,
                                };
                                if let Some(old) = mv.as_u64() {
                                    *mv = lathe_codeobj::Value::UInt(old.max(need));
                                }
                            }
                        }
                    }
                }
            }
        }
        let mut b = Vec::new();
        elfout::encode_msgpack(&v, &mut b);
        out.push(b);
    }
    Ok(out)
}

/// Probe scratch given to one kernel ([`crate::scratch`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct KernelScratch {
    /// Kernel.
    pub kernel: String,
    /// The kernel's own `private_segment_fixed_size`.
    pub old_size: u32,
    /// Per-lane byte offset of the probe area.
    pub area: u32,
    /// New `private_segment_fixed_size`.
    pub new_size: u32,
    /// Scratch was off in the original kernel.
    pub enabled: bool,
    /// Initial SGPRs moved back by the entry preamble.
    pub moved_sgprs: usize,
}

/// What [`patch_kernels`] decided.
pub(crate) struct Patched {
    /// Code, descriptors, moves, relocations and metadata for the writer.
    pub(crate) patch: Patch,
    /// Probe scratch per kernel.
    pub(crate) scratch: Vec<KernelScratch>,
    /// (new address, original address) of every original instruction.
    pub(crate) addr_map: Vec<(u64, u64)>,
}

/// The descriptors (register counts grown, scratch enabled or grown,
/// entry offsets pointing at the new code), the moved functions and the
/// metadata notes of the new code object; the probe scratch given to each
/// kernel; (new address, original address) of every original instruction.
pub(crate) fn patch_kernels(
    co: &CodeObject<'_>,
    p: &Program,
    plan: &RewritePlan<'_>,
    code: &[FnCode],
    emitted: Emitted,
) -> Result<Patched, Error> {
    let RewritePlan {
        comp,
        comp_used,
        architected,
        plans,
        comp_regs,
        ..
    } = plan;
    let (arch, syms, descriptors) = (plan.prep.arch, &plan.prep.syms, &plan.prep.descriptors);
    let architected = *architected;
    let fn_new = &emitted.fn_new;
    // Descriptors.
    let mut new_counts: HashMap<String, NewCounts> = HashMap::new();
    let mut scratch: Vec<KernelScratch> = Vec::new();
    let mut patch = Patch {
        code: emitted.code,
        relocs: emitted.relocs,
        ..Default::default()
    };
    for (name, kd_addr, d) in descriptors {
        let Some(fi) = p.function(name) else { continue };
        let raw = co
            .find_elf_symbol(&format!("{name}.kd"))
            .and_then(|s| co.descriptor_bytes(s).ok())
            .and_then(|b| <[u8; 64]>::try_from(b).ok());
        let Some(raw) = raw else { continue };
        let md_vgpr = syms
            .kernel(name)
            .and_then(|k| k.metadata.as_ref())
            .map(|m| m.vgpr_count.min(512) as u32);
        let mut nb = raw;
        if let Ok(cr) = &comp_regs[comp[fi]] {
            // Writing FLAT_SCRATCH (gfx90a, D12): on GFX9 it lives in the
            // wave's last SGPRs, so the allocation must cover every SGPR
            // in use plus the VCC/FLAT_SCRATCH/XNACK_MASK extras (the +6).
            let mut sgpr_end = cr.sgpr_end;
            if plans.contains_key(&fi) && !architected {
                let used = comp_used[comp[fi]].max_sgpr().map_or(0, |m| m + 1);
                sgpr_end = sgpr_end.max(used.min(102));
            }
            let (b, vgprs) = patch_descriptor(&raw, d, arch, &cr.regs, sgpr_end, md_vgpr);
            nb = b;
            let mut private = None;
            if let Some(pl) = plans.get(&fi) {
                pl.patch(&mut nb);
                private = Some(u64::from(pl.new_size()));
                scratch.push(KernelScratch {
                    kernel: name.to_string(),
                    old_size: pl.old_size,
                    area: pl.area,
                    new_size: pl.new_size(),
                    enabled: d.compute_pgm_rsrc2 & 1 == 0,
                    moved_sgprs: pl.moves().len(),
                });
            }
            new_counts.insert(
                format!("{name}.kd"),
                NewCounts {
                    sgprs: u64::from(sgpr_end) + 6,
                    vgprs: u64::from(vgprs),
                    private,
                },
            );
        }
        let entry = fn_new[fi] as i64 - *kd_addr as i64;
        nb[16..24].copy_from_slice(&entry.to_le_bytes());
        patch.descriptors.push((*kd_addr, nb));
    }
    let mut addr_map = Vec::new();
    for (fi, f) in p.functions.iter().enumerate() {
        patch.moves.push((f.addr, fn_new[fi], code[fi].size));
        let fc = &code[fi];
        for (i, x) in f.insts.iter().enumerate() {
            addr_map.push((fn_new[fi] + fc.offs[fc.inst_item[i]], x.addr));
        }
    }
    patch.metadata = metadata_notes(co, &new_counts)?;
    Ok(Patched {
        patch,
        scratch,
        addr_map,
    })
}

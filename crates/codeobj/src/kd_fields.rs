//! A kernel descriptor as the list of fields its generation has, named as
//! LLVM's assembler names them: `.amdhsa_<name>` directives, or for the
//! fields the assembler has no directive for, the `; NAME` comments
//! `llvm-objdump` prints. The order is `llvm-objdump`'s.
//!
//! Which fields exist (per LLVM 22's `AMDHSAKernelDescriptor.h` and
//! AMDGPUUsage):
//! - every generation: segment sizes, `next_free_vgpr`/`next_free_sgpr`,
//!   float modes, the system SGPRs/VGPRs, exceptions, user SGPRs;
//! - before GFX12: `dx10_clamp`, `ieee_mode`; GFX9+: `fp16_overflow`;
//! - GFX90A class: `accum_offset`, `tg_split`;
//! - GFX10/GFX11: `shared_vgpr_count` (a comment in wave32);
//! - GFX10+: `workgroup_processor_mode` (not GFX12.5), `memory_ordered`,
//!   `forward_progress`, `wavefront_size32`;
//! - GFX11: `inst_pref_size`, `TRAP_ON_START`, `TRAP_ON_END`; GFX11+:
//!   `IMAGE_OP`;
//! - GFX12+: `inst_pref_size` (8 bits), `GLG_EN`, `round_robin_scheduling`;
//! - GFX12.5: `named_barrier_count`, `ENABLE_DYNAMIC_VGPR`, `TCP_SPLIT`,
//!   `ENABLE_DIDT_THROTTLE`, `FLAT_SCRATCH_IS_NV`;
//! - architected flat scratch (GFX940+, GFX11+): `enable_private_segment`
//!   instead of `system_sgpr_private_segment_wavefront_offset`, and no
//!   private segment buffer / flat scratch init user SGPRs;
//! - kernarg preloading (GFX90A class, GFX12.5): its length and offset.

use crate::kd::{KdArch, KernelDescriptor, Rsrc3};
use lathe_bundle::target::Family;

/// One decoded field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KdField {
    /// The name: the directive without `.amdhsa_`, or the comment's name in
    /// lower case.
    pub name: &'static str,
    /// Whether the assembler has a `.amdhsa_<name>` directive for it (else
    /// `llvm-objdump` prints it as a `; NAME` comment).
    pub directive: bool,
    /// The value as the directive states it.
    pub value: u64,
}

/// Every field `kd` has on `arch`, in `llvm-objdump`'s order (plus
/// `user_sgpr_count`, which it does not print).
pub fn fields(kd: &KernelDescriptor, arch: KdArch) -> Vec<KdField> {
    let mut out = Vec::with_capacity(48);
    let mut push = |name, directive, value: u64| {
        out.push(KdField {
            name,
            directive,
            value,
        })
    };
    let g10 = arch.family >= Family::Gfx10;
    let g12 = arch.family >= Family::Gfx12;
    let wave32 = kd.wavefront_size(arch) == 32;
    let r1 = kd.rsrc1(arch);
    let r2 = kd.rsrc2(arch);
    let p = kd.properties();
    let b = u64::from;
    let bo = |x: bool| u64::from(x);
    push(
        "group_segment_fixed_size",
        true,
        b(kd.group_segment_fixed_size),
    );
    push(
        "private_segment_fixed_size",
        true,
        b(kd.private_segment_fixed_size),
    );
    push("kernarg_size", true, b(kd.kernarg_size));
    let mut rsrc3: Vec<(&'static str, bool, u64)> = Vec::new();
    match kd.rsrc3(arch) {
        Rsrc3::Gfx90a {
            accum_offset,
            tg_split,
        } => {
            rsrc3.push(("accum_offset", true, b((accum_offset + 1) * 4)));
            rsrc3.push(("tg_split", true, bo(tg_split)));
        }
        Rsrc3::Gfx10 { shared_vgpr_count } => {
            rsrc3.push(("shared_vgpr_count", !wave32, b(shared_vgpr_count)));
        }
        Rsrc3::Gfx11 {
            shared_vgpr_count,
            inst_pref_size,
            trap_on_start,
            trap_on_end,
            image_op,
        } => {
            rsrc3.push(("shared_vgpr_count", !wave32, b(shared_vgpr_count)));
            rsrc3.push(("inst_pref_size", true, b(inst_pref_size)));
            rsrc3.push(("trap_on_start", false, bo(trap_on_start)));
            rsrc3.push(("trap_on_end", false, bo(trap_on_end)));
            rsrc3.push(("image_op", false, bo(image_op)));
        }
        Rsrc3::Gfx12 {
            inst_pref_size,
            glg_en,
            named_bar_cnt,
            enable_dynamic_vgpr,
            tcp_split,
            enable_didt_throttle,
            image_op,
        } => {
            rsrc3.push(("inst_pref_size", true, b(inst_pref_size)));
            rsrc3.push(("glg_en", false, bo(glg_en)));
            if arch.gfx125 {
                rsrc3.push(("named_barrier_count", true, b(named_bar_cnt)));
                rsrc3.push(("enable_dynamic_vgpr", false, bo(enable_dynamic_vgpr)));
                rsrc3.push(("tcp_split", false, b(tcp_split)));
                rsrc3.push(("enable_didt_throttle", false, bo(enable_didt_throttle)));
            }
            rsrc3.push(("image_op", false, bo(image_op)));
        }
        Rsrc3::None { .. } => {}
    }
    for (name, directive, value) in rsrc3 {
        push(name, directive, value);
    }
    push("next_free_vgpr", true, b(kd.allocated_vgprs(arch)));
    push(
        "next_free_sgpr",
        true,
        b((r1.granulated_wavefront_sgpr_count + 1) * 8),
    );
    push("float_round_mode_32", true, b(r1.float_round_mode_32));
    push("float_round_mode_16_64", true, b(r1.float_round_mode_16_64));
    push("float_denorm_mode_32", true, b(r1.float_denorm_mode_32));
    push(
        "float_denorm_mode_16_64",
        true,
        b(r1.float_denorm_mode_16_64),
    );
    if let Some(v) = r1.enable_dx10_clamp {
        push("dx10_clamp", true, bo(v));
    }
    if let Some(v) = r1.enable_ieee_mode {
        push("ieee_mode", true, bo(v));
    }
    if let Some(v) = r1.fp16_ovfl {
        push("fp16_overflow", true, bo(v));
    }
    if let Some(v) = r1.flat_scratch_is_nv {
        push("flat_scratch_is_nv", false, bo(v));
    }
    if let Some(v) = r1.wgp_mode {
        push("workgroup_processor_mode", true, bo(v));
    }
    if let Some(v) = r1.mem_ordered {
        push("memory_ordered", true, bo(v));
    }
    if let Some(v) = r1.fwd_progress {
        push("forward_progress", true, bo(v));
    }
    if let Some(v) = r1.enable_wg_rr_en {
        push("round_robin_scheduling", true, bo(v));
    }
    if arch.architected_flat_scratch {
        push(
            "enable_private_segment",
            true,
            bo(r2.enable_private_segment),
        );
    } else {
        push(
            "system_sgpr_private_segment_wavefront_offset",
            true,
            bo(r2.enable_private_segment),
        );
    }
    push(
        "system_sgpr_workgroup_id_x",
        true,
        bo(r2.enable_sgpr_workgroup_id_x),
    );
    push(
        "system_sgpr_workgroup_id_y",
        true,
        bo(r2.enable_sgpr_workgroup_id_y),
    );
    push(
        "system_sgpr_workgroup_id_z",
        true,
        bo(r2.enable_sgpr_workgroup_id_z),
    );
    push(
        "system_sgpr_workgroup_info",
        true,
        bo(r2.enable_sgpr_workgroup_info),
    );
    push(
        "system_vgpr_workitem_id",
        true,
        b(r2.enable_vgpr_workitem_id),
    );
    push(
        "exception_fp_ieee_invalid_op",
        true,
        bo(r2.enable_exception_ieee_754_fp_invalid_operation),
    );
    push(
        "exception_fp_denorm_src",
        true,
        bo(r2.enable_exception_fp_denormal_source),
    );
    push(
        "exception_fp_ieee_div_zero",
        true,
        bo(r2.enable_exception_ieee_754_fp_division_by_zero),
    );
    push(
        "exception_fp_ieee_overflow",
        true,
        bo(r2.enable_exception_ieee_754_fp_overflow),
    );
    push(
        "exception_fp_ieee_underflow",
        true,
        bo(r2.enable_exception_ieee_754_fp_underflow),
    );
    push(
        "exception_fp_ieee_inexact",
        true,
        bo(r2.enable_exception_ieee_754_fp_inexact),
    );
    push(
        "exception_int_div_zero",
        true,
        bo(r2.enable_exception_int_divide_by_zero),
    );
    if !arch.architected_flat_scratch {
        push(
            "user_sgpr_private_segment_buffer",
            true,
            bo(p.enable_sgpr_private_segment_buffer),
        );
    }
    push(
        "user_sgpr_dispatch_ptr",
        true,
        bo(p.enable_sgpr_dispatch_ptr),
    );
    push("user_sgpr_queue_ptr", true, bo(p.enable_sgpr_queue_ptr));
    push(
        "user_sgpr_kernarg_segment_ptr",
        true,
        bo(p.enable_sgpr_kernarg_segment_ptr),
    );
    push("user_sgpr_dispatch_id", true, bo(p.enable_sgpr_dispatch_id));
    if !arch.architected_flat_scratch {
        push(
            "user_sgpr_flat_scratch_init",
            true,
            bo(p.enable_sgpr_flat_scratch_init),
        );
    }
    if arch.gfx90a || arch.gfx125 {
        let pl = kd.preload();
        push("user_sgpr_kernarg_preload_length", true, b(pl.length));
        push("user_sgpr_kernarg_preload_offset", true, b(pl.offset));
    }
    push(
        "user_sgpr_private_segment_size",
        true,
        bo(p.enable_sgpr_private_segment_size),
    );
    if g10 {
        push("wavefront_size32", true, bo(p.enable_wavefront_size32));
    }
    push("uses_dynamic_stack", true, bo(p.uses_dynamic_stack));
    push("user_sgpr_count", true, b(r2.user_sgpr_count));
    if g12 && !arch.gfx125 {
        if let Some(v) = r2.enable_dynamic_vgpr {
            push("enable_dynamic_vgpr", false, bo(v));
        }
    }
    out
}

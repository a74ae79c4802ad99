//! Which vector writes kill a register for liveness, read from the ISA's
//! semantic description (`lathe_isa::sem`, `Partial`) instead of the
//! mnemonic: an instruction that writes one 16-bit half, one lane, or what
//! SDWA or a 16-bit VOP3's `op_sel` picks keeps the rest of the register,
//! so the register stays live across it. The instructions are assembled
//! by LLVM 22's `llvm-mc`, an independent reference for their encodings.
//!
//! The mnemonic rule this replaced (`d16` or `_hi` in the name) called
//! `v_fma_mixhi_f16` and a 16-bit VOP3 writing its high half (`op_sel`)
//! whole writes, and `v_mul_hi_u32`
//! a partial one.
//!
//! The same assembled instructions check which ones the `valu` site class
//! selects on every generation.

use std::process::Command;

use lathe_dbi::live::effects;
use lathe_isa::{decode, RegRange, Target};
use lathe_testkit::llvm_tool;

/// Assembles one instruction for `mcpu` and decodes it with lathe-isa.
fn inst(mcpu: &str, t: Target, text: &str) -> lathe_isa::Instruction {
    let o = Command::new(llvm_tool("llvm-mc"))
        .args([
            "-triple",
            "amdgcn-amd-amdhsa",
            &format!("-mcpu={mcpu}"),
            "-show-encoding",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().expect("stdin").write_all(text.as_bytes())?;
            c.wait_with_output()
        })
        .expect("run llvm-mc");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "llvm-mc {text}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let enc = out
        .lines()
        .find_map(|l| l.split("encoding: [").nth(1))
        .unwrap_or_else(|| panic!("no encoding for {text}: {out}"));
    let bytes: Vec<u8> = enc
        .trim_end_matches(']')
        .split(',')
        .map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).expect("byte"))
        .collect();
    let i = decode(t, &bytes);
    assert_eq!(i.len(), bytes.len(), "{text} decoded as {i}");
    i
}

fn kills_v(i: &lathe_isa::Instruction, v: u16) -> bool {
    let e = effects(i);
    assert!(e.defs.has_vgpr(v), "{i} does not write v{v}");
    e.kills_vector_full_exec.contains(RegRange::vgpr(v, 1))
}

#[test]
fn partial_vector_writes_keep_the_register_live() {
    for (mcpu, t) in [("gfx90a", Target::Gfx90a), ("gfx942", Target::Gfx942)] {
        // Writes of one half, one lane, or a selected part.
        for text in [
            "v_fma_mixhi_f16 v1, v2, v3, v4",
            "v_fma_mixlo_f16 v1, v2, v3, v4",
            "global_load_short_d16 v1, v[2:3], off",
            "global_load_short_d16_hi v1, v[2:3], off",
            "global_load_ubyte_d16_hi v1, v[2:3], off",
            "ds_read_u16_d16 v1, v2",
            "ds_read_u16_d16_hi v1, v2",
            "v_max3_f16 v1, v2, v3, v4 op_sel:[0,0,0,1]",
            "v_writelane_b32 v1, s2, 3",
            "v_add_u32_sdwa v1, v2, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:DWORD src1_sel:DWORD",
            "v_mov_b32_dpp v1, v2 row_shr:1 row_mask:0xa bank_mask:0xf",
        ] {
            let i = inst(mcpu, t, text);
            assert!(!kills_v(&i, 1), "{mcpu}: {text} must not kill v1");
        }
        // Whole writes, including mnemonics with `_hi` in them.
        for text in [
            "v_mul_hi_u32 v1, v2, v3",
            "v_mbcnt_hi_u32_b32 v1, -1, v2",
            "v_add_f32_e32 v1, v2, v3",
            "global_load_dword v1, v[2:3], off",
            "global_load_ushort v1, v[2:3], off",
            "v_cvt_f32_f16_e32 v1, v2",
        ] {
            let i = inst(mcpu, t, text);
            assert!(kills_v(&i, 1), "{mcpu}: {text} must kill v1");
        }
    }
}

/// `--class valu` selects vector ALU instructions in every encoding the
/// ISA decodes, not only GFX9's: GFX10's VOP3, VOP1 DPP8, and both halves
/// of a GFX11 VOPD pair; scalar and memory instructions stay out.
#[test]
fn the_valu_class_covers_every_generations_vector_encodings() {
    use lathe_dbi::rewrite::InstClass;
    let valu = [
        ("gfx1030", Target::Gfx1030, "v_add3_u32 v1, v2, v3, v4"),
        ("gfx1030", Target::Gfx1030, "v_cmp_eq_u32_e64 s5, v1, v2"),
        (
            "gfx1030",
            Target::Gfx1030,
            "v_mov_b32_dpp v1, v2 dpp8:[7,6,5,4,3,2,1,0]",
        ),
        (
            "gfx1100",
            Target::Gfx1100,
            "v_add_f32_dpp v1, v2, v3 dpp8:[7,6,5,4,3,2,1,0]",
        ),
        (
            "gfx1100",
            Target::Gfx1100,
            "v_dual_mul_f32 v0, v1, v2 :: v_dual_add_f32 v3, v4, v5",
        ),
        ("gfx90a", Target::Gfx90a, "v_add_u32_e64 v1, v2, v3"),
    ];
    for (mcpu, t, text) in valu {
        let i = inst(mcpu, t, text);
        assert!(
            InstClass::Valu.matches(&i),
            "{mcpu} `{text}` is VALU ({:?})",
            i.encoding()
        );
    }
    let not = [
        ("gfx1030", Target::Gfx1030, "s_add_u32 s1, s2, s3"),
        (
            "gfx1030",
            Target::Gfx1030,
            "global_load_dword v1, v[2:3], off",
        ),
        ("gfx1100", Target::Gfx1100, "ds_read_b32 v1, v2"),
    ];
    for (mcpu, t, text) in not {
        let i = inst(mcpu, t, text);
        assert!(!InstClass::Valu.matches(&i), "{mcpu} `{text}` is not VALU");
    }
}

/// GFX11's VOP3 DPP16 words that LLVM reads with the fake16 table (D71:
/// `v_alignbit_b32` with an SGPR src2 falls back from true16) are VALU,
/// and their row/bank masks keep the destination live; the true16 reading
/// of the same opcode behaves the same.
#[test]
fn gfx11_fake16_vop3_dpp16_is_valu_and_a_partial_write() {
    use lathe_dbi::rewrite::InstClass;
    for (text, enc) in [
        (
            "v_alignbit_b32_e64_dpp v1, v2, v3, s3 row_shl:1 row_mask:0x5 bank_mask:0xf",
            lathe_isa::Encoding::Vop3DppF16,
        ),
        (
            "v_alignbit_b32_e64_dpp v1, v2, v3, v4 row_shl:1 row_mask:0x5 bank_mask:0xf",
            lathe_isa::Encoding::Vop3Dpp,
        ),
    ] {
        let i = inst("gfx1100", Target::Gfx1100, text);
        assert_eq!(i.encoding(), enc, "gfx1100 `{text}` decodes as {enc:?}");
        assert!(InstClass::Valu.matches(&i), "gfx1100 `{text}` is VALU");
        assert!(!kills_v(&i, 1), "gfx1100 `{text}` must not kill v1");
    }
    // DPP8 has no masks: a whole write.
    let i = inst(
        "gfx1100",
        Target::Gfx1100,
        "v_alignbit_b32_e64_dpp v1, v2, v3, v4 dpp8:[7,6,5,4,3,2,1,0]",
    );
    assert!(kills_v(&i, 1), "gfx1100 VOP3 DPP8 kills v1");
}

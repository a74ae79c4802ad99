//! Register reuse checked statically on every gfx90a corpus kernel (-O0
//! and -O3; hipcc cases -O3): every tool, a counter before and after
//! every instruction, and random site selections, each in both register
//! modes (reserved SGPRs, and lane mode forced: SGPRs borrowed per site),
//! must leave every register live after its probe code unwritten or saved
//! first ([`lathe_dbi::verify_regs`], against the original program's
//! liveness). Nothing runs, so this covers every kernel in seconds; the
//! run-time checks are `random_sites.rs` and `stress.rs` (which also runs
//! this check on kernels with no register free).

use std::sync::Arc;

use lathe_cases::build;
use lathe_codeobj::CodeObject;
use lathe_dbi::rewrite::{
    instrument_lifted_with, CounterProbe, Options as RwOptions, Request, Selector, Where,
};
use lathe_dbi::tools::{self, requests_from_bytes, Tool};
use lathe_dbi::{verify_regs, Liveness, Program};

/// Requests for one run: `k` picks a tool, an every-instruction counter
/// (before or after) or random sites.
fn requests(k: usize, rng: &mut lathe_cases::Prng) -> (String, Vec<Request>) {
    let every = |at: Where| Request {
        select: Selector::default(),
        at,
        probe: Arc::new(CounterProbe { lanes: true }),
    };
    match k {
        0..5 => {
            let t = Tool::ALL[k];
            (
                t.name().to_string(),
                tools::requests(t, None, 64).expect("requests"),
            )
        }
        5 => (
            "before every instruction".into(),
            vec![every(Where::Before)],
        ),
        6 => ("after every instruction".into(), vec![every(Where::After)]),
        _ => {
            let bytes: Vec<u8> = (0..16).map(|_| rng.next_u32() as u8).collect();
            (format!("sites {bytes:02x?}"), requests_from_bytes(&bytes))
        }
    }
}

#[test]
fn probes_on_corpus_kernels_keep_live_registers_statically() {
    let mut rng = lathe_cases::Prng::new(0x0e65_7a71);
    let (mut outs, mut runs, mut saved, mut inserted) = (0, 0, 0, 0);
    let mut failed = Vec::new();
    for case in lathe_cases::all() {
        if !case.targets.contains(&"gfx90a") {
            continue;
        }
        let opts = case.opts();
        for &opt in opts {
            let co = std::fs::read(build::linked_code_object(&case, "gfx90a", opt)).expect("co");
            let obj = CodeObject::parse(&co).expect("parse");
            let p = Program::lift(&obj).expect("lift");
            let live = Liveness::compute(&p);
            for k in 0..12 {
                let (what, reqs) = requests(k, &mut rng);
                for lanes in [false, true] {
                    let label = format!("{} {opt} {what} lanes {lanes}", case.name);
                    let out = match instrument_lifted_with(
                        &obj,
                        &p,
                        &live,
                        &reqs,
                        &RwOptions::lane_mode(lanes),
                    ) {
                        Ok(o) => o,
                        Err(e) => {
                            failed.push(format!("{label}: {e}"));
                            continue;
                        }
                    };
                    outs += 1;
                    match verify_regs::check(&p, &live, &out.code_object, &out.addr_map) {
                        Ok(c) => {
                            runs += c.runs;
                            saved += c.saved;
                            inserted += c.inserted;
                        }
                        Err(e) => failed.push(format!("{label}: {e}")),
                    }
                }
            }
        }
    }
    eprintln!(
        "{outs} instrumented code objects, {runs} probe runs ({inserted} instructions), \
         {saved} saving a live register, {} failed",
        failed.len()
    );
    for f in failed.iter().take(20) {
        eprintln!("  {f}");
    }
    assert!(failed.is_empty(), "{} failed", failed.len());
    assert!(runs > 1000 && saved > 0, "{runs} runs, {saved} saving");
}

/// [`verify_regs::misaligned`] on words llvm-mc 22 encoded for gfx90a
/// (even tuples, which it accepts), then with one register field made odd
/// (the assembler rejects those: "invalid register alignment", "invalid
/// operand for instruction").
#[test]
fn misaligned_register_tuples_are_found_as_llvm_rejects_them() {
    use lathe_isa::Target;
    let odd = |t: Target, bytes: &[u8]| verify_regs::misaligned(&lathe_isa::decode(t, bytes));
    // s_mov_b64 s[2:3], 0; sdst 1: s[1:2].
    assert_eq!(odd(Target::Gfx90a, &[0x80, 0x01, 0x82, 0xbe]), None);
    let r = odd(Target::Gfx90a, &[0x80, 0x01, 0x81, 0xbe]).expect("s[1:2]");
    assert_eq!(r.to_string(), "s[1:2]");
    // SGPR pairs are aligned on every target.
    assert!(odd(Target::Gfx908, &[0x80, 0x01, 0x81, 0xbe]).is_some());
    // s_load_dwordx4 s[4:7], s[4:5], 0x0; sdata 2: s[2:5].
    let load = |sdata: u8| [0x02 | sdata << 6, sdata >> 2, 0x0a, 0xc0, 0, 0, 0, 0];
    assert_eq!(odd(Target::Gfx90a, &load(4)), None);
    assert_eq!(
        odd(Target::Gfx90a, &load(2)).map(|r| r.to_string()),
        Some("s[2:5]".into())
    );
    // global_load_dwordx2 v[2:3], v[4:5], off; vaddr 5, then vdst 3.
    let gl = |vaddr: u8, vdst: u8| [0x00, 0x80, 0x54, 0xdc, vaddr, 0x00, 0x7f, vdst];
    assert_eq!(odd(Target::Gfx90a, &gl(4, 2)), None);
    assert_eq!(
        odd(Target::Gfx90a, &gl(5, 2)).map(|r| r.to_string()),
        Some("v[5:6]".into())
    );
    assert_eq!(
        odd(Target::Gfx942, &gl(4, 3)).map(|r| r.to_string()),
        Some("v[3:4]".into())
    );
    // gfx908 has no VGPR alignment rule.
    assert_eq!(odd(Target::Gfx908, &gl(5, 3)), None);
    // v_mfma_f32_4x4x1f32 a[0:3], v0, v1, a[0:3]; vdst 1: a[1:4].
    let mfma = |vdst: u8| [vdst, 0x80, 0xc2, 0xd3, 0x00, 0x03, 0x02, 0x04];
    assert_eq!(odd(Target::Gfx90a, &mfma(0)), None);
    assert_eq!(
        odd(Target::Gfx90a, &mfma(1)).map(|r| r.to_string()),
        Some("a[1:4]".into())
    );
}

/// A kernel using every VGPR (so probes spill theirs) where v1 and v2 are
/// never named, so dead everywhere, and v0 is live until the end: the first
/// dead pair is the odd v[1:2]. Probe VGPR pairs and quads must still be
/// even-aligned on gfx90a/gfx942 (a pair search that steps by one picks
/// v[1:2]).
fn odd_free_asm(target: &str) -> String {
    use std::fmt::Write as _;
    let mut a = String::new();
    let w = &mut a;
    let _ = writeln!(w, ".amdgcn_target \"amdgcn-amd-amdhsa--{target}\"");
    let _ = writeln!(
        w,
        ".text\n.globl odd_free\n.p2align 8\n.type odd_free,@function\nodd_free:"
    );
    let _ = writeln!(w, "  s_load_dwordx2 s[4:5], s[0:1], 0");
    for k in 3..256 {
        let _ = writeln!(w, "  v_add_u32_e32 v{k}, {k}, v0");
    }
    for k in 4..256 {
        let _ = writeln!(w, "  v_add_u32_e32 v3, v{k}, v3");
    }
    let _ = writeln!(w, "  v_add_u32_e32 v3, v0, v3");
    let _ = writeln!(w, "  v_lshlrev_b32_e32 v4, 2, v0");
    let _ = writeln!(w, "  s_waitcnt lgkmcnt(0)");
    let _ = writeln!(w, "  global_store_dword v4, v3, s[4:5]");
    let _ = writeln!(w, "  s_endpgm");
    let _ = writeln!(w, ".Lend:\n.size odd_free, .Lend-odd_free");
    let _ = writeln!(w, ".rodata\n.p2align 6\n.amdhsa_kernel odd_free");
    let _ = writeln!(
        w,
        "  .amdhsa_next_free_vgpr 256\n  .amdhsa_accum_offset 256\n  .amdhsa_next_free_sgpr 8"
    );
    let _ = writeln!(
        w,
        "  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n  .amdhsa_kernarg_size 8"
    );
    let _ = writeln!(w, ".end_amdhsa_kernel");
    let _ = writeln!(
        w,
        ".amdgpu_metadata\n---\namdhsa.version: [ 1, 2 ]\namdhsa.kernels:\n  - .name: odd_free\n    \
         .symbol: odd_free.kd\n    .kernarg_segment_size: 8\n    .kernarg_segment_align: 8\n    \
         .group_segment_fixed_size: 0\n    .private_segment_fixed_size: 0\n    \
         .wavefront_size: 64\n    .sgpr_count: 8\n    .vgpr_count: 256\n    \
         .max_flat_workgroup_size: 256\n    .args:\n      - {{ .name: out, .size: 8, .offset: 0, \
         .value_kind: global_buffer, .address_space: global }}\n...\n.end_amdgpu_metadata"
    );
    a
}

#[test]
fn probe_vgpr_tuples_stay_aligned_where_only_an_odd_pair_is_free() {
    let mut rng = lathe_cases::Prng::new(0x0dd_f4ee);
    let (mut outs, mut spilled) = (0, 0);
    let mut failed = Vec::new();
    for target in ["gfx90a", "gfx942"] {
        let path = lathe_testkit::assemble_shared(target, "odd-free", &odd_free_asm(target));
        let co = std::fs::read(path).expect("code object");
        let obj = CodeObject::parse(&co).expect("parse");
        let p = Program::lift(&obj).expect("lift");
        let live = Liveness::compute(&p);
        for k in 0..12 {
            let (what, reqs) = requests(k, &mut rng);
            for lanes in [false, true] {
                let label = format!("odd_free {target} {what} lanes {lanes}");
                let out = match instrument_lifted_with(
                    &obj,
                    &p,
                    &live,
                    &reqs,
                    &RwOptions::lane_mode(lanes),
                ) {
                    Ok(o) => o,
                    Err(e) => {
                        failed.push(format!("{label}: {e}"));
                        continue;
                    }
                };
                outs += 1;
                spilled += out.spilled_sites;
                if let Err(e) = verify_regs::check(&p, &live, &out.code_object, &out.addr_map) {
                    failed.push(format!("{label}: {e}"));
                }
            }
        }
    }
    eprintln!("odd_free: {outs} instrumented, {spilled} sites spilled");
    for f in failed.iter().take(20) {
        eprintln!("  {f}");
    }
    assert!(failed.is_empty(), "{} failed", failed.len());
    assert!(
        outs == 48 && spilled > 0,
        "{outs} instrumented, {spilled} spilled"
    );
}

//! Probe scratch (`lathe_dbi::scratch`) on the emulator corpus: a probe
//! asks for scratch bytes, so every kernel gets a probe area — scratch
//! enabled where it was off (gfx90a: the initial SGPRs move, the entry
//! preamble moves them back), grown where the kernel had its own frame.
//! At kernel entry the probe writes a value to its area per lane through
//! `scratch_store_dword` (and on gfx90a a second one through the MUBUF
//! descriptor the rewriter hands it); before every `s_endpgm` it reads
//! both back and adds them to counters. The counters must equal the value
//! times the waves run, every output must be bit-identical to the
//! uninstrumented run's, the waitcnt check stays on, and the descriptor /
//! metadata check is clean on the result. Kernels with a dynamic stack
//! (recursion, and every kernel with calls at -O0), and those sharing a
//! call-graph component with one, get their area past the dynamic-stack
//! reserve, and must run exactly too.

mod common;

use common::roundtrip::{requests, K};
use common::{args_of, outputs, run_instrumented, shape_of, RunOut};
use lathe_cases::build;
use lathe_codeobj::CodeObject;
use lathe_dbi::rewrite::{self, Options, Where};
use lathe_dbi::{Liveness, Program};
use lathe_emu::session::Session;

fn u64_at(d: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(d[o..o + 8].try_into().expect("8 bytes"))
}

#[test]
fn probe_scratch_on_every_case() {
    let mut done = 0;
    let mut enabled = 0;
    let mut grown = 0;
    let mut dynamic_runs = 0;
    let mut failed = Vec::new();
    for case in lathe_cases::all() {
        let opts_levels = case.opts();
        for (&target, &opt) in case
            .targets
            .iter()
            .flat_map(|t| opts_levels.iter().map(move |o| (t, o)))
        {
            if !matches!(target, "gfx90a" | "gfx942") {
                continue;
            }
            let agent: lathe_bundle::TargetId = target.parse().expect("target");
            let path = build::linked_code_object(&case, target, opt);
            let bytes = std::fs::read(&path).expect("code object");
            let base = Session::load(agent, &[&bytes]).expect("load");
            let opts = lathe_emu::run::Options {
                threads: 1,
                ..Default::default()
            };
            let (_r, bufs) = base
                .launch(case.kernel, shape_of(&case), &args_of(&case), &opts)
                .expect("uninstrumented run");
            let want = outputs(&base, &case, &bufs);
            let co = CodeObject::parse(&bytes).expect("parse");
            let p = Program::lift(&co).expect("lift");
            let live = Liveness::compute(&p);
            let kernel = co
                .symbols()
                .expect("symbols")
                .kernels()
                .iter()
                .find(|k| {
                    k.name == case.kernel
                        || lathe_loader::mangled_base_name(k.name) == Some(case.kernel)
                })
                .map(|k| k.name.to_string())
                .expect("kernel");
            for lanes in [false, true] {
                let what = format!(
                    "{} {target} {opt}{}",
                    case.name,
                    if lanes { " (lane mode)" } else { "" }
                );
                // A kernel with a dynamic stack, or sharing a call-graph
                // component with one: its area is past the reserve.
                let dynamic = {
                    let syms = co.symbols().expect("symbols");
                    let kfi = p.function(&kernel).expect("kernel");
                    let mut reach = vec![kfi];
                    // Kernels linked to this one through shared callees
                    // (or any unresolved call: everything is one component).
                    let unresolved = p
                        .functions
                        .iter()
                        .any(|f| f.calls.iter().any(|c| c.callee.is_none()));
                    let mine = lathe_dbi::cfg::reachable(&p, kfi);
                    for (fi, f) in p.functions.iter().enumerate() {
                        if f.kind == lathe_dbi::FunctionKind::Kernel
                            && (unresolved
                                || lathe_dbi::cfg::reachable(&p, fi)
                                    .iter()
                                    .any(|g| mine.contains(g)))
                        {
                            reach.push(fi);
                        }
                    }
                    reach.iter().any(|&fi| {
                        syms.kernel(&p.functions[fi].name)
                            .and_then(|k| k.descriptor.as_ref().ok().copied())
                            .is_some_and(|d| d.properties().uses_dynamic_stack)
                    })
                };
                let out = match rewrite::instrument_lifted_with(
                    &co,
                    &p,
                    &live,
                    &requests(&kernel),
                    &Options::lane_mode(lanes),
                ) {
                    Ok(o) => o,
                    Err(e) => {
                        failed.push(format!("{what}: {e}"));
                        continue;
                    }
                };
                if let Some((_, why)) = out.skipped.iter().find(|(k, _)| *k == kernel) {
                    failed.push(format!("{what}: skipped: {why}"));
                    continue;
                }
                let ks = out
                    .scratch
                    .iter()
                    .find(|k| k.kernel == kernel)
                    .expect("kernel got scratch");
                let own_dynamic = co
                    .symbols()
                    .expect("symbols")
                    .kernel(&kernel)
                    .and_then(|k| k.descriptor.as_ref().ok().copied())
                    .is_some_and(|d| d.properties().uses_dynamic_stack);
                if own_dynamic && ks.area < ks.old_size + lathe_dbi::scratch::DYNAMIC_STACK_RESERVE
                {
                    failed.push(format!(
                        "{what}: dynamic stack, area {} inside the reserve past {}",
                        ks.area, ks.old_size
                    ));
                    continue;
                }
                if dynamic {
                    dynamic_runs += 1;
                }
                if ks.enabled {
                    enabled += 1;
                } else {
                    grown += 1;
                    assert!(
                        ks.area >= ks.old_size,
                        "{what}: area inside the kernel's frame"
                    );
                }
                if let Ok(d) = std::env::var("LATHE_DBI_DUMP") {
                    let f = format!("{d}/{}-{target}-{lanes}.co", case.name);
                    std::fs::write(f, &out.code_object).expect("dump");
                }
                let nco = CodeObject::parse(&out.code_object).expect("parse result");
                let check = lathe_codeobj::check::check(&nco).expect("check");
                if !check.is_clean() {
                    failed.push(format!("{what}: check: {:?}", check.warnings));
                    continue;
                }
                if let Err(e) =
                    common::llvm_accepts(&out.code_object, target, &what.replace(' ', "-"))
                {
                    failed.push(format!("{what}: {e}"));
                    continue;
                }
                match run_instrumented(agent, &out, &case, &kernel) {
                    Ok(RunOut {
                        data,
                        outputs: got,
                        waves,
                        ..
                    }) => {
                        let slot = out.sites.iter().find(|s| s.at == Where::BeforeEndpgm);
                        let slot = slot.expect("an s_endpgm site").slot as usize;
                        // Every s_endpgm site's counters, summed.
                        let (mut a, mut b) = (0, 0);
                        for s in out.sites.iter().filter(|s| s.at == Where::BeforeEndpgm) {
                            a += u64_at(&data, s.slot as usize);
                            b += u64_at(&data, s.slot as usize + 8);
                        }
                        let _ = slot;
                        if got != want {
                            failed.push(format!("{what}: outputs differ"));
                        } else if (a, b) != (u64::from(K) * waves, u64::from(K + 1) * waves) {
                            failed.push(format!(
                                "{what}: counters ({a:#x}, {b:#x}) for {waves} waves"
                            ));
                        } else {
                            done += 1;
                        }
                    }
                    Err(e) => failed.push(format!("{what}: run: {e}")),
                }
            }
        }
    }
    eprintln!(
        "probe scratch: {done} runs exact ({enabled} with scratch enabled, {grown} grown), \
         {dynamic_runs} of them with a dynamic stack in the kernel's call-graph component"
    );
    for f in &failed {
        eprintln!("  {f}");
    }
    assert!(failed.is_empty(), "{} failed", failed.len());
    assert!(enabled > 0 && grown > 0 && dynamic_runs > 0);
}

/// A 64-byte descriptor with `kernel_code_properties` `props`,
/// `COMPUTE_PGM_RSRC2` `rsrc2` and `kernarg_preload` `preload`.
fn descriptor(props: u16, rsrc2: u32, preload: u16) -> lathe_codeobj::kd::KernelDescriptor {
    let mut b = [0u8; 64];
    b[52..56].copy_from_slice(&rsrc2.to_le_bytes());
    b[56..58].copy_from_slice(&props.to_le_bytes());
    b[58..60].copy_from_slice(&preload.to_le_bytes());
    lathe_codeobj::kd::KernelDescriptor::parse(&b).expect("descriptor")
}

/// Enabling scratch on gfx90a inserts the buffer descriptor (4 user
/// SGPRs) before the dispatch pointer and the flat-scratch init after the
/// kernarg pointer: every later initial SGPR moves, and the moves back
/// never overwrite a source they still need; on gfx942 nothing moves. Too
/// many user SGPRs is a typed error.
#[test]
fn enabling_scratch_moves_the_initial_sgprs_back() {
    use lathe_dbi::scratch::{Plan, ScratchError};
    let arch = |t: &str| {
        let id: lathe_bundle::TargetId = t.parse().expect("target");
        lathe_codeobj::kd::KdArch::for_processor(id.processor)
    };
    // dispatch_ptr + kernarg_ptr (4 user SGPRs), work-group IDs x and y.
    let d = descriptor(0b1010, (4 << 1) | (1 << 7) | (1 << 8), 0);
    let p = Plan::new(&d, arch("gfx90a"), 0, 8).expect("plan");
    assert_eq!(
        p.moves(),
        vec![(0, 4), (1, 5), (2, 6), (3, 7), (4, 10), (5, 11)]
    );
    assert_eq!(p.sources, Some((0, 8, 12)));
    assert_eq!(p.rsrc2 >> 1 & 0x1f, 10, "USER_SGPR_COUNT");
    assert_eq!(p.rsrc2 & 1, 1, "ENABLE_PRIVATE_SEGMENT");
    assert_eq!(p.properties, 0b10_1011);
    // Every move's source is read before any later move writes it.
    let moves = p.moves();
    for (k, (_, src)) in moves.iter().enumerate() {
        assert!(moves[..k].iter().all(|(dst, _)| dst != src));
    }
    let p = Plan::new(&d, arch("gfx942"), 0, 8).expect("plan");
    assert!(p.moves().is_empty());
    assert_eq!(p.sources, None);
    // All user SGPR kinds (9) plus two preloaded kernarg dwords, plus the
    // 6 scratch ones: 17 > 16.
    let d = descriptor(0b101_1110, 11 << 1, 2);
    assert_eq!(
        Plan::new(&d, arch("gfx90a"), 0, 8),
        Err(ScratchError::UserSgprs { need: 17 })
    );
    // A dynamic stack (kernel_code_properties bit 11): the area starts the
    // reserve past the frame, however small the component's minimum.
    let mut d = descriptor(0b1000 | 1 << 11, 2 << 1, 0);
    d.private_segment_fixed_size = 40;
    for t in ["gfx90a", "gfx942"] {
        let p = Plan::new(&d, arch(t), 0, 8).expect("plan");
        assert_eq!(p.area, 48 + lathe_dbi::scratch::DYNAMIC_STACK_RESERVE);
        assert_eq!(p.old_size, 40);
        assert!(p.new_size() >= p.area + 8);
    }
}

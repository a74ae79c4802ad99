//! The per-case check of `tools.rs` (every built-in tool exact, outputs
//! bit-identical), shared with `gfx950_tools.rs`.
#![allow(dead_code)]

use std::collections::BTreeMap;

use crate::common::{self, args_of, outputs, shape_of};
use lathe_cases::{build, Case};
use lathe_dbi::tools::{self, Tool};
use lathe_emu::run::Options;
use lathe_emu::session::Session;

/// Dynamic wave-instructions (with probes, original) per tool and mode,
/// summed over the corpus.
pub type Overhead = BTreeMap<String, (u64, u64)>;

/// SCRATCH accesses `mem-trace` recorded and the ground truth confirmed.
pub static SCRATCH_CHECKED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
pub static BUFFER_CHECKED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
/// Lane accesses whose work-group and wave `mem-trace` recorded as the
/// emulator ran them.
pub static WAVES_CHECKED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Checks one case/target/level under every tool: outputs equal to the
/// uninstrumented run's byte for byte (not through the case's tolerance),
/// counts equal to the ground truth.
pub fn check(
    case: &Case,
    target: &'static str,
    opt: &'static str,
    overhead: &mut Overhead,
) -> Result<(), String> {
    let co =
        std::fs::read(build::linked_code_object(case, target, opt)).map_err(|e| e.to_string())?;
    check_co(case, target, &co, overhead)
}

/// [`check`] on a code object already built for `target` (a GFX10+ one
/// in either wave size).
pub fn check_co(
    case: &Case,
    target: &'static str,
    co: &[u8],
    overhead: &mut Overhead,
) -> Result<(), String> {
    let co = co.to_vec();
    let agent: lathe_bundle::TargetId = target.parse().map_err(|e| format!("{e:?}"))?;
    let args = args_of(case);
    let shape = shape_of(case);
    let opts = Options {
        threads: 1,
        ..Options::default()
    };
    let base = Session::load(agent, &[&co]).map_err(|e| e.to_string())?;
    let (_rep, bufs) = base
        .launch(case.kernel, shape, &args, &opts)
        .map_err(|e| format!("uninstrumented: {e}"))?;
    let want_out = outputs(&base, case, &bufs);
    // Every tool in the fast mode (free SGPRs reserved), and the counting
    // tools again in lane mode (state in VGPR lanes, SGPRs borrowed).
    let runs = Tool::ALL
        .iter()
        .map(|t| (*t, false))
        .chain([(Tool::InstrCount, true), (Tool::BlockCount, true)]);
    for (tool, lanes) in runs {
        let ro = lathe_dbi_run::builtin::RunOptions {
            record: true,
            force_lane_mode: lanes,
            trace_capacity: None,
        };
        let (run, b) =
            lathe_dbi_run::builtin::run(agent, &[&co], case.kernel, tool, shape, &args, &opts, &ro)
                .map_err(|e| {
                    format!(
                        "{}{}: {e}",
                        tool.name(),
                        if lanes { " (lane mode)" } else { "" }
                    )
                })?;
        let got_out = outputs(&run.session, case, &run.buffers);
        if got_out != want_out {
            // Byte for byte, whatever the case's own tolerance.
            return Err(format!(
                "{}{}: outputs differ from the uninstrumented run",
                tool.name(),
                if lanes { " (lane mode)" } else { "" }
            ));
        }
        let gt = run.ground_truth.clone().expect("recorded");
        let orig: u64 = gt.values().map(|c| c.waves).sum();
        let e = overhead
            .entry(format!(
                "{}{}",
                tool.name(),
                if lanes { " (lane mode)" } else { "" }
            ))
            .or_default();
        e.0 += run.report.wave_instructions;
        e.1 += orig;
        let r = &run.result;
        match tool {
            Tool::InstrCount => {
                let (w, t) = (
                    r["wave_instructions"].as_u64(),
                    r["thread_instructions"].as_u64(),
                );
                let gw: u64 = gt.values().map(|c| c.waves).sum();
                let gl: u64 = gt.values().map(|c| c.lanes).sum();
                if w != Some(gw) || t != Some(gl) {
                    return Err(format!(
                        "instr-count: ({w:?}, {t:?}), ground truth ({gw}, {gl})"
                    ));
                }
            }
            Tool::BlockCount => {
                // Ground truth: executions of each block's first
                // instruction; every block of the kernel and what it calls
                // is reported.
                common::check_block_counts(r, &b.program, case.kernel, &gt)
                    .map_err(|e| format!("block-count: {e}"))?;
            }
            Tool::OpcodeHist => {
                let got: BTreeMap<String, u64> = r["opcodes"]
                    .as_array()
                    .expect("opcodes")
                    .iter()
                    .map(|o| {
                        (
                            o["opcode"].as_str().unwrap_or("").to_string(),
                            o["count"].as_u64().unwrap_or(0),
                        )
                    })
                    .collect();
                let mut want: BTreeMap<String, u64> = BTreeMap::new();
                for (pc, c) in &gt {
                    let fi = b
                        .program
                        .function_containing(*pc)
                        .expect("pc in a function");
                    let f = &b.program.functions[fi];
                    let i = f.index_of(*pc).expect("instruction");
                    *want
                        .entry(f.insts[i].inst.opcode().name().to_string())
                        .or_default() += c.waves;
                }
                want.retain(|_, n| *n > 0);
                if got != want {
                    return Err(format!("opcode-hist differs: {got:?} vs {want:?}"));
                }
            }
            Tool::Kernarg => {
                let gd = &r["grid_dim"];
                if !gd.is_null() {
                    let want: Vec<u64> = (0..3)
                        .map(|i| u64::from(case.grid[i].div_ceil(case.block[i])))
                        .collect();
                    let got: Vec<u64> = gd
                        .as_array()
                        .expect("dims")
                        .iter()
                        .map(|v| v.as_u64().unwrap_or(0))
                        .collect();
                    if got != want {
                        return Err(format!("kernarg: grid_dim {got:?}, want {want:?}"));
                    }
                }
            }
            Tool::MemTrace => {
                let t = run.trace.as_ref().expect("trace");
                // Every access the emulator logged (global, flat, scratch,
                // LDS and buffer) must be traced: no filtering by site.
                let want: Vec<(u64, u8, u64)> =
                    run.ground_truth_accesses.clone().expect("recorded");
                let mut got: Vec<(u64, u8, u64)> =
                    t.events.iter().map(|e| (e.pc, e.lane, e.addr)).collect();
                got.sort_unstable();
                if t.reserved != t.records + t.dropped {
                    return Err(format!(
                        "mem-trace: {} reserved, {} written, {} dropped",
                        t.reserved, t.records, t.dropped
                    ));
                }
                // Each access's wave (work-group id and index in it)
                // against the emulator's, which tags its log per wave.
                let want_waves = run.ground_truth_waves.clone().expect("recorded");
                // A kernel with a multi-dimensional work-item id but no
                // work-group size to flatten it with (code object v4
                // without the dispatch pointer) gets x / 64 (D24): its
                // waves are compared by work-group only.
                let co_p = lathe_codeobj::CodeObject::parse(&co).map_err(|e| e.to_string())?;
                let approx = tools::wave_id_sources(&co_p, &b.program)
                    .values()
                    .any(|s| s.tid_dims > 1 && s.group_size.is_none());
                let mut want_waves = want_waves;
                if approx {
                    for w in &mut want_waves {
                        w.4 = 0;
                    }
                    want_waves.sort_unstable();
                }
                let mut got_waves: Vec<tools::WaveAccess> = t
                    .events
                    .iter()
                    .map(|e| {
                        (
                            e.pc,
                            e.lane,
                            e.addr,
                            e.workgroup,
                            if approx { 0 } else { e.wave },
                        )
                    })
                    .collect();
                got_waves.sort_unstable();
                if want_waves.len() != want.len() {
                    return Err("mem-trace: the ground truth has no waves".into());
                }
                if t.dropped == 0 {
                    if got != want {
                        return Err(format!(
                            "mem-trace: {} accesses traced, ground truth {}",
                            got.len(),
                            want.len()
                        ));
                    }
                    if got_waves != want_waves {
                        let first = got_waves
                            .iter()
                            .zip(&want_waves)
                            .find(|(g, w)| g != w)
                            .map(|(g, w)| format!("{g:x?} against {w:x?}"))
                            .unwrap_or_default();
                        return Err(format!("mem-trace: waves differ: first {first}"));
                    }
                    WAVES_CHECKED
                        .fetch_add(got_waves.len() as u64, std::sync::atomic::Ordering::Relaxed);
                } else {
                    let all: std::collections::BTreeSet<_> = want_waves.iter().collect();
                    if !got_waves.iter().all(|g| all.contains(g)) {
                        return Err("mem-trace: a traced access is not in the ground truth".into());
                    }
                }
                let scratch = t
                    .events
                    .iter()
                    .filter(|e| b.sites[e.site as usize].inst.starts_with("scratch_"))
                    .count();
                SCRATCH_CHECKED.fetch_add(scratch as u64, std::sync::atomic::Ordering::Relaxed);
                let buffer = t
                    .events
                    .iter()
                    .filter(|e| b.sites[e.site as usize].inst.starts_with("buffer_"))
                    .count();
                BUFFER_CHECKED.fetch_add(buffer as u64, std::sync::atomic::Ordering::Relaxed);
            }
            _ => {}
        }
    }
    Ok(())
}

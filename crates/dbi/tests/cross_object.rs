//! Device functions in another, uninstrumented code object: the devlib
//! cases' kernels (k_devlib_main.hip) and the functions they call
//! (k_devlib_lib.hip, one recursive) linked as two separate shared code
//! objects, loaded into one executable (the loader resolves the kernel
//! object's undefined symbols against the library). Only the kernel's
//! object is instrumented; the library's functions run as they are and may
//! use any register the calling convention lets them clobber. Under every
//! tool (gfx90a and gfx942) the outputs equal the uninstrumented run's,
//! the case's CPU reference passes, and the counts of the kernel object's
//! instructions equal the emulator's ground truth.

mod common;
use common::hip_shared;

use common::{args_of, outputs, shape_of};
use lathe_dbi::tools::Tool;
use lathe_emu::run::Options;
use lathe_emu::session::Session;
use lathe_testkit::{link_shared, Build, Output};

/// `src` as a `-fgpu-rdc` relocatable object with default visibility,
/// linked alone into a shared code object (its references to the other
/// object stay undefined, for the loader).
fn rdc_shared(src: &'static str, target: &'static str) -> std::path::PathBuf {
    let mut b = Build::new(src, &[target], Output::CodeObject);
    b.rdc = true;
    b.extra.push("-fvisibility=default");
    link_shared(&[b.build()])
}

#[test]
fn kernels_calling_an_uninstrumented_library_object_are_exact() {
    let mut done = 0;
    let mut failed = Vec::new();
    for case in lathe_cases::all()
        .into_iter()
        .filter(|c| c.name.starts_with("devlib_"))
    {
        for target in ["gfx90a", "gfx942"] {
            if !case.targets.contains(&target) {
                continue;
            }
            assert_eq!(
                case.sources.len(),
                2,
                "{}: library and main sources",
                case.name
            );
            let lib = std::fs::read(rdc_shared(case.sources[0], target)).expect("library object");
            let main = std::fs::read(rdc_shared(case.sources[1], target)).expect("kernel object");
            let agent: lathe_bundle::TargetId = target.parse().expect("target");
            let opts = Options {
                threads: 1,
                ..Options::default()
            };
            let (args, shape) = (args_of(&case), shape_of(&case));
            let base = Session::load(agent, &[&lib, &main]).expect("load both");
            let (_r, bufs) = base
                .launch(case.kernel, shape, &args, &opts)
                .expect("uninstrumented run");
            let want = outputs(&base, &case, &bufs);
            for tool in Tool::ALL {
                let what = format!("{} {target} {}", case.name, tool.name());
                let ro = lathe_dbi_run::builtin::RunOptions {
                    record: true,
                    force_lane_mode: false,
                    trace_capacity: None,
                };
                let (run, b) = match lathe_dbi_run::builtin::run(
                    agent,
                    &[&lib, &main],
                    case.kernel,
                    tool,
                    shape,
                    &args,
                    &opts,
                    &ro,
                ) {
                    Ok(x) => x,
                    Err(e) => {
                        failed.push(format!("{what}: {e}"));
                        continue;
                    }
                };
                // The library was not touched.
                assert!(
                    b.program.function("_Z11devlib_hashj").is_none(),
                    "{what}: the library's functions are not in the instrumented object"
                );
                let got = outputs(&run.session, &case, &run.buffers);
                if got != want {
                    failed.push(format!("{what}: outputs differ"));
                    continue;
                }
                let gt = run.ground_truth.as_ref().expect("ground truth");
                let r = &run.result;
                let ok = match tool {
                    Tool::InstrCount => {
                        let gw: u64 = gt.values().map(|c| c.waves).sum();
                        let gl: u64 = gt.values().map(|c| c.lanes).sum();
                        r["wave_instructions"].as_u64() == Some(gw)
                            && r["thread_instructions"].as_u64() == Some(gl)
                    }
                    Tool::BlockCount => r["blocks"].as_array().is_some_and(|bs| {
                        bs.iter().all(|blk| {
                            let start = blk["start"].as_u64().unwrap_or(0);
                            blk["count"].as_u64() == Some(gt.get(&start).map_or(0, |c| c.waves))
                        })
                    }),
                    Tool::MemTrace => {
                        let t = run.trace.as_ref().expect("trace");
                        let pcs: std::collections::BTreeSet<u64> =
                            b.sites.iter().map(|s| s.pc).collect();
                        let mut want: Vec<(u64, u8, u64)> = run
                            .ground_truth_accesses
                            .clone()
                            .unwrap_or_default()
                            .into_iter()
                            .filter(|a| pcs.contains(&a.0))
                            .collect();
                        want.sort_unstable();
                        let mut got: Vec<(u64, u8, u64)> =
                            t.events.iter().map(|e| (e.pc, e.lane, e.addr)).collect();
                        got.sort_unstable();
                        t.dropped == 0 && got == want && !got.is_empty()
                    }
                    _ => true,
                };
                if ok {
                    done += 1;
                } else {
                    failed.push(format!("{what}: counts differ from the ground truth: {r}"));
                }
            }
        }
    }
    for f in &failed {
        eprintln!("  {f}");
    }
    eprintln!("cross-object: {done} runs exact");
    assert!(failed.is_empty(), "{} failed", failed.len());
    assert!(done > 0);
}

/// A kernel calling, in another code object, a function that clobbers
/// every caller-saved register the convention lets it (VGPRs above the
/// kernel's, SGPRs s10..s25): the probes' registers must survive the
/// calls, so the counts stay exact and the outputs right.
#[test]
fn probe_registers_survive_calls_into_another_object() {
    use lathe_emu::launch::{Arg, Fill};
    use lathe_emu::session::Shape;
    const N: u32 = 200;
    let shape = Shape {
        grid: [256, 1, 1],
        block: [64, 1, 1],
        dims: 1,
        dynamic_lds: 0,
    };
    let args = vec![
        Arg::Buffer {
            name: "out".into(),
            size: 4 * 256,
            fill: Fill::Bytes(vec![0; 4 * 256]),
            output: None,
        },
        Arg::Scalar {
            ty: "i32".into(),
            bytes: (N as i32).to_le_bytes().to_vec(),
        },
    ];
    let reference: Vec<u8> = (0..256i32)
        .flat_map(|i| {
            let v = if i < N as i32 {
                (i * 3 + 1) + 5 * ((i + 7) * 3 + 1)
            } else {
                0
            };
            v.to_le_bytes()
        })
        .collect();
    for target in ["gfx90a", "gfx942"] {
        let lib = hip_shared("ext_lib.hip", target);
        let main = hip_shared("ext_main.hip", target);
        let agent: lathe_bundle::TargetId = target.parse().expect("target");
        let opts = Options {
            threads: 1,
            ..Options::default()
        };
        let base = Session::load(agent, &[&lib, &main]).expect("load");
        let (_r, bufs) = base.launch("ext_calls", shape, &args, &opts).expect("run");
        assert_eq!(
            base.download(bufs[0].addr, bufs[0].size).expect("out"),
            reference
        );
        for (tool, lanes) in Tool::ALL
            .iter()
            .map(|t| (*t, false))
            .chain([(Tool::BlockCount, true)])
        {
            let what = format!(
                "{target} {}{}",
                tool.name(),
                if lanes { " (lane mode)" } else { "" }
            );
            let ro = lathe_dbi_run::builtin::RunOptions {
                record: true,
                force_lane_mode: lanes,
                trace_capacity: None,
            };
            let (run, _b) = lathe_dbi_run::builtin::run(
                agent,
                &[&lib, &main],
                "ext_calls",
                tool,
                shape,
                &args,
                &opts,
                &ro,
            )
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            let got = run
                .session
                .download(run.buffers[0].addr, run.buffers[0].size)
                .expect("out");
            assert_eq!(got, reference, "{what}: outputs");
            let gt = run.ground_truth.as_ref().expect("ground truth");
            let r = &run.result;
            match tool {
                Tool::InstrCount => {
                    let gw: u64 = gt.values().map(|c| c.waves).sum();
                    let gl: u64 = gt.values().map(|c| c.lanes).sum();
                    assert_eq!(r["wave_instructions"].as_u64(), Some(gw), "{what}");
                    assert_eq!(r["thread_instructions"].as_u64(), Some(gl), "{what}");
                }
                Tool::BlockCount => {
                    for blk in r["blocks"].as_array().expect("blocks") {
                        let start = blk["start"].as_u64().expect("start");
                        let want = gt.get(&start).map_or(0, |c| c.waves);
                        assert_eq!(blk["count"].as_u64(), Some(want), "{what} {start:#x}");
                    }
                }
                Tool::MemTrace => {
                    let t = run.trace.as_ref().expect("trace");
                    assert_eq!(t.reserved, t.records + t.dropped, "{what}");
                    assert!(!t.events.is_empty(), "{what}");
                }
                _ => {}
            }
        }
    }
}

//! The dispatch watchdog on a real kernel that never ends (clang-22 -O3,
//! gfx90a): the dispatch stops near its time limit and names, for each
//! unfinished wave, its PC, the instruction there and the wave-instructions
//! it executed.

use std::time::{Duration, Instant};

use lathe_emu::interp::Stop;
use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::{DispatchError, Options};
use lathe_emu::session::{Session, Shape};
use lathe_testkit::{Build, Output};

fn zeroed(name: &str, size: u64) -> Arg {
    Arg::Buffer {
        name: name.into(),
        size,
        fill: Fill::Zero,
        output: None,
    }
}

#[test]
fn an_endless_kernel_stops_at_the_watchdog_and_reports_each_wave() {
    let co = std::fs::read(Build::new("bench_emu.hip", &["gfx90a"], Output::CodeObject).build())
        .expect("code object");
    let s = Session::load("gfx90a".parse().expect("target"), &[&co]).expect("load");
    // 8 work-groups of two waves; each thread runs one group at a time.
    let limit = Duration::from_millis(700);
    let opts = Options {
        threads: 2,
        timeout: Some(limit),
        ..Options::default()
    };
    let t = Instant::now();
    let err = s
        .launch(
            "_Z12spin_foreverPjPVKj",
            Shape::linear(1024, 128),
            &[zeroed("out", 4096), zeroed("stop", 4)],
            &opts,
        )
        .expect_err("the kernel never ends");
    let took = t.elapsed();
    assert!(took >= limit, "stopped after {took:?}, before the limit");
    assert!(
        took < limit + Duration::from_secs(5),
        "stopped only after {took:?}"
    );
    let text = err.to_string();
    let lathe_emu::session::SessionError::Dispatch(DispatchError::Stopped { stop, .. }) = err
    else {
        panic!("not a dispatch stop: {text}");
    };
    let Stop::Timeout {
        limit: got_limit,
        waves,
        not_started,
    } = stop
    else {
        panic!("not a watchdog stop: {text}");
    };
    assert_eq!(got_limit, limit);
    // Two threads, each in one group of two waves; the other six groups
    // never started.
    assert_eq!(waves.len(), 4, "{text}");
    assert_eq!(not_started, 6, "{text}");
    let loop_body = [
        "v_pk_mov_b32",
        "v_mov_b32",
        "flat_load_dword",
        "s_waitcnt",
        "v_mul_lo_u32",
        "v_add_u32",
        "v_cmp_ne_u32",
        "s_or_b64",
        "s_andn2_b64",
        "s_cbranch_execnz",
    ];
    let lo = waves.iter().map(|w| w.pc).min().expect("waves");
    let hi = waves.iter().map(|w| w.pc).max().expect("waves");
    // The loop is 0x30 bytes long: every wave is inside it.
    assert!(hi - lo <= 0x30, "{text}");
    for w in &waves {
        let mnemonic = w.inst.split_whitespace().next().unwrap_or("");
        let base = mnemonic.trim_end_matches("_e32").trim_end_matches("_e64");
        assert!(loop_body.contains(&base), "{w} is not in the loop");
        assert!(w.instructions > 10_000, "{w}");
        assert!(!w.at_barrier);
        assert!(
            text.contains(&format!("pc {:#x} `{}`", w.pc, w.inst)),
            "{text}"
        );
    }
    assert!(text.contains("watchdog"), "{text}");
}

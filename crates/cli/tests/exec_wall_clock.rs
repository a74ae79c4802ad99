//! `wall_clock64()` under `lathe exec` (issue 20, item 2; decision D21), on
//! a hipcc-built program (`tests/exec/wall_clock.hip`): a kernel spinning
//! on `wall_clock64()` (`s_memrealtime`) for N ms at the real-time clock's
//! rate ends after N ms of emulated work, which the shader clock
//! (`clock64()`, at the `clockRate` the runtime reports) measures as the
//! same N ms; the iteration count does not depend on the emulator's thread
//! count; and `hipEventElapsedTime` around the launch brackets it.
//!
//! ROCm 5.2's HIP has no `hipDeviceAttributeWallClockRate` yet, so the
//! program is given the rate Lathe's runtime documents for it
//! ([`REALTIME_CLOCK_HZ`]); the test checks that this rate and the
//! reported `clockRate` describe the same time.

use lathe_emu::clock::{CYCLES_PER_INSTRUCTION, REALTIME_CLOCK_HZ, SHADER_CLOCK_HZ};

mod common;
use common::{exec_app, have_hipcc, hip_app};

#[derive(Debug)]
struct Rec {
    w0: i64,
    w1: i64,
    cycles: i64,
    iters: i64,
}

struct Run {
    clock_rate_khz: i64,
    event_ms: f64,
    host_ms: f64,
    recs: Vec<Rec>,
}

fn run(threads: u32, ms: u32, blocks: u32) -> Run {
    let app = hip_app("lathe-wall-clock", "wall_clock", &["libhsa_runtime64.so"]);
    let (out, host_ms) = exec_app(
        &app,
        threads,
        &[
            (REALTIME_CLOCK_HZ / 1000).to_string(),
            ms.to_string(),
            blocks.to_string(),
        ],
    );
    let mut r = Run {
        clock_rate_khz: -1,
        event_ms: -1.0,
        host_ms,
        recs: Vec::new(),
    };
    for l in out.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        let num = |i: usize| -> i64 { w[i].parse().unwrap_or_else(|_| panic!("{l}")) };
        match w.first() {
            Some(&"clockRate_khz") => r.clock_rate_khz = num(1),
            Some(&"event_ms") => r.event_ms = w[1].parse().expect("event time"),
            Some(&"rec") => r.recs.push(Rec {
                w0: num(3),
                w1: num(5),
                cycles: num(7),
                iters: num(9),
            }),
            _ => {}
        }
    }
    assert_eq!(r.recs.len(), blocks as usize, "{out}");
    r
}

fn check(r: &Run, ms: u32) {
    assert_eq!(r.clock_rate_khz as u64, SHADER_CLOCK_HZ / 1000);
    let want_ticks = (REALTIME_CLOCK_HZ / 1000) as i64 * ms as i64;
    // Shader cycles per real-time tick.
    let ratio = (SHADER_CLOCK_HZ / REALTIME_CLOCK_HZ) as i64;
    for x in &r.recs {
        let ticks = x.w1 - x.w0;
        // The loop exits at the first read at or past the target; one
        // iteration is a few instructions, a few ticks at most.
        assert!(
            ticks >= want_ticks && ticks <= want_ticks + 4,
            "{x:?}: spun {ticks} ticks for a {want_ticks}-tick spin"
        );
        // clock64() over the same spin shows the same time at clockRate:
        // N ms x clockRate cycles, up to the instructions between the two
        // clocks' reads and the real-time clock's rounding.
        let slack = ratio + 8 * CYCLES_PER_INSTRUCTION as i64;
        assert!(
            (x.cycles - ticks * ratio).abs() <= slack,
            "{x:?}: {} shader cycles for {ticks} real-time ticks (x{ratio})",
            x.cycles
        );
        // Each iteration is several wave-instructions of this wave's own
        // work: bounded by the work a GPU does in N ms.
        let max_iters = x.cycles / CYCLES_PER_INSTRUCTION as i64;
        assert!(
            x.iters > max_iters / 40 && x.iters < max_iters,
            "{x:?}: {} iterations for {max_iters} wave-instructions",
            x.iters
        );
    }
    // Events are host time around the launch: no shorter than the N ms of
    // device time (the emulator runs the 4 x 850,000 wave-instructions of
    // a 2 ms spin far slower than a GPU), no longer than the whole run.
    assert!(
        r.event_ms >= ms as f64 && r.event_ms <= r.host_ms,
        "event {} ms for a {ms} ms spin in a {:.0} ms run",
        r.event_ms,
        r.host_ms
    );
}

#[test]
fn a_wall_clock_spin_ends_after_its_time_and_agrees_with_clock64_and_events() {
    if !have_hipcc() {
        return;
    }
    let (ms, blocks) = (2, 4);
    let one = run(1, ms, blocks);
    check(&one, ms);
    let two = run(2, ms, blocks);
    check(&two, ms);
    // A wave's clock starts at the device clock (the latest any wave read,
    // crate lathe_emu::clock), which with two host threads depends on what
    // the other thread's waves had read: the spin's start falls at another
    // phase of a real-time tick (17 shader cycles), which moves its end by
    // at most one iteration. More than that would be a clock that depends on
    // the host.
    for (a, b) in one.recs.iter().zip(&two.recs) {
        assert!(
            (a.iters - b.iters).abs() <= 1,
            "iterations on 1 and 2 threads: {a:?} and {b:?}"
        );
    }
}

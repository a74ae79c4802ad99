//! The device clocks under `lathe exec` (issue 20, decision D21), on a
//! hipcc-built program (`tests/exec/clock.hip`): a kernel spinning on
//! `clock64()` for N ms of device time (`clockRate` × N cycles, as HIP
//! programs compute it) ends after N ms of emulated work, each wave
//! measuring its own work whatever the emulator's thread count; the
//! real-time clock (`s_memrealtime`) shows the same time at 100 MHz; the
//! runtime reports the shader clock's rate as `clockRate`; the device clock
//! never runs backwards from one launch to the next; and events around
//! the launch report a time.

use lathe_emu::clock::{CYCLES_PER_INSTRUCTION, REALTIME_CLOCK_HZ, SHADER_CLOCK_HZ};

mod common;
use common::{exec_app, have_hipcc, hip_app};

#[derive(Debug)]
struct Rec {
    launch: usize,
    start: i64,
    end: i64,
    real: i64,
    iters: i64,
}

struct Run {
    clock_rate_khz: i64,
    instruction_rate_khz: i64,
    events_ms: Vec<f64>,
    recs: Vec<Rec>,
}

fn run(threads: u32, ms: u32, blocks: u32) -> Run {
    let app = hip_app("lathe-device-clock", "clock", &["libhsa_runtime64.so"]);
    let (out, host_ms) = exec_app(&app, threads, &[ms.to_string(), blocks.to_string()]);
    eprintln!(
        "{threads} thread(s), {blocks} work-groups spinning {ms} ms: {:.2} s of host time",
        host_ms / 1e3
    );
    let mut r = Run {
        clock_rate_khz: -1,
        instruction_rate_khz: -1,
        events_ms: Vec::new(),
        recs: Vec::new(),
    };
    for l in out.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        let num = |i: usize| -> i64 { w[i].parse().unwrap_or_else(|_| panic!("{l}")) };
        match w.first() {
            Some(&"launch") => r.events_ms.push(w[3].parse().expect("event time")),
            Some(&"clockRate_khz") => {
                r.clock_rate_khz = num(1);
                r.instruction_rate_khz = num(3);
            }
            Some(&"rec") => r.recs.push(Rec {
                launch: num(1) as usize,
                start: num(4),
                end: num(6),
                real: num(8),
                iters: num(10),
            }),
            _ => {}
        }
    }
    assert_eq!(r.recs.len(), 2 * blocks as usize, "{out}");
    r
}

fn check(r: &Run, ms: u32) {
    // The runtime reports the emulated shader clock's rate.
    assert_eq!(r.clock_rate_khz as u64, SHADER_CLOCK_HZ / 1000);
    // HIP 5.2 takes clockInstructionRate from the HSA system timestamp
    // frequency (1 GHz, as ROCr reports it on hardware).
    assert_eq!(r.instruction_rate_khz, 1_000_000);
    let want = r.clock_rate_khz * ms as i64;
    for x in &r.recs {
        let spun = x.end - x.start;
        // The loop exits at the first read at or past the target: a few
        // instructions (one loop iteration plus the final read) past it.
        assert!(
            spun >= want && spun < want + 64 * CYCLES_PER_INSTRUCTION as i64,
            "{x:?}: spun {spun} cycles for a {want}-cycle spin"
        );
        // The real-time clock: the same time at 100 MHz.
        let real_s = x.real as f64 / REALTIME_CLOCK_HZ as f64;
        let shader_s = spun as f64 / SHADER_CLOCK_HZ as f64;
        assert!(
            (real_s - shader_s).abs() < 1e-6 + shader_s * 1e-3,
            "{x:?}: real-time {real_s} s against shader {shader_s} s"
        );
        // Each iteration is several instructions of this wave's own work,
        // so the count is bounded by the work a GPU would do in N ms.
        let max_iters = want / CYCLES_PER_INSTRUCTION as i64;
        assert!(
            x.iters > max_iters / 40 && x.iters < max_iters,
            "{x:?}: {} iterations for {max_iters} wave-instructions",
            x.iters
        );
    }
    // The second launch's waves start no earlier than the first's ended.
    let end0 = r.recs.iter().filter(|x| x.launch == 0).map(|x| x.end).max();
    let start1 = r
        .recs
        .iter()
        .filter(|x| x.launch == 1)
        .map(|x| x.start)
        .min();
    assert!(
        start1 >= end0,
        "launch 1 starts at {start1:?} before launch 0 ended at {end0:?}"
    );
    for e in &r.events_ms {
        assert!(e.is_finite() && *e > 0.0, "event time {e}");
    }
}

#[test]
fn a_timed_spin_ends_after_its_device_time_on_any_thread_count() {
    if !have_hipcc() {
        return;
    }
    let (ms, blocks) = (2, 4);
    let one = run(1, ms, blocks);
    check(&one, ms);
    let two = run(2, ms, blocks);
    check(&two, ms);
    // Each wave measures its own work: the iteration counts do not depend
    // on how the emulator interleaves waves.
    let iters = |r: &Run| r.recs.iter().map(|x| x.iters).collect::<Vec<_>>();
    assert_eq!(iters(&one), iters(&two));
    assert!(
        iters(&one).windows(2).all(|w| w[0] == w[1]),
        "{:?}",
        iters(&one)
    );
}

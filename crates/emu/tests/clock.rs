//! The device clock model (`lathe_emu::clock`): a wave's shader clock is
//! its start plus 4 cycles per wave-instruction it has executed, the real-
//! time clock is the same time at 100 MHz, and the device clock a new wave
//! starts from is the latest any wave has read (monotonic across waves).
//! A spin for N ms of device time therefore ends after
//! N ms × 1.7 GHz / 4 wave-instructions, whatever the host's speed.

use lathe_emu::clock::{
    memrealtime, memtime, CYCLES_PER_INSTRUCTION, REALTIME_CLOCK_HZ, SHADER_CLOCK_HZ,
};
use lathe_emu::wave::Wave;

#[test]
fn a_wave_clock_counts_its_own_work() {
    let mut w = Wave::new(0, [0; 3], 0);
    let t0 = memtime(w.clock_base, w.instructions);
    assert_eq!(t0, w.clock_base);
    // 20 ms of device time in wave-instructions.
    let n = SHADER_CLOCK_HZ / 50 / CYCLES_PER_INSTRUCTION;
    w.instructions = n;
    let t1 = memtime(w.clock_base, w.instructions);
    assert_eq!(t1 - t0, n * 4);
    let ms = (t1 - t0) as f64 * 1e3 / SHADER_CLOCK_HZ as f64;
    assert!((ms - 20.0).abs() < 1e-6, "{ms} ms");
    // The real-time clock advances by the same time at its own rate.
    let r1 = memrealtime(w.clock_base, w.instructions);
    w.instructions = 0;
    w.clock_base = t0;
    let r0 = memrealtime(w.clock_base, w.instructions);
    let real_ms = (r1 - r0) as f64 * 1e3 / REALTIME_CLOCK_HZ as f64;
    assert!((real_ms - 20.0).abs() < 1e-3, "{real_ms} ms");
}

#[test]
fn a_new_wave_starts_where_the_device_clock_is() {
    let mut a = Wave::new(0, [0; 3], 0);
    a.instructions = 1000;
    let ta = memtime(a.clock_base, a.instructions);
    let b = Wave::new(0, [1, 0, 0], 0);
    assert!(b.clock_base >= ta, "{} < {ta}", b.clock_base);
    assert!(memtime(b.clock_base, b.instructions) >= ta);
}

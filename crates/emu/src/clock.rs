//! The device clocks, as emulated work: `s_memtime` (`clock64()`) and
//! `s_memrealtime` (`wall_clock64()`).
//!
//! The model: a wave's shader clock advances [`CYCLES_PER_INSTRUCTION`]
//! cycles per wave-instruction it executes (a wave64 VALU instruction
//! occupies a SIMD16 for 4 cycles on GFX9/CDNA), from the device clock at
//! the wave's start ([`crate::wave::Wave::clock_base`]). Waves run concurrently on
//! hardware, so each measures its own work, not the emulator's
//! interleaving. The device clock ([`device_cycles`]) is the latest clock
//! any wave has read, so reads are monotonic from one dispatch to the next.
//! The real-time clock is the same time at [`REALTIME_CLOCK_HZ`].
//!
//! So a kernel that spins on `clock64()` until `clockRate` × N ms cycles
//! have passed stops after N ms × [`SHADER_CLOCK_HZ`] / 4 wave-instructions
//! of its own, the work a GPU would do in N ms; it does not depend on how
//! fast the host runs, and a single-threaded run is deterministic.
//!
//! The runtime reports the same frequencies: `clockRate` (and the agent's
//! maximum clock) is [`SHADER_CLOCK_HZ`], `hipDeviceAttributeWallClockRate`
//! and the `s_memrealtime` frequency are [`REALTIME_CLOCK_HZ`].

use std::sync::atomic::{AtomicU64, Ordering};

/// The shader clock's frequency (`s_memtime`, `clock64()`), in Hz: what
/// the runtime reports as the device's `clockRate`.
pub const SHADER_CLOCK_HZ: u64 = 1_700_000_000;

/// The real-time clock's frequency (`s_memrealtime`, `wall_clock64()`), in
/// Hz: the 100 MHz reference clock of GFX9 parts, what the runtime reports
/// as `hipDeviceAttributeWallClockRate` (in kHz: 100,000).
pub const REALTIME_CLOCK_HZ: u64 = 100_000_000;

/// Shader-clock cycles per wave-instruction executed.
pub const CYCLES_PER_INSTRUCTION: u64 = 4;

/// The latest shader-clock value any wave has read.
static DEVICE: AtomicU64 = AtomicU64::new(0);

/// The device's shader clock now: where a starting wave's clock begins.
pub fn device_cycles() -> u64 {
    DEVICE.load(Ordering::Relaxed)
}

/// `s_memtime`: the shader clock of a wave that started at `clock_base`
/// and has run `instructions` (and the device clock catches up with it).
pub fn memtime(clock_base: u64, instructions: u64) -> u64 {
    let t = clock_base.wrapping_add(instructions.wrapping_mul(CYCLES_PER_INSTRUCTION));
    DEVICE.fetch_max(t, Ordering::Relaxed);
    t
}

/// `s_memrealtime`: the same wave's time on the real-time clock.
pub fn memrealtime(clock_base: u64, instructions: u64) -> u64 {
    let t = memtime(clock_base, instructions);
    // t * REALTIME / SHADER without overflow for any u64 t.
    ((u128::from(t) * u128::from(REALTIME_CLOCK_HZ)) / u128::from(SHADER_CLOCK_HZ)) as u64
}

//! The process-wide interrupt flag: a signal handler sets it and every
//! running dispatch stops at its next watchdog check. Re-exported by
//! [`crate::run`].

use std::sync::atomic::{AtomicI32, Ordering};

/// The signal that interrupted the process (0: none), set by
/// [`interrupt`].
static INTERRUPT: AtomicI32 = AtomicI32::new(0);

/// Stops every running and later dispatch of this process with
/// [`crate::interp::Stop::Interrupted`] at its next watchdog check (within a few thousand
/// wave-instructions), naming where each unfinished wave was. Only an
/// atomic store: safe to call from a signal handler.
pub fn interrupt(signal: i32) {
    INTERRUPT.store(signal.max(1), Ordering::Relaxed);
}

/// The signal given to [`interrupt`], if it was called.
pub fn interrupted() -> Option<i32> {
    match INTERRUPT.load(Ordering::Relaxed) {
        0 => None,
        s => Some(s),
    }
}

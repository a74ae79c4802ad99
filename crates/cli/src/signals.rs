//! SIGINT and SIGTERM for the commands that run kernels.
//!
//! * `lathe run` ([`stop_emulator_on_signal`]): the first signal stops the
//!   dispatch at its next watchdog check (`lathe_emu::run::interrupt`), so
//!   the command reports where the waves were, writes its `out=` files and
//!   exits 128 + the signal; a second one ends the process at once.
//! * `lathe exec` ([`forward_to_child`]): each signal is passed on to the
//!   program (whose runtime reports and writes its outputs); a second
//!   one, a second or more later, kills the program.
//!
//! The handlers only use atomics and async-signal-safe calls (`kill`,
//! `signal`, `raise`, `clock_gettime`).

use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};

/// The first signal received (0: none).
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// When it arrived (CLOCK_MONOTONIC, ns).
static SIGNAL_AT: AtomicU64 = AtomicU64::new(0);
/// The program `lathe exec` runs (0: none, or `lathe run`).
static CHILD: AtomicI32 = AtomicI32::new(0);

fn now_ns() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a writable timespec; clock_gettime is
    // async-signal-safe and CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

extern "C" fn on_signal(sig: libc::c_int) {
    let now = now_ns();
    let first = SIGNAL.compare_exchange(0, sig, Ordering::AcqRel, Ordering::Acquire);
    let child = CHILD.load(Ordering::Acquire);
    match first {
        Ok(_) => {
            SIGNAL_AT.store(now, Ordering::Release);
            if child > 0 {
                // SAFETY: kill(2) is async-signal-safe; `child` is our
                // child's pid, not reaped before CHILD is cleared.
                unsafe { libc::kill(child, sig) };
            } else {
                lathe_emu::run::interrupt(sig);
            }
        }
        Err(_) => {
            // The same event delivered twice (a terminal's Ctrl-C reaches
            // the whole process group) is not a second request.
            if now.saturating_sub(SIGNAL_AT.load(Ordering::Acquire)) < 1_000_000_000 {
                return;
            }
            if child > 0 {
                // SAFETY: as above.
                unsafe { libc::kill(child, libc::SIGKILL) };
            } else {
                // SAFETY: signal(2) and raise(3) are async-signal-safe; the
                // default disposition ends the process.
                unsafe {
                    libc::signal(sig, libc::SIG_DFL);
                    libc::raise(sig);
                }
            }
        }
    }
}

fn install() {
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: sigaction with a handler that only touches atomics and
        // async-signal-safe calls; SA_RESTART keeps the main thread's
        // blocking calls (waitpid, reads) going.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(sig, std::ptr::null(), &mut old) != 0
                || old.sa_sigaction == libc::SIG_IGN
            {
                // An ignored signal (a background job of a shell) stays
                // ignored.
                continue;
            }
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

/// `lathe run`: a signal stops the emulator (see the module docs).
pub fn stop_emulator_on_signal() {
    install();
}

/// `lathe exec`: signals go to `pid` from now on.
pub fn forward_to_child(pid: u32) {
    CHILD.store(pid as i32, Ordering::Release);
    install();
}

/// The child was reaped: nothing to forward to any more.
pub fn child_gone() {
    CHILD.store(0, Ordering::Release);
}

/// The first signal received, if any.
pub fn received() -> Option<i32> {
    match SIGNAL.load(Ordering::Acquire) {
        0 => None,
        s => Some(s),
    }
}

/// When the first signal arrived, as a CLOCK_MONOTONIC reading, and now.
pub fn since_signal() -> Option<std::time::Duration> {
    received()?;
    Some(std::time::Duration::from_nanos(
        now_ns().saturating_sub(SIGNAL_AT.load(Ordering::Acquire)),
    ))
}

/// `SIGINT`, `SIGTERM`, else `signal N`.
pub fn name(sig: i32) -> String {
    match sig {
        libc::SIGINT => "SIGINT".into(),
        libc::SIGTERM => "SIGTERM".into(),
        libc::SIGHUP => "SIGHUP".into(),
        libc::SIGKILL => "SIGKILL".into(),
        libc::SIGPIPE => "SIGPIPE".into(),
        libc::SIGSEGV => "SIGSEGV".into(),
        libc::SIGABRT => "SIGABRT".into(),
        s => format!("signal {s}"),
    }
}

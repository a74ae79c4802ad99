//! SIGINT and SIGTERM: the running dispatch stops and reports where its
//! waves were, the output files (`LATHE_STATS_JSON`, tools' outputs) are
//! written marked incomplete, then the process dies of the signal as it
//! would have without Lathe (so the parent sees the same status).
//!
//! The handler only stores atomics and writes one byte to a pipe; a
//! watcher thread does the rest. Handlers are installed at the first
//! `hsa_init` for signals whose disposition is still the default (a
//! program's own handler, or an ignored signal, is left alone). The same
//! signal again within a second is the same event delivered twice (a
//! terminal's Ctrl-C reaches `lathe exec` and the program, and `lathe
//! exec` forwards it); later, it ends the process at once.

use std::sync::atomic::{AtomicI32, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::rt::now_ticks;

/// The first signal received (0: none).
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// When it arrived (`now_ticks`).
static SIGNAL_AT: AtomicU64 = AtomicU64::new(0);
/// The pipe's write end (-1: not installed).
static PIPE_W: AtomicI32 = AtomicI32::new(-1);
/// Dispatches running on the emulator now.
static ACTIVE: AtomicUsize = AtomicUsize::new(0);

/// How long the watcher waits for running dispatches to stop and report.
const STOP_WAIT: Duration = Duration::from_secs(10);

extern "C" fn on_signal(sig: libc::c_int) {
    let now = now_ticks();
    if let Err(first) = SIGNAL.compare_exchange(0, sig, Ordering::AcqRel, Ordering::Acquire) {
        let at = SIGNAL_AT.load(Ordering::Acquire);
        if first == sig && now.saturating_sub(at) < 1_000_000_000 {
            return;
        }
        // SAFETY: signal(2) and raise(3) are async-signal-safe; the default
        // disposition ends the process.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
        return;
    }
    SIGNAL_AT.store(now, Ordering::Release);
    lathe_emu::run::interrupt(sig);
    let fd = PIPE_W.load(Ordering::Acquire);
    if fd >= 0 {
        let b = [0u8; 1];
        // SAFETY: write(2) is async-signal-safe; `b` is one readable byte.
        unsafe { libc::write(fd, b.as_ptr() as *const libc::c_void, 1) };
    }
}

/// Installs the handlers (once).
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let mut fds = [-1; 2];
        // SAFETY: `fds` is two writable ints.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return;
        }
        let read = fds[0];
        if std::thread::Builder::new()
            .name("lathe-hsa-signals".into())
            .spawn(move || watch(read))
            .is_err()
        {
            return;
        }
        PIPE_W.store(fds[1], Ordering::Release);
        for sig in [libc::SIGINT, libc::SIGTERM] {
            // SAFETY: sigaction with zeroed structs reads the current
            // disposition; the new one names a handler that only touches
            // atomics and async-signal-safe calls.
            unsafe {
                let mut old: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, std::ptr::null(), &mut old) != 0
                    || old.sa_sigaction != libc::SIG_DFL
                {
                    continue;
                }
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                sa.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut sa.sa_mask);
                libc::sigaction(sig, &sa, std::ptr::null_mut());
            }
        }
    });
}

fn watch(fd: i32) {
    let mut b = [0u8; 1];
    loop {
        // SAFETY: `fd` is the pipe's read end, owned by this thread; `b` is
        // one writable byte.
        let n = unsafe { libc::read(fd, b.as_mut_ptr() as *mut libc::c_void, 1) };
        if n == 1 {
            break;
        }
        if n == 0 {
            return;
        }
    }
    let sig = SIGNAL.load(Ordering::Acquire);
    // The running dispatches stop at their next watchdog check and report.
    let until = Instant::now() + STOP_WAIT;
    REPORTING.store(ACTIVE.load(Ordering::Acquire) > 0, Ordering::Release);
    while ACTIVE.load(Ordering::Acquire) > 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
    let name = crate::report::signal_name(sig);
    if !waited_for_any(until) {
        eprintln!("lathe: {name} while no kernel was running");
    }
    if ACTIVE.load(Ordering::Acquire) > 0 {
        eprintln!(
            "lathe: {name}: the running kernel did not stop within {} s",
            STOP_WAIT.as_secs()
        );
    }
    crate::rt::finish_incomplete(&format!("interrupted by {name}"));
    // SAFETY: restoring the default disposition and raising ends the
    // process as the signal would have; `_exit` is the fallback.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
        libc::_exit(128 + sig);
    }
}

/// Whether a dispatch was running when the signal was handled.
static REPORTING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn waited_for_any(_until: Instant) -> bool {
    REPORTING.load(Ordering::Acquire)
}

/// Counts a dispatch as running until the guard drops.
pub fn running() -> Running {
    ACTIVE.fetch_add(1, Ordering::AcqRel);
    Running(())
}

/// A running dispatch ([`running`]).
#[derive(Debug)]
pub struct Running(());

impl Drop for Running {
    fn drop(&mut self) {
        ACTIVE.fetch_sub(1, Ordering::AcqRel);
    }
}

/// After reporting an interrupted dispatch: the watcher thread ends the
/// process; this thread runs nothing more.
pub fn park_forever(r: Running) -> ! {
    drop(r);
    loop {
        std::thread::park();
    }
}

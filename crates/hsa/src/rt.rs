//! Process-wide runtime state: configuration, device memory, the agents'
//! handles, the allocation table and the "bell" every waiter sleeps on.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use lathe_emu::mem::DeviceMemory;

use crate::ffi::{self, Agent, Handle, Status};

pub const AGENT_CPU: u64 = 0x4c41_5448_0001;
pub const AGENT_GPU: u64 = 0x4c41_5448_0002;
pub const POOL_CPU_FINE: u64 = 0x4c41_5450_0001;
pub const POOL_CPU_COARSE: u64 = 0x4c41_5450_0002;
pub const POOL_GPU_COARSE: u64 = 0x4c41_5450_0011;
pub const POOL_GPU_FINE: u64 = 0x4c41_5450_0012;
pub const POOL_GPU_GROUP: u64 = 0x4c41_5450_0013;
pub const ISA_GPU: u64 = 0x4c41_5449_0001;

pub use crate::model::GpuModel;

/// What an allocation in the table is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocKind {
    /// From a memory pool.
    Pool(u64),
    /// Host memory locked (registered) for device access, with a count.
    Locked(u32),
}

/// One entry of the allocation table (keyed by host address).
#[derive(Debug, Clone, Copy)]
pub struct Alloc {
    pub size: u64,
    pub kind: AllocKind,
    pub user_data: u64,
    /// Device address: the host address, except for locked host memory,
    /// which the GPU sees at an alias in reserved address space (as a
    /// discrete GPU maps it into its own range; HIP 5.2 relies on the two
    /// differing).
    pub device: u64,
}

pub use crate::profile::LaunchStat;

/// The runtime.
#[derive(Debug)]
pub struct Runtime {
    pub mem: DeviceMemory,
    pub gpu: GpuModel,
    pub threads: usize,
    pub allocs: Mutex<BTreeMap<u64, Alloc>>,
    /// Locked host memory: device alias → (host address, size).
    pub aliases: Mutex<BTreeMap<u64, (u64, u64)>>,
    pub stats_line: bool,
    pub stats_json: Option<String>,
    /// `LATHE_KERNEL_TRACE`: the kernel trace's file prefix.
    pub kernel_trace: Option<String>,
    pub stats: Mutex<Vec<LaunchStat>>,
    /// The watchdog per dispatch (`LATHE_TIMEOUT` seconds, 0: none).
    pub timeout: Option<Duration>,
}

static RT: OnceLock<Result<Runtime, String>> = OnceLock::new();
static INIT_COUNT: AtomicU64 = AtomicU64::new(0);

fn build() -> Result<Runtime, String> {
    let gpu = GpuModel::new(&std::env::var("LATHE_TARGET").unwrap_or_else(|_| "gfx90a".into()))?;
    // Resolved once: the emulator would otherwise ask the OS (cgroup
    // files) for the core count on every dispatch.
    let threads = std::env::var("LATHE_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n: &usize| n > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    Ok(Runtime {
        mem: DeviceMemory::new(),
        gpu,
        threads,
        allocs: Mutex::new(BTreeMap::new()),
        aliases: Mutex::new(BTreeMap::new()),
        stats_line: std::env::var_os("LATHE_STATS").is_some(),
        stats_json: std::env::var("LATHE_STATS_JSON").ok(),
        kernel_trace: std::env::var("LATHE_KERNEL_TRACE")
            .ok()
            .filter(|p| !p.is_empty()),
        stats: Mutex::new(Vec::new()),
        timeout: match std::env::var("LATHE_TIMEOUT") {
            Ok(v) => {
                let secs: f64 = v
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s >= 0.0)
                    .ok_or_else(|| format!("LATHE_TIMEOUT={v}: not a number of seconds"))?;
                (secs > 0.0).then(|| Duration::from_secs_f64(secs))
            }
            Err(_) => Some(lathe_emu::run::DEFAULT_TIMEOUT),
        },
    })
}

/// `hsa_init`: builds the runtime on the first call, counts references.
pub fn init() -> Status {
    match RT.get_or_init(build) {
        Ok(_) => {
            if INIT_COUNT.fetch_add(1, Ordering::AcqRel) == 0 {
                static AT_EXIT: std::sync::Once = std::sync::Once::new();
                // SAFETY: registers a plain `extern "C" fn()` to run at exit.
                AT_EXIT.call_once(|| unsafe {
                    libc::atexit(at_exit);
                });
                crate::tools::load();
                crate::interrupt::install();
            }
            ffi::SUCCESS
        }
        Err(e) => {
            // Every HIP call fails after this: say why, always, once.
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| {
                eprintln!("lathe-hsa: error: hsa_init failed: {e} (every HIP call will fail)")
            });
            crate::trace::fail(ffi::ERROR, format!("hsa_init: {e}"))
        }
    }
}

/// `hsa_shut_down`.
pub fn shut_down() -> Status {
    let prev = INIT_COUNT
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
        .unwrap_or(0);
    if prev == 0 {
        return ffi::ERROR_NOT_INITIALIZED;
    }
    if prev == 1 {
        crate::tools::unload();
        flush_stats();
        crate::truth::flush();
    }
    ffi::SUCCESS
}

/// The runtime, if `hsa_init` succeeded and was not undone.
pub fn rt() -> Option<&'static Runtime> {
    if INIT_COUNT.load(Ordering::Acquire) == 0 {
        return None;
    }
    RT.get()?.as_ref().ok()
}

/// The runtime even after shut-down (for threads finishing work).
pub fn rt_any() -> Option<&'static Runtime> {
    RT.get()?.as_ref().ok()
}

/// Locks a mutex, ignoring poisoning (a panicking handler thread must not
/// wedge the runtime).
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether `a` is one of the two agents.
pub fn is_agent(a: Agent) -> bool {
    a.handle == AGENT_CPU || a.handle == AGENT_GPU
}

/// The system timestamp (1 GHz): `CLOCK_MONOTONIC` in nanoseconds, the
/// clock HIP's own host-side event times use, so profiling times and host
/// times can be subtracted from one another.
pub fn now_ticks() -> u64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid, writable timespec; CLOCK_MONOTONIC always
    // exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// Whether launches are measured (`--stats`, `--stats-json`,
/// `--kernel-trace`).
pub fn measuring() -> bool {
    rt_any().is_some_and(|r| r.stats_line || r.stats_json.is_some() || r.kernel_trace.is_some())
}

/// Appends a launch record and prints it when `--stats` is on.
pub fn record_launch(s: LaunchStat) {
    let Some(r) = rt_any() else { return };
    if r.stats_line {
        eprintln!("{}", s.line());
    }
    if r.stats_line || r.stats_json.is_some() || r.kernel_trace.is_some() {
        lock(&r.stats).push(s);
    }
}

/// At process exit (HIP does not call `hsa_shut_down`): tools' `OnUnload`
/// as ROCr's teardown does, and the stats file.
extern "C" fn at_exit() {
    crate::capture::at_exit();
    crate::tools::unload();
    flush_stats();
    crate::truth::flush();
}

/// Why the run ended early, once it did ([`finish_incomplete`]).
static INCOMPLETE: Mutex<Option<String>> = Mutex::new(None);

/// The run ends early (a kernel fault, the watchdog, a signal): writes
/// the output files marked incomplete with `reason` — the stats file, and
/// each tool's (through its `LatheIncomplete`, else its `OnUnload`).
pub fn finish_incomplete(reason: &str) {
    {
        let mut g = lock(&INCOMPLETE);
        if g.is_some() {
            return;
        }
        *g = Some(reason.to_string());
    }
    crate::tools::abandon(reason);
    flush_stats();
    crate::truth::flush();
}

/// Writes `LATHE_STATS_JSON` (at shut-down and at exit): a JSON array of
/// launches, or after an early end `{"incomplete": REASON, "launches":
/// [...]}`; the kernel trace (`LATHE_KERNEL_TRACE`); and, under
/// `--stats`, prints the per-kernel summary (once).
pub extern "C" fn flush_stats() {
    let Some(r) = rt_any() else { return };
    let stats = lock(&r.stats);
    let incomplete = lock(&INCOMPLETE).clone();
    if r.stats_line {
        crate::profile::print_summary_once(&stats);
    }
    if let Some(prefix) = &r.kernel_trace {
        crate::profile::write_trace(prefix, &stats, r.gpu.spec.processor, incomplete.as_deref());
    }
    let Some(path) = &r.stats_json else { return };
    let v: Vec<serde_json::Value> = stats.iter().map(LaunchStat::json).collect();
    let doc = match incomplete.as_deref() {
        Some(why) => serde_json::json!({"incomplete": why, "launches": v}),
        None => serde_json::Value::Array(v),
    };
    let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    if let Err(e) = std::fs::write(path, text + "\n") {
        eprintln!("lathe: cannot write {path}: {e}");
    }
}

/// The bell: every host-side signal change and every finished packet rings
/// it; signal waiters block on it (with a timeout, because device code
/// changes signals without ringing). Ringing costs an atomic increment
/// while nobody sleeps: the lock and the wake-up are only paid when
/// `SLEEPERS` is non-zero (D44).
static BELL: (Mutex<()>, Condvar) = (Mutex::new(()), Condvar::new());
/// Bumped by every ring; a waiter that saw it move does not sleep.
static EPOCH: AtomicU64 = AtomicU64::new(0);
/// Threads blocked (or about to block) on the bell.
static SLEEPERS: AtomicU64 = AtomicU64::new(0);

/// Wakes every waiter.
pub fn ring() {
    // SeqCst against the waiter's SLEEPERS increment and EPOCH load: either
    // the waiter sees this epoch and does not sleep, or this sees it
    // counted and wakes it (it holds the lock from its check to its wait).
    EPOCH.fetch_add(1, Ordering::SeqCst);
    if SLEEPERS.load(Ordering::SeqCst) > 0 {
        let _g = lock(&BELL.0);
        BELL.1.notify_all();
    }
}

/// How long a waiter sleeps on the bell before checking again (device code
/// that changes a signal without an interrupt is seen this late at worst):
/// `LATHE_POLL_US` microseconds, 500 by default.
pub fn poll_interval() -> Duration {
    static P: OnceLock<Duration> = OnceLock::new();
    *P.get_or_init(|| {
        Duration::from_micros(
            std::env::var("LATHE_POLL_US")
                .ok()
                .and_then(|v| v.parse().ok())
                .filter(|&us| us > 0)
                .unwrap_or(500),
        )
    })
}

/// How long a waiter spins (checking, then yielding) before it blocks.
const SPIN: Duration = Duration::from_micros(20);

/// Polls `done` until it returns `Some` or `deadline` passes (`None`:
/// never). Between checks it calls `help`, which may do the work being
/// waited for on this thread (run a queue's packets, D44) and returns
/// whether it did anything; then it spins briefly, then blocks on the bell
/// at most `poll_interval` at a time. It never sleeps a fixed interval: a
/// ring wakes it at once.
pub fn wait_until<T>(
    deadline: Option<Instant>,
    mut help: impl FnMut() -> bool,
    mut done: impl FnMut() -> Option<T>,
) -> Option<T> {
    // The spin's end is fixed on the first check that finds nothing to
    // do: a wait that helps and is then satisfied reads no clock (D56).
    let mut spin_until = None;
    let mut n = 0u32;
    loop {
        if let Some(v) = done() {
            return Some(v);
        }
        if help() {
            continue;
        }
        let now = Instant::now();
        if deadline.is_some_and(|d| now >= d) {
            return None;
        }
        if now >= *spin_until.get_or_insert(now + SPIN) {
            break;
        }
        n += 1;
        if n < 64 {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
    let poll = poll_interval();
    loop {
        let seen = EPOCH.load(Ordering::SeqCst);
        if let Some(v) = done() {
            return Some(v);
        }
        if help() {
            continue;
        }
        let mut wait = poll;
        if let Some(d) = deadline {
            let now = Instant::now();
            if now >= d {
                return None;
            }
            wait = wait.min(d - now);
        }
        let g = lock(&BELL.0);
        SLEEPERS.fetch_add(1, Ordering::SeqCst);
        if EPOCH.load(Ordering::SeqCst) == seen {
            let _ = BELL.1.wait_timeout(g, wait);
        } else {
            drop(g);
        }
        SLEEPERS.fetch_sub(1, Ordering::SeqCst);
    }
}

/// [`wait_until`] for a thread that has nothing to help with and should
/// not spin (a queue's processor between packets, a copy-engine thread).
pub fn block_until<T>(deadline: Option<Instant>, done: impl FnMut() -> Option<T>) -> Option<T> {
    let mut done = done;
    let poll = poll_interval();
    loop {
        let seen = EPOCH.load(Ordering::SeqCst);
        if let Some(v) = done() {
            return Some(v);
        }
        let mut wait = poll;
        if let Some(d) = deadline {
            let now = Instant::now();
            if now >= d {
                return None;
            }
            wait = wait.min(d - now);
        }
        let g = lock(&BELL.0);
        SLEEPERS.fetch_add(1, Ordering::SeqCst);
        if EPOCH.load(Ordering::SeqCst) == seen {
            let _ = BELL.1.wait_timeout(g, wait);
        } else {
            drop(g);
        }
        SLEEPERS.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A queue's doorbell as its packet processor sleeps on it: a store to the
/// doorbell signal wakes the processor only while it `listening` (idle and
/// eager); otherwise the processor wakes on its own timer (D44).
#[derive(Debug, Default)]
pub struct Doorbell {
    listening: std::sync::atomic::AtomicBool,
    lock: Mutex<()>,
    cv: Condvar,
    /// Bumped by every ring of this doorbell (and by [`Doorbell::wake`]).
    rung: AtomicU64,
}

impl Doorbell {
    /// Sleeps at most `timeout`, or until the doorbell rings (when
    /// `listen`) or [`Doorbell::wake`] is called. `idle` is checked once
    /// the sleeper listens, so a ring just before cannot be missed.
    pub fn sleep(&self, timeout: Duration, listen: bool, idle: impl Fn() -> bool) {
        let g = lock(&self.lock);
        let seen = self.rung.load(Ordering::SeqCst);
        self.listening.store(listen, Ordering::SeqCst);
        // Against the fence in `rang`: either the ringer sees `listening`
        // or this sees what it stored.
        std::sync::atomic::fence(Ordering::SeqCst);
        if idle() {
            let _ = self
                .cv
                .wait_timeout_while(g, timeout, |_| self.rung.load(Ordering::SeqCst) == seen);
        } else {
            drop(g);
        }
        self.listening.store(false, Ordering::SeqCst);
    }

    /// Wakes the sleeper whatever it listens to (stop, destroy).
    pub fn wake(&self) {
        let _g = lock(&self.lock);
        self.rung.fetch_add(1, Ordering::SeqCst);
        self.cv.notify_all();
    }

    fn rang(&self) {
        std::sync::atomic::fence(Ordering::SeqCst);
        if self.listening.load(Ordering::SeqCst) {
            self.wake();
        }
    }
}

type Doorbells = std::sync::Arc<[(u64, std::sync::Arc<Doorbell>)]>;

/// The doorbells by signal handle. Every doorbell store looks its signal
/// up, so readers use a per-thread copy checked against `DOORBELL_GEN`
/// (bumped after every change), as the queue table does (D56).
static DOORBELLS: Mutex<Vec<(u64, std::sync::Arc<Doorbell>)>> = Mutex::new(Vec::new());
static DOORBELL_GEN: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static DOORBELL_SNAP: std::cell::RefCell<(u64, Doorbells)> =
        std::cell::RefCell::new((0, std::sync::Arc::from(Vec::new())));
}

fn doorbells() -> Doorbells {
    let gen = DOORBELL_GEN.load(Ordering::Acquire);
    DOORBELL_SNAP.with(|cell| {
        if let Ok(s) = cell.try_borrow() {
            if s.0 == gen {
                return std::sync::Arc::clone(&s.1);
            }
        }
        let list: Doorbells = lock(&DOORBELLS).iter().cloned().collect();
        if let Ok(mut s) = cell.try_borrow_mut() {
            *s = (gen, std::sync::Arc::clone(&list));
        }
        list
    })
}

/// Registers signal `handle` as a queue's doorbell.
pub fn add_doorbell(handle: u64) -> std::sync::Arc<Doorbell> {
    let d = std::sync::Arc::new(Doorbell::default());
    lock(&DOORBELLS).push((handle, std::sync::Arc::clone(&d)));
    DOORBELL_GEN.fetch_add(1, Ordering::Release);
    d
}

/// Forgets a doorbell (its queue is gone).
pub fn remove_doorbell(handle: u64) {
    lock(&DOORBELLS).retain(|(h, _)| *h != handle);
    DOORBELL_GEN.fetch_add(1, Ordering::Release);
}

/// A doorbell signal was written: wakes its processor if it listens.
pub fn doorbell_rung(handle: u64) {
    if let Some((_, d)) = doorbells().iter().find(|(h, _)| *h == handle) {
        d.rang();
    }
}

/// `Handle` helper.
pub fn h(handle: u64) -> Handle {
    Handle { handle }
}

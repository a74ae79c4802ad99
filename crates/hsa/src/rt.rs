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
/// it; waiters sleep on it (with a short timeout, because device code
/// changes signals without ringing).
static BELL: (Mutex<u64>, Condvar) = (Mutex::new(0), Condvar::new());

/// Wakes every waiter.
pub fn ring() {
    let mut g = lock(&BELL.0);
    *g = g.wrapping_add(1);
    BELL.1.notify_all();
}

/// How long a waiter sleeps on the bell before checking again (device code
/// that changes a signal without an interrupt is seen this late at worst):
/// `LATHE_POLL_US` microseconds, 500 by default.
fn poll_interval() -> Duration {
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

/// Polls `done` until it returns `Some` or `deadline` passes (`None`:
/// never). Spins briefly, then sleeps on the bell at most `poll` at a time.
pub fn wait_until<T>(deadline: Option<Instant>, mut done: impl FnMut() -> Option<T>) -> Option<T> {
    // Spin for up to 50 us (a launch completes within that when the
    // kernel is small), yielding the core between checks, then sleep.
    let spin_until = Instant::now() + Duration::from_micros(50);
    loop {
        if let Some(v) = done() {
            return Some(v);
        }
        if Instant::now() >= spin_until {
            break;
        }
        std::thread::yield_now();
    }
    let poll = poll_interval();
    loop {
        let g = lock(&BELL.0);
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
        let _ = BELL.1.wait_timeout(g, wait);
    }
}

/// `Handle` helper.
pub fn h(handle: u64) -> Handle {
    Handle { handle }
}

//! User-mode AQL queues: an `amd_queue_t` and its ring buffer in device
//! memory, a doorbell signal, and packets run in order, one at a time per
//! queue: kernel dispatches on the emulator, barrier-AND/OR packets,
//! completion signals and profiling timestamps.
//!
//! Who runs a packet (D44): a thread that waits for a packet's completion
//! signal runs the queue's packets up to it itself ([`help`]), so a launch
//! and its wait cost no thread hand-off; each queue's processor thread
//! runs what nobody waits for, after a short grace period (or, once
//! waiters are seen doing the work, after a longer patience). Whoever runs
//! a packet holds the queue's `runner` lock, so packets never overlap or
//! reorder.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, TryLockError};
use std::thread::JoinHandle;
use std::time::Duration;

use lathe_emu::dispatch::AqlDispatch;
use lathe_emu::interp::Stop;
use lathe_emu::mem::{Fault, RegionKind};
use lathe_emu::run::{
    dispatch_from_queue, DispatchError, InterruptHook, Launch, Options, QueueContext,
};

use crate::ffi::*;
use crate::interrupt::Running;
use crate::out::put;
use crate::rt::{self, h, lock, rt, LaunchStat, AGENT_GPU};
use crate::signal;

pub type ErrorCallback = Option<extern "C" fn(Status, *mut HsaQueue, *mut c_void)>;

/// Interceptor installed by `hsa_amd_queue_intercept_register`.
type InterceptHandler =
    extern "C" fn(*const c_void, u64, u64, *mut c_void, extern "C" fn(*const c_void, u64));

#[derive(Debug)]
struct QueueState {
    addr: u64,
    /// The queue's `hsa_queue_t::id`.
    id: u64,
    ring: u64,
    size: u32,
    doorbell: Signal,
    stop: AtomicBool,
    callback: ErrorCallback,
    data: u64,
    profiling: AtomicBool,
    thread: Mutex<Option<JoinHandle<()>>>,
    /// Held by whichever thread runs a packet of this queue (its
    /// processor or a waiter): packets run one at a time, in order.
    runner: Mutex<()>,
    /// What the processor sleeps on between packets.
    bell: Arc<rt::Doorbell>,
    /// Packets run by waiting threads rather than the processor.
    helped: AtomicU64,
}

/// The queue table, changed only by create and destroy (which then bump
/// [`GEN`]). Every other look-up goes through a thread's own snapshot of
/// it ([`with_snapshot`]): HIP reads and bumps a queue's indices several
/// times per launch, and a waiter scans the queues on every wait (D56).
fn queues() -> std::sync::MutexGuard<'static, HashMap<u64, Arc<QueueState>>> {
    static Q: OnceLock<Mutex<HashMap<u64, Arc<QueueState>>>> = OnceLock::new();
    lock(Q.get_or_init(|| Mutex::new(HashMap::new())))
}

/// Bumped after every change of the queue table.
static GEN: AtomicU64 = AtomicU64::new(1);

type Snapshot = Arc<[Arc<QueueState>]>;

thread_local! {
    /// This thread's copy of the queue table and the [`GEN`] it was taken
    /// at (0: none yet).
    static SNAP: std::cell::RefCell<(u64, Snapshot)> =
        std::cell::RefCell::new((0, Arc::from(Vec::new())));
}

/// The queues as of now: this thread's snapshot while the table has not
/// changed since it was taken (an atomic load and a reference count, no
/// lock, no allocation), else a fresh one. A queue destroyed while the
/// caller holds the snapshot stays readable (its `Arc`), and [`step`]
/// checks `stop` under the runner lock.
fn snapshot() -> Snapshot {
    let gen = GEN.load(Ordering::Acquire);
    SNAP.with(|cell| {
        if let Ok(s) = cell.try_borrow() {
            if s.0 == gen {
                return Arc::clone(&s.1);
            }
        }
        // Taken after `gen` was read, so it is at least that new; a change
        // in between bumps GEN again and the next call refreshes.
        let list: Snapshot = queues().values().cloned().collect();
        if let Ok(mut s) = cell.try_borrow_mut() {
            *s = (gen, Arc::clone(&list));
        }
        list
    })
}

fn with_snapshot<T>(f: impl FnOnce(&[Arc<QueueState>]) -> T) -> T {
    f(&snapshot())
}

fn queue_of(q: *const HsaQueue) -> Option<Arc<QueueState>> {
    with_snapshot(|l| l.iter().find(|s| s.addr == q as u64).cloned())
}

fn amd(q: &QueueState) -> *mut AmdQueue {
    q.addr as *mut AmdQueue
}

fn read_index(q: &QueueState) -> &AtomicU64 {
    // SAFETY: `q.addr` is a live `amd_queue_t` (freed only after the
    // processor thread has stopped and the queue left the table);
    // `read_dispatch_id` is an aligned u64.
    unsafe { AtomicU64::from_ptr(std::ptr::addr_of_mut!((*amd(q)).read_dispatch_id)) }
}

fn write_index(q: &QueueState) -> &AtomicU64 {
    // SAFETY: as in `read_index`.
    unsafe { AtomicU64::from_ptr(std::ptr::addr_of_mut!((*amd(q)).write_dispatch_id)) }
}

fn header_at(q: &QueueState, index: u64) -> &AtomicU16 {
    let slot = q.ring + (index % u64::from(q.size)) * 64;
    // SAFETY: `slot` is inside the live ring (size * 64 bytes, 64-aligned).
    unsafe { AtomicU16::from_ptr(slot as *mut u16) }
}

fn packet_bytes(q: &QueueState, index: u64) -> [u8; 64] {
    let slot = q.ring + (index % u64::from(q.size)) * 64;
    let mut b = [0u8; 64];
    // SAFETY: 64 bytes of the live ring; the producer published this packet
    // (its header was read with acquire ordering before this copy).
    unsafe { std::ptr::copy_nonoverlapping(slot as *const u8, b.as_mut_ptr(), 64) };
    b
}

/// Every queue made by an interceptor-aware create, with its handler.
static INTERCEPTS: Mutex<Vec<(u64, InterceptHandler, u64)>> = Mutex::new(Vec::new());
/// Whether an interceptor was ever registered (until then a packet skips
/// the look-up).
static ANY_INTERCEPT: AtomicBool = AtomicBool::new(false);

#[allow(clippy::too_many_arguments)]
pub fn create(
    agent: Agent,
    size: u32,
    type_: u32,
    callback: ErrorCallback,
    data: *mut c_void,
    private_size: u32,
    group_size: u32,
    out: *mut *mut HsaQueue,
) -> Status {
    let Some(r) = rt() else {
        return ERROR_NOT_INITIALIZED;
    };
    let _ = (private_size, group_size);
    if !rt::is_agent(agent) {
        return ERROR_INVALID_AGENT;
    }
    if agent.handle != AGENT_GPU {
        return crate::trace::fail(
            ERROR_INVALID_QUEUE_CREATION,
            "hsa_queue_create: the CPU agent has no AQL queues",
        );
    }
    if out.is_null() || type_ > 2 {
        return ERROR_INVALID_ARGUMENT;
    }
    if type_ == QUEUE_TYPE_COOPERATIVE {
        return crate::trace::fail(
            ERROR_INVALID_QUEUE_CREATION,
            "hsa_queue_create: cooperative queues are not supported (work-groups run in turn; a grid barrier would never complete)",
        );
    }
    if !size.is_power_of_two() || !(64..=131072).contains(&size) {
        return crate::trace::fail(
            ERROR_INVALID_ARGUMENT,
            format!("hsa_queue_create: size {size} is not a power of two in 64..=131072"),
        );
    }
    let Ok(addr) = r.mem.allocate(256, 64, RegionKind::Runtime) else {
        return ERROR_OUT_OF_RESOURCES;
    };
    let Ok(ring) = r
        .mem
        .allocate(u64::from(size) * 64, 4096, RegionKind::Runtime)
    else {
        let _ = r.mem.free(addr);
        return ERROR_OUT_OF_RESOURCES;
    };
    // The doorbell holds the last packet ID rung; -1: none yet.
    let doorbell = match signal::new_signal(-1, false) {
        Ok(s) => s,
        Err(e) => {
            let _ = r.mem.free(addr);
            let _ = r.mem.free(ring);
            return e;
        }
    };
    signal::set_doorbell(doorbell, addr);
    let bell = rt::add_doorbell(doorbell.handle);
    static NEXT_ID: AtomicU64 = AtomicU64::new(1);
    let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
    // SAFETY: `addr` is a fresh, zeroed, 64-aligned 256-byte allocation: an
    // `amd_queue_t` nobody else references yet.
    unsafe {
        let q = &mut *(addr as *mut AmdQueue);
        q.hsa_queue = HsaQueue {
            type_,
            // HSA_QUEUE_FEATURE_KERNEL_DISPATCH | AGENT_DISPATCH.
            features: 1,
            base_address: ring as *mut c_void,
            doorbell_signal: doorbell,
            size,
            reserved1: 0,
            id,
        };
        q.max_cu_id = r.gpu.spec.compute_units - 1;
        q.max_wave_id = r.gpu.spec.waves_per_cu - 1;
        q.group_segment_aperture_base_hi = (lathe_emu::interp::SHARED_APERTURE >> 32) as u32;
        q.private_segment_aperture_base_hi = (lathe_emu::interp::PRIVATE_APERTURE >> 32) as u32;
    }
    // Every slot starts INVALID so the processor never runs a half-written
    // packet.
    let st = Arc::new(QueueState {
        addr,
        id,
        ring,
        size,
        doorbell,
        stop: AtomicBool::new(false),
        callback,
        data: data as u64,
        profiling: AtomicBool::new(false),
        thread: Mutex::new(None),
        runner: Mutex::new(()),
        bell,
        helped: AtomicU64::new(0),
    });
    for i in 0..u64::from(size) {
        header_at(&st, i).store(PACKET_TYPE_INVALID, Ordering::Relaxed);
    }
    let worker = Arc::clone(&st);
    let th = std::thread::Builder::new()
        .name(format!("lathe-hsa-queue-{id}"))
        .spawn(move || process(worker));
    match th {
        Ok(t) => *lock(&st.thread) = Some(t),
        Err(_) => {
            rt::remove_doorbell(doorbell.handle);
            signal::free_signal(doorbell);
            let _ = r.mem.free(addr);
            let _ = r.mem.free(ring);
            return ERROR_OUT_OF_RESOURCES;
        }
    }
    queues().insert(addr, st);
    GEN.fetch_add(1, Ordering::Release);
    put(out as *mut c_void, addr as *mut HsaQueue)
}

pub fn destroy(q: *mut HsaQueue) -> Status {
    let Some(st) = queues().remove(&(q as u64)) else {
        return crate::trace::fail(
            ERROR_INVALID_QUEUE,
            format!("hsa_queue_destroy: {q:?} is not a queue"),
        );
    };
    GEN.fetch_add(1, Ordering::Release);
    st.stop.store(true, Ordering::Release);
    st.bell.wake();
    rt::ring();
    if let Some(t) = lock(&st.thread).take() {
        let _ = t.join();
    }
    // A waiter running one of its packets finishes it first; later ones
    // see `stop` under the lock and leave the ring alone.
    let running = lock(&st.runner);
    lock(&INTERCEPTS).retain(|(a, _, _)| *a != st.addr);
    rt::remove_doorbell(st.doorbell.handle);
    signal::free_signal(st.doorbell);
    if let Some(r) = rt::rt_any() {
        let _ = r.mem.free(st.ring);
        let _ = r.mem.free(st.addr);
    }
    drop(running);
    SUCCESS
}

pub fn inactivate(q: *mut HsaQueue) -> Status {
    match queue_of(q) {
        Some(st) => {
            st.stop.store(true, Ordering::Release);
            st.bell.wake();
            rt::ring();
            SUCCESS
        }
        None => ERROR_INVALID_QUEUE,
    }
}

fn with_queue<T: Default>(q: *const HsaQueue, f: impl FnOnce(&QueueState) -> T) -> T {
    let found = with_snapshot(|l| l.iter().find(|s| s.addr == q as u64).map(|s| f(s)));
    found.unwrap_or_else(|| {
        crate::trace::note(&format!("{q:?} is not a queue"));
        T::default()
    })
}

pub fn load_read_index(q: *const HsaQueue) -> u64 {
    with_queue(q, |s| read_index(s).load(Ordering::Acquire))
}

pub fn load_write_index(q: *const HsaQueue) -> u64 {
    with_queue(q, |s| write_index(s).load(Ordering::Acquire))
}

pub fn store_write_index(q: *const HsaQueue, v: u64) {
    with_queue(q, |s| write_index(s).store(v, Ordering::Release))
}

pub fn store_read_index(q: *const HsaQueue, v: u64) {
    with_queue(q, |s| read_index(s).store(v, Ordering::Release))
}

pub fn cas_write_index(q: *const HsaQueue, expected: u64, v: u64) -> u64 {
    with_queue(q, |s| {
        match write_index(s).compare_exchange(expected, v, Ordering::AcqRel, Ordering::Acquire) {
            Ok(x) | Err(x) => x,
        }
    })
}

pub fn add_write_index(q: *const HsaQueue, v: u64) -> u64 {
    with_queue(q, |s| write_index(s).fetch_add(v, Ordering::AcqRel))
}

pub fn cu_set_mask(q: *const HsaQueue, n: u32, mask: *const u32) -> Status {
    let _ = (n, mask);
    if queue_of(q).is_none() {
        return ERROR_INVALID_QUEUE;
    }
    SUCCESS
}

pub fn cu_get_mask(q: *const HsaQueue, n: u32, mask: *mut u32) -> Status {
    if queue_of(q).is_none() {
        return ERROR_INVALID_QUEUE;
    }
    let cus = rt().map_or(104, |r| r.gpu.spec.compute_units);
    for i in 0..n as usize {
        let bits = (cus as i64 - 32 * i as i64).clamp(0, 32) as u32;
        let m = if bits == 32 {
            u32::MAX
        } else {
            (1u32 << bits) - 1
        };
        // SAFETY: the caller provides `n / 32` dwords (`n` is in bits).
        if i < (n as usize).div_ceil(32) {
            unsafe { mask.add(i).write_unaligned(m) };
        }
    }
    SUCCESS
}

pub fn set_priority(q: *mut HsaQueue, p: u32) -> Status {
    let _ = p;
    if queue_of(q).is_none() {
        return ERROR_INVALID_QUEUE;
    }
    SUCCESS
}

pub fn profiling_set_enabled(q: *mut HsaQueue, enable: i32) -> Status {
    match queue_of(q) {
        Some(st) => {
            st.profiling.store(enable != 0, Ordering::Relaxed);
            SUCCESS
        }
        None => ERROR_INVALID_QUEUE,
    }
}

pub fn profiling_async_copy_enable(enable: bool) -> Status {
    let _ = enable;
    SUCCESS
}

pub fn profiling_get_dispatch_time(agent: Agent, s: Signal, out: *mut ProfilingTime) -> Status {
    if agent.handle != AGENT_GPU {
        return ERROR_INVALID_AGENT;
    }
    if !signal::is_valid(s) {
        return ERROR_INVALID_SIGNAL;
    }
    let (start, end) = signal::timestamps(s);
    put(out as *mut c_void, ProfilingTime { start, end })
}

pub fn profiling_get_async_copy_time(s: Signal, out: *mut ProfilingTime) -> Status {
    if !signal::is_valid(s) {
        return ERROR_INVALID_SIGNAL;
    }
    let (start, end) = signal::timestamps(s);
    put(out as *mut c_void, ProfilingTime { start, end })
}

pub fn convert_tick(agent: Agent, tick: u64, out: *mut u64) -> Status {
    if !rt::is_agent(agent) {
        return ERROR_INVALID_AGENT;
    }
    put(out as *mut c_void, tick)
}

#[allow(clippy::too_many_arguments)]
pub fn intercept_create(
    agent: Agent,
    size: u32,
    type_: u32,
    callback: ErrorCallback,
    data: *mut c_void,
    private_size: u32,
    group_size: u32,
    out: *mut *mut HsaQueue,
) -> Status {
    create(
        agent,
        size,
        type_,
        callback,
        data,
        private_size,
        group_size,
        out,
    )
}

pub fn intercept_register(
    q: *mut HsaQueue,
    handler: Option<InterceptHandler>,
    data: *mut c_void,
) -> Status {
    let Some(handler) = handler else {
        return ERROR_INVALID_ARGUMENT;
    };
    if queue_of(q).is_none() {
        return ERROR_INVALID_QUEUE;
    }
    lock(&INTERCEPTS).push((q as u64, handler, data as u64));
    ANY_INTERCEPT.store(true, Ordering::Release);
    SUCCESS
}

// Packets a queue interceptor writes are run right away by the processor
// thread that called the interceptor.
thread_local! {
    static COMPLETE: std::cell::Cell<Option<(Signal, u64, u64)>> = const { std::cell::Cell::new(None) };
    static CURRENT: std::cell::RefCell<Option<(Arc<QueueState>, u64)>> = const { std::cell::RefCell::new(None) };
}

extern "C" fn intercept_writer(pkts: *const c_void, count: u64) {
    let Some((q, index)) = CURRENT.with(|c| c.borrow().clone()) else {
        return;
    };
    for i in 0..count.min(1 << 16) {
        let mut b = [0u8; 64];
        // SAFETY: the interceptor passes `count` 64-byte packets at `pkts`.
        unsafe {
            std::ptr::copy_nonoverlapping(
                (pkts as *const u8).add(i as usize * 64),
                b.as_mut_ptr(),
                64,
            )
        };
        run_packet(&q, index, &b);
    }
}

/// Whether the packet at `rd` may run: its ID was rung on the doorbell
/// (so tools wrapping the doorbell store see every packet before it runs)
/// and its header is published.
fn ready(q: &QueueState, rd: u64) -> bool {
    write_index(q).load(Ordering::Acquire) > rd
        && signal::value(q.doorbell) >= rd as i64
        && header_at(q, rd).load(Ordering::Acquire) & 0xff != PACKET_TYPE_INVALID
}

/// What [`step`] did.
#[derive(Debug, PartialEq, Eq)]
enum Step {
    Ran,
    /// No packet ready (or the queue stopped).
    Idle,
    /// The head is a barrier whose dependencies are not met (a waiter
    /// leaves it to the processor rather than block inside it).
    Blocked,
}

/// Runs the packet at the read index, if one is ready. The caller holds
/// `q.runner`. A `waiter` does not start a barrier packet that would block.
fn step(q: &Arc<QueueState>, waiter: bool) -> Step {
    if q.stop.load(Ordering::Acquire) {
        return Step::Idle;
    }
    let rd = read_index(q).load(Ordering::Acquire);
    if !ready(q, rd) {
        return Step::Idle;
    }
    let bytes = packet_bytes(q, rd);
    if waiter && !barrier_met(&bytes) {
        return Step::Blocked;
    }
    let intercept = if ANY_INTERCEPT.load(Ordering::Acquire) {
        lock(&INTERCEPTS)
            .iter()
            .find(|(a, _, _)| *a == q.addr)
            .map(|(_, f, d)| (*f, *d))
    } else {
        None
    };
    match intercept {
        Some((f, d)) => {
            CURRENT.with(|c| *c.borrow_mut() = Some((Arc::clone(q), rd)));
            f(
                bytes.as_ptr() as *const c_void,
                1,
                rd,
                d as *mut c_void,
                intercept_writer,
            );
            CURRENT.with(|c| *c.borrow_mut() = None);
        }
        None => run_packet(q, rd, &bytes),
    }
    // The slot is released before the completion signal fires, so a
    // waiter that sees the signal also sees the packet consumed.
    header_at(q, rd).store(PACKET_TYPE_INVALID, Ordering::Release);
    read_index(q).store(rd + 1, Ordering::Release);
    // One ring per packet: decrementing the completion signal rings
    // (after the read index moved), else ring for the read index.
    match COMPLETE.with(|c| c.take()) {
        Some((sig, start, end)) => {
            signal::set_timestamps(sig, start, end);
            signal::sub(sig, 1);
        }
        None => rt::ring(),
    }
    Step::Ran
}

/// A barrier packet's dependency signals (none for other packets).
fn barrier_deps(b: &[u8; 64]) -> Option<(bool, Vec<Signal>)> {
    let hdr = u16::from_le_bytes([b[0], b[1]]);
    let t = hdr & 0xff;
    if t != PACKET_TYPE_BARRIER_AND && t != PACKET_TYPE_BARRIER_OR {
        return None;
    }
    let deps = (0..5)
        .map(|i| {
            let o = 8 + 8 * i;
            h(u64::from_le_bytes(b[o..o + 8].try_into().unwrap_or([0; 8])))
        })
        .filter(|s| s.handle != 0)
        .collect();
    Some((t == PACKET_TYPE_BARRIER_AND, deps))
}

/// Whether a barrier's dependencies are met (AND: all 0; OR: any 0; none:
/// met). True for packets that are not barriers.
fn deps_met(and: bool, deps: &[Signal]) -> bool {
    if deps.is_empty() {
        return true;
    }
    let mut done = deps.iter().map(|s| signal::value(*s) == 0);
    if and {
        done.all(|x| x)
    } else {
        done.any(|x| x)
    }
}

fn barrier_met(b: &[u8; 64]) -> bool {
    barrier_deps(b).is_none_or(|(and, deps)| deps_met(and, &deps))
}

/// How long the processor leaves a newly rung packet to a waiter before it
/// runs it itself.
const GRACE: Duration = Duration::from_micros(50);
/// Once waiters are seen running this queue's packets: how long a packet
/// must stay pending before the processor runs it, and how often it looks.
const PATIENCE: Duration = Duration::from_millis(2);
/// How many of the newest pending packets a waiter looks through for the
/// one it waits for.
const SCAN: u64 = 4096;

/// The queue's processor thread: runs the packets no waiter runs (D44).
///
/// Eager (the start): it listens to the doorbell; a rung packet still
/// pending after [`GRACE`] is run here, with every packet after it. Lazy
/// (once a packet it saw pending was run by a waiter): it does not listen
/// and looks every [`PATIENCE`]; a packet pending across two looks is run
/// here, and it turns eager again.
fn process(q: Arc<QueueState>) {
    let mut lazy = false;
    let mut seen: Option<u64> = None;
    loop {
        if q.stop.load(Ordering::Acquire) {
            return;
        }
        let rd = read_index(&q).load(Ordering::Acquire);
        if ready(&q, rd) {
            if seen == Some(rd) {
                lazy = false;
                seen = None;
                loop {
                    let _g = lock(&q.runner);
                    if step(&q, false) != Step::Ran {
                        break;
                    }
                }
                continue;
            }
            seen = Some(rd);
            let wait = if lazy { PATIENCE } else { GRACE };
            q.bell
                .sleep(wait, false, || !q.stop.load(Ordering::Acquire));
        } else {
            if seen.is_some() {
                lazy = true;
            }
            seen = None;
            q.bell.sleep(PATIENCE, !lazy, || {
                !q.stop.load(Ordering::Acquire)
                    && !ready(&q, read_index(&q).load(Ordering::Acquire))
            });
        }
    }
}

/// A thread about to wait for one of `signals`: if one is the completion
/// signal of a packet pending on a queue, runs that queue's packets up to
/// and including it on this thread, in order (D44). Returns whether it ran
/// any. Queues whose packets are being run elsewhere are left alone.
pub fn help(signals: &[Signal]) -> bool {
    let list = snapshot();
    let mut ran = false;
    for q in list.iter() {
        let _g = match q.runner.try_lock() {
            Ok(g) => g,
            Err(TryLockError::Poisoned(p)) => p.into_inner(),
            Err(TryLockError::WouldBlock) => continue,
        };
        if q.stop.load(Ordering::Acquire) {
            continue;
        }
        let Some(target) = awaited(q, signals) else {
            continue;
        };
        while read_index(q).load(Ordering::Acquire) <= target {
            if step(q, true) != Step::Ran {
                break;
            }
            ran = true;
            q.helped.fetch_add(1, Ordering::Relaxed);
        }
    }
    ran
}

/// The newest pending packet of `q` (among the last [`SCAN`] rung) whose
/// completion signal is one of `signals`. The caller holds `q.runner`.
fn awaited(q: &QueueState, signals: &[Signal]) -> Option<u64> {
    let rd = read_index(q).load(Ordering::Acquire);
    let rung = signal::value(q.doorbell);
    if rung < rd as i64 {
        return None;
    }
    let end = write_index(q).load(Ordering::Acquire).min(rung as u64 + 1);
    let first = rd.max(end.saturating_sub(SCAN));
    (first..end).rev().find(|&i| {
        if header_at(q, i).load(Ordering::Acquire) & 0xff == PACKET_TYPE_INVALID {
            return false;
        }
        let slot = q.ring + (i % u64::from(q.size)) * 64;
        // SAFETY: the completion-signal field (offset 56, 8-aligned) of a
        // published slot of the live ring (the caller holds the runner
        // lock, so the queue is not being destroyed).
        let c = unsafe { AtomicU64::from_ptr((slot + 56) as *mut u64) }.load(Ordering::Relaxed);
        c != 0 && signals.iter().any(|s| s.handle == c)
    })
}

fn run_packet(q: &Arc<QueueState>, index: u64, b: &[u8; 64]) {
    let hdr = u16::from_le_bytes([b[0], b[1]]);
    let completion = h(u64::from_le_bytes(b[56..64].try_into().unwrap_or([0; 8])));
    // Timestamps only for a packet that signals (a dispatch HIP follows
    // with a barrier has none).
    let start = if completion.handle != 0 {
        rt::now_ticks()
    } else {
        0
    };
    match hdr & 0xff {
        PACKET_TYPE_KERNEL_DISPATCH => run_dispatch(q, index, b),
        PACKET_TYPE_BARRIER_AND | PACKET_TYPE_BARRIER_OR => {
            if let Some((and, deps)) = barrier_deps(b) {
                // Runs the packets the dependencies wait for when they are
                // on other queues nobody is running.
                rt::wait_until(
                    None,
                    || help(&deps),
                    || (q.stop.load(Ordering::Acquire) || deps_met(and, &deps)).then_some(()),
                );
            }
        }
        PACKET_TYPE_VENDOR_SPECIFIC => {
            crate::trace::note("vendor-specific AQL packet skipped");
        }
        t => {
            crate::trace::note(&format!("AQL packet type {t} is not supported; skipped"));
            if let Some(cb) = q.callback {
                cb(
                    ERROR_INVALID_PACKET_FORMAT,
                    q.addr as *mut HsaQueue,
                    q.data as *mut c_void,
                );
            }
        }
    }
    if completion.handle != 0 {
        let end = rt::now_ticks();
        // The processor signals after releasing the slot; packets an
        // interceptor writes (not from the ring) signal right away.
        if CURRENT.with(|c| c.borrow().is_some()) {
            signal::set_timestamps(completion, start, end);
            signal::sub(completion, 1);
        } else {
            COMPLETE.with(|c| c.set(Some((completion, start, end))));
        }
    }
}

fn kernel_packet_error(q: &QueueState, status: Status, msg: &str) {
    eprintln!("lathe-hsa: {msg}");
    if let Some(cb) = q.callback {
        cb(status, q.addr as *mut HsaQueue, q.data as *mut c_void);
    }
}

fn run_dispatch(q: &Arc<QueueState>, index: u64, b: &[u8; 64]) {
    let Some(r) = rt::rt_any() else { return };
    let pkt = AqlDispatch::from_bytes(b);
    let Some(k) = crate::exec::kernel_at(pkt.kernel_object) else {
        kernel_packet_error(
            q,
            ERROR_INVALID_PACKET_FORMAT,
            &format!(
                "dispatch packet {index}: kernel_object {:#x} is not a loaded kernel descriptor",
                pkt.kernel_object
            ),
        );
        return;
    };
    let geometry = match pkt.geometry() {
        Ok(g) => g,
        Err(e) => {
            kernel_packet_error(
                q,
                ERROR_INVALID_PACKET_FORMAT,
                &format!("dispatch packet {index} for {}: {e}", k.name),
            );
            return;
        }
    };
    if k.info.kernarg_size > 0
        && r.mem
            .find(pkt.kernarg_address, u64::from(k.info.kernarg_size))
            .is_none()
    {
        kernel_packet_error(
            q,
            ERROR_INVALID_PACKET_FORMAT,
            &format!(
                "dispatch packet {index} for {}: kernarg segment {:#x} does not hold the kernel's {} bytes of arguments",
                k.name, pkt.kernarg_address, k.info.kernarg_size
            ),
        );
        return;
    }
    let launch = Launch {
        name: &k.name,
        kernel: &k.info,
        geometry,
        kernarg: pkt.kernarg_address,
        dynamic_lds: pkt
            .group_segment_size
            .saturating_sub(k.info.group_segment_size),
    };
    // Worked out once: `Options::default` reads the environment.
    static BASE: OnceLock<Options> = OnceLock::new();
    let opts = Options {
        check: crate::check::hook(),
        ..*BASE.get_or_init(|| Options {
            threads: r.threads,
            interrupt: Some(InterruptHook(signal::interrupt)),
            timeout: r.timeout,
            ..Options::default()
        })
    };
    let ctx = QueueContext {
        packet: q.ring + (index % u64::from(q.size)) * 64,
        queue: q.addr,
        dispatch_id: index,
    };
    // A kernel the emulator cannot run yet stops the program here, as a
    // fault would, rather than running as something else (D42).
    let wave_size = k.info.descriptor.wavefront_size(r.gpu.arch);
    // Demangled only for a message (a launch's fixed cost stays small).
    let display = || lathe_codeobj::names::demangle(&k.name).unwrap_or_else(|| k.name.clone());
    let target = lathe_emu::dispatch::check_emulated(&k.name, r.gpu.target_id.processor, wave_size)
        .map_err(|_| {
            lathe_emu::dispatch::check_emulated(&display(), r.gpu.target_id.processor, wave_size)
                .map_or_else(|e| e.to_string(), |()| String::new())
        })
        .and_then(|()| {
            r.gpu.target.ok_or_else(|| {
                format!(
                    "kernel {}: {} code cannot be decoded yet",
                    display(),
                    r.gpu.spec.processor
                )
            })
        });
    let target = match target {
        Ok(t) => t,
        Err(msg) => refuse(q, &msg),
    };
    let running = crate::interrupt::running();
    // An instrumented kernel, measured: run with the recorder to count the
    // original kernel's instructions apart from the probes'.
    let original = k.original.as_ref().filter(|_| rt::measuring());
    let mut original_count = None;
    let capture = crate::capture::before(r, &k, &pkt, &ctx, b);
    // Clock reads cost a launch tens of nanoseconds each: only when measured.
    let measuring = rt::measuring();
    let start_ns = if measuring { rt::now_ticks() } else { 0 };
    let result = if let (Some(orig), None) = (original, crate::truth::enabled()) {
        lathe_emu::run::dispatch_recorded(&r.mem, target, r.gpu.arch, &launch, &opts).map(
            |(rep, rec)| {
                original_count = Some(
                    rec.per_pc
                        .iter()
                        .filter(|(pc, _)| orig.contains(pc))
                        .map(|(_, c)| c.waves)
                        .sum::<u64>(),
                );
                rep
            },
        )
    } else if crate::truth::enabled().is_some() {
        lathe_emu::run::dispatch_recorded(&r.mem, target, r.gpu.arch, &launch, &opts).map(
            |(rep, rec)| {
                crate::truth::record(
                    &k.name,
                    pkt.grid_size,
                    pkt.workgroup_size.map(u32::from),
                    k.load_delta,
                    &rec,
                );
                rep
            },
        )
    } else {
        dispatch_from_queue(&r.mem, target, r.gpu.arch, &launch, &opts, ctx)
    };
    let end_ns = if measuring { rt::now_ticks() } else { 0 };
    crate::capture::after(capture, &result);
    crate::check::after_dispatch(&k.name, pkt.workgroup_size, &result);
    match result {
        Ok(rep) => {
            static DISPATCHES: AtomicU64 = AtomicU64::new(1);
            let dispatch = DISPATCHES.fetch_add(1, Ordering::Relaxed);
            if !measuring {
                return;
            }
            let kd = &k.info.descriptor;
            let vgprs = kd.allocated_vgprs(r.gpu.arch);
            let arch_vgprs = kd.accum_offset(r.gpu.arch).map_or(vgprs, |a| a.min(vgprs));
            rt::record_launch(LaunchStat {
                kernel: k.name.clone(),
                name: lathe_codeobj::names::demangle(&k.name).unwrap_or_else(|| k.name.clone()),
                grid: pkt.grid_size,
                block: pkt.workgroup_size.map(u32::from),
                wave_instructions: original_count.unwrap_or(rep.wave_instructions),
                instrumented_wave_instructions: original_count.map(|_| rep.wave_instructions),
                seconds: rep.elapsed.as_secs_f64(),
                start_ns,
                end_ns,
                queue: q.id,
                dispatch,
                kernel_object: pkt.kernel_object,
                workgroups: rep.workgroups,
                waves: rep.waves,
                lds: pkt.group_segment_size,
                scratch: pkt.private_segment_size,
                vgprs: arch_vgprs,
                agprs: vgprs - arch_vgprs,
                sgprs: kd.allocated_sgprs(r.gpu.arch).unwrap_or(0),
            })
        }
        Err(e) => report_failure(q, &k.name, e, running),
    }
}

/// Stops the program at a dispatch the emulator cannot run: the reason on
/// stderr, the outputs marked incomplete, the queue's callback, abort —
/// what a fault does, so the program never goes on as if it had run.
fn refuse(q: &QueueState, msg: &str) -> ! {
    eprintln!("lathe: {msg}");
    crate::rt::finish_incomplete(msg);
    if let Some(cb) = q.callback {
        cb(
            ERROR_INVALID_ISA,
            q.addr as *mut HsaQueue,
            q.data as *mut c_void,
        );
    }
    std::process::abort();
}

fn report_failure(q: &QueueState, kernel: &str, e: DispatchError, running: Running) {
    if let DispatchError::Stopped {
        stop: stop @ Stop::Interrupted { .. },
        ..
    } = &e
    {
        // The signal's watcher writes the outputs and ends the process.
        if let Some(text) = crate::report::stop(kernel, stop) {
            eprint!("lathe: {text}");
        }
        crate::interrupt::park_forever(running);
    }
    let (status, addr) = match &e {
        DispatchError::Stopped {
            stop: Stop::Fault { fault, .. },
            ..
        } => (
            AMD_ERROR_MEMORY_APERTURE_VIOLATION,
            match fault {
                Fault::Unmapped { addr, .. }
                | Fault::ReadOnly { addr, .. }
                | Fault::Misaligned { addr, .. } => *addr,
                _ => 0,
            },
        ),
        DispatchError::Stopped {
            stop: Stop::Unsupported { .. },
            ..
        } => (AMD_ERROR_ILLEGAL_INSTRUCTION, 0),
        _ => (ERROR_EXCEPTION, 0),
    };
    if status == AMD_ERROR_MEMORY_APERTURE_VIOLATION {
        eprintln!(
            "Memory access fault by GPU node-1 (Agent handle: {AGENT_GPU:#x}) on address {addr:#x}. Reason: Page not present or supervisor privilege."
        );
    }
    let report = match &e {
        DispatchError::Stopped { stop, .. } => crate::report::stop(kernel, stop),
        _ => None,
    };
    match report {
        Some(text) => eprint!("lathe: {text}"),
        None => eprintln!("lathe: kernel {kernel} stopped: {e}"),
    }
    // Written before HIP's callback, which may end the process itself.
    crate::rt::finish_incomplete(&format!("kernel {kernel} stopped: {}", short(&e)));
    drop(running);
    if let Some(cb) = q.callback {
        cb(status, q.addr as *mut HsaQueue, q.data as *mut c_void);
    }
    // ROCr does not resume a queue after a fault: the process aborts.
    std::process::abort();
}

/// The first line of a dispatch error (a watchdog report lists waves).
fn short(e: &DispatchError) -> String {
    match e {
        DispatchError::Stopped {
            stop: Stop::Fault { fault, .. },
            ..
        } => fault.to_string(),
        DispatchError::Stopped {
            stop: Stop::Timeout { .. },
            ..
        } => "the watchdog fired".into(),
        e => e.to_string().lines().next().unwrap_or_default().to_string(),
    }
}

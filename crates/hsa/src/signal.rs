//! Signals: `amd_signal_t` records in device-visible memory (device code —
//! HIP's hostcall/printf — updates them), every wait condition with
//! timeouts, signal groups, and asynchronous handlers on one handler
//! thread.
//!
//! Interrupt signals (what `hsa_signal_create` makes for host consumers,
//! and `hsa_amd_signal_create` without `HSA_AMD_SIGNAL_AMD_GPU_ONLY`) have
//! an event mailbox and an event ID, as ROCr's do: device code that updates
//! one (the device library's `update_mbox`) stores the event ID in the
//! mailbox and sends `s_sendmsg sendmsg(MSG_INTERRUPT)` with the ID's low
//! byte in M0. The emulator hands that to [`interrupt`], which wakes the
//! waiters of the signal whose mailbox holds a matching ID. Each signal's
//! mailbox is its own `reserved3` field (the last 8 bytes of the record,
//! device-visible like the rest).
//!
//! A handle is the address of its `amd_signal_t`, as in ROCr. Destroyed
//! signals go back to a free list and their memory is never released, so a
//! stale handle reads stale memory instead of crashing; operations that
//! return a status check the live set.

use std::collections::HashSet;
use std::ffi::c_void;
use std::sync::atomic::{AtomicI64, AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, RwLock};

use lathe_emu::mem::RegionKind;

use crate::ffi::*;
use crate::out::{get_slice, put};
use crate::rt::{self, h, lock, rt};

#[derive(Debug, Default)]
struct Pool {
    free: Vec<u64>,
}

static POOL: Mutex<Pool> = Mutex::new(Pool { free: Vec::new() });

fn live() -> &'static RwLock<HashSet<u64>> {
    static L: OnceLock<RwLock<HashSet<u64>>> = OnceLock::new();
    L.get_or_init(|| RwLock::new(HashSet::new()))
}

/// Whether `s` is a live signal.
pub fn is_valid(s: Signal) -> bool {
    s.handle != 0
        && live()
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .contains(&s.handle)
}

fn cell(s: Signal) -> Option<&'static AtomicI64> {
    if s.handle == 0 || s.handle % 64 != 0 {
        return None;
    }
    // SAFETY: non-zero, 64-aligned handles are only ever produced by
    // `create`, whose memory (a runtime region of device memory) is never
    // freed; `value` is the 8-byte-aligned field at offset 8. A forged
    // handle violates the HSA contract, as it would with ROCr.
    Some(unsafe { AtomicI64::from_ptr((s.handle + 8) as *mut i64) })
}

fn field_u64(s: Signal, off: u64) -> Option<&'static AtomicU64> {
    if s.handle == 0 || s.handle % 64 != 0 {
        return None;
    }
    // SAFETY: as in `cell`: fields of a never-freed `amd_signal_t`.
    Some(unsafe { AtomicU64::from_ptr((s.handle + off) as *mut u64) })
}

/// The current value (0 for a null handle).
pub fn value(s: Signal) -> i64 {
    cell(s).map_or(0, |c| c.load(Ordering::Acquire))
}

/// Subtracts and rings the bell.
pub fn sub(s: Signal, v: i64) {
    if let Some(c) = cell(s) {
        c.fetch_sub(v, Ordering::AcqRel);
        rt::ring();
    }
}

/// Records profiling timestamps (start_ts, end_ts).
pub fn set_timestamps(s: Signal, start: u64, end: u64) {
    if let (Some(a), Some(b)) = (field_u64(s, 32), field_u64(s, 40)) {
        a.store(start, Ordering::Relaxed);
        b.store(end, Ordering::Relaxed);
    }
}

/// Reads profiling timestamps.
pub fn timestamps(s: Signal) -> (u64, u64) {
    match (field_u64(s, 32), field_u64(s, 40)) {
        (Some(a), Some(b)) => (a.load(Ordering::Relaxed), b.load(Ordering::Relaxed)),
        _ => (0, 0),
    }
}

/// Offset of the event mailbox in an interrupt signal's record.
const MAILBOX: u64 = 56;

/// Offset of `queue_ptr`: set on a queue's doorbell signal (as ROCr does),
/// so a store to it wakes the queue's processor.
const QUEUE_PTR: u64 = 48;

/// Marks `s` as the doorbell of the queue at `queue`.
pub fn set_doorbell(s: Signal, queue: u64) {
    if let Some(f) = field_u64(s, QUEUE_PTR) {
        f.store(queue, Ordering::Release);
    }
}

/// A host-side change of `s`: wakes signal waiters, and a doorbell's
/// queue processor.
fn changed(s: Signal) {
    rt::ring();
    if field_u64(s, QUEUE_PTR).is_some_and(|f| f.load(Ordering::Relaxed) != 0) {
        rt::doorbell_rung(s.handle);
    }
}

/// Whether `s` could be a signal's handle (non-null, aligned); waits on
/// anything else return at once.
pub fn is_handle(s: Signal) -> bool {
    cell(s).is_some()
}

/// Allocates a signal with `initial`; an `interrupt` signal gets an event
/// mailbox and a fresh event ID.
pub fn new_signal(initial: i64, interrupt: bool) -> Result<Signal, Status> {
    let r = rt().ok_or(ERROR_NOT_INITIALIZED)?;
    let mut p = lock(&POOL);
    if p.free.is_empty() {
        let n = 64u64;
        let base = r
            .mem
            .allocate(64 * n, 4096, RegionKind::Runtime)
            .map_err(|_| ERROR_OUT_OF_RESOURCES)?;
        p.free.extend((0..n).rev().map(|i| base + 64 * i));
    }
    let a = p.free.pop().ok_or(ERROR_OUT_OF_RESOURCES)?;
    drop(p);
    let s = h(a);
    static EVENT_IDS: AtomicU32 = AtomicU32::new(1);
    let (event_mailbox_ptr, event_id) = if interrupt {
        // Never 0: a zero mailbox means "not signalled".
        let id = EVENT_IDS.fetch_add(1, Ordering::Relaxed).max(1);
        (a + MAILBOX, id)
    } else {
        (0, 0)
    };
    let rec = AmdSignal {
        kind: AMD_SIGNAL_KIND_USER,
        value: initial,
        event_mailbox_ptr,
        event_id,
        reserved1: 0,
        start_ts: 0,
        end_ts: 0,
        queue_ptr: 0,
        reserved3: [0; 2],
    };
    // SAFETY: `a` is a 64-byte, 64-aligned slot of runtime memory that no
    // live signal uses (it came off the free list).
    unsafe { (a as *mut AmdSignal).write_volatile(rec) };
    live().write().unwrap_or_else(|e| e.into_inner()).insert(a);
    Ok(s)
}

/// Releases a signal made by [`new_signal`].
pub fn free_signal(s: Signal) -> bool {
    let removed = live()
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&s.handle);
    if removed {
        for off in [0, QUEUE_PTR] {
            if let Some(k) = field_u64(s, off) {
                k.store(0, Ordering::Relaxed);
            }
        }
        lock(&POOL).free.push(s.handle);
    }
    removed
}

pub fn create(
    initial: i64,
    num_consumers: u32,
    consumers: *const Agent,
    out: *mut Signal,
) -> Status {
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    let Some(list) = get_slice(consumers, num_consumers as usize) else {
        return ERROR_INVALID_ARGUMENT;
    };
    if list.iter().any(|a| !rt::is_agent(*a)) {
        return ERROR_INVALID_AGENT;
    }
    if out.is_null() {
        return ERROR_INVALID_ARGUMENT;
    }
    // As ROCr: an interrupt signal unless only GPUs consume it.
    let interrupt = list.is_empty() || list.iter().any(|a| a.handle == rt::AGENT_CPU);
    make(initial, interrupt, out)
}

fn make(initial: i64, interrupt: bool, out: *mut Signal) -> Status {
    match new_signal(initial, interrupt) {
        Ok(s) => put(out as *mut c_void, s),
        Err(e) => e,
    }
}

/// The emulator's interrupt hook: a wave sent `MSG_INTERRUPT` with `m0`.
/// Like the kernel driver given a partial event ID, finds every interrupt
/// signal whose mailbox was written with an ID whose low byte is the
/// payload, clears the mailbox and wakes the waiters.
pub fn interrupt(m0: u32) {
    let payload = m0 & 0xff;
    let mut woken = 0;
    let live = live().read().unwrap_or_else(|e| e.into_inner());
    for &a in live.iter() {
        let s = h(a);
        let (Some(mb), Some(id)) = (field_u64(s, MAILBOX), field_u64(s, 24)) else {
            continue;
        };
        let id = id.load(Ordering::Relaxed) as u32;
        if id == 0 || id & 0xff != payload {
            continue;
        }
        if mb.swap(0, Ordering::AcqRel) != 0 {
            woken += 1;
        }
    }
    drop(live);
    crate::trace::note(&format!(
        "device interrupt (M0 {m0:#x}): {woken} signal(s) woken"
    ));
    if woken > 0 {
        rt::ring();
    }
}

pub fn amd_create(
    initial: i64,
    num_consumers: u32,
    consumers: *const Agent,
    attributes: u64,
    out: *mut Signal,
) -> Status {
    // HSA_AMD_SIGNAL_AMD_GPU_ONLY: no interrupt (no host waiter to wake).
    if attributes & 1 != 0 {
        if rt().is_none() {
            return ERROR_NOT_INITIALIZED;
        }
        let Some(list) = get_slice(consumers, num_consumers as usize) else {
            return ERROR_INVALID_ARGUMENT;
        };
        if list.iter().any(|a| !rt::is_agent(*a)) {
            return ERROR_INVALID_AGENT;
        }
        if out.is_null() {
            return ERROR_INVALID_ARGUMENT;
        }
        return make(initial, false, out);
    }
    create(initial, num_consumers, consumers, out)
}

pub fn destroy(s: Signal) -> Status {
    if rt::rt_any().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    if free_signal(s) {
        SUCCESS
    } else {
        crate::trace::fail(
            ERROR_INVALID_SIGNAL,
            format!("hsa_signal_destroy: {:#x} is not a live signal", s.handle),
        )
    }
}

pub fn load(s: Signal) -> i64 {
    value(s)
}

pub fn store(s: Signal, v: i64) {
    if let Some(c) = cell(s) {
        c.store(v, Ordering::Release);
        changed(s);
    }
}

pub fn silent_store(s: Signal, v: i64) {
    if let Some(c) = cell(s) {
        c.store(v, Ordering::Release);
    }
}

macro_rules! rmw {
    ($name:ident, $op:ident) => {
        pub fn $name(s: Signal, v: i64) {
            if let Some(c) = cell(s) {
                c.$op(v, Ordering::AcqRel);
                changed(s);
            }
        }
    };
}
rmw!(add, fetch_add);
rmw!(subtract, fetch_sub);
rmw!(and, fetch_and);
rmw!(or, fetch_or);
rmw!(xor, fetch_xor);

pub fn exchange(s: Signal, v: i64) -> i64 {
    let old = cell(s).map_or(0, |c| c.swap(v, Ordering::AcqRel));
    changed(s);
    old
}

pub fn cas(s: Signal, expected: i64, v: i64) -> i64 {
    let old = cell(s).map_or(0, |c| {
        match c.compare_exchange(expected, v, Ordering::AcqRel, Ordering::Acquire) {
            Ok(x) | Err(x) => x,
        }
    });
    changed(s);
    old
}

/// Whether `v` satisfies `cond` against `cmp`.
pub fn satisfied(cond: u32, v: i64, cmp: i64) -> bool {
    match cond {
        SIGNAL_CONDITION_EQ => v == cmp,
        SIGNAL_CONDITION_NE => v != cmp,
        SIGNAL_CONDITION_LT => v < cmp,
        SIGNAL_CONDITION_GTE => v >= cmp,
        _ => true,
    }
}

pub fn value_pointer(s: Signal, out: *mut *mut i64) -> Status {
    if !is_valid(s) {
        return ERROR_INVALID_SIGNAL;
    }
    put(out as *mut c_void, (s.handle + 8) as *mut i64)
}

// Signal groups: a leaked list of signals, the handle its address.

pub fn group_create(
    n: u32,
    signals: *const Signal,
    nc: u32,
    consumers: *const Agent,
    out: *mut SignalGroup,
) -> Status {
    let _ = (nc, consumers);
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    let Some(list) = get_slice(signals, n as usize) else {
        return ERROR_INVALID_ARGUMENT;
    };
    if n == 0 || list.iter().any(|s| !is_valid(*s)) {
        return ERROR_INVALID_ARGUMENT;
    }
    let b = Box::into_raw(Box::new(list));
    groups().insert(b as u64);
    put(out as *mut c_void, h(b as u64))
}

fn groups() -> std::sync::MutexGuard<'static, HashSet<u64>> {
    static G: OnceLock<Mutex<HashSet<u64>>> = OnceLock::new();
    lock(G.get_or_init(|| Mutex::new(HashSet::new())))
}

pub fn group_list(g: SignalGroup) -> Option<Vec<Signal>> {
    if !groups().contains(&g.handle) {
        return None;
    }
    // SAFETY: the handle is in the live group set, so it is a pointer from
    // `Box::into_raw` in `group_create` that `group_destroy` has not freed.
    Some(unsafe { (*(g.handle as *const Vec<Signal>)).clone() })
}

pub fn group_destroy(g: SignalGroup) -> Status {
    if !groups().remove(&g.handle) {
        return 0x1024; // HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP
    }
    // SAFETY: removed from the live set just now, so this is the only free
    // of the `Box` made in `group_create`.
    drop(unsafe { Box::from_raw(g.handle as *mut Vec<Signal>) });
    SUCCESS
}

// Asynchronous handlers.

type Handler = extern "C" fn(i64, *mut c_void) -> bool;

#[derive(Debug, Clone, Copy)]
struct Pending {
    signal: Signal,
    cond: u32,
    value: i64,
    handler: Handler,
    arg: u64,
}

static HANDLERS: Mutex<Vec<Pending>> = Mutex::new(Vec::new());

fn start_handler_thread() {
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        let _ = std::thread::Builder::new()
            .name("lathe-hsa-async".into())
            .spawn(handler_loop);
    });
}

/// Wakes the handler thread when a handler is registered.
static HANDLERS_ADDED: std::sync::Condvar = std::sync::Condvar::new();

fn handler_loop() {
    loop {
        // Sleep without polling while no handler is registered.
        {
            let mut hs = lock(&HANDLERS);
            while hs.is_empty() {
                hs = HANDLERS_ADDED.wait(hs).unwrap_or_else(|e| e.into_inner());
            }
        }
        let ready = rt::block_until(None, || {
            let mut hs = lock(&HANDLERS);
            let i = hs
                .iter()
                .position(|p| satisfied(p.cond, value(p.signal), p.value))?;
            Some(hs.swap_remove(i))
        });
        let Some(p) = ready else { continue };
        let v = value(p.signal);
        if (p.handler)(v, p.arg as *mut c_void) {
            lock(&HANDLERS).push(p);
        }
    }
}

pub fn async_handler(
    s: Signal,
    cond: u32,
    value: i64,
    handler: Option<Handler>,
    arg: *mut c_void,
) -> Status {
    if rt().is_none() {
        return ERROR_NOT_INITIALIZED;
    }
    if !is_valid(s) {
        return ERROR_INVALID_SIGNAL;
    }
    let Some(handler) = handler else {
        return ERROR_INVALID_ARGUMENT;
    };
    if cond > SIGNAL_CONDITION_GTE {
        return ERROR_INVALID_ARGUMENT;
    }
    lock(&HANDLERS).push(Pending {
        signal: s,
        cond,
        value,
        handler,
        arg: arg as u64,
    });
    start_handler_thread();
    HANDLERS_ADDED.notify_all();
    rt::ring();
    SUCCESS
}

pub fn async_function(f: Option<extern "C" fn(*mut c_void)>, arg: *mut c_void) -> Status {
    let Some(f) = f else {
        return ERROR_INVALID_ARGUMENT;
    };
    let a = arg as u64;
    std::thread::spawn(move || f(a as *mut c_void));
    SUCCESS
}

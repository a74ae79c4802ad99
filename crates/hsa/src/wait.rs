//! Host threads waiting on signals (`hsa_signal_wait_*`,
//! `hsa_amd_signal_wait_any`, `hsa_signal_group_wait_any_*`).
//!
//! A waiter whose signal is the completion signal of a packet pending on
//! a queue runs that queue's packets up to it on its own thread
//! (`queue::help`, D44) instead of sleeping until the queue's processor
//! thread has run them: a launch followed by a wait then costs no thread
//! hand-off, which on shared cores is what made launches slow. Only waits
//! that may last (a timeout of at least [`HELP_MIN_TIMEOUT`], or none)
//! help: a short timed wait returns on time, whatever a kernel would take.

use std::ffi::c_void;
use std::time::{Duration, Instant};

use crate::ffi::*;
use crate::out::{get_slice, put};
use crate::queue;
use crate::rt;
use crate::signal::{self, satisfied, value};

/// The shortest timeout (signal ticks, ns) with which a wait runs packets.
const HELP_MIN_TIMEOUT: u64 = 1_000_000_000;

fn deadline(timeout_ticks: u64) -> Option<Instant> {
    if timeout_ticks == u64::MAX {
        return None;
    }
    Instant::now().checked_add(Duration::from_nanos(timeout_ticks))
}

pub fn signal_wait(s: Signal, cond: u32, cmp: i64, timeout: u64, state: u32) -> i64 {
    let _ = state;
    if !signal::is_handle(s) {
        return 0;
    }
    let d = deadline(timeout);
    let help = timeout >= HELP_MIN_TIMEOUT;
    rt::wait_until(
        d,
        || help && queue::help(&[s]),
        || {
            let v = value(s);
            satisfied(cond, v, cmp).then_some(v)
        },
    )
    .unwrap_or_else(|| value(s))
}

pub fn amd_wait_any(
    n: u32,
    signals: *const Signal,
    conds: *const u32,
    values: *const i64,
    timeout: u64,
    state: u32,
    out: *mut i64,
) -> u32 {
    let _ = state;
    let (Some(sig), Some(cs), Some(vs)) = (
        get_slice(signals, n as usize),
        get_slice(conds, n as usize),
        get_slice(values, n as usize),
    ) else {
        return u32::MAX;
    };
    let d = deadline(timeout);
    let help = timeout >= HELP_MIN_TIMEOUT;
    let hit = rt::wait_until(
        d,
        || help && queue::help(&sig),
        || {
            (0..sig.len()).find_map(|i| {
                let v = value(sig[i]);
                satisfied(cs[i], v, vs[i]).then_some((i, v))
            })
        },
    );
    match hit {
        Some((i, v)) => {
            if !out.is_null() {
                put(out as *mut c_void, v);
            }
            i as u32
        }
        None => u32::MAX,
    }
}

pub fn group_wait_any(
    g: SignalGroup,
    conds: *const u32,
    values: *const i64,
    state: u32,
    signal_out: *mut Signal,
    value_out: *mut i64,
) -> Status {
    let Some(list) = signal::group_list(g) else {
        return 0x1024;
    };
    let (Some(cs), Some(vs)) = (get_slice(conds, list.len()), get_slice(values, list.len())) else {
        return ERROR_INVALID_ARGUMENT;
    };
    let _ = state;
    let (i, v) = rt::wait_until(
        None,
        || queue::help(&list),
        || {
            (0..list.len()).find_map(|i| {
                let v = value(list[i]);
                satisfied(cs[i], v, vs[i]).then_some((i, v))
            })
        },
    )
    .unwrap_or((0, 0));
    put(signal_out as *mut c_void, list[i]);
    put(value_out as *mut c_void, v);
    SUCCESS
}

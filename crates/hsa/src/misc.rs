//! Small AMD extension entries with nothing to model on an APU-style
//! emulator: migration, system events, deallocation callbacks.

use std::ffi::c_void;

use crate::ffi::*;
use crate::out::put;

pub fn pool_can_migrate(src: Pool, dst: Pool, result: *mut bool) -> Status {
    let _ = (src, dst);
    put(result as *mut c_void, false)
}

pub fn register_system_event_handler(
    cb: Option<extern "C" fn(*const c_void, *mut c_void) -> Status>,
    data: *mut c_void,
) -> Status {
    let _ = (cb, data);
    // Lathe raises no system events (memory faults abort, as in ROCr, after
    // the queue's error callback).
    SUCCESS
}

pub fn runtime_queue_create_register(
    cb: Option<extern "C" fn(*const HsaQueue, Agent, *mut c_void)>,
    data: *mut c_void,
) -> Status {
    let _ = (cb, data);
    SUCCESS
}

pub fn register_deallocation_callback(
    ptr: *mut c_void,
    cb: Option<extern "C" fn(*mut c_void, *mut c_void)>,
    data: *mut c_void,
) -> Status {
    let _ = data;
    if ptr.is_null() || cb.is_none() {
        return ERROR_INVALID_ARGUMENT;
    }
    SUCCESS
}

pub fn deregister_deallocation_callback(
    ptr: *mut c_void,
    cb: Option<extern "C" fn(*mut c_void, *mut c_void)>,
) -> Status {
    if ptr.is_null() || cb.is_none() {
        return ERROR_INVALID_ARGUMENT;
    }
    SUCCESS
}

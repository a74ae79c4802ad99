#![doc = include_str!("../README.md")]
#![warn(missing_docs)]
#![allow(non_snake_case)]

/// The `.lathe.addr_map` section instrumented code objects carry (written
/// and read by lathe-dbi).
pub use lathe_dbi::addr_map;
pub mod api;
pub mod capture;
pub mod config;
pub mod instr;
pub mod intercept;
pub mod kernarg;
pub mod memtrace;
mod state;

use std::ffi::{c_char, c_void};

/// Called by the runtime at `hsa_init` with its API table. Returns false
/// (the runtime then reports the tool as failed) if the table lacks an
/// entry the library needs.
///
/// # Safety
/// `table` must be the runtime's live `HsaApiTable` (the tools contract).
#[no_mangle]
pub unsafe extern "C" fn OnLoad(
    table: *mut c_void,
    runtime_version: u64,
    failed_tool_count: u64,
    failed_tool_names: *const *const c_char,
) -> bool {
    let _ = (runtime_version, failed_tool_count, failed_tool_names);
    intercept::on_load(table as *mut api::HsaApiTable)
}

/// Lathe's runtime calls this instead of [`OnUnload`] when the run ends
/// early (a kernel fault, a signal): the JSON output is written with what
/// was collected, marked incomplete with `reason`.
///
/// # Safety
/// `reason` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn LatheIncomplete(reason: *const c_char) {
    let why = if reason.is_null() {
        "the run ended early".to_string()
    } else {
        // SAFETY: the caller passes a NUL-terminated string.
        unsafe { std::ffi::CStr::from_ptr(reason) }
            .to_string_lossy()
            .into_owned()
    };
    intercept::finish_incomplete(&why);
}

/// Called by the runtime at its last `hsa_shut_down`: writes the JSON
/// output if one was asked for (also written at process exit).
#[no_mangle]
pub extern "C" fn OnUnload() {
    intercept::finish();
}

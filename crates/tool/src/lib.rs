//! `liblathe_tool.so`: an `HSA_TOOLS_LIB` tool library that instruments a
//! running HIP application's kernel dispatches with lathe-dbi's built-in
//! tools (`lathe exec --tool`), through the public HSA API only.
//!
//! Any runtime that loads `HSA_TOOLS_LIB` tools calls [`OnLoad`] with its
//! API table (ROCm 5.2 `hsa_api_trace.h`). The library reads the entries it
//! needs from the table ([`api`]) and wraps:
//!
//! * `hsa_code_object_reader_create_from_memory`/`_from_file` and
//!   `hsa_executable_load_agent_code_object`: the code object bytes loaded
//!   into each executable;
//! * `hsa_executable_freeze`: the executable's kernels, so a dispatch's
//!   `kernel_object` names a kernel and its code object;
//! * `hsa_queue_create`: every queue becomes an intercepted queue
//!   (`hsa_amd_queue_intercept_create` + `_register`, as rocprofiler does),
//!   so every packet the application submits reaches [`intercept`] first.
//!
//! A selected dispatch (`LATHE_TOOL_KERNELS`, `LATHE_TOOL_LAUNCHES`; see
//! [`config`]) runs the instrumented kernel: built once per kernel and
//! cached ([`instr`]), loaded into its own executable through the public
//! loader API; its probe-data variable (`__lathe_dbi_data`) points at a
//! buffer in fine-grained system memory. Everything else runs unchanged.
//!
//! **Concurrency policy.** Instrumented dispatches are serialized
//! process-wide: the interceptor submits one, waits for its own completion
//! signal, reads and decodes the probe data, then signals the
//! application's completion signal, before it returns — so each launch's
//! probe data is exactly that launch's, and the buffer is reused. Other
//! packets pass through without waiting.
//!
//! **Device globals.** The instrumented code object is a separate
//! executable with its own copy of the kernel's writable data (`__device__`
//! variables). Before an instrumented dispatch the library drains the
//! queue (a barrier packet), copies the original's writable segments into
//! the copy, and copies them back after completion, so the kernel sees and
//! leaves the application's values. A host write to those variables on
//! another queue while an instrumented dispatch runs would be lost.

#![allow(non_snake_case)]

pub mod addr_map;
pub mod api;
pub mod config;
pub mod instr;
pub mod intercept;

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

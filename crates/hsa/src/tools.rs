//! `HSA_TOOLS_LIB`: at the first `hsa_init`, each listed library (space or
//! colon separated) is loaded and its `OnLoad(HsaApiTable*,
//! runtime_version, failed_tool_count, failed_tool_names)` called with the
//! live API table, so entries it replaces are the ones HIP then calls.
//! `OnUnload()` is called at the last `hsa_shut_down`. When the run ends
//! early (a kernel fault, a signal), a tool's optional Lathe entry
//! `LatheIncomplete(const char* reason)` is called instead, so it can
//! mark its output incomplete (`lathe-tool` does).

use std::ffi::{c_char, c_void, CString};
use std::sync::Mutex;

use crate::rt::lock;
use crate::table::tables;

type OnLoad = extern "C" fn(*mut c_void, u64, u64, *const *const c_char) -> bool;
type OnUnload = extern "C" fn();
type LatheIncomplete = extern "C" fn(*const c_char);

static LOADED: Mutex<Vec<usize>> = Mutex::new(Vec::new());

/// Loads the tools named by `HSA_TOOLS_LIB`.
pub fn load() {
    let Ok(list) = std::env::var("HSA_TOOLS_LIB") else {
        return;
    };
    let mut failed: Vec<CString> = Vec::new();
    for name in list.split([' ', ':']).filter(|s| !s.is_empty()) {
        let Ok(c) = CString::new(name) else { continue };
        // SAFETY: dlopen with a valid C string; the library's constructors
        // run, which is what loading a tool means.
        let lib = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW) };
        if lib.is_null() {
            eprintln!("lathe-hsa: HSA_TOOLS_LIB: cannot load {name}");
            failed.push(c);
            continue;
        }
        // SAFETY: `lib` is a live handle; the name is a valid C string.
        let sym = unsafe { libc::dlsym(lib, c"OnLoad".as_ptr()) };
        if sym.is_null() {
            crate::trace::note(&format!("HSA_TOOLS_LIB: {name} has no OnLoad"));
            lock(&LOADED).push(lib as usize);
            continue;
        }
        // SAFETY: `OnLoad` has this C signature by the tools contract
        // (ROCm 5.2 hsa_api_trace.h).
        let on_load: OnLoad = unsafe { std::mem::transmute::<*mut c_void, OnLoad>(sym) };
        let names: Vec<*const c_char> = failed.iter().map(|c| c.as_ptr()).collect();
        let ok = on_load(
            tables().root as *mut c_void,
            0x0105_0000,
            names.len() as u64,
            names.as_ptr(),
        );
        if ok {
            lock(&LOADED).push(lib as usize);
        } else {
            eprintln!("lathe-hsa: HSA_TOOLS_LIB: {name}: OnLoad failed");
            failed.push(c);
        }
    }
}

/// Calls every loaded tool's `OnUnload`, last loaded first.
pub fn unload() {
    let libs: Vec<usize> = std::mem::take(&mut *lock(&LOADED));
    for lib in libs.into_iter().rev() {
        // SAFETY: `lib` is a handle from dlopen that was never closed.
        let sym = unsafe { libc::dlsym(lib as *mut c_void, c"OnUnload".as_ptr()) };
        if !sym.is_null() {
            // SAFETY: `OnUnload` is `void OnUnload()` by the tools contract.
            let f: OnUnload = unsafe { std::mem::transmute::<*mut c_void, OnUnload>(sym) };
            f();
        }
    }
}

/// The run ends early: every loaded tool's `LatheIncomplete(reason)` if it
/// has one, else its `OnUnload`, last loaded first.
pub fn abandon(reason: &str) {
    let why = CString::new(reason.replace('\0', " ")).unwrap_or_default();
    let libs: Vec<usize> = std::mem::take(&mut *lock(&LOADED));
    for lib in libs.into_iter().rev() {
        // SAFETY: `lib` is a handle from dlopen that was never closed.
        let sym = unsafe { libc::dlsym(lib as *mut c_void, c"LatheIncomplete".as_ptr()) };
        if !sym.is_null() {
            // SAFETY: Lathe's tool entry has this C signature (lathe-tool's
            // `LatheIncomplete`).
            let f: LatheIncomplete =
                unsafe { std::mem::transmute::<*mut c_void, LatheIncomplete>(sym) };
            f(why.as_ptr());
            continue;
        }
        // SAFETY: as in `unload`.
        let sym = unsafe { libc::dlsym(lib as *mut c_void, c"OnUnload".as_ptr()) };
        if !sym.is_null() {
            // SAFETY: `OnUnload` is `void OnUnload()` by the tools contract.
            let f: OnUnload = unsafe { std::mem::transmute::<*mut c_void, OnUnload>(sym) };
            f();
        }
    }
}

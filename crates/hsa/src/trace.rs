//! `LATHE_TRACE=api`: one line per HSA call on stderr with its arguments
//! and result; notes (unsupported features, bad arguments) are printed
//! whenever `LATHE_TRACE` is set to anything, and errors always.

use std::sync::OnceLock;

fn level() -> &'static (bool, bool) {
    static L: OnceLock<(bool, bool)> = OnceLock::new();
    L.get_or_init(|| match std::env::var("LATHE_TRACE") {
        Ok(v) => (v.split(',').any(|x| x == "api" || x == "all"), true),
        Err(_) => (false, false),
    })
}

/// Whether API calls are traced.
pub fn api_enabled() -> bool {
    level().0
}

/// Prints one traced call.
pub fn api_call(name: &str, args: &str, result: &str) {
    eprintln!("lathe-hsa: {name}({args}) = {result}");
}

/// A note shown when tracing is on (e.g. an unsupported feature asked for).
pub fn note(msg: &str) {
    if level().1 {
        eprintln!("lathe-hsa: {msg}");
    }
}

/// An error status returned with its reason (shown when tracing is on).
pub fn fail(status: u32, msg: impl std::fmt::Display) -> u32 {
    if level().1 {
        eprintln!("lathe-hsa: error {status:#x}: {msg}");
    }
    status
}

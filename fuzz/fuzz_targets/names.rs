//! Fuzzes how users name things: the kernel-name matcher and the demangled
//! name splitting of `lathe_codeobj::names`, and the launch-sequence spec of
//! `lathe run` (`{"launches": [...]}`). Inputs naming a file are skipped.
#![no_main]

use std::path::Path;

use lathe_codeobj::names::{parameters, resolve, unqualified, without_parameters};
use lathe_emu::launch::LaunchSpec;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // First line: the pattern; the rest: candidate symbol names.
    let mut lines = text.lines();
    let pattern = lines.next().unwrap_or("");
    let names: Vec<&str> = lines.take(64).collect();
    match resolve(pattern, names.iter().copied(), "kernel") {
        Ok(n) => assert!(names.contains(&n), "{n} is not a candidate"),
        Err(e) => {
            for c in e.candidates() {
                assert!(names.contains(&c.mangled.as_str()));
            }
            let _ = e.to_string();
        }
    }
    for n in names.iter().chain([&pattern]) {
        let q = without_parameters(n);
        let _ = unqualified(q);
        if let Some(ps) = parameters(n) {
            for p in ps {
                assert!(n.contains(p));
            }
        }
    }
    if !text.contains('@') && !text.contains("\"file\"") {
        let _ = LaunchSpec::sequence_from_json(text, Path::new("/nonexistent/lathe-fuzz"));
    }
});

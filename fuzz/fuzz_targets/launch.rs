//! Fuzzes the launch-spec parsers of `lathe run`: the JSON spec, the `-a`
//! argument syntax, fill names and scalar values. Inputs naming a file
//! (`@PATH`, `"file":`) are skipped: reading files is not parsing.
#![no_main]

use std::path::Path;

use lathe_emu::launch::{parse_cli_arg, scalar_bytes, Arg, Fill, LaunchSpec};
use libfuzzer_sys::fuzz_target;

/// Exercises a parsed argument the way a launch would, within bounds.
fn touch(a: &Arg) {
    if let Arg::Buffer { fill, size, .. } = a {
        let mut total = 0u64;
        fill.generate((*size).min(1 << 18), |off, c| {
            assert_eq!(off, total);
            total += c.len() as u64;
        });
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if text.contains('@') || text.contains("\"file\"") {
        return;
    }
    if let Ok(spec) = LaunchSpec::from_json(text, Path::new("/nonexistent/lathe-fuzz")) {
        spec.args.iter().for_each(touch);
    }
    for (i, line) in text.lines().enumerate().take(64) {
        if let Ok(a) = parse_cli_arg(i, line) {
            touch(&a);
        }
        if let Ok(f) = Fill::parse(line) {
            let _ = f.bytes(64);
        }
        if let Some((ty, v)) = line.split_once('=') {
            if let Ok(b) = scalar_bytes(ty, v) {
                assert!(matches!(b.len(), 1 | 2 | 4 | 8), "{ty}={v}: {b:?}");
            }
        }
    }
});

//! Fuzzes HIP tool manifests and tool code objects (both untrusted input
//! to `lathe run/exec --tool DIR`): the input is manifest text, optionally
//! followed by `\0OBJ\0` and the bytes of a tool code object. The manifest
//! is parsed (`Manifest::parse`); if it parses and an object follows, the
//! tool is built from them (`HipTool::from_parts`: target check, lifting
//! and analysing every named hook, parameter checks) and its report is
//! formatted from arbitrary variable bytes. Every path must end in a value
//! or a typed error, never a panic.
#![no_main]

use std::path::{Path, PathBuf};

use lathe_dbi::manifest::{HipTool, Manifest};
use libfuzzer_sys::fuzz_target;

const SPLIT: &[u8] = b"\0OBJ\0";

fuzz_target!(|data: &[u8]| {
    let (text, obj) = match data.windows(SPLIT.len()).position(|w| w == SPLIT) {
        Some(i) => (&data[..i], Some(&data[i + SPLIT.len()..])),
        None => (data, None),
    };
    let text = String::from_utf8_lossy(text);
    let Ok(m) = Manifest::parse(&text, Path::new("/nonexistent/tool.json")) else {
        return;
    };
    let Some(obj) = obj else { return };
    for target in ["gfx90a", "gfx942"] {
        if let Ok(t) = HipTool::from_parts(
            m.clone(),
            "",
            obj.to_vec(),
            target,
            PathBuf::from("/nonexistent/tool.co"),
        ) {
            let mut bytes = obj.iter().copied().cycle();
            let v = t.report(&mut |_, n| Some(bytes.by_ref().take(n).collect()));
            let _ = t.report_line(&v);
            let _ = t.reset_values();
        }
    }
});

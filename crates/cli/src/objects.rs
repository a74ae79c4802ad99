//! The code objects inside an input file: the file itself if it is a code
//! object, else the entries of every bundle it holds, optionally selected for
//! a target.

use anyhow::{Context, Result};
use lathe_bundle::{select, FileKind, Limits, Policy, TargetId};

use crate::bundle_cmd::discover_file;
use crate::input::Input;

/// One code object and where it came from.
pub struct CodeObjectBytes {
    /// Human-readable origin.
    pub origin: String,
    /// The same as JSON: `file`, and for a bundle entry `bundle` (index),
    /// `bundle_offset` (the bundle's offset in the file), `entry` (index),
    /// `id` and `entry_offset` (the entry's offset from the bundle start).
    pub origin_json: serde_json::Value,
    /// The ELF bytes.
    pub bytes: Vec<u8>,
}

/// Every device code object in `input` (bitcode and host entries skipped);
/// with `target`, only each bundle's selected entry.
pub fn code_objects(
    input: &Input,
    target: Option<&TargetId>,
    policy: Policy,
) -> Result<Vec<CodeObjectBytes>> {
    let limits = Limits::default();
    let d = discover_file(input, &limits)?;
    if d.kind == FileKind::CodeObject {
        return Ok(vec![CodeObjectBytes {
            origin: input.name(),
            origin_json: serde_json::json!({ "file": input.name() }),
            bytes: input.bytes().to_vec(),
        }]);
    }
    let mut out = Vec::new();
    for b in &d.bundles {
        let opened = b
            .open(&limits)
            .with_context(|| format!("bundle {}", b.index))?;
        let bundle = opened.bundle(&limits).map_err(|e| b.wrap(e))?;
        let entries = bundle.entries();
        let chosen: Vec<usize> = match target {
            Some(t) => select(entries, t, policy).chosen.into_iter().collect(),
            None => (0..entries.len()).collect(),
        };
        for i in chosen {
            let e = &entries[i];
            if e.id.is_host() || !e.data.starts_with(b"\x7fELF") {
                continue;
            }
            out.push(CodeObjectBytes {
                origin: format!(
                    "bundle {} entry {} ({})",
                    b.index,
                    e.index,
                    e.id.to_string_lossy()
                ),
                origin_json: serde_json::json!({
                    "file": input.name(),
                    "bundle": b.index,
                    "bundle_offset": b.file_offset,
                    "entry": e.index,
                    "id": e.id.to_string_lossy(),
                    "entry_offset": e.offset,
                }),
                bytes: e.data.to_vec(),
            });
        }
    }
    Ok(out)
}

//! `lathe info` for SPIR-V bundle entries (`amdgcnspirv`): the module's
//! version, generator, capabilities, extensions, memory model and entry
//! points, and the fact that it needs compiling for an agent first.

use std::fmt::Write as _;

use lathe_codeobj::spirv::{self, Module};
use serde_json::{json, Value};

/// Describes a SPIR-V module found at `origin`; a malformed one is reported
/// as an error line (and an `error` object) like an unreadable code object.
pub fn describe(origin: &str, origin_json: Value, bytes: &[u8], text: &mut String) -> Value {
    let m = match Module::parse(bytes) {
        Ok(m) => m,
        Err(e) => {
            let _ = writeln!(text, "  {origin}: error: not a readable SPIR-V module: {e}");
            return json!({"origin": origin_json, "error": format!("not a readable SPIR-V module: {e}")});
        }
    };
    let caps: Vec<String> = m
        .capabilities
        .iter()
        .map(|&c| spirv::capability_name(c))
        .collect();
    let memory = m
        .memory_model
        .map(|(a, mm)| spirv::memory_model_names(a, mm));
    let _ = writeln!(
        text,
        "  SPIR-V module {origin}: SPIR-V {}.{}{}, generator {}, {} instructions \
         (portable code: compiled for the agent at load time; Lathe does not compile it)",
        m.version.0,
        m.version.1,
        if m.big_endian { " (big-endian)" } else { "" },
        m.generator,
        m.instructions,
    );
    let _ = writeln!(text, "    capabilities: {}", caps.join(", "));
    if !m.extensions.is_empty() {
        let _ = writeln!(text, "    extensions: {}", m.extensions.join(", "));
    }
    if let Some((a, mm)) = &memory {
        let _ = writeln!(text, "    memory model: {a} {mm}");
    }
    let _ = writeln!(text, "    entry points ({}):", m.entry_points.len());
    for e in &m.entry_points {
        let shown = lathe_codeobj::names::demangle(&e.name).unwrap_or_else(|| e.name.clone());
        let _ = writeln!(text, "      {} {shown}", e.execution_model_name());
    }
    json!({
        "origin": origin_json,
        "spirv": {
            "version": format!("{}.{}", m.version.0, m.version.1),
            "big_endian": m.big_endian,
            "generator": {"tool": m.generator.tool(), "version": m.generator.version(), "name": m.generator.tool_name()},
            "bound": m.bound,
            "instructions": m.instructions,
            "capabilities": caps,
            "extensions": m.extensions,
            "memory_model": memory.map(|(a, mm)| json!({"addressing": a, "memory": mm})),
            "entry_points": m.entry_points.iter().map(|e| json!({
                "name": e.name,
                "execution_model": e.execution_model_name(),
            })).collect::<Vec<_>>(),
        },
    })
}

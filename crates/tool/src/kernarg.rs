//! The `kernarg` tool's arguments by type: lathe-dbi decodes each argument
//! as the little-endian integer of its bytes; here each explicit argument
//! gets its C type from the kernel's demangled signature (`scale(float*,
//! float, int)`: the explicit arguments in metadata order are the
//! parameters in order) and its value is shown as that type — a `float`
//! as a number, a pointer as `0x…` text, a signed integer with its sign.
//! Hidden arguments that hold addresses are shown in hex too. The raw
//! integer stays in `bits`, the bytes in `bytes`.

use serde_json::{json, Value};

/// The parameter types of a demangled function signature (`f(int, T<a,
/// b>*)` → `["int", "T<a, b>*"]`); empty for `f()` or `f(void)`, `None`
/// without a parameter list.
pub fn param_types(demangled: &str) -> Option<Vec<String>> {
    let open = demangled.find('(')?;
    let inner = demangled.get(open + 1..demangled.rfind(')')?)?;
    let mut out = Vec::new();
    let (mut depth, mut cur) = (0i32, String::new());
    for ch in inner.chars() {
        match ch {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(ch);
    }
    let last = cur.trim();
    if !last.is_empty() && last != "void" {
        out.push(last.to_string());
    }
    Some(out)
}

/// Hidden arguments whose value is an address.
const ADDRESS_KINDS: [&str; 8] = [
    "global_buffer",
    "dynamic_shared_pointer",
    "hidden_printf_buffer",
    "hidden_hostcall_buffer",
    "hidden_default_queue",
    "hidden_completion_action",
    "hidden_multigrid_sync_arg",
    "hidden_heap_v1",
];

/// `value` (the argument's bytes as a little-endian integer, `size` bytes)
/// shown as C type `ty`.
fn typed_value(ty: &str, kind: &str, size: u64, value: u64) -> Value {
    let t = ty
        .replace("const", "")
        .replace("volatile", "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if t.ends_with('*') || t.ends_with('&') || ADDRESS_KINDS.contains(&kind) {
        return json!(format!("{value:#x}"));
    }
    let signed = |bits: u32| -> Value {
        let shift = 64 - bits;
        json!(((value << shift) as i64) >> shift)
    };
    match (t.as_str(), size) {
        ("float", 4) => json!(f32::from_bits(value as u32)),
        ("double", 8) => json!(f64::from_bits(value)),
        ("bool", _) => json!(value != 0),
        ("char" | "signed char", 1) | ("short", 2) | ("int", 4) | ("long" | "long long", 8) => {
            signed(size as u32 * 8)
        }
        _ => json!(value),
    }
}

/// Gives the `kernarg` tool's `args` (objects with `kind`, `size`,
/// `value`) their types from `demangled` and their values as those types;
/// fills `block_dim` from `block` (the dispatch packet's work-group size)
/// when the kernel has no hidden group sizes (code object v4).
pub fn type_args(v: &mut Value, demangled: &str, block: Option<[u16; 3]>) {
    let params = param_types(demangled).unwrap_or_default();
    if let Some(args) = v["args"].as_array_mut() {
        let mut next = params.iter();
        for a in args.iter_mut() {
            let kind = a["kind"].as_str().unwrap_or("").to_string();
            let size = a["size"].as_u64().unwrap_or(0);
            let Some(raw) = a["value"].as_u64() else {
                continue;
            };
            let ty = if kind.starts_with("hidden_") {
                None
            } else {
                next.next().cloned()
            };
            a["bits"] = json!(raw);
            match &ty {
                Some(t) => {
                    a["type"] = json!(t);
                    a["value"] = typed_value(t, &kind, size, raw);
                }
                None if ADDRESS_KINDS.contains(&kind.as_str()) => {
                    a["value"] = json!(format!("{raw:#x}"));
                }
                None => {}
            }
        }
    }
    if v["block_dim"].is_null() {
        if let Some(b) = block {
            v["block_dim"] = json!(b);
            v["block_dim_source"] = json!("dispatch packet");
        }
    } else if v.get("block_dim_source").is_none() {
        v["block_dim_source"] = json!("hidden group size");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_split_at_top_level_commas() {
        assert_eq!(
            param_types("f(int, std::pair<int, float>*, float (*)(int, int))"),
            Some(vec![
                "int".to_string(),
                "std::pair<int, float>*".into(),
                "float (*)(int, int)".into()
            ])
        );
        assert_eq!(param_types("g()"), Some(vec![]));
        assert_eq!(param_types("g(void)"), Some(vec![]));
        assert_eq!(param_types("g"), None);
    }

    #[test]
    fn values_follow_their_types() {
        let mut v = json!({"args": [
            {"kind": "global_buffer", "size": 8, "value": 94701244588032u64},
            {"kind": "by_value", "size": 4, "value": 1073741824u64},
            {"kind": "by_value", "size": 4, "value": 0xffff_fffeu64},
            {"kind": "hidden_block_count_x", "size": 4, "value": 3},
        ], "block_dim": null});
        type_args(&mut v, "scale(float*, float, int)", Some([128, 1, 1]));
        let a = &v["args"];
        assert_eq!(a[0]["value"], "0x56215a0b2000");
        assert_eq!(a[0]["type"], "float*");
        assert_eq!(a[1]["value"], 2.0);
        assert_eq!(a[1]["bits"], 1073741824u64);
        assert_eq!(a[2]["value"], -2);
        assert_eq!(a[3]["value"], 3);
        assert!(a[3].get("type").is_none());
        assert_eq!(v["block_dim"], json!([128, 1, 1]));
    }
}

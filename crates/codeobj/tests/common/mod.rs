//! Shared test helpers: corpus builds, LLVM tool runners and parsers for
//! their text output (a small YAML subset parser for `llvm-readelf --notes`).
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use lathe_codeobj::Value;
use lathe_testkit::{llvm_tool, run_text, Build, Output};

/// One corpus code object to test against.
#[derive(Debug, Clone)]
pub struct Case {
    pub label: String,
    pub path: PathBuf,
}

/// The matrix of bare code objects built from the corpus.
pub fn corpus_cases() -> Vec<Case> {
    let mut out = Vec::new();
    for src in ["vecops.hip", "reduce.hip", "codeobj_features.hip"] {
        for arch in [
            "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100", "gfx1151", "gfx1201",
        ] {
            for opt in ["-O0", "-O3"] {
                let mut b = Build::new(src, &[arch], Output::CodeObject);
                b.opt = opt;
                out.push(Case {
                    label: format!("{src} {arch} {opt}"),
                    path: b.build(),
                });
            }
        }
    }
    out.extend(rdc_objects());
    out.extend(rdc_linked());
    out
}

/// Linked `-fgpu-rdc` code objects (two metadata notes each), taken from a
/// shared library's offload bundle.
pub fn rdc_linked() -> Vec<Case> {
    let mut b = Build::new("rdc_main.hip", &["gfx90a", "gfx1100"], Output::SharedLib);
    b.sources.push("rdc_lib.hip");
    b.rdc = true;
    let so = b.build();
    let data = std::fs::read(&so).expect("read");
    let mut out = Vec::new();
    for item in lathe_bundle::walk(&data, &lathe_bundle::Limits::default()).expect("walk") {
        let e = item.expect("entry");
        let Some(t) = e.parsed_id().target_id() else {
            continue;
        };
        let name = format!(
            "{}-{}.co",
            so.file_stem().expect("stem").to_string_lossy(),
            t.processor.name()
        );
        let path = so.with_file_name(name);
        std::fs::write(&path, &*e.data).expect("write");
        out.push(Case {
            label: format!("rdc linked {}", t.processor.name()),
            path,
        });
    }
    assert_eq!(out.len(), 2);
    out
}

/// Relocatable (`ET_REL`) device objects from `-fgpu-rdc`: kernels calling
/// device functions and using a variable defined in another object.
pub fn rdc_objects() -> Vec<Case> {
    let mut out = Vec::new();
    for src in ["rdc_main.hip", "rdc_lib.hip"] {
        for arch in ["gfx90a", "gfx1100"] {
            let mut b = Build::new(src, &[arch], Output::CodeObject);
            // testkit asks for an ET_REL ELF object (not bitcode) with rdc.
            b.rdc = true;
            out.push(Case {
                label: format!("{src} {arch} rdc"),
                path: b.build(),
            });
        }
    }
    out
}

pub fn readelf(args: &[&str], path: &Path) -> String {
    run_text(Command::new(llvm_tool("llvm-readelf")).args(args).arg(path))
}

pub fn objdump(args: &[&str], path: &Path) -> String {
    run_text(Command::new(llvm_tool("llvm-objdump")).args(args).arg(path))
}

/// A YAML node of the subset LLVM prints.
#[derive(Debug, Clone, PartialEq)]
pub enum Yaml {
    Null,
    Bool(bool),
    Int(i128),
    Float(f64),
    Str(String),
    Seq(Vec<Yaml>),
    Map(Vec<(String, Yaml)>),
}

/// Extracts every metadata YAML document from `llvm-readelf --notes`.
pub fn notes_yaml(notes: &str) -> Vec<Yaml> {
    let mut docs = Vec::new();
    let mut lines = notes.lines();
    while let Some(l) = lines.next() {
        if l.trim() == "---" {
            let mut body = Vec::new();
            for l in lines.by_ref() {
                if l.trim_end() == "..." {
                    break;
                }
                body.push(l);
            }
            docs.push(parse_yaml(&body));
        }
    }
    docs
}

pub fn parse_yaml(lines: &[&str]) -> Yaml {
    let mut ls: Vec<(usize, String)> = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let ind = l.len() - l.trim_start().len();
            (ind, l.trim().to_string())
        })
        .collect();
    let mut pos = 0;
    let indent = ls.first().map_or(0, |l| l.0);
    node(&mut ls, &mut pos, indent)
}

fn node(ls: &mut Vec<(usize, String)>, pos: &mut usize, indent: usize) -> Yaml {
    let Some((ind, text)) = ls.get(*pos).cloned() else {
        return Yaml::Null;
    };
    assert!(ind >= indent, "bad indentation at {text}");
    if text == "-" || text.starts_with("- ") {
        let mut items = Vec::new();
        while let Some((i, t)) = ls.get(*pos).cloned() {
            if i != ind || !(t == "-" || t.starts_with("- ")) {
                break;
            }
            let rest = t.strip_prefix('-').unwrap_or("").trim_start().to_string();
            if rest.is_empty() {
                *pos += 1;
                items.push(node(ls, pos, ind + 1));
            } else {
                let off = t.len() - rest.len();
                ls[*pos] = (ind + off, rest);
                items.push(node(ls, pos, ind + off));
            }
        }
        return Yaml::Seq(items);
    }
    if let Some((k, _)) = split_key(&text) {
        let _ = k;
        let mut entries = Vec::new();
        while let Some((i, t)) = ls.get(*pos).cloned() {
            if i != ind {
                assert!(i < ind, "unexpected indentation at {t}");
                break;
            }
            let Some((key, val)) = split_key(&t) else {
                break;
            };
            *pos += 1;
            let v = if val.is_empty() {
                match ls.get(*pos) {
                    Some((ni, nt)) if *ni > ind || (*ni == ind && nt.starts_with("- ")) => {
                        let ni = *ni;
                        node(ls, pos, ni)
                    }
                    _ => Yaml::Null,
                }
            } else {
                scalar(&val)
            };
            entries.push((key, v));
        }
        return Yaml::Map(entries);
    }
    *pos += 1;
    scalar(&text)
}

fn split_key(t: &str) -> Option<(String, String)> {
    if t.starts_with('\'') || t.starts_with('"') || t.starts_with('[') {
        return None;
    }
    if let Some(k) = t.strip_suffix(':') {
        return Some((k.to_string(), String::new()));
    }
    let i = t.find(": ")?;
    Some((t[..i].to_string(), t[i + 2..].trim().to_string()))
}

fn scalar(s: &str) -> Yaml {
    let s = s.trim();
    if let Some(rest) = s.strip_prefix("!str ") {
        return Yaml::Str(unquote(rest.trim()));
    }
    if let Some(rest) = s.strip_prefix('!') {
        let (tag, v) = rest.split_once(' ').unwrap_or((rest, ""));
        return match tag {
            "int" => Yaml::Int(v.parse().expect("int tag")),
            "bool" => Yaml::Bool(v == "true"),
            "nil" => Yaml::Null,
            "float" => Yaml::Float(v.parse().expect("float tag")),
            _ => Yaml::Str(unquote(v)),
        };
    }
    if s.starts_with('\'') || s.starts_with('"') {
        return Yaml::Str(unquote(s));
    }
    if let Some(inner) = s.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
        let items = inner.split(',').map(str::trim).filter(|x| !x.is_empty());
        return Yaml::Seq(items.map(scalar).collect());
    }
    match s {
        "~" | "null" => return Yaml::Null,
        "true" => return Yaml::Bool(true),
        "false" => return Yaml::Bool(false),
        _ => {}
    }
    if let Ok(i) = s.parse::<i128>() {
        return Yaml::Int(i);
    }
    if let Some(h) = s.strip_prefix("0x") {
        if let Ok(i) = i128::from_str_radix(h, 16) {
            return Yaml::Int(i);
        }
    }
    if s.contains('.') || s.contains('e') {
        if let Ok(f) = s.parse::<f64>() {
            return Yaml::Float(f);
        }
    }
    Yaml::Str(s.to_string())
}

fn unquote(s: &str) -> String {
    if let Some(inner) = s.strip_prefix('\'').and_then(|x| x.strip_suffix('\'')) {
        return inner.replace("''", "'");
    }
    if let Some(inner) = s.strip_prefix('"').and_then(|x| x.strip_suffix('"')) {
        let mut out = String::new();
        let mut it = inner.chars();
        while let Some(c) = it.next() {
            if c == '\\' {
                match it.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('0') => out.push('\0'),
                    Some(o) => out.push(o),
                    None => {}
                }
            } else {
                out.push(c);
            }
        }
        return out;
    }
    s.to_string()
}

/// Compares a msgpack tree with the YAML LLVM printed for it; returns the
/// differences (empty = equal). Map keys are compared as sets with equal
/// values; sequences element by element.
pub fn diff_value_yaml(v: &Value<'_>, y: &Yaml, path: &str, out: &mut Vec<String>) {
    match (v, y) {
        (Value::Map(m), Yaml::Map(ym)) => {
            let mine: BTreeMap<String, &Value<'_>> = m
                .iter()
                .map(|(k, v)| (k.as_str().map_or_else(|| k.to_string(), str::to_string), v))
                .collect();
            let theirs: BTreeMap<&str, &Yaml> = ym.iter().map(|(k, v)| (k.as_str(), v)).collect();
            if mine.len() != m.len() || theirs.len() != ym.len() {
                out.push(format!("{path}: duplicate keys"));
            }
            for k in mine.keys() {
                if !theirs.contains_key(k.as_str()) {
                    out.push(format!("{path}: key {k} only in ours"));
                }
            }
            for (k, yv) in &theirs {
                match mine.get(*k) {
                    Some(mv) => diff_value_yaml(mv, yv, &format!("{path}.{k}"), out),
                    None => out.push(format!("{path}: key {k} only in llvm-readelf")),
                }
            }
        }
        (Value::Array(a), Yaml::Seq(s)) => {
            if a.len() != s.len() {
                out.push(format!("{path}: {} elements vs {}", a.len(), s.len()));
            }
            for (i, (av, sv)) in a.iter().zip(s).enumerate() {
                diff_value_yaml(av, sv, &format!("{path}[{i}]"), out);
            }
        }
        (Value::UInt(u), Yaml::Int(i)) if i128::from(*u) == *i => {}
        (Value::Int(u), Yaml::Int(i)) if i128::from(*u) == *i => {}
        (Value::Bool(a), Yaml::Bool(b)) if a == b => {}
        (Value::Str(a), Yaml::Str(b)) if a == b => {}
        (Value::Float(a), Yaml::Float(b)) if a == b => {}
        (Value::Nil, Yaml::Null) => {}
        _ => out.push(format!("{path}: ours {v:?} vs llvm-readelf {y:?}")),
    }
}

/// A row of `llvm-readelf -s --wide`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymRow {
    pub num: usize,
    pub value: u64,
    pub size: u64,
    pub ty: String,
    pub bind: String,
    pub vis: String,
    pub ndx: String,
    pub name: String,
}

/// Symbol tables from `llvm-readelf -s --wide`, keyed by table name.
pub fn readelf_symbols(text: &str) -> BTreeMap<String, Vec<SymRow>> {
    let mut out: BTreeMap<String, Vec<SymRow>> = BTreeMap::new();
    let mut cur: Option<String> = None;
    for l in text.lines() {
        if let Some(rest) = l.strip_prefix("Symbol table '") {
            let name = rest.split('\'').next().unwrap_or("").to_string();
            out.entry(name.clone()).or_default();
            cur = Some(name);
            continue;
        }
        let Some(t) = &cur else { continue };
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() < 7 || !f[0].ends_with(':') || f[0] == "Num:" {
            continue;
        }
        let size = if let Some(h) = f[2].strip_prefix("0x") {
            u64::from_str_radix(h, 16).expect("hex size")
        } else {
            f[2].parse().expect("size")
        };
        // Visibility may be followed by "[<other>: ...]".
        let mut i = 6;
        if f[6].starts_with('[') {
            while !f[i].ends_with(']') {
                i += 1;
            }
            i += 1;
        }
        let ndx = f.get(i).copied().unwrap_or("").to_string();
        let name = f.get(i + 1..).map(|r| r.join(" ")).unwrap_or_default();
        out.get_mut(t).expect("table").push(SymRow {
            num: f[0].trim_end_matches(':').parse().expect("num"),
            value: u64::from_str_radix(f[1], 16).expect("value"),
            size,
            ty: f[3].to_string(),
            bind: f[4].to_string(),
            vis: f[5].to_string(),
            ndx,
            name,
        });
    }
    out
}

/// A row of `llvm-readelf -r --wide`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelRow {
    pub section: String,
    pub offset: u64,
    pub info: u64,
    pub ty: String,
    pub sym_name: String,
    pub addend: Option<i64>,
}

pub fn readelf_relocs(text: &str) -> Vec<RelRow> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for l in text.lines() {
        if let Some(rest) = l.strip_prefix("Relocation section '") {
            cur = rest.split('\'').next().unwrap_or("").to_string();
            continue;
        }
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() < 3 || cur.is_empty() || u64::from_str_radix(f[0], 16).is_err() {
            continue;
        }
        let (sym_name, addend) = match f.len() {
            3 => (String::new(), None),
            4 => (String::new(), parse_signed_hex(f[3], "+")),
            _ => {
                // value name [+|- addend]
                let name = f[4].to_string();
                let add = if f.len() >= 7 {
                    parse_signed_hex(f[6], f[5])
                } else {
                    None
                };
                (name, add)
            }
        };
        out.push(RelRow {
            section: cur.clone(),
            offset: u64::from_str_radix(f[0], 16).expect("offset"),
            info: u64::from_str_radix(f[1], 16).expect("info"),
            ty: f[2].to_string(),
            sym_name,
            addend,
        });
    }
    out
}

fn parse_signed_hex(s: &str, sign: &str) -> Option<i64> {
    let v = i64::from_str_radix(s, 16).ok()?;
    Some(if sign == "-" { -v } else { v })
}

/// `.amdhsa_*` directives and `; NAME value` comments per kernel from
/// `llvm-objdump -D --disassemble-symbols=...`.
pub fn objdump_kds(text: &str) -> BTreeMap<String, Vec<(String, i64)>> {
    let mut out = BTreeMap::new();
    let mut cur: Option<(String, Vec<(String, i64)>)> = None;
    for l in text.lines() {
        let t = l.trim();
        if let Some(name) = t.strip_prefix(".amdhsa_kernel ") {
            cur = Some((name.to_string(), Vec::new()));
            continue;
        }
        if t == ".end_amdhsa_kernel" {
            if let Some((n, v)) = cur.take() {
                out.insert(n, v);
            }
            continue;
        }
        let Some((_, v)) = cur.as_mut() else { continue };
        let t = t.trim_start_matches("; ");
        let mut f = t.split_whitespace();
        if let (Some(k), Some(val)) = (f.next(), f.next()) {
            v.push((k.to_string(), val.parse().expect("directive value")));
        }
    }
    out
}

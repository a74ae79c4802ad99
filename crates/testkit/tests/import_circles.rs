//! Imports between the files of a crate go one way: this test builds, per
//! crate, the graph of `crate::module` references between its modules
//! (comment lines ignored; a module and its own parent or child do not
//! count) and fails on every circle (strongly connected set of more than
//! one module) that is not in `KNOWN`. `KNOWN` is a ratchet: a listed
//! circle that grows, or that has gone, fails the test too, so the list
//! only shrinks.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Circles not yet broken, as (crate, sorted modules).
const KNOWN: &[(&str, &[&str])] = &[
    (
        "hsa",
        &[
            "agent",
            "api",
            "capture",
            "check",
            "exec",
            "interrupt",
            "memory",
            "queue",
            "report",
            "rt",
            "signal",
            "table",
            "tools",
            "truth",
        ],
    ),
    ("isa", &["enc", "generated::gfx9", "opcode", "target"]),
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Module path (`a::b`, the crate root is "") → source without comment
/// lines, for every `.rs` file under `src`.
fn modules(src: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).expect("read src dir") {
            let p = e.expect("dir entry").path();
            if p.is_dir() {
                dirs.push(p);
                continue;
            }
            if p.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let rel = p.strip_prefix(src).expect("under src").with_extension("");
            let mut parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(
                parts.last().map(String::as_str),
                Some("mod" | "lib" | "main")
            ) {
                parts.pop();
            }
            let text = std::fs::read_to_string(&p).expect("read source");
            let code: Vec<&str> = text
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect();
            out.insert(parts.join("::"), code.join("\n"));
        }
    }
    out
}

/// Edges module → module named by `crate::…` paths.
fn graph(mods: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (m, code) in mods {
        for (i, _) in code.match_indices("crate::") {
            if i > 0 && {
                let b = code.as_bytes()[i - 1];
                b.is_ascii_alphanumeric() || b == b'_'
            } {
                continue; // `lathe_crate::` and the like
            }
            let rest = &code[i + "crate::".len()..];
            let path: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
            let Some(target) = (1..=parts.len())
                .rev()
                .map(|k| parts[..k].join("::"))
                .find(|t| mods.contains_key(t))
            else {
                continue;
            };
            let related = target == *m
                || m.starts_with(&format!("{target}::"))
                || target.starts_with(&format!("{m}::"));
            if !related {
                g.entry(m.clone()).or_default().insert(target);
            }
        }
    }
    g
}

/// Strongly connected sets of more than one module (Tarjan).
fn circles(g: &BTreeMap<String, BTreeSet<String>>, nodes: &[String]) -> Vec<Vec<String>> {
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<String, usize>,
        low: BTreeMap<String, usize>,
        stack: Vec<String>,
        on: BTreeSet<String>,
        out: Vec<Vec<String>>,
    }
    fn visit(t: &mut T<'_>, v: &str) {
        let n = t.index.len();
        t.index.insert(v.into(), n);
        t.low.insert(v.into(), n);
        t.stack.push(v.into());
        t.on.insert(v.into());
        let next: Vec<String> = t.g.get(v).into_iter().flatten().cloned().collect();
        for w in next {
            if !t.index.contains_key(&w) {
                visit(t, &w);
                let lw = t.low[&w];
                let lv = t.low.get_mut(v).expect("visited");
                *lv = (*lv).min(lw);
            } else if t.on.contains(&w) {
                let iw = t.index[&w];
                let lv = t.low.get_mut(v).expect("visited");
                *lv = (*lv).min(iw);
            }
        }
        if t.low[v] == t.index[v] {
            let mut c = Vec::new();
            loop {
                let w = t.stack.pop().expect("on stack");
                t.on.remove(&w);
                let done = w == v;
                c.push(w);
                if done {
                    break;
                }
            }
            if c.len() > 1 {
                c.sort();
                t.out.push(c);
            }
        }
    }
    let mut t = T {
        g,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in nodes {
        if !t.index.contains_key(v) {
            visit(&mut t, v);
        }
    }
    t.out
}

#[test]
fn imports_between_files_go_one_way() {
    let crates = workspace().join("crates");
    let mut found: Vec<(String, Vec<String>)> = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(&crates)
        .expect("read crates/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("src").is_dir())
        .collect();
    names.sort();
    assert!(names.len() >= 10, "crates/ has {} crates", names.len());
    for dir in names {
        let name = dir
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let mods = modules(&dir.join("src"));
        let nodes: Vec<String> = mods.keys().cloned().collect();
        for c in circles(&graph(&mods), &nodes) {
            found.push((name.clone(), c));
        }
    }
    let known: Vec<(String, Vec<String>)> = KNOWN
        .iter()
        .map(|(c, m)| (c.to_string(), m.iter().map(|s| s.to_string()).collect()))
        .collect();
    let new: Vec<_> = found.iter().filter(|f| !known.contains(f)).collect();
    let gone: Vec<_> = known.iter().filter(|k| !found.contains(k)).collect();
    assert!(
        new.is_empty(),
        "import circles between files (crate, modules that import each other): {new:?}"
    );
    assert!(
        gone.is_empty(),
        "circles listed in KNOWN are gone or changed: update the list: {gone:?}"
    );
}

#[test]
fn a_circle_is_found() {
    let mods: BTreeMap<String, String> = [
        ("a", "use crate::b::X;"),
        ("b", "fn f() { crate::c::g() }"),
        ("c", "use crate::a::Y;"),
        ("d", "use lathe_crate::a; use crate::d::inner;"),
        ("d::inner", "use crate::d::Z;"),
    ]
    .iter()
    .map(|(m, s)| (m.to_string(), s.to_string()))
    .collect();
    let nodes: Vec<String> = mods.keys().cloned().collect();
    let c = circles(&graph(&mods), &nodes);
    assert_eq!(c, vec![vec!["a".to_string(), "b".into(), "c".into()]]);
}

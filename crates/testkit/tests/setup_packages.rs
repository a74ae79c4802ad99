//! Every external program the tests, benchmarks, scripts and the README's
//! commands run comes from a Debian package that `scripts/setup.sh`
//! installs. A fresh machine then has everything `scripts/test.sh` needs,
//! and a tool added without its package fails here, on any machine,
//! including one where the package happens to be installed already.
//!
//! Two layers:
//! * static (any machine): the repository is scanned for the programs it
//!   runs (`llvm_tool("…")`, `Command::new(…)`, absolute `/usr/…` paths,
//!   the LLVM tools the Python scripts name, the commands of the shell
//!   scripts); each must be in [`PROGRAMS`], and each package there must be
//!   in the matching `want` list of `scripts/setup.sh`;
//! * dynamic (Debian, where `dpkg` exists; required under
//!   `LATHE_REQUIRE_EXTERNAL`): `dpkg -S` on the program's path, and on
//!   every symlink it goes through, names the package [`PROGRAMS`] claims.

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a test failure

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Which `want` list of `scripts/setup.sh` must hold the package.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum List {
    /// `want=(…)`: installed by `scripts/setup.sh` (tests, README commands).
    Tests,
    /// `want+=(…)` under `--bench`: the benchmarks' extra inputs.
    Bench,
}

/// A program (or input file) the repository uses, and its Debian package.
struct Program {
    /// Absolute path. Programs run by bare name (`python3`, `cc`) are
    /// listed at their Debian path, `/usr/bin/NAME`: a developer's `PATH`
    /// may put another one first (pyenv), but a fresh machine runs this.
    path: &'static str,
    package: &'static str,
    list: List,
    /// Who runs it.
    used_by: &'static str,
}

const fn p(
    path: &'static str,
    package: &'static str,
    list: List,
    used_by: &'static str,
) -> Program {
    Program {
        path,
        package,
        list,
        used_by,
    }
}

const L22: &str = "/usr/lib/llvm-22/bin/";

/// Every external program Lathe's tests, benchmarks and scripts run.
const PROGRAMS: &[Program] = &[
    p(
        "/usr/lib/llvm-22/bin/clang++",
        "clang-22",
        List::Tests,
        "testkit corpus builds, cases host cross-check, make-demo.sh",
    ),
    p(
        "/usr/lib/llvm-22/bin/clang",
        "clang-22",
        List::Tests,
        "bundle target oracle",
    ),
    p(
        "/usr/lib/llvm-22/bin/clang-offload-bundler",
        "clang-tools-22",
        List::Tests,
        "clang++ itself when bundling (--offload-compress), bundle tests, ccob_jax.py",
    ),
    p(
        "/usr/lib/llvm-22/bin/ld.lld",
        "lld-22",
        List::Tests,
        "clang++ (amdgcn-link), testkit link_shared, cases",
    ),
    p(
        "/usr/lib/llvm-22/bin/llvm-objdump",
        "llvm-22",
        List::Tests,
        "isa oracles, disasm_rocsparse.py, gen/llvm.py",
    ),
    p(
        "/usr/lib/llvm-22/bin/llvm-mc",
        "llvm-22",
        List::Tests,
        "isa sweeps, regen check",
    ),
    p(
        "/usr/lib/llvm-22/bin/llvm-readelf",
        "llvm-22",
        List::Tests,
        "bundle/cases tests, bench/peer.py",
    ),
    p(
        "/usr/lib/llvm-22/bin/llvm-objcopy",
        "llvm-22",
        List::Tests,
        "bundle tests, bench/peer.py",
    ),
    p(
        "/usr/lib/llvm-22/bin/llvm-nm",
        "llvm-22",
        List::Tests,
        "cases build",
    ),
    p(
        "/usr/lib/llvm-22/bin/llvm-cxxfilt",
        "llvm-22",
        List::Tests,
        "codeobj host test",
    ),
    p(
        "/usr/lib/llvm-22/bin/llc",
        "llvm-22",
        List::Tests,
        "bundle target oracle (-mcpu=help)",
    ),
    p(
        "/usr/lib/llvm-22/bin/opt",
        "llvm-22",
        List::Tests,
        "emu trig_preop reference (LLVM's constant folding)",
    ),
    p(
        "/usr/lib/llvm-22/bin/llvm-strip",
        "llvm-22",
        List::Tests,
        "scripts/make-demo.sh",
    ),
    p(
        "/usr/bin/hipcc",
        "hipcc",
        List::Tests,
        "cases build (device math library)",
    ),
    p(
        "/usr/bin/make",
        "make",
        List::Bench,
        "bench/programs.py (HeCBench programs' own Makefiles)",
    ),
    p(
        "/usr/bin/perf",
        "linux-perf",
        List::Bench,
        "bench/hsa.py --cpu (perf stat task-clock per launch)",
    ),
    p(
        "/usr/lib/llvm-15/bin/clang++",
        "clang-15",
        List::Tests,
        "codeobj oracle (code object V2/V3)",
    ),
    p(
        "/usr/lib/llvm-15/bin/clang-offload-bundler",
        "clang-tools-15",
        List::Tests,
        "codeobj oracle, rocsparse test, bundle_rocsparse.py",
    ),
    p(
        "/usr/bin/python3",
        "python3-minimal",
        List::Tests,
        "isa regen check, scripts/setup.sh, bench/",
    ),
    p(
        "/usr/bin/cc",
        "gcc",
        List::Tests,
        "cargo build scripts (cc crate: zstd-sys)",
    ),
    p(
        "/usr/bin/gcc",
        "gcc",
        List::Tests,
        "hsa tests: HSA-level C programs and HSA_TOOLS_LIB tools against Debian's headers",
    ),
    p(
        "/usr/bin/g++",
        "g++",
        List::Tests,
        "hsa tests: struct layout check against Debian's ROCm 5.2 headers, C++ tool library",
    ),
    p(
        "/usr/bin/c++",
        "g++",
        List::Tests,
        "cargo build of fuzz/ (libfuzzer-sys compiles libFuzzer)",
    ),
    p(
        "/usr/lib/x86_64-linux-gnu/librocsparse.so.0",
        "librocsparse0",
        List::Tests,
        "cli usability tests (info/extract on a real 1.3 GB fat library); librocsparse-dev, which the hsa tests need, depends on it anyway",
    ),
    p(
        "/usr/lib/x86_64-linux-gnu/librocsparse.so.0.1",
        "librocsparse0",
        List::Tests,
        "bundle rocsparse test, bundle_rocsparse.py, disasm_rocsparse.py",
    ),
];

/// Programs not from Debian packages: the Rust toolchain comes from rustup.
const NOT_DEBIAN: &[&str] = &["cargo", "rustfmt", "rustup", "cargo-fuzz", "lathe"];

/// Commands of the shell scripts that need no `want` entry: shell
/// keywords and builtins, and tools of Debian's Essential packages (checked
/// to be Essential below), plus the package tools setup.sh itself runs.
const SHELL_BASE: &[&str] = &[
    "if",
    "then",
    "else",
    "elif",
    "fi",
    "for",
    "do",
    "done",
    "while",
    "case",
    "esac",
    "in",
    "set",
    "cd",
    "echo",
    "exit",
    "return",
    "continue",
    "break",
    "local",
    "export",
    "shift",
    "mapfile",
    "read",
    "[[",
    "[",
    "]]",
    "true",
    "false",
    "command",
    "test",
    "exec",
    "trap",
    "wait",
    "source",
    "!",
    "{",
    "}",
    "(",
    ")",
    "ls",
    "mkdir",
    "rm",
    "mv",
    "cp",
    "ln",
    "cat",
    "id",
    "dirname",
    "mktemp",
    "tail",
    "head",
    "grep",
    "sed",
    "dpkg-query",
    "apt-get",
    "sudo",
    "SUDO",
    "sh",
];

/// Path constants naming directories, not programs.
const DIRS: &[&str] = &[
    "/usr/lib/llvm-22/bin",
    "/usr/lib/llvm-15/bin",
    "/usr/include/hsa",
    "/usr/bin/env",
    // Where HIP tools look for ROCm's device libraries (Debian's
    // rocm-device-libs installs the x86_64-linux-gnu one).
    "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
    "/usr/lib/amdgcn/bitcode",
    "/opt/rocm",
    "/opt/rocm/amdgcn/bitcode",
    "/opt/rocm/lib/llvm/lib/clang/amdgcn/bitcode",
];

fn root() -> PathBuf {
    lathe_testkit::workspace_root()
}

/// The `want=(…)` and `--bench` `want+=(…)` lists of scripts/setup.sh.
fn want_lists() -> (BTreeSet<String>, BTreeSet<String>) {
    let text = std::fs::read_to_string(root().join("scripts/setup.sh")).unwrap();
    let list = |marker: &str| -> BTreeSet<String> {
        let start = text
            .find(marker)
            .unwrap_or_else(|| panic!("scripts/setup.sh has no `{marker}`"))
            + marker.len();
        let end = start + text[start..].find(')').unwrap();
        text[start..end]
            .split_whitespace()
            .map(str::to_owned)
            .collect()
    };
    (list("\nwant=("), list("want+=("))
}

/// Files whose commands count: sources, scripts, benchmarks, docs.
fn scanned_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() {
                if !matches!(
                    name.as_str(),
                    "target" | ".git" | ".cache" | "corpus" | "seeds"
                ) {
                    walk(&p, out);
                }
            } else if name.ends_with(".rs")
                || name.ends_with(".py")
                || name.ends_with(".sh")
                || name.ends_with(".md")
                || p.parent()
                    .is_some_and(|d| d.file_name().is_some_and(|n| n == ".ci"))
            {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root(), &mut out);
    // This file names the programs as data, not as uses.
    out.retain(|p| !p.ends_with("crates/testkit/tests/setup_packages.rs"));
    out.sort();
    out
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '+' | '-' | '/')
}

/// The word starting at `s` (program names and paths).
fn word(s: &str) -> &str {
    &s[..s.find(|c| !is_word(c)).unwrap_or(s.len())]
}

/// Every program a file runs, by the patterns described in the module doc.
fn programs_in(path: &Path, text: &str, found: &mut BTreeMap<String, BTreeSet<String>>) {
    let rel = path.strip_prefix(root()).unwrap().display().to_string();
    let mut add = |prog: String| {
        found.entry(prog).or_default().insert(rel.clone());
    };
    let after = |pat: &str| -> Vec<String> {
        text.match_indices(pat)
            .map(|(i, _)| word(&text[i + pat.len()..]).to_string())
            .filter(|w| !w.is_empty())
            .collect()
    };
    for w in after("llvm_tool(\"") {
        add(format!("{L22}{w}"));
    }
    for w in after("Command::new(\"") {
        add(w);
    }
    for pat in ["/usr/lib/", "/usr/bin/", "/opt/"] {
        for (i, _) in text.match_indices(pat) {
            // Only where a path starts (not inside another one).
            if i > 0 && is_word(text[..i].chars().next_back().unwrap()) {
                continue;
            }
            let w = word(&text[i..]).trim_end_matches(['.', '/']);
            if w.len() > pat.len() && !DIRS.contains(&w) {
                add(w.to_string());
            }
        }
    }
    if path.extension().is_some_and(|e| e == "py") {
        // f"{LLVM22}/llvm-objcopy", os.path.join(LLVM_BIN, "llvm-mc")
        for pat in ["{LLVM22}/", "{LLVM}/", "(LLVM_BIN, \""] {
            for w in after(pat) {
                add(format!("{L22}{w}"));
            }
        }
        // subprocess.run(["rustfmt", ...]), sh(["cargo", ...])
        for w in after("([\"").into_iter().filter(|w| !w.starts_with('-')) {
            add(w);
        }
    }
    let shell = path.extension().is_some_and(|e| e == "sh")
        || path
            .parent()
            .is_some_and(|d| d.file_name().is_some_and(|n| n == ".ci"));
    if shell {
        for line in text.lines() {
            for prog in shell_commands(line) {
                add(prog);
            }
        }
    }
}

/// The command words of one shell line: quoted strings, comments, array
/// assignments (`want=(…)`) and redirections removed, then the first word
/// of each simple command (after `|`, `;`, `&&`, `(`, `$(`, `!`).
fn shell_commands(line: &str) -> Vec<String> {
    let mut code = String::new();
    let mut quote = None;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => {
                quote = Some(c);
                code.push_str(" Q ");
            }
            (None, '#') if code.is_empty() || code.ends_with(' ') => break,
            (None, c) => code.push(c),
        }
    }
    // Array assignments: NAME=(…) and NAME+=(…).
    while let Some(i) = code.find("=(") {
        let end = code[i..].find(')').map_or(code.len(), |e| i + e + 1);
        let start = code[..i]
            .rfind(|c: char| c.is_whitespace())
            .map_or(0, |s| s + 1);
        code.replace_range(start..end, " ");
    }
    let mut out = Vec::new();
    for part in code.split(['|', ';', '&', '(', ')', '`', '!']) {
        let Some(first) = part.split_whitespace().find(|t| {
            !t.contains('=') && !t.starts_with('$') && !t.contains('>') && !t.contains('<')
        }) else {
            continue;
        };
        let prog = word(first);
        let plausible = prog.starts_with(|c: char| c.is_ascii_lowercase() || c == '/' || c == '.')
            || matches!(prog, "[[" | "[");
        if prog == first && plausible && prog != "Q" {
            out.push(prog.to_string());
        }
    }
    out
}

/// Programs the shell scanner picks up that are paths inside the
/// repository (`scripts/setup.sh`) or arguments, not external programs.
fn is_repo_path(prog: &str) -> bool {
    !prog.starts_with('/') && root().join(prog).exists()
}

#[test]
fn every_program_used_is_in_the_table_and_its_package_in_setup() {
    let (tests, bench) = want_lists();
    let mut problems = Vec::new();
    for prog in PROGRAMS {
        let list = match prog.list {
            List::Tests => &tests,
            List::Bench => &bench,
        };
        if !list.contains(prog.package) {
            problems.push(format!(
                "{} ({}) needs package {}, which is not in scripts/setup.sh's {:?} want list",
                prog.path, prog.used_by, prog.package, prog.list
            ));
        }
        if prog.list == List::Bench && tests.contains(prog.package) {
            problems.push(format!("{} is in both want lists", prog.package));
        }
    }
    let mut found = BTreeMap::new();
    let files = scanned_files();
    assert!(files.len() > 50, "scanned only {} files", files.len());
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        programs_in(f, &text, &mut found);
    }
    // Programs run by bare name are known by their /usr/bin path.
    let known: BTreeSet<&str> = PROGRAMS
        .iter()
        .flat_map(|p| [p.path, p.path.strip_prefix("/usr/bin/").unwrap_or(p.path)])
        .collect();
    for (prog, files) in &found {
        let known_here = known.contains(prog.as_str())
            || NOT_DEBIAN.contains(&prog.as_str())
            || SHELL_BASE.contains(&prog.as_str())
            || is_repo_path(prog);
        if !known_here {
            problems.push(format!(
                "{prog} (run by {}) is not in PROGRAMS: add it with its Debian package, \
                 and the package to scripts/setup.sh",
                files.iter().cloned().collect::<Vec<_>>().join(", ")
            ));
        }
    }
    // The scanner must see the uses it exists for: a broken pattern would
    // otherwise pass with nothing found.
    for must in [
        "/usr/lib/llvm-22/bin/clang++",
        "/usr/lib/llvm-22/bin/llvm-objcopy",
        "/usr/lib/llvm-22/bin/llvm-mc",
        "/usr/bin/hipcc",
        "python3",
        "cargo",
        "apt-get",
    ] {
        if !found.contains_key(must) {
            problems.push(format!("the scan found no use of {must}: scanner broken?"));
        }
    }
    eprintln!("{} programs found in {} files:", found.len(), files.len());
    for (prog, files) in &found {
        eprintln!(
            "  {prog}: {}",
            files.iter().cloned().collect::<Vec<_>>().join(", ")
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `dpkg -S PATH`'s package names, or none if no package owns it. With
/// merged `/usr`, dpkg may know `/usr/bin/ls` as `/bin/ls`: both are tried.
fn owners(path: &Path) -> Vec<String> {
    let out = Command::new("dpkg").arg("-S").arg(path).output().unwrap();
    if !out.status.success() {
        let unmerged = ["/usr/bin/", "/usr/sbin/", "/usr/lib/"]
            .iter()
            .find_map(|pre| path.to_str()?.strip_prefix(pre).map(|rest| (pre, rest)));
        if let Some((pre, rest)) = unmerged {
            return owners(&Path::new(&pre[4..]).join(rest));
        }
        return Vec::new();
    }
    let text = String::from_utf8_lossy(&out.stdout);
    // A diverted file (linux-perf diverts `/usr/bin/perf`) is listed after
    // `diversion by PKG from: …` / `… to: …` lines.
    let line = text
        .lines()
        .find(|l| !l.starts_with("diversion by "))
        .unwrap_or("");
    let pkgs = line.split(": ").next().unwrap_or("");
    pkgs.split(", ")
        .map(|p| p.split(':').next().unwrap().trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// The path itself and every symlink hop after it (`/usr/bin/cc` ->
/// `/etc/alternatives/cc` -> `/usr/bin/gcc` -> …).
fn hops(path: &Path) -> Vec<PathBuf> {
    let mut out = vec![path.to_path_buf()];
    let mut cur = path.to_path_buf();
    for _ in 0..16 {
        let Ok(next) = std::fs::read_link(&cur) else {
            break;
        };
        cur = if next.is_absolute() {
            next
        } else {
            cur.parent().unwrap().join(next)
        };
        out.push(cur.clone());
    }
    out
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    })
}

#[test]
fn dpkg_names_the_package_of_every_program() {
    if which("dpkg").is_none() {
        assert!(
            !lathe_testkit::require_external(),
            "dpkg missing: the package check needs Debian"
        );
        eprintln!("no dpkg: not a Debian machine, package ownership not checked");
        return;
    }
    let (tests, _) = want_lists();
    let mut problems = Vec::new();
    let mut checked = 0;
    for prog in PROGRAMS {
        let path = PathBuf::from(prog.path);
        let Some(path) = Some(path).filter(|p| p.exists()) else {
            if prog.list == List::Tests {
                problems.push(format!(
                    "{} is not installed: run scripts/setup.sh (package {})",
                    prog.path, prog.package
                ));
            } else {
                eprintln!("{} not installed (scripts/setup.sh --bench)", prog.path);
            }
            continue;
        };
        let chain = hops(&path);
        let all: Vec<(PathBuf, Vec<String>)> =
            chain.iter().map(|h| (h.clone(), owners(h))).collect();
        checked += 1;
        if !all.iter().any(|(_, o)| o.iter().any(|o| o == prog.package)) {
            problems.push(format!(
                "{}: dpkg -S names {:?}, not {} as the table says",
                prog.path, all, prog.package
            ));
        }
    }
    // Shell commands that need no want entry must come from Essential
    // packages (present on every Debian system).
    for cmd in SHELL_BASE {
        let Some(path) = which(cmd) else { continue };
        let pkgs: Vec<String> = hops(&path).iter().flat_map(|h| owners(h)).collect();
        let essential = pkgs.iter().any(|pkg| {
            let out = Command::new("dpkg-query")
                .args(["-W", "-f=${Essential}", pkg])
                .output()
                .unwrap();
            String::from_utf8_lossy(&out.stdout).trim() == "yes"
        });
        let base = ["apt-get", "dpkg-query", "sudo"].contains(cmd);
        if !essential && !base && !pkgs.iter().any(|p| tests.contains(p)) {
            problems.push(format!(
                "{cmd} ({}) is treated as a base command, but its packages {pkgs:?} are not Essential",
                path.display()
            ));
        }
    }
    let required = PROGRAMS.iter().filter(|p| p.list == List::Tests).count();
    assert!(checked >= required, "checked only {checked} programs");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

//! Shared helpers for lathe-isa's integration tests: reading code objects
//! with the `object` crate and comparing our listings with llvm-objdump.

#![allow(clippy::unwrap_used)]
#![allow(dead_code)]

use lathe_isa::{write_listing, ListingSymbol, Style, Target};
use object::{Object, ObjectSection, ObjectSymbol};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// `.text` of an AMDGPU ELF: (address, bytes, symbols in it).
pub struct Text {
    pub addr: u64,
    pub bytes: Vec<u8>,
    pub symbols: Vec<(String, u64, u64)>,
}

pub fn read_text(path: &Path) -> Text {
    let data = std::fs::read(path).expect("read code object");
    text_of(&data)
}

pub fn text_of(data: &[u8]) -> Text {
    let file = object::File::parse(data).expect("parse ELF");
    let sec = file.section_by_name(".text").expect(".text");
    let idx = sec.index();
    let mut symbols = Vec::new();
    for s in file.symbols() {
        if s.section_index() == Some(idx) {
            if let Ok(n) = s.name() {
                if !n.is_empty() {
                    symbols.push((n.to_string(), s.address(), s.size()));
                }
            }
        }
    }
    Text {
        addr: sec.address(),
        bytes: sec.data().expect("text data").to_vec(),
        symbols,
    }
}

/// Our llvm-objdump-style listing of `.text`.
pub fn our_listing(target: Target, t: &Text) -> String {
    let syms: Vec<ListingSymbol<'_>> = t
        .symbols
        .iter()
        .map(|(n, a, s)| ListingSymbol {
            name: n,
            addr: *a,
            size: *s,
        })
        .collect();
    let mut out = String::new();
    write_listing(
        &mut out,
        target,
        &t.bytes,
        t.addr,
        &syms,
        Style::LlvmObjdump,
    )
    .unwrap();
    out
}

/// llvm-objdump's listing of `.text` (headers dropped).
pub fn objdump_listing(target: Target, path: &Path) -> String {
    let out = lathe_testkit::run_text(
        Command::new(lathe_testkit::llvm_tool("llvm-objdump"))
            .args([
                "-d",
                "--no-show-raw-insn",
                "--no-leading-addr",
                "-j",
                ".text",
            ])
            .arg(format!("--mcpu={}", target.name()))
            .args(wave_attr(target))
            .arg(path),
    );
    // Drop "file format" and "Disassembly of section" headers.
    out.lines()
        .filter(|l| !l.contains("file format") && !l.starts_with("Disassembly of section"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// llvm-objdump's `--mattr` for a wave64 GFX10+ target (its default there
/// is wave32), nothing otherwise.
pub fn wave_attr(target: Target) -> Option<&'static str> {
    (target.generation() >= 10 && target.wave_size() == 64).then_some("--mattr=+wavefrontsize64")
}

/// clang's flag for the same.
pub fn wave_flag(target: Target) -> Option<&'static str> {
    wave_attr(target).map(|_| "-mwavefrontsize64")
}

/// Every target the corpus is checked on: [`Target::ALL`] and the wave64
/// forms of the GFX10+ processors.
/// `LATHE_CORPUS_ONLY=gfx1201,gfx1200` keeps only those processors (both
/// wave sizes), for working on one generation.
pub fn corpus_targets() -> Vec<Target> {
    let mut v = Target::ALL.to_vec();
    for t in Target::ALL {
        if t.generation() >= 10 {
            v.extend(t.with_wave_size(64));
        }
    }
    if let Ok(only) = std::env::var("LATHE_CORPUS_ONLY") {
        v.retain(|t| only.split(',').any(|n| n == t.name()));
    }
    v
}

/// Lines with whitespace collapsed, each keyed by the address it belongs
/// to (instruction lines carry it; labels and "..." take the next one), so
/// a difference does not shift every following line.
fn norm(s: &str) -> Vec<(String, String)> {
    let lines: Vec<String> = s
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect();
    let mut out = Vec::new();
    let mut pending = Vec::new();
    for l in lines {
        let addr = l
            .split("// ")
            .nth(1)
            .and_then(|r| r.split(':').next())
            .filter(|a| a.len() == 12 && a.chars().all(|c| c.is_ascii_hexdigit()))
            .map(str::to_string);
        match addr {
            Some(a) => {
                for (i, p) in pending.drain(..).enumerate() {
                    out.push((format!("{a}#{i}"), p));
                }
                out.push((a, l));
            }
            None => pending.push(l),
        }
    }
    for (i, p) in pending.into_iter().enumerate() {
        out.push((format!("end#{i}"), p));
    }
    out
}

/// Compares two listings after collapsing whitespace; returns the
/// mismatching (ours, theirs) line pairs, aligned by address.
pub fn diff_listings(ours: &str, theirs: &str) -> Vec<(String, String)> {
    let a: std::collections::BTreeMap<String, String> = norm(ours).into_iter().collect();
    let b: std::collections::BTreeMap<String, String> = norm(theirs).into_iter().collect();
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut d = Vec::new();
    for k in keys {
        let x = a.get(k).cloned().unwrap_or_default();
        let y = b.get(k).cloned().unwrap_or_default();
        if x != y {
            d.push((x, y));
        }
    }
    d
}

/// `target` with the wave size of the code object's first kernel
/// descriptor (its `ENABLE_WAVEFRONT_SIZE32` bit, kernel_code_properties bit
/// 10) on GFX10+; `target` itself on GFX9 or without descriptors.
pub fn with_kd_wave(target: Target, elf: &[u8]) -> Target {
    use object::{Object, ObjectSection, ObjectSymbol};
    if target.generation() < 10 {
        return target;
    }
    let Ok(file) = object::File::parse(elf) else {
        return target;
    };
    for sym in file.symbols() {
        if !sym.name().is_ok_and(|n| n.ends_with(".kd")) {
            continue;
        }
        let Some(sec) = sym
            .section_index()
            .and_then(|i| file.section_by_index(i).ok())
        else {
            continue;
        };
        let Ok(data) = sec.data() else { continue };
        let off = (sym.address() - sec.address()) as usize + 56;
        if let Some(b) = data.get(off..off + 2) {
            let props = u16::from_le_bytes([b[0], b[1]]);
            let wave = if props & (1 << 10) != 0 { 32 } else { 64 };
            return target.with_wave_size(wave).unwrap_or(target);
        }
    }
    target
}

/// One code object of the jax-rocm7-plugin wheel for a supported target.
pub struct JaxObject {
    pub target: Target,
    /// The `.so` it was found in (file name only).
    pub lib: String,
    /// Content hash, also the stem of its file under `cache/isa-jax`.
    pub key: u64,
    pub bytes: Vec<u8>,
}

/// Every distinct code object of the jax wheel for a supported target, extracted
/// from the `.so` files' bundles with lathe-bundle (no other test's cache).
/// Empty when the wheel is absent, which fails under
/// `LATHE_REQUIRE_EXTERNAL`. A shared library whose bundles do not parse
/// fails the test: the wheel is a known-good input.
pub fn jax_code_objects() -> Vec<JaxObject> {
    use std::hash::{Hash, Hasher};
    let libs = lathe_testkit::jax_plugin_libs();
    if libs.is_empty() {
        assert!(
            !lathe_testkit::require_external(),
            "jax wheel missing: run scripts/setup.sh"
        );
        eprintln!("jax wheel not present; skipped");
        return Vec::new();
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for lib in &libs {
        let data = std::fs::read(lib).unwrap();
        let walk = lathe_bundle::walk(&data, &lathe_bundle::Limits::default())
            .unwrap_or_else(|e| panic!("{}: {e}", lib.display()));
        for entry in walk {
            let entry = entry.unwrap_or_else(|e| panic!("{}: {e}", lib.display()));
            // Targets this crate does not decode yet (RDNA) are skipped;
            // jax.rs checks which targets were found.
            let Some(target) = entry
                .id
                .rsplit("--")
                .next()
                .and_then(|t| Target::from_name(t).ok())
            else {
                continue;
            };
            let bytes: &[u8] = &entry.data;
            let mut h = std::collections::hash_map::DefaultHasher::new();
            bytes.hash(&mut h);
            let key = h.finish();
            if seen.insert((target, key)) {
                out.push(JaxObject {
                    target,
                    lib: lib.file_name().unwrap().to_string_lossy().into_owned(),
                    key,
                    bytes: bytes.to_vec(),
                });
            }
        }
    }
    out
}

/// The GFX10.3 and GFX11 processors added after gfx1030 and gfx1100 (D35):
/// each shares its tables with one of them or with gfx1150 (by probe), so
/// it is built from [`VARIANT_SOURCES`] only (a 2-core machine builds the
/// whole corpus for 32 more targets in about an hour); the jax wheel adds
/// four objects of each non-generic one.
pub fn is_variant(target: Target) -> bool {
    target.generation() >= 10
        && !matches!(
            target.name(),
            "gfx1010" | "gfx1030" | "gfx1100" | "gfx1201" | "gfx1250"
        )
}

/// The corpus sources built for [`is_variant`] targets: control flow,
/// atomics, f16/f64, math library calls, scratch and LDS.
pub const VARIANT_SOURCES: [&str; 7] = [
    "codeobj_features.hip",
    "dbi_divergence.hip",
    "faults.hip",
    "fpmode.hip",
    "k_atomics.hip",
    "k_f64_f16.hip",
    "trig.hip",
];

/// One clang-22 build of a corpus source.
pub struct CorpusBuild {
    pub name: String,
    pub target: Target,
    pub opt: &'static str,
    pub path: std::path::PathBuf,
}

/// Whether the corpus source `name` is built for `target`: `dbi_big.hip`
/// (one 48 KiB unrolled loop of the same few instructions, minutes per
/// build) and `k_mfma.hip` (it `#error`s elsewhere) for gfx90a and gfx942
/// only; `bench_emu.hip` (MFMA builtins) and `occupancy.hip` (AGPRs in
/// inline assembly) for the processors with MFMA and AGPRs; `k_dpp.hip`
/// (GFX9-only DPP controls) for GFX9.
pub fn corpus_builds_for(name: &str, target: Target) -> bool {
    if is_variant(target) && !VARIANT_SOURCES.contains(&name) {
        return false;
    }
    match name {
        "dbi_big.hip" | "k_mfma.hip" => matches!(target, Target::Gfx90a | Target::Gfx942),
        "bench_emu.hip" | "occupancy.hip" => target.has_agprs(),
        // GFX9 DPP controls (row broadcasts, wave shifts): clang refuses
        // them on GFX10+.
        "k_dpp.hip" => target.generation() == 9,
        _ => true,
    }
}

/// Every `corpus/hip` source (except the hipcc-built ones) for every
/// target it builds for ([`corpus_builds_for`]) at -O0 and -O3, built two
/// at a time (cached by lathe-testkit).
pub fn corpus_builds() -> Vec<CorpusBuild> {
    let dir = lathe_testkit::workspace_root().join("corpus/hip");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".hip") && !n.contains("hipcc"))
        .collect();
    names.sort();
    let mut jobs = Vec::new();
    for name in &names {
        for target in corpus_targets() {
            if !corpus_builds_for(name, target) {
                continue;
            }
            for opt in ["-O0", "-O3"] {
                jobs.push((name.clone(), target, opt));
            }
        }
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((name, target, opt)) = jobs.get(i) else {
                    break;
                };
                let src: &'static str = Box::leak(name.clone().into_boxed_str());
                let mut b = lathe_testkit::Build::new(
                    src,
                    &[target.name()],
                    lathe_testkit::Output::CodeObject,
                );
                b.opt = opt;
                b.extra.extend(wave_flag(*target));
                b.rdc = name.starts_with("rdc_") || name.starts_with("k_devlib");
                let path = b.build();
                done.lock().unwrap().push((i, path));
            });
        }
    });
    let mut done = done.into_inner().unwrap();
    done.sort();
    done.into_iter()
        .map(|(i, path)| {
            let (name, target, opt) = jobs[i].clone();
            CorpusBuild {
                name,
                target,
                opt,
                path,
            }
        })
        .collect()
}

/// Builds `crates/isa/tests/kernels/<name>` for `target` with clang-22 at
/// `opt` into lathe-testkit's cache (keyed by the source's content).
pub fn build_test_kernel(name: &str, target: Target, opt: &str) -> std::path::PathBuf {
    build_test_kernel_for(name, target, opt)
}

/// [`build_test_kernel`] for `target`'s wave size too (`-mwavefrontsize64`
/// for a wave64 GFX10+ target).
pub fn build_test_kernel_for(name: &str, target: Target, opt: &str) -> std::path::PathBuf {
    use std::hash::{Hash, Hasher};
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/kernels")
        .join(name);
    let text = std::fs::read(&src).unwrap();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (text, target.name(), opt).hash(&mut h);
    if let Some(f) = wave_flag(target) {
        f.hash(&mut h);
    }
    let out = lathe_testkit::cache_dir().join(format!("isa-kernel-{:016x}.co", h.finish()));
    if !out.exists() {
        let tmp = out.with_extension(format!("tmp{}", std::process::id()));
        lathe_testkit::run_text(
            Command::new(lathe_testkit::llvm_tool("clang++"))
                .args(["-x", "hip", "-nogpuinc", "-nogpulib", opt])
                .arg(format!("--offload-arch={}", target.name()))
                .args(wave_flag(target))
                // Kernels choose their wave-size-specific builtins by it.
                .args(wave_flag(target).map(|_| "-DLATHE_WAVE64"))
                .args(["--cuda-device-only", "--no-gpu-bundle-output"])
                .arg(&src)
                .arg("-o")
                .arg(&tmp),
        );
        std::fs::rename(&tmp, &out).unwrap();
    }
    out
}

/// Runs LLVM on `probes` (each in a 16-byte slot); returns per probe the
/// printed text (with objdump's trailing comment part after the words) and
/// the number of words consumed, or None for `.long`.
pub fn llvm(target: Target, probes: &[Vec<u32>]) -> Vec<Option<(String, usize)>> {
    // Chunks keep the cost of isolating a crashing probe small.
    let mut out = Vec::with_capacity(probes.len());
    for c in probes.chunks(4096) {
        out.extend(llvm_bisect(target, c));
    }
    out
}

pub fn llvm_bisect(target: Target, probes: &[Vec<u32>]) -> Vec<Option<(String, usize)>> {
    if probes.is_empty() {
        return vec![];
    }
    match llvm_try(target, probes) {
        Some(r) => r,
        None if probes.len() == 1 => vec![Some(("<crash>".into(), 0))],
        None => {
            let mid = probes.len() / 2;
            let mut a = llvm_bisect(target, &probes[..mid]);
            a.extend(llvm_bisect(target, &probes[mid..]));
            a
        }
    }
}

pub fn llvm_try(target: Target, probes: &[Vec<u32>]) -> Option<Vec<Option<(String, usize)>>> {
    let dir = lathe_testkit::cache_dir().join("isa-sweep");
    std::fs::create_dir_all(&dir).unwrap();
    // Tests run on parallel threads of one process: name files uniquely.
    static SEQ: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tag = format!("{}-{n}-{}", std::process::id(), target.name());
    let s = dir.join(format!("{tag}.s"));
    let o = dir.join(format!("{tag}.o"));
    let mut src = String::from(".text\n");
    for p in probes {
        src.push_str(".long ");
        for i in 0..4 {
            let w = p.get(i).copied().unwrap_or(0xBF80_0000);
            if i > 0 {
                src.push(',');
            }
            write!(src, "0x{w:08x}").unwrap();
        }
        src.push('\n');
    }
    std::fs::write(&s, src).unwrap();
    lathe_testkit::run(
        Command::new(lathe_testkit::llvm_tool("llvm-mc"))
            .args(["-triple=amdgcn-amd-amdhsa", "-filetype=obj"])
            .arg(format!("-mcpu={}", target.name()))
            .arg(&s)
            .arg("-o")
            .arg(&o),
    );
    let out = Command::new(lathe_testkit::llvm_tool("llvm-objdump"))
        .args(["-d", "--no-show-raw-insn", "--no-leading-addr"])
        .arg(format!("--mcpu={}", target.name()))
        // A wave64 GFX10+ target prints its lane masks as pairs.
        .args(wave_attr(target))
        .arg(&o)
        .env("LLVM_DISABLE_SYMBOLIZATION", "1")
        .output()
        .unwrap();
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut res = vec![None; probes.len()];
    for line in text.lines() {
        let Some(l) = line.strip_prefix('\t') else {
            continue;
        };
        let Some(pos) = l.rfind("// ") else { continue };
        let (inst, rest) = l.split_at(pos);
        let rest = &rest[3..];
        let Some((addr, tail)) = rest.split_once(": ") else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr, 16) else {
            continue;
        };
        if addr % 16 != 0 {
            continue;
        }
        let mut nw = 0;
        let mut after = String::new();
        for (i, tok) in tail.split(' ').enumerate() {
            if after.is_empty() && tok.len() == 8 && tok.chars().all(|c| c.is_ascii_hexdigit()) {
                nw += 1;
            } else {
                after = tail.split(' ').skip(i).collect::<Vec<_>>().join(" ");
                break;
            }
        }
        let inst = inst.trim_end().to_string();
        let idx = (addr / 16) as usize;
        if idx < res.len() {
            res[idx] = if inst.starts_with(".long") {
                None
            } else {
                // Keep warnings (not branch-target comments).
                let warn = after
                    .find(" ; Warning")
                    .map(|p| after[p..].to_string())
                    .or_else(|| {
                        after
                            .strip_prefix("; Warning")
                            .map(|r| format!(" ; Warning{r}"))
                    })
                    .unwrap_or_default();
                Some((format!("{inst}{warn}"), nw))
            };
        }
    }
    Some(res)
}

/// A xorshift64 generator for the sweeps (deterministic per seed).
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn u32(&mut self) -> u32 {
        (self.next() >> 16) as u32
    }
    pub fn below(&mut self, n: u32) -> u32 {
        (self.next() % n as u64) as u32
    }
    pub fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.below(v.len() as u32) as usize]
    }
}

/// llvm-mc's encoding of `line` for `target` (`--show-encoding`).
pub fn assemble(target: Target, line: &str) -> Vec<u8> {
    let mut child = Command::new(lathe_testkit::llvm_tool("llvm-mc"))
        .args(["-triple=amdgcn-amd-amdhsa", "--show-encoding"])
        .arg(format!("-mcpu={}", target.name()))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(line.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let enc = text
        .split("encoding: [")
        .nth(1)
        .unwrap_or_else(|| panic!("{target}: llvm-mc rejects {line}"))
        .split(']')
        .next()
        .unwrap();
    enc.split(',')
        .map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).unwrap())
        .collect()
}

//! Host-side kernel handles and stubs, on clang-22 host objects and shared
//! libraries; oracles: `clang-offload-bundler --list` for the device images,
//! `llvm-readelf -s` for host symbols, `llvm-cxxfilt` for stub names.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use lathe_codeobj::host::{analyze, stub_kernel_name};
use lathe_testkit::{llvm_tool, run_text, Build, Output};

fn demangle(names: &[&str]) -> Vec<String> {
    run_text(Command::new(llvm_tool("llvm-cxxfilt")).args(names))
        .lines()
        .map(str::to_string)
        .collect()
}

/// (name, type) of defined symbols from `llvm-readelf -s --wide`.
fn host_symbols(path: &Path) -> Vec<(String, String)> {
    let text = run_text(
        Command::new(llvm_tool("llvm-readelf"))
            .args(["-s", "--wide"])
            .arg(path),
    );
    let mut out = Vec::new();
    let mut in_symtab = false;
    let has_symtab = text.contains("Symbol table '.symtab'");
    for l in text.lines() {
        if l.starts_with("Symbol table '") {
            in_symtab = l.contains(".symtab") || !has_symtab;
            continue;
        }
        let f: Vec<&str> = l.split_whitespace().collect();
        if !in_symtab || f.len() < 8 || !f[0].ends_with(':') || f[6] == "UND" {
            continue;
        }
        out.push((f[7].to_string(), f[3].to_string()));
    }
    out
}

#[test]
fn stub_names_demangle_to_their_kernels() {
    let cases = [
        "_Z19__device_stub__axpyPfPKffi",
        "_ZN2ns19__device_stub__axpyEPf",
        "_Z28__device_stub__count_managedPKii",
    ];
    for stub in cases {
        let k = stub_kernel_name(stub).expect("kernel");
        let d = demangle(&[stub, &k]);
        assert_eq!(
            d[0].replacen("__device_stub__", "", 1),
            d[1],
            "{stub} -> {k}"
        );
    }
    assert_eq!(stub_kernel_name("__device_stub__k").as_deref(), Some("k"));
    assert_eq!(stub_kernel_name("_Z3fooi"), None);
}

fn check_host(path: &Path, archs: &[&str], kernels: &[&str]) {
    let data = std::fs::read(path).expect("read");
    let r = analyze(&data).expect("analyze");
    // Device images: one per arch, as clang-offload-bundler lists them
    // (for objects; shared libraries are checked by target set only).
    let targets: BTreeSet<String> = r
        .images
        .iter()
        .map(|i| i.target.expect("target").processor.name().to_string())
        .collect();
    let want: BTreeSet<String> = archs.iter().map(|s| s.to_string()).collect();
    assert_eq!(targets, want, "{}", path.display());
    {
        // The bundle lives in .hip_fatbin: dump it, let the bundler list it.
        let dir = lathe_testkit::cache_dir().join("codeobj-host");
        std::fs::create_dir_all(&dir).expect("mkdir");
        let stem = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .to_string();
        let fb = dir.join(format!("{stem}.fatbin"));
        run_text(
            Command::new(llvm_tool("llvm-objcopy"))
                .arg(format!("--dump-section=.hip_fatbin={}", fb.display()))
                .arg(path)
                .arg(dir.join(format!("{stem}.junk"))),
        );
        let listed = run_text(
            Command::new(llvm_tool("clang-offload-bundler"))
                .args(["--list", "--type=o"])
                .arg(format!("--input={}", fb.display())),
        );
        let ids: BTreeSet<&str> = listed.lines().filter(|l| l.contains("amdgcn")).collect();
        let mine: BTreeSet<&str> = r.images.iter().map(|i| i.id.as_str()).collect();
        assert_eq!(mine, ids);
    }
    for img in &r.images {
        assert!(img.error.is_none(), "{:?}", img.error);
        let ks: BTreeSet<&str> = img.kernels.iter().map(String::as_str).collect();
        assert_eq!(ks, kernels.iter().copied().collect(), "{}", img.id);
    }
    // Handles: host data symbols named like the kernels, per readelf.
    let syms = host_symbols(path);
    let handles: BTreeSet<&str> = syms
        .iter()
        .filter(|(n, t)| t == "OBJECT" && kernels.contains(&n.as_str()))
        .map(|(n, _)| n.as_str())
        .collect();
    assert_eq!(handles.len(), kernels.len(), "{}", path.display());
    let mapped: BTreeSet<&str> = r.mappings.iter().map(|m| m.handle.name.as_str()).collect();
    assert_eq!(mapped, handles);
    for m in &r.mappings {
        assert_eq!(m.images.len(), archs.len(), "{}", m.handle.name);
        assert!(m.missing_in.is_empty());
        assert_eq!(m.handle.size, 8, "a handle is one pointer");
        let stub = m.stub.as_deref().expect("stub");
        let d = demangle(&[stub, &m.handle.name]);
        assert_eq!(d[0].replacen("__device_stub__", "", 1), d[1]);
    }
    let stubs: BTreeSet<&str> = syms
        .iter()
        .filter(|(n, t)| t == "FUNC" && n.contains("__device_stub__"))
        .map(|(n, _)| n.as_str())
        .collect();
    let mine: BTreeSet<&str> = r.stubs.iter().map(|s| s.symbol.name.as_str()).collect();
    assert_eq!(mine, stubs);
    assert!(r.unmatched_handles.is_empty(), "{:?}", r.unmatched_handles);
    assert!(r.unmatched_kernels.is_empty(), "{:?}", r.unmatched_kernels);
}

const VECOPS: &[&str] = &[
    "_Z4axpyPfPKffi",
    "_Z9eval_polyPfPKfi",
    "_Z13count_managedPKii",
];

#[test]
fn host_object_handles_map_to_each_target() {
    let p = Build::new("vecops.hip", &["gfx90a", "gfx1100"], Output::HostObject).build();
    check_host(&p, &["gfx90a", "gfx1100"], VECOPS);
}

#[test]
fn shared_library_handles_map_to_each_target() {
    let p = Build::new("vecops.hip", &["gfx942", "gfx1201"], Output::SharedLib).build();
    check_host(&p, &["gfx942", "gfx1201"], VECOPS);
}

#[test]
fn rdc_shared_library_links_device_functions() {
    // -fgpu-rdc: device code of both sources is linked into one code object
    // per target; the kernels' calls to rdc_lib's functions are resolved.
    let mut b = Build::new("rdc_main.hip", &["gfx90a"], Output::SharedLib);
    b.sources.push("rdc_lib.hip");
    b.rdc = true;
    let p = b.build();
    check_host(
        &p,
        &["gfx90a"],
        &["_Z7use_libPiPKiS1_i", "_Z8use_lerpPfPKfS1_fi"],
    );
    // The linked device code object defines the library functions.
    let data = std::fs::read(&p).expect("read");
    for item in lathe_bundle::walk(&data, &lathe_bundle::Limits::default()).expect("walk") {
        let e = item.expect("entry");
        if e.parsed_id().target_id().is_none() {
            continue;
        }
        let co = lathe_codeobj::CodeObject::parse(&e.data).expect("parse");
        let s = co.symbols().expect("symbols");
        for f in ["_Z7lib_mixii", "_Z8lib_lerpfff"] {
            let sym = s.get(f).expect("linked function");
            assert_eq!(sym.kind, lathe_codeobj::SymbolKind::DeviceFunction);
            assert!(sym.defined);
        }
        assert_eq!(s.undefined().count(), 0);
        assert!(co.check().expect("check").is_clean());
    }
}

/// The jax plugin libraries register their kernels from host code: every
/// kernel of every image has a handle and a stub, none is unmatched.
#[test]
fn jax_libraries_handles() {
    let libs = lathe_testkit::jax_plugin_libs();
    if libs.is_empty() {
        assert!(!lathe_testkit::require_external(), "jax wheel missing");
        eprintln!("jax wheel not found: skipped");
        return;
    }
    let mut mapped = 0;
    for lib in libs {
        let data = std::fs::read(&lib).expect("read");
        let r = analyze(&data).expect("analyze");
        for m in &r.mappings {
            // `missing_in` covers the images of the bundles (translation
            // units) that hold the kernel.
            let bundles: std::collections::BTreeSet<usize> =
                m.images.iter().map(|&i| r.images[i].bundle).collect();
            let in_those = r
                .images
                .iter()
                .filter(|im| im.error.is_none() && bundles.contains(&im.bundle))
                .count();
            assert_eq!(m.images.len() + m.missing_in.len(), in_those);
            let stub = m.stub.as_deref().expect("stub");
            assert_eq!(
                stub_kernel_name(stub).as_deref(),
                Some(m.handle.name.as_str())
            );
        }
        assert!(
            r.unmatched_kernels.is_empty(),
            "{}: {:?}",
            lib.display(),
            r.unmatched_kernels
        );
        assert!(r.unmatched_handles.is_empty());
        mapped += r.mappings.len();
    }
    assert!(mapped >= 20, "only {mapped} handles");
}

/// A kernel with no host handle is listed as unmatched: strip the handle
/// symbol's name in a real host object so nothing refers to the kernel.
#[test]
fn unmatched_kernels_and_handles_are_listed() {
    let p = Build::new("vecops.hip", &["gfx90a"], Output::HostObject).build();
    let mut data = std::fs::read(&p).expect("read");
    // Rename the host handle `_Z4axpyPfPKffi` to `_Z4axpyPfPKffX` (same
    // length) in the string table: the kernel loses its handle, and the
    // stub `_Z19__device_stub__axpyPfPKffi` now names a missing handle.
    let from = b"\0_Z4axpyPfPKffi\0";
    // The host .strtab comes after .hip_fatbin (whose device ELFs hold the
    // same name), so take the last occurrence.
    let at = data
        .windows(from.len())
        .rposition(|w| w == from)
        .expect("handle name");
    data[at + from.len() - 2] = b'X';
    let r = analyze(&data).expect("analyze");
    assert_eq!(r.mappings.len(), 2);
    assert_eq!(r.unmatched_kernels, vec![(0, "_Z4axpyPfPKffi".to_string())]);
    assert!(r.unmatched_handles.is_empty());
    assert!(r.stubs.iter().any(|s| s.kernel == "_Z4axpyPfPKffi"));
}

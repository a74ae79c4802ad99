//! Bundles produced by clang-22 from the HIP corpus, in every container
//! (device bundle, host object, shared library, executable), with and
//! without -fgpu-rdc and --offload-compress. Every extracted entry is
//! compared byte for byte with clang-offload-bundler's output, IDs with
//! `clang-offload-bundler --list`, section offsets with llvm-readelf.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;
use lathe_bundle::ccob::Method;
use lathe_bundle::host::{Resolution, Storage, WrapperTarget};
use lathe_bundle::{discover, Bundle, FileKind, Limits};
use lathe_testkit::{llvm_tool, run, Build, Compress, Output};

const ARCHS: &[&str] = &["gfx90a", "gfx942", "gfx1100"];

fn build(output: Output, rdc: bool, compress: Option<Compress>) -> std::path::PathBuf {
    let mut b = Build::new("vecops.hip", ARCHS, output);
    b.rdc = rdc;
    if rdc && output == Output::DeviceBundle {
        // With -c and several archs clang needs this to emit one bundle.
        b.extra.push("--gpu-bundle-output");
    }
    b.compress = compress;
    b.build()
}

/// clang-22 always compresses with zstd (there is no switch for zlib;
/// `OFFLOAD_BUNDLER_COMPRESSION` is not read), so clang-built CCOBs cover
/// versions 2 and 3 with zstd. zlib CCOBs come from our writer and are
/// checked against clang-offload-bundler in `roundtrip.rs`.
const COMPRESS: &[Compress] = &[
    Compress {
        version: 2,
        method: "zstd",
    },
    Compress {
        version: 3,
        method: "zstd",
    },
];

fn method(c: &Compress) -> Method {
    match c.method {
        "zlib" => Method::Zlib,
        _ => Method::Zstd,
    }
}

/// Checks one bundle (raw bytes as found, plain or CCOB) against the oracle:
/// same ID set, every entry identical. Returns the IDs.
fn check_with_oracle(raw: &[u8], entries: &[lathe_bundle::Entry<'_>], dir: &Path) -> Vec<String> {
    let file = write(dir, "bundle.bin", raw);
    let mut ours: Vec<String> = entries.iter().map(|e| e.id.to_string_lossy()).collect();
    let mut theirs = oracle_list(&file);
    ours.sort();
    theirs.sort();
    assert_eq!(
        ours, theirs,
        "entry IDs differ from clang-offload-bundler --list"
    );
    for e in entries {
        let id = e.id.to_string_lossy();
        let want = oracle_unbundle(&file, &id, dir);
        assert_eq!(
            e.data.len(),
            want.len(),
            "entry {id}: size differs from clang-offload-bundler"
        );
        assert!(e.data == want.as_slice(), "entry {id}: bytes differ");
    }
    ours
}

fn device_targets(ids: &[String]) -> Vec<String> {
    let mut t: Vec<String> = ids
        .iter()
        .filter(|i| !i.starts_with("host-"))
        .map(|i| {
            lathe_bundle::EntryId::parse_str(i)
                .target_id()
                .expect("device entry has a target ID")
                .to_string()
        })
        .collect();
    t.sort();
    t
}

#[test]
fn device_bundles_plain_and_compressed() {
    let limits = Limits::default();
    let mut variants: Vec<Option<Compress>> = vec![None];
    variants.extend(COMPRESS.iter().copied().map(Some));
    for c in variants {
        let path = build(Output::DeviceBundle, false, c);
        let data = std::fs::read(&path).expect("read bundle");
        let d = discover(&data, &limits).expect("discover");
        assert!(d.problems.is_empty(), "{:?}", d.problems);
        assert_eq!(d.bundles.len(), 1, "{c:?}");
        let b = &d.bundles[0];
        assert_eq!(b.file_offset, 0);
        assert_eq!(b.size(), data.len() as u64, "bundle spans the whole file");
        match (c, b.storage) {
            (None, Storage::Plain) => assert_eq!(d.kind, FileKind::Bundle),
            (Some(c), Storage::Compressed(h)) => {
                assert_eq!(d.kind, FileKind::Compressed);
                assert_eq!(u32::from(h.version), c.version, "{c:?}");
                assert_eq!(h.method, method(&c), "{c:?}");
                assert_eq!(h.total_size, Some(data.len() as u64));
            }
            other => panic!("unexpected storage {other:?}"),
        }
        let opened = b.open(&limits).expect("open");
        let bundle = opened.bundle(&limits).expect("parse");
        let dir = scratch(&format!("device-{c:?}"));
        let ids = check_with_oracle(b.bytes, bundle.entries(), &dir);
        assert_eq!(
            device_targets(&ids),
            vec!["gfx1100", "gfx90a", "gfx942"],
            "{c:?}"
        );
        // Device code objects are AMDGPU ELF files.
        for e in bundle.entries().iter().filter(|e| !e.id.is_host()) {
            assert_eq!(
                lathe_bundle::classify(e.data),
                FileKind::CodeObject,
                "{}",
                e.id
            );
        }
    }
}

#[test]
fn rdc_device_bundles_hold_bitcode() {
    let limits = Limits::default();
    for c in [
        None,
        Some(Compress {
            version: 3,
            method: "zstd",
        }),
    ] {
        let path = build(Output::DeviceBundle, true, c);
        let data = std::fs::read(&path).expect("read");
        let d = discover(&data, &limits).expect("discover");
        assert_eq!(d.bundles.len(), 1);
        let opened = d.bundles[0].open(&limits).expect("open");
        let bundle = opened.bundle(&limits).expect("parse");
        let dir = scratch(&format!("rdc-device-{c:?}"));
        let ids = check_with_oracle(d.bundles[0].bytes, bundle.entries(), &dir);
        assert_eq!(device_targets(&ids).len(), 3);
        for e in bundle.entries().iter().filter(|e| !e.id.is_host()) {
            assert!(e.data.starts_with(b"BC\xc0\xde"), "{} is bitcode", e.id);
        }
    }
}

fn section_offset(path: &Path, name: &str) -> (u64, u64) {
    readelf_sections(path)
        .into_iter()
        .find(|s| s.0 == name)
        .map(|s| (s.1, s.2))
        .unwrap_or_else(|| panic!("no section {name} in {}", path.display()))
}

/// Host files with one bundle in `.hip_fatbin`: the bundle sits at the
/// section start, equals the dumped section (up to zero padding), its
/// entries match the oracle, and the single wrapper points at it.
fn check_host_file(path: &Path, c: Option<Compress>, expect_how: fn(&Resolution) -> bool) {
    let limits = Limits::default();
    let data = std::fs::read(path).expect("read");
    let d = discover(&data, &limits).expect("discover");
    assert_eq!(d.kind, FileKind::HostElf);
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    assert_eq!(d.bundles.len(), 1, "{}", path.display());
    let b = &d.bundles[0];
    let (off, size) = section_offset(path, ".hip_fatbin");
    assert_eq!(b.file_offset, off);
    assert_eq!(b.section.as_ref().expect("section").name, ".hip_fatbin");
    let dir = scratch(&format!(
        "host-{}",
        sanitize(&path.file_name().expect("name").to_string_lossy())
    ));
    let section = dump_section(path, ".hip_fatbin", &dir);
    assert_eq!(section.len() as u64, size);
    assert!(section.starts_with(b.bytes));
    assert!(section[b.bytes.len()..].iter().all(|&x| x == 0));
    match (c, b.storage) {
        (None, Storage::Plain) => {}
        (Some(c), Storage::Compressed(h)) => {
            assert_eq!(u32::from(h.version), c.version);
            assert_eq!(h.method, method(&c));
        }
        other => panic!("unexpected storage {other:?}"),
    }
    let opened = b.open(&limits).expect("open");
    let bundle = opened.bundle(&limits).expect("parse");
    let ids = check_with_oracle(b.bytes, bundle.entries(), &dir);
    assert_eq!(device_targets(&ids).len(), 3);
    assert_eq!(d.wrappers.len(), 1);
    let w = &d.wrappers[0];
    assert_eq!(w.magic, lathe_bundle::host::HIPF_MAGIC);
    assert_eq!(w.bundle, Some(0), "wrapper target {:?}", w.target);
    assert_eq!(b.wrappers, vec![0]);
    match &w.target {
        WrapperTarget::Location { how, .. } => assert!(expect_how(how), "{how:?}"),
        t => panic!("unexpected wrapper target {t:?}"),
    }
    let (seg_off, _) = section_offset(path, ".hipFatBinSegment");
    assert_eq!(w.file_offset, seg_off);
}

#[test]
fn host_objects() {
    let mut variants = vec![None];
    variants.extend([COMPRESS[1], COMPRESS[0]].map(Some));
    for c in variants {
        let path = build(Output::HostObject, false, c);
        check_host_file(&path, c, |h| matches!(h, Resolution::Symbol { .. }));
    }
}

#[test]
fn shared_libraries() {
    let mut variants = vec![None];
    variants.extend([COMPRESS[1], COMPRESS[0]].map(Some));
    for c in variants {
        let path = build(Output::SharedLib, false, c);
        check_host_file(&path, c, |h| *h == Resolution::Relative);
    }
}

#[test]
fn executable_uses_stored_pointer() {
    let obj = build(Output::HostObject, false, None);
    let dir = scratch("exe");
    let exe = dir.join("vecops.exe");
    run(Command::new(llvm_tool("clang++"))
        .arg(&obj)
        .args([
            "-no-pie",
            "-fuse-ld=lld",
            "-Wl,--unresolved-symbols=ignore-all",
            "-o",
        ])
        .arg(&exe));
    check_host_file(&exe, None, |h| *h == Resolution::Stored);
}

#[test]
fn rdc_host_object_uses_bundle_sections() {
    let limits = Limits::default();
    let path = build(Output::HostObject, true, None);
    let data = std::fs::read(&path).expect("read");
    let d = discover(&data, &limits).expect("discover");
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    assert_eq!(d.bundles.len(), 1);
    let b = &d.bundles[0];
    assert_eq!(b.storage, Storage::Sections);
    let opened = b.open(&limits).expect("open");
    let bundle = opened.bundle(&limits).expect("entries");
    let dir = scratch("rdc-host");
    // The oracle reads the object file's bundle sections directly.
    let mut n = 0;
    for e in bundle.entries().iter().filter(|e| !e.id.is_host()) {
        let want = oracle_unbundle(&path, &e.id.to_string_lossy(), &dir);
        assert!(e.data == want.as_slice(), "{}", e.id);
        assert!(e.data.starts_with(b"BC\xc0\xde"));
        n += 1;
    }
    assert_eq!(n, 3);
    // Section offsets agree with llvm-readelf.
    let secs = readelf_sections(&path);
    for e in bundle.entries() {
        let name = format!("__CLANG_OFFLOAD_BUNDLE__{}", e.id);
        let s = secs.iter().find(|s| s.0 == name).expect("section");
        assert_eq!(e.offset, s.1, "{name}");
    }
    // The wrapper refers to the device image through an undefined symbol
    // that the device link will define.
    assert_eq!(d.wrappers.len(), 1);
    match &d.wrappers[0].target {
        WrapperTarget::Undefined { symbol } => assert!(symbol.starts_with("__hip_fatbin_")),
        t => panic!("unexpected target {t:?}"),
    }
    assert_eq!(d.wrappers[0].bundle, None);
}

#[test]
fn rdc_shared_library_two_wrappers_one_bundle() {
    let limits = Limits::default();
    let b = Build {
        sources: vec!["rdc_main.hip", "rdc_lib.hip"],
        archs: ARCHS.to_vec(),
        opt: "-O3",
        rdc: true,
        compress: None,
        output: Output::SharedLib,
        extra: vec![],
    };
    let path = b.build();
    let data = std::fs::read(&path).expect("read");
    let d = discover(&data, &limits).expect("discover");
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    assert_eq!(d.bundles.len(), 1);
    assert_eq!(d.wrappers.len(), 2);
    for w in &d.wrappers {
        assert_eq!(w.bundle, Some(0), "{:?}", w.target);
    }
    assert_eq!(d.bundles[0].wrappers, vec![0, 1]);
    let dir = scratch("rdc-so");
    let opened = d.bundles[0].open(&limits).expect("open");
    let bundle = opened.bundle(&limits).expect("parse");
    check_with_oracle(d.bundles[0].bytes, bundle.entries(), &dir);
    // The linked device code is a code object per arch.
    let n = bundle
        .entries()
        .iter()
        .filter(|e| lathe_bundle::classify(e.data) == FileKind::CodeObject)
        .count();
    assert_eq!(n, 3);
}

#[test]
fn bare_code_object_is_classified() {
    let path = Build::new("reduce.hip", &["gfx90a"], Output::CodeObject).build();
    let data = std::fs::read(&path).expect("read");
    let d = discover(&data, &Limits::default()).expect("discover");
    assert_eq!(d.kind, FileKind::CodeObject);
    assert_eq!(d.e_machine, Some(224));
    assert!(d.bundles.is_empty());
    // An ELF is not a bundle: the error names the offset and the bytes found.
    assert_eq!(
        Bundle::parse(&data).err(),
        Some(lathe_bundle::Error::BadMagic {
            offset: 0,
            found: data[..8].to_vec()
        })
    );
}

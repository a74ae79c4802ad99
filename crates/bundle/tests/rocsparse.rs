//! Debian's librocsparse.so.0.1 (ROCm 5.3, 1.3 GB, 111 bundles with old
//! `host-x86_64-unknown-linux` IDs): discovery is complete, every wrapper
//! links to a bundle, and sample bundles match LLVM 15's
//! clang-offload-bundler (LLVM 22's rejects these IDs).
//!
//! `scripts/setup.sh` installs the library (librocsparse0, which the hsa
//! tests' librocsparse-dev needs anyway); the test fails, never skips, if
//! it is missing.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use common::*;
use lathe_bundle::host::{Resolution, Storage, WrapperTarget};
use lathe_bundle::select::{select, Policy};
use lathe_bundle::{discover, FileKind, Limits};
use lathe_testkit::run_text;

const LIB: &str = "/usr/lib/x86_64-linux-gnu/librocsparse.so.0.1";
const BUNDLER15: &str = "/usr/lib/llvm-15/bin/clang-offload-bundler";

#[test]
fn rocsparse_discovery_and_extraction() {
    assert!(
        Path::new(LIB).exists(),
        "{LIB} missing: run scripts/setup.sh"
    );
    assert!(
        Path::new(BUNDLER15).exists(),
        "{BUNDLER15} missing: run scripts/setup.sh"
    );
    let file = std::fs::File::open(LIB).expect("open");
    // SAFETY: a system library, mapped read-only; nothing writes it during
    // the test.
    let map = unsafe { memmap2::Mmap::map(&file).expect("mmap") };
    let limits = Limits::default();
    let start = Instant::now();
    let d = discover(&map, &limits).expect("discover");
    // Speed is measured by bench/bundle_rocsparse.py, not asserted here: a
    // cold page cache makes the first pass over 1.3 GB disk-bound.
    eprintln!("discovery took {:?}", start.elapsed());
    assert_eq!(d.kind, FileKind::HostElf);
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    assert_eq!(d.bundles.len(), 111);
    assert_eq!(d.wrappers.len(), 111);
    for w in &d.wrappers {
        assert!(
            matches!(
                w.target,
                WrapperTarget::Location {
                    how: Resolution::Relative,
                    ..
                }
            ),
            "{w:?}"
        );
        assert!(w.bundle.is_some(), "{w:?}");
    }
    // Bundles are contiguous, in order, within .hip_fatbin.
    let (off, size) = readelf_sections(Path::new(LIB))
        .into_iter()
        .find(|s| s.0 == ".hip_fatbin")
        .map(|s| (s.1, s.2))
        .expect(".hip_fatbin");
    for b in &d.bundles {
        assert_eq!(b.storage, Storage::Plain);
        assert!(b.file_offset >= off && b.file_offset + b.size() <= off + size);
    }
    let agent = "gfx90a:xnack-".parse().expect("agent");
    let dir = scratch("rocsparse");
    for i in [0, 55, 110] {
        let b = &d.bundles[i];
        let opened = b.open(&limits).expect("open");
        let bundle = opened.bundle(&limits).expect("parse");
        assert!(bundle
            .entries()
            .iter()
            .any(|e| e.id.as_str() == Some("host-x86_64-unknown-linux")));
        let s = select(bundle.entries(), &agent, Policy::Clang);
        let e = s.entry(bundle.entries()).expect("a gfx90a:xnack- entry");
        assert_eq!(
            e.id.as_str(),
            Some("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-")
        );
        let f = write(&dir, &format!("b{i}"), b.bytes);
        let mut theirs: Vec<String> = run_text(
            Command::new(BUNDLER15)
                .args(["--list", "--type=o"])
                .arg(format!("--input={}", f.display())),
        )
        .lines()
        .map(str::to_owned)
        .collect();
        let mut ours: Vec<String> = bundle
            .entries()
            .iter()
            .map(|e| e.id.to_string_lossy())
            .collect();
        theirs.sort();
        ours.sort();
        assert_eq!(ours, theirs, "bundle {i}");
        let out = dir.join(format!("b{i}.co"));
        run_text(
            Command::new(BUNDLER15)
                .args(["--unbundle", "--type=o"])
                .arg(format!("--input={}", f.display()))
                .arg("--targets=hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-")
                .arg(format!("--output={}", out.display())),
        );
        let want = std::fs::read(&out).expect("read");
        assert!(e.data == want.as_slice(), "bundle {i}");
        let _ = std::fs::remove_file(&f);
    }
}

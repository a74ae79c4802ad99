//! Real CCOB v3 bundles from the jax-rocm7-plugin wheel (built by AMD's
//! ROCm 7 toolchain): every bundle decompresses with a matching hash, lists
//! the same IDs as clang-offload-bundler, and its gfx90a and gfx942 code
//! objects are byte-identical to clang-offload-bundler's.

mod common;

use common::*;
use lathe_bundle::ccob::Method;
use lathe_bundle::host::Storage;
use lathe_bundle::select::{select, Match, Policy};
use lathe_bundle::{discover, walk, FileKind, Limits};
use lathe_testkit::{jax_plugin_libs, require_external};

fn libs() -> Vec<std::path::PathBuf> {
    let libs = jax_plugin_libs();
    if libs.is_empty() {
        assert!(
            !require_external(),
            "LATHE_REQUIRE_EXTERNAL is set but the jax wheel is missing: run scripts/setup.sh"
        );
        eprintln!("note: jax-rocm7-plugin wheel not found; skipping (run scripts/setup.sh)");
    }
    libs
}

#[test]
fn every_jax_bundle_matches_clang_offload_bundler() {
    let limits = Limits::default();
    let mut bundles_seen = 0;
    for lib in libs() {
        let data = std::fs::read(&lib).expect("read .so");
        let d = discover(&data, &limits).expect("discover");
        assert_eq!(d.kind, FileKind::HostElf);
        assert!(d.problems.is_empty(), "{}: {:?}", lib.display(), d.problems);
        let has_fatbin = readelf_sections(&lib).iter().any(|s| s.0 == ".hip_fatbin");
        assert_eq!(has_fatbin, !d.bundles.is_empty(), "{}", lib.display());
        // Every wrapper resolves to a bundle and every bundle has a wrapper.
        for w in &d.wrappers {
            assert!(w.bundle.is_some(), "{}: {:?}", lib.display(), w);
        }
        for b in &d.bundles {
            assert!(
                !b.wrappers.is_empty(),
                "{}: bundle {}",
                lib.display(),
                b.index
            );
        }
        let name = lib.file_name().expect("name").to_string_lossy().to_string();
        let dir = scratch(&format!("jax-{}", sanitize(&name)));
        for b in &d.bundles {
            bundles_seen += 1;
            let Storage::Compressed(h) = b.storage else {
                panic!("{name}: bundle {} is not compressed", b.index);
            };
            assert_eq!(h.version, 3);
            assert_eq!(h.method, Method::Zstd);
            assert_eq!(h.total_size, Some(b.size()));
            // Decompression verifies the hash (Limits::verify_hash).
            let opened = b.open(&limits).expect("decompress with hash check");
            let bundle = opened.bundle(&limits).expect("parse");
            assert_eq!(opened.bytes().len() as u64, h.uncompressed_size);
            let devices: Vec<_> = bundle
                .entries()
                .iter()
                .filter(|e| !e.id.is_host())
                .collect();
            assert!(
                (18..=40).contains(&devices.len()),
                "{name}: {} device entries",
                devices.len()
            );
            for e in &devices {
                assert!(e.id.target_id().is_some(), "{name}: {}", e.id);
                assert_eq!(lathe_bundle::classify(e.data), FileKind::CodeObject);
            }
            // IDs: the oracle lists the CCOB (cut to its declared size).
            let file = write(&dir, &format!("b{}.ccob", b.index), b.bytes);
            let mut ours: Vec<String> = bundle
                .entries()
                .iter()
                .map(|e| e.id.to_string_lossy())
                .collect();
            let mut theirs = oracle_list(&file);
            ours.sort();
            theirs.sort();
            assert_eq!(ours, theirs, "{name}: bundle {}", b.index);
            for arch in ["gfx90a", "gfx942"] {
                let id = format!("hipv4-amdgcn-amd-amdhsa--{arch}");
                let e = bundle
                    .find(&id)
                    .unwrap_or_else(|| panic!("{name}: no {id}"));
                let want = oracle_unbundle(&file, &id, &dir);
                assert!(!want.is_empty());
                assert!(e.data == want.as_slice(), "{name}: {id} differs");
            }
        }
    }
    if !jax_plugin_libs().is_empty() {
        assert!(
            bundles_seen >= 3,
            "only {bundles_seen} bundles in the wheel"
        );
    }
}

#[test]
fn jax_selection_and_walk() {
    let limits = Limits::default();
    for lib in libs() {
        let data = std::fs::read(&lib).expect("read");
        let d = discover(&data, &limits).expect("discover");
        for b in &d.bundles {
            let opened = b.open(&limits).expect("open");
            let bundle = opened.bundle(&limits).expect("parse");
            let es = bundle.entries();
            let pick = |agent: &str, p: Policy| {
                let s = select(es, &agent.parse().expect("agent"), p);
                (
                    s.entry(es)
                        .map(|e| e.id.target_str().unwrap_or("").to_owned()),
                    s.how,
                )
            };
            assert_eq!(
                pick("gfx90a:sramecc+:xnack-", Policy::Clang),
                (Some("gfx90a".into()), Some(Match::SameProcessor))
            );
            assert_eq!(
                pick("gfx1100", Policy::Exact),
                (Some("gfx1100".into()), Some(Match::Exact))
            );
            // No gfx1013 code: only extended compatibility finds one.
            assert_eq!(pick("gfx1013:xnack-", Policy::Clang), (None, None));
            let (t, how) = pick("gfx1013:xnack-", Policy::Extended);
            assert_eq!(how, Some(Match::Extended));
            assert!(matches!(t.as_deref(), Some("gfx1010" | "gfx1012")), "{t:?}");
        }
        // The walk visits the same entries, and its progress ends at the total.
        let mut n = 0usize;
        let mut last = 0;
        let mut w = walk(&data, &limits).expect("walk");
        let total = w.bytes_total();
        for item in w.by_ref() {
            let item = item.expect("entry");
            assert!(item.bytes_done >= last && item.bytes_done <= total);
            last = item.bytes_done;
            n += 1;
        }
        assert_eq!(last, total);
        assert_eq!(w.bytes_done(), total);
        let expected: usize = d
            .bundles
            .iter()
            .map(|b| {
                let o = b.open(&limits).expect("open");
                o.bundle(&limits).expect("parse").entries().len()
            })
            .sum();
        assert_eq!(n, expected, "{}", lib.display());
    }
}

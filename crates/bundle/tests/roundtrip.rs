//! Writing: our writer reproduces clang's bundles byte for byte,
//! clang-offload-bundler reads everything we write (plain, CCOB v2/v3, zlib
//! and zstd), and we read everything clang-offload-bundler writes.

mod common;

use std::process::Command;

use common::*;
use lathe_bundle::ccob::{self, CompressOptions, Method, WriteVersion};
use lathe_bundle::{Bundle, BundleWriter, Limits};
use lathe_testkit::{llvm_tool, run, Build, Output};

/// Entries (ID, bytes) of a real clang-22 device bundle, in table order.
fn clang_bundle() -> (Vec<u8>, Vec<(String, Vec<u8>)>) {
    let p = Build::new(
        "vecops.hip",
        &["gfx90a", "gfx942", "gfx1100"],
        Output::DeviceBundle,
    )
    .build();
    let data = std::fs::read(p).expect("read");
    let entries = Bundle::parse(&data)
        .expect("parse")
        .entries()
        .iter()
        .map(|e| (e.id.to_string_lossy(), e.data.to_vec()))
        .collect();
    (data, entries)
}

#[test]
fn writer_reproduces_clang_bundle_exactly() {
    let (original, entries) = clang_bundle();
    let mut w = BundleWriter::new();
    for (id, data) in &entries {
        w.add(id.clone(), data.as_slice());
    }
    let ours = w.to_vec();
    assert_eq!(ours.len(), original.len());
    assert!(
        ours == original,
        "writer output differs from clang's bundle"
    );
}

fn check_oracle_reads(bytes: &[u8], entries: &[(String, Vec<u8>)], tag: &str) {
    let dir = scratch(tag);
    let file = write(&dir, "ours.bin", bytes);
    let mut listed = oracle_list(&file);
    listed.sort();
    let mut want: Vec<String> = entries.iter().map(|e| e.0.clone()).collect();
    want.sort();
    assert_eq!(listed, want, "{tag}");
    for (id, data) in entries {
        let got = oracle_unbundle(&file, id, &dir);
        assert!(got == *data, "{tag}: {id} differs");
    }
}

#[test]
fn clang_reads_our_plain_bundles_at_any_alignment() {
    let (_, entries) = clang_bundle();
    for align in [1, 8, 4096] {
        let mut w = BundleWriter::new().alignment(align);
        for (id, data) in &entries {
            w.add(id.clone(), data.as_slice());
        }
        let bytes = w.to_vec();
        check_oracle_reads(&bytes, &entries, &format!("plain-align{align}"));
        // And we read it back.
        let b = Bundle::parse(&bytes).expect("parse ours");
        for ((id, data), e) in entries.iter().zip(b.entries()) {
            assert_eq!(e.id.to_string_lossy(), *id);
            assert_eq!(e.data, data.as_slice());
            assert_eq!(e.offset % align, 0);
        }
    }
}

#[test]
fn clang_reads_our_ccobs() {
    let (original, entries) = clang_bundle();
    for version in [WriteVersion::V2, WriteVersion::V3] {
        for method in [Method::Zlib, Method::Zstd] {
            let c = ccob::compress(
                &original,
                &CompressOptions {
                    version,
                    method,
                    level: None,
                },
            )
            .expect("compress");
            let h = ccob::CcobHeader::parse(&c).expect("header");
            assert_eq!(h.method, method);
            assert_eq!(h.total_size, Some(c.len() as u64));
            assert_eq!(h.uncompressed_size, original.len() as u64);
            check_oracle_reads(&c, &entries, &format!("ccob-{version:?}-{method}"));
            let (_, back) = ccob::decompress(&c, &Limits::default()).expect("decompress");
            assert!(back == original);
        }
    }
}

/// Bundles written by clang-offload-bundler itself, plain and compressed.
#[test]
fn we_read_clang_offload_bundler_output() {
    let (_, entries) = clang_bundle();
    let dir = scratch("clang-writes");
    let mut inputs = Vec::new();
    let mut targets = Vec::new();
    for (i, (id, data)) in entries.iter().enumerate() {
        inputs.push(write(&dir, &format!("in{i}"), data));
        targets.push(id.clone());
    }
    for compress in [None, Some(2), Some(3)] {
        let out = dir.join(format!("clang-{compress:?}.bundle"));
        let mut cmd = Command::new(llvm_tool("clang-offload-bundler"));
        cmd.arg("--type=bc")
            .arg(format!("--targets={}", targets.join(",")))
            .arg(format!("--output={}", out.display()));
        for i in &inputs {
            cmd.arg(format!("--input={}", i.display()));
        }
        if let Some(v) = compress {
            cmd.arg("--compress")
                .env("COMPRESSED_BUNDLE_FORMAT_VERSION", v.to_string());
        }
        run(&mut cmd);
        let data = std::fs::read(&out).expect("read clang output");
        let d = lathe_bundle::discover(&data, &Limits::default()).expect("discover");
        assert_eq!(d.bundles.len(), 1);
        if let Some(v) = compress {
            match d.bundles[0].storage {
                lathe_bundle::host::Storage::Compressed(h) => {
                    assert_eq!(u32::from(h.version), v);
                    assert_eq!(h.method, Method::Zstd);
                }
                s => panic!("expected a CCOB, got {s:?}"),
            }
        }
        let opened = d.bundles[0].open(&Limits::default()).expect("open");
        let b = opened.bundle(&Limits::default()).expect("parse");
        assert_eq!(b.entries().len(), entries.len());
        for (id, data) in &entries {
            let e = b.find(id).unwrap_or_else(|| panic!("missing {id}"));
            assert!(e.data == data.as_slice(), "{compress:?}: {id}");
        }
    }
}

#[test]
fn back_to_back_bundles_in_one_file() {
    // Two clang bundles and our CCOB of a third, padded the way a linker
    // lays out .hip_fatbin input sections (4096-aligned).
    let (original, entries) = clang_bundle();
    let p2 = Build::new("reduce.hip", &["gfx90a"], Output::DeviceBundle).build();
    let second = std::fs::read(p2).expect("read");
    let third = ccob::compress(&original, &CompressOptions::default()).expect("compress");
    let mut file = original.clone();
    let mut starts = vec![0u64];
    for part in [&second, &third] {
        file.resize(file.len().next_multiple_of(4096), 0);
        starts.push(file.len() as u64);
        file.extend_from_slice(part);
    }
    file.resize(file.len() + 100, 0);
    let d = lathe_bundle::discover(&file, &Limits::default()).expect("discover");
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    let found: Vec<u64> = d.bundles.iter().map(|b| b.file_offset).collect();
    assert_eq!(found, starts);
    assert_eq!(d.bundles[0].size(), original.len() as u64);
    assert_eq!(d.bundles[1].size(), second.len() as u64);
    assert_eq!(d.bundles[2].size(), third.len() as u64);
    let opened = d.bundles[2].open(&Limits::default()).expect("open");
    let b = opened.bundle(&Limits::default()).expect("parse");
    assert_eq!(b.entries().len(), entries.len());
    // Each slice is what clang-offload-bundler lists for that bundle (it
    // lists only the first of several back-to-back plain bundles itself).
    let dir = scratch("back-to-back");
    for b in &d.bundles {
        let f = write(&dir, &format!("b{}.bin", b.index), b.bytes);
        let mut listed = oracle_list(&f);
        let opened = b.open(&Limits::default()).expect("open");
        let mut ours: Vec<String> = opened
            .bundle(&Limits::default())
            .expect("parse")
            .entries()
            .iter()
            .map(|e| e.id.to_string_lossy())
            .collect();
        listed.sort();
        ours.sort();
        assert_eq!(listed, ours, "bundle {}", b.index);
    }
}

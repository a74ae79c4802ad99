//! Several bundles in one file: the walk continues past a bad bundle and
//! reports progress; errors carry the failing bundle's file offset; a
//! hand-built CCOB version 1 (which clang-22 reads but no longer writes) is
//! read by both clang-offload-bundler and us.

mod common;

use common::*;
use lathe_bundle::ccob::{self, CompressOptions, Method};
use lathe_bundle::{discover, walk, Bundle, Error, Limits};
use lathe_testkit::{Build, Output};

fn real_bundle() -> Vec<u8> {
    std::fs::read(Build::new("reduce.hip", &["gfx90a", "gfx1100"], Output::DeviceBundle).build())
        .expect("read")
}

fn pad(v: &mut Vec<u8>) -> u64 {
    v.resize(v.len().next_multiple_of(4096), 0);
    v.len() as u64
}

#[test]
fn walk_reports_a_bad_bundle_and_continues() {
    let plain = real_bundle();
    let good = ccob::compress(&plain, &CompressOptions::default()).expect("compress");
    let mut bad = good.clone();
    bad[24] ^= 0xff; // hash
    let mut file = plain.clone();
    let at_bad = pad(&mut file);
    file.extend_from_slice(&bad);
    let at_good = pad(&mut file);
    file.extend_from_slice(&good);

    let limits = Limits::default();
    let n_entries = Bundle::parse(&plain).expect("parse").entries().len();
    let w = walk(&file, &limits).expect("walk");
    let total = w.bytes_total();
    assert_eq!(total, (plain.len() + 2 * good.len()) as u64);
    let items: Vec<_> = w.collect();
    assert_eq!(items.len(), 2 * n_entries + 1);
    for it in &items[..n_entries] {
        let e = it.as_ref().expect("first bundle");
        assert_eq!(e.bundle, 0);
        assert!(!e.compressed);
    }
    match &items[n_entries] {
        Err(Error::InBundle {
            bundle: 1,
            file_offset,
            source,
            ..
        }) => {
            assert_eq!(*file_offset, at_bad);
            assert!(matches!(**source, Error::CcobHashMismatch { .. }));
        }
        other => panic!("unexpected {other:?}"),
    }
    let rest: Vec<_> = items[n_entries + 1..]
        .iter()
        .map(|i| i.as_ref().expect("third bundle"))
        .collect();
    for (k, e) in rest.iter().enumerate() {
        assert_eq!((e.bundle, e.entry), (2, k));
        assert_eq!(e.bundle_file_offset, at_good);
        assert!(e.compressed);
        // Entry bytes equal the plain bundle's.
        let p = Bundle::parse(&plain).expect("parse");
        assert_eq!(&*e.data, p.entries()[k].data);
        assert_eq!(e.id, p.entries()[k].id.to_string_lossy());
    }
    assert_eq!(rest.last().expect("entries").bytes_done, total);
}

#[test]
fn header_errors_name_their_file_offset() {
    let plain = real_bundle();
    let mut file = plain.clone();
    let at = pad(&mut file);
    let mut broken = plain.clone();
    broken[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
    file.extend_from_slice(&broken);
    let d = discover(&file, &Limits::default()).expect("discover");
    // The broken header is reported; the scan resynchronises and finds no
    // further bundles (its entries are not bundles).
    assert_eq!(d.bundles.len(), 1);
    assert!(matches!(
        &d.problems[..],
        [Error::InBundle { bundle: 1, file_offset, source, .. }]
            if *file_offset == at && matches!(**source, Error::TooManyEntries { .. })
    ));
}

/// Builds a CCOB version 1: magic, u16 1, u16 method, u32 uncompressed
/// size, u64 hash, payload.
fn ccob_v1(plain: &[u8]) -> Vec<u8> {
    let payload = zstd::bulk::compress(plain, 3).expect("zstd");
    let mut v = b"CCOB".to_vec();
    v.extend_from_slice(&1u16.to_le_bytes());
    v.extend_from_slice(&Method::Zstd.code().to_le_bytes());
    v.extend_from_slice(&(plain.len() as u32).to_le_bytes());
    v.extend_from_slice(&ccob::hash(plain).to_le_bytes());
    v.extend_from_slice(&payload);
    v
}

#[test]
fn ccob_version_1() {
    let plain = real_bundle();
    let v1 = ccob_v1(&plain);
    let (h, out) = ccob::decompress(&v1, &Limits::default()).expect("v1");
    assert_eq!((h.version, h.total_size, h.header_len), (1, None, 20));
    assert!(out == plain);
    // clang-offload-bundler agrees on the contents.
    let dir = scratch("ccob-v1");
    let f = write(&dir, "v1.ccob", &v1);
    let b = Bundle::parse(&plain).expect("parse");
    let mut listed = oracle_list(&f);
    listed.sort();
    let mut ours: Vec<_> = b.entries().iter().map(|e| e.id.to_string_lossy()).collect();
    ours.sort();
    assert_eq!(listed, ours);
    for e in b.entries().iter().filter(|e| !e.data.is_empty()) {
        assert!(oracle_unbundle(&f, &e.id.to_string_lossy(), &dir) == e.data);
    }
    // In a sequence, a v1 CCOB extends to the next aligned bundle; the
    // zero padding after its zstd frame is ignored.
    let mut file = v1.clone();
    let next = pad(&mut file);
    file.extend_from_slice(&plain);
    let d = discover(&file, &Limits::default()).expect("discover");
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    assert_eq!(d.bundles.len(), 2);
    assert_eq!(d.bundles[0].size(), next);
    assert_eq!(d.bundles[1].file_offset, next);
    let o = d.bundles[0].open(&Limits::default()).expect("open v1");
    assert!(o.bytes() == plain.as_slice());
}

//! Malformed input, derived from real clang-22 bundles: each mutation must
//! produce its specific error (never a panic, never a huge allocation).

use std::time::{Duration, Instant};

use lathe_bundle::ccob::{self, CompressOptions, Method, WriteVersion};
use lathe_bundle::{discover, Bundle, Error, Limits};
use lathe_testkit::{Build, Compress, Output};

fn plain() -> Vec<u8> {
    let p = Build::new("reduce.hip", &["gfx90a", "gfx1100"], Output::DeviceBundle).build();
    std::fs::read(p).expect("read bundle")
}

fn ccob_v3() -> Vec<u8> {
    let mut b = Build::new("reduce.hip", &["gfx90a", "gfx1100"], Output::DeviceBundle);
    b.compress = Some(Compress {
        version: 3,
        method: "zstd",
    });
    std::fs::read(b.build()).expect("read ccob")
}

/// Entry table positions of a plain bundle: (record offset, id length).
fn table(data: &[u8]) -> Vec<(usize, usize)> {
    let u = |at: usize| u64::from_le_bytes(data[at..at + 8].try_into().expect("8 bytes")) as usize;
    let n = u(24);
    let mut pos = 32;
    let mut v = Vec::new();
    for _ in 0..n {
        let id_len = u(pos + 16);
        v.push((pos, id_len));
        pos += 24 + id_len;
    }
    v
}

fn put_u64(data: &mut [u8], at: usize, v: u64) {
    data[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn truncated_plain_bundle_at_every_structure() {
    let data = plain();
    let good = Bundle::parse(&data).expect("the real bundle parses");
    let t = table(&data);
    assert_eq!(t.len(), 3);
    // Inside the magic.
    for cut in [1, 10, 23] {
        assert_eq!(
            Bundle::parse(&data[..cut]).expect_err("must be rejected"),
            Error::Truncated {
                what: "bundle magic",
                offset: 0,
                needed: 24,
                available: cut as u64
            }
        );
    }
    // Inside the count.
    for cut in [24, 28, 31] {
        assert!(matches!(
            Bundle::parse(&data[..cut]).expect_err("must be rejected"),
            Error::Truncated {
                what: "bundle entry count",
                offset: 24,
                ..
            }
        ));
    }
    // The table cannot hold 3 records.
    for cut in [32, 60, 32 + 3 * 24 - 1] {
        assert_eq!(
            Bundle::parse(&data[..cut]).expect_err("must be rejected"),
            Error::TooManyEntries {
                count: 3,
                max: (cut as u64 - 32) / 24,
                available: cut as u64
            }
        );
    }
    // Inside the last record's ID.
    let (last, id_len) = t[2];
    let cut = last + 24 + id_len / 2;
    assert_eq!(
        Bundle::parse(&data[..cut]).expect_err("must be rejected"),
        Error::Truncated {
            what: "bundle entry ID",
            offset: (last + 24) as u64,
            needed: id_len as u64,
            available: (id_len / 2) as u64
        }
    );
    // Inside the last entry's data.
    let last_entry = good
        .entries()
        .iter()
        .max_by_key(|e| e.offset)
        .expect("entries");
    let cut = last_entry.offset as usize + last_entry.data.len() / 2;
    match Bundle::parse(&data[..cut]).expect_err("must be rejected") {
        Error::EntryOutOfRange {
            index,
            offset,
            size,
            bundle_size,
            ..
        } => {
            assert_eq!(index, last_entry.index);
            assert_eq!(offset, last_entry.offset);
            assert_eq!(size, last_entry.data.len() as u64);
            assert_eq!(bundle_size, cut as u64);
        }
        e => panic!("unexpected {e:?}"),
    }
}

#[test]
fn wrong_magic() {
    let mut data = plain();
    data[0] = b'X';
    assert!(matches!(
        Bundle::parse(&data).expect_err("must be rejected"),
        Error::BadMagic { offset: 0, .. }
    ));
    let mut c = ccob_v3();
    c[0] = b'X';
    assert!(matches!(
        ccob::decompress(&c, &Limits::default()).expect_err("must be rejected"),
        Error::BadMagic { offset: 0, .. }
    ));
}

#[test]
fn entry_out_of_range_and_overlap() {
    let data = plain();
    let t = table(&data);
    let good = Bundle::parse(&data).expect("parse");
    let dev: Vec<_> = good
        .entries()
        .iter()
        .filter(|e| !e.data.is_empty())
        .map(|e| e.index)
        .collect();
    assert_eq!(dev.len(), 2);

    let mut m = data.clone();
    put_u64(&mut m, t[dev[0]].0 + 8, u64::MAX - 5);
    assert!(matches!(
        Bundle::parse(&m).expect_err("must be rejected"),
        Error::EntryOutOfRange { index, size, .. } if index == dev[0] && size == u64::MAX - 5
    ));

    let mut m = data.clone();
    put_u64(&mut m, t[dev[1]].0, u64::MAX);
    assert!(matches!(
        Bundle::parse(&m).expect_err("must be rejected"),
        Error::EntryOutOfRange { index, offset: u64::MAX, .. } if index == dev[1]
    ));

    // Move the second device entry onto the first.
    let mut m = data.clone();
    let first_off = good.entries()[dev[0]].offset;
    put_u64(&mut m, t[dev[1]].0, first_off + 16);
    match Bundle::parse(&m).expect_err("must be rejected") {
        Error::EntriesOverlap {
            first,
            second,
            first_start,
            second_start,
            ..
        } => {
            assert_eq!((first, second), (dev[0], dev[1]));
            assert_eq!((first_start, second_start), (first_off, first_off + 16));
        }
        e => panic!("unexpected {e:?}"),
    }

    // An entry pointing into the header.
    let mut m = data.clone();
    put_u64(&mut m, t[dev[0]].0, 8);
    assert!(matches!(
        Bundle::parse(&m).expect_err("must be rejected"),
        Error::EntryOverlapsHeader { index, offset: 8, .. } if index == dev[0]
    ));
}

#[test]
fn huge_entry_count_and_id_length_fail_fast() {
    let data = plain();
    let mut m = data.clone();
    put_u64(&mut m, 24, u64::MAX);
    let start = Instant::now();
    assert_eq!(
        Bundle::parse(&m).expect_err("must be rejected"),
        Error::TooManyEntries {
            count: u64::MAX,
            max: (data.len() as u64 - 32) / 24,
            available: data.len() as u64
        }
    );
    // Generous bound: a noisy 2-core machine runs tests in parallel; a
    // hang or a 100 GB allocation would take far longer.
    assert!(start.elapsed() < Duration::from_secs(2));

    let t = table(&data);
    let mut m = data.clone();
    put_u64(&mut m, t[1].0 + 16, 1 << 40);
    assert_eq!(
        Bundle::parse(&m).expect_err("must be rejected"),
        Error::IdTooLong {
            index: 1,
            offset: (t[1].0 + 16) as u64,
            len: 1 << 40,
            max: 4096
        }
    );
}

#[test]
fn ccob_claiming_100_gb_fails_fast() {
    let mut c = ccob_v3();
    put_u64(&mut c, 16, 100_000_000_000);
    let payload = c.len() as u64 - 32;
    let start = Instant::now();
    let e = ccob::decompress(&c, &Limits::default()).expect_err("must be rejected");
    // Generous bound: a noisy 2-core machine runs tests in parallel; a
    // hang or a 100 GB allocation would take far longer.
    assert!(start.elapsed() < Duration::from_secs(2));
    assert_eq!(
        e,
        Error::CcobTooLarge {
            declared: 100_000_000_000,
            limit: Limits::default().decompressed_limit(payload),
            compressed: payload
        }
    );
    // A claim within the hard cap but far beyond the ratio is refused too.
    let mut c = ccob_v3();
    put_u64(&mut c, 16, 3 << 30);
    assert!(matches!(
        ccob::decompress(&c, &Limits::default()).expect_err("must be rejected"),
        Error::CcobTooLarge { declared, .. } if declared == 3 << 30
    ));
    // And a tighter configured cap applies.
    let c = ccob_v3();
    let tight = Limits {
        max_decompressed: 1000,
        ..Limits::default()
    };
    assert!(matches!(
        ccob::decompress(&c, &tight).expect_err("must be rejected"),
        Error::CcobTooLarge { limit: 1000, .. }
    ));
}

#[test]
fn ccob_bad_hash() {
    let good = ccob_v3();
    let (_, plain) = ccob::decompress(&good, &Limits::default()).expect("good");
    let mut c = good.clone();
    c[24] ^= 0x01;
    let stored = u64::from_le_bytes(c[24..32].try_into().expect("8"));
    assert_eq!(
        ccob::decompress(&c, &Limits::default()).expect_err("must be rejected"),
        Error::CcobHashMismatch {
            stored,
            computed: ccob::hash(&plain)
        }
    );
    // With verification off the data still comes out.
    let off = Limits {
        verify_hash: false,
        ..Limits::default()
    };
    assert_eq!(ccob::decompress(&c, &off).expect("unverified").1, plain);
}

#[test]
fn ccob_corrupt_zstd() {
    let good = ccob_v3();
    // A destroyed frame header.
    let mut c = good.clone();
    c[32..36].copy_from_slice(&[0xff; 4]);
    match ccob::decompress(&c, &Limits::default()).expect_err("must be rejected") {
        Error::Decompress {
            method: Method::Zstd,
            offset,
            message,
        } => {
            assert_eq!(offset, 32);
            assert!(!message.is_empty());
        }
        e => panic!("unexpected {e:?}"),
    }
    // A payload cut short (total size adjusted to match).
    let mut c = good[..good.len() - 40].to_vec();
    let n = c.len() as u64;
    put_u64(&mut c, 8, n);
    assert!(matches!(
        ccob::decompress(&c, &Limits::default()).expect_err("must be rejected"),
        Error::Decompress {
            method: Method::Zstd,
            ..
        }
    ));
    // Damage anywhere in the payload is caught by the decoder, the size
    // check or the hash, never accepted.
    for pos in (40..good.len()).step_by(97) {
        let mut c = good.clone();
        c[pos] ^= 0x5a;
        let e = ccob::decompress(&c, &Limits::default()).expect_err("must be rejected");
        assert!(
            matches!(
                e,
                Error::Decompress { .. }
                    | Error::CcobHashMismatch { .. }
                    | Error::CcobSizeMismatch { .. }
            ),
            "byte {pos}: {e:?}"
        );
    }
}

#[test]
fn ccob_corrupt_zlib() {
    let data = plain();
    let good = ccob::compress(
        &data,
        &CompressOptions {
            version: WriteVersion::V2,
            method: Method::Zlib,
            level: None,
        },
    )
    .expect("compress");
    let mut c = good.clone();
    c[24] = 0x00; // invalid zlib header (CMF)
    assert!(matches!(
        ccob::decompress(&c, &Limits::default()).expect_err("must be rejected"),
        Error::Decompress {
            method: Method::Zlib,
            offset: 24,
            ..
        }
    ));
    let mut c = good[..good.len() - 100].to_vec();
    let n = c.len() as u32;
    c[8..12].copy_from_slice(&n.to_le_bytes());
    assert!(matches!(
        ccob::decompress(&c, &Limits::default()).expect_err("must be rejected"),
        Error::Decompress {
            method: Method::Zlib,
            ..
        }
    ));
}

#[test]
fn ccob_size_field_lies() {
    let good = ccob_v3();
    let real = u64::from_le_bytes(good[16..24].try_into().expect("8"));
    let off = Limits {
        verify_hash: false,
        ..Limits::default()
    };
    let mut c = good.clone();
    put_u64(&mut c, 16, real - 1);
    assert_eq!(
        ccob::decompress(&c, &off).expect_err("must be rejected"),
        Error::CcobSizeMismatch {
            declared: real - 1,
            actual: real,
            more: true
        }
    );
    let mut c = good.clone();
    put_u64(&mut c, 16, real + 1000);
    assert_eq!(
        ccob::decompress(&c, &off).expect_err("must be rejected"),
        Error::CcobSizeMismatch {
            declared: real + 1000,
            actual: real,
            more: false
        }
    );
}

#[test]
fn ccob_header_fields() {
    let good = ccob_v3();
    for cut in [2, 6] {
        assert!(matches!(
            ccob::decompress(&good[..cut], &Limits::default()).expect_err("must be rejected"),
            Error::Truncated {
                what: "CCOB header",
                needed: 8,
                ..
            }
        ));
    }
    for cut in [8, 20, 31] {
        assert_eq!(
            ccob::decompress(&good[..cut], &Limits::default()).expect_err("must be rejected"),
            Error::Truncated {
                what: "CCOB header",
                offset: 0,
                needed: 32,
                available: cut as u64
            }
        );
    }
    for cut in [32, 100, good.len() - 1] {
        assert_eq!(
            ccob::decompress(&good[..cut], &Limits::default()).expect_err("must be rejected"),
            Error::CcobFileSize {
                declared: good.len() as u64,
                header_len: 32,
                available: cut as u64
            }
        );
    }
    let mut c = good.clone();
    c[4] = 4;
    assert_eq!(
        ccob::decompress(&c, &Limits::default()).expect_err("must be rejected"),
        Error::CcobVersion { version: 4 }
    );
    let mut c = good.clone();
    c[6] = 7;
    assert_eq!(
        ccob::decompress(&c, &Limits::default()).expect_err("must be rejected"),
        Error::CcobMethod { method: 7 }
    );
    let mut c = good.clone();
    put_u64(&mut c, 8, 5);
    assert_eq!(
        ccob::decompress(&c, &Limits::default()).expect_err("must be rejected"),
        Error::CcobFileSize {
            declared: 5,
            header_len: 32,
            available: good.len() as u64
        }
    );
}

#[test]
fn truncated_host_elf() {
    let p = Build::new("reduce.hip", &["gfx90a"], Output::SharedLib).build();
    let data = std::fs::read(p).expect("read");
    // The section table is at the end: without it nothing can be found.
    let e = discover(&data[..data.len() / 2], &Limits::default()).expect_err("must be rejected");
    assert!(
        matches!(&e, Error::Elf { message } if message.contains("section table")),
        "{e:?}"
    );
    assert!(matches!(
        discover(&data[..40], &Limits::default()).expect_err("must be rejected"),
        Error::Truncated {
            what: "ELF header",
            ..
        }
    ));
    // A .hip_fatbin whose bundle is damaged is reported, not fatal.
    let good = discover(&data, &Limits::default()).expect("discover");
    let off = good.bundles[0].file_offset as usize;
    let mut m = data.clone();
    put_u64(&mut m, off + 24, u64::MAX);
    let d = discover(&m, &Limits::default()).expect("still readable");
    assert!(d.bundles.is_empty());
    assert!(matches!(
        &d.problems[..],
        [Error::InBundle { source, .. }] if matches!(**source, Error::TooManyEntries { .. })
    ));
}

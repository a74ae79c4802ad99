//! Fuzzes the compressed bundle reader: header versions 1-3, zlib and zstd
//! decoding under tight limits, the hash check, and compress/decompress
//! round trips of the input.
#![no_main]

use lathe_bundle::ccob::{self, CompressOptions, Method, WriteVersion};
use lathe_bundle::Limits;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_decompressed: 16 << 20,
        ratio_floor: 1 << 20,
        ..Limits::default()
    };
    if let Ok(h) = ccob::CcobHeader::parse(data) {
        let _ = h.payload(data);
    }
    for verify_hash in [true, false] {
        if let Ok((h, out)) = ccob::decompress(
            data,
            &Limits {
                verify_hash,
                ..limits
            },
        ) {
            assert_eq!(out.len() as u64, h.uncompressed_size);
            if verify_hash {
                assert_eq!(ccob::hash(&out), h.hash);
            }
        }
    }
    // Round trip the input through every writable format.
    if data.len() <= 4096 {
        let (version, method) = match data.first().map_or(0, |b| b & 3) {
            0 => (WriteVersion::V2, Method::Zlib),
            1 => (WriteVersion::V2, Method::Zstd),
            2 => (WriteVersion::V3, Method::Zlib),
            _ => (WriteVersion::V3, Method::Zstd),
        };
        let c = ccob::compress(
            data,
            &CompressOptions {
                version,
                method,
                level: Some(1),
            },
        )
        .expect("compress");
        let (_, back) = ccob::decompress(&c, &limits).expect("own output decompresses");
        assert_eq!(back, data);
    }
});

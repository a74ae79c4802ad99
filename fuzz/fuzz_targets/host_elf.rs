//! Fuzzes input classification and bundle discovery in host ELF files
//! (`.hip_fatbin`, `__CLANG_OFFLOAD_BUNDLE__` sections, `.hipFatBinSegment`
//! wrappers and their relocations), then opens and walks what was found.
#![no_main]

use lathe_bundle::{classify, discover, walk, Limits};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_decompressed: 16 << 20,
        ratio_floor: 1 << 20,
        ..Limits::default()
    };
    let _ = classify(data);
    let Ok(d) = discover(data, &limits) else {
        return;
    };
    for b in &d.bundles {
        assert!(b.bytes.len() <= data.len());
        for &w in &b.wrappers {
            assert_eq!(d.wrappers[w].bundle, Some(b.index));
        }
        if let Ok(o) = b.open(&limits) {
            if let Ok(bundle) = o.bundle(&limits) {
                for e in bundle.entries() {
                    let _ = e.id.target_id();
                }
            }
        }
    }
    if let Ok(w) = walk(data, &limits) {
        let total = w.bytes_total();
        let mut last = 0;
        for e in w.take(256).flatten() {
            assert!(e.bytes_done >= last && e.bytes_done <= total);
            last = e.bytes_done;
        }
    }
});

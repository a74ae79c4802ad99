//! Fuzzes the plain offload bundle reader: header, entry table, IDs, target
//! IDs, selection, back-to-back iteration, and the writer round trip.
#![no_main]

use lathe_bundle::bundle::{sequence, Bundle, BundleWriter};
use lathe_bundle::select::{select, Policy};
use lathe_bundle::{Limits, TargetId};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_decompressed: 16 << 20,
        ratio_floor: 1 << 20,
        ..Limits::default()
    };
    if let Ok(b) = Bundle::parse_with(data, &limits) {
        assert!(b.extent() as usize <= data.len());
        let mut w = BundleWriter::new().alignment(1);
        for e in b.entries() {
            assert!(e.offset as usize + e.data.len() <= data.len());
            let _ = e.id.parsed();
            let _ = e.id.target_id().map(|t| t.to_string());
            if let Some(s) = e.id.target_str() {
                if let Ok(t) = s.parse::<TargetId>() {
                    // Canonical printing re-parses to the same target ID.
                    assert_eq!(t.to_string().parse::<TargetId>(), Ok(t));
                }
            }
            w.add(e.id.to_string_lossy(), e.data);
        }
        for agent in ["gfx90a:sramecc+:xnack-", "gfx1100", "gfx906"] {
            let a: TargetId = agent.parse().expect("valid agent");
            for p in [Policy::Exact, Policy::Clang, Policy::Extended] {
                let s = select(b.entries(), &a, p);
                assert_eq!(s.explain.len(), b.entries().len());
                let _ = s.explain_text();
            }
        }
        // What we write, we read back with the same entries (IDs that were
        // not valid UTF-8 are written lossily, so compare lossy forms).
        let out = w.to_vec();
        let back = Bundle::parse_with(
            &out,
            &Limits {
                max_id_len: u64::MAX,
                ..limits
            },
        )
        .expect("own output parses");
        assert_eq!(back.entries().len(), b.entries().len());
        for (x, y) in back.entries().iter().zip(b.entries()) {
            assert_eq!(x.data, y.data);
        }
    }
    for raw in sequence(data, &limits).take(64).flatten() {
        assert!(raw.offset as usize + raw.bytes.len() <= data.len());
    }
});

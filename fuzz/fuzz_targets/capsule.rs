//! Fuzzes the capsule reader (`lathe replay`'s input): the input is split
//! at the 4-byte marker `CAP|` into `capsule.json`, `before.zst`,
//! `after.zst` and `code/0.co`, `code/1.co`, … , read with small limits
//! (every manifest field checked, blobs decompressed only up to what the
//! bounded manifest declares), and for a capsule that reads, its code
//! objects are rebuilt at their captured allocations both ways: replay's
//! image (`Prepared::fill`, what replay puts under a code allocation's
//! stored pages) and `lathe-loader`'s load and freeze. Where the loader
//! succeeds, replay's image must succeed and equal it byte for byte.
//! Typed errors are expected; a panic or an allocation beyond the limits
//! is a bug.
#![no_main]

use lathe_capsule::read::{Capsule, Files, Limits};
use libfuzzer_sys::fuzz_target;

fn split(data: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut rest = data;
    while let Some(i) = rest.windows(4).position(|w| w == b"CAP|") {
        out.push(&rest[..i]);
        rest = &rest[i + 4..];
    }
    out.push(rest);
    out
}

fuzz_target!(|data: &[u8]| {
    let parts = split(data);
    let mut files = Files::default();
    for (i, p) in parts.iter().enumerate().take(8) {
        let name = match i {
            0 => "capsule.json".to_string(),
            1 => "before.zst".to_string(),
            2 => "after.zst".to_string(),
            n => format!("code/{}.co", n - 3),
        };
        files.0.push((name, p.to_vec()));
    }
    let limits = Limits {
        memory: 64 << 20,
        code_object: 16 << 20,
    };
    if let Ok(c) = Capsule::read(&files, &limits) {
        for i in 0..c.manifest.allocations.len() {
            for run in c.runs(i) {
                assert_eq!(c.after(i, run).len(), c.before(run).len());
            }
        }
        let fast = lathe_capsule::image::Prepared::new(&c);
        let fill = |k: usize, size: u64| {
            let p = fast.as_ref().ok()?;
            let mut image = vec![0u8; size as usize];
            p.fill(k, &mut image).ok().map(|()| image)
        };
        match lathe_capsule::image::load(&c, true) {
            Ok(im) => {
                for (k, co) in c.manifest.code_objects.iter().enumerate() {
                    let size = c.manifest.allocations[co.allocation].size;
                    assert_eq!(im.images[k].len() as u64, size);
                    assert!(
                        fill(k, size).as_ref() == Some(&im.images[k]),
                        "code object {k}: replay's image differs from the loader's"
                    );
                }
            }
            Err(_) => {
                // The reader bounds the code allocations; any may fill.
                for (k, co) in c.manifest.code_objects.iter().enumerate() {
                    let _ = fill(k, c.manifest.allocations[co.allocation].size);
                }
            }
        }
    }
});

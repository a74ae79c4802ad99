//! Decodes arbitrary bytes as gfx90a and gfx942 machine code: every word
//! decodes (invalid words to an explicit invalid instruction) without
//! panicking, prints, and valid instructions re-encode to their bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::fmt::Write as _;

fuzz_target!(|data: &[u8]| {
    for target in lathe_isa::Target::ALL {
        let mut text = String::new();
        let mut at = 0usize;
        while at + 4 <= data.len() {
            let inst = lathe_isa::decode(target, &data[at..]);
            let len = inst.len().max(4);
            let _ = write!(text, "{inst}");
            let _ = inst.operands();
            if !inst.is_invalid() {
                assert_eq!(inst.encode(), data[at..at + len].to_vec(), "round trip of {inst}");
            }
            text.clear();
            at += len;
        }
    }
});

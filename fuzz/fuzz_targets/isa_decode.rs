//! Decodes arbitrary bytes as machine code of every supported target. Every word
//! decodes (undecodable words to an explicit invalid instruction) without
//! panicking; every instruction prints (text, warnings), answers the
//! analysis queries, and, when valid, re-encodes to exactly its bytes and
//! decodes again to the same instruction. The listing writer runs over the
//! whole input with a symbol in the middle.
#![no_main]

use lathe_isa::{decode, write_listing, Decoder, ListingSymbol, Style, Target};
use libfuzzer_sys::fuzz_target;
use std::fmt::Write as _;

fuzz_target!(|data: &[u8]| {
    let mut text = String::new();
    for target in Target::ALL {
        for (at, inst) in Decoder::new(target, data) {
            text.clear();
            write!(text, "{inst}").unwrap();
            inst.write_warnings(&mut text).unwrap();
            assert!(!text.is_empty());
            let len = inst.len();
            assert!((1..=12).contains(&len));
            let _ = inst.operands();
            let _ = inst.branch_target(0x1000 + at as u64);
            let _ = inst.memory_class();
            let _ = inst.waitcnt();
            let _ = (inst.is_terminator(), inst.is_call(), inst.is_return());
            inst.for_each_reg(|_| {});
            if !inst.is_invalid() {
                let bytes = inst.encode();
                assert_eq!(
                    bytes.as_slice(),
                    &data[at..at + len],
                    "round trip of {inst}"
                );
                assert_eq!(decode(target, &bytes), inst, "re-decode of {inst}");
            }
        }
        let syms = [
            ListingSymbol {
                name: "f",
                addr: 0x1000,
                size: 0,
            },
            ListingSymbol {
                name: "g",
                addr: 0x1000 + ((data.len() as u64 / 2) & !3),
                size: 0,
            },
        ];
        let mut listing = String::new();
        write_listing(
            &mut listing,
            target,
            data,
            0x1000,
            &syms,
            Style::LlvmObjdump,
        )
        .unwrap();
        listing.clear();
        write_listing(&mut listing, target, data, 0x1000, &syms, Style::Lathe).unwrap();
    }
});

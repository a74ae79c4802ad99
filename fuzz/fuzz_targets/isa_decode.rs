//! Decodes arbitrary bytes as machine code of every supported target (GFX10+
//! in both wave sizes). Every word decodes (undecodable words to an
//! explicit invalid instruction) without
//! panicking; every instruction prints (text, warnings), answers the
//! analysis queries, and, when valid, re-encodes to exactly its bytes and
//! decodes again to the same instruction. The listing writer runs over the
//! whole input with a symbol in the middle.
#![no_main]

use lathe_isa::listing::{LineCache, Listing};
use lathe_isa::{decode, write_listing, Decoder, ListingSymbol, Style, Target};
use libfuzzer_sys::fuzz_target;
use std::fmt::Write as _;

fuzz_target!(|data: &[u8]| {
    let mut text = String::new();
    // Every processor, GFX10+ ones in wave32 and wave64 (their wave64
    // forms are table columns of their own).
    let wave64 = Target::ALL
        .into_iter()
        .filter_map(|t| t.with_wave_size(64).filter(|&w| w != t));
    for target in Target::ALL.into_iter().chain(wave64) {
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
        // The llvm-objdump style through a small line cache: the default
        // one (16 Ki slots, what `write_listing` allocates per call) cost
        // 78 % of the time on these short inputs. Two parts, split in the
        // middle, must give the text of one pass.
        let listing = Listing::new(target, data, 0x1000, &syms, Style::LlvmObjdump);
        let mut cache = LineCache::with_bits(4);
        let mut whole = Vec::new();
        listing.write_part(&mut whole, listing.start(), data.len(), &mut cache);
        let mut parts = Vec::new();
        let mut cache = LineCache::with_bits(0);
        let mid = listing.write_part(&mut parts, listing.start(), data.len() / 2, &mut cache);
        listing.write_part(&mut parts, mid, data.len(), &mut cache);
        assert_eq!(whole, parts, "listing in two parts, cached and not");
        let mut text = String::new();
        write_listing(&mut text, target, data, 0x1000, &syms, Style::Lathe).unwrap();
    }
});

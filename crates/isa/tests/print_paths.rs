//! The printer's fast paths against its general (reference) code (D73).
//!
//! `Instruction::set_reference_printer(true)` makes the printer skip its
//! fast paths (single registers from a name table, operands without
//! source modifiers, plain VGPR/AGPR/SGPR operands without register-class
//! flags). For every opcode of every target, words with randomized operand
//! fields (register numbers, special registers, inline constants, literals,
//! modifier bits) are decoded and printed both ways; text and warnings must
//! be the same. The wheel and corpus tests hold the fast text to
//! llvm-objdump; this one holds the two paths to each other on operand
//! kinds real code rarely has. Most probes of the common encodings (SOP*,
//! VOP1/2/C/3/3P, DS) go through the cold printer (D80), which prints
//! operands from their specs and fields; the rest through the general one.

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a test failure

use lathe_isa::{decode, Instruction, Opcode, RegFile, Target};
use std::collections::BTreeMap;

/// Source-operand encodings worth hitting (SGPRs, the named scalar
/// registers, inline constants, literal, VGPRs).
const SRC9: &[u32] = &[
    0, 1, 3, 7, 16, 99, 101, 102, 103, 104, 105, 106, 107, 108, 109, 111, 122, 123, 124, 125, 126,
    127, 128, 129, 192, 193, 208, 209, 230, 235, 239, 240, 243, 248, 249, 250, 251, 252, 253, 254,
    255, 256, 257, 300, 383, 384, 500, 510, 511,
];

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn u32(&mut self) -> u32 {
        (self.next() >> 16) as u32
    }
    fn below(&mut self, n: u32) -> u32 {
        (self.next() % n as u64) as u32
    }
    fn src9(&mut self) -> u32 {
        SRC9[self.below(SRC9.len() as u32) as usize]
    }
}

/// One variant of `base` (an opcode's canonical words): the high half of
/// word 0 (encoding, opcode) kept, the rest random, often with 9-bit
/// source fields (word 0 bits 0-8, word 1 bits 0-8, 9-17, 18-26) and
/// 8-bit fields taken from [`SRC9`].
fn variant(base: [u32; 3], rng: &mut Rng, style: u32) -> [u32; 3] {
    let mut w = [rng.u32(), rng.u32(), rng.u32()];
    w[0] = (w[0] & 0x0000_FFFF) | (base[0] & 0xFFFF_0000);
    if style & 1 != 0 {
        w[0] = (w[0] & !0x1FF) | rng.src9();
        let s = [rng.src9(), rng.src9(), rng.src9()];
        w[1] = (w[1] & 0xF800_0000) | s[0] | s[1] << 9 | s[2] << 18;
    }
    if style & 2 != 0 {
        // Fewer modifier bits: most real operands have none.
        w[1] &= 0x07FF_FFFF;
        w[0] &= !0x0000_0700;
    }
    if style == 3 {
        // 8-bit register fields (SOP destinations, VOP vdst, ...).
        w[0] = (w[0] & !0xFF) | (rng.src9() & 0xFF);
        w[0] = (w[0] & !0xFF00) | (rng.src9() & 0xFF) << 8;
    }
    if rng.below(4) == 0 {
        // A literal that is an inline value or a float pattern.
        w[2] = [0x3F80_0000, 0x3118, 64, 0xFFFF_FFF0, 0x3C00_3C00][rng.below(5) as usize];
    }
    w
}

fn text_and_warnings(inst: &Instruction) -> String {
    let mut s = String::new();
    inst.write_to(&mut s).unwrap();
    inst.write_warnings(&mut s).unwrap();
    s
}

#[test]
fn fast_paths_print_what_the_reference_printer_prints() {
    let variants_per_opcode = 24;
    let mut probes: Vec<(Target, Instruction)> = Vec::new();
    for target in Target::ALL {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ target as u64);
        for op in Opcode::all_for(target) {
            let base = Instruction::build(target, op).raw_words();
            for v in 0..variants_per_opcode {
                let w = variant(base, &mut rng, v % 4);
                let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
                let inst = decode(target, &bytes);
                if !inst.is_invalid() {
                    probes.push((target, inst));
                }
            }
        }
    }
    // The reference text of every probe, then the fast text.
    Instruction::set_reference_printer(true);
    let reference: Vec<String> = probes.iter().map(|(_, i)| text_and_warnings(i)).collect();
    Instruction::set_reference_printer(false);
    let mut diffs = Vec::new();
    // How often each fast path had something to do: registers by file and
    // count, so a sweep that stopped reaching one shows up here.
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    // Probes the cold printer (D80) printed itself, per generation.
    let mut cold: BTreeMap<u8, (usize, usize)> = BTreeMap::new();
    for ((target, inst), want) in probes.iter().zip(&reference) {
        let got = text_and_warnings(inst);
        let c = cold.entry(target.generation()).or_default();
        c.0 += inst.prints_cold() as usize;
        c.1 += 1;
        for op in inst.operands().iter() {
            let key = match op.value.reg() {
                Some(r) if r.file == RegFile::Vgpr && r.count == 1 => "one VGPR",
                Some(r) if r.file == RegFile::Vgpr => "VGPR tuple",
                Some(r) if r.file == RegFile::Agpr => "AGPR",
                Some(r) if r.file == RegFile::Scalar && r.count == 1 && r.first <= 101 => {
                    "one SGPR"
                }
                Some(_) => "other scalar",
                None if op.neg || op.abs || op.sext => "modified constant",
                None => "constant or immediate",
            };
            *seen.entry(key).or_default() += 1;
        }
        if &got != want && diffs.len() < 20 {
            diffs.push(format!(
                "{target}: {:08X?}: fast `{got}`, reference `{want}`",
                inst.words()
            ));
        }
    }
    let ndiff = probes
        .iter()
        .zip(&reference)
        .filter(|((_, i), want)| &text_and_warnings(i) != *want)
        .count();
    eprintln!("{} valid probes; operands by kind: {seen:?}", probes.len());
    eprintln!("printed by the cold printer, per generation (cold, all): {cold:?}");
    assert!(
        ndiff == 0,
        "{ndiff} of {} probes print differently:\n{}",
        probes.len(),
        diffs.join("\n")
    );
    for (generation, &(c, all)) in &cold {
        assert!(
            c * 5 >= all,
            "the cold printer took only {c} of {all} GFX{generation} probes"
        );
    }
    for k in [
        "one VGPR",
        "VGPR tuple",
        "AGPR",
        "one SGPR",
        "other scalar",
        "modified constant",
    ] {
        assert!(
            seen.get(k).copied().unwrap_or(0) >= 1000,
            "too few `{k}` operands swept: {seen:?}"
        );
    }
}

//! Every instruction of the HIP corpus, compiled by clang-22 for gfx90a and
//! gfx942 at -O0 and -O3: our llvm-objdump-style listing of `.text` must be
//! identical to llvm-objdump's (after collapsing whitespace), and every
//! instruction must re-encode to its bytes.

#![allow(clippy::unwrap_used)] // test code: a failed unwrap is a test failure

mod common;

use lathe_isa::{Decoder, Target};

#[test]
fn corpus_listings_match_llvm_objdump() {
    let mut total = 0usize;
    let mut mismatches = Vec::new();
    let mut per_target = std::collections::BTreeMap::<Target, usize>::new();
    let mut bad_per_target = std::collections::BTreeMap::<Target, usize>::new();
    for common::CorpusBuild {
        name,
        target,
        opt,
        path,
    } in common::corpus_builds()
    {
        let text = common::read_text(&path);
        for (off, inst) in Decoder::new(target, &text.bytes) {
            total += 1;
            *per_target.entry(target).or_default() += 1;
            let end = off + inst.len();
            assert_eq!(
                inst.encode(),
                text.bytes[off..end.min(text.bytes.len())],
                "{name} {target} {opt}: re-encoding {inst:?} at {off:#x}"
            );
        }
        let ours = common::our_listing(target, &text);
        let theirs = common::objdump_listing(target, &path);
        let diffs = common::diff_listings(&ours, &theirs);
        for (a, b) in diffs {
            *bad_per_target.entry(target).or_default() += 1;
            mismatches.push(format!(
                "{name} {target} {opt}:\n  ours:   {a}\n  objdump: {b}"
            ));
        }
    }
    eprintln!("corpus instructions per target: {per_target:?}");
    eprintln!("corpus mismatching lines per target: {bad_per_target:?}");
    for t in common::corpus_targets() {
        let n = per_target.get(&t).copied().unwrap_or(0);
        assert!(n > 1000, "{t}: only {n} corpus instructions");
    }
    eprintln!(
        "corpus: {total} instructions, {} mismatching lines",
        mismatches.len()
    );
    let show = std::env::var("LATHE_SHOW_MISMATCHES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    for m in mismatches.iter().take(show) {
        eprintln!("{m}");
    }
    assert!(total > 1000, "corpus too small: {total}");
    assert!(
        mismatches.is_empty(),
        "{} mismatching lines",
        mismatches.len()
    );
}

/// Instructions the corpus does not reach: `tests/kernels/gfx950.hip`
/// (f8f6f4 MFMAs in every A/B format, bitop3, prng) for gfx950.
#[test]
fn gfx950_kernels_match_llvm_objdump() {
    let mut total = 0usize;
    let mut mismatches = Vec::new();
    for opt in ["-O0", "-O3"] {
        let target = Target::Gfx950;
        let path = common::build_test_kernel("gfx950.hip", target, opt);
        let text = common::read_text(&path);
        for (off, inst) in Decoder::new(target, &text.bytes) {
            total += 1;
            let end = (off + inst.len()).min(text.bytes.len());
            assert_eq!(inst.encode(), text.bytes[off..end], "{opt}: {inst:?}");
        }
        let ours = common::our_listing(target, &text);
        let theirs = common::objdump_listing(target, &path);
        for (a, b) in common::diff_listings(&ours, &theirs) {
            mismatches.push(format!("gfx950.hip {opt}:\n  ours:    {a}\n  objdump: {b}"));
        }
        for m in ["_f8f6f4", "v_bitop3_b32", "v_prng_b32"] {
            assert!(ours.contains(m), "{opt}: no {m} in the listing");
        }
    }
    for m in mismatches.iter().take(60) {
        eprintln!("{m}");
    }
    assert!(total > 500, "only {total} instructions");
    assert!(
        mismatches.is_empty(),
        "{} mismatching lines",
        mismatches.len()
    );
}

/// Checks test kernels (`tests/kernels/*.hip`) built by clang-22: every
/// instruction re-encodes to its own bytes and our listing equals
/// llvm-objdump's; collects the differing lines of every object and
/// asserts at the end.
#[derive(Default)]
struct Kernels {
    total: usize,
    mismatches: Vec<String>,
}

impl Kernels {
    /// Builds SRC for T at OPT and checks it; returns the object's path,
    /// its `.text` and our listing (for the caller's own markers).
    fn check(
        &mut self,
        src: &str,
        t: Target,
        opt: &str,
    ) -> (std::path::PathBuf, common::Text, String) {
        let path = common::build_test_kernel_for(src, t, opt);
        let text = common::read_text(&path);
        for (off, inst) in Decoder::new(t, &text.bytes) {
            self.total += 1;
            let end = (off + inst.len()).min(text.bytes.len());
            assert_eq!(inst.encode(), text.bytes[off..end], "{t} {opt}: {inst:?}");
        }
        let ours = self.listing(&format!("{src} {t} {opt}"), t, &path, &text);
        (path, text, ours)
    }

    /// Lists TEXT (from PATH) for T and compares it with llvm-objdump's.
    fn listing(
        &mut self,
        label: &str,
        t: Target,
        path: &std::path::Path,
        text: &common::Text,
    ) -> String {
        let ours = common::our_listing(t, text);
        let theirs = common::objdump_listing(t, path);
        for (a, b) in common::diff_listings(&ours, &theirs) {
            self.mismatches
                .push(format!("{label}:\n  ours:    {a}\n  objdump: {b}"));
        }
        ours
    }

    /// Prints the first differing lines; asserts more than MIN_TOTAL
    /// instructions were checked and none differed.
    fn finish(self, min_total: usize) {
        for m in self.mismatches.iter().take(60) {
            eprintln!("{m}");
        }
        assert!(self.total > min_total, "only {} instructions", self.total);
        assert!(
            self.mismatches.is_empty(),
            "{} mismatching lines",
            self.mismatches.len()
        );
    }
}

/// GFX11.5's SALU float operations (`tests/kernels/gfx1150.hip`), which
/// only gfx1150's column has (by probe) and the corpus does not reach:
/// gfx1150 and gfx1151, wave32 and wave64, -O0 and -O3.
#[test]
fn gfx1150_salu_float_kernels_match_llvm_objdump() {
    let mut k = Kernels::default();
    for target in [Target::Gfx1150, Target::Gfx1151] {
        for t in [target, target.with_wave_size(64).unwrap()] {
            for opt in ["-O0", "-O3"] {
                let (_, _, ours) = k.check("gfx1150.hip", t, opt);
                if opt == "-O3" {
                    for m in ["s_fmac_f32", "s_ceil_f32", "s_cmp_lt_f32", "s_cvt_f32_f16"] {
                        assert!(ours.contains(m), "{t} {opt}: no {m} in the listing");
                    }
                }
            }
        }
    }
    k.finish(200);
}

/// GFX12 operations the corpus does not reach (`tests/kernels/gfx1201.hip`):
/// WMMA and SWMMAC, fp8/bf8 conversions with `byte_sel`, VBUFFER loads and
/// stores, `th:`/`scope:` cache policy from non-temporal accesses and
/// scoped atomics; gfx1200 and gfx1201, wave32 and wave64, -O0 and -O3.
#[test]
fn gfx12_kernels_match_llvm_objdump() {
    let mut k = Kernels::default();
    for target in [Target::Gfx1200, Target::Gfx1201] {
        for t in [target, target.with_wave_size(64).unwrap()] {
            for opt in ["-O0", "-O3"] {
                let (_, _, ours) = k.check("gfx1201.hip", t, opt);
                for m in [
                    "v_wmma_f32_16x16x16_f16",
                    "v_swmmac_f32_16x16x32_f16",
                    "byte_sel:2",
                    "buffer_load_b32",
                    "th:TH_LOAD_NT",
                    "th:TH_ATOMIC_RETURN",
                    "scope:SCOPE_SYS",
                ] {
                    assert!(ours.contains(m), "{t} {opt}: no {m} in the listing");
                }
            }
        }
    }
    k.finish(1000);
}

/// GFX10.1's dot products (`tests/kernels/gfx1011.hip`), which only
/// gfx1011/gfx1012's column has (by probe): gfx1011 and gfx1012, wave32 and
/// wave64, -O0 and -O3, listed as llvm-objdump lists them. The same objects
/// listed for gfx1010 and gfx1013 (no dot instructions) must match
/// llvm-objdump `--mcpu=gfx1010`/`gfx1013` too, where the dot words are
/// `.long`.
#[test]
fn gfx1011_dot_kernels_match_llvm_objdump() {
    let mut k = Kernels::default();
    let mut invalid_elsewhere = 0usize;
    for target in [Target::Gfx1011, Target::Gfx1012] {
        for t in [target, target.with_wave_size(64).unwrap()] {
            for opt in ["-O0", "-O3"] {
                let (path, text, ours) = k.check("gfx1011.hip", t, opt);
                for m in [
                    "v_dot2c_f32_f16",
                    "v_dot2_f32_f16",
                    "v_dot2_i32_i16",
                    "v_dot2_u32_u16",
                    "v_dot4c_i32_i8",
                    "v_dot4_u32_u8",
                    "v_dot8_i32_i4",
                    "v_dot8_u32_u4",
                ] {
                    assert!(ours.contains(m), "{t} {opt}: no {m} in the listing");
                }
                // Per-processor availability: the same words on gfx1010
                // and gfx1013.
                for other in [Target::Gfx1010, Target::Gfx1013] {
                    let o = other.with_wave_size(t.wave_size()).unwrap();
                    let ours = k.listing(&format!("gfx1011.hip as {o} {opt}"), o, &path, &text);
                    assert!(!ours.contains("v_dot"), "{o} {opt}: dot decoded");
                    invalid_elsewhere += ours.matches(".long").count();
                }
            }
        }
    }
    assert!(
        invalid_elsewhere >= 64,
        "only {invalid_elsewhere} invalid words on gfx1010/1013"
    );
    k.finish(300);
}

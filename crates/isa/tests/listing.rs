//! Listings of objects assembled by llvm-mc with edge cases (zero runs,
//! trailing bytes, invalid words, branches across symbols, literals): our
//! objdump-style listing must equal llvm-objdump's, and the Lathe style
//! must label every branch target it refers to.

#![allow(clippy::unwrap_used)]

mod common;

use lathe_isa::{write_listing, Decoder, ListingSymbol, Style, Target};
use std::process::Command;

fn assemble_obj(target: Target, name: &str, src: &str) -> std::path::PathBuf {
    let dir = lathe_testkit::cache_dir().join("isa-listing");
    std::fs::create_dir_all(&dir).unwrap();
    // Two tests assemble the same source on parallel threads: each writes
    // its own temporary files and renames the object into place.
    let o = dir.join(format!("{name}-{}.o", target.name()));
    let s = lathe_testkit::tmp_beside(&o.with_extension("s"));
    let tmp = lathe_testkit::tmp_beside(&o);
    std::fs::write(&s, src).unwrap();
    lathe_testkit::run(
        Command::new(lathe_testkit::llvm_tool("llvm-mc"))
            .args(["-triple=amdgcn-amd-amdhsa", "-filetype=obj"])
            .arg(format!("-mcpu={}", target.name()))
            .arg(&s)
            .arg("-o")
            .arg(&tmp),
    );
    std::fs::remove_file(&s).unwrap();
    lathe_testkit::publish(&tmp, &o);
    o
}

const EDGES: &str = r#"
.text
.globl f
.type f,@function
f:
  s_nop 0
  .long 0, 0, 0
  s_cbranch_scc0 .Lb
  s_mov_b32 s0, 0x12345678
  v_add_f32_e32 v0, 0x40490fdb, v1
.Lb:
  s_branch g
  .long 0xffffffff
  .long 0x000000d1
  .long 0
  s_endpgm
  .long 0, 0
.size f, .-f
.globl g
.type g,@function
g:
  s_cbranch_execz f
  s_setpc_b64 s[30:31]
  .long 0
  .long 0
  .long 0
  .long 0xd1c10000
.size g, .-g
  .byte 1, 2, 3
"#;

#[test]
fn edge_cases_match_llvm_objdump() {
    for t in Target::ALL {
        let path = assemble_obj(t, "edges", EDGES);
        let text = common::read_text(&path);
        let ours = common::our_listing(t, &text);
        let theirs = common::objdump_listing(t, &path);
        let diff = common::diff_listings(&ours, &theirs);
        assert!(
            diff.is_empty(),
            "{t}: {diff:#?}\nours:\n{ours}\nobjdump:\n{theirs}"
        );
        // The zero runs and the trailing bytes really occurred.
        assert!(theirs.contains("..."), "{theirs}");
        assert!(theirs.contains(".byte 0x01, 0x02, 0x03"), "{theirs}");
    }
}

/// GFX10.1 words: a returning scalar atomic with a misaligned sdata pair
/// (LLVM warns once per sdata use, twice) and a `.long` below 0x10000000
/// (LLVM prints all eight digits).
const GFX10_1: &str = r#"
.text
.globl f
.type f,@function
f:
  .long 0xf68900c2, 0xfa000000
  .long 0x04040903
  s_endpgm
.size f, .-f
"#;

#[test]
fn gfx10_1_warnings_and_invalid_words_match_llvm_objdump() {
    for t in [Target::Gfx1010, Target::Gfx1010.with_wave_size(64).unwrap()] {
        let path = assemble_obj(t, "gfx10-1", GFX10_1);
        let text = common::read_text(&path);
        let ours = common::our_listing(t, &text);
        let theirs = common::objdump_listing(t, &path);
        let diff = common::diff_listings(&ours, &theirs);
        assert!(diff.is_empty(), "{t}: {diff:#?}");
        assert_eq!(theirs.matches("isn't aligned").count(), 2, "{theirs}");
        assert!(theirs.contains(".long 0x04040903"), "{theirs}");
    }
}

fn symbols(t: &common::Text) -> Vec<ListingSymbol<'_>> {
    t.symbols
        .iter()
        .map(|(n, a, s)| ListingSymbol {
            name: n,
            addr: *a,
            size: *s,
        })
        .collect()
}

/// Lathe style: one line per instruction with its address and LLVM's text,
/// and every `; -> .Lx` branch reference has its label line.
fn check_lathe(t: Target, text: &common::Text) {
    let syms = symbols(text);
    let mut out = String::new();
    write_listing(&mut out, t, &text.bytes, text.addr, &syms, Style::Lathe).unwrap();
    let labels: std::collections::HashSet<&str> = out
        .lines()
        .filter_map(|l| l.strip_suffix(':'))
        .filter(|l| l.starts_with(".L"))
        .collect();
    let mut n = 0;
    let mut lines = out.lines().filter(|l| l.starts_with("  "));
    for (off, inst) in Decoder::new(t, &text.bytes) {
        let l = lines.next().unwrap();
        let (addr, rest) = l.trim_start().split_once(":  ").unwrap();
        assert_eq!(
            u64::from_str_radix(addr, 16).unwrap(),
            text.addr + off as u64
        );
        let body = rest.split(" ; ").next().unwrap().trim_end();
        assert_eq!(body, inst.to_string());
        if let Some(r) = rest.split(" ; -> ").nth(1) {
            let target = inst.branch_target(text.addr + off as u64).unwrap();
            if r.starts_with(".L") {
                assert!(labels.contains(r), "missing label {r}:\n{out}");
            } else {
                assert!(r.starts_with('<'), "{l}");
                assert!(syms.iter().any(|s| target >= s.addr), "{l}");
            }
            n += 1;
        } else {
            assert!(inst.branch_target(0).is_none(), "{l}");
        }
    }
    assert!(lines.next().is_none());
    assert!(n > 0 || !text.bytes.is_empty());
}

#[test]
fn lathe_style_labels_every_branch() {
    for t in Target::ALL {
        let path = assemble_obj(t, "edges", EDGES);
        check_lathe(t, &common::read_text(&path));
        let mut b = lathe_testkit::Build::new(
            "k_divergent.hip",
            &[t.name()],
            lathe_testkit::Output::CodeObject,
        );
        b.opt = "-O3";
        let path = b.build();
        check_lathe(t, &common::read_text(&path));
    }
}

/// Each kind of cached line twice (the second copy comes from the line
/// cache, D67): a branch (its target differs per copy), an instruction
/// with a literal (two words), a misaligned scalar pair (LLVM warns: never
/// cached) and plain one-word instructions, at addresses whose digits
/// differ in several places.
const REPEATS: &str = r#"
.text
.globl f
.type f,@function
f:
  s_mov_b32 s0, 0x12345678
  v_add_f32_e32 v0, 0x40490fdb, v1
  s_cbranch_scc0 g
  s_load_dwordx2 s[2:3], s[4:5], 0x10
  v_mov_b32_e32 v2, v3
  .long 0xc0060043, 0x00000000
  s_mov_b32 s0, 0x12345678
  v_add_f32_e32 v0, 0x40490fdb, v1
  s_cbranch_scc0 g
  s_load_dwordx2 s[2:3], s[4:5], 0x10
  v_mov_b32_e32 v2, v3
  .long 0xc0060043, 0x00000000
  .fill 300, 4, 0xbf800000
  s_cbranch_scc0 g
  v_mov_b32_e32 v2, v3
  s_endpgm
.size f, .-f
.globl g
.type g,@function
g:
  s_cbranch_scc0 f
  s_endpgm
.size g, .-g
"#;

#[test]
fn cached_lines_match_llvm_objdump_and_uncached_ones() {
    use lathe_isa::listing::{LineCache, Listing};
    use lathe_isa::Style;
    let t = Target::Gfx90a;
    let path = assemble_obj(t, "repeats", REPEATS);
    let text = common::read_text(&path);
    let ours = common::our_listing(t, &text);
    let theirs = common::objdump_listing(t, &path);
    let diff = common::diff_listings(&ours, &theirs);
    assert!(
        diff.is_empty(),
        "{diff:#?}\nours:\n{ours}\nobjdump:\n{theirs}"
    );
    assert_eq!(theirs.matches("isn't aligned").count(), 2, "{theirs}");
    // The same bytes through a cache and without one.
    let syms = symbols(&text);
    let l = Listing::new(t, &text.bytes, text.addr, &syms, Style::LlvmObjdump);
    let mut cached = Vec::new();
    let mut cache = LineCache::with_bits(10);
    l.write_part(&mut cached, l.start(), l.code_len(), &mut cache);
    let mut plain = Vec::new();
    l.write_part(
        &mut plain,
        l.start(),
        l.code_len(),
        &mut LineCache::with_bits(0),
    );
    assert_eq!(
        String::from_utf8(cached).unwrap(),
        String::from_utf8(plain).unwrap()
    );
    // s_nop runs, the second copies and the branches came from the cache.
    let (lines, hits) = cache.stats();
    assert!(hits >= 300 + 8, "{lines} lines, {hits} hits");
}

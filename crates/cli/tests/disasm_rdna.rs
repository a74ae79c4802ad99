//! `lathe disasm` on GFX10+ code objects: the listings of GFX10.1,
//! gfx1030, gfx1100, the other GFX10.3/GFX11 processors and GFX12, wave32
//! and wave64 (the wave size comes from the kernel descriptors), and of
//! GFX12.5 (wave32 only), equal llvm-objdump's.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

mod common;

use common::listings;
use lathe_testkit::{Build, Output};

#[test]
fn gfx1030_wave32_and_wave64_listings_match_llvm_objdump() {
    wave32_and_wave64_listings_match("gfx1030");
}

#[test]
fn gfx1100_wave32_and_wave64_listings_match_llvm_objdump() {
    wave32_and_wave64_listings_match("gfx1100");
}

/// The other GFX10.3 and GFX11 processors and their generic targets (D35):
/// the same tables as gfx1030/gfx1100 (or gfx1150's, by probe), each
/// compiled for itself, so each one's code and descriptors are its own.
#[test]
fn other_gfx103_and_gfx11_processors_match_llvm_objdump() {
    for p in [
        "gfx1031",
        "gfx1036",
        "gfx10-3-generic",
        "gfx1103",
        "gfx1151",
        "gfx11-generic",
    ] {
        wave32_and_wave64_listings_match(p);
    }
}

fn wave32_and_wave64_listings_match(proc_: &'static str) {
    for (wave, flag, mattr) in [
        (32, None, None),
        (
            64,
            Some("-mwavefrontsize64"),
            Some("--mattr=+wavefrontsize64"),
        ),
    ] {
        for src in ["reduce.hip", "vecops.hip"] {
            let mut b = Build::new(src, &[proc_], Output::CodeObject);
            b.opt = "-O3";
            b.extra.extend(flag);
            let co = b.build();
            let (ours, theirs) = listings(&co, proc_, mattr.as_slice());
            assert!(
                ours.len() > 50,
                "{proc_} {src} wave{wave}: {} lines",
                ours.len()
            );
            let lane_mask = if wave == 32 { "vcc_lo" } else { "vcc," };
            assert!(
                ours.iter().any(|l| l.contains(lane_mask)),
                "{proc_} {src} wave{wave}: no {lane_mask} in the listing"
            );
            assert_eq!(
                ours, theirs,
                "{proc_} {src} wave{wave}: listing differs from llvm-objdump"
            );
        }
    }
}

/// GFX12 (RDNA4, D39): gfx1200, gfx1201 and gfx12-generic, wave32 and
/// wave64.
#[test]
fn gfx12_processors_match_llvm_objdump() {
    for p in ["gfx1200", "gfx1201", "gfx12-generic"] {
        wave32_and_wave64_listings_match(p);
    }
}

/// GFX12.5 (D54, wave32 only): `reduce.hip` at -O0 (no VOPD3, which
/// lathe-isa does not decode yet) lists as llvm-objdump lists it.
#[test]
fn gfx12_5_listing_matches_llvm_objdump() {
    let mut b = Build::new("reduce.hip", &["gfx1250"], Output::CodeObject);
    b.opt = "-O0";
    let co = b.build();
    let (ours, theirs) = listings(&co, "gfx1250", &[]);
    assert!(ours.len() > 50, "gfx1250: {} lines", ours.len());
    assert_eq!(ours, theirs, "gfx1250: listing differs from llvm-objdump");
}

/// GFX10.1 (RDNA1, D46): gfx1010-gfx1013 and gfx10-1-generic, wave32 and
/// wave64.
#[test]
fn gfx10_1_processors_match_llvm_objdump() {
    for p in ["gfx1010", "gfx1011", "gfx1013", "gfx10-1-generic"] {
        wave32_and_wave64_listings_match(p);
    }
}

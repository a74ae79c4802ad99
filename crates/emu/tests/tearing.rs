//! Naturally aligned 64-bit accesses are single-copy atomic across the
//! emulator's host threads, as on the hardware (issue 20; the memory model
//! is in `lathe_emu::mem`'s module docs and docs/decisions.md D17).
//!
//! `tearing.hip` (clang-22 -O3, gfx90a and gfx942): even work-groups store
//! `(v, !v)` pairs with `global_store_dwordx2`, odd work-groups load the
//! same slots with `global_load_dwordx2` and count pairs whose halves
//! disagree, 4,000 times per lane. Run a few times on two and four threads;
//! a single torn pair fails. (With each lane's pair moved as two 32-bit
//! halves, one round counted 81,152 torn pairs.)

use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::Options;
use lathe_emu::session::{Session, Shape};
use lathe_testkit::{Build, Output};

fn run(target: &'static str, threads: usize, rounds: usize) {
    let co = std::fs::read(Build::new("tearing.hip", &[target], Output::CodeObject).build())
        .expect("code object");
    let s = Session::load(target.parse().expect("target"), &[&co]).expect("load");
    // Slots hold (0, 0xffffffff) pairs to start with: a valid pair.
    let mut init = Vec::new();
    for _ in 0..256 {
        init.extend_from_slice(&0xffff_ffff_0000_0000u64.to_le_bytes());
    }
    let opts = Options {
        threads,
        ..Options::default()
    };
    for round in 0..rounds {
        let args = [
            Arg::Buffer {
                name: "slots".into(),
                size: init.len() as u64,
                fill: Fill::Bytes(init.clone()),
                output: None,
            },
            Arg::Buffer {
                name: "torn".into(),
                size: 4,
                fill: Fill::Zero,
                output: None,
            },
            Arg::Scalar {
                ty: "u32".into(),
                bytes: 4000u32.to_le_bytes().to_vec(),
            },
        ];
        // 16 work-groups of 256 lanes: 8 storing, 8 loading.
        let (report, bufs) = s
            .launch("tear64", Shape::linear(16 * 256, 256), &args, &opts)
            .expect("launch");
        assert!(report.wave_instructions > 0);
        let torn = bufs.iter().find(|b| b.name == "torn").expect("torn");
        let bytes = s.download(torn.addr, 4).expect("download");
        let n = u32::from_le_bytes(bytes.try_into().expect("4 bytes"));
        assert_eq!(
            n, 0,
            "{target}, {threads} threads, round {round}: {n} torn 64-bit pairs read"
        );
    }
}

#[test]
fn aligned_64_bit_accesses_are_never_torn_on_two_threads() {
    run("gfx90a", 2, 4);
}

#[test]
fn aligned_64_bit_accesses_are_never_torn_on_four_threads() {
    run("gfx942", 4, 2);
}

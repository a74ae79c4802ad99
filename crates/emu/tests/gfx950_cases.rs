//! gfx950 (CDNA4) on the emulator's real inputs:
//!
//! * the `lathe-cases` corpus's clang-22 cases, built by clang-22 for
//!   gfx950 at -O0 and -O3, each checked against its CPU reference (a stop
//!   at an unsupported instruction fails too);
//! * LDS past 64 KiB: `lds_big.hip` with 150 KiB of dynamic LDS runs
//!   correctly on gfx950 (160 KiB per work-group, `sem::lds_bytes`) and the
//!   same kernel built for gfx90a is refused with a clear error.
//!
//! `run_case` is `cases.rs`'s, with the target as data.

use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::{DispatchError, Options};
use lathe_emu::session::{Session, SessionError, Shape};
use lathe_testkit::{Build, Output};

mod case_run;

use case_run::{run_case, Outcome};

#[test]
fn corpus_cases_match_their_cpu_references_on_gfx950() {
    let mut passed = 0;
    let mut bad = Vec::new();
    for case in lathe_cases::all() {
        // clang-22 cases only: Debian's hipcc has no gfx950 device library.
        if case.hipcc || !case.targets.contains(&"gfx942") {
            continue;
        }
        let mut c = case.clone();
        c.targets = &["gfx950"];
        for opt in ["-O0", "-O3"] {
            match run_case(&c, "gfx950", opt, &Options::default()) {
                Outcome::Pass => passed += 1,
                Outcome::Unsupported(i) => bad.push(format!("{} {opt}: unsupported {i}", c.name)),
                Outcome::Fail(e) => bad.push(format!("{} {opt}: {e}", c.name)),
            }
        }
    }
    eprintln!("gfx950 corpus: {passed} runs passed, {} did not", bad.len());
    assert!(passed > 0);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

const WORDS: u32 = 150 * 1024 / 4;

fn lds_big(target: &'static str) -> Result<Vec<u32>, SessionError> {
    let co = std::fs::read(Build::new("lds_big.hip", &[target], Output::CodeObject).build())
        .expect("code object");
    let session = Session::load(target.parse().expect("target"), &[&co]).expect("load");
    let input: Vec<u8> = (0..WORDS)
        .flat_map(|i| (i.wrapping_mul(2_654_435_761) ^ 0x5bd1_e995).to_le_bytes())
        .collect();
    let args = vec![
        Arg::Buffer {
            name: "in".into(),
            size: input.len() as u64,
            fill: Fill::Bytes(input),
            output: None,
        },
        Arg::Buffer {
            name: "out".into(),
            size: u64::from(WORDS) * 4,
            fill: Fill::Bytes(vec![0; WORDS as usize * 4]),
            output: None,
        },
        Arg::Scalar {
            ty: "u32".into(),
            bytes: WORDS.to_le_bytes().to_vec(),
        },
    ];
    let shape = Shape {
        grid: [256, 1, 1],
        block: [256, 1, 1],
        dims: 1,
        dynamic_lds: WORDS * 4,
    };
    let (_r, bufs) = session.launch("lds_big", shape, &args, &Options::default())?;
    let out = session
        .download(bufs[1].addr, bufs[1].size)
        .expect("read back");
    Ok(out
        .chunks(4)
        .map(|b| u32::from_le_bytes(b.try_into().expect("4")))
        .collect())
}

#[test]
fn lds_past_64_kib_runs_on_gfx950_and_is_refused_on_gfx90a() {
    let out = lds_big("gfx950").expect("gfx950 has 160 KiB of LDS");
    let input = |i: u32| i.wrapping_mul(2_654_435_761) ^ 0x5bd1_e995;
    for i in 0..WORDS {
        let want = input(WORDS - 1 - i).wrapping_mul(3).wrapping_add(1) ^ i;
        assert_eq!(out[i as usize], want, "word {i}");
    }
    match lds_big("gfx90a") {
        Err(SessionError::Dispatch(e @ DispatchError::Lds(..))) => {
            let msg = e.to_string();
            assert!(
                msg.contains("153600") && msg.contains("65536") && msg.contains("gfx90a"),
                "{msg}"
            );
        }
        other => panic!(
            "gfx90a ran a 150 KiB LDS kernel: {:?}",
            other.map(|v| v.len())
        ),
    }
}

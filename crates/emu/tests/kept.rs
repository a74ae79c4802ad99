//! What the emulator keeps from one dispatch to the next (D49: each
//! kernel's decodes, the per-opcode counters, the waves) must not leak
//! into the next dispatch's report: every launch of a kernel, between
//! launches of other kernels and on 1 or 2 threads, counts what the
//! ground-truth recorder counts for it (per-PC, an independent path).

use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::Options;
use lathe_emu::session::{Session, Shape};
use lathe_testkit::{Build, Output};

fn session(src: &'static str) -> Session {
    let co = std::fs::read(Build::new(src, &["gfx90a"], Output::CodeObject).build())
        .expect("code object");
    Session::load("gfx90a".parse().expect("target"), &[&co]).expect("load")
}

fn buf(bytes: Vec<u8>) -> Arg {
    Arg::Buffer {
        name: "b".into(),
        size: bytes.len() as u64,
        fill: Fill::Bytes(bytes),
        output: None,
    }
}

fn i32_arg(v: i32) -> Arg {
    Arg::Scalar {
        ty: "i32".into(),
        bytes: v.to_le_bytes().to_vec(),
    }
}

#[test]
fn counts_are_per_dispatch_across_kernels_and_threads() {
    let reduce = session("reduce.hip");
    let n = 1000;
    let input: Vec<u8> = (0..n)
        .flat_map(|i| ((i % 7) as f32).to_le_bytes())
        .collect();
    let sum_args = || [buf(input.clone()), buf(vec![0; 16]), i32_arg(n)];
    let fib_args = || [buf(vec![0; 64 * 4])];
    let launches: [(&str, Shape, Vec<Arg>); 2] = [
        (
            "_Z9block_sumPKfPfi",
            Shape::linear(1024, 256),
            sum_args().to_vec(),
        ),
        (
            "_Z10fib_kernelPi",
            Shape::linear(64, 64),
            fib_args().to_vec(),
        ),
    ];
    // The ground truth: per-PC counts of a recorded run.
    let truth: Vec<u64> = launches
        .iter()
        .map(|(k, shape, args)| {
            let (r, _, rec) = reduce
                .launch_recorded(k, *shape, args, &Options::default())
                .expect("runs");
            let per_pc: u64 = rec.per_pc.values().map(|c| c.waves).sum();
            assert_eq!(r.wave_instructions, per_pc, "{k}: recorded run");
            assert!(per_pc > 100, "{k}: {per_pc} wave-instructions");
            per_pc
        })
        .collect();
    let mut first = vec![None; launches.len()];
    for threads in [1, 2, 1, 2] {
        let opts = Options {
            threads,
            ..Options::default()
        };
        for (i, (k, shape, args)) in launches.iter().enumerate() {
            for _ in 0..2 {
                let (r, _) = reduce.launch(k, *shape, args, &opts).expect("runs");
                assert_eq!(
                    r.wave_instructions, truth[i],
                    "{k} on {threads} thread(s): counted {} wave-instructions, the recorder {}",
                    r.wave_instructions, truth[i]
                );
                let sum: u64 = r.per_opcode.iter().map(|(_, c)| c).sum();
                assert_eq!(sum, r.wave_instructions, "{k}: per-opcode counts");
                // The per-opcode split is the same every time.
                match &first[i] {
                    None => first[i] = Some(r.per_opcode.clone()),
                    Some(p) => assert_eq!(p, &r.per_opcode, "{k} on {threads} thread(s)"),
                }
            }
        }
    }
}

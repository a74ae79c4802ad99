//! What a dispatch keeps from the previous dispatches of a kernel (D49's
//! decodes, the per-opcode counters, D75's wave-plan memo, the kept waves
//! and LDS) must never leak into the next one:
//!
//! * kernels with different initial SGPR layouts (work-group IDs in one,
//!   two or three dimensions, scratch, dynamic LDS) dispatched in turn,
//!   each time with another grid, work-group size, argument values and
//!   LDS size, on the same host thread, give exactly the results a CPU
//!   reference gives;
//! * every launch of a kernel, between launches of other kernels and on 1
//!   or 2 threads, counts what the ground-truth recorder counts for it
//!   (per-PC, an independent path).

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

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4")))
        .collect()
}

/// One threads=1 launch; the bytes of buffer argument `out`.
fn run(s: &Session, kernel: &str, shape: Shape, args: &[Arg], out: usize) -> Vec<u8> {
    let opts = Options {
        threads: 1,
        ..Options::default()
    };
    let (_, bufs) = s
        .launch(kernel, shape, args, &opts)
        .unwrap_or_else(|e| panic!("{kernel}: {e}"));
    let b = &bufs[out];
    s.download(b.addr, b.size).expect("download")
}

fn fib(n: u32) -> u32 {
    if n < 2 {
        n
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

#[test]
fn kernels_in_turn_with_other_shapes_get_their_own_start_state() {
    let reduce = session("reduce.hip");
    let grid = session("k_grid.hip");
    for round in 0..3u32 {
        // block_sum: work-group ID x, static LDS; the grid and n change.
        let block = [64u32, 128, 256][round as usize];
        let n = 300 + 211 * round as i32;
        let groups = (n as u32).div_ceil(block);
        let input: Vec<f32> = (0..n)
            .map(|i| ((i * 7 + round as i32) % 13) as f32)
            .collect();
        let got = run(
            &reduce,
            "_Z9block_sumPKfPfi",
            Shape::linear(groups * block, block),
            &[
                buf(input.iter().flat_map(|x| x.to_le_bytes()).collect()),
                buf(vec![0; groups as usize * 4]),
                i32_arg(n),
            ],
            1,
        );
        let want: Vec<u32> = input
            .chunks(block as usize)
            .map(|c| c.iter().sum::<f32>().to_bits())
            .collect();
        assert_eq!(words(&got), want, "block_sum round {round}");

        // grid3d_ids: work-group IDs x, y and z; 3-D groups of another
        // size every round.
        let (w, h, d) = (9 + round as i32, 7, 5 - round as i32);
        let blk = [[4u32, 2, 2], [2, 4, 1], [3, 3, 3]][round as usize];
        let shape = Shape {
            grid: [w as u32, h as u32, d as u32],
            block: blk,
            dims: 3,
            dynamic_lds: 0,
        };
        let cells = (w * h * d) as usize;
        let inp: Vec<i32> = (0..cells as i32).map(|i| i * 3 - 50).collect();
        let args = [
            buf(vec![0; cells * 4]),
            buf(vec![0; cells * 4]),
            buf(inp.iter().flat_map(|x| x.to_le_bytes()).collect()),
            i32_arg(w),
            i32_arg(h),
            i32_arg(d),
        ];
        let ids = words(&run(&grid, "_Z10grid3d_idsPjPiPKiiii", shape, &args, 0));
        let vals = words(&run(&grid, "_Z10grid3d_idsPjPiPKiiii", shape, &args, 1));
        for z in 0..d as u32 {
            for y in 0..h as u32 {
                for x in 0..w as u32 {
                    let p = ((z * h as u32 + y) * w as u32 + x) as usize;
                    let (b, t) = (
                        [x / blk[0], y / blk[1], z / blk[2]],
                        [x % blk[0], y % blk[1], z % blk[2]],
                    );
                    let id = t[0]
                        | (t[1] << 4)
                        | (t[2] << 8)
                        | (b[0] << 12)
                        | (b[1] << 18)
                        | (b[2] << 24);
                    assert_eq!(ids[p], id, "grid3d_ids round {round} at {x},{y},{z}");
                    let zn = (z + 1) % d as u32;
                    let q = ((zn * h as u32 + y) * w as u32 + x) as usize;
                    let v = (inp[p] as u32)
                        .wrapping_mul(x + 1)
                        .wrapping_add(inp[q] as u32)
                        .wrapping_add(100 * blk[0] + 10 * blk[1] + blk[2]);
                    assert_eq!(vals[p], v, "grid3d_ids round {round} at {x},{y},{z}");
                }
            }
        }

        // fib_kernel: scratch (a private segment buffer in the SGPRs).
        let lanes = [64u32, 128, 192][round as usize];
        let got = run(
            &reduce,
            "_Z10fib_kernelPi",
            Shape::linear(lanes, lanes),
            &[buf(vec![0; lanes as usize * 4])],
            0,
        );
        let want: Vec<u32> = (0..lanes).map(|t| fib(t % 12)).collect();
        assert_eq!(words(&got), want, "fib_kernel round {round}");

        // reverse_dynamic: dynamic LDS of another size every round.
        let n = 40 + 50 * round;
        let data: Vec<i32> = (0..n as i32).map(|i| i * i - 7).collect();
        let got = run(
            &reduce,
            "_Z15reverse_dynamicPii",
            Shape {
                dynamic_lds: n * 4,
                ..Shape::linear(n.next_multiple_of(64), n.next_multiple_of(64))
            },
            &[
                buf(data.iter().flat_map(|x| x.to_le_bytes()).collect()),
                i32_arg(n as i32),
            ],
            0,
        );
        let want: Vec<u32> = data.iter().rev().map(|&x| x as u32).collect();
        assert_eq!(words(&got), want, "reverse_dynamic round {round}");
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

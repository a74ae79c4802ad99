//! Inline float constants in packed f16 instructions are f16 values in
//! both halves. The ISA tables type these operands `B32`, and the
//! emulator used to take the f32 encoding of `2.0` (0x40000000), whose low
//! half is 0: `v_pk_max_f16 v0, v1, 2.0` (clang's clamp of a `half2`)
//! computed max(x, 0). Found through `bench/emu.py`'s `act_approx`, whose
//! f16 outputs were all zero. The expected values are exact f16 results.

use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::Options;
use lathe_emu::session::{Session, Shape};

mod common;

/// f16 inputs and, per instruction, the exact result of each.
const X: [u16; 4] = [0x3c00, 0x4200, 0xbc00, 0x4100]; // 1, 3, -1, 2.5
const OPS: [(&str, [u16; 4]); 4] = [
    (
        "v_pk_max_f16 v40, v12, 2.0",
        [0x4000, 0x4200, 0x4000, 0x4100],
    ),
    (
        "v_pk_min_f16 v41, v12, -2.0",
        [0xc000, 0xc000, 0xc000, 0xc000],
    ),
    (
        "v_pk_mul_f16 v42, 0.5, v12",
        [0x3800, 0x3e00, 0xb800, 0x3d00],
    ),
    (
        "v_pk_add_f16 v43, v12, 1.0",
        [0x4000, 0x4400, 0x0000, 0x4300],
    ),
];

#[test]
fn inline_float_constants_of_packed_f16_operations_are_f16_in_both_halves() {
    let mut body: String = OPS.iter().map(|(l, _)| format!("  {l}\n")).collect();
    body += "  v_dot2_f32_f16 v44, v12, 2.0, 0\n";
    let stores = "  global_store_dwordx4 v[2:3], v[40:43], off\n  global_store_dword v[2:3], v44, off offset:16";
    // Lane l: dword 2 holds X[l % 4] low and X[(l + 1) % 4] high.
    let input: Vec<u8> = (0..64usize)
        .flat_map(|l| {
            let mut d = [0u32; 8];
            d[2] = u32::from(X[l % 4]) | u32::from(X[(l + 1) % 4]) << 16;
            d.into_iter().flat_map(u32::to_le_bytes)
        })
        .collect();
    for target in ["gfx90a", "gfx942"] {
        let text = common::kernel(target, "pkconst", &body, stores, 5, "");
        let co = std::fs::read(lathe_testkit::assemble_shared(target, "pkconst", &text))
            .expect("code object");
        let s = Session::load(target.parse().expect("target"), &[&co]).expect("load");
        let args = [
            Arg::Buffer {
                name: "out".into(),
                size: 64 * 20,
                fill: Fill::Bytes(vec![0xee; 64 * 20]),
                output: None,
            },
            Arg::Buffer {
                name: "in".into(),
                size: input.len() as u64,
                fill: Fill::Bytes(input.clone()),
                output: None,
            },
        ];
        let opts = Options {
            threads: 1,
            ..Options::default()
        };
        let (_r, bufs) = s
            .launch("pkconst", Shape::linear(64, 64), &args, &opts)
            .expect("run");
        let out = s.download(bufs[0].addr, 64 * 20).expect("read");
        for l in 0..64usize {
            for (k, (line, want)) in OPS.iter().enumerate() {
                let at = l * 20 + k * 4;
                let got = u32::from_le_bytes(out[at..at + 4].try_into().expect("4 bytes"));
                let exp = u32::from(want[l % 4]) | u32::from(want[(l + 1) % 4]) << 16;
                assert_eq!(
                    got, exp,
                    "{target} lane {l}: {line}: {got:#010x} != {exp:#010x}"
                );
            }
        }
    }
}

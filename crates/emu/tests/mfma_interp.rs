//! MFMA through the interpreter: operand plumbing of the in-place path
//! (C the same registers as D, other registers, an inline constant; D
//! overlapping A and B; A/B in AGPRs; BLGP, CBSZ/ABID; AGPR accumulators;
//! registers past the end of a file, which take the general path). Each
//! instruction runs alone on random register contents; D must be what
//! [`lathe_emu::mfma::mfma`] gives for the registers read before, and no
//! other register may change. Encodings from llvm-mc (LLVM 22).

use lathe_emu::interp::Exec;
use lathe_emu::mem::{DeviceMemory, RegionKind};
use lathe_emu::mfma::{mfma, Mods, Shape, Target as MT};
use lathe_emu::wave::{Flow, Step, VReg, Wave, LANES};
use lathe_isa::Target;

/// A register range: `true` for AGPRs.
#[derive(Clone, Copy, Debug)]
enum Src {
    V(usize),
    A(usize),
    /// An inline constant (its 32-bit pattern).
    K(u32),
}

struct Case {
    asm: &'static str,
    bytes: [u8; 8],
    d: Src,
    a: Src,
    b: Src,
    c: Src,
}

use Src::{A, K, V};

const GFX90A: &[Case] = &[
    Case {
        asm: "v_mfma_f32_32x32x8f16 v[16:31], v[0:1], v[2:3], v[16:31]",
        bytes: [0x10, 0x00, 0xcc, 0xd3, 0x00, 0x05, 0x42, 0x04],
        d: V(16),
        a: V(0),
        b: V(2),
        c: V(16),
    },
    Case {
        asm: "v_mfma_f32_32x32x8f16 v[16:31], v[0:1], v[2:3], v[32:47]",
        bytes: [0x10, 0x00, 0xcc, 0xd3, 0x00, 0x05, 0x82, 0x04],
        d: V(16),
        a: V(0),
        b: V(2),
        c: V(32),
    },
    Case {
        asm: "v_mfma_f32_32x32x8f16 v[16:31], v[0:1], v[2:3], 0",
        bytes: [0x10, 0x00, 0xcc, 0xd3, 0x00, 0x05, 0x02, 0x02],
        d: V(16),
        a: V(0),
        b: V(2),
        c: K(0),
    },
    Case {
        asm: "v_mfma_f32_32x32x8f16 v[16:31], v[0:1], v[2:3], 1.0",
        bytes: [0x10, 0x00, 0xcc, 0xd3, 0x00, 0x05, 0xca, 0x03],
        d: V(16),
        a: V(0),
        b: V(2),
        c: K(0x3f80_0000),
    },
    Case {
        asm: "v_mfma_f32_16x16x16f16 v[0:3], v[0:1], v[2:3], v[0:3]",
        bytes: [0x00, 0x00, 0xcd, 0xd3, 0x00, 0x05, 0x02, 0x04],
        d: V(0),
        a: V(0),
        b: V(2),
        c: V(0),
    },
    Case {
        asm: "v_mfma_f32_32x32x8f16 v[16:31], v[0:1], v[2:3], v[16:31] blgp:3",
        bytes: [0x10, 0x00, 0xcc, 0xd3, 0x00, 0x05, 0x42, 0x64],
        d: V(16),
        a: V(0),
        b: V(2),
        c: V(16),
    },
    Case {
        asm: "v_mfma_f32_16x16x4f16 v[16:31], v[0:1], v[2:3], v[16:31] cbsz:2 abid:1 blgp:6",
        bytes: [0x10, 0x0a, 0xc9, 0xd3, 0x00, 0x05, 0x42, 0xc4],
        d: V(16),
        a: V(0),
        b: V(2),
        c: V(16),
    },
    Case {
        asm: "v_mfma_f32_32x32x8f16 v[16:31], a[0:1], a[2:3], v[16:31]",
        bytes: [0x10, 0x00, 0xcc, 0xd3, 0x00, 0x05, 0x42, 0x1c],
        d: V(16),
        a: A(0),
        b: A(2),
        c: V(16),
    },
    Case {
        asm: "v_mfma_f32_4x4x4f16 v[16:19], v[0:1], v[2:3], v[16:19] cbsz:4 abid:15",
        bytes: [0x10, 0x7c, 0xca, 0xd3, 0x00, 0x05, 0x42, 0x04],
        d: V(16),
        a: V(0),
        b: V(2),
        c: V(16),
    },
    Case {
        asm: "v_mfma_f32_32x32x1f32 v[16:47], v0, v1, v[16:47]",
        bytes: [0x10, 0x00, 0xc0, 0xd3, 0x00, 0x03, 0x42, 0x04],
        d: V(16),
        a: V(0),
        b: V(1),
        c: V(16),
    },
    Case {
        asm: "v_mfma_f32_32x32x4bf16_1k v[16:47], v[0:1], v[2:3], v[48:79] cbsz:1 abid:1",
        bytes: [0x10, 0x09, 0xe3, 0xd3, 0x00, 0x05, 0xc2, 0x04],
        d: V(16),
        a: V(0),
        b: V(2),
        c: V(48),
    },
    Case {
        asm: "v_mfma_f32_32x32x8f16 a[0:15], v[0:1], v[2:3], a[0:15]",
        bytes: [0x00, 0x80, 0xcc, 0xd3, 0x00, 0x05, 0x02, 0x04],
        d: A(0),
        a: V(0),
        b: V(2),
        c: A(0),
    },
    Case {
        asm: "v_mfma_f32_32x32x8f16 a[16:31], a[0:1], v[2:3], 0",
        bytes: [0x10, 0x80, 0xcc, 0xd3, 0x00, 0x05, 0x02, 0x0a],
        d: A(16),
        a: A(0),
        b: V(2),
        c: K(0),
    },
    Case {
        asm: "v_mfma_i32_32x32x8i8 v[16:31], v0, v1, v[16:31]",
        bytes: [0x10, 0x00, 0xd4, 0xd3, 0x00, 0x03, 0x42, 0x04],
        d: V(16),
        a: V(0),
        b: V(1),
        c: V(16),
    },
];

const GFX942: &[Case] = &[
    Case {
        asm: "v_mfma_f32_32x32x16_fp8_fp8 v[16:31], v[0:1], v[2:3], v[16:31]",
        bytes: [0x10, 0x00, 0xf7, 0xd3, 0x00, 0x05, 0x42, 0x04],
        d: V(16),
        a: V(0),
        b: V(2),
        c: V(16),
    },
    Case {
        asm: "v_mfma_f32_16x16x32_bf8_fp8 v[4:7], v[0:1], v[2:3], 0",
        bytes: [0x04, 0x00, 0xf1, 0xd3, 0x00, 0x05, 0x02, 0x02],
        d: V(4),
        a: V(0),
        b: V(2),
        c: K(0),
    },
    Case {
        asm: "v_mfma_f32_32x32x4_xf32 v[16:31], v[0:1], v[2:3], v[32:47]",
        bytes: [0x10, 0x00, 0xbf, 0xd3, 0x00, 0x05, 0x82, 0x04],
        d: V(16),
        a: V(0),
        b: V(2),
        c: V(32),
    },
    Case {
        asm: "v_mfma_f32_16x16x1_4b_f32 v[16:31], v0, v1, v[16:31] cbsz:2 abid:3 blgp:5",
        bytes: [0x10, 0x1a, 0xc1, 0xd3, 0x00, 0x03, 0x42, 0xa4],
        d: V(16),
        a: V(0),
        b: V(1),
        c: V(16),
    },
    Case {
        asm: "v_mfma_f32_32x32x16_bf8_bf8 a[0:15], v[0:1], v[2:3], a[0:15]",
        bytes: [0x00, 0x80, 0xf4, 0xd3, 0x00, 0x05, 0x02, 0x04],
        d: A(0),
        a: V(0),
        b: V(2),
        c: A(0),
    },
    Case {
        asm: "v_mfma_f32_16x16x16_bf16 v[0:3], v[0:1], v[2:3], v[0:3]",
        bytes: [0x00, 0x00, 0xe1, 0xd3, 0x00, 0x05, 0x02, 0x04],
        d: V(0),
        a: V(0),
        b: V(2),
        c: V(0),
    },
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 20) as u32
    }

    /// A word whose 8-, 16- and 32-bit fields are mostly moderate floats
    /// of every input format (exponent bits kept away from the extremes),
    /// with some raw bits.
    fn word(&mut self) -> u32 {
        let w = self.next();
        if w % 8 == 0 {
            w
        } else {
            (w & 0xB3B3_B3B3) | 0x0C0C_0C0C
        }
    }
}

/// `n` registers of `s` as they are in `w` (0 past the file, the constant
/// in every register).
fn read(w: &Wave, s: Src, n: usize) -> Vec<VReg> {
    (0..n)
        .map(|k| match s {
            V(r) => w.vgpr.get(r + k).copied().unwrap_or([0; LANES]),
            A(r) => w.agpr.get(r + k).copied().unwrap_or([0; LANES]),
            K(x) => [x; LANES],
        })
        .collect()
}

fn run(target: Target, case: &Case, vgprs: usize, seed: u64) {
    let mt = if target == Target::Gfx90a {
        MT::Gfx90a
    } else {
        MT::Gfx942
    };
    let name = case.asm.split(' ').next().expect("mnemonic");
    let shape: &Shape = Shape::find(mt, name).expect("shape");
    let mem = DeviceMemory::new();
    let code = mem.allocate(64, 256, RegionKind::Device).expect("code");
    let mut view = mem.view();
    let mut words = case
        .bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect::<Vec<_>>();
    words.push(0xbf81_0000); // s_endpgm
    for (k, word) in words.iter().enumerate() {
        view.store_u32(code + 4 * k as u64, *word).expect("code");
    }
    let mut w = Wave::with_registers(code, [0; 3], 0, vgprs, 256);
    w.exec = 0x0000_ffff_0000_ffff; // MFMA ignores EXEC.
    w.mode = lathe_emu::alu::Mode::default().bits();
    let mut r = Rng(seed);
    for reg in w.vgpr.iter_mut().chain(w.agpr.iter_mut()) {
        for x in reg.iter_mut() {
            *x = r.word();
        }
    }
    let before = w.clone();
    let (a, b, c) = (
        read(&before, case.a, shape.a_regs()),
        read(&before, case.b, shape.b_regs()),
        read(&before, case.c, shape.cd_regs()),
    );
    let mods = Mods::from_words(words[0], words[1]);
    let want = mfma(shape, mt, &a, &b, &c, &mods).expect("valid instruction");
    let mut exec = Exec::new(mem.view(), target);
    let mut lds = [];
    let f = exec.step(&mut w, &mut lds).expect("runs");
    assert_eq!(f, Flow::Continue, "{}", case.asm);
    let (file, first, other) = match case.d {
        V(r) => (&w.vgpr, r, (&w.agpr, &before.agpr)),
        A(r) => (&w.agpr, r, (&w.vgpr, &before.vgpr)),
        K(_) => unreachable!("D is registers"),
    };
    let old = if matches!(case.d, V(_)) {
        &before.vgpr
    } else {
        &before.agpr
    };
    for (k, (now, was)) in file.iter().zip(old.iter()).enumerate() {
        let expect = match k.checked_sub(first) {
            Some(i) if i < want.len() => &want[i],
            _ => was,
        };
        for l in 0..LANES {
            assert_eq!(
                now[l], expect[l],
                "{} (vgprs {vgprs}): register {k} lane {l}",
                case.asm
            );
        }
    }
    assert!(other.0 == other.1, "{}: the other file changed", case.asm);
}

#[test]
fn mfma_operands_in_the_interpreter() {
    for (target, cases) in [(Target::Gfx90a, GFX90A), (Target::Gfx942, GFX942)] {
        for (n, case) in cases.iter().enumerate() {
            for seed in 1..4u64 {
                run(target, case, 256, seed * 7919 + n as u64);
            }
        }
    }
}

#[test]
fn mfma_registers_past_the_file() {
    // 36 VGPRs (+ 4 interpreter temporaries): C = v[32:47] is partly past
    // the end (reads 0 there); D = v[16:31] is inside.
    for seed in 1..4u64 {
        run(Target::Gfx90a, &GFX90A[1], 36, seed);
    }
    // D = v[16:47] partly past a 40-VGPR file: the rest is dropped.
    run(Target::Gfx90a, &GFX90A[9], 40, 5);
}

#[test]
fn agpr_accumulators_overflow_to_infinity() {
    // v_mfma_f32_16x16x4f32 a[0:3], v32, v33, a[0:3] (llvm-mc, gfx90a and
    // gfx942): dword0 bit 15 is acc_cd. With C = f32::MAX and positive
    // products the sum overflows: +inf as with VGPR accumulators, not the
    // MAX a clamp would give.
    for target in [Target::Gfx90a, Target::Gfx942] {
        let mem = DeviceMemory::new();
        let code = mem.allocate(64, 256, RegionKind::Device).expect("code");
        let mut view = mem.view();
        for (k, word) in [0xd3c5_8000u32, 0x0402_4320, 0xbf81_0000]
            .iter()
            .enumerate()
        {
            view.store_u32(code + 4 * k as u64, *word).expect("code");
        }
        let mut w = Wave::with_registers(code, [0; 3], 0, 64, 256);
        w.exec = u64::MAX;
        w.mode = lathe_emu::alu::Mode::default().bits();
        w.vgpr[32] = [2f32.powi(64).to_bits(); LANES];
        w.vgpr[33] = [2f32.powi(64).to_bits(); LANES];
        for r in 0..4 {
            w.agpr[r] = [f32::MAX.to_bits(); LANES];
        }
        let mut exec = Exec::new(mem.view(), target);
        let mut lds = [];
        let f = exec.step(&mut w, &mut lds).expect("runs");
        assert_eq!(f, Flow::Continue);
        for r in 0..4 {
            for l in 0..LANES {
                assert_eq!(
                    f32::from_bits(w.agpr[r][l]),
                    f32::INFINITY,
                    "{target:?}: a{r} lane {l}"
                );
            }
        }
    }
}

//! Real clang-22 kernels run on the emulator, checked against CPU references.

use lathe_emu::interp::Stop;
use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::{DispatchError, Options};
use lathe_emu::session::{Session, SessionError, Shape};
use lathe_testkit::{Build, Output};

fn session(src: &'static str, arch: &'static str, opt: &'static str) -> Session {
    let mut b = Build::new(src, &[arch], Output::CodeObject);
    b.opt = opt;
    let co = std::fs::read(b.build()).expect("code object");
    Session::load(arch.parse().expect("target"), &[&co]).expect("load")
}

fn f32s(b: &[u8]) -> Vec<f32> {
    b.chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4")))
        .collect()
}

fn bytes_f32(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn buf(name: &str, bytes: Vec<u8>) -> Arg {
    Arg::Buffer {
        name: name.into(),
        size: bytes.len() as u64,
        fill: Fill::Bytes(bytes),
        output: None,
    }
}

fn scalar<T: Into<f64>>(ty: &str, v: T) -> Arg {
    Arg::Scalar {
        ty: ty.into(),
        bytes: lathe_emu::launch::scalar_bytes(ty, &v.into().to_string()).expect("scalar"),
    }
}

const TARGETS: [(&str, &str); 4] = [
    ("gfx90a", "-O3"),
    ("gfx90a", "-O0"),
    ("gfx942", "-O3"),
    ("gfx942", "-O0"),
];

#[test]
fn axpy_matches_cpu_with_a_partial_workgroup() {
    for (arch, opt) in TARGETS {
        let s = session("vecops.hip", arch, opt);
        let n = 1000usize;
        let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.5 - 7.0).collect();
        let y: Vec<f32> = (0..n).map(|i| (i % 13) as f32 * 1.25).collect();
        let a = 1.5f32;
        let args = [
            buf("y", bytes_f32(&y)),
            buf("x", bytes_f32(&x)),
            scalar("f32", a),
            scalar("i32", n as i32),
        ];
        let (report, bufs) = s
            .launch(
                "_Z4axpyPfPKffi",
                Shape::linear(n as u32, 256),
                &args,
                &Options::default(),
            )
            .expect("runs");
        let got = f32s(&s.download(bufs[0].addr, bufs[0].size).expect("read"));
        for i in 0..n {
            let want = a * x[i] + y[i];
            // clang may contract to fma: accept either rounding of a*x+y.
            let fused = a.mul_add(x[i], y[i]);
            assert!(
                got[i] == want || got[i] == fused,
                "{arch} {opt} y[{i}] = {} want {want}",
                got[i]
            );
        }
        assert_eq!(report.workgroups, 4);
        assert_eq!(report.waves, 16);
        assert!(report.wave_instructions > 16, "{report:?}");
    }
}

#[test]
fn block_sum_uses_lds_and_barriers() {
    for (arch, opt) in TARGETS {
        let s = session("reduce.hip", arch, opt);
        let n = 1000usize;
        let input: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
        let blocks = n.div_ceil(256);
        let args = [
            buf("in", bytes_f32(&input)),
            buf("out", vec![0; blocks * 4]),
            scalar("i32", n as i32),
        ];
        let (_r, bufs) = s
            .launch(
                "_Z9block_sumPKfPfi",
                Shape::linear((blocks * 256) as u32, 256),
                &args,
                &Options::default(),
            )
            .expect("runs");
        let got = f32s(&s.download(bufs[1].addr, bufs[1].size).expect("read"));
        for b in 0..blocks {
            let want: f32 = input[b * 256..((b + 1) * 256).min(n)].iter().sum();
            assert_eq!(got[b], want, "{arch} {opt} block {b}");
        }
    }
}

#[test]
fn device_function_call_recursion_and_scratch() {
    for (arch, opt) in TARGETS {
        let s = session("reduce.hip", arch, opt);
        let args = [buf("out", vec![0; 64 * 4])];
        let r = s.launch(
            "_Z10fib_kernelPi",
            Shape::linear(64, 64),
            &args,
            &Options::default(),
        );
        let (_r, bufs) = r.expect("runs");
        let got = s.download(bufs[0].addr, bufs[0].size).expect("read");
        let fib = |n: u32| {
            let (mut a, mut b) = (0u32, 1u32);
            for _ in 0..n {
                (a, b) = (b, a + b);
            }
            a
        };
        for t in 0..64usize {
            let v = u32::from_le_bytes(got[t * 4..t * 4 + 4].try_into().expect("4"));
            assert_eq!(v, fib(t as u32 % 12), "{arch} {opt} lane {t}");
        }
    }
}

#[test]
fn out_of_bounds_store_is_a_gpu_memory_fault() {
    let s = session("vecops.hip", "gfx90a", "-O3");
    // n is larger than the buffers: the kernel writes past their end.
    let args = [
        buf("y", vec![0; 64 * 4]),
        buf("x", vec![0; 64 * 4]),
        scalar("f32", 1.0f32),
        scalar("i32", 100_000),
    ];
    match s.launch(
        "_Z4axpyPfPKffi",
        Shape::linear(4096, 256),
        &args,
        &Options::default(),
    ) {
        Err(SessionError::Dispatch(DispatchError::Stopped {
            kernel,
            stop: Stop::Fault { pc, inst, .. },
        })) => {
            assert_eq!(kernel, "_Z4axpyPfPKffi");
            assert!(pc > 0);
            assert!(
                inst.starts_with("global_load") || inst.starts_with("global_store"),
                "{inst}"
            );
        }
        other => panic!("expected a GPU memory fault, got {other:?}"),
    }
    // The session is still usable after the fault.
    let args = [
        buf("y", vec![0; 64 * 4]),
        buf("x", vec![0; 64 * 4]),
        scalar("f32", 1.0f32),
        scalar("i32", 64),
    ];
    s.launch(
        "_Z4axpyPfPKffi",
        Shape::linear(64, 64),
        &args,
        &Options::default(),
    )
    .expect("runs after a fault");
}

#[test]
fn misaligned_atomic_is_a_fault() {
    for arch in ["gfx90a", "gfx942"] {
        let s = session("faults.hip", arch, "-O3");
        let ok = s.launch(
            "atomic_at",
            Shape::linear(1, 1),
            &[buf("p", vec![0; 16]), scalar("i32", 4)],
            &Options::default(),
        );
        let (_, bufs) = ok.expect("aligned atomic runs");
        assert_eq!(
            &s.download(bufs[0].addr, 16).expect("read")[4..8],
            &1i32.to_le_bytes()
        );
        match s.launch(
            "atomic_at",
            Shape::linear(1, 1),
            &[buf("p", vec![0; 16]), scalar("i32", 2)],
            &Options::default(),
        ) {
            Err(SessionError::Dispatch(DispatchError::Stopped {
                stop:
                    Stop::Fault {
                        fault: lathe_emu::mem::Fault::Misaligned { size: 4, .. },
                        inst,
                        ..
                    },
                ..
            })) => assert!(inst.contains("atomic_add"), "{inst}"),
            other => panic!("{arch}: expected a misaligned-atomic fault, got {other:?}"),
        }
    }
}

#[test]
fn unmapped_kernarg_segment_is_a_fault() {
    use lathe_emu::dispatch::Geometry;
    use lathe_emu::run::{dispatch, Launch};
    let s = session("vecops.hip", "gfx90a", "-O3");
    let sym = s.exe.kernel("axpy").expect("kernel");
    let info = sym.kernel.expect("info");
    let launch = Launch {
        name: &sym.name,
        kernel: &info,
        geometry: Geometry::new([64, 1, 1], [64, 1, 1], 1).expect("geometry"),
        kernarg: 0x1000,
        dynamic_lds: 0,
    };
    match dispatch(&s.mem, s.target, s.arch, &launch, &Options::default()) {
        Err(DispatchError::Stopped {
            stop:
                Stop::Fault {
                    fault: lathe_emu::mem::Fault::Unmapped { addr, kind, .. },
                    inst,
                    ..
                },
            ..
        }) => {
            assert!((0x1000..0x1200).contains(&addr), "{addr:#x}");
            assert_eq!(kind, lathe_emu::mem::AccessKind::Read);
            assert!(inst.starts_with("s_load"), "{inst}");
        }
        other => panic!("expected a kernarg fault, got {other:?}"),
    }
}

/// Flushes an f32 denormal to a signed zero.
fn ftz(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

#[test]
fn f32_denormal_flushing_follows_the_descriptor_mode() {
    // Pairs with denormal inputs, and normal inputs whose product, sum,
    // fma or difference is denormal.
    let d = f32::from_bits(0x0000_1234); // a denormal
    let pairs: Vec<(f32, f32)> = vec![
        (d, 1.0),
        (-d, 2.0),
        (1e-20, 1e-20),
        (-3e-20, 1e-20),
        (1.5e-38, -1.4e-38),
        (d, f32::from_bits(0x0000_4321)),
        (0.0, d),
        (1.0, 2.0),
        (-d, 0.0),
        (f32::MIN_POSITIVE, 0.5),
    ];
    let a: Vec<f32> = pairs.iter().map(|p| p.0).collect();
    let b: Vec<f32> = pairs.iter().map(|p| p.1).collect();
    let n = pairs.len();
    for (arch, opt) in TARGETS {
        for flush in [false, true] {
            let mut bld = Build::new("fpmode.hip", &[arch], Output::CodeObject);
            bld.opt = opt;
            if flush {
                bld.extra.push("-fgpu-flush-denormals-to-zero");
            }
            let co = std::fs::read(bld.build()).expect("code object");
            let s = Session::load(arch.parse().expect("target"), &[&co]).expect("load");
            let args = [
                buf("out", vec![0; 5 * 4 * n]),
                buf("a", bytes_f32(&a)),
                buf("b", bytes_f32(&b)),
                scalar("i32", n as i32),
            ];
            let (_r, bufs) = s
                .launch(
                    "_Z10denorm_opsPfPKfS1_i",
                    Shape::linear(64, 64),
                    &args,
                    &Options::default(),
                )
                .expect("runs");
            let got = f32s(&s.download(bufs[0].addr, bufs[0].size).expect("read"));
            for (k, &(x, y)) in pairs.iter().enumerate() {
                let want = if flush {
                    let (x, y) = (ftz(x), ftz(y));
                    [
                        ftz(x * y),
                        ftz(x + y),
                        ftz(x.mul_add(y, x)),
                        f32::from(u8::from(x < y)),
                        ftz(x - y),
                    ]
                } else {
                    [
                        x * y,
                        x + y,
                        x.mul_add(y, x),
                        f32::from(u8::from(x < y)),
                        x - y,
                    ]
                };
                for (o, w) in want.iter().enumerate() {
                    assert_eq!(
                        got[5 * k + o].to_bits(),
                        w.to_bits(),
                        "{arch} {opt} flush={flush} pair {k} ({x:e}, {y:e}) output {o}: got {:e} want {w:e}",
                        got[5 * k + o]
                    );
                }
            }
        }
    }
}

#[test]
fn a_rounding_mode_the_emulator_does_not_model_stops() {
    // The kernel sets MODE.FP_ROUND(f32) to round-toward-zero with s_setreg
    // before an f32 add: the add stops rather than rounding to nearest.
    let s = session("fpmode.hip", "gfx90a", "-O3");
    let args = [
        buf("out", vec![0; 256]),
        buf("a", vec![0; 256]),
        scalar("i32", 64),
    ];
    match s.launch(
        "_Z17round_toward_zeroPfPKfi",
        Shape::linear(64, 64),
        &args,
        &Options::default(),
    ) {
        Err(SessionError::Dispatch(DispatchError::Stopped {
            stop: Stop::Unsupported { inst, .. },
            ..
        })) => {
            assert!(inst.starts_with("v_add_f32"), "{inst}");
            assert!(inst.contains("MODE 0x3f3"), "{inst}");
        }
        other => panic!("expected an unsupported-MODE stop, got {other:?}"),
    }
}

#[test]
fn out_of_bounds_write_is_a_gpu_memory_fault() {
    // block_sum writes out[blockIdx.x]: four blocks into a one-element buffer.
    let s = session("reduce.hip", "gfx90a", "-O3");
    let args = [
        buf("in", vec![0; 1024 * 4]),
        buf("out", vec![0; 4]),
        scalar("i32", 1024),
    ];
    match s.launch(
        "_Z9block_sumPKfPfi",
        Shape::linear(1024, 256),
        &args,
        &Options::default(),
    ) {
        Err(SessionError::Dispatch(DispatchError::Stopped {
            stop:
                Stop::Fault {
                    fault:
                        lathe_emu::mem::Fault::Unmapped {
                            kind: lathe_emu::mem::AccessKind::Write,
                            ..
                        },
                    inst,
                    ..
                },
            ..
        })) => assert!(inst.starts_with("global_store"), "{inst}"),
        other => panic!("expected a GPU memory fault on a write, got {other:?}"),
    }
}

/// A device-function library compiled and linked on its own (`-fgpu-rdc
/// -fvisibility=default`, `ld.lld -shared`) is called from kernels in a
/// second, separately linked code object: the loader resolves the calls
/// across code objects and the kernels compute what the CPU does.
#[test]
fn kernels_call_a_device_function_library_in_another_code_object() {
    fn shared(src: &'static str, arch: &'static str) -> Vec<u8> {
        let mut b = Build::new(src, &[arch], Output::CodeObject);
        b.rdc = true;
        b.extra.push("-fvisibility=default");
        std::fs::read(lathe_testkit::link_shared(&[b.build()])).expect("linked code object")
    }
    for arch in ["gfx90a", "gfx942"] {
        let lib = shared("rdc_lib.hip", arch);
        let main = shared("rdc_main.hip", arch);
        let s = Session::load(arch.parse().expect("target"), &[&main, &lib]).expect("load both");
        let n = 300usize;
        let a: Vec<i32> = (0..n as i32).map(|i| i * 7 - 500).collect();
        let b: Vec<i32> = (0..n as i32).map(|i| i ^ 0x3c).collect();
        let to_bytes = |v: &[i32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let args = [
            buf("out", vec![0; n * 4]),
            buf("a", to_bytes(&a)),
            buf("b", to_bytes(&b)),
            scalar("i32", n as i32),
        ];
        let (_r, bufs) = s
            .launch(
                "use_lib",
                Shape::linear(n as u32, 128),
                &args,
                &Options::default(),
            )
            .expect("runs");
        let got = s.download(bufs[0].addr, bufs[0].size).expect("read");
        for i in 0..n {
            // lib_mix(a, b) = a * lib_scale + (b ^ 0x55), lib_scale = 3; plus lib_scale.
            let want = a[i]
                .wrapping_mul(3)
                .wrapping_add(b[i] ^ 0x55)
                .wrapping_add(3);
            assert_eq!(
                i32::from_le_bytes(got[i * 4..i * 4 + 4].try_into().expect("4")),
                want,
                "{arch} out[{i}]"
            );
        }
        let fa: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
        let fb: Vec<f32> = (0..n).map(|i| 100.0 - i as f32).collect();
        let t = 0.375f32;
        let args = [
            buf("out", vec![0; n * 4]),
            buf("a", bytes_f32(&fa)),
            buf("b", bytes_f32(&fb)),
            scalar("f32", t),
            scalar("i32", n as i32),
        ];
        let (_r, bufs) = s
            .launch(
                "use_lerp",
                Shape::linear(n as u32, 128),
                &args,
                &Options::default(),
            )
            .expect("runs");
        let got = f32s(&s.download(bufs[0].addr, bufs[0].size).expect("read"));
        for i in 0..n {
            let want = fa[i] + (fb[i] - fa[i]) * t;
            let fused = (fb[i] - fa[i]).mul_add(t, fa[i]);
            assert!(
                got[i] == want || got[i] == fused,
                "{arch} lerp[{i}] = {} want {want}",
                got[i]
            );
        }
        // The library's functions are device-function symbols of the other code object.
        let f = s.exe.symbol("_Z7lib_mixii").expect("lib_mix");
        assert_eq!(f.kind, lathe_loader::SymbolKind::DeviceFunction);
        assert_eq!(f.code_object, Some(1));
    }
}

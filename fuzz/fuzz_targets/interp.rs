//! Fuzzes the interpreter: up to 64 random instruction words are written
//! into a real kernel (a kernel of the CLI's embedded demo library, built by
//! clang-22 for gfx90a), at an offset the input picks, and the kernel runs
//! one wave with a small instruction budget (2,000). Every run must end in normal
//! completion or a typed stop (fault, invalid or unsupported instruction,
//! trap, missing wait, budget) — never a host panic, hang or abort.
//!
//! The demo is loaded once; each input patches the loaded kernel's code and
//! everything is restored after the run (see [`Loaded`]).
//!
//! Input: byte 0 picks the kernel, bytes 1–2 the word offset into it, the
//! rest are the words (little-endian).
#![no_main]

use std::sync::{Mutex, OnceLock};

use lathe_bundle::{walk, Limits, TargetId};
use lathe_codeobj::CodeObject;
use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::{DispatchError, Options};
use lathe_emu::session::{BufferOut, Session, SessionError, Shape};
use libfuzzer_sys::fuzz_target;

const DEMO: &[u8] = include_bytes!("../../crates/cli/demo/libdemo.so");

/// A kernel of the demo code object: where its code is in the file, and
/// arguments that make the unmodified kernel run to completion.
struct Kernel {
    name: String,
    /// The code's address in the code object (ELF virtual address).
    code_vaddr: u64,
    code_len: usize,
    args: Vec<Arg>,
}

struct Demo {
    code_object: Vec<u8>,
    kernels: Vec<Kernel>,
}

fn demo() -> &'static Demo {
    static DEMO_CO: OnceLock<Demo> = OnceLock::new();
    DEMO_CO.get_or_init(|| {
        let walk = walk(DEMO, &Limits::default()).expect("demo bundles");
        let code_object = walk
            .flatten()
            .find(|e| e.id.contains("gfx90a"))
            .expect("a gfx90a code object in the demo")
            .data
            .to_vec();
        let co = CodeObject::parse(&code_object).expect("demo code object");
        let syms = co.symbols().expect("symbols");
        let mut kernels = Vec::new();
        for k in syms.kernels() {
            let (Some(code), Some(md)) = (&k.code, &k.metadata) else {
                continue;
            };
            let args = md
                .args
                .iter()
                .filter(|a| !a.value_kind.is_hidden())
                .enumerate()
                .map(|(i, a)| match a.value_kind.as_str() {
                    "global_buffer" => Arg::Buffer {
                        name: format!("b{i}"),
                        size: 4096,
                        fill: Fill::IotaU32,
                        output: None,
                    },
                    _ => Arg::Scalar {
                        ty: if a.size == 8 { "u64" } else { "i32" }.into(),
                        bytes: if a.size == 8 {
                            64u64.to_le_bytes().to_vec()
                        } else {
                            64i32.to_le_bytes().to_vec()
                        },
                    },
                })
                .collect();
            kernels.push(Kernel {
                name: k.name.to_string(),
                code_vaddr: code.value,
                code_len: code.size as usize,
                args,
            });
        }
        assert!(!kernels.is_empty(), "demo kernels");
        Demo {
            code_object,
            kernels,
        }
    })
}

/// The demo loaded once, with its buffers allocated once per kernel.
///
/// Each input patches the kernel's code in device memory and runs it, then
/// the whole loaded code object and every buffer are put back as they were,
/// so a run never depends on the inputs before it (a crash reproduces from
/// its own input). Loading per input used to cost most of the time: parsing,
/// relocating and copying the code object.
struct Loaded {
    session: Session,
    /// The pristine loaded image: (base, bytes).
    image: (u64, Vec<u8>),
    /// Per kernel: its buffers as shared arguments.
    pool: Vec<BufferOut>,
    args: Vec<Vec<Arg>>,
    /// Per kernel: the device address of its code.
    code: Vec<u64>,
}

const IOTA_LEN: u64 = 4096;

fn iota() -> Vec<u8> {
    (0..IOTA_LEN as u32 / 4)
        .flat_map(u32::to_le_bytes)
        .collect()
}

fn loaded() -> &'static Mutex<Loaded> {
    static L: OnceLock<Mutex<Loaded>> = OnceLock::new();
    L.get_or_init(|| {
        let d = demo();
        let agent: TargetId = "gfx90a".parse().expect("agent");
        let session = Session::load(agent, &[&d.code_object]).expect("demo loads");
        let lco = &session.exe.code_objects()[0];
        let image = (
            lco.load_base,
            session
                .download(lco.load_base, lco.load_size)
                .expect("loaded image"),
        );
        let mut pool = Vec::new();
        let mut args = Vec::new();
        let mut code = Vec::new();
        for (ki, k) in d.kernels.iter().enumerate() {
            code.push(lco.device_address(k.code_vaddr));
            let mut ka = Vec::new();
            for (i, a) in k.args.iter().enumerate() {
                match a {
                    Arg::Buffer { .. } => {
                        let name = format!("k{ki}b{i}");
                        let addr = session.upload(&iota()).expect("buffer");
                        pool.push(BufferOut {
                            name: name.clone(),
                            addr,
                            size: IOTA_LEN,
                            output: None,
                        });
                        ka.push(Arg::Shared { name });
                    }
                    a => ka.push(a.clone()),
                }
            }
            args.push(ka);
        }
        Mutex::new(Loaded {
            session,
            image,
            pool,
            args,
            code,
        })
    })
}

fuzz_target!(|data: &[u8]| {
    let (Some(&pick), Some(off)) = (data.first(), data.get(1..3)) else {
        return;
    };
    let d = demo();
    let ki = pick as usize % d.kernels.len();
    let k = &d.kernels[ki];
    let words = &data[3..data.len().min(3 + 64 * 4)];
    let words = &words[..words.len() / 4 * 4];
    if words.is_empty() || k.code_len < 4 {
        return;
    }
    let at = usize::from(u16::from_le_bytes([off[0], off[1]])) * 4 % k.code_len;
    let n = words.len().min(k.code_len - at);
    let mut l = loaded().lock().unwrap_or_else(|e| e.into_inner());
    let Loaded {
        session,
        image,
        pool,
        args,
        code,
    } = &mut *l;
    let mut view = session.mem.view();
    view.write_bytes(code[ki] + at as u64, &words[..n])
        .expect("the kernel's code is mapped");
    let opts = Options {
        threads: 1,
        // Bounded steps: 64 patched words plus the demo kernel's own code
        // run well within this unless they loop, and a loop is as deep at
        // 2,000 wave instructions as at 20,000 (which cost each looping
        // input ten times as much, most of the target's time).
        budget_per_workgroup: 2_000,
        ..Options::default()
    };
    let r = session.launch_in(
        &k.name,
        Shape::linear(64, 64),
        &args[ki],
        &opts,
        pool,
        &mut |_| {},
    );
    // Put everything back before judging, so the next input starts clean.
    view.write_bytes(image.0, &image.1)
        .expect("image is mapped");
    let fill = iota();
    for b in pool.iter() {
        view.write_bytes(b.addr, &fill).expect("buffer is mapped");
    }
    match r {
        Ok(_) | Err(SessionError::Dispatch(DispatchError::Stopped { .. })) => {}
        Err(e) => panic!("{}: not a completion or a typed stop: {e}", k.name),
    }
});

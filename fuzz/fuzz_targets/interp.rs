//! Fuzzes the interpreter: up to 64 random instruction words are written
//! into a real kernel (a kernel of the CLI's embedded demo library, built by
//! clang-22 for gfx90a), at an offset the input picks, and the kernel runs
//! one wave with a small instruction budget. Every run must end in normal
//! completion or a typed stop (fault, invalid or unsupported instruction,
//! trap, missing wait, budget) — never a host panic, hang or abort.
//!
//! Input: byte 0 picks the kernel, bytes 1–2 the word offset into it, the
//! rest are the words (little-endian).
#![no_main]

use std::sync::OnceLock;

use lathe_bundle::{walk, Limits, TargetId};
use lathe_codeobj::CodeObject;
use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::{DispatchError, Options};
use lathe_emu::session::{Session, SessionError, Shape};
use libfuzzer_sys::fuzz_target;

const DEMO: &[u8] = include_bytes!("../../crates/cli/demo/libdemo.so");

/// A kernel of the demo code object: where its code is in the file, and
/// arguments that make the unmodified kernel run to completion.
struct Kernel {
    name: String,
    code_offset: usize,
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
        let text = *co
            .sections()
            .iter()
            .find(|s| s.name == ".text")
            .expect(".text");
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
                code_offset: (code.value - text.address + text.offset) as usize,
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

fuzz_target!(|data: &[u8]| {
    let (Some(&pick), Some(off)) = (data.first(), data.get(1..3)) else {
        return;
    };
    let d = demo();
    let k = &d.kernels[pick as usize % d.kernels.len()];
    let words = &data[3..data.len().min(3 + 64 * 4)];
    let words = &words[..words.len() / 4 * 4];
    if words.is_empty() || k.code_len < 4 {
        return;
    }
    let at = usize::from(u16::from_le_bytes([off[0], off[1]])) * 4 % k.code_len;
    let n = words.len().min(k.code_len - at);
    let mut co = d.code_object.clone();
    co[k.code_offset + at..k.code_offset + at + n].copy_from_slice(&words[..n]);
    let agent: TargetId = "gfx90a".parse().expect("agent");
    let session = Session::load(agent, &[&co]).expect("only .text changed: loads");
    let opts = Options {
        threads: 1,
        budget_per_workgroup: 20_000,
        ..Options::default()
    };
    match session.launch(&k.name, Shape::linear(64, 64), &k.args, &opts) {
        Ok(_) | Err(SessionError::Dispatch(DispatchError::Stopped { .. })) => {}
        Err(e) => panic!("{}: not a completion or a typed stop: {e}", k.name),
    }
});

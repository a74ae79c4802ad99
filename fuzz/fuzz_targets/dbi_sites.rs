//! Fuzzes the rewriter with random site selections on one corpus kernel
//! (`LATHE_DBI_FUZZ_CASE`, default `saxpy`; gfx90a -O3, built with
//! clang-22 through lathe-cases): the bytes choose 1–4 requests (where,
//! instruction class/opcode, counter probe) and the register mode.
//!
//! Every input is checked statically, without running (one parse and
//! lift of the output for both checks): the output lifts again with
//! every original instruction still there, word for word
//! ([`lathe_dbi::verify::check`]), and every register the probe code
//! writes is dead where it runs or saved first, by the original program's
//! liveness ([`lathe_dbi::verify_regs::check`]).
//!
//! Running is what costs (loading the new code object and emulating it),
//! so one input in [`RUN_EVERY`] (chosen by its bytes, so a crash always
//! reproduces) is also run: the instrumented kernel must load, run with
//! the waitcnt check on, and write bit-identical outputs. For speed, the
//! kernel is lifted, its liveness computed and its rewrite prepared
//! ([`lathe_dbi::rewrite::Prepared`]: symbols, descriptors, components)
//! once, and both the
//! reference run and each instrumented run cover one work-group of the
//! case's grid (every site kind still runs; the outputs are compared with
//! the plain kernel's on the same grid).
#![no_main]

use std::sync::OnceLock;

use lathe_cases::{build, Case, Value};
use lathe_codeobj::CodeObject;
use lathe_dbi::rewrite::{instrument_prepared, Options as RwOptions, Prepared};
use lathe_dbi::tools::requests_from_bytes;
use lathe_dbi::{Liveness, Program};
use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::Options;
use lathe_emu::session::{Session, Shape};
use libfuzzer_sys::fuzz_target;

struct Fixture {
    case: Case,
    co: Vec<u8>,
    args: Vec<Arg>,
    shape: Shape,
    want: Vec<Vec<u8>>,
}

fn args_of(case: &Case) -> Vec<Arg> {
    case.args
        .iter()
        .filter_map(|a| match &a.value {
            Value::Buffer { bytes, .. } => Some(Arg::Buffer {
                name: a.name.into(),
                size: bytes.len() as u64,
                fill: Fill::Bytes(bytes.clone()),
                output: None,
            }),
            v => v.scalar().map(|(ty, bytes)| Arg::Scalar {
                ty: ty.into(),
                bytes,
            }),
        })
        .collect()
}

fn run(co: &[u8], f: &Fixture, data_size: Option<u64>) -> Vec<Vec<u8>> {
    let s = Session::load("gfx90a".parse().expect("target"), &[co]).expect("load");
    if let Some(n) = data_size {
        let var = s
            .exe
            .symbol(lathe_dbi::elfout::DATA_SYMBOL)
            .expect("data symbol")
            .address;
        let buf = s.upload(&vec![0u8; n as usize]).expect("buffer");
        s.mem.view().store_u64(var, buf).expect("pointer");
    }
    let opts = Options {
        threads: 1,
        ..Options::default()
    };
    let (_r, bufs) = s
        .launch(f.case.kernel, f.shape, &f.args, &opts)
        .expect("launch");
    bufs.iter()
        .map(|b| s.download(b.addr, b.size).expect("read"))
        .collect()
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let name = std::env::var("LATHE_DBI_FUZZ_CASE").unwrap_or_else(|_| "saxpy".into());
        let case = lathe_cases::by_name(&name).expect("LATHE_DBI_FUZZ_CASE names a case");
        let co = std::fs::read(build::linked_code_object(&case, "gfx90a", "-O3")).expect("co");
        let shape = Shape {
            grid: case.block,
            block: case.block,
            dims: case.dims(),
            dynamic_lds: case.dyn_lds,
        };
        let args = args_of(&case);
        let mut f = Fixture {
            case,
            co,
            args,
            shape,
            want: Vec::new(),
        };
        f.want = run(&f.co, &f, None);
        f
    })
}

/// The corpus kernel, lifted once.
struct Lifted {
    obj: CodeObject<'static>,
    p: Program,
    live: Liveness,
}

fn lifted() -> &'static Lifted {
    static L: OnceLock<Lifted> = OnceLock::new();
    L.get_or_init(|| {
        let obj = CodeObject::parse(&fixture().co).expect("parse");
        let p = Program::lift(&obj).expect("lift");
        let live = Liveness::compute(&p);
        Lifted { obj, p, live }
    })
}

/// What instrumenting the kernel needs whatever the sites (symbols,
/// descriptors, components, registers used), prepared once.
fn prepared() -> &'static Prepared<'static> {
    static P: OnceLock<Prepared<'static>> = OnceLock::new();
    P.get_or_init(|| {
        let l = lifted();
        Prepared::new(&l.obj, &l.p, &l.live).expect("prepare")
    })
}

/// One input in this many is also run (see the module docs), unless
/// `LATHE_DBI_FUZZ_RUN_EVERY` says otherwise (1: every input; 0: none).
const RUN_EVERY: u32 = 64;

fn run_every() -> u32 {
    static N: OnceLock<u32> = OnceLock::new();
    *N.get_or_init(|| {
        std::env::var("LATHE_DBI_FUZZ_RUN_EVERY")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(RUN_EVERY)
    })
}

fuzz_target!(|data: &[u8]| {
    let f = fixture();
    let Lifted { obj, p, live } = lifted();
    let reqs = requests_from_bytes(data);
    let lanes = data.last().is_some_and(|b| b & 1 != 0);
    let out = instrument_prepared(
        prepared(),
        obj,
        p,
        live,
        &reqs,
        &RwOptions::lane_mode(lanes),
    )
    .expect("instrumenting a corpus kernel");
    // Both checks on one parse and lift of the output (lifting is most
    // of what a static check costs).
    let co = CodeObject::parse(&out.code_object).expect("the output parses");
    let q = Program::lift(&co).expect("the output lifts");
    if let Err(e) = lathe_dbi::verify::check_lifted(p, &q, &out.addr_map) {
        panic!("instrumented code object: {e}");
    }
    if let Err(e) = lathe_dbi::verify_regs::check_lifted(p, live, &q, &out.addr_map) {
        panic!("probe registers: {e}");
    }
    let pick = data
        .iter()
        .fold(0u32, |a, &b| a.wrapping_mul(31).wrapping_add(u32::from(b)));
    let every = run_every();
    if every != 0 && pick % every == 0 {
        assert_eq!(run(&out.code_object, f, Some(out.data_size)), f.want);
    }
});

//! One `lathe-cases` case built for a target and run on the emulator,
//! its outputs checked against the case's CPU reference: shared by
//! `cases.rs` (gfx90a, gfx942) and `gfx950_cases.rs`.

use lathe_cases::{build, Case, Run, Value};
use lathe_emu::interp::Stop;
use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::{DispatchError, Options};
use lathe_emu::session::{Session, SessionError, Shape};

pub enum Outcome {
    Pass,
    Unsupported(String),
    Fail(String),
}

#[allow(dead_code)] // gfx1030_cases builds its own code objects
pub fn run_case(case: &Case, target: &'static str, opt: &'static str, opts: &Options) -> Outcome {
    run_code_object(
        case,
        target,
        &build::linked_code_object(case, target, opt),
        opts,
    )
}

/// [`run_case`] on a code object built elsewhere (another wave size).
#[allow(dead_code)] // each test binary uses one of the two
pub fn run_code_object(
    case: &Case,
    target: &'static str,
    path: &std::path::Path,
    opts: &Options,
) -> Outcome {
    let co = std::fs::read(path).expect("code object");
    let session = match Session::load(target.parse().expect("target"), &[&co]) {
        Ok(s) => s,
        Err(e) => return Outcome::Fail(format!("load: {e}")),
    };
    let args = args(case);
    check_launch(case, &session, &args, opts)
}

/// The case's arguments as launch arguments.
pub fn args(case: &Case) -> Vec<Arg> {
    case.args
        .iter()
        .map(|a| match &a.value {
            Value::Buffer { bytes, .. } => Arg::Buffer {
                name: a.name.into(),
                size: bytes.len() as u64,
                fill: Fill::Bytes(bytes.clone()),
                output: None,
            },
            v => {
                let (ty, bytes) = v.scalar().expect("a by-value argument");
                Arg::Scalar {
                    ty: ty.into(),
                    bytes,
                }
            }
        })
        .collect()
}

fn check_launch(case: &Case, session: &Session, args: &[Arg], opts: &Options) -> Outcome {
    let shape = Shape {
        grid: case.grid,
        block: case.block,
        dims: case.dims(),
        dynamic_lds: case.dyn_lds,
    };
    let (_report, bufs) = match session.launch(case.kernel, shape, args, opts) {
        Ok(r) => r,
        Err(SessionError::Dispatch(DispatchError::Stopped {
            stop: Stop::Unsupported { inst, .. },
            ..
        })) => return Outcome::Unsupported(inst),
        Err(e) => return Outcome::Fail(e.to_string()),
    };
    let mut outputs = Vec::new();
    for (a, b) in case
        .args
        .iter()
        .filter(|a| matches!(a.value, Value::Buffer { .. }))
        .zip(&bufs)
    {
        outputs.push((
            a.name.to_string(),
            session.download(b.addr, b.size).expect("read back"),
        ));
    }
    for g in &case.globals {
        let Some(sym) = session.exe.symbol(g.symbol) else {
            return Outcome::Fail(format!("global {} not found", g.symbol));
        };
        let mut addr = sym.address;
        if g.managed {
            let p = session.download(addr, 8).expect("pointer");
            addr = u64::from_le_bytes(p.try_into().expect("8"));
        }
        match session.download(addr, g.size as u64) {
            Ok(v) => outputs.push((g.symbol.to_string(), v)),
            Err(e) => return Outcome::Fail(format!("global {}: {e}", g.symbol)),
        }
    }
    match case.check(&Run::new(outputs)) {
        Ok(()) => Outcome::Pass,
        Err(e) => Outcome::Fail(e),
    }
}

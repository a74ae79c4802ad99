//! Helpers shared by the corpus tests.
#![allow(dead_code)]

use lathe_cases::{Case, Value};
use lathe_emu::launch::{Arg, Fill};
use lathe_emu::session::{Session, Shape};

pub fn args_of(case: &Case) -> Vec<Arg> {
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
                let (ty, bytes) = match v {
                    Value::U32(x) => ("u32", x.to_le_bytes().to_vec()),
                    Value::I32(x) => ("i32", x.to_le_bytes().to_vec()),
                    Value::U64(x) => ("u64", x.to_le_bytes().to_vec()),
                    Value::I64(x) => ("i64", x.to_le_bytes().to_vec()),
                    Value::F32(x) => ("f32", x.to_le_bytes().to_vec()),
                    Value::F64(x) => ("f64", x.to_le_bytes().to_vec()),
                    Value::Buffer { .. } => unreachable!("handled above"),
                };
                Arg::Scalar {
                    ty: ty.into(),
                    bytes,
                }
            }
        })
        .collect()
}

pub fn shape_of(case: &Case) -> Shape {
    let dims = if case.grid[2] > 1 || case.block[2] > 1 {
        3
    } else if case.grid[1] > 1 || case.block[1] > 1 {
        2
    } else {
        1
    };
    Shape {
        grid: case.grid,
        block: case.block,
        dims,
        dynamic_lds: case.dyn_lds,
    }
}

pub fn outputs(s: &Session, case: &Case, bufs: &[lathe_emu::session::BufferOut]) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = bufs
        .iter()
        .map(|b| s.download(b.addr, b.size).expect("read back"))
        .collect();
    for g in &case.globals {
        if let Some(sym) = s.exe.symbol(g.symbol) {
            let mut addr = sym.address;
            if g.managed {
                let p = s.download(addr, 8).expect("pointer");
                addr = u64::from_le_bytes(p.try_into().expect("8"));
            }
            v.push(s.download(addr, g.size as u64).expect("global"));
        }
    }
    v
}

/// One run of an instrumented code object.
pub struct RunOut {
    /// The probe-data buffer after the run.
    pub data: Vec<u8>,
    /// Output buffers and globals ([`outputs`]).
    pub outputs: Vec<Vec<u8>>,
    /// Waves run.
    pub waves: u64,
    /// Wave-instructions executed (probes included).
    pub wave_instructions: u64,
}

/// Loads `out` (with a zeroed probe-data buffer), runs `kernel` with the
/// case's arguments (waitcnt check on) and reads everything back.
pub fn run_instrumented(
    agent: lathe_bundle::TargetId,
    out: &lathe_dbi::rewrite::Instrumented,
    case: &Case,
    kernel: &str,
) -> Result<RunOut, String> {
    let session = Session::load(agent, &[&out.code_object]).map_err(|e| e.to_string())?;
    let var = session
        .exe
        .symbol(lathe_dbi::elfout::DATA_SYMBOL)
        .ok_or("no data symbol")?
        .address;
    let buf = session
        .upload(&vec![0u8; out.data_size as usize])
        .map_err(|e| e.to_string())?;
    session
        .mem
        .view()
        .store_u64(var, buf)
        .map_err(|e| e.to_string())?;
    let opts = lathe_emu::run::Options {
        threads: 1,
        ..Default::default()
    };
    let (rep, bufs) = session
        .launch(kernel, shape_of(case), &args_of(case), &opts)
        .map_err(|e| e.to_string())?;
    let data = session
        .download(buf, out.data_size)
        .map_err(|e| e.to_string())?;
    Ok(RunOut {
        data,
        outputs: outputs(&session, case, &bufs),
        waves: rep.waves,
        wave_instructions: rep.wave_instructions,
    })
}

/// `llvm-readelf -a` and `llvm-objdump -d` accept `bytes` without
/// warnings.
pub fn llvm_accepts(bytes: &[u8], target: &str, name: &str) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("lathe-dbi-llvm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let path = dir.join(format!("{name}.co"));
    std::fs::write(&path, bytes).map_err(|e| e.to_string())?;
    let mcpu = format!("--mcpu={target}");
    for (tool, args) in [
        ("llvm-readelf", vec!["-a"]),
        ("llvm-objdump", vec!["-d", mcpu.as_str()]),
    ] {
        let out = std::process::Command::new(lathe_testkit::llvm_tool(tool))
            .args(&args)
            .arg(&path)
            .output()
            .map_err(|e| e.to_string())?;
        let err = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() || err.contains("warning") {
            return Err(format!("{tool}: {err}"));
        }
    }
    let _ = std::fs::remove_file(&path);
    Ok(())
}

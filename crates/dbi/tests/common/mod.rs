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

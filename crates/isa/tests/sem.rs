//! The semantic description (`src/generated/sem_gfx9.rs`): regenerating it
//! from the committed opcode table reproduces it byte for byte (no LLVM
//! needed, so this always runs), it has one row per opcode, and spot
//! checks of the classification against hand-written expectations.

#![allow(clippy::unwrap_used)]

use std::process::Command;

use lathe_isa::sem::{
    self, Atomic, AtomicOp, Cmp, Mem, MemOp, NumTy, Partial, Pred, Ret, Space, D16,
};
use lathe_isa::{Opcode, Sem};

#[test]
fn regenerating_reproduces_the_description() {
    let gen = concat!(env!("CARGO_MANIFEST_DIR"), "/gen/sem.py");
    let out = Command::new("python3")
        .arg(gen)
        .arg("--check")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "sem_gfx9.rs differs from gen/sem.py's output:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn one_row_per_opcode() {
    assert_eq!(sem::SEM.len(), Opcode::all().count());
}

#[test]
fn classification_spot_checks() {
    let s = |o: Opcode| sem::of(o).sem;
    assert_eq!(s(Opcode::V_MUL_HI_U32), Sem::Valu(sem::Valu::MulHiU32));
    assert_eq!(
        s(Opcode::V_CMPX_NEQ_F64_E64),
        Sem::Cmp(Cmp {
            pred: Pred::Neq,
            ty: NumTy::F64,
            exec: true
        })
    );
    assert_eq!(
        s(Opcode::V_CMP_CLASS_F32_E32),
        Sem::Cmp(Cmp {
            pred: Pred::Class,
            ty: NumTy::F32,
            exec: false
        })
    );
    assert_eq!(
        s(Opcode::GLOBAL_LOAD_SBYTE_D16_HI),
        Sem::Mem(Mem {
            space: Space::Global,
            op: MemOp::Load,
            size: 1,
            elems: 1,
            signed: true,
            d16: D16::Hi,
            format: false
        })
    );
    assert_eq!(
        sem::of(Opcode::GLOBAL_LOAD_SBYTE_D16_HI).partial,
        Partial::Hi16
    );
    assert_eq!(
        s(Opcode::DS_CMPST_RTN_B64),
        Sem::Mem(Mem {
            space: Space::Lds,
            op: MemOp::Atomic(Atomic {
                op: AtomicOp::CmpSt,
                ret: Ret::Yes
            }),
            size: 8,
            elems: 1,
            signed: false,
            d16: D16::No,
            format: false
        })
    );
    assert_eq!(s(Opcode::S_BITSET0_B32), Sem::Salu(sem::Salu::Bitset0B32));
    assert_eq!(
        s(Opcode::S_CMPK_LG_U32),
        Sem::SCmp(sem::SCmp {
            pred: Pred::Ne,
            ty: NumTy::U32,
            imm: true
        })
    );
    assert!(matches!(
        s(Opcode::DS_GWS_INIT),
        Sem::Unsupported(sem::Why::Gds)
    ));
    assert_eq!(sem::of(Opcode::V_WRITELANE_B32).partial, Partial::Lane);
    assert_eq!(sem::of(Opcode::V_ADD_F16_E64).partial, Partial::ByOpSel);
    assert_eq!(sem::of(Opcode::V_ADD_F32_E64).partial, Partial::Full);
}

#[test]
fn every_image_opcode_is_graphics_only() {
    for o in Opcode::all() {
        if o.info().enc == lathe_isa::Encoding::Mimg {
            assert_eq!(
                sem::of(o).sem,
                Sem::Unsupported(sem::Why::Graphics),
                "{}",
                o.name()
            );
        }
    }
}

//! `s_waitcnt` tracking on real clang-22 code: the unmodified kernels run
//! clean (that is every corpus case, in `cases.rs`); the same kernels with
//! a wait removed or weakened stop with a report naming the register, the
//! outstanding load and the wait that was needed.

use lathe_codeobj::CodeObject;
use lathe_emu::interp::Stop;
use lathe_emu::launch::{Arg, Fill};
use lathe_emu::run::{DispatchError, Options};
use lathe_emu::session::SessionError;
use lathe_emu::session::{Session, Shape};
use lathe_isa::imm::{waitcnt_encode, waitcnt_fields};
use lathe_isa::{Decoder, Opcode, Target};
use lathe_testkit::{Build, Output};

const AXPY: &str = "_Z4axpyPfPKffi";
const S_NOP_0: u32 = 0xbf80_0000;

fn axpy_object(arch: &'static str) -> Vec<u8> {
    let b = Build::new("vecops.hip", &[arch], Output::CodeObject);
    std::fs::read(b.build()).expect("code object")
}

/// File offsets and immediates of the `s_waitcnt`s in `AXPY`'s code.
fn waits(co: &[u8], target: Target) -> Vec<(usize, u16)> {
    let obj = CodeObject::parse(co).expect("parse");
    let text = obj.section_by_name(".text").expect(".text");
    let sym = obj.find_elf_symbol(AXPY).expect("axpy symbol");
    let start = (sym.value - text.address + text.offset) as usize;
    let code = &co[start..start + sym.size as usize];
    Decoder::new(target, code)
        .filter(|(_, i)| i.opcode() == Opcode::S_WAITCNT)
        .map(|(off, i)| (start + off, i.words()[0] as u16))
        .collect()
}

fn patch(co: &[u8], at: usize, word: u32) -> Vec<u8> {
    let mut out = co.to_vec();
    out[at..at + 4].copy_from_slice(&word.to_le_bytes());
    out
}

fn run(arch: &str, co: &[u8], check: bool) -> Result<Vec<f32>, SessionError> {
    let s = Session::load(arch.parse().expect("agent"), &[co]).expect("load");
    let n = 300usize;
    let bytes = |v: Vec<f32>| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let buf = |name: &str, b: Vec<u8>| Arg::Buffer {
        name: name.into(),
        size: b.len() as u64,
        fill: Fill::Bytes(b),
        output: None,
    };
    let args = [
        buf("y", bytes((0..n).map(|i| i as f32).collect())),
        buf("x", bytes(vec![2.0; n])),
        Arg::Scalar {
            ty: "f32".into(),
            bytes: 3f32.to_le_bytes().to_vec(),
        },
        Arg::Scalar {
            ty: "i32".into(),
            bytes: (n as i32).to_le_bytes().to_vec(),
        },
    ];
    let opts = Options {
        check_waitcnt: check,
        ..Options::default()
    };
    let (_, bufs) = s.launch(AXPY, Shape::linear(n as u32, 64), &args, &opts)?;
    let out = s.download(bufs[0].addr, bufs[0].size).expect("read");
    Ok(out
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4")))
        .collect())
}

fn expect_missing_wait(r: Result<Vec<f32>, SessionError>) -> lathe_emu::waitcnt::Hazard {
    match r {
        Err(SessionError::Dispatch(DispatchError::Stopped {
            stop: Stop::MissingWait { hazard, .. },
            ..
        })) => {
            eprintln!("{hazard}");
            *hazard
        }
        other => panic!("expected a missing-wait stop, got {other:?}"),
    }
}

#[test]
fn removed_or_weakened_waits_are_reported() {
    for (arch, target) in [("gfx90a", Target::Gfx90a), ("gfx942", Target::Gfx942)] {
        let co = axpy_object(arch);
        let want: Vec<f32> = (0..300).map(|i| i as f32 + 6.0).collect();
        // Unmodified: runs clean with the check on.
        assert_eq!(run(arch, &co, true).expect("clean run"), want, "{arch}");

        let ws = waits(&co, target);
        // The wait for the two global loads: the last one with vmcnt < 63.
        let &(vm_at, vm_imm) = ws
            .iter()
            .rev()
            .find(|(_, imm)| waitcnt_fields(u32::from(*imm)).0 < 63)
            .expect("a vmcnt wait");
        assert_eq!(waitcnt_fields(u32::from(vm_imm)).0, 0, "{arch}: {ws:x?}");

        // Removed: the add reads a load result still in flight.
        let removed = patch(&co, vm_at, S_NOP_0);
        let h = expect_missing_wait(run(arch, &removed, true));
        assert!(!h.write, "{arch}: {h}");
        assert!(h.producer.starts_with("global_load_dword"), "{arch}: {h}");
        assert!(h.needed.starts_with("s_waitcnt vmcnt("), "{arch}: {h}");
        // The emulator itself completes loads at issue, so with the check
        // off the (hardware-incorrect) kernel still computes the values.
        assert_eq!(run(arch, &removed, false).expect("unchecked"), want);

        // Weakened to vmcnt(1): the older load is guaranteed, the younger
        // is not, and the report asks for vmcnt(0).
        let (_, exp, lgkm) = waitcnt_fields(u32::from(vm_imm));
        let weak = waitcnt_encode(1, exp, lgkm);
        let weakened = patch(&co, vm_at, 0xbf8c_0000 | u32::from(weak));
        let h = expect_missing_wait(run(arch, &weakened, true));
        assert_eq!(h.needed, "s_waitcnt vmcnt(0)", "{arch}: {h}");

        // The first wait on the kernel-argument loads (SMEM): removed, the
        // next instruction uses an SGPR the scalar load still owes.
        let &(lgkm_at, _) = ws.first().expect("an lgkmcnt wait");
        let removed = patch(&co, lgkm_at, S_NOP_0);
        let h = expect_missing_wait(run(arch, &removed, true));
        assert!(h.producer.starts_with("s_load_"), "{arch}: {h}");
        assert_eq!(h.needed, "s_waitcnt lgkmcnt(0)", "{arch}: {h}");
        assert_eq!(h.reg.file, lathe_isa::RegFile::Scalar, "{arch}: {h}");
    }
}

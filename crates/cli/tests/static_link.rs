//! How the `lathe` binary is linked (D55, D58): always position-dependent
//! (`ET_EXEC`); where the C toolchain has the static archives and
//! `LATHE_DYNAMIC=1` was not set at build time, statically (no `PT_INTERP`
//! program header, no `PT_DYNAMIC`, D63); otherwise dynamically. Either
//! way it runs.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

use std::process::Command;

const PT_DYNAMIC: u32 = 2;
const PT_INTERP: u32 = 3;

/// The `p_type` of every program header of a 64-bit little-endian ELF.
fn segment_types(elf: &[u8]) -> Vec<u32> {
    assert_eq!(&elf[..6], b"\x7fELF\x02\x01", "not a 64-bit LE ELF");
    let u16_at = |o: usize| u16::from_le_bytes([elf[o], elf[o + 1]]) as usize;
    let phoff = u64::from_le_bytes(elf[32..40].try_into().unwrap()) as usize;
    let (phentsize, phnum) = (u16_at(54), u16_at(56));
    (0..phnum)
        .map(|i| {
            let o = phoff + i * phentsize;
            u32::from_le_bytes(elf[o..o + 4].try_into().unwrap())
        })
        .collect()
}

#[test]
fn lathe_is_position_dependent_and_static_unless_opted_out() {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) {
        return;
    }
    let bin = env!("CARGO_BIN_EXE_lathe");
    let elf = std::fs::read(bin).unwrap();
    const ET_EXEC: u16 = 2;
    assert_eq!(
        u16::from_le_bytes([elf[16], elf[17]]),
        ET_EXEC,
        "{bin} is not position-dependent (D55)"
    );
    let types = segment_types(&elf);
    assert!(!types.is_empty());
    let asked = option_env!("LATHE_DYNAMIC") != Some("1");
    let have_archives = ["libc.a", "libm.a", "libgcc_eh.a"].iter().all(|a| {
        Command::new("cc")
            .arg(format!("-print-file-name={a}"))
            .output()
            .is_ok_and(|o| {
                std::path::Path::new(String::from_utf8_lossy(&o.stdout).trim()).is_absolute()
            })
    });
    let is_static = !types.contains(&PT_INTERP) && !types.contains(&PT_DYNAMIC);
    assert_eq!(
        is_static,
        asked && have_archives,
        "{bin}: static {is_static}, LATHE_DYNAMIC=1 not set at build time {asked}, static archives {have_archives}"
    );
    let out = Command::new(bin).arg("--version").output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("lathe "));
}

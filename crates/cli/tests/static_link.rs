//! The `lathe` binary is linked statically where the C toolchain has the
//! static archives (D58): no `PT_INTERP` program header (no dynamic
//! loader), no `PT_DYNAMIC`, and it runs.

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
fn lathe_is_static_where_the_archives_exist() {
    if !cfg!(all(target_os = "linux", target_env = "gnu")) {
        return;
    }
    if std::env::var_os("LATHE_DYNAMIC").is_some_and(|v| v == "1") {
        eprintln!("skipping: LATHE_DYNAMIC=1");
        return;
    }
    let have_archives = ["libc.a", "libm.a", "libgcc_eh.a"].iter().all(|a| {
        Command::new("cc")
            .arg(format!("-print-file-name={a}"))
            .output()
            .is_ok_and(|o| {
                std::path::Path::new(String::from_utf8_lossy(&o.stdout).trim()).is_absolute()
            })
    });
    if !have_archives {
        eprintln!("skipping: the C toolchain has no static glibc archives");
        return;
    }
    let bin = env!("CARGO_BIN_EXE_lathe");
    let types = segment_types(&std::fs::read(bin).unwrap());
    assert!(!types.is_empty());
    assert!(
        !types.contains(&PT_INTERP),
        "{bin} asks for a dynamic loader"
    );
    assert!(!types.contains(&PT_DYNAMIC), "{bin} has a dynamic section");
    let out = Command::new(bin).arg("--version").output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("lathe "));
}

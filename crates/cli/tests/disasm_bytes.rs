//! `lathe disasm --format llvm` writes exactly llvm-objdump's bytes (after
//! the four header lines llvm-objdump puts first: blank, file name and
//! format, blank, section title), on the jax wheel's code objects, one
//! processor per generation, to stdout and with `-o FILE`. The listing is
//! written in chunks of a few KB of code (D55); these code objects hold
//! tens of KB, so chunk boundaries fall inside functions and between them,
//! and no whitespace is normalised here (unlike the listing tests that
//! collapse it), so a lost or doubled newline at a boundary fails.

#![allow(clippy::unwrap_used, clippy::expect_used)] // test code

use std::process::Command;

mod common;

use common::{lathe_ok, tmpdir};
use lathe_testkit::{llvm_tool, run};

#[test]
fn llvm_format_is_llvm_objdumps_bytes_on_the_jax_wheel() {
    let Some(dir) = lathe_testkit::jax_plugin_dir() else {
        assert!(
            !lathe_testkit::require_external(),
            "jax wheel missing (run scripts/setup.sh)"
        );
        eprintln!("skipping: jax wheel not downloaded");
        return;
    };
    let lib = dir.join("jax_rocm7_plugin/_linalg.so");
    let out = tmpdir("disasm-bytes");
    let mut checked = 0;
    for proc_ in [
        "gfx90a", "gfx1010", "gfx1030", "gfx1100", "gfx1151", "gfx1201",
    ] {
        let d = out.join(proc_);
        lathe_ok(&[
            "-q",
            "bundle",
            "extract",
            lib.to_str().unwrap(),
            "-t",
            proc_,
            "-o",
            d.to_str().unwrap(),
        ]);
        let mut cos: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        cos.sort();
        assert!(!cos.is_empty(), "{proc_}: nothing extracted");
        for co in cos {
            let c = co.to_str().unwrap();
            let theirs = run(Command::new(llvm_tool("llvm-objdump"))
                .args(["-d", "--no-show-raw-insn", "--no-leading-addr"])
                .arg(format!("--mcpu={proc_}"))
                .arg(&co));
            // Drop the four header lines.
            let mut body = &theirs[..];
            for _ in 0..4 {
                let nl = body.iter().position(|&b| b == b'\n').expect("header line");
                body = &body[nl + 1..];
            }
            assert!(body.starts_with(b"\n<"), "{c}: header not as expected");
            let text = std::fs::metadata(&co).unwrap().len();
            assert!(
                text > 16 << 10,
                "{c}: {text} bytes, fewer chunks than meant"
            );
            let ours = lathe_ok(&["-q", "disasm", "--format", "llvm", c]);
            assert!(
                ours.as_bytes() == body,
                "{c}: stdout differs from llvm-objdump's listing (first difference at byte {})",
                first_difference(ours.as_bytes(), body)
            );
            let file = d.join("listing.txt");
            lathe_ok(&[
                "-q",
                "disasm",
                "--format",
                "llvm",
                c,
                "-o",
                file.to_str().unwrap(),
            ]);
            let written = std::fs::read(&file).unwrap();
            assert!(
                written == body,
                "{c}: -o output differs from llvm-objdump's listing (first difference at byte {})",
                first_difference(&written, body)
            );
            std::fs::remove_file(&file).unwrap();
            checked += 1;
        }
    }
    assert!(checked >= 6, "{checked} code objects checked");
    let _ = std::fs::remove_dir_all(&out);
}

fn first_difference(a: &[u8], b: &[u8]) -> usize {
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()))
}

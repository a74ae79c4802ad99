//! Links `lathe` for a fast start on Linux with glibc (D55, D58).
//!
//! * Position-dependent (`-no-pie`, D55): a PIE binary this size carries
//!   ~17,500 relative relocations that the dynamic loader applies at every
//!   start, writing (page-faulting) every page of `.data.rel.ro`.
//! * Statically linked (D58, D63) when the C toolchain has the static
//!   archives
//!   (`libc.a`, `libm.a`, `libgcc_eh.a`, …): no dynamic loader at all (no
//!   library look-ups, mappings and symbol binding, no second run of
//!   libgcc's CPU detection, whose `cpuid`s trap to the hypervisor on a VM).
//!   For `lathe disasm` on a small code object that is a quarter of the
//!   run. Only the `lathe` binary: the flag is a link argument of this
//!   package's binaries, not a workspace-wide `crt-static` (which would
//!   also apply to the `lathe-hsa` cdylib).
//!
//! rustc names std's system libraries as dynamic ones (`-Bdynamic -lgcc_s
//! -lc -lm …`) unless the whole build is `crt-static`, and under `-static`
//! the linker would still take `libc.so`, making a broken executable. So
//! this script writes linker scripts with those names into its output
//! directory, which the binaries' link (only theirs) searches first, each
//! pointing at the static archives: `libc.so` = `GROUP(libc.a libgcc.a
//! libgcc_eh.a)`, `libgcc_s.so` = `libgcc_eh.a`, and so on. If an archive
//! is missing, the build is a cross build, or `LATHE_DYNAMIC=1` is set at
//! build time, the binary is linked dynamically (still `-no-pie`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The system libraries rustc links std with on linux-gnu, and the static
/// archives each stands for.
const SHIMS: &[(&str, &[&str])] = &[
    ("c", &["libc.a", "libgcc.a", "libgcc_eh.a"]),
    ("gcc_s", &["libgcc_eh.a"]),
    ("m", &["libm.a"]),
    ("pthread", &["libpthread.a"]),
    ("dl", &["libdl.a"]),
    ("rt", &["librt.a"]),
    ("util", &["libutil.a"]),
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=LATHE_DYNAMIC");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os != "linux" || env != "gnu" {
        return;
    }
    println!("cargo:rustc-link-arg-bins=-no-pie");
    // Static unless opted out. D58 made it opt-in for a while: device
    // allocations were host heap addresses, and the static binary's heap
    // put one right after a `lathe run` buffer, so a stray write past it
    // went unreported. Since D63 every allocation has its own mapping and
    // a guard, whatever the link.
    if std::env::var_os("LATHE_DYNAMIC").is_some_and(|v| v == "1") {
        return;
    }
    // `cc -print-file-name` names the host's archives: a cross build stays
    // dynamic.
    if std::env::var("TARGET").ok() != std::env::var("HOST").ok() {
        return;
    }
    let Some(out) = std::env::var_os("OUT_DIR").map(PathBuf::from) else {
        return;
    };
    match write_shims(&out) {
        Ok(()) => {
            // As link arguments of the binaries only: the package's test
            // executables stay dynamic (a `-L` applies to every `-l`,
            // wherever it stands, and is searched before the system's).
            println!("cargo:rustc-link-arg-bins=-L{}", out.display());
            println!("cargo:rustc-link-arg-bins=-static");
        }
        Err(why) => println!("cargo:warning=lathe is linked dynamically: {why}"),
    }
}

/// Writes the linker scripts into `dir`, or says which archive is missing.
fn write_shims(dir: &Path) -> Result<(), String> {
    let cc = std::env::var("RUSTC_LINKER").unwrap_or_else(|_| "cc".to_string());
    let mut scripts = Vec::new();
    for (lib, archives) in SHIMS {
        let mut paths = Vec::new();
        for a in *archives {
            paths.push(archive(&cc, a).ok_or_else(|| format!("{cc} has no {a}"))?);
        }
        let list: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        scripts.push((
            dir.join(format!("lib{lib}.so")),
            format!("GROUP ( {} )\n", list.join(" ")),
        ));
    }
    for (path, text) in scripts {
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

/// Where the C compiler driver finds `name` (`cc -print-file-name`): an
/// absolute path to an existing file, or `None` (the driver echoes the bare
/// name when it has none).
fn archive(cc: &str, name: &str) -> Option<PathBuf> {
    let out = Command::new(cc)
        .arg(format!("-print-file-name={name}"))
        .output()
        .ok()?;
    let p = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
    (p.is_absolute() && p.is_file()).then(|| p.canonicalize().unwrap_or(p))
}

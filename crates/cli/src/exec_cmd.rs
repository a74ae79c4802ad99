//! `lathe exec`: runs an unmodified HIP program with Lathe's HSA runtime
//! (`lathe-hsa`, `libhsa-runtime64.so.1`) in place of ROCr, so its kernels
//! run on the emulator. The runtime is found next to the `lathe` binary
//! (`cargo build --release` builds both) or through `LATHE_HSA_LIB`; it is
//! linked under its ROCr name in a `lathe-hsa/` directory that goes first
//! on `LD_LIBRARY_PATH`. The program's exit status is passed through.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::output::Ctx;

/// `lathe exec` options.
#[derive(Debug, Args)]
pub struct ExecArgs {
    /// GPU to model: gfx90a (MI210, default) or gfx942 (MI300X), or a full
    /// target ID (`gfx90a:sramecc+:xnack-`).
    #[arg(long)]
    target: Option<String>,
    /// Emulator host threads per dispatch (0: all cores).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Print one line per kernel launch on stderr: kernel, grid, block,
    /// wave-instructions, time.
    #[arg(long)]
    stats: bool,
    /// Write the launches as a JSON array to PATH.
    #[arg(long, value_name = "PATH")]
    stats_json: Option<PathBuf>,
    /// The program and its arguments (after `--`).
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    command: Vec<OsString>,
}

/// The built runtime (`libhsa_runtime64.so`): `LATHE_HSA_LIB` (the file or
/// its directory), else next to this executable or one directory up (cargo
/// puts test binaries in `deps/`).
fn runtime_library() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("LATHE_HSA_LIB") {
        let p = PathBuf::from(p);
        let f = if p.is_dir() {
            p.join("libhsa_runtime64.so")
        } else {
            p
        };
        if f.is_file() {
            return Ok(f);
        }
        bail!(
            "LATHE_HSA_LIB={}: no libhsa_runtime64.so there",
            f.display()
        );
    }
    let exe = std::env::current_exe().context("cannot find the lathe executable")?;
    let mut dir = exe.parent().map(Path::to_path_buf);
    for _ in 0..2 {
        let Some(d) = dir else { break };
        let f = d.join("libhsa_runtime64.so");
        if f.is_file() {
            return Ok(f);
        }
        dir = d.parent().map(Path::to_path_buf);
    }
    bail!(
        "Lathe's HSA runtime (libhsa_runtime64.so) is not next to {}: build it with `cargo build --release` (or set LATHE_HSA_LIB)",
        exe.display()
    )
}

/// A directory holding `libhsa-runtime64.so.1` → the runtime: beside the
/// library if writable, else under the temp directory.
fn runtime_dir(lib: &Path) -> Result<PathBuf> {
    let lib = lib.canonicalize().context("runtime library path")?;
    let beside = lib.parent().map(|d| d.join("lathe-hsa"));
    let uid = std::env::var("USER").unwrap_or_else(|_| "user".into());
    let tmp = std::env::temp_dir().join(format!("lathe-hsa-{uid}"));
    for dir in beside.into_iter().chain([tmp]) {
        if std::fs::create_dir_all(&dir).is_err() {
            continue;
        }
        let link = dir.join("libhsa-runtime64.so.1");
        if std::fs::read_link(&link).ok().as_deref() == Some(lib.as_path()) {
            return Ok(dir);
        }
        let _ = std::fs::remove_file(&link);
        if std::os::unix::fs::symlink(&lib, &link).is_ok() {
            return Ok(dir);
        }
    }
    bail!("cannot create a directory for libhsa-runtime64.so.1")
}

/// Runs the program and exits with its status.
pub fn run(_ctx: &Ctx, a: ExecArgs) -> Result<()> {
    let lib = runtime_library()?;
    let dir = runtime_dir(&lib)?;
    let mut path = OsString::from(dir.as_os_str());
    if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|v| !v.is_empty()) {
        path.push(":");
        path.push(old);
    }
    let (prog, args) = a
        .command
        .split_first()
        .context("no program given after --")?;
    let mut cmd = Command::new(prog);
    cmd.args(args).env("LD_LIBRARY_PATH", path);
    if let Some(t) = &a.target {
        cmd.env("LATHE_TARGET", t);
    }
    if a.threads > 0 {
        cmd.env("LATHE_THREADS", a.threads.to_string());
    }
    if a.stats {
        cmd.env("LATHE_STATS", "1");
    }
    if let Some(p) = &a.stats_json {
        let abs = std::path::absolute(p).unwrap_or_else(|_| p.clone());
        cmd.env("LATHE_STATS_JSON", abs);
    }
    let status = cmd
        .status()
        .with_context(|| format!("cannot run {}", Path::new(prog).display()))?;
    let code = match status.code() {
        Some(c) => c,
        None => {
            use std::os::unix::process::ExitStatusExt;
            let sig = status.signal().unwrap_or(0);
            eprintln!(
                "lathe: {} was killed by signal {sig}",
                Path::new(prog).display()
            );
            128 + sig
        }
    };
    std::process::exit(code)
}

//! `lathe exec`: runs an unmodified HIP program with Lathe's HSA runtime
//! (`lathe-hsa`, `libhsa-runtime64.so.1`) in place of ROCr, so its kernels
//! run on the emulator. The runtime is found next to the `lathe` binary
//! (`cargo build --release` builds both) or through `LATHE_HSA_LIB`; it is
//! linked under its ROCr name in a `lathe-hsa/` directory that goes first
//! on `LD_LIBRARY_PATH`. The program's exit status is passed through.
//!
//! `--tool` instruments the program's kernel dispatches: the tool library
//! (`liblathe_tool.so`, crate `lathe-tool`, found the same way or through
//! `LATHE_TOOL_LIB`) is loaded by the runtime through `HSA_TOOLS_LIB`, and
//! configured through the `LATHE_TOOL*` variables it documents.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use clap::Args;

use crate::output::Ctx;
use crate::signals;

/// `lathe exec` options.
#[derive(Debug, Args)]
pub struct ExecArgs {
    /// GPU to model: gfx90a (MI210, default), gfx942 (MI300X), gfx950
    /// (MI355X), gfx1030 (RX 6800), gfx1100 (RX 7900 XTX) or gfx1201
    /// (RX 9070 XT), or a full target ID (`gfx90a:sramecc+:xnack-`).
    /// Kernels for GFX10+ stop at their dispatch: the emulator runs GFX9
    /// wave64 code.
    #[arg(long)]
    target: Option<String>,
    /// Emulator host threads per dispatch (0: all cores).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Watchdog: stop a kernel still running after this many seconds and
    /// report where each unfinished wave is (0: no limit; default 600).
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<f64>,
    /// Print one line per kernel launch on stderr (kernel, demangled; grid,
    /// block, wave-instructions, time), then a per-kernel summary: calls,
    /// total, mean, min and max time, longest total first.
    #[arg(long)]
    stats: bool,
    /// Write the launches as a JSON array to PATH.
    #[arg(long, value_name = "PATH")]
    stats_json: Option<PathBuf>,
    /// Write a kernel trace: PREFIX_kernel_trace.csv (rocprofv3's
    /// --kernel-trace columns, one row per launch) and
    /// PREFIX_kernel_trace.perfetto.json (a timeline, one track per queue).
    #[arg(long, value_name = "PREFIX")]
    kernel_trace: Option<PathBuf>,
    /// Instrument kernel dispatches with a built-in tool (instr-count,
    /// block-count, opcode-hist, mem-trace or kernarg) or a HIP tool (a
    /// directory with tool.json and tool.hip, or its manifest). Results per
    /// launch go to stderr (or to --tool-out).
    #[arg(long, value_name = "TOOL")]
    tool: Option<String>,
    /// Write the per-launch results as a JSON array to PATH instead;
    /// mem-trace also writes PATH.csv and PATH.perfetto.json (PATH's
    /// extension replaced), as `lathe run` does.
    #[arg(long, value_name = "PATH", requires = "tool")]
    tool_out: Option<PathBuf>,
    /// Instrument (or capture) only kernels whose mangled or demangled
    /// name matches.
    #[arg(long, value_name = "REGEX")]
    kernels: Option<String>,
    /// Instrument (or capture) only launches A-B (inclusive; counted from 0
    /// over every kernel dispatch), A- or A.
    #[arg(long, value_name = "A-B")]
    launches: Option<String>,
    /// Capture each selected dispatch (--kernels, --launches; default all)
    /// as a capsule directory under DIR (NNNNN-kernel) that `lathe replay`
    /// runs again without the program (docs/capsule.md).
    #[arg(long, value_name = "DIR")]
    capture: Option<PathBuf>,
    /// What memory a capsule stores: the pages the dispatch touched
    /// (touched), or every allocation whole (all). Every allocation's
    /// address and size are kept either way.
    #[arg(long, value_name = "touched|all", default_value = "touched", requires = "capture", value_parser = ["touched", "all"])]
    capture_memory: String,
    /// When a kernel cannot be instrumented: report it and run the original
    /// code (skip), or report it and stop the program (abort, exit status 70).
    /// A HIP tool that does not build stops `lathe exec` before the program
    /// starts either way.
    #[arg(long, value_enum, default_value_t = OnToolError::Skip, requires = "tool")]
    on_tool_error: OnToolError,
    /// Run the sanitizer: a comma-separated list of memcheck (accesses
    /// outside what the program allocated, freed memory, LDS and scratch
    /// bounds, misaligned atomics), initcheck (reads of memory nothing
    /// wrote), racecheck (LDS hazards between waves with no barrier
    /// between), synccheck (barriers not every wave reaches) or all.
    /// Findings go to stderr as they happen, with a summary
    /// per checker at the end; the exit status is 66 when any was found.
    #[arg(long, value_name = "LIST")]
    check: Option<String>,
    /// Write the sanitizer's findings (folded by kind and PC, counted) as a
    /// JSON array to PATH.
    #[arg(long, value_name = "PATH", requires = "check")]
    check_json: Option<PathBuf>,
    /// The program and its arguments (after `--`).
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    command: Vec<OsString>,
}

/// `--on-tool-error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OnToolError {
    /// Report the error, run the kernel uninstrumented.
    Skip,
    /// Report the error, stop the program.
    Abort,
}

/// The built tool library (`liblathe_tool.so`): `LATHE_TOOL_LIB`, else next
/// to this executable or one directory up.
fn tool_library() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("LATHE_TOOL_LIB") {
        let p = PathBuf::from(p);
        if p.is_file() {
            return Ok(p);
        }
        bail!("LATHE_TOOL_LIB={}: no such file", p.display());
    }
    let exe = std::env::current_exe().context("cannot find the lathe executable")?;
    let mut dir = exe.parent().map(Path::to_path_buf);
    for _ in 0..2 {
        let Some(d) = dir else { break };
        let f = d.join("liblathe_tool.so");
        if f.is_file() {
            return Ok(f);
        }
        dir = d.parent().map(Path::to_path_buf);
    }
    bail!(
        "the tool library (liblathe_tool.so) is not next to {}: build it with `cargo build --release` (or set LATHE_TOOL_LIB)",
        exe.display()
    )
}

/// Checks the tool options and sets the variables the tool library reads.
fn configure_tool(cmd: &mut Command, a: &ExecArgs, tool: &str) -> Result<()> {
    let tool: OsString = if lathe_dbi::tools::Tool::parse(tool).is_some() {
        tool.into()
    } else if Path::new(tool).exists() {
        // A HIP tool: built here, for the target, before the program
        // starts — a tool that does not compile or does not match its
        // manifest can instrument nothing, so it is reported once and the
        // program does not run (whatever --on-tool-error says; that is for
        // kernels the tool cannot instrument). The library reuses the
        // cached object.
        let p = Path::new(tool);
        let manifest = if p.is_dir() {
            p.join("tool.json")
        } else {
            p.to_path_buf()
        };
        if !manifest.is_file() {
            bail!(
                "--tool {tool}: a HIP tool directory must hold tool.json (and tool.hip); {} is missing",
                manifest.display()
            );
        }
        let target = a.target.as_deref().unwrap_or("gfx90a");
        let processor = target.split(':').next().unwrap_or(target);
        if let Err(e) = lathe_dbi::manifest::HipTool::load(p, processor) {
            bail!("--tool {tool}: the HIP tool cannot be built for {processor}, so the program was not started: {e}");
        }
        std::path::absolute(p)
            .unwrap_or_else(|_| p.to_path_buf())
            .into_os_string()
    } else {
        bail!(
            "--tool {tool}: not a built-in tool ({}) nor an existing HIP tool directory or manifest",
            lathe_dbi::tools::Tool::names()
        );
    };
    if let Some(k) = &a.kernels {
        regex_syntax_check(k).with_context(|| format!("--kernels {k:?}"))?;
    }
    if let Some(l) = &a.launches {
        check_launches(l)?;
    }
    let lib = tool_library()?;
    let lib = lib.canonicalize().unwrap_or(lib);
    let mut tools = OsString::from(lib.as_os_str());
    if let Some(old) = std::env::var_os("HSA_TOOLS_LIB").filter(|v| !v.is_empty()) {
        tools.push(" ");
        tools.push(old);
    }
    cmd.env("HSA_TOOLS_LIB", tools).env("LATHE_TOOL", tool);
    for k in [
        "LATHE_TOOL_OUT",
        "LATHE_TOOL_KERNELS",
        "LATHE_TOOL_LAUNCHES",
    ] {
        cmd.env_remove(k);
    }
    if let Some(p) = &a.tool_out {
        let abs = std::path::absolute(p).unwrap_or_else(|_| p.clone());
        cmd.env("LATHE_TOOL_OUT", abs);
    }
    if let Some(k) = &a.kernels {
        cmd.env("LATHE_TOOL_KERNELS", k);
    }
    if let Some(l) = &a.launches {
        cmd.env("LATHE_TOOL_LAUNCHES", l);
    }
    cmd.env(
        "LATHE_TOOL_ON_ERROR",
        match a.on_tool_error {
            OnToolError::Skip => "skip",
            OnToolError::Abort => "abort",
        },
    );
    Ok(())
}

/// `--capture DIR`: the runtime's `LATHE_CAPTURE*` variables.
fn configure_capture(cmd: &mut Command, a: &ExecArgs) -> Result<()> {
    for k in [
        "LATHE_CAPTURE",
        "LATHE_CAPTURE_KERNELS",
        "LATHE_CAPTURE_LAUNCHES",
        "LATHE_CAPTURE_MEMORY",
    ] {
        cmd.env_remove(k);
    }
    let Some(dir) = &a.capture else {
        return Ok(());
    };
    if let Some(k) = &a.kernels {
        regex_syntax_check(k).with_context(|| format!("--kernels {k:?}"))?;
        cmd.env("LATHE_CAPTURE_KERNELS", k);
    }
    if let Some(l) = &a.launches {
        check_launches(l)?;
        cmd.env("LATHE_CAPTURE_LAUNCHES", l);
    }
    std::fs::create_dir_all(dir)
        .with_context(|| format!("--capture {}: cannot create the directory", dir.display()))?;
    let abs = std::path::absolute(dir).unwrap_or_else(|_| dir.clone());
    cmd.env("LATHE_CAPTURE", abs);
    cmd.env("LATHE_CAPTURE_MEMORY", &a.capture_memory);
    Ok(())
}

fn regex_syntax_check(re: &str) -> Result<()> {
    regex::Regex::new(re)
        .map(|_| ())
        .map_err(|e| anyhow::anyhow!("{e}"))
}

/// `A-B`, `A-` or `A`, as the tool library reads it.
fn check_launches(s: &str) -> Result<()> {
    let num = |x: &str| {
        x.trim().parse::<u64>().with_context(|| {
            format!("--launches {s:?}: {x:?} is not a launch index (want A-B, A- or A)")
        })
    };
    match s.split_once('-') {
        Some((a, "")) => num(a).map(|_| ()),
        Some((a, b)) => {
            let (a, b) = (num(a)?, num(b)?);
            if b < a {
                bail!("--launches {s:?}: {b} is before {a}");
            }
            Ok(())
        }
        None => num(s).map(|_| ()),
    }
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
    check_target(a.target.as_deref(), Path::new(prog))?;
    let mut cmd = Command::new(prog);
    cmd.args(args).env("LD_LIBRARY_PATH", path);
    if let Some(t) = &a.target {
        cmd.env("LATHE_TARGET", t);
    }
    if a.threads > 0 {
        cmd.env("LATHE_THREADS", a.threads.to_string());
    }
    cmd.env_remove("LATHE_TIMEOUT");
    if let Some(t) = a.timeout {
        if !(t >= 0.0 && t.is_finite()) {
            bail!("--timeout {t}: expected a number of seconds >= 0");
        }
        cmd.env("LATHE_TIMEOUT", t.to_string());
    }
    if a.stats {
        cmd.env("LATHE_STATS", "1");
    }
    if let Some(p) = &a.stats_json {
        let abs = std::path::absolute(p).unwrap_or_else(|_| p.clone());
        cmd.env("LATHE_STATS_JSON", abs);
    }
    cmd.env_remove("LATHE_KERNEL_TRACE");
    if let Some(p) = &a.kernel_trace {
        let abs = std::path::absolute(p).unwrap_or_else(|_| p.clone());
        cmd.env("LATHE_KERNEL_TRACE", abs);
    }
    if (a.kernels.is_some() || a.launches.is_some()) && a.tool.is_none() && a.capture.is_none() {
        bail!("--kernels and --launches select the launches --tool instruments or --capture captures; give one of those");
    }
    configure_capture(&mut cmd, &a)?;
    if let Some(t) = &a.tool {
        configure_tool(&mut cmd, &a, t)?;
    } else {
        cmd.env_remove("LATHE_TOOL");
    }
    cmd.env_remove("LATHE_CHECK").env_remove("LATHE_CHECK_LOG");
    let check = match &a.check {
        Some(list) => Some(crate::exec_check::CheckRun::new(
            &mut cmd,
            list,
            a.check_json.as_deref(),
        )?),
        None => None,
    };
    // The program's temporary files (Comgr's `comgr-…` directory, which
    // HIP makes at start-up and leaves when stopped by a signal) go to a
    // directory of this run, removed afterwards.
    let tmp = RunTmp::new();
    if let Some(t) = &tmp {
        cmd.env("TMPDIR", &t.0);
    }
    let loaded = tmp.as_ref().map(|t| t.0.join(".lathe-tool-loaded"));
    cmd.env_remove("LATHE_TOOL_LOADED");
    if let (Some(_), Some(l)) = (&a.tool, &loaded) {
        cmd.env("LATHE_TOOL_LOADED", l);
    }
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec only prctl(2), async-signal-safe; the
    // program gets SIGTERM if lathe dies first (no orphan).
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
            Ok(())
        })
    };
    signals::stop_emulator_on_signal();
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot run {}", Path::new(prog).display()))?;
    signals::forward_to_child(child.id());
    if let Some(sig) = signals::received() {
        // A signal between the handler's installation and the spawn.
        // SAFETY: kill(2) on our own, unreaped child.
        unsafe { libc::kill(child.id() as i32, sig) };
    }
    let pid = child.id();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog = {
        let done = std::sync::Arc::clone(&done);
        std::thread::spawn(move || escalate(pid, &done))
    };
    let status = child.wait();
    done.store(true, std::sync::atomic::Ordering::Release);
    signals::child_gone();
    let _ = watchdog.join();
    if let (Some(t), Some(l)) = (&a.tool, &loaded) {
        if std::fs::remove_file(l).is_err() && signals::received().is_none() {
            eprintln!(
                "lathe: warning: --tool {t}: the program never started an HSA runtime (no GPU work), so nothing was instrumented"
            );
        }
    }
    drop(tmp);
    let status = status.with_context(|| format!("waiting for {}", Path::new(prog).display()))?;
    let code = match (status.code(), signals::received()) {
        (_, Some(sig)) => {
            eprintln!(
                "lathe: {} stopped: lathe exec received {}",
                Path::new(prog).display(),
                signals::name(sig)
            );
            128 + sig
        }
        (Some(c), None) => c,
        (None, None) => {
            use std::os::unix::process::ExitStatusExt;
            let sig = status.signal().unwrap_or(0);
            // A closed pipe ends a pipeline quietly, as in a shell.
            if sig != libc::SIGPIPE {
                eprintln!(
                    "lathe: {} was killed by signal {sig} ({})",
                    Path::new(prog).display(),
                    signals::name(sig)
                );
            }
            128 + sig
        }
    };
    let found = match check {
        Some(c) => c.finish()?,
        None => false,
    };
    let code = if found && signals::received().is_none() {
        crate::exec_check::CHECK_FAILED_EXIT
    } else {
        code
    };
    std::process::exit(code)
}

/// Processors Lathe's runtime models, with their products: the rows of
/// `crates/hsa/src/model.rs` (`SPECS`), which the runtime cdylib keeps;
/// `crates/hsa/tests/targets.rs` starts the runtime with each.
const MODELLED: [(&str, &str); 6] = [
    ("gfx90a", "MI210"),
    ("gfx942", "MI300X"),
    ("gfx950", "MI355X"),
    ("gfx1030", "RX 6800"),
    ("gfx1100", "RX 7900 XTX"),
    ("gfx1201", "RX 9070 XT"),
];

fn modelled() -> String {
    MODELLED
        .iter()
        .map(|(p, n)| format!("{p} ({n})"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The agent's full target ID for `--target want`, by the runtime's rule
/// (D42): a bare processor gets `sramecc+` and `xnack-` where the processor
/// has those features (`gfx90a:sramecc+:xnack-`, plain `gfx1030`).
fn agent_target_id(want: &str) -> Result<lathe_bundle::TargetId> {
    let processor = want.split(':').next().unwrap_or(want);
    if !MODELLED.iter().any(|(p, _)| *p == processor) {
        bail!(
            "--target {want}: Lathe's runtime models {} only",
            modelled()
        );
    }
    let mut full = want.to_string();
    if !want.contains(':') {
        if let Some(p) = lathe_bundle::Processor::from_name(processor) {
            if p.supports_sramecc() {
                full.push_str(":sramecc+");
            }
            if p.supports_xnack() {
                full.push_str(":xnack-");
            }
        }
    }
    match full.parse() {
        Ok(t) => Ok(t),
        Err(e) => bail!("--target {want}: {e}"),
    }
}

/// Before the program starts: the target must be one the runtime models,
/// and when the program file holds GPU code objects, one of them must run
/// on it (else HIP fails later, in ways that say little).
fn check_target(target: Option<&str>, prog: &Path) -> Result<()> {
    let want = target.unwrap_or("gfx90a");
    let agent = agent_target_id(want)?;
    // The program file as the loader finds it (a bare name is on PATH).
    let file = if prog.components().count() > 1 {
        Some(prog.to_path_buf())
    } else {
        std::env::var_os("PATH").and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(prog))
                .find(|f| f.is_file())
        })
    };
    let Some(file) = file else { return Ok(()) };
    let Ok(input) = crate::input::Input::open(&file) else {
        return Ok(());
    };
    let Ok(objects) = crate::objects::code_objects(&input, None, lathe_bundle::Policy::Clang)
    else {
        return Ok(());
    };
    let targets: Vec<lathe_bundle::TargetId> = objects
        .iter()
        .filter_map(|o| lathe_codeobj::CodeObject::parse(&o.bytes).ok()?.target())
        .collect();
    if targets.is_empty()
        || targets
            .iter()
            .any(|t| lathe_loader::compatible(t, &agent, false).is_ok())
    {
        return Ok(());
    }
    let mut names: Vec<String> = targets.iter().map(ToString::to_string).collect();
    names.sort();
    names.dedup();
    let generic = agent
        .processor
        .generic()
        .map(|g| format!(" or {}", g.name()))
        .unwrap_or_default();
    bail!(
        "{} holds GPU code for {} only; the modelled agent {agent} (--target {want}) needs code for {}{generic}: rebuild it with --offload-arch={} or choose a --target it was built for",
        prog.display(),
        names.join(", "),
        agent.processor.name(),
        agent.processor.name()
    )
}

/// How long the program has, after the first forwarded signal, to report
/// and exit before it is killed (its runtime waits up to 10 s for the
/// running kernel to stop).
const GRACE: std::time::Duration = std::time::Duration::from_secs(15);

/// Kills the program if it outlives a forwarded signal by [`GRACE`].
fn escalate(pid: u32, done: &std::sync::atomic::AtomicBool) {
    use std::sync::atomic::Ordering;
    while !done.load(Ordering::Acquire) {
        if signals::since_signal().is_some_and(|d| d > GRACE) {
            eprintln!(
                "lathe: the program did not exit within {} s of the signal; killing it",
                GRACE.as_secs()
            );
            // SAFETY: kill(2) on our child, which has not been reaped
            // (`done` is set only after `wait` returned).
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// The program's `TMPDIR`: `lathe-exec-PID` under the temporary
/// directory. On drop, Comgr's `comgr-*` leftovers are removed, then the
/// directory if nothing else is in it (anything else the program left is
/// kept, and named).
struct RunTmp(PathBuf);

impl RunTmp {
    fn new() -> Option<RunTmp> {
        let d = std::env::temp_dir().join(format!("lathe-exec-{}", std::process::id()));
        std::fs::create_dir_all(&d).ok()?;
        Some(RunTmp(d))
    }
}

impl Drop for RunTmp {
    fn drop(&mut self) {
        let Ok(rd) = std::fs::read_dir(&self.0) else {
            return;
        };
        let mut kept = 0;
        for e in rd.flatten() {
            if e.file_name().to_string_lossy().starts_with("comgr-") {
                let _ = std::fs::remove_dir_all(e.path());
            } else {
                kept += 1;
            }
        }
        if kept == 0 {
            let _ = std::fs::remove_dir(&self.0);
        } else {
            eprintln!(
                "lathe: the program left {kept} file(s) in its temporary directory {} (kept)",
                self.0.display()
            );
        }
    }
}

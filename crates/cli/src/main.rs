//! The `lathe` command: inspect, extract and disassemble AMD GPU code objects,
//! bundles and HIP host binaries. Library crates return typed errors; this
//! binary adds context (which file, which bundle, which entry) with `anyhow`.

mod bundle_cmd;
mod cfg_cmd;
mod disasm_cmd;
mod exec_check;
mod exec_cmd;
mod info_cmd;
mod input;
mod instrument_cmd;
mod objects;
mod output;
mod replay_cmd;
mod replay_instr;
mod replay_place;
mod run_cmd;
mod signals;
mod spirv_info;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, FromArgMatches, Parser, Subcommand, ValueEnum};

/// Lathe: inspect, extract, disassemble and run AMD GPU code objects, with or without an AMD GPU.
#[derive(Debug, Parser)]
#[command(name = "lathe", version, about, long_about = None)]
struct Cli {
    /// Print machine-readable JSON instead of text.
    #[arg(long, global = true)]
    json: bool,
    /// No progress bar on stderr.
    #[arg(long, short = 'q', global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Summarise a code object, bundle or HIP host binary: bundles, kernels with
    /// descriptor and metadata, device functions, variables, and the host
    /// handle → kernel map. Without FILE, shows the embedded demo library.
    Info(Lazy<InfoArgs>),
    /// Clang offload bundles: list, extract, pack.
    #[command(subcommand)]
    Bundle(BundleCmd),
    /// Disassemble kernels and device functions.
    Disasm(Lazy<DisasmArgs>),
    /// Run a kernel (or a sequence of kernels) on the emulator (no GPU needed).
    Run(Lazy<RunArgs>),
    /// Run an unmodified HIP program with its kernels on the emulator: `lathe exec -- ./app args…`.
    Exec(Lazy<exec_cmd::ExecArgs>),
    /// Replay a dispatch captured by `lathe exec --capture` on the emulator and compare memory with the capture.
    Replay(Lazy<replay_cmd::ReplayArgs>),
    /// Control-flow graph, call graph and live registers of a kernel.
    Cfg(Lazy<CfgArgs>),
    /// Write a code object instrumented with a built-in tool.
    Instrument(Lazy<InstrumentArgs>),
}

/// A subcommand's arguments, added to its `clap::Command` only when that
/// subcommand is parsed or its help shown (`Command::defer`), not at every
/// start: building every subcommand's arguments cost `lathe disasm` on a
/// small code object a tenth of its run (D58). The subcommand's `about`
/// (the variant's doc comment) is kept over any the arguments' struct sets.
#[derive(Debug)]
struct Lazy<T>(T);

impl<T: FromArgMatches> FromArgMatches for Lazy<T> {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(m).map(Lazy)
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(m)
    }
}

impl<T: Args> Args for Lazy<T> {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.defer(|c| keep_about(c, T::augment_args))
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        cmd.defer(|c| keep_about(c, T::augment_args_for_update))
    }

    fn group_id() -> Option<clap::Id> {
        T::group_id()
    }
}

/// `add(cmd)` with `cmd`'s about texts as they were.
fn keep_about(cmd: clap::Command, add: fn(clap::Command) -> clap::Command) -> clap::Command {
    use clap::builder::Resettable;
    let keep = |t: Option<&clap::builder::StyledStr>| {
        t.cloned().map_or(Resettable::Reset, Resettable::Value)
    };
    let (about, long) = (keep(cmd.get_about()), keep(cmd.get_long_about()));
    add(cmd).about(about).long_about(long)
}

#[derive(Debug, Args)]
struct CfgArgs {
    /// Code object, bundle or host binary.
    file: PathBuf,
    /// Kernel or device function (mangled or plain name).
    #[arg(long)]
    kernel: String,
    /// text, dot (Graphviz) or json.
    #[arg(long, default_value = "text")]
    format: String,
    /// Target ID selecting the code object of a bundle.
    #[arg(long)]
    target: Option<String>,
}

#[derive(Debug, Args)]
struct InstrumentArgs {
    /// Code object, bundle or host binary (one code object after --target).
    file: PathBuf,
    /// Built-in tool: instr-count, block-count, opcode-hist, kernarg, mem-trace.
    #[arg(long)]
    tool: String,
    /// Only kernels whose name matches this regex.
    #[arg(long)]
    kernel: Option<String>,
    /// Target ID selecting the code object of a bundle.
    #[arg(long)]
    target: Option<String>,
    /// Output code object.
    #[arg(long, short = 'o')]
    output: PathBuf,
}

#[derive(Debug, Args)]
struct RunArgs {
    /// Code object, bundle or host binary holding the kernel.
    file: PathBuf,
    /// Kernel: mangled or demangled name (as `info` prints it), plain name,
    /// or an unambiguous prefix of one.
    #[arg(long)]
    kernel: Option<String>,
    /// Grid size in work-items, as HSA counts it: X[,Y[,Z]] (see --blocks).
    #[arg(long)]
    grid: Option<String>,
    /// Grid size in work-groups, as HIP's <<<blocks, threads>>> counts it:
    /// X[,Y[,Z]] (the grid is --blocks times --block work-items).
    #[arg(long, conflicts_with = "grid")]
    blocks: Option<String>,
    /// Work-group size: X[,Y[,Z]].
    #[arg(long)]
    block: Option<String>,
    /// Kernel arguments in order: `TYPE:VALUE` (i8 u8 i16 u16 i32 u32 i64
    /// u64 f16 f32 f64) or `buf:NAME:SIZE[:FILL][:out=PATH]` /
    /// `buf:NAME:@FILE[:out=PATH]`. FILL is one of: zero (default),
    /// iota_u32, iota_f32, random_u32 (fixed seed), byte:N, u32:N, f32:X.
    #[arg(long = "arg", short = 'a')]
    args: Vec<String>,
    /// A JSON launch spec, or a sequence of launches sharing buffers
    /// (`{"launches": [...]}`; see README). Command-line options override a
    /// single launch.
    #[arg(long)]
    spec: Option<PathBuf>,
    /// Agent target ID (default gfx90a).
    #[arg(long, short = 't')]
    target: Option<String>,
    /// Code-object selection policy (default clang).
    #[arg(long, value_enum)]
    policy: Option<PolicyArg>,
    /// Set a device global (`__device__` or `__managed__` variable) before
    /// the run: NAME=TYPE:V[,V...] or NAME=@FILE (repeatable).
    #[arg(long = "set")]
    set: Vec<String>,
    /// After the run, print a buffer or device global as typed values, or
    /// write it: NAME[:TYPE][:out=PATH] (TYPE as for scalars, or hex;
    /// default hex). Repeatable.
    #[arg(long = "dump")]
    dump: Vec<String>,
    /// After the run, compare a buffer or device global with a file's bytes:
    /// NAME=FILE; exit non-zero on a difference (repeatable).
    #[arg(long = "expect")]
    expect: Vec<String>,
    /// Dynamic LDS bytes.
    #[arg(long)]
    dynamic_lds: Option<u32>,
    /// Host threads (0: all cores).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Do not stop when the kernel uses a memory result before the
    /// `s_waitcnt` that guarantees it (the check is on by default).
    #[arg(long)]
    no_waitcnt_check: bool,
    /// Watchdog: stop a dispatch still running after this many seconds and
    /// report where each unfinished wave is (0: no limit).
    #[arg(long, default_value_t = lathe_emu::run::DEFAULT_TIMEOUT.as_secs_f64())]
    timeout: f64,
    /// Run instrumented with a built-in tool (instr-count, block-count,
    /// opcode-hist, kernarg, mem-trace), or a tool written in HIP: a
    /// directory with tool.json and tool.hip, or a manifest path
    /// (examples/tools/).
    #[arg(long)]
    tool: Option<String>,
    /// Write the tool's result (JSON) here; mem-trace also writes
    /// PATH.csv and PATH.perfetto.json (with PATH's extension replaced).
    #[arg(long)]
    tool_out: Option<PathBuf>,
    /// Run the sanitizer, as `lathe exec --check` does: a comma-separated
    /// list of memcheck, initcheck, racecheck, synccheck or all; the exit
    /// status is 66 when anything was found.
    #[arg(long, value_name = "LIST", conflicts_with = "tool")]
    check: Option<String>,
    /// Write the sanitizer's findings as a JSON array to PATH.
    #[arg(long, value_name = "PATH", requires = "check")]
    check_json: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct InfoArgs {
    /// Code object, bundle (plain or CCOB) or host ELF; default: embedded demo.
    file: Option<PathBuf>,
    /// Only code objects compatible with this target ID (e.g. gfx90a:xnack-,
    /// or clang-offload-bundler's hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-);
    /// repeatable.
    #[arg(long = "target", short = 't')]
    target: Vec<String>,
    /// Selection policy used with --target (default clang).
    #[arg(long, value_enum)]
    policy: Option<PolicyArg>,
    /// Only this kernel: mangled or demangled name, plain name, or an
    /// unambiguous prefix of one.
    #[arg(long)]
    kernel: Option<String>,
}

#[derive(Debug, Subcommand)]
enum BundleCmd {
    /// List every bundle in FILE: index, location, compression and entry IDs.
    List {
        /// Bundle file, CCOB file, host executable/.so/.o, or code object.
        file: PathBuf,
    },
    /// Write the selected code object of every bundle in FILE into DIR.
    Extract(Lazy<ExtractArgs>),
    /// Write a bundle (plain or compressed) from code objects.
    Pack(Lazy<PackArgs>),
}

#[derive(Debug, Args)]
struct ExtractArgs {
    /// Bundle file, CCOB file or host binary.
    file: PathBuf,
    /// Agent target ID(s) to select for, e.g. gfx90a:xnack- (repeatable).
    #[arg(long = "target", short = 't', required_unless_present = "all")]
    targets: Vec<String>,
    /// How code objects are matched to the target.
    #[arg(long, value_enum, default_value_t = PolicyArg::Clang)]
    policy: PolicyArg,
    /// Write every entry of every bundle, not a selection.
    #[arg(long)]
    all: bool,
    /// Say why each entry was taken or refused.
    #[arg(long)]
    explain: bool,
    /// Output directory (created if missing).
    #[arg(long, short = 'o')]
    output: PathBuf,
}

#[derive(Debug, Args)]
struct PackArgs {
    /// Entries as ID=FILE, e.g. hipv4-amdgcn-amd-amdhsa--gfx90a=k.co (repeatable).
    /// A host entry with no file is added automatically unless --no-host.
    #[arg(long = "entry", short = 'e', required = true)]
    entries: Vec<String>,
    /// Do not add the empty host entry clang emits.
    #[arg(long)]
    no_host: bool,
    /// Compress as CCOB with this method.
    #[arg(long, value_enum)]
    compress: Option<CompressArg>,
    /// CCOB format version (2 or 3; default 3). Needs --compress.
    #[arg(long, value_parser = clap::value_parser!(u16).range(2..=3))]
    ccob_version: Option<u16>,
    /// Pack entries even if they are not code objects or their e_flags
    /// disagree with their ID.
    #[arg(long)]
    force: bool,
    /// Output bundle file.
    #[arg(long, short = 'o')]
    output: PathBuf,
}

#[derive(Debug, Args)]
struct DisasmArgs {
    /// Code objects, bundles (plain or CCOB) or host binaries.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Only this kernel or device function: mangled or demangled name (as
    /// `info` prints it), plain name, or an unambiguous prefix of one.
    #[arg(long)]
    kernel: Option<String>,
    /// Target ID to select from bundles (default: every gfx9 code object).
    #[arg(long, short = 't')]
    target: Option<String>,
    /// Selection policy used with --target (default clang).
    #[arg(long, value_enum)]
    policy: Option<PolicyArg>,
    /// Output style.
    #[arg(long, value_enum, default_value_t = FormatArg::Lathe)]
    format: FormatArg,
    /// Write to this file instead of stdout.
    #[arg(long, short = 'o')]
    output: Option<PathBuf>,
    /// Formatting threads for large code sections (0: all cores). One by
    /// default: on a busy machine more threads cost more than they save.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Interleave source lines (`; file:line:column in function`, with
    /// `inlined into` lines) from the DWARF of a `-g` build.
    #[arg(long)]
    source: bool,
}

/// Code-object selection policy.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum PolicyArg {
    /// Only entries whose target ID equals the requested one.
    Exact,
    /// clang-offload-bundler's rules (features any/on/off), plus generic targets.
    Clang,
    /// clang's rules plus extended ISA compatibility (e.g. gfx1031 runs gfx1030 code).
    Extended,
}

/// CCOB compression method.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum CompressArg {
    /// zlib (method 0).
    Zlib,
    /// zstd (method 1).
    Zstd,
}

/// Disassembly output style.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum FormatArg {
    /// Lathe's listing: addresses, labels for branch targets.
    Lathe,
    /// Line for line what `llvm-objdump -d --no-show-raw-insn --no-leading-addr` prints.
    Llvm,
}

/// The command line of the most common short run, `lathe [-q] disasm
/// [--format llvm|lathe] FILE...` (each option at most once, no other
/// options, files not starting with `-`), read without clap; anything else
/// is `None` and goes to clap. Building clap's command tree and parsing
/// with it cost a `lathe disasm` of a small code object about a tenth of
/// its run: heap and stack pages touched for the first time, code paged
/// in (D58). `tests::the_quick_path_reads_what_clap_reads` holds the two
/// to the same result.
fn quick_cli(args: &[std::ffi::OsString]) -> Option<Cli> {
    let mut quiet = false;
    let mut format = None;
    let mut disasm = false;
    let mut files = Vec::new();
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        match a.to_str() {
            Some("-q" | "--quiet") if !quiet => quiet = true,
            Some("disasm") if !disasm && files.is_empty() => disasm = true,
            Some("--format") if disasm && format.is_none() => {
                format = Some(match it.next()?.to_str()? {
                    "llvm" => FormatArg::Llvm,
                    "lathe" => FormatArg::Lathe,
                    _ => return None,
                });
            }
            _ if disasm && !a.is_empty() && !a.as_encoded_bytes().starts_with(b"-") => {
                files.push(PathBuf::from(a));
            }
            _ => return None,
        }
    }
    if files.is_empty() {
        return None;
    }
    Some(Cli {
        json: false,
        quiet,
        command: Command::Disasm(Lazy(DisasmArgs {
            files,
            kernel: None,
            target: None,
            policy: None,
            format: format.unwrap_or(FormatArg::Lathe),
            output: None,
            threads: 1,
            source: false,
        })),
    })
}

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let cli = quick_cli(&args).unwrap_or_else(|| Cli::parse_from(args));
    let ctx = output::Ctx {
        json: cli.json,
        progress: !cli.quiet,
    };
    let result = match cli.command {
        Command::Info(a) => info_cmd::run(&ctx, a.0),
        Command::Bundle(BundleCmd::List { file }) => bundle_cmd::list(&ctx, &file),
        Command::Bundle(BundleCmd::Extract(a)) => bundle_cmd::extract(&ctx, a.0),
        Command::Bundle(BundleCmd::Pack(a)) => bundle_cmd::pack(&ctx, a.0),
        Command::Disasm(a) => disasm_cmd::run_all(&ctx, a.0),
        Command::Run(a) => run_cmd::run(&ctx, a.0),
        Command::Cfg(a) => cfg_cmd::run(&ctx, a.0),
        Command::Instrument(a) => instrument_cmd::run(&ctx, a.0),
        Command::Exec(a) => exec_cmd::run(&ctx, a.0),
        Command::Replay(a) => replay_cmd::run(&ctx, a.0),
    };
    // A run stopped by SIGINT/SIGTERM exits as a shell reports a process
    // the signal killed, after saying why (lathe run).
    let by_signal = signals::received().map(|s| ExitCode::from((128 + s) as u8));
    match result {
        Ok(()) => by_signal.unwrap_or(ExitCode::SUCCESS),
        Err(e) => {
            if e.downcast_ref::<output::BrokenPipe>().is_some() {
                // As a process that SIGPIPE killed (`lathe … | head`).
                return ExitCode::from(128 + 13);
            }
            let chain = error_chain(&e);
            if cli.json {
                let mut j = serde_json::json!({"error": chain.join(": "), "causes": chain});
                if let Some(n) = e
                    .chain()
                    .find_map(|c| c.downcast_ref::<lathe_codeobj::names::NameError>())
                {
                    j["candidates"] = n
                        .candidates()
                        .iter()
                        .map(
                            |c| serde_json::json!({"mangled": c.mangled, "demangled": c.demangled}),
                        )
                        .collect();
                }
                let _ = output::print_json(&j);
            } else {
                eprintln!("lathe: error: {}", chain.join(": "));
            }
            by_signal.unwrap_or(ExitCode::FAILURE)
        }
    }
}

/// The messages of an error and its causes, without a cause whose text the
/// message before it already contains (library errors often print their
/// source, and anyhow would print it again).
fn error_chain(e: &anyhow::Error) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in e.chain() {
        let m = c.to_string();
        if out.last().is_some_and(|prev| prev.contains(&m)) {
            continue;
        }
        out.push(m);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<std::ffi::OsString> {
        s.split_whitespace().map(Into::into).collect()
    }

    /// The quick path gives what clap gives, option for option, on the
    /// command lines it takes; the others it leaves to clap.
    #[test]
    fn the_quick_path_reads_what_clap_reads() {
        for line in [
            "lathe disasm a.co",
            "lathe -q disasm a.co",
            "lathe --quiet disasm --format llvm a.co b.co",
            "lathe disasm -q --format lathe a.co",
            "lathe disasm --format llvm a.co -q",
            "lathe disasm a.co --format llvm b.co",
            "lathe disasm disasm",
        ] {
            let quick = quick_cli(&argv(line)).unwrap_or_else(|| panic!("{line}: not taken"));
            let clap = Cli::try_parse_from(argv(line)).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert_eq!(format!("{quick:?}"), format!("{clap:?}"), "{line}");
        }
        for line in [
            "lathe",
            "lathe disasm",
            "lathe -q -q disasm a.co",
            "lathe disasm --format llvm",
            "lathe disasm --format=llvm a.co",
            "lathe disasm --format intel a.co",
            "lathe disasm --format llvm --format llvm a.co",
            "lathe disasm --kernel k a.co",
            "lathe disasm --json a.co",
            "lathe disasm a.co --threads 2",
            "lathe disasm -- -a.co",
            "lathe disasm --help",
            "lathe a.co disasm",
            "lathe info a.co",
        ] {
            assert!(quick_cli(&argv(line)).is_none(), "{line}: taken");
        }
    }
}

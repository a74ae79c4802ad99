#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Root of the workspace (the directory holding the top-level `Cargo.toml`).
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.ancestors()
        .nth(2)
        .expect("testkit lives at crates/testkit")
        .to_path_buf()
}

/// Directory for cached build products (`target/lathe-cache`).
pub fn cache_dir() -> PathBuf {
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"))
        .join("lathe-cache");
    std::fs::create_dir_all(&dir).expect("create cache dir");
    dir
}

/// The directory holding LLVM 22's binaries.
pub const LLVM_BIN: &str = "/usr/lib/llvm-22/bin";

/// Path of an LLVM 22 tool (`clang++`, `llvm-objdump`, `llvm-readelf`,
/// `clang-offload-bundler`, `llvm-mc`, ...). Panics if it is not installed.
pub fn llvm_tool(name: &str) -> PathBuf {
    let p = Path::new(LLVM_BIN).join(name);
    assert!(
        p.exists(),
        "{} not found: run scripts/setup.sh (installs clang-22 llvm-22 lld-22)",
        p.display()
    );
    p
}

/// A fresh path next to `out`, unique to this process and call, for writing
/// a cached file before [`publish`] renames it into place. Tests of one
/// binary run on parallel threads and share the cache: writing `out` in
/// place would let another thread read it half-written, and a run killed
/// mid-write would leave a truncated file that later runs trust.
pub fn tmp_beside(out: &Path) -> PathBuf {
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut name = out.file_name().expect("file name").to_os_string();
    name.push(format!(".tmp{}-{seq}", std::process::id()));
    out.with_file_name(name)
}

/// Renames a finished temporary file (from [`tmp_beside`]) to `out`
/// atomically: readers see either no file or the whole file.
pub fn publish(tmp: &Path, out: &Path) {
    std::fs::rename(tmp, out)
        .unwrap_or_else(|e| panic!("rename {} to {}: {e}", tmp.display(), out.display()));
}

/// Writes `bytes` to the cache path `out` unless it already exists, through
/// a temporary file and a rename (see [`tmp_beside`]).
pub fn write_cached(out: &Path, bytes: &[u8]) {
    if out.exists() {
        return;
    }
    let tmp = tmp_beside(out);
    std::fs::write(&tmp, bytes).unwrap_or_else(|e| panic!("write {}: {e}", tmp.display()));
    publish(&tmp, out);
}

/// Runs a command, panicking with its stderr if it fails; returns stdout.
pub fn run(cmd: &mut Command) -> Vec<u8> {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Builds the HIP source `src` into a bare code object for `arch` at
/// `out` (`hipcc -O2 --cuda-device-only --no-gpu-bundle-output`),
/// panicking with hipcc's stderr if it fails.
pub fn hip_code_object(src: &Path, out: &Path, arch: &str) {
    run(Command::new("hipcc")
        .arg(format!("--offload-arch={arch}"))
        .args([
            "-O2",
            "--cuda-device-only",
            "-c",
            "--no-gpu-bundle-output",
            "-o",
        ])
        .arg(out)
        .arg(src));
}

/// Compiles the C program `src` (HSA API, ROCm's headers) with gcc at
/// `out`, linked against the runtime in `runtime_dir`, which must hold it
/// as `libhsa-runtime64.so.1` (the name ROCm's programs link against);
/// `extra` goes before the libraries. Panics with gcc's stderr if it fails.
pub fn gcc_hsa_program(src: &Path, out: &Path, runtime_dir: &Path, extra: &[&str]) {
    run(Command::new("gcc")
        .args(["-O1", "-g", "-Wall", "-Werror", "-I/usr/include/hsa", "-o"])
        .arg(out)
        .arg(src)
        .args(extra)
        .arg("-L")
        .arg(runtime_dir)
        .args(["-l:libhsa-runtime64.so.1", "-lpthread"]));
}

/// Runs a command and returns stdout as a string.
pub fn run_text(cmd: &mut Command) -> String {
    String::from_utf8(run(cmd)).expect("tool printed UTF-8")
}

/// Corpus source directory (`corpus/hip`).
pub fn corpus_src(name: &str) -> PathBuf {
    let p = workspace_root().join("corpus/hip").join(name);
    assert!(p.exists(), "no corpus source {}", p.display());
    p
}

/// Offload compression settings for `--offload-compress`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Compress {
    /// `COMPRESSED_BUNDLE_FORMAT_VERSION` (2 or 3).
    pub version: u32,
    /// `zlib` or `zstd`, passed as `OFFLOAD_BUNDLER_COMPRESSION`. Note:
    /// clang-22's driver ignores it and always uses zstd, so zlib CCOBs come
    /// only from Lathe's own writer (`lathe bundle pack --compress zlib`).
    pub method: &'static str,
}

/// What clang should produce.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Output {
    /// One bare AMDGPU ELF code object (`--cuda-device-only
    /// --no-gpu-bundle-output`); exactly one arch.
    CodeObject,
    /// A device-only offload bundle (`--cuda-device-only`).
    DeviceBundle,
    /// A host relocatable object with `.hip_fatbin` (`-c`).
    HostObject,
    /// A host shared library (`-shared -fPIC`), with `.hipFatBinSegment`
    /// relocated by `R_X86_64_RELATIVE`.
    SharedLib,
}

/// A corpus build request. Build products are cached by content and flags.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Build {
    /// Corpus sources (file names under `corpus/hip`).
    pub sources: Vec<&'static str>,
    /// `--offload-arch` values.
    pub archs: Vec<&'static str>,
    /// Optimisation flag such as `-O3`.
    pub opt: &'static str,
    /// `-fgpu-rdc`.
    pub rdc: bool,
    /// `--offload-compress` with the given settings.
    pub compress: Option<Compress>,
    /// What to produce.
    pub output: Output,
    /// Extra clang flags.
    pub extra: Vec<&'static str>,
}

impl Build {
    /// A build of one source for the given archs, `-O3`, no rdc, no compression.
    pub fn new(source: &'static str, archs: &[&'static str], output: Output) -> Self {
        Build {
            sources: vec![source],
            archs: archs.to_vec(),
            opt: "-O3",
            rdc: false,
            compress: None,
            output,
            extra: Vec::new(),
        }
    }

    /// Compiles (or reuses the cached result) and returns the output path.
    pub fn build(&self) -> PathBuf {
        let mut h = DefaultHasher::new();
        self.hash(&mut h);
        for s in &self.sources {
            std::fs::read(corpus_src(s))
                .expect("read source")
                .hash(&mut h);
        }
        // Every header in corpus/include, in name order.
        let mut headers: Vec<PathBuf> = std::fs::read_dir(workspace_root().join("corpus/include"))
            .expect("read corpus/include")
            .flatten()
            .map(|e| e.path())
            .collect();
        headers.sort();
        for p in headers {
            p.file_name().hash(&mut h);
            std::fs::read(&p).expect("read header").hash(&mut h);
        }
        let stem = self.sources[0].trim_end_matches(".hip");
        let ext = match self.output {
            Output::CodeObject => "co",
            Output::DeviceBundle => "bundle",
            Output::HostObject => "o",
            Output::SharedLib => "so",
        };
        let out = cache_dir().join(format!("{stem}-{:016x}.{ext}", h.finish()));
        if out.exists() {
            return out;
        }
        // Unique per process, thread and call, so concurrent builds of the
        // same product never share a temporary file.
        static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = out.with_extension(format!("{ext}.tmp{}-{seq}", std::process::id()));
        let mut cmd = Command::new(llvm_tool("clang++"));
        cmd.args(["-x", "hip", "-nogpuinc", "-nogpulib", self.opt]);
        cmd.arg("-I").arg(workspace_root().join("corpus/include"));
        for a in &self.archs {
            cmd.arg(format!("--offload-arch={a}"));
        }
        if self.rdc {
            cmd.arg("-fgpu-rdc");
        }
        match self.output {
            Output::CodeObject => {
                assert_eq!(self.archs.len(), 1, "a bare code object has one arch");
                cmd.args(["--cuda-device-only", "--no-gpu-bundle-output"]);
                if self.rdc {
                    // `-fgpu-rdc -c` alone emits bitcode; ask for an
                    // ET_REL AMDGPU ELF object instead.
                    cmd.args(["-c", "-Xclang", "-emit-obj"]);
                }
            }
            Output::DeviceBundle => {
                cmd.arg("--cuda-device-only");
                if self.rdc {
                    cmd.arg("-c");
                }
            }
            Output::HostObject => {
                cmd.arg("-c");
            }
            Output::SharedLib => {
                cmd.args(["-shared", "-fPIC"]);
            }
        }
        if let Some(c) = self.compress {
            cmd.arg("--offload-compress");
            cmd.env("COMPRESSED_BUNDLE_FORMAT_VERSION", c.version.to_string());
            cmd.env("OFFLOAD_BUNDLER_COMPRESSION", c.method);
        }
        cmd.args(&self.extra);
        for s in &self.sources {
            cmd.arg(corpus_src(s));
        }
        cmd.arg("-o").arg(&tmp);
        run(&mut cmd);
        std::fs::rename(&tmp, &out).expect("rename build output");
        out
    }
}

/// Links AMDGPU relocatable objects (from `Output::CodeObject` with `rdc`)
/// into one shared code object with `ld.lld -shared`, cached like builds.
/// Undefined symbols are allowed: the loader resolves them against other
/// code objects.
pub fn link_shared(objects: &[PathBuf]) -> PathBuf {
    let mut h = DefaultHasher::new();
    for o in objects {
        std::fs::read(o).expect("read object").hash(&mut h);
    }
    let out = cache_dir().join(format!("linked-{:016x}.co", h.finish()));
    if out.exists() {
        return out;
    }
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let seq = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = out.with_extension(format!("co.tmp{}-{seq}", std::process::id()));
    run(Command::new(llvm_tool("ld.lld"))
        .arg("-shared")
        .args(objects)
        .arg("-o")
        .arg(&tmp));
    std::fs::rename(&tmp, &out).expect("rename link output");
    out
}

/// Assembles AMDGPU assembly `text` for `target` with clang-22 (`-x
/// assembler`) and links it alone with `ld.lld -shared` into a code object,
/// cached by the text as `{name}-{target}-{hash}.co`. The register use and
/// descriptor are exactly what the text says (tests that need a precise
/// kernel write it in assembly).
pub fn assemble_shared(target: &str, name: &str, text: &str) -> PathBuf {
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    let co = cache_dir().join(format!("{name}-{target}-{:016x}.co", h.finish()));
    if co.exists() {
        return co;
    }
    let s = tmp_beside(&co.with_extension("s"));
    let o = tmp_beside(&co.with_extension("o"));
    std::fs::write(&s, text).unwrap_or_else(|e| panic!("write {}: {e}", s.display()));
    run(Command::new(llvm_tool("clang"))
        .args(["-x", "assembler", "-target", "amdgcn-amd-amdhsa"])
        .arg(format!("-mcpu={target}"))
        .arg("-c")
        .arg(&s)
        .arg("-o")
        .arg(&o));
    let tmp = tmp_beside(&co);
    run(Command::new(llvm_tool("ld.lld"))
        .arg("-shared")
        .arg(&o)
        .arg("-o")
        .arg(&tmp));
    let _ = std::fs::remove_file(&s);
    let _ = std::fs::remove_file(&o);
    publish(&tmp, &co);
    co
}

/// Directory with the extracted `.so` files of the `jax-rocm7-plugin` wheel,
/// or `None` if `scripts/setup.sh` has not downloaded it.
pub fn jax_plugin_dir() -> Option<PathBuf> {
    let dir = workspace_root().join(".cache/jax-rocm7-plugin");
    dir.join("jax_rocm7_plugin").exists().then_some(dir)
}

/// All `.so` files of the jax wheel (recursively), sorted. Empty if absent.
pub fn jax_plugin_libs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(d) = jax_plugin_dir() {
        collect_so(&d, &mut out);
    }
    out.sort();
    out
}

fn collect_so(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_so(&p, out);
        } else if p
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(".so") || n.contains(".so."))
        {
            out.push(p);
        }
    }
}

/// True when tests that need the jax wheel must not be skipped (set in CI by
/// `.ci/run`): a missing wheel is then a failure, not a skip.
pub fn require_external() -> bool {
    std::env::var_os("LATHE_REQUIRE_EXTERNAL").is_some()
}

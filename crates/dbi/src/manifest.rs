//! HIP tools: a directory with `tool.hip` (the hooks, `extern "C"
//! __device__` functions, and the `__device__` variables they fill) and
//! `tool.json` (the manifest), compiled by clang-22 into a *tool code
//! object* that is loaded next to the instrumented kernel's code object
//! ([`crate::hook`] calls into it).
//!
//! ```json
//! {
//!   "hooks": [
//!     {"at": "before", "opcode": "^global_load", "hook": "on_load",
//!      "args": ["pc", "vaddr"]}
//!   ],
//!   "report": [{"var": "loads", "type": "u64"},
//!              {"var": "grid_dim", "type": "u32", "count": 3}],
//!   "line": "GridDim (HIP): ({grid_dim[0]}, {grid_dim[1]}, {grid_dim[2]})."
//! }
//! ```
//!
//! **Hooks.** `at`: `before`, `after`, `block-entry`, `block-exit`,
//! `kernel-entry`, `endpgm`, `function-entry`, `function-return`
//! ([`crate::rewrite::Where`]). Selection: `opcode` (regex on the
//! mnemonic), `class` (`salu`, `valu`, `smem`, `vmem`, `lds`, `memory`,
//! `branch`, `exec-write`), `kernel` (regex), and `where`:
//! `"first-block-last"` keeps only the last instruction of each kernel's
//! first basic block (with `at: before`: the seed-002 placement). `args`:
//! the [`crate::hook::Arg`] vocabulary — `site`, `opcode`, `pc` (u64),
//! `block_insts`, `segment_insts`, `lane`, `exec` (u64), `vaddr` (u64), `v<N>`, `s<N>`,
//! `const:<N>`, `grid_dim_x|y|z`, `block_dim_x|y|z`, `kernarg:<offset>`,
//! `kernarg64:<offset>` (u64); everything else is u32. The hook's C
//! parameters must match in number and size (checked against `tool.hip`,
//! against the manifest's optional `types`, and against the argument
//! registers the compiled hook reads). `inactive_waves: true` also calls
//! the hook in waves with no active lane (lane 0, `exec` = 0).
//!
//! **Prebuilt objects.** `"object": "tool.co"` names a tool code object
//! built elsewhere (for one processor); it is used instead of compiling
//! `tool.hip` and refused for a kernel of another processor
//! ([`HookError::Target`]).
//!
//! **Report.** `report` lists the `__device__` variables the host reads
//! after each launch (`type` `u32`, `u64`, `i32` or `f32`; `count`
//! elements, default 1); `line` is an optional template printed after the
//! launch: `{var}` (the value, or the elements joined by `, `) and
//! `{var[i]}`.
//!
//! **Compiling** ([`HipTool::load`]): `clang++ -x hip -nogpuinc -nogpulib
//! -O3 -fgpu-rdc --cuda-device-only --no-gpu-bundle-output -c -Xclang
//! -emit-obj -fvisibility=default --offload-arch=<target> -I
//! <repo>/corpus/include`, then `ld.lld -shared`. Objects are cached by a
//! hash of the source, the target and the command under
//! `$XDG_CACHE_HOME/lathe/hip-tools` (else `~/.cache/lathe/hip-tools`),
//! written to a temporary file and renamed. `LATHE_CLANG`, `LATHE_LLD`
//! and `LATHE_HIP_INCLUDE` override the compiler, the linker and the
//! include directory.
//!
//! A tool that includes the HIP headers (`#include <hip/hip_runtime.h>`)
//! is compiled with them instead of `-nogpuinc -nogpulib`: plus
//! `-D__AMDGCN_WAVEFRONT_SIZE=64` on GFX9, 32 after; ROCm
//! 5.2's headers need it, clang 20+ no longer defines it) and the ROCm
//! device libraries (`--rocm-device-lib-path`, `LATHE_ROCM_DEVICE_LIB_PATH`
//! or the install directories, `-mcode-object-version=4` to match their
//! ABI), so its math and atomics link as under hipcc.
//!
//! **Runtime integration** (`lathe exec --tool PATH`):
//!
//! ```text
//! let tool = HipTool::load(path, "gfx90a")?;          // compiles or reuses the cache
//! let tool_co: &[u8] = tool.code_object();            // load it into the executable
//! let b = tool.instrument(kernel_co, Some("kern"))?;  // b.code_object replaces the kernel's
//! for (var, bytes) in tool.reset_values() { /* write before each launch */ }
//! let json = tool.report(&mut |var, len| read(var, len));
//! if let Some(line) = tool.report_line(&json) { println!("{line}") }
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use lathe_codeobj::CodeObject;
use regex::Regex;
use serde_json::Value;

use crate::hook::{self, Arg, ArgType, HookError, HookInfo, HookProbe, KernargSaver, KernelArgs};
use crate::lift::{FunctionKind, Program};
use crate::live::Liveness;
use crate::rewrite::{InstClass, Request, Selector, Site, Where};

/// A report variable's element type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VarType {
    /// Unsigned 32-bit.
    U32,
    /// Unsigned 64-bit.
    U64,
    /// Signed 32-bit.
    I32,
    /// IEEE single.
    F32,
}

impl VarType {
    fn parse(s: &str) -> Option<VarType> {
        Some(match s {
            "u32" => VarType::U32,
            "u64" => VarType::U64,
            "i32" => VarType::I32,
            "f32" => VarType::F32,
            _ => return None,
        })
    }
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            VarType::U64 => 8,
            _ => 4,
        }
    }
}

/// One report variable.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ReportVar {
    /// The `__device__` variable.
    pub var: String,
    /// Element type.
    pub ty: VarType,
    /// Elements.
    pub count: usize,
}

/// One hook of the manifest.
#[derive(Debug, Clone)]
pub struct HookSpec {
    /// Where.
    pub at: Where,
    /// Opcode regex.
    pub opcode: Option<Regex>,
    /// Class.
    pub class: Option<InstClass>,
    /// Kernel regex.
    pub kernel: Option<Regex>,
    /// Only the last instruction of each kernel's first block.
    pub first_block_last: bool,
    /// The hook function.
    pub hook: String,
    /// Arguments.
    pub args: Vec<Arg>,
    /// Also call the hook in waves with no active lane (in lane 0, the
    /// `exec` argument 0).
    pub inactive_waves: bool,
    /// The hook's parameter types as the manifest declares them
    /// (`"types"`), checked against `args` and the tool.
    pub types: Option<Vec<ArgType>>,
}

/// A parsed manifest.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// Hooks.
    pub hooks: Vec<HookSpec>,
    /// Report variables.
    pub report: Vec<ReportVar>,
    /// Report line template.
    pub line: Option<String>,
    /// The HIP source.
    pub source: PathBuf,
    /// A prebuilt tool code object (`"object"`), used instead of compiling
    /// the source (which, if present, still gives the hooks' parameter
    /// types).
    pub object: Option<PathBuf>,
}

impl Manifest {
    /// Parses manifest text (`path` names it in errors, and the source
    /// `tool.hip`, or the manifest's `"source"`, is beside it).
    pub fn parse(text: &str, path: &Path) -> Result<Manifest, HookError> {
        let bad = |why: String| HookError::Manifest {
            path: path.display().to_string(),
            why,
        };
        let v: Value = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
        let obj = v
            .as_object()
            .ok_or_else(|| bad("not a JSON object".into()))?;
        for k in obj.keys() {
            if !["hooks", "report", "line", "source", "object", "description"].contains(&k.as_str())
            {
                return Err(bad(format!("unknown key {k:?}")));
            }
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        let source = dir.join(
            obj.get("source")
                .and_then(Value::as_str)
                .unwrap_or("tool.hip"),
        );
        let mut hooks = Vec::new();
        let list = obj
            .get("hooks")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("\"hooks\" must be an array".into()))?;
        if list.is_empty() {
            return Err(bad("no hooks".into()));
        }
        for (i, h) in list.iter().enumerate() {
            let hb = |why: String| bad(format!("hooks[{i}]: {why}"));
            let h = h.as_object().ok_or_else(|| hb("not an object".into()))?;
            for k in h.keys() {
                if ![
                    "at",
                    "opcode",
                    "class",
                    "kernel",
                    "where",
                    "hook",
                    "args",
                    "inactive_waves",
                    "types",
                ]
                .contains(&k.as_str())
                {
                    return Err(hb(format!("unknown key {k:?}")));
                }
            }
            let s = |k: &str| h.get(k).and_then(Value::as_str);
            let at = match s("at").unwrap_or("before") {
                "before" => Where::Before,
                "after" => Where::After,
                "block-entry" => Where::BlockEntry,
                "block-exit" => Where::BlockExit,
                "kernel-entry" => Where::KernelEntry,
                "endpgm" => Where::BeforeEndpgm,
                "function-entry" => Where::FunctionEntry,
                "function-return" => Where::FunctionReturn,
                o => return Err(hb(format!("unknown \"at\" {o:?}"))),
            };
            let re = |k: &str| -> Result<Option<Regex>, HookError> {
                s(k).map(|p| Regex::new(p).map_err(|e| hb(format!("{k}: {e}"))))
                    .transpose()
            };
            let class = s("class")
                .map(|c| InstClass::parse(c).ok_or_else(|| hb(format!("unknown class {c:?}"))))
                .transpose()?;
            let first_block_last = match s("where") {
                None => false,
                Some("first-block-last") => true,
                Some(o) => return Err(hb(format!("unknown \"where\" {o:?}"))),
            };
            let hook = s("hook")
                .filter(|n| !n.is_empty())
                .ok_or_else(|| hb("missing \"hook\"".into()))?
                .to_string();
            let mut args = Vec::new();
            for a in h
                .get("args")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let n = a
                    .as_str()
                    .ok_or_else(|| hb("args must be strings".into()))?;
                args.push(Arg::parse(n).ok_or_else(|| hb(format!("unknown argument {n:?}")))?);
            }
            hooks.push(HookSpec {
                at,
                opcode: re("opcode")?,
                class,
                kernel: re("kernel")?,
                first_block_last,
                hook,
                args,
                types: h
                    .get("types")
                    .map(|v| -> Result<Vec<ArgType>, HookError> {
                        v.as_array()
                            .ok_or_else(|| hb("types must be an array".into()))?
                            .iter()
                            .map(|t| match t.as_str() {
                                Some("u32" | "i32" | "f32") => Ok(ArgType::U32),
                                Some("u64" | "i64" | "f64" | "ptr") => Ok(ArgType::U64),
                                _ => Err(hb(format!(
                                    "unsupported type {t} (u32, i32, f32, u64, i64, f64, ptr)"
                                ))),
                            })
                            .collect()
                    })
                    .transpose()?,
                inactive_waves: h
                    .get("inactive_waves")
                    .map(|v| {
                        v.as_bool()
                            .ok_or_else(|| hb("inactive_waves must be a boolean".into()))
                    })
                    .transpose()?
                    .unwrap_or(false),
            });
        }
        let mut report = Vec::new();
        for (i, r) in obj
            .get("report")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let rb = |why: String| bad(format!("report[{i}]: {why}"));
            let var = r
                .get("var")
                .and_then(Value::as_str)
                .ok_or_else(|| rb("missing \"var\"".into()))?
                .to_string();
            let t = r.get("type").and_then(Value::as_str).unwrap_or("u64");
            let ty = VarType::parse(t).ok_or_else(|| rb(format!("unknown type {t:?}")))?;
            let count = r.get("count").and_then(Value::as_u64).unwrap_or(1);
            if count == 0 || count > 1 << 20 {
                return Err(rb(format!("bad count {count}")));
            }
            report.push(ReportVar {
                var,
                ty,
                count: count as usize,
            });
        }
        Ok(Manifest {
            hooks,
            report,
            line: obj.get("line").and_then(Value::as_str).map(str::to_string),
            source,
            object: match obj.get("object") {
                None => None,
                Some(Value::String(o)) => Some(dir.join(o)),
                Some(_) => return Err(bad("\"object\" must be a path".into())),
            },
        })
    }

    /// Reads `dir_or_manifest` (a directory with `tool.json`, or the
    /// manifest file).
    pub fn read(dir_or_manifest: &Path) -> Result<Manifest, HookError> {
        if !dir_or_manifest.exists() {
            return Err(HookError::Manifest {
                path: dir_or_manifest.display().to_string(),
                why: "no such file or directory (a HIP tool is a directory with tool.json and tool.hip, or its tool.json)".into(),
            });
        }
        let path = if dir_or_manifest.is_dir() {
            dir_or_manifest.join("tool.json")
        } else {
            dir_or_manifest.to_path_buf()
        };
        let text = std::fs::read_to_string(&path).map_err(|source| HookError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Manifest::parse(&text, &path)
    }
}

/// The instrumented kernel code object of a HIP tool.
#[derive(Debug, Clone)]
pub struct HookBuild {
    /// The instrumented code object (its hook symbols are undefined: load
    /// it with [`HipTool::code_object`]).
    pub code_object: Vec<u8>,
    /// The hook sites (`request` counts the kernel-entry probe that keeps
    /// the kernarg pointer, when a hook reads kernel arguments).
    pub sites: Vec<Site>,
    /// Kernels left without probes, and why.
    pub skipped: Vec<(String, String)>,
    /// (new address, original address) of every original instruction.
    pub addr_map: Vec<(u64, u64)>,
    /// The lifted original program.
    pub program: Arc<Program>,
    /// Probe scratch given to each kernel (the hooks' stack).
    pub scratch: Vec<crate::rewrite::KernelScratch>,
    /// The relocations against the hooks (`R_AMDGPU_REL32_LO/HI` at
    /// addresses of the new code object), for a loader that does not apply
    /// [`crate::elfout::RELA_SECTION`]: each 32-bit field gets the low or
    /// high half of `hook address + addend - field address`.
    pub relocs: Vec<crate::elfout::Reloc>,
}

/// A compiled HIP tool.
#[derive(Debug, Clone)]
pub struct HipTool {
    /// The manifest.
    pub manifest: Manifest,
    /// Target processor.
    pub target: String,
    /// Lanes per wave the tool was built for (the kernels it instruments
    /// must have the same: [`HipTool::load_for`] picks it from them).
    pub wave: u32,
    code: Vec<u8>,
    infos: Vec<HookInfo>,
    /// Where the compiled object is cached.
    pub cache_path: PathBuf,
    /// Rewriter options for [`HipTool::instrument`] (lane mode, for
    /// testing it).
    pub rewrite: crate::rewrite::Options,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> HookError + '_ {
    move |source| HookError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// The cache directory for compiled tools.
pub fn cache_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("lathe").join("hip-tools")
}

fn llvm_tool(name: &str, env: &str) -> PathBuf {
    std::env::var_os(env)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/llvm-22/bin").join(name))
}

fn include_dir() -> PathBuf {
    std::env::var_os("LATHE_HIP_INCLUDE")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus/include"))
}

/// FNV-1a, 64 bits (a stable content hash for the cache).
fn fnv(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in *p {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// Whether a tool source includes the HIP headers (`#include
/// <hip/hip_runtime.h>` or any other `hip/` header).
fn includes_hip_headers(src: &str) -> bool {
    Regex::new(r#"(?m)^\s*#\s*include\s*[<"]hip/"#).is_ok_and(|re| re.is_match(src))
}

/// Where the ROCm device libraries (`oclc_isa_version_*.bc`, `ockl.bc`,
/// ...) are: `LATHE_ROCM_DEVICE_LIB_PATH`, else Debian's and ROCm's
/// install directories.
fn device_lib_dir() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("LATHE_ROCM_DEVICE_LIB_PATH").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    [
        "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
        "/opt/rocm/amdgcn/bitcode",
        "/opt/rocm/lib/llvm/lib/clang/amdgcn/bitcode",
        "/usr/lib/amdgcn/bitcode",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|d| d.join("ockl.bc").is_file())
}

/// The flags a tool that includes the HIP headers needs, besides those of
/// every tool: the HIP installation's headers (no `-nogpuinc`), the
/// wavefront size macro that ROCm 5.2's `amd_warp_functions.h` reads and
/// clang 20+ no longer defines, and the device libraries (math, atomics
/// helpers, `__assert_fail`'s `__ockl_*`), linked as hipcc links them —
/// with the code object version of their `oclc_abi_version_*.bc` (ROCm
/// 5.2 has 400 and 500, clang 22 defaults to 6): else `-nogpulib`, and
/// a call into them is an undefined symbol when the tool is loaded.
fn hip_header_args(target: &str, wave: u32) -> Vec<String> {
    let processor = target.split(':').next().unwrap_or(target);
    let mut a = vec![format!("-D__AMDGCN_WAVEFRONT_SIZE={wave}")];
    let isa = processor.trim_start_matches("gfx");
    let libs = device_lib_dir().filter(|d| {
        d.join(format!("oclc_isa_version_{isa}.bc")).is_file()
            && d.join("oclc_abi_version_400.bc").is_file()
    });
    match libs {
        Some(d) => {
            a.push(format!("--rocm-device-lib-path={}", d.display()));
            a.push("-mcode-object-version=4".into());
        }
        None => a.push("-nogpulib".into()),
    }
    a
}

/// The wave size clang builds for `target` by default: 64 on GFX9, 32
/// on GFX10 and later.
pub fn default_wave_size(target: &str) -> u32 {
    if target.starts_with("gfx9") {
        64
    } else {
        32
    }
}

/// The wave size of a kernel code object's kernels (their descriptors'
/// `ENABLE_WAVEFRONT_SIZE32`), if it has a kernel and names a processor.
pub fn kernel_wave_size(kernel_co: &[u8]) -> Option<u32> {
    let co = CodeObject::parse(kernel_co).ok()?;
    let arch = lathe_codeobj::KdArch::for_processor(co.target()?.processor);
    let syms = co.symbols().ok()?;
    syms.kernels()
        .iter()
        .find_map(|k| k.descriptor.as_ref().ok().map(|d| d.wavefront_size(arch)))
}

/// Compiles `source` for `target` into a shared tool code object (cached),
/// in the target's default wave size ([`default_wave_size`]).
pub fn compile(source: &Path, target: &str) -> Result<(Vec<u8>, PathBuf), HookError> {
    compile_wave(source, target, default_wave_size(target))
}

/// [`compile`] for kernels of `wave` lanes per wave: a hook runs in its
/// caller's wave, so a wave64 GFX10+ kernel's hooks are built with
/// `-mwavefrontsize64` (lane masks, `exec` width and the HIP headers'
/// `warpSize` follow it). GFX9 has wave64 only.
pub fn compile_wave(
    source: &Path,
    target: &str,
    wave: u32,
) -> Result<(Vec<u8>, PathBuf), HookError> {
    let dflt = default_wave_size(target);
    if !matches!((dflt, wave), (32, 32 | 64) | (64, 64)) {
        return Err(HookError::Compile {
            path: source.display().to_string(),
            target: target.to_string(),
            stderr: format!("{target} has no wave{wave} mode"),
        });
    }
    let text = std::fs::read(source).map_err(io(source))?;
    let inc = include_dir();
    let clang = llvm_tool("clang++", "LATHE_CLANG");
    let lld = llvm_tool("ld.lld", "LATHE_LLD");
    let src_dir = source.parent().unwrap_or(Path::new("."));
    let hip_headers = includes_hip_headers(&String::from_utf8_lossy(&text));
    let mut args: Vec<String> = ["-x", "hip"].iter().map(|s| s.to_string()).collect();
    if wave != dflt {
        args.push("-mwavefrontsize64".into());
    }
    if hip_headers {
        args.extend(hip_header_args(target, wave));
    } else {
        args.push("-nogpuinc".into());
        args.push("-nogpulib".into());
    }
    args.extend(
        [
            "-O3",
            "-fgpu-rdc",
            "--cuda-device-only",
            "--no-gpu-bundle-output",
            "-c",
            "-Xclang",
            "-emit-obj",
            "-fvisibility=default",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    args.push(format!("--offload-arch={target}"));
    args.push("-I".into());
    args.push(inc.display().to_string());
    args.push("-I".into());
    args.push(src_dir.display().to_string());
    // Headers the tool includes from its own directory or the corpus.
    let mut headers: Vec<u8> = Vec::new();
    for d in [src_dir, inc.as_path()] {
        if let Ok(rd) = std::fs::read_dir(d) {
            let mut names: Vec<PathBuf> = rd
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "h"))
                .collect();
            names.sort();
            for n in names {
                headers.extend(std::fs::read(&n).unwrap_or_default());
            }
        }
    }
    let h = fnv(&[
        &text,
        &headers,
        target.as_bytes(),
        args.join(" ").as_bytes(),
        clang.as_os_str().as_encoded_bytes(),
    ]);
    let dir = cache_dir();
    let stem = source
        .parent()
        .and_then(|p| p.file_name())
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "tool".into());
    let out = dir.join(format!("{stem}-{target}-{h:016x}.co"));
    if let Ok(b) = std::fs::read(&out) {
        return Ok((b, out));
    }
    std::fs::create_dir_all(&dir).map_err(io(&dir))?;
    let uniq = format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    );
    let obj = dir.join(format!("{stem}-{target}-{h:016x}.{uniq}.o"));
    let tmp = dir.join(format!("{stem}-{target}-{h:016x}.{uniq}.tmp"));
    let fail = |stderr: String| HookError::Compile {
        path: source.display().to_string(),
        target: target.to_string(),
        stderr,
    };
    let o = std::process::Command::new(&clang)
        .args(&args)
        .arg(source)
        .arg("-o")
        .arg(&obj)
        .output()
        .map_err(|e| fail(format!("cannot run {}: {e}", clang.display())))?;
    if !o.status.success() {
        let _ = std::fs::remove_file(&obj);
        return Err(fail(String::from_utf8_lossy(&o.stderr).into_owned()));
    }
    let l = std::process::Command::new(&lld)
        .arg("-shared")
        .arg(&obj)
        .arg("-o")
        .arg(&tmp)
        .output()
        .map_err(|e| fail(format!("cannot run {}: {e}", lld.display())))?;
    let _ = std::fs::remove_file(&obj);
    if !l.status.success() {
        let _ = std::fs::remove_file(&tmp);
        return Err(fail(String::from_utf8_lossy(&l.stderr).into_owned()));
    }
    std::fs::rename(&tmp, &out).map_err(io(&out))?;
    let b = std::fs::read(&out).map_err(io(&out))?;
    Ok((b, out))
}

/// The parameter types of C function `name` in `src` (its definition),
/// if found: `Ok(types)` or `Err(the unsupported parameter)`.
fn c_params(src: &str, name: &str) -> Option<Result<Vec<ArgType>, String>> {
    let re = Regex::new(&format!(r"\b{}\s*\(([^)]*)\)\s*\{{", regex::escape(name))).ok()?;
    let c = re.captures(src)?;
    let params = c.get(1)?.as_str().trim();
    if params.is_empty() || params == "void" {
        return Some(Ok(Vec::new()));
    }
    let mut out = Vec::new();
    for p in params.split(',') {
        let p = p.trim();
        if p.contains('*') {
            out.push(ArgType::U64);
            continue;
        }
        // Drop the parameter name (last identifier when two or more words).
        let words: Vec<&str> = p.split_whitespace().collect();
        let ty_words: Vec<&str> = if words.len() > 1 {
            words[..words.len() - 1].to_vec()
        } else {
            words.clone()
        };
        let ty: Vec<&str> = ty_words
            .into_iter()
            .filter(|w| *w != "const" && *w != "volatile")
            .collect();
        let t = ty.join(" ");
        let k = match t.as_str() {
            "unsigned" | "unsigned int" | "int" | "signed" | "signed int" | "uint32_t"
            | "int32_t" | "float" | "lathe_u32" => ArgType::U32,
            "unsigned long long"
            | "unsigned long"
            | "long"
            | "long long"
            | "unsigned long long int"
            | "long long int"
            | "uint64_t"
            | "int64_t"
            | "size_t"
            | "double"
            | "lathe_u64" => ArgType::U64,
            _ => return Some(Err(p.to_string())),
        };
        out.push(k);
    }
    Some(Ok(out))
}

impl HipTool {
    /// Loads a HIP tool (a directory with `tool.json` and `tool.hip`, or a
    /// manifest path) for `target` (a processor name such as `gfx90a`),
    /// compiling it (or reusing the cache) and checking every hook the
    /// manifest names against the compiled object.
    /// It is built in the target's default wave size
    /// ([`default_wave_size`]); [`HipTool::load_for`] follows a kernel code
    /// object's.
    pub fn load(dir_or_manifest: &Path, target: &str) -> Result<HipTool, HookError> {
        let processor = target.split(':').next().unwrap_or(target);
        HipTool::load_wave(dir_or_manifest, target, default_wave_size(processor))
    }

    /// [`HipTool::load`] for the processor and wave size of the kernels
    /// of `kernel_co` (a wave64 gfx1030 object gets wave64 hooks).
    pub fn load_for(dir_or_manifest: &Path, kernel_co: &[u8]) -> Result<HipTool, HookError> {
        let co = CodeObject::parse(kernel_co).map_err(|e| HookError::Tool(e.to_string()))?;
        let target = co
            .target()
            .map(|t| t.processor.to_string())
            .ok_or_else(|| HookError::Tool("the kernel's code object names no processor".into()))?;
        let wave = kernel_wave_size(kernel_co).unwrap_or_else(|| default_wave_size(&target));
        HipTool::load_wave(dir_or_manifest, &target, wave)
    }

    /// [`HipTool::load`] for kernels of `wave` lanes per wave. A prebuilt
    /// object (the manifest's `object`) is taken as built for that size.
    pub fn load_wave(
        dir_or_manifest: &Path,
        target: &str,
        wave: u32,
    ) -> Result<HipTool, HookError> {
        let manifest = Manifest::read(dir_or_manifest)?;
        if let Some(obj) = manifest.object.clone() {
            // Prebuilt: checked against the target like a compiled one.
            let code = std::fs::read(&obj).map_err(io(&obj))?;
            let src = std::fs::read_to_string(&manifest.source).unwrap_or_default();
            HipTool::from_parts_wave(manifest, &src, code, target, obj, wave)
        } else {
            let (code, cache_path) = compile_wave(&manifest.source, target, wave)?;
            let src = std::fs::read_to_string(&manifest.source).map_err(io(&manifest.source))?;
            HipTool::from_parts_wave(manifest, &src, code, target, cache_path, wave)
        }
    }

    /// A tool from a manifest and an already compiled tool code object
    /// (built in the target's default wave size).
    pub fn from_parts(
        manifest: Manifest,
        source_text: &str,
        code: Vec<u8>,
        target: &str,
        cache_path: PathBuf,
    ) -> Result<HipTool, HookError> {
        let processor = target.split(':').next().unwrap_or(target);
        let wave = default_wave_size(processor);
        HipTool::from_parts_wave(manifest, source_text, code, target, cache_path, wave)
    }

    /// [`HipTool::from_parts`] for a tool object built for `wave` lanes
    /// per wave.
    pub fn from_parts_wave(
        manifest: Manifest,
        source_text: &str,
        code: Vec<u8>,
        target: &str,
        cache_path: PathBuf,
        wave: u32,
    ) -> Result<HipTool, HookError> {
        let co = CodeObject::parse(&code).map_err(|e| HookError::Tool(e.to_string()))?;
        let found = co
            .target()
            .map(|t| t.processor.to_string())
            .unwrap_or_default();
        let want = target.split(':').next().unwrap_or(target);
        if found != want {
            return Err(HookError::Target {
                found,
                want: want.to_string(),
            });
        }
        let mut names: Vec<&str> = manifest.hooks.iter().map(|h| h.hook.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        let infos = hook::analyse_wave(&code, &names, Some(wave))?;
        for h in &manifest.hooks {
            let nargv: u16 = h.args.iter().map(|a| a.ty().vgprs()).sum();
            if nargv > hook::MAX_ARG_VGPRS {
                return Err(HookError::Signature {
                    hook: h.hook.clone(),
                    why: format!(
                        "its arguments take {nargv} VGPRs, more than the {} argument VGPRs of the calling convention",
                        hook::MAX_ARG_VGPRS
                    ),
                });
            }
            let want: Vec<ArgType> = h.args.iter().map(|a| a.ty()).collect();
            if let Some(decl) = &h.types {
                if decl.len() != want.len() {
                    return Err(HookError::Signature {
                        hook: h.hook.clone(),
                        why: format!(
                            "the manifest declares {} parameters but passes {} arguments",
                            decl.len(),
                            want.len()
                        ),
                    });
                }
                if let Some(k) = decl.iter().zip(&want).position(|(a, b)| a != b) {
                    return Err(HookError::Signature {
                        hook: h.hook.clone(),
                        why: format!(
                            "parameter {k} is declared {:?} but argument {k} ({:?}) is {:?}",
                            decl[k], h.args[k], want[k]
                        ),
                    });
                }
            }
            match c_params(source_text, &h.hook) {
                Some(Err(p)) => {
                    return Err(HookError::Signature {
                        hook: h.hook.clone(),
                        why: format!(
                            "unsupported parameter `{p}` (hooks take 32-bit or 64-bit integers, floats and pointers)"
                        ),
                    })
                }
                Some(Ok(types)) => {
                    let want: Vec<ArgType> = h.args.iter().map(|a| a.ty()).collect();
                    if types.len() != want.len() {
                        return Err(HookError::Signature {
                            hook: h.hook.clone(),
                            why: format!(
                                "it takes {} parameters, the manifest passes {} ({:?})",
                                types.len(),
                                want.len(),
                                want
                            ),
                        });
                    }
                    for (k, (a, b)) in types.iter().zip(&want).enumerate() {
                        if a != b {
                            return Err(HookError::Signature {
                                hook: h.hook.clone(),
                                why: format!(
                                    "parameter {k} is {a:?} but the manifest's argument {k} is {b:?}"
                                ),
                            });
                        }
                    }
                }
                None => {}
            }
            let info = infos.iter().find(|i| i.name == h.hook);
            if let Some(i) = info {
                if i.arg_vgprs_read > nargv {
                    return Err(HookError::Signature {
                        hook: h.hook.clone(),
                        why: format!(
                            "the compiled hook reads {} argument VGPRs, the manifest passes {nargv}",
                            i.arg_vgprs_read
                        ),
                    });
                }
            }
        }
        let syms = co.symbols().map_err(|e| HookError::Tool(e.to_string()))?;
        for r in &manifest.report {
            let ok = syms
                .get(&r.var)
                .is_some_and(|s| s.kind == lathe_codeobj::SymbolKind::Variable);
            if !ok {
                return Err(HookError::Manifest {
                    path: manifest.source.display().to_string(),
                    why: format!(
                        "report variable {} is not a __device__ variable of the tool",
                        r.var
                    ),
                });
            }
        }
        Ok(HipTool {
            manifest,
            target: want.to_string(),
            wave,
            code,
            infos,
            cache_path,
            rewrite: crate::rewrite::Options::default(),
        })
    }

    /// The tool code object (load it into the same executable as the
    /// instrumented kernel code object).
    pub fn code_object(&self) -> &[u8] {
        &self.code
    }

    /// Instruments `kernel_co` (every kernel, or `kernel`: a name or a
    /// regex-escaped exact match) with the manifest's hooks.
    pub fn instrument(
        &self,
        kernel_co: &[u8],
        kernel: Option<&str>,
    ) -> Result<HookBuild, crate::Error> {
        let co = CodeObject::parse(kernel_co)?;
        let tid = co.target().ok_or(crate::Error::NoTarget)?;
        if tid.processor.to_string() != self.target {
            return Err(HookError::Target {
                found: self.target.clone(),
                want: tid.processor.to_string(),
            }
            .into());
        }
        let p = Arc::new(Program::lift(&co)?);
        if p.target.wave_size() != self.wave {
            return Err(HookError::WaveSize {
                tool: self.wave,
                kernel: p.target.wave_size(),
            }
            .into());
        }
        let live = Liveness::compute(&p);
        let block_len: Vec<Vec<u32>> = p
            .functions
            .iter()
            .map(|f| {
                f.block_of
                    .iter()
                    .map(|&b| (f.blocks[b].end - f.blocks[b].start) as u32)
                    .collect()
            })
            .collect();
        let block_len = Arc::new(block_len);
        // Segments: from an instruction through the next EXEC write or to
        // its block's end; `after` sites start at the next instruction.
        let (mut seg_at, mut seg_after) = (Vec::new(), Vec::new());
        for f in &p.functions {
            let n = f.insts.len();
            let mut from = vec![0u32; n + 1];
            for i in (0..n).rev() {
                let end_here = i + 1 == n
                    || f.block_of[i + 1] != f.block_of[i]
                    || crate::rewrite::writes_exec(&f.insts[i].inst);
                from[i] = 1 + if end_here { 0 } else { from[i + 1] };
            }
            let after: Vec<u32> = (0..n)
                .map(|i| {
                    if i + 1 < n && f.block_of[i + 1] == f.block_of[i] {
                        from[i + 1]
                    } else {
                        0
                    }
                })
                .collect();
            from.truncate(n);
            seg_at.push(from);
            seg_after.push(after);
        }
        let (seg_at, seg_after) = (Arc::new(seg_at), Arc::new(seg_after));
        let syms = co.symbols()?;
        let mut kernels = BTreeMap::new();
        for k in syms.kernels() {
            let Some(fi) = p.function(k.name) else {
                continue;
            };
            let mut ka = KernelArgs::default();
            if let Ok(d) = &k.descriptor {
                ka.size = d.kernarg_size;
                let arch = lathe_codeobj::KdArch::for_processor(tid.processor);
                ka.dispatch_sgpr = d
                    .initial_sgprs(arch)
                    .iter()
                    .find(|s| s.role == lathe_codeobj::kd::SgprRole::DispatchPtr)
                    .map(|s| s.first as u16);
            }
            if let Some(md) = &k.metadata {
                use lathe_codeobj::metadata::ValueKind as V;
                ka.size = ka.size.max(md.kernarg_segment_size as u32);
                for a in &md.args {
                    let o = Some(a.offset as u32);
                    match a.value_kind {
                        V::HiddenBlockCountX => ka.block_count[0] = o,
                        V::HiddenBlockCountY => ka.block_count[1] = o,
                        V::HiddenBlockCountZ => ka.block_count[2] = o,
                        V::HiddenGroupSizeX => ka.group_size[0] = o,
                        V::HiddenGroupSizeY => ka.group_size[1] = o,
                        V::HiddenGroupSizeZ => ka.group_size[2] = o,
                        V::HiddenRemainderX => ka.remainder[0] = o,
                        V::HiddenRemainderY => ka.remainder[1] = o,
                        V::HiddenRemainderZ => ka.remainder[2] = o,
                        _ => {}
                    }
                }
            }
            kernels.insert(fi, ka);
        }
        let kernels = Arc::new(kernels);
        let kernel_re = kernel
            .map(|k| {
                Regex::new(&format!("^{}$", regex::escape(k))).map_err(|e| crate::Error::Pattern {
                    pattern: k.to_string(),
                    why: e.to_string(),
                })
            })
            .transpose()?;
        let kernel_matches = |name: &str, own: &Option<Regex>| {
            kernel_re.as_ref().is_none_or(|r| r.is_match(name))
                && own.as_ref().is_none_or(|r| r.is_match(name))
        };
        let any_kernel = |own: &Option<Regex>| {
            p.functions
                .iter()
                .any(|f| f.kind == FunctionKind::Kernel && kernel_matches(&f.name, own))
        };
        let mut requests: Vec<Request> = Vec::new();
        let uses_kernarg = self
            .manifest
            .hooks
            .iter()
            .any(|h| h.args.iter().any(|a| a.kernarg_arg()));
        if uses_kernarg {
            requests.push(Request {
                select: Selector {
                    kernel: kernel_re.clone(),
                    ..Selector::default()
                },
                at: Where::KernelEntry,
                probe: Arc::new(KernargSaver {
                    kernels: kernels.clone(),
                    dims: self.manifest.hooks.iter().any(|h| {
                        h.args
                            .iter()
                            .any(|a| matches!(a, Arg::GridDim(_) | Arg::BlockDim(_)))
                    }),
                }),
            });
        }
        let mut back = if uses_kernarg {
            hook::KERNARG_SAVER_BYTES.next_multiple_of(16)
        } else {
            0
        };
        let errors = Arc::new(Mutex::new(None));
        for h in &self.manifest.hooks {
            if !any_kernel(&h.kernel) {
                continue;
            }
            let info = self
                .infos
                .iter()
                .find(|i| i.name == h.hook)
                .cloned()
                .ok_or_else(|| HookError::MissingHook {
                    hook: h.hook.clone(),
                    hint: String::new(),
                })?;
            let probe = HookProbe {
                symbol: h.hook.clone(),
                args: h.args.clone(),
                info,
                kernarg_back: if uses_kernarg { back } else { 0 },
                block_len: block_len.clone(),
                kernels: kernels.clone(),
                segment_len: if h.at == Where::After {
                    seg_after.clone()
                } else {
                    seg_at.clone()
                },
                error: errors.clone(),
                inactive_waves: h.inactive_waves,
            };
            use crate::rewrite::Probe;
            back += probe.scratch_bytes().next_multiple_of(16);
            // The kernel selection: the manifest's regex and `kernel`.
            let sel_kernel = match (&kernel_re, &h.kernel) {
                (Some(k), _) => Some(k.clone()),
                (None, own) => own.clone(),
            };
            let skip = if h.first_block_last {
                let mut keep = BTreeSet::new();
                let mut all = BTreeSet::new();
                for f in &p.functions {
                    for x in &f.insts {
                        all.insert(x.addr);
                    }
                    if f.kind == FunctionKind::Kernel {
                        if let Some(b0) = f.blocks.first() {
                            if b0.end > b0.start {
                                keep.insert(f.insts[b0.end - 1].addr);
                            }
                        }
                    }
                }
                Some(Arc::new(all.difference(&keep).copied().collect()))
            } else {
                None
            };
            requests.push(Request {
                select: Selector {
                    kernel: sel_kernel,
                    class: h.class,
                    opcode: h.opcode.clone(),
                    range: None,
                    skip,
                },
                at: h.at,
                probe: Arc::new(probe),
            });
        }
        let res = crate::rewrite::instrument_lifted_with(&co, &p, &live, &requests, &self.rewrite);
        if let Some(e) = errors.lock().ok().and_then(|mut e| e.take()) {
            return Err(e.into());
        }
        let b = res?;
        if let Some((k, why)) = kernel.and_then(|k| b.skipped.iter().find(|(n, _)| n == k)) {
            return Err(crate::Error::NoRegisters {
                function: k.clone(),
                why: why.clone(),
            });
        }
        // The kernarg saver's sites are not hook sites.
        let first_hook = usize::from(uses_kernarg);
        Ok(HookBuild {
            code_object: b.code_object,
            sites: b
                .sites
                .into_iter()
                .filter(|s| s.request >= first_hook)
                .collect(),
            skipped: b.skipped,
            addr_map: b.addr_map,
            scratch: b.scratch,
            relocs: b.relocs,
            program: p,
        })
    }

    /// The report variables as JSON (`{var: value or [values]}`), read with
    /// `read_var(var, bytes)`; unreadable variables are `null`.
    pub fn report(&self, read_var: &mut dyn FnMut(&str, usize) -> Option<Vec<u8>>) -> Value {
        let mut m = serde_json::Map::new();
        for r in &self.manifest.report {
            let n = r.count * r.ty.size();
            let v = match read_var(&r.var, n) {
                Some(b) if b.len() >= n => {
                    let vals: Vec<Value> = b[..n]
                        .chunks(r.ty.size())
                        .map(|c| match r.ty {
                            VarType::U32 => {
                                Value::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                            }
                            VarType::I32 => {
                                Value::from(i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                            }
                            VarType::F32 => {
                                Value::from(f64::from(f32::from_le_bytes([c[0], c[1], c[2], c[3]])))
                            }
                            VarType::U64 => {
                                let mut a = [0u8; 8];
                                a.copy_from_slice(c);
                                Value::from(u64::from_le_bytes(a))
                            }
                        })
                        .collect();
                    if r.count == 1 {
                        vals.into_iter().next().unwrap_or(Value::Null)
                    } else {
                        Value::Array(vals)
                    }
                }
                _ => Value::Null,
            };
            m.insert(r.var.clone(), v);
        }
        Value::Object(m)
    }

    /// The manifest's report line filled from `json` ([`HipTool::report`]).
    pub fn report_line(&self, json: &Value) -> Option<String> {
        let tpl = self.manifest.line.as_ref()?;
        let re = Regex::new(r"\{([A-Za-z_][A-Za-z0-9_]*)(?:\[(\d+)\])?\}").ok()?;
        let show = |v: &Value| match v {
            Value::Array(a) => a
                .iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", "),
            Value::Null => "?".into(),
            // Report variables are numbers; a caller's text field (a
            // kernel name) is shown as is.
            Value::String(s) => s.clone(),
            x => x.to_string(),
        };
        Some(
            re.replace_all(tpl, |c: &regex::Captures<'_>| {
                let v = json.get(&c[1]).unwrap_or(&Value::Null);
                match c.get(2).and_then(|i| i.as_str().parse::<usize>().ok()) {
                    Some(i) => show(v.get(i).unwrap_or(&Value::Null)),
                    None => show(v),
                }
            })
            .into_owned(),
        )
    }

    /// The initial bytes of each report variable (from the tool object:
    /// zeros for `.bss`), to write before each launch.
    pub fn reset_values(&self) -> Vec<(String, Vec<u8>)> {
        let Ok(co) = CodeObject::parse(&self.code) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for r in &self.manifest.report {
            let n = r.count * r.ty.size();
            let mut bytes = vec![0u8; n];
            if let Some(s) = co.find_elf_symbol(&r.var) {
                for sec in co.sections() {
                    let nobits = sec.sh_type == 8;
                    let inside = s
                        .value
                        .checked_sub(sec.address)
                        .is_some_and(|off| off < sec.size);
                    if !nobits && inside {
                        if let Ok(d) = co.section_data(sec) {
                            let at = usize::try_from(s.value - sec.address).unwrap_or(usize::MAX);
                            let end = at.saturating_add(n).min(d.len());
                            if at < end {
                                bytes[..end - at].copy_from_slice(&d[at..end]);
                            }
                        }
                    }
                }
            }
            out.push((r.var.clone(), bytes));
        }
        out
    }

    /// Hook analyses (clobbers, frames).
    pub fn hooks(&self) -> &[HookInfo] {
        &self.infos
    }
}

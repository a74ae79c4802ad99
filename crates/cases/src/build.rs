//! Building a case's code objects (cached) and inspecting them with LLVM's
//! tools: symbols (`llvm-nm`) and kernel argument metadata
//! (`llvm-readelf --notes`).
//!
//! * clang-22 cases: one bare code object per source (`lathe_testkit::Build`,
//!   `Output::CodeObject`).
//! * rdc cases: each source compiled on its own with `-fgpu-rdc -c`. Plain
//!   `-c` makes clang emit LLVM bitcode (it expects to LTO-link at device link
//!   time); testkit adds `-Xclang -emit-obj`, which makes it emit a relocatable AMDGPU ELF
//!   (`ET_REL`, `R_AMDGPU_REL32_LO/HI` against the other object's functions
//!   and variables, `R_AMDGPU_REL64` in the kernel descriptors). Those are
//!   what [`code_objects`] returns; [`linked_code_object`] links them with
//!   `ld.lld -shared` into one loadable code object.
//! * hipcc cases: `hipcc --offload-arch=<t> --cuda-device-only
//!   --no-gpu-bundle-output -c <opt>` (code object v4).

use crate::Case;
use lathe_testkit::{cache_dir, corpus_src, llvm_tool, run, run_text, Build, Output};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Optimisation levels every case is built at.
pub const OPTS: &[&str] = &["-O0", "-O3"];

/// Debian's hipcc.
pub const HIPCC: &str = "/usr/bin/hipcc";

/// The clang-22 build of one source.
pub fn clang_build(
    source: &'static str,
    target: &'static str,
    opt: &'static str,
    rdc: bool,
) -> Build {
    let mut b = Build::new(source, &[target], Output::CodeObject);
    b.opt = opt;
    // testkit hashes every header in corpus/include into its cache key,
    // and asks clang for an ET_REL object (not bitcode) when `rdc` is set.
    b.rdc = rdc;
    b
}

fn hash_files(h: &mut DefaultHasher, files: &[&Path]) {
    for f in files {
        f.hash(h);
        std::fs::read(f).expect("read input").hash(h);
    }
}

/// Builds `source` with hipcc (cached by content, target and flags).
pub fn hipcc_build(source: &str, target: &str, opt: &str) -> PathBuf {
    assert!(
        Path::new(HIPCC).exists(),
        "{HIPCC} not found (Debian package hipcc)"
    );
    let src = corpus_src(source);
    let mut h = DefaultHasher::new();
    ("hipcc-v1", target, opt).hash(&mut h);
    hash_files(&mut h, &[&src]);
    let stem = source.trim_end_matches(".hip");
    let out = cache_dir().join(format!("{stem}-hipcc-{target}{opt}-{:016x}.co", h.finish()));
    if !out.exists() {
        let tmp = out.with_extension(format!("tmp{}", std::process::id()));
        run(Command::new(HIPCC)
            .arg(format!("--offload-arch={target}"))
            .args(["--cuda-device-only", "--no-gpu-bundle-output", "-c", opt])
            .arg(&src)
            .arg("-o")
            .arg(&tmp));
        std::fs::rename(&tmp, &out).expect("rename hipcc output");
    }
    out
}

/// The case's code objects for `target` at `opt`: one loadable code object,
/// or for rdc cases one relocatable object per source (library first).
pub fn code_objects(case: &Case, target: &'static str, opt: &'static str) -> Vec<PathBuf> {
    assert!(
        case.targets.contains(&target),
        "{} is not built for {target}",
        case.name
    );
    if case.hipcc {
        return case
            .sources
            .iter()
            .map(|s| hipcc_build(s, target, opt))
            .collect();
    }
    if !case.rdc {
        assert_eq!(
            case.sources.len(),
            1,
            "{}: one source per non-rdc case",
            case.name
        );
    }
    case.sources
        .iter()
        .map(|s| clang_build(s, target, opt, case.rdc).build())
        .collect()
}

/// One loadable code object for the case: [`code_objects`] itself, or for
/// rdc cases its objects linked with `ld.lld -shared --no-undefined`.
pub fn linked_code_object(case: &Case, target: &'static str, opt: &'static str) -> PathBuf {
    let objs = code_objects(case, target, opt);
    link(case, objs, &format!("{target}{opt}"))
}

/// [`linked_code_object`] in `wave` lanes per wave: the target's default
/// (32 on GFX10 and later, 64 on GFX9) is that object itself, wave64 on
/// GFX10+ is built with `-mwavefrontsize64` (clang-22 cases; cached by
/// content like every build).
pub fn linked_code_object_wave(
    case: &Case,
    target: &'static str,
    opt: &'static str,
    wave: u32,
) -> PathBuf {
    let default = if target.starts_with("gfx9") { 64 } else { 32 };
    if wave == default {
        return linked_code_object(case, target, opt);
    }
    assert!(
        wave == 64 && !case.hipcc,
        "{}: no wave{wave} build for {target}",
        case.name
    );
    let objs = case
        .sources
        .iter()
        .map(|s| {
            let mut b = clang_build(s, target, opt, case.rdc);
            b.extra = vec!["-mwavefrontsize64"];
            b.build()
        })
        .collect();
    link(case, objs, &format!("{target}-w64{opt}"))
}

/// The case's one loadable code object from its built objects: the object
/// itself, or for rdc cases the objects linked (cached by content, `tag`
/// in the name).
fn link(case: &Case, objs: Vec<PathBuf>, tag: &str) -> PathBuf {
    if !case.rdc {
        return objs.into_iter().next().expect("one code object");
    }
    let mut h = DefaultHasher::new();
    let refs: Vec<&Path> = objs.iter().map(|p| p.as_path()).collect();
    hash_files(&mut h, &refs);
    let stem = case
        .sources
        .last()
        .expect("sources")
        .trim_end_matches(".hip");
    let out = cache_dir().join(format!("{stem}-linked-{tag}-{:016x}.co", h.finish()));
    if !out.exists() {
        let tmp = out.with_extension(format!("tmp{}", std::process::id()));
        run(Command::new(llvm_tool("ld.lld"))
            .args(["-shared", "--no-undefined"])
            .args(&objs)
            .arg("-o")
            .arg(&tmp));
        std::fs::rename(&tmp, &out).expect("rename linked code object");
    }
    out
}

/// A symbol from `llvm-nm`: its type letter (`T`, `U`, `D`, `B`, `R`, ...)
/// and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// `llvm-nm`'s type letter.
    pub kind: char,
    /// The symbol's (mangled) name.
    pub name: String,
}

/// The symbols of an object file.
pub fn symbols(path: &Path) -> Vec<Symbol> {
    run_text(Command::new(llvm_tool("llvm-nm")).arg(path))
        .lines()
        .filter_map(|l| {
            let mut parts = l.split_whitespace().rev();
            let name = parts.next()?;
            let kind = parts.next()?.chars().next()?;
            Some(Symbol {
                kind,
                name: name.to_string(),
            })
        })
        .collect()
}

/// One kernel argument from the metadata note.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernArg {
    /// Byte offset in the kernarg segment.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// The metadata's `.value_kind` (`global_buffer`, `by_value`,
    /// `hidden_block_count_x`, ...).
    pub value_kind: String,
}

impl KernArg {
    /// False for the implicit `hidden_*` arguments.
    pub fn is_explicit(&self) -> bool {
        !self.value_kind.starts_with("hidden_")
    }
}

/// The `.args` of kernel `kernel` (its `.name`) in the object's
/// `NT_AMDGPU_METADATA` note, as printed by `llvm-readelf --notes`; `None`
/// if there is no such kernel.
pub fn kernel_args(path: &Path, kernel: &str) -> Option<Vec<KernArg>> {
    let text = run_text(
        Command::new(llvm_tool("llvm-readelf"))
            .arg("--notes")
            .arg(path),
    );
    parse_kernel_args(&text, kernel)
}

/// Parses the YAML that llvm-readelf prints for the metadata note (see
/// [`kernel_args`]).
pub fn parse_kernel_args(text: &str, kernel: &str) -> Option<Vec<KernArg>> {
    struct K {
        name: Option<String>,
        args: Vec<KernArg>,
    }
    let mut kernels: Vec<K> = Vec::new();
    let mut in_kernels = false;
    let mut in_args = false;
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        let mut content = line.trim_start();
        let item = content.starts_with("- ");
        if item {
            content = content[2..].trim_start();
        }
        let eff = indent + if item { 2 } else { 0 };
        if indent == 0 {
            in_kernels = content.starts_with("amdhsa.kernels:");
            continue;
        }
        if !in_kernels {
            continue;
        }
        if indent == 2 && item {
            kernels.push(K {
                name: None,
                args: Vec::new(),
            });
            in_args = false;
        }
        let Some(k) = kernels.last_mut() else {
            continue;
        };
        let (key, val) = match content.split_once(':') {
            Some((a, b)) => (a.trim(), b.trim()),
            None => continue,
        };
        if eff == 4 {
            in_args = key == ".args";
            if key == ".name" {
                k.name = Some(val.to_string());
            }
        } else if eff == 8 && in_args {
            if item {
                k.args.push(KernArg::default());
            }
            let a = k.args.last_mut()?;
            match key {
                ".offset" => a.offset = val.parse().ok()?,
                ".size" => a.size = val.parse().ok()?,
                ".value_kind" => a.value_kind = val.to_string(),
                _ => {}
            }
        }
    }
    kernels
        .into_iter()
        .find(|k| k.name.as_deref() == Some(kernel))
        .map(|k| k.args)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTES: &str = "Displaying notes found in: .note
  Owner                Data size 	Description
  AMDGPU               0x00000242	NT_AMDGPU_METADATA (AMDGPU Metadata)
    AMDGPU Metadata:
        ---
amdhsa.kernels:
  - .agpr_count:     0
    .args:
      - .address_space:  global
        .offset:         0
        .size:           8
        .value_kind:     global_buffer
      - .offset:         8
        .size:           4
        .value_kind:     by_value
      - .offset:         16
        .size:           4
        .value_kind:     hidden_block_count_x
    .language_version:
      - 2
      - 0
    .name:           _Z1kPfi
  - .args:
      - .offset:         0
        .size:           8
        .value_kind:     by_value
    .name:           _Z1jd
amdhsa.target:   amdgcn-amd-amdhsa--gfx90a
";

    #[test]
    fn parses_readelf_metadata() {
        let k = parse_kernel_args(NOTES, "_Z1kPfi").expect("kernel k");
        assert_eq!(k.len(), 3);
        assert_eq!(
            k[1],
            KernArg {
                offset: 8,
                size: 4,
                value_kind: "by_value".into()
            }
        );
        assert!(!k[2].is_explicit());
        let j = parse_kernel_args(NOTES, "_Z1jd").expect("kernel j");
        assert_eq!(
            j,
            vec![KernArg {
                offset: 0,
                size: 8,
                value_kind: "by_value".into()
            }]
        );
        assert!(parse_kernel_args(NOTES, "nope").is_none());
    }
}

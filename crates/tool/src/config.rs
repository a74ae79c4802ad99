//! Configuration, from environment variables (`lathe exec --tool` sets
//! them; set them by hand to use the library with ROCr):
//!
//! | variable | meaning | default |
//! | --- | --- | --- |
//! | `LATHE_TOOL` | built-in tool (`instr-count`, `block-count`, `opcode-hist`, `mem-trace`, `kernarg`), or the path of a HIP tool: a directory with `tool.json` and `tool.hip`, or the manifest ([`lathe_dbi::manifest`]) | none: the library does nothing |
//! | `LATHE_TOOL_CAPTURE` | capture mode: write a capsule (`docs/capsule.md`) of each selected launch into this directory instead of instrumenting (without `LATHE_TOOL`) | off |
//! | `LATHE_TOOL_OUT` | write every launch's record as a JSON array to this file (at exit) instead of lines on stderr | stderr |
//! | `LATHE_TOOL_KERNELS` | instrument only kernels whose mangled or demangled name matches this regex | every kernel |
//! | `LATHE_TOOL_LAUNCHES` | instrument only launches `A-B` (inclusive, counted from 0 over every kernel dispatch the process makes), `A-` or `A` | every launch |
//! | `LATHE_TOOL_ON_ERROR` | `skip`: report a tool error and run the original code; `abort`: report it and stop the program (exit status 70) | `skip` |

use regex::Regex;

/// A built-in tool name, checked.
pub use lathe_dbi::tools::Tool;

/// The tool `LATHE_TOOL` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolSpec {
    /// A built-in tool.
    Builtin(Tool),
    /// A HIP tool: a directory with `tool.json`, or the manifest.
    Hip(std::path::PathBuf),
}

impl ToolSpec {
    /// The name records carry: the built-in tool's, or the HIP tool's
    /// directory name.
    pub fn name(&self) -> String {
        match self {
            ToolSpec::Builtin(t) => t.name().to_string(),
            ToolSpec::Hip(p) => {
                let dir = if p.is_dir() {
                    p.as_path()
                } else {
                    p.parent().unwrap_or(p)
                };
                dir.file_name().map_or_else(
                    || p.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                )
            }
        }
    }

    /// Parses `LATHE_TOOL`: a built-in name, else an existing path.
    pub fn parse(s: &str) -> Result<ToolSpec, String> {
        if let Some(t) = Tool::parse(s) {
            return Ok(ToolSpec::Builtin(t));
        }
        let p = std::path::Path::new(s);
        if p.exists() {
            return Ok(ToolSpec::Hip(
                std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()),
            ));
        }
        let names: Vec<&str> = Tool::ALL.iter().map(|t| t.name()).collect();
        Err(format!(
            "LATHE_TOOL={s:?} is not a built-in tool (one of {}) nor an existing HIP tool \
             directory or manifest",
            names.join(", ")
        ))
    }
}

/// What to do when a tool cannot instrument or decode a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnError {
    /// Report it, run the original kernel.
    Skip,
    /// Report it, stop the program.
    Abort,
}

/// An inclusive range of launch indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Launches {
    /// First.
    pub first: u64,
    /// Last (inclusive).
    pub last: u64,
}

impl Launches {
    /// Parses `A-B`, `A-` or `A`.
    pub fn parse(s: &str) -> Result<Launches, String> {
        let num = |x: &str| {
            x.trim().parse::<u64>().map_err(|_| {
                format!("bad launch range {s:?}: {x:?} is not a launch index (want A-B, A- or A)")
            })
        };
        let (first, last) = match s.split_once('-') {
            Some((a, "")) => (num(a)?, u64::MAX),
            Some((a, b)) => (num(a)?, num(b)?),
            None => {
                let a = num(s)?;
                (a, a)
            }
        };
        if last < first {
            return Err(format!("bad launch range {s:?}: {last} is before {first}"));
        }
        Ok(Launches { first, last })
    }

    /// Whether launch `i` is in the range.
    pub fn contains(&self, i: u64) -> bool {
        (self.first..=self.last).contains(&i)
    }
}

/// The library's configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// The tool; `None` in capture mode.
    pub tool: Option<ToolSpec>,
    /// Capture mode: the directory capsules are written to.
    pub capture: Option<std::path::PathBuf>,
    /// JSON output file.
    pub out: Option<std::path::PathBuf>,
    /// Kernel name filter.
    pub kernels: Option<Regex>,
    /// Launch range.
    pub launches: Option<Launches>,
    /// Error policy.
    pub on_error: OnError,
}

impl Config {
    /// Reads the configuration; `Ok(None)` when `LATHE_TOOL` is unset.
    pub fn from_env() -> Result<Option<Config>, String> {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let capture = var("LATHE_TOOL_CAPTURE").map(std::path::PathBuf::from);
        let tool =
            match (var("LATHE_TOOL"), &capture) {
                (None, None) => return Ok(None),
                (Some(_), Some(_)) => return Err(
                    "LATHE_TOOL and LATHE_TOOL_CAPTURE are both set: the library instruments or \
                     captures, not both"
                        .into(),
                ),
                (Some(t), None) => Some(ToolSpec::parse(&t)?),
                (None, Some(_)) => None,
            };
        let kernels = var("LATHE_TOOL_KERNELS")
            .map(|k| Regex::new(&k).map_err(|e| format!("LATHE_TOOL_KERNELS={k:?}: {e}")))
            .transpose()?;
        let launches = var("LATHE_TOOL_LAUNCHES")
            .map(|l| Launches::parse(&l).map_err(|e| format!("LATHE_TOOL_LAUNCHES: {e}")))
            .transpose()?;
        let on_error = match var("LATHE_TOOL_ON_ERROR").as_deref() {
            None | Some("skip") => OnError::Skip,
            Some("abort") => OnError::Abort,
            Some(x) => return Err(format!("LATHE_TOOL_ON_ERROR={x:?}: want skip or abort")),
        };
        Ok(Some(Config {
            tool,
            capture,
            out: var("LATHE_TOOL_OUT").map(Into::into),
            kernels,
            launches,
            on_error,
        }))
    }

    /// The tool's name for messages (`capture` in capture mode).
    pub fn tool_name(&self) -> String {
        self.tool
            .as_ref()
            .map_or_else(|| "capture".to_string(), ToolSpec::name)
    }

    /// Whether the user asked for launch `index` of a kernel with these
    /// names.
    pub fn selects(&self, index: u64, mangled: &str, demangled: &str) -> bool {
        self.launches.is_none_or(|l| l.contains(index))
            && self
                .kernels
                .as_ref()
                .is_none_or(|r| r.is_match(mangled) || r.is_match(demangled))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_ranges() {
        assert_eq!(Launches::parse("3-5"), Ok(Launches { first: 3, last: 5 }));
        assert_eq!(
            Launches::parse("7-"),
            Ok(Launches {
                first: 7,
                last: u64::MAX
            })
        );
        assert_eq!(Launches::parse("4"), Ok(Launches { first: 4, last: 4 }));
        assert!(Launches::parse("5-3")
            .expect_err("reversed")
            .contains("before"));
        assert!(Launches::parse("x-3")
            .expect_err("not a number")
            .contains("\"x\""));
        assert!(Launches::parse("").is_err());
    }
}

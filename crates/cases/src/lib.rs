#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod build;
mod cases;
pub mod data;

use std::collections::BTreeMap;

pub use data::{ulp_diff_f32, ulp_diff_f64, Prng};

/// A case-specific comparison: `(case, actual, expected)` bytes.
pub type CustomCmp = fn(&Case, &[u8], &[u8]) -> Result<(), String>;

/// How an output is compared with the reference.
#[derive(Debug, Clone, Copy)]
pub enum Cmp {
    /// Byte-for-byte equal.
    Exact,
    /// f32 elements within this many ULPs (NaN must match NaN).
    UlpF32(u32),
    /// f64 elements within this many ULPs.
    UlpF64(u64),
    /// A case-specific rule.
    Custom(CustomCmp),
}

/// A kernel argument's value.
#[derive(Debug, Clone)]
pub enum Value {
    /// A device buffer (passed as a global pointer) with its initial bytes.
    /// `output: Some(cmp)` means its contents after the run are checked.
    Buffer {
        /// The buffer's initial contents.
        bytes: Vec<u8>,
        /// How its contents after the run are compared, if they are.
        output: Option<Cmp>,
    },
    /// A by-value `unsigned int`.
    U32(u32),
    /// A by-value `int`.
    I32(i32),
    /// A by-value 64-bit unsigned integer.
    U64(u64),
    /// A by-value 64-bit signed integer.
    I64(i64),
    /// A by-value `float`.
    F32(f32),
    /// A by-value `double`.
    F64(f64),
}

impl Value {
    /// A by-value argument's type name (`u32`, `i32`, `u64`, `i64`, `f32`,
    /// `f64`, as `lathe run` launch files spell them) and its
    /// little-endian bytes; `None` for a buffer.
    pub fn scalar(&self) -> Option<(&'static str, Vec<u8>)> {
        Some(match self {
            Value::Buffer { .. } => return None,
            Value::U32(x) => ("u32", x.to_le_bytes().to_vec()),
            Value::I32(x) => ("i32", x.to_le_bytes().to_vec()),
            Value::U64(x) => ("u64", x.to_le_bytes().to_vec()),
            Value::I64(x) => ("i64", x.to_le_bytes().to_vec()),
            Value::F32(x) => ("f32", x.to_le_bytes().to_vec()),
            Value::F64(x) => ("f64", x.to_le_bytes().to_vec()),
        })
    }
}

/// A named kernel argument (the name matches the HIP parameter).
#[derive(Debug, Clone)]
pub struct Arg {
    /// The HIP parameter's name.
    pub name: &'static str,
    /// What is passed.
    pub value: Value,
}

impl Arg {
    /// An input buffer.
    pub fn input<T: data::Elem>(name: &'static str, v: &[T]) -> Arg {
        Arg {
            name,
            value: Value::Buffer {
                bytes: data::to_bytes(v),
                output: None,
            },
        }
    }

    /// An output buffer of `len` bytes filled with the sentinel (0xCD).
    pub fn output(name: &'static str, len: usize, cmp: Cmp) -> Arg {
        Arg {
            name,
            value: Value::Buffer {
                bytes: data::sentinel(len),
                output: Some(cmp),
            },
        }
    }

    /// A buffer that is read and written (checked after the run).
    pub fn inout<T: data::Elem>(name: &'static str, v: &[T], cmp: Cmp) -> Arg {
        Arg {
            name,
            value: Value::Buffer {
                bytes: data::to_bytes(v),
                output: Some(cmp),
            },
        }
    }

    /// A by-value `unsigned int`.
    pub fn u32(name: &'static str, v: u32) -> Arg {
        Arg {
            name,
            value: Value::U32(v),
        }
    }
    /// A by-value `int`.
    pub fn i32(name: &'static str, v: i32) -> Arg {
        Arg {
            name,
            value: Value::I32(v),
        }
    }
    /// A by-value `float`.
    pub fn f32(name: &'static str, v: f32) -> Arg {
        Arg {
            name,
            value: Value::F32(v),
        }
    }

    /// Size in the kernarg segment (8 for buffer pointers).
    pub fn size(&self) -> u32 {
        match self.value {
            Value::Buffer { .. } | Value::U64(_) | Value::I64(_) | Value::F64(_) => 8,
            Value::U32(_) | Value::I32(_) | Value::F32(_) => 4,
        }
    }

    /// The bytes this argument occupies in the kernarg segment, given the
    /// device address of its buffer (ignored for scalars).
    pub fn kernarg_bytes(&self, buffer_address: u64) -> Vec<u8> {
        match &self.value {
            Value::Buffer { .. } => buffer_address.to_le_bytes().to_vec(),
            Value::U32(v) => v.to_le_bytes().to_vec(),
            Value::I32(v) => v.to_le_bytes().to_vec(),
            Value::U64(v) => v.to_le_bytes().to_vec(),
            Value::I64(v) => v.to_le_bytes().to_vec(),
            Value::F32(v) => v.to_le_bytes().to_vec(),
            Value::F64(v) => v.to_le_bytes().to_vec(),
        }
    }
}

/// A device variable read back after the run.
#[derive(Debug, Clone)]
pub struct Global {
    /// Symbol in the code object (for rdc cases, in whichever object defines
    /// it).
    pub symbol: &'static str,
    /// `__managed__`: the symbol is an 8-byte pointer the loader points at
    /// the variable's storage (initial value in `<symbol>.managed`); read
    /// back through the pointer.
    pub managed: bool,
    /// Bytes to read back.
    pub size: usize,
    /// How the bytes read back are compared with the reference.
    pub cmp: Cmp,
}

/// Output contents keyed by buffer argument name or global symbol.
pub type Outputs = BTreeMap<&'static str, Vec<u8>>;

/// The result of running a case: the contents of every output buffer and
/// every [`Global`] after the kernel finished, by name / symbol. Inputs are
/// the case's own [`Case::args`].
#[derive(Debug, Clone, Default)]
pub struct Run {
    /// Contents after the run, by buffer argument name or global symbol.
    pub outputs: BTreeMap<String, Vec<u8>>,
}

impl Run {
    /// A run with the given outputs.
    pub fn new(outputs: impl IntoIterator<Item = (String, Vec<u8>)>) -> Run {
        Run {
            outputs: outputs.into_iter().collect(),
        }
    }
}

/// One verification case: a kernel launch and its CPU reference.
#[derive(Debug, Clone)]
pub struct Case {
    /// Unique case name.
    pub name: &'static str,
    /// What the case exercises and how it is compared.
    pub about: &'static str,
    /// Sources under `corpus/hip` (for rdc: each is its own relocatable
    /// object, the library first).
    pub sources: &'static [&'static str],
    /// Built with `-fgpu-rdc`: the kernel calls functions of another object.
    pub rdc: bool,
    /// Built with Debian's hipcc (clang-15, real HIP headers, device math
    /// library) instead of clang-22.
    pub hipcc: bool,
    /// Processors the case is built and checked for.
    pub targets: &'static [&'static str],
    /// Mangled kernel symbol.
    pub kernel: &'static str,
    /// Total work-items per dimension (HSA grid size).
    pub grid: [u32; 3],
    /// Workgroup size.
    pub block: [u32; 3],
    /// Dynamic LDS bytes.
    pub dyn_lds: u32,
    /// Kernel arguments in order.
    pub args: Vec<Arg>,
    /// Device variables to read back.
    pub globals: Vec<Global>,
    /// CPU reference: what every output buffer and global must hold.
    pub reference: fn(&Case) -> Outputs,
}

/// Targets of every clang-22 case.
pub const ALL_TARGETS: &[&str] = &["gfx90a", "gfx942"];
/// Targets of hipcc cases (ROCm 5.2 device libraries have no gfx942).
pub const HIPCC_TARGETS: &[&str] = &["gfx90a"];

impl Case {
    /// The dispatch's dimension count: 3 when the grid or block has a
    /// third dimension, 2 when it has a second, otherwise 1.
    pub fn dims(&self) -> u32 {
        if self.grid[2] > 1 || self.block[2] > 1 {
            3
        } else if self.grid[1] > 1 || self.block[1] > 1 {
            2
        } else {
            1
        }
    }

    /// The optimisation levels the case is built at: [`build::OPTS`] for
    /// a clang-22 case, `-O3` only for a hipcc one.
    pub fn opts(&self) -> &'static [&'static str] {
        if self.hipcc {
            &["-O3"]
        } else {
            build::OPTS
        }
    }

    /// Initial bytes of buffer `name`.
    pub fn bytes(&self, name: &str) -> &[u8] {
        match self.arg(name) {
            Value::Buffer { bytes, .. } => bytes,
            v => panic!("{}: argument {name} is not a buffer: {v:?}", self.name),
        }
    }

    /// Initial contents of buffer `name` as elements.
    pub fn input<T: data::Elem>(&self, name: &str) -> Vec<T> {
        data::from_bytes(self.bytes(name))
    }

    /// Value of argument `name`.
    pub fn arg(&self, name: &str) -> &Value {
        &self
            .args
            .iter()
            .find(|a| a.name == name)
            .unwrap_or_else(|| panic!("{}: no argument {name}", self.name))
            .value
    }

    /// Integer scalar argument `name` (I32 or U32) as i64.
    pub fn int(&self, name: &str) -> i64 {
        match *self.arg(name) {
            Value::I32(v) => v.into(),
            Value::U32(v) => v.into(),
            Value::I64(v) => v,
            ref v => panic!("{}: argument {name} is not an integer: {v:?}", self.name),
        }
    }

    /// f32 scalar argument `name`.
    pub fn float(&self, name: &str) -> f32 {
        match *self.arg(name) {
            Value::F32(v) => v,
            ref v => panic!("{}: argument {name} is not f32: {v:?}", self.name),
        }
    }

    /// Offsets of the explicit kernel arguments (natural alignment).
    pub fn kernarg_offsets(&self) -> Vec<u32> {
        let mut off = 0u32;
        self.args
            .iter()
            .map(|a| {
                let s = a.size();
                off = off.div_ceil(s) * s;
                let o = off;
                off += s;
                o
            })
            .collect()
    }

    /// The outputs to check: (name, comparison) for output buffers then globals.
    pub fn checked(&self) -> Vec<(&'static str, Cmp)> {
        let mut v: Vec<_> = self
            .args
            .iter()
            .filter_map(|a| match a.value {
                Value::Buffer {
                    output: Some(c), ..
                } => Some((a.name, c)),
                _ => None,
            })
            .collect();
        v.extend(self.globals.iter().map(|g| (g.symbol, g.cmp)));
        v
    }

    /// The reference outputs.
    pub fn expected(&self) -> Outputs {
        let out = (self.reference)(self);
        for (name, _) in self.checked() {
            assert!(
                out.contains_key(name),
                "{}: reference lacks {name}",
                self.name
            );
        }
        out
    }

    /// A run whose outputs are exactly the reference (what a perfect
    /// emulator produces; used to test the checks themselves).
    pub fn reference_run(&self) -> Run {
        Run::new(self.expected().into_iter().map(|(k, v)| (k.to_string(), v)))
    }

    /// A run in which the kernel did nothing: output buffers keep their
    /// initial bytes, globals read as zero.
    pub fn untouched_run(&self) -> Run {
        let mut out = BTreeMap::new();
        for a in &self.args {
            if let Value::Buffer {
                bytes,
                output: Some(_),
            } = &a.value
            {
                out.insert(a.name.to_string(), bytes.clone());
            }
        }
        for g in &self.globals {
            out.insert(g.symbol.to_string(), vec![0; g.size]);
        }
        Run { outputs: out }
    }

    /// Compares a run with the reference.
    pub fn check(&self, run: &Run) -> Result<(), String> {
        let exp = self.expected();
        let mut errors = Vec::new();
        for (name, cmp) in self.checked() {
            let want = &exp[name];
            let Some(got) = run.outputs.get(name) else {
                errors.push(format!("{name}: missing from the run"));
                continue;
            };
            if got.len() != want.len() {
                errors.push(format!(
                    "{name}: {} bytes, expected {}",
                    got.len(),
                    want.len()
                ));
                continue;
            }
            if let Err(e) = compare(self, cmp, got, want) {
                errors.push(format!("{name}: {e}"));
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(format!("case {}: {}", self.name, errors.join("; ")))
        }
    }
}

/// Applies a comparison rule to one output.
pub fn compare(case: &Case, cmp: Cmp, got: &[u8], want: &[u8]) -> Result<(), String> {
    match cmp {
        Cmp::Exact => {
            let bad: Vec<usize> = (0..got.len()).filter(|&i| got[i] != want[i]).collect();
            if bad.is_empty() {
                return Ok(());
            }
            let words: Vec<String> = bad
                .iter()
                .map(|i| i / 4)
                .fold(Vec::new(), |mut v, w| {
                    if v.last() != Some(&w) {
                        v.push(w);
                    }
                    v
                })
                .iter()
                .take(5)
                .map(|&w| {
                    let at = |b: &[u8]| {
                        let end = (4 * w + 4).min(b.len());
                        let mut x = [0u8; 4];
                        x[..end - 4 * w].copy_from_slice(&b[4 * w..end]);
                        u32::from_le_bytes(x)
                    };
                    format!(
                        "word {w}: got {:#010x}, expected {:#010x}",
                        at(got),
                        at(want)
                    )
                })
                .collect();
            Err(format!("{} bytes differ; {}", bad.len(), words.join(", ")))
        }
        Cmp::UlpF32(max) => {
            let (g, w) = (data::from_bytes::<f32>(got), data::from_bytes::<f32>(want));
            ulp_report(
                g.iter()
                    .zip(&w)
                    .map(|(&a, &b)| (u64::from(ulp_diff_f32(a, b)), a.to_string(), b.to_string())),
                max.into(),
            )
        }
        Cmp::UlpF64(max) => {
            let (g, w) = (data::from_bytes::<f64>(got), data::from_bytes::<f64>(want));
            ulp_report(
                g.iter()
                    .zip(&w)
                    .map(|(&a, &b)| (ulp_diff_f64(a, b), a.to_string(), b.to_string())),
                max,
            )
        }
        Cmp::Custom(f) => f(case, got, want),
    }
}

fn ulp_report(diffs: impl Iterator<Item = (u64, String, String)>, max: u64) -> Result<(), String> {
    let mut bad = Vec::new();
    let mut count = 0;
    for (i, (d, g, w)) in diffs.enumerate() {
        if d > max {
            count += 1;
            if bad.len() < 5 {
                bad.push(format!("[{i}] got {g}, expected {w} ({d} ulp)"));
            }
        }
    }
    if count == 0 {
        Ok(())
    } else {
        Err(format!(
            "{count} elements beyond {max} ulp: {}",
            bad.join(", ")
        ))
    }
}

/// Every case of the corpus.
pub fn all() -> Vec<Case> {
    cases::all()
}

/// The case called `name`.
pub fn by_name(name: &str) -> Option<Case> {
    all().into_iter().find(|c| c.name == name)
}

//! SPIR-V modules as clang-22 puts them in offload bundles
//! (`--offload-arch=amdgcnspirv`, entry `hip-spirv64-amd-amdhsa--amdgcnspirv`):
//! portable code that the HIP runtime compiles for the agent at load time.
//! Lathe does not compile SPIR-V; this module recognises a module by its
//! magic number and reads what a user wants to see: the version, the
//! generator, the declared capabilities, extensions and memory model, and
//! the entry points (kernel names).
//!
//! The reader walks the instruction stream word by word (each instruction
//! starts with `word count << 16 | opcode`) and never trusts a count: a
//! truncated or malformed stream is a typed [`SpirvError`] with its word
//! offset. Both byte orders are accepted (the magic number tells which).

use std::fmt;

/// The SPIR-V magic number, as a word.
pub const MAGIC: u32 = 0x0723_0203;

/// Header words before the first instruction.
const HEADER_WORDS: usize = 5;

const OP_EXTENSION: u16 = 10;
const OP_MEMORY_MODEL: u16 = 14;
const OP_ENTRY_POINT: u16 = 15;
const OP_CAPABILITY: u16 = 17;

/// Why bytes are not a readable SPIR-V module.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpirvError {
    /// Shorter than the 5-word header.
    #[error("{len} bytes is too short for a SPIR-V header (20 bytes)")]
    TooShort {
        /// Byte length.
        len: usize,
    },
    /// The length is not a whole number of 32-bit words.
    #[error("{len} bytes is not a whole number of 32-bit words")]
    NotWords {
        /// Byte length.
        len: usize,
    },
    /// The first word is not the magic number in either byte order.
    #[error("magic {found:#010x} is not the SPIR-V magic 0x07230203")]
    BadMagic {
        /// The first word, little-endian.
        found: u32,
    },
    /// An instruction with a word count of 0.
    #[error("instruction at word {offset} (opcode {opcode}) has a word count of 0")]
    ZeroWordCount {
        /// Word offset of the instruction.
        offset: usize,
        /// Its opcode.
        opcode: u16,
    },
    /// An instruction runs past the end of the module.
    #[error("instruction at word {offset} (opcode {opcode}) has {count} words but only {remaining} remain")]
    Truncated {
        /// Word offset of the instruction.
        offset: usize,
        /// Its opcode.
        opcode: u16,
        /// Its word count.
        count: usize,
        /// Words left in the module.
        remaining: usize,
    },
    /// An instruction too short for its required operands.
    #[error(
        "instruction at word {offset} (opcode {opcode}) has {count} words, needs at least {needed}"
    )]
    MissingOperands {
        /// Word offset of the instruction.
        offset: usize,
        /// Its opcode.
        opcode: u16,
        /// Its word count.
        count: usize,
        /// Minimum for this opcode.
        needed: usize,
    },
    /// A literal string without its terminating NUL, or not UTF-8.
    #[error("instruction at word {offset} (opcode {opcode}): literal string is not NUL-terminated UTF-8")]
    BadString {
        /// Word offset of the instruction.
        offset: usize,
        /// Its opcode.
        opcode: u16,
    },
}

/// One `OpEntryPoint`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryPoint {
    /// Execution model (6 = `Kernel`).
    pub execution_model: u32,
    /// Result ID of the entry function.
    pub function: u32,
    /// The entry point's name (the kernel's name for `Kernel`).
    pub name: String,
}

impl EntryPoint {
    /// Name of the execution model.
    pub fn execution_model_name(&self) -> String {
        execution_model_name(self.execution_model)
    }
}

/// The generator word: registered tool ID and its version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Generator(pub u32);

impl Generator {
    /// The tool ID (high 16 bits), as registered with Khronos.
    pub fn tool(self) -> u16 {
        (self.0 >> 16) as u16
    }

    /// The tool's own version (low 16 bits).
    pub fn version(self) -> u16 {
        self.0 as u16
    }

    /// The registered name of a few tools that make compute modules.
    pub fn tool_name(self) -> Option<&'static str> {
        Some(match self.tool() {
            0 => "unregistered (tool 0)",
            6 => "Khronos LLVM/SPIR-V Translator",
            7 => "Khronos SPIR-V Tools Assembler",
            8 => "Khronos Glslang Reference Front End",
            43 => "LLVM SPIR-V Backend",
            _ => return None,
        })
    }
}

impl fmt::Display for Generator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.tool_name() {
            Some(n) => write!(f, "{n}, version {}", self.version()),
            None => write!(f, "tool {}, version {}", self.tool(), self.version()),
        }
    }
}

/// A SPIR-V module's header and declarations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    /// Whether the words are big-endian.
    pub big_endian: bool,
    /// SPIR-V version (major, minor).
    pub version: (u8, u8),
    /// The generator.
    pub generator: Generator,
    /// ID bound (every result ID is below it).
    pub bound: u32,
    /// `OpCapability` values, in order.
    pub capabilities: Vec<u32>,
    /// `OpExtension` names, in order.
    pub extensions: Vec<String>,
    /// `OpMemoryModel`: (addressing model, memory model).
    pub memory_model: Option<(u32, u32)>,
    /// `OpEntryPoint`s, in order.
    pub entry_points: Vec<EntryPoint>,
    /// Instructions read.
    pub instructions: usize,
}

/// Whether `bytes` start with the SPIR-V magic number (either byte order).
pub fn is_spirv(bytes: &[u8]) -> bool {
    bytes.get(..4).is_some_and(|m| {
        let w = u32::from_le_bytes([m[0], m[1], m[2], m[3]]);
        w == MAGIC || w.swap_bytes() == MAGIC
    })
}

impl Module {
    /// Reads a module: header, then every instruction, keeping the
    /// capabilities, extensions, memory model and entry points.
    pub fn parse(bytes: &[u8]) -> Result<Module, SpirvError> {
        if bytes.len() < HEADER_WORDS * 4 {
            return Err(SpirvError::TooShort { len: bytes.len() });
        }
        if bytes.len() % 4 != 0 {
            return Err(SpirvError::NotWords { len: bytes.len() });
        }
        let first = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        let big_endian = match first {
            MAGIC => false,
            w if w.swap_bytes() == MAGIC => true,
            found => return Err(SpirvError::BadMagic { found }),
        };
        let word = |i: usize| -> u32 {
            let b = [
                bytes[4 * i],
                bytes[4 * i + 1],
                bytes[4 * i + 2],
                bytes[4 * i + 3],
            ];
            if big_endian {
                u32::from_be_bytes(b)
            } else {
                u32::from_le_bytes(b)
            }
        };
        let n = bytes.len() / 4;
        let version = word(1);
        let mut m = Module {
            big_endian,
            version: ((version >> 16) as u8, (version >> 8) as u8),
            generator: Generator(word(2)),
            bound: word(3),
            capabilities: Vec::new(),
            extensions: Vec::new(),
            memory_model: None,
            entry_points: Vec::new(),
            instructions: 0,
        };
        let mut at = HEADER_WORDS;
        while at < n {
            let head = word(at);
            let (count, opcode) = ((head >> 16) as usize, head as u16);
            if count == 0 {
                return Err(SpirvError::ZeroWordCount { offset: at, opcode });
            }
            if count > n - at {
                return Err(SpirvError::Truncated {
                    offset: at,
                    opcode,
                    count,
                    remaining: n - at,
                });
            }
            let needs = |needed: usize| -> Result<(), SpirvError> {
                if count < needed {
                    Err(SpirvError::MissingOperands {
                        offset: at,
                        opcode,
                        count,
                        needed,
                    })
                } else {
                    Ok(())
                }
            };
            let string = |from: usize| -> Result<String, SpirvError> {
                let start = 4 * (at + from);
                let end = 4 * (at + count);
                let text = &bytes[start.min(end)..end];
                // Literal strings are UTF-8 bytes in memory order, whatever
                // the word order, with a NUL in the last word.
                let text: Vec<u8> = if big_endian {
                    text.chunks(4)
                        .flat_map(|c| c.iter().rev().copied())
                        .collect()
                } else {
                    text.to_vec()
                };
                let nul = text
                    .iter()
                    .position(|&b| b == 0)
                    .ok_or(SpirvError::BadString { offset: at, opcode })?;
                String::from_utf8(text[..nul].to_vec())
                    .map_err(|_| SpirvError::BadString { offset: at, opcode })
            };
            match opcode {
                OP_CAPABILITY => {
                    needs(2)?;
                    m.capabilities.push(word(at + 1));
                }
                OP_EXTENSION => {
                    needs(2)?;
                    m.extensions.push(string(1)?);
                }
                OP_MEMORY_MODEL => {
                    needs(3)?;
                    m.memory_model = Some((word(at + 1), word(at + 2)));
                }
                OP_ENTRY_POINT => {
                    needs(4)?;
                    m.entry_points.push(EntryPoint {
                        execution_model: word(at + 1),
                        function: word(at + 2),
                        name: string(3)?,
                    });
                }
                _ => {}
            }
            m.instructions += 1;
            at += count;
        }
        Ok(m)
    }

    /// Names of the entry points with the `Kernel` execution model.
    pub fn kernels(&self) -> impl Iterator<Item = &str> {
        self.entry_points
            .iter()
            .filter(|e| e.execution_model == 6)
            .map(|e| e.name.as_str())
    }
}

/// Name of a capability (the ones compute modules declare), or its number.
pub fn capability_name(c: u32) -> String {
    let name = match c {
        0 => "Matrix",
        1 => "Shader",
        4 => "Addresses",
        5 => "Linkage",
        6 => "Kernel",
        7 => "Vector16",
        8 => "Float16Buffer",
        9 => "Float16",
        10 => "Float64",
        11 => "Int64",
        12 => "Int64Atomics",
        13 => "ImageBasic",
        17 => "Pipes",
        18 => "Groups",
        19 => "DeviceEnqueue",
        20 => "LiteralSampler",
        21 => "AtomicStorage",
        22 => "Int16",
        38 => "GenericPointer",
        39 => "Int8",
        61 => "GroupNonUniform",
        62 => "GroupNonUniformVote",
        63 => "GroupNonUniformArithmetic",
        64 => "GroupNonUniformBallot",
        65 => "GroupNonUniformShuffle",
        66 => "GroupNonUniformShuffleRelative",
        67 => "GroupNonUniformClustered",
        4467 => "DenormPreserve",
        4468 => "DenormFlushToZero",
        4469 => "SignedZeroInfNanPreserve",
        4470 => "RoundingModeRTE",
        4471 => "RoundingModeRTZ",
        5568 => "SubgroupShuffleINTEL",
        5569 => "SubgroupBufferBlockIOINTEL",
        5584 => "FunctionPointersINTEL",
        5603 => "AsmINTEL",
        5606 => "VectorComputeINTEL",
        5629 => "VariableLengthArrayINTEL",
        5817 => "ExpectAssumeKHR",
        5892 => "KernelAttributesINTEL",
        6025 => "LongCompositesINTEL",
        6033 => "AtomicFloat32AddEXT",
        6034 => "AtomicFloat64AddEXT",
        6095 => "AtomicFloat16AddEXT",
        6400 => "GroupUniformArithmeticKHR",
        _ => return format!("capability {c}"),
    };
    name.to_string()
}

/// Name of an execution model, or its number.
pub fn execution_model_name(m: u32) -> String {
    match m {
        0 => "Vertex".into(),
        4 => "Fragment".into(),
        5 => "GLCompute".into(),
        6 => "Kernel".into(),
        _ => format!("execution model {m}"),
    }
}

/// Names of an `OpMemoryModel`'s addressing and memory models.
pub fn memory_model_names(addressing: u32, memory: u32) -> (String, String) {
    let a = match addressing {
        0 => "Logical".into(),
        1 => "Physical32".into(),
        2 => "Physical64".into(),
        5348 => "PhysicalStorageBuffer64".into(),
        _ => format!("addressing {addressing}"),
    };
    let m = match memory {
        0 => "Simple".into(),
        1 => "GLSL450".into(),
        2 => "OpenCL".into(),
        3 => "Vulkan".into(),
        _ => format!("memory model {memory}"),
    };
    (a, m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    fn header() -> Vec<u32> {
        vec![MAGIC, 0x0001_0600, 43 << 16 | 1, 100, 0]
    }

    #[test]
    fn reads_declarations() {
        let mut w = header();
        w.extend([2 << 16 | 17, 6, 2 << 16 | 17, 11]);
        w.extend([3 << 16 | 14, 2, 2]);
        // OpEntryPoint Kernel %7 "axpy"
        w.extend([5 << 16 | 15, 6, 7, u32::from_le_bytes(*b"axpy"), 0]);
        let m = Module::parse(&module(&w)).expect("little-endian module");
        assert_eq!(m.version, (1, 6));
        assert_eq!(m.generator.tool(), 43);
        assert_eq!(m.capabilities, [6, 11]);
        assert_eq!(m.memory_model, Some((2, 2)));
        assert_eq!(m.kernels().collect::<Vec<_>>(), ["axpy"]);
        assert_eq!(m.instructions, 4);
        // Big-endian words read the same.
        let be: Vec<u8> = w.iter().flat_map(|x| x.to_be_bytes()).collect();
        let mb = Module::parse(&be).expect("big-endian module");
        assert!(mb.big_endian);
        assert_eq!(mb.entry_points, m.entry_points);
    }

    #[test]
    fn malformed_streams_are_typed_errors() {
        assert_eq!(
            Module::parse(&[3, 2, 0x23]),
            Err(SpirvError::TooShort { len: 3 })
        );
        let mut w = header();
        w[0] = 0x7f45_4c46;
        assert_eq!(
            Module::parse(&module(&w)),
            Err(SpirvError::BadMagic { found: 0x7f45_4c46 })
        );
        let mut w = header();
        w.push(17);
        assert_eq!(
            Module::parse(&module(&w)),
            Err(SpirvError::ZeroWordCount {
                offset: 5,
                opcode: 17
            })
        );
        let mut w = header();
        w.extend([9 << 16 | 15, 6]);
        assert_eq!(
            Module::parse(&module(&w)),
            Err(SpirvError::Truncated {
                offset: 5,
                opcode: 15,
                count: 9,
                remaining: 2
            })
        );
        let mut w = header();
        w.extend([4 << 16 | 15, 6, 7, u32::from_le_bytes(*b"axpy")]);
        assert_eq!(
            Module::parse(&module(&w)),
            Err(SpirvError::BadString {
                offset: 5,
                opcode: 15
            })
        );
        let mut w = header();
        w.extend([1 << 16 | 17]);
        assert_eq!(
            Module::parse(&module(&w)),
            Err(SpirvError::MissingOperands {
                offset: 5,
                opcode: 17,
                count: 1,
                needed: 2
            })
        );
        let mut b = module(&header());
        b.push(0);
        assert_eq!(Module::parse(&b), Err(SpirvError::NotWords { len: 21 }));
    }
}

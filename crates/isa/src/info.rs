//! Instruction queries for analysis and instrumentation: control flow,
//! registers read and written (explicit and implicit), memory class and
//! the `s_waitcnt` counters an instruction increments.

use crate::inst::Instruction;
use crate::opcode::{flags, Encoding, Field, Kind};
use crate::operand::Operand;
use crate::reg::{sreg, RegFile, RegRange};

/// What kind of memory an instruction accesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum MemoryClass {
    /// No memory access.
    None,
    /// Scalar memory (SMEM).
    Scalar,
    /// Local data share (DS).
    Lds,
    /// Global data share (DS with `gds`).
    Gds,
    /// Global memory (GLOBAL).
    Global,
    /// Generic flat address (FLAT).
    Flat,
    /// Private/scratch memory (SCRATCH).
    Scratch,
    /// Buffer resource (MUBUF/MTBUF).
    Buffer,
    /// Image resource (MIMG).
    Image,
}

/// How an instruction touches a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RegAccess {
    /// The registers.
    pub reg: RegRange,
    /// Read.
    pub read: bool,
    /// Written.
    pub write: bool,
    /// Not printed: implied by the opcode (`exec`, `vcc`, `scc`, `m0`).
    pub implicit: bool,
}

/// Counters an instruction increments (each needs an `s_waitcnt` before its
/// results may be used).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Waitcnt {
    /// VM_CNT (vector memory).
    pub vm: bool,
    /// LGKM_CNT (LDS, GDS, constant/scalar memory, messages).
    pub lgkm: bool,
    /// EXP_CNT (exports, GDS).
    pub exp: bool,
}

/// The scalar condition code, as a pseudo register (the `src_scc` encoding).
pub const SCC: RegRange = RegRange::sgpr(sreg::SRC_SCC, 1);

impl Instruction {
    /// For PC-relative branches (`s_branch`, `s_cbranch_*`, `s_call_b64`,
    /// `s_cbranch_i_fork`) at address `addr`, the target address.
    pub fn branch_target(&self, addr: u64) -> Option<u64> {
        if self.is_invalid() {
            return None;
        }
        for op in self.operands().iter() {
            if let (Kind::Branch, Operand::Branch(d)) = (op.spec.kind, op.value) {
                return Some(addr.wrapping_add(4).wrapping_add((d as i64 * 4) as u64));
            }
        }
        None
    }

    /// Unconditional or conditional PC-relative branch.
    pub fn is_branch(&self) -> bool {
        self.has(flags::BRANCH | flags::CBRANCH)
    }

    /// Conditional branch (`s_cbranch_*`).
    pub fn is_cond_branch(&self) -> bool {
        self.has(flags::CBRANCH)
    }

    /// Call (`s_call_b64`, `s_swappc_b64`).
    pub fn is_call(&self) -> bool {
        self.has(flags::CALL)
    }

    /// Indirect jump or return (`s_setpc_b64`, `s_swappc_b64`, `s_rfe_b64`).
    pub fn is_indirect_branch(&self) -> bool {
        self.has(flags::INDIRECT)
    }

    /// Return: `s_setpc_b64` (how functions return on AMDGPU; GFX12.5
    /// names it `s_set_pc_i64`).
    pub fn is_return(&self) -> bool {
        // By name: each generation has its own entry (opcode value).
        matches!(self.opcode.name(), "s_setpc_b64" | "s_set_pc_i64")
    }

    /// Ends a basic block: `s_endpgm*`, branches, `s_setpc_b64`,
    /// `s_swappc_b64`, `s_rfe_b64`, `s_trap`.
    pub fn is_terminator(&self) -> bool {
        self.has(flags::BRANCH | flags::CBRANCH | flags::ENDPGM | flags::TRAP | flags::INDIRECT)
            || matches!(self.opcode.name(), "s_call_b64" | "s_call_i64")
    }

    /// The memory class accessed.
    pub fn memory_class(&self) -> MemoryClass {
        match self.encoding() {
            Encoding::Smem => MemoryClass::Scalar,
            Encoding::Ds => {
                if self.bit(16) && self.has(flags::GDS) {
                    MemoryClass::Gds
                } else if self.has(flags::LOAD | flags::STORE | flags::ATOMIC) {
                    MemoryClass::Lds
                } else {
                    MemoryClass::None
                }
            }
            Encoding::Flat => MemoryClass::Flat,
            Encoding::Global => MemoryClass::Global,
            Encoding::Scratch => MemoryClass::Scratch,
            Encoding::Mubuf | Encoding::Mtbuf => MemoryClass::Buffer,
            Encoding::Mimg | Encoding::MimgGfx10 | Encoding::MimgHiGfx10 | Encoding::MimgGfx11 => {
                MemoryClass::Image
            }
            _ => MemoryClass::None,
        }
    }

    /// Loads from memory.
    pub fn is_load(&self) -> bool {
        self.has(flags::LOAD)
    }
    /// Stores to memory.
    pub fn is_store(&self) -> bool {
        self.has(flags::STORE)
    }
    /// Atomic read-modify-write.
    pub fn is_atomic(&self) -> bool {
        self.has(flags::ATOMIC)
    }

    /// The counters this instruction increments.
    pub fn waitcnt(&self) -> Waitcnt {
        Waitcnt {
            vm: self.has(flags::VM_CNT),
            lgkm: self.has(flags::LGKM_CNT),
            exp: self.has(flags::EXP_CNT),
        }
    }

    /// Calls `f` for every register the instruction reads or writes,
    /// explicit operands first, then implicit ones (`exec`, `vcc`, `scc`
    /// as [`SCC`], `m0`). Inline-constant "registers" are skipped.
    pub fn for_each_reg(&self, mut f: impl FnMut(RegAccess)) {
        if self.is_invalid() {
            return;
        }
        for op in self.operands().iter() {
            let Operand::Reg(r) = op.value else { continue };
            if r.file == RegFile::Scalar && r.first >= 235 {
                // src_* inline values: src_vccz/src_execz/src_scc read state.
                let reg = match r.first {
                    sreg::SRC_VCCZ => RegRange::VCC,
                    sreg::SRC_EXECZ => RegRange::EXEC,
                    sreg::SRC_SCC => SCC,
                    sreg::SRC_LDS_DIRECT => RegRange::M0,
                    _ => continue,
                };
                f(RegAccess {
                    reg,
                    read: true,
                    write: false,
                    implicit: false,
                });
                continue;
            }
            if r.file == RegFile::Scalar && r.first == sreg::NULL {
                continue;
            }
            f(RegAccess {
                reg: r,
                read: op.spec.is_read() || op.spec.field == Field::Implicit,
                write: op.spec.is_write() && op.spec.field != Field::Implicit,
                implicit: false,
            });
        }
        // A dual-issue word's implicit registers are both halves' (D57).
        let fl = self.flags() | self.vopd_y().map_or(0, |y| y.info().flags(self.target));
        let mut imp = |reg: RegRange, read: u64, write: u64| {
            let (r, w) = (fl & read != 0, fl & write != 0);
            if r || w {
                f(RegAccess {
                    reg,
                    read: r,
                    write: w,
                    implicit: true,
                });
            }
        };
        imp(RegRange::EXEC, flags::READS_EXEC, flags::WRITES_EXEC);
        // VOPC SDWA with an explicit sdst does not write vcc.
        let vcc_w = if self.encoding() == Encoding::VopcSdwa && self.bit(32 + 15) {
            0
        } else {
            flags::WRITES_VCC
        };
        imp(RegRange::VCC, flags::READS_VCC, vcc_w);
        imp(SCC, flags::READS_SCC, flags::WRITES_SCC);
        imp(RegRange::M0, flags::READS_M0, flags::WRITES_M0);
    }

    /// Registers read (explicit and implicit), as a small inline list.
    pub fn regs_read(&self) -> RegList {
        let mut l = RegList::default();
        self.for_each_reg(|a| {
            if a.read {
                l.push(a.reg)
            }
        });
        l
    }

    /// Registers written (explicit and implicit).
    pub fn regs_written(&self) -> RegList {
        let mut l = RegList::default();
        self.for_each_reg(|a| {
            if a.write {
                l.push(a.reg)
            }
        });
        l
    }
}

/// A short inline list of register ranges.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegList {
    regs: [Option<RegRange>; 10],
    len: u8,
}

impl RegList {
    fn push(&mut self, r: RegRange) {
        if let Some(s) = self.regs.get_mut(self.len as usize) {
            *s = Some(r);
            self.len += 1;
        }
    }
    /// Iterates the registers.
    pub fn iter(&self) -> impl Iterator<Item = RegRange> + '_ {
        self.regs.iter().take(self.len as usize).flatten().copied()
    }
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.len as usize
    }
    /// True if empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// True if any entry overlaps `r`.
    pub fn contains(&self, r: RegRange) -> bool {
        self.iter().any(|x| x.overlaps(&r))
    }
}

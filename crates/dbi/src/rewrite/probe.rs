//! The probe interface ([`Probe`], [`ProbeCx`], [`SymRef`]) and the
//! built-in counting and kernarg probes.

use lathe_isa::{BuildError, Instruction, Opcode, Operand, Target};

use crate::asm::*;
use crate::lift::FunctionKind;
use crate::live::RegSet;
use crate::scratch::ScratchCx;

/// What a probe knows about its site.
#[derive(Debug, Clone, Copy)]
pub struct ProbeCx<'a> {
    /// ISA target.
    pub target: Target,
    /// Registers reserved for probes.
    pub regs: &'a Reserved,
    /// Byte offset of this site's slot in the probe-data buffer.
    pub slot: u32,
    /// Registers live at the site (before the probe).
    pub live: RegSet,
    /// The kernel's kernarg-pointer SGPR pair, at kernel entry.
    pub kernarg_sgpr: Option<u16>,
    /// The kernel's kernarg segment size (descriptor).
    pub kernarg_size: u32,
    /// Function kind.
    pub kind: FunctionKind,
    /// Byte offset of the request's shared region ([`Probe::shared_bytes`]).
    pub shared: u32,
    /// Site number (index in [`Instrumented::sites`]).
    pub site: u32,
    /// The instruction the site is attached to.
    pub inst: Instruction,
    /// Scratch for the probe, when its request asked for some
    /// ([`Probe::scratch_bytes`]).
    pub scratch: Option<ScratchCx>,
    /// Original address of [`ProbeCx::inst`].
    pub pc: u64,
    /// Index of the site's function in the lifted program.
    pub function_index: usize,
    /// Index of [`ProbeCx::inst`] in its function.
    pub inst_index: usize,
    /// [`ProbeCx::scratch`]'s area is relative to the stack pointer `s32`
    /// (per lane, architected flat scratch) rather than to the wave's
    /// scratch base: the kernel's stack is dynamic and the probe said it
    /// can work that way ([`Probe::scratch_at_stack_pointer`]).
    pub scratch_sp: bool,
}

/// A reference from probe code to a symbol of another code object: the
/// `s_add_u32`/`s_addc_u32` pair at `add`/`add + 1` (indices into the
/// probe's instructions, both with a literal) adds `symbol - (pc after the
/// s_getpc_b64 at getpc)` to the `s_getpc_b64` result. The rewriter writes
/// `R_AMDGPU_REL32_LO`/`_HI` relocations against `symbol` (an undefined
/// symbol the loader resolves across code objects, [`crate::elfout`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymRef {
    /// Index of the `s_getpc_b64`.
    pub getpc: usize,
    /// Index of the `s_add_u32` (the `s_addc_u32` follows it).
    pub add: usize,
    /// Symbol name.
    pub symbol: String,
}

/// A probe: machine code for one site.
pub trait Probe: std::fmt::Debug + Send + Sync {
    /// Bytes of probe data each site needs.
    fn slot_bytes(&self) -> u32;
    /// Bytes of probe data shared by all sites of the request (a ring
    /// buffer, say), allocated once.
    fn shared_bytes(&self) -> u32 {
        0
    }
    /// Bytes of scratch (per lane) the probe needs at its sites; the
    /// rewriter enables and grows the private segment of every kernel the
    /// request covers ([`crate::scratch`]) and passes the area in
    /// [`ProbeCx::scratch`].
    fn scratch_bytes(&self) -> u32 {
        0
    }
    /// Appends the probe's instructions.
    fn emit(&self, cx: &ProbeCx<'_>, out: &mut Vec<Instruction>) -> Result<(), BuildError>;
    /// Appends the probe's instructions and the symbol references among
    /// them ([`SymRef`], indices relative to `out`'s length on entry).
    /// The rewriter calls this one; by default it is [`Probe::emit`].
    fn emit_linked(
        &self,
        cx: &ProbeCx<'_>,
        out: &mut Vec<Instruction>,
        syms: &mut Vec<SymRef>,
    ) -> Result<(), BuildError> {
        let _ = syms;
        self.emit(cx, out)
    }
    /// The probe can take its scratch above the stack pointer `s32`
    /// (relative to it, [`ProbeCx::scratch_sp`]), as a callee would: kernels
    /// whose stack is dynamic then get probes too, on processors with
    /// architected flat scratch, where `s32` is set.
    fn scratch_at_stack_pointer(&self) -> bool {
        false
    }
    /// The probe calls code outside the code object (a hook): its
    /// component's reserved registers are then taken from the registers
    /// the AMDGPU calling convention makes callee-saved.
    fn calls_external(&self) -> bool {
        false
    }
}

/// Adds 1 to a 64-bit wave counter at the slot and, with `lanes`, the
/// number of active lanes to a second counter 8 bytes later. One lane does
/// it (EXEC saved, set to lane 0, restored), so inactive waves (EXEC = 0)
/// count too. Touches no SCC/VCC/M0.
#[derive(Debug, Clone, Copy)]
pub struct CounterProbe {
    /// Also count active lanes.
    pub lanes: bool,
}

impl Probe for CounterProbe {
    fn slot_bytes(&self) -> u32 {
        if self.lanes {
            16
        } else {
            8
        }
    }
    fn emit(&self, cx: &ProbeCx<'_>, out: &mut Vec<Instruction>) -> Result<(), BuildError> {
        let (t, r) = (cx.target, cx.regs);
        exec_one(t, r, out)?;
        let (va, off) = slot_address(t, r, cx.slot, 8, out)?;
        out.push(atomic_add_x2(t, r, va, r.vdata, off)?);
        if self.lanes {
            out.push(build(
                t,
                Opcode::V_BCNT_U32_B32,
                &[vreg(r.vcnt, 1), sreg(r.save, 1), Operand::Int(0)],
            )?);
            // EXEC's high half (wave64 only).
            if mask_sgprs(t) == 2 {
                out.push(build(
                    t,
                    Opcode::V_BCNT_U32_B32,
                    &[vreg(r.vcnt, 1), sreg(r.save + 1, 1), vreg(r.vcnt, 1)],
                )?);
            }
            out.push(atomic_add_x2(t, r, va, r.vcnt, off + 8)?);
        }
        exec_restore(t, r, out)
    }
}

/// Copies the kernel's kernarg segment (`bytes` bytes) into the slot at
/// kernel entry, as the kernel sees it (hidden arguments included).
#[derive(Debug, Clone, Copy)]
pub struct KernargProbe {
    /// Bytes to copy (a multiple of 4).
    pub bytes: u32,
}

impl Probe for KernargProbe {
    fn slot_bytes(&self) -> u32 {
        self.bytes.next_multiple_of(4)
    }
    fn emit(&self, cx: &ProbeCx<'_>, out: &mut Vec<Instruction>) -> Result<(), BuildError> {
        let Some(ka) = cx.kernarg_sgpr else {
            return Ok(());
        };
        let (t, r) = (cx.target, cx.regs);
        exec_one(t, r, out)?;
        for k in 0..self.bytes.min(cx.kernarg_size).div_ceil(4) {
            out.push(smem_load(t, Opcode::S_LOAD_DWORD, r.tmp, ka, 4 * k)?);
            out.push(waitcnt(t, 63, 0)?);
            out.push(build(
                t,
                Opcode::V_MOV_B32_E32,
                &[vreg(r.vtmp, 1), sreg(r.tmp, 1)],
            )?);
            out.push(build(
                t,
                Opcode::V_MOV_B32_E32,
                &[vreg(r.vcnt, 1), konst(cx.slot + 4 * k)],
            )?);
            out.push(build(
                t,
                Opcode::GLOBAL_STORE_DWORD,
                &[vreg(r.vcnt, 1), vreg(r.vtmp, 1), sreg(r.ptr, 2)],
            )?);
        }
        exec_restore(t, r, out)
    }
}

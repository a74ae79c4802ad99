//! The rewriter: sites, probes, registers for probes, layout and the new
//! code object.
//!
//! **Sites** ([`Where`]) are chosen by a [`Selector`] (kernel-name regex,
//! instruction class, opcode-name regex, address range). Functions reached
//! by calls from a selected kernel are instrumented too.
//!
//! **Probes** ([`Probe`]) are machine code built with `lathe-isa`'s encoder
//! from a [`ProbeCx`]: the registers reserved for probes and the byte
//! offset of the site's slot in the probe-data buffer. A probe must leave
//! every register other than the reserved ones as it found it (EXEC
//! included); the built-in probes never touch SCC, VCC or M0, so sites
//! where those are live need no saving.
//!
//! **Registers.** Per call-graph component, probes get registers no
//! instruction of the component reads or writes (and no initial SGPR):
//! dead everywhere, so nothing has to be saved. The kernel descriptors'
//! VGPR/SGPR counts (and `ACCUM_OFFSET`, which moves the AGPRs without
//! changing their names) grow to cover them. Without free SGPRs the
//! component uses lane mode ([`Reserved::vstate`]: SGPRs borrowed per site,
//! dead ones first, live ones saved in VGPR lanes). Without free VGPRs,
//! probe VGPRs are chosen per site (dead ones first, live ones spilled to
//! the probe scratch area around the probe, [`crate::scratch`]); with
//! neither, the lane-mode state VGPR is loaded from scratch at each site.
//! Probes can ask for scratch ([`Probe::scratch_bytes`]).
//!
//! **Layout.** Every function is re-emitted into a new code section (the
//! original code stays where it was, unused): branches are re-targeted to
//! the new positions (to the start of the probes of their target, so block
//! entry probes run on every entry); `s_getpc_b64`-relative computations
//! are re-based (the literal of the recognised `s_add_u32`/`s_addc_u32`
//! pair is recomputed; a bare `s_getpc_b64` gets a correcting add with SCC
//! saved); call targets are mapped to the new copies of their callees; a
//! branch whose distance no longer fits ±2^15 dwords becomes a long jump
//! (`s_getpc_b64`/add/`s_setpc_b64`, SCC saved). Probes add memory
//! operations only after the program's own, and vector-memory counters
//! drain in order, so the program's `s_waitcnt`s stay sufficient. A site
//! inside an `s_set_gpr_idx_on` region gets `s_set_gpr_idx_off` before its
//! probe and `s_set_gpr_idx_on m0, <mode>` after it (D19), so the probe's
//! VALU operands are not re-indexed.
//!
//! **Phases.** [`instrument_lifted_with`] plans (`plan.rs`), builds each
//! function's items (`items.rs`), lays the code out with relaxation and
//! encodes it (`layout.rs`), then patches descriptors and metadata
//! (`patch.rs`) for [`crate::elfout`].

use lathe_codeobj::CodeObject;

use crate::elfout::{self};
use crate::lift::Program;
use crate::live::Liveness;
use crate::Error;

mod items;
mod layout;
mod memtrace;
mod patch;
mod plan;
mod prepare;
mod probe;
mod regs;
mod site;

pub use crate::asm::{
    atomic_add_x2, build, build_m, exec_one, exec_restore, preset_vgprs, smem_load, waitcnt,
    Reserved,
};
use items::function_code;
pub use memtrace::{
    GroupSizeAt, MemTraceEntry, MemTraceProbe, WaveIdSource, TRACE_RECORD, WAVE_ID_BYTES,
};
pub use plan::Options;
use plan::RewritePlan;
pub use prepare::Prepared;
pub use probe::{CounterProbe, KernargProbe, Probe, ProbeCx, SymRef};
pub use site::{writes_exec, InstClass, Request, Selector, Site, Where};

use layout::{emit, relax, FnCode};
pub use patch::KernelScratch;
use patch::{patch_kernels, Patched};

/// The result of instrumenting.
#[derive(Debug, Clone)]
pub struct Instrumented {
    /// The new code object.
    pub code_object: Vec<u8>,
    /// Sites, in order.
    pub sites: Vec<Site>,
    /// Bytes of probe data a dispatch needs.
    pub data_size: u64,
    /// Reserved registers.
    pub regs: Reserved,
    /// New address of each function.
    pub function_addrs: Vec<u64>,
    /// Long jumps created by relaxation.
    pub relaxed_branches: usize,
    /// (new address, original address) of every original instruction.
    pub addr_map: Vec<(u64, u64)>,
    /// Kernels left without probes, and why (no registers to spare in
    /// their call-graph component, or no scratch for them).
    pub skipped: Vec<(String, String)>,
    /// Kernels given probe scratch.
    pub scratch: Vec<KernelScratch>,
    /// Sites whose probe registers were spilled to scratch (VGPRs stored
    /// and reloaded around the probe).
    pub spilled_sites: usize,
    /// Relocations against symbols of other code objects (hooks), as
    /// written to [`elfout::RELA_SECTION`].
    pub relocs: Vec<elfout::Reloc>,
}

/// Instruments `bytes` (an AMDGPU code object) with `requests`.
pub fn instrument(bytes: &[u8], requests: &[Request]) -> Result<Instrumented, Error> {
    let co = CodeObject::parse(bytes)?;
    let p = Program::lift(&co)?;
    let live = Liveness::compute(&p);
    instrument_lifted(&co, &p, &live, requests)
}

/// [`instrument`] on an already lifted program.
pub fn instrument_lifted(
    co: &CodeObject<'_>,
    p: &Program,
    live: &Liveness,
    requests: &[Request],
) -> Result<Instrumented, Error> {
    instrument_lifted_with(co, p, live, requests, &Options::default())
}

/// [`instrument_lifted`] with options.
pub fn instrument_lifted_with(
    co: &CodeObject<'_>,
    p: &Program,
    live: &Liveness,
    requests: &[Request],
    opts: &Options,
) -> Result<Instrumented, Error> {
    // Probes and register reuse follow the target's wave size and
    // encodings on GFX9 and GFX10 (D78); GFX11+ is not done (issue 23).
    if !matches!(p.target.generation(), 9 | 10) {
        return Err(Error::NotInstrumentable(p.target.name().to_string()));
    }
    let prep = Prepared::new(co, p, live)?;
    instrument_prepared(&prep, co, p, live, requests, opts)
}

/// [`instrument_lifted_with`] with the request-independent work done
/// once ([`Prepared`], made from the same `co`, `p` and `live`): for
/// instrumenting one code object many times. The output is the same as
/// [`instrument_lifted_with`]'s.
pub fn instrument_prepared(
    prep: &Prepared<'_>,
    co: &CodeObject<'_>,
    p: &Program,
    live: &Liveness,
    requests: &[Request],
    opts: &Options,
) -> Result<Instrumented, Error> {
    // Probes and register reuse follow the target's wave size and
    // encodings on GFX9 and GFX10 (D78); GFX11+ is not done (issue 23).
    if !matches!(p.target.generation(), 9 | 10) {
        return Err(Error::NotInstrumentable(p.target.name().to_string()));
    }
    if !prep.fits(p) {
        return Err(Error::Prepared);
    }
    let plan = RewritePlan::new(prep, p, requests, opts)?;
    // Build items.
    let mut sites: Vec<Site> = Vec::new();
    let mut slot: u32 = 0;
    let mut shared_off = vec![0u32; requests.len()];
    for (ri, r) in requests.iter().enumerate() {
        shared_off[ri] = slot;
        slot += r.probe.shared_bytes().next_multiple_of(8);
    }
    let mut code: Vec<FnCode> = Vec::with_capacity(p.functions.len());
    let spilled = std::cell::Cell::new(0usize);
    for fi in 0..p.functions.len() {
        code.push(function_code(
            &plan,
            p,
            live,
            requests,
            &shared_off,
            fi,
            &mut sites,
            &mut slot,
            &spilled,
        )?);
    }
    let (lay, starts, relaxed) = relax(co, &mut code);
    let emitted = emit(p, plan.first_regs, &code, &starts, lay)?;
    let fn_new = emitted.fn_new.clone();
    let Patched {
        patch,
        scratch,
        addr_map,
    } = patch_kernels(co, p, &plan, &code, emitted)?;
    let relocs = patch.relocs.clone();
    let code_object = elfout::write(co.data(), lay, &patch)?;
    Ok(Instrumented {
        code_object,
        sites,
        data_size: u64::from(slot).max(8),
        regs: plan.first_regs,
        function_addrs: fn_new,
        relaxed_branches: relaxed,
        addr_map,
        skipped: plan.skipped,
        scratch,
        spilled_sites: spilled.get(),
        relocs,
    })
}

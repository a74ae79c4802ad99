//! What a rewrite of one code object needs whatever the requests are,
//! computed once ([`Prepared`]): symbols and kernel descriptors, the call
//! graph's components and what each component's code reads and writes,
//! what each function reaches through calls, and each instruction's text
//! (for [`super::Site::inst`], printed on first use). A caller
//! instrumenting the same code object many times (the `dbi_sites`
//! fuzzer, a tool trying several selections) builds it once and passes it
//! to [`super::instrument_prepared`]; [`super::instrument_lifted_with`]
//! builds a fresh one per call. The output is byte for byte the same
//! either way (`crates/dbi/tests/rewrite_order.rs`).
//!
//! Nothing in it depends on the requests or [`super::Options`], and
//! nothing in it changes after [`Prepared::new`] (the instruction texts
//! are filled at most once each, with the instruction's own text), so
//! one rewrite cannot leak into the next.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

use lathe_codeobj::kd::{KdArch, KernelDescriptor, SgprRole};
use lathe_codeobj::symbols::Symbols;
use lathe_codeobj::CodeObject;
use lathe_isa::{RegRange, Target};

use super::regs::components;
use crate::lift::Program;
use crate::live::{Effects, Liveness, RegSet};
use crate::Error;

/// The request-independent half of a rewrite of one lifted code object
/// (see the module docs).
#[derive(Debug)]
pub struct Prepared<'a> {
    /// The processor's descriptor layout.
    pub(crate) arch: KdArch,
    /// ISA target.
    pub(crate) t: Target,
    /// Call-graph component of each function.
    pub(crate) comp: Vec<usize>,
    /// Number of components.
    pub(crate) ncomp: usize,
    /// What each instruction reads and writes, per function.
    pub(crate) effs: Vec<Cow<'a, [Effects]>>,
    /// Registers each component reads or writes, with v[0:3] and the
    /// kernels' initial SGPRs (before any option or scratch plan adds
    /// to them).
    pub(crate) comp_used: Vec<RegSet>,
    /// Components calling functions outside the code object.
    pub(crate) comp_external: Vec<bool>,
    /// The code object's symbols.
    pub(crate) syms: Symbols<'a>,
    /// Kernel descriptors by function index.
    pub(crate) kd_of: Vec<(usize, KernelDescriptor)>,
    /// Functions reachable from each function through calls, itself
    /// first ([`crate::cfg::reachable`]).
    pub(crate) reach: Vec<Vec<usize>>,
    /// Kernarg-pointer SGPR per kernel.
    pub(crate) kernarg_sgpr: HashMap<&'a str, u16>,
    /// Kernarg segment size per kernel.
    pub(crate) kernarg_size: HashMap<&'a str, u32>,
    /// (kernel, descriptor address, descriptor) of every kernel.
    pub(crate) descriptors: Vec<(&'a str, u64, KernelDescriptor)>,
    /// Each instruction as printed, per function, filled on first use.
    text: Vec<Vec<OnceLock<String>>>,
    /// Shape of the program it was made for: (function count,
    /// instruction count, first address), checked on every use.
    shape: (usize, usize, u64),
}

fn shape_of(p: &Program) -> (usize, usize, u64) {
    (
        p.functions.len(),
        p.functions.iter().map(|f| f.insts.len()).sum(),
        p.functions.first().map_or(0, |f| f.addr),
    )
}

impl<'a> Prepared<'a> {
    /// Prepares rewrites of `p`, lifted from `co`, with its liveness
    /// `live`. Use it only with that `co`, `p` and `live`.
    pub fn new(
        co: &CodeObject<'a>,
        p: &Program,
        live: &'a Liveness,
    ) -> Result<Prepared<'a>, Error> {
        let tid = co.target().ok_or(Error::NoTarget)?;
        let arch = KdArch::for_processor(tid.processor);
        let t = p.target;
        // Registers are reserved per component of the call graph
        // (functions that call each other share their reservation).
        let comp = components(p);
        let ncomp = comp.iter().copied().max().map_or(0, |m| m + 1);
        // What each instruction reads and writes (from the liveness, else
        // computed).
        let effs: Vec<Cow<'a, [Effects]>> = p
            .functions
            .iter()
            .enumerate()
            .map(|(fi, f)| match live.functions.get(fi) {
                Some(l) if l.effects.len() == f.insts.len() => Cow::Borrowed(&l.effects[..]),
                _ => f
                    .insts
                    .iter()
                    .map(|x| crate::live::effects(&x.inst))
                    .collect(),
            })
            .collect();
        let mut comp_used = vec![RegSet::default(); ncomp];
        for (fi, fe) in effs.iter().enumerate() {
            let u = &mut comp_used[comp[fi]];
            for e in fe.iter() {
                *u = u.union(&e.uses).union(&e.defs);
            }
            u.add(RegRange::vgpr(0, 3));
        }
        let syms = co.symbols()?;
        let mut kd_of: Vec<(usize, KernelDescriptor)> = Vec::new();
        for k in syms.kernels() {
            if let (Ok(d), Some(fi)) = (&k.descriptor, p.function(k.name)) {
                for s in d.initial_sgprs(arch) {
                    comp_used[comp[fi]].add(RegRange::sgpr(s.first as u16, s.count as u8));
                }
                kd_of.push((fi, *d));
            }
        }
        let mut comp_external = vec![false; ncomp];
        for (fi, f) in p.functions.iter().enumerate() {
            if f.calls.iter().any(|c| c.callee.is_none()) {
                comp_external[comp[fi]] = true;
            }
        }
        let reach = (0..p.functions.len())
            .map(|fi| crate::cfg::reachable(p, fi))
            .collect();
        let mut kernarg_sgpr: HashMap<&'a str, u16> = HashMap::new();
        let mut kernarg_size: HashMap<&'a str, u32> = HashMap::new();
        let mut descriptors = Vec::new();
        for k in syms.kernels() {
            let (Ok(d), Some(ds)) = (&k.descriptor, &k.descriptor_symbol) else {
                continue;
            };
            if let Some(s) = d
                .initial_sgprs(arch)
                .iter()
                .find(|s| s.role == SgprRole::KernargSegmentPtr)
            {
                kernarg_sgpr.insert(k.name, s.first as u16);
            }
            kernarg_size.insert(k.name, d.kernarg_size);
            descriptors.push((k.name, ds.value, *d));
        }
        let text = p
            .functions
            .iter()
            .map(|f| f.insts.iter().map(|_| OnceLock::new()).collect())
            .collect();
        Ok(Prepared {
            arch,
            t,
            comp,
            ncomp,
            effs,
            comp_used,
            comp_external,
            syms,
            kd_of,
            reach,
            kernarg_sgpr,
            kernarg_size,
            descriptors,
            text,
            shape: shape_of(p),
        })
    }

    /// Whether this was prepared for a program of `p`'s shape (function
    /// and instruction counts, first address).
    pub(crate) fn fits(&self, p: &Program) -> bool {
        self.shape == shape_of(p)
    }

    /// Instruction `i` of function `fi` of `p` as printed.
    pub(crate) fn inst_text(&self, p: &Program, fi: usize, i: usize) -> String {
        self.text[fi][i]
            .get_or_init(|| p.functions[fi].insts[i].inst.to_string())
            .clone()
    }
}

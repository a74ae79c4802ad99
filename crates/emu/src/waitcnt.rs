//! `s_waitcnt` tracking: which memory results a wave may use.
//!
//! The emulator completes every memory access when it issues, so a kernel
//! that reads a load's destination before the `s_waitcnt` that guarantees
//! the load returned would compute the right answer here and garbage on
//! hardware. This module keeps, per wave, the memory instructions still
//! outstanding in the hardware's sense and reports such a use as an error
//! instead.
//!
//! The model follows the GFX9 counters:
//!
//! * every vector memory access (MUBUF, MTBUF, GLOBAL, SCRATCH, FLAT)
//!   increments VM_CNT; accesses return in issue order;
//! * LDS, GDS, scalar memory (SMEM), messages and FLAT increment LGKM_CNT.
//!   LDS accesses return in order among themselves, as do GDS accesses;
//!   SMEM and the LGKM part of FLAT may return in any order;
//! * a counter saturates at its field's maximum (VM 63, LGKM 15, EXP 7):
//!   issue then stalls until one access returns.
//!
//! `s_waitcnt vmcnt(N)` waits until at most N accesses are outstanding, so
//! at least `count - N` of them returned — but not necessarily the ones a
//! program hopes. An access is *guaranteed* complete only if it is among
//! those in the worst case: when every access of another ordering class
//! returned first, an in-order access is complete if fewer than
//! `count - N - others` of its class precede it; an out-of-order access is
//! complete only at `N = 0`. A FLAT access counts on both counters and is
//! complete when either guarantees it. Exactly what is guaranteed is
//! retired; nothing more.
//!
//! A later instruction that reads or writes a register still owed by an
//! outstanding access is a [`Hazard`], reported with the `s_waitcnt` that
//! would have made it safe — except a later VM_CNT-only access writing the
//! result register of an earlier one: they return in issue order, so the
//! later result lands last (compilers emit two `buffer_load_dword v38`
//! with no wait between; HeCBench's fft does).
//!
//! The check runs for every instruction while anything is owed, so it is
//! built to say "no" fast: each instruction's registers carry per-file
//! spans ([`Regs`]) compared against the spans still owed before any
//! item-by-item walk, counters are kept rather than recounted, and an
//! `s_waitcnt` that retires nothing (waits at or above the counts) or
//! everything (waits for 0 on every counter in use) skips the worst-case
//! model. These shortcuts give exactly the model's answers.

use lathe_isa::{Instruction, RegAccess, RegRange};

/// The registers one instruction reads and writes, worked out once per
/// instruction (explicit and implicit).
#[derive(Debug, Clone, Copy)]
pub struct Regs {
    items: [Option<RegAccess>; 12],
    /// Per register file ([`file_slot`]), the lowest and highest register
    /// of any item (`lo > hi`: none): [`Tracker::check`]'s quick reject
    /// compares these with the owed spans instead of walking the items.
    span: [(u16, u16); 3],
    /// The instruction is a vector memory access counted on VM_CNT alone
    /// (MUBUF, MTBUF, GLOBAL, SCRATCH; not FLAT, which may also count on
    /// LGKM_CNT): its results return after those of every earlier such
    /// access, so writing a register one of them still owes is no hazard.
    in_order_vm: bool,
}

impl Regs {
    /// The registers `inst` touches.
    pub fn of(inst: &Instruction) -> Regs {
        let w = inst.waitcnt();
        let mut r = Regs {
            items: [None; 12],
            span: [EMPTY; 3],
            in_order_vm: w.vm && !w.lgkm && !w.exp,
        };
        let mut k = 0;
        inst.for_each_reg(|a| {
            if let Some(s) = r.items.get_mut(k) {
                *s = Some(a);
                k += 1;
                widen(&mut r.span[file_slot(a.reg.file)], a.reg);
            }
        });
        r
    }
    fn iter(&self) -> impl Iterator<Item = &RegAccess> {
        self.items.iter().map_while(Option::as_ref)
    }
}

impl Default for Regs {
    fn default() -> Self {
        Regs {
            items: [None; 12],
            span: [EMPTY; 3],
            in_order_vm: false,
        }
    }
}

/// A span holding no register.
const EMPTY: (u16, u16) = (u16::MAX, 0);

/// Widens span `s` to cover `r`.
fn widen(s: &mut (u16, u16), r: RegRange) {
    *s = (s.0.min(r.first), s.1.max(r.last()));
}

/// Whether two spans share a register.
fn overlap(a: (u16, u16), b: (u16, u16)) -> bool {
    a.0 <= b.1 && b.0 <= a.1
}

/// Which counter an access is charged to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counter {
    /// VM_CNT.
    Vm,
    /// LGKM_CNT.
    Lgkm,
    /// EXP_CNT.
    Exp,
}

impl Counter {
    /// Index into [`Tracker::counts`].
    fn slot(self) -> usize {
        match self {
            Counter::Vm => 0,
            Counter::Lgkm => 1,
            Counter::Exp => 2,
        }
    }
    fn name(self) -> &'static str {
        match self {
            Counter::Vm => "vmcnt",
            Counter::Lgkm => "lgkmcnt",
            Counter::Exp => "expcnt",
        }
    }
    /// The largest value the GFX9 `s_waitcnt` field holds.
    fn max(self) -> u32 {
        match self {
            Counter::Vm => 63,
            Counter::Lgkm => 15,
            Counter::Exp => 7,
        }
    }
}

/// Ordering class of an access on one counter: accesses of one in-order
/// class return in issue order among themselves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Vmem,
    Lds,
    Gds,
    Message,
    Export,
    /// May return in any order (SMEM, the LGKM part of FLAT).
    Unordered,
}

/// One outstanding memory instruction.
#[derive(Debug, Clone, Copy)]
struct Access {
    vm: Option<Class>,
    lgkm: Option<Class>,
    exp: Option<Class>,
    /// Registers the access still writes (its results), up to two ranges.
    dst: [Option<RegRange>; 2],
    pc: u64,
    inst: Instruction,
}

impl Access {
    fn class(&self, c: Counter) -> Option<Class> {
        match c {
            Counter::Vm => self.vm,
            Counter::Lgkm => self.lgkm,
            Counter::Exp => self.exp,
        }
    }
}

/// A use of a register before the access producing it is known complete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hazard {
    /// The register range used.
    pub reg: RegRange,
    /// `true` if the instruction writes it (its late result would clobber
    /// the write), `false` if it reads it.
    pub write: bool,
    /// The outstanding access (as printed) and its address.
    pub producer: String,
    /// Address of the outstanding access.
    pub producer_pc: u64,
    /// The wait that makes the use safe, e.g. `s_waitcnt vmcnt(1)`.
    pub needed: String,
}

impl std::fmt::Display for Hazard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {} while `{}` (pc {:#x}) may still be outstanding; needs {} first",
            if self.write { "overwrites" } else { "reads" },
            self.reg,
            self.producer,
            self.producer_pc,
            self.needed
        )
    }
}

/// The outstanding accesses of one wave, in issue order.
#[derive(Debug, Clone)]
pub struct Tracker {
    pending: Vec<Access>,
    /// How many pending accesses still owe registers (fast path: 0).
    owing: usize,
    /// Per register file (scalar, vector, accumulation), the lowest and
    /// highest register any pending access still owes: a register outside
    /// it is owed by none (the quick reject of [`Tracker::check`]).
    span: [(u16, u16); 3],
    /// Per register file, one bit per register (numbers below 256) that a
    /// pending access still owes: the exact test after the span's quick
    /// reject, before the item-by-item walk that names the producer.
    owed: [[u64; 4]; 3],
    /// Pending accesses charged to each counter ([`Counter::slot`]).
    counts: [u32; 3],
}

/// The [`Tracker::span`] slot of a register file.
fn file_slot(f: lathe_isa::RegFile) -> usize {
    match f {
        lathe_isa::RegFile::Scalar => 0,
        lathe_isa::RegFile::Vgpr => 1,
        lathe_isa::RegFile::Agpr => 2,
    }
}

/// The counter values an `s_waitcnt` immediate waits for (GFX9 layout:
/// vmcnt in bits 3:0 and 15:14, expcnt 6:4, lgkmcnt 11:8).
pub fn decode_gfx9(imm: u16) -> [(Counter, u32); 3] {
    let (vm, exp, lgkm) = lathe_isa::imm::waitcnt_fields(u32::from(imm));
    [
        (Counter::Vm, vm),
        (Counter::Exp, exp),
        (Counter::Lgkm, lgkm),
    ]
}

/// The counter values an `s_waitcnt` immediate waits for on `target`:
/// GFX9's layout ([`decode_gfx9`]) up to GFX10 (whose lgkmcnt has two more
/// bits, 13:12, that LLVM leaves at zero when it waits on it), GFX11's from
/// GFX11 on (vmcnt 15:10, lgkmcnt 9:4, expcnt 2:0).
pub fn decode_for(target: lathe_isa::Target, imm: u16) -> [(Counter, u32); 3] {
    if target.generation() < 11 {
        return decode_gfx9(imm);
    }
    let v = u32::from(imm);
    [
        (Counter::Vm, v >> 10 & 0x3f),
        (Counter::Exp, v & 7),
        (Counter::Lgkm, v >> 4 & 0x3f),
    ]
}

/// One counter field of a wait word: (counter, shift, mask).
type WaitField = (Counter, u32, u32);

/// GFX12's waits: one SOPP opcode (bits 22:16 of the word) per counter or
/// pair of counters, the count in the immediate, as (opcode, the model
/// counter each field waits on, the field's shift and mask). The model keeps
/// GFX9's three counters: GFX12's loads, stores, samples and BVH reads
/// (`loadcnt`, `storecnt`, `samplecnt`, `bvhcnt`) are vector memory and
/// wait on VM_CNT, LDS (`dscnt`) and scalar memory (`kmcnt`) on LGKM_CNT,
/// `expcnt` on EXP_CNT. Where GFX12 splits a GFX9 counter the model waits
/// for the other half too: it may retire an access the hardware would
/// still owe (a missed report), never keep one the hardware retired (D85).
const GFX12_WAITS: [(u32, [Option<WaitField>; 2]); 9] = [
    (0x40, [Some((Counter::Vm, 0, 0x3f)), None]), // s_wait_loadcnt
    (0x41, [Some((Counter::Vm, 0, 0x3f)), None]), // s_wait_storecnt
    (0x42, [Some((Counter::Vm, 0, 0x3f)), None]), // s_wait_samplecnt
    (0x43, [Some((Counter::Vm, 0, 0x7)), None]),  // s_wait_bvhcnt
    (0x44, [Some((Counter::Exp, 0, 0x7)), None]), // s_wait_expcnt
    (0x46, [Some((Counter::Lgkm, 0, 0x3f)), None]), // s_wait_dscnt
    (0x47, [Some((Counter::Lgkm, 0, 0x1f)), None]), // s_wait_kmcnt
    (
        0x48,
        [Some((Counter::Vm, 8, 0x3f)), Some((Counter::Lgkm, 0, 0x3f))],
    ), // loadcnt_dscnt
    (
        0x49,
        [Some((Counter::Vm, 8, 0x3f)), Some((Counter::Lgkm, 0, 0x3f))],
    ), // storecnt_dscnt
];

/// The counter values a wait instruction (its first word) waits for on
/// `target`: [`decode_for`]'s `s_waitcnt` immediate up to GFX11;
/// [`GFX12_WAITS`] from GFX12 on, a counter it does not name at `u32::MAX`
/// (no wait).
pub fn decode_word(target: lathe_isa::Target, word: u32) -> [(Counter, u32); 3] {
    if target.generation() < 12 {
        return decode_for(target, word as u16);
    }
    let mut out = [
        (Counter::Vm, u32::MAX),
        (Counter::Lgkm, u32::MAX),
        (Counter::Exp, u32::MAX),
    ];
    let op = word >> 16 & 0x7f;
    if let Some((_, fields)) = GFX12_WAITS.iter().find(|(o, _)| *o == op) {
        for &(c, shift, mask) in fields.iter().flatten() {
            out[c.slot()].1 = (word & 0xffff) >> shift & mask;
        }
    }
    out
}

impl Default for Tracker {
    fn default() -> Self {
        Tracker {
            pending: Vec::new(),
            owing: 0,
            span: [EMPTY; 3],
            owed: [[0; 4]; 3],
            counts: [0; 3],
        }
    }
}

impl Tracker {
    /// Forgets every outstanding access (a new wave), keeping the storage.
    pub fn clear(&mut self) {
        self.pending.clear();
        self.owing = 0;
        self.span = [EMPTY; 3];
        self.owed = [[0; 4]; 3];
        self.counts = [0; 3];
    }

    /// Whether an outstanding access still owes a register (else
    /// [`Tracker::check`] finds nothing).
    #[inline]
    pub fn owes(&self) -> bool {
        self.owing != 0
    }

    /// True if no access is outstanding.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Outstanding accesses charged to `c`.
    pub fn count(&self, c: Counter) -> usize {
        self.counts[c.slot()] as usize
    }

    /// Records that `inst` (at `pc`) was issued. Instructions that bump no
    /// counter are ignored.
    pub fn issue(&mut self, inst: &Instruction, regs: &Regs, pc: u64) {
        let w = inst.waitcnt();
        if !(w.vm || w.lgkm || w.exp) {
            return;
        }
        use lathe_isa::MemoryClass as M;
        let class = inst.memory_class();
        let lgkm_class = match class {
            M::Lds => Class::Lds,
            M::Gds => Class::Gds,
            M::None => Class::Message,
            _ => Class::Unordered,
        };
        let mut a = Access {
            vm: w.vm.then_some(Class::Vmem),
            lgkm: w.lgkm.then_some(lgkm_class),
            exp: w.exp.then_some(Class::Export),
            dst: [None; 2],
            pc,
            inst: *inst,
        };
        for (slot, r) in a
            .dst
            .iter_mut()
            .zip(regs.iter().filter(|r| r.write && !r.implicit))
        {
            *slot = Some(r.reg);
        }
        // A full counter stalls issue until one access returns.
        for c in [Counter::Vm, Counter::Lgkm, Counter::Exp] {
            if a.class(c).is_some() && self.count(c) >= c.max() as usize {
                self.wait(&[(c, c.max() - 1)]);
            }
        }
        for c in [Counter::Vm, Counter::Lgkm, Counter::Exp] {
            self.counts[c.slot()] += u32::from(a.class(c).is_some());
        }
        if a.dst.iter().any(Option::is_some) {
            self.owing += 1;
        }
        for d in a.dst.iter().flatten() {
            self.mark(*d);
        }
        self.pending.push(a);
    }

    /// Whether pending access `i` is complete in the worst case once
    /// counter `c` is at most `n`.
    fn guaranteed(&self, i: usize, c: Counter, n: u32) -> bool {
        match self.needed(i, c) {
            Some(max) => n <= max,
            None => false,
        }
    }

    /// The largest `n` for which `s_waitcnt c(n)` guarantees access `i`, or
    /// `None` if the access is not charged to `c`.
    fn needed(&self, i: usize, c: Counter) -> Option<u32> {
        let class = self.pending.get(i)?.class(c)?;
        if class == Class::Unordered {
            return Some(0);
        }
        // In the worst case every access of another class returns first,
        // then this class in order: with `count` charged, `same` of this
        // class and `before` of them older than `i`, access `i` is complete
        // once `count - n > (count - same) + before`.
        let mut same = 0u32;
        let mut before = 0u32;
        for (j, a) in self.pending.iter().enumerate() {
            if a.class(c) == Some(class) {
                same += 1;
                if j < i {
                    before += 1;
                }
            }
        }
        Some((same - before).saturating_sub(1))
    }

    /// Applies `s_waitcnt`: retires every access the waits guarantee.
    pub fn wait(&mut self, waits: &[(Counter, u32)]) {
        if self.pending.is_empty() {
            return;
        }
        // Quick answers first (a wave waits a few times and usually for
        // 0 or for nothing). Per counter, the tightest wait asked for:
        let (mut vm, mut lgkm, mut exp) = (u32::MAX, u32::MAX, u32::MAX);
        for &(c, n) in waits {
            let l = match c {
                Counter::Vm => &mut vm,
                Counter::Lgkm => &mut lgkm,
                Counter::Exp => &mut exp,
            };
            *l = (*l).min(n);
        }
        let [cv, cl, ce] = self.counts;
        // Waiting for `n` at or above the count retires nothing on that
        // counter (an access needs at most `count - 1`).
        if vm >= cv && lgkm >= cl && exp >= ce {
            return;
        }
        // Waiting for 0 retires every access charged to the counter.
        let zero = |a: &Access| {
            (vm == 0 && a.vm.is_some())
                || (lgkm == 0 && a.lgkm.is_some())
                || (exp == 0 && a.exp.is_some())
        };
        if self.pending.iter().all(zero) {
            self.clear();
            return;
        }
        // At most 63 + 15 + 7 accesses are outstanding (the counters
        // saturate), so one bit each fits.
        let mut done = 0u128;
        for i in 0..self.pending.len().min(128) {
            if waits
                .iter()
                .any(|&(c, n)| self.pending[i].class(c).is_some() && self.guaranteed(i, c, n))
            {
                done |= 1 << i;
            }
        }
        let mut k = 0;
        self.pending.retain(|_| {
            let keep = k >= 128 || done >> k & 1 == 0;
            k += 1;
            keep
        });
        self.span = [EMPTY; 3];
        self.owed = [[0; 4]; 3];
        for k in 0..self.pending.len() {
            for d in self.pending[k].dst.into_iter().flatten() {
                self.mark(d);
            }
        }
        self.owing = self
            .pending
            .iter()
            .filter(|a| a.dst.iter().any(Option::is_some))
            .count();
        for c in [Counter::Vm, Counter::Lgkm, Counter::Exp] {
            self.counts[c.slot()] =
                self.pending.iter().filter(|a| a.class(c).is_some()).count() as u32;
        }
    }

    /// Checks an instruction's registers against the outstanding accesses: the first register
    /// it reads or writes that an outstanding access still owes.
    #[inline]
    pub fn check(&self, regs: &Regs) -> Option<Hazard> {
        if self.owing == 0 {
            return None;
        }
        // Quick reject (inlined into the interpreter loop): no register of
        // the instruction within the owed span.
        let maybe = (0..3).any(|f| overlap(regs.span[f], self.span[f]));
        if !maybe || !regs.iter().any(|r| self.owed_any(r.reg)) {
            return None;
        }
        self.check_items(regs)
    }

    /// Records that a pending access owes `r`.
    fn mark(&mut self, r: RegRange) {
        let f = file_slot(r.file);
        widen(&mut self.span[f], r);
        for b in r.first..=r.last() {
            if let Some(w) = self.owed[f].get_mut(usize::from(b / 64)) {
                *w |= 1 << (b % 64);
            }
        }
    }

    /// Whether a pending access may owe a register of `r` (always for
    /// numbers past the bit sets).
    #[inline]
    fn owed_any(&self, r: RegRange) -> bool {
        let f = &self.owed[file_slot(r.file)];
        (r.first..=r.last()).any(|b| {
            f.get(usize::from(b / 64))
                .is_none_or(|w| w >> (b % 64) & 1 == 1)
        })
    }

    /// [`Tracker::check`] past the quick reject: item by item.
    #[inline(never)]
    fn check_items(&self, regs: &Regs) -> Option<Hazard> {
        // A read is reported before a write (`s_and_b32 s2, s2, ...` reads
        // the owed s2 first).
        let mut read = None;
        let mut write = None;
        for r in regs.iter() {
            let slot = if r.read { &mut read } else { &mut write };
            if slot.is_some() {
                continue;
            }
            // A load's late result cannot clobber the result of a later
            // load of the same in-order class (VM_CNT accesses return in
            // issue order on GFX9): compilers reuse a destination that way
            // without a wait. Reads still must wait, and so must a write
            // over a result that may come back in any order.
            let in_order_write = !r.read && regs.in_order_vm;
            if let Some(i) = self.pending.iter().position(|a| {
                a.dst.iter().flatten().any(|d| d.overlaps(&r.reg))
                    && !(in_order_write && a.vm == Some(Class::Vmem) && a.lgkm.is_none())
            }) {
                *slot = Some((i, r.reg, !r.read));
            }
        }
        let found = read.or(write);
        let (i, reg, write) = found?;
        let a = self.pending.get(i)?;
        // The cheapest single wait that retires it: prefer VM_CNT for FLAT.
        let needed = [Counter::Vm, Counter::Lgkm, Counter::Exp]
            .into_iter()
            .find_map(|c| {
                self.needed(i, c)
                    .map(|n| format!("s_waitcnt {}({n})", c.name()))
            })
            .unwrap_or_else(|| "s_waitcnt 0".into());
        Some(Hazard {
            reg,
            write,
            producer: a.inst.to_string(),
            producer_pc: a.pc,
            needed,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;
    use lathe_isa::{decode, Target};

    /// Assembles one instruction with llvm-mc-independent known encodings.
    fn inst(words: &[u32]) -> Instruction {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let i = decode(Target::Gfx90a, &bytes);
        assert!(!i.opcode().is_invalid(), "{words:x?}");
        i
    }

    // global_load_dword v1, v[2:3], off
    fn load_v1() -> Instruction {
        inst(&[0xdc508000, 0x017f0002])
    }
    // global_load_dword v4, v[2:3], off
    fn load_v4() -> Instruction {
        inst(&[0xdc508000, 0x047f0002])
    }
    // global_store_dword v[2:3], v5, off
    fn store() -> Instruction {
        inst(&[0xdc708000, 0x007f0502])
    }
    // s_load_dword s0, s[4:5], 0x0
    fn sload() -> Instruction {
        inst(&[0xc0020002, 0x00000000])
    }
    // ds_read_b32 v6, v7
    fn ds_read() -> Instruction {
        inst(&[0xd86c0000, 0x06000007])
    }
    // v_add_f32_e32 v8, v1, v4
    fn use_v1_v4() -> Instruction {
        inst(&[0x02100901])
    }

    #[test]
    fn decode_fields() {
        // s_waitcnt vmcnt(0) expcnt(7) lgkmcnt(15) = 0x0f70
        assert_eq!(
            decode_gfx9(0x0f70),
            [(Counter::Vm, 0), (Counter::Exp, 7), (Counter::Lgkm, 15)]
        );
        assert_eq!(decode_gfx9(0xc07f)[0], (Counter::Vm, 63));
    }

    #[test]
    fn gfx12_split_waits_decode_from_their_words() {
        let t = lathe_isa::Target::Gfx1201;
        let none = u32::MAX;
        // Words as llvm-objdump --mcpu=gfx1201 prints them.
        for (word, want) in [
            (0xbfc0_0003, [3, none, none]),    // s_wait_loadcnt 0x3
            (0xbfc1_0000, [0, none, none]),    // s_wait_storecnt 0x0
            (0xbfc6_0002, [none, 2, none]),    // s_wait_dscnt 0x2
            (0xbfc7_0000, [none, 0, none]),    // s_wait_kmcnt 0x0
            (0xbfc4_0001, [none, none, 1]),    // s_wait_expcnt 0x1
            (0xbfc8_0105, [1, 5, none]),       // s_wait_loadcnt_dscnt 0x105
            (0xbfc9_0200, [2, 0, none]),       // s_wait_storecnt_dscnt 0x200
            (0xbf88_ff9e, [none, none, none]), // s_wait_alu (not a counter)
        ] {
            let got = decode_word(t, word).map(|(_, n)| n);
            assert_eq!(got, want, "{word:#x}");
        }
        // Up to GFX11 the word's low half is `s_waitcnt`'s immediate.
        assert_eq!(
            decode_word(lathe_isa::Target::Gfx90a, 0xbf8c_0f70),
            decode_gfx9(0x0f70)
        );
    }

    #[test]
    fn in_order_vm_waits() {
        let mut t = Tracker::default();
        t.issue(&load_v1(), &Regs::of(&load_v1()), 0);
        t.issue(&store(), &Regs::of(&store()), 8);
        t.issue(&load_v4(), &Regs::of(&load_v4()), 16);
        assert_eq!(t.count(Counter::Vm), 3);
        let h = t.check(&Regs::of(&use_v1_v4())).expect("v1 outstanding");
        assert_eq!(h.needed, "s_waitcnt vmcnt(2)");
        assert!(!h.write);
        // vmcnt(2): the oldest (the v1 load) returned; v4 still owed.
        t.wait(&[(Counter::Vm, 2)]);
        assert_eq!(t.count(Counter::Vm), 2);
        let h = t.check(&Regs::of(&use_v1_v4())).expect("v4 outstanding");
        assert_eq!(h.reg, RegRange::vgpr(4, 1));
        assert_eq!(h.needed, "s_waitcnt vmcnt(0)");
        t.wait(&[(Counter::Vm, 0)]);
        assert!(t.is_empty());
        assert_eq!(t.check(&Regs::of(&use_v1_v4())), None);
    }

    #[test]
    fn lgkm_mixing_is_worst_case() {
        let mut t = Tracker::default();
        t.issue(&sload(), &Regs::of(&sload()), 0);
        t.issue(&ds_read(), &Regs::of(&ds_read()), 8);
        // lgkmcnt(1) guarantees neither: the SMEM may have returned first.
        t.wait(&[(Counter::Lgkm, 1)]);
        assert_eq!(t.count(Counter::Lgkm), 2);
        // A DS read alone in its class needs the SMEM gone too: lgkmcnt(0).
        let h = t.check(&Regs::of(&inst(&[0x7e0c0306]))).expect("v6 owed"); // v_mov_b32 v6, v6
        assert_eq!(h.needed, "s_waitcnt lgkmcnt(0)");
        t.wait(&[(Counter::Lgkm, 0)]);
        assert!(t.is_empty());
        // Two DS reads in order: lgkmcnt(1) retires the first.
        t.issue(&ds_read(), &Regs::of(&ds_read()), 0);
        let ds1 = inst(&[0xd86c0000, 0x01000007]);
        t.issue(&ds1, &Regs::of(&ds1), 8); // ds_read_b32 v1, v7
        t.wait(&[(Counter::Lgkm, 1)]);
        assert_eq!(t.count(Counter::Lgkm), 1);
        assert!(t.check(&Regs::of(&use_v1_v4())).is_some());
    }

    #[test]
    fn quick_waits_retire_exactly_what_the_full_model_does() {
        let mut t = Tracker::default();
        t.issue(&sload(), &Regs::of(&sload()), 0);
        t.issue(&load_v1(), &Regs::of(&load_v1()), 8);
        t.issue(&load_v4(), &Regs::of(&load_v4()), 16);
        // At or above the counts: nothing retires.
        t.wait(&decode_gfx9(lathe_isa::imm::waitcnt_encode(2, 7, 1)));
        assert_eq!((t.count(Counter::Vm), t.count(Counter::Lgkm)), (2, 1));
        // v2 and v3 lie between the owed v1 and v4 but are not owed
        // (v_mov_b32 v3, v2).
        assert_eq!(t.check(&Regs::of(&inst(&[0x7e060302]))), None);
        // lgkmcnt(0) retires the SMEM load only; the VM loads stay owed.
        t.wait(&decode_gfx9(lathe_isa::imm::waitcnt_encode(63, 7, 0)));
        assert_eq!((t.count(Counter::Vm), t.count(Counter::Lgkm)), (2, 0));
        assert!(t.owes());
        assert!(t.check(&Regs::of(&use_v1_v4())).is_some());
        // Both waited to 0: everything retires.
        t.issue(&sload(), &Regs::of(&sload()), 24);
        t.wait(&decode_gfx9(lathe_isa::imm::waitcnt_encode(0, 7, 0)));
        assert!(t.is_empty() && !t.owes());
        assert_eq!(t.check(&Regs::of(&use_v1_v4())), None);
    }

    /// Two loads into one register with no wait between (the second's
    /// result returns last on GFX9, and compilers rely on it): no hazard.
    /// A VALU write, or a load whose result may return out of order (SMEM),
    /// over the owed register is still one; so is a read by the load.
    #[test]
    fn in_order_loads_may_overwrite_each_others_destination() {
        let mut t = Tracker::default();
        t.issue(&load_v1(), &Regs::of(&load_v1()), 0);
        assert_eq!(t.check(&Regs::of(&load_v1())), None);
        // global_load_dword v2, v[0:1], off: reads the owed v1 (address).
        let reads = inst(&[0xdc508000, 0x027f0000]);
        assert!(t.check(&Regs::of(&reads)).is_some_and(|h| !h.write));
        // flat_load_dword v1, v[2:3] may also count on LGKM_CNT.
        let flat = inst(&[0xdc500000, 0x01000002]);
        assert!(t.check(&Regs::of(&flat)).is_some_and(|h| h.write));
        // An owed SGPR (s_load_dword s4) overwritten by a later VMEM load
        // is never the same register file, but a later s_load is: out of
        // order, so a hazard.
        let mut t = Tracker::default();
        t.issue(&sload(), &Regs::of(&sload()), 0);
        assert!(t.check(&Regs::of(&sload())).is_some_and(|h| h.write));
    }

    #[test]
    fn writes_to_owed_registers_and_saturation() {
        let mut t = Tracker::default();
        t.issue(&load_v1(), &Regs::of(&load_v1()), 0);
        // v_mov_b32 v1, 0 overwrites the owed v1.
        let h = t.check(&Regs::of(&inst(&[0x7e020280]))).expect("WAW");
        assert!(h.write);
        t.wait(&[(Counter::Vm, 0)]);
        for k in 0..70 {
            t.issue(&store(), &Regs::of(&store()), k * 8);
        }
        assert_eq!(t.count(Counter::Vm), 63);
    }
}

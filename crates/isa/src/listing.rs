//! Function listings: the text of `llvm-objdump -d --no-show-raw-insn
//! --no-leading-addr` for a code section ([`Style::LlvmObjdump`]), or a
//! Lathe listing with addresses and branch labels ([`Style::Lathe`]).
//!
//! [`write_listing`] writes a whole section into any `fmt::Write`. For large
//! sections, [`Listing`] writes bytes into a reused `Vec<u8>` and can be cut
//! into parts that are formatted independently (on several threads) and
//! concatenated to exactly the text of one sequential pass.

use crate::decode::Decoder;
use crate::enc;
use crate::inst::Instruction;
use crate::opcode::{Encoding, Kind};
use crate::target::Target;
use std::fmt::{self, Write};

/// A symbol in the code section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListingSymbol<'a> {
    /// Name.
    pub name: &'a str,
    /// Address.
    pub addr: u64,
    /// Size in bytes (0 if unknown).
    pub size: u64,
}

/// Listing style.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Style {
    /// Same text as `llvm-objdump -d --no-show-raw-insn --no-leading-addr`
    /// prints for the section (without its file/section headers): `<sym>:`
    /// labels, then per instruction a tab, the text, and the
    /// `// ADDRESS: WORDS` comment with branch targets and warnings.
    LlvmObjdump,
    /// Lathe's own listing: address, text, branch targets as local labels
    /// (`.L<func>_<n>`) or `<sym+off>`.
    Lathe,
}

/// Column (after the leading tab) where llvm-objdump starts its comment.
const COMMENT_COLUMN: usize = 59;

/// The longest comment before a branch target or warning: `// `, twelve
/// address digits, `:`, and three words of ` XXXXXXXX`.
const TAIL_MAX: usize = 16 + 3 * 9;

/// Writes a listing of `code` (the bytes of the section loaded at
/// `base_addr`) with `symbols` (those inside the section; others are
/// ignored).
pub fn write_listing(
    out: &mut impl Write,
    target: Target,
    code: &[u8],
    base_addr: u64,
    symbols: &[ListingSymbol<'_>],
    style: Style,
) -> fmt::Result {
    let listing = Listing::new(target, code, base_addr, symbols, style);
    match style {
        Style::LlvmObjdump => {
            let mut cache = LineCache::for_code(code.len());
            let mut buf = Vec::new();
            let mut pos = listing.start();
            // Bounded chunks: a few hundred KB at a time.
            while pos.off < code.len() {
                buf.clear();
                let until = pos.off.saturating_add(1 << 16).min(code.len());
                pos = listing.write_objdump(&mut buf, pos, until, &mut cache);
                out.write_str(std::str::from_utf8(&buf).map_err(|_| fmt::Error)?)?;
            }
            Ok(())
        }
        Style::Lathe => write_lathe(out, target, code, base_addr, &listing.syms),
    }
}

/// Where a sequential listing pass stands: the code offset of the next
/// instruction and how many symbol labels have been printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    off: usize,
    sym: usize,
}

impl Position {
    /// Offset in the code of the next instruction.
    pub fn offset(&self) -> usize {
        self.off
    }
}

/// A code section prepared for listing: the symbols inside it, sorted.
#[derive(Clone, Debug)]
pub struct Listing<'a> {
    target: Target,
    code: &'a [u8],
    base: u64,
    syms: Vec<ListingSymbol<'a>>,
    style: Style,
}

impl<'a> Listing<'a> {
    /// Prepares `code` (the bytes of the section loaded at `base_addr`) with
    /// `symbols` (those inside the section; others are ignored).
    pub fn new(
        target: Target,
        code: &'a [u8],
        base_addr: u64,
        symbols: &[ListingSymbol<'a>],
        style: Style,
    ) -> Listing<'a> {
        let end = base_addr.saturating_add(code.len() as u64);
        let mut syms: Vec<ListingSymbol<'a>> = symbols
            .iter()
            .copied()
            .filter(|s| s.addr >= base_addr && s.addr < end)
            .collect();
        syms.sort_by_key(|s| s.addr);
        Listing {
            target,
            code,
            base: base_addr,
            syms,
            style,
        }
    }

    /// Size of the code in bytes.
    pub fn code_len(&self) -> usize {
        self.code.len()
    }

    /// The position of a pass at the beginning.
    pub fn start(&self) -> Position {
        Position { off: 0, sym: 0 }
    }

    /// Positions to cut the listing at, the first being [`Listing::start`]:
    /// symbol addresses at least `min_bytes` of code apart (only the start
    /// for [`Style::Lathe`]). Part `k` is written by
    /// [`Listing::write_part`] from `points[k]` until `points[k + 1]`'s
    /// offset (the last one to the end).
    pub fn split_points(&self, min_bytes: usize) -> Vec<Position> {
        let mut points = vec![self.start()];
        if self.style != Style::LlvmObjdump {
            return points;
        }
        let mut last = 0usize;
        for (i, s) in self.syms.iter().enumerate() {
            let off = (s.addr - self.base) as usize;
            // The first of several symbols at one address.
            if i > 0 && self.syms[i - 1].addr == s.addr {
                continue;
            }
            if off >= last.saturating_add(min_bytes.max(1)) {
                points.push(Position { off, sym: i });
                last = off;
            }
        }
        points
    }

    /// Appends the listing from `from` until the pass reaches the code
    /// offset `until`, and returns where it stopped. The text equals that
    /// of one sequential pass when `from` is where a previous part stopped
    /// (for [`Style::Lathe`], only the whole listing is written, from the
    /// start).
    pub fn write_part(
        &self,
        out: &mut Vec<u8>,
        from: Position,
        until: usize,
        cache: &mut LineCache,
    ) -> Position {
        match self.style {
            Style::LlvmObjdump => self.write_objdump(out, from, until, cache),
            Style::Lathe => {
                let _ = write_lathe(
                    &mut Bytes(out),
                    self.target,
                    self.code,
                    self.base,
                    &self.syms,
                );
                Position {
                    off: self.code.len(),
                    sym: self.syms.len(),
                }
            }
        }
    }

    fn write_objdump(
        &self,
        out: &mut Vec<u8>,
        from: Position,
        until: usize,
        cache: &mut LineCache,
    ) -> Position {
        let (code, base, syms) = (self.code, self.base, &self.syms[..]);
        let until = until.min(code.len());
        let Position {
            mut off,
            sym: mut si,
        } = from;
        while off < until {
            let addr = base + off as u64;
            // Labels for symbols at or before this address not yet printed.
            while si < syms.len() && syms[si].addr <= addr {
                out.extend_from_slice(b"\n<");
                out.extend_from_slice(syms[si].name.as_bytes());
                out.extend_from_slice(b">:\n");
                si += 1;
            }
            // llvm-objdump skips runs of 8 or more zero bytes (in multiples
            // of 4) up to the end of the current symbol, printing "...".
            let rest = code.get(off..).unwrap_or_default();
            if rest.len() >= 8 && rest[..8] == [0; 8] {
                let region_end = syms
                    .get(si)
                    .map(|s| s.addr.saturating_sub(base) as usize)
                    .unwrap_or(code.len())
                    .min(code.len());
                let zeros = code
                    .get(off..region_end)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|&&b| b == 0)
                    .count();
                if zeros >= 8 {
                    out.extend_from_slice(b"\t\t...\n");
                    off += zeros & !3;
                    continue;
                }
            }
            let mut nbase = None;
            if let Some(n) = cache.hit(out, rest, self.target, addr, syms, &mut nbase) {
                off += n;
                continue;
            }
            let inst = crate::decode::decode(self.target, rest);
            if inst.len() < 4 {
                // Trailing bytes: the comment shows them one by one.
                let start = out.len();
                out.push(b'\t');
                let _ = inst.write_to(&mut Bytes(out));
                pad_comment(out, start);
                push_hex_upper(out, addr, 12);
                out.push(b':');
                for &b in rest {
                    out.push(b' ');
                    push_hex_upper(out, b as u64, 2);
                }
                out.push(b'\n');
                off += inst.len().max(1);
                continue;
            }
            cache.line(out, &inst, addr, syms, nbase);
            off += inst.len();
        }
        Position { off, sym: si }
    }
}

/// `fmt::Write` into a byte vector (only `str`s go in, so it stays UTF-8).
struct Bytes<'a>(&'a mut Vec<u8>);

impl Write for Bytes<'_> {
    #[inline]
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let b = s.as_bytes();
        if b.len() <= 8 {
            // Register names, digits, separators: a byte loop beats a
            // memcpy call.
            for &c in b {
                self.0.push(c);
            }
        } else {
            self.0.extend_from_slice(b);
        }
        Ok(())
    }

    #[inline]
    fn write_char(&mut self, c: char) -> fmt::Result {
        if c.is_ascii() {
            self.0.push(c as u8);
        } else {
            self.0
                .extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        }
        Ok(())
    }
}

impl crate::print::cold::Sink for Bytes<'_> {
    #[inline]
    fn mark(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn reset(&mut self, at: usize) {
        self.0.truncate(at);
    }
}

/// Pads the line begun at `start` (with its tab) to the comment column and
/// starts the comment.
#[inline]
fn pad_comment(out: &mut Vec<u8>, start: usize) {
    let width = out.len() - start - 1;
    if width < COMMENT_COLUMN {
        out.resize(out.len() + COMMENT_COLUMN - width, b' ');
    }
    out.extend_from_slice(b"// ");
}

const HEX_UPPER: &[u8; 16] = b"0123456789ABCDEF";
const HEX_LOWER: &[u8; 16] = b"0123456789abcdef";

/// The 8 uppercase hex digits of `v` (`{v:08X}`), without a loop: each
/// nibble spread to a byte, then turned into its ASCII digit.
#[inline]
fn hex8(v: u32) -> [u8; 8] {
    let x = v as u64;
    let x = ((x & 0xFFFF_0000) << 16) | (x & 0xFFFF);
    let x = ((x & 0x0000_FF00_0000_FF00) << 8) | (x & 0x0000_00FF_0000_00FF);
    let x = ((x & 0x00F0_00F0_00F0_00F0) << 4) | (x & 0x000F_000F_000F_000F);
    // 1 in each byte holding 10..=15.
    let letters = ((x + 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101;
    (x + 0x3030_3030_3030_3030 + letters * 7).to_be_bytes()
}

/// `v` in uppercase hex, at least `min_digits` digits (`{v:0NX}`).
#[inline]
fn push_hex_upper(out: &mut Vec<u8>, v: u64, min_digits: usize) {
    if min_digits == 8 && v <= u32::MAX as u64 {
        out.extend_from_slice(&hex8(v as u32));
        return;
    }
    if min_digits == 12 && v < 1 << 48 {
        out.extend_from_slice(&[0; 12]);
        let n = out.len();
        if let Some(d) = out.get_mut(n - 12..) {
            hex12_upper(d, v);
        }
        return;
    }
    let mut buf = [b'0'; 16];
    let digits = ((64 - v.leading_zeros() as usize).div_ceil(4)).clamp(min_digits.min(16), 16);
    for (i, d) in buf[..digits].iter_mut().rev().enumerate() {
        *d = HEX_UPPER[((v >> (4 * i)) & 0xF) as usize];
    }
    out.extend_from_slice(&buf[..digits]);
}

/// `v` in lowercase hex without leading zeros (`{v:x}`).
fn push_hex_lower(out: &mut Vec<u8>, v: u64) {
    let mut buf = [b'0'; 16];
    let digits = (64 - v.leading_zeros() as usize).div_ceil(4).max(1);
    for (i, d) in buf[..digits].iter_mut().rev().enumerate() {
        *d = HEX_LOWER[((v >> (4 * i)) & 0xF) as usize];
    }
    out.extend_from_slice(&buf[..digits]);
}

/// Appends the objdump line of `inst` (4 bytes or more) at `addr`; returns
/// the length of the instruction text (after the tab) and whether the line
/// carries warnings.
fn format_line(
    out: &mut Vec<u8>,
    warn_buf: &mut Vec<u8>,
    inst: &Instruction,
    addr: u64,
    branch: bool,
    syms: &[ListingSymbol<'_>],
) -> (usize, bool) {
    let start = out.len();
    out.push(b'\t');
    warn_buf.clear();
    // The cold printer first (D80); it prints no line with a warning.
    if !crate::print::cold::write(inst, &mut Bytes(out)) {
        let _ = inst.write_text_and_warnings(&mut Bytes(out), &mut Bytes(warn_buf));
    }
    let text = out.len() - start - 1;
    line_tail(out, start, inst, addr, branch, syms);
    let warned = !warn_buf.is_empty();
    if warned {
        // The newline goes after the warnings.
        out.pop();
        out.extend_from_slice(warn_buf);
        out.push(b'\n');
    }
    (text, warned)
}

/// Finishes the line begun at `start` (its tab and text written): the
/// padding, `// ADDRESS:` and the words, a branch's target, the newline.
#[inline]
fn line_tail(
    out: &mut Vec<u8>,
    start: usize,
    inst: &Instruction,
    addr: u64,
    branch: bool,
    syms: &[ListingSymbol<'_>],
) {
    if addr < 1 << 48 {
        // The padding, `// ADDRESS:` and the words assembled in place and
        // appended at once (one capacity check and copy instead of a dozen,
        // D73).
        let width = out.len() - start - 1;
        let pad = COMMENT_COLUMN.saturating_sub(width);
        let mut t = [b' '; COMMENT_COLUMN + TAIL_MAX];
        let mut n = pad;
        if let Some(d) = t.get_mut(n..n + 16) {
            d[..3].copy_from_slice(b"// ");
            hex12_upper(&mut d[3..15], addr);
            d[15] = b':';
        }
        n += 16;
        for &w in inst.words() {
            if let Some(d) = t.get_mut(n..n + 9) {
                d[1..].copy_from_slice(&hex8(w));
            }
            n += 9;
        }
        out.extend_from_slice(t.get(..n).unwrap_or_default());
    } else {
        pad_comment(out, start);
        push_hex_upper(out, addr, 12);
        out.push(b':');
        for &w in inst.words() {
            out.push(b' ');
            push_hex_upper(out, w as u64, 8);
        }
    }
    if branch {
        if let Some(t) = inst.branch_target(addr) {
            out.push(b' ');
            write_sym_off_bytes(out, syms, t);
        }
    }
    out.push(b'\n');
}

/// One cached line.
#[derive(Clone, Copy)]
struct Slot {
    key: Instruction,
    /// Start of the instruction text in the arena.
    start: u32,
    /// Length of the cached text; 0 for an empty slot.
    len: u16,
    /// A SOPP branch: the line ends with the target's `<sym+off>`.
    branch: bool,
}

/// Memo of instruction texts by instruction: real code repeats most of its
/// instructions, and copying a text is much cheaper than formatting it.
/// Only the text is kept (the padding, address and words are written per
/// line, D67): the store then touches a third of the pages a whole line
/// would, and each first touch of a page is a page fault. Direct-mapped and bounded; one per
/// thread.
pub struct LineCache {
    slots: Vec<Slot>,
    arena: Vec<u8>,
    shift: u32,
    hits: u64,
    lines: u64,
    /// Scratch for a line's warnings.
    warn: Vec<u8>,
}

impl fmt::Debug for LineCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LineCache")
            .field("slots", &self.slots.len())
            .field("arena", &self.arena.len())
            .finish()
    }
}

impl Default for LineCache {
    fn default() -> Self {
        LineCache::new()
    }
}

/// Arena size at which the cache starts over.
const ARENA_MAX: usize = 4 << 20;

impl LineCache {
    /// A cache with the default size (16 Ki lines, fits a core's L2).
    pub fn new() -> LineCache {
        LineCache::with_bits(14)
    }

    /// A cache sized for `code_len` bytes of code: one slot per 16 bytes
    /// (real code repeats about half its instructions, of 8 bytes on
    /// average), at least 256 and at most [`LineCache::new`]'s 16 Ki, and
    /// room for the text of about as many lines reserved up front. A small
    /// code object then touches a few pages of slots instead of 384 KB,
    /// and the text store is not copied as it grows (each first touch of a
    /// page is a page fault, which at the size of the jax wheel's code
    /// objects costs as much as the formatting).
    pub fn for_code(code_len: usize) -> LineCache {
        let slots = (code_len / 16).max(1);
        let mut c = LineCache::with_bits(slots.next_power_of_two().trailing_zeros().clamp(8, 14));
        if !c.slots.is_empty() {
            // About 30 bytes of text per cached instruction; pages of the
            // reservation that are never written are never faulted in.
            c.arena.reserve(code_len.saturating_mul(3).min(ARENA_MAX));
        }
        c
    }

    /// A cache of `2^bits` lines; 0 disables caching (every line is
    /// formatted).
    pub fn with_bits(bits: u32) -> LineCache {
        let bits = bits.min(24);
        let empty = Slot {
            key: Instruction::invalid(Target::Gfx90a, 0),
            start: 0,
            len: 0,
            branch: false,
        };
        LineCache {
            slots: if bits == 0 {
                Vec::new()
            } else {
                vec![empty; 1 << bits]
            },
            arena: Vec::new(),
            shift: 64 - bits,
            hits: 0,
            lines: 0,
            warn: Vec::new(),
        }
    }

    /// Lines written through the cache so far, and how many of them were
    /// copied rather than formatted.
    pub fn stats(&self) -> (u64, u64) {
        (self.lines, self.hits)
    }

    /// Slot of an instruction by its first word and, for 64-bit
    /// encodings, its second word (the bytes that decide its length).
    #[inline]
    fn index(&self, w0: u32, w1: u32) -> usize {
        let k = (w0 as u64 | (w1 as u64) << 32).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (k.rotate_left(29).wrapping_mul(0xC2B2_AE3D_27D4_EB4F) >> self.shift) as usize
    }

    /// Appends the line of the instruction at the start of `code` (at
    /// `addr`) if the cache has it, without decoding: an entry is used only
    /// when the bytes the decoder would read are those it was decoded
    /// from. Returns the instruction's length; on a miss, `nbase` holds the
    /// base words of the first word's encoding when they were looked up
    /// (for [`LineCache::line`]).
    #[inline]
    fn hit(
        &mut self,
        out: &mut Vec<u8>,
        code: &[u8],
        target: Target,
        addr: u64,
        syms: &[ListingSymbol<'_>],
        nbase: &mut Option<usize>,
    ) -> Option<usize> {
        if self.slots.is_empty() || addr >= 1 << 48 {
            return None;
        }
        let word = |i: usize| {
            code.get(i * 4..i * 4 + 4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        let w0 = word(0)?;
        let base = enc::base_words(crate::decode::classify(target, w0)?);
        *nbase = Some(base);
        let w1 = match base {
            1 => 0,
            _ => word(1)?,
        };
        let slot = self.slots.get(self.index(w0, w1))?;
        let inst = &slot.key;
        if slot.len == 0 || inst.words[0] != w0 || inst.target != target {
            return None;
        }
        for i in 1..inst.len as usize / 4 {
            if word(i) != Some(inst.words[i]) {
                return None;
            }
        }
        self.hits += 1;
        self.lines += 1;
        let (s, n) = (slot.start as usize, slot.len as usize);
        let o = out.len();
        out.push(b'\t');
        out.extend_from_slice(self.arena.get(s..s + n).unwrap_or_default());
        line_tail(out, o, inst, addr, slot.branch, syms);
        Some(inst.len())
    }

    /// Formats the line of `inst` (decoded, 4 bytes or more) at `addr` and
    /// remembers it; `first_base` is the base words of its first word's
    /// encoding if [`LineCache::hit`] looked them up.
    fn line(
        &mut self,
        out: &mut Vec<u8>,
        inst: &Instruction,
        addr: u64,
        syms: &[ListingSymbol<'_>],
        first_base: Option<usize>,
    ) {
        let branch = is_sopp_branch(inst);
        let start = out.len();
        let (text, warned) = format_line(out, &mut self.warn, inst, addr, branch, syms);
        if self.slots.is_empty() || addr >= 1 << 48 || inst.is_invalid() {
            return;
        }
        self.lines += 1;
        // Only instructions whose length the first word's encoding decides
        // (not SDWA/DPP words decoded as the plain encoding), and without
        // warnings (rare: misaligned scalar tuples).
        let nbase = enc::base_words(inst.encoding());
        let first = first_base
            .or_else(|| crate::decode::classify(inst.target, inst.words[0]).map(enc::base_words));
        if warned || first != Some(nbase) {
            return;
        }
        let Ok(len) = u16::try_from(text) else {
            return;
        };
        if self.arena.len() + text > ARENA_MAX {
            // Full: start over.
            self.arena.clear();
            for s in &mut self.slots {
                s.len = 0;
            }
        }
        let astart = self.arena.len() as u32;
        self.arena
            .extend_from_slice(out.get(start + 1..start + 1 + text).unwrap_or_default());
        let w1 = if nbase == 1 { 0 } else { inst.words[1] };
        let idx = self.index(inst.words[0], w1);
        if let Some(slot) = self.slots.get_mut(idx) {
            *slot = Slot {
                key: *inst,
                start: astart,
                len,
                branch,
            };
        }
    }
}

/// SOPP branches get a `<sym+off>` target comment.
#[inline]
fn is_sopp_branch(inst: &Instruction) -> bool {
    let info = inst.info();
    info.enc == Encoding::Sopp && info.operands().iter().any(|s| s.kind == Kind::Branch)
}

/// `v` (below 2^48) as 12 uppercase hex digits into `d` (12 bytes).
#[inline]
fn hex12_upper(d: &mut [u8], v: u64) {
    if let Some(hi) = d.get_mut(..4) {
        hi.copy_from_slice(&hex8((v >> 32) as u32)[4..]);
    }
    if let Some(lo) = d.get_mut(4..12) {
        lo.copy_from_slice(&hex8(v as u32));
    }
}

/// The symbol `addr` falls in (the last one at or before it).
fn containing<'a>(syms: &[ListingSymbol<'a>], addr: u64) -> Option<ListingSymbol<'a>> {
    let i = syms.partition_point(|s| s.addr <= addr);
    (i > 0).then(|| syms[i - 1])
}

fn write_sym_off(out: &mut impl Write, syms: &[ListingSymbol<'_>], addr: u64) -> fmt::Result {
    match containing(syms, addr) {
        Some(s) if s.addr == addr => write!(out, "<{}>", s.name),
        Some(s) => write!(out, "<{}+0x{:x}>", s.name, addr - s.addr),
        None => write!(out, "<0x{addr:x}>"),
    }
}

fn write_sym_off_bytes(out: &mut Vec<u8>, syms: &[ListingSymbol<'_>], addr: u64) {
    out.push(b'<');
    match containing(syms, addr) {
        Some(s) => {
            out.extend_from_slice(s.name.as_bytes());
            if s.addr != addr {
                out.extend_from_slice(b"+0x");
                push_hex_lower(out, addr - s.addr);
            }
        }
        None => {
            out.extend_from_slice(b"0x");
            push_hex_lower(out, addr);
        }
    }
    out.push(b'>');
}

fn write_lathe(
    out: &mut impl Write,
    target: Target,
    code: &[u8],
    base: u64,
    syms: &[ListingSymbol<'_>],
) -> fmt::Result {
    // First pass: branch targets get labels.
    let insts: Vec<(u64, Instruction)> = Decoder::new(target, code)
        .map(|(o, i)| (base + o as u64, i))
        .collect();
    let mut targets: Vec<u64> = insts
        .iter()
        .filter_map(|(a, i)| i.branch_target(*a))
        .filter(|t| !syms.iter().any(|s| s.addr == *t))
        .collect();
    targets.sort_unstable();
    targets.dedup();
    let label = |t: u64| -> Option<String> {
        let i = targets.binary_search(&t).ok()?;
        // Numbered from 0 within each function.
        let (f, first) = match containing(syms, t) {
            Some(s) => (s.name, targets.partition_point(|&x| x < s.addr)),
            None => ("text", 0),
        };
        Some(format!(".L{f}_{}", i - first))
    };
    let mut si = 0usize;
    let mut line = String::with_capacity(128);
    for (addr, inst) in &insts {
        while si < syms.len() && syms[si].addr <= *addr {
            writeln!(
                out,
                "\n{}:  ; 0x{:x}, {} bytes",
                syms[si].name, syms[si].addr, syms[si].size
            )?;
            si += 1;
        }
        if let Some(l) = label(*addr) {
            writeln!(out, "{l}:")?;
        }
        line.clear();
        write!(line, "  {addr:8x}:  ")?;
        inst.write_to(&mut line)?;
        if let Some(t) = inst.branch_target(*addr) {
            for _ in line.len()..70 {
                line.push(' ');
            }
            match label(t) {
                Some(l) => write!(line, " ; -> {l}")?,
                None => {
                    line.push_str(" ; -> ");
                    write_sym_off(&mut line, syms, t)?;
                }
            }
        }
        out.write_str(&line)?;
        out.write_char('\n')?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(ws: &[u32]) -> Vec<u8> {
        ws.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    fn whole(l: &Listing<'_>) -> Vec<u8> {
        let mut out = Vec::new();
        l.write_part(&mut out, l.start(), l.code_len(), &mut LineCache::new());
        out
    }

    #[test]
    fn parts_concatenate_to_the_sequential_listing() {
        // f: s_mov_b32 s0, 0x12345678; s_nop 0; s_cbranch_scc0 g;
        // g: v_mov_b32 v0, v1 (cached), s_endpgm; h: the same again.
        let code = words(&[
            0xBE80_00FF,
            0x1234_5678,
            0xBF80_0000,
            0xBF84_0000,
            0x7E00_0301,
            0x7E00_0301,
            0xBF81_0000,
            0xBE80_00FF,
            0x1234_5678,
            0x7E00_0301,
            0xBF81_0000,
        ]);
        let syms = [
            ListingSymbol {
                name: "f",
                addr: 0x1000,
                size: 16,
            },
            ListingSymbol {
                name: "g",
                addr: 0x1010,
                size: 12,
            },
            ListingSymbol {
                name: "h",
                addr: 0x101c,
                size: 16,
            },
        ];
        let l = Listing::new(Target::Gfx90a, &code, 0x1000, &syms, Style::LlvmObjdump);
        let seq = whole(&l);
        let text = String::from_utf8(seq.clone()).unwrap_or_default();
        assert!(text.contains("s_cbranch_scc0 0 "), "{text}");
        assert!(text.contains("<g>"), "{text}");
        let points = l.split_points(1);
        assert_eq!(points.len(), 3);
        let mut out = Vec::new();
        for (k, p) in points.iter().enumerate() {
            let until = points.get(k + 1).map_or(l.code_len(), Position::offset);
            let end = l.write_part(&mut out, *p, until, &mut LineCache::new());
            if let Some(next) = points.get(k + 1) {
                assert_eq!(end, *next);
            }
        }
        assert_eq!(out, seq);
        // Without a cache, the same text.
        let mut plain = Vec::new();
        l.write_part(
            &mut plain,
            l.start(),
            l.code_len(),
            &mut LineCache::with_bits(0),
        );
        assert_eq!(plain, seq);
        // And through `fmt::Write`.
        let mut s = String::new();
        assert!(write_listing(
            &mut s,
            Target::Gfx90a,
            &code,
            0x1000,
            &syms,
            Style::LlvmObjdump
        )
        .is_ok());
        assert_eq!(s.as_bytes(), &seq[..]);
    }

    #[test]
    fn a_cache_sized_for_the_code_gives_the_same_text() {
        assert_eq!(LineCache::for_code(100).slots.len(), 256);
        assert_eq!(LineCache::for_code(72 << 10).slots.len(), 8 << 10);
        assert_eq!(LineCache::for_code(64 << 20).slots.len(), 16 << 10);
        // The same instructions many times over: most lines are copies.
        let code = words(&[0xBE80_00FF, 0x1234_5678, 0x7E00_0301, 0xBF80_0000].repeat(64));
        let syms = [ListingSymbol {
            name: "f",
            addr: 0,
            size: code.len() as u64,
        }];
        let l = Listing::new(Target::Gfx90a, &code, 0, &syms, Style::LlvmObjdump);
        let mut sized = LineCache::for_code(code.len());
        let mut out = Vec::new();
        l.write_part(&mut out, l.start(), l.code_len(), &mut sized);
        let mut plain = Vec::new();
        l.write_part(
            &mut plain,
            l.start(),
            l.code_len(),
            &mut LineCache::with_bits(0),
        );
        assert_eq!(out, plain);
        let (lines, hits) = sized.stats();
        assert_eq!((lines, hits), (192, 189));
    }

    #[test]
    fn a_part_reports_where_an_instruction_ran_over_its_end() {
        // s_nop 0 at 0, s_mov_b32 with a literal at 4..12, symbol b at 8:
        // the pass reaches 12, not b's 8.
        let code = words(&[0xBF80_0000, 0xBE80_00FF, 0x1234_5678, 0xBF81_0000]);
        let syms = [
            ListingSymbol {
                name: "a",
                addr: 0,
                size: 8,
            },
            ListingSymbol {
                name: "b",
                addr: 8,
                size: 8,
            },
        ];
        let l = Listing::new(Target::Gfx90a, &code, 0, &syms, Style::LlvmObjdump);
        let seq = whole(&l);
        let points = l.split_points(1);
        assert_eq!(points.len(), 2);
        let mut out = Vec::new();
        let mut cache = LineCache::new();
        let end = l.write_part(&mut out, points[0], points[1].offset(), &mut cache);
        assert_ne!(end, points[1]);
        assert_eq!(end.offset(), 12);
        // Continuing from where the pass stopped gives the sequential text.
        l.write_part(&mut out, end, l.code_len(), &mut cache);
        assert_eq!(out, seq);
    }

    #[test]
    fn hex_digits_match_format() {
        for v in [
            0u32,
            1,
            9,
            10,
            15,
            16,
            0xABCD_EF01,
            0x1234_5678,
            u32::MAX,
            0x0A0B_0C0D,
        ] {
            assert_eq!(hex8(v).to_vec(), format!("{v:08X}").into_bytes());
        }
        for v in [
            0u64,
            0x1_0000_0000,
            0xFFFF_FFFF_FFFF,
            0x1234_5678_9ABC,
            0x1000_0000_0000,
        ] {
            let mut d = [0u8; 12];
            hex12_upper(&mut d, v);
            assert_eq!(d.to_vec(), format!("{v:012X}").into_bytes());
            let mut out = Vec::new();
            push_hex_upper(&mut out, v, 12);
            assert_eq!(out, format!("{v:012X}").into_bytes());
        }
        let mut out = Vec::new();
        push_hex_upper(&mut out, 0x1_0000_0000_0000, 12);
        assert_eq!(out, b"1000000000000");
    }
}

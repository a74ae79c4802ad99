//! `lathe disasm`: listings of kernels and device functions, in Lathe's
//! style or exactly as `llvm-objdump -d --no-show-raw-insn --no-leading-addr`.
//!
//! Every code object is parsed and checked first, so errors come before
//! any output. The listings are then formatted in parts into a reused
//! buffer and written as they complete, never held whole in memory; with
//! `--threads N`, large code sections are formatted by N threads and
//! written in order.

use std::fs::File;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Mutex};

use anyhow::{bail, Context, Result};
use lathe_codeobj::{CodeObject, SymbolSection};
use lathe_isa::listing::{LineCache, Listing, Position};
use lathe_isa::{ListingSymbol, Style, Target};

use crate::bundle_cmd::parse_targets;
use crate::input::Input;
use crate::objects::code_objects;
use crate::output::{stdout_err, Ctx};
use crate::{DisasmArgs, FormatArg};

/// Code bytes per part formatted by one thread (about 0.5 MB of text).
const PART_BYTES: usize = 32 << 10;
/// Sections smaller than this are formatted on the calling thread.
const PARALLEL_MIN_BYTES: usize = 256 << 10;
/// Code bytes per chunk written by one thread (about 60 KB of text): the
/// chunk buffer is reused, so it stays in cache and its pages are touched
/// (page-faulted) once, where a buffer of the whole listing would fault in
/// every page of it.
const CHUNK_BYTES: usize = 4 << 10;

/// `lathe disasm FILE...`.
pub fn run_all(ctx: &Ctx, a: DisasmArgs) -> Result<()> {
    if a.policy.is_some() && a.target.is_none() {
        bail!("--policy needs --target (it chooses among code objects for a target)");
    }
    if ctx.json && a.output.is_some() {
        bail!("--json prints to stdout; it cannot be combined with --output");
    }
    let mut sink = match &a.output {
        Some(p) => Sink::File(
            File::create(p).with_context(|| format!("cannot create {}", p.display()))?,
            p.display().to_string(),
        ),
        None if ctx.json => Sink::Buffer(Vec::new()),
        None => Sink::Stdout(io::stdout()),
    };
    let mut json_files = Vec::new();
    let many_files = a.files.len() > 1;
    for file in &a.files {
        let objects = run(&a, file, many_files, &mut sink)?;
        json_files.push(serde_json::json!({"file": file, "code_objects": objects}));
    }
    if ctx.json {
        return crate::output::print_json(&serde_json::json!({ "files": json_files }));
    }
    sink.finish()
}

/// Why lathe-isa refuses a processor: its tables cover every processor
/// LLVM 22 lists from gfx900 on, so what is left is older.
fn missing(proc_: &str) -> &'static str {
    let pre_gfx9 = proc_
        .strip_prefix("gfx")
        .and_then(|n| n.chars().next())
        .is_some_and(|c| ('6'..='8').contains(&c))
        && proc_.len() == 6;
    if pre_gfx9 {
        "lathe-isa's tables start at GFX9 (gfx900)"
    } else {
        "not in lathe-isa's tables"
    }
}

/// The wave size of a code object's kernels (the first kernel descriptor's;
/// a code object is compiled for one), 64 without descriptors on GFX9, 32
/// (LLVM's default) on GFX10+.
fn wave_size(co: &CodeObject<'_>) -> u32 {
    let arch = co.kd_arch();
    let (_, syms) = co.primary_symbols();
    for s in syms {
        let Some(k) = s.name.strip_suffix(".kd") else {
            continue;
        };
        if let (Ok(kd), Some(arch)) = (co.kernel_descriptor(k), arch) {
            return kd.wavefront_size(arch);
        }
    }
    if co.processor().is_some_and(|p| p.name().starts_with("gfx1")) {
        32
    } else {
        64
    }
}

/// Disassembles one file into `sink`; in JSON mode (a buffer sink) returns
/// each code object's listing.
fn run(
    a: &DisasmArgs,
    file: &std::path::Path,
    many_files: bool,
    sink: &mut Sink,
) -> Result<Vec<serde_json::Value>> {
    let input = Input::open(file)?;
    crate::input::ensure_known(&input)?;
    let target = parse_targets(a.target.as_slice())?.into_iter().next();
    let policy = a.policy.unwrap_or(crate::PolicyArg::Clang);
    // A plain code object is listed straight from the mapping; bundles and
    // host binaries are unpacked.
    let owned;
    let objects: Vec<(String, serde_json::Value, &[u8])> =
        if lathe_bundle::classify(input.bytes()) == lathe_bundle::FileKind::CodeObject {
            vec![(
                input.name(),
                serde_json::json!({ "file": input.name() }),
                input.bytes(),
            )]
        } else {
            owned = code_objects(&input, target.as_ref(), policy.into())?;
            owned
                .iter()
                .map(|o| (o.origin.clone(), o.origin_json.clone(), &o.bytes[..]))
                .collect()
        };
    let style = match a.format {
        FormatArg::Llvm => Style::LlvmObjdump,
        FormatArg::Lathe => Style::Lathe,
    };
    let many = objects.len() > 1 || many_files;
    let mut plans: Vec<Plan<'_>> = Vec::new();
    let mut seen_names: Vec<String> = Vec::new();
    let mut matched = false;
    for (origin, origin_json, bytes) in &objects {
        let co = CodeObject::parse(bytes)
            .with_context(|| format!("{origin}: not a readable code object"))?;
        let Some(proc_) = co.processor() else {
            continue;
        };
        let Ok(isa) = Target::from_name(proc_.name()) else {
            if !many {
                bail!(
                    "{origin}: {} code is not supported by the disassembler yet: {} (supported: {})",
                    proc_.name(),
                    missing(proc_.name()),
                    Target::supported_list()
                );
            }
            continue;
        };
        // GFX10+ code runs wave32 or wave64 (the kernel descriptors say
        // which); the printed lane masks differ (`vcc_lo` / `vcc`).
        let isa = isa.with_wave_size(wave_size(&co)).unwrap_or(isa);
        let Some(sec) = co.section_by_name(".text") else {
            continue;
        };
        let code = co
            .section_data(sec)
            .with_context(|| format!("{origin}: .text"))?;
        let (_, syms) = co.primary_symbols();
        let funcs = || {
            syms.iter()
                .filter(|s| s.st_type == 2 && s.section == SymbolSection::Index(sec.index))
        };
        let chosen: Option<&str> = match &a.kernel {
            None => None,
            Some(k) => {
                match lathe_codeobj::names::resolve(k, funcs().map(|s| s.name), "function") {
                    Ok(n) => {
                        matched = true;
                        Some(n)
                    }
                    Err(lathe_codeobj::names::NameError::Missing { .. }) => {
                        seen_names.extend(funcs().map(|s| s.name.to_string()));
                        continue;
                    }
                    Err(e) => return Err(anyhow::Error::new(e).context(origin.clone())),
                }
            }
        };
        let mut list: Vec<ListingSymbol<'_>> = funcs()
            .filter(|s| chosen.is_none_or(|n| n == s.name))
            .map(|s| ListingSymbol {
                name: s.name,
                addr: s.value,
                size: s.size,
            })
            .collect();
        list.sort_by_key(|s| s.addr);
        // Like llvm-objdump, code before the first symbol is listed under
        // the section's own name.
        if a.kernel.is_none() && list.first().is_none_or(|s| s.addr != sec.address) {
            list.insert(
                0,
                ListingSymbol {
                    name: ".text",
                    addr: sec.address,
                    size: 0,
                },
            );
        }
        if a.kernel.is_some() && list.is_empty() {
            continue;
        }
        let (code, base) = if a.kernel.is_some() {
            // Only the selected functions' bytes.
            let lo = list.first().map_or(sec.address, |s| s.addr);
            let hi = list.iter().map(|s| s.addr + s.size).max().unwrap_or(lo);
            let off = (lo - sec.address) as usize;
            (code.get(off..off + (hi - lo) as usize).unwrap_or(&[]), lo)
        } else {
            (code, sec.address)
        };
        let tname = co
            .target()
            .map(|t| t.to_string())
            .unwrap_or_else(|| isa.name().to_string());
        let header = many.then(|| format!("; {origin} ({tname})\n"));
        plans.push(Plan {
            header,
            origin: origin_json.clone(),
            target: tname,
            listing: Listing::new(isa, code, base, &list, style),
            notes: (style == Style::Lathe).then(|| Notes::new(bytes)),
            source: a.source.then(|| Source::new(bytes)),
        });
    }
    if let (Some(k), false) = (&a.kernel, matched) {
        let e = lathe_codeobj::names::resolve(k, seen_names.iter().map(String::as_str), "function")
            .err()
            .unwrap_or(lathe_codeobj::names::NameError::Missing {
                what: "function".into(),
                pattern: k.clone(),
                candidates: Vec::new(),
                more: 0,
            });
        return Err(anyhow::Error::new(e).context(format!(
            "{}: no code object the disassembler supports has it",
            input.name()
        )));
    }
    if plans.is_empty() {
        bail!(
            "{}: no gfx90a/gfx942 code object to disassemble",
            input.name()
        );
    }
    let threads = match a.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    // Source lines follow the listing in order: one thread.
    let threads = if a.source { 1 } else { threads };
    let mut json = Vec::new();
    for plan in &plans {
        let notes = plan.notes.as_ref();
        let source = plan.source.as_ref();
        if let Sink::Buffer(b) = sink {
            b.clear();
            write_listing(&plan.listing, threads, notes, source, sink)?;
            let text = match sink {
                Sink::Buffer(b) => String::from_utf8_lossy(b).into_owned(),
                _ => String::new(),
            };
            json.push(serde_json::json!({
                "origin": plan.origin,
                "target": plan.target,
                "listing": text,
            }));
            continue;
        }
        if let Some(h) = &plan.header {
            sink.write(h.as_bytes())?;
        }
        write_listing(&plan.listing, threads, notes, source, sink)?;
    }
    Ok(json)
}

/// Where the listing goes.
enum Sink {
    File(File, String),
    Stdout(io::Stdout),
    /// Collected for JSON output.
    Buffer(Vec<u8>),
}

impl Sink {
    fn write(&mut self, b: &[u8]) -> Result<()> {
        match self {
            Sink::File(f, name) => f
                .write_all(b)
                .with_context(|| format!("cannot write {name}")),
            Sink::Stdout(s) => s.lock().write_all(b).map_err(stdout_err),
            Sink::Buffer(v) => {
                v.extend_from_slice(b);
                Ok(())
            }
        }
    }

    fn finish(&mut self) -> Result<()> {
        match self {
            Sink::File(..) | Sink::Buffer(_) => Ok(()),
            Sink::Stdout(s) => s.lock().flush().map_err(stdout_err),
        }
    }
}

/// Writes one listing: in bounded chunks on this thread, or for large code
/// with `threads - 1` helper threads (see [`write_parallel`]).
fn write_listing(
    listing: &Listing<'_>,
    threads: usize,
    notes: Option<&Notes<'_>>,
    source: Option<&Source<'_>>,
    sink: &mut Sink,
) -> Result<()> {
    if let Some(s) = source {
        if s.lines.is_none() {
            sink.write(
                b"; no source lines: the code object has no DWARF (build with -g for file:line); addresses are kernel+offset\n",
            )?;
        }
        return write_sequential(
            listing,
            listing.start(),
            &mut LineCache::for_code(listing.code_len()),
            notes,
            source,
            sink,
        );
    }
    let points = if threads > 1 && listing.code_len() >= PARALLEL_MIN_BYTES {
        listing.split_points(PART_BYTES)
    } else {
        Vec::new()
    };
    if points.len() < 3 {
        return write_sequential(
            listing,
            listing.start(),
            &mut LineCache::for_code(listing.code_len()),
            notes,
            None,
            sink,
        );
    }
    write_parallel(listing, &points, threads - 1, notes, sink)
}

/// The listing in parts cut at `points`: this thread formats and writes
/// parts from the front, in order, while `helpers` threads format parts
/// from the back; their parts are written when this thread reaches them.
/// Each thread works on contiguous code (its line cache stays warm), this
/// thread's parts go out as soon as they are formatted, and a helper that
/// gets no CPU time delays the listing by at most the part it holds.
fn write_parallel(
    listing: &Listing<'_>,
    points: &[Position],
    helpers: usize,
    notes: Option<&Notes<'_>>,
    sink: &mut Sink,
) -> Result<()> {
    let n = points.len();
    let until = |k: usize| {
        points
            .get(k + 1)
            .map_or(listing.code_len(), Position::offset)
    };
    // Parts nobody has claimed yet: front..back.
    let unclaimed = Mutex::new((0usize, n));
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, Vec<u8>, Position)>();
    std::thread::scope(|s| -> Result<()> {
        for _ in 0..helpers {
            let tx = tx.clone();
            let (unclaimed, stop) = (&unclaimed, &stop);
            s.spawn(move || {
                let mut cache = LineCache::new();
                while !stop.load(Ordering::Relaxed) {
                    let Some(k) = unclaimed.lock().ok().and_then(|mut u| {
                        (u.0 < u.1).then(|| {
                            u.1 -= 1;
                            u.1
                        })
                    }) else {
                        break;
                    };
                    let mut buf = Vec::new();
                    let end = listing.write_part(&mut buf, points[k], until(k), &mut cache);
                    if tx.send((k, buf, end)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        let result = (|| -> Result<()> {
            let mut cache = LineCache::new();
            let mut buf = Vec::with_capacity(1 << 20);
            // Parts 0..written are out; the next must start where the last
            // one ended (else an instruction ran over a cut, never seen in
            // real code, and the rest is written sequentially from there).
            let mut written = 0;
            while let Some(k) = unclaimed.lock().ok().and_then(|mut u| {
                (u.0 < u.1).then(|| {
                    u.0 += 1;
                    u.0 - 1
                })
            }) {
                buf.clear();
                let end = listing.write_part(&mut buf, points[k], until(k), &mut cache);
                sink.write(&annotate(notes, &buf))?;
                written = k + 1;
                if points.get(written).is_some_and(|&p| p != end) {
                    stop.store(true, Ordering::Relaxed);
                    return write_sequential(listing, end, &mut cache, notes, None, sink);
                }
            }
            let mut pending: Vec<Option<(Vec<u8>, Position)>> = vec![None; n];
            while written < n {
                while pending[written].is_none() {
                    let Ok((i, b, end)) = rx.recv() else {
                        bail!("formatting thread stopped");
                    };
                    pending[i] = Some((b, end));
                }
                let Some((b, end)) = pending[written].take() else {
                    break;
                };
                sink.write(&annotate(notes, &b))?;
                written += 1;
                if points.get(written).is_some_and(|&p| p != end) {
                    stop.store(true, Ordering::Relaxed);
                    return write_sequential(listing, end, &mut cache, notes, None, sink);
                }
            }
            Ok(())
        })();
        stop.store(true, Ordering::Relaxed);
        drop(rx);
        result
    })
}

/// Writes the listing from `pos` to the end on this thread, in chunks.
fn write_sequential(
    listing: &Listing<'_>,
    mut pos: Position,
    cache: &mut LineCache,
    notes: Option<&Notes<'_>>,
    source: Option<&Source<'_>>,
    sink: &mut Sink,
) -> Result<()> {
    let mut buf = Vec::with_capacity(128 << 10);
    while pos.offset() < listing.code_len() {
        buf.clear();
        let until = pos.offset().saturating_add(CHUNK_BYTES);
        pos = listing.write_part(&mut buf, pos, until, cache);
        let text = annotate(notes, &buf);
        match source {
            Some(s) => sink.write(s.interleave(&text).as_bytes())?,
            None => sink.write(&text)?,
        }
    }
    Ok(())
}

/// One code object's listing to write.
struct Plan<'a> {
    /// `; ORIGIN (TARGET)` before the listing when several are written.
    header: Option<String>,
    /// Where the code object came from (JSON `origin`).
    origin: serde_json::Value,
    target: String,
    listing: Listing<'a>,
    /// Comments added in Lathe style.
    notes: Option<Notes<'a>>,
    /// `--source`: the code object's line tables.
    source: Option<Source<'a>>,
}

/// What Lathe style adds to the listing's lines: the function a
/// `s_swappc_b64` or tail `s_setpc_b64` calls (lathe-dbi's lifting,
/// the call graph `lathe cfg` draws; lifted on the first such line), and
/// for a backward branch, whose operand reads as an unsigned 16-bit number
/// (`s_branch 65516`), its signed offset and target address. LLVM style
/// stays LLVM's exact text.
struct Notes<'a> {
    bytes: &'a [u8],
    calls: std::sync::OnceLock<std::collections::HashMap<u64, String>>,
}

impl<'a> Notes<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Notes {
            bytes,
            calls: std::sync::OnceLock::new(),
        }
    }

    /// Call sites by address: the callee's name and address, or why not.
    fn calls(&self) -> &std::collections::HashMap<u64, String> {
        self.calls.get_or_init(|| {
            let mut m = std::collections::HashMap::new();
            let Ok(co) = CodeObject::parse(self.bytes) else {
                return m;
            };
            let Ok(p) = lathe_dbi::Program::lift(&co) else {
                return m;
            };
            for f in &p.functions {
                for c in &f.calls {
                    let Some(site) = f.insts.get(c.site) else {
                        continue;
                    };
                    let what = match (c.callee.and_then(|i| p.functions.get(i)), c.target) {
                        (Some(g), _) => format!("calls {} (0x{:x})", g.name, g.addr),
                        (None, Some(t)) => format!("calls 0x{t:x} (no function starts there)"),
                        (None, None) => "calls a target computed at run time".to_string(),
                    };
                    m.insert(site.addr, what);
                }
            }
            m
        })
    }

    /// The comment for one listing line, if it gets one.
    fn note(&self, line: &str) -> Option<String> {
        let (addr, inst) = line.split_once(":  ")?;
        let addr = u64::from_str_radix(addr.trim(), 16).ok()?;
        let mnemonic = inst.split_whitespace().next()?;
        match mnemonic {
            // `s_call_b64` names its target already (`; -> <add3>`).
            "s_swappc_b64" | "s_setpc_b64" => self.calls().get(&addr).cloned().or_else(|| {
                (mnemonic == "s_setpc_b64" && inst.contains("s[30:31]")).then(|| {
                    "returns to the caller (the call left the address in s[30:31])".to_string()
                })
            }),
            m if m == "s_branch" || m.starts_with("s_cbranch_") => {
                let imm: u16 = inst.split_whitespace().nth(1)?.parse().ok()?;
                let off = imm as i16;
                (off < 0).then(|| {
                    let target = addr.wrapping_add(4).wrapping_add_signed(i64::from(off) * 4);
                    format!("offset {off}: back to 0x{target:x}")
                })
            }
            _ => None,
        }
    }
}

/// `buf` with the notes of Lathe style added to its lines.
fn annotate<'b>(notes: Option<&Notes<'_>>, buf: &'b [u8]) -> std::borrow::Cow<'b, [u8]> {
    use std::borrow::Cow;
    let Some(notes) = notes else {
        return Cow::Borrowed(buf);
    };
    let Ok(text) = std::str::from_utf8(buf) else {
        return Cow::Borrowed(buf);
    };
    let mut out: Option<String> = None;
    let mut done = 0;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        if !(line.contains("s_swappc") || line.contains("s_setpc") || line.contains("branch")) {
            continue;
        }
        let body = line.trim_end_matches('\n');
        let Some(note) = notes.note(body) else {
            continue;
        };
        let o = out.get_or_insert_with(|| String::with_capacity(text.len() + 256));
        o.push_str(&text[done..start]);
        o.push_str(body);
        if body.contains(" ; -> ") {
            o.push_str(&format!(" ({note})"));
        } else {
            for _ in body.len()..70 {
                o.push(' ');
            }
            o.push_str(&format!(" ; {note}"));
        }
        o.push('\n');
        done = at;
    }
    match out {
        Some(mut o) => {
            o.push_str(&text[done..]);
            Cow::Owned(o.into_bytes())
        }
        None => Cow::Borrowed(buf),
    }
}

/// `--source`: a code object's line tables and the frames of the last
/// instruction listed (a source line is printed when they change).
struct Source<'a> {
    lines: Option<lathe_codeobj::lines::Lines<'a>>,
    last: std::cell::RefCell<Vec<lathe_codeobj::lines::Frame>>,
}

impl<'a> Source<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Source {
            lines: lathe_codeobj::lines::Lines::new(bytes),
            last: Default::default(),
        }
    }

    /// `text` with `; file:line:column in function` (and `;   inlined
    /// into …`) before each instruction whose source position differs
    /// from the previous one's.
    fn interleave(&self, text: &[u8]) -> String {
        let text = String::from_utf8_lossy(text);
        let Some(lines) = &self.lines else {
            return text.into_owned();
        };
        let mut out = String::with_capacity(text.len() * 2);
        let mut last = self.last.borrow_mut();
        for line in text.split_inclusive('\n') {
            let addr = line
                .split_once(":  ")
                .and_then(|(a, _)| u64::from_str_radix(a.trim(), 16).ok());
            if let Some(addr) = addr {
                let fr = lines.frames(addr);
                // Line 0: code the compiler attributes to no line.
                let known = fr.first().and_then(|f| f.line).is_some_and(|l| l > 0);
                if known && fr != *last {
                    for (k, f) in fr.iter().enumerate() {
                        out.push_str(&format!(
                            ";{} {f}\n",
                            if k == 0 { "" } else { "   inlined into" },
                        ));
                    }
                    *last = fr;
                }
            } else if !line.trim().is_empty() {
                // A new function label: print its first line again.
                last.clear();
            }
            out.push_str(line);
        }
        out
    }
}

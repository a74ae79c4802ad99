//! The sanitizer's reports (issue 21, D27/D29): findings placed in code-object
//! terms with their source lines, as one JSON object per line (the log
//! `lathe exec` and `lathe run` fold) and as compute-sanitizer-style text.
//! Shared by the HSA runtime (`lathe exec --check`) and `lathe run --check`;
//! where a PC is ([`Places`]) is theirs to say.

use std::collections::HashSet;

use lathe_codeobj::lines::Frame;

use super::{Hit, Kind, Prior};

/// Where a device PC is, for the reports.
pub trait Places {
    /// `pc 0x… (kernel+0x…)`: the code-object address `lathe disasm`
    /// prints, with the function and offset.
    fn place(&self, pc: u64) -> String;
    /// The source frames at `pc`, innermost first (none without DWARF).
    fn frames(&self, pc: u64) -> Vec<Frame>;
}

fn json_str(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

/// Renders `hits` of one dispatch of `kernel` (mangled) with work-groups
/// of `block` work-items: the log (a JSON object per line, every hit) and
/// the text (the first hit of each kind at each PC not yet in `printed`).
pub fn render(
    hits: &[Hit],
    kernel: &str,
    block: [u16; 3],
    places: &dyn Places,
    printed: &mut HashSet<(Kind, u64)>,
) -> (String, String) {
    let name = lathe_codeobj::names::demangle(kernel).unwrap_or_else(|| kernel.to_string());
    let [bx, by, _] = block.map(|b| u32::from(b.max(1)));
    let mut log = String::new();
    let mut text = String::new();
    let thread_of = |wave: u32, lane: u32| {
        let flat = wave * 64 + lane;
        [flat % bx, flat / bx % by, flat / (bx * by)]
    };
    for h in hits {
        let lane = h.v.lane.map(u32::from);
        let thread = thread_of(h.wave, lane.unwrap_or(0));
        let fr = places.frames(h.pc);
        let top = fr.first();
        let place = places.place(h.pc);
        let (base, size, past) = match h.v.region {
            Some((b, z)) => (
                Some(b),
                Some(z),
                (h.v.addr + u64::from(h.v.size)).checked_sub(b + z),
            ),
            None => (None, None, None),
        };
        let file = top.and_then(|f| f.file.clone());
        let line = top.and_then(|f| f.line);
        let column = top.and_then(|f| f.column);
        let frames_json: Vec<String> = fr
            .iter()
            .map(|f| {
                format!(
                    "{{\"function\":{},\"file\":{},\"line\":{},\"column\":{}}}",
                    f.function.as_deref().map_or("null".into(), json_str),
                    f.file.as_deref().map_or("null".into(), json_str),
                    f.line.map_or("null".into(), |l| l.to_string()),
                    f.column.map_or("null".into(), |l| l.to_string()),
                )
            })
            .collect();
        let opt = |v: Option<u64>| v.map_or("null".into(), |v| v.to_string());
        let prior = h.v.prior.map(|p| {
            let fr = places.frames(p.pc);
            let t = thread_of(p.wave, u32::from(p.lane));
            let at = fr.first();
            (
                p,
                t,
                fr.clone(),
                places.place(p.pc),
                at.and_then(|f| f.file.clone()),
                at.and_then(|f| f.line),
                at.and_then(|f| f.column),
            )
        });
        let prior_json = prior.as_ref().map_or("null".to_string(), |(p, t, _, place, file, line, column)| {
            let wg = p.workgroup.unwrap_or(h.workgroup);
            format!(
                "{{\"access\":\"{}\",\"pc\":{},\"place\":{},\"file\":{},\"line\":{},\"column\":{},\"workgroup\":[{},{},{}],\"thread\":[{},{},{}],\"wave\":{},\"lane\":{}}}",
                p.access.name(),
                p.pc,
                json_str(place),
                file.as_deref().map_or("null".into(), json_str),
                line.map_or("null".into(), |l| l.to_string()),
                column.map_or("null".into(), |l| l.to_string()),
                wg[0], wg[1], wg[2],
                t[0], t[1], t[2], p.wave, p.lane
            )
        });
        log.push_str(&format!(
            "{{\"tool\":\"{}\",\"kind\":\"{}\",\"access\":\"{}\",\"size\":{},\"address\":{},\"space\":\"{}\",\"kernel\":{},\"kernel_mangled\":{},\"pc\":{},\"place\":{},\"instruction\":{},\"file\":{},\"line\":{},\"column\":{},\"frames\":[{}],\"workgroup\":[{},{},{}],\"thread\":[{},{},{}],\"wave\":{},\"lane\":{},\"allocation\":{},\"allocation_size\":{},\"past_end\":{},\"prior\":{}}}\n",
            h.v.kind.tool(),
            h.v.kind.name(),
            h.v.access.name(),
            h.v.size,
            h.v.addr,
            h.v.kind.space(),
            json_str(&name),
            json_str(kernel),
            h.pc,
            json_str(&place),
            json_str(&h.inst),
            file.as_deref().map_or("null".into(), json_str),
            line.map_or("null".into(), |l| l.to_string()),
            column.map_or("null".into(), |l| l.to_string()),
            frames_json.join(","),
            h.workgroup[0],
            h.workgroup[1],
            h.workgroup[2],
            thread[0],
            thread[1],
            thread[2],
            h.wave,
            lane.map_or("null".into(), |l| l.to_string()),
            opt(base),
            opt(size),
            opt(past),
            prior_json,
        ));
        if !printed.insert((h.v.kind, h.pc)) {
            continue;
        }
        let mut r = report_text(places, h, &name, &place, &fr, thread, past);
        if let Some((p, t, pfr, pplace, ..)) = &prior {
            // The other access goes before the closing line.
            r.truncate(r.len() - "=========\n".len());
            r.push_str(&prior_text(
                p,
                pplace,
                pfr,
                *t,
                p.workgroup.unwrap_or(h.workgroup),
            ));
        }
        text.push_str(&r);
    }
    (log, text)
}

fn report_text(
    places: &dyn Places,
    h: &Hit,
    kernel: &str,
    place: &str,
    fr: &[Frame],
    thread: [u32; 3],
    past: Option<u64>,
) -> String {
    let v = &h.v;
    let space = match v.kind.space() {
        "shared" => "__shared__",
        "local" => "__local__",
        "barrier" => "",
        _ => "__global__",
    };
    let what = match v.kind {
        Kind::BarrierNotReached => {
            "Barrier error: a wave of the work-group ended without reaching this barrier"
                .to_string()
        }
        Kind::BarrierMismatch => {
            "Barrier error: waves of the work-group wait at different barriers".to_string()
        }
        Kind::RaceReadAfterWrite => format!(
            "Race reported: {space} read of size {} bytes after another wave's write with no barrier between",
            v.size
        ),
        Kind::RaceWriteAfterRead => format!(
            "Race reported: {space} {} of size {} bytes after another wave's read with no barrier between",
            v.access.name(),
            v.size
        ),
        Kind::RaceWriteAfterWrite => format!(
            "Race reported: {space} {} of size {} bytes after another wave's write of another value with no barrier between",
            v.access.name(),
            v.size
        ),
        Kind::RaceSameInstruction => format!(
            "Race reported: two lanes of one {space} store write different values to one byte (which stays is not defined)"
        ),
        Kind::GlobalRaceReadWrite => format!(
            "Race reported: {space} read of size {} bytes of bytes another block writes, with no atomic ordering the two",
            v.size
        ),
        Kind::GlobalRaceWriteRead => format!(
            "Race reported: {space} write of size {} bytes of bytes another block reads, with no atomic ordering the two",
            v.size
        ),
        Kind::GlobalRaceWriteWrite => format!(
            "Race reported: {space} write of size {} bytes of bytes another block writes (another value), with no atomic ordering the two",
            v.size
        ),
        Kind::Uninitialized | Kind::UninitializedLds => {
            format!("Uninitialized {space} memory read of size {} bytes", v.size)
        }
        Kind::UseAfterFree => format!(
            "Invalid {space} {} of size {} bytes (freed memory)",
            v.access.name(),
            v.size
        ),
        Kind::MisalignedAtomic => format!("Misaligned {space} atomic of size {} bytes", v.size),
        _ => format!(
            "Invalid {space} {} of size {} bytes",
            v.access.name(),
            v.size
        ),
    };
    let mut t = format!(
        "========= {}: {what} [{}]\n=========     at {kernel}, {place}: {}\n",
        v.kind.tool(),
        v.kind.name(),
        h.inst
    );
    if fr.is_empty() {
        t.push_str("=========     (no source line: build with -g for file:line)\n");
    }
    let lane = v.lane.map_or("lane ?".to_string(), |l| format!("lane {l}"));
    t.push_str(&where_text("    ", fr, thread, h.workgroup, &lane, h.wave));
    let where_ = match (v.kind, v.region) {
        (Kind::BarrierNotReached, _) => format!(
            "Wave {} of block ({},{},{}) ended while wave {} waits here",
            v.addr, h.workgroup[0], h.workgroup[1], h.workgroup[2], h.wave
        ),
        (Kind::BarrierMismatch, _) => format!(
            "Another wave of the block waits at the barrier at {}",
            places.place(v.addr)
        ),
        (Kind::UseAfterFree, Some((b, z))) => format!(
            "Address {:#x} is at offset {} of a freed allocation at {b:#x} of {z} bytes",
            v.addr,
            v.addr - b
        ),
        (Kind::Unmapped, Some((b, z))) => format!(
            "Address {:#x} is outside every allocation, {} bytes after the end of the allocation at {b:#x} of {z} bytes",
            v.addr,
            v.addr.saturating_sub(b + z)
        ),
        (Kind::Unmapped, None) => format!("Address {:#x} is outside every allocation", v.addr),
        (k, _) if k.tool() == "racecheck" && k.space() == "global" => {
            format!("Address {:#x} (the first byte both accesses touch)", v.addr)
        }
        (k, _) if k.tool() == "racecheck" => format!("LDS offset {:#x}", v.addr),
        (Kind::LdsOutOfBounds | Kind::UninitializedLds, Some((_, z))) => {
            format!("LDS offset {:#x}, LDS size {z} bytes", v.addr)
        }
        (Kind::ScratchOutOfBounds, Some((_, z))) => {
            format!("Private offset {:#x}, private segment {z} bytes per lane", v.addr)
        }
        (_, Some((b, z))) => match past {
            Some(p) if v.kind == Kind::OutOfBounds => format!(
                "Address {:#x} is out of bounds: its access ends {p} bytes after the end of the allocation at {b:#x} of {z} bytes",
                v.addr
            ),
            _ => format!(
                "Address {:#x} is at offset {} of the allocation at {b:#x} of {z} bytes",
                v.addr,
                v.addr - b
            ),
        },
        (_, None) => format!("Address {:#x}", v.addr),
    };
    t.push_str(&format!("=========     {where_}\n"));
    if v.kind.tool() == "memcheck"
        && matches!(
            v.kind,
            Kind::Unmapped | Kind::LdsOutOfBounds | Kind::MisalignedAtomic
        )
    {
        t.push_str("=========     (the access cannot be performed: the dispatch stops)\n");
    }
    t.push_str("=========\n");
    t
}

/// The earlier access of a racecheck hazard, under its report.
fn prior_text(p: &Prior, place: &str, fr: &[Frame], thread: [u32; 3], wg: [u32; 3]) -> String {
    let mut t = format!(
        "=========     the other access: {} at {place}\n",
        p.access.name()
    );
    let lane = format!("lane {}", p.lane);
    t.push_str(&where_text("      ", fr, thread, wg, &lane, p.wave));
    t.push_str("=========\n");
    t
}

/// An access's source frames and thread, as the reports print them (the
/// report's own access, and indented further, the other access).
fn where_text(
    indent: &str,
    fr: &[Frame],
    thread: [u32; 3],
    wg: [u32; 3],
    lane: &str,
    wave: u32,
) -> String {
    let mut t = String::new();
    for (k, f) in fr.iter().enumerate() {
        let at = if k == 0 { "at" } else { "inlined into" };
        t.push_str(&format!("========={indent} {at} {f}\n"));
    }
    t.push_str(&format!(
        "========={indent} by thread ({},{},{}) in block ({},{},{}) ({lane} of wave {wave})\n",
        thread[0], thread[1], thread[2], wg[0], wg[1], wg[2]
    ));
    t
}

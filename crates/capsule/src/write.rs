//! Writing a capsule directory: the manifest, the code objects, every
//! allocation's bytes before the dispatch and the pages it changed
//! (both zstd). Files go to a temporary directory next to the capsule,
//! renamed into place at the end, so a capsule directory is complete or
//! absent.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::{
    code_file, hex, Allocation, CodeObjectEntry, Manifest, Original, AFTER, BEFORE, FORMAT,
    MANIFEST, PAGE, VERSION,
};

/// What the runtime captured of one dispatch, besides the manifest's
/// scalar fields (filled into `manifest`, whose `before_bytes` and
/// `after_pages` this module computes).
#[derive(Debug)]
pub struct Captured<'a> {
    /// The manifest with every field but `before_bytes` and `after_pages`.
    pub manifest: Manifest,
    /// The code objects, in `manifest.code_objects` order.
    pub code_objects: Vec<&'a [u8]>,
    /// Each allocation's bytes before the dispatch.
    pub before: Vec<Vec<u8>>,
    /// Each allocation's bytes after it.
    pub after: Vec<Vec<u8>>,
    /// The runs of each allocation to store, `(offset, length)`,
    /// ascending and disjoint (the pages the dispatch touched); `None`:
    /// every allocation whole.
    pub known: Option<Vec<Vec<(u64, u64)>>>,
}

/// Runs `(offset, length)` of an allocation at `base` of `size` bytes
/// covering the touched `pages` (ascending page numbers, `addr >>
/// shift`), clipped to the allocation and merged where adjacent.
pub fn runs_of_pages(base: u64, size: u64, pages: &[u64], shift: u32) -> Vec<(u64, u64)> {
    let end = base.saturating_add(size);
    let lo = pages.partition_point(|&p| p.saturating_add(1) << shift <= base);
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &p in &pages[lo..] {
        let (ps, pe) = (p << shift, p.saturating_add(1) << shift);
        if ps >= end {
            break;
        }
        let (s, e) = (ps.max(base) - base, pe.min(end) - base);
        match out.last_mut() {
            Some(r) if r.0 + r.1 == s => r.1 += e - s,
            _ => out.push((s, e - s)),
        }
    }
    out
}

/// The pages of `after` that differ from `before`: `(offset, length)`.
pub fn changed_pages(before: &[u8], after: &[u8]) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let n = before.len().min(after.len());
    let mut off = 0usize;
    while off < n {
        let end = (off + PAGE as usize).min(n);
        if before[off..end] != after[off..end] {
            out.push((off as u64, (end - off) as u64));
        }
        off = end;
    }
    out
}

/// zstd level: fast, still small for the mostly-zero memory programs hold.
const LEVEL: i32 = 3;

fn compress_all(parts: &mut dyn Iterator<Item = &[u8]>) -> std::io::Result<Vec<u8>> {
    let mut enc = zstd::stream::write::Encoder::new(Vec::new(), LEVEL)?;
    for p in parts {
        enc.write_all(p)?;
    }
    enc.finish()
}

/// Writes the capsule as directory `dir` (which must not exist) and
/// returns the manifest written.
pub fn write(dir: &Path, mut c: Captured<'_>) -> std::io::Result<Manifest> {
    let bad = |m: &str| std::io::Error::new(std::io::ErrorKind::InvalidInput, m.to_string());
    if c.before.len() != c.manifest.allocations.len() || c.after.len() != c.before.len() {
        return Err(bad("one before and one after image per allocation"));
    }
    if c.code_objects.len() != c.manifest.code_objects.len() {
        return Err(bad("one file per code object"));
    }
    let whole: Vec<Vec<(u64, u64)>>;
    let runs = match &c.known {
        Some(k) if k.len() == c.before.len() => k,
        Some(_) => return Err(bad("one list of runs per allocation")),
        None => {
            whole = c.before.iter().map(|b| vec![(0, b.len() as u64)]).collect();
            &whole
        }
    };
    let mut pages = Vec::new();
    let mut stored = Vec::new();
    for (i, (b, a)) in c.before.iter().zip(&c.after).enumerate() {
        for &(off, len) in &runs[i] {
            let (s, e) = (off as usize, off.saturating_add(len) as usize);
            if s >= e || e > b.len() || e > a.len() {
                return Err(bad("a run outside its allocation"));
            }
            stored.push([i as u64, off, len]);
            for (o, l) in changed_pages(&b[s..e], &a[s..e]) {
                pages.push([i as u64, off + o, l]);
            }
        }
    }
    c.manifest.version = crate::VERSION;
    c.manifest.before_bytes = stored.iter().map(|r| r[2]).sum();
    c.manifest.after_pages = pages;
    c.manifest.before_pages = c.known.is_some().then_some(stored);
    let tmp: PathBuf = {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "capsule".into());
        dir.with_file_name(format!(".{name}.partial-{}", std::process::id()))
    };
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(tmp.join("code"))?;
    let result =
        (|| {
            for (i, co) in c.code_objects.iter().enumerate() {
                std::fs::write(tmp.join(code_file(i)), co)?;
            }
            let before = match &c.manifest.before_pages {
                Some(runs) => compress_all(&mut runs.iter().map(|&[i, off, len]| {
                    &c.before[i as usize][off as usize..(off + len) as usize]
                }))?,
                None => compress_all(&mut c.before.iter().map(|v| v.as_slice()))?,
            };
            std::fs::write(tmp.join(BEFORE), before)?;
            let after =
                compress_all(&mut c.manifest.after_pages.iter().map(|&[i, off, len]| {
                    &c.after[i as usize][off as usize..(off + len) as usize]
                }))?;
            std::fs::write(tmp.join(AFTER), after)?;
            let text = serde_json::to_string_pretty(&c.manifest).map_err(std::io::Error::other)?;
            std::fs::write(tmp.join(MANIFEST), text + "\n")?;
            std::fs::rename(&tmp, dir)
        })();
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    result.map(|()| c.manifest)
}

/// A directory name for launch `launch` of `kernel`: `00042-axpy`, the
/// plain name (no namespace, no parameters) cut to 60 safe characters.
pub fn capsule_name(launch: u64, demangled: &str) -> String {
    // `void ns::f<int>(int*)` → `f`: no parameters, template arguments,
    // return type or namespace.
    let head = demangled.split(['(', '<']).next().unwrap_or(demangled);
    let head = head.rsplit(' ').next().unwrap_or(head);
    let plain = head.rsplit("::").next().unwrap_or(head);
    let safe: String = plain
        .chars()
        .map(|ch| {
            if ch.is_ascii_alphanumeric() || ch == '_' {
                ch
            } else {
                '_'
            }
        })
        .take(60)
        .collect();
    format!(
        "{launch:05}-{}",
        if safe.is_empty() { "kernel" } else { &safe }
    )
}

/// Sorted, disjoint allocations: drops empty ones and any that overlaps
/// one kept before it (lower base first), returning the kept indices.
pub fn disjoint(allocs: &[Allocation]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..allocs.len()).filter(|&i| allocs[i].size > 0).collect();
    idx.sort_by_key(|&i| allocs[i].base);
    let mut kept: Vec<usize> = Vec::new();
    let mut end = 0u64;
    for i in idx {
        let a = &allocs[i];
        let Some(e) = a.base.checked_add(a.size) else {
            continue;
        };
        if kept.is_empty() || a.base >= end {
            kept.push(i);
            end = e;
        }
    }
    kept
}

/// A dispatch's allocations as its capsule lists them (both capture
/// paths: Lathe's runtime and the `HSA_TOOLS_LIB` library).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// Sorted by base, disjoint.
    pub allocations: Vec<Allocation>,
    /// The index in `allocations` of each code object's allocation.
    pub code_at: Vec<usize>,
}

/// Lists a dispatch's memory: each code object's allocation `(base, size)`
/// in load order (kind `code`), the `others`, the queue's `amd_queue_t`
/// at `queue` (256 bytes) and the packet at `packet` (64), sorted and
/// made disjoint ([`disjoint`]); the allocation holding the kernarg
/// segment at `kernarg` becomes kind `kernarg`. `Err(i)`: code object
/// `i` overlaps an allocation kept before it.
pub fn layout(
    code: &[(u64, u64)],
    others: impl IntoIterator<Item = Allocation>,
    queue: u64,
    packet: u64,
    kernarg: u64,
) -> Result<Layout, usize> {
    let alloc = |base, size, kind: &str| Allocation {
        base,
        size,
        kind: kind.into(),
    };
    let mut all: Vec<Allocation> = code.iter().map(|&(b, s)| alloc(b, s, "code")).collect();
    all.extend(others);
    all.push(alloc(queue, 256, "queue"));
    all.push(alloc(packet, 64, "packet"));
    let kept = disjoint(&all);
    let code_at = (0..code.len())
        .map(|c| kept.iter().position(|&j| j == c).ok_or(c))
        .collect::<Result<Vec<_>, _>>()?;
    let mut allocations: Vec<Allocation> = kept.iter().map(|&i| all[i].clone()).collect();
    if let Some(a) = allocations
        .iter_mut()
        .find(|a| a.kind != "code" && kernarg >= a.base && kernarg - a.base < a.size)
    {
        a.kind = "kernarg".into();
    }
    Ok(Layout {
        allocations,
        code_at,
    })
}

/// Allocations the host owns while a dispatch runs and a kernel may not
/// write (the queue, the packet, HIP's kernarg pool, where the next
/// launches' packets and arguments are written meanwhile): their
/// after-state is their before-state.
pub fn host_owned(kind: &str) -> bool {
    matches!(kind, "queue" | "packet" | "kernarg")
}

/// What a capture knows of a dispatch besides its memory.
#[derive(Debug, Clone)]
pub struct Dispatch<'a> {
    /// The agent's target ID.
    pub target: String,
    /// Launch index.
    pub launch: u64,
    /// The kernel's mangled symbol.
    pub kernel: String,
    /// Its kernel descriptor's device address.
    pub kernel_object: u64,
    /// The AQL packet.
    pub packet: &'a [u8; 64],
    /// Where the packet was (`dispatch_ptr`).
    pub packet_address: u64,
    /// Where the queue was (`queue_ptr`).
    pub queue_address: u64,
    /// The packet's dispatch ID.
    pub dispatch_id: u64,
    /// The kernel's argument bytes.
    pub kernarg: &'a [u8],
    /// The captured run.
    pub original: Original,
}

impl Manifest {
    /// The manifest of dispatch `d` over `layout`, with code object `i`
    /// of `code_sizes[i]` bytes; [`write`] fills in what it stores.
    pub fn new(d: Dispatch<'_>, layout: Layout, code_sizes: &[u64]) -> Manifest {
        Manifest {
            format: FORMAT.into(),
            version: VERSION,
            target: d.target,
            launch: d.launch,
            kernel: d.kernel,
            kernel_object: d.kernel_object,
            code_objects: code_sizes
                .iter()
                .zip(layout.code_at)
                .map(|(&size, allocation)| CodeObjectEntry { size, allocation })
                .collect(),
            packet: hex(d.packet),
            packet_address: d.packet_address,
            queue_address: d.queue_address,
            dispatch_id: d.dispatch_id,
            kernarg: hex(d.kernarg),
            allocations: layout.allocations,
            before_bytes: 0,
            before_pages: None,
            after_pages: Vec::new(),
            original: d.original,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_and_names() {
        let b = vec![0u8; 10000];
        let mut a = b.clone();
        a[5000] = 1;
        a[9999] = 2;
        assert_eq!(changed_pages(&b, &a), vec![(4096, 4096), (8192, 1808)]);
        assert_eq!(
            capsule_name(3, "void ns::axpy<float>(float*, int)"),
            "00003-axpy"
        );
        assert_eq!(capsule_name(12, "_Z4axpyPfi"), "00012-_Z4axpyPfi");
    }

    #[test]
    fn layout_sorts_keeps_code_and_marks_the_kernarg_pool() {
        let a = |base, size| Allocation {
            base,
            size,
            kind: "gpu-coarse".into(),
        };
        // Code at 0x5000 (after a buffer), kernarg inside 0x9000..0xa000,
        // one buffer overlapping the first.
        let l = layout(
            &[(0x5000, 0x1000)],
            [a(0x1000, 0x2000), a(0x9000, 0x1000), a(0x2000, 0x100)],
            0x20000,
            0x30000,
            0x9010,
        )
        .expect("layout");
        let bases: Vec<u64> = l.allocations.iter().map(|a| a.base).collect();
        assert_eq!(bases, vec![0x1000, 0x5000, 0x9000, 0x20000, 0x30000]);
        assert_eq!(l.code_at, vec![1]);
        let kinds: Vec<&str> = l.allocations.iter().map(|a| a.kind.as_str()).collect();
        assert_eq!(
            kinds,
            vec!["gpu-coarse", "code", "kernarg", "queue", "packet"]
        );
        // A code object overlapping a lower allocation is refused.
        assert_eq!(
            layout(&[(0x1800, 0x100)], [a(0x1000, 0x1000)], 0x20000, 0x30000, 0),
            Err(0)
        );
        assert!(host_owned("kernarg") && !host_owned("code"));
    }

    #[test]
    fn runs_clip_and_merge() {
        // Allocation 0x1800..0x5800: pages 1, 2 and 5 touched, 9 outside.
        let r = runs_of_pages(0x1800, 0x4000, &[0, 1, 2, 5, 9], 12);
        assert_eq!(r, vec![(0, 0x1800), (0x3800, 0x800)]);
        assert_eq!(runs_of_pages(0x1000, 0x1000, &[3], 12), vec![]);
    }
}

//! Reading a capsule: untrusted input. Every field of the manifest is
//! checked before anything is allocated from it, every file is checked
//! against its limit before it is read, and the blobs are decompressed
//! into buffers that grow only as real data arrives, up to the size the
//! (already bounded) manifest declares.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use lathe_bundle::TargetId;

use crate::{code_file, unhex, Manifest, AFTER, BEFORE, FORMAT, MANIFEST, PAGE, VERSION};

/// Why a capsule cannot be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// A file of the capsule is missing.
    #[error("{0} is missing from the capsule")]
    Missing(String),
    /// A file could not be read.
    #[error("{file}: {source}")]
    Io {
        /// The file.
        file: String,
        /// Why.
        source: std::io::Error,
    },
    /// A file is larger than the capsule can hold.
    #[error("{file}: {size} bytes is more than the {limit} bytes it may have")]
    TooLarge {
        /// The file.
        file: String,
        /// Its size.
        size: u64,
        /// Its limit.
        limit: u64,
    },
    /// The manifest is not valid.
    #[error("capsule.json: {0}")]
    Manifest(String),
    /// A blob or code object does not match the manifest.
    #[error("{file}: {why}")]
    Blob {
        /// The file.
        file: String,
        /// Why.
        why: String,
    },
}

/// Where a capsule's files come from.
pub trait Source {
    /// The bytes of file `name` (`capsule.json`, `code/0.co`, ...), `None`
    /// if there is no such file; a file over `limit` bytes is an error,
    /// raised before it is read.
    fn read(&self, name: &str, limit: u64) -> Result<Option<Vec<u8>>, ReadError>;
}

/// A capsule directory.
#[derive(Debug, Clone)]
pub struct Dir(pub PathBuf);

impl Source for Dir {
    fn read(&self, name: &str, limit: u64) -> Result<Option<Vec<u8>>, ReadError> {
        let p = self.0.join(name);
        let io = |source| ReadError::Io {
            file: name.to_string(),
            source,
        };
        let md = match std::fs::metadata(&p) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io(e)),
        };
        if !md.is_file() {
            return Err(ReadError::Blob {
                file: name.into(),
                why: "not a file".into(),
            });
        }
        if md.len() > limit {
            return Err(ReadError::TooLarge {
                file: name.into(),
                size: md.len(),
                limit,
            });
        }
        std::fs::read(&p).map(Some).map_err(io)
    }
}

/// A capsule held in memory (tests, the fuzz target).
#[derive(Debug, Clone, Default)]
pub struct Files(pub Vec<(String, Vec<u8>)>);

impl Source for Files {
    fn read(&self, name: &str, limit: u64) -> Result<Option<Vec<u8>>, ReadError> {
        match self.0.iter().find(|(n, _)| n == name) {
            None => Ok(None),
            Some((_, b)) if b.len() as u64 > limit => Err(ReadError::TooLarge {
                file: name.into(),
                size: b.len() as u64,
                limit,
            }),
            Some((_, b)) => Ok(Some(b.clone())),
        }
    }
}

/// Limits on what a capsule may make the reader allocate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Total bytes of the captured allocations.
    pub memory: u64,
    /// Bytes of one code object.
    pub code_object: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory: 16 << 30,
            code_object: 1 << 30,
        }
    }
}

const MAX_MANIFEST: u64 = 64 << 20;
const MAX_ALLOCATIONS: usize = 1 << 20;
const MAX_CODE_OBJECTS: usize = 4096;
const MAX_KERNARG: usize = 1 << 20;
const MAX_RUNS: usize = 1 << 24;

/// A capsule read and checked.
#[derive(Debug, Clone)]
pub struct Capsule {
    /// The manifest.
    pub manifest: Manifest,
    /// Its target.
    pub target: TargetId,
    /// The code objects, in load order.
    pub code_objects: Vec<Vec<u8>>,
    /// The AQL packet.
    pub packet: [u8; 64],
    /// The kernel's argument bytes.
    pub kernarg: Vec<u8>,
    before: Vec<u8>,
    /// Each allocation's stored runs.
    runs: Vec<Vec<Run>>,
    after: Vec<u8>,
}

/// A stored run of an allocation's memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    /// Offset in the allocation.
    pub offset: u64,
    /// Length in bytes.
    pub len: u64,
    /// Start in the decompressed `before.zst`.
    at: usize,
}

fn bad(m: impl Into<String>) -> ReadError {
    ReadError::Manifest(m.into())
}

fn need(src: &dyn Source, name: &str, limit: u64) -> Result<Vec<u8>, ReadError> {
    src.read(name, limit)?
        .ok_or_else(|| ReadError::Missing(name.to_string()))
}

/// Decompresses `file` expecting exactly `want` bytes.
fn inflate(file: &str, data: &[u8], want: u64) -> Result<Vec<u8>, ReadError> {
    let blob = |why: String| ReadError::Blob {
        file: file.into(),
        why,
    };
    let mut out = Vec::new();
    if want == 0 && data.is_empty() {
        return Ok(out);
    }
    let dec = zstd::stream::read::Decoder::with_buffer(data)
        .map_err(|e| blob(format!("not zstd data: {e}")))?;
    dec.take(want.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| blob(format!("corrupt or truncated zstd data: {e}")))?;
    if out.len() as u64 != want {
        return Err(blob(format!(
            "holds {} bytes; capsule.json says {want} (truncated or altered)",
            out.len()
        )));
    }
    Ok(out)
}

impl Capsule {
    /// Reads the capsule directory `dir`.
    pub fn open(dir: &Path, limits: &Limits) -> Result<Capsule, ReadError> {
        if !dir.is_dir() {
            return Err(ReadError::Io {
                file: dir.display().to_string(),
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "not a capsule directory (lathe exec --capture writes them)",
                ),
            });
        }
        Capsule::read(&Dir(dir.to_path_buf()), limits)
    }

    /// Reads a capsule from `src`.
    pub fn read(src: &dyn Source, limits: &Limits) -> Result<Capsule, ReadError> {
        let text = need(src, MANIFEST, MAX_MANIFEST)?;
        let manifest: Manifest = serde_json::from_slice(&text)
            .map_err(|e| bad(format!("not a capsule manifest: {e}")))?;
        let target = check(&manifest, limits)?;
        let mut code_objects = Vec::with_capacity(manifest.code_objects.len());
        for (i, c) in manifest.code_objects.iter().enumerate() {
            let name = code_file(i);
            let b = need(src, &name, c.size)?;
            if b.len() as u64 != c.size {
                return Err(ReadError::Blob {
                    file: name,
                    why: format!("{} bytes; capsule.json says {}", b.len(), c.size),
                });
            }
            code_objects.push(b);
        }
        let mut packet = [0u8; 64];
        packet.copy_from_slice(&unhex(&manifest.packet).unwrap_or_default()[..64]);
        let kernarg = unhex(&manifest.kernarg).unwrap_or_default();
        // A zstd frame of this size is at most a few bytes per KiB larger
        // than its content.
        let slack = |n: u64| n.saturating_add(n / 8).saturating_add(1 << 20);
        let before_z = need(src, BEFORE, slack(manifest.before_bytes))?;
        let before = inflate(BEFORE, &before_z, manifest.before_bytes)?;
        let after_bytes: u64 = manifest.after_pages.iter().map(|p| p[2]).sum();
        let after_z = need(src, AFTER, slack(after_bytes))?;
        let after = inflate(AFTER, &after_z, after_bytes)?;
        let mut runs = vec![Vec::new(); manifest.allocations.len()];
        let mut at = 0usize;
        for [i, offset, len] in stored_runs(&manifest) {
            runs[i as usize].push(Run { offset, len, at });
            at += len as usize;
        }
        Ok(Capsule {
            manifest,
            target,
            code_objects,
            packet,
            kernarg,
            before,
            runs,
            after,
        })
    }

    /// Allocation `i`'s stored runs: one covering it whole unless the
    /// capsule holds only the pages the dispatch touched.
    pub fn runs(&self, i: usize) -> &[Run] {
        &self.runs[i]
    }

    /// Whether the capsule stores allocation `i` whole.
    pub fn whole(&self, i: usize) -> bool {
        matches!(&self.runs[i][..], [r] if r.offset == 0 && r.len == self.manifest.allocations[i].size)
    }

    /// Bytes of `run` (of allocation `i`) before the dispatch.
    pub fn before(&self, run: &Run) -> &[u8] {
        &self.before[run.at..run.at + run.len as usize]
    }

    /// Bytes of `run` of allocation `i` after the dispatch.
    pub fn after(&self, i: usize, run: &Run) -> Vec<u8> {
        let mut v = self.before(run).to_vec();
        let mut at = 0usize;
        let end = run.offset + run.len;
        for &[a, off, len] in &self.manifest.after_pages {
            let n = len as usize;
            if a as usize == i && off >= run.offset && off + len <= end {
                let o = (off - run.offset) as usize;
                v[o..o + n].copy_from_slice(&self.after[at..at + n]);
            }
            at += n;
        }
        v
    }

    /// The code object whose loaded image fills allocation `i` where no
    /// run is stored (format 3 stores a `code` allocation's touched pages
    /// only), if `i` is a code object's allocation.
    pub fn image_of(&self, i: usize) -> Option<usize> {
        self.manifest
            .code_objects
            .iter()
            .position(|c| c.allocation == i)
    }

    /// Whether any after page belongs to allocation `i`.
    pub fn changed(&self, i: usize) -> bool {
        self.manifest.after_pages.iter().any(|p| p[0] == i as u64)
    }

    /// Allocation `i` and the offset in it of `addr`, when `addr` is in a
    /// captured allocation but on none of its stored runs (a replay
    /// reaching it left the capsule).
    pub fn unstored(&self, addr: u64) -> Option<(usize, u64)> {
        let m = &self.manifest;
        let i = m
            .allocations
            .partition_point(|a| a.base <= addr)
            .checked_sub(1)?;
        let a = &m.allocations[i];
        let off = addr.checked_sub(a.base).filter(|&o| o < a.size)?;
        if self.image_of(i).is_some() {
            return None;
        }
        let stored = self.runs[i]
            .iter()
            .any(|r| off >= r.offset && off - r.offset < r.len);
        (!stored).then_some((i, off))
    }

    /// Bytes the dispatch changed (the after-state's pages).
    pub fn after_bytes(&self) -> u64 {
        self.after.len() as u64
    }
}

/// The stored runs, `[allocation, offset, length]`: `before_pages`, or
/// every allocation whole.
fn stored_runs(m: &Manifest) -> Vec<[u64; 3]> {
    match &m.before_pages {
        Some(p) => p.clone(),
        None => m
            .allocations
            .iter()
            .enumerate()
            .map(|(i, a)| [i as u64, 0, a.size])
            .collect(),
    }
}

/// Address space a capsule's allocations may span (reserved, not
/// committed, at replay: only the stored runs are written).
const MAX_SPAN: u64 = 1 << 40;

/// Every check on the manifest, before anything is read or allocated
/// from it; returns the parsed target.
fn check(m: &Manifest, limits: &Limits) -> Result<TargetId, ReadError> {
    if m.format != FORMAT {
        return Err(bad(format!("format {:?} is not {FORMAT:?}", m.format)));
    }
    if !(1..=VERSION).contains(&m.version) {
        return Err(bad(format!(
            "capsule version {}; this lathe reads versions 1 to {VERSION}",
            m.version
        )));
    }
    if m.version == 1 && m.before_pages.is_some() {
        return Err(bad("before_pages in a version 1 capsule"));
    }
    let target: TargetId = m
        .target
        .parse()
        .map_err(|e| bad(format!("target {:?}: {e}", m.target)))?;
    let isa = lathe_isa::Target::from_name(target.processor.name()).map_err(|e| {
        bad(format!(
            "target {}: the emulator does not run it ({e})",
            m.target
        ))
    })?;
    // The ISA layer reads more generations than the emulator runs (GFX9).
    if isa.generation() != 9 {
        return Err(bad(format!(
            "target {}: the emulator runs GFX9 code only (gfx900 to gfx950)",
            m.target
        )));
    }
    if m.allocations.len() > MAX_ALLOCATIONS {
        return Err(bad(format!("{} allocations", m.allocations.len())));
    }
    let mut total = 0u64;
    let mut end = 0u64;
    for (i, a) in m.allocations.iter().enumerate() {
        let e = a
            .base
            .checked_add(a.size)
            .filter(|_| a.size > 0)
            .ok_or_else(|| {
                bad(format!(
                    "allocation {i}: bad range {:#x} + {}",
                    a.base, a.size
                ))
            })?;
        if i > 0 && a.base < end {
            return Err(bad(format!(
                "allocation {i} at {:#x} overlaps or precedes the one before it",
                a.base
            )));
        }
        end = e;
        total = total
            .checked_add(a.size)
            .ok_or_else(|| bad("allocation sizes overflow"))?;
    }
    if total > MAX_SPAN {
        return Err(bad(format!(
            "the allocations span {total} bytes, more than the limit of {MAX_SPAN}"
        )));
    }
    let stored = match &m.before_pages {
        None => total,
        Some(p) => {
            if p.len() > MAX_RUNS {
                return Err(bad(format!("{} before pages", p.len())));
            }
            let mut last: Option<(u64, u64)> = None;
            let mut sum = 0u64;
            for (j, &[a, off, len]) in p.iter().enumerate() {
                let alloc = usize::try_from(a).ok().and_then(|a| m.allocations.get(a));
                let end = off.checked_add(len);
                let ok = alloc.is_some_and(|al| len > 0 && end.is_some_and(|e| e <= al.size))
                    && last.is_none_or(|(la, le)| a > la || (a == la && off >= le));
                if !ok {
                    return Err(bad(format!(
                        "before page {j}: [{a}, {off}, {len}] is not a run of allocation {a} after the one before it"
                    )));
                }
                last = Some((a, end.unwrap_or(u64::MAX)));
                sum += len;
            }
            sum
        }
    };
    let what = if m.before_pages.is_some() {
        "the stored runs' total"
    } else {
        "the allocations' total"
    };
    if stored != m.before_bytes {
        return Err(bad(format!(
            "before_bytes {} is not {what} {stored}",
            m.before_bytes
        )));
    }
    // Replay also loads each code object into its allocation (format 3
    // stores only a code allocation's touched pages): bounded together.
    let images: u64 = m
        .code_objects
        .iter()
        .filter_map(|c| m.allocations.get(c.allocation))
        .map(|a| a.size)
        .sum();
    let memory = stored.saturating_add(images);
    if memory > limits.memory || usize::try_from(memory).is_err() {
        return Err(bad(format!(
            "the capsule holds {memory} bytes of memory (stored runs and code allocations), more than the limit of {}",
            limits.memory
        )));
    }
    if m.code_objects.is_empty() || m.code_objects.len() > MAX_CODE_OBJECTS {
        return Err(bad(format!("{} code objects", m.code_objects.len())));
    }
    for (i, c) in m.code_objects.iter().enumerate() {
        let a = m
            .allocations
            .get(c.allocation)
            .filter(|a| a.kind == "code")
            .ok_or_else(|| {
                bad(format!(
                    "code object {i}: allocation {} is not a code allocation",
                    c.allocation
                ))
            })?;
        let _ = a;
        if m.code_objects[..i]
            .iter()
            .any(|o| o.allocation == c.allocation)
        {
            return Err(bad(format!(
                "code object {i}: allocation {} holds an earlier code object",
                c.allocation
            )));
        }
        if c.size > limits.code_object {
            return Err(bad(format!("code object {i}: {} bytes", c.size)));
        }
    }
    let in_code = m.code_objects.iter().any(|c| {
        let a = &m.allocations[c.allocation];
        m.kernel_object >= a.base && m.kernel_object.saturating_add(64) <= a.base + a.size
    });
    if !in_code {
        return Err(bad(format!(
            "kernel_object {:#x} is in none of the code objects",
            m.kernel_object
        )));
    }
    let packet = unhex(&m.packet)
        .filter(|p| p.len() == 64)
        .ok_or_else(|| bad("packet: not 64 bytes of hex"))?;
    let ko = u64::from_le_bytes(packet[32..40].try_into().unwrap_or_default());
    if ko != m.kernel_object {
        return Err(bad(format!(
            "the packet's kernel_object {ko:#x} is not kernel_object {:#x}",
            m.kernel_object
        )));
    }
    if m.kernarg.len() > 2 * MAX_KERNARG || unhex(&m.kernarg).is_none() {
        return Err(bad("kernarg: not hex (or over 1 MiB)"));
    }
    let runs = stored_runs(m);
    let mut last: Option<(u64, u64)> = None;
    let mut after = 0u64;
    for (j, &[a, off, len]) in m.after_pages.iter().enumerate() {
        let _ = usize::try_from(a)
            .ok()
            .and_then(|a| m.allocations.get(a))
            .ok_or_else(|| bad(format!("after page {j}: no allocation {a}")))?;
        // Inside one stored run (runs are sorted by allocation, offset).
        let k = runs.partition_point(|r| (r[0], r[1]) <= (a, off));
        let in_run = k
            .checked_sub(1)
            .map(|k| runs[k])
            .is_some_and(|r| r[0] == a && off.checked_add(len).is_some_and(|e| e <= r[1] + r[2]));
        if len == 0 || len > PAGE || !in_run || last.is_some_and(|(la, le)| (a, off) < (la, le)) {
            return Err(bad(format!(
                "after page {j}: [{a}, {off}, {len}] is not a page of a stored run of allocation {a} in order"
            )));
        }
        last = Some((a, off + len));
        after += len;
    }
    if after > stored {
        return Err(bad("after pages exceed the memory"));
    }
    if !m.original.seconds.is_finite() {
        return Err(bad("original.seconds is not a number"));
    }
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::{write, Captured};
    use crate::{Allocation, CodeObjectEntry, Original};

    fn sample() -> (Manifest, Vec<Vec<u8>>, Vec<Vec<u8>>) {
        let mut packet = [0u8; 64];
        packet[32..40].copy_from_slice(&0x10040u64.to_le_bytes());
        let m = Manifest {
            format: FORMAT.into(),
            version: VERSION,
            target: "gfx90a:sramecc+:xnack-".into(),
            launch: 0,
            kernel: "k".into(),
            kernel_object: 0x10040,
            code_objects: vec![CodeObjectEntry {
                size: 4,
                allocation: 0,
            }],
            packet: crate::hex(&packet),
            packet_address: 0,
            queue_address: 0,
            dispatch_id: 0,
            kernarg: "00".into(),
            allocations: vec![
                Allocation {
                    base: 0x10000,
                    size: 0x1000,
                    kind: "code".into(),
                },
                Allocation {
                    base: 0x20000,
                    size: 9000,
                    kind: "gpu-coarse".into(),
                },
            ],
            before_bytes: 0,
            before_pages: None,
            after_pages: vec![],
            original: Original {
                seconds: 0.0,
                wave_instructions: 0,
                threads: 1,
                stopped: None,
            },
        };
        let before = vec![vec![1u8; 0x1000], vec![0u8; 9000]];
        let mut after = before.clone();
        after[1][8999] = 7;
        (m, before, after)
    }

    fn written() -> Files {
        written_with(None)
    }

    fn written_with(known: Option<Vec<Vec<(u64, u64)>>>) -> Files {
        let (m, before, after) = sample();
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("lathe-capsule-test-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        write(
            &dir,
            Captured {
                manifest: m,
                code_objects: vec![b"\x7fELF"],
                before,
                after,
                known,
            },
        )
        .expect("write");
        let mut f = Files::default();
        for n in [MANIFEST, BEFORE, AFTER, "code/0.co"] {
            f.0.push((n.into(), std::fs::read(dir.join(n)).expect("file")));
        }
        let _ = std::fs::remove_dir_all(&dir);
        f
    }

    #[test]
    fn roundtrip_and_bad_inputs() {
        let f = written();
        let c = Capsule::read(&f, &Limits::default()).expect("read");
        assert_eq!(c.manifest.after_pages, vec![[1, 8192, 808]]);
        assert!(c.whole(1));
        let r1 = c.runs(1)[0];
        assert_eq!(c.after(1, &r1)[8999], 7);
        assert_eq!(c.before(&r1)[8999], 0);
        assert_eq!(c.after(0, &c.runs(0)[0]), vec![1u8; 0x1000]);
        assert_eq!(c.unstored(0x20000 + 100), None);

        // Missing file.
        let mut g = f.clone();
        g.0.retain(|(n, _)| n != "code/0.co");
        let e = Capsule::read(&g, &Limits::default())
            .expect_err("an error")
            .to_string();
        assert_eq!(e, "code/0.co is missing from the capsule");
        // Truncated blob.
        let mut g = f.clone();
        for (n, b) in &mut g.0 {
            if n == BEFORE {
                b.truncate(b.len() / 2);
            }
        }
        let e = Capsule::read(&g, &Limits::default())
            .expect_err("an error")
            .to_string();
        assert!(e.starts_with("before.zst: "), "{e}");
        // A manifest asking for far more memory than allowed.
        let mut g = f.clone();
        let text = String::from_utf8(g.0[0].1.clone()).expect("utf8");
        g.0[0].1 = text
            .replace("\"size\": 9000", "\"size\": 900000000000")
            .into_bytes();
        let e = Capsule::read(&g, &Limits::default())
            .expect_err("an error")
            .to_string();
        assert!(e.contains("before_bytes"), "{e}");
        // Wrong target.
        let mut g = f.clone();
        g.0[0].1 = text
            .replace("gfx90a:sramecc+:xnack-", "gfx1100")
            .into_bytes();
        let e = Capsule::read(&g, &Limits::default())
            .expect_err("an error")
            .to_string();
        assert!(e.contains("gfx1100"), "{e}");
        // A version this lathe does not know.
        let mut g = f.clone();
        g.0[0].1 = text
            .replace("\"version\": 3", "\"version\": 4")
            .into_bytes();
        let e = Capsule::read(&g, &Limits::default())
            .expect_err("an error")
            .to_string();
        assert!(
            e.contains("capsule version 4; this lathe reads versions 1 to 3"),
            "{e}"
        );
    }

    #[test]
    fn touched_runs_only() {
        // Allocation 1 (9000 bytes): only its last page stored.
        let f = written_with(Some(vec![vec![(0, 0x1000)], vec![(8192, 808)]]));
        let c = Capsule::read(&f, &Limits::default()).expect("read");
        assert_eq!(c.manifest.version, VERSION);
        assert_eq!(c.manifest.before_bytes, 0x1000 + 808);
        assert_eq!(
            c.manifest.before_pages,
            Some(vec![[0, 0, 0x1000], [1, 8192, 808]])
        );
        assert!(!c.whole(1));
        let r = c.runs(1)[0];
        assert_eq!((r.offset, r.len), (8192, 808));
        assert_eq!(c.after(1, &r)[807], 7);
        assert_eq!(c.unstored(0x20000 + 100), Some((1, 100)));
        assert_eq!(c.unstored(0x20000 + 8192), None);
        assert_eq!(c.unstored(0x30000), None);
        // A run past its allocation, and runs out of order.
        let text = String::from_utf8(f.0[0].1.clone()).expect("utf8");
        let compact: String = text.split_whitespace().collect();
        for (from, to) in [
            ("[1,8192,808]", "[1,8192,809]"),
            ("[0,0,4096],[1,8192,808]", "[1,8192,808],[0,0,4096]"),
        ] {
            let mut g = f.clone();
            assert!(compact.contains(from), "{compact}");
            g.0[0].1 = compact.replace(from, to).into_bytes();
            let e = Capsule::read(&g, &Limits::default())
                .expect_err("an error")
                .to_string();
            assert!(e.contains("before page"), "{e}");
        }
        // Version 1 with before_pages is refused.
        let mut g = f.clone();
        g.0[0].1 = compact
            .replace("\"version\":3", "\"version\":1")
            .into_bytes();
        let e = Capsule::read(&g, &Limits::default())
            .expect_err("an error")
            .to_string();
        assert!(e.contains("version 1"), "{e}");
    }
}

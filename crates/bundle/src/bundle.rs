//! Uncompressed clang offload bundles (`__CLANG_OFFLOAD_BUNDLE__`).
//!
//! Owns the zero-copy reader ([`Bundle`], whose entries borrow the input),
//! the writer ([`BundleWriter`]), and iteration over several bundles (plain
//! or CCOB) stored back to back, as in a linked `.hip_fatbin` section
//! ([`sequence`]).
//!
//! Layout (all integers little-endian u64): the 24-byte magic, the entry
//! count, then per entry its data offset and size (from the bundle start),
//! the ID length and the ID bytes; entry data follows, usually aligned.

use std::borrow::Cow;
use std::io::{self, Write};

use crate::ccob::{self, CcobHeader};
use crate::error::{Error, Limits, Result};
use crate::id::EntryId;

/// The magic string that starts an uncompressed bundle.
pub const MAGIC: &[u8; 24] = b"__CLANG_OFFLOAD_BUNDLE__";

/// Smallest possible entry-table record: offset, size, ID length.
const ENTRY_HEADER: u64 = 24;

/// One entry of a bundle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry<'a> {
    /// Position in the entry table.
    pub index: usize,
    /// The entry ID.
    pub id: EntryId<'a>,
    /// Offset of the data from the bundle start (for entries built from ELF
    /// sections: the section's file offset).
    pub offset: u64,
    /// The entry's bytes (a code object, bitcode, or empty for the host).
    pub data: &'a [u8],
}

/// A parsed uncompressed bundle whose entries borrow the input bytes.
#[derive(Clone, Debug)]
pub struct Bundle<'a> {
    entries: Vec<Entry<'a>>,
    header_len: u64,
    extent: u64,
}

fn read_u64(data: &[u8], offset: u64, what: &'static str) -> Result<u64> {
    let available = (data.len() as u64).saturating_sub(offset);
    let bytes = usize::try_from(offset)
        .ok()
        .and_then(|o| data.get(o..o.checked_add(8)?))
        .ok_or(Error::Truncated {
            what,
            offset,
            needed: 8,
            available,
        })?;
    let mut b = [0u8; 8];
    b.copy_from_slice(bytes);
    Ok(u64::from_le_bytes(b))
}

fn slice(data: &[u8], offset: u64, len: u64) -> Option<&[u8]> {
    let start = usize::try_from(offset).ok()?;
    let end = start.checked_add(usize::try_from(len).ok()?)?;
    data.get(start..end)
}

impl<'a> Bundle<'a> {
    /// Parses the bundle at the start of `data` with default [`Limits`].
    /// `data` may extend past the bundle (see [`Bundle::extent`]).
    pub fn parse(data: &'a [u8]) -> Result<Bundle<'a>> {
        Bundle::parse_with(data, &Limits::default())
    }

    /// Parses the bundle at the start of `data`.
    ///
    /// Checks: the magic, that the entry table fits, that the count is
    /// possible for the data size, ID lengths, that every entry lies within
    /// `data`, that no non-empty entry overlaps the header or another entry.
    pub fn parse_with(data: &'a [u8], limits: &Limits) -> Result<Bundle<'a>> {
        if !data.starts_with(MAGIC) {
            if data.len() < MAGIC.len() && MAGIC.starts_with(data) {
                return Err(Error::Truncated {
                    what: "bundle magic",
                    offset: 0,
                    needed: MAGIC.len() as u64,
                    available: data.len() as u64,
                });
            }
            return Err(Error::BadMagic {
                offset: 0,
                found: data.iter().take(8).copied().collect(),
            });
        }
        let len = data.len() as u64;
        let mut pos = MAGIC.len() as u64;
        let count = read_u64(data, pos, "bundle entry count")?;
        pos += 8;
        let max = len.saturating_sub(pos) / ENTRY_HEADER;
        if count > max {
            return Err(Error::TooManyEntries {
                count,
                max,
                available: len,
            });
        }
        // count <= len / 24, so these allocations are bounded by the input
        // size. The whole table is read before any data range is checked,
        // so a cut inside the table is reported as truncation.
        let cap = usize::try_from(count).unwrap_or(0);
        let mut records = Vec::with_capacity(cap);
        for i in 0..count {
            let offset = read_u64(data, pos, "bundle entry offset")?;
            let size = read_u64(data, pos + 8, "bundle entry size")?;
            let id_len = read_u64(data, pos + 16, "bundle entry ID length")?;
            if id_len > limits.max_id_len {
                return Err(Error::IdTooLong {
                    index: i,
                    offset: pos + 16,
                    len: id_len,
                    max: limits.max_id_len,
                });
            }
            pos += ENTRY_HEADER;
            let raw_id = slice(data, pos, id_len).ok_or(Error::Truncated {
                what: "bundle entry ID",
                offset: pos,
                needed: id_len,
                available: len.saturating_sub(pos),
            })?;
            pos += id_len;
            records.push((offset, size, raw_id));
        }
        let mut entries = Vec::with_capacity(cap);
        for (index, (offset, size, raw_id)) in records.into_iter().enumerate() {
            let id = EntryId::parse(raw_id);
            let entry_data = slice(data, offset, size).ok_or_else(|| Error::EntryOutOfRange {
                index,
                id: id.to_string_lossy(),
                offset,
                size,
                bundle_size: len,
            })?;
            entries.push(Entry {
                index,
                id,
                offset,
                data: entry_data,
            });
        }
        let header_len = pos;
        check_layout(&entries, header_len)?;
        let extent = entries
            .iter()
            .map(|e| e.offset + e.data.len() as u64)
            .fold(header_len, u64::max);
        Ok(Bundle {
            entries,
            header_len,
            extent,
        })
    }

    /// A bundle made of entries found elsewhere (e.g. one ELF section per
    /// entry). No layout checks are made.
    pub fn from_entries(entries: Vec<Entry<'a>>) -> Bundle<'a> {
        Bundle {
            entries,
            header_len: 0,
            extent: 0,
        }
    }

    /// The entries, in table order.
    pub fn entries(&self) -> &[Entry<'a>] {
        &self.entries
    }

    /// Size of the header (magic, count and entry table).
    pub fn header_len(&self) -> u64 {
        self.header_len
    }

    /// Bytes from the bundle start to the end of its header or last entry,
    /// whichever is further.
    pub fn extent(&self) -> u64 {
        self.extent
    }

    /// The first entry whose raw ID equals `id`.
    pub fn find(&self, id: &str) -> Option<&Entry<'a>> {
        self.entries.iter().find(|e| e.id.raw() == id.as_bytes())
    }
}

fn check_layout(entries: &[Entry<'_>], header_len: u64) -> Result<()> {
    let mut ranges: Vec<(u64, u64, usize)> = Vec::with_capacity(entries.len());
    for e in entries {
        if e.data.is_empty() {
            continue;
        }
        let end = e.offset + e.data.len() as u64;
        if e.offset < header_len {
            return Err(Error::EntryOverlapsHeader {
                index: e.index,
                id: e.id.to_string_lossy(),
                offset: e.offset,
                header_end: header_len,
            });
        }
        ranges.push((e.offset, end, e.index));
    }
    ranges.sort_unstable();
    for w in ranges.windows(2) {
        if let [a, b] = w {
            if b.0 < a.1 {
                let id = |i: usize| {
                    entries
                        .get(i)
                        .map(|e| e.id.to_string_lossy())
                        .unwrap_or_default()
                };
                return Err(Error::EntriesOverlap {
                    first: a.2,
                    first_id: id(a.2),
                    first_start: a.0,
                    first_end: a.1,
                    second: b.2,
                    second_id: id(b.2),
                    second_start: b.0,
                    second_end: b.1,
                });
            }
        }
    }
    Ok(())
}

/// Builds an uncompressed bundle the way `clang-offload-bundler` does: each
/// entry's data starts at the next multiple of the alignment (4096 by
/// default), padding is zeros, entries keep the order they were added in.
#[derive(Debug, Clone)]
pub struct BundleWriter<'d> {
    alignment: u64,
    entries: Vec<(String, Cow<'d, [u8]>)>,
}

impl Default for BundleWriter<'_> {
    fn default() -> Self {
        BundleWriter::new()
    }
}

impl<'d> BundleWriter<'d> {
    /// An empty writer with 4096-byte alignment.
    pub fn new() -> Self {
        BundleWriter {
            alignment: 4096,
            entries: Vec::new(),
        }
    }

    /// Sets the entry alignment (0 and 1 both mean none).
    pub fn alignment(mut self, alignment: u64) -> Self {
        self.alignment = alignment.max(1);
        self
    }

    /// Adds an entry.
    pub fn add(&mut self, id: impl Into<String>, data: impl Into<Cow<'d, [u8]>>) -> &mut Self {
        self.entries.push((id.into(), data.into()));
        self
    }

    /// Adds an empty host entry, e.g. `host-x86_64-unknown-linux-gnu-`.
    pub fn add_host(&mut self, triple: &str) -> &mut Self {
        self.add(format!("host-{triple}"), &[][..])
    }

    fn layout(&self) -> Option<(u64, Vec<u64>)> {
        let mut header = MAGIC.len() as u64 + 8;
        for (id, _) in &self.entries {
            header = header
                .checked_add(ENTRY_HEADER)?
                .checked_add(id.len() as u64)?;
        }
        let mut pos = header;
        let mut offsets = Vec::with_capacity(self.entries.len());
        for (_, data) in &self.entries {
            pos = pos.checked_next_multiple_of(self.alignment)?;
            offsets.push(pos);
            pos = pos.checked_add(data.len() as u64)?;
        }
        Some((pos, offsets))
    }

    /// Total size of the bundle that would be written.
    pub fn len(&self) -> u64 {
        self.layout().map_or(u64::MAX, |l| l.0)
    }

    /// Whether no entries were added.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Writes the bundle.
    pub fn write_to<W: Write>(&self, w: &mut W) -> io::Result<()> {
        let (_, offsets) = self
            .layout()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "bundle too large"))?;
        w.write_all(MAGIC)?;
        w.write_all(&(self.entries.len() as u64).to_le_bytes())?;
        for ((id, data), off) in self.entries.iter().zip(&offsets) {
            w.write_all(&off.to_le_bytes())?;
            w.write_all(&(data.len() as u64).to_le_bytes())?;
            w.write_all(&(id.len() as u64).to_le_bytes())?;
            w.write_all(id.as_bytes())?;
        }
        let mut pos = MAGIC.len() as u64
            + 8
            + self
                .entries
                .iter()
                .map(|(id, _)| ENTRY_HEADER + id.len() as u64)
                .sum::<u64>();
        const ZEROS: [u8; 4096] = [0; 4096];
        for ((_, data), &off) in self.entries.iter().zip(&offsets) {
            while pos < off {
                let n = (off - pos).min(ZEROS.len() as u64);
                w.write_all(&ZEROS[..n as usize])?;
                pos += n;
            }
            w.write_all(data)?;
            pos += data.len() as u64;
        }
        Ok(())
    }

    /// Writes the bundle into a new vector.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(usize::try_from(self.len()).unwrap_or(0));
        // Writing to a Vec cannot fail except for the size overflow that
        // `layout` reports; return what was written in that case.
        let _ = self.write_to(&mut v);
        v
    }
}

/// The two container formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `__CLANG_OFFLOAD_BUNDLE__`.
    Plain,
    /// `CCOB` with its header.
    Compressed(CcobHeader),
}

/// One bundle found by [`sequence`]: where it is and its exact bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawBundle<'a> {
    /// Offset from the start of the scanned buffer.
    pub offset: u64,
    /// The bundle's bytes, from its magic to its end (for a CCOB v1, which
    /// records no size, up to the next bundle or the end of the buffer).
    pub bytes: &'a [u8],
    /// Plain or compressed.
    pub format: Format,
}

/// Which magic starts `data`, if any.
pub fn magic_at(data: &[u8]) -> Option<FormatKind> {
    if data.starts_with(MAGIC) {
        Some(FormatKind::Plain)
    } else if data.starts_with(ccob::MAGIC) {
        Some(FormatKind::Compressed)
    } else {
        None
    }
}

/// A container format without its header details.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatKind {
    /// `__CLANG_OFFLOAD_BUNDLE__`.
    Plain,
    /// `CCOB`.
    Compressed,
}

/// Iterates over the bundles stored back to back in `data` (a `.hip_fatbin`
/// section or a bundle file), skipping zero padding between them.
///
/// Each item is a bundle or an error; after an error in a bundle header the
/// iterator resynchronises at the next magic string, so one bad bundle does
/// not hide the rest. Header errors come wrapped in [`Error::InBundle`]
/// (index = bundles and errors seen before it, `file_offset` = its offset
/// in `data`); stray bytes are reported as [`Error::StrayData`]. Uncompressed bundles are parsed (header only, zero
/// copy) to find their extent; CCOBs are not decompressed.
pub fn sequence<'a>(data: &'a [u8], limits: &Limits) -> Sequence<'a> {
    Sequence {
        data,
        pos: 0,
        limits: *limits,
        yielded: 0,
    }
}

/// Iterator returned by [`sequence`].
#[derive(Debug, Clone)]
pub struct Sequence<'a> {
    data: &'a [u8],
    pos: usize,
    limits: Limits,
    yielded: usize,
}

impl<'a> Sequence<'a> {
    /// Wraps an error in a bundle header found at `start`.
    fn at(&mut self, start: usize, e: Error) -> Error {
        let bundle = self.yielded;
        self.yielded += 1;
        Error::InBundle {
            bundle,
            file_offset: start as u64,
            section: None,
            source: Box::new(e),
        }
    }

    /// Offset of the next byte to be examined.
    pub fn position(&self) -> u64 {
        self.pos as u64
    }

    fn find_next_magic(&self, from: usize) -> Option<usize> {
        let rest = self.data.get(from..)?;
        let a = memchr::memmem::find(rest, MAGIC);
        let b = memchr::memmem::find(rest, ccob::MAGIC);
        let m = match (a, b) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        m.map(|m| m + from)
    }

    fn find_next_aligned_magic(&self, mut from: usize) -> Option<usize> {
        loop {
            let m = self.find_next_magic(from)?;
            if m % 8 == 0 {
                return Some(m);
            }
            from = m + 1;
        }
    }

    /// Skips bytes up to the next bundle; reports a `StrayData` error if
    /// anything but zeros was skipped.
    fn skip_to(&mut self, next: Option<usize>, start: usize) -> Option<Result<RawBundle<'a>>> {
        let end = next.unwrap_or(self.data.len());
        self.pos = end;
        Some(Err(Error::StrayData {
            offset: start as u64,
            len: (end - start) as u64,
        }))
    }
}

impl<'a> Iterator for Sequence<'a> {
    type Item = Result<RawBundle<'a>>;

    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.data.get(self.pos..)?;
        let skip = rest.iter().position(|&b| b != 0)?;
        let start = self.pos + skip;
        let here = self.data.get(start..)?;
        match magic_at(here) {
            Some(FormatKind::Plain) => match Bundle::parse_with(here, &self.limits) {
                Ok(b) => {
                    let len = usize::try_from(b.extent()).unwrap_or(here.len());
                    let bytes = here.get(..len).unwrap_or(here);
                    self.pos = start + bytes.len().max(1);
                    self.yielded += 1;
                    Some(Ok(RawBundle {
                        offset: start as u64,
                        bytes,
                        format: Format::Plain,
                    }))
                }
                Err(e) => {
                    self.pos = self.find_next_magic(start + 1).unwrap_or(self.data.len());
                    Some(Err(self.at(start, e)))
                }
            },
            Some(FormatKind::Compressed) => match CcobHeader::parse(here) {
                Ok(h) => {
                    let len = match h.total_size {
                        Some(t) => usize::try_from(t).unwrap_or(usize::MAX),
                        // Version 1 records no size: the CCOB ends where the
                        // next 8-aligned bundle magic starts (or at the end).
                        None => self
                            .find_next_aligned_magic(start + ccob::MAGIC.len())
                            .map_or(here.len(), |n| n - start),
                    };
                    match here.get(..len) {
                        Some(bytes) => {
                            self.pos = start + len.max(1);
                            self.yielded += 1;
                            Some(Ok(RawBundle {
                                offset: start as u64,
                                bytes,
                                format: Format::Compressed(h),
                            }))
                        }
                        None => {
                            self.pos = self.data.len();
                            Some(Err(self.at(
                                start,
                                Error::CcobFileSize {
                                    declared: h.total_size.unwrap_or(0),
                                    header_len: h.header_len as u64,
                                    available: here.len() as u64,
                                },
                            )))
                        }
                    }
                }
                Err(e) => {
                    self.pos = self.find_next_magic(start + 1).unwrap_or(self.data.len());
                    Some(Err(self.at(start, e)))
                }
            },
            None => {
                if here.len() < MAGIC.len()
                    && (MAGIC.starts_with(here) || ccob::MAGIC.starts_with(here))
                {
                    self.pos = self.data.len();
                    return Some(Err(Error::Truncated {
                        what: "bundle magic",
                        offset: start as u64,
                        needed: MAGIC.len() as u64,
                        available: here.len() as u64,
                    }));
                }
                let next = self.find_next_magic(start);
                self.skip_to(next, start)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writer_layout_matches_reader() {
        let mut w = BundleWriter::new();
        w.add_host("x86_64-unknown-linux-gnu-");
        w.add("hipv4-amdgcn-amd-amdhsa--gfx90a", &b"abc"[..]);
        w.add("hipv4-amdgcn-amd-amdhsa--gfx1100", vec![7u8; 5000]);
        let v = w.to_vec();
        assert_eq!(v.len() as u64, w.len());
        let b = Bundle::parse(&v).expect("parse");
        assert_eq!(b.entries().len(), 3);
        assert_eq!(b.entries()[0].offset, 4096);
        assert!(b.entries()[0].data.is_empty());
        assert_eq!(b.entries()[1].offset, 4096);
        assert_eq!(b.entries()[1].data, b"abc");
        assert_eq!(b.entries()[2].offset, 8192);
        assert_eq!(b.extent(), 8192 + 5000);
        assert_eq!(v.len(), 8192 + 5000);
    }

    #[test]
    fn sequence_skips_padding() {
        let mut w = BundleWriter::new().alignment(8);
        w.add("hipv4-amdgcn-amd-amdhsa--gfx90a", &b"xyz"[..]);
        let one = w.to_vec();
        let mut data = one.clone();
        data.resize(64 * 3, 0);
        data.extend_from_slice(&one);
        data.extend_from_slice(&[0; 13]);
        let found: Vec<_> = sequence(&data, &Limits::default())
            .collect::<Result<_>>()
            .expect("ok");
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].offset, 0);
        assert_eq!(found[1].offset, 192);
        assert_eq!(found[1].bytes, &one[..]);
    }

    #[test]
    fn sequence_reports_stray_data_and_resyncs() {
        let mut w = BundleWriter::new().alignment(1);
        w.add("hipv4-amdgcn-amd-amdhsa--gfx90a", &b"q"[..]);
        let one = w.to_vec();
        let mut data = b"junk".to_vec();
        data.extend_from_slice(&one);
        let items: Vec<_> = sequence(&data, &Limits::default()).collect();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0], Err(Error::StrayData { offset: 0, len: 4 }));
        assert_eq!(items[1].as_ref().expect("bundle").offset, 4);
    }
}

//! Lazy traversal of every (bundle, entry) pair in a file.
//!
//! Owns [`walk`]: discovery runs up front (it only reads headers), then each
//! bundle is opened (and decompressed, if it is a CCOB) only when the
//! iterator reaches it. Every item carries the number of bundle bytes
//! processed so far and the total, for a progress bar. An error in one
//! bundle is reported as one `Err` item and the walk continues with the
//! next bundle.

use std::ops::{Deref, Range};
use std::sync::Arc;

use crate::error::{Error, Limits, Result};
use crate::host::{discover, Discovery, FoundBundle, Opened, Storage};

/// The bytes of one walked entry: borrowed from the input for plain
/// bundles, shared with the decompressed buffer for CCOBs.
#[derive(Clone, Debug)]
pub enum EntryData<'a> {
    /// A slice of the input.
    Borrowed(&'a [u8]),
    /// A range of a decompressed bundle.
    Shared(Arc<Vec<u8>>, Range<usize>),
}

impl Deref for EntryData<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            EntryData::Borrowed(b) => b,
            EntryData::Shared(v, r) => v.get(r.clone()).unwrap_or(&[]),
        }
    }
}

/// One entry reached by [`Walk`].
#[derive(Clone, Debug)]
pub struct WalkEntry<'a> {
    /// Bundle index in discovery order.
    pub bundle: usize,
    /// Entry index within the bundle.
    pub entry: usize,
    /// File offset of the bundle.
    pub bundle_file_offset: u64,
    /// Offset of the entry within the (uncompressed) bundle.
    pub offset: u64,
    /// Whether the bundle was a CCOB.
    pub compressed: bool,
    /// The entry ID (lossy UTF-8 of the raw bytes).
    pub id: String,
    /// The entry's bytes.
    pub data: EntryData<'a>,
    /// Bundle bytes (in the file) fully processed so far, including this
    /// entry's bundle once its last entry is reached.
    pub bytes_done: u64,
    /// Total bundle bytes in the file.
    pub bytes_total: u64,
}

impl WalkEntry<'_> {
    /// The parsed entry ID.
    pub fn parsed_id(&self) -> crate::id::EntryId<'_> {
        crate::id::EntryId::parse_str(&self.id)
    }
}

struct Current<'a> {
    bundle: usize,
    file_offset: u64,
    compressed: bool,
    items: std::vec::IntoIter<(String, u64, EntryData<'a>)>,
    next_entry: usize,
    size: u64,
}

/// Iterator over every entry of every bundle in a file; see [`walk`].
pub struct Walk<'a> {
    discovery: Discovery<'a>,
    limits: Limits,
    next_bundle: usize,
    current: Option<Current<'a>>,
    bytes_done: u64,
    bytes_total: u64,
}

impl std::fmt::Debug for Walk<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Walk")
            .field("bundles", &self.discovery.bundles.len())
            .field("next_bundle", &self.next_bundle)
            .field("bytes_done", &self.bytes_done)
            .field("bytes_total", &self.bytes_total)
            .finish()
    }
}

/// Starts a lazy walk over `data` (any file [`discover`] accepts).
pub fn walk<'a>(data: &'a [u8], limits: &Limits) -> Result<Walk<'a>> {
    let discovery = discover(data, limits)?;
    let bytes_total = discovery.total_bundle_bytes();
    Ok(Walk {
        discovery,
        limits: *limits,
        next_bundle: 0,
        current: None,
        bytes_done: 0,
        bytes_total,
    })
}

impl<'a> Walk<'a> {
    /// The discovery result the walk is based on.
    pub fn discovery(&self) -> &Discovery<'a> {
        &self.discovery
    }

    /// Bundle bytes processed so far.
    pub fn bytes_done(&self) -> u64 {
        self.bytes_done
    }

    /// Total bundle bytes.
    pub fn bytes_total(&self) -> u64 {
        self.bytes_total
    }

    fn open(&self, b: &FoundBundle<'a>) -> Result<Current<'a>> {
        let opened = b.open(&self.limits)?;
        let items: Vec<(String, u64, EntryData<'a>)> = match opened {
            Opened::Plain(bytes) => {
                let bundle = crate::bundle::Bundle::parse_with(bytes, &self.limits)
                    .map_err(|e| b.wrap(e))?;
                bundle
                    .entries()
                    .iter()
                    .map(|e| {
                        (
                            e.id.to_string_lossy(),
                            e.offset,
                            EntryData::Borrowed(e.data),
                        )
                    })
                    .collect()
            }
            Opened::Entries(entries) => entries
                .iter()
                .map(|e| {
                    (
                        e.id.to_string_lossy(),
                        e.offset,
                        EntryData::Borrowed(e.data),
                    )
                })
                .collect(),
            Opened::Decompressed { data, .. } => {
                let shared = Arc::new(data);
                let bundle = crate::bundle::Bundle::parse_with(&shared, &self.limits)
                    .map_err(|e| b.wrap(e))?;
                bundle
                    .entries()
                    .iter()
                    .map(|e| {
                        let start = usize::try_from(e.offset).unwrap_or(0);
                        let range = start..start + e.data.len();
                        (
                            e.id.to_string_lossy(),
                            e.offset,
                            EntryData::Shared(Arc::clone(&shared), range),
                        )
                    })
                    .collect()
            }
        };
        Ok(Current {
            bundle: b.index,
            file_offset: b.file_offset,
            compressed: matches!(b.storage, Storage::Compressed(_)),
            items: items.into_iter(),
            next_entry: 0,
            size: b.size(),
        })
    }
}

impl<'a> Iterator for Walk<'a> {
    type Item = Result<WalkEntry<'a>, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(cur) = &mut self.current {
                if let Some((id, offset, data)) = cur.items.next() {
                    let last = cur.items.len() == 0;
                    if last {
                        self.bytes_done += cur.size;
                    }
                    let entry = cur.next_entry;
                    cur.next_entry += 1;
                    let item = WalkEntry {
                        bundle: cur.bundle,
                        entry,
                        bundle_file_offset: cur.file_offset,
                        offset,
                        compressed: cur.compressed,
                        id,
                        data,
                        bytes_done: self.bytes_done,
                        bytes_total: self.bytes_total,
                    };
                    if last {
                        self.current = None;
                    }
                    return Some(Ok(item));
                }
                self.current = None;
            }
            let b = self.discovery.bundles.get(self.next_bundle)?.clone();
            self.next_bundle += 1;
            match self.open(&b) {
                Ok(cur) => {
                    if cur.items.len() == 0 {
                        self.bytes_done += cur.size;
                        continue;
                    }
                    self.current = Some(cur);
                }
                Err(e) => {
                    self.bytes_done += b.size();
                    return Some(Err(e));
                }
            }
        }
    }
}

//! A code object's loaded image in two steps, shared by
//! [`Executable`](crate::Executable) and by callers that rebuild an image
//! at a known address without an executable (`lathe-capsule`'s replay
//! image): the `PT_LOAD` segments copied into one span ([`Layout`]), then
//! the dynamic relocations applied to that span ([`relocate`]).

use std::collections::HashMap;

use lathe_codeobj::{CodeObject, RelocationType, SymbolSection};

use crate::{Error, Result, UndefinedSymbol, MAX_LOAD_SIZE};

/// Where a code object's `PT_LOAD` segments go: one span from the page of
/// the lowest segment address to the end of the highest segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// The lowest segment address, rounded down to its page.
    pub min_vaddr: u64,
    /// Bytes the segments span from `min_vaddr`.
    pub size: u64,
    /// The span's alignment: the largest segment alignment, 4 KiB to 64 KiB.
    pub align: u64,
}

fn loads<'c>(co: &'c CodeObject<'_>) -> impl Iterator<Item = (usize, &'c lathe_codeobj::Segment)> {
    co.segments()
        .iter()
        .enumerate()
        .filter(|(_, s)| s.p_type == 1 && s.memsz > 0)
}

impl Layout {
    /// The layout of `co` (load index `index`, for errors); a span over
    /// [`MAX_LOAD_SIZE`] is refused.
    pub fn of(co: &CodeObject<'_>, index: usize) -> Result<Layout> {
        let min = loads(co).map(|(_, s)| s.vaddr).min().unwrap_or(0) & !0xfff;
        let max = loads(co)
            .map(|(_, s)| s.vaddr.saturating_add(s.memsz))
            .max()
            .unwrap_or(0);
        let size = max.saturating_sub(min).max(1);
        if size > MAX_LOAD_SIZE {
            return Err(Error::TooLarge {
                index,
                span: size,
                limit: MAX_LOAD_SIZE,
            });
        }
        let align = loads(co)
            .map(|(_, s)| s.align)
            .max()
            .unwrap_or(4096)
            .clamp(4096, 1 << 16);
        Ok(Layout {
            min_vaddr: min,
            size,
            align,
        })
    }

    /// Copies the file bytes of `co`'s segments into `dst`, the span
    /// (`self.size` bytes). Nothing else of `dst` is written: the bytes
    /// past each segment's file size (`.bss`) and between segments must
    /// already be zero.
    pub fn copy_segments(&self, co: &CodeObject<'_>, index: usize, dst: &mut [u8]) -> Result<()> {
        let bytes = co.data();
        for (si, s) in loads(co) {
            let src = usize::try_from(s.offset)
                .ok()
                .zip(usize::try_from(s.filesz).ok())
                .and_then(|(o, n)| bytes.get(o..o.checked_add(n)?))
                .filter(|_| s.filesz <= s.memsz)
                .ok_or(Error::SegmentOutOfFile {
                    index,
                    segment: si,
                    offset: s.offset,
                    filesz: s.filesz,
                    file_len: bytes.len(),
                })?;
            // Inside the span for `co`'s own layout; checked for another.
            let len = dst.len();
            s.vaddr
                .checked_sub(self.min_vaddr)
                .and_then(|a| usize::try_from(a).ok())
                .and_then(|a| dst.get_mut(a..a.checked_add(src.len())?))
                .ok_or_else(|| {
                    Error::Memory(format!("segment {si} does not fit the {len}-byte span"))
                })?
                .copy_from_slice(src);
        }
        Ok(())
    }
}

/// Where [`relocate`] applies a code object's relocations.
#[derive(Debug, Clone, Copy)]
pub struct Placement {
    /// Load index (for errors and undefined symbols).
    pub index: usize,
    /// The layout's lowest address (`image[0]` is this address).
    pub min_vaddr: u64,
    /// Device address minus ELF virtual address.
    pub load_delta: i64,
    /// Apply only `.rela.dyn`, as ROCr does
    /// ([`Executable::rela_dyn_only`](crate::Executable::rela_dyn_only)).
    pub rela_dyn_only: bool,
}

/// Applies `co`'s dynamic relocations (those of allocated relocation
/// sections) to `image`, its span placed as `at` says. A symbol resolves
/// to `co`'s own definition in `.dynsym` (the first of that name), else
/// to `globals(name)` (other code objects, external variables), else to 0
/// if `co` declares it weak; otherwise it is pushed to `undefined`.
pub fn relocate(
    co: &CodeObject<'_>,
    at: Placement,
    image: &mut [u8],
    globals: &mut dyn FnMut(&str) -> Option<u64>,
    undefined: &mut Vec<UndefinedSymbol>,
) -> Result<()> {
    let relocs = co.relocations().map_err(|source| Error::CodeObject {
        index: at.index,
        source,
    })?;
    let device = |vaddr: u64| vaddr.wrapping_add(at.load_delta as u64);
    // `.dynsym`'s definitions by name, the first of each, made on the first
    // named relocation.
    let mut own: Option<HashMap<&str, u64>> = None;
    for (ri, r) in relocs.iter().enumerate() {
        let in_dyn = co
            .section(r.section)
            .is_some_and(|s| s.flags & 0x2 != 0 && (!at.rela_dyn_only || s.name == ".rela.dyn"));
        if !in_dyn {
            continue;
        }
        let addend = r.addend.unwrap_or(0);
        let p = device(r.offset);
        let s_val = match r.symbol_name {
            None | Some("") => 0,
            Some(name) => {
                let own = own.get_or_insert_with(|| {
                    let mut m = HashMap::new();
                    for s in co.dynsym() {
                        if s.section != SymbolSection::Undefined {
                            let v = if s.section == SymbolSection::Absolute {
                                s.value
                            } else {
                                device(s.value)
                            };
                            m.entry(s.name).or_insert(v);
                        }
                    }
                    m
                });
                match own.get(name).copied().or_else(|| globals(name)) {
                    Some(a) => a,
                    None => {
                        let weak = co.dynsym().iter().any(|s| s.name == name && s.binding == 2);
                        if !weak {
                            undefined.push(UndefinedSymbol {
                                name: name.to_string(),
                                code_object: at.index,
                            });
                        }
                        0
                    }
                }
            }
        };
        let err = |why: String| Error::Relocation {
            index: at.index,
            reloc: ri,
            kind: r
                .kind
                .name()
                .map_or_else(|| format!("type {}", r.kind.raw()), str::to_string),
            offset: r.offset,
            why,
        };
        let sa = s_val.wrapping_add(addend as u64);
        let (value, width): (u64, usize) = match r.kind {
            RelocationType::None => continue,
            RelocationType::Abs64 => (sa, 8),
            RelocationType::Relative64 => ((at.load_delta as u64).wrapping_add(addend as u64), 8),
            RelocationType::Abs32 => (sa, 4),
            RelocationType::Abs32Lo => (sa & 0xffff_ffff, 4),
            RelocationType::Abs32Hi => (sa >> 32, 4),
            RelocationType::Rel64 => (sa.wrapping_sub(p), 8),
            RelocationType::Rel32 | RelocationType::Rel32Lo => {
                (sa.wrapping_sub(p) & 0xffff_ffff, 4)
            }
            RelocationType::Rel32Hi => (sa.wrapping_sub(p) >> 32, 4),
            other => {
                return Err(err(format!(
                    "unsupported dynamic relocation type {other:?}"
                )))
            }
        };
        let off = r
            .offset
            .checked_sub(at.min_vaddr)
            .and_then(|x| usize::try_from(x).ok())
            .filter(|&x| x.checked_add(width).is_some_and(|e| e <= image.len()))
            .ok_or_else(|| {
                err(format!(
                    "offset outside the {}-byte loaded image",
                    image.len()
                ))
            })?;
        image[off..off + width].copy_from_slice(&value.to_le_bytes()[..width]);
    }
    Ok(())
}

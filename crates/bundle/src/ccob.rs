//! Compressed offload bundles (`CCOB`).
//!
//! Owns the CCOB header (versions 1–3), bounded decompression with hash
//! verification, and compression (versions 2 and 3, zlib or zstd).
//!
//! Header layouts (little-endian, packed), after the 4-byte magic `CCOB`,
//! u16 version and u16 method (0 = zlib, 1 = zstd):
//!
//! | version | fields                                                   | header size |
//! |---------|----------------------------------------------------------|-------------|
//! | 1       | u32 uncompressed size, u64 hash                          | 20          |
//! | 2       | u32 total size, u32 uncompressed size, u64 hash          | 24          |
//! | 3       | u64 total size, u64 uncompressed size, u64 hash          | 32          |
//!
//! "Total size" counts the header too. The hash is the first 8 bytes of the
//! MD5 digest of the uncompressed bundle, read as a little-endian u64
//! (LLVM's `MD5Result::low()`).

use md5::{Digest, Md5};

use crate::error::{Error, Limits, Result};

/// The 4-byte magic of a compressed bundle.
pub const MAGIC: &[u8; 4] = b"CCOB";

pub use crate::method::Method;

/// A parsed CCOB header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CcobHeader {
    /// Format version (1, 2 or 3).
    pub version: u16,
    /// Compression method.
    pub method: Method,
    /// Total size including the header (absent in version 1).
    pub total_size: Option<u64>,
    /// Declared size of the uncompressed bundle.
    pub uncompressed_size: u64,
    /// Stored hash (low 64 bits of the MD5 of the uncompressed data).
    pub hash: u64,
    /// Header length for this version.
    pub header_len: usize,
}

fn le_u16(d: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(d.get(at..at + 2)?.try_into().ok()?))
}
fn le_u32(d: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(d.get(at..at + 4)?.try_into().ok()?))
}
fn le_u64(d: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(d.get(at..at + 8)?.try_into().ok()?))
}

/// The header length of a CCOB version, if known.
pub fn header_len(version: u16) -> Option<usize> {
    match version {
        1 => Some(20),
        2 => Some(24),
        3 => Some(32),
        _ => None,
    }
}

impl CcobHeader {
    /// Parses the header at the start of `data`.
    pub fn parse(data: &[u8]) -> Result<CcobHeader> {
        let trunc = |needed: usize| Error::Truncated {
            what: "CCOB header",
            offset: 0,
            needed: needed as u64,
            available: data.len() as u64,
        };
        if data.len() < 8 {
            if MAGIC.starts_with(data.get(..data.len().min(4)).unwrap_or(&[])) {
                return Err(trunc(8));
            }
            return Err(Error::BadMagic {
                offset: 0,
                found: data.to_vec(),
            });
        }
        if !data.starts_with(MAGIC) {
            return Err(Error::BadMagic {
                offset: 0,
                found: data.iter().take(8).copied().collect(),
            });
        }
        let version = le_u16(data, 4).ok_or_else(|| trunc(8))?;
        let method_code = le_u16(data, 6).ok_or_else(|| trunc(8))?;
        let header_len = header_len(version).ok_or(Error::CcobVersion { version })?;
        if data.len() < header_len {
            return Err(trunc(header_len));
        }
        let method = Method::from_code(method_code).ok_or(Error::CcobMethod {
            method: method_code,
        })?;
        let t = || trunc(header_len);
        let (total_size, uncompressed_size, hash) = match version {
            1 => (
                None,
                u64::from(le_u32(data, 8).ok_or_else(t)?),
                le_u64(data, 12).ok_or_else(t)?,
            ),
            2 => (
                Some(u64::from(le_u32(data, 8).ok_or_else(t)?)),
                u64::from(le_u32(data, 12).ok_or_else(t)?),
                le_u64(data, 16).ok_or_else(t)?,
            ),
            _ => (
                Some(le_u64(data, 8).ok_or_else(t)?),
                le_u64(data, 16).ok_or_else(t)?,
                le_u64(data, 24).ok_or_else(t)?,
            ),
        };
        if let Some(total) = total_size {
            if total < header_len as u64 {
                return Err(Error::CcobFileSize {
                    declared: total,
                    header_len: header_len as u64,
                    available: data.len() as u64,
                });
            }
        }
        Ok(CcobHeader {
            version,
            method,
            total_size,
            uncompressed_size,
            hash,
            header_len,
        })
    }

    /// The compressed payload of the CCOB starting at `data`: from the end of
    /// the header to `total_size` (version 2–3) or to the end of `data`
    /// (version 1).
    pub fn payload<'a>(&self, data: &'a [u8]) -> Result<&'a [u8]> {
        let end = match self.total_size {
            Some(t) => usize::try_from(t).unwrap_or(usize::MAX),
            None => data.len(),
        };
        data.get(self.header_len..end).ok_or(Error::CcobFileSize {
            declared: self.total_size.unwrap_or(0),
            header_len: self.header_len as u64,
            available: data.len() as u64,
        })
    }
}

/// The hash CCOB stores: the first 8 bytes of the MD5 digest as a
/// little-endian u64.
pub fn hash(data: &[u8]) -> u64 {
    let digest = Md5::digest(data);
    let mut b = [0u8; 8];
    b.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(b)
}

/// Decompresses the CCOB at the start of `data`, returning the header and
/// the uncompressed bundle.
///
/// The declared uncompressed size is checked against
/// [`Limits::decompressed_limit`] before anything is allocated, and output
/// is never allowed to grow past the declared size. The hash is verified
/// unless [`Limits::verify_hash`] is off.
pub fn decompress(data: &[u8], limits: &Limits) -> Result<(CcobHeader, Vec<u8>)> {
    let header = CcobHeader::parse(data)?;
    let payload = header.payload(data)?;
    let limit = limits.decompressed_limit(payload.len() as u64);
    if header.uncompressed_size > limit {
        return Err(Error::CcobTooLarge {
            declared: header.uncompressed_size,
            limit,
            compressed: payload.len() as u64,
        });
    }
    let declared = usize::try_from(header.uncompressed_size).map_err(|_| Error::CcobTooLarge {
        declared: header.uncompressed_size,
        limit: usize::MAX as u64,
        compressed: payload.len() as u64,
    })?;
    let base = header.header_len as u64;
    let out = match header.method {
        Method::Zlib => inflate(payload, declared, base)?,
        Method::Zstd => unzstd(payload, declared, base)?,
    };
    if limits.verify_hash {
        let computed = hash(&out);
        if computed != header.hash {
            return Err(Error::CcobHashMismatch {
                stored: header.hash,
                computed,
            });
        }
    }
    Ok((header, out))
}

/// Input is fed to the decoders in chunks of this size so that an error can
/// be located to within one chunk.
const CHUNK: usize = 64 * 1024;

fn inflate(payload: &[u8], declared: usize, base: u64) -> Result<Vec<u8>> {
    use flate2::{Decompress, FlushDecompress, Status};
    let mut d = Decompress::new(true);
    // One spare byte so that output beyond the declared size is detected.
    let mut out = Vec::with_capacity(declared.saturating_add(1));
    let err = |offset: u64, message: String| Error::Decompress {
        method: Method::Zlib,
        offset,
        message,
    };
    loop {
        let consumed = usize::try_from(d.total_in()).unwrap_or(usize::MAX);
        let input = payload.get(consumed..).unwrap_or(&[]);
        let chunk = input.get(..CHUNK.min(input.len())).unwrap_or(input);
        let before_out = out.len();
        let status = d
            .decompress_vec(chunk, &mut out, FlushDecompress::None)
            .map_err(|e| err(base + consumed as u64, e.to_string()))?;
        if out.len() > declared {
            return Err(Error::CcobSizeMismatch {
                declared: declared as u64,
                actual: out.len() as u64,
                more: true,
            });
        }
        match status {
            Status::StreamEnd => break,
            Status::Ok | Status::BufError => {
                let progressed = d.total_in() as usize != consumed || out.len() != before_out;
                if !progressed {
                    if out.len() == out.capacity() {
                        // Output full at exactly `declared + 1`: handled above;
                        // reaching here means the stream wants more room.
                        return Err(Error::CcobSizeMismatch {
                            declared: declared as u64,
                            actual: out.len() as u64,
                            more: true,
                        });
                    }
                    return Err(err(
                        base + d.total_in(),
                        "compressed stream ends before its end marker".into(),
                    ));
                }
            }
        }
    }
    if out.len() != declared {
        return Err(Error::CcobSizeMismatch {
            declared: declared as u64,
            actual: out.len() as u64,
            more: false,
        });
    }
    Ok(out)
}

fn unzstd(payload: &[u8], declared: usize, base: u64) -> Result<Vec<u8>> {
    use zstd::zstd_safe::{get_error_name, DCtx, DParameter, InBuffer, OutBuffer};
    let err = |offset: u64, message: String| Error::Decompress {
        method: Method::Zstd,
        offset,
        message,
    };
    let mut dctx =
        DCtx::try_create().ok_or_else(|| err(base, "cannot create zstd context".into()))?;
    // The window never needs to exceed the output, so bound it by the
    // declared size: a hostile frame header cannot make the decoder allocate
    // a huge window. clang compresses with long-distance matching (window
    // up to 2^27); allow at least that.
    let needed_log = usize::BITS - declared.saturating_sub(1).leading_zeros();
    let window_log = needed_log.clamp(27, 31);
    dctx.set_parameter(DParameter::WindowLogMax(window_log))
        .map_err(|c| err(base, get_error_name(c).to_string()))?;
    let mut out: Vec<u8> = Vec::with_capacity(declared.saturating_add(1));
    let mut consumed = 0usize;
    let mut frame_done = false;
    while consumed < payload.len() {
        let input = payload.get(consumed..).unwrap_or(&[]);
        let chunk = input.get(..CHUNK.min(input.len())).unwrap_or(input);
        let mut inb = InBuffer::around(chunk);
        loop {
            let in_before = inb.pos();
            let pos = out.len();
            let (r, produced) = {
                let mut outb = OutBuffer::around_pos(&mut out, pos);
                let r = dctx
                    .decompress_stream(&mut outb, &mut inb)
                    .map_err(|c| err(base + consumed as u64, get_error_name(c).to_string()))?;
                (r, outb.pos() - pos)
            };
            if out.len() > declared {
                return Err(Error::CcobSizeMismatch {
                    declared: declared as u64,
                    actual: out.len() as u64,
                    more: true,
                });
            }
            if r == 0 {
                frame_done = true;
                break;
            }
            frame_done = false;
            if produced == 0 && (inb.pos() == chunk.len() || inb.pos() == in_before) {
                // Needs more input (or cannot progress on this chunk).
                break;
            }
            if out.len() == out.capacity() {
                // The decoder has more to give but the buffer holds
                // `declared + 1` bytes already.
                return Err(Error::CcobSizeMismatch {
                    declared: declared as u64,
                    actual: out.len() as u64,
                    more: true,
                });
            }
        }
        consumed += inb.pos();
        if frame_done
            && (out.len() == declared
                || payload
                    .get(consumed..)
                    .is_some_and(|r| r.iter().all(|&b| b == 0)))
        {
            // Trailing bytes after the frame (zero padding) are ignored.
            break;
        }
        if inb.pos() == 0 && !frame_done {
            return Err(err(
                base + consumed as u64,
                "decoder made no progress".into(),
            ));
        }
    }
    if !frame_done {
        return Err(err(
            base + consumed as u64,
            "compressed stream ends inside a frame".into(),
        ));
    }
    if out.len() != declared {
        return Err(Error::CcobSizeMismatch {
            declared: declared as u64,
            actual: out.len() as u64,
            more: false,
        });
    }
    Ok(out)
}

/// CCOB format version to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WriteVersion {
    /// Version 2: 32-bit sizes.
    V2,
    /// Version 3: 64-bit sizes.
    V3,
}

/// Options for [`compress`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CompressOptions {
    /// Header version.
    pub version: WriteVersion,
    /// Compression method.
    pub method: Method,
    /// Compression level (zstd 1–22, zlib 0–9); `None` picks clang's default
    /// (zstd 3 with long-distance matching, zlib 6).
    pub level: Option<i32>,
}

impl Default for CompressOptions {
    fn default() -> Self {
        CompressOptions {
            version: WriteVersion::V3,
            method: Method::Zstd,
            level: None,
        }
    }
}

/// Compresses an uncompressed bundle into a CCOB.
pub fn compress(bundle: &[u8], opts: &CompressOptions) -> Result<Vec<u8>> {
    let payload = match opts.method {
        Method::Zstd => {
            use zstd::zstd_safe::CParameter;
            let mut c = zstd::bulk::Compressor::new(opts.level.unwrap_or(3)).map_err(|e| {
                Error::Compress {
                    message: e.to_string(),
                }
            })?;
            c.set_parameter(CParameter::EnableLongDistanceMatching(true))
                .map_err(|e| Error::Compress {
                    message: e.to_string(),
                })?;
            c.compress(bundle).map_err(|e| Error::Compress {
                message: e.to_string(),
            })?
        }
        Method::Zlib => {
            use std::io::Write;
            let level = opts.level.unwrap_or(6).clamp(0, 9) as u32;
            let mut e =
                flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::new(level));
            e.write_all(bundle)
                .and_then(|_| e.finish())
                .map_err(|e| Error::Compress {
                    message: e.to_string(),
                })?
        }
    };
    let h = hash(bundle);
    let (hlen, version) = match opts.version {
        WriteVersion::V2 => (24usize, 2u16),
        WriteVersion::V3 => (32usize, 3u16),
    };
    let total = (hlen as u64)
        .checked_add(payload.len() as u64)
        .ok_or(Error::Compress {
            message: "size overflow".into(),
        })?;
    let mut out = Vec::with_capacity(hlen + payload.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&opts.method.code().to_le_bytes());
    match opts.version {
        WriteVersion::V2 => {
            let t = u32::try_from(total).map_err(|_| Error::Compress {
                message: format!("total size {total} exceeds the version 2 limit of 4 GiB"),
            })?;
            let u = u32::try_from(bundle.len()).map_err(|_| Error::Compress {
                message: format!(
                    "uncompressed size {} exceeds the version 2 limit of 4 GiB",
                    bundle.len()
                ),
            })?;
            out.extend_from_slice(&t.to_le_bytes());
            out.extend_from_slice(&u.to_le_bytes());
        }
        WriteVersion::V3 => {
            out.extend_from_slice(&total.to_le_bytes());
            out.extend_from_slice(&(bundle.len() as u64).to_le_bytes());
        }
    }
    out.extend_from_slice(&h.to_le_bytes());
    out.extend_from_slice(&payload);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md5_low_word_of_known_vector() {
        // RFC 1321: MD5("abc") = 900150983cd24fb0d6963f7d28e17f72.
        assert_eq!(
            hash(b"abc"),
            u64::from_le_bytes([0x90, 0x01, 0x50, 0x98, 0x3c, 0xd2, 0x4f, 0xb0])
        );
    }

    #[test]
    fn round_trip_all_writable_formats() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        for version in [WriteVersion::V2, WriteVersion::V3] {
            for method in [Method::Zlib, Method::Zstd] {
                let c = compress(
                    &data,
                    &CompressOptions {
                        version,
                        method,
                        level: None,
                    },
                )
                .expect("compress");
                let (h, d) = decompress(&c, &Limits::default()).expect("decompress");
                assert_eq!(h.method, method);
                assert_eq!(h.total_size, Some(c.len() as u64));
                assert_eq!(d, data);
            }
        }
    }
}

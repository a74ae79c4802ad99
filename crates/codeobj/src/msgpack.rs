//! A small, bounded MessagePack reader producing a generic [`Value`] tree.
//!
//! Owns decoding of the msgpack bytes found in `NT_AMDGPU_METADATA` notes.
//! Strings and binary blobs borrow from the input; maps keep their key order
//! and duplicate keys. Every length is checked against the bytes that remain
//! before anything is allocated, nesting is limited to [`MAX_DEPTH`], and
//! every error carries the byte offset where decoding failed.

use std::fmt;

/// Maximum nesting depth of arrays and maps accepted by [`parse`].
pub const MAX_DEPTH: usize = 64;

/// A decoded msgpack value. Non-negative integers are always [`Value::UInt`],
/// negative ones [`Value::Int`], whatever width they were encoded with.
#[derive(Debug, Clone, PartialEq)]
pub enum Value<'a> {
    /// `nil`.
    Nil,
    /// `true` / `false`.
    Bool(bool),
    /// A negative integer.
    Int(i64),
    /// A non-negative integer.
    UInt(u64),
    /// A `float 32` (widened) or `float 64`.
    Float(f64),
    /// A UTF-8 string.
    Str(&'a str),
    /// A `bin` blob.
    Bin(&'a [u8]),
    /// An array.
    Array(Vec<Value<'a>>),
    /// A map, in encoded order (duplicates kept).
    Map(Vec<(Value<'a>, Value<'a>)>),
    /// An extension value: type tag and payload.
    Ext(i8, &'a [u8]),
}

impl<'a> Value<'a> {
    /// The string, if this is a [`Value::Str`].
    pub fn as_str(&self) -> Option<&'a str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The value as `u64` if it is a non-negative integer.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::UInt(u) => Some(u),
            _ => None,
        }
    }

    /// The value as `i64` if it is an integer that fits.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::Int(i) => Some(i),
            Value::UInt(u) => i64::try_from(u).ok(),
            _ => None,
        }
    }

    /// The boolean, if this is a [`Value::Bool`].
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// The elements, if this is an array.
    pub fn as_array(&self) -> Option<&[Value<'a>]> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The entries, if this is a map.
    pub fn as_map(&self) -> Option<&[(Value<'a>, Value<'a>)]> {
        match self {
            Value::Map(m) => Some(m),
            _ => None,
        }
    }

    /// Looks up the first entry with string key `key` in a map.
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    /// A short name of the value's type, for error messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Nil => "nil",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "negative integer",
            Value::UInt(_) => "integer",
            Value::Float(_) => "float",
            Value::Str(_) => "string",
            Value::Bin(_) => "binary",
            Value::Array(_) => "array",
            Value::Map(_) => "map",
            Value::Ext(..) => "extension",
        }
    }
}

impl fmt::Display for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Nil => f.write_str("nil"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::UInt(u) => write!(f, "{u}"),
            Value::Float(x) => write!(f, "{x}"),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Bin(b) => write!(f, "<{} bytes>", b.len()),
            Value::Array(a) => {
                f.write_str("[")?;
                for (i, v) in a.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
            Value::Map(m) => {
                f.write_str("{")?;
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
            Value::Ext(t, d) => write!(f, "ext({t}, <{} bytes>)", d.len()),
        }
    }
}

/// What went wrong while decoding msgpack.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MsgpackErrorKind {
    /// The input ended inside a value.
    #[error("truncated: need {needed} more byte(s), {available} left")]
    Truncated {
        /// Bytes the value needs.
        needed: u64,
        /// Bytes left in the input.
        available: u64,
    },
    /// `0xc1`, the one byte msgpack never uses.
    #[error("invalid type byte 0x{0:02x}")]
    InvalidTypeByte(u8),
    /// Arrays/maps nested deeper than [`MAX_DEPTH`].
    #[error("nesting deeper than {limit}")]
    TooDeep {
        /// The limit.
        limit: usize,
    },
    /// An array/map/string/bin length larger than the remaining input can hold.
    #[error("length {claimed} exceeds the {remaining} byte(s) left")]
    LengthExceedsInput {
        /// The encoded length (elements or bytes).
        claimed: u64,
        /// Bytes left after the length field.
        remaining: u64,
    },
    /// A `str` whose bytes are not UTF-8.
    #[error("string is not valid UTF-8")]
    InvalidUtf8,
    /// Bytes left over after the top-level value.
    #[error("{0} trailing byte(s) after the value")]
    TrailingBytes(u64),
}

/// A msgpack decoding error at a byte offset of the input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("msgpack error at byte offset {offset}: {kind}")]
pub struct MsgpackError {
    /// Offset in the msgpack input where the failing item starts.
    pub offset: usize,
    /// What went wrong.
    pub kind: MsgpackErrorKind,
}

/// Parses exactly one msgpack value spanning all of `data`.
pub fn parse(data: &[u8]) -> Result<Value<'_>, MsgpackError> {
    let mut r = Reader { data, pos: 0 };
    let v = r.value(0)?;
    if r.pos != data.len() {
        return Err(MsgpackError {
            offset: r.pos,
            kind: MsgpackErrorKind::TrailingBytes((data.len() - r.pos) as u64),
        });
    }
    Ok(v)
}

/// Parses one msgpack value from the start of `data`; returns it and the
/// number of bytes it used.
pub fn parse_prefix(data: &[u8]) -> Result<(Value<'_>, usize), MsgpackError> {
    let mut r = Reader { data, pos: 0 };
    let v = r.value(0)?;
    Ok((v, r.pos))
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    fn err(&self, offset: usize, kind: MsgpackErrorKind) -> MsgpackError {
        MsgpackError { offset, kind }
    }

    fn take(&mut self, n: usize, start: usize) -> Result<&'a [u8], MsgpackError> {
        let end = self.pos.checked_add(n);
        match end.and_then(|e| self.data.get(self.pos..e)) {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => Err(self.err(
                start,
                MsgpackErrorKind::Truncated {
                    needed: n as u64,
                    available: self.remaining() as u64,
                },
            )),
        }
    }

    fn be(&mut self, n: usize, start: usize) -> Result<u64, MsgpackError> {
        let b = self.take(n, start)?;
        Ok(b.iter().fold(0u64, |acc, &x| (acc << 8) | u64::from(x)))
    }

    /// Reads `len` bytes of payload for a str/bin/ext whose header started at `start`.
    fn payload(&mut self, len: u64, start: usize) -> Result<&'a [u8], MsgpackError> {
        let remaining = self.remaining() as u64;
        if len > remaining {
            return Err(self.err(
                start,
                MsgpackErrorKind::LengthExceedsInput {
                    claimed: len,
                    remaining,
                },
            ));
        }
        // len <= remaining <= usize::MAX
        self.take(len as usize, start)
    }

    fn string(&mut self, len: u64, start: usize) -> Result<Value<'a>, MsgpackError> {
        let b = self.payload(len, start)?;
        std::str::from_utf8(b)
            .map(Value::Str)
            .map_err(|_| self.err(start, MsgpackErrorKind::InvalidUtf8))
    }

    fn array(&mut self, n: u64, depth: usize, start: usize) -> Result<Value<'a>, MsgpackError> {
        // Every element takes at least one byte.
        let remaining = self.remaining() as u64;
        if n > remaining {
            return Err(self.err(
                start,
                MsgpackErrorKind::LengthExceedsInput {
                    claimed: n,
                    remaining,
                },
            ));
        }
        let mut out = Vec::with_capacity(n as usize);
        for _ in 0..n {
            out.push(self.value(depth + 1)?);
        }
        Ok(Value::Array(out))
    }

    fn map(&mut self, n: u64, depth: usize, start: usize) -> Result<Value<'a>, MsgpackError> {
        // Every entry takes at least two bytes.
        let remaining = self.remaining() as u64;
        if n.saturating_mul(2) > remaining {
            return Err(self.err(
                start,
                MsgpackErrorKind::LengthExceedsInput {
                    claimed: n,
                    remaining,
                },
            ));
        }
        let mut out = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let k = self.value(depth + 1)?;
            let v = self.value(depth + 1)?;
            out.push((k, v));
        }
        Ok(Value::Map(out))
    }

    fn ext(&mut self, len: u64, start: usize) -> Result<Value<'a>, MsgpackError> {
        let t = self.take(1, start)?[0] as i8;
        let d = self.payload(len, start)?;
        Ok(Value::Ext(t, d))
    }

    fn value(&mut self, depth: usize) -> Result<Value<'a>, MsgpackError> {
        let start = self.pos;
        let tag = self.take(1, start)?[0];
        let is_container = matches!(tag, 0x80..=0x9f | 0xdc..=0xdf);
        if is_container && depth >= MAX_DEPTH {
            return Err(self.err(start, MsgpackErrorKind::TooDeep { limit: MAX_DEPTH }));
        }
        Ok(match tag {
            0x00..=0x7f => Value::UInt(u64::from(tag)),
            0x80..=0x8f => return self.map(u64::from(tag & 0x0f), depth, start),
            0x90..=0x9f => return self.array(u64::from(tag & 0x0f), depth, start),
            0xa0..=0xbf => return self.string(u64::from(tag & 0x1f), start),
            0xc0 => Value::Nil,
            0xc1 => return Err(self.err(start, MsgpackErrorKind::InvalidTypeByte(tag))),
            0xc2 => Value::Bool(false),
            0xc3 => Value::Bool(true),
            0xc4..=0xc6 => {
                let n = self.be(1 << (tag - 0xc4), start)?;
                Value::Bin(self.payload(n, start)?)
            }
            0xc7..=0xc9 => {
                let n = self.be(1 << (tag - 0xc7), start)?;
                return self.ext(n, start);
            }
            0xca => Value::Float(f64::from(f32::from_bits(self.be(4, start)? as u32))),
            0xcb => Value::Float(f64::from_bits(self.be(8, start)?)),
            0xcc..=0xcf => Value::UInt(self.be(1 << (tag - 0xcc), start)?),
            0xd0..=0xd3 => {
                let width = 1usize << (tag - 0xd0);
                let raw = self.be(width, start)?;
                let shift = 64 - 8 * width as u32;
                let v = ((raw << shift) as i64) >> shift;
                if v >= 0 {
                    Value::UInt(v as u64)
                } else {
                    Value::Int(v)
                }
            }
            0xd4..=0xd8 => return self.ext(1 << (tag - 0xd4), start),
            0xd9..=0xdb => {
                let n = self.be(1 << (tag - 0xd9), start)?;
                return self.string(n, start);
            }
            0xdc | 0xdd => {
                let n = self.be(2 << (tag - 0xdc), start)?;
                return self.array(n, depth, start);
            }
            0xde | 0xdf => {
                let n = self.be(2 << (tag - 0xde), start)?;
                return self.map(n, depth, start);
            }
            0xe0..=0xff => Value::Int(i64::from(tag as i8)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_and_containers() {
        // {"a": [1, -1, true, nil, "xy"], "b": 300}
        let bytes = [
            0x82, 0xa1, b'a', 0x95, 0x01, 0xff, 0xc3, 0xc0, 0xa2, b'x', b'y', 0xa1, b'b', 0xcd,
            0x01, 0x2c,
        ];
        let v = parse(&bytes).expect("valid");
        let a = v.get("a").and_then(Value::as_array).expect("array");
        assert_eq!(
            a,
            &[
                Value::UInt(1),
                Value::Int(-1),
                Value::Bool(true),
                Value::Nil,
                Value::Str("xy")
            ]
        );
        assert_eq!(v.get("b"), Some(&Value::UInt(300)));
    }

    #[test]
    fn signed_encodings_normalise() {
        assert_eq!(parse(&[0xd0, 0x05]).expect("ok"), Value::UInt(5));
        assert_eq!(parse(&[0xd1, 0xff, 0xfe]).expect("ok"), Value::Int(-2));
        assert_eq!(
            parse(&[0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0]).expect("ok"),
            Value::Int(i64::MIN)
        );
    }

    #[test]
    fn floats() {
        assert_eq!(
            parse(&[0xca, 0x3f, 0x80, 0, 0]).expect("ok"),
            Value::Float(1.0)
        );
        let mut b = vec![0xcb];
        b.extend_from_slice(&2.5f64.to_bits().to_be_bytes());
        assert_eq!(parse(&b).expect("ok"), Value::Float(2.5));
    }
}

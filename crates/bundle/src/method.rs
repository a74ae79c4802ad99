//! The compression method of a compressed (`CCOB`) bundle, shared by the
//! reader and writer in [`crate::ccob`] and by the errors that name it.

use std::fmt;

/// Compression method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// zlib (RFC 1950), method 0.
    Zlib,
    /// zstd, method 1.
    Zstd,
}

impl Method {
    /// The header value.
    pub fn code(self) -> u16 {
        match self {
            Method::Zlib => 0,
            Method::Zstd => 1,
        }
    }

    /// From a header value.
    pub fn from_code(code: u16) -> Option<Method> {
        match code {
            0 => Some(Method::Zlib),
            1 => Some(Method::Zstd),
            _ => None,
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Method::Zlib => "zlib",
            Method::Zstd => "zstd",
        })
    }
}

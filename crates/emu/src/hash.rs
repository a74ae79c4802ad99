//! A hasher for maps keyed by device addresses, page numbers or PCs
//! inside the emulator (a multiplicative hash: the keys come from the
//! program being run, and SipHash's DoS resistance buys nothing there,
//! while its cost shows on every look-up).

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

/// A multiplicative hasher for integer keys (bytes are folded FNV-style
/// for other keys).
#[derive(Debug, Default)]
pub struct AddrHasher(u64);

impl std::hash::Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, x: u64) {
        let h = x.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        self.0 = h ^ (h >> 29);
    }
}

/// A `HashMap` keyed by addresses with [`AddrHasher`].
pub type AddrMap<K, V> = HashMap<K, V, BuildHasherDefault<AddrHasher>>;

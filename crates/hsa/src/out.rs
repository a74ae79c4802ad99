//! Writing results through the caller's pointers, the one place the C
//! contract "`value` points to storage of the attribute's type" is relied on.

use std::ffi::c_void;

use crate::ffi::{Status, ERROR_INVALID_ARGUMENT, SUCCESS};

/// Writes `v` to `p` (a `T` the caller provides).
pub fn put<T: Copy>(p: *mut c_void, v: T) -> Status {
    if p.is_null() {
        return ERROR_INVALID_ARGUMENT;
    }
    // SAFETY: non-null; the HSA API contract for this attribute/out-argument
    // is that `p` points to writable storage for a `T` (unaligned writes so a
    // packed caller buffer is fine too).
    unsafe { (p as *mut T).write_unaligned(v) };
    SUCCESS
}

/// Writes `s` as a NUL-padded `char[cap]`.
pub fn put_str(p: *mut c_void, s: &str, cap: usize) -> Status {
    let mut buf = vec![0u8; cap];
    let n = s.len().min(cap.saturating_sub(1));
    buf[..n].copy_from_slice(&s.as_bytes()[..n]);
    put_bytes(p, &buf)
}

/// Copies `bytes` to `p`.
pub fn put_bytes(p: *mut c_void, bytes: &[u8]) -> Status {
    if p.is_null() {
        return ERROR_INVALID_ARGUMENT;
    }
    // SAFETY: non-null; the caller provides `bytes.len()` writable bytes at
    // `p` (the attribute's documented size), and Lathe's buffer cannot
    // overlap caller storage.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p as *mut u8, bytes.len()) };
    SUCCESS
}

/// Reads a `T` the caller passed by pointer.
pub fn get<T: Copy>(p: *const T) -> Option<T> {
    if p.is_null() {
        return None;
    }
    // SAFETY: non-null; the API contract says `p` points to a readable `T`.
    Some(unsafe { p.read_unaligned() })
}

/// Reads `n` `T`s the caller passed as an array.
pub fn get_slice<T: Copy>(p: *const T, n: usize) -> Option<Vec<T>> {
    if n == 0 {
        return Some(Vec::new());
    }
    if p.is_null() || n > 1 << 20 {
        return None;
    }
    // SAFETY: non-null, bounded count; the API contract says `p` points to
    // `n` readable `T`s.
    Some(
        (0..n)
            .map(|i| unsafe { p.add(i).read_unaligned() })
            .collect(),
    )
}

/// Reads a NUL-terminated C string (lossily, at most 64 KiB).
pub fn get_cstr(p: *const libc::c_char) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: non-null; the API contract says `p` is a NUL-terminated string.
    let s = unsafe { std::ffi::CStr::from_ptr(p) };
    let b = s.to_bytes();
    (b.len() <= 1 << 16).then(|| String::from_utf8_lossy(b).into_owned())
}

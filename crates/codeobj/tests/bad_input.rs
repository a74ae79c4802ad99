//! Malformed inputs produce the specific error that names what is wrong.
//! Inputs are real clang-22 code objects with targeted corruption, and
//! hand-encoded msgpack per the msgpack specification.

use lathe_codeobj::check::Warning;
use lathe_codeobj::elf::Notes;
use lathe_codeobj::kd::KdError;
use lathe_codeobj::metadata::MetadataError;
use lathe_codeobj::msgpack::{self, MsgpackErrorKind, Value, MAX_DEPTH};
use lathe_codeobj::{CodeObject, Error, Metadata, SymbolTableKind, ValueKind};
use lathe_testkit::{Build, Output};

fn vecops() -> Vec<u8> {
    let p = Build::new("vecops.hip", &["gfx90a"], Output::CodeObject).build();
    std::fs::read(p).expect("read")
}

#[test]
fn truncated_elf() {
    let b = vecops();
    assert!(matches!(
        CodeObject::parse(&b[..40]),
        Err(Error::TooShort { len: 40 })
    ));
    // Header intact, section header table (at the end) cut off.
    let e = CodeObject::parse(&b[..b.len() / 2]).expect_err("truncated");
    assert!(
        matches!(e, Error::Elf { ref context, .. } if context == "section headers"),
        "{e}"
    );
}

#[test]
fn wrong_identification() {
    let b = vecops();
    let mut x = b.clone();
    x[0] = b'X';
    assert!(matches!(CodeObject::parse(&x), Err(Error::NotElf { magic }) if magic[0] == b'X'));
    let mut x = b.clone();
    x[4] = 1;
    assert!(matches!(
        CodeObject::parse(&x),
        Err(Error::Not64Bit { class: 1 })
    ));
    let mut x = b.clone();
    x[5] = 2;
    assert!(matches!(
        CodeObject::parse(&x),
        Err(Error::NotLittleEndian { data: 2 })
    ));
    let mut x = b.clone();
    x[18..20].copy_from_slice(&62u16.to_le_bytes());
    let e = CodeObject::parse(&x).expect_err("x86-64");
    assert!(matches!(e, Error::NotAmdgpu { machine: 62 }));
    assert!(e.to_string().contains("224"), "{e}");
    let mut x = b.clone();
    x[48] = 0xfe;
    let e = CodeObject::parse(&x).expect_err("mach");
    assert!(matches!(e, Error::UnknownMach { mach: 0xfe, .. }), "{e}");
    let mut x = b.clone();
    x[8] = 9;
    assert!(matches!(
        CodeObject::parse(&x),
        Err(Error::UnsupportedAbiVersion { abi_version: 9 })
    ));
}

/// File offset of symbol `name` in `.symtab`.
fn symtab_entry(b: &[u8], name: &str) -> usize {
    let co = CodeObject::parse(b).expect("parse");
    let s = co.section_by_name(".symtab").expect("symtab");
    let i = co
        .symbol_table(SymbolTableKind::Symtab)
        .iter()
        .position(|s| s.name == name)
        .expect("symbol");
    s.offset as usize + i * 24
}

#[test]
fn descriptor_outside_its_section() {
    let mut b = vecops();
    let off = symtab_entry(&b, "_Z4axpyPfPKffi.kd");
    let co = CodeObject::parse(&b).expect("parse");
    let ro = *co.section_by_name(".rodata").expect("rodata");
    // Move the descriptor so that it straddles the end of .rodata.
    let bad = ro.address + ro.size - 32;
    b[off + 8..off + 16].copy_from_slice(&bad.to_le_bytes());
    let co = CodeObject::parse(&b).expect("parse");
    let e = co.kernel_descriptor("_Z4axpyPfPKffi").expect_err("outside");
    match e {
        Error::KernelDescriptor {
            ref kernel,
            source:
                KdError::OutsideSection {
                    address,
                    ref section,
                    ..
                },
        } => {
            assert_eq!(kernel, "_Z4axpyPfPKffi");
            assert_eq!(address, bad);
            assert_eq!(section, ".rodata");
        }
        other => panic!("{other}"),
    }
    assert!(e.to_string().contains("_Z4axpyPfPKffi"), "{e}");
    // The model keeps the kernel and reports the error on access; check()
    // reports it as a warning.
    let syms = co.symbols().expect("symbols");
    assert!(matches!(
        syms.kernel("_Z4axpyPfPKffi").expect("k").descriptor(),
        Err(Error::KernelDescriptor { kernel, source: KdError::OutsideSection { .. } }) if kernel == "_Z4axpyPfPKffi"
    ));
    let r = co.check().expect("check");
    assert!(r
        .warnings
        .iter()
        .any(|w| matches!(w, Warning::Unpaired { kernel, .. } if kernel == "_Z4axpyPfPKffi")));
}

#[test]
fn descriptor_symbol_of_wrong_size() {
    let mut b = vecops();
    let off = symtab_entry(&b, "_Z9eval_polyPfPKfi.kd");
    b[off + 16..off + 24].copy_from_slice(&32u64.to_le_bytes());
    let co = CodeObject::parse(&b).expect("parse");
    let e = co
        .kernel_descriptor("_Z9eval_polyPfPKfi")
        .expect_err("size");
    assert!(
        matches!(
            e,
            Error::KernelDescriptor {
                source: KdError::WrongSymbolSize { size: 32, .. },
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn check_reports_descriptor_metadata_mismatch() {
    let mut b = vecops();
    let co = CodeObject::parse(&b).expect("parse");
    let kd = co.find_elf_symbol("_Z4axpyPfPKffi.kd").expect("kd");
    let ro = co.section_by_name(".rodata").expect("rodata");
    let off = (ro.offset + kd.value - ro.address) as usize;
    assert!(co.check().expect("check").is_clean());
    // kernarg_size is at offset 8 of the descriptor.
    b[off + 8..off + 12].copy_from_slice(&999u32.to_le_bytes());
    let co = CodeObject::parse(&b).expect("parse");
    let r = co.check().expect("check");
    assert_eq!(
        r.warnings,
        vec![Warning::Mismatch {
            kernel: "_Z4axpyPfPKffi".into(),
            field: "kernarg_size",
            descriptor: 999,
            metadata: 280,
        }]
    );
}

fn note_offsets(b: &[u8]) -> (usize, usize) {
    let co = CodeObject::parse(b).expect("parse");
    let n = co.notes().next().expect("a note").expect("valid");
    (n.offset as usize, n.desc.len())
}

#[test]
fn corrupt_metadata_note() {
    let mut b = vecops();
    let (off, _) = note_offsets(&b);
    // Header 12 bytes + "AMDGPU\0" padded to 8 = descriptor at +20.
    b[off + 20] = 0xc1;
    let co = CodeObject::parse(&b).expect("parse");
    match co.metadata() {
        Err(Error::Metadata(MetadataError::Msgpack(e))) => {
            assert_eq!(e.offset, 0);
            assert_eq!(e.kind, MsgpackErrorKind::InvalidTypeByte(0xc1));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn note_with_oversized_name_fuses() {
    let mut b = vecops();
    let (off, _) = note_offsets(&b);
    b[off..off + 4].copy_from_slice(&0x7fff_fff0u32.to_le_bytes());
    let co = CodeObject::parse(&b).expect("parse");
    let mut it = co.notes();
    match it.next() {
        Some(Err(Error::BadNote {
            offset, ref reason, ..
        })) => {
            assert_eq!(offset as usize, off);
            assert!(reason.contains("name size"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    assert!(it.next().is_none());
    // A note iterator over a too-short buffer reports, then stops.
    let mut n = Notes::new("test", &[1, 0, 0], 0, 4);
    assert!(matches!(n.next(), Some(Err(Error::BadNote { .. }))));
    assert!(n.next().is_none());
}

#[test]
fn msgpack_truncated_real_metadata() {
    let b = vecops();
    let co = CodeObject::parse(&b).expect("parse");
    let md = co.metadata_bytes().expect("notes").expect("metadata");
    assert!(msgpack::parse(md).is_ok());
    for cut in [1, md.len() / 3, md.len() / 2, md.len() - 1] {
        let e = msgpack::parse(&md[..cut]).expect_err("truncated");
        assert!(
            matches!(
                e.kind,
                MsgpackErrorKind::Truncated { .. } | MsgpackErrorKind::LengthExceedsInput { .. }
            ),
            "cut {cut}: {e}"
        );
        assert!(e.offset < cut, "cut {cut}: offset {}", e.offset);
    }
    let mut extra = md.to_vec();
    extra.push(0xc0);
    let e = msgpack::parse(&extra).expect_err("trailing");
    assert_eq!(
        (e.offset, e.kind),
        (md.len(), MsgpackErrorKind::TrailingBytes(1))
    );
}

#[test]
fn msgpack_bad_type_byte_inside() {
    // [1, 2, <0xc1>]
    let e = msgpack::parse(&[0x93, 0x01, 0x02, 0xc1]).expect_err("bad");
    assert_eq!(
        (e.offset, e.kind),
        (3, MsgpackErrorKind::InvalidTypeByte(0xc1))
    );
}

#[test]
fn msgpack_huge_length_claims() {
    for (bytes, claimed) in [
        (&[0xdd, 0xff, 0xff, 0xff, 0xff][..], 0xffff_ffffu64), // array32
        (&[0xdf, 0x7f, 0xff, 0xff, 0xff][..], 0x7fff_ffff),    // map32
        (&[0xdb, 0xff, 0xff, 0xff, 0xf0, b'a'][..], 0xffff_fff0), // str32
        (&[0xc6, 0x10, 0x00, 0x00, 0x00][..], 0x1000_0000),    // bin32
        (&[0xc9, 0x00, 0x01, 0x00, 0x00, 0x05][..], 0x1_0000), // ext32
        (&[0xdc, 0x00, 0x10, 0x01][..], 16),                   // array16, 1 byte left
    ] {
        let e = msgpack::parse(bytes).expect_err("huge");
        match e.kind {
            MsgpackErrorKind::LengthExceedsInput { claimed: c, .. } => assert_eq!(c, claimed),
            k => panic!("{bytes:02x?}: {k}"),
        }
        assert_eq!(e.offset, 0);
    }
    // A map whose entries need two bytes each.
    let e = msgpack::parse(&[0x83, 0x01, 0x02, 0x03]).expect_err("map");
    assert!(matches!(
        e.kind,
        MsgpackErrorKind::LengthExceedsInput {
            claimed: 3,
            remaining: 3
        }
    ));
}

#[test]
fn msgpack_deep_nesting() {
    let mut deep = vec![0x91u8; 1000];
    deep.push(0xc0);
    let e = msgpack::parse(&deep).expect_err("deep");
    assert_eq!(
        (e.offset, e.kind),
        (MAX_DEPTH, MsgpackErrorKind::TooDeep { limit: MAX_DEPTH })
    );
    // Exactly at the limit is fine.
    let mut ok = vec![0x91u8; MAX_DEPTH];
    ok.push(0xc0);
    assert!(msgpack::parse(&ok).is_ok());
}

#[test]
fn msgpack_invalid_utf8() {
    let e = msgpack::parse(&[0x92, 0xc0, 0xa2, 0xff, 0xfe]).expect_err("utf8");
    assert_eq!((e.offset, e.kind), (2, MsgpackErrorKind::InvalidUtf8));
}

/// Replaces `from` with `to` (same length) everywhere in `b`.
fn replace(b: &mut [u8], from: &[u8], to: &[u8]) -> usize {
    assert_eq!(from.len(), to.len());
    let mut n = 0;
    let mut i = 0;
    while i + from.len() <= b.len() {
        if &b[i..i + from.len()] == from {
            b[i..i + from.len()].copy_from_slice(to);
            n += 1;
            i += from.len();
        } else {
            i += 1;
        }
    }
    n
}

#[test]
fn metadata_unknowns_are_kept() {
    let b = vecops();
    let co = CodeObject::parse(&b).expect("parse");
    let mut md = co.metadata_bytes().expect("notes").expect("md").to_vec();
    assert!(replace(&mut md, b"global_buffer", b"glowal_buffer") > 0);
    assert!(replace(&mut md, b".address_space", b".address_spacX") > 0);
    let m = Metadata::parse(&md).expect("typed");
    let a = &m.kernels[0].args[0];
    assert_eq!(a.value_kind, ValueKind::Other("glowal_buffer"));
    assert_eq!(a.value_kind.as_str(), "glowal_buffer");
    assert_eq!(a.address_space, None);
    assert_eq!(a.extra, vec![(".address_spacX", Value::Str("global"))]);
}

#[test]
fn metadata_wrong_types_and_missing_keys() {
    // {"amdhsa.kernels": [{".name": 5}]}
    let mut v = vec![0x81, 0xae];
    v.extend_from_slice(b"amdhsa.kernels");
    v.extend_from_slice(&[0x91, 0x81, 0xa5]);
    v.extend_from_slice(b".name");
    v.push(0x05);
    match Metadata::parse(&v) {
        Err(MetadataError::WrongType { path, expected, .. }) => {
            assert_eq!(path, "amdhsa.kernels[0].name");
            assert_eq!(expected, "string");
        }
        other => panic!("{other:?}"),
    }
    // {"amdhsa.kernels": [{".name": "k"}]}: required keys missing.
    let n = v.len();
    v[n - 1] = 0xa1;
    v.push(b'k');
    match Metadata::parse(&v) {
        Err(MetadataError::Missing { path, key }) => {
            assert_eq!(path, "amdhsa.kernels[0]");
            assert_eq!(key, ".symbol");
        }
        other => panic!("{other:?}"),
    }
    // Root not a map.
    assert!(matches!(
        Metadata::parse(&[0x90]),
        Err(MetadataError::RootNotMap { found: "array" })
    ));
}

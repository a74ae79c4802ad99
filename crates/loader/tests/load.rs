//! Loader tests on code objects compiled by clang-22: segment placement,
//! relocations checked against the bytes in device memory, symbol queries,
//! and device functions resolved across separately linked code objects.

use std::path::PathBuf;

use lathe_codeobj::{CodeObject, RelocationType};
use lathe_emu::mem::{DeviceMemory as Mem, RegionKind};
use lathe_loader::{compatible, Error, Executable, SymbolKind};
use lathe_testkit::{link_shared, Build, Output};

/// The emulator's device memory (it implements the loader's trait).
struct Device(Mem);

impl std::ops::Deref for Device {
    type Target = Mem;
    fn deref(&self) -> &Mem {
        &self.0
    }
}

impl Device {
    fn read(&self, addr: u64, len: usize) -> Vec<u8> {
        let mut v = vec![0u8; len];
        self.0
            .view()
            .read_bytes(addr, &mut v)
            .expect("read device memory");
        v
    }
}

fn agent(s: &str) -> lathe_bundle::TargetId {
    s.parse().expect("target id")
}

fn build(src: &'static str, arch: &'static str) -> Vec<u8> {
    std::fs::read(Build::new(src, &[arch], Output::CodeObject).build()).expect("read code object")
}

/// A `-fgpu-rdc` relocatable object with default visibility, linked alone
/// into a shared code object (undefined references stay dynamic).
fn rdc_shared(src: &'static str, arch: &'static str) -> PathBuf {
    let mut b = Build::new(src, &[arch], Output::CodeObject);
    b.rdc = true;
    b.extra.push("-fvisibility=default");
    link_shared(&[b.build()])
}

#[test]
fn loads_segments_and_reports_symbols() {
    let dev = Device(Mem::new());
    let bytes = build("vecops.hip", "gfx90a");
    let co = CodeObject::parse(&bytes).expect("parse");
    let mut exe = Executable::new(agent("gfx90a:xnack-"));
    let idx = exe.load(&*dev, &bytes).expect("load");
    assert!(
        exe.symbol("_Z4axpyPfPKffi").is_none(),
        "no symbols before freeze"
    );
    exe.freeze(&*dev).expect("freeze");
    let lco = &exe.code_objects()[idx];
    assert_eq!(lco.storage, bytes);
    assert_eq!(lco.load_base % 4096, 0);
    // Every PT_LOAD segment's file bytes are in device memory at vaddr + delta,
    // except where a relocation patched them.
    let relocated: Vec<(u64, usize)> = co
        .relocations()
        .expect("relocs")
        .iter()
        .filter(|r| co.section(r.section).is_some_and(|s| s.flags & 2 != 0))
        .map(|r| (r.offset, 8))
        .collect();
    for seg in co
        .segments()
        .iter()
        .filter(|s| s.p_type == 1 && s.filesz > 0)
    {
        let dev_bytes = dev.read(lco.device_address(seg.vaddr), seg.filesz as usize);
        let file = &bytes[seg.offset as usize..(seg.offset + seg.filesz) as usize];
        for (i, (a, b)) in dev_bytes.iter().zip(file).enumerate() {
            let va = seg.vaddr + i as u64;
            let patched = relocated.iter().any(|&(o, w)| va >= o && va < o + w as u64);
            if !patched {
                assert_eq!(a, b, "byte at vaddr {va:#x} differs");
            }
        }
    }
    // Kernels: the descriptor in device memory equals the one in the file,
    // and the entry point holds the kernel's first code bytes.
    let syms = co.symbols().expect("symbols");
    for k in syms.kernels() {
        let s = exe.symbol(k.name).expect("kernel symbol");
        assert_eq!(s.kind, SymbolKind::Kernel);
        let info = s.kernel.expect("kernel info");
        let kd_sym = k.descriptor_symbol.expect("kd");
        assert_eq!(info.descriptor_address, lco.device_address(kd_sym.value));
        let kd_file = co
            .descriptor_bytes(co.find_elf_symbol(&format!("{}.kd", k.name)).expect("kd"))
            .expect("bytes");
        assert_eq!(dev.read(info.descriptor_address, 64), kd_file);
        let code = k.code.expect("code symbol");
        assert_eq!(
            info.entry,
            lco.device_address(code.value),
            "entry = kd + entry offset"
        );
        assert_eq!(
            info.kernarg_size as u64,
            k.metadata.as_ref().expect("md").kernarg_segment_size
        );
    }
    // Device functions and variables are first-class symbols.
    let poly = exe.symbol("_Z4polyf").expect("device function");
    assert_eq!(poly.kind, SymbolKind::DeviceFunction);
    assert!(poly.size > 0);
    let coeffs = exe.symbol("coeffs").expect("constant variable");
    assert_eq!(coeffs.kind, SymbolKind::Variable);
    assert_eq!(coeffs.size, 16);
    let init = dev.read(coeffs.address, 16);
    let vals: Vec<f32> = init
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4")))
        .collect();
    assert_eq!(
        vals,
        [1.0, 2.0, 3.0, 4.0],
        "__constant__ initialiser loaded"
    );
    assert_eq!(exe.symbols_of(SymbolKind::Kernel).count(), 3);
    assert_eq!(
        exe.kernel("axpy").map(|s| s.name.as_str()),
        Some("_Z4axpyPfPKffi")
    );
    exe.destroy(&*dev).expect("destroy");
    assert_eq!(dev.0.region_count(), 0);
}

#[test]
fn device_functions_resolve_across_code_objects_in_any_order() {
    let lib = std::fs::read(rdc_shared("rdc_lib.hip", "gfx90a")).expect("lib");
    let main = std::fs::read(rdc_shared("rdc_main.hip", "gfx90a")).expect("main");
    let main_co = CodeObject::parse(&main).expect("parse main");
    let undefined: Vec<String> = main_co
        .dynsym()
        .iter()
        .filter(|s| s.section == lathe_codeobj::SymbolSection::Undefined && !s.name.is_empty())
        .map(|s| s.name.to_string())
        .collect();
    assert!(
        undefined.contains(&"_Z7lib_mixii".to_string()),
        "main calls lib_mix through its GOT: {undefined:?}"
    );

    // Alone, main cannot freeze, and the error names every missing symbol.
    let dev = Device(Mem::new());
    let mut alone = Executable::new(agent("gfx90a"));
    alone.load(&*dev, &main).expect("load main");
    match alone.freeze(&*dev) {
        Err(Error::Undefined(u)) => {
            let mut names: Vec<_> = u.iter().map(|x| x.name.clone()).collect();
            names.sort();
            let mut want = undefined.clone();
            want.sort();
            assert_eq!(names, want);
        }
        other => panic!("expected undefined symbols, got {other:?}"),
    }
    assert!(!alone.is_frozen());

    for order in [[&main, &lib], [&lib, &main]] {
        let dev = Device(Mem::new());
        let mut exe = Executable::new(agent("gfx90a"));
        let first = exe.load(&*dev, order[0]).expect("load");
        let second = exe.load(&*dev, order[1]).expect("load");
        exe.freeze(&*dev)
            .expect("freeze resolves across code objects");
        let main_idx = if order[0] == &main { first } else { second };
        let lib_mix = exe.symbol("_Z7lib_mixii").expect("lib_mix");
        assert_eq!(lib_mix.kind, SymbolKind::DeviceFunction);
        assert_ne!(lib_mix.code_object, Some(main_idx));
        // Every R_AMDGPU_ABS64 against a lib symbol in main now holds the
        // symbol's device address.
        let lco = &exe.code_objects()[main_idx];
        let mut checked = 0;
        for r in main_co.relocations().expect("relocs") {
            if r.kind != RelocationType::Abs64 {
                continue;
            }
            let name = r.symbol_name.expect("named");
            let target = exe.symbol(name).expect("resolved symbol").address;
            let got = dev.read(lco.device_address(r.offset), 8);
            assert_eq!(
                u64::from_le_bytes(got.try_into().expect("8")),
                target.wrapping_add(r.addend.unwrap_or(0) as u64),
                "{name}"
            );
            checked += 1;
        }
        assert!(checked >= 3, "checked {checked} GOT entries");
    }
}

#[test]
fn external_variables_satisfy_undefined_references() {
    let main = std::fs::read(rdc_shared("rdc_main.hip", "gfx90a")).expect("main");
    let lib = std::fs::read(rdc_shared("rdc_lib.hip", "gfx90a")).expect("lib");
    let dev = Device(Mem::new());
    let var = dev.0.allocate(4, 256, RegionKind::Device).expect("alloc");
    let mut exe = Executable::new(agent("gfx90a"));
    exe.load(&*dev, &main).expect("load");
    exe.load(&*dev, &lib).expect("load");
    // The library defines lib_scale; a host definition must not be needed,
    // but defining an unrelated external is fine and queryable.
    exe.define_external_variable("host_counter", var)
        .expect("define");
    assert!(matches!(
        exe.define_external_variable("host_counter", var),
        Err(Error::Redefined(_))
    ));
    exe.freeze(&*dev).expect("freeze");
    let s = exe.symbol("host_counter").expect("external");
    assert_eq!((s.kind, s.address), (SymbolKind::ExternalVariable, var));
    assert!(matches!(exe.load(&*dev, &main), Err(Error::Frozen)));

    // With only main, defining the missing variable leaves just the functions undefined.
    let mut exe = Executable::new(agent("gfx90a"));
    exe.load(&*dev, &main).expect("load");
    exe.define_external_variable("lib_scale", var)
        .expect("define");
    match exe.freeze(&*dev) {
        Err(Error::Undefined(u)) => assert!(u.iter().all(|x| x.name != "lib_scale"), "{u:?}"),
        other => panic!("expected undefined functions, got {other:?}"),
    }
}

#[test]
fn refuses_incompatible_and_malformed_code_objects() {
    let dev = Device(Mem::new());
    let gfx942 = build("vecops.hip", "gfx942");
    let mut exe = Executable::new(agent("gfx90a"));
    match exe.load(&*dev, &gfx942) {
        Err(Error::Incompatible { code, agent, .. }) => {
            assert_eq!(code, "gfx942");
            assert_eq!(agent, "gfx90a");
        }
        other => panic!("expected incompatible, got {other:?}"),
    }
    assert_eq!(
        compatible(&agent("gfx90a:xnack-"), &agent("gfx90a:xnack+"), false),
        Err("code object requires xnack- but the agent has xnack+".to_string())
    );
    assert!(compatible(&agent("gfx90a"), &agent("gfx90a:xnack+"), false).is_ok());
    assert_eq!(
        compatible(&agent("gfx1030"), &agent("gfx1031"), false),
        Err("processor gfx1031 does not run gfx1030 code".to_string())
    );
    assert!(compatible(&agent("gfx1030"), &agent("gfx1031"), true).is_ok());
    assert!(compatible(&agent("gfx9-4-generic"), &agent("gfx942"), false).is_ok());
    let truncated = &build("vecops.hip", "gfx90a")[..100];
    assert!(matches!(
        exe.load(&*dev, truncated),
        Err(Error::CodeObject { .. })
    ));
    assert_eq!(dev.0.region_count(), 0, "failed loads allocate nothing");
}

/// Fuzz-found (issue 20, `fuzz/seeds/loader/listed-name-ending-in-kd`): a
/// code object whose kernel symbol is itself named `….kd`. After freeze,
/// `symbols()` listed that name but `symbol()` stripped the `.kd` and missed
/// it. Every listed symbol must be found by its own name, and the `.kd`
/// shorthand still finds kernels (and only kernels).
#[test]
fn every_listed_symbol_is_found_by_its_name() {
    let input = std::fs::read(
        lathe_testkit::workspace_root().join("fuzz/seeds/loader/listed-name-ending-in-kd"),
    )
    .expect("seed");
    let mem = Mem::new();
    let mut exe = Executable::new(agent("gfx90a"));
    // Code objects separated by `LDR|`, as the fuzz target reads them.
    let at = input
        .windows(4)
        .position(|w| w == b"LDR|")
        .expect("two parts");
    for part in [&input[..at], &input[at + 4..]] {
        let _ = exe.load(&mem, part);
    }
    exe.freeze(&mem).expect("freeze");
    let names: Vec<String> = exe.symbols().iter().map(|s| s.name.clone()).collect();
    assert!(names.iter().any(|n| n.ends_with(".kd")), "{names:?}");
    for n in &names {
        let s = exe.symbol(n).unwrap_or_else(|| panic!("{n} not found"));
        assert_eq!(&s.name, n);
    }
    // The shorthand on an ordinary kernel.
    let co = build("vecops.hip", "gfx90a");
    let mut exe = Executable::new(agent("gfx90a"));
    exe.load(&mem, &co).expect("load");
    exe.freeze(&mem).expect("freeze");
    let k = exe
        .symbols_of(SymbolKind::Kernel)
        .next()
        .expect("a kernel")
        .name
        .clone();
    assert_eq!(exe.symbol(&format!("{k}.kd")).map(|s| &s.name), Some(&k));
    let v = exe
        .symbols_of(SymbolKind::Variable)
        .next()
        .map(|s| s.name.clone());
    if let Some(v) = v {
        assert!(exe.symbol(&format!("{v}.kd")).is_none(), "{v}.kd");
    }
}

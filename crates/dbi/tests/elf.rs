//! The instrumented code objects are well-formed: for every corpus kernel
//! (gfx90a and gfx942, -O3) and every tool, `llvm-readelf -a` and
//! `llvm-objdump -d` accept the result without warnings, Lathe's
//! descriptor/metadata check is clean, the original code object is
//! unchanged, and lifting the result finds every function at its new
//! address with the same instructions outside the probes (per the
//! rewriter's address map).

use std::process::Command;

use lathe_cases::build;
use lathe_codeobj::CodeObject;
use lathe_dbi::tools::{self, Tool};
use lathe_dbi::Program;
use lathe_testkit::llvm_tool;

fn clean(cmd: &mut Command, what: &str) {
    let out = cmd.output().expect("run llvm tool");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && !err.contains("warning"),
        "{what}: {err}"
    );
}

#[test]
fn instrumented_objects_pass_llvm_and_lathe_checks() {
    let dir = std::env::temp_dir().join(format!("lathe-dbi-elf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp");
    let mut checked = 0;
    let mut seen = std::collections::BTreeSet::new();
    for case in lathe_cases::all() {
        for &target in case.targets {
            if !matches!(target, "gfx90a" | "gfx942") {
                continue;
            }
            let path = build::linked_code_object(&case, target, "-O3");
            if !seen.insert(path.clone()) {
                continue;
            }
            let co = std::fs::read(&path).expect("co");
            let before = co.clone();
            for tool in Tool::ALL {
                let b = tools::instrument(&co, tool, None)
                    .unwrap_or_else(|e| panic!("{} {target} {}: {e}", case.name, tool.name()));
                assert_eq!(co, before);
                let out = dir.join(format!("{}-{target}-{}.co", case.name, tool.name()));
                std::fs::write(&out, &b.code_object).expect("write");
                let what = format!("{} {target} {}", case.name, tool.name());
                clean(
                    Command::new(llvm_tool("llvm-readelf")).arg("-a").arg(&out),
                    &what,
                );
                clean(
                    Command::new(llvm_tool("llvm-objdump"))
                        .arg("-d")
                        .arg(format!("--mcpu={target}"))
                        .arg(&out),
                    &what,
                );
                let new = CodeObject::parse(&b.code_object).expect("reparse");
                let report = new.check().expect("check");
                assert!(report.is_clean(), "{what}: {:?}", report.warnings);
                let p2 = Program::lift(&new).expect("lift instrumented");
                for (fi, f) in b.program.functions.iter().enumerate() {
                    let g = p2.function_at(b.function_addrs[fi]).unwrap_or_else(|| {
                        panic!("{what}: {} not found at its new address", f.name)
                    });
                    assert_eq!(p2.functions[g].name, f.name);
                }
                for (new_addr, old) in &b.addr_map {
                    let f = &b.program.functions[b.program.function_containing(*old).expect("old")];
                    let oi = f.insts[f.index_of(*old).expect("old inst")].inst;
                    let g = &p2.functions[p2.function_containing(*new_addr).expect("new")];
                    let ni = g.insts[g.index_of(*new_addr).expect("new inst")].inst;
                    // Branches and pc-relative literals are re-targeted;
                    // the opcode stays.
                    if ni.opcode() != oi.opcode() {
                        // A relaxed unconditional branch starts with s_getpc_b64.
                        assert_eq!(
                            ni.opcode(),
                            lathe_isa::Opcode::S_GETPC_B64,
                            "{what}: {oi} -> {ni}"
                        );
                    }
                }
                checked += 1;
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("{checked} instrumented code objects checked");
    assert!(checked > 0);
}

/// A code object whose `.text` section claims an address where its bytes
/// would run past the end of the address space (found by the
/// `hip_manifest` fuzz target): lifting fails with a typed error naming
/// the section, not an overflow.
#[test]
fn a_text_section_past_the_address_space_is_a_typed_error() {
    let case = lathe_cases::by_name("saxpy").expect("saxpy");
    let mut bytes = std::fs::read(lathe_cases::build::linked_code_object(
        &case, "gfx90a", "-O3",
    ))
    .expect("code object");
    let text = {
        let co = lathe_codeobj::CodeObject::parse(&bytes).expect("parse");
        co.sections()
            .iter()
            .find(|s| s.name == ".text")
            .expect(".text")
            .index
    };
    let u64_at = |b: &[u8], o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
    let shoff = u64_at(&bytes, 0x28) as usize;
    let shentsize = u16::from_le_bytes([bytes[0x3a], bytes[0x3b]]) as usize;
    let at = shoff + text * shentsize + 16;
    bytes[at..at + 8].copy_from_slice(&(u64::MAX - 8).to_le_bytes());
    let co = lathe_codeobj::CodeObject::parse(&bytes).expect("still parses");
    match lathe_dbi::Program::lift(&co) {
        Err(e) => assert!(
            e.to_string().contains("past the end of the address space"),
            "{e}"
        ),
        Ok(_) => panic!("lifted a section past the end of the address space"),
    }
}

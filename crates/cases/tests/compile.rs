//! Every case's sources compile for each of its targets at -O0 and -O3, the
//! kernel symbol is defined in the code object, and the kernel's explicit
//! arguments in the metadata note match the case's argument list (count,
//! kinds, sizes, offsets). rdc cases: the relocatable objects resolve each
//! other's symbols and link with ld.lld.
//!
//! Builds run one at a time in a single test (testkit's cache writes temp
//! files named by process id, and the machine is shared).

use lathe_cases::build::{self, KernArg, Symbol, OPTS};
use lathe_cases::{all, Case, Value};
use std::path::Path;
use std::process::Command;

fn check_kernel(case: &Case, obj: &Path, what: &str) {
    let syms = build::symbols(obj);
    assert!(
        syms.iter().any(|s| s.name == case.kernel && s.kind == 'T'),
        "{}: {} not defined in {what} ({})",
        case.name,
        case.kernel,
        obj.display()
    );
    let args = build::kernel_args(obj, case.kernel)
        .unwrap_or_else(|| panic!("{}: no metadata for {} in {what}", case.name, case.kernel));
    let explicit: Vec<&KernArg> = args.iter().filter(|a| a.is_explicit()).collect();
    assert_eq!(
        explicit.len(),
        case.args.len(),
        "{}: argument count in {what}: {explicit:?}",
        case.name
    );
    for ((a, m), off) in case.args.iter().zip(&explicit).zip(case.kernarg_offsets()) {
        let kind = match a.value {
            Value::Buffer { .. } => "global_buffer",
            _ => "by_value",
        };
        assert_eq!(
            m.value_kind, kind,
            "{}: kind of {} in {what}",
            case.name, a.name
        );
        assert_eq!(
            m.size,
            a.size(),
            "{}: size of {} in {what}",
            case.name,
            a.name
        );
        assert_eq!(
            m.offset, off,
            "{}: offset of {} in {what}",
            case.name, a.name
        );
    }
}

fn defined(syms: &[Symbol], name: &str) -> bool {
    syms.iter().any(|s| s.name == name && s.kind != 'U')
}

#[test]
fn cases_compile_with_symbols_and_kernargs() {
    let cases = all();
    for c in &cases {
        for &t in c.targets {
            for &opt in OPTS {
                let what = format!("{t} {opt}");
                let objs = build::code_objects(c, t, opt);
                if !c.rdc {
                    check_kernel(c, &objs[0], &what);
                    continue;
                }
                // The kernel is in the last object; everything it leaves
                // undefined is defined by another object.
                let main = objs.last().expect("rdc objects");
                check_kernel(c, main, &format!("{what} (relocatable)"));
                let all_syms: Vec<Vec<Symbol>> = objs.iter().map(|o| build::symbols(o)).collect();
                let undefined: Vec<&Symbol> = all_syms
                    .last()
                    .expect("main")
                    .iter()
                    .filter(|s| s.kind == 'U')
                    .collect();
                assert!(
                    !undefined.is_empty(),
                    "{}: main object has no undefined symbols",
                    c.name
                );
                for u in undefined {
                    assert!(
                        all_syms[..all_syms.len() - 1]
                            .iter()
                            .any(|s| defined(s, &u.name)),
                        "{}: {} is not defined by the library ({what})",
                        c.name,
                        u.name
                    );
                }
                for g in &c.globals {
                    assert!(
                        all_syms.iter().any(|s| defined(s, g.symbol)),
                        "{}: no {}",
                        c.name,
                        g.symbol
                    );
                }
                let linked = build::linked_code_object(c, t, opt);
                check_kernel(c, &linked, &format!("{what} (linked)"));
            }
        }
        if !c.rdc {
            // Globals are defined in the (single) object; managed ones have
            // their storage symbol too.
            let obj = &build::code_objects(c, c.targets[0], "-O3")[0];
            let syms = build::symbols(obj);
            for g in &c.globals {
                assert!(
                    defined(&syms, g.symbol),
                    "{}: {} not defined",
                    c.name,
                    g.symbol
                );
                if g.managed {
                    assert!(
                        defined(&syms, &format!("{}.managed", g.symbol)),
                        "{}: no {}.managed",
                        c.name,
                        g.symbol
                    );
                }
            }
        }
    }
}

/// An rdc case's objects are relocatable AMDGPU ELF files, not the LLVM
/// bitcode plain `-fgpu-rdc -c` gives (testkit adds `-Xclang -emit-obj`).
#[test]
fn rdc_objects_are_relocatable_elf() {
    let c = lathe_cases::by_name("devlib_hash").expect("case");
    for rel in &build::code_objects(&c, "gfx90a", "-O3") {
        let bytes = std::fs::read(rel).expect("read output");
        assert_eq!(&bytes[..4], b"\x7fELF", "{}: not ELF", rel.display());
        let out = lathe_testkit::run_text(
            Command::new(lathe_testkit::llvm_tool("llvm-readelf"))
                .arg("-h")
                .arg(rel),
        );
        assert!(out.contains("REL (Relocatable file)"), "{out}");
    }
}

//! Prints the Lathe-style listing of an ELF's `.text`:
//! `cargo run -p lathe-isa --example lathe_listing -- gfx90a file.co`.

use lathe_isa::{write_listing, ListingSymbol, Style, Target};
use object::{Object, ObjectSection, ObjectSymbol};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(cpu), Some(path)) = (args.get(1), args.get(2)) else {
        return Err("usage: lathe_listing <processor[:w64]> <code object> [objdump]".into());
    };
    let mut target = Target::from_name(cpu)?;
    // `gfx1100:w64`: wave64 code of a GFX10+ processor.
    if cpu.ends_with(":w64") {
        target = target.with_wave_size(64).ok_or("no wave64 form")?;
    }
    let style = if args.get(3).map(String::as_str) == Some("objdump") {
        Style::LlvmObjdump
    } else {
        Style::Lathe
    };
    let data = std::fs::read(path)?;
    let file = object::File::parse(&*data)?;
    let text = file.section_by_name(".text").ok_or("no .text")?;
    let mut names = Vec::new();
    for s in file.symbols() {
        if s.section_index() == Some(text.index()) && !s.name()?.is_empty() {
            names.push((s.name()?.to_string(), s.address(), s.size()));
        }
    }
    let syms: Vec<ListingSymbol<'_>> = names
        .iter()
        .map(|(n, a, s)| ListingSymbol {
            name: n,
            addr: *a,
            size: *s,
        })
        .collect();
    let mut out = String::new();
    write_listing(&mut out, target, text.data()?, text.address(), &syms, style)?;
    print!("{out}");
    Ok(())
}

//! Writing the instrumented code object with the `object` crate's ELF
//! builder.
//!
//! The original file is kept as it is, byte for byte where it matters:
//! every original section stays at its address, so data, the GOT and the
//! original code (now unused) keep their addresses and nothing the loader
//! relocates moves. The rewritten code, the probe-data variable and a new
//! metadata note go into one new `PT_LOAD` segment placed after every
//! existing one; the program header table cannot grow without moving the
//! first section, so the new segment re-uses the `PT_GNU_STACK` entry
//! (meaningless for GPU code). The `PT_NOTE` entry is pointed at the new
//! note and the old note section is dropped. Kernel descriptors are patched
//! in place (entry offset, register counts); function symbols are moved to
//! the new code; the variable is added to `.symtab`.

use object::build::elf::{Builder, SectionData};
use object::elf;

use lathe_codeobj::msgpack::Value;
use lathe_codeobj::CodeObject;

use crate::Error;

/// Name of the probe-data variable the loader resolves.
pub const DATA_SYMBOL: &str = "__lathe_dbi_data";

/// Where the new segment goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewLayout {
    /// Address of the new code.
    pub code_addr: u64,
    /// Address of the 8-byte probe-data variable (after the code).
    pub data_addr: u64,
}

/// Alignment of the new code section.
const CODE_ALIGN: u64 = 256;

/// Computes where the new code goes for `code_len` bytes of code, as the
/// builder will place it (after every segment, page-aligned address
/// congruent with the file offset).
pub fn layout(co: &CodeObject<'_>, code_len: u64) -> NewLayout {
    let mut max_off = 0;
    let mut max_addr = 0;
    for s in co.segments() {
        max_off = max_off.max(s.offset + s.filesz);
        max_addr = max_addr.max(s.vaddr + s.memsz);
    }
    let page = 0x1000;
    let addr0 = max_addr.next_multiple_of(page) + (max_off & (page - 1));
    let code_addr = addr0.next_multiple_of(CODE_ALIGN);
    let data_addr = (code_addr + code_len).next_multiple_of(8);
    NewLayout {
        code_addr,
        data_addr,
    }
}

/// What changes in the new file.
#[derive(Debug, Clone, Default)]
pub struct Patch {
    /// The new code.
    pub code: Vec<u8>,
    /// Kernel descriptors to replace: (descriptor vaddr, new 64 bytes).
    pub descriptors: Vec<(u64, [u8; 64])>,
    /// Function symbols to move: (old address, new address, new size).
    pub moves: Vec<(u64, u64, u64)>,
    /// New metadata (msgpack), one per `NT_AMDGPU_METADATA` note in file
    /// order (missing entries keep the old note).
    pub metadata: Vec<Vec<u8>>,
    /// Relocations in the new code against symbols of other code objects
    /// (hooks): each symbol is added to `.symtab` as an undefined global,
    /// the relocations go to a new allocated `SHT_RELA` section,
    /// `.rela.lathe.text`, which Lathe's loader applies at freeze.
    pub relocs: Vec<Reloc>,
}

/// `R_AMDGPU_REL32_LO`.
pub const R_AMDGPU_REL32_LO: u32 = 10;
/// `R_AMDGPU_REL32_HI`.
pub const R_AMDGPU_REL32_HI: u32 = 11;

/// A relocation in the new code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reloc {
    /// Address (in the new file) of the 32-bit field.
    pub offset: u64,
    /// Relocation type ([`R_AMDGPU_REL32_LO`], [`R_AMDGPU_REL32_HI`]).
    pub kind: u32,
    /// The symbol.
    pub symbol: String,
    /// Addend.
    pub addend: i64,
}

fn err(e: impl std::fmt::Display) -> Error {
    Error::Elf(e.to_string())
}

/// Writes the instrumented file.
pub fn write(original: &[u8], lay: NewLayout, patch: &Patch) -> Result<Vec<u8>, Error> {
    let co = CodeObject::parse(original)?;
    let mut b = Builder::read(original).map_err(err)?;
    // Descriptors: patch section bytes in place.
    for (addr, bytes) in &patch.descriptors {
        let mut done = false;
        for s in b.sections.iter_mut() {
            if s.sh_addr <= *addr && *addr + 64 <= s.sh_addr + s.sh_size {
                if let SectionData::Data(d) = &mut s.data {
                    let at = (*addr - s.sh_addr) as usize;
                    let v = d.to_mut();
                    if at + 64 <= v.len() {
                        v[at..at + 64].copy_from_slice(bytes);
                        done = true;
                    }
                }
            }
        }
        if !done {
            return Err(Error::Elf(format!(
                "kernel descriptor at {addr:#x} is not in a data section"
            )));
        }
    }
    // The new note: every note of the old note sections, metadata replaced.
    let mut note = Vec::new();
    let mut note_align = 4;
    let mut md_index = 0;
    for s in co.sections() {
        if s.sh_type != lathe_codeobj::elf::SHT_NOTE {
            continue;
        }
        note_align = note_align.max(s.align.max(1));
        let data = co.section_data(s)?;
        for n in lathe_codeobj::Notes::new(s.name, data, s.offset, s.align) {
            let n = n?;
            let desc: &[u8] = if n.owner == b"AMDGPU" && n.n_type == 32 {
                md_index += 1;
                patch
                    .metadata
                    .get(md_index - 1)
                    .map_or(n.desc, |m| m.as_slice())
            } else {
                n.desc
            };
            let mut name = n.owner.to_vec();
            name.push(0);
            note.extend_from_slice(&(name.len() as u32).to_le_bytes());
            note.extend_from_slice(&(desc.len() as u32).to_le_bytes());
            note.extend_from_slice(&n.n_type.to_le_bytes());
            note.extend_from_slice(&name);
            while note.len() % 4 != 0 {
                note.push(0);
            }
            note.extend_from_slice(desc);
            while note.len() % 4 != 0 {
                note.push(0);
            }
        }
    }
    let old_notes: Vec<_> = b
        .sections
        .iter()
        .filter(|s| s.sh_type == elf::SHT_NOTE)
        .map(|s| s.id())
        .collect();
    for id in &old_notes {
        b.sections.get_mut(*id).delete = true;
    }
    // The new segment: re-use PT_GNU_STACK.
    let mut max_off = 0;
    let mut max_addr = 0;
    for s in b.segments.iter() {
        max_off = max_off.max(s.p_offset + s.p_filesz);
        max_addr = max_addr.max(s.p_vaddr + s.p_memsz);
    }
    let seg_id = b
        .segments
        .iter()
        .find(|s| s.p_type == elf::PT_GNU_STACK)
        .map(|s| s.id())
        .ok_or_else(|| Error::Elf("no PT_GNU_STACK program header to re-use".into()))?;
    // Sections.
    let text_id = {
        let s = b.sections.add();
        s.name = b".lathe.text".to_vec().into();
        s.sh_type = elf::SHT_PROGBITS;
        s.sh_flags = elf::SHF_ALLOC | elf::SHF_EXECINSTR;
        s.sh_addralign = CODE_ALIGN;
        s.sh_size = patch.code.len() as u64;
        s.data = SectionData::Data(patch.code.clone().into());
        s.id()
    };
    let data_id = {
        let s = b.sections.add();
        s.name = b".lathe.data".to_vec().into();
        s.sh_type = elf::SHT_PROGBITS;
        s.sh_flags = elf::SHF_ALLOC | elf::SHF_WRITE;
        s.sh_addralign = 8;
        s.sh_size = 8;
        s.data = SectionData::Data(vec![0u8; 8].into());
        s.id()
    };
    let note_id = if note.is_empty() {
        None
    } else {
        let s = b.sections.add();
        s.name = b".note".to_vec().into();
        s.sh_type = elf::SHT_NOTE;
        s.sh_flags = elf::SHF_ALLOC;
        s.sh_addralign = note_align;
        s.sh_size = note.len() as u64;
        s.data = SectionData::Note(note.into());
        Some(s.id())
    };
    {
        let page = 0x1000;
        let seg = b.segments.get_mut(seg_id);
        seg.p_type = elf::PT_LOAD;
        seg.p_flags = elf::PF_R | elf::PF_W | elf::PF_X;
        seg.p_align = page;
        seg.p_offset = max_off;
        let addr = max_addr.next_multiple_of(page) + (max_off & (page - 1));
        seg.p_vaddr = addr;
        seg.p_paddr = addr;
        seg.p_filesz = 0;
        seg.p_memsz = 0;
        seg.sections.clear();
    }
    // Undefined symbols and the relocations against them.
    let rela_id = if patch.relocs.is_empty() {
        None
    } else {
        let symtab = b
            .sections
            .iter()
            .find(|s| s.sh_type == elf::SHT_SYMTAB)
            .map(|s| s.id())
            .ok_or_else(|| Error::Elf("the code object has no .symtab for hook symbols".into()))?;
        let mut ids: std::collections::BTreeMap<&str, object::build::elf::SymbolId> =
            std::collections::BTreeMap::new();
        for r in &patch.relocs {
            if ids.contains_key(r.symbol.as_str()) {
                continue;
            }
            let s = b.symbols.add();
            s.name = r.symbol.as_bytes().to_vec().into();
            s.section = None;
            s.set_st_info(elf::STB_GLOBAL, elf::STT_NOTYPE);
            s.st_value = 0;
            s.st_size = 0;
            ids.insert(r.symbol.as_str(), s.id());
        }
        let rel: Vec<object::build::elf::Relocation> = patch
            .relocs
            .iter()
            .map(|r| object::build::elf::Relocation {
                r_offset: r.offset,
                symbol: ids.get(r.symbol.as_str()).copied(),
                r_type: elf::RelocationType(r.kind),
                r_addend: r.addend,
            })
            .collect();
        let s = b.sections.add();
        s.name = RELA_SECTION.as_bytes().to_vec().into();
        s.sh_type = elf::SHT_RELA;
        // SHF_ALLOC is set after writing (the builder writes static
        // relocation sections only when not allocated).
        s.sh_flags = elf::SHF_INFO_LINK;
        s.sh_addralign = 8;
        s.sh_entsize = 24;
        s.sh_size = 24 * rel.len() as u64;
        s.sh_link_section = Some(symtab);
        s.sh_info_section = Some(text_id);
        s.data = SectionData::Relocation(rel);
        Some(s.id())
    };
    let mut ids = vec![text_id, data_id];
    ids.extend(note_id);
    for id in ids {
        let seg = b.segments.get_mut(seg_id);
        let sec = b.sections.get_mut(id);
        if seg.p_memsz == 0 {
            // First section: align the (empty) segment's start to it.
            let off = seg.p_offset.next_multiple_of(sec.sh_addralign.max(1));
            let addr = seg.p_vaddr + (off - seg.p_offset);
            sec.sh_offset = off;
            sec.sh_addr = addr;
            seg.p_offset = off;
            seg.p_vaddr = addr;
            seg.p_paddr = addr;
            seg.append_section_range(sec);
            seg.sections.push(id);
        } else {
            seg.append_section(sec);
        }
    }
    let text = b.sections.get(text_id);
    if text.sh_addr != lay.code_addr {
        return Err(Error::Elf(format!(
            "new code placed at {:#x}, expected {:#x}",
            text.sh_addr, lay.code_addr
        )));
    }
    let data = b.sections.get(data_id);
    if data.sh_addr != lay.data_addr {
        return Err(Error::Elf(format!(
            "probe data placed at {:#x}, expected {:#x}",
            data.sh_addr, lay.data_addr
        )));
    }
    if let Some(nid) = note_id {
        if let Some(pn) = b
            .segments
            .iter()
            .find(|s| s.p_type == elf::PT_NOTE)
            .map(|s| s.id())
        {
            let seg = b.segments.get_mut(pn);
            seg.sections = vec![nid];
            let sections = &b.sections;
            let seg = b.segments.get_mut(pn);
            seg.p_offset = 0;
            seg.p_filesz = 0;
            seg.p_vaddr = 0;
            seg.p_paddr = 0;
            seg.p_memsz = 0;
            seg.append_section_range(sections.get(nid));
        }
    }
    // Symbols.
    for (old, new, size) in &patch.moves {
        for s in b.symbols.iter_mut() {
            if s.st_value == *old && s.st_type() == elf::STT_FUNC {
                s.st_value = *new;
                s.st_size = *size;
                s.section = Some(text_id);
            }
        }
        for s in b.dynamic_symbols.iter_mut() {
            if s.st_value == *old && s.st_type() == elf::STT_FUNC {
                s.st_value = *new;
                s.st_size = *size;
                s.section = Some(text_id);
            }
        }
    }
    if b.symbols.iter().next().is_some() || b.sections.iter().any(|s| s.sh_type == elf::SHT_SYMTAB)
    {
        let s = b.symbols.add();
        s.name = DATA_SYMBOL.as_bytes().to_vec().into();
        s.section = Some(data_id);
        s.set_st_info(elf::STB_GLOBAL, elf::STT_OBJECT);
        s.st_other = elf::SymbolOther::from(elf::STV_PROTECTED);
        s.st_value = lay.data_addr;
        s.st_size = 8;
    } else {
        return Err(Error::Elf(
            "the code object has no .symtab for the probe-data symbol".into(),
        ));
    }
    let mut out = Vec::new();
    b.write(&mut out).map_err(err)?;
    if rela_id.is_some() {
        mark_alloc(&mut out, RELA_SECTION)?;
    }
    Ok(out)
}

/// Name of the section holding the relocations against hook symbols.
pub const RELA_SECTION: &str = ".rela.lathe.text";

/// Sets `SHF_ALLOC` on section `name` of a written ELF64 file (Lathe's
/// loader applies the relocations of allocated relocation sections).
fn mark_alloc(f: &mut [u8], name: &str) -> Result<(), Error> {
    let rd = |o: usize, n: usize| -> Option<u64> {
        let b = f.get(o..o + n)?;
        let mut a = [0u8; 8];
        a[..n].copy_from_slice(b);
        Some(u64::from_le_bytes(a))
    };
    let bad = || Error::Elf(format!("cannot mark {name} allocated"));
    let shoff = rd(0x28, 8).ok_or_else(bad)? as usize;
    let entsize = rd(0x3a, 2).ok_or_else(bad)? as usize;
    let shnum = rd(0x3c, 2).ok_or_else(bad)? as usize;
    let shstrndx = rd(0x3e, 2).ok_or_else(bad)? as usize;
    let str_off = rd(shoff + shstrndx * entsize + 0x18, 8).ok_or_else(bad)? as usize;
    for k in 0..shnum {
        let h = shoff + k * entsize;
        let n = rd(h, 4).ok_or_else(bad)? as usize;
        let at = str_off + n;
        let end = f[at..].iter().position(|&c| c == 0).map(|e| at + e);
        if end.is_some_and(|e| &f[at..e] == name.as_bytes()) {
            let flags = rd(h + 8, 8).ok_or_else(bad)? | 0x2;
            f[h + 8..h + 16].copy_from_slice(&flags.to_le_bytes());
            return Ok(());
        }
    }
    Err(bad())
}

/// Encodes a msgpack value.
pub fn encode_msgpack(v: &Value<'_>, out: &mut Vec<u8>) {
    match v {
        Value::Nil => out.push(0xc0),
        Value::Bool(b) => out.push(if *b { 0xc3 } else { 0xc2 }),
        Value::UInt(u) => {
            let u = *u;
            if u < 128 {
                out.push(u as u8);
            } else if u <= 0xff {
                out.extend_from_slice(&[0xcc, u as u8]);
            } else if u <= 0xffff {
                out.push(0xcd);
                out.extend_from_slice(&(u as u16).to_be_bytes());
            } else if u <= 0xffff_ffff {
                out.push(0xce);
                out.extend_from_slice(&(u as u32).to_be_bytes());
            } else {
                out.push(0xcf);
                out.extend_from_slice(&u.to_be_bytes());
            }
        }
        Value::Int(i) => {
            let i = *i;
            if i >= -32 {
                out.push(i as i8 as u8);
            } else if i >= i64::from(i8::MIN) {
                out.extend_from_slice(&[0xd0, i as i8 as u8]);
            } else if i >= i64::from(i16::MIN) {
                out.push(0xd1);
                out.extend_from_slice(&(i as i16).to_be_bytes());
            } else if i >= i64::from(i32::MIN) {
                out.push(0xd2);
                out.extend_from_slice(&(i as i32).to_be_bytes());
            } else {
                out.push(0xd3);
                out.extend_from_slice(&i.to_be_bytes());
            }
        }
        Value::Float(f) => {
            out.push(0xcb);
            out.extend_from_slice(&f.to_be_bytes());
        }
        Value::Str(s) => {
            let n = s.len();
            if n < 32 {
                out.push(0xa0 | n as u8);
            } else if n <= 0xff {
                out.extend_from_slice(&[0xd9, n as u8]);
            } else if n <= 0xffff {
                out.push(0xda);
                out.extend_from_slice(&(n as u16).to_be_bytes());
            } else {
                out.push(0xdb);
                out.extend_from_slice(&(n as u32).to_be_bytes());
            }
            out.extend_from_slice(s.as_bytes());
        }
        Value::Bin(b) => {
            let n = b.len();
            if n <= 0xff {
                out.extend_from_slice(&[0xc4, n as u8]);
            } else if n <= 0xffff {
                out.push(0xc5);
                out.extend_from_slice(&(n as u16).to_be_bytes());
            } else {
                out.push(0xc6);
                out.extend_from_slice(&(n as u32).to_be_bytes());
            }
            out.extend_from_slice(b);
        }
        Value::Array(a) => {
            let n = a.len();
            if n < 16 {
                out.push(0x90 | n as u8);
            } else if n <= 0xffff {
                out.push(0xdc);
                out.extend_from_slice(&(n as u16).to_be_bytes());
            } else {
                out.push(0xdd);
                out.extend_from_slice(&(n as u32).to_be_bytes());
            }
            for x in a {
                encode_msgpack(x, out);
            }
        }
        Value::Map(m) => {
            let n = m.len();
            if n < 16 {
                out.push(0x80 | n as u8);
            } else if n <= 0xffff {
                out.push(0xde);
                out.extend_from_slice(&(n as u16).to_be_bytes());
            } else {
                out.push(0xdf);
                out.extend_from_slice(&(n as u32).to_be_bytes());
            }
            for (k, x) in m {
                encode_msgpack(k, out);
                encode_msgpack(x, out);
            }
        }
        Value::Ext(t, d) => {
            out.push(0xc7);
            out.push(d.len() as u8);
            out.push(*t as u8);
            out.extend_from_slice(d);
        }
    }
}

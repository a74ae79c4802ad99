//! The address map travels with the instrumented code object: a
//! non-allocated `.lathe.addr_map` section (pairs of little-endian u64:
//! instrumented address, original address, sorted by the former), so a
//! runtime that reports a fault or an interrupted wave in the instrumented
//! kernel can name the original instruction (Lathe's runtime does; other
//! runtimes ignore a section no segment loads).
//!
//! The section is appended to the written ELF64 file as is: its data, a
//! copy of the section-name table with the new name, and a copy of the
//! section header table with the two changed entries; the header's
//! `e_shoff`/`e_shnum` point at the copy. Nothing a segment loads moves.
//!
//! [`AddrMap`] (in `lathe-codeobj`, re-exported here) reads it back, from
//! the section or from the pairs the rewriter returns, and names the
//! original instruction an instrumented address stands for.

pub use lathe_codeobj::addr_map::{AddrMap, SECTION};

/// The `n`-byte (at most 8) little-endian field at offset `o`.
fn rd(f: &[u8], o: usize, n: usize) -> Option<u64> {
    let b = f.get(o..o.checked_add(n)?)?;
    let mut a = [0u8; 8];
    a[..n].copy_from_slice(b);
    Some(u64::from_le_bytes(a))
}

fn pad8(v: &mut Vec<u8>) {
    while v.len() % 8 != 0 {
        v.push(0);
    }
}

/// `elf` with the section holding `map` (instrumented → original
/// address) appended.
pub fn with_addr_map(elf: &[u8], map: &[(u64, u64)]) -> Result<Vec<u8>, String> {
    let bad = |what: &str| format!("adding {SECTION}: {what}");
    if elf.get(..5) != Some(b"\x7fELF\x02") || elf.get(5) != Some(&1) {
        return Err(bad("not a little-endian ELF64 file"));
    }
    let field = |o: usize, n: usize| rd(elf, o, n).ok_or_else(|| bad("truncated header"));
    let shoff = field(0x28, 8)? as usize;
    let entsize = field(0x3a, 2)? as usize;
    let shnum = field(0x3c, 2)? as usize;
    let shstrndx = field(0x3e, 2)? as usize;
    if entsize != 64 || shnum == 0 || shstrndx >= shnum || shnum >= 0xff00 {
        return Err(bad("unexpected section header table"));
    }
    let headers = elf
        .get(shoff..shoff + shnum * entsize)
        .ok_or_else(|| bad("section headers past the end of the file"))?;
    let str_hdr = shstrndx * entsize;
    let str_off = rd(headers, str_hdr + 0x18, 8).ok_or_else(|| bad("shstrtab"))? as usize;
    let str_size = rd(headers, str_hdr + 0x20, 8).ok_or_else(|| bad("shstrtab"))? as usize;
    let strtab = elf
        .get(str_off..str_off + str_size)
        .ok_or_else(|| bad("shstrtab past the end of the file"))?;

    let mut sorted = map.to_vec();
    sorted.sort_unstable();
    let mut out = elf.to_vec();
    pad8(&mut out);
    let data_off = out.len();
    for (new, old) in &sorted {
        out.extend_from_slice(&new.to_le_bytes());
        out.extend_from_slice(&old.to_le_bytes());
    }
    let new_str_off = out.len();
    out.extend_from_slice(strtab);
    let name_off = strtab.len();
    out.extend_from_slice(SECTION.as_bytes());
    out.push(0);
    let new_str_size = out.len() - new_str_off;
    pad8(&mut out);
    let new_shoff = out.len();
    let mut hdrs = headers.to_vec();
    hdrs[str_hdr + 0x18..str_hdr + 0x20].copy_from_slice(&(new_str_off as u64).to_le_bytes());
    hdrs[str_hdr + 0x20..str_hdr + 0x28].copy_from_slice(&(new_str_size as u64).to_le_bytes());
    let mut h = [0u8; 64];
    h[0..4].copy_from_slice(&(name_off as u32).to_le_bytes());
    h[4..8].copy_from_slice(&1u32.to_le_bytes()); // SHT_PROGBITS, no flags
    h[0x18..0x20].copy_from_slice(&(data_off as u64).to_le_bytes());
    h[0x20..0x28].copy_from_slice(&((sorted.len() * 16) as u64).to_le_bytes());
    h[0x30..0x38].copy_from_slice(&8u64.to_le_bytes());
    h[0x38..0x40].copy_from_slice(&16u64.to_le_bytes());
    hdrs.extend_from_slice(&h);
    out.extend_from_slice(&hdrs);
    out[0x28..0x30].copy_from_slice(&(new_shoff as u64).to_le_bytes());
    out[0x3c..0x3e].copy_from_slice(&((shnum + 1) as u16).to_le_bytes());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use object::{Object, ObjectSection};

    use super::AddrMap;

    #[test]
    fn the_section_reads_back_and_nothing_else_moves() {
        let asm = ".amdgcn_target \"amdgcn-amd-amdhsa--gfx90a\"\n.text\n.globl k\n.p2align 8\n.type k,@function\nk:\n  s_endpgm\n.rodata\n.p2align 6\n.amdhsa_kernel k\n  .amdhsa_next_free_vgpr 1\n  .amdhsa_next_free_sgpr 1\n  .amdhsa_accum_offset 4\n.end_amdhsa_kernel\n";
        let co = lathe_testkit::assemble_shared("gfx90a", "addr-map", asm);
        let elf = std::fs::read(co).expect("read code object");
        let map = [(0x2010u64, 0x1010u64), (0x2000, 0x1000)];
        let out = super::with_addr_map(&elf, &map).expect("append");
        let before = object::File::parse(&*elf).expect("parse original");
        let after = object::File::parse(&*out).expect("parse result");
        let s = after
            .section_by_name(super::SECTION)
            .expect("section present");
        let data = s.data().expect("data");
        // Read back: the pairs, sorted, and the original of each address.
        let m = AddrMap::read(&out).expect("map read back");
        assert_eq!(m.pairs(), &[(0x2000, 0x1000), (0x2010, 0x1010)]);
        assert_eq!(m.original(0x2010), Some((0x1010, true)));
        assert_eq!(m.original(0x2008), Some((0x1000, false)), "probe code");
        assert_eq!(m.original(0x1fff), None);
        assert_eq!(m.original_at_or_after(0x2004), Some(0x1010));
        assert_eq!(m.around(0x2008), (Some(0x1000), Some(0x1010)));
        assert_eq!(AddrMap::read(&elf), None, "no section");
        assert_eq!(data.len(), 32);
        assert_eq!(&data[..8], &0x2000u64.to_le_bytes(), "sorted");
        assert_eq!(&data[24..32], &0x1010u64.to_le_bytes());
        // Every section but the name table (which gains the new name) is
        // unchanged.
        for a in before.sections().filter(|s| s.name() != Ok(".shstrtab")) {
            let b = after
                .section_by_name(a.name().expect("name"))
                .expect("same sections");
            assert_eq!(
                (a.address(), a.size(), a.data().ok()),
                (b.address(), b.size(), b.data().ok())
            );
        }
    }
}

//! The size of a kernel's machine code in the cubin ptxas writes.
//!
//! A cubin is an ELF file; ptxas puts each function's SASS in a section
//! named `.text.<function>` (the PTX name, mangled for C++). Its size is the
//! code the SM's instruction caches have to hold: what the timing model's
//! instruction fetch reads (docs/timing-model.md, "Instruction fetch"),
//! where without it the PTX instruction count times the architecture's
//! bytes per instruction stands in.
//!
//! Only the section headers are read, with every offset checked against
//! the file: a truncated or foreign file gives `None`, never a panic, and a
//! code size is given only for a section whose bytes lie in the file.

/// Little-endian reader over the file's bytes; `None` past its end.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn get(&self, at: usize, len: usize) -> Option<&[u8]> {
        self.0.get(at..at.checked_add(len)?)
    }
    fn u16(&self, at: usize) -> Option<u64> {
        let b = self.get(at, 2)?;
        Some(u64::from(u16::from_le_bytes([b[0], b[1]])))
    }
    fn u32(&self, at: usize) -> Option<u64> {
        let b = self.get(at, 4)?;
        Some(u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
    }
    fn u64(&self, at: usize) -> Option<u64> {
        let b = self.get(at, 8)?;
        let mut word = [0u8; 8];
        word.copy_from_slice(b);
        Some(u64::from_le_bytes(word))
    }
    /// A NUL-terminated name starting at `at`.
    fn name(&self, at: usize) -> Option<&[u8]> {
        let rest = self.0.get(at..)?;
        let end = rest.iter().position(|&c| c == 0)?;
        Some(&rest[..end])
    }
}

/// Where the fields sit: ELF32 and ELF64 differ in the widths of offsets.
struct Layout {
    shoff: (usize, bool),
    shentsize: usize,
    shnum: usize,
    shstrndx: usize,
    /// In a section header: the name's offset, the section's offset and size.
    sh_name: usize,
    sh_offset: (usize, bool),
    sh_size: (usize, bool),
}

const ELF32: Layout = Layout {
    shoff: (0x20, false),
    shentsize: 0x2E,
    shnum: 0x30,
    shstrndx: 0x32,
    sh_name: 0,
    sh_offset: (16, false),
    sh_size: (20, false),
};

const ELF64: Layout = Layout {
    shoff: (0x28, true),
    shentsize: 0x3A,
    shnum: 0x3C,
    shstrndx: 0x3E,
    sh_name: 0,
    sh_offset: (24, true),
    sh_size: (32, true),
};

/// One section header of an ELF file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub name: String,
    /// Where its bytes start in the file.
    pub offset: u64,
    /// Its size in bytes.
    pub size: u64,
}

impl Section {
    /// Whether `offset..offset + size` lies within a file of `len` bytes.
    pub fn fits(&self, len: usize) -> bool {
        self.offset
            .checked_add(self.size)
            .is_some_and(|end| end <= len as u64)
    }
}

/// The sections of an ELF file. `None` for a file that is not a
/// little-endian ELF or whose headers run past its end.
pub fn sections(elf: &[u8]) -> Option<Vec<Section>> {
    let b = Bytes(elf);
    if b.get(0, 4)? != b"\x7fELF" || *b.get(5, 1)?.first()? != 1 {
        return None;
    }
    let layout = match b.get(4, 1)?.first()? {
        1 => &ELF32,
        2 => &ELF64,
        _ => return None,
    };
    let word = |(at, wide): (usize, bool), base: usize| -> Option<u64> {
        let at = base.checked_add(at)?;
        if wide { b.u64(at) } else { b.u32(at) }
    };
    let shoff = usize::try_from(word(layout.shoff, 0)?).ok()?;
    let entsize = usize::try_from(b.u16(layout.shentsize)?).ok()?;
    let count = usize::try_from(b.u16(layout.shnum)?).ok()?;
    let strndx = usize::try_from(b.u16(layout.shstrndx)?).ok()?;
    if entsize == 0 || strndx >= count {
        return None;
    }
    // The whole header table must lie in the file: a torn cubin is refused
    // even where the fields read happen to survive.
    if shoff.checked_add(count.checked_mul(entsize)?)? > elf.len() {
        return None;
    }
    let header = |i: usize| shoff.checked_add(i.checked_mul(entsize)?);
    let strtab = usize::try_from(word(layout.sh_offset, header(strndx)?)?).ok()?;
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let h = header(i)?;
        let name_at = usize::try_from(b.u32(h.checked_add(layout.sh_name)?)?).ok()?;
        let name = b.name(strtab.checked_add(name_at)?)?;
        out.push(Section {
            name: String::from_utf8_lossy(name).into_owned(),
            offset: word(layout.sh_offset, h)?,
            size: word(layout.sh_size, h)?,
        });
    }
    Some(out)
}

/// Bytes of SASS of the function `name` (its `.text.<name>` section), if
/// the cubin holds it and the section's bytes lie in the file.
pub fn code_bytes(elf: &[u8], name: &str) -> Option<u64> {
    let wanted = format!(".text.{name}");
    sections(elf)?
        .into_iter()
        .find(|s| s.name == wanted)
        .filter(|s| s.fits(elf.len()))
        .map(|s| s.size)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal ELF: a null section, `.shstrtab` and the named sections
    /// of the given sizes (their bytes zeros, after the headers).
    fn elf(wide: bool, named: &[(&str, u64)]) -> Vec<u8> {
        let mut strtab = vec![0u8];
        let mut names = Vec::new();
        for (n, _) in std::iter::once(&(".shstrtab", 0)).chain(named) {
            names.push(strtab.len() as u64);
            strtab.extend_from_slice(n.as_bytes());
            strtab.push(0);
        }
        let (ehsize, entsize) = if wide { (64, 64) } else { (52, 40) };
        let strtab_at = ehsize as u64;
        let shoff = strtab_at + strtab.len() as u64;
        let count = named.len() + 2;
        // Each named section's bytes, one after another past the headers.
        let mut data_end = shoff + (count * entsize) as u64;
        let data_at: Vec<u64> = named
            .iter()
            .map(|(_, size)| {
                let at = data_end;
                data_end += size;
                at
            })
            .collect();
        let mut out = vec![0u8; ehsize];
        out[..4].copy_from_slice(b"\x7fELF");
        out[4] = if wide { 2 } else { 1 };
        out[5] = 1;
        let put = |out: &mut Vec<u8>, at: usize, v: u64, len: usize| {
            out[at..at + len].copy_from_slice(&v.to_le_bytes()[..len]);
        };
        let l = if wide { &ELF64 } else { &ELF32 };
        put(&mut out, l.shoff.0, shoff, if wide { 8 } else { 4 });
        put(&mut out, l.shentsize, entsize as u64, 2);
        put(&mut out, l.shnum, count as u64, 2);
        put(&mut out, l.shstrndx, 1, 2);
        out.extend_from_slice(&strtab);
        let w = if wide { 8 } else { 4 };
        out.extend(std::iter::repeat_n(0u8, entsize)); // the null section
        let sizes = std::iter::once(strtab.len() as u64).chain(named.iter().map(|(_, s)| *s));
        for (i, size) in sizes.enumerate() {
            let h = out.len();
            out.extend(std::iter::repeat_n(0u8, entsize));
            put(&mut out, h + l.sh_name, names[i], 4);
            let offset = if i == 0 { strtab_at } else { data_at[i - 1] };
            put(&mut out, h + l.sh_offset.0, offset, w);
            put(&mut out, h + l.sh_size.0, size, w);
        }
        out.resize(data_end as usize, 0);
        out
    }

    fn check(file: &[u8], name: &str, expect: Option<u64>) {
        assert_eq!(code_bytes(file, name), expect, "{name}");
    }

    #[test]
    fn the_entry_text_section_gives_the_code_size() {
        for wide in [true, false] {
            let f = elf(wide, &[(".text.kernel", 4096), (".text._Z3fooPf", 48960)]);
            check(&f, "kernel", Some(4096));
            check(&f, "_Z3fooPf", Some(48960));
            check(&f, "missing", None);
            check(&f, "shstrtab", None);
        }
    }

    #[test]
    fn a_torn_or_foreign_file_gives_nothing() {
        let f = elf(true, &[(".text.kernel", 4096)]);
        for cut in [0, 3, 16, 0x40, f.len() / 2, f.len() - 1] {
            check(&f[..cut], "kernel", None);
        }
        let mut big_endian = f.clone();
        big_endian[5] = 2;
        check(&big_endian, "kernel", None);
        let mut not_elf = f.clone();
        not_elf[1] = b'X';
        check(&not_elf, "kernel", None);
        // Headers that point past the end or wrap around.
        let mut far = f.clone();
        far[0x28..0x30].copy_from_slice(&u64::MAX.to_le_bytes());
        check(&far, "kernel", None);
        let mut no_strtab = f.clone();
        no_strtab[0x3E] = 9;
        check(&no_strtab, "kernel", None);
        // Headers whole, the code itself cut short, or a size past the end.
        let headers_end = f.len() - 4096;
        check(&f[..headers_end + 4095], "kernel", None);
        check(&f[..headers_end], "kernel", None);
        let mut oversized = elf(false, &[(".text.kernel", 16)]);
        check(&oversized, "kernel", Some(16));
        let at = oversized.len() - 16 - 40 + 20; // the last header's sh_size
        oversized[at..at + 4].copy_from_slice(&17u32.to_le_bytes());
        check(&oversized, "kernel", None);
        oversized[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        check(&oversized, "kernel", None);
    }
}

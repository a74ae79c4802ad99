//! Input files: memory-mapped so that a 1.3 GB fat binary is never copied,
//! or the demo library embedded in the binary.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The embedded demo: a HIP shared library (gfx90a + gfx942, CCOB v3 zstd)
/// built by `scripts/make-demo.sh` from `corpus/hip/{vecops,reduce}.hip`.
pub const DEMO: &[u8] = include_bytes!("../demo/libdemo.so");
/// Name shown for the embedded demo.
pub const DEMO_NAME: &str = "<embedded demo: libdemo.so (corpus/hip/vecops.hip + reduce.hip)>";

/// Bytes of an input file, mapped or embedded.
pub enum Input {
    /// A read-only private mapping of a file.
    Mapped(memmap2::Mmap, PathBuf),
    /// Bytes compiled into the binary.
    Embedded(&'static [u8], &'static str),
}

impl Input {
    /// Opens and maps `path`.
    pub fn open(path: &Path) -> Result<Input> {
        let file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        let meta = file
            .metadata()
            .with_context(|| format!("cannot stat {}", path.display()))?;
        if meta.is_dir() {
            anyhow::bail!("{} is a directory, not a file", path.display());
        }
        let len = meta.len();
        if len == 0 {
            anyhow::bail!("{} is empty", path.display());
        }
        // SAFETY: the mapping is read-only and private. Lathe never writes
        // the file; if another process truncates it while we read, the OS may
        // raise SIGBUS, the documented limit of mapping files. Every parser
        // treats the bytes as untrusted, so concurrent modification can only
        // produce parse errors, not memory unsafety in safe code.
        let map = unsafe { memmap2::Mmap::map(&file) }
            .with_context(|| format!("cannot map {}", path.display()))?;
        Ok(Input::Mapped(map, path.to_path_buf()))
    }

    /// The file named by `path`, or the embedded demo when `None`.
    pub fn open_or_demo(path: Option<&Path>) -> Result<Input> {
        match path {
            Some(p) => Input::open(p),
            None => Ok(Input::Embedded(DEMO, DEMO_NAME)),
        }
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Input::Mapped(m, _) => m,
            Input::Embedded(b, _) => b,
        }
    }

    /// A name for messages.
    pub fn name(&self) -> String {
        match self {
            Input::Mapped(_, p) => p.display().to_string(),
            Input::Embedded(_, n) => (*n).to_string(),
        }
    }
}

/// A word for a file kind, for messages (never a Rust name).
pub fn kind_word(k: lathe_bundle::FileKind) -> &'static str {
    use lathe_bundle::FileKind;
    match k {
        FileKind::Bundle => "offload bundle",
        FileKind::Compressed => "compressed offload bundle (CCOB)",
        FileKind::CodeObject => "AMDGPU code object",
        FileKind::HostElf => "host ELF",
        _ => "unrecognised file",
    }
}

/// The same word in JSON: `bundle`, `ccob`, `code_object`, `host_elf`, `unknown`.
pub fn kind_key(k: lathe_bundle::FileKind) -> &'static str {
    use lathe_bundle::FileKind;
    match k {
        FileKind::Bundle => "bundle",
        FileKind::Compressed => "ccob",
        FileKind::CodeObject => "code_object",
        FileKind::HostElf => "host_elf",
        _ => "unknown",
    }
}

/// Fails with one message, shared by every command, when `input` is
/// neither an ELF file, an offload bundle nor a CCOB.
pub fn ensure_known(input: &Input) -> Result<()> {
    if lathe_bundle::classify(input.bytes()) == lathe_bundle::FileKind::Unknown {
        let b = input.bytes();
        anyhow::bail!(
            "{}: not an ELF file, offload bundle or CCOB (first bytes {})",
            input.name(),
            b[..b.len().min(8)]
                .iter()
                .map(|x| format!("{x:02x}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
    Ok(())
}

//! A host-side session: device memory, an executable loaded for one agent,
//! and kernel launches with arguments laid out by the kernel's metadata —
//! what `lathe run` and the tests drive.

use lathe_bundle::TargetId;
use lathe_codeobj::kd::KdArch;
use lathe_codeobj::CodeObject;
use lathe_codeobj::KernelMetadata;
use lathe_isa::Target;
use lathe_loader::{Executable, LoadedSymbol};

use crate::dispatch::{fill_hidden_args, ArgSlot, Geometry, HiddenValues};
use crate::interp::{PRIVATE_APERTURE, SHARED_APERTURE};
use crate::launch::{write_explicit_args, Arg, LaunchError, Param};
use crate::mem::{DeviceMemory, MemError, RegionKind};
use crate::record::Recorder;
use crate::run::{dispatch, dispatch_recorded, DispatchError, Launch, Options, Report};

/// Session errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// The agent is not an emulated target.
    #[error("agent {0}: {1}")]
    Target(String, lathe_isa::TargetError),
    /// The agent's ISA is decoded but not emulated (GFX11+).
    #[error(
        "agent {0}: {1} code can be disassembled but not run yet; the emulator runs GFX9 wave64 code (gfx90a, gfx942, gfx950, D42) and GFX10 wave32 and wave64 code (gfx1030, D65)"
    )]
    NotEmulated(String, String),
    /// Loading failed.
    #[error(transparent)]
    Load(#[from] lathe_loader::Error),
    /// No kernel matches the pattern, or several do.
    #[error(transparent)]
    NoKernel(#[from] lathe_codeobj::names::NameError),
    /// The kernel's code object has no metadata for it.
    #[error("kernel {0}: no metadata (arguments unknown)")]
    NoMetadata(String),
    /// Bad arguments.
    #[error(transparent)]
    Launch(#[from] LaunchError),
    /// Memory.
    #[error(transparent)]
    Memory(#[from] MemError),
    /// The dispatch failed.
    #[error(transparent)]
    Dispatch(#[from] DispatchError),
    /// Grid.
    #[error(transparent)]
    Geometry(#[from] crate::dispatch::GeometryError),
}

/// A device buffer made for a buffer argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BufferOut {
    /// Argument name.
    pub name: String,
    /// Device address.
    pub addr: u64,
    /// Size.
    pub size: u64,
    /// Output path, if the argument asked for one.
    pub output: Option<String>,
}

/// Grid, work-group and dynamic LDS of a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    /// Grid size in work-items (unused dimensions 1).
    pub grid: [u32; 3],
    /// Work-group size.
    pub block: [u32; 3],
    /// Dimensions (1–3).
    pub dims: u32,
    /// Dynamic LDS bytes.
    pub dynamic_lds: u32,
}

impl Shape {
    /// A 1-D launch.
    pub fn linear(grid: u32, block: u32) -> Shape {
        Shape {
            grid: [grid, 1, 1],
            block: [block, 1, 1],
            dims: 1,
            dynamic_lds: 0,
        }
    }
}

/// Device memory plus a frozen executable for one agent.
#[derive(Debug)]
pub struct Session {
    /// Device memory.
    pub mem: DeviceMemory,
    /// The executable.
    pub exe: Executable,
    /// ISA target.
    pub target: Target,
    /// Descriptor decoding facts for the agent.
    pub arch: KdArch,
}

impl Session {
    /// Loads `code_objects` (in any order) for `agent` and freezes.
    pub fn load(agent: TargetId, code_objects: &[&[u8]]) -> Result<Session, SessionError> {
        let target = Target::from_name(agent.processor.name())
            .map_err(|e| SessionError::Target(agent.to_string(), e))?;
        let family = agent.processor.family();
        if !crate::dispatch::EMULATED.iter().any(|(f, _)| *f == family) {
            return Err(SessionError::NotEmulated(
                agent.to_string(),
                target.name().to_string(),
            ));
        }
        let mem = DeviceMemory::new();
        let mut exe = Executable::new(agent);
        for co in code_objects {
            exe.load(&mem, co)?;
        }
        exe.freeze(&mem)?;
        // HIP `__managed__` variables: the device symbol `x` is a pointer the
        // runtime sets to the variable's storage. Without a host runtime,
        // point it at the code object's own storage `x.managed`.
        for lco in exe.code_objects() {
            let Ok(co) = CodeObject::parse(&lco.storage) else {
                continue;
            };
            let Ok(syms) = co.symbols() else { continue };
            for m in syms.managed_variables() {
                let ptr = lco.device_address(m.pointer.value);
                let storage = lco.device_address(m.storage.value);
                let _ = mem.view().store_u64(ptr, storage);
            }
        }
        Ok(Session {
            mem,
            exe,
            target,
            arch: KdArch::for_processor(agent.processor),
        })
    }

    /// Allocates device memory holding `bytes` (at least 4 bytes).
    pub fn upload(&self, bytes: &[u8]) -> Result<u64, MemError> {
        let a = self
            .mem
            .allocate(bytes.len().max(4) as u64, 256, RegionKind::Device)?;
        if !bytes.is_empty() {
            let _ = self.mem.view().write_bytes(a, bytes);
        }
        Ok(a)
    }

    /// Reads `len` bytes of device memory.
    pub fn download(&self, addr: u64, len: u64) -> Result<Vec<u8>, crate::mem::Fault> {
        let mut v = vec![0u8; len as usize];
        self.mem.view().read_bytes(addr, &mut v)?;
        Ok(v)
    }

    /// The loaded kernel `pattern` selects ([`lathe_codeobj::names`]) and
    /// its metadata.
    pub fn kernel_metadata(
        &self,
        pattern: &str,
    ) -> Result<(&LoadedSymbol, KernelMetadata<'_>), SessionError> {
        let sym = self.exe.find_kernel(pattern)?;
        let co_bytes = &self.exe.code_objects()[sym.code_object.unwrap_or(0)].storage;
        let co = CodeObject::parse(co_bytes).map_err(|e| lathe_loader::Error::CodeObject {
            index: 0,
            source: e,
        })?;
        let md = co
            .metadata()
            .ok()
            .flatten()
            .and_then(|m| {
                m.kernel_by_symbol(&format!("{}.kd", sym.name))
                    .cloned()
                    .or_else(|| m.kernel(&sym.name).cloned())
            })
            .ok_or_else(|| SessionError::NoMetadata(sym.name.clone()))?;
        Ok((sym, md))
    }

    /// Launches `kernel` with `args` (buffers are allocated and filled);
    /// returns the report and the buffers.
    pub fn launch(
        &self,
        kernel: &str,
        shape: Shape,
        args: &[Arg],
        opts: &Options,
    ) -> Result<(Report, Vec<BufferOut>), SessionError> {
        let mut pool = Vec::new();
        let r = self.launch_in(kernel, shape, args, opts, &mut pool, &mut |_| {})?;
        Ok((r, pool))
    }

    /// [`Session::launch`] with ground-truth recording: also returns the
    /// per-PC execution counts ([`crate::record`]).
    pub fn launch_recorded(
        &self,
        kernel: &str,
        shape: Shape,
        args: &[Arg],
        opts: &Options,
    ) -> Result<(Report, Vec<BufferOut>, Recorder), SessionError> {
        let mut pool = Vec::new();
        let (r, rec) = self.launch_impl(kernel, shape, args, opts, &mut pool, &mut |_| {}, true)?;
        Ok((r, pool, rec.unwrap_or_default()))
    }

    /// Launches `kernel` with buffers kept in `pool`: new buffer arguments
    /// are allocated, filled and appended to it (also when the launch then
    /// fails, so their contents can still be read), and [`Arg::Shared`]
    /// arguments take the pool's buffer of that name. `filled` is called
    /// with the bytes written so far while large buffers are filled.
    pub fn launch_in(
        &self,
        kernel: &str,
        shape: Shape,
        args: &[Arg],
        opts: &Options,
        pool: &mut Vec<BufferOut>,
        filled: &mut dyn FnMut(u64),
    ) -> Result<Report, SessionError> {
        self.launch_impl(kernel, shape, args, opts, pool, filled, false)
            .map(|(r, _)| r)
    }

    #[allow(clippy::too_many_arguments)]
    fn launch_impl(
        &self,
        kernel: &str,
        shape: Shape,
        args: &[Arg],
        opts: &Options,
        pool: &mut Vec<BufferOut>,
        filled: &mut dyn FnMut(u64),
        record: bool,
    ) -> Result<(Report, Option<Recorder>), SessionError> {
        let Shape {
            grid,
            block,
            dims,
            dynamic_lds,
        } = shape;
        let (sym, md) = self.kernel_metadata(kernel)?;
        let info = sym
            .kernel
            .ok_or_else(|| SessionError::NoMetadata(sym.name.clone()))?;
        // One address per buffer argument, in argument order.
        let mut addrs = Vec::new();
        let mut done = 0u64;
        for (index, a) in args.iter().enumerate() {
            match a {
                Arg::Buffer {
                    name,
                    size,
                    fill,
                    output,
                } => {
                    // Allocate first (a size the host cannot back is an
                    // error, not an abort), then fill in place.
                    let addr = self.mem.allocate((*size).max(4), 256, RegionKind::Device)?;
                    let mut view = self.mem.view();
                    fill.generate(*size, |off, bytes| {
                        let _ = view.write_bytes(addr + off, bytes);
                        filled(done + off + bytes.len() as u64);
                    });
                    done += size;
                    addrs.push(addr);
                    pool.push(BufferOut {
                        name: name.clone(),
                        addr,
                        size: *size,
                        output: output.clone(),
                    });
                }
                Arg::Shared { name } => {
                    let b = pool.iter().rev().find(|b| &b.name == name).ok_or_else(|| {
                        LaunchError::BadArg {
                            index,
                            why: format!(
                                "no earlier buffer named {name} (a buffer with only a name reuses one from an earlier launch)"
                            ),
                        }
                    })?;
                    addrs.push(b.addr);
                }
                _ => {}
            }
        }
        let params: Vec<Param<'_>> = md
            .args
            .iter()
            .filter(|p| !p.value_kind.is_hidden())
            .map(|p| Param {
                kind: p.value_kind.as_str(),
                offset: p.offset,
                size: p.size,
            })
            .collect();
        let mut kernarg = vec![
            0u8;
            (info.kernarg_size as usize)
                .max(md.kernarg_segment_size as usize)
                .max(4)
        ];
        write_explicit_args(&sym.name, &params, args, &addrs, &mut kernarg)?;
        let geometry = Geometry::new(grid, block, dims)?;
        let slots: Vec<ArgSlot<'_>> = md
            .args
            .iter()
            .map(|p| ArgSlot {
                kind: p.value_kind.as_str(),
                offset: p.offset,
                size: p.size,
            })
            .collect();
        fill_hidden_args(
            &mut kernarg,
            &slots,
            &geometry,
            &HiddenValues {
                dynamic_lds_size: dynamic_lds,
                private_base: (PRIVATE_APERTURE >> 32) as u32,
                shared_base: (SHARED_APERTURE >> 32) as u32,
                ..Default::default()
            },
        );
        // Compilers widen scalar kernarg loads up to the segment's alignment
        // (an s_load_dwordx4 may read past the last argument), and runtimes
        // allocate kernarg memory in aligned chunks: pad to 64 bytes.
        let ka_len = (kernarg.len() as u64).next_multiple_of(64);
        let ka = self.mem.allocate(ka_len, 64, RegionKind::Kernarg)?;
        let _ = self.mem.view().write_bytes(ka, &kernarg);
        let launch = Launch {
            name: &sym.name,
            kernel: &info,
            geometry,
            kernarg: ka,
            dynamic_lds,
        };
        let r = if record {
            dispatch_recorded(&self.mem, self.target, self.arch, &launch, opts)
                .map(|(r, rec)| (r, Some(rec)))
        } else {
            dispatch(&self.mem, self.target, self.arch, &launch, opts).map(|r| (r, None))
        };
        let _ = self.mem.free(ka);
        Ok(r?)
    }
}

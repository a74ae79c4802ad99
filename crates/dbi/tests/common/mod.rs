//! Helpers shared by the corpus tests.
#![allow(dead_code)]

use lathe_cases::{Case, Value};
use lathe_emu::launch::{Arg, Fill};
use lathe_emu::session::{Session, Shape};

pub fn args_of(case: &Case) -> Vec<Arg> {
    case.args
        .iter()
        .map(|a| match &a.value {
            Value::Buffer { bytes, .. } => Arg::Buffer {
                name: a.name.into(),
                size: bytes.len() as u64,
                fill: Fill::Bytes(bytes.clone()),
                output: None,
            },
            v => {
                let (ty, bytes) = v.scalar().expect("a by-value argument");
                Arg::Scalar {
                    ty: ty.into(),
                    bytes,
                }
            }
        })
        .collect()
}

pub fn shape_of(case: &Case) -> Shape {
    Shape {
        grid: case.grid,
        block: case.block,
        dims: case.dims(),
        dynamic_lds: case.dyn_lds,
    }
}

pub fn outputs(s: &Session, case: &Case, bufs: &[lathe_emu::session::BufferOut]) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = bufs
        .iter()
        .map(|b| s.download(b.addr, b.size).expect("read back"))
        .collect();
    for g in &case.globals {
        if let Some(sym) = s.exe.symbol(g.symbol) {
            let mut addr = sym.address;
            if g.managed {
                let p = s.download(addr, 8).expect("pointer");
                addr = u64::from_le_bytes(p.try_into().expect("8"));
            }
            v.push(s.download(addr, g.size as u64).expect("global"));
        }
    }
    v
}

/// One run of an instrumented code object.
pub struct RunOut {
    /// The probe-data buffer after the run.
    pub data: Vec<u8>,
    /// Output buffers and globals ([`outputs`]).
    pub outputs: Vec<Vec<u8>>,
    /// Waves run.
    pub waves: u64,
    /// Wave-instructions executed (probes included).
    pub wave_instructions: u64,
}

/// Loads `out` (with a zeroed probe-data buffer), runs `kernel` with the
/// case's arguments (waitcnt check on) and reads everything back.
pub fn run_instrumented(
    agent: lathe_bundle::TargetId,
    out: &lathe_dbi::rewrite::Instrumented,
    case: &Case,
    kernel: &str,
) -> Result<RunOut, String> {
    let session = Session::load(agent, &[&out.code_object]).map_err(|e| e.to_string())?;
    let var = session
        .exe
        .symbol(lathe_dbi::elfout::DATA_SYMBOL)
        .ok_or("no data symbol")?
        .address;
    let buf = session
        .upload(&vec![0u8; out.data_size as usize])
        .map_err(|e| e.to_string())?;
    session
        .mem
        .view()
        .store_u64(var, buf)
        .map_err(|e| e.to_string())?;
    let opts = lathe_emu::run::Options {
        threads: 1,
        ..Default::default()
    };
    let (rep, bufs) = session
        .launch(kernel, shape_of(case), &args_of(case), &opts)
        .map_err(|e| e.to_string())?;
    let data = session
        .download(buf, out.data_size)
        .map_err(|e| e.to_string())?;
    Ok(RunOut {
        data,
        outputs: outputs(&session, case, &bufs),
        waves: rep.waves,
        wave_instructions: rep.wave_instructions,
    })
}

/// `llvm-readelf -a` and `llvm-objdump -d` accept `bytes` without
/// warnings.
pub fn llvm_accepts(bytes: &[u8], target: &str, name: &str) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("lathe-dbi-llvm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let path = dir.join(format!("{name}.co"));
    std::fs::write(&path, bytes).map_err(|e| e.to_string())?;
    let mcpu = format!("--mcpu={target}");
    for (tool, args) in [
        ("llvm-readelf", vec!["-a"]),
        ("llvm-objdump", vec!["-d", mcpu.as_str()]),
    ] {
        let out = std::process::Command::new(lathe_testkit::llvm_tool(tool))
            .args(&args)
            .arg(&path)
            .output()
            .map_err(|e| e.to_string())?;
        let err = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() || err.contains("warning") {
            return Err(format!("{tool}: {err}"));
        }
    }
    let _ = std::fs::remove_file(&path);
    Ok(())
}

/// A probe using its scratch area ([`lathe_dbi::scratch`]): the writer
/// stores K per lane at kernel entry through `scratch_*` (and K + 1 through
/// the MUBUF descriptor on gfx90a); the reader loads lane 0's values back
/// and adds them to its slot's two counters.
pub mod roundtrip {
    use std::sync::Arc;

    use lathe_dbi::rewrite::{
        self, atomic_add_x2, build as inst, exec_one, exec_restore, waitcnt, Probe, ProbeCx,
        Request, Selector, Where,
    };
    use lathe_dbi::scratch::ScratchCx;
    use lathe_isa::{BuildError, Instruction, Modifiers, Opcode, Operand, RegRange};

    /// The value the writer stores (and K + 1 through MUBUF).
    pub const K: u32 = 0x1234;

    fn s(n: u16, c: u8) -> Operand {
        Operand::Reg(RegRange::sgpr(n, c))
    }
    fn v(n: u16) -> Operand {
        Operand::Reg(RegRange::vgpr(n, 1))
    }

    /// Writes K (flat scratch) and K + 1 (MUBUF, gfx90a) to the area at
    /// kernel entry; reads lane 0's values back before `s_endpgm` and adds
    /// them to the slot's two counters.
    #[derive(Debug)]
    pub struct RoundTrip {
        /// Writer (kernel entry) or reader.
        pub entry: bool,
    }

    /// `op v[data], off, s[rsrc:rsrc+3], s[soff] offset:4`.
    fn mubuf(
        cx: &ProbeCx<'_>,
        op: Opcode,
        data: u16,
        rsrc: u16,
        soff: u16,
    ) -> Result<Instruction, BuildError> {
        let mut m = Modifiers::default();
        m.offset = 4;
        rewrite::build_m(
            cx.target,
            op,
            &m,
            &[v(data), Operand::Off, s(rsrc, 4), s(soff, 1)],
        )
    }

    impl Probe for RoundTrip {
        fn slot_bytes(&self) -> u32 {
            16
        }
        fn scratch_bytes(&self) -> u32 {
            8
        }
        fn emit(&self, cx: &ProbeCx<'_>, out: &mut Vec<Instruction>) -> Result<(), BuildError> {
            let (t, r) = (cx.target, cx.regs);
            let sc = cx.scratch.expect("the rewriter passes scratch");
            assert_eq!(sc.bytes, 8);
            assert_eq!(sc.architected, sc.rsrc.is_none());
            // Requests' regions are laid out in request order, 16-byte
            // rounded: the reader (second request) reads the writer's.
            let area = if self.entry { sc.area } else { sc.area - 16 };
            out.push(inst(
                t,
                Opcode::S_MOV_B32,
                &[s(r.tmp, 1), Operand::Literal(area)],
            )?);
            // The buffer descriptor's offsets are wave-scaled: the region
            // starts at area * 64 (what a callee would get in s32).
            let wave_scaled = ScratchCx { area, ..sc }.stack_pointer();
            out.push(inst(
                t,
                Opcode::S_MOV_B32,
                &[s(r.t2, 1), Operand::Literal(wave_scaled)],
            )?);
            if self.entry {
                out.push(inst(
                    t,
                    Opcode::V_MOV_B32_E32,
                    &[v(r.vtmp), Operand::Literal(K)],
                )?);
                out.push(lathe_dbi::scratch::store_dword(t, r.vtmp, r.tmp, 0)?);
                if let Some(q) = sc.rsrc {
                    out.push(inst(
                        t,
                        Opcode::V_MOV_B32_E32,
                        &[v(r.vtmp), Operand::Literal(K + 1)],
                    )?);
                    out.push(mubuf(cx, Opcode::BUFFER_STORE_DWORD, r.vtmp, q, r.t2)?);
                }
                return Ok(());
            }
            exec_one(t, r, out)?;
            out.push(lathe_dbi::scratch::load_dword(t, r.vaux, r.tmp, 0)?);
            out.push(inst(
                t,
                Opcode::V_MOV_B32_E32,
                &[v(r.vaux + 1), Operand::Int(0)],
            )?);
            out.push(inst(
                t,
                Opcode::V_MOV_B32_E32,
                &[v(r.vaux + 3), Operand::Int(0)],
            )?);
            if let Some(q) = sc.rsrc {
                out.push(mubuf(cx, Opcode::BUFFER_LOAD_DWORD, r.vaux + 2, q, r.t2)?);
            } else {
                out.push(inst(
                    t,
                    Opcode::V_MOV_B32_E32,
                    &[v(r.vaux + 2), Operand::Literal(K + 1)],
                )?);
            }
            out.push(waitcnt(t, 0, 15)?);
            let (va, off) = (r.voff, cx.slot as i32);
            out.push(atomic_add_x2(t, r, va, r.vaux, off)?);
            out.push(atomic_add_x2(t, r, va, r.vaux + 2, off + 8)?);
            exec_restore(t, r, out)
        }
    }

    /// The writer at kernel entry and the reader before every `s_endpgm`.
    pub fn requests(kernel: &str) -> Vec<Request> {
        requests_at(kernel, Where::BeforeEndpgm, None)
    }

    /// The writer at kernel entry and the reader at `at` (instructions whose
    /// opcode matches `opcode`).
    pub fn requests_at(kernel: &str, at: Where, opcode: Option<&str>) -> Vec<Request> {
        let sel = Selector {
            kernel: Some(regex::Regex::new(&format!("^{}$", regex::escape(kernel))).expect("re")),
            ..Default::default()
        };
        vec![
            Request {
                select: sel.clone(),
                at: Where::KernelEntry,
                probe: Arc::new(RoundTrip { entry: true }),
            },
            Request {
                select: Selector {
                    opcode: opcode.map(|o| regex::Regex::new(o).expect("re")),
                    ..sel
                },
                at,
                probe: Arc::new(RoundTrip { entry: false }),
            },
        ]
    }
}

/// `tests/hip/<src>` as a `-fgpu-rdc` object with default visibility,
/// built by clang-22 and linked alone into a shared code object (cached).
pub fn hip_shared(src: &str, target: &str) -> Vec<u8> {
    use std::hash::{Hash, Hasher};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/hip")
        .join(src);
    let text = std::fs::read(&path).expect("source");
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (text, target).hash(&mut h);
    let stem = lathe_testkit::cache_dir().join(format!(
        "dbi-{}-{target}-{:016x}",
        src.trim_end_matches(".hip"),
        h.finish()
    ));
    let co = stem.with_extension("co");
    if !co.exists() {
        let o = lathe_testkit::tmp_beside(&stem.with_extension("o"));
        lathe_testkit::run(
            std::process::Command::new(lathe_testkit::llvm_tool("clang++"))
                .args(["-x", "hip", "-nogpuinc", "-nogpulib", "-O3", "-fgpu-rdc"])
                .args([
                    "-fvisibility=default",
                    "--cuda-device-only",
                    "--no-gpu-bundle-output",
                ])
                .args(["-c", "-Xclang", "-emit-obj"])
                .arg(format!("--offload-arch={target}"))
                .arg("-I")
                .arg(lathe_testkit::workspace_root().join("corpus/include"))
                .arg(&path)
                .arg("-o")
                .arg(&o),
        );
        let tmp = lathe_testkit::tmp_beside(&co);
        lathe_testkit::run(
            std::process::Command::new(lathe_testkit::llvm_tool("ld.lld"))
                .arg("-shared")
                .arg(&o)
                .arg("-o")
                .arg(&tmp),
        );
        std::fs::rename(&tmp, &co).expect("rename");
    }
    std::fs::read(co).expect("code object")
}

/// Checks every site's counters (requests of [`lathe_dbi::tools::requests_from_bytes`]:
/// a wave counter at the slot and, for 16-byte slots, an active-lane
/// counter after it) against the emulator's per-PC recording of the very
/// same run (`per_pc`, keyed by the instrumented code's device addresses,
/// mapped back through `new_of`): a probe before an instruction runs as
/// often as it does, with the same lanes; one after an instruction that
/// falls through (not a branch) as often, with its lanes unless it writes
/// EXEC; one after a conditional branch at most as often; a kernel-entry
/// probe once per wave of `kernel` (the kernel launched; other kernels'
/// probes never run). Returns the number of counters checked.
#[allow(clippy::too_many_arguments)]
pub fn check_site_counts(
    out: &lathe_dbi::rewrite::Instrumented,
    reqs: &[lathe_dbi::rewrite::Request],
    program: &lathe_dbi::Program,
    live: &lathe_dbi::Liveness,
    per_pc: &std::collections::HashMap<u64, lathe_emu::record::PcCount>,
    device_address: impl Fn(u64) -> u64,
    kernel: &str,
    waves: u64,
    data: &[u8],
) -> Result<usize, String> {
    use lathe_dbi::rewrite::Where;
    let new_of: std::collections::HashMap<u64, u64> =
        out.addr_map.iter().map(|(n, o)| (*o, *n)).collect();
    let at = |o: u32| -> Result<u64, String> {
        data.get(o as usize..o as usize + 8)
            .map(|b| u64::from_le_bytes(b.try_into().expect("8")))
            .ok_or_else(|| format!("slot {o} outside the probe data"))
    };
    let mut checked = 0;
    for s in &out.sites {
        let lanes = reqs[s.request].probe.slot_bytes() == 16;
        let new = new_of.get(&s.pc).ok_or("site pc not mapped")?;
        let gt = per_pc
            .get(&device_address(*new))
            .copied()
            .unwrap_or_default();
        let f = &program.functions[s.function_index];
        let inst = &f.insts[s.inst_index].inst;
        let writes_exec =
            lathe_dbi::live::writes_exec(&live.functions[s.function_index].effects[s.inst_index]);
        let post = match s.at {
            Where::After => true,
            Where::BlockExit => !inst.is_terminator(),
            _ => false,
        };
        let (w, l) = (
            at(s.slot)?,
            if lanes { Some(at(s.slot + 8)?) } else { None },
        );
        let what = format!("site {} ({:?} {:#x} {})", s.id, s.at, s.pc, s.inst);
        let (want_w, want_l) = match s.at {
            Where::KernelEntry if s.function == kernel => {
                (Some(waves), (gt.waves == waves).then_some(gt.lanes))
            }
            _ if post && inst.is_cond_branch() => {
                if w > gt.waves {
                    return Err(format!(
                        "{what}: {w} waves after a branch run {} times",
                        gt.waves
                    ));
                }
                (None, None)
            }
            _ if post => (Some(gt.waves), (!writes_exec).then_some(gt.lanes)),
            _ => (Some(gt.waves), Some(gt.lanes)),
        };
        if let Some(ww) = want_w {
            if w != ww {
                return Err(format!("{what}: {w} waves, ground truth {ww}"));
            }
            checked += 1;
        }
        if let (Some(l), Some(wl)) = (l, want_l) {
            if l != wl {
                return Err(format!("{what}: {l} lanes, ground truth {wl}"));
            }
            checked += 1;
        }
    }
    Ok(checked)
}

/// Checks a `block-count` result against the ground truth (executions of
/// each block's first instruction, by original PC): every block of every
/// function `kernel` reaches in the CFG and call graph must be reported
/// (a block left out fails), each with the ground truth's count, and no
/// block twice.
pub fn check_block_counts(
    r: &serde_json::Value,
    program: &lathe_dbi::Program,
    kernel: &str,
    gt: &std::collections::BTreeMap<u64, lathe_emu::record::PcCount>,
) -> Result<(), String> {
    let mut reported = std::collections::BTreeMap::new();
    for blk in r["blocks"].as_array().ok_or("no blocks")? {
        let start = blk["start"].as_u64().ok_or("start")?;
        let count = blk["count"].as_u64().ok_or("count")?;
        if reported.insert(start, count).is_some() {
            return Err(format!("block at {start:#x} reported twice"));
        }
    }
    let kfi = program.function(kernel).ok_or("kernel not lifted")?;
    let mut expected = 0;
    for fi in lathe_dbi::cfg::reachable(program, kfi) {
        let f = &program.functions[fi];
        for blk in &f.blocks {
            let start = f.insts[blk.start].addr;
            let want = gt.get(&start).map_or(0, |c| c.waves);
            match reported.get(&start) {
                None => return Err(format!("block at {start:#x} of {} missing", f.name)),
                Some(&got) if got != want => {
                    return Err(format!("block at {start:#x}: {got} vs ground truth {want}"))
                }
                Some(_) => expected += 1,
            }
        }
    }
    if expected == 0 {
        return Err("no block to check".into());
    }
    Ok(())
}

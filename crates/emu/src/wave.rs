//! Wave state and the work-group scheduler.
//!
//! A [`Wave`] holds one wave64's architectural state: SGPRs, VGPRs and AGPRs
//! (64 lanes each), EXEC, VCC, SCC, M0, the program counter, MODE and the
//! flat-scratch base. A work-group's waves share LDS ([`Workgroup`]) and run
//! on one host thread: the scheduler steps each wave until it ends, reaches
//! `s_barrier`, or stops; when every live wave waits at the barrier, all are
//! released. Work-groups are independent and may run on different threads.
//!
//! What one instruction does is not decided here: the scheduler calls a
//! [`Step`] implementation (the interpreter) for each instruction.

/// Lanes per wave.
pub const LANES: usize = 64;
/// Lanes per wave as data (D42): wave64 on GFX9, wave32 or wave64 on
/// GFX10+ as the kernel descriptor says. Dispatch set-up
/// ([`crate::dispatch::WavePlan`]) sizes waves and their initial EXEC by
/// it, and each [`Wave`] carries it ([`Wave::size`]): a wave32 wave keeps
/// its register files 64 lanes wide but EXEC's high half zero, so every
/// lane loop leaves lanes 32–63 alone, and its lane masks are one SGPR
/// (D65).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WaveSize {
    /// 32 lanes: lane masks are one SGPR (EXEC_LO, VCC_LO).
    W32,
    /// 64 lanes: lane masks are SGPR pairs.
    W64,
}

impl WaveSize {
    /// The size for `lanes` (32 or 64).
    pub fn from_lanes(lanes: u32) -> Option<WaveSize> {
        match lanes {
            32 => Some(WaveSize::W32),
            64 => Some(WaveSize::W64),
            _ => None,
        }
    }

    /// Lanes per wave.
    #[inline]
    pub fn lanes(self) -> u32 {
        match self {
            WaveSize::W32 => 32,
            WaveSize::W64 => 64,
        }
    }

    /// Every lane of the wave as a mask (the high half is zero in wave32).
    #[inline]
    pub fn full_mask(self) -> u64 {
        match self {
            WaveSize::W32 => u64::from(u32::MAX),
            WaveSize::W64 => u64::MAX,
        }
    }

    /// The first `active` lanes as a mask (all of them when `active` is
    /// the wave size or more).
    #[inline]
    pub fn first_lanes(self, active: u32) -> u64 {
        if active >= self.lanes() {
            self.full_mask()
        } else {
            (1u64 << active) - 1
        }
    }

    /// A lane mask read from its registers: wave32 reads the low one only
    /// (EXEC_LO, VCC_LO), wave64 the pair.
    #[inline]
    pub fn read_mask(self, lo: u32, hi: u32) -> u64 {
        match self {
            WaveSize::W32 => u64::from(lo),
            WaveSize::W64 => u64::from(lo) | u64::from(hi) << 32,
        }
    }

    /// The registers a lane mask is written to: `(lo, Some(hi))` in
    /// wave64; in wave32 `(lo, None)`, the high register left alone.
    #[inline]
    pub fn write_mask(self, v: u64) -> (u32, Option<u32>) {
        match self {
            WaveSize::W32 => (v as u32, None),
            WaveSize::W64 => (v as u32, Some((v >> 32) as u32)),
        }
    }
}

/// Addressable SGPRs s0..s101 plus the aliases the encodings use
/// (flat_scratch 102–103, xnack_mask 104–105, vcc 106–107).
pub const SGPRS: usize = 108;
/// VGPRs per lane on GFX9 (AGPRs are a separate file of the same size).
pub const VGPRS: usize = 256;
/// Interpreter temporaries after the VGPRs (SDWA/DPP operand staging).
pub const TEMPS: usize = 4;

/// One lane-vector register.
pub type VReg = [u32; LANES];

/// Why a wave is not running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaveStatus {
    /// Runnable.
    Running,
    /// Waiting at `s_barrier`.
    Barrier,
    /// Executed `s_endpgm`.
    Ended,
}

/// Architectural state of one wave (wave64 or wave32, [`Wave::size`]).
#[derive(Clone)]
pub struct Wave {
    /// Scalar registers (s0..s101 and aliases).
    pub sgpr: [u32; SGPRS],
    /// Trap temporaries ttmp0..15.
    pub ttmp: [u32; 16],
    /// Vector registers v0..v255, 64 lanes each.
    pub vgpr: Box<[VReg]>,
    /// Accumulation registers a0..a255.
    pub agpr: Box<[VReg]>,
    /// Lane mask (in wave32 the high half stays zero).
    pub exec: u64,
    /// Lanes per wave: how VCC and the lane-select operations read.
    pub size: WaveSize,
    /// Scalar condition code.
    pub scc: bool,
    /// M0.
    pub m0: u32,
    /// Address of the next instruction.
    pub pc: u64,
    /// MODE register (rounding, denormals, IEEE, DX10 clamp).
    pub mode: u32,
    /// Base of this wave's scratch (architected flat scratch, gfx942).
    pub flat_scratch: u64,
    /// Status.
    pub status: WaveStatus,
    /// Work-group ID.
    pub workgroup: [u32; 3],
    /// Index within the work-group.
    pub index: u32,
    /// Instructions executed.
    pub instructions: u64,
    /// The device's shader clock when the wave started
    /// ([`crate::clock`]); its clock reads this plus its own work.
    pub clock_base: u64,
    /// `s_set_gpr_idx_on` state: the enabled operand mask (bit 0 SRC0,
    /// 1 SRC1, 2 SRC2, 3 DST) and the index from M0.
    pub gpr_idx: Option<(u8, u32)>,
    /// Memory accesses outstanding in the hardware's sense (`s_waitcnt`).
    pub waitcnt: crate::waitcnt::Tracker,
}

impl std::fmt::Debug for Wave {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wave")
            .field("workgroup", &self.workgroup)
            .field("index", &self.index)
            .field("pc", &format_args!("{:#x}", self.pc))
            .field("exec", &format_args!("{:#018x}", self.exec))
            .field("status", &self.status)
            .finish()
    }
}

impl Wave {
    /// A wave with zeroed registers starting at `pc`, with the full
    /// register files.
    pub fn new(pc: u64, workgroup: [u32; 3], index: u32) -> Self {
        Wave::with_registers(pc, workgroup, index, VGPRS, VGPRS)
    }

    /// A wave with `vgprs` VGPRs and `agprs` AGPRs (what the kernel
    /// descriptor allocates; at most 256 each). Reads beyond them give 0 and
    /// writes are dropped, so a smaller file only saves memory. Four
    /// interpreter temporaries follow the VGPRs.
    pub fn with_registers(
        pc: u64,
        workgroup: [u32; 3],
        index: u32,
        vgprs: usize,
        agprs: usize,
    ) -> Self {
        Wave {
            sgpr: [0; SGPRS],
            ttmp: [0; 16],
            vgpr: vec![[0u32; LANES]; vgprs.min(VGPRS) + TEMPS].into_boxed_slice(),
            agpr: vec![[0u32; LANES]; agprs.min(VGPRS)].into_boxed_slice(),
            exec: 0,
            size: WaveSize::W64,
            scc: false,
            m0: 0,
            pc,
            mode: 0,
            flat_scratch: 0,
            status: WaveStatus::Running,
            workgroup,
            index,
            instructions: 0,
            clock_base: crate::clock::device_cycles(),
            gpr_idx: None,
            waitcnt: crate::waitcnt::Tracker::default(),
        }
    }

    /// Makes this wave what [`Wave::with_registers`] would build, reusing
    /// its register files when their sizes match (a dispatch starts
    /// thousands of short waves; this keeps allocation off that path).
    pub fn reset(&mut self, pc: u64, workgroup: [u32; 3], index: u32, vgprs: usize, agprs: usize) {
        let (nv, na) = (vgprs.min(VGPRS) + TEMPS, agprs.min(VGPRS));
        if self.vgpr.len() == nv && self.agpr.len() == na {
            // Every field as `with_registers` sets it.
            let Wave {
                sgpr,
                ttmp,
                vgpr,
                agpr,
                exec,
                size: _,
                scc,
                m0,
                pc: p,
                mode,
                flat_scratch,
                status,
                workgroup: g,
                index: i,
                instructions,
                clock_base,
                gpr_idx,
                waitcnt,
            } = self;
            *sgpr = [0; SGPRS];
            *ttmp = [0; 16];
            vgpr.fill([0; LANES]);
            agpr.fill([0; LANES]);
            (*exec, *scc, *m0, *p, *mode, *flat_scratch) = (0, false, 0, pc, 0, 0);
            (*status, *g, *i, *instructions) = (WaveStatus::Running, workgroup, index, 0);
            *clock_base = crate::clock::device_cycles();
            *gpr_idx = None;
            waitcnt.clear();
        } else {
            *self = Wave::with_registers(pc, workgroup, index, vgprs, agprs);
        }
    }

    /// First of the interpreter's temporary VGPRs (after the real ones).
    pub fn temp_base(&self) -> usize {
        self.vgpr.len() - TEMPS
    }

    /// VCC (s106–s107; in wave32 VCC_LO alone).
    #[inline]
    pub fn vcc(&self) -> u64 {
        self.size.read_mask(self.sgpr[106], self.sgpr[107])
    }

    /// Sets VCC (in wave32 VCC_LO alone; VCC_HI is left as it was).
    #[inline]
    pub fn set_vcc(&mut self, v: u64) {
        let (lo, hi) = self.size.write_mask(v);
        self.sgpr[106] = lo;
        if let Some(hi) = hi {
            self.sgpr[107] = hi;
        }
    }

    /// Whether lane `l` is active.
    #[inline]
    pub fn active(&self, l: usize) -> bool {
        self.exec >> l & 1 == 1
    }
}

/// What the interpreter tells the scheduler after one instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Go on with this wave.
    Continue,
    /// The wave reached `s_barrier`.
    Barrier,
    /// The wave executed `s_endpgm`.
    End,
}

/// Shared state of one work-group.
#[derive(Debug)]
pub struct Workgroup {
    /// Work-group ID.
    pub id: [u32; 3],
    /// LDS bytes (static + dynamic).
    pub lds: Vec<u8>,
    /// The waves.
    pub waves: Vec<Wave>,
}

/// Executes one instruction of a wave; implemented by the interpreter.
pub trait Step {
    /// Why execution stopped (a fault, an unsupported instruction, ...).
    type Stop;
    /// Executes the instruction at `wave.pc`.
    fn step(&mut self, wave: &mut Wave, lds: &mut [u8]) -> Result<Flow, Self::Stop>;
    /// Executes up to `max` (at least one) instructions of `wave`, counting
    /// each in `wave.instructions` before it runs, and stops after the
    /// first that does not continue (or fails). Returns how many ran and
    /// the last one's outcome. Implementations may override this with a
    /// tighter loop; the default calls [`Step::step`].
    fn run(
        &mut self,
        wave: &mut Wave,
        lds: &mut [u8],
        max: u64,
    ) -> (u64, Result<Flow, Self::Stop>) {
        let mut k = 0;
        loop {
            k += 1;
            wave.instructions += 1;
            match self.step(wave, lds) {
                Ok(Flow::Continue) if k < max => {}
                r => return (k, r),
            }
        }
    }
    /// The stop to report when the group's instruction budget runs out
    /// (an endless loop, or waves spinning on a barrier others never reach).
    fn out_of_steps(&mut self, wave: &Wave) -> Self::Stop;
    /// Every live wave of the group waits at a barrier and is about to be
    /// released (synccheck looks at who is where); nothing by default.
    fn barrier_release(&mut self, _waves: &[Wave]) {}
    /// Whether the watchdog has fired; asked once per scheduling slice.
    fn expired(&mut self) -> bool {
        false
    }
    /// The stop to report when the watchdog fires, naming every unfinished
    /// wave of the group.
    fn timed_out(&mut self, waves: &[Wave]) -> Self::Stop;
}

/// Runs every wave of `wg` to completion, honouring barriers. Each wave runs
/// until it blocks, ends or has run `slice` instructions, so waves interleave
/// as they would on hardware without one starving the others. `budget`
/// bounds the total instructions of the group; [`Step::expired`] is asked
/// before each slice, and stops the group with [`Step::timed_out`].
pub fn run_workgroup<S: Step>(
    wg: &mut Workgroup,
    step: &mut S,
    slice: u64,
    mut budget: u64,
) -> Result<(), S::Stop> {
    loop {
        for i in 0..wg.waves.len() {
            if step.expired() {
                return Err(step.timed_out(&wg.waves));
            }
            let wave = &mut wg.waves[i];
            let mut n = 0;
            while wave.status == WaveStatus::Running && n < slice {
                if budget == 0 {
                    return Err(step.out_of_steps(wave));
                }
                let (k, r) = step.run(wave, &mut wg.lds, (slice - n).min(budget));
                budget -= k;
                n += k;
                match r? {
                    Flow::Continue => {}
                    Flow::Barrier => wave.status = WaveStatus::Barrier,
                    Flow::End => wave.status = WaveStatus::Ended,
                }
            }
        }
        let waiting = wg
            .waves
            .iter()
            .filter(|w| w.status == WaveStatus::Barrier)
            .count();
        let running = wg
            .waves
            .iter()
            .filter(|w| w.status == WaveStatus::Running)
            .count();
        if running == 0 && waiting == 0 {
            return Ok(());
        }
        if running == 0 {
            // Everyone alive is at the barrier: release them. (A wave that
            // ended counts as arrived, as on hardware.)
            step.barrier_release(&wg.waves);
            for w in &mut wg.waves {
                if w.status == WaveStatus::Barrier {
                    w.status = WaveStatus::Running;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy step: each wave's program is a list of flows indexed by pc.
    struct Script(Vec<Vec<Flow>>, Vec<(u32, u64)>);

    impl Step for Script {
        type Stop = String;
        fn step(&mut self, w: &mut Wave, _lds: &mut [u8]) -> Result<Flow, String> {
            let f = self.0[w.index as usize][w.pc as usize];
            self.1.push((w.index, w.pc));
            w.pc += 1;
            Ok(f)
        }
        fn out_of_steps(&mut self, w: &Wave) -> String {
            format!("budget at wave {}", w.index)
        }
        fn expired(&mut self) -> bool {
            self.1.len() >= 1000
        }
        fn timed_out(&mut self, waves: &[Wave]) -> String {
            let at: Vec<String> = waves
                .iter()
                .filter(|w| w.status != WaveStatus::Ended)
                .map(|w| format!("{}@{}", w.index, w.pc))
                .collect();
            format!("timeout {}", at.join(" "))
        }
    }

    fn group(n: u32) -> Workgroup {
        Workgroup {
            id: [0; 3],
            lds: vec![0; 16],
            waves: (0..n).map(|i| Wave::new(0, [0; 3], i)).collect(),
        }
    }

    #[test]
    fn barrier_orders_waves() {
        use Flow::*;
        // Wave 0 reaches the barrier after 1 instruction, wave 1 after 3.
        let mut s = Script(
            vec![
                vec![Continue, Barrier, Continue, End],
                vec![Continue, Continue, Continue, Barrier, End],
            ],
            vec![],
        );
        let mut wg = group(2);
        run_workgroup(&mut wg, &mut s, 1000, 1000).expect("runs");
        // No instruction after a barrier runs before both waves reached it.
        let first_after =
            s.1.iter()
                .position(|&(w, pc)| (w == 0 && pc == 2) || (w == 1 && pc == 4))
                .expect("after");
        let last_before =
            s.1.iter()
                .rposition(|&(w, pc)| (w == 0 && pc <= 1) || (w == 1 && pc <= 3))
                .expect("before");
        assert!(last_before < first_after, "{:?}", s.1);
        assert!(wg.waves.iter().all(|w| w.status == WaveStatus::Ended));
        assert_eq!(wg.waves[1].instructions, 5);
    }

    #[test]
    fn budget_and_ended_waves() {
        use Flow::*;
        let mut s = Script(vec![vec![Continue; 100]], vec![]);
        let mut wg = group(1);
        assert_eq!(
            run_workgroup(&mut wg, &mut s, 8, 50),
            Err("budget at wave 0".to_string())
        );
        // An ended wave counts as arrived at later barriers.
        let mut s = Script(vec![vec![End], vec![Barrier, End]], vec![]);
        let mut wg = group(2);
        run_workgroup(&mut wg, &mut s, 8, 50).expect("no deadlock");
        // A wave spinning while another waits at a barrier exhausts the budget.
        let mut s = Script(vec![vec![Barrier, End], vec![Continue; 200]], vec![]);
        let mut wg = group(2);
        assert_eq!(
            run_workgroup(&mut wg, &mut s, 8, 100),
            Err("budget at wave 1".to_string())
        );
    }

    #[test]
    fn watchdog_names_unfinished_waves() {
        use Flow::*;
        // Wave 0 ends at once; wave 1 loops (pc 1 jumps back to 1 forever
        // is modelled by a long run of Continue); the script's watchdog
        // fires after 1000 steps, within budget.
        let mut s = Script(vec![vec![End], vec![Continue; 5000]], vec![]);
        let mut wg = group(2);
        let got = run_workgroup(&mut wg, &mut s, 8, 1 << 20).expect_err("watchdog");
        assert_eq!(got, "timeout 1@1000");
        assert_eq!(wg.waves[1].instructions, 1000);
    }
}

#[cfg(test)]
mod wave_size_tests {
    use super::WaveSize;

    #[test]
    fn masks_follow_the_wave_size() {
        assert_eq!(WaveSize::from_lanes(32), Some(WaveSize::W32));
        assert_eq!(WaveSize::from_lanes(16), None);
        assert_eq!(WaveSize::W32.full_mask(), 0xffff_ffff);
        assert_eq!(WaveSize::W64.full_mask(), u64::MAX);
        assert_eq!(WaveSize::W32.first_lanes(5), 0x1f);
        assert_eq!(WaveSize::W32.first_lanes(32), 0xffff_ffff);
        assert_eq!(WaveSize::W32.first_lanes(40), 0xffff_ffff);
        assert_eq!(WaveSize::W64.first_lanes(40), (1 << 40) - 1);
        assert_eq!(WaveSize::W64.first_lanes(64), u64::MAX);
        // EXEC_LO / VCC_LO: the high register is neither read nor written.
        assert_eq!(WaveSize::W32.read_mask(0x8000_0001, 0xdead), 0x8000_0001);
        assert_eq!(WaveSize::W64.read_mask(1, 2), 0x2_0000_0001);
        assert_eq!(WaveSize::W32.write_mask(0x7_0000_0003), (3, None));
        assert_eq!(WaveSize::W64.write_mask(0x7_0000_0003), (3, Some(7)));
    }
}

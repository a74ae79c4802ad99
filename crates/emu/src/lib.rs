//! `lathe-emu`: a functional model of an AMD GPU.
//!
//! Owns device memory ([`mem`]): allocations with bounds, registered host
//! memory, and fault reports for any access outside them. The dispatch model
//! (AQL packet, kernel descriptor, initial register state) and the wave64
//! interpreter build on it. Memory completes at issue, so [`waitcnt`]
//! tracks what the hardware would still have in flight and reports a
//! register used before its `s_waitcnt`.

pub mod alu;
pub mod check;
pub mod clock;
pub mod dispatch;
pub mod hash;
pub mod interp;
pub mod interrupt;
pub mod lanes;
pub mod launch;
pub mod mem;
pub mod mfma;
pub mod record;
pub mod run;
pub mod session;
pub mod stop_report;
pub mod waitcnt;
pub mod wave;
pub mod xlane;

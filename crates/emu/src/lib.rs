#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

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

//! The MODE register's floating-point controls.
//!
//! Layout of the architectural MODE register (hwreg 1) on GFX9/CDNA:
//!
//! | bits  | field                                              |
//! |-------|----------------------------------------------------|
//! | 1:0   | FP_ROUND, single precision                         |
//! | 3:2   | FP_ROUND, double and half precision                |
//! | 5:4   | FP_DENORM, single precision                        |
//! | 7:6   | FP_DENORM, double and half precision               |
//! | 8     | DX10_CLAMP                                         |
//! | 9     | IEEE                                               |
//!
//! Round modes: 0 nearest-even, 1 toward +inf, 2 toward -inf, 3 toward zero.
//! Denormal modes: bit 0 allows denormal *inputs* (clear: inputs are
//! flushed to a signed zero), bit 1 allows denormal *outputs* (clear:
//! results that are denormal after rounding become a signed zero). So 0
//! flushes both, 3 keeps both.
//!
//! The kernel descriptor's `COMPUTE_PGM_RSRC1` carries the same fields at
//! bits 12–19 (round and denormal modes, same order and encoding), bit 21
//! (`ENABLE_DX10_CLAMP`) and bit 23 (`ENABLE_IEEE_MODE`); the dispatcher
//! loads them into MODE when a wave starts ([`Mode::from_rsrc1_bits`]).
//!
//! Typical values: HIP/OpenCL code objects for gfx90a/gfx942 use round
//! mode 0, f64/f16 denormal mode 3, f32 denormal mode 3 (or 0 when built
//! with `-fgpu-flush-denormals-to-zero` / `-cl-denorms-are-zero`),
//! DX10_CLAMP 1 and IEEE 1.

/// IEEE rounding direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Round {
    /// Round to nearest, ties to even (encoding 0).
    #[default]
    NearestEven,
    /// Round toward +infinity (encoding 1).
    Up,
    /// Round toward -infinity (encoding 2).
    Down,
    /// Round toward zero (encoding 3).
    Zero,
}

impl Round {
    /// Decodes a 2-bit FP_ROUND field.
    #[inline]
    pub const fn from_bits(v: u32) -> Round {
        match v & 3 {
            0 => Round::NearestEven,
            1 => Round::Up,
            2 => Round::Down,
            _ => Round::Zero,
        }
    }

    /// The 2-bit FP_ROUND encoding.
    #[inline]
    pub const fn bits(self) -> u32 {
        match self {
            Round::NearestEven => 0,
            Round::Up => 1,
            Round::Down => 2,
            Round::Zero => 3,
        }
    }
}

/// Denormal handling for one precision class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Denorm {
    /// Denormal inputs are used as they are (false: flushed to signed zero).
    pub allow_in: bool,
    /// Denormal results are kept (false: flushed to signed zero).
    pub allow_out: bool,
}

impl Denorm {
    /// Keep denormals on input and output (mode 3, IEEE behaviour).
    pub const IEEE: Denorm = Denorm {
        allow_in: true,
        allow_out: true,
    };
    /// Flush denormals on input and output (mode 0).
    pub const FLUSH: Denorm = Denorm {
        allow_in: false,
        allow_out: false,
    };

    /// Decodes a 2-bit FP_DENORM field.
    #[inline]
    pub const fn from_bits(v: u32) -> Denorm {
        Denorm {
            allow_in: v & 1 != 0,
            allow_out: v & 2 != 0,
        }
    }

    /// The 2-bit FP_DENORM encoding.
    #[inline]
    pub const fn bits(self) -> u32 {
        self.allow_in as u32 | (self.allow_out as u32) << 1
    }
}

impl Default for Denorm {
    fn default() -> Self {
        Denorm::IEEE
    }
}

/// Rounding and denormal controls for one precision class, as the
/// arithmetic functions take them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct FpCtl {
    /// Rounding direction.
    pub round: Round,
    /// Denormal handling.
    pub denorm: Denorm,
}

impl FpCtl {
    /// Nearest-even rounding, denormals kept: plain IEEE 754.
    pub const IEEE: FpCtl = FpCtl {
        round: Round::NearestEven,
        denorm: Denorm::IEEE,
    };
    /// Nearest-even rounding, denormals flushed on input and output.
    pub const FTZ: FpCtl = FpCtl {
        round: Round::NearestEven,
        denorm: Denorm::FLUSH,
    };

    /// Same rounding, denormals flushed both ways (what `v_mad_f32` and the
    /// f32 transcendental units do whatever the mode says).
    #[inline]
    pub const fn flushing(self) -> FpCtl {
        FpCtl {
            round: self.round,
            denorm: Denorm::FLUSH,
        }
    }

    /// Same rounding, denormals kept both ways.
    #[inline]
    pub const fn keeping(self) -> FpCtl {
        FpCtl {
            round: self.round,
            denorm: Denorm::IEEE,
        }
    }

    /// Same denormal handling, another rounding direction.
    #[inline]
    pub const fn with_round(self, round: Round) -> FpCtl {
        FpCtl {
            round,
            denorm: self.denorm,
        }
    }
}

/// The floating-point part of the MODE register, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Mode {
    /// FP_ROUND[1:0]: single precision.
    pub round_f32: Round,
    /// FP_ROUND[3:2]: double and half precision.
    pub round_f64_f16: Round,
    /// FP_DENORM[1:0] (MODE bits 5:4): single precision.
    pub denorm_f32: Denorm,
    /// FP_DENORM[3:2] (MODE bits 7:6): double and half precision.
    pub denorm_f64_f16: Denorm,
    /// DX10_CLAMP: the clamp output modifier turns NaN into 0.
    pub dx10_clamp: bool,
    /// IEEE: min/max quiet signaling NaNs (see [`crate::alu::float`]).
    pub ieee: bool,
}

impl Default for Mode {
    /// What HIP kernels for gfx90a/gfx942 start with: nearest-even, all
    /// denormals kept, DX10_CLAMP and IEEE set.
    fn default() -> Self {
        Mode {
            round_f32: Round::NearestEven,
            round_f64_f16: Round::NearestEven,
            denorm_f32: Denorm::IEEE,
            denorm_f64_f16: Denorm::IEEE,
            dx10_clamp: true,
            ieee: true,
        }
    }
}

impl Mode {
    /// Decodes the MODE register value (bits above 9 are ignored).
    #[inline]
    pub const fn from_bits(mode: u32) -> Mode {
        Mode {
            round_f32: Round::from_bits(mode),
            round_f64_f16: Round::from_bits(mode >> 2),
            denorm_f32: Denorm::from_bits(mode >> 4),
            denorm_f64_f16: Denorm::from_bits(mode >> 6),
            dx10_clamp: mode & (1 << 8) != 0,
            ieee: mode & (1 << 9) != 0,
        }
    }

    /// The MODE register bits 9:0 for this mode.
    #[inline]
    pub const fn bits(self) -> u32 {
        self.round_f32.bits()
            | self.round_f64_f16.bits() << 2
            | self.denorm_f32.bits() << 4
            | self.denorm_f64_f16.bits() << 6
            | (self.dx10_clamp as u32) << 8
            | (self.ieee as u32) << 9
    }

    /// From the kernel descriptor fields (`COMPUTE_PGM_RSRC1`
    /// float_round_mode_32, float_round_mode_16_64, float_denorm_mode_32,
    /// float_denorm_mode_16_64, enable_dx10_clamp, enable_ieee_mode).
    #[inline]
    pub const fn from_kd(
        float_round_mode_32: u32,
        float_round_mode_16_64: u32,
        float_denorm_mode_32: u32,
        float_denorm_mode_16_64: u32,
        dx10_clamp: bool,
        ieee_mode: bool,
    ) -> Mode {
        Mode {
            round_f32: Round::from_bits(float_round_mode_32),
            round_f64_f16: Round::from_bits(float_round_mode_16_64),
            denorm_f32: Denorm::from_bits(float_denorm_mode_32),
            denorm_f64_f16: Denorm::from_bits(float_denorm_mode_16_64),
            dx10_clamp,
            ieee: ieee_mode,
        }
    }

    /// From the raw `COMPUTE_PGM_RSRC1` value (GFX6–GFX11 layout).
    #[inline]
    pub const fn from_rsrc1_bits(rsrc1: u32) -> Mode {
        Mode::from_kd(
            rsrc1 >> 12,
            rsrc1 >> 14,
            rsrc1 >> 16,
            rsrc1 >> 18,
            rsrc1 & (1 << 21) != 0,
            rsrc1 & (1 << 23) != 0,
        )
    }

    /// From a decoded kernel descriptor `COMPUTE_PGM_RSRC1` (absent DX10 and
    /// IEEE bits, as on GFX12, read as clear).
    #[inline]
    pub fn from_rsrc1(r: &lathe_codeobj::kd::Rsrc1) -> Mode {
        Mode::from_kd(
            r.float_round_mode_32,
            r.float_round_mode_16_64,
            r.float_denorm_mode_32,
            r.float_denorm_mode_16_64,
            r.enable_dx10_clamp.unwrap_or(false),
            r.enable_ieee_mode.unwrap_or(false),
        )
    }

    /// Controls for single-precision operations.
    #[inline]
    pub const fn f32(self) -> FpCtl {
        FpCtl {
            round: self.round_f32,
            denorm: self.denorm_f32,
        }
    }

    /// Controls for double-precision operations.
    #[inline]
    pub const fn f64(self) -> FpCtl {
        FpCtl {
            round: self.round_f64_f16,
            denorm: self.denorm_f64_f16,
        }
    }

    /// Controls for half-precision operations (they share the f64 fields).
    #[inline]
    pub const fn f16(self) -> FpCtl {
        self.f64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_bits_round_trip() {
        for v in 0..1024u32 {
            assert_eq!(Mode::from_bits(v).bits(), v);
        }
    }

    #[test]
    fn mode_fields() {
        // round f32 = +inf, round f64 = zero, denorm f32 = in only,
        // denorm f64 = out only, dx10 clamp, no IEEE.
        let m = Mode::from_bits(0b01_1001_1101);
        assert_eq!(m.round_f32, Round::Up);
        assert_eq!(m.round_f64_f16, Round::Zero);
        assert_eq!(
            m.denorm_f32,
            Denorm {
                allow_in: true,
                allow_out: false
            }
        );
        assert_eq!(
            m.denorm_f64_f16,
            Denorm {
                allow_in: false,
                allow_out: true
            }
        );
        assert!(m.dx10_clamp);
        assert!(!m.ieee);
    }

    #[test]
    fn rsrc1_matches_mode_layout() {
        // HIP default: denorm 3/3, dx10 clamp, ieee -> MODE 0x3f0.
        let rsrc1 = (3 << 16) | (3 << 18) | (1 << 21) | (1 << 23) | 0x3f;
        let m = Mode::from_rsrc1_bits(rsrc1);
        assert_eq!(m, Mode::default());
        assert_eq!(m.bits(), 0x3f0);
        // FTZ for f32 only.
        let m = Mode::from_rsrc1_bits((3 << 18) | (1 << 21) | (1 << 23));
        assert_eq!(m.denorm_f32, Denorm::FLUSH);
        assert_eq!(m.denorm_f64_f16, Denorm::IEEE);
        assert_eq!(m.bits(), 0x3c0);
        let m = Mode::from_kd(2, 1, 1, 2, false, true);
        assert_eq!(m.bits(), 0b10_1001_0110);
    }
}

//! Vector ALU: VOP1, VOP2, VOP3 (integer and float), VOP3P packed
//! operations and 16-bit float ops; the float MODE the handlers implement.

use super::*;

/// The MODE the float semantics implement (the HIP defaults: round to
/// nearest even, denormals kept, IEEE and DX10 clamp on). A wave whose MODE
/// differs stops at its first float instruction (see `Step::step`).
pub(super) const M: alu::Mode = alu::Mode::from_bits(0x3f0);

thread_local! {
    /// The MODE of the wave whose float instruction is executing (set by
    /// `Step::step`), for the `alu` calls in handler expressions.
    pub(super) static WAVE_MODE: std::cell::Cell<u32> = const { std::cell::Cell::new(0x3f0) };
}

/// The executing wave's MODE.
#[inline]
pub(super) fn md() -> alu::Mode {
    alu::Mode::from_bits(WAVE_MODE.with(|m| m.get()))
}

/// Denormal flushing of one precision class under a wave's MODE, for the
/// handlers that compute with host floats (round to nearest even, the
/// only rounding they are used under): flushed inputs become a signed
/// zero before the operation, flushed outputs after rounding.
#[derive(Clone, Copy)]
pub(super) struct Flush {
    pub(super) input: bool,
    pub(super) output: bool,
}

impl Flush {
    #[inline]
    pub(super) fn of(d: alu::Denorm) -> Flush {
        Flush {
            input: !d.allow_in,
            output: !d.allow_out,
        }
    }
    #[inline]
    pub(super) fn f32(mode: u32) -> Flush {
        Flush::of(alu::Mode::from_bits(mode).denorm_f32)
    }
    #[inline]
    pub(super) fn f64(mode: u32) -> Flush {
        Flush::of(alu::Mode::from_bits(mode).denorm_f64_f16)
    }
    #[inline]
    pub(super) fn in64(self, x: f64) -> f64 {
        if self.input && x.is_subnormal() {
            f64::from_bits(x.to_bits() & (1 << 63))
        } else {
            x
        }
    }
    #[inline]
    pub(super) fn out64(self, x: f64) -> f64 {
        Flush {
            input: self.output,
            output: false,
        }
        .in64(x)
    }
}

/// Whether float instructions run correctly under `mode`: any denormal
/// controls, with nearest-even rounding, IEEE and DX10_CLAMP; MFMA only
/// under the default MODE.
pub(super) fn mode_modelled(mode: u32, mfma: bool) -> bool {
    let m = alu::Mode::from_bits(mode);
    if mfma {
        return m == M;
    }
    m.round_f32 == alu::Round::NearestEven
        && m.round_f64_f16 == alu::Round::NearestEven
        && m.ieee
        && m.dx10_clamp
}

/// The VOP1/VOP2/VOP3 handler of `op`.
pub(super) fn handler(op: Valu) -> Option<Handler> {
    use alu::{cvt, float as fl, host, int, trans};
    use vop::{d2, d3, each, f1, f2, f3, mac, u1, u2, u3, Flag, In};
    // Each row: its operand shape (a generic handler of `vop`) and its one
    // `alu` lane function; the adapters only cast, reorder or fix
    // arguments.
    Some(match op {
        // ---- VOP1 / VOP2 / VOP3, integer
        Valu::MovB32 | Valu::AccvgprWriteB32 | Valu::AccvgprReadB32 | Valu::AccvgprMovB32 => {
            |x, w, _, i, c| u1(x, w, i, c, int::mov_b32)
        }
        Valu::NotB32 => |x, w, _, i, c| u1(x, w, i, c, int::not_b32),
        Valu::BfrevB32 => |x, w, _, i, c| u1(x, w, i, c, int::bfrev_b32),
        Valu::FfbhU32 => |x, w, _, i, c| u1(x, w, i, c, int::ffbh_u32),
        Valu::FfblB32 => |x, w, _, i, c| u1(x, w, i, c, int::ffbl_b32),
        Valu::AndB32 => |x, w, _, i, c| u2(x, w, i, c, int::and_b32),
        Valu::OrB32 => |x, w, _, i, c| u2(x, w, i, c, int::or_b32),
        Valu::XorB32 => |x, w, _, i, c| u2(x, w, i, c, int::xor_b32),
        Valu::LshlrevB32 => |x, w, _, i, c| u2(x, w, i, c, int::lshlrev_b32),
        Valu::LshrrevB32 => |x, w, _, i, c| u2(x, w, i, c, int::lshrrev_b32),
        Valu::AshrrevI32 => |x, w, _, i, c| u2(x, w, i, c, int::ashrrev_i32),
        Valu::MinU32 => |x, w, _, i, c| u2(x, w, i, c, int::min_u32),
        Valu::MaxU32 => |x, w, _, i, c| u2(x, w, i, c, int::max_u32),
        Valu::MinI32 => |x, w, _, i, c| u2(x, w, i, c, int::min_i32),
        Valu::MaxI32 => |x, w, _, i, c| u2(x, w, i, c, int::max_i32),
        Valu::MulLoU32 => |x, w, _, i, c| u2(x, w, i, c, int::mul_lo_u32),
        Valu::MulHiU32 => |x, w, _, i, c| u2(x, w, i, c, int::mul_hi_u32),
        Valu::MulHiI32 => |x, w, _, i, c| u2(x, w, i, c, int::mul_hi_i32),
        Valu::MulU32U24 => |x, w, _, i, c| u2(x, w, i, c, int::mul_u32_u24),
        Valu::MulI32I24 => |x, w, _, i, c| u2(x, w, i, c, int::mul_i32_i24),
        Valu::MulHiI32I24 => |x, w, _, i, c| u2(x, w, i, c, int::mul_hi_i32_i24),
        Valu::MulHiU32U24 => |x, w, _, i, c| u2(x, w, i, c, int::mul_hi_u32_u24),
        Valu::AddLshlU32 => |x, w, _, i, c| u3(x, w, i, c, int::add_lshl_u32),
        Valu::LshlAddU32 => |x, w, _, i, c| u3(x, w, i, c, int::lshl_add_u32),
        Valu::LshlOrB32 => |x, w, _, i, c| u3(x, w, i, c, int::lshl_or_b32),
        Valu::AndOrB32 => |x, w, _, i, c| u3(x, w, i, c, int::and_or_b32),
        Valu::Or3B32 => |x, w, _, i, c| u3(x, w, i, c, int::or3_b32),
        Valu::Xor3B32 => |x, w, _, i, c| u3(x, w, i, c, int::xor3_b32),
        Valu::XadU32 => |x, w, _, i, c| u3(x, w, i, c, int::xad_u32),
        Valu::Add3U32 => |x, w, _, i, c| u3(x, w, i, c, int::add3_u32),
        Valu::MadU32U24 => {
            |x, w, _, i, c| u3(x, w, i, c, |a, b, s| int::mad_u32_u24(a, b, s, false))
        }
        Valu::MadI32I24 => {
            |x, w, _, i, c| u3(x, w, i, c, |a, b, s| int::mad_i32_i24(a, b, s, false))
        }
        Valu::BfeU32 => |x, w, _, i, c| u3(x, w, i, c, int::bfe_u32),
        Valu::BfeI32 => |x, w, _, i, c| u3(x, w, i, c, int::bfe_i32),
        Valu::BfiB32 => |x, w, _, i, c| u3(x, w, i, c, int::bfi_b32),
        Valu::AlignbitB32 => |x, w, _, i, c| u3(x, w, i, c, int::alignbit_b32),
        Valu::AlignbyteB32 => |x, w, _, i, c| u3(x, w, i, c, int::alignbyte_b32),
        Valu::Min3U32 => |x, w, _, i, c| u3(x, w, i, c, int::min3_u32),
        Valu::Max3U32 => |x, w, _, i, c| u3(x, w, i, c, int::max3_u32),
        Valu::Min3I32 => |x, w, _, i, c| u3(x, w, i, c, int::min3_i32),
        Valu::Max3I32 => |x, w, _, i, c| u3(x, w, i, c, int::max3_i32),
        Valu::Med3I32 => |x, w, _, i, c| u3(x, w, i, c, int::med3_i32),
        Valu::Med3U32 => |x, w, _, i, c| u3(x, w, i, c, int::med3_u32),
        Valu::PermB32 => |x, w, _, i, c| u3(x, w, i, c, int::perm_b32),
        Valu::BcntU32B32 => |x, w, _, i, c| u2(x, w, i, c, int::bcnt_u32_b32),
        Valu::MbcntLoU32B32 => |_, w, _, i, c| vop::mbcnt(w, i, c, int::mbcnt_lo_u32_b32),
        Valu::MbcntHiU32B32 => |_, w, _, i, c| vop::mbcnt(w, i, c, int::mbcnt_hi_u32_b32),
        Valu::AddU16 | Valu::AddNcU16 => |x, w, _, i, c| {
            u2(x, w, i, c, |a, b| {
                int::add_u16(a as u16, b as u16, false).into()
            })
        },
        Valu::SubU16 | Valu::SubNcU16 => |x, w, _, i, c| {
            u2(x, w, i, c, |a, b| {
                int::sub_u16(a as u16, b as u16, false).into()
            })
        },
        Valu::SubrevU16 => |x, w, _, i, c| {
            u2(x, w, i, c, |a, b| {
                int::sub_u16(b as u16, a as u16, false).into()
            })
        },
        Valu::MulLoU16 => |x, w, _, i, c| {
            u2(x, w, i, c, |a, b| {
                int::mul_lo_u16(a as u16, b as u16, false).into()
            })
        },
        Valu::LshlrevB16 => |x, w, _, i, c| {
            u2(x, w, i, c, |a, b| {
                int::lshlrev_b16(a as u16, b as u16).into()
            })
        },
        Valu::LshrrevB16 => |x, w, _, i, c| {
            u2(x, w, i, c, |a, b| {
                int::lshrrev_b16(a as u16, b as u16).into()
            })
        },
        Valu::AshrrevI16 => |x, w, _, i, c| {
            u2(x, w, i, c, |a, b| {
                int::ashrrev_i16(a as u16, b as u16).into()
            })
        },
        Valu::MaxU16 => {
            |x, w, _, i, c| u2(x, w, i, c, |a, b| int::max_u16(a as u16, b as u16).into())
        }
        Valu::MinU16 => {
            |x, w, _, i, c| u2(x, w, i, c, |a, b| int::min_u16(a as u16, b as u16).into())
        }
        Valu::MaxI16 => {
            |x, w, _, i, c| u2(x, w, i, c, |a, b| int::max_i16(a as u16, b as u16).into())
        }
        Valu::MinI16 => {
            |x, w, _, i, c| u2(x, w, i, c, |a, b| int::min_i16(a as u16, b as u16).into())
        }
        Valu::CndmaskB32 => cndmask,
        Valu::AddCoU32 => carry::<{ Carry::ADD }, false>,
        Valu::SubCoU32 => carry::<{ Carry::SUB }, false>,
        Valu::SubrevCoU32 => carry::<{ Carry::SUBREV }, false>,
        Valu::AddcCoU32 => carry::<{ Carry::ADD }, true>,
        Valu::SubbCoU32 => carry::<{ Carry::SUB }, true>,
        Valu::SubbrevCoU32 => carry::<{ Carry::SUBREV }, true>,
        // GFX10's names of the carry forms (`_co_ci`: carry in and out).
        Valu::AddCoCiU32 => carry::<{ Carry::ADD }, true>,
        Valu::SubCoCiU32 => carry::<{ Carry::SUB }, true>,
        Valu::SubrevCoCiU32 => carry::<{ Carry::SUBREV }, true>,
        // GFX10 rows not modelled yet: they stop (D65).
        Valu::FmacF16
        | Valu::FmaakF16
        | Valu::FmamkF16
        | Valu::FmaLegacyF32
        | Valu::FmacLegacyF32
        | Valu::Permlane16B32
        | Valu::Permlanex16B32
        | Valu::MovrelsB32
        | Valu::MovreldB32
        | Valu::MovrelsdB32
        | Valu::Movrelsd2B32
        | Valu::SwaprelB32
        | Valu::MullitF32
        | Valu::Pipeflush
        | Valu::Illegal => return None,
        Valu::MadU64U32 => |_, w, _, i, c| {
            each::<3, true>(
                w,
                i,
                c,
                [In::B32, In::B32, In::B64],
                Flag::Sdst,
                |[a, b, s], _| int::mad_u64_u32(a as u32, b as u32, s),
            )
        },
        Valu::MadI64I32 => |_, w, _, i, c| {
            each::<3, true>(
                w,
                i,
                c,
                [In::B32, In::B32, In::B64],
                Flag::Sdst,
                |[a, b, s], _| int::mad_i64_i32(a as u32, b as u32, s),
            )
        },
        Valu::LshlrevB64 => |x, w, _, i, c| vop::shift64(x, w, i, c, int::lshlrev_b64),
        Valu::LshrrevB64 => |x, w, _, i, c| vop::shift64(x, w, i, c, int::lshrrev_b64),
        Valu::AshrrevI64 => |x, w, _, i, c| vop::shift64(x, w, i, c, int::ashrrev_i64),
        Valu::LshlAddU64 => |_, w, _, i, c| {
            each::<3, true>(
                w,
                i,
                c,
                [In::B64, In::B32, In::B64],
                Flag::No,
                |[a, b, s], _| (int::lshl_add_u64(a, b as u32, s), false),
            )
        },
        Valu::MovB64 => {
            |_, w, _, i, c| each::<1, true>(w, i, c, [In::B64], Flag::No, |[a], _| (a, false))
        }
        Valu::ReadfirstlaneB32 => readfirstlane,
        Valu::ReadlaneB32 => readlane,
        Valu::WritelaneB32 => writelane,
        // ---- VALU float
        Valu::AddF32 => |x, w, _, i, c| f2(x, w, i, c, host::add_f32),
        Valu::SubF32 => |x, w, _, i, c| f2(x, w, i, c, host::sub_f32),
        Valu::SubrevF32 => |x, w, _, i, c| f2(x, w, i, c, |a, b| host::sub_f32(b, a)),
        Valu::MulF32 => |x, w, _, i, c| f2(x, w, i, c, host::mul_f32),
        Valu::MinF32 => |x, w, _, i, c| u2(x, w, i, c, |a, b| fl::min_f32(a, b, md())),
        Valu::MaxF32 => |x, w, _, i, c| u2(x, w, i, c, |a, b| fl::max_f32(a, b, md())),
        Valu::Max3F32 => |x, w, _, i, c| u3(x, w, i, c, |a, b, s| fl::max3_f32(a, b, s, md())),
        Valu::Min3F32 => |x, w, _, i, c| u3(x, w, i, c, |a, b, s| fl::min3_f32(a, b, s, md())),
        Valu::Med3F32 => |x, w, _, i, c| u3(x, w, i, c, |a, b, s| fl::med3_f32(a, b, s, md())),
        // GFX11: min(max(S0, S1), S2) and max(min(S0, S1), S2) (D77).
        Valu::MaxminF32 => |x, w, _, i, c| {
            u3(x, w, i, c, |a, b, s| {
                fl::min_f32(fl::max_f32(a, b, md()), s, md())
            })
        },
        Valu::MinmaxF32 => |x, w, _, i, c| {
            u3(x, w, i, c, |a, b, s| {
                fl::max_f32(fl::min_f32(a, b, md()), s, md())
            })
        },
        Valu::FmaF32 | Valu::FmaakF32 | Valu::FmamkF32 => {
            |x, w, _, i, c| f3(x, w, i, c, host::fma_f32)
        }
        Valu::MadF32 | Valu::MadakF32 | Valu::MadmkF32 => {
            |x, w, _, i, c| f3(x, w, i, c, host::mad_f32)
        }
        Valu::FmacF32 => |x, w, _, i, c| mac(x, w, i, c, host::fma_f32),
        Valu::MacF32 => |x, w, _, i, c| mac(x, w, i, c, host::mad_f32),
        Valu::RcpF32 => |x, w, _, i, c| f1(x, w, i, c, host::rcp_f32),
        Valu::RsqF32 => |x, w, _, i, c| f1(x, w, i, c, host::rsq_f32),
        Valu::SqrtF32 => |x, w, _, i, c| f1(x, w, i, c, host::sqrt_f32),
        Valu::ExpF32 | Valu::ExpLegacyF32 => |x, w, _, i, c| f1(x, w, i, c, host::exp_f32),
        Valu::LogF32 | Valu::LogLegacyF32 => |x, w, _, i, c| f1(x, w, i, c, host::log_f32),
        Valu::SinF32 => |x, w, _, i, c| f1(x, w, i, c, host::sin_f32),
        Valu::CosF32 => |x, w, _, i, c| f1(x, w, i, c, host::cos_f32),
        Valu::TruncF32 => |x, w, _, i, c| f1(x, w, i, c, host::trunc_f32),
        Valu::CeilF32 => |x, w, _, i, c| f1(x, w, i, c, host::ceil_f32),
        Valu::FloorF32 => |x, w, _, i, c| f1(x, w, i, c, host::floor_f32),
        Valu::RndneF32 => |x, w, _, i, c| f1(x, w, i, c, host::rndne_f32),
        Valu::FractF32 => |x, w, _, i, c| f1(x, w, i, c, host::fract_f32),
        Valu::LdexpF32 => |_, w, _, i, c| {
            each::<2, false>(w, i, c, [In::F32, In::B32], Flag::No, |[a, e], _| {
                let r = host::ldexp_f32(f32::from_bits(a as u32), e as u32 as i32);
                (r.to_bits().into(), false)
            })
        },
        Valu::RcpIflagF32 => |x, w, _, i, c| u1(x, w, i, c, |a| trans::rcp_iflag_f32(a, md())),
        Valu::FrexpMantF32 => |x, w, _, i, c| u1(x, w, i, c, |a| fl::frexp_mant_f32(a, md())),
        Valu::FrexpExpI32F32 => {
            |x, w, _, i, c| u1(x, w, i, c, |a| fl::frexp_exp_f32(a, md()) as u32)
        }
        Valu::CvtF16F32 => |x, w, _, i, c| u1(x, w, i, c, |a| cvt::cvt_f16_f32(a, md()).into()),
        Valu::CvtF32F16 => |x, w, _, i, c| u1(x, w, i, c, |a| cvt::cvt_f32_f16(a as u16, md())),
        Valu::CvtPkrtzF16F32 => {
            |x, w, _, i, c| u2(x, w, i, c, |a, b| cvt::cvt_pkrtz_f16_f32(a, b, md()))
        }
        // Exact in nearest-even, the only rounding float code runs under.
        Valu::CvtF32I32 => |x, w, _, i, c| u1(x, w, i, c, |a| cvt::cvt_f32_i32(a as i32, M)),
        Valu::CvtF32U32 => |x, w, _, i, c| u1(x, w, i, c, |a| cvt::cvt_f32_u32(a, M)),
        Valu::CvtI32F32 => |x, w, _, i, c| u1(x, w, i, c, |a| cvt::cvt_i32_f32(a) as u32),
        Valu::CvtU32F32 => |x, w, _, i, c| u1(x, w, i, c, cvt::cvt_u32_f32),
        Valu::CvtF32Ubyte0 => |x, w, _, i, c| u1(x, w, i, c, |a| cvt::cvt_f32_ubyte(a, 0)),
        Valu::CvtF32Ubyte1 => |x, w, _, i, c| u1(x, w, i, c, |a| cvt::cvt_f32_ubyte(a, 1)),
        Valu::CvtF32Ubyte2 => |x, w, _, i, c| u1(x, w, i, c, |a| cvt::cvt_f32_ubyte(a, 2)),
        Valu::CvtF32Ubyte3 => |x, w, _, i, c| u1(x, w, i, c, |a| cvt::cvt_f32_ubyte(a, 3)),
        Valu::AddF64 => |x, w, _, i, c| d2(x, w, i, c, host::add_f64),
        Valu::MulF64 => |x, w, _, i, c| d2(x, w, i, c, host::mul_f64),
        Valu::MinF64 => |x, w, _, i, c| {
            d2(x, w, i, c, |a, b| {
                f64::from_bits(fl::min_f64(a.to_bits(), b.to_bits(), md()))
            })
        },
        Valu::MaxF64 => |x, w, _, i, c| {
            d2(x, w, i, c, |a, b| {
                f64::from_bits(fl::max_f64(a.to_bits(), b.to_bits(), md()))
            })
        },
        Valu::FmaF64 => |x, w, _, i, c| d3(x, w, i, c, host::fma_f64),
        Valu::FmacF64 => fmac_f64,
        Valu::CvtF64F32 => |_, w, _, i, c| {
            each::<1, true>(w, i, c, [In::F32], Flag::No, |[a], _| {
                (cvt::cvt_f64_f32(a as u32, md()), false)
            })
        },
        Valu::CvtF64I32 => |_, w, _, i, c| {
            each::<1, true>(w, i, c, [In::F32], Flag::No, |[a], _| {
                (cvt::cvt_f64_i32(a as u32 as i32), false)
            })
        },
        Valu::CvtF64U32 => |_, w, _, i, c| {
            each::<1, true>(w, i, c, [In::F32], Flag::No, |[a], _| {
                (cvt::cvt_f64_u32(a as u32), false)
            })
        },
        Valu::CvtF32F64 => |_, w, _, i, c| {
            each::<1, false>(w, i, c, [In::F64], Flag::No, |[a], _| {
                (cvt::cvt_f32_f64(a, md()).into(), false)
            })
        },
        Valu::CvtI32F64 => |_, w, _, i, c| {
            each::<1, false>(w, i, c, [In::F64], Flag::No, |[a], _| {
                (cvt::cvt_i32_f64(a) as u32 as u64, false)
            })
        },
        Valu::CvtU32F64 => |_, w, _, i, c| {
            each::<1, false>(w, i, c, [In::F64], Flag::No, |[a], _| {
                (cvt::cvt_u32_f64(a).into(), false)
            })
        },
        Valu::FrexpExpI32F64 => |_, w, _, i, c| {
            each::<1, false>(w, i, c, [In::F64], Flag::No, |[a], _| {
                (fl::frexp_exp_f64(a, md()) as u32 as u64, false)
            })
        },
        Valu::RcpF64 => |_, w, _, i, c| unary64(w, i, c, trans::rcp_f64),
        Valu::SqrtF64 => |_, w, _, i, c| unary64(w, i, c, trans::sqrt_f64),
        Valu::RsqF64 => |_, w, _, i, c| unary64(w, i, c, trans::rsq_f64),
        Valu::RndneF64 => |_, w, _, i, c| unary64(w, i, c, fl::rndne_f64),
        Valu::FloorF64 => |_, w, _, i, c| unary64(w, i, c, fl::floor_f64),
        Valu::TruncF64 => |_, w, _, i, c| unary64(w, i, c, fl::trunc_f64),
        Valu::CeilF64 => |_, w, _, i, c| unary64(w, i, c, fl::ceil_f64),
        Valu::FractF64 => |_, w, _, i, c| unary64(w, i, c, fl::fract_f64),
        Valu::FrexpMantF64 => |_, w, _, i, c| unary64(w, i, c, fl::frexp_mant_f64),
        Valu::LdexpF64 => |_, w, _, i, c| {
            each::<2, true>(w, i, c, [In::F64, In::B32], Flag::No, |[a, e], _| {
                (fl::ldexp_f64(a, e as u32 as i32, md()), false)
            })
        },
        Valu::TrigPreopF64 => |_, w, _, i, c| {
            each::<2, true>(w, i, c, [In::F64, In::B32], Flag::No, |[a, s], _| {
                (alu::trig::trig_preop_f64(a, s as u32), false)
            })
        },
        Valu::DivScaleF32 => |_, w, _, i, c| {
            each::<3, false>(w, i, c, [In::F32; 3], Flag::SdstOrVcc, |[a, b, s], _| {
                let (r, f) = fl::div_scale_f32(a as u32, b as u32, s as u32, md());
                (r.into(), f)
            })
        },
        Valu::DivScaleF64 => |_, w, _, i, c| {
            each::<3, true>(w, i, c, [In::F64; 3], Flag::SdstOrVcc, |[a, b, s], _| {
                fl::div_scale_f64(a, b, s, md())
            })
        },
        Valu::DivFmasF32 => |_, w, _, i, c| {
            each::<3, false>(w, i, c, [In::F32; 3], Flag::VccIn, |[a, b, s], v| {
                (
                    fl::div_fmas_f32(a as u32, b as u32, s as u32, v, md()).into(),
                    false,
                )
            })
        },
        Valu::DivFmasF64 => |_, w, _, i, c| {
            each::<3, true>(w, i, c, [In::F64; 3], Flag::VccIn, |[a, b, s], v| {
                (fl::div_fmas_f64(a, b, s, v, md()), false)
            })
        },
        Valu::DivFixupF32 => |_, w, _, i, c| {
            each::<3, false>(w, i, c, [In::F32; 3], Flag::No, |[a, b, s], _| {
                (
                    fl::div_fixup_f32(a as u32, b as u32, s as u32).into(),
                    false,
                )
            })
        },
        Valu::DivFixupF64 => |_, w, _, i, c| {
            each::<3, true>(w, i, c, [In::F64; 3], Flag::No, |[a, b, s], _| {
                (fl::div_fixup_f64(a, b, s), false)
            })
        },
        Valu::AddF16
        | Valu::SubF16
        | Valu::SubrevF16
        | Valu::MulF16
        | Valu::MaxF16
        | Valu::MinF16
        | Valu::FmaF16 => valu_f16,
        Valu::AddU32
        | Valu::SubU32
        | Valu::SubrevU32
        | Valu::AddI32
        | Valu::SubI32
        | Valu::AddNcU32
        | Valu::SubNcU32
        | Valu::SubrevNcU32
        | Valu::AddNcI32
        | Valu::SubNcI32
        | Valu::AddNcI16
        | Valu::SubNcI16
        | Valu::XnorB32
        | Valu::BfmB32
        | Valu::FfbhI32
        | Valu::AddI16
        | Valu::SubI16
        | Valu::MadU32U16
        | Valu::MadI32I16
        | Valu::MadU16
        | Valu::MadI16
        | Valu::MadLegacyU16
        | Valu::MadLegacyI16
        | Valu::Min3I16
        | Valu::Max3I16
        | Valu::Med3I16
        | Valu::Min3U16
        | Valu::Max3U16
        | Valu::Med3U16
        | Valu::SadU8
        | Valu::SadHiU8
        | Valu::SadU16
        | Valu::SadU32
        | Valu::MsadU8
        | Valu::LerpU8
        | Valu::CvtPkI16I32
        | Valu::CvtPkU16U32
        | Valu::PackB32F16 => ints,
        // One lane at a time through `alu` (`valu_ext`; `None` for the
        // fp8/bf8 conversions).
        Valu::CeilF16
        | Valu::CosF16
        | Valu::CvtF16I16
        | Valu::CvtF16U16
        | Valu::CvtFlrI32F32
        | Valu::CvtI16F16
        | Valu::CvtNormI16F16
        | Valu::CvtNormU16F16
        | Valu::CvtOffF32I4
        | Valu::CvtPkU8F32
        | Valu::CvtPkaccumU8F32
        | Valu::CvtPknormI16F16
        | Valu::CvtPknormI16F32
        | Valu::CvtPknormU16F16
        | Valu::CvtPknormU16F32
        | Valu::CvtRpiI32F32
        | Valu::CvtU16F16
        | Valu::DivFixupF16
        | Valu::DivFixupLegacyF16
        | Valu::Dot2F32F16
        | Valu::Dot2I32I16
        | Valu::Dot2U32U16
        | Valu::Dot2cF32F16
        | Valu::Dot2cI32I16
        | Valu::Dot4I32I8
        | Valu::Dot4U32U8
        | Valu::Dot4cI32I8
        | Valu::Dot8I32I4
        | Valu::Dot8U32U4
        | Valu::Dot8cI32I4
        | Valu::ExpF16
        | Valu::FloorF16
        | Valu::FmaLegacyF16
        | Valu::FmaMixF32
        | Valu::FmaMixhiF16
        | Valu::FmaMixloF16
        | Valu::FractF16
        | Valu::FrexpExpI16F16
        | Valu::FrexpMantF16
        | Valu::LdexpF16
        | Valu::LogF16
        | Valu::MacF16
        | Valu::MadF16
        | Valu::MadLegacyF16
        | Valu::MadLegacyF32
        | Valu::MadakF16
        | Valu::MadmkF16
        | Valu::Max3F16
        | Valu::Med3F16
        | Valu::Min3F16
        | Valu::MqsadPkU16U8
        | Valu::MqsadU32U8
        | Valu::MulLegacyF32
        | Valu::PkFmacF16
        | Valu::QsadPkU16U8
        | Valu::RcpF16
        | Valu::RndneF16
        | Valu::RsqF16
        | Valu::SatPkU8I16
        | Valu::SinF16
        | Valu::SqrtF16
        | Valu::SwapB32
        | Valu::TruncF16 => return valu_ext::handler(op),
        // The fp8/bf8 conversions: gfx942's FNUZ formats only (gfx950's are
        // OCP: D51).
        Valu::CvtF32Bf8
        | Valu::CvtF32Fp8
        | Valu::CvtPkBf8F32
        | Valu::CvtPkF32Bf8
        | Valu::CvtPkF32Fp8
        | Valu::CvtPkFp8F32
        | Valu::CvtSrBf8F32
        | Valu::CvtSrFp8F32 => gfx950::fnuz_only,
        // gfx950 (CDNA4).
        Valu::AshrPkI8I32
        | Valu::AshrPkU8I32
        | Valu::Bitop3B16
        | Valu::Bitop3B32
        | Valu::CvtF32Bf16
        | Valu::CvtPkBf16F32
        | Valu::CvtPkF16F32
        | Valu::Dot2F32Bf16
        | Valu::Dot2cF32Bf16
        | Valu::Maximum3F32
        | Valu::Minimum3F32
        | Valu::Permlane16SwapB32
        | Valu::Permlane32SwapB32 => return gfx950::handler(op),
        // gfx950 operations without semantics yet (D51; listed in
        // tests/coverage_gaps.txt).
        Valu::PrngB32 | Valu::CvtSrBf16F32 | Valu::CvtSrF16F32 => return None,
        Valu::CvtScalef322xpk16Bf6F32
        | Valu::CvtScalef322xpk16Fp6F32
        | Valu::CvtScalef32F16Bf8
        | Valu::CvtScalef32F16Fp8
        | Valu::CvtScalef32F32Bf8
        | Valu::CvtScalef32F32Fp8
        | Valu::CvtScalef32Pk32Bf16Bf6
        | Valu::CvtScalef32Pk32Bf16Fp6
        | Valu::CvtScalef32Pk32Bf6Bf16
        | Valu::CvtScalef32Pk32Bf6F16
        | Valu::CvtScalef32Pk32F16Bf6
        | Valu::CvtScalef32Pk32F16Fp6
        | Valu::CvtScalef32Pk32F32Bf6
        | Valu::CvtScalef32Pk32F32Fp6
        | Valu::CvtScalef32Pk32Fp6Bf16
        | Valu::CvtScalef32Pk32Fp6F16
        | Valu::CvtScalef32PkBf16Bf8
        | Valu::CvtScalef32PkBf16Fp4
        | Valu::CvtScalef32PkBf16Fp8
        | Valu::CvtScalef32PkBf8Bf16
        | Valu::CvtScalef32PkBf8F16
        | Valu::CvtScalef32PkBf8F32
        | Valu::CvtScalef32PkF16Bf8
        | Valu::CvtScalef32PkF16Fp4
        | Valu::CvtScalef32PkF16Fp8
        | Valu::CvtScalef32PkF32Bf8
        | Valu::CvtScalef32PkF32Fp4
        | Valu::CvtScalef32PkF32Fp8
        | Valu::CvtScalef32PkFp4Bf16
        | Valu::CvtScalef32PkFp4F16
        | Valu::CvtScalef32PkFp4F32
        | Valu::CvtScalef32PkFp8Bf16
        | Valu::CvtScalef32PkFp8F16
        | Valu::CvtScalef32PkFp8F32
        | Valu::CvtScalef32SrBf8Bf16
        | Valu::CvtScalef32SrBf8F16
        | Valu::CvtScalef32SrBf8F32
        | Valu::CvtScalef32SrFp8Bf16
        | Valu::CvtScalef32SrFp8F16
        | Valu::CvtScalef32SrFp8F32
        | Valu::CvtScalef32SrPk32Bf6Bf16
        | Valu::CvtScalef32SrPk32Bf6F16
        | Valu::CvtScalef32SrPk32Bf6F32
        | Valu::CvtScalef32SrPk32Fp6Bf16
        | Valu::CvtScalef32SrPk32Fp6F16
        | Valu::CvtScalef32SrPk32Fp6F32
        | Valu::CvtScalef32SrPkFp4Bf16
        | Valu::CvtScalef32SrPkFp4F16
        | Valu::CvtScalef32SrPkFp4F32 => return gfx950::scaled(op),
    })
}

/// A VOP3P source that is an inline constant or a literal: its 16-bit
/// value feeds both halves. The tables type packed operands B32, so an
/// inline float of a float operation is taken as f16 here (the f32
/// encoding of 2.0 has a low half of 0).
pub(super) fn packed_const(op: &Op, float: bool) -> u32 {
    let x = match op.value {
        Operand::Float(f) if float => u32::from(f.f16_bits()),
        _ => const32(op).unwrap_or(0) & 0xffff,
    };
    x | (x << 16)
}

/// VOP3P packed 16-bit and gfx90a packed-f32 operations: sources are
/// selected per half by op_sel/op_sel_hi and negated by neg_lo/neg_hi, then
/// the operation runs on both halves (via [`alu::packed`]).
pub(super) fn vop3p(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    use alu::packed as pk;
    let words = i.words();
    let (w0, w1) = (words[0], words.get(1).copied().unwrap_or(0));
    let sel = |k: usize| w0 >> (11 + k) & 1 == 1;
    let sel_hi = |k: usize| {
        if k < 2 {
            w1 >> (27 + k) & 1 == 1
        } else {
            w0 >> 14 & 1 == 1
        }
    };
    let neg_lo = |k: usize| w1 >> (29 + k) & 1 == 1;
    let neg_hi = |k: usize| w0 >> (8 + k) & 1 == 1;
    let clamp = w0 >> 15 & 1 == 1;
    let Some(d) = c.dst(0).copied() else {
        return Err(unsupported(w, i, c.pc));
    };
    let nsrc = (c.ops.nsrc as usize).min(3);
    let Sem::Packed(op) = c.sem else {
        return Err(unsupported(w, i, c.pc));
    };
    type F = fn(u32, u32, u32, alu::Mode, bool) -> u32;
    // (operation, float operands, clamp modelled, sources)
    let (f, is_float, clamps, n): (F, bool, bool, usize) = match op {
        Packed::AddF16 => (|a, b, _, m, _| pk::pk_add_f16(a, b, m), true, false, 2),
        Packed::MulF16 => (|a, b, _, m, _| pk::pk_mul_f16(a, b, m), true, false, 2),
        Packed::FmaF16 => (|a, b, c, m, _| pk::pk_fma_f16(a, b, c, m), true, false, 3),
        Packed::MaxF16 => (|a, b, _, m, _| pk::pk_max_f16(a, b, m), true, false, 2),
        Packed::MinF16 => (|a, b, _, m, _| pk::pk_min_f16(a, b, m), true, false, 2),
        Packed::AddU16 => (|a, b, _, _, cl| pk::pk_add_u16(a, b, cl), false, true, 2),
        Packed::SubU16 => (|a, b, _, _, cl| pk::pk_sub_u16(a, b, cl), false, true, 2),
        Packed::AddI16 => (|a, b, _, _, cl| pk::pk_add_i16(a, b, cl), false, true, 2),
        Packed::SubI16 => (|a, b, _, _, cl| pk::pk_sub_i16(a, b, cl), false, true, 2),
        Packed::MulLoU16 => (|a, b, _, _, _| pk::pk_mul_lo_u16(a, b), false, false, 2),
        Packed::MadU16 => (
            |a, b, c, _, _| pk::pk_mad_u16(a, b, c, false),
            false,
            false,
            3,
        ),
        Packed::MadI16 => (
            |a, b, c, _, _| pk::pk_mad_i16(a, b, c, false),
            false,
            false,
            3,
        ),
        Packed::LshlrevB16 => (|a, b, _, _, _| pk::pk_lshlrev_b16(a, b), false, false, 2),
        Packed::LshrrevB16 => (|a, b, _, _, _| pk::pk_lshrrev_b16(a, b), false, false, 2),
        Packed::AshrrevI16 => (|a, b, _, _, _| pk::pk_ashrrev_i16(a, b), false, false, 2),
        Packed::MaxI16 => (|a, b, _, _, _| pk::pk_max_i16(a, b), false, false, 2),
        Packed::MinI16 => (|a, b, _, _, _| pk::pk_min_i16(a, b), false, false, 2),
        Packed::MaxU16 => (|a, b, _, _, _| pk::pk_max_u16(a, b), false, false, 2),
        Packed::MinU16 => (|a, b, _, _, _| pk::pk_min_u16(a, b), false, false, 2),
        Packed::Minimum3F16 => (
            |a, b, c, m, _| alu::gfx950::pk_minmax3_f16(a, b, c, false, m),
            true,
            false,
            3,
        ),
        Packed::Maximum3F16 => (
            |a, b, c, m, _| alu::gfx950::pk_minmax3_f16(a, b, c, true, m),
            true,
            false,
            3,
        ),
        // Their own handlers (`vop3p_f32`, `pk_mov_b32`).
        Packed::AddF32 | Packed::MulF32 | Packed::FmaF32 | Packed::MovB32 => {
            return Err(unsupported(w, i, c.pc))
        }
    };
    if nsrc != n || (clamp && !clamps) {
        return Err(unsupported(w, i, c.pc));
    }
    let m = md();
    let mut v = [[0u32; LANES]; 3];
    for (k, vk) in v.iter_mut().enumerate().take(nsrc) {
        let Some(op) = c.src(k) else { continue };
        let (s, sh, nl, nh) = (sel(k), sel_hi(k), neg_lo(k), neg_hi(k));
        let raw = match op.value {
            Operand::Reg(_) => lanes32(w, op),
            _ => [packed_const(op, is_float); LANES],
        };
        for (x, r) in vk.iter_mut().zip(&raw) {
            let y = pk::pk_operand(*r, s, sh);
            *x = if is_float {
                pk::pk_neg_f16(y, nl, nh)
            } else {
                y
            };
        }
    }
    let mut r = [0u32; LANES];
    lanes::map3_u32(&mut r, &v[0], &v[1], &v[2], |a, b, c| f(a, b, c, m, clamp));
    write_lanes32(w, &d, &r);
    Ok(Flow::Continue)
}

/// gfx90a packed f32: `v_pk_fma_f32` (`K` = 0), `v_pk_mul_f32` (1) and
/// `v_pk_add_f32` (2). The low and the high halves are two independent
/// 64-lane f32 operations, each reading its operand halves in place
/// (selected by op_sel/op_sel_hi, negated by neg_lo/neg_hi), computed in a
/// vectorised loop (hardware FMA when the CPU has it).
pub(super) fn vop3p_f32<const K: u8>(
    x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let words = i.words();
    let (w0, w1) = (words[0], words.get(1).copied().unwrap_or(0));
    let sel = |k: usize| w0 >> (11 + k) & 1 == 1;
    let sel_hi = |k: usize| {
        if k < 2 {
            w1 >> (27 + k) & 1 == 1
        } else {
            w0 >> 14 & 1 == 1
        }
    };
    let neg_lo = |k: usize| w1 >> (29 + k) & 1 == 1;
    let neg_hi = |k: usize| w0 >> (8 + k) & 1 == 1;
    let clamp = w0 >> 15 & 1 == 1;
    let Some(d) = c.dst(0).copied() else {
        return Err(unsupported(w, i, c.pc));
    };
    let nsrc = (c.ops.nsrc as usize).min(3);
    if clamp || nsrc != if K == 0 { 3 } else { 2 } {
        return Err(unsupported(w, i, c.pc));
    }
    let m = md();
    let Bufs { src, out } = &mut *x.bufs;
    let [b0, b1, b2, b3, b4, b5] = src;
    let [o0, o1] = out;
    let mut lo_src = [None; 3];
    let mut hi_src = [None; 3];
    for (k, (bl, bh)) in [(b0, b1), (b2, b3), (b4, b5)]
        .into_iter()
        .enumerate()
        .take(nsrc)
    {
        let Some(op) = c.src(k) else { continue };
        lo_src[k] = Some(pk_half(w, op, c.konst(k), sel(k), neg_lo(k), bl));
        hi_src[k] = Some(pk_half(w, op, c.konst(k), sel_hi(k), neg_hi(k), bh));
    }
    let ctl = m.f32();
    let (fi, fo) = (!ctl.denorm.allow_in, !ctl.denorm.allow_out);
    let rne = ctl.round == alu::Round::NearestEven;
    for (o, src) in [(&mut *o0, lo_src), (&mut *o1, hi_src)] {
        let [Some(a), Some(b), cc] = src else {
            return Err(unsupported(w, i, c.pc));
        };
        // mul and add ignore the third source.
        let cc = cc.unwrap_or(a);
        let host = match K {
            0 => lanes::fma_f32(o, a, b, cc, fi, fo),
            1 => lanes::mul_f32(o, a, b, cc, fi, fo),
            _ => lanes::add_f32(o, a, b, cc, fi, fo),
        };
        // NaN results, and rounding other than nearest-even, take the
        // reference path.
        if host || !rne {
            for (l, r) in o.iter_mut().enumerate() {
                if rne && !f32::from_bits(*r).is_nan() {
                    continue;
                }
                let (x, y, zz) = (a.at(l), b.at(l), cc.at(l));
                *r = match K {
                    0 => alu::float::fma_f32(x, y, zz, m),
                    1 => alu::float::mul_f32(x, y, m),
                    _ => alu::float::add_f32(x, y, m),
                };
            }
        }
    }
    let mut d1 = d;
    if let Operand::Reg(mut rr) = d1.value {
        rr.first = rr.first.wrapping_add(1);
        d1.value = Operand::Reg(rr);
    }
    write_lanes32(w, &d, o0);
    write_lanes32(w, &d1, o1);
    Ok(Flow::Continue)
}

/// One 32-bit half of a packed-f32 source, in place: register `first +
/// half` of a VGPR/AGPR pair, or the half of a scalar pair or constant
/// (a constant feeds both halves), with `neg` as a sign flip.
pub(super) fn pk_half<'a>(
    w: &'a Wave,
    op: &Op,
    row: Option<&'a VReg>,
    half: bool,
    neg: bool,
    buf: &'a mut VReg,
) -> lanes::Src<'a> {
    let v: &'a VReg = match op.value {
        Operand::Reg(RegRange {
            file: f @ (RegFile::Vgpr | RegFile::Agpr),
            first,
            ..
        }) => {
            let regs = if f == RegFile::Vgpr { &w.vgpr } else { &w.agpr };
            match regs.get(first as usize + usize::from(half)) {
                Some(r) => r,
                None => {
                    *buf = [0; LANES];
                    buf
                }
            }
        }
        Operand::Reg(_) => {
            let x = s64(w, op);
            *buf = [if half { (x >> 32) as u32 } else { x as u32 }; LANES];
            buf
        }
        // A constant (splatted at decode: `row`) feeds both halves.
        _ => match row {
            Some(r) => r,
            None => {
                *buf = [const32(op).unwrap_or(0); LANES];
                buf
            }
        },
    };
    lanes::Src::f32(v, false, neg)
}

/// 16-bit float VALU ops on the low halves (the result's high half is
/// zeroed); VOP3 op_sel forms are not modelled and stop as unsupported.
pub(super) fn valu_f16(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    use alu::soft::F16;
    let Sem::Valu(op) = c.sem else {
        return Err(unsupported(w, i, c.pc));
    };
    if i.encoding().family() == Encoding::Vop3
        && (i.words()[0] >> 11 & 0xf != 0 || vop3_clamp_omod(i) != (false, 0))
    {
        return Err(unsupported(w, i, c.pc));
    }
    let Some(d) = c.dst(0).copied() else {
        return Err(unsupported(w, i, c.pc));
    };
    let srcs: Vec<Op> = c.srcs().copied().collect();
    for l in 0..LANES {
        if !w.active(l) {
            continue;
        }
        let v: Vec<u64> = srcs
            .iter()
            .map(|op| {
                let x = u64::from(v32(w, op, l) & 0xffff);
                alu::float::input_mods::<F16>(x, op.abs, op.neg)
            })
            .collect();
        let r = match (op, v.as_slice()) {
            (Valu::AddF16, [a, b]) => alu::float::add::<F16>(*a, *b, md()),
            (Valu::SubF16, [a, b]) => alu::float::sub::<F16>(*a, *b, md()),
            (Valu::SubrevF16, [a, b]) => alu::float::sub::<F16>(*b, *a, md()),
            (Valu::MulF16, [a, b]) => alu::float::mul::<F16>(*a, *b, md()),
            (Valu::MaxF16, [a, b]) => alu::float::max::<F16>(*a, *b, md()),
            (Valu::MinF16, [a, b]) => alu::float::min::<F16>(*a, *b, md()),
            (Valu::FmaF16, [a, b, cc]) => alu::float::fma::<F16>(*a, *b, *cc, md()),
            _ => return Err(unsupported(w, i, c.pc)),
        };
        vwrite(w, &d, l, 0, r as u32 & 0xffff);
    }
    Ok(Flow::Continue)
}

/// `v_pk_mov_b32`: op_sel[0] picks the half of src0 for the low result,
/// op_sel[1] the half of src1 for the high result.
pub(super) fn pk_mov_b32(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _l: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let (Some(d), Some(s0), Some(s1)) = (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
    else {
        return Err(unsupported(w, i, c.pc));
    };
    // op_sel[0] picks the half of src0 for the low result, op_sel[1]
    // the half of src1 for the high result (VOP3P word 0, bits 11-12).
    let w0 = i.words()[0];
    let (sel0, sel1) = (w0 >> 11 & 1 == 1, w0 >> 12 & 1 == 1);
    for l in 0..LANES {
        if w.active(l) {
            let a = v64(w, &s0, l);
            let b = v64(w, &s1, l);
            let lo = if sel0 { (a >> 32) as u32 } else { a as u32 };
            let hi = if sel1 { (b >> 32) as u32 } else { b as u32 };
            vwrite(w, &d, l, 0, lo);
            vwrite(w, &d, l, 1, hi);
        }
    }
    Ok(Flow::Continue)
}

/// Integer lane operations of up to three 32-bit sources, chosen from the
/// description and computed by [`alu::int`] (the one reference), with
/// VOP3 `clamp` where the operation defines it. 16-bit operations read
/// the low halves and write a zero-extended result (`op_sel`, which moves
/// halves, is not modelled and stops).
pub(super) fn ints(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    use alu::int as a;
    type F = fn(u32, u32, u32, bool) -> u32;
    let Sem::Valu(op) = c.sem else {
        return Err(unsupported(w, i, c.pc));
    };
    // (operation, sources, clamp defined)
    let (f, n, clamps): (F, usize, bool) = match op {
        // GFX10 names the no-carry forms `_nc`.
        Valu::AddU32 | Valu::AddNcU32 => (|x, y, _, cl| a::add_u32(x, y, cl), 2, true),
        Valu::SubU32 | Valu::SubNcU32 => (|x, y, _, cl| a::sub_u32(x, y, cl), 2, true),
        Valu::SubrevU32 | Valu::SubrevNcU32 => (|x, y, _, cl| a::sub_u32(y, x, cl), 2, true),
        Valu::AddI32 | Valu::AddNcI32 => (|x, y, _, cl| a::add_i32(x, y, cl), 2, true),
        Valu::SubI32 | Valu::SubNcI32 => (|x, y, _, cl| a::sub_i32(x, y, cl), 2, true),
        Valu::XnorB32 => (|x, y, _, _| a::xnor_b32(x, y), 2, false),
        Valu::BfmB32 => (|x, y, _, _| a::bfm_b32(x, y), 2, false),
        Valu::FfbhI32 => (|x, _, _, _| a::ffbh_i32(x), 1, false),
        Valu::AddI16 | Valu::AddNcI16 => (
            |x, y, _, cl| a::add_i16(x as u16, y as u16, cl).into(),
            2,
            true,
        ),
        Valu::SubI16 | Valu::SubNcI16 => (
            |x, y, _, cl| a::sub_i16(x as u16, y as u16, cl).into(),
            2,
            true,
        ),
        Valu::MadU32U16 => (
            |x, y, z, cl| a::mad_u32_u16(x as u16, y as u16, z, cl),
            3,
            true,
        ),
        Valu::MadI32I16 => (
            |x, y, z, cl| a::mad_i32_i16(x as u16, y as u16, z, cl),
            3,
            true,
        ),
        Valu::MadU16 | Valu::MadLegacyU16 => (
            |x, y, z, cl| a::mad_u16(x as u16, y as u16, z as u16, cl).into(),
            3,
            true,
        ),
        Valu::MadI16 | Valu::MadLegacyI16 => (
            |x, y, z, cl| a::mad_i16(x as u16, y as u16, z as u16, cl).into(),
            3,
            true,
        ),
        Valu::Min3I16 => (
            |x, y, z, _| a::min3_i16(x as u16, y as u16, z as u16).into(),
            3,
            false,
        ),
        Valu::Max3I16 => (
            |x, y, z, _| a::max3_i16(x as u16, y as u16, z as u16).into(),
            3,
            false,
        ),
        Valu::Med3I16 => (
            |x, y, z, _| a::med3_i16(x as u16, y as u16, z as u16).into(),
            3,
            false,
        ),
        Valu::Min3U16 => (
            |x, y, z, _| a::min3_u16(x as u16, y as u16, z as u16).into(),
            3,
            false,
        ),
        Valu::Max3U16 => (
            |x, y, z, _| a::max3_u16(x as u16, y as u16, z as u16).into(),
            3,
            false,
        ),
        Valu::Med3U16 => (
            |x, y, z, _| a::med3_u16(x as u16, y as u16, z as u16).into(),
            3,
            false,
        ),
        Valu::SadU8 => (|x, y, z, _| a::sad_u8(x, y, z), 3, false),
        Valu::SadHiU8 => (|x, y, z, _| a::sad_hi_u8(x, y, z), 3, false),
        Valu::SadU16 => (|x, y, z, _| a::sad_u16(x, y, z), 3, false),
        Valu::SadU32 => (|x, y, z, _| a::sad_u32(x, y, z), 3, false),
        Valu::MsadU8 => (|x, y, z, _| a::msad_u8(x, y, z), 3, false),
        Valu::LerpU8 => (|x, y, z, _| a::lerp_u8(x, y, z), 3, false),
        Valu::CvtPkI16I32 => (
            |x, y, _, _| alu::cvt::cvt_pk_i16_i32(x as i32, y as i32),
            2,
            false,
        ),
        Valu::CvtPkU16U32 => (|x, y, _, _| alu::cvt::cvt_pk_u16_u32(x, y), 2, false),
        // The halves as selected by op_sel, float neg/abs on bit 15: a bit
        // move, so MODE plays no part.
        Valu::PackB32F16 => return pack_b32_f16(w, i, c),
        _ => return Err(unsupported(w, i, c.pc)),
    };
    let (clamp, omod) = vop3_clamp_omod(i);
    let op_sel = i.encoding().family() == Encoding::Vop3 && i.words()[0] >> 11 & 0xf != 0;
    if omod != 0 || op_sel || (clamp && !clamps) {
        return Err(unsupported(w, i, c.pc));
    }
    let (Some(d), Some(s0)) = (c.dst(0).copied(), c.src(0).copied()) else {
        return Err(unsupported(w, i, c.pc));
    };
    let (s1, s2) = (c.src(1).copied(), c.src(2).copied());
    if (n >= 2 && s1.is_none()) || (n == 3 && s2.is_none()) {
        return Err(unsupported(w, i, c.pc));
    }
    let mut out = [0u32; LANES];
    for (l, o) in out.iter_mut().enumerate() {
        if w.active(l) {
            let rd = |s: Option<Op>| s.map_or(0, |s| v32(w, &s, l));
            *o = f(v32(w, &s0, l), rd(s1), rd(s2), clamp);
        }
    }
    write_lanes32(w, &d, &out);
    Ok(Flow::Continue)
}

/// `v_pack_b32_f16`: `{src1 half, src0 half}`, each half picked by
/// `op_sel` and sign-modified by neg/abs on bit 15.
fn pack_b32_f16(w: &mut Wave, i: &Instruction, c: &Ctx) -> Result<Flow, Stop> {
    let (Some(d), Some(s0), Some(s1)) = (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
    else {
        return Err(unsupported(w, i, c.pc));
    };
    let sel = i.words()[0] >> 11;
    let (clamp, omod) = vop3_clamp_omod(i);
    if clamp || omod != 0 || sel >> 3 & 1 == 1 {
        return Err(unsupported(w, i, c.pc));
    }
    let half = |op: &Op, hi: bool, v: u32| {
        let x = if hi { v >> 16 } else { v & 0xffff };
        alu::float::input_mods::<alu::soft::F16>(u64::from(x), op.abs, op.neg) as u32
    };
    let mut out = [0u32; LANES];
    for (l, o) in out.iter_mut().enumerate() {
        if w.active(l) {
            let lo = half(&s0, sel & 1 == 1, v32(w, &s0, l));
            let hi = half(&s1, sel >> 1 & 1 == 1, v32(w, &s1, l));
            *o = lo | hi << 16;
        }
    }
    write_lanes32(w, &d, &out);
    Ok(Flow::Continue)
}

/// Which [`crate::alu::int`] carry operation [`carry`] runs.
struct Carry;

impl Carry {
    const ADD: u8 = 0;
    const SUB: u8 = 1;
    const SUBREV: u8 = 2;
}

/// VOP2/VOP3b add/sub with carry: dst, carry-out (VCC or an SGPR pair),
/// src0, src1 and, with `CIN`, a carry-in (VCC or src2). Each lane is
/// `alu::int`'s `addc_co_u32`, `subb_co_u32` or `subbrev_co_u32` (`OP`);
/// the carry-out mask is masked by EXEC.
fn carry<const OP: u8, const CIN: bool>(
    x: &mut Core<'_>,
    w: &mut Wave,
    _l: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let (Some(d), Some(s0), Some(s1)) = (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
    else {
        return Err(unsupported(w, i, c.pc));
    };
    let cin_mask = if CIN {
        c.src(2).map_or(w.vcc(), |m| s64(w, m))
    } else {
        0
    };
    let Bufs {
        src: [p0, p1, ..],
        out: [out, ..],
    } = &mut *x.bufs;
    let (va, vb) = (
        c.konst(0).unwrap_or_else(|| src_ref(w, &s0, p0)),
        c.konst(1).unwrap_or_else(|| src_ref(w, &s1, p1)),
    );
    let op = match OP {
        Carry::ADD => alu::int::addc_co_u32,
        Carry::SUB => alu::int::subb_co_u32,
        _ => alu::int::subbrev_co_u32,
    };
    let mut cout = 0u64;
    for l in 0..LANES {
        // No clamp, as before (the µop declines clamped forms).
        let (r, k) = op(va[l], vb[l], cin_mask >> l & 1 == 1, false);
        out[l] = r;
        cout |= u64::from(k) << l;
    }
    cout &= w.exec;
    write_lanes32(w, &d, out);
    match c.dst(1).copied() {
        Some(cd) => s_write64(w, &cd, cout),
        None => w.set_vcc(cout),
    }
    Ok(Flow::Continue)
}

/// A 64-bit source with f64 `abs`/`neg` to a 64-bit result, one active
/// lane at a time (`v_rcp_f64`, `v_floor_f64` …).
fn unary64(
    w: &mut Wave,
    i: &Instruction,
    c: &Ctx,
    f: fn(u64, alu::Mode) -> u64,
) -> Result<Flow, Stop> {
    vop::each::<1, true>(w, i, c, [vop::In::F64], vop::Flag::No, |[a], _| {
        (f(a, md()), false)
    })
}

/// `v_fmac_f64`: `a * b + dst` with one rounding ([`alu::host::fma_f64`]),
/// the destination read without modifiers.
fn fmac_f64(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _l: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let (Some(d), Some(s0), Some(s1)) = (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
    else {
        return Err(unsupported(w, i, c.pc));
    };
    for l in 0..LANES {
        if w.active(l) {
            let a = f64::from_bits(f64_mods(&s0, v64(w, &s0, l)));
            let b = f64::from_bits(f64_mods(&s1, v64(w, &s1, l)));
            let r = alu::host::fma_f64(a, b, f64::from_bits(v64(w, &d, l))).to_bits();
            vwrite(w, &d, l, 0, r as u32);
            vwrite(w, &d, l, 1, (r >> 32) as u32);
        }
    }
    Ok(Flow::Continue)
}

/// `v_cndmask_b32`: src1 where the lane's mask bit (src2, or VCC) is set,
/// else src0 (with `abs`/`neg` on each).
fn cndmask(
    x: &mut Core<'_>,
    w: &mut Wave,
    _l: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let (Some(d), Some(s0), Some(s1)) = (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
    else {
        return Err(unsupported(w, i, c.pc));
    };
    let mask = c.src(2).map_or(w.vcc(), |m| s64(w, m));
    let Bufs {
        src: [p0, p1, ..],
        out: [out, ..],
    } = &mut *x.bufs;
    let (va, vb) = (
        src_f32(w, &s0, c.konst(0), p0),
        src_f32(w, &s1, c.konst(1), p1),
    );
    for (l, o) in out.iter_mut().enumerate() {
        *o = if mask >> l & 1 == 1 {
            vb.at(l)
        } else {
            va.at(l)
        };
    }
    write_lanes32(w, &d, out);
    Ok(Flow::Continue)
}

/// `v_readfirstlane_b32`: the first active lane's value (lane 0 under an
/// empty EXEC) to an SGPR.
fn readfirstlane(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _l: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let (Some(d), Some(s)) = (c.dst(0).copied(), c.src(0).copied()) else {
        return Err(unsupported(w, i, c.pc));
    };
    let lane = if w.exec == 0 {
        0
    } else {
        w.exec.trailing_zeros() as usize
    };
    let v = v32(w, &s, lane);
    s_write32(w, &d, v);
    Ok(Flow::Continue)
}

/// `v_readlane_b32`: the lane the SGPR selects (modulo the wave size) to an
/// SGPR.
fn readlane(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _l: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let (Some(d), Some(s), Some(sel)) = (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
    else {
        return Err(unsupported(w, i, c.pc));
    };
    let lane = (s32(w, &sel) & (w.size.lanes() - 1)) as usize;
    let v = v32(w, &s, lane);
    s_write32(w, &d, v);
    Ok(Flow::Continue)
}

/// `v_writelane_b32`: an SGPR (or constant) into the selected lane, EXEC
/// ignored.
fn writelane(
    _x: &mut Core<'_>,
    w: &mut Wave,
    _l: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let (Some(d), Some(s), Some(sel)) = (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
    else {
        return Err(unsupported(w, i, c.pc));
    };
    let lane = (s32(w, &sel) & (w.size.lanes() - 1)) as usize;
    let v = s32(w, &s);
    vwrite(w, &d, lane, 0, v);
    Ok(Flow::Continue)
}

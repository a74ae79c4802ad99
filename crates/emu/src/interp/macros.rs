//! Handler-building macros shared by the instruction families (each
//! expands to a `fn` of type [`Handler`](super::Handler)).

/// u32 lane ops (no output modifiers): every lane computed by a
/// vectorised loop, the active ones written.
macro_rules! valu_u32 {
    (|$a:ident, $b:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            if vop3_clamp_omod(_i) != (false, 0) {
                return Err(unsupported(w, _i, c.pc));
            }
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Err(unsupported(w, _i, c.pc));
            };
            let Bufs {
                src: [p0, p1, ..],
                out: [out, ..],
            } = &mut *_x.bufs;
            let (va, vb) = (
                src_u32(w, &s0, c.konst(0), p0),
                src_u32(w, &s1, c.konst(1), p1),
            );
            lanes::map2_u32(out, va, vb, |$a, $b| $e);
            write_lanes32(w, &d, out);
            Ok(Flow::Continue)
        }
        h as Handler
    }};
    (|$a:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            if vop3_clamp_omod(_i) != (false, 0) {
                return Err(unsupported(w, _i, c.pc));
            }
            let (Some(d), Some(s0)) = (c.dst(0).copied(), c.src(0).copied()) else {
                return Err(unsupported(w, _i, c.pc));
            };
            let Bufs {
                src: [p0, ..],
                out: [out, ..],
            } = &mut *_x.bufs;
            let va = src_u32(w, &s0, c.konst(0), p0);
            lanes::map1_u32(out, va, |$a| $e);
            write_lanes32(w, &d, out);
            Ok(Flow::Continue)
        }
        h as Handler
    }};
    (|$a:ident, $b:ident, $c2:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            if vop3_clamp_omod(_i) != (false, 0) {
                return Err(unsupported(w, _i, c.pc));
            }
            let (Some(d), Some(s0), Some(s1), Some(s2)) = (
                c.dst(0).copied(),
                c.src(0).copied(),
                c.src(1).copied(),
                c.src(2).copied(),
            ) else {
                return Err(unsupported(w, _i, c.pc));
            };
            let Bufs {
                src: [p0, p1, p2, ..],
                out: [out, ..],
            } = &mut *_x.bufs;
            let (va, vb, vc) = (
                src_u32(w, &s0, c.konst(0), p0),
                src_u32(w, &s1, c.konst(1), p1),
                src_u32(w, &s2, c.konst(2), p2),
            );
            lanes::map3_u32(out, va, vb, vc, |$a, $b, $c2| $e);
            write_lanes32(w, &d, out);
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

/// f32 lane ops with source modifiers and clamp/omod. Without output
/// modifiers (the common case) the lanes run in a vectorised loop with
/// hardware FMA when the CPU has it ([`lanes`]).
macro_rules! valu_f32 {
    (|$a:ident, $b:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Err(unsupported(w, i, c.pc));
            };
            let (clamp, omod) = vop3_clamp_omod(i);
            let fz = Flush::f32(w.mode);
            let Bufs {
                src: [p0, p1, ..],
                out: [out, ..],
            } = &mut *_x.bufs;
            let (va, vb) = (
                src_f32(w, &s0, c.konst(0), p0),
                src_f32(w, &s1, c.konst(1), p1),
            );
            let (fi, fo) = (fz.input, fz.output);
            if clamp || omod != 0 {
                lanes::map2_f32(out, va, vb, fi, fo, |$a, $b| {
                    apply_omod_clamp_f32($e, clamp, omod)
                });
            } else {
                lanes::map2_f32(out, va, vb, fi, fo, |$a, $b| $e);
            }
            write_lanes32(w, &d, out);
            Ok(Flow::Continue)
        }
        h as Handler
    }};
    (|$a:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0)) = (c.dst(0).copied(), c.src(0).copied()) else {
                return Err(unsupported(w, i, c.pc));
            };
            let (clamp, omod) = vop3_clamp_omod(i);
            let fz = Flush::f32(w.mode);
            let Bufs {
                src: [p0, ..],
                out: [out, ..],
            } = &mut *_x.bufs;
            let va = src_f32(w, &s0, c.konst(0), p0);
            let (fi, fo) = (fz.input, fz.output);
            if clamp || omod != 0 {
                lanes::map1_f32(out, va, fi, fo, |$a| apply_omod_clamp_f32($e, clamp, omod));
            } else {
                lanes::map1_f32(out, va, fi, fo, |$a| $e);
            }
            write_lanes32(w, &d, out);
            Ok(Flow::Continue)
        }
        h as Handler
    }};
    (|$a:ident, $b:ident, $c2:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0), Some(s1), Some(s2)) = (
                c.dst(0).copied(),
                c.src(0).copied(),
                c.src(1).copied(),
                c.src(2).copied(),
            ) else {
                return Err(unsupported(w, i, c.pc));
            };
            let (clamp, omod) = vop3_clamp_omod(i);
            let fz = Flush::f32(w.mode);
            let Bufs {
                src: [p0, p1, p2, ..],
                out: [out, ..],
            } = &mut *_x.bufs;
            let (va, vb, vc) = (
                src_f32(w, &s0, c.konst(0), p0),
                src_f32(w, &s1, c.konst(1), p1),
                src_f32(w, &s2, c.konst(2), p2),
            );
            let (fi, fo) = (fz.input, fz.output);
            if clamp || omod != 0 {
                lanes::map3_f32(out, va, vb, vc, fi, fo, |$a, $b, $c2| {
                    apply_omod_clamp_f32($e, clamp, omod)
                });
            } else {
                lanes::map3_f32(out, va, vb, vc, fi, fo, |$a, $b, $c2| $e);
            }
            write_lanes32(w, &d, out);
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

macro_rules! valu_f64 {
    (|$a:ident, $b:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Err(unsupported(w, i, c.pc));
            };
            let (clamp, omod) = vop3_clamp_omod(i);
            let fz = Flush::f64(w.mode);
            let (va, vb) = (lanes64(w, &s0), lanes64(w, &s1));
            let mut out = [0u64; LANES];
            for l in 0..LANES {
                let $a = fz.in64(f64::from_bits(f64_mods(&s0, va[l])));
                let $b = fz.in64(f64::from_bits(f64_mods(&s1, vb[l])));
                let r: f64 = $e;
                out[l] = fz.out64(apply_omod_clamp_f64(r, clamp, omod)).to_bits();
            }
            write_lanes64(w, &d, &out);
            Ok(Flow::Continue)
        }
        h as Handler
    }};
    (|$a:ident, $b:ident, $c2:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0), Some(s1), Some(s2)) = (
                c.dst(0).copied(),
                c.src(0).copied(),
                c.src(1).copied(),
                c.src(2).copied(),
            ) else {
                return Err(unsupported(w, i, c.pc));
            };
            let (clamp, omod) = vop3_clamp_omod(i);
            let fz = Flush::f64(w.mode);
            let (va, vb, vc) = (lanes64(w, &s0), lanes64(w, &s1), lanes64(w, &s2));
            let mut out = [0u64; LANES];
            for l in 0..LANES {
                let $a = fz.in64(f64::from_bits(f64_mods(&s0, va[l])));
                let $b = fz.in64(f64::from_bits(f64_mods(&s1, vb[l])));
                let $c2 = fz.in64(f64::from_bits(f64_mods(&s2, vc[l])));
                let r: f64 = $e;
                out[l] = fz.out64(apply_omod_clamp_f64(r, clamp, omod)).to_bits();
            }
            write_lanes64(w, &d, &out);
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

macro_rules! mad64 {
    ($signed:literal) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _l: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0), Some(s1), Some(s2)) = (
                c.dst(0).copied(),
                c.src(0).copied(),
                c.src(1).copied(),
                c.src(2).copied(),
            ) else {
                return Err(unsupported(w, _i, c.pc));
            };
            let mut cout = 0u64;
            for l in 0..LANES {
                if w.active(l) {
                    let (a, b, acc) = (v32(w, &s0, l), v32(w, &s1, l), v64(w, &s2, l));
                    let (r, carry) = if $signed {
                        let p =
                            i128::from(a as i32) * i128::from(b as i32) + i128::from(acc as i64);
                        (
                            p as u64,
                            p > i128::from(i64::MAX) || p < i128::from(i64::MIN),
                        )
                    } else {
                        let p = u128::from(a) * u128::from(b) + u128::from(acc);
                        (p as u64, p >> 64 != 0)
                    };
                    vwrite(w, &d, l, 0, r as u32);
                    vwrite(w, &d, l, 1, (r >> 32) as u32);
                    cout |= u64::from(carry) << l;
                }
            }
            if let Some(cd) = c.dst(1).copied() {
                s_write64(w, &cd, cout);
            }
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

macro_rules! mbcnt {
    ($hi:literal) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _l: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Err(unsupported(w, _i, c.pc));
            };
            for l in 0..LANES {
                if w.active(l) {
                    let mask = v32(w, &s0, l);
                    let below = if $hi {
                        if l >= 32 {
                            mask & ((1u64 << (l - 32)) - 1) as u32
                        } else {
                            0
                        }
                    } else if l >= 32 {
                        mask
                    } else {
                        mask & ((1u64 << l) - 1) as u32
                    };
                    let v = below.count_ones().wrapping_add(v32(w, &s1, l));
                    vwrite(w, &d, l, 0, v);
                }
            }
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

/// `v_mac`/`v_fmac`: the destination is also the addend.
macro_rules! mac_f32 {
    (|$a:ident, $b:ident, $c2:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Err(unsupported(w, i, c.pc));
            };
            let (clamp, omod) = vop3_clamp_omod(i);
            let fz = Flush::f32(w.mode);
            let Bufs {
                src: [p0, p1, p2, ..],
                out: [out, ..],
            } = &mut *_x.bufs;
            let (va, vb) = (
                src_f32(w, &s0, c.konst(0), p0),
                src_f32(w, &s1, c.konst(1), p1),
            );
            let vc = lanes::Src::f32(src_ref(w, &d, p2), false, false);
            let (fi, fo) = (fz.input, fz.output);
            if clamp || omod != 0 {
                lanes::map3_f32(out, va, vb, vc, fi, fo, |$a, $b, $c2| {
                    apply_omod_clamp_f32($e, clamp, omod)
                });
            } else {
                lanes::map3_f32(out, va, vb, vc, fi, fo, |$a, $b, $c2| $e);
            }
            write_lanes32(w, &d, out);
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

macro_rules! unary64 {
    (|$a:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0)) = (c.dst(0).copied(), c.src(0).copied()) else {
                return Err(unsupported(w, _i, c.pc));
            };
            for l in 0..LANES {
                if w.active(l) {
                    let $a = f64_mods(&s0, v64(w, &s0, l));
                    let r: u64 = $e;
                    vwrite(w, &d, l, 0, r as u32);
                    vwrite(w, &d, l, 1, (r >> 32) as u32);
                }
            }
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

macro_rules! unary64_from32 {
    (|$a:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0)) = (c.dst(0).copied(), c.src(0).copied()) else {
                return Err(unsupported(w, _i, c.pc));
            };
            for l in 0..LANES {
                if w.active(l) {
                    let $a = f32_mods(&s0, v32(w, &s0, l));
                    let r: u64 = $e;
                    vwrite(w, &d, l, 0, r as u32);
                    vwrite(w, &d, l, 1, (r >> 32) as u32);
                }
            }
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

macro_rules! unary32_from64 {
    (|$a:ident| $e:expr) => {{
        fn h(
            _x: &mut Core<'_>,
            w: &mut Wave,
            _lds: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0)) = (c.dst(0).copied(), c.src(0).copied()) else {
                return Err(unsupported(w, _i, c.pc));
            };
            for l in 0..LANES {
                if w.active(l) {
                    let $a = f64_mods(&s0, v64(w, &s0, l));
                    let r: u32 = $e;
                    vwrite(w, &d, l, 0, r);
                }
            }
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

/// 64-bit shifts (`v_lshlrev_b64` and kin): `dst = f(src1, src0 & 63)` per
/// lane, the 64-bit source read in place as two rows, the result written
/// as two rows in the active lanes.
macro_rules! shift64 {
    (|$v:ident, $s:ident| $e:expr) => {{
        fn h(
            x: &mut Core<'_>,
            w: &mut Wave,
            _l: &mut [u8],
            _i: &Instruction,
            c: &Ctx,
        ) -> Result<Flow, Stop> {
            let (Some(d), Some(s0), Some(s1)) =
                (c.dst(0).copied(), c.src(0).copied(), c.src(1).copied())
            else {
                return Err(unsupported(w, _i, c.pc));
            };
            let Bufs {
                src: [p0, p1, p2, ..],
                out: [lo, hi],
            } = &mut *x.bufs;
            let sh = c.konst(0).unwrap_or_else(|| src_ref(w, &s0, p0));
            let (vlo, vhi) = src64(w, &s1, p1, p2);
            for l in 0..LANES {
                let $v = u64::from(vlo[l]) | u64::from(vhi[l]) << 32;
                let $s = sh[l] & 63;
                let r: u64 = $e;
                lo[l] = r as u32;
                hi[l] = (r >> 32) as u32;
            }
            write_lanes32(w, &d, lo);
            write_lanes32(w, &next_reg(&d), hi);
            Ok(Flow::Continue)
        }
        h as Handler
    }};
}

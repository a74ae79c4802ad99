//! GFX11's true16 operands (D77): an opcode whose 16-bit operands are
//! halves of VGPRs (`v1.l`, `v1.h`; the decoder sets [`Op::hi`] from bit 7
//! of an e32 register field or from a VOP3 `op_sel` bit). The row's own
//! handler reads a 16-bit source from the low half of a VGPR and writes a
//! 16-bit result with its high half zeroed (GFX9's rule), so this wrapper
//! moves each `.h` source into the low half of a temporary, runs the
//! handler into a temporary destination (with VOP3's `op_sel` bits, now
//! spent, cleared), and writes the result's low 16 bits into the half the
//! destination names, leaving the other half as it was (a true16 result
//! is a 16-bit register). 32-bit operands of the same opcode (`v_cvt_f16_f32`'s
//! source, `v_cvt_f32_f16`'s destination) are used as they are.

use super::*;

use lathe_isa::opcode::mods::T16;

/// Whether `op` (an opcode) has true16 operands: its handler is [`t16`].
pub(super) fn has_t16(op: Opcode) -> bool {
    op.info().operands().iter().any(|s| s.mods & T16 != 0)
}

/// Runs the row's handler (its `Sem::Valu` or `Sem::Cmp` one) on the
/// halves its true16 operands name.
pub(super) fn t16(
    x: &mut Core<'_>,
    w: &mut Wave,
    lds: &mut [u8],
    i: &Instruction,
    c: &Ctx,
) -> Result<Flow, Stop> {
    let inner = match c.sem {
        Sem::Valu(op) => valu::handler(op),
        Sem::Cmp(cm) => cmp::handler(cm),
        _ => None,
    };
    let Some(h) = inner else {
        return Err(unsupported(w, i, c.pc));
    };
    let exec = w.exec;
    let mut ops = *c.ops;
    let mut staged = 0u16;
    let mut dst: Option<(usize, Op)> = None;
    for k in 0..ops.len {
        let Some(op) = ops.ops[k] else { continue };
        let Operand::Reg(r) = op.value else { continue };
        if op.spec.mods & T16 == 0 || r.file != RegFile::Vgpr || op.field() == Field::Implicit {
            continue;
        }
        if op.access() != lathe_isa::opcode::Access::R {
            dst = Some((k, op));
            continue;
        }
        if !op.hi {
            continue;
        }
        // Temporaries 0-2 take `.h` sources, 3 the destination.
        if staged > 2 {
            return Err(unsupported(w, i, c.pc));
        }
        let reg = w.temp_base() + staged as usize;
        for l in 0..LANES {
            if exec >> l & 1 == 1 {
                w.vgpr[reg][l] = v32(w, &op, l) >> 16;
            }
        }
        let mut nop = op;
        nop.value = tmp_reg(w, staged, 1);
        nop.hi = false;
        ops.set(k, nop);
        staged += 1;
    }
    if let Some((k, d)) = dst {
        let mut nd = d;
        nd.value = tmp_reg(w, 3, 1);
        nd.hi = false;
        ops.set(k, nd);
    }
    // VOP3's op_sel bits (14:11 of word 0) said which halves; the operands
    // now hold them in their low halves, so the handler sees none.
    let cleared;
    let inst = if i.encoding().family() == Encoding::Vop3 && i.words()[0] >> 11 & 0xf != 0 {
        let mut bytes = [0u8; 12];
        for (b, word) in bytes.chunks_mut(4).zip(i.words()) {
            b.copy_from_slice(&word.to_le_bytes());
        }
        bytes[1] &= !0x78;
        cleared = decode(i.target(), &bytes[..i.len()]);
        &cleared
    } else {
        i
    };
    let flow = h(
        x,
        w,
        lds,
        inst,
        &Ctx {
            pc: c.pc,
            sem: c.sem,
            ops: &ops,
            target: c.target,
            consts: None,
        },
    )?;
    if let Some((_, d)) = dst {
        let Operand::Reg(r) = d.value else {
            unreachable!("a VGPR destination")
        };
        let (t, f) = (w.temp_base() + 3, r.first as usize);
        if f >= w.temp_base() {
            return Err(unsupported(w, i, c.pc));
        }
        for l in 0..LANES {
            if exec >> l & 1 == 1 {
                let (old, v) = (w.vgpr[f][l], w.vgpr[t][l] & 0xffff);
                w.vgpr[f][l] = if d.hi {
                    old & 0xffff | v << 16
                } else {
                    old & 0xffff_0000 | v
                };
            }
        }
    }
    Ok(flow)
}

//! Typed operand values ([`Operand`]) and the decoded operand list of an
//! instruction ([`Op`], [`Operands`]).

use crate::opcode::{Access, Field, Kind, OperandSpec, Ty};
use crate::reg::RegRange;

/// Inline floating-point constants (source encodings 240..=248).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum InlineFloat {
    /// 0.5
    Half = 240,
    /// -0.5
    MinusHalf = 241,
    /// 1.0
    One = 242,
    /// -1.0
    MinusOne = 243,
    /// 2.0
    Two = 244,
    /// -2.0
    MinusTwo = 245,
    /// 4.0
    Four = 246,
    /// -4.0
    MinusFour = 247,
    /// 1/(2*pi)
    InvTwoPi = 248,
}

impl InlineFloat {
    /// From a source encoding (240..=248).
    pub fn from_encoding(v: u16) -> Option<InlineFloat> {
        use InlineFloat::*;
        Some(match v {
            240 => Half,
            241 => MinusHalf,
            242 => One,
            243 => MinusOne,
            244 => Two,
            245 => MinusTwo,
            246 => Four,
            247 => MinusFour,
            248 => InvTwoPi,
            _ => return None,
        })
    }

    /// The value as `f64`.
    pub fn value(self) -> f64 {
        use InlineFloat::*;
        match self {
            Half => 0.5,
            MinusHalf => -0.5,
            One => 1.0,
            MinusOne => -1.0,
            Two => 2.0,
            MinusTwo => -2.0,
            Four => 4.0,
            MinusFour => -4.0,
            InvTwoPi => 0.159_154_943_091_895_35,
        }
    }

    /// Bit pattern as an IEEE single.
    pub fn f32_bits(self) -> u32 {
        match self {
            InlineFloat::InvTwoPi => 0x3E22_F983,
            _ => (self.value() as f32).to_bits(),
        }
    }

    /// Bit pattern as an IEEE double.
    pub fn f64_bits(self) -> u64 {
        match self {
            InlineFloat::InvTwoPi => 0x3FC4_5F30_6DC9_C882,
            _ => self.value().to_bits(),
        }
    }

    /// Bit pattern as an IEEE half.
    pub fn f16_bits(self) -> u16 {
        use InlineFloat::*;
        match self {
            Half => 0x3800,
            MinusHalf => 0xB800,
            One => 0x3C00,
            MinusOne => 0xBC00,
            Two => 0x4000,
            MinusTwo => 0xC000,
            Four => 0x4400,
            MinusFour => 0xC400,
            InvTwoPi => 0x3118,
        }
    }

    /// LLVM's spelling (`0.5`, `0.15915494`); `f64` selects the
    /// double-precision spelling of 1/(2*pi).
    pub fn name(self, f64: bool) -> &'static str {
        use InlineFloat::*;
        match self {
            Half => "0.5",
            MinusHalf => "-0.5",
            One => "1.0",
            MinusOne => "-1.0",
            Two => "2.0",
            MinusTwo => "-2.0",
            Four => "4.0",
            MinusFour => "-4.0",
            InvTwoPi if f64 => "0.15915494309189532",
            InvTwoPi => "0.15915494",
        }
    }
}

/// The value of one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Operand {
    /// A register range.
    Reg(RegRange),
    /// Inline integer constant (-16..=64; encodings 128..=208).
    Int(i8),
    /// Inline float constant.
    Float(InlineFloat),
    /// The instruction's 32-bit literal (encoding 255, or madmk/madak K).
    Literal(u32),
    /// GFX12.5's 64-bit literal: source encoding 254 or `v_fmamk_f64`'s K,
    /// two trailing dwords (D54).
    Literal64(u64),
    /// A non-register immediate field (simm16, hwreg, waitcnt, SMEM offset,
    /// `s_set_gpr_idx_on` mode, ...).
    Imm(i64),
    /// PC-relative branch offset, in dwords, from the next instruction.
    Branch(i16),
    /// `off`: no register (FLAT/buffer addressing).
    Off,
    /// A field value LLVM decodes but that names nothing valid (reserved
    /// encodings), kept raw.
    Raw(u16),
}

impl Operand {
    /// The register range, for register operands.
    pub fn reg(&self) -> Option<RegRange> {
        match self {
            Operand::Reg(r) => Some(*r),
            _ => None,
        }
    }
}

/// One decoded operand: its value, its static description and the source
/// modifiers applied to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Op {
    /// Value.
    pub value: Operand,
    /// Static description (field, kind, width, type, access).
    pub spec: OperandSpec,
    /// `neg` source modifier (`-x`).
    pub neg: bool,
    /// `abs` source modifier (`|x|`).
    pub abs: bool,
    /// `sext` source modifier (SDWA integer sources).
    pub sext: bool,
    /// For a true16 operand (GFX11+, [`mods::T16`](crate::opcode::mods::T16)):
    /// the high half of the VGPR (`v0.h`; `v0.l` when false).
    pub hi: bool,
}

impl Op {
    pub(crate) fn new(value: Operand, spec: OperandSpec) -> Op {
        Op {
            value,
            spec,
            neg: false,
            abs: false,
            sext: false,
            hi: false,
        }
    }

    /// Field the operand comes from.
    pub fn field(&self) -> Field {
        self.spec.field
    }
    /// Operand kind.
    pub fn kind(&self) -> Kind {
        self.spec.kind
    }
    /// Read/write.
    pub fn access(&self) -> Access {
        self.spec.access
    }
    /// Constant type.
    pub fn ty(&self) -> Ty {
        self.spec.ty
    }
}

/// Maximum operands of one instruction.
pub const MAX_OPERANDS: usize = 8;

/// The operands of an instruction (no allocation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Operands {
    ops: [Op; MAX_OPERANDS],
    len: u8,
}

const EMPTY_SPEC: OperandSpec = OperandSpec {
    field: Field::Implicit,
    kind: Kind::Unknown,
    width: 0,
    ty: Ty::None,
    access: Access::R,
    mods: 0,
    rc: u8::MAX,
    pos: [0, 0, 0],
};

/// An empty list, built once at compile time: `operands()` starts from a
/// copy of it for every cold line (building it op by op stalled on
/// store forwarding, D73).
const EMPTY_OPERANDS: Operands = Operands {
    ops: [Op {
        value: Operand::Off,
        spec: EMPTY_SPEC,
        neg: false,
        abs: false,
        sext: false,
        hi: false,
    }; MAX_OPERANDS],
    len: 0,
};

impl Default for Operands {
    #[inline]
    fn default() -> Self {
        EMPTY_OPERANDS
    }
}

impl Operands {
    pub(crate) fn push(&mut self, op: Op) {
        if let Some(slot) = self.ops.get_mut(self.len as usize) {
            *slot = op;
            self.len += 1;
        }
    }

    pub(crate) fn insert(&mut self, at: usize, op: Op) {
        let n = self.len as usize;
        if n >= MAX_OPERANDS || at > n {
            return;
        }
        let mut i = n;
        while i > at {
            self.ops[i] = self.ops[i - 1];
            i -= 1;
        }
        self.ops[at] = op;
        self.len += 1;
    }

    pub(crate) fn remove(&mut self, at: usize) {
        let n = self.len as usize;
        if at >= n {
            return;
        }
        for i in at..n - 1 {
            self.ops[i] = self.ops[i + 1];
        }
        self.len -= 1;
    }

    /// The operands as a slice.
    pub fn as_slice(&self) -> &[Op] {
        &self.ops[..self.len as usize]
    }

    pub(crate) fn as_mut_slice(&mut self) -> &mut [Op] {
        &mut self.ops[..self.len as usize]
    }
}

impl std::ops::Deref for Operands {
    type Target = [Op];
    fn deref(&self) -> &[Op] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a Operands {
    type Item = &'a Op;
    type IntoIter = std::slice::Iter<'a, Op>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

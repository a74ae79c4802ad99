//! VALU/SALU arithmetic semantics (being written).

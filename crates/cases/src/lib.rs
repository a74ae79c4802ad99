//! Emulator verification corpus (being written).

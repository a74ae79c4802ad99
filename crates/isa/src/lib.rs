//! `lathe-isa`: AMDGPU machine code.

//! `lathe-codeobj`: AMDGPU ELF code objects.

//! `lathe disasm` (waits for the ISA crate's listing API).

use anyhow::Result;

use crate::output::Ctx;
use crate::DisasmArgs;

/// `lathe disasm`.
pub fn run(_ctx: &Ctx, _a: DisasmArgs) -> Result<()> {
    anyhow::bail!("lathe disasm: not available yet")
}

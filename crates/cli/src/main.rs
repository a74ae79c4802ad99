//! The `lathe` command.
fn main() {}

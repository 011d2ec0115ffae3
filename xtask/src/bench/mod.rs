//! `cargo xtask bench ...`: measurements with a reference run in the same invocation.

use crate::util::Result;
use clap::Subcommand;

#[derive(Subcommand)]
pub enum Which {
    /// Emulated MHz of this emulator against simavr on a CPU-heavy ELF
    Emulator,
}

pub fn run(which: Which) -> Result {
    match which {
        Which::Emulator => Err("the emulator benchmark arrives with the emulator core (issue 3)".into()),
    }
}

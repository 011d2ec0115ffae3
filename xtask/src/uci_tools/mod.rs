//! `cargo xtask suite`, `match` and `endgames`: the firmware, through the
//! `board-sim uci` bridge, on test positions, against a reference engine
//! and in the basic mating endings.

pub mod endgames;
pub mod host_engine;
pub mod match_;
pub mod match_diff;
pub mod suite;
pub mod uci_client;

use crate::util::{root, Result};
use std::path::PathBuf;

/// The engine under test: `--engine CMD` if given, else `board-sim uci`
/// on `--elf` (or the firmware, built now), with board-sim built in release.
pub fn engine_under_test(engine: Option<&str>, elf: Option<PathBuf>) -> Result<Vec<String>> {
    if let Some(cmd) = engine {
        let cmd = uci_client::split_command(cmd);
        if cmd.is_empty() {
            return Err("--engine is empty".into());
        }
        return Ok(cmd);
    }
    let elf = match elf {
        Some(e) => e,
        None => crate::firmware::build()?,
    };
    if !elf.exists() {
        return Err(format!("no firmware at {}", elf.display()));
    }
    println!("== building board-sim (release) for the UCI bridge");
    crate::util::cargo_host(&["build", "--release", "--quiet", "-p", "board-sim"], &[])?;
    let bridge = root().join("target/release/board-sim");
    Ok(vec![bridge.display().to_string(), "uci".into(), elf.display().to_string()])
}

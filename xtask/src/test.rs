//! `cargo xtask test`: everything CI checks, in the order that fails fastest.

use crate::util::{run as sh, Result};
use std::process::Command;

pub fn run() -> Result {
    crate::setup::run(false)?;
    let fw = crate::firmware::build_and_report()?;
    crate::ram::check(&fw.elf, false)?;
    println!("== test: host tests of every crate and end-to-end tests on the firmware image");
    // One build in the `ci` profile (optimised, with overflow checks) runs the
    // unit tests and the slow, #[ignore]d end-to-end and deep perft tests.
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.args(["test", "--workspace", "--profile", "ci", "--", "--include-ignored"]).env("PRODIGY_ELF", &fw.elf);
    sh(&mut cmd)?;
    println!("== test: all passed");
    Ok(())
}

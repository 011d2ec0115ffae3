//! `cargo xtask firmware`: the real AVR image, built the one way it is built.

use crate::size::{SizeReport, FLASH_BYTES, SRAM_BYTES};
use crate::util::{root, run, Result};
use std::path::PathBuf;
use std::process::Command;

pub struct Firmware {
    pub elf: PathBuf,
}

/// Where the release ELF lands.
pub fn elf_path() -> PathBuf {
    root().join("target/avr-none/avr/prodigy.elf")
}

/// Builds the firmware with the nightly toolchain for avr-none.
pub fn build() -> Result<PathBuf> {
    crate::setup::ensure(crate::setup::Scope::Build, false)?;
    println!("== firmware: building the AVR image (nightly, avr-none, atmega644, profile avr)");
    if !crate::util::have("avr-gcc") {
        return Err("avr-gcc not found: the firmware is linked by avr-gcc.\n  fix: cargo xtask setup".into());
    }
    let mut cmd = Command::new("rustup");
    cmd.args(["run", "nightly", "cargo", "build", "-p", "firmware", "--features", "avr", "--bin", "prodigy"])
        .args(["--target", "avr-none", "-Z", "build-std=core", "--profile", "avr"])
        // The outer `cargo xtask` runs on stable; do not leak its choices inward.
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("RUSTC")
        .env_remove("RUSTC_WRAPPER")
        .env_remove("CARGO");
    run(&mut cmd)?;
    let elf = elf_path();
    if !elf.exists() {
        return Err(format!("the build succeeded but {} is missing", elf.display()));
    }
    Ok(elf)
}

/// Builds, prints the path and the size table, and enforces the static budgets.
pub fn build_and_report() -> Result<Firmware> {
    let elf = build()?;
    let size = SizeReport::from_file(&elf)?;
    println!("firmware: {}", elf.display());
    print!("{}", size.table());
    if size.flash() > FLASH_BYTES {
        return Err(format!("flash budget exceeded: {} > {FLASH_BYTES} B", size.flash()));
    }
    if size.static_ram() > SRAM_BYTES {
        return Err(format!("static RAM budget exceeded: {} > {SRAM_BYTES} B", size.static_ram()));
    }
    Ok(Firmware { elf })
}

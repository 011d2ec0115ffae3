//! `cargo xtask setup`: make a fresh machine ready, idempotently.

use crate::util::{have, run as sh, Result};
use std::process::Command;

/// Debian packages and why the project needs them.
const BUILD_PACKAGES: &[(&str, &str)] = &[
    ("gcc-avr", "links the firmware (avr-gcc)"),
    ("binutils-avr", "avr-objdump/avr-as for tests"),
    ("avr-libc", "C runtime start-up and register headers"),
];

/// Only the tests and benchmarks need these.
const TEST_PACKAGES: &[(&str, &str)] = &[
    ("simavr", "reference emulator for differential tests and benchmarks"),
    ("libsimavr-dev", "simavr headers"),
    ("gdb-avr", "avr-gdb for the debugger-protocol test"),
];

/// What to make sure of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Enough to build the firmware.
    Build,
    /// Everything the tests need too.
    Test,
}

pub fn run(check_only: bool) -> Result {
    ensure(Scope::Test, check_only)
}

/// Checks (and unless `check_only`, installs) what `scope` needs.
pub fn ensure(scope: Scope, check_only: bool) -> Result {
    // One check per xtask run is enough: `test` checks everything first and
    // then builds the firmware, which would ask again for less.
    static CHECKED: std::sync::Mutex<Option<Scope>> = std::sync::Mutex::new(None);
    let mut checked = CHECKED.lock().unwrap_or_else(|e| e.into_inner());
    if !check_only && (*checked == Some(Scope::Test) || *checked == Some(scope)) {
        return Ok(());
    }
    ensure_now(scope, check_only)?;
    if !check_only {
        *checked = Some(scope);
    }
    Ok(())
}

fn ensure_now(scope: Scope, check_only: bool) -> Result {
    println!("== setup: checking the toolchain{}", if scope == Scope::Test { " and test oracles" } else { "" });
    let mut missing_rust = Vec::new();
    if !nightly_installed() {
        return Err("the `nightly` Rust toolchain is not installed; the firmware needs it.\n  fix: rustup toolchain install nightly --profile minimal".into());
    }
    if !rust_src_installed() {
        missing_rust.push("rust-src");
    }
    if !missing_rust.is_empty() {
        if check_only {
            println!("missing: rust-src for nightly (fix: rustup component add rust-src --toolchain nightly)");
        } else {
            sh(Command::new("rustup").args(["component", "add", "rust-src", "--toolchain", "nightly"]))?;
        }
    } else {
        println!("ok: nightly toolchain with rust-src");
    }

    let wanted: Vec<(&str, &str)> = match scope {
        Scope::Build => BUILD_PACKAGES.to_vec(),
        Scope::Test => BUILD_PACKAGES.iter().chain(TEST_PACKAGES).copied().collect(),
    };
    let missing: Vec<&str> = wanted.iter().filter(|(p, _)| !deb_installed(p)).map(|(p, _)| *p).collect();
    for (p, why) in &wanted {
        let state = if missing.contains(p) { "missing" } else { "ok" };
        println!("{state}: {p} ({why})");
    }
    install(&missing, check_only)
}

/// The path of a reference engine from Debian (`match`, `book check`),
/// installing its package when the binary is not there. The binary, not the
/// package, is checked: one put there by hand serves as well.
pub fn debian_engine(package: &str, why: &str) -> Result<String> {
    let path = format!("/usr/games/{package}");
    if !std::path::Path::new(&path).exists() {
        println!("== setup: {path} is missing ({why}); installing the package {package}");
        install(&[package], false)?;
    }
    Ok(path)
}

fn install(missing: &[&str], check_only: bool) -> Result {
    if missing.is_empty() {
        return Ok(());
    }
    let install = format!("apt-get update && apt-get install -y {}", missing.join(" "));
    if check_only {
        return Err(format!("packages missing; fix: {install}"));
    }
    if !is_root() {
        return Err(format!("packages missing and not running as root; fix: sudo sh -c '{install}'"));
    }
    if !have("apt-get") {
        return Err(format!("packages missing and no apt-get here; install: {}", missing.join(" ")));
    }
    sh(Command::new("apt-get").arg("update").arg("-qq"))?;
    sh(Command::new("apt-get").env("DEBIAN_FRONTEND", "noninteractive").args(["install", "-y", "-qq"]).args(missing))?;
    Ok(())
}

fn nightly_installed() -> bool {
    Command::new("rustup")
        .args(["run", "nightly", "rustc", "--version"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn rust_src_installed() -> bool {
    Command::new("rustup")
        .args(["component", "list", "--toolchain", "nightly", "--installed"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).lines().any(|l| l.starts_with("rust-src")))
        .unwrap_or(false)
}

fn deb_installed(package: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", package])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("install ok installed"))
        .unwrap_or(false)
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0").unwrap_or(false)
}

//! Test helpers: assemble or compile tiny programs with the AVR toolchain
//! and run them on the emulator.
#![allow(dead_code)]

use emulator::{Avr, Config, RunLimit, Stop};
use std::ffi::OsStr;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::process::Command;
use tempfile::TempDir;

/// Fails the test with a clear message when a tool is missing.
pub fn require_tool(tool: &str) {
    let found = Command::new(tool).arg("--version").output().is_ok();
    assert!(found, "`{tool}` is not installed: run `cargo xtask setup` (it installs the AVR toolchain and simavr)");
}

/// A fresh scratch directory for one test, removed when dropped.
pub fn scratch_dir() -> TempDir {
    tempfile::Builder::new().prefix("emulator-test-").tempdir().expect("create scratch dir")
}

/// A compiled ELF file; its scratch directory goes when this is dropped.
pub struct CompiledElf {
    path: PathBuf,
    _dir: TempDir,
}

impl Deref for CompiledElf {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<OsStr> for CompiledElf {
    fn as_ref(&self) -> &OsStr {
        self.path.as_os_str()
    }
}

fn run_tool(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e} (run `cargo xtask setup`)"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Assembles `source` (GNU as syntax) for the ATmega644 into an ELF file.
pub fn assemble_elf(source: &str, dir: &Path) -> PathBuf {
    require_tool("avr-as");
    require_tool("avr-ld");
    let src = dir.join("prog.s");
    let obj = dir.join("prog.o");
    let elf = dir.join("prog.elf");
    std::fs::write(&src, format!(".text\n.global main\nmain:\n{source}\n")).unwrap();
    run_tool(Command::new("avr-as").arg("-mmcu=atmega644").arg("-o").arg(&obj).arg(&src));
    run_tool(Command::new("avr-ld").arg("-mavr5").arg("-o").arg(&elf).arg(&obj));
    elf
}

/// Assembles `source` into a raw flash image starting at address 0.
pub fn assemble(source: &str) -> Vec<u8> {
    require_tool("avr-objcopy");
    let dir = scratch_dir();
    let elf = assemble_elf(source, dir.path());
    let bin = dir.path().join("prog.bin");
    run_tool(Command::new("avr-objcopy").args(["-O", "binary"]).arg(&elf).arg(&bin));
    std::fs::read(&bin).unwrap()
}

/// Compiles C sources with avr-gcc (-Os, atmega644) into an ELF file's bytes.
pub fn compile_c(source: &str, extra_flags: &[&str]) -> (Vec<u8>, CompiledElf) {
    require_tool("avr-gcc");
    let dir = scratch_dir();
    let src = dir.path().join("prog.c");
    let elf = dir.path().join("prog.elf");
    std::fs::write(&src, source).unwrap();
    run_tool(
        Command::new("avr-gcc")
            .args(["-mmcu=atmega644", "-Os", "-std=gnu99", "-o"])
            .arg(&elf)
            .arg(&src)
            .args(extra_flags),
    );
    (std::fs::read(&elf).unwrap(), CompiledElf { path: elf, _dir: dir })
}

/// A machine with `source` assembled into flash at 0.
pub fn machine(source: &str) -> Avr {
    let mut avr = Avr::new(Config::default());
    avr.load_flash(&assemble(source)).unwrap();
    avr
}

/// Runs until `cli; sleep` (or a stop); panics on anything but a sleep.
pub fn run_to_sleep(avr: &mut Avr) -> u64 {
    let start = avr.cycles();
    match avr.run(RunLimit::UntilSleep { max_cycles: 100_000_000 }) {
        Stop::Sleeping { .. } => avr.cycles() - start,
        other => panic!("unexpected stop {other:?} at pc {:#x}", avr.pc()),
    }
}

/// Executes exactly `n` instructions, returning the cycles they took.
pub fn steps(avr: &mut Avr, n: usize) -> u64 {
    let start = avr.cycles();
    for _ in 0..n {
        match avr.step() {
            Stop::Stepped => {}
            other => panic!("unexpected stop {other:?}"),
        }
    }
    avr.cycles() - start
}

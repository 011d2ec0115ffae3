//! Running commands with a visible trace, and where things are.

use std::path::PathBuf;
use std::process::Command;

pub type Result<T = ()> = std::result::Result<T, String>;

/// The workspace root (the parent of `xtask/`).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace").to_path_buf()
}

/// Prints the command, runs it in the workspace root, fails on a non-zero exit.
pub fn run(cmd: &mut Command) -> Result {
    let shown = format!("{:?}", cmd).replace('"', "");
    println!("$ {shown}");
    let status = cmd.current_dir(root()).status().map_err(|e| format!("cannot start `{shown}`: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{shown}` failed ({status})"))
    }
}

/// A cargo command on the host toolchain the user invoked xtask with.
pub fn cargo_host(args: &[&str], extra: &[String]) -> Result {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.args(args).args(extra);
    run(&mut cmd)
}

/// Whether a program is on PATH.
pub fn have(program: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {program} >/dev/null 2>&1"))
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

//! `cargo xtask bench ui`: the desktop window against the headless emulator,
//! on the real firmware in the same run.
//!
//! Measures (1) the emulated MHz of `board-sim run` without a window, (2) the
//! emulated MHz of the window at max speed and (3) the CPU the window takes
//! at 1x real time. The window runs under `xvfb-run` (software rendering),
//! which is the worst case for painting. Each window run is measured after
//! its first second (`board-sim play --bench-seconds` skips the start-up).

use super::median;
use crate::util::{have, root, Result};
use std::process::Command;
use std::time::Duration;

/// Emulated seconds of the headless reference run.
const HEADLESS_SECONDS: u64 = 60;

pub fn run(runs: usize, seconds: f64) -> Result {
    if !have("xvfb-run") {
        return Err("xvfb-run not found: the window benchmark needs a virtual X server.\n  fix: apt-get install -y xvfb".into());
    }
    let fw = crate::firmware::build_and_report()?;
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    crate::util::run(cmd.args(["build", "--release", "-q", "-p", "board-sim"]))?;
    let bin = root().join("target/release/board-sim");
    let elf = fw.elf.display().to_string();

    println!("== bench ui: the firmware idling at its game screen, {runs} runs each (medians)");
    let mut headless = Vec::new();
    for _ in 0..runs {
        let cycles = (HEADLESS_SECONDS * 8_000_000).to_string();
        let out = Command::new(&bin).args(["run", &elf, "--max-cycles", &cycles, "--json"]).output().map_err(|e| format!("cannot run board-sim: {e}"))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let mhz = json_number(&text, "emulated_mhz").ok_or_else(|| format!("no emulated_mhz in board-sim run output: {text}"))?;
        headless.push(mhz);
    }
    let mut window_max = Vec::new();
    let mut window_cpu = Vec::new();
    let mut debugger_cpu = Vec::new();
    for _ in 0..runs {
        window_max.push(window(&bin, &elf, "max", seconds, false)?.0);
        window_cpu.push(window(&bin, &elf, "1x", seconds, false)?.1);
        debugger_cpu.push(window(&bin, &elf, "1x", seconds, true)?.1);
    }
    let (h, w, cpu, dbg) = (med(headless), med(window_max), med(window_cpu), med(debugger_cpu));
    println!("{:<34}{:>16}", "", "emulated MHz");
    println!("{:<34}{:>16.1}", "headless (board-sim run)", h);
    println!("{:<34}{:>16.1}", "window at max speed", w);
    println!("window/headless throughput: {:.0}% (goal >= 80%)", w / h * 100.0);
    println!("window at 1x real time: {cpu:.1}% of one core (goal < 15%)");
    println!("window at 1x with the debugger open: {dbg:.1}% of one core");
    Ok(())
}

/// (emulated MHz, CPU % of one core) of the window at `speed`.
fn window(bin: &std::path::Path, elf: &str, speed: &str, seconds: f64, debugger: bool) -> Result<(f64, f64)> {
    let out = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1400x900x24"])
        .arg(bin)
        .args(["play", elf, "--speed", speed, "--bench-seconds", &seconds.to_string()])
        .args(debugger.then_some("--debugger"))
        .output()
        .map_err(|e| format!("cannot run xvfb-run: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.starts_with("bench:")).ok_or_else(|| {
        format!("the window printed no bench line (exit {}): {}", out.status, String::from_utf8_lossy(&out.stderr))
    })?;
    // "bench: 5.00 s wall at max: N cycles, X emulated MHz, C s CPU (P% of one core), ..."
    let mhz = number_before(line, " emulated MHz").ok_or_else(|| format!("cannot read MHz from {line:?}"))?;
    let cpu = number_before(line, "% of one core").ok_or_else(|| format!("cannot read CPU from {line:?}"))?;
    Ok((mhz, cpu))
}

fn number_before(line: &str, marker: &str) -> Option<f64> {
    let head = &line[..line.find(marker)?];
    let start = head.rfind(|c: char| !(c.is_ascii_digit() || c == '.')).map(|i| i + 1).unwrap_or(0);
    head[start..].parse().ok()
}

fn json_number(text: &str, key: &str) -> Option<f64> {
    let at = text.find(&format!("\"{key}\":"))? + key.len() + 3;
    let rest = &text[at..];
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    rest[..end].trim().parse().ok()
}

fn med(v: Vec<f64>) -> f64 {
    // Durations sort totally; reuse the shared median on nanoseconds.
    median(v.iter().map(|x| Duration::from_nanos((x * 1e6) as u64)).collect()).as_nanos() as f64 / 1e6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_window_bench_line() {
        let l = "bench: 5.00 s wall at max: 123 cycles, 4362.5 emulated MHz, 4.90 s CPU (98% of one core), 9.8 frames/s";
        assert_eq!(number_before(l, " emulated MHz"), Some(4362.5));
        assert_eq!(number_before(l, "% of one core"), Some(98.0));
        assert_eq!(json_number("{\"cycles\":5,\"emulated_mhz\":6650.25,\"x\":1}", "emulated_mhz"), Some(6650.25));
    }
}

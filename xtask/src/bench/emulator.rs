//! `cargo xtask bench emulator`: this emulator against simavr on the same
//! CPU-heavy ELF (a C perft of the initial position, `xtask/bench/perft.c`).
//!
//! The program streams a start mark and its result through GPIOR0, which
//! simavr traces to a VCD file with timestamps. One untimed run of each
//! emulator checks that both produce the same values with the same cycle
//! distances between them (so both executed the same instructions in the
//! same cycles); then each is timed over several runs, loading included.

use super::median;
use crate::util::{have, root, Result};
use emulator::{Access, Avr, Config, RunLimit, Stop, WatchKind};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const CLOCK_HZ: u64 = 8_000_000;
const GPIOR0: u16 = 0x3E;
/// Leaf counts of the initial position.
const PERFT: [u64; 5] = [1, 20, 400, 8_902, 197_281];

pub fn run(runs: usize, depth: u8) -> Result {
    for tool in ["avr-gcc", "simavr"] {
        if !have(tool) {
            return Err(format!("{tool} not found; fix: cargo xtask setup"));
        }
    }
    let elf_path = build(depth)?;
    let elf = std::fs::read(&elf_path).map_err(|e| format!("cannot read {}: {e}", elf_path.display()))?;

    println!("== bench emulator: perft({depth}) of the initial position, compiled with avr-gcc -Os");
    let (ours_stream, cycles) = ours_traced(&elf)?;
    let theirs_stream = simavr_traced(&elf_path)?;
    let result = decode_result(&ours_stream)?;
    if result != PERFT[depth as usize] {
        return Err(format!("our run computed perft({depth}) = {result}, expected {}", PERFT[depth as usize]));
    }
    compare_streams(&ours_stream, &theirs_stream)?;
    let span = ours_stream.last().map(|w| w.0).unwrap_or(0) - ours_stream[0].0;
    println!("both emulators: perft = {result}, {span} cycles from start mark to result, identical traces; {cycles} cycles in all");

    let mut ours_times = Vec::new();
    for _ in 0..runs {
        ours_times.push(time_ours(&elf, cycles)?);
    }
    let mut simavr_times = Vec::new();
    for _ in 0..runs {
        simavr_times.push(time_simavr(&elf_path)?);
    }
    let (t_ours, t_simavr) = (median(ours_times), median(simavr_times));
    let mhz = |t: Duration| cycles as f64 / t.as_secs_f64() / 1e6;
    println!("{:<12}{:>14}{:>16}", "emulator", "median wall", "emulated MHz");
    println!("{:<12}{:>12.1} ms{:>16.1}", "simavr", t_simavr.as_secs_f64() * 1e3, mhz(t_simavr));
    println!("{:<12}{:>12.1} ms{:>16.1}", "ours", t_ours.as_secs_f64() * 1e3, mhz(t_ours));
    println!("ratio ours/simavr: {:.2}x (median of {runs} runs each)", mhz(t_ours) / mhz(t_simavr));
    Ok(())
}

fn build(depth: u8) -> Result<PathBuf> {
    let dir = root().join("target/bench/emulator");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let elf = dir.join(format!("perft{depth}.elf"));
    let src = root().join("xtask/bench/perft.c");
    let status = Command::new("avr-gcc")
        .args(["-mmcu=atmega644", "-Os", "-DAVR_BENCH", &format!("-DPERFT_DEPTH={depth}"), "-I/usr/include/simavr"])
        // simavr expects its metadata section here (see emulator/tests/simavr_diff.rs).
        .arg("-Wl,--section-start=.mmcu=0x910000")
        .arg(&src)
        .arg("-o")
        .arg(&elf)
        .status()
        .map_err(|e| format!("cannot run avr-gcc: {e}"))?;
    if !status.success() {
        return Err(format!("avr-gcc failed on {}", src.display()));
    }
    Ok(elf)
}

/// (cycle, value) of every GPIOR0 write, and the cycles until SLEEP.
fn ours_traced(elf: &[u8]) -> Result<(Vec<(u64, u8)>, u64)> {
    let mut avr = Avr::new(Config { clock_hz: CLOCK_HZ, ..Config::default() });
    avr.load_elf(elf).map_err(|e| e.to_string())?;
    avr.add_watchpoint(GPIOR0..=GPIOR0, WatchKind::Write);
    let mut writes = Vec::new();
    loop {
        match avr.run(RunLimit::UntilSleep { max_cycles: 2_000_000_000 }) {
            Stop::Watchpoint { addr: GPIOR0, kind: Access::Write, .. } => writes.push((avr.cycles(), avr.read_data(GPIOR0).unwrap_or(0))),
            Stop::Sleeping { interrupts_enabled: false, .. } => return Ok((writes, avr.cycles())),
            other => return Err(format!("the benchmark program stopped unexpectedly: {other:?}")),
        }
    }
}

fn time_ours(elf: &[u8], expect_cycles: u64) -> Result<Duration> {
    let started = Instant::now();
    let mut avr = Avr::new(Config { clock_hz: CLOCK_HZ, ..Config::default() });
    avr.load_elf(elf).map_err(|e| e.to_string())?;
    let stop = avr.run(RunLimit::UntilSleep { max_cycles: 2_000_000_000 });
    let took = started.elapsed();
    if !matches!(stop, Stop::Sleeping { .. }) || avr.cycles() != expect_cycles {
        return Err(format!("timed run differs from the traced one: {stop:?} after {} cycles", avr.cycles()));
    }
    Ok(took)
}

fn simavr_cmd(elf: &Path) -> Command {
    let mut cmd = Command::new("simavr");
    cmd.args(["-m", "atmega644", "-f", "8000000"]).arg(elf).current_dir(elf.parent().unwrap_or(Path::new(".")));
    cmd
}

fn simavr_traced(elf: &Path) -> Result<Vec<(u64, u8)>> {
    let out = simavr_cmd(elf).output().map_err(|e| format!("cannot run simavr: {e}"))?;
    if !out.status.success() {
        return Err(format!("simavr failed: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let vcd_path = elf.parent().unwrap_or(Path::new(".")).join("trace.vcd");
    let vcd = std::fs::read_to_string(&vcd_path).map_err(|e| format!("simavr wrote no {}: {e}", vcd_path.display()))?;
    parse_vcd(&vcd)
}

fn time_simavr(elf: &Path) -> Result<Duration> {
    let started = Instant::now();
    let out = simavr_cmd(elf).output().map_err(|e| format!("cannot run simavr: {e}"))?;
    let took = started.elapsed();
    if !out.status.success() {
        return Err("simavr failed during a timed run".into());
    }
    Ok(took)
}

/// Value changes of the traced register with their cycle.
fn parse_vcd(vcd: &str) -> Result<Vec<(u64, u8)>> {
    let mut unit_ps: u64 = 1;
    let mut time: u64 = 0;
    let mut changes = Vec::new();
    let mut tokens = vcd.split_whitespace();
    while let Some(token) = tokens.next() {
        if token == "$timescale" {
            let spec: String = tokens.by_ref().take_while(|t| *t != "$end").collect();
            let digits: String = spec.chars().take_while(|c| c.is_ascii_digit()).collect();
            let scale = match &spec[digits.len()..] {
                "s" => 1_000_000_000_000,
                "ms" => 1_000_000_000,
                "us" => 1_000_000,
                "ns" => 1_000,
                "ps" => 1,
                other => return Err(format!("unknown VCD time unit {other:?}")),
            };
            unit_ps = digits.parse::<u64>().unwrap_or(1) * scale;
        } else if let Some(t) = token.strip_prefix('#') {
            time = t.parse().map_err(|_| format!("bad VCD timestamp {token:?}"))?;
        } else if let Some(bits) = token.strip_prefix('b') {
            if let Ok(v) = u8::from_str_radix(bits, 2) {
                let ps_per_cycle = 1_000_000_000_000 / CLOCK_HZ;
                changes.push(((time * unit_ps + ps_per_cycle / 2) / ps_per_cycle, v));
            }
        }
    }
    Ok(changes)
}

/// The result: eight nibbles after the start mark.
fn decode_result(stream: &[(u64, u8)]) -> Result<u64> {
    if stream.len() != 9 || stream[0].1 & 15 != 0xA {
        return Err(format!("unexpected GPIOR0 stream of {} writes", stream.len()));
    }
    Ok(stream[1..].iter().fold(0u64, |acc, &(_, v)| acc << 4 | (v & 15) as u64))
}

fn compare_streams(ours: &[(u64, u8)], theirs: &[(u64, u8)]) -> Result {
    let values = |w: &[(u64, u8)]| w.iter().map(|&(_, v)| v).collect::<Vec<_>>();
    if values(ours) != values(theirs) {
        return Err(format!("results differ: ours {:?}, simavr {:?}", values(ours), values(theirs)));
    }
    for (i, (a, b)) in ours.windows(2).zip(theirs.windows(2)).enumerate() {
        let (da, db) = (a[1].0 - a[0].0, b[1].0 - b[0].0);
        if da != db {
            return Err(format!("cycles between GPIOR0 writes {i} and {} differ: ours {da}, simavr {db}", i + 1));
        }
    }
    Ok(())
}

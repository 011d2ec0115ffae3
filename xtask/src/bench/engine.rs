//! `cargo xtask bench engine`: the chess engine's speed on the real AVR
//! build, cycle-accurate in the emulator at 8 MHz, spoken to over its
//! serial line (`fen`, `go ...`) exactly as a host would.
//!
//! * (a) nodes per second over `assets/bench_positions.epd`: each position on
//!   a freshly booted board (no hash table carried over, so every position
//!   is measured alone and the same way in every build), one fixed-depth (or
//!   fixed-time) search; nodes from its last `info` line; emulated time
//!   counted in cycles from the `go` line being sent to that `info` line
//!   being received (a fixed-time search goes on after its last report:
//!   counting up to `bestmove` would charge it nodes no line reports), and
//!   the firmware's own clock (the last `info` line's `time`) beside it.
//! * (b) depth at 3 minutes per move (emulated): `go movetime 180000` on a
//!   few of the positions, the last completed depth, median.
//! * (c) the reference: the previous build, `target/bench/engine-previous.elf`
//!   (this run's ELF is copied there at the end), measured like (a) in the
//!   same run; the ratio new/previous.
//!
//! With `--profile`, (a) only, each search run one instruction at a time
//! and its cycles charged to the functions of the ELF ([`super::profile`]):
//! a table of the costliest, and with `--profile-lines NAME` the source
//! lines of one. (b) and (c) are skipped and the previous build is kept.
//!
//! The emulator is deterministic: the same ELF gives the same cycles every
//! run, so each figure is exact and one run of each is enough (no medians of
//! wall-clock samples are needed; wall time only tells how long the
//! benchmark took).

use super::profile::{self, PcProfile};
use crate::rig::{read_epd, Rig, Search};
use crate::util::{root, Result};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

/// Goals and CP1's figures (the original Chess Prodigy 1 on its 6502).
const GOAL_NPS: f64 = 2_000.0;
const CP1_NPS: f64 = 175.0;
const GOAL_DEPTH: u32 = 9;

#[derive(clap::Args)]
pub struct Args {
    /// Depth of each search of (a)
    #[arg(long, default_value_t = 4)]
    pub depth: u32,
    /// Search each position of (a) for this many emulated ms instead of to a depth
    #[arg(long)]
    pub movetime: Option<u64>,
    /// How many positions get the 3-minute search of (b) (0: skip it)
    #[arg(long, default_value_t = 5)]
    pub deep: usize,
    /// Emulated ms per move of (b)
    #[arg(long, default_value_t = 180_000)]
    pub deep_ms: u64,
    /// Another EPD file instead of assets/bench_positions.epd
    #[arg(long)]
    pub epd: Option<PathBuf>,
    /// Profile the searches of (a) (cycles per function, from `go` to
    /// `bestmove`) and skip (b) and (c); about 10x slower
    #[arg(long)]
    pub profile: bool,
    /// Also print the cycles per source line (avr-addr2line) of the costliest
    /// function whose name contains this (implies --profile)
    #[arg(long, value_name = "NAME")]
    pub profile_lines: Option<String>,
    /// Also print every instruction (avr-objdump) of the costliest function
    /// whose name contains this, with its executions and cycles (implies
    /// --profile)
    #[arg(long, value_name = "NAME")]
    pub profile_pcs: Option<String>,
    /// Rows of the profile's function table, 30 unless given (implies --profile)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub profile_top: Option<u16>,
}

/// Rows of the profile table unless --profile-top says otherwise.
const PROFILE_TOP: u16 = 30;
/// Source lines shown by --profile-lines.
const PROFILE_LINES_TOP: usize = 40;

pub fn previous_path() -> PathBuf {
    root().join("target/bench/engine-previous.elf")
}

struct Row {
    id: String,
    search: Search,
}

fn limit_text(args: &Args) -> String {
    match args.movetime {
        Some(ms) => format!("movetime {ms}"),
        None => format!("depth {}", args.depth),
    }
}

/// One position on a freshly booted board; the search (only) profiled into
/// `profile` if given.
fn search_one(elf: &[u8], fen: &str, go: &str, budget_ms: u64, profile: Option<&mut PcProfile>) -> Result<Search> {
    let mut rig = Rig::new(elf)?;
    rig.boot()?;
    rig.ok(&format!("fen {fen}"))?;
    match profile {
        None => rig.go(go, budget_ms),
        Some(p) => rig.go_profiled(go, budget_ms, p),
    }
}

/// (a) on one ELF: every position, with progress.
fn nps_run(elf: &[u8], positions: &[(String, String)], args: &Args, label: &str, mut profile: Option<&mut PcProfile>) -> Result<Vec<Row>> {
    let go = limit_text(args);
    // Generous: fixed-depth searches have no time limit of their own.
    let budget = args.movetime.map_or(30 * 60_000, |ms| ms + 30_000);
    let mut rows = Vec::new();
    let wall = Instant::now();
    let tty = std::io::stderr().is_terminal();
    for (i, (fen, id)) in positions.iter().enumerate() {
        let search = search_one(elf, fen, &go, budget, profile.as_deref_mut()).map_err(|e| format!("{label}, position {} ({id}): {e}", i + 1))?;
        let last = search.last();
        if tty {
            eprint!(
                "\r  {label}: {}/{} {:<40} {:>8} nodes {:>7.2} s emulated   ",
                i + 1,
                positions.len(),
                id.chars().take(40).collect::<String>(),
                last.nodes,
                search.seconds()
            );
        }
        rows.push(Row { id: id.clone(), search });
    }
    let pad = if tty { format!("\r{:90}\r", "") } else { String::new() };
    eprintln!("{pad}  {label}: {} positions in {:.1} s real", positions.len(), wall.elapsed().as_secs_f64());
    Ok(rows)
}

/// Nodes (of the last `info` lines), the cycles up to those lines,
/// emulated seconds (from the cycles), firmware-clock seconds.
fn totals(rows: &[Row]) -> (u64, u64, f64, f64) {
    let nodes: u64 = rows.iter().map(|r| r.search.last().nodes).sum();
    let cycles: u64 = rows.iter().map(|r| r.search.cycles_to_last_info()).sum();
    let secs = cycles as f64 / crate::rig::CLOCK_HZ as f64;
    let fw_secs: f64 = rows.iter().map(|r| r.search.last().time_ms as f64 / 1000.0).sum();
    (nodes, cycles, secs, fw_secs)
}

pub fn run(mut args: Args) -> Result {
    args.profile |= args.profile_lines.is_some() || args.profile_pcs.is_some() || args.profile_top.is_some();
    let fw = crate::firmware::build_and_report()?;
    let elf = std::fs::read(&fw.elf).map_err(|e| format!("cannot read {}: {e}", fw.elf.display()))?;
    // The functions to charge, and the one of --profile-lines, checked before the long run.
    let functions = if args.profile {
        let program = emulator::loader::elf::parse(&elf).map_err(|e| format!("cannot read the symbols of {}: {e}", fw.elf.display()))?;
        profile::functions(&program.symbols)
    } else {
        Vec::new()
    };
    if let Some(needle) = &args.profile_lines {
        profile::need_addr2line()?;
        if profile::matching(&functions, needle).is_empty() {
            return Err(format!("--profile-lines: no function of {} has `{needle}` in its name", fw.elf.display()));
        }
    }
    if let Some(needle) = &args.profile_pcs {
        profile::need_objdump()?;
        if profile::matching(&functions, needle).is_empty() {
            return Err(format!("--profile-pcs: no function of {} has `{needle}` in its name", fw.elf.display()));
        }
    }
    let epd_path = args.epd.clone().unwrap_or_else(|| root().join("assets/bench_positions.epd"));
    let text = std::fs::read_to_string(&epd_path).map_err(|e| format!("cannot read {}: {e}", epd_path.display()))?;
    let positions = read_epd(&text);
    if positions.is_empty() {
        return Err(format!("no positions in {}", epd_path.display()));
    }
    let wall = Instant::now();

    // (a)
    println!(
        "== bench engine: {} on {} positions of {} (AVR build in the emulator, 8 MHz, a fresh board each){}",
        limit_text(&args),
        positions.len(),
        epd_path.strip_prefix(root()).unwrap_or(&epd_path).display(),
        if args.profile { ", profiled" } else { "" }
    );
    let mut pc_profile = args.profile.then(PcProfile::new);
    let rows = nps_run(&elf, &positions, &args, "this build", pc_profile.as_mut())?;
    println!("  {:>2} {:<36}{:>6}{:>5}{:>9}{:>11}{:>10}{:>8}  best", "#", "position", "depth", "sel", "nodes", "emulated s", "fw clock", "nps");
    for (i, r) in rows.iter().enumerate() {
        let l = r.search.last();
        println!(
            "  {:>2} {:<36}{:>6}{:>5}{:>9}{:>11.3}{:>10.3}{:>8.0}  {}",
            i + 1,
            r.id.chars().take(35).collect::<String>(),
            l.depth,
            r.search.max_seldepth(),
            l.nodes,
            r.search.seconds_to_last_info(),
            l.time_ms as f64 / 1000.0,
            l.nodes as f64 / r.search.seconds_to_last_info(),
            r.search.bestmove
        );
    }
    let (nodes, cycles, secs, fw_secs) = totals(&rows);
    let nps = nodes as f64 / secs;
    let mut per: Vec<f64> = rows.iter().map(|r| r.search.last().nodes as f64 / r.search.seconds_to_last_info()).collect();
    per.sort_by(f64::total_cmp);
    println!("  total: {nodes} nodes in {secs:.3} s emulated ({cycles} cycles counted by the emulator at 8 MHz); firmware clock {fw_secs:.3} s");
    println!(
        "  nps = {nps:.0} (cycles) / {:.0} (firmware clock); per position: min {:.0}, median {:.0}, max {:.0}",
        nodes as f64 / fw_secs,
        per[0],
        median_f64(&per),
        per[per.len() - 1]
    );
    println!(
        "  goal >= {GOAL_NPS:.0} nps: {}; CP1 150-200 nps: {:.1}x CP1's 175",
        if nps >= GOAL_NPS { "met" } else { "NOT met" },
        nps / CP1_NPS
    );

    if let Some(pc_profile) = &pc_profile {
        print_profile(pc_profile, &functions, &rows, &args, &fw.elf)?;
        println!();
        println!(
            "== bench engine: (b) and (c) skipped while profiling, {} not written; done in {:.1} s real",
            previous_path().display(),
            wall.elapsed().as_secs_f64()
        );
        return Ok(());
    }

    // (b)
    if args.deep > 0 {
        let deep = deep_positions(&positions, args.deep);
        println!();
        println!("== bench engine: depth at {} s per move (go movetime {}), {} middlegame positions", args.deep_ms / 1000, args.deep_ms, deep.len());
        let mut depths = Vec::new();
        for (n, &i) in deep.iter().enumerate() {
            let (fen, id) = &positions[i];
            let t = Instant::now();
            eprint!("  {}/{} {id} ... ", n + 1, deep.len());
            let s = search_one(&elf, fen, &format!("movetime {}", args.deep_ms), args.deep_ms + 30_000, None).map_err(|e| format!("position {} ({id}): {e}", i + 1))?;
            eprintln!("{:.1} s real", t.elapsed().as_secs_f64());
            let l = s.last();
            println!(
                "  {:>2} {:<36} depth {:>2} seldepth {:>2} {:>9} nodes {:>8.1} s emulated {:>6.0} nps  {}",
                i + 1,
                id.chars().take(35).collect::<String>(),
                l.depth,
                s.max_seldepth(),
                l.nodes,
                s.seconds(),
                l.nodes as f64 / s.seconds_to_last_info(),
                s.bestmove
            );
            depths.push(l.depth);
        }
        depths.sort();
        let med = depths[(depths.len() - 1) / 2];
        println!(
            "  median depth {med} plies (depths {depths:?}); goal {GOAL_DEPTH}: {}; CP1: 5-6",
            if med >= GOAL_DEPTH { "met" } else { "NOT met" }
        );
    }

    // (c)
    let prev = previous_path();
    println!();
    match std::fs::read(&prev) {
        Ok(old) if old == elf => println!("== bench engine: {} is this very build: nps ratio new/previous 1.000", prev.display()),
        Ok(old) => {
            println!("== bench engine: the previous build ({}), {} on the same positions", prev.display(), limit_text(&args));
            let old_rows = nps_run(&old, &positions, &args, "previous build", None)?;
            let (o_nodes, _, o_secs, _) = totals(&old_rows);
            let o_nps = o_nodes as f64 / o_secs;
            println!("  previous: {o_nodes} nodes in {o_secs:.3} s emulated = {o_nps:.0} nps; this build {nps:.0} nps");
            println!("  nps ratio new/previous: {:.3}; nodes new/previous: {:.3}", nps / o_nps, nodes as f64 / o_nodes as f64);
        }
        Err(_) => println!("== bench engine: no previous build at {} yet: the next run compares against this one", prev.display()),
    }
    std::fs::create_dir_all(prev.parent().expect("a parent")).map_err(|e| format!("cannot create target/bench: {e}"))?;
    std::fs::write(&prev, &elf).map_err(|e| format!("cannot write {}: {e}", prev.display()))?;
    println!("== bench engine: done in {:.1} s real; this build saved as {}", wall.elapsed().as_secs_f64(), prev.display());
    Ok(())
}

/// The profile of (a): the costliest functions, and the source lines of the
/// one --profile-lines names.
fn print_profile(pc_profile: &PcProfile, functions: &[profile::Function], rows: &[Row], args: &Args, elf: &std::path::Path) -> Result {
    // The profile charges every cycle from `go` to `bestmove`.
    let (nodes, _, _, _) = totals(rows);
    let cycles: u64 = rows.iter().map(|r| r.search.cycles()).sum();
    let profiled = pc_profile.total();
    if profiled != cycles {
        return Err(format!("the profile holds {profiled} cycles but the searches took {cycles}"));
    }
    let costs = profile::attribute(pc_profile, functions);
    println!();
    println!("== bench engine --profile: cycles per function, from each `go` sent to its `bestmove` received (calls: entries)");
    print!("{}", profile::table(&costs, args.profile_top.unwrap_or(PROFILE_TOP) as usize));
    println!("  total: {cycles} cycles, {nodes} nodes, {:.0} cycles per node", cycles as f64 / nodes.max(1) as f64);
    if let Some(needle) = &args.profile_lines {
        // The costliest match (one that never ran if none did).
        let matches = profile::matching(functions, needle);
        let hottest = costs
            .iter()
            .find_map(|c| matches.iter().find(|f| f.name == c.name))
            .or(matches.first())
            .ok_or_else(|| format!("--profile-lines: no function has `{needle}` in its name"))?;
        println!();
        println!("== bench engine --profile-lines {needle}: cycles per source line");
        print!("{}", profile::source_lines(pc_profile, hottest, elf, PROFILE_LINES_TOP)?);
    }
    if let Some(needle) = &args.profile_pcs {
        let matches = profile::matching(functions, needle);
        let hottest = costs
            .iter()
            .find_map(|c| matches.iter().find(|f| f.name == c.name))
            .or(matches.first())
            .ok_or_else(|| format!("--profile-pcs: no function has `{needle}` in its name"))?;
        println!();
        println!("== bench engine --profile-pcs {needle}: executions and cycles per instruction");
        print!("{}", profile::instructions(pc_profile, hottest, elf)?);
    }
    Ok(())
}

/// `n` positions spread over the list, skipping the first (Kiwipete, a
/// perft position rather than a game's middlegame).
fn deep_positions(positions: &[(String, String)], n: usize) -> Vec<usize> {
    let pool: Vec<usize> = (1..positions.len()).collect();
    let n = n.min(pool.len());
    (0..n).map(|k| pool[k * pool.len() / n]).collect()
}

fn median_f64(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

//! `cargo xtask suite`, `match` and `endgames`: the firmware, through the
//! `board-sim uci` bridge, on test positions, against a reference engine
//! and in the basic mating endings.

pub mod endgames;
pub mod endgames_diff;
pub mod host_engine;
pub mod kbnk_book;
pub mod match_;
pub mod match_diff;
pub mod suite;
pub mod tablebase;
pub mod uci_client;

use crate::util::{root, Result};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

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

/// `--host`: this xtask binary's `host-engine` on a clock of `nps` nodes a second.
pub fn host_engine_command(nps: u32) -> Result<Vec<String>> {
    let exe = std::env::current_exe().map_err(|e| format!("--host: cannot find this xtask binary: {e}"))?;
    Ok(vec![exe.display().to_string(), "host-engine".into(), "--nps".into(), nps.to_string()])
}

/// Key of a position for threefold repetition: placement, side to move,
/// castling rights and a capturable en passant square.
pub fn repetition_key(pos: &shakmaty::Chess) -> String {
    let fen = shakmaty::fen::Fen::from_position(pos, shakmaty::EnPassantMode::Legal).to_string();
    fen.split(' ').take(4).collect::<Vec<_>>().join(" ")
}

/// Items `0..count` on `jobs` threads. Each job keeps its own `state`
/// (`None` until `work` starts it: its engines, kept from one item to the
/// next) and hands it to `finish` at the end. The first error stops every
/// job and is returned.
pub fn in_jobs<S>(
    count: usize,
    jobs: usize,
    work: impl Fn(usize, &mut Option<S>) -> Result + Sync,
    finish: impl Fn(S) + Sync,
) -> Result {
    let next = AtomicUsize::new(0);
    let fatal: Mutex<Option<String>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, count.max(1)) {
            let (next, fatal, work, finish) = (&next, &fatal, &work, &finish);
            scope.spawn(move || {
                let mut state = None;
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= count || fatal.lock().unwrap().is_some() {
                        break;
                    }
                    if let Err(e) = work(i, &mut state) {
                        fatal.lock().unwrap().get_or_insert(e);
                        break;
                    }
                }
                if let Some(s) = state {
                    finish(s);
                }
            });
        }
    });
    match fatal.into_inner().unwrap() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

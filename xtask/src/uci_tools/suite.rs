//! `cargo xtask suite FILE.epd --movetime MS`: a test-position suite through
//! a UCI engine (by default the firmware behind `board-sim uci`).
//!
//! A position is solved when the engine's move is one of the `bm` moves
//! (SAN), none of the `am` moves, and for `dm N` (N <= 3 is checked by
//! brute force with shakmaty; deeper ones by the engine's `score mate`) a
//! forced mate in N when there is no `bm`, or either when there is.

use super::uci_client::{position_command, Score, UciEngine};
use crate::util::Result;
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Position};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// EPD file (bm/am in SAN, dm, id)
    file: PathBuf,
    /// Time per position, in ms (of emulated time for the firmware)
    #[arg(long, default_value_t = 1000)]
    movetime: u64,
    /// Only the first N positions
    #[arg(long)]
    limit: Option<usize>,
    /// Positions run in parallel, one engine process each
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Any UCI engine command instead of the firmware (e.g. /usr/games/stockfish)
    #[arg(long)]
    engine: Option<String>,
    /// Firmware ELF for the bridge (default: build it)
    #[arg(long)]
    elf: Option<PathBuf>,
}

/// One EPD record.
pub struct Case {
    pub id: String,
    pub fen: String,
    pub pos: Chess,
    pub bm: Vec<Move>,
    pub am: Vec<Move>,
    pub dm: Option<u32>,
}

/// Parses an EPD file; bad records are errors naming their line.
pub fn parse_epd(text: &str) -> Result<Vec<Case>> {
    let mut cases = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        cases.push(parse_record(line).map_err(|e| format!("line {}: {e}", n + 1))?);
    }
    Ok(cases)
}

fn parse_record(line: &str) -> Result<Case> {
    let mut fields = line.splitn(5, ' ');
    let board: Vec<&str> = (0..4).filter_map(|_| fields.next()).collect();
    if board.len() < 4 {
        return Err("fewer than 4 EPD fields".into());
    }
    let ops_text = fields.next().unwrap_or("");
    let mut ops: Vec<(String, String)> = Vec::new();
    // Split on ';' outside quotes.
    let mut cur = String::new();
    let mut quoted = false;
    for c in ops_text.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                cur.push(c);
            }
            ';' if !quoted => {
                let op = std::mem::take(&mut cur);
                let op = op.trim();
                if !op.is_empty() {
                    let (code, operands) = op.split_once(' ').unwrap_or((op, ""));
                    ops.push((code.to_string(), operands.trim().to_string()));
                }
            }
            _ => cur.push(c),
        }
    }
    let get = |code: &str| ops.iter().find(|(c, _)| c == code).map(|(_, v)| v.clone());
    let hmvc = get("hmvc").unwrap_or_else(|| "0".into());
    let fmvn = get("fmvn").unwrap_or_else(|| "1".into());
    let fen = format!("{} {} {}", board.join(" "), hmvc, fmvn);
    let pos: Chess = fen
        .parse::<Fen>()
        .map_err(|e| format!("bad FEN `{fen}`: {e}"))?
        .into_position(CastlingMode::Standard)
        .map_err(|e| format!("impossible position `{fen}`: {e}"))?;
    let moves = |code: &str| -> Result<Vec<Move>> {
        let Some(list) = get(code) else { return Ok(Vec::new()) };
        list.split_whitespace()
            .map(|s| {
                s.parse::<San>()
                    .map_err(|e| format!("{code} `{s}`: {e}"))
                    .and_then(|san| san.to_move(&pos).map_err(|e| format!("{code} `{s}` in {fen}: {e}")))
            })
            .collect()
    };
    let bm = moves("bm")?;
    let am = moves("am")?;
    let dm = get("dm").map(|d| d.parse::<u32>().map_err(|_| format!("dm `{d}` is not a number"))).transpose()?;
    let id = get("id").map(|s| s.trim_matches('"').to_string()).unwrap_or_else(|| format!("#{}", fen));
    Ok(Case { id, fen, pos, bm, am, dm })
}

/// Whether the side to move can force mate in at most `n` moves.
fn forces_mate(pos: &Chess, n: u32) -> bool {
    n > 0 && pos.legal_moves().iter().any(|&m| move_forces_mate(pos, m, n))
}

/// Whether `m` forces mate in at most `n` moves (counting `m`).
pub fn move_forces_mate(pos: &Chess, m: Move, n: u32) -> bool {
    let mut after = pos.clone();
    after.play_unchecked(m);
    if after.is_checkmate() {
        return true;
    }
    if n <= 1 {
        return false;
    }
    let replies = after.legal_moves();
    !replies.is_empty()
        && replies.iter().all(|&r| {
            let mut p = after.clone();
            p.play_unchecked(r);
            forces_mate(&p, n - 1)
        })
}

/// The deepest `dm` checked by brute force.
const MAX_CHECKED_MATE: u32 = 3;

/// Whether `best` solves `case`, given the engine's final score.
pub fn solves(case: &Case, best: Option<Move>, score: Option<Score>) -> bool {
    let Some(best) = best else { return false };
    if case.am.contains(&best) {
        return false;
    }
    let by_bm = case.bm.contains(&best);
    let by_dm = case.dm.is_some_and(|n| {
        if n <= MAX_CHECKED_MATE {
            move_forces_mate(&case.pos, best, n)
        } else {
            matches!(score, Some(Score::Mate(m)) if m > 0 && m as u32 <= n)
        }
    });
    match (case.bm.is_empty(), case.dm.is_some()) {
        (false, _) => by_bm || (by_dm && case.dm.is_some_and(|n| n <= MAX_CHECKED_MATE)),
        (true, true) => by_dm,
        // Only `am`: anything else.
        (true, false) => !case.am.is_empty(),
    }
}

fn san_list(pos: &Chess, moves: &[Move]) -> String {
    moves.iter().map(|&m| San::from_move(pos, m).to_string()).collect::<Vec<_>>().join(" ")
}

pub fn run(args: Args) -> Result {
    let text = std::fs::read_to_string(&args.file).map_err(|e| format!("cannot read {}: {e}", args.file.display()))?;
    let mut cases = parse_epd(&text)?;
    if let Some(n) = args.limit {
        cases.truncate(n);
    }
    if cases.is_empty() {
        return Err(format!("{}: no positions", args.file.display()));
    }
    let cmd = super::engine_under_test(args.engine.as_deref(), args.elf.clone())?;
    let jobs = args.jobs.clamp(1, cases.len());
    println!(
        "== suite: {} positions of {}, go movetime {} ({jobs} job{}), engine: {}",
        cases.len(),
        args.file.display(),
        args.movetime,
        if jobs == 1 { "" } else { "s" },
        cmd.join(" ")
    );
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<bool>>> = Mutex::new(vec![None; cases.len()]);
    let failures: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let started = Instant::now();
    // Real time allowed for one answer: the emulator is faster than the
    // chip, but leave room for a slow machine and parallel jobs.
    let timeout = Duration::from_millis(60_000 + args.movetime * 20);
    std::thread::scope(|s| {
        for job in 0..jobs {
            let (cases, next, results, failures, cmd) = (&cases, &next, &results, &failures, &cmd);
            s.spawn(move || {
                let mut engine: Option<UciEngine> = None;
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(case) = cases.get(i) else { break };
                    let outcome = (|| -> Result<(Option<Move>, String, Option<Score>)> {
                        if engine.is_none() {
                            engine = Some(UciEngine::start(cmd, &format!("engine (job {job})"))?);
                        }
                        let e = engine.as_mut().expect("started above");
                        e.new_game()?;
                        let r = e.search(&position_command(Some(&case.fen), &[]), &format!("go movetime {}", args.movetime), timeout)?;
                        let best = r.best.parse::<UciMove>().ok().and_then(|u| u.to_move(&case.pos).ok());
                        Ok((best, r.best, r.score))
                    })();
                    let (solved, shown) = match outcome {
                        Ok((best, text, score)) => {
                            let ok = solves(case, best, score);
                            let san = best.map_or(format!("{text} (illegal)"), |m| San::from_move(&case.pos, m).to_string());
                            let mut want = Vec::new();
                            if !case.bm.is_empty() {
                                want.push(format!("bm {}", san_list(&case.pos, &case.bm)));
                            }
                            if !case.am.is_empty() {
                                want.push(format!("am {}", san_list(&case.pos, &case.am)));
                            }
                            if let Some(d) = case.dm {
                                want.push(format!("dm {d}"));
                            }
                            let score = score.map_or(String::new(), |s| format!(", {s}"));
                            (ok, format!("{:<5} {}: {san}{score} ({})", if ok { "ok" } else { "FAIL" }, case.id, want.join("; ")))
                        }
                        Err(e) => {
                            // Start afresh for the next position.
                            engine = None;
                            failures.lock().unwrap().push(format!("{}: {e}", case.id));
                            (false, format!("ERROR {}: {e}", case.id))
                        }
                    };
                    let mut res = results.lock().unwrap();
                    res[i] = Some(solved);
                    let done = res.iter().filter(|r| r.is_some()).count();
                    let good = res.iter().filter(|r| **r == Some(true)).count();
                    println!("[{done:>3}/{}] {shown}   (solved so far {good})", cases.len());
                }
                if let Some(e) = engine {
                    e.quit();
                }
            });
        }
    });
    let res = results.into_inner().unwrap();
    let solved = res.iter().filter(|r| **r == Some(true)).count();
    let errors = failures.into_inner().unwrap();
    println!("time: {:.1} s", started.elapsed().as_secs_f64());
    println!("solved: {solved}/{}", cases.len());
    if !errors.is_empty() {
        return Err(format!("{} position(s) failed with an engine error:\n  {}", errors.len(), errors.join("\n  ")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epd_records_parse_with_san_moves() {
        let cases = parse_epd(
            "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - acd 5; bm Qg6; id \"WAC.001\"; ce 32764; dm 2; pv Qg6 h5 Qh7#;\n\
             # comment\n\
             r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - am Nxe5 Ng5; id \"x;y\";\n",
        )
        .unwrap();
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[0].id, "WAC.001");
        assert_eq!(cases[0].dm, Some(2));
        assert_eq!(cases[0].bm[0].to_uci(CastlingMode::Standard).to_string(), "g3g6");
        assert_eq!(cases[1].id, "x;y");
        assert_eq!(cases[1].am.len(), 2);
        assert!(parse_epd("8/8/8/8 w - - bm Qg6;").is_err());
        assert!(parse_epd("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qa1;").is_err());
    }

    #[test]
    fn solutions_are_judged_by_bm_am_and_dm() {
        let cases = parse_epd(
            "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; dm 2; id \"a\";\n\
             r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - am Nxe5; id \"b\";\n\
             6k1/5ppp/8/8/8/8/8/R5K1 w - - dm 1; id \"c\";\n",
        )
        .unwrap();
        let mv = |c: &Case, u: &str| Some(u.parse::<UciMove>().unwrap().to_move(&c.pos).unwrap());
        assert!(solves(&cases[0], mv(&cases[0], "g3g6"), None));
        assert!(!solves(&cases[0], mv(&cases[0], "g3g4"), None));
        assert!(!solves(&cases[0], None, None));
        assert!(!solves(&cases[1], mv(&cases[1], "f3e5"), None));
        assert!(solves(&cases[1], mv(&cases[1], "f1c4"), None));
        assert!(solves(&cases[2], mv(&cases[2], "a1a8"), None));
        assert!(!solves(&cases[2], mv(&cases[2], "a1a7"), None));
    }

    #[test]
    fn mate_in_two_is_verified_by_search() {
        let c = &parse_epd("r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - bm Nf6+; dm 2; id \"m\";").unwrap()[0];
        let nf6 = "d5f6".parse::<UciMove>().unwrap().to_move(&c.pos).unwrap();
        assert!(move_forces_mate(&c.pos, nf6, 2));
        let other = "e1g1".parse::<UciMove>().unwrap().to_move(&c.pos).unwrap();
        assert!(!move_forces_mate(&c.pos, other, 2));
    }
}

//! `cargo xtask tune`: fits the evaluation's weights (firmware
//! `engine::weights`) to Stockfish's scores of quiet positions.
//!
//! * `positions`: quiet positions from the games of `cargo xtask match
//!   --pgn` files (every `--every`th ply after the opening, not in check,
//!   no capture that wins material by swap-off for either side), each
//!   scored by Stockfish to `--depth`: a TSV of FEN and centipawns for the
//!   side to move, appended as it goes. With `--results`, each is labelled
//!   with its game's result for the side to move instead (0, 0.5, 1).
//! * `fit`: the firmware's own evaluation (built with its `tune` feature,
//!   which reads the weights from a live array) fitted in win-probability
//!   space, `sigmoid(eval / K)` against `sigmoid(s * stockfish / K)`, where
//!   `s` first puts Stockfish's scores on the evaluation's scale (material
//!   stays fixed, so the scale is the firmware's). Each round linearises the
//!   evaluation around the current weights (one evaluation of every
//!   position per weight moved by a step), descends on that model with
//!   Adam and an L2 pull towards the defaults, then rounds and measures the
//!   true loss again; a held-out tenth of the positions shows whether the
//!   fit generalises. Prints the weights as `weights.rs` source. With
//!   `--results` the labels are game results and `K` is fitted instead.
//!
//! A better prediction of the scores has not meant better play: the
//! figures of the fits tried are in `firmware/src/engine/weights.rs`.

use crate::book::Pool;
use crate::util::Result;
use clap::Subcommand;
use firmware::chess::{MoveGen, Position};
use firmware::engine::weights::live;
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{Chess, EnPassantMode, Position as _};
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Subcommand)]
pub enum Action {
    /// Quiet positions of `match --pgn` games, scored by Stockfish: appends `FEN<TAB>cp` lines to --out
    Positions {
        /// PGN files written by `cargo xtask match --pgn`
        #[arg(long, required = true, num_args = 1..)]
        pgn: Vec<PathBuf>,
        /// The TSV to append to (positions already in it are skipped)
        #[arg(long)]
        out: PathBuf,
        /// Stockfish's search depth per position
        #[arg(long, default_value_t = 8)]
        depth: u32,
        /// Take every Nth ply of a game (after the first 16)
        #[arg(long, default_value_t = 12)]
        every: usize,
        /// At most this many new positions
        #[arg(long, default_value_t = 60_000)]
        max: usize,
        /// Stockfish processes (each Threads=1)
        #[arg(long, default_value_t = 2)]
        jobs: usize,
        #[arg(long, default_value = crate::book::STOCKFISH)]
        stockfish: PathBuf,
        /// Label each position with its game's result for the side to move
        /// (1, 0.5, 0) instead of Stockfish's score
        #[arg(long)]
        results: bool,
    },
    /// Fit the weights to a positions TSV and print them as weights.rs source
    Fit {
        /// The TSV of `tune positions`
        data: PathBuf,
        /// Linearise-and-descend rounds
        #[arg(long, default_value_t = 2)]
        rounds: usize,
        /// Adam steps per round
        #[arg(long, default_value_t = 1500)]
        steps: usize,
        /// L2 pull towards the defaults, per weight and squared centipawn
        #[arg(long, default_value_t = 2e-7)]
        lambda: f64,
        /// Sigmoid scale in centipawns (default: 200 for Stockfish's
        /// scores, the best fit to the default weights for results)
        #[arg(long)]
        k: Option<f64>,
        /// The labels are game results (`tune positions --results`)
        #[arg(long)]
        results: bool,
        /// Stockfish's centipawns times this are the evaluation's (default:
        /// the factor that fits the default weights best)
        #[arg(long)]
        scale: Option<f64>,
        /// Threads for the evaluations
        #[arg(long, default_value_t = 2)]
        jobs: usize,
        /// Fit only these weights (scalar names or table names: PST,
        /// PAWN_EG_RANK, PASSED_MG, PASSED_EG), comma-separated
        #[arg(long, value_delimiter = ',')]
        only: Vec<String>,
        /// Keep these weights at their defaults (names as for --only)
        #[arg(long, value_delimiter = ',')]
        fixed: Vec<String>,
    },
}

pub fn run(action: Action) -> Result {
    match action {
        Action::Positions { pgn, out, depth, every, max, jobs, stockfish, results } => {
            positions(&pgn, &out, depth, every.max(1), max, jobs.max(1), &stockfish, results)
        }
        Action::Fit { data, rounds, steps, lambda, k, results, scale, jobs, only, fixed } => {
            let free = free_weights(&only, &fixed)?;
            fit(&data, &free, rounds, steps, lambda, k, results, scale, jobs.max(1))
        }
    }
}

/// A game of a PGN file: its SAN moves from the initial position and
/// White's score (None: no result).
type Game = (Vec<String>, Option<f64>);

/// The games of a PGN file (tags and move numbers dropped).
fn pgn_games(text: &str, path: &Path) -> Result<Vec<Game>> {
    let mut games = Vec::new();
    let mut moves: Vec<String> = Vec::new();
    let mut result = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            if line.starts_with("[FEN ") {
                return Err(format!("{}: games from a FEN are not supported", path.display()));
            }
            if !moves.is_empty() {
                games.push((std::mem::take(&mut moves), result.take()));
            }
            continue;
        }
        for tok in line.split_whitespace() {
            match tok {
                "1-0" => result = Some(1.0),
                "0-1" => result = Some(0.0),
                "1/2-1/2" => result = Some(0.5),
                _ => {}
            }
            if matches!(tok, "1-0" | "0-1" | "1/2-1/2" | "*") {
                continue;
            }
            let tok = tok.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
            if tok.is_empty() {
                continue;
            }
            moves.push(tok.to_string());
        }
    }
    if !moves.is_empty() {
        games.push((moves, result));
    }
    if games.is_empty() {
        return Err(format!("{}: no games", path.display()));
    }
    Ok(games)
}

/// No capture wins material by swap-off, for either side (`fen`'s side to
/// move is not in check). The static evaluation sees no threats: where
/// the side not to move could win a man, the side to move is worse off
/// than it says, and those positions taught the fit a tempo of -41.
fn quiet_for_both(fen: &str) -> bool {
    let no_winning_capture = |fen: &str| {
        let Ok(pos) = Position::from_fen(fen.as_bytes()) else { return false };
        let mut gen = MoveGen::new();
        while let Some(m) = gen.next_legal(&pos) {
            if m.is_capture() && firmware::engine::see(&pos, m) > 0 {
                return false;
            }
        }
        true
    };
    let f: Vec<&str> = fen.split(' ').collect();
    if f.len() < 4 {
        return false;
    }
    let other = format!("{} {} {} - 0 1", f[0], if f[1] == "w" { "b" } else { "w" }, f[2]);
    no_winning_capture(fen) && no_winning_capture(&other)
}

/// The position part of a FEN (no move counters), for duplicates.
fn board_key(fen: &str) -> String {
    fen.split(' ').take(4).collect::<Vec<_>>().join(" ")
}

#[allow(clippy::too_many_arguments)]
fn positions(pgns: &[PathBuf], out: &Path, depth: u32, every: usize, max: usize, jobs: usize, stockfish: &Path, results: bool) -> Result {
    let mut seen: HashSet<String> = HashSet::new();
    if let Ok(text) = std::fs::read_to_string(out) {
        for l in text.lines() {
            if let Some((fen, _)) = l.split_once('\t') {
                seen.insert(board_key(fen));
            }
        }
    }
    let already = seen.len();
    let mut todo: Vec<(String, Option<f64>)> = Vec::new();
    'files: for path in pgns {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        for (g, (game, white_score)) in pgn_games(&text, path)?.iter().enumerate() {
            if results && white_score.is_none() {
                continue;
            }
            let mut pos = Chess::default();
            for (ply, san) in game.iter().enumerate() {
                let m = san
                    .trim_end_matches(['+', '#'])
                    .parse::<San>()
                    .ok()
                    .and_then(|s| s.to_move(&pos).ok())
                    .ok_or_else(|| format!("{}: game {}: illegal or unreadable move {san} at ply {}", path.display(), g + 1, ply + 1))?;
                // (Requiring also that the move played be quiet kept the
                // positions where the side to move had nothing forcing to
                // play, and the fit's tempo came out at -17.)
                if ply >= 16 && (ply + g) % every == 0 && !pos.is_check() {
                    let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
                    if quiet_for_both(&fen) && seen.insert(board_key(&fen)) {
                        let score = white_score.map(|w| if pos.turn().is_white() { w } else { 1.0 - w });
                        todo.push((fen, score));
                        if todo.len() >= max {
                            break 'files;
                        }
                    }
                }
                pos.play_unchecked(m);
            }
        }
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .map_err(|e| format!("cannot open {}: {e}", out.display()))?;
    if results {
        for (fen, score) in &todo {
            writeln!(file, "{fen}\t{}", score.expect("games without a result are skipped")).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
        }
        println!("positions: {already} already in {}, {} new appended with their game's result", out.display(), todo.len());
        return Ok(());
    }
    println!("positions: {already} already in {}, {} new to score at depth {depth} ({jobs} Stockfish)", out.display(), todo.len());
    if todo.is_empty() {
        return Ok(());
    }
    let todo: Vec<String> = todo.into_iter().map(|(fen, _)| fen).collect();
    let total = todo.len();
    let pool = Pool::start(stockfish, jobs, todo, move |engine, fen: String, tx| {
        let (_, cp, _) = engine.search(&fen, depth, None)?;
        tx.send(Ok((fen, cp))).map_err(|_| "stopped".to_string())
    });
    let mut done = 0;
    let mut first_error = None;
    for r in pool.results.iter() {
        match r {
            Ok((fen, cp)) => {
                writeln!(file, "{fen}\t{cp}").map_err(|e| format!("cannot write {}: {e}", out.display()))?;
                done += 1;
                if done % 1000 == 0 {
                    println!("  {done}/{total}");
                }
            }
            Err(e) => {
                first_error.get_or_insert(e);
                pool.cancel();
            }
        }
    }
    pool.join();
    println!("positions: {done} scored and appended to {}", out.display());
    first_error.map_or(Ok(()), Err)
}

/// A position of the data set: the board and Stockfish's score (side to move).
struct Sample {
    pos: Position,
    score: f64,
}

/// `results`: the labels are game results (0, 0.5, 1), not centipawns.
fn load(data: &Path, results: bool) -> Result<Vec<Sample>> {
    let text = std::fs::read_to_string(data).map_err(|e| format!("cannot read {}: {e}", data.display()))?;
    let mut out = Vec::new();
    for (i, l) in text.lines().enumerate() {
        let what = if results { "a result (0, 0.5 or 1)" } else { "centipawns" };
        let bad = || format!("{}:{}: expected FEN<TAB>{what}", data.display(), i + 1);
        let (fen, label) = l.split_once('\t').ok_or_else(bad)?;
        let score: f64 = label.trim().parse().map_err(|_| bad())?;
        if results && !(0.0..=1.0).contains(&score) || !results && score.fract() != 0.0 {
            return Err(bad());
        }
        let pos = Position::from_fen(fen.as_bytes()).map_err(|e| format!("{}:{}: bad FEN: {e:?}", data.display(), i + 1))?;
        // Mates and lost causes teach the weights nothing.
        if results || score.abs() <= 2000.0 {
            out.push(Sample { pos, score });
        }
    }
    if out.len() < 100 {
        return Err(format!("{}: only {} usable positions", data.display(), out.len()));
    }
    Ok(out)
}

fn sigmoid(x: f64, k: f64) -> f64 {
    1.0 / (1.0 + (-x / k).exp())
}

/// The firmware's evaluation of every sample with the live weights.
fn evaluate_all(samples: &[Sample], jobs: usize) -> Vec<f64> {
    let chunk = samples.len().div_ceil(jobs);
    std::thread::scope(|s| {
        let parts: Vec<_> = samples
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().map(|x| firmware::engine::eval(&x.pos) as f64).collect::<Vec<f64>>()))
            .collect();
        parts.into_iter().flat_map(|h| h.join().expect("evaluation thread")).collect()
    })
}

fn loss(evals: &[f64], targets: &[f64], idx: &[usize], k: f64) -> f64 {
    idx.iter().map(|&i| (sigmoid(evals[i], k) - targets[i]).powi(2)).sum::<f64>() / idx.len() as f64
}

/// A weight's bounds: table entries are signed bytes in flash.
fn bounds(i: usize) -> (f64, f64) {
    if i >= live::PST {
        (-127.0, 127.0)
    } else {
        (-500.0, 500.0)
    }
}

/// Which weights the fit may move, from `--only` and `--fixed`.
fn free_weights(only: &[String], fixed: &[String]) -> Result<Vec<bool>> {
    let known = |n: &String| (0..live::COUNT).any(|i| live::name(i).0 == n);
    if let Some(bad) = only.iter().chain(fixed).find(|n| !known(n)) {
        return Err(format!("no weight or table is called {bad} (see firmware/src/engine/weights.rs)"));
    }
    let free: Vec<bool> = (0..live::COUNT)
        .map(|i| {
            let name = live::name(i).0;
            (only.is_empty() || only.iter().any(|n| n == name)) && !fixed.iter().any(|n| n == name)
        })
        .collect();
    if !free.contains(&true) {
        return Err("--only and --fixed leave no weight to fit".into());
    }
    Ok(free)
}

#[allow(clippy::too_many_arguments)]
fn fit(data: &Path, free: &[bool], rounds: usize, steps: usize, lambda: f64, k: Option<f64>, results: bool, scale: Option<f64>, jobs: usize) -> Result {
    let positive = |v: f64| v.is_finite() && v > 0.0;
    if k.is_some_and(|k| !positive(k)) || scale.is_some_and(|s| !positive(s)) || !(lambda.is_finite() && lambda >= 0.0) {
        return Err("--k and --scale must be positive, --lambda not negative".into());
    }
    let samples = load(data, results)?;
    let n = samples.len();
    // Every tenth position is held out.
    let in_train: Vec<bool> = (0..n).map(|i| i % 10 != 0).collect();
    let train: Vec<usize> = (0..n).filter(|&i| in_train[i]).collect();
    let test: Vec<usize> = (0..n).filter(|&i| !in_train[i]).collect();
    let defaults: Vec<f64> = (0..live::COUNT).map(|i| live::default(i) as f64).collect();
    for (i, &d) in defaults.iter().enumerate() {
        live::set(i, d as i16);
    }
    let base = evaluate_all(&samples, jobs);
    let (targets, k, label) = if results {
        // Results: K is what relates the evaluation to the winning chances.
        let targets: Vec<f64> = samples.iter().map(|x| x.score).collect();
        let k = k.unwrap_or_else(|| {
            (1..=200).map(|i| i as f64 * 10.0).min_by(|a, b| loss(&base, &targets, &train, *a).total_cmp(&loss(&base, &targets, &train, *b))).expect("candidates")
        });
        (targets, k, "game results".to_string())
    } else {
        // Stockfish's scale onto the evaluation's (material fixed).
        let k = k.unwrap_or(200.0);
        let mut best_scale = (f64::MAX, 1.0);
        for step in 0..=150 {
            let s = 0.5 + step as f64 * 0.01;
            let t: Vec<f64> = samples.iter().map(|x| sigmoid(s * x.score, k)).collect();
            let l = loss(&base, &t, &train, k);
            if l < best_scale.0 {
                best_scale = (l, s);
            }
        }
        let scale = scale.unwrap_or(best_scale.1);
        (samples.iter().map(|x| sigmoid(scale * x.score, k)).collect(), k, format!("Stockfish scale {scale:.2}"))
    };
    println!(
        "fit: {n} positions ({} to fit, {} held out), {label}, K {k}; loss with the defaults: fit {:.6}, held out {:.6}",
        train.len(),
        test.len(),
        loss(&base, &targets, &train, k),
        loss(&base, &targets, &test, k)
    );
    let mut current = defaults.clone();
    for round in 0..rounds {
        for (i, &v) in current.iter().enumerate() {
            live::set(i, v as i16);
        }
        let e0 = evaluate_all(&samples, jobs);
        // Columns of the linear model: d eval / d weight, sparse.
        const STEP: i16 = 4;
        let mut cols: Vec<Vec<(u32, f32)>> = Vec::with_capacity(live::COUNT);
        for i in 0..live::COUNT {
            if !free[i] {
                cols.push(Vec::new());
                continue;
            }
            let v = current[i] as i16;
            live::set(i, v + STEP);
            let e = evaluate_all(&samples, jobs);
            live::set(i, v);
            cols.push(
                e.iter()
                    .zip(&e0)
                    .enumerate()
                    .filter(|(_, (a, b))| a != b)
                    .map(|(p, (a, b))| (p as u32, ((a - b) / STEP as f64) as f32))
                    .collect(),
            );
        }
        let active = cols.iter().filter(|c| !c.is_empty()).count();
        // Adam on the linear model.
        let mut x = current.clone();
        let (mut m1, mut m2) = (vec![0.0; live::COUNT], vec![0.0; live::COUNT]);
        let (b1, b2, lr) = (0.9, 0.999, 1.0);
        let mut pred = vec![0.0; n];
        let mut g_pred = vec![0.0; n];
        for t in 1..=steps {
            pred.copy_from_slice(&e0);
            for (i, col) in cols.iter().enumerate() {
                let d = x[i] - current[i];
                if d != 0.0 {
                    for &(p, f) in col {
                        pred[p as usize] += d * f as f64;
                    }
                }
            }
            for p in 0..n {
                g_pred[p] = if in_train[p] {
                    let s = sigmoid(pred[p], k);
                    2.0 * (s - targets[p]) * s * (1.0 - s) / k / train.len() as f64
                } else {
                    0.0
                };
            }
            for (i, col) in cols.iter().enumerate() {
                if col.is_empty() {
                    continue;
                }
                let g: f64 = col.iter().map(|&(p, f)| g_pred[p as usize] * f as f64).sum::<f64>() + 2.0 * lambda * (x[i] - defaults[i]);
                m1[i] = b1 * m1[i] + (1.0 - b1) * g;
                m2[i] = b2 * m2[i] + (1.0 - b2) * g * g;
                let mh = m1[i] / (1.0 - b1.powi(t as i32));
                let vh = m2[i] / (1.0 - b2.powi(t as i32));
                let (lo, hi) = bounds(i);
                x[i] = (x[i] - lr * mh / (vh.sqrt() + 1e-12)).clamp(lo, hi);
            }
        }
        current = x.iter().map(|v| v.round()).collect();
        for (i, &v) in current.iter().enumerate() {
            live::set(i, v as i16);
        }
        let e = evaluate_all(&samples, jobs);
        println!(
            "round {}: {active} weights seen; loss fit {:.6}, held out {:.6}",
            round + 1,
            loss(&e, &targets, &train, k),
            loss(&e, &targets, &test, k)
        );
    }
    print_weights(&current, &defaults);
    Ok(())
}

/// The fitted weights as the source of `firmware/src/engine/weights.rs`
/// (scalars with their defaults beside them, then the tables).
fn print_weights(w: &[f64], defaults: &[f64]) {
    println!("\n// scalars (default in the comment)");
    for i in 0..live::PST {
        println!("    {} = {};   // {}", live::name(i).0, w[i] as i64, defaults[i] as i64);
    }
    let table = |name: &str, from: usize, len: usize| {
        println!("\n// {name}");
        for row in 0..len / 8 {
            let cells: Vec<String> = (0..8).map(|c| format!("{:4}", w[from + row * 8 + c] as i64)).collect();
            println!("    {},", cells.join(","));
        }
    };
    table("PST", live::PST, 384);
    table("PAWN_EG_RANK", live::PAWN_EG_RANK, 8);
    table("PASSED_MG", live::PASSED_MG, 8);
    table("PASSED_EG", live::PASSED_EG, 8);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgn_games_are_read_move_by_move() {
        let pgn = "[Event \"x\"]\n[Result \"1/2-1/2\"]\n\n1. e4 e5 2. Nf3 Nc6 1/2-1/2\n\n[Event \"y\"]\n\n1. d4 d5 2. c4 dxc4 0-1\n";
        let games = pgn_games(pgn, Path::new("t.pgn")).unwrap();
        let moves = |m: &[&str]| m.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(games, vec![(moves(&["e4", "e5", "Nf3", "Nc6"]), Some(0.5)), (moves(&["d4", "d5", "c4", "dxc4"]), Some(0.0))]);
        let unfinished = pgn_games("[Event \"x\"]\n\n1. e4 *\n", Path::new("t.pgn")).unwrap();
        assert_eq!(unfinished, vec![(moves(&["e4"]), None)]);
        assert!(pgn_games("[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n1. Kb1 *\n", Path::new("t.pgn")).is_err());
        assert!(pgn_games("[Event \"x\"]\n", Path::new("t.pgn")).is_err());
    }

    #[test]
    fn quiet_means_no_winning_capture_for_either_side() {
        assert!(quiet_for_both("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"));
        // White to move can take the queen on d5.
        assert!(!quiet_for_both("4k3/8/8/3q4/4P3/8/8/4K3 w - - 0 1"));
        // Black, not to move, could take the knight on d4 with the pawn.
        assert!(!quiet_for_both("4k3/8/4p3/8/3N4/8/8/4K3 w - - 0 1"));
        assert!(!quiet_for_both("not a fen"));
    }

    #[test]
    fn labels_are_checked_for_their_kind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.tsv");
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let lines = |label: &str| (0..120).map(|_| format!("{start}\t{label}\n")).collect::<String>();
        std::fs::write(&path, lines("35")).unwrap();
        assert_eq!(load(&path, false).unwrap().len(), 120);
        assert!(load(&path, true).err().unwrap().contains("a result"));
        std::fs::write(&path, lines("0.5")).unwrap();
        assert!(load(&path, false).err().unwrap().contains("centipawns"));
        assert_eq!(load(&path, true).unwrap()[0].score, 0.5);
        // Mates are left out of the centipawn fits.
        std::fs::write(&path, lines("29990")).unwrap();
        assert!(load(&path, false).err().unwrap().contains("only 0 usable"));
        std::fs::write(&path, format!("{start}\n")).unwrap();
        assert!(load(&path, false).err().unwrap().contains(":1: expected"));
    }

    #[test]
    fn free_weights_follow_only_and_fixed() {
        let free = free_weights(&["PST".into(), "TEMPO".into()], &["TEMPO".into()]).unwrap();
        assert_eq!(free.iter().filter(|&&f| f).count(), 384);
        assert!(free[live::PST] && !free[live::PAWN_EG_RANK]);
        assert!(free_weights(&["NO_SUCH".into()], &[]).unwrap_err().contains("NO_SUCH"));
        assert!(free_weights(&["TEMPO".into()], &["TEMPO".into()]).is_err());
    }
}

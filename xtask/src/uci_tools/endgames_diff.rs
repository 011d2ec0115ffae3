//! `cargo xtask endgames-diff BASE.txt NEW.txt`: two `endgames --seeds`
//! outputs of the same seeds, compared seed by seed. Both builds play the
//! same starts against the same tie streams, so the paired difference of
//! each seed's plies to mate lost a move has a far smaller error than the
//! difference of the two totals. Also counts each run's long play-outs
//! (moves over the optimum, moves to mate), where failures come from.

use crate::util::Result;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// The reference build's output (`cargo xtask endgames --seeds ... > FILE`)
    base: PathBuf,
    /// The changed build's output, the same seeds and settings
    new: PathBuf,
    /// Count the play-outs at least this many moves over the optimum
    #[arg(long, default_value_t = 15)]
    over: i64,
    /// Count the play-outs of at least this many moves to mate
    #[arg(long, default_value_t = 45)]
    long: i64,
}

/// One run's figures: each (seed, ending)'s plies lost a move, and its
/// mated play-outs' (moves to mate, optimum).
#[derive(Debug, Default, PartialEq)]
struct Run {
    per_seed: BTreeMap<(u64, String), f64>,
    mates: Vec<(i64, i64)>,
    failed: usize,
}

/// Reads `endgames --seeds` output: the `seed S ENDING mated ..., X plies
/// to mate lost a move over N moves` lines and the play-outs' lines.
fn parse(text: &str, name: &Path) -> Result<Run> {
    let mut run = Run::default();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("seed ") {
            let words: Vec<&str> = rest.split_whitespace().collect();
            let lost = line.split(", ").nth(1).and_then(|t| t.split_whitespace().next()).and_then(|x| x.parse::<f64>().ok());
            if let (Some(seed), Some(ending), Some(lost)) = (words.first().and_then(|s| s.parse().ok()), words.get(1), lost) {
                if words.get(2) == Some(&"mated") {
                    run.per_seed.insert((seed, ending.to_string()), lost);
                }
            }
        } else if line.starts_with('[') {
            if line.contains(" FAIL ") {
                run.failed += 1;
            }
            let mate = line.split_once("mate in ").and_then(|(_, r)| {
                let (n, r) = r.split_once(" (optimum ")?;
                Some((n.trim().parse().ok()?, r.split(')').next()?.trim().parse().ok()?))
            });
            run.mates.extend(mate);
        }
    }
    if run.per_seed.is_empty() {
        return Err(format!("{}: no `seed S ENDING mated ...` lines (the output of `cargo xtask endgames --seeds A-B`, run to its end)", name.display()).into());
    }
    Ok(run)
}

/// Mean and standard error of the paired differences `new - base`.
fn paired(pairs: &[(f64, f64)]) -> (f64, f64) {
    let n = pairs.len() as f64;
    let d: Vec<f64> = pairs.iter().map(|(b, a)| a - b).collect();
    let mean = d.iter().sum::<f64>() / n;
    let var = if pairs.len() > 1 { d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    (mean, (var / n).sqrt())
}

pub fn run(args: Args) -> Result {
    let read = |p: &PathBuf| -> Result<Run> {
        let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        parse(&text, p)
    };
    let (base, new) = (read(&args.base)?, read(&args.new)?);
    let missing: Vec<String> = base.per_seed.keys().filter(|k| !new.per_seed.contains_key(*k)).chain(new.per_seed.keys().filter(|k| !base.per_seed.contains_key(*k))).map(|(s, e)| format!("{s} {e}")).collect();
    if !missing.is_empty() {
        let more = if missing.len() > 5 { format!(" and {} more", missing.len() - 5) } else { String::new() };
        return Err(format!("the runs' seeds differ (in one only: {}{more}): compare runs of the same --seeds", missing[..missing.len().min(5)].join(", ")).into());
    }
    let endings: Vec<&String> = {
        let mut e: Vec<&String> = base.per_seed.keys().map(|(_, e)| e).collect();
        e.sort();
        e.dedup();
        e
    };
    for ending in endings {
        let pairs: Vec<(f64, f64)> = base.per_seed.iter().filter(|((_, e), _)| e == ending).map(|(k, &b)| (b, new.per_seed[k])).collect();
        let mean = |i: usize| pairs.iter().map(|p| if i == 0 { p.0 } else { p.1 }).sum::<f64>() / pairs.len() as f64;
        let (d, se) = paired(&pairs);
        println!(
            "{ending:<4} {} seeds: plies to mate lost a move, mean of the seeds {:.4} -> {:.4}, paired {d:+.4} +/- {se:.4} (standard error)",
            pairs.len(),
            mean(0),
            mean(1)
        );
    }
    for (name, r) in [("base", &base), ("new", &new)] {
        let over = r.mates.iter().filter(|(n, o)| n - o >= args.over).count();
        let long = r.mates.iter().filter(|(n, _)| *n >= args.long).count();
        let longest = r.mates.iter().map(|m| m.0).max().unwrap_or(0);
        println!(
            "{name:<4}: {} mated, {} not; {over} at least {} moves over the optimum, {long} of at least {} moves, the longest {longest}",
            r.mates.len(),
            r.failed,
            args.over,
            args.long
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "[  1/4] seed 7 KBNK 8/8/8/8/8/8/8/8 w - - 0 1   ok    mate in 30 (optimum 14); worst: move 9 c4e6, 10 plies to mate lost\n\
        [  2/4] seed 8 KBNK 8/8/8/8/8/8/8/8 w - - 0 1   FAIL  fifty-move rule, after 100 plies (optimum 32): a1a2\n\
        seed 7 KBNK mated 1/1, 0.200 plies to mate lost a move over 50 moves\n\
        seed 8 KBNK mated 0/1 (1 not won by the tables), 0.100 plies to mate lost a move over 60 moves\n";
    const NEW: &str = "[  1/4] seed 7 KBNK 8/8/8/8/8/8/8/8 w - - 0 1   ok    mate in 46 (optimum 20)\n\
        [  2/4] seed 8 KBNK 8/8/8/8/8/8/8/8 w - - 0 1   ok    mate in 33 (optimum 32)\n\
        seed 7 KBNK mated 1/1, 0.150 plies to mate lost a move over 50 moves\n\
        seed 8 KBNK mated 1/1, 0.070 plies to mate lost a move over 60 moves\n";

    #[test]
    fn runs_read_per_seed_and_per_play_out() {
        let b = parse(BASE, Path::new("b")).unwrap();
        assert_eq!(b.per_seed.len(), 2);
        assert_eq!(b.per_seed[&(8, "KBNK".to_string())], 0.1);
        assert_eq!((b.mates.clone(), b.failed), (vec![(30, 14)], 1));
        let n = parse(NEW, Path::new("n")).unwrap();
        assert_eq!(n.mates, vec![(46, 20), (33, 32)]);
        // Differences -0.05 and -0.03: mean -0.04, standard error 0.01.
        let pairs: Vec<(f64, f64)> = b.per_seed.iter().map(|(k, &v)| (v, n.per_seed[k])).collect();
        let (d, se) = paired(&pairs);
        assert!((d + 0.04).abs() < 1e-9 && (se - 0.01).abs() < 1e-9, "{d} {se}");
    }

    #[test]
    fn other_files_and_other_seeds_are_refused() {
        let err = parse("garbage\n", Path::new("x.txt")).unwrap_err().to_string();
        assert!(err.contains("x.txt") && err.contains("--seeds"), "{err}");
        let dir = std::env::temp_dir().join(format!("endgames_diff_test_{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (b, n) = (dir.join("b.txt"), dir.join("n.txt"));
        std::fs::write(&b, BASE).unwrap();
        std::fs::write(&n, NEW.replace("seed 8 KBNK mated", "seed 9 KBNK mated")).unwrap();
        let err = run(Args { base: b, new: n, over: 15, long: 45 }).unwrap_err().to_string();
        assert!(err.contains("8 KBNK") && err.contains("9 KBNK"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

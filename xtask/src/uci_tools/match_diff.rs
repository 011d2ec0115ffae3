//! `cargo xtask match-diff BASE.pgn NEW.pgn`: two `match --pgn` files of
//! the same match setting (openings, games, opponent), compared game by
//! game. Each opening is played with each colour in both, so the score
//! difference of the pairs has a far smaller error than the difference of
//! the two Elo figures: most pairs end alike, and those cancel.

use super::match_::elo;
use crate::util::Result;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// The reference build's games (`cargo xtask match ... --pgn`)
    base: PathBuf,
    /// The changed build's games, same openings and game count
    new: PathBuf,
}

/// One game's tags that matter here.
#[derive(Clone, Debug, PartialEq)]
struct Game {
    round: usize,
    white: String,
    black: String,
    opening: String,
    /// White's score: 1, 0.5 or 0.
    white_score: f64,
}

/// The games of a PGN file written by `cargo xtask match --pgn` (tags
/// only; a game without a result, e.g. the last one of an interrupted
/// match, is an error, as is a file without games).
fn read_games(text: &str, path: &Path) -> Result<Vec<Game>> {
    let mut games = Vec::new();
    let mut tags: HashMap<String, String> = HashMap::new();
    let mut flush = |tags: &mut HashMap<String, String>, line_no: usize| -> Result<()> {
        if tags.is_empty() {
            return Ok(());
        }
        let get = |name: &str| {
            tags.get(name).cloned().ok_or_else(|| format!("{}: the game before line {line_no} has no {name} tag", path.display()))
        };
        let round = get("Round")?;
        let round = round.parse().map_err(|_| format!("{}: Round \"{round}\" before line {line_no} is not a number", path.display()))?;
        let result = get("Result")?;
        let white_score = match result.as_str() {
            "1-0" => 1.0,
            "0-1" => 0.0,
            "1/2-1/2" => 0.5,
            other => return Err(format!("{}: game {round} has no result (\"{other}\")", path.display())),
        };
        games.push(Game { round, white: get("White")?, black: get("Black")?, opening: get("Opening")?, white_score });
        tags.clear();
        Ok(())
    };
    let mut in_moves = false;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(inner) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            if in_moves {
                flush(&mut tags, i + 1)?;
                in_moves = false;
            }
            let Some((name, value)) = inner.split_once(' ') else {
                return Err(format!("{}:{}: not a PGN tag: {line}", path.display(), i + 1));
            };
            let value = value.trim();
            let value = value
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .ok_or_else(|| format!("{}:{}: tag value not in quotes: {line}", path.display(), i + 1))?;
            tags.insert(name.to_string(), value.replace("\\\"", "\"").replace("\\\\", "\\"));
        } else if !line.is_empty() {
            in_moves = true;
        }
    }
    flush(&mut tags, text.lines().count() + 1)?;
    if games.is_empty() {
        return Err(format!("{}: no games", path.display()));
    }
    Ok(games)
}

/// The player under test: `cargo xtask match` gives it White in the odd
/// rounds and Black in the even ones.
fn tested_player(games: &[Game]) -> Result<String> {
    let name = |g: &Game| if g.round % 2 == 1 { g.white.clone() } else { g.black.clone() };
    let t = name(&games[0]);
    if let Some(g) = games.iter().find(|g| name(g) != t) {
        return Err(format!(
            "round {}: {} against {}, but the engine under test ({t}) plays White in odd rounds and Black in even ones: \
             not a `cargo xtask match --pgn` file",
            g.round, g.white, g.black
        ));
    }
    Ok(t)
}

/// The comparison of paired games.
#[derive(Debug, PartialEq)]
pub struct Diff {
    pub pairs: usize,
    pub base_score: f64,
    pub new_score: f64,
    /// Mean of (new - base) over the pairs, and the half-width of its 95%
    /// interval.
    pub diff: f64,
    pub error: f64,
    /// Pairs where the new build did better / worse.
    pub better: usize,
    pub worse: usize,
}

/// Pairs the games by round (opening and colours), checking that both
/// files played the same opening with the same colours in each round.
fn compare(base: &[Game], new: &[Game]) -> Result<Diff> {
    let (tb, tn) = (tested_player(base)?, tested_player(new)?);
    let score = |g: &Game, t: &str| if g.white == t { g.white_score } else { 1.0 - g.white_score };
    let by_round: HashMap<usize, &Game> = new.iter().map(|g| (g.round, g)).collect();
    let mut d = Vec::new();
    let (mut sb, mut sn) = (0.0, 0.0);
    for b in base {
        let Some(n) = by_round.get(&b.round) else { continue };
        if b.opening != n.opening {
            return Err(format!(
                "round {}: opening \"{}\" against \"{}\": not the same match setting",
                b.round, b.opening, n.opening
            ));
        }
        let (x, y) = (score(b, &tb), score(n, &tn));
        sb += x;
        sn += y;
        d.push(y - x);
    }
    if d.len() < 2 {
        return Err(format!("only {} round(s) in both files: nothing to compare", d.len()));
    }
    let n = d.len() as f64;
    let mean = d.iter().sum::<f64>() / n;
    let var = d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    Ok(Diff {
        pairs: d.len(),
        base_score: sb / n,
        new_score: sn / n,
        diff: mean,
        error: 1.96 * (var / n).sqrt(),
        better: d.iter().filter(|&&x| x > 0.0).count(),
        worse: d.iter().filter(|&&x| x < 0.0).count(),
    })
}

pub fn run(args: Args) -> Result {
    let load = |p: &Path| -> Result<Vec<Game>> {
        let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        read_games(&text, p)
    };
    let (base, new) = (load(&args.base)?, load(&args.new)?);
    let d = compare(&base, &new)?;
    println!(
        "{} paired games: base {:.1}% ({:+.1} Elo), new {:.1}% ({:+.1} Elo)",
        d.pairs,
        100.0 * d.base_score,
        elo(d.base_score),
        100.0 * d.new_score,
        elo(d.new_score)
    );
    println!(
        "new - base: {:+.2}% +/- {:.2}% (95%), about {:+.1} Elo; better in {} pairs, worse in {}, alike in {}",
        100.0 * d.diff,
        100.0 * d.error,
        elo(d.base_score + d.diff) - elo(d.base_score),
        d.better,
        d.worse,
        d.pairs - d.better - d.worse
    );
    let verdict = if d.diff - d.error > 0.0 {
        "the new build scores better (95%)"
    } else if d.diff + d.error < 0.0 {
        "the new build scores worse (95%)"
    } else {
        "no difference shown at 95%: more games, or a larger change"
    };
    println!("{verdict}");
    if base.len() != new.len() || d.pairs != base.len() {
        println!("note: {} and {} games, {} in both", base.len(), new.len(), d.pairs);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pgn(results: &[(&str, &str, &str)]) -> String {
        let mut s = String::new();
        for (i, (white, black, result)) in results.iter().enumerate() {
            s += &format!(
                "[Event \"cargo xtask match\"]\n[Round \"{}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n[Opening \"line {}\"]\n\n1. e4 e5 {result}\n\n",
                i + 1,
                i / 2
            );
        }
        s
    }

    #[test]
    fn pairs_by_round_and_scores_the_tested_player() {
        let p = Path::new("x.pgn");
        let base = read_games(&pgn(&[("T", "R", "1-0"), ("R", "T", "1-0"), ("T", "R", "1/2-1/2"), ("R", "T", "0-1")]), p).unwrap();
        let new = read_games(&pgn(&[("T2", "R", "1-0"), ("R", "T2", "0-1"), ("T2", "R", "1-0"), ("R", "T2", "0-1")]), p).unwrap();
        // Base: 1 + 0 + 0.5 + 1; new: 1 + 1 + 1 + 1.
        let d = compare(&base, &new).unwrap();
        assert_eq!((d.pairs, d.better, d.worse), (4, 2, 0));
        assert!((d.base_score - 0.625).abs() < 1e-9 && (d.new_score - 1.0).abs() < 1e-9);
        assert!((d.diff - 0.375).abs() < 1e-9 && d.error > 0.0);
    }

    #[test]
    fn refuses_other_settings_and_broken_files() {
        let p = Path::new("x.pgn");
        let base = read_games(&pgn(&[("T", "R", "1-0"), ("R", "T", "1-0")]), p).unwrap();
        // Another opening set.
        let other = read_games(&pgn(&[("T", "R", "1-0"), ("R", "T", "1-0")]).replace("line 0", "line 9"), p).unwrap();
        assert!(compare(&base, &other).unwrap_err().contains("not the same match setting"));
        // The tested engine with White in an even round: not a match file.
        let odd = read_games(&pgn(&[("T", "R", "1-0"), ("T", "R", "1-0")]), p).unwrap();
        assert!(compare(&base, &odd).unwrap_err().contains("not a `cargo xtask match --pgn` file"));
        assert!(compare(&base, &base[..1]).unwrap_err().contains("nothing to compare"));
        assert!(read_games("", p).unwrap_err().contains("no games"));
        assert!(read_games("[Round \"1\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n[Opening \"o\"]\n", p)
            .unwrap_err()
            .contains("no result"));
        assert!(read_games("[Round 1]\n", p).unwrap_err().contains("not in quotes"));
        assert!(read_games("[Round \"1\"]\n[Result \"1-0\"]\n", p).unwrap_err().contains("no White tag"));
    }
}

//! `cargo xtask match`: the firmware (through `board-sim uci`), or with
//! `--host` the same engine built for this machine, against a reference
//! engine, alternating colours over a set of openings, every move
//! checked and every game adjudicated by the rules (shakmaty); prints the
//! score and the Elo difference with its 95% error.

use super::uci_client::{position_command, UciEngine, XboardEngine};
use crate::util::Result;
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Opponent {
    /// /usr/games/stockfish (UCI) with `go nodes N` (or `go depth D`)
    Stockfish,
    /// /usr/games/fairymax (xboard) with `sd D`
    Fairymax,
}

/// The reference engine, whatever it speaks.
enum Reference {
    Uci(UciEngine),
    Xboard(XboardEngine),
}

impl Reference {
    fn start(cmd: &[String], opponent: Opponent) -> Result<Reference> {
        Ok(match opponent {
            Opponent::Stockfish => Reference::Uci(UciEngine::start(cmd, "reference engine")?),
            Opponent::Fairymax => Reference::Xboard(XboardEngine::start(cmd, "reference engine")?),
        })
    }

    fn name(&self) -> String {
        match self {
            Reference::Uci(e) => e.name.clone(),
            Reference::Xboard(_) => "Fairy-Max".into(),
        }
    }

    fn new_game(&mut self) -> Result {
        match self {
            Reference::Uci(e) => e.new_game(),
            Reference::Xboard(_) => Ok(()),
        }
    }

    /// Its move after `moves` from the initial position.
    fn best_move(&mut self, moves: &[String], args: &Args) -> Result<String> {
        let timeout = Duration::from_secs(60);
        match self {
            Reference::Uci(e) => {
                let go = match args.opponent_depth {
                    Some(d) => format!("go depth {d}"),
                    None => format!("go nodes {}", args.nodes),
                };
                Ok(e.search(&position_command(None, moves), &go, timeout)?.best)
            }
            Reference::Xboard(e) => e.best_move(moves, args.opponent_depth.unwrap_or(4), timeout),
        }
    }

    fn quit(self) {
        match self {
            Reference::Uci(e) => e.quit(),
            Reference::Xboard(e) => e.quit(),
        }
    }
}

#[derive(clap::Args)]
pub struct Args {
    /// Games to play (each opening twice, colours swapped; rounded up to
    /// even; at most twice the number of openings: 64 for the main set)
    #[arg(long, default_value_t = 12)]
    games: usize,
    /// The firmware's time per move, in ms of emulated time
    #[arg(long, default_value_t = 1000)]
    movetime: u64,
    /// The reference engine
    #[arg(long, value_enum, default_value_t = Opponent::Stockfish)]
    opponent: Opponent,
    /// The reference engine's nodes per move (stockfish)
    #[arg(long, default_value_t = 500)]
    nodes: u64,
    /// The reference engine's depth per move instead (fairymax: default 4)
    #[arg(long)]
    opponent_depth: Option<u32>,
    /// Games are stopped after this many plies: won by the side at least
    /// 3 points of material ahead (pawn 1, minor 3, rook 5, queen 9),
    /// drawn otherwise
    #[arg(long, default_value_t = 300)]
    max_plies: usize,
    /// Any UCI engine command instead of the firmware (to test the plumbing)
    #[arg(long)]
    engine: Option<String>,
    /// Firmware ELF for the bridge (default: build it)
    #[arg(long)]
    elf: Option<PathBuf>,
    /// The opponent's command (default: /usr/games/stockfish or /usr/games/fairymax)
    #[arg(long)]
    opponent_cmd: Option<String>,
    /// Games played at once, each job with its own pair of engines. The
    /// results do not depend on it: the firmware's clock is emulated and the
    /// reference searches a fixed number of nodes (or a fixed depth).
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Play the engine built for this machine (`cargo xtask host-engine`),
    /// its clock at `--host-nps`, instead of the firmware in the emulator:
    /// the same search, hundreds of times faster (A/B tests)
    #[arg(long, conflicts_with_all = ["engine", "elf"])]
    host: bool,
    /// The host engine's clock speed (the AVR image's nps)
    #[arg(long, default_value_t = super::host_engine::DEFAULT_NPS, requires = "host")]
    host_nps: u32,
    /// The opening set: 32 main lines, every line of the opening book
    /// (assets/book.txt, over 400, for long host matches), or every book
    /// position from the 6th ply on (over 2,000)
    #[arg(long, value_enum, default_value_t = OpeningSet::Main)]
    openings: OpeningSet,
    /// Take the openings spread evenly over the whole set instead of its
    /// first ones (a set is ordered by line, so its first openings are
    /// alike: a sample of the book for an emulated match)
    #[arg(long)]
    spread: bool,
    /// Also write every game to this PGN file (SAN moves, the opening, how
    /// it ended), each as soon as it is finished
    #[arg(long)]
    pgn: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OpeningSet {
    /// The 32 main lines below
    Main,
    /// Every line of the opening book, to its end
    Book,
    /// Every position of the opening book from its 6th ply on (over
    /// 2,000: finer A/B tests on the host)
    BookPositions,
}

/// [`OpeningSet::BookPositions`] starts this many plies in: sooner, the
/// openings are few and shared by most games.
const BOOK_POSITIONS_FROM: usize = 6;

/// The openings of a set: (name, UCI moves).
pub fn openings(set: OpeningSet) -> Result<Vec<(String, Vec<String>)>> {
    let split = |line: &str| line.split_whitespace().map(String::from).collect::<Vec<_>>();
    match set {
        OpeningSet::Main => Ok(OPENINGS.iter().map(|(name, line)| (name.to_string(), split(line))).collect()),
        OpeningSet::Book => {
            let tree = crate::book::source_tree()?;
            Ok(tree.leaf_lines().into_iter().map(|(line, moves)| (format!("book.txt:{line}"), moves)).collect())
        }
        OpeningSet::BookPositions => {
            let tree = crate::book::source_tree()?;
            Ok(tree
                .lines(BOOK_POSITIONS_FROM)
                .into_iter()
                .map(|(line, moves)| (format!("book.txt:{line} ply {}", moves.len()), moves))
                .collect())
        }
    }
}

/// Short opening lines of main-line theory, each played once with each
/// colour. Both engines are deterministic (the firmware's clock is
/// emulated, the reference searches fixed nodes or depth), so a game
/// played again from the same opening with the same colours is the same
/// game: a match has at most two games per line ([`game_count`]).
pub const OPENINGS: &[(&str, &str)] = &[
    ("Ruy Lopez", "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6"),
    ("Queen's Gambit Declined", "d2d4 d7d5 c2c4 e7e6 b1c3 g8f6"),
    ("Sicilian Najdorf", "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6"),
    ("King's Indian", "d2d4 g8f6 c2c4 g7g6 b1c3 f8g7 e2e4 d7d6"),
    ("French", "e2e4 e7e6 d2d4 d7d5 b1c3 g8f6"),
    ("Caro-Kann", "e2e4 c7c6 d2d4 d7d5 e4e5 c8f5"),
    ("English", "c2c4 e7e5 b1c3 g8f6 g2g3 d7d5"),
    ("Italian", "e2e4 e7e5 g1f3 b8c6 f1c4 f8c5 c2c3 g8f6"),
    ("Slav", "d2d4 d7d5 c2c4 c7c6 g1f3 g8f6 b1c3 d5c4"),
    ("Nimzo-Indian", "d2d4 g8f6 c2c4 e7e6 b1c3 f8b4 e2e3 e8g8"),
    ("Queen's Indian", "d2d4 g8f6 c2c4 e7e6 g1f3 b7b6 g2g3 c8b7"),
    ("Gruenfeld", "d2d4 g8f6 c2c4 g7g6 b1c3 d7d5 c4d5 f6d5 e2e4 d5c3 b2c3"),
    ("Sicilian Dragon", "e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 g7g6"),
    ("Sicilian Taimanov", "e2e4 c7c5 g1f3 e7e6 d2d4 c5d4 f3d4 b8c6 b1c3 d8c7"),
    ("Sicilian Sveshnikov", "e2e4 c7c5 g1f3 b8c6 d2d4 c5d4 f3d4 g8f6 b1c3 e7e5"),
    ("Sicilian Alapin", "e2e4 c7c5 c2c3 g8f6 e4e5 f6d5 d2d4 c5d4"),
    ("Scotch", "e2e4 e7e5 g1f3 b8c6 d2d4 e5d4 f3d4 g8f6"),
    ("Petroff", "e2e4 e7e5 g1f3 g8f6 f3e5 d7d6 e5f3 f6e4"),
    ("Ruy Lopez, Berlin", "e2e4 e7e5 g1f3 b8c6 f1b5 g8f6 e1g1 f6e4"),
    ("French Tarrasch", "e2e4 e7e6 d2d4 d7d5 b1d2 c7c5 e4d5 e6d5"),
    ("French Advance", "e2e4 e7e6 d2d4 d7d5 e4e5 c7c5 c2c3 b8c6"),
    ("Caro-Kann Classical", "e2e4 c7c6 d2d4 d7d5 b1c3 d5e4 c3e4 c8f5"),
    ("Pirc", "e2e4 d7d6 d2d4 g8f6 b1c3 g7g6 g1f3 f8g7"),
    ("Scandinavian", "e2e4 d7d5 e4d5 d8d5 b1c3 d5a5 d2d4 g8f6"),
    ("Alekhine", "e2e4 g8f6 e4e5 f6d5 d2d4 d7d6 g1f3 c8g4"),
    ("Dutch Leningrad", "d2d4 f7f5 g2g3 g8f6 f1g2 g7g6 g1f3 f8g7"),
    ("Modern Benoni", "d2d4 g8f6 c2c4 c7c5 d4d5 e7e6 b1c3 e6d5 c4d5 d7d6"),
    ("Queen's Gambit Accepted", "d2d4 d7d5 c2c4 d5c4 g1f3 g8f6 e2e3 e7e6 f1c4 c7c5"),
    ("London", "d2d4 d7d5 c1f4 g8f6 e2e3 c7c5 c2c3 b8c6"),
    ("Catalan", "d2d4 g8f6 c2c4 e7e6 g2g3 d7d5 f1g2 f8e7 g1f3 e8g8"),
    ("English, Symmetrical", "c2c4 c7c5 b1c3 b8c6 g2g3 g7g6 f1g2 f8g7"),
    ("Reti", "g1f3 d7d5 g2g3 g8f6 f1g2 c7c6 e1g1 c8g4"),
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Result3 {
    // The order indexes `Tally::ends`.
    Win,
    Draw,
    Loss,
}

/// How a game ended, from the side of `engine` (the one under test).
struct GameEnd {
    result: Result3,
    /// The kind of end, tallied in the match summary.
    kind: &'static str,
    /// The kind and its details (a position), for the game's line and PGN.
    why: String,
    plies: usize,
}

/// Plays one game from `opening`; `moves` receives every move played
/// (the opening's too), also when an engine fails.
fn play_game(
    test: &mut UciEngine,
    reference: &mut Reference,
    opening: &[String],
    test_color: Color,
    args: &Args,
    moves: &mut Vec<String>,
) -> std::result::Result<GameEnd, (Color, String, usize)> {
    let mut pos = Chess::default();
    moves.clear();
    for m in opening {
        let uci: UciMove = m.parse().map_err(|_| (Color::White, format!("bad opening move {m}"), 0))?;
        let mv = uci.to_move(&pos).map_err(|_| (Color::White, format!("illegal opening move {m}"), 0))?;
        pos.play_unchecked(mv);
        moves.push(m.clone());
    }
    test.new_game().map_err(|err| (test_color, err, 0))?;
    reference.new_game().map_err(|err| (!test_color, err, 0))?;
    let mut seen: HashMap<String, u32> = HashMap::new();
    let timeout_test = Duration::from_millis(60_000 + args.movetime * 20);
    let end = |winner: Option<Color>, kind: &'static str, plies: usize| GameEnd {
        result: match winner {
            None => Result3::Draw,
            Some(c) if c == test_color => Result3::Win,
            Some(_) => Result3::Loss,
        },
        kind,
        why: kind.to_string(),
        plies,
    };
    loop {
        let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
        let reps = seen.entry(super::repetition_key(&pos)).or_insert(0);
        *reps += 1;
        if pos.is_checkmate() {
            return Ok(end(Some(!pos.turn()), "checkmate", moves.len()));
        }
        if pos.is_stalemate() {
            return Ok(end(None, "stalemate", moves.len()));
        }
        if pos.is_insufficient_material() {
            return Ok(end(None, "insufficient material", moves.len()));
        }
        if pos.halfmoves() >= 100 {
            return Ok(end(None, "fifty-move rule", moves.len()));
        }
        if *reps >= 3 {
            return Ok(end(None, "threefold repetition", moves.len()));
        }
        if moves.len() >= args.max_plies {
            let winner = ply_limit_winner(&pos);
            let kind = if winner.is_some() { "ply limit, adjudicated on material" } else { "ply limit, drawn" };
            return Ok(GameEnd { why: format!("{kind} at {fen}"), ..end(winner, kind, moves.len()) });
        }
        let mover = pos.turn();
        let searched = if mover == test_color {
            let position = position_command(None, moves);
            test.search(&position, &format!("go movetime {}", args.movetime), timeout_test).map(|r| r.best)
        } else {
            reference.best_move(moves, args)
        };
        let best = searched.map_err(|e| (mover, e, moves.len()))?;
        if best == "resign" {
            return Ok(end(Some(!mover), "resignation", moves.len()));
        }
        let mv = best
            .parse::<UciMove>()
            .ok()
            .and_then(|u| u.to_move(&pos).ok())
            .ok_or_else(|| (mover, format!("illegal move `{best}` in {fen}"), moves.len()))?;
        moves.push(mv.to_uci(CastlingMode::Standard).to_string());
        pos.play_unchecked(mv);
    }
}

/// At least this much material ahead (pawn 1, knight and bishop 3, rook
/// 5, queen 9) wins a game stopped by `--max-plies`.
const ADJUDICATION_LEAD: i32 = 3;

/// The side [`ADJUDICATION_LEAD`] or more ahead in material, which wins a
/// game stopped at the ply limit; `None`: a draw. Stockfish at a few
/// hundred nodes does not always convert a won ending within the limit
/// (K+Q against a bare king at ply 300 was seen), and scoring those games
/// as draws flattered the engine that was losing them.
fn ply_limit_winner(pos: &Chess) -> Option<Color> {
    let board = pos.board();
    let worth = |c: Color| {
        let mine = board.by_color(c);
        [(board.pawns(), 1), (board.knights(), 3), (board.bishops(), 3), (board.rooks(), 5), (board.queens(), 9)]
            .iter()
            .map(|&(set, value)| (set & mine).count() as i32 * value)
            .sum::<i32>()
    };
    let lead = worth(Color::White) - worth(Color::Black);
    if lead >= ADJUDICATION_LEAD {
        Some(Color::White)
    } else if lead <= -ADJUDICATION_LEAD {
        Some(Color::Black)
    } else {
        None
    }
}

/// Elo difference for a score fraction.
pub(super) fn elo(score: f64) -> f64 {
    // `+ 0.0`: an even score is +0.0, not -0.0, when printed.
    -400.0 * (1.0 / score - 1.0).log10() + 0.0
}

/// The match result in Elo.
#[derive(Clone, Copy, Debug)]
pub struct EloStats {
    /// Score fraction of the engine under test.
    pub score: f64,
    pub elo: f64,
    /// Half-width of the 95% interval (infinite when it is unbounded).
    pub error: f64,
    /// The 95% interval: the Elo of score -/+ 1.96 standard errors.
    pub low: f64,
    pub high: f64,
}

/// Elo difference from a score, with the 95% interval from the per-game
/// standard error of the score.
pub fn elo_stats(wins: usize, draws: usize, losses: usize) -> EloStats {
    let n = (wins + draws + losses) as f64;
    if n == 0.0 {
        return EloStats { score: 0.5, elo: 0.0, error: f64::INFINITY, low: f64::NEG_INFINITY, high: f64::INFINITY };
    }
    let s = (wins as f64 + draws as f64 / 2.0) / n;
    let var = (wins as f64 * (1.0 - s).powi(2) + draws as f64 * (0.5 - s).powi(2) + losses as f64 * s.powi(2)) / n;
    let se = (var / n).sqrt();
    let elo_of = |x: f64| {
        if x <= 0.0 {
            f64::NEG_INFINITY
        } else if x >= 1.0 {
            f64::INFINITY
        } else {
            elo(x)
        }
    };
    let (low, high) = (elo_of(s - 1.96 * se), elo_of(s + 1.96 * se));
    let error = if low.is_finite() && high.is_finite() { (high - low) / 2.0 } else { f64::INFINITY };
    EloStats { score: s, elo: elo_of(s), error, low, high }
}

impl EloStats {
    /// The summary's Elo line. A whitewash has no finite estimate, and a
    /// short one-sided match no finite bound on one side: say so in words
    /// instead of printing infinities.
    pub fn line(&self) -> String {
        if !self.elo.is_finite() {
            let all = if self.elo < 0.0 { "lost" } else { "won" };
            return format!("Elo difference: not measurable: every game {all}; play more games or a closer opponent");
        }
        if !self.error.is_finite() {
            let bound = |x: f64| if x.is_finite() { format!("{x:.1}") } else { "unbounded".to_string() };
            return format!(
                "Elo difference: {:+.1} (95% interval {} to {}: too few games for a finite bound)",
                self.elo,
                bound(self.low),
                bound(self.high)
            );
        }
        format!("Elo difference: {:+.1} +/- {:.1} (95% interval {:.1} to {:.1})", self.elo, self.error, self.low, self.high)
    }
}

/// The running score of a match, shared by its jobs.
#[derive(Default)]
struct Tally {
    w: usize,
    d: usize,
    l: usize,
    errors: Vec<String>,
    /// By how the games ended ([`GameEnd::kind`]): the engine under test's
    /// wins, draws and losses.
    ends: HashMap<&'static str, [usize; 3]>,
    /// The engines' names, from the first pair started.
    names: Option<(String, String)>,
    /// `--pgn`: the file and its name, for messages.
    pgn: Option<(std::fs::File, PathBuf)>,
}

/// The match's endings, most frequent first: kind, count, and the engine
/// under test's results in them.
fn ending_lines(ends: &HashMap<&'static str, [usize; 3]>) -> Vec<String> {
    let mut rows: Vec<_> = ends.iter().map(|(kind, r)| (r.iter().sum::<usize>(), *kind, *r)).collect();
    rows.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    rows.into_iter()
        .map(|(n, kind, [w, d, l])| format!("{kind:<36} {n:>6}   +{w} ={d} -{l}"))
        .collect()
}

/// Plays game `g` (0-based) of `games` with this job's engines (started on
/// first use; the one that fails a game loses it and is started afresh) and
/// prints its line with the running score. An engine that cannot be started
/// at all is the only error.
#[allow(clippy::too_many_arguments)]
fn play_numbered(
    g: usize,
    games: usize,
    openings: &[(String, Vec<String>)],
    engines: &mut Option<(UciEngine, Reference)>,
    test_cmd: &[String],
    ref_cmd: &[String],
    args: &Args,
    tally: &Mutex<Tally>,
) -> Result {
    if engines.is_none() {
        let test = UciEngine::start(test_cmd, "engine under test")?;
        let reference = Reference::start(ref_cmd, args.opponent)?;
        tally.lock().unwrap().names.get_or_insert_with(|| (test.name.clone(), reference.name()));
        *engines = Some((test, reference));
    }
    let (test, reference) = engines.as_mut().expect("started above");
    let (name, opening) = &openings[g / 2];
    let color = if g.is_multiple_of(2) { Color::White } else { Color::Black };
    let mut error = None;
    let mut moves = Vec::new();
    let (result, kind, why, plies) = match play_game(test, reference, opening, color, args, &mut moves) {
        Ok(e) => (e.result, e.kind, e.why, e.plies),
        Err((culprit, e, plies)) => {
            let culprit_is_test = culprit == color;
            error = Some(format!("game {}: {}: {e}", g + 1, if culprit_is_test { "engine under test" } else { "reference" }));
            // Whoever failed loses; start it afresh.
            if culprit_is_test {
                *test = UciEngine::start(test_cmd, "engine under test")?;
                let kind = "engine under test failed";
                (Result3::Loss, kind, format!("{kind}: {}", e.lines().next().unwrap_or("")), plies)
            } else {
                *reference = Reference::start(ref_cmd, args.opponent)?;
                let kind = "reference failed";
                (Result3::Win, kind, format!("{kind}: {}", e.lines().next().unwrap_or("")), plies)
            }
        }
    };
    let score = match (result, color) {
        (Result3::Draw, _) => "1/2-1/2",
        (Result3::Win, Color::White) | (Result3::Loss, Color::Black) => "1-0",
        _ => "0-1",
    };
    let mut t = tally.lock().unwrap();
    match result {
        Result3::Win => t.w += 1,
        Result3::Draw => t.d += 1,
        Result3::Loss => t.l += 1,
    }
    t.ends.entry(kind).or_default()[result as usize] += 1;
    t.errors.extend(error);
    let t = &mut *t;
    if let Some((file, path)) = t.pgn.as_mut() {
        let (test_name, ref_name) = t.names.clone().unwrap_or_default();
        let (white, black) = if color == Color::White { (test_name, ref_name) } else { (ref_name, test_name) };
        let game = PgnGame { round: g + 1, white: &white, black: &black, opening: name, moves: &moves, result: score, termination: &why };
        use std::io::Write;
        file.write_all(game.to_pgn().as_bytes())
            .and_then(|()| file.flush())
            .map_err(|e| format!("--pgn {}: cannot write game {}: {e}", path.display(), g + 1))?;
    }
    // Printed under the lock: the running score matches the line.
    println!(
        "game {:>3}/{games}: {:<24} {} {:<7} {why}, {plies} plies   (+{} ={} -{})",
        g + 1,
        name,
        if color == Color::White { "test=white" } else { "test=black" },
        score,
        t.w,
        t.d,
        t.l
    );
    Ok(())
}

/// One finished game, for the `--pgn` file.
struct PgnGame<'a> {
    round: usize,
    white: &'a str,
    black: &'a str,
    opening: &'a str,
    /// UCI moves from the initial position, all legal.
    moves: &'a [String],
    /// "1-0", "0-1" or "1/2-1/2".
    result: &'a str,
    termination: &'a str,
}

impl PgnGame<'_> {
    /// The game in PGN export format: the seven-tag roster plus the
    /// opening and how the game ended, SAN moves with check marks, lines of
    /// at most 80 characters, a blank line after.
    fn to_pgn(&self) -> String {
        let tag = |name: &str, value: &str| format!("[{name} \"{}\"]\n", value.replace('\\', "\\\\").replace('"', "\\\""));
        let mut out = String::new();
        out += &tag("Event", "cargo xtask match");
        out += &tag("Site", "?");
        out += &tag("Date", "????.??.??");
        out += &tag("Round", &self.round.to_string());
        out += &tag("White", self.white);
        out += &tag("Black", self.black);
        out += &tag("Result", self.result);
        out += &tag("Opening", self.opening);
        out += &tag("PlyCount", &self.moves.len().to_string());
        out += &tag("Termination", self.termination);
        out.push('\n');
        let mut pos = Chess::default();
        let mut tokens = Vec::new();
        for (i, m) in self.moves.iter().enumerate() {
            let Some(mv) = m.parse::<UciMove>().ok().and_then(|u| u.to_move(&pos).ok()) else {
                // Cannot happen: every move was checked when played.
                tokens.push(format!("{{illegal move {m}}}"));
                break;
            };
            if i % 2 == 0 {
                tokens.push(format!("{}.", i / 2 + 1));
            }
            tokens.push(SanPlus::from_move_and_play_unchecked(&mut pos, mv).to_string());
        }
        tokens.push(self.result.to_string());
        let mut line = String::new();
        for t in tokens {
            if !line.is_empty() && line.len() + 1 + t.len() > 80 {
                out += &line;
                out.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line += &t;
        }
        out += &line;
        out += "\n\n";
        out
    }
}

/// `--games`, rounded up to pairs with colours swapped; refused when
/// nothing is asked or a game would repeat an earlier one (each of the
/// `openings` is played once with each colour).
fn game_count(requested: usize, openings: usize) -> Result<usize> {
    let games = requested.div_ceil(2) * 2;
    if games == 0 {
        return Err("--games 0: nothing to play (at least 1, rounded up to a pair with colours swapped)".to_string());
    }
    if games > 2 * openings {
        return Err(format!(
            "--games {requested}: at most {} games, each of the {openings} openings once with each colour (both engines are \
             deterministic, so more games would repeat earlier ones move for move and only seem to narrow the error)",
            2 * openings,
        ));
    }
    Ok(games)
}

/// `count` of `all`, evenly spaced from its first (all of them if there
/// are no more).
fn spread<T: Clone>(all: &[T], count: usize) -> Vec<T> {
    if count >= all.len() || count == 0 {
        return all.to_vec();
    }
    (0..count).map(|i| all[i * all.len() / count].clone()).collect()
}

pub fn run(args: Args) -> Result {
    let mut openings = openings(args.openings)?;
    let games = game_count(args.games, openings.len())?;
    if args.spread {
        openings = spread(&openings, games / 2);
    }
    let test_cmd = if args.host {
        super::host_engine_command(args.host_nps)?
    } else {
        super::engine_under_test(args.engine.as_deref(), args.elf.clone())?
    };
    let ref_cmd = match (&args.opponent_cmd, args.opponent) {
        (Some(c), _) => super::uci_client::split_command(c),
        (None, Opponent::Stockfish) => vec![crate::setup::debian_engine("stockfish", "the reference engine of `match`")?],
        (None, Opponent::Fairymax) => {
            vec![crate::setup::debian_engine("fairymax", "the reference engine of `match --opponent fairymax`")?]
        }
    };
    let limit = match (args.opponent, args.opponent_depth) {
        (Opponent::Fairymax, d) => format!("sd {}", d.unwrap_or(4)),
        (Opponent::Stockfish, Some(d)) => format!("go depth {d}"),
        (Opponent::Stockfish, None) => format!("go nodes {}", args.nodes),
    };
    println!(
        "== match: {games} games, {} (go movetime {}) vs {} ({limit}), {} at once",
        test_cmd.join(" "),
        args.movetime,
        ref_cmd.join(" "),
        args.jobs.clamp(1, games),
    );
    let started = Instant::now();
    let jobs = args.jobs.clamp(1, games);
    let pgn = match &args.pgn {
        Some(path) => Some((
            std::fs::File::create(path).map_err(|e| format!("--pgn {}: cannot create: {e}", path.display()))?,
            path.clone(),
        )),
        None => None,
    };
    let tally = Mutex::new(Tally { pgn, ..Tally::default() });
    super::in_jobs(
        games,
        jobs,
        |g, engines| play_numbered(g, games, &openings, engines, &test_cmd, &ref_cmd, &args, &tally),
        |(test, reference): (UciEngine, Reference)| {
            test.quit();
            reference.quit();
        },
    )?;
    let Tally { w, d, l, errors, ends, names, .. } = tally.into_inner().unwrap();
    let (test_name, ref_name) = names.unwrap_or_default();
    let st = elo_stats(w, d, l);
    println!("time: {:.1} s", started.elapsed().as_secs_f64());
    println!("Score of {test_name} vs {ref_name} ({limit}): +{w} ={d} -{l} [{:.3}] {games} games", st.score);
    println!("{}", st.line());
    println!("how the games ended (the engine under test's +wins =draws -losses):");
    for line in ending_lines(&ends) {
        println!("  {line}");
    }
    if !errors.is_empty() {
        println!("engine failures (scored as losses for the failing side):\n  {}", errors.join("\n  "));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endings_are_listed_most_frequent_first() {
        let mut ends = HashMap::new();
        ends.insert("checkmate", [3, 0, 4]);
        ends.insert("ply limit, adjudicated on material", [0, 0, 2]);
        ends.insert("fifty-move rule", [0, 2, 0]);
        let lines = ending_lines(&ends);
        assert_eq!(lines.len(), 3);
        assert!(lines[0].starts_with("checkmate") && lines[0].ends_with("7   +3 =0 -4"), "{lines:?}");
        // Ties: by name.
        assert!(lines[1].starts_with("fifty-move rule") && lines[1].ends_with("+0 =2 -0"), "{lines:?}");
        assert!(lines[2].starts_with("ply limit, adjudicated") && lines[2].ends_with("+0 =0 -2"), "{lines:?}");
    }

    #[test]
    fn elo_from_scores() {
        let st = elo_stats(5, 0, 5);
        assert_eq!(st.score, 0.5);
        assert!(st.elo.abs() < 1e-9);
        assert!(st.error > 100.0 && st.error < 400.0, "{st:?}");
        assert!((st.low + st.high).abs() < 1e-6, "symmetric at 50%: {st:?}");
        let st = elo_stats(3, 0, 1);
        assert_eq!(st.score, 0.75);
        assert!((st.elo - 190.85).abs() < 0.1, "{st:?}");
        let st = elo_stats(0, 2, 8);
        assert!(st.elo < -200.0);
        // A whitewash: no finite estimate.
        let st = elo_stats(0, 0, 10);
        assert!(st.elo.is_infinite() && st.elo < 0.0);
        assert_eq!(st.line(), "Elo difference: not measurable: every game lost; play more games or a closer opponent");
        assert!(elo_stats(3, 0, 0).line().contains("every game won"));
        // One-sided and short: a finite estimate, no finite lower bound.
        let st = elo_stats(0, 1, 3);
        assert!(st.elo.is_finite() && st.low.is_infinite(), "{st:?}");
        let line = st.line();
        assert!(line.starts_with("Elo difference: -") && line.contains("unbounded to -") && !line.contains("inf"), "{line}");
        // Even but too short for a finite bound: +0.0 there too.
        assert!(elo_stats(1, 0, 1).line().starts_with("Elo difference: +0.0 (95% interval unbounded to unbounded"));
        // Many games: about +/- 2.8 * 400 / ln(10) / sqrt(4n) near 50%.
        let st = elo_stats(400, 200, 400);
        assert!((st.error - 19.0).abs() < 3.0, "{st:?}");
        assert!(st.line().starts_with("Elo difference: +0.0 +/- "), "{}", st.line());
    }

    #[test]
    fn spread_samples_the_whole_set_evenly() {
        let all: Vec<usize> = (0..10).collect();
        assert_eq!(spread(&all, 5), vec![0, 2, 4, 6, 8]);
        assert_eq!(spread(&all, 3), vec![0, 3, 6]);
        assert_eq!(spread(&all, 1), vec![0]);
        assert_eq!(spread(&all, 10), all);
        assert_eq!(spread(&all, 12), all);
        // Distinct openings, in set order, over its whole length.
        let sample = spread(&all, 4);
        assert_eq!(sample, vec![0, 2, 5, 7]);
        let book = openings(OpeningSet::BookPositions).unwrap();
        let sample = spread(&book, 128);
        assert_eq!(sample.len(), 128);
        assert_eq!(sample[0], book[0]);
        // The last one lies within the set's last 1/128.
        assert!(book[book.len() - book.len() / 128 - 1..].contains(&sample[127]));
        let mut names: Vec<&String> = sample.iter().map(|(n, _)| n).collect();
        names.dedup();
        assert_eq!(names.len(), 128);
    }

    #[test]
    fn ply_limit_adjudicates_on_material() {
        let at = |fen: &str| -> Chess { fen.parse::<Fen>().unwrap().into_position(CastlingMode::Standard).unwrap() };
        // K+Q against a bare king (the game seen at ply 300): the queen wins.
        assert_eq!(ply_limit_winner(&at("8/8/8/4k3/7K/8/Q7/8 w - - 23 151")), Some(Color::White));
        assert_eq!(ply_limit_winner(&at("8/8/8/4k3/7K/8/q7/8 w - - 23 151")), Some(Color::Black));
        // Exactly three points: a knight against nothing but pawns level.
        assert_eq!(ply_limit_winner(&at("4k3/pp6/8/8/8/8/PP6/4K1N1 w - - 0 151")), Some(Color::White));
        // Two points (rook against bishop) or a pawn ahead: drawn.
        assert_eq!(ply_limit_winner(&at("4k3/8/8/8/8/8/8/r3KB2 w - - 0 151")), None);
        assert_eq!(ply_limit_winner(&at("4K3/7P/8/8/4k3/8/8/8 w - - 74 151")), None);
        assert_eq!(ply_limit_winner(&Chess::default()), None);
    }

    #[test]
    fn game_count_pairs_and_refuses_repeats() {
        let n = OPENINGS.len();
        assert_eq!(game_count(1, n), Ok(2));
        assert_eq!(game_count(12, n), Ok(12));
        assert_eq!(game_count(63, n), Ok(64));
        assert_eq!(game_count(2 * n, n), Ok(2 * n));
        assert!(game_count(0, n).unwrap_err().contains("nothing to play"));
        assert!(game_count(2 * n + 1, n).unwrap_err().contains("would repeat"));
        assert_eq!(game_count(1000, 500), Ok(1000));
    }

    #[test]
    fn pgn_of_a_game() {
        let moves: Vec<String> = "f2f3 e7e5 g2g4 d8h4".split(' ').map(String::from).collect();
        let game = PgnGame {
            round: 3,
            white: "Prodigy",
            black: "Stock\"fish",
            opening: "Fool's",
            moves: &moves,
            result: "0-1",
            termination: "checkmate",
        };
        let pgn = game.to_pgn();
        assert!(pgn.contains("[Round \"3\"]\n[White \"Prodigy\"]\n[Black \"Stock\\\"fish\"]\n[Result \"0-1\"]\n"), "{pgn}");
        assert!(pgn.contains("[PlyCount \"4\"]\n[Termination \"checkmate\"]\n\n"), "{pgn}");
        assert!(pgn.ends_with("\n1. f3 e5 2. g4 Qh4# 0-1\n\n"), "{pgn}");
        // Long games wrap at 80 columns, between moves.
        let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        let long: Vec<String> = shuffle.iter().cycle().take(40).map(|m| m.to_string()).collect();
        let pgn = PgnGame { moves: &long, result: "1/2-1/2", ..game }.to_pgn();
        let body: Vec<&str> = pgn.lines().skip_while(|l| !l.is_empty()).skip(1).take_while(|l| !l.is_empty()).collect();
        assert!(body.len() >= 3 && body.iter().all(|l| l.len() <= 80), "{pgn}");
        assert!(body[0].starts_with("1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3"), "{pgn}");
        assert!(body.last().unwrap().ends_with("20. Ng1 Ng8 1/2-1/2"), "{pgn}");
        assert_eq!(body.join(" ").split(' ').count(), 20 + 40 + 1, "{pgn}");
    }

    #[test]
    fn book_openings_are_legal_and_distinct() {
        let set = openings(OpeningSet::Book).unwrap();
        assert!(set.len() > 400, "{}", set.len());
        let mut seen = std::collections::HashSet::new();
        for (name, line) in &set {
            assert!(line.len() >= 8, "{name}: {line:?}");
            assert!(seen.insert(line.clone()), "{name} repeats a line");
            let mut pos = Chess::default();
            for m in line {
                let mv = m.parse::<UciMove>().unwrap().to_move(&pos).unwrap_or_else(|_| panic!("{name}: {m}"));
                pos.play_unchecked(mv);
            }
        }
        // No line is the beginning of another: each ends where the book does.
        for (name, line) in &set {
            assert!(!set.iter().any(|(_, other)| other.len() > line.len() && other.starts_with(line)), "{name}");
        }
    }

    /// Every book position from the 6th ply on: the leaves among them,
    /// each line once, each a line of the book.
    #[test]
    fn book_positions_extend_the_book_lines() {
        let leaves = openings(OpeningSet::Book).unwrap();
        let all = openings(OpeningSet::BookPositions).unwrap();
        assert!(all.len() > 4 * leaves.len(), "{} of {}", all.len(), leaves.len());
        let mut seen = std::collections::HashSet::new();
        for (name, line) in &all {
            assert!(line.len() >= BOOK_POSITIONS_FROM, "{name}");
            assert!(seen.insert(line.clone()), "{name} repeats a line");
            assert!(leaves.iter().any(|(_, leaf)| leaf.starts_with(line)), "{name} is no book line");
        }
        assert!(leaves.iter().all(|(_, leaf)| seen.contains(leaf)));
    }

    #[test]
    fn openings_are_legal_and_distinct() {
        let mut seen = std::collections::HashSet::new();
        for (name, line) in OPENINGS {
            assert!(seen.insert(*line), "{name} repeats a line");
            let mut pos = Chess::default();
            for m in line.split_whitespace() {
                let mv = m.parse::<UciMove>().unwrap().to_move(&pos).unwrap_or_else(|_| panic!("{name}: {m}"));
                pos.play_unchecked(mv);
            }
        }
    }
}

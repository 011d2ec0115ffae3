//! `cargo xtask endgames`: can the engine under test mate a lone king with
//! K+Q, K+R and K+B+N within the fifty-move rule? It plays the strong side
//! from random positions (seeded, so a run can be repeated), Stockfish
//! defends (or, with `--defender tablebase`, a perfect defence from
//! distance-to-mate tables), and the rules (shakmaty) judge every move.
//! Every play-out is compared with the optimum, the shortest mate against
//! the best defence. Any position not mated is listed with its FEN and
//! how it ended, and the command fails.

use super::tablebase::Tablebase;
use super::uci_client::{position_command, UciEngine};
use crate::util::Result;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Move, Position, Role};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, clap::ValueEnum)]
pub enum Ending {
    /// King and queen against king
    Kqk,
    /// King and rook against king
    Krk,
    /// King, bishop and knight against king
    Kbnk,
}

impl Ending {
    fn name(self) -> &'static str {
        match self {
            Ending::Kqk => "KQK",
            Ending::Krk => "KRK",
            Ending::Kbnk => "KBNK",
        }
    }

    /// The strong side's men besides its king, as upper-case FEN letters.
    fn officers(self) -> &'static [char] {
        match self {
            Ending::Kqk => &['Q'],
            Ending::Krk => &['R'],
            Ending::Kbnk => &['B', 'N'],
        }
    }

    fn roles(self) -> &'static [Role] {
        match self {
            Ending::Kqk => &[Role::Queen],
            Ending::Krk => &[Role::Rook],
            Ending::Kbnk => &[Role::Bishop, Role::Knight],
        }
    }
}

/// Who defends the lone king.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DefenderKind {
    /// Stockfish at `--defender-nodes` (or `--defender-cmd`)
    Stockfish,
    /// The distance-to-mate tables: always the longest resistance
    Tablebase,
}

/// Which of the tables' equally long resistances the lone king plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Ties {
    /// Always the same one (the lowest square in the table's form)
    First,
    /// One at random, from `--seed` and the position's index
    Random,
}

#[derive(clap::Args)]
pub struct Args {
    /// The endings to play
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [Ending::Kqk, Ending::Krk, Ending::Kbnk])]
    endings: Vec<Ending>,
    /// Random start positions per ending (the strong side, white and
    /// black in turn, to move; no man of it next to the lone king)
    #[arg(long, default_value_t = 10)]
    positions: usize,
    /// Seed of the positions: the same seed, the same positions
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Play many seeds in one run instead of `--seed`: a list of seeds
    /// and inclusive ranges (`400-459,512`), `--positions` starts each,
    /// each start and its ties as under its own `--seed`. Prints each
    /// seed's figures and then the totals
    #[arg(long, value_delimiter = ',', value_parser = parse_seeds, conflicts_with_all = ["seed", "fen"])]
    seeds: Vec<Vec<u64>>,
    /// The engine under test's time per move, in ms (of emulated time for the firmware)
    #[arg(long, default_value_t = 10_000)]
    movetime: u64,
    /// Who defends the lone king
    #[arg(long, value_enum, default_value_t = DefenderKind::Stockfish)]
    defender: DefenderKind,
    /// With `--defender tablebase`: among the lone king's replies that
    /// resist longest (the same plies to mate; one that takes a man or
    /// keeps the draw still before any other), `first` always plays the
    /// same one, so play-outs from different starts run into the same
    /// positions; `random` picks one uniformly, seeded by `--seed` and
    /// the position's index (the same run whatever `--jobs`)
    #[arg(long, value_enum, default_value_t = Ties::First)]
    ties: Ties,
    /// Stockfish's nodes per move as the defender
    #[arg(long, default_value_t = 100_000)]
    defender_nodes: u64,
    /// Positions played at once, each job with its own pair of engines
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Any UCI engine command instead of the firmware (to test the plumbing)
    #[arg(long)]
    engine: Option<String>,
    /// Firmware ELF for the bridge (default: build it)
    #[arg(long)]
    elf: Option<std::path::PathBuf>,
    /// Play the engine built for this machine (`cargo xtask host-engine`),
    /// its clock at `--host-nps`, instead of the firmware in the emulator
    #[arg(long, conflicts_with_all = ["engine", "elf"])]
    host: bool,
    /// The host engine's clock speed (the AVR image's nps)
    #[arg(long, default_value_t = super::host_engine::DEFAULT_NPS, requires = "host")]
    host_nps: u32,
    /// The defender's command (default: /usr/games/stockfish)
    #[arg(long)]
    defender_cmd: Option<String>,
    /// Play these positions (FEN, the strong side to move) instead of
    /// random ones, each under the ending its men make (`--endings` is
    /// then not used)
    #[arg(long)]
    fen: Vec<String>,
    /// Print every move of the strong side: the search's depth, score and
    /// nodes, and the tables' plies to mate after it and after the best
    #[arg(long)]
    verbose: bool,
    /// Search the engine under test to this depth a move instead of
    /// `--movetime` (to tell the depth's effect from the clock's)
    #[arg(long)]
    depth: Option<u32>,
    /// Append every strong move the tables judge to this file, a line
    /// each: the FEN before it, the move (UCI), the plies to mate it
    /// lost, the best move's plies to mate and its own (tab-separated).
    /// The tables' defence is deterministic (`--ties first`), so play-outs
    /// from different starts run into the same positions: grouping the
    /// lines by position shows which mistakes recur
    #[arg(long)]
    dump: Option<std::path::PathBuf>,
}

/// SplitMix64: a few lines, and the same positions from a seed on every
/// machine (no dependency needed for it).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn king_step(a: usize, b: usize) -> bool {
    let (fa, ra, fb, rb) = (a % 8, a / 8, b % 8, b / 8);
    fa.abs_diff(fb) <= 1 && ra.abs_diff(rb) <= 1
}

/// A random legal start of `ending`: the strong side (`strong`) to move,
/// kings apart, no strong man next to the lone king (none can be taken
/// at once), the lone king not in check (else the side to move could take
/// it). The FEN, checked by shakmaty.
fn random_position(ending: Ending, strong: Color, rng: &mut SplitMix) -> String {
    loop {
        let mut squares: Vec<usize> = Vec::new();
        while squares.len() < 2 + ending.officers().len() {
            let s = rng.below(64) as usize;
            if !squares.contains(&s) {
                squares.push(s);
            }
        }
        let (strong_king, lone_king) = (squares[0], squares[1]);
        if squares[2..].iter().any(|&s| king_step(s, lone_king)) || king_step(strong_king, lone_king) {
            continue;
        }
        let mut board = [None::<char>; 64];
        let case = |c: char| if strong == Color::White { c } else { c.to_ascii_lowercase() };
        board[strong_king] = Some(case('K'));
        board[lone_king] = Some(if strong == Color::White { 'k' } else { 'K' });
        for (i, &c) in ending.officers().iter().enumerate() {
            board[squares[2 + i]] = Some(case(c));
        }
        let mut placement = String::new();
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                match board[rank * 8 + file] {
                    Some(c) => {
                        if empty > 0 {
                            placement += &empty.to_string();
                            empty = 0;
                        }
                        placement.push(c);
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                placement += &empty.to_string();
            }
            if rank > 0 {
                placement.push('/');
            }
        }
        let fen = format!("{placement} {} - - 0 1", if strong == Color::White { 'w' } else { 'b' });
        // Shakmaty refuses the lone king in check with the other side to move.
        if parse(&fen).is_ok() {
            return fen;
        }
    }
}

fn parse(fen: &str) -> std::result::Result<Chess, String> {
    let f: Fen = fen.parse().map_err(|e| format!("bad FEN {fen}: {e}"))?;
    f.into_position(CastlingMode::Standard).map_err(|e| format!("illegal position {fen}: {e}"))
}

/// The ending a `--fen` position is: a legal position of a bare king
/// against king and queen, king and rook, or king, bishop and knight.
fn ending_of(fen: &str) -> Result<Ending> {
    let pos = parse(fen).map_err(|e| format!("--fen: {e}"))?;
    let board = pos.board();
    for strong in [Color::White, Color::Black] {
        if board.by_color(!strong).count() != 1 {
            continue;
        }
        let mut roles: Vec<Role> = board.by_color(strong).into_iter().filter_map(|sq| board.role_at(sq)).filter(|&r| r != Role::King).collect();
        roles.sort();
        for ending in [Ending::Kqk, Ending::Krk, Ending::Kbnk] {
            let mut want = ending.roles().to_vec();
            want.sort();
            if roles == want {
                return Ok(ending);
            }
        }
    }
    Err(format!("--fen {fen}: not a bare king against KQ, KR or KBN").into())
}

/// One item of `--seeds`: a seed `N` or an inclusive range `A-B`.
fn parse_seeds(item: &str) -> std::result::Result<Vec<u64>, String> {
    let number = |t: &str| t.trim().parse::<u64>().map_err(|_| format!("`{item}`: not a seed (a number) or a range of them (`400-459`)"));
    match item.split_once('-') {
        None => Ok(vec![number(item)?]),
        Some((a, b)) => {
            let (a, b) = (number(a)?, number(b)?);
            if a > b {
                return Err(format!("`{item}`: the range runs backwards"));
            }
            if b - a >= 100_000 {
                return Err(format!("`{item}`: more than 100,000 seeds"));
            }
            Ok((a..=b).collect())
        }
    }
}

/// A position to play: its ending and FEN, and the seed and index that
/// drew it and seed its ties (`--ties random`).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Start {
    ending: Ending,
    fen: String,
    seed: u64,
    index: usize,
}

/// The starts of each seed in turn ([`start_positions`]), each numbered
/// within its seed, as a run with that `--seed` alone numbers it.
fn seeded_starts(endings: &[Ending], count: usize, seeds: &[u64]) -> Vec<Start> {
    let mut out = Vec::new();
    for &seed in seeds {
        let starts = start_positions(endings, count, seed);
        out.extend(starts.into_iter().enumerate().map(|(index, (ending, fen))| Start { ending, fen, seed, index }));
    }
    out
}

/// The start positions: `count` per ending, the strong side white and
/// black in turn.
fn start_positions(endings: &[Ending], count: usize, seed: u64) -> Vec<(Ending, String)> {
    let mut out = Vec::new();
    for &ending in endings {
        // One stream per ending: adding an ending leaves the others' positions alone.
        let mut rng = SplitMix(seed ^ (ending as u64 + 1).wrapping_mul(0xA076_1D64_78BD_642F));
        for i in 0..count {
            let strong = if i % 2 == 0 { Color::White } else { Color::Black };
            out.push((ending, random_position(ending, strong, &mut rng)));
        }
    }
    out
}

/// How a play-out ended.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Outcome {
    /// Mated after this many moves of the strong side.
    Mated(usize),
    /// The rules ended it otherwise: stalemate, a man lost, the
    /// fifty-move rule, a threefold repetition.
    Failed(String),
    /// An illegal move, a start that does not parse, no defence found:
    /// never excused, whatever the start.
    Fault(String),
    /// An engine did not answer (it is started afresh for the next position).
    EngineFailed(String),
}

impl Outcome {
    /// The rules ended a play-out from a start the tables do not win (a
    /// random one can leave a man to take at once): no mate was missed.
    fn excused(&self, optimum: Option<usize>) -> bool {
        matches!(self, Outcome::Failed(_)) && optimum.is_none()
    }
}

/// A play-out's outcome, its start's optimum (moves to mate against the
/// best defence; none: the tables do not win it) and the strong side's
/// accuracy; none for a play-out not played.
type Played = Option<(Outcome, Option<usize>, Accuracy)>;

/// One ending's play-outs summed; the excused ones ([`Outcome::excused`])
/// counted apart, not as failures.
#[derive(Debug, Default, PartialEq)]
struct Tally {
    /// Moves to mate of each mated play-out.
    lengths: Vec<i64>,
    /// Moves over the optimum (negative when a fallible defender is
    /// mated sooner than the best defence allows).
    over: Vec<i64>,
    /// Play-outs counted: all but the excused ones.
    total: usize,
    not_won: usize,
    /// Counted and not mated.
    failed: usize,
    accuracy: Accuracy,
}

impl Tally {
    /// One line of one seed's figures in a `--seeds` run (the run's
    /// totals keep the longer form), the counts first so a script can
    /// sum them.
    fn brief(&self, ending: Ending) -> String {
        let unwinnable = match self.not_won {
            0 => String::new(),
            n => format!(" ({n} not won by the tables)"),
        };
        let lost = match self.accuracy.moves {
            0 => String::new(),
            n => format!(", {:.3} plies to mate lost a move over {n} moves", self.accuracy.plies_lost as f64 / n as f64),
        };
        format!("{:<4} mated {}/{}{unwinnable}{lost}", ending.name(), self.lengths.len(), self.total)
    }
}

fn tally<'a>(played: impl Iterator<Item = &'a Played>) -> Tally {
    let mut t = Tally::default();
    for o in played {
        if matches!(o, Some((outcome, optimum, _)) if outcome.excused(*optimum)) {
            t.not_won += 1;
            continue;
        }
        t.total += 1;
        if let Some((_, _, a)) = o {
            t.accuracy.merge(a);
        }
        match o {
            Some((Outcome::Mated(n), optimum, _)) => {
                t.lengths.push(*n as i64);
                if let Some(best) = optimum {
                    t.over.push(*n as i64 - *best as i64);
                }
            }
            _ => t.failed += 1,
        }
    }
    t
}

/// The rules' verdict on `pos` (the strong side is `strong`), if the play-out is over.
fn verdict(pos: &Chess, strong: Color, strong_moves: usize, reps: u32) -> Option<Outcome> {
    if pos.is_checkmate() {
        return Some(if pos.turn() == strong {
            Outcome::Failed("the strong side was mated".into())
        } else {
            Outcome::Mated(strong_moves)
        });
    }
    if pos.is_stalemate() {
        return Some(Outcome::Failed("stalemate".into()));
    }
    if pos.is_insufficient_material() {
        return Some(Outcome::Failed("a man was lost: insufficient material".into()));
    }
    if pos.halfmoves() >= 100 {
        return Some(Outcome::Failed("fifty-move rule".into()));
    }
    if reps >= 3 {
        return Some(Outcome::Failed("threefold repetition".into()));
    }
    None
}

/// How well the strong side played, move by move, by the tables: a
/// finer measure than mated or not, which a single slip can flip.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Accuracy {
    /// Moves of the strong side the tables could judge (still won before and after).
    moves: u32,
    /// Of those, the moves that kept the shortest way to mate.
    optimal: u32,
    /// Plies to mate added over the best move's, summed.
    plies_lost: u32,
    /// The plies lost by the single worst move (0: none lost any) and,
    /// within one play-out, that move's index in its moves.
    worst_lost: u8,
    worst_at: usize,
}

impl Accuracy {
    /// Judges `mv` (the strong side's, not yet played) in `pos`; `at` is
    /// its index in the play-out's moves. With `dump`, appends the
    /// judgement to that file (`--dump`).
    fn add(&mut self, table: &Tablebase, pos: &Chess, mv: Move, at: usize, dump: Option<&std::path::Path>) {
        let after = |m: Move| {
            let mut p = pos.clone();
            p.play_unchecked(m);
            table.plies_to_mate(&p)
        };
        let Some(got) = after(mv) else { return };
        let Some(best) = pos.legal_moves().into_iter().filter_map(after).min() else { return };
        self.moves += 1;
        if let Some(path) = dump {
            use std::io::Write;
            let fen = Fen::from_position(pos, EnPassantMode::Legal);
            // One write a line: the jobs' lines do not interleave.
            let line = format!("{fen}\t{}\t{}\t{best}\t{got}\n", mv.to_uci(CastlingMode::Standard), got - best);
            let written = std::fs::OpenOptions::new().create(true).append(true).open(path).and_then(|mut f| f.write_all(line.as_bytes()));
            if let Err(e) = written {
                eprintln!("--dump {}: {e}", path.display());
            }
        }
        self.optimal += u32::from(got == best);
        self.plies_lost += u32::from(got - best);
        if got - best > self.worst_lost {
            self.worst_lost = got - best;
            self.worst_at = at;
        }
    }

    fn merge(&mut self, other: &Accuracy) {
        self.moves += other.moves;
        self.optimal += other.optimal;
        self.plies_lost += other.plies_lost;
        self.worst_lost = self.worst_lost.max(other.worst_lost);
    }

    /// `; worst: its Nth move UCI, K plies to mate lost`, or nothing.
    fn worst(&self, moves: &[String]) -> String {
        match moves.get(self.worst_at) {
            // The strong side moves first: its moves are the even plies.
            Some(m) if self.worst_lost > 0 => {
                format!("; worst: move {} {m}, {} plies to mate lost", self.worst_at / 2 + 1, self.worst_lost)
            }
            _ => String::new(),
        }
    }
}

/// The lone king's side: a UCI engine or the tables, these with the
/// random stream that breaks their ties (`--ties random`) or none (`first`).
enum Defender<'a> {
    Engine(&'a mut UciEngine),
    Table(&'a Tablebase, Option<SplitMix>),
}

/// The random stream of `--ties random` for the play-out of the run's
/// `index`th position: from the seed and the index alone, so a run
/// repeats whatever `--jobs`.
fn ties_stream(seed: u64, index: usize) -> SplitMix {
    // Another constant than the start positions' streams: not their numbers.
    SplitMix(seed ^ (index as u64 + 1).wrapping_mul(0xE703_7ED1_A0B4_28DB))
}

/// The tables' reply in `pos` (lone king to move): with `ties`, one of
/// the longest resistances at random, else always the first of them.
fn table_defence(table: &Tablebase, pos: &Chess, ties: Option<&mut SplitMix>) -> Option<Move> {
    match ties {
        None => table.best_defence(pos),
        Some(rng) => {
            let mut replies = table.longest_resistances(pos);
            if replies.is_empty() {
                return None;
            }
            let pick = rng.below(replies.len() as u64) as usize;
            Some(replies.swap_remove(pick))
        }
    }
}

/// Plays `fen` out: the engine under test for the side to move, the
/// defender for the lone king. `moves` receives the moves played,
/// `accuracy` the tables' judgement of the strong side's.
fn play_out(
    test: &mut UciEngine,
    mut defender: Defender,
    table: &Tablebase,
    fen: &str,
    args: &Args,
    moves: &mut Vec<String>,
    accuracy: &mut Accuracy,
) -> Outcome {
    let mut pos = match parse(fen) {
        Ok(p) => p,
        Err(e) => return Outcome::Fault(e),
    };
    let strong = pos.turn();
    moves.clear();
    let new_game = match &mut defender {
        Defender::Engine(d) => test.new_game().and_then(|()| d.new_game()),
        Defender::Table(..) => test.new_game(),
    };
    if let Err(e) = new_game {
        return Outcome::EngineFailed(e);
    }
    let timeout = Duration::from_millis(60_000 + args.movetime * 20);
    let mut seen: HashMap<String, u32> = HashMap::new();
    let mut strong_moves = 0;
    loop {
        let reps = seen.entry(super::repetition_key(&pos)).or_insert(0);
        *reps += 1;
        if let Some(end) = verdict(&pos, strong, strong_moves, *reps) {
            return end;
        }
        let position = position_command(Some(fen), moves);
        let (engine, go, who) = match &mut defender {
            _ if pos.turn() == strong => {
                let go = match args.depth {
                    Some(d) => format!("go depth {d}"),
                    None => format!("go movetime {}", args.movetime),
                };
                (&mut *test, go, "engine under test")
            }
            Defender::Engine(d) => (&mut **d, format!("go nodes {}", args.defender_nodes), "defender"),
            Defender::Table(table, ties) => {
                // verdict() above found a legal move: the lone king is neither mated nor stalemated.
                let Some(mv) = table_defence(table, &pos, ties.as_mut()) else {
                    return Outcome::Fault("the tablebase found no defence".into());
                };
                moves.push(mv.to_uci(CastlingMode::Standard).to_string());
                pos.play_unchecked(mv);
                continue;
            }
        };
        let result = match engine.search(&position, &go, timeout) {
            Ok(r) => r,
            Err(e) => return Outcome::EngineFailed(format!("{who} failed: {}", e.lines().next().unwrap_or(""))),
        };
        let best = &result.best;
        let Some(mv) = best.parse::<UciMove>().ok().and_then(|u| u.to_move(&pos).ok()) else {
            let now = Fen::from_position(&pos, EnPassantMode::Legal);
            return Outcome::Fault(format!("{who} played an illegal move `{best}` in {now}"));
        };
        if pos.turn() == strong {
            strong_moves += 1;
            if args.verbose {
                let after = |m: Move| {
                    let mut p = pos.clone();
                    p.play_unchecked(m);
                    table.plies_to_mate(&p)
                };
                let plies = |p: Option<u8>| p.map_or("-".to_string(), |p| p.to_string());
                let optimal = pos.legal_moves().into_iter().filter_map(after).min();
                let score = result.score.map_or("-".to_string(), |s| s.to_string());
                println!(
                    "  ply {:>3} {best:<5} plies to mate {:>2} (best {:>2}); depth {} {score}, {} nodes",
                    moves.len(),
                    plies(after(mv.clone())),
                    plies(optimal),
                    result.depth.unwrap_or(0),
                    result.nodes.unwrap_or(0),
                );
            }
            accuracy.add(table, &pos, mv, moves.len(), args.dump.as_deref());
        }
        moves.push(mv.to_uci(CastlingMode::Standard).to_string());
        pos.play_unchecked(mv);
    }
}

/// Median of a non-empty sorted list.
fn median(sorted: &[i64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2] as f64
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) as f64 / 2.0
    }
}

pub fn run(args: Args) -> Result {
    if args.positions == 0 {
        return Err("--positions 0: nothing to play".into());
    }
    if args.endings.is_empty() {
        return Err("--endings: name at least one of kqk, krk, kbnk".into());
    }
    if args.ties == Ties::Random && args.defender != DefenderKind::Tablebase {
        return Err("--ties random breaks the tables' ties: only with --defender tablebase".into());
    }
    if let Some(path) = &args.dump {
        // Refused before the play-outs, not once a move after them.
        std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(|e| format!("--dump {}: {e}", path.display()))?;
    }
    let mut seeds: Vec<u64> = args.seeds.concat();
    if seeds.is_empty() {
        seeds.push(args.seed);
    }
    seeds.sort_unstable();
    seeds.dedup();
    let starts = if args.fen.is_empty() {
        let mut endings = args.endings.clone();
        endings.sort();
        endings.dedup();
        seeded_starts(&endings, args.positions, &seeds)
    } else {
        let fen = |(index, f): (usize, &String)| Ok(Start { ending: ending_of(f)?, fen: f.clone(), seed: args.seed, index });
        args.fen.iter().enumerate().map(fen).collect::<Result<Vec<_>>>()?
    };
    let mut endings: Vec<Ending> = starts.iter().map(|s| s.ending).collect();
    endings.sort();
    endings.dedup();
    let test_cmd = if args.host {
        super::host_engine_command(args.host_nps)?
    } else {
        super::engine_under_test(args.engine.as_deref(), args.elf.clone())?
    };
    let defender_cmd = match (&args.defender_cmd, args.defender) {
        (Some(_), DefenderKind::Tablebase) => {
            return Err("--defender-cmd names a UCI defender: not with --defender tablebase".into())
        }
        (Some(c), DefenderKind::Stockfish) => Some(super::uci_client::split_command(c)),
        (None, DefenderKind::Stockfish) => {
            Some(vec![crate::setup::debian_engine("stockfish", "the defender of `endgames`")?])
        }
        (None, DefenderKind::Tablebase) => None,
    };
    // The tables measure every play-out against the optimum, whoever defends.
    let mut tables = HashMap::new();
    for &ending in &endings {
        let t = Instant::now();
        let table = Tablebase::solve(ending.roles())?;
        println!(
            "== tablebase {}: solved in {:.1} s, the longest mate {} moves",
            ending.name(),
            t.elapsed().as_secs_f64(),
            table.longest_mate_moves()
        );
        tables.insert(ending, table);
    }
    let defender_name = match &defender_cmd {
        Some(cmd) => format!("{} (go nodes {})", cmd.join(" "), args.defender_nodes),
        None => match args.ties {
            Ties::First => "the tablebase's longest resistance".to_string(),
            Ties::Random => "the tablebase's longest resistance (ties at random)".to_string(),
        },
    };
    let seeds_named = match seeds[..] {
        [one] => format!("seed {one}"),
        _ => format!("{} seeds from {} to {}", seeds.len(), seeds[0], seeds[seeds.len() - 1]),
    };
    println!(
        "== endgames: {} positions ({seeds_named}), {} (go movetime {}) against {defender_name}, {} at once",
        starts.len(),
        test_cmd.join(" "),
        args.movetime,
        args.jobs.clamp(1, starts.len()),
    );
    let started = Instant::now();
    let results: Mutex<Vec<Played>> = Mutex::new(vec![None; starts.len()]);
    let play = |i: usize, engines: &mut Option<(UciEngine, Option<UciEngine>)>| -> Result {
        if engines.is_none() {
            let test = UciEngine::start(&test_cmd, "engine under test")?;
            let defender = match &defender_cmd {
                Some(cmd) => Some(UciEngine::start(cmd, "defender")?),
                None => None,
            };
            *engines = Some((test, defender));
        }
        let (test, defender) = engines.as_mut().expect("started above");
        let Start { ending, fen, seed, index } = &starts[i];
        let table = &tables[ending];
        let defender = match defender {
            Some(d) => Defender::Engine(d),
            None => Defender::Table(table, (args.ties == Ties::Random).then(|| ties_stream(*seed, *index))),
        };
        let mut moves = Vec::new();
        let mut accuracy = Accuracy::default();
        let outcome = play_out(test, defender, table, fen, &args, &mut moves, &mut accuracy);
        if matches!(outcome, Outcome::EngineFailed(_)) {
            *engines = None;
        }
        let optimum = parse(fen).ok().and_then(|p| table.plies_to_mate(&p)).map(|plies| (plies as usize).div_ceil(2));
        let best = optimum.map_or("not won".to_string(), |n| format!("{n:>2}"));
        let mut r = results.lock().unwrap();
        let done = r.iter().filter(|o| o.is_some()).count() + 1;
        let line = match &outcome {
            Outcome::Mated(n) => format!("ok    mate in {n:>2} (optimum {best}){}", accuracy.worst(&moves)),
            Outcome::Failed(why) if outcome.excused(optimum) => {
                format!("n/a   not won by the tables from the start ({why}, after {} plies): {}", moves.len(), moves.join(" "))
            }
            Outcome::Failed(why) | Outcome::Fault(why) | Outcome::EngineFailed(why) => format!(
                "FAIL  {why}, after {} plies (optimum {best}){}: {}",
                moves.len(),
                accuracy.worst(&moves),
                moves.join(" ")
            ),
        };
        let from = if seeds.len() > 1 { format!("seed {seed} ") } else { String::new() };
        println!("[{done:>3}/{}] {from}{:<4} {fen}   {line}", starts.len(), ending.name());
        r[i] = Some((outcome, optimum, accuracy));
        Ok(())
    };
    super::in_jobs(starts.len(), args.jobs, play, |(test, defender)| {
        test.quit();
        if let Some(d) = defender {
            d.quit();
        }
    })?;
    let results = results.into_inner().unwrap();
    println!("time: {:.1} s", started.elapsed().as_secs_f64());
    if seeds.len() > 1 {
        for &seed in &seeds {
            for &ending in &endings {
                let t = tally(starts.iter().zip(&results).filter(|(s, _)| s.seed == seed && s.ending == ending).map(|(_, o)| o));
                println!("seed {seed} {}", t.brief(ending));
            }
        }
        println!("== totals over the {} seeds", seeds.len());
    }
    let (mut failed, mut counted) = (0, 0);
    for &ending in &endings {
        let Tally { mut lengths, mut over, total, not_won, failed: not_mated, accuracy } =
            tally(starts.iter().zip(&results).filter(|(s, _)| s.ending == ending).map(|(_, o)| o));
        failed += not_mated;
        counted += total;
        lengths.sort_unstable();
        over.sort_unstable();
        let moves = match (lengths.first(), lengths.last()) {
            (Some(lo), Some(hi)) => format!("; moves to mate: median {:.1}, min {lo}, max {hi}", median(&lengths)),
            _ => String::new(),
        };
        let excess = match (over.first(), over.last()) {
            (Some(lo), Some(hi)) => format!(
                "; over the optimum: median {:+.1}, min {lo:+}, max {hi:+}",
                median(&over)
            ),
            _ => String::new(),
        };
        let unwinnable = match not_won {
            0 => String::new(),
            n => format!(" ({n} more start{} not won by the tables: not counted)", if n == 1 { "" } else { "s" }),
        };
        println!(
            "{:<4} mated {}/{total} within the fifty-move rule{unwinnable}{moves}{excess}",
            ending.name(),
            lengths.len()
        );
        if accuracy.moves > 0 {
            println!(
                "{:<4} the strong side's {} moves by the tables: {:.1}% kept the shortest mate, {:.3} plies to mate lost a move, at most {}",
                ending.name(),
                accuracy.moves,
                100.0 * accuracy.optimal as f64 / accuracy.moves as f64,
                accuracy.plies_lost as f64 / accuracy.moves as f64,
                accuracy.worst_lost,
            );
        }
    }
    if failed > 0 {
        return Err(format!("{failed} of {counted} positions not mated (listed above with FAIL)"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Role;

    /// A `--fen` position's ending comes from its men, and anything else
    /// is refused with the FEN named.
    #[test]
    fn a_fen_is_played_under_the_ending_its_men_make() {
        assert_eq!(ending_of("8/8/8/4k3/8/8/8/KQ6 w - - 0 1").unwrap(), Ending::Kqk);
        assert_eq!(ending_of("8/7k/8/8/4K3/B7/4N3/8 w - - 0 1").unwrap(), Ending::Kbnk);
        assert_eq!(ending_of("8/8/3r4/8/8/8/8/k1K5 b - - 0 1").unwrap(), Ending::Krk);
        for bad in ["garbage", "8/8/8/8/8/8/8/K1k5 w - - 0 1", "8/8/8/4k3/8/8/8/KQR5 w - - 0 1", "8/8/8/4k3/8/8/8/KBB5 w - - 0 1"] {
            let e = ending_of(bad).unwrap_err().to_string();
            assert!(e.contains("--fen") && e.contains(bad), "{bad}: {e}");
        }
    }

    #[test]
    fn positions_are_legal_and_as_asked() {
        let starts = start_positions(&[Ending::Kqk, Ending::Krk, Ending::Kbnk], 40, 7);
        assert_eq!(starts.len(), 120);
        for (i, (ending, fen)) in starts.iter().enumerate() {
            let pos = parse(fen).unwrap();
            let strong = if i % 40 % 2 == 0 { Color::White } else { Color::Black };
            assert_eq!(pos.turn(), strong, "{fen}");
            let board = pos.board();
            let lone = board.by_color(!strong);
            assert_eq!(lone.count(), 1, "{fen}");
            let roles: Vec<Role> = board.by_color(strong).into_iter().filter_map(|s| board.role_at(s)).collect();
            // In shakmaty's order of the roles.
            let want: &[Role] = match ending {
                Ending::Kqk => &[Role::Queen, Role::King],
                Ending::Krk => &[Role::Rook, Role::King],
                Ending::Kbnk => &[Role::Knight, Role::Bishop, Role::King],
            };
            let mut got = roles.clone();
            got.sort();
            assert_eq!(got, want, "{fen}");
            // No strong man within the lone king's reach.
            let king = board.king_of(!strong).unwrap();
            assert!((shakmaty::attacks::king_attacks(king) & board.by_color(strong)).is_empty(), "{fen}");
            assert!(!pos.is_game_over(), "{fen}");
        }
    }

    #[test]
    fn a_seed_gives_the_same_positions_and_another_seed_others() {
        let a = start_positions(&[Ending::Kbnk], 10, 1);
        assert_eq!(a, start_positions(&[Ending::Kbnk], 10, 1));
        assert_ne!(a, start_positions(&[Ending::Kbnk], 10, 2));
        // An ending's positions do not depend on the others asked for.
        let both = start_positions(&[Ending::Kqk, Ending::Kbnk], 10, 1);
        assert_eq!(&both[10..], &a[..]);
    }

    /// `--seeds` takes seeds and inclusive ranges, refuses anything else
    /// with the item named, and not with `--seed` or `--fen`.
    #[test]
    fn seeds_are_listed_and_ranged() {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            args: Args,
        }
        let seeds = |line: &str| {
            use clap::Parser;
            Cli::try_parse_from(line.split_whitespace()).map(|c| c.args.seeds.concat()).map_err(|e| e.to_string())
        };
        assert_eq!(seeds("e --seeds 400-403,7").unwrap(), [400, 401, 402, 403, 7]);
        assert_eq!(seeds("e --seeds 5").unwrap(), [5]);
        assert_eq!(seeds("e --seeds 5-5").unwrap(), [5]);
        assert!(seeds("e").unwrap().is_empty());
        for bad in ["x", "9-3", "1-", "-4", "1-2-3", "0-100000"] {
            let e = seeds(&format!("e --seeds {bad}")).unwrap_err();
            assert!(e.contains(bad), "{bad}: {e}");
        }
        assert!(seeds("e --seeds 1-2 --seed 3").is_err());
        assert!(seeds("e --seeds 1-2 --fen 8/8/8/4k3/8/8/8/KQ6_w").is_err());
    }

    /// Each seed of a `--seeds` run draws the positions of a run with that
    /// `--seed`, numbered as there: the same starts and the same ties.
    #[test]
    fn many_seeds_play_each_seed_as_its_own_run() {
        let endings = [Ending::Krk, Ending::Kbnk];
        let starts = seeded_starts(&endings, 3, &[10, 11]);
        assert_eq!(starts.len(), 12);
        for (k, seed) in [10, 11].into_iter().enumerate() {
            let alone = start_positions(&endings, 3, seed);
            let ours = &starts[k * 6..(k + 1) * 6];
            for (i, (s, (ending, fen))) in ours.iter().zip(alone).enumerate() {
                assert_eq!(*s, Start { ending, fen, seed, index: i });
            }
        }
        assert_ne!(starts[0].fen, starts[6].fen);
    }

    #[test]
    fn the_rules_end_a_play_out() {
        let strong = Color::White;
        let mated = parse("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1").unwrap();
        assert_eq!(verdict(&mated, strong, 12, 1), Some(Outcome::Mated(12)));
        let stalemate = parse("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1").unwrap();
        assert_eq!(verdict(&stalemate, strong, 12, 1), Some(Outcome::Failed("stalemate".into())));
        let lost = parse("7k/8/6K1/8/8/8/8/8 b - - 0 1").unwrap();
        assert!(matches!(verdict(&lost, strong, 3, 1), Some(Outcome::Failed(w)) if w.contains("insufficient")));
        let fifty = parse("7k/8/6K1/8/8/8/8/Q7 b - - 100 80").unwrap();
        assert_eq!(verdict(&fifty, strong, 50, 1), Some(Outcome::Failed("fifty-move rule".into())));
        let going = parse("7k/8/6K1/8/8/8/8/Q7 b - - 99 80").unwrap();
        assert_eq!(verdict(&going, strong, 49, 2), None);
        assert_eq!(verdict(&going, strong, 49, 3), Some(Outcome::Failed("threefold repetition".into())));
    }

    #[test]
    fn accuracy_counts_the_plies_a_move_gives_away() {
        let kqk = Tablebase::solve(&[Role::Queen]).unwrap();
        let pos = parse("7k/8/6K1/8/8/8/Q7/8 w - - 0 1").unwrap();
        let uci = |u: &str| u.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        let mut a = Accuracy::default();
        // Qa8# mates at once (0 plies left); after Qa7 it takes two more
        // (Kg8 Qg7#): two plies lost.
        a.add(&kqk, &pos, uci("a2a8"), 0, None);
        assert_eq!(a, Accuracy { moves: 1, optimal: 1, plies_lost: 0, worst_lost: 0, worst_at: 0 });
        assert_eq!(a.worst(&["a2a8".into()]), "");
        a.add(&kqk, &pos, uci("a2a7"), 2, None);
        assert_eq!(a, Accuracy { moves: 2, optimal: 1, plies_lost: 2, worst_lost: 2, worst_at: 2 });
        let moves = ["a2a8", "h8g8", "a2a7"].map(String::from);
        assert_eq!(a.worst(&moves), "; worst: move 2 a2a7, 2 plies to mate lost");
        // Qg8+ gives the queen away (Kxg8): not won, not judged.
        a.add(&kqk, &pos, uci("a2g8"), 4, None);
        assert_eq!(a.moves, 2);
        assert_eq!(a.worst_at, 2);
        let mut b = Accuracy::default();
        b.merge(&a);
        b.merge(&a);
        assert_eq!((b.moves, b.optimal, b.plies_lost, b.worst_lost), (4, 2, 4, 2));
        // `--dump`: a line a judged move, appended; the unjudged one not.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("moves.tsv");
        let mut c = Accuracy::default();
        c.add(&kqk, &pos, uci("a2a7"), 0, Some(&path));
        c.add(&kqk, &pos, uci("a2g8"), 2, Some(&path));
        c.add(&kqk, &pos, uci("a2a8"), 4, Some(&path));
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text, "7k/8/6K1/8/8/8/Q7/8 w - - 0 1\ta2a7\t2\t0\t2\n7k/8/6K1/8/8/8/Q7/8 w - - 0 1\ta2a8\t0\t0\t0\n");
    }

    /// Lone-king-to-move KBNK positions: every one a strong move reaches
    /// from `count` random starts (won or not: some leave a man to take)
    /// in which the lone king can move.
    fn kbnk_defences(count: usize) -> Vec<Chess> {
        let mut out = Vec::new();
        for (_, fen) in start_positions(&[Ending::Kbnk], count, 5) {
            let pos = parse(&fen).unwrap();
            for mv in pos.legal_moves() {
                let mut after = pos.clone();
                after.play_unchecked(mv);
                if !after.is_game_over() {
                    out.push(after);
                }
            }
        }
        out
    }

    /// The longest resistances in `pos` worked out from the table's plies
    /// to mate alone: a capture if any (it draws), else a reply to a
    /// position not won if any, else those with the most plies to mate.
    fn longest_by_hand(table: &Tablebase, pos: &Chess) -> Vec<Move> {
        let moves = pos.legal_moves();
        let captures: Vec<Move> = moves.iter().filter(|m| m.is_capture()).copied().collect();
        if !captures.is_empty() {
            return captures;
        }
        let plies = |m: &Move| {
            let mut p = pos.clone();
            p.play_unchecked(*m);
            table.plies_to_mate(&p).map_or(u16::MAX, u16::from)
        };
        let most = moves.iter().map(plies).max().unwrap();
        moves.iter().filter(|m| plies(m) == most).copied().collect()
    }

    /// `--ties random`: every reply is one of the longest resistances, by
    /// the table's own plies to mate, and over many positions it is not
    /// always the one `--ties first` plays.
    #[test]
    fn random_ties_play_only_the_longest_resistances() {
        let table = crate::uci_tools::tablebase::kbnk_for_tests();
        let positions = kbnk_defences(60);
        assert!(positions.len() > 1000, "{}", positions.len());
        let (mut tied, mut other_than_first) = (0, 0);
        for seed in 0..3 {
            let mut rng = ties_stream(seed, 0);
            for pos in &positions {
                let fen = Fen::from_position(pos, EnPassantMode::Legal);
                let mut want = longest_by_hand(table, pos);
                let mut got = table.longest_resistances(pos);
                let first = table_defence(table, pos, None).unwrap();
                assert_eq!(Some(&first), got.first(), "{fen}");
                assert_eq!(Some(first), table.best_defence(pos), "{fen}");
                let mv = table_defence(table, pos, Some(&mut rng)).unwrap();
                assert!(want.contains(&mv), "{fen}: {mv:?} not among {want:?}");
                let key = |m: &Move| m.to_uci(CastlingMode::Standard).to_string();
                want.sort_by_key(key);
                got.sort_by_key(key);
                assert_eq!(got, want, "{fen}");
                // Each tied reply is one ply shorter than the position's mate.
                let mut after = pos.clone();
                after.play_unchecked(mv);
                if let (Some(a), Some(p)) = (table.plies_to_mate(&after), table.plies_to_mate(pos)) {
                    assert_eq!(a + 1, p, "{fen}");
                }
                tied += usize::from(want.len() > 1);
                other_than_first += usize::from(mv != first);
            }
        }
        // Ties are common, and a fair pick leaves the first one at least
        // half the time it is tied.
        assert!(tied > positions.len(), "{tied} tied of {}", 3 * positions.len());
        assert!(other_than_first * 3 > tied, "{other_than_first} of {tied} tied");
    }

    /// A position with several equal replies is defended differently
    /// under different seeds (each of its replies under some seed), and
    /// alike under the same seed and position index.
    #[test]
    fn random_ties_vary_by_seed_and_repeat_by_seed() {
        let table = crate::uci_tools::tablebase::kbnk_for_tests();
        let pos = parse(FOUR_TIED).unwrap();
        assert_eq!(table.plies_to_mate(&pos), Some(54));
        let tied = table.longest_resistances(&pos);
        assert_eq!(tied.len(), 4, "{tied:?}");
        let pick = |seed: u64, index: usize| table_defence(table, &pos, Some(&mut ties_stream(seed, index))).unwrap();
        let picks: Vec<Move> = (0..64).map(|seed| pick(seed, 7)).collect();
        for mv in &tied {
            assert!(picks.contains(mv), "{mv:?} never played: {picks:?}");
        }
        // The same seed and index: the same reply, and the same sequence
        // of replies over a play-out's positions.
        for seed in 0..64 {
            assert_eq!(pick(seed, 7), picks[seed as usize]);
        }
        let positions = kbnk_defences(20);
        let run = |seed: u64, index: usize| {
            let mut rng = ties_stream(seed, index);
            positions.iter().map(|p| table_defence(table, p, Some(&mut rng)).unwrap()).collect::<Vec<_>>()
        };
        assert_eq!(run(18, 3), run(18, 3));
        // Another seed or another position's index: another sequence.
        assert_ne!(run(18, 3), run(19, 3));
        assert_ne!(run(18, 3), run(18, 4));
    }

    /// The lone king to move, 54 plies from mate, with four replies of 53.
    const FOUR_TIED: &str = "8/8/8/8/8/6k1/B2K4/2N5 b - - 0 1";

    /// The rules' end of a play-out from a start the tables do not win is
    /// counted apart; from a won start, or a fault (an illegal move) or an
    /// engine's failure from any start, it is a failure.
    #[test]
    fn a_start_not_won_is_no_failure() {
        let judged = Accuracy { moves: 10, optimal: 9, plies_lost: 2, worst_lost: 2, worst_at: 3 };
        let played: Vec<Played> = vec![
            Some((Outcome::Mated(20), Some(18), judged)),
            Some((Outcome::Failed("a man was lost".into()), None, Accuracy::default())),
            Some((Outcome::Failed("the fifty-move rule".into()), Some(30), judged)),
            Some((Outcome::EngineFailed("no answer".into()), None, Accuracy::default())),
            Some((Outcome::Fault("engine under test played an illegal move `a1a1`".into()), None, Accuracy::default())),
            Some((Outcome::Mated(12), None, Accuracy::default())),
            None,
        ];
        let t = tally(played.iter());
        assert_eq!((t.total, t.not_won, t.failed), (6, 1, 4));
        assert_eq!((t.lengths, t.over), (vec![20, 12], vec![2]));
        assert_eq!((t.accuracy.moves, t.accuracy.plies_lost), (20, 4));
    }

    #[test]
    fn median_of_odd_and_even_lists() {
        assert_eq!(median(&[3]), 3.0);
        assert_eq!(median(&[1, 2, 9]), 2.0);
        assert_eq!(median(&[1, 2, 4, 9]), 3.0);
        assert_eq!(median(&[-3, -1, 2, 6]), 0.5);
    }
}

//! The chess engine: iterative-deepening alpha-beta after Chess Prodigy (CP1).
//!
//! Target-neutral and `no_std`: the engine never touches hardware. It talks
//! to its host (firmware UI, serial protocol, host tests) through
//! [`SearchHost`], polled every [`POLL_NODES`] nodes.
//!
//! Layout:
//! * [`eval`]: material + piece-square values kept incrementally (flash base
//!   tables plus cheap per-search adjustments), dynamic terms at the leaves,
//!   game phases and the KQK / KRK / KBNK mating evaluations.
//! * [`kbnk_book`]: the tables' move where KBNK's search goes wrong most.
//! * [`see`]: Levy's swap-off (static exchange) with x-rays.
//! * [`picker`]: staged move picking in CP1's order, a few bytes per ply.
//! * [`search`]: iterative deepening with CP1's aspiration scheme, PVS,
//!   null move, static/futility pruning, extensions, LMR, quiescence.
//! * [`time`]: levels, tournament clocks, pondering.
//!
//! RAM on the AVR (measured from the avr-none object code, alignment 1):
//! * [`Engine`]: about 1,010 bytes of static state: the per-ply array (18 x 37:
//!   picker 17, undo 9, saved score 2, node state 9), killers (96), the
//!   truncated triangular PV (78 moves, 156 + 12), the main line (25), the
//!   evaluation context, counters and the clock (~40), and an 8-slot pawn
//!   cache (48: the pawn structure changes in few of the moves searched).
//! * Stack: the recursive `search` frame is 49 bytes (18 of them saved
//!   registers and the return address), `qsearch` 41, at most [`MAX_PLY`]
//!   of them; plus root (60), iterate (28), one
//!   null-move frame (27) and the deepest leaf call chain (picker -> SEE,
//!   about 180). `cargo xtask ram` proves the whole firmware's worst case
//!   (static RAM + the static stack bound) fits 3,840 bytes. There is
//!   no room for a transposition table (even 64 entries of 6 bytes would
//!   not fit), so there is none. A 32-entry table of best moves alone
//!   (5 bytes each, tried first like the main line) was measured on the
//!   host at 10 s a move against Stockfish `nodes=500`: -0.7% +/- 1.6%
//!   over 5,942 games, no gain for its 160 bytes.
//!   Against a bare king the pawn cache is idle, so a table could live
//!   there; measured on the host (31 entries of 6 bytes, cleared at each
//!   such search, no stores under a repetition or fifty-move draw, no
//!   cuts at PV nodes). Nodes to depths 6/7/8 on `assets/bench_kbnk.epd`:
//!   85,572 / 211,075 / 650,634 without, 80,051 / 188,685 / 569,348 with
//!   cut-offs (4,096 entries: 68,333 / 143,943 / 364,163), so depth 7
//!   costs twice depth 6 even so. KBNK play-outs against the tables
//!   (`endgames --host --host-nps 2548 --defender tablebase`, seeds 18 to
//!   22): 997 mated without, 985 with cut-offs at depth 6, 943 at 7 or 8
//!   (949 at 7 without a table); only the cuts that say the strong side
//!   does no better, 993; the table's move alone, 997 (0.437 plies lost a
//!   move against 0.443; seeds 23 to 27, 999 either way; 28 to 32, 990
//!   either way): no table here either.
//!
//! No heap, no floats, no recursion outside the search.

pub mod eval;
pub mod kbnk_book;
pub mod picker;
pub mod search;
pub mod see;
pub mod time;
pub mod weights;

use crate::chess::{Move, Position, Undo};
use picker::Picker;

pub use eval::{eval, Phase};
pub use see::see;
pub use time::{SearchLimits, LEVEL_SECONDS};

/// Hard limit of the search depth in plies from the root, quiescence
/// included. It bounds the recursion (stack) and every per-ply array: each
/// ply costs 37 bytes of static state plus a frame of at most ~47 bytes.
/// 18 is what the 4 KB RAM affords once the worst case is counted
/// soundly: `cargo xtask ram` computes the stack bound from the ELF with
/// this many search frames and adds it to the static RAM (24 plies came to
/// 4,229 of the 3,840 bytes allowed). CP1 itself capped lines at 12 plies;
/// lines clipped here return the static evaluation.
pub const MAX_PLY: usize = 18;

/// Moves kept of the principal variation.
pub const PV_LEN: usize = 12;

/// Score of "mate now" (mated side to move: `-MATE`); a mate found `n` plies
/// from the root scores `MATE - n`.
pub const MATE: i16 = 30_000;
/// Larger than any score.
pub const INFINITE: i16 = 32_000;
/// Scores beyond this are mate scores.
pub const MATE_BOUND: i16 = MATE - 2 * MAX_PLY as i16 - 2;
/// Score of a draw (repetition, 50 moves, stalemate).
pub const DRAW: i16 = 0;

/// The host is polled (clock, stop, ponder hit) every this many nodes:
/// 16 nodes are under 10 ms at 2,000 nodes/s.
pub const POLL_NODES: u8 = 16;

/// A score for display: centipawns or mate in `n` moves (negative: mated).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i16),
    Mate(i8),
}

impl Score {
    /// Converts an internal score (side to move's point of view).
    pub fn from_internal(s: i16) -> Score {
        if s > MATE_BOUND {
            Score::Mate(((MATE - s + 1) / 2) as i8)
        } else if s < -MATE_BOUND {
            Score::Mate(-(((MATE + s) / 2) as i8))
        } else {
            Score::Cp(s)
        }
    }
}

/// Progress report for the LCD and the serial protocol.
#[derive(Clone, Copy, Debug)]
pub struct SearchInfo<'a> {
    /// Iteration (nominal depth) in plies.
    pub depth: u8,
    /// Deepest ply reached (quiescence included).
    pub seldepth: u8,
    pub score: Score,
    pub nodes: u32,
    pub elapsed_ms: u32,
    /// Principal variation, best move first.
    pub pv: &'a [Move],
}

/// What the engine needs from its surroundings.
pub trait SearchHost {
    /// A millisecond clock (wrapping is fine).
    fn now_ms(&mut self) -> u32;
    /// "Move now" / stop: the search returns its best move at once.
    fn stop_requested(&mut self) -> bool;
    /// [`SearchHost::stop_requested`] at the search's poll, `now` just read
    /// from [`SearchHost::now_ms`]: a host that needs the time there need
    /// not read it again.
    fn poll(&mut self, now: u32) -> bool {
        let _ = now;
        self.stop_requested()
    }
    /// While pondering: the opponent played the guessed move. The search
    /// goes on as a normal timed search from that moment.
    fn ponder_hit(&mut self) -> bool {
        false
    }
    /// A new iteration finished or the best root move changed.
    fn report(&mut self, _info: &SearchInfo) {}
}

/// Outcome of [`Engine::search`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// Best move; [`Move::NONE`] if the side to move has no legal move.
    pub best: Move,
    /// Expected reply (second PV move), for pondering; may be NONE.
    pub ponder: Move,
    /// Internal score, side to move's point of view (see [`Score`]); 0
    /// when not searched.
    pub score: i16,
    /// Last completed iteration; 0 when not searched (a move of KBNK's
    /// book, [`kbnk_book`], or no legal move).
    pub depth: u8,
    pub nodes: u32,
    pub elapsed_ms: u32,
}

impl SearchResult {
    pub fn score(&self) -> Score {
        Score::from_internal(self.score)
    }
}

/// Offsets of the rows of the truncated triangular PV table: row `p` holds
/// the line from ply `p`, at most `PV_LEN - p` moves.
const fn pv_offset(p: usize) -> usize {
    p * PV_LEN - p * p.saturating_sub(1) / 2
}
const PV_CELLS: usize = pv_offset(PV_LEN);

/// What one ply of the search keeps while its children are searched.
/// In a static array rather than in the recursive frames: smaller frames,
/// and the compiler cannot add copies (37 bytes per ply on the AVR).
#[derive(Clone, Copy)]
pub(crate) struct PlyState {
    pub picker: Picker,
    pub undo: Undo,
    /// Incremental score before the move made at this ply.
    pub psq: i16,
    /// Node state carried across the children (kept out of the frame).
    pub alpha: i16,
    pub beta: i16,
    pub best: i16,
    pub depth: i8,
    pub flags: u8,
    pub legal: u8,
}

impl PlyState {
    const EMPTY: PlyState = PlyState {
        picker: Picker::quiescence(),
        undo: Undo::EMPTY,
        psq: 0,
        alpha: 0,
        beta: 0,
        best: 0,
        depth: 0,
        flags: 0,
        legal: 0,
    };
}

/// The engine's persistent state (1,212 bytes on the AVR, see the module
/// documentation). Keep one, e.g. in a static: killers and the main line
/// are reused by pondering and the next search only through the public API.
///
/// Pondering: search the position after the expected reply with
/// `SearchLimits { ponder: true, ..timed limits }`. The search runs untimed
/// until [`SearchHost::ponder_hit`] returns true; from that moment the clock
/// starts and the same search goes on as a normal timed one (no work is
/// lost). If the opponent plays another move the host requests a stop,
/// discards the result and starts a new search.
pub struct Engine {
    /// Per-ply state of the running search (MAX_PLY x 28 bytes).
    pub(crate) plies: [PlyState; MAX_PLY],
    /// Two killers per ply (quiet, non-castling moves only). (Clearing
    /// those two plies down on entering a node, as Stockfish does: 1.3%
    /// fewer nodes to depth 4, host A/B -0.15% +/- 2.89% over 1,000
    /// games at 10 s against Stockfish `nodes=500`. Left out.)
    pub(crate) killers: [[Move; 2]; MAX_PLY],
    /// Truncated triangular PV of the running iteration.
    pub(crate) pv: [Move; PV_CELLS],
    pub(crate) pv_len: [u8; PV_LEN],
    /// Main line of the last completed iteration (tried first).
    pub(crate) main_line: [Move; PV_LEN],
    pub(crate) main_len: u8,
    /// Evaluation context of this search (phase, root king squares, ...).
    pub(crate) ctx: eval::EvalCtx,
    /// Incremental material + piece-square score, white's point of view.
    pub(crate) psq: i16,
    /// Non-pawn material per colour (N, B = 3, R = 5, Q = 9) and pawn counts.
    pub(crate) npm: [u8; 2],
    pub(crate) pawns: [u8; 2],
    /// The window of the evaluation's second lazy exit ([`eval::SCAN_MARGIN`]),
    /// side to move's view: the officers' scan is skipped when the score
    /// before it is at or below the first or at or above the second. Set by
    /// each `evaluate` that goes on to the full evaluation. The host's only:
    /// the AVR's `evaluate` hands the window over in registers.
    #[cfg(not(target_arch = "avr"))]
    pub(crate) scan_window: [i16; 2],
    /// Pawn-structure cache, indexed by the low bits of the pawn key.
    pub(crate) pawn_cache: [eval::PawnInfo; eval::PAWN_CACHE],
    pub(crate) nodes: u32,
    pub(crate) iteration: u8,
    pub(crate) clock: time::Clock,
    /// Enables late-move reductions (on by default; off for measurements).
    pub lmr: bool,
    /// Enables the null move (on by default).
    pub null_move: bool,
    /// Enables static and futility pruning (on by default).
    pub pruning: bool,
}

impl Engine {
    pub const fn new() -> Engine {
        Engine {
            plies: [PlyState::EMPTY; MAX_PLY],
            killers: [[Move::NONE; 2]; MAX_PLY],
            pv: [Move::NONE; PV_CELLS],
            pv_len: [0; PV_LEN],
            main_line: [Move::NONE; PV_LEN],
            main_len: 0,
            ctx: eval::EvalCtx::new(),
            psq: 0,
            npm: [0; 2],
            pawns: [0; 2],
            #[cfg(not(target_arch = "avr"))]
            scan_window: eval::NO_SCAN_WINDOW,
            pawn_cache: [eval::PawnInfo::EMPTY; eval::PAWN_CACHE],
            nodes: 0,
            iteration: 0,
            clock: time::Clock::new(),
            lmr: true,
            null_move: true,
            pruning: true,
        }
    }

    /// Forgets killers and the main line (new game, edited position).
    pub fn clear(&mut self) {
        self.killers = [[Move::NONE; 2]; MAX_PLY];
        self.main_len = 0;
    }

    /// Searches `pos` (restored on return) within `limits` and returns the
    /// best move. The host is a trait object: one copy of the search code
    /// whatever the host types (flash), and the cost (a call every
    /// [`POLL_NODES`] nodes) is nil. See [`search`] for the algorithm.
    pub fn search(
        &mut self,
        pos: &mut Position,
        limits: &SearchLimits,
        host: &mut dyn SearchHost,
    ) -> SearchResult {
        search::run(self, pos, limits, host)
    }

    /// The main line of the last completed iteration.
    pub fn main_line(&self) -> &[Move] {
        &self.main_line[..self.main_len as usize]
    }
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

//! The search, top-down.
//!
//! * [`run`]: sets up the evaluation context, then iterative deepening with
//!   CP1's aspiration scheme: window `old - 1 pawn .. old + 0.5 pawn`; a fail
//!   high is accepted without re-search (the move that failed high becomes
//!   the best move and the next iteration starts, its window open above:
//!   `old - 1 pawn .. infinity`); a fail low is searched again with a full
//!   window.
//! * [`Searcher::root`]: the main line and the captures first, then checks
//!   and moves next to the enemy king, then the other moves; if the main
//!   line comes back below the old score, beta is trimmed by 0.2 pawn; a
//!   new best move raises alpha by a 0.1 pawn tolerance, so later moves
//!   must be clearly better (a fail high too: its score is only a lower
//!   bound). From the 4th iteration on, a later move that
//!   beats alpha is not searched again with the open window: it becomes
//!   the best move on its lower bound, and the tolerance is half a pawn
//!   (not against a bare king, where it is always searched again).
//! * [`Searcher::search`]: principal variation search with mate-distance
//!   pruning, draw detection (one repetition in the tree, 50 moves), static
//!   pruning near the horizon (eval - max loss >= beta; CP1 kept a 0.25
//!   pawn margin), the null move (R = 3, whenever eval >= beta, not against
//!   a bare king; CP1: R = 2 and only if eval - max loss >= beta), CP1's
//!   extensions (check, single reply, pawn to the 7th, entering a pawn
//!   ending; only while ply < 3 x iteration, the single reply 2 x as
//!   CP1), futility pruning one and two plies before the horizon (2 and
//!   3 pawns; CP1: 3 and 5), swap-off
//!   pruning of the quiet moves that lose material (up to three plies
//!   before the horizon), and late-move reductions for quiet moves from
//!   the last stage.
//! * [`Searcher::qsearch`]: standing pat, good captures only (losing ones
//!   are pruned by swap-off), queen promotions, delta pruning; at its first
//!   ply, for either side to move, also the quiet checks that do
//!   not lose the man (the mates and forks just behind the horizon); all
//!   evasions when in check.
//!
//! Stack: the recursive frames hold scalars only; the picker, the undo
//! record and the saved score of each ply live in `Engine::plies`, killers
//! and PV in the [`Engine`] too. Rarely used node code (null move, static
//! pruning, counting replies) sits in separate functions so that its
//! locals are not part of every frame.

use super::eval::{incremental_from_scratch, EvalCtx, Phase, NPM_UNITS, VALUE};
use super::picker::Stage;
use super::see::{hanging, see};
use super::time::SearchLimits;
use super::*;
use crate::chess::piece::*;
use crate::chess::square::*;
use crate::chess::{victim_square, Color, Move, MoveGen, MoveKind, Position};

/// Flags handed from a node to its child.
const NULL_LINE: u8 = 1; // a null move was played on the way here
const PREV_NULL: u8 = 2; // the move into this node was a null move
const PREV_CHECK: u8 = 4; // the side that moved into this node was in check
const PREV_THREAT: u8 = 8; // that move pushed a pawn to the 6th/7th or came near our king
const FOLLOW_PV: u8 = 16; // this node lies on the previous main line
const NEAR_KING: u8 = 32; // that move came within two king steps of our king (root ordering only)
/// Node flags kept in the ply array (NULL_LINE shared with the above).
const N_IN_CHECK: u8 = 2;
const N_PV: u8 = 4;
const N_FUTILE: u8 = 8;

/// Root tolerance and beta trim (CP1), aspiration window.
/// A fail high's bound is held to the tolerance too, and the iteration
/// after a fail high gets a window open above ([`run`]): WAC at 10 s,
/// emulated, 238 -> 241 (on the host engine at 567, 1,134 and 4,000 nps:
/// 233, 247, 258 -> 238, 248, 258); host A/B at 10 s against Stockfish
/// `nodes=500`, 5,942 paired games: +0.22% +/- 0.48% (the open window
/// alone, +0.25% +/- 0.25%, better at 95%; the tolerance alone solved 236,
/// 250, 257). `bench engine` 0.55% more nodes to depth 4 (46,014).
const ROOT_TOLERANCE: i16 = 10;
/// Not against a bare king, where it measured worse: `cargo xtask
/// endgames --host --host-nps 880 --endings kbnk --defender tablebase`,
/// with the root's re-searches below: seeds 18 to 20, 579 mated with the
/// trim, 577 without, plies to mate lost a move 0.501 -> 0.458; fresh
/// seeds 21 to 24, 762 -> 764, 0.524 -> 0.475, 3% fewer moves in all.
const BETA_TRIM: i16 = 20;
/// Root moves after the first that beat alpha are searched again with the
/// open window only up to this iteration; later iterations accept them on
/// the null window's lower bound (the unfinished last iteration gets
/// through more of the root moves), with this larger tolerance. Half a
/// pawn: a whole pawn kept moves up to a pawn better from replacing the
/// first one found (`cargo xtask match --host --openings book`, 984 games
/// at 10 s against Stockfish `nodes=500`: 47.6% -> 50.8%; the WAC budget
/// curve is unchanged).
/// Against a bare king ([`Phase::bare_king`](super::eval::Phase::bare_king))
/// every iteration searches them again. There the moves accepted on a
/// null-window bound at the last iteration were the worst ones played: in
/// the two traced, each let the king out of its corner, 24 plies to mate
/// given away in one move (by the tables). `cargo xtask endgames --host --host-nps 880
/// --endings kbnk --defender tablebase`, 200 positions a seed: seeds 18 to 20, mated 561
/// before, 579 after (34 gained, 16 lost; seed 18's plies to mate lost a
/// move 0.549 -> 0.444); fresh seeds 21 to 24, 751 -> 762 (39 gained, 28
/// lost), 0.611 -> 0.524 plies lost a move. KQK and KRK: 100/100 either
/// way. The middlegame search is unchanged (`bench engine`: the same
/// nodes). On the emulated image, 40 positions a seed: seeds 1, 2, 3,
/// 105 of 120 mated before (session 18), 114 after, with `BETA_TRIM`'s
/// change too. Measured against a bare king and left out, the same 600
/// host positions: with the re-searches (579 mated, 0.501 plies lost a
/// move), the root tolerance 1, 6, 15 or 30 instead of 10, 496, 553, 537,
/// 348 mated; no null move, 575 and 0.495; no quiescence checks, 558 and
/// 0.566. With the beta trim gone too (577, 0.458): no late-move
/// reductions, 576 and 0.457; no aspiration window, 577 and 0.459; no
/// static pruning, 568 and 0.518; no futility pruning, 582 and 0.436, but
/// on the fresh seeds 764 and 0.472 against 764 and 0.475.
const ROOT_RESEARCH: i8 = 3;
const ROOT_BOUND_TOLERANCE: i16 = 50;
const ASPIRATION_LOW: i16 = 100;
const ASPIRATION_HIGH: i16 = 50;
/// Futility margins one and two plies before the horizon, static pruning margin.
/// (Host A/B, 5,942 paired games at 10 s against Stockfish `nodes=500`:
/// 150 one ply before the horizon changed 69 games, -0.20% +/- 0.20%,
/// worse at 95% by a hair.)
/// (Razoring, the same host A/B over its first 1,000 games: a quiescence
/// probe three plies before the horizon when eval + 500 <= alpha, the
/// node cut if it fails low, -0.20% +/- 1.38%; two plies before it too
/// (margin 350), -2.4% +/- 2.1%, worse. Left out.)
const FUTILITY: [i16; 3] = [0, 200, 300];
const STATIC_MARGIN: i16 = 0;

// `enter` calls `prune` only when eval >= beta, which both its cuts need.
const _: () = assert!(STATIC_MARGIN >= 0);
/// The node flags under which [`Searcher::prune`] does no static pruning.
const PRUNE_BARS: u8 = NULL_LINE | PREV_CHECK | PREV_THREAT;
/// The node flags under which [`Searcher::prune`] tries no null move.
const NULL_BARS: u8 = NULL_LINE | PREV_CHECK;
/// Late-move pruning: legal moves tried before the late quiet moves one
/// ply before the horizon are pruned (outside the PV, not in check).
/// (Host A/B, 5,942 games at 10 s against Stockfish `nodes=500`,
/// `match-diff`: 6 moves -0.85% +/- 1.26%; pruning two plies before the
/// horizon too, after 8 moves, -2.3% +/- 1.5%, worse at 95%.)
/// Not against a bare king
/// ([`Phase::bare_king`](super::eval::Phase::bare_king)): there every move
/// is quiet and the generator's order (king first) says nothing, so
/// the knight's and bishop's last moves went unseen. `cargo xtask
/// endgames --host --host-nps 950 --defender tablebase`, 200 KBNK
/// positions on each of seeds 11, 12, 13: 169, 171, 162 mated with it,
/// 184, 181, 175 without (futility, the null move, LMR, static and
/// swap-off pruning off there too: within those figures' spread); KQK and
/// KRK 100/100 either way. With the KBNK knight's weight 3 (`eval.rs`),
/// on fresh seeds, the host clock at each build's AVR speed in KBNK (830
/// before, 880 after): seeds 14 to 17, 200 each, 672 of 800 mated before,
/// 744 after; the image in the emulator, 40 each on seeds 1, 2, 3, 16,
/// 17: 171 of 200 before, 178 after (22 gained, 15 lost; seed 16: 32 and
/// 38, as the host predicted, seeds 1 to 3 and 17 within one on both).
const LMP_MOVES: u8 = 3;
/// Swap-off pruning: quiet moves that lose material by swap-off are
/// pruned this many plies before the horizon and closer.
/// (`cargo xtask match --host --openings book-positions`, 5,942 games at
/// 10 s against Stockfish `nodes=500`, `match-diff` against the build
/// before: three plies +1.1%, two plies -0.6%, losing captures pruned too
/// -1.3%; with the connected pawns 49.6% -> 51.3%, better at 95%.)
const SEE_PRUNE_DEPTH: i8 = 3;
/// Delta pruning margin in quiescence. (Host A/B with quiet checks for
/// both sides, each clock at its build's `bench engine` speed: 100 -0.6%
/// +/- 0.9%, 200 +0.1% +/- 0.8%; neither shown.) 150 pruned refutations
/// worth more than their victim: a pawn taken with check that wins a
/// rook next (WAC.153: Qxd4+ cut, as -182 + 100 + 150 <= alpha 187, so
/// Nxd4 stayed hidden; with 350 it is best from 853 nodes). Host
/// engine, WAC at 5,900 / 11,800 nodes: 150 239 / 248, 300 243 / 248,
/// 350 244 / 248, 400 244 / 248, 600 244 / 249, no delta pruning 242 /
/// 250; emulated at 10 s 241 -> 246 (WAC.147, 153, 171, 194, 266, 281
/// gained, 294 lost). `bench engine` 6.9% more nodes to depth 4, 4.9%
/// more cycles. Host A/B, 3,000 paired games at 10 s against Stockfish
/// `nodes=500`, each clock at its build's speed (595 and 606 nps):
/// -0.42% +/- 1.45%, no difference shown.
const DELTA: i16 = 350;
/// Internal iterative deepening from this depth on, at PV nodes off the
/// main line. Host engine, WAC at 6,000 / 8,200 / 10,000 / 15,000 nodes:
/// 246 / 248 / 253 / 251 -> 245 / 251 / 254 / 254 (from depth 3: 245 /
/// 249 / 254 / 252; 5: 246 / 248 / 253 / 252); emulated at 10 s, 820
/// nps, 247 -> 248 (145, 257 gained, 150 lost). Host A/B, 2,000 paired
/// games at 10 s against Stockfish `nodes=500`, 820 nps: +0.03% +/-
/// 1.89%, no difference. `bench engine` (depth 4: never reached) the same
/// nodes in 0.5% more cycles; 364 B of flash.
const IID_DEPTH: i8 = 4;
/// [`Searcher::root_class`]: the pass is known only once the move is made.
const CLASS_UNKNOWN: u8 = 3;
/// [`Searcher::qsearch`] modes.
const Q_IN_CHECK: u8 = 1;
const Q_CHECKS: u8 = 2;
/// [`Searcher::improve`]'s answer: a beta cut-off; the PV to be updated.
const IMPROVE_CUT: u8 = 1;
const IMPROVE_PV: u8 = 2;
/// [`Searcher::child_info`]'s `extra`: the move gives check, a pawn
/// ending began ([`Searcher::make`]).
const CI_GIVES_CHECK: u8 = 1;
const CI_PAWN_ENDING: u8 = 2;
// (The assembly tests them as bits 0 and 1.)
const _: () = assert!(CI_GIVES_CHECK == 1 && CI_PAWN_ENDING == 2);
// child_info turns the node's N_IN_CHECK into the child's PREV_CHECK by
// one shift (the assembly: by adding 2) and passes NULL_LINE on as is.
const _: () = assert!(N_IN_CHECK << 1 == PREV_CHECK && NULL_LINE == 1 && N_IN_CHECK == 2);

struct Searcher<'a, H: SearchHost + ?Sized> {
    e: &'a mut Engine,
    pos: &'a mut Position,
    host: &'a mut H,
    max_nodes: u32,
    root_best: Move,
    root_score: i16,
    /// The ply from which a node makes no move and returns its static
    /// evaluation: MAX_PLY - 1 less the internal-iterative-deepening
    /// searches on the stack (each is one more search frame at the same
    /// ply, so the ply limits count them). Kept as the limit, not as the
    /// count of those searches added to the ply at every node: `bench
    /// engine` 229,433,203 -> 229,353,029 cycles (-0.03%).
    ply_cap: u8,
    /// Nodes left to the next poll of the host ([`Searcher::tick`]): here,
    /// not in the engine, one pointer nearer (32 B less flash).
    poll: u8,
    /// [`CI_GIVES_CHECK`] where checks are extended, 0 against a bare king
    /// (see [`Searcher::child_info`]).
    checks: u8,
    /// 3 x the iteration: the ply from which [`Searcher::child_info`]
    /// extends no move, set with the iteration (not multiplied on every
    /// move made, the engine's iteration loaded by each caller: `bench
    /// engine` 232,161,256 -> 231,825,227 cycles, -0.14%, +8 B).
    ext_limit: u8,
    /// The search was told to stop ([`Searcher::poll_host`]): here, read
    /// after every child, one pointer nearer than in the engine (`bench
    /// engine` 231,825,227 -> 231,785,199 cycles, -0.02%, 44 B less).
    stopped: bool,
    /// The deepest ply reached: here, tested at every quiescence node, one
    /// pointer nearer than in the engine (`bench engine` 231,785,199 ->
    /// 231,681,236 cycles, -0.04%, 4 B less).
    seldepth: u8,
    /// The engine's `lmr` switch: here, one pointer nearer (`bench engine`
    /// 231,681,236 -> 231,673,172 cycles, 28 B less; `pruning` here too,
    /// 232,145,167: left in the engine).
    lmr: bool,
    /// The engine's `null_move` switch, off against a bare king (why:
    /// [`Searcher::prune_null`]; the phase tested there instead: 36 B
    /// more flash).
    null_move: bool,
    /// 2 x the iteration: the ply from which the single reply to check is
    /// not extended ([`Searcher::enter`]), set with the iteration (`bench
    /// engine` 231,673,172 -> 231,489,254 cycles, -0.08%, 12 B less; the
    /// stack bound 33 B less).
    reply_limit: u8,
}

/// Entry point of [`Engine::search`].
pub(crate) fn run<H: SearchHost + ?Sized>(
    e: &mut Engine,
    pos: &mut Position,
    limits: &SearchLimits,
    host: &mut H,
) -> SearchResult {
    let now = host.now_ms();
    e.nodes = 0;
    e.ctx = EvalCtx::from_position(pos);
    let (psq, npm, pawns) = incremental_from_scratch(&e.ctx, pos);
    e.psq = psq;
    e.npm = npm;
    e.pawns = pawns;
    e.killers = [[Move::NONE; 2]; MAX_PLY];
    e.main_len = 0;
    e.clock.begin(now, limits, pos.side_to_move());
    // KBNK's mating evaluation (`eval.rs`, `KBNK_KING` ...) was weighed
    // on play-outs whose moves came mostly from depth 6 (1,600 nps, 10 s
    // a move). Deeper it mates fewer, odd depths worst (fixed depths
    // against the tables, `cargo xtask endgames --host --depth D
    // --endings kbnk --defender tablebase`, seeds 18 and 19: depth 6 400
    // of 400, 7 382, 8 392; seed 18 at 5, 187 of 200) though it loses
    // fewer plies to mate a move (seed 18: 0.61, 0.43, 0.37, 0.31). The
    // failures are 25-move shuffles on the evaluation's plateaus (the
    // lone king on an edge between the corners, the root's choices within
    // 10 to 25 of each other) that the tables' defence holds. So on the
    // clock the search stops at depth 6 there: the same moves at every
    // speed that finishes it (not for a depth asked for or analysis;
    // pondering stops there too and waits for the ponder hit, so a hit
    // plays the same depth-6 move at once). Seeds 18 to 22, 1,000 positions, mated and plies to
    // mate lost a move at 1,800 / 2,150 / 2,600 nps: 997 and 0.448 /
    // 997 and 0.443 / 997 and 0.443; the time cut by a quarter that it
    // replaces (-120 B), 997 and 0.441 / 998 and 0.430 / 972 and 0.476;
    // neither, at 2,150, 777 of seeds 18 to 21's 800. The three left
    // (seed 22: 82, 125, 194) fail at every speed; the cut's two (seed 19
    // 114, seed 21 49) are mated. KQK and KRK are not touched.
    // The cap by the lone king's place ([`kbnk_cap`]): fixed depths 6, 7
    // and 8 on seeds 18 and 19 (`--dump`), plies lost a move by its edge
    // ring and corner slope: off the edges 0.65 / 0.59 / 0.35 (d8 3x the
    // clock's nodes); on an edge at slopes 2 to 4, where the deeper
    // depths' failures shuffle, 0.41 / 0.58 / 0.48. On the clock (2,548
    // nps, mated and plies lost a move; cap 6 everywhere: 997 and 0.443
    // on 18 to 22): 7 off the edges, 993 (0.414); 7 on an edge at slope
    // 5 to 7, 997 (0.431); 6 to 7, 997 (0.446); 0, 5, 7, 997 (0.420);
    // that and 3, 4, 962 (0.477); and off the edges at slope 2 or less,
    // 994 (0.426); a square in at slope 2 (these), 998 (0.417), 23 to 27
    // 999 (0.413), 28 to 32 995 (0.419) against cap 6's 990 (0.458),
    // its five failures among cap 6's ten (without the square-in clause
    // 992, 0.426); 33 to 37 993 (0.419) against 990 (0.448), its seven
    // among cap 6's ten. Nodes a move 11,650 (cap 6,
    // 10,460); a depth-7 move 18,200 on average, within the clock.
    // With the tables' ties broken at random (`--ties random`): 991, 995
    // and 986 mated on 18 to 22, 23 to 27 and 28 to 32 (about 0.445,
    // 0.419, 0.453 plies lost a move) against cap 6's 990, 991, 984
    // (0.470, 0.452, 0.478).
    let mut capped = *limits;
    if e.ctx.phase == Phase::MateBn && capped.depth == 0 && !capped.infinite {
        // Where the capped search loses most, the book's move (`kbnk_book.rs`),
        // on the same terms: not for a depth asked for or analysis, nor
        // while pondering (which must wait for the hit or the stop: a hit
        // plays the capped search's move; waiting here cost 22 B).
        let (best, lone) = super::kbnk_book::probe(pos, e.ctx.strong);
        if !best.is_none() && !e.clock.pondering {
            return SearchResult { best, ponder: Move::NONE, score: 0, depth: 0, nodes: 0, elapsed_ms: 0 };
        }
        capped.depth = kbnk_cap(lone);
    }
    let bare_king = e.ctx.phase.bare_king();
    let lmr = e.lmr;
    let null_move = e.null_move && !bare_king;
    let mut s = Searcher {
        e,
        pos,
        host,
        max_nodes: limits.nodes,
        root_best: Move::NONE,
        ply_cap: MAX_PLY as u8 - 1,
        poll: POLL_NODES,
        root_score: 0,
        checks: if bare_king { 0 } else { CI_GIVES_CHECK },
        ext_limit: 0,
        stopped: false,
        seldepth: 0,
        lmr,
        null_move,
        reply_limit: 0,
    };
    s.iterate(&capped)
}

/// KBNK's depth cap on the clock ([`run`]), from the lone king's square
/// `lone` (`8 * rank + file`) as the book sees the root position
/// ([`kbnk_book::probe`](super::kbnk_book::probe): the bishop's corners
/// a1 and h8, the lone king in the triangle a1-h1-d4, so that its rank is
/// its distance to the nearest edge and `7 - file - rank` its corner
/// slope, [`corner_slope`](super::eval::corner_slope)): 7 with the lone king on an edge at slope 0,
/// 5 or 7 or a square in from an edge at slope 2; else 6. (It scanned
/// the piece list for the bishop itself: 200 B; from the book's view, 60
/// B, against a constant 6.)
#[inline(always)]
fn kbnk_cap(lone: u8) -> u8 {
    let (f, r) = (lone & 7, lone >> 3);
    let deeper = match r {
        0 => 0b1010_0001u8,
        1 => 0b0000_0100,
        _ => 0,
    };
    6 + (deeper >> (7 - f - r) & 1)
}

impl<'a, H: SearchHost + ?Sized> Searcher<'a, H> {
    fn iterate(&mut self, limits: &SearchLimits) -> SearchResult {
        // Legal moves at the root: none = game over; one = answer at once
        // when playing on the clock.
        let mut legal = 0u8;
        let mut first = Move::NONE;
        let mut gen = MoveGen::new();
        while let Some(m) = gen.next_legal(self.pos) {
            if legal == 0 {
                first = m;
            }
            legal += 1;
            if legal > 1 {
                break;
            }
        }
        if legal == 0 {
            let score = if self.pos.in_check() { -MATE } else { DRAW };
            return self.result(Move::NONE, score, 0);
        }
        self.root_best = first;
        let max_depth = if limits.depth == 0 || limits.depth as usize > MAX_PLY - 1 {
            MAX_PLY as u8 - 1
        } else {
            limits.depth
        };
        let mut old = 0i16;
        let mut completed = 0u8;
        let mut score = 0i16;
        // After a fail high the old score is only a lower bound: the next
        // window is open above. With CP1's window every iteration of a
        // won line failed high again at half a pawn more (WAC.014, mate in
        // 4: +2.4, +3.1, +4.0, +4.5 pawns at depths 4 to 7), so the mate
        // was never seen. Figures at `ROOT_TOLERANCE`.
        let mut failed_high = false;
        for depth in 1..=max_depth {
            self.e.iteration = depth;
            self.ext_limit = 3 * depth;
            self.reply_limit = 2 * depth;
            let (alpha, beta) = if depth == 1 || old.abs() > MATE_BOUND {
                (-INFINITE, INFINITE)
            } else if failed_high {
                (old - ASPIRATION_LOW, INFINITE)
            } else {
                (old - ASPIRATION_LOW, old + ASPIRATION_HIGH)
            };
            let mut v = self.root(depth as i8, alpha, beta, old);
            failed_high = v >= beta;
            if !self.stopped && v <= alpha {
                v = self.root(depth as i8, -INFINITE, INFINITE, old);
            }
            if self.stopped {
                // Keep what the unfinished iteration proved at the root.
                if self.root_score > score && !self.root_best.is_none() {
                    score = self.root_score;
                }
                break;
            }
            old = v;
            score = v;
            completed = depth;
            let n = (self.e.pv_len[0] as usize).min(PV_LEN);
            if n > 0 && self.e.pv[0] == self.root_best {
                self.e.main_line[..n].copy_from_slice(&self.e.pv[..n]);
                self.e.main_len = n as u8;
            } else {
                self.e.main_line[0] = self.root_best;
                self.e.main_len = 1;
            }
            self.report(depth, v);
            if legal == 1 && limits.is_timed() {
                break;
            }
            if v.abs() > MATE_BOUND && (MATE - v.abs()) <= depth as i16 {
                break; // mate within the full-width horizon
            }
            let now = self.host.now_ms();
            if self.e.clock.soft_exceeded(now) {
                break;
            }
        }
        // Analysis and pondering never answer before being told to.
        if limits.infinite || self.e.clock.pondering {
            while !self.stopped {
                if self.host.stop_requested() {
                    break;
                }
                if self.e.clock.pondering && self.host.ponder_hit() {
                    break;
                }
            }
        }
        let best = self.root_best;
        let ponder = if self.e.main_len >= 2 && self.e.main_line[0] == best {
            self.e.main_line[1]
        } else {
            Move::NONE
        };
        let mut r = self.result(best, score, completed);
        r.ponder = ponder;
        r
    }

    // (Out of line with `nodes()` in it, 88 B more flash.)
    #[inline(always)]
    fn result(&mut self, best: Move, score: i16, depth: u8) -> SearchResult {
        let now = self.host.now_ms();
        SearchResult {
            best,
            ponder: Move::NONE,
            score,
            depth,
            nodes: self.nodes(),
            elapsed_ms: self.e.clock.elapsed(now),
        }
    }

    fn report(&mut self, depth: u8, score: i16) {
        let now = self.host.now_ms();
        let n = (self.e.pv_len[0] as usize).min(PV_LEN);
        let info = SearchInfo {
            depth,
            seldepth: self.seldepth,
            score: Score::from_internal(score),
            nodes: self.nodes(),
            elapsed_ms: self.e.clock.elapsed(now),
            pv: &self.e.pv[..n],
        };
        self.host.report(&info);
    }

    /// Counts a node and polls the host every [`POLL_NODES`]; true = stop.
    /// The nodes of a poll period are added to `nodes` at its poll, a
    /// 32-bit sum every POLL_NODES nodes instead of each node's
    /// ([`Searcher::nodes`] the count in between).
    ///
    /// `stopped` is read only after a poll: no node is entered once it is
    /// set (every caller of a child tests it after the child returns and
    /// before searching another), so between polls it is false.
    /// For the quiescence nodes ([`Searcher::q_head`]): `bench engine`
    /// 252,929,779 -> 252,593,635 cycles (-0.13%), +20 B. (In `search`'s
    /// `enter` too, -0.20%, but its frame grew by 2 bytes, the stack
    /// bound by 34: there [`Searcher::tick_full`].)
    #[inline(always)]
    fn tick(&mut self) -> bool {
        debug_assert!(!self.stopped);
        self.poll -= 1;
        if self.poll == 0 {
            self.poll_host();
            return self.stopped;
        }
        false
    }

    /// [`Searcher::tick`] reading `stopped` on every node.
    #[inline(always)]
    fn tick_full(&mut self) -> bool {
        self.poll -= 1;
        if self.poll == 0 {
            self.poll_host();
        }
        self.stopped
    }

    /// The nodes searched so far (`Engine::nodes` counts those up to the
    /// last poll).
    fn nodes(&self) -> u32 {
        self.e.nodes.wrapping_add((POLL_NODES - self.poll) as u32)
    }

    /// (The period's reset and node sum here, not in [`Searcher::tick`]:
    /// 80 B less flash over tick's inlined copies, `bench engine` 0.04%
    /// more cycles, 280,818,610 -> 280,922,519.) The node sum after the
    /// host's calls: the `nodes` address is not held across them, two
    /// registers fewer to save (`bench engine` 211,344,233 -> 211,312,260
    /// cycles, -0.02%, 40 B less).
    #[inline(never)]
    fn poll_host(&mut self) {
        self.poll = POLL_NODES;
        // One clock reading for the host's poll and the deadlines.
        let now = self.host.now_ms();
        let stop = self.host.poll(now);
        self.e.nodes = self.e.nodes.wrapping_add(POLL_NODES as u32);
        if stop {
            self.stopped = true;
            return;
        }
        if self.max_nodes != 0 && self.e.nodes >= self.max_nodes {
            self.stopped = true;
            return;
        }
        if self.e.clock.pondering {
            if self.host.ponder_hit() {
                self.e.clock.ponder_hit(now);
            }
            return;
        }
        if self.e.clock.hard_exceeded(now) {
            self.stopped = true;
        }
    }

    /// Makes `m` at ply `p`, keeping the incremental evaluation up to date;
    /// the undo record and the old score go to the ply array.
    /// Returns true if the move captured the last officer (a pawn ending begins).
    /// The moves of a quiescence node (its captures and quiet checks; not
    /// its check evasions, whose picker is reset as a full node's) leave
    /// the hash unkept ([`Position::make_move_into`]): no position below
    /// them is ever looked up for repetitions. `hashed`: the caller knows
    /// its picker's kind (the root and `search` reset theirs for all moves,
    /// `qsearch` for the evasions when in check): a constant or a register,
    /// not the picker's flag read and tested on every move.
    /// The ply comes as a byte: a `usize` made the 37-byte stride of the
    /// ply array a 16-bit multiplication, here one `mul`.
    /// Inlined into its three callers (their registers are saved
    /// already; it saved 11 of its own): into [`Searcher::search`] after
    /// `enter` and `improve` were, `bench engine` 285,618,885 ->
    /// 283,362,744 cycles (-0.79%), +168 B; into [`Searcher::qsearch`]
    /// too, 281,090,474 (-0.52%), +152 B; into [`Searcher::root`] too,
    /// the out-of-line copy gone, -0.05%, 56 B less. (`unmake` inlined
    /// the same way, into `search`: -0.28%, +208 B; `qsearch` too: -0.12%,
    /// +208 B; `root` too: -0.09%, +216 B. `child_info` into `search`,
    /// before `make`: -0.09%, +192 B; `pawn_to_seventh`: +0.06%.)
    #[inline(always)]
    fn make(&mut self, p: u8, m: Move, hashed: bool) -> bool {
        let p = slot(p);
        let e = &mut *self.e;
        let pos = &*self.pos;
        // One man moves, maybe taking on its target: the common case in
        // line; castling, en passant and promotions out of line, so that
        // this path keeps fewer values across its calls.
        let (d, officer_taken) = if m.is_simple() {
            let from = m.from();
            let to = m.to();
            let code = pos.code_on(from);
            let mut d = e.ctx.psq_move(code, from, to);
            let mut officer_taken = false;
            if m.is_capture() {
                let vcode = pos.code_on(to);
                d -= taken(e, vcode, to);
                officer_taken = vcode != PAWN && vcode != PAWN + BLACK_OFFSET;
            }
            (d, officer_taken)
        } else {
            special_delta(e, pos, m)
        };
        // The answer before the last call, so that nothing but it is kept
        // across that call (12 registers saved against 11: `bench engine`
        // 0.18% fewer cycles).
        let pawn_ending = officer_taken && e.npm[0] == 0 && e.npm[1] == 0;
        // The ply's slot only now: not kept across the calls above.
        // The score read once: the compiler cannot tell the slot (found
        // by assembly) from the engine's score and read it again after
        // the store (`bench engine` 229,657,117 -> 229,433,203 cycles,
        // -0.10%, 12 B less).
        let psq = e.psq;
        let ply = at(&mut e.plies, p);
        ply.psq = psq;
        e.psq = psq + d;
        debug_assert_eq!(hashed, !ply.picker.is_quiescence());
        self.pos.make_move_into(m, &mut ply.undo, hashed);
        pawn_ending
    }

    /// Takes back `m` made at ply `p`. The material counts first, from
    /// the undo record (the victim's board byte), then the position: with
    /// nothing left to do after that call, no value is kept across it.
    /// Out of line for [`Searcher::qsearch`] and [`Searcher::root`],
    /// inlined into [`Searcher::search`] ([`Searcher::unmake_in`]):
    /// `bench engine` 281,578,666 -> 280,818,610 cycles (-0.27%), +212 B.
    /// (Into `qsearch` too: -0.12%, +208 B, its frame 2 bytes larger,
    /// the stack bound +38 B; into `root` too: -0.09%, +216 B.)
    ///
    /// This copy ends in a tail jump to [`Position::unmake_move`]: it
    /// keeps no value in a saved register (the material counts by
    /// assembly, [`restore_captured`] and [`restore_promoted`], whose few
    /// scratch registers leave the compiler enough), so it saves none
    /// and does not return through itself (`unmake_in` as it was, saving
    /// r16 and r17: `bench engine` 230,481,321 -> 230,129,278 cycles,
    /// -0.15%, 52 B less).
    #[inline(never)]
    fn unmake(&mut self, p: u8, m: Move) {
        let e = &mut *self.e;
        let them = self.pos.side_to_move() as u8;
        if m.is_capture() {
            let c = at(&mut e.plies, slot(p)).undo.captured();
            restore_captured(e, c, them);
        }
        if promotes(m) {
            restore_promoted(e, m, them);
        }
        let ply = at(&mut e.plies, slot(p));
        e.psq = ply.psq;
        self.pos.unmake_move(m, &ply.undo);
    }

    /// [`Searcher::unmake`], inlined. The counts by the same assembly
    /// ([`restore_captured`], [`restore_promoted`]), not the compiler's:
    /// `bench engine` 230,129,278 -> 229,945,127 cycles (-0.08%), 108 B
    /// less.
    #[inline(always)]
    fn unmake_in(&mut self, p: u8, m: Move) {
        let p = slot(p);
        let e = &mut *self.e;
        // The side to move before the take-back: the mover's opponent. (A
        // byte: as a `usize` it took two more registers to save, 91
        // cycles a call against 81.)
        let them = self.pos.side_to_move() as u8;
        if m.is_capture() {
            let c = at(&mut e.plies, p).undo.captured();
            restore_captured(e, c, them);
        }
        if promotes(m) {
            restore_promoted(e, m, them);
        }
        let ply = at(&mut e.plies, p);
        e.psq = ply.psq;
        self.pos.unmake_move(m, &ply.undo);
    }

    /// Copies `m` plus the child's line into the PV row of `ply`; `deep`:
    /// the child was a full-width node (its line is in row `ply + 1`),
    /// not a quiescence node (whose line is empty: the quiescence search
    /// keeps none, and does not clear the row's length on every node).
    #[inline(never)]
    fn update_pv(&mut self, ply: usize, m: Move, deep: bool) {
        if ply >= PV_LEN {
            return;
        }
        let row = PV_ROWS.get(ply) as usize;
        self.e.pv[row] = m;
        let mut n = 1u8;
        if ply + 1 < PV_LEN {
            // Row `ply + 1` starts right after row `ply`'s PV_LEN - ply cells.
            let child = row + PV_LEN - ply;
            let len = if deep { self.e.pv_len[ply + 1].min((PV_LEN - ply - 1) as u8) } else { 0 };
            for i in 0..len {
                self.e.pv[row + 1 + i as usize] = self.e.pv[child + i as usize];
            }
            n += len;
        }
        self.e.pv_len[ply] = n;
    }

    /// The root: CP1's main line first, beta trim and tolerance.
    fn root(&mut self, depth: i8, alpha0: i16, beta0: i16, old: i16) -> i16 {
        let mut alpha = alpha0;
        let mut beta = beta0;
        let in_check = self.pos.in_check();
        let bare_king = self.e.ctx.phase.bare_king();
        let main = self.root_best;
        let follow = self.e.main_len > 1 && self.e.main_line[0] == main;
        self.e.plies[0].picker.reset(main, true, false);
        let mut best = -INFINITE;
        let mut n = 0u8;
        self.e.pv_len[0] = 0;
        self.root_score = -INFINITE;
        // Three passes over the picker: the main line move and the
        // captures, then the checks and the moves next to the enemy king,
        // then the other moves. The last iteration is rarely finished: the
        // forcing moves are the ones it should have looked at.
        let mut pass = 0u8;
        loop {
            let e = &mut *self.e;
            let Some((m, stage)) = e.plies[0].picker.next(self.pos, &e.killers[0]) else {
                if pass < 2 {
                    pass += 1;
                    // (These passes keep no capture: skipping the capture
                    // stages, bench engine 334,908,464 -> 333,564,350 cycles, -0.40%.)
                    self.e.plies[0].picker.reset_without_captures(self.pos, main);
                    continue;
                }
                break;
            };
            // Each move was made in all three passes, in two of them only to
            // be taken back (a fifth of all the moves made in `bench
            // engine`): its pass is told before it is made where it can be.
            // The first pass's quiet moves (a third of the 10,836 moves
            // the three passes see) here, not by a call to `root_class`:
            // `bench engine` 211,312,260 -> 211,216,145 cycles (-0.05%),
            // +8 B. (`root_class` in line: 0.02% more cycles, +36 B; the
            // main line and capture test here for all three passes, none
            // in `root_class`: 0.03% more.) From its hanging-men stage on,
            // the first pass's picker generates only the quiet moves that
            // may check ([`Picker::restrict_quiets`]): it searches none of
            // them, and its losing captures come as before; the restricted
            // generator keeps every move of a pawn on the 6th or 7th, so
            // the capturing under-promotions (which come with the quiet
            // moves) too. 3,504 quiet moves were generated only to be
            // passed over: `bench engine` 211,216,145 -> 210,688,131
            // cycles (-0.25%), KBNK 101,908,101 -> 101,564,080 (-0.34%),
            // +28 B. (Not restricted with a pawn on the 7th, tested:
            // 210,720,027, +104 B.)
            if pass == 0 && !m.is_capture() && m != main {
                if stage >= Stage::Hanging {
                    self.e.plies[0].picker.restrict_quiets();
                }
                continue;
            }
            let class = self.root_class(m, main);
            if class != pass && class != CLASS_UNKNOWN {
                continue;
            }
            if !self.pos.is_legal_given_check(m, in_check) {
                continue;
            }
            let pawn_ending = self.make(0, m, true);
            let gives_check = self.pos.in_check_after(m);
            let nf = if in_check { N_IN_CHECK } else { 0 };
            let extra = gives_check as u8 & self.checks | (pawn_ending as u8) << 1;
            let info = self.child_info(m, nf, extra, 0);
            let mut flags = info as u8;
            if class == CLASS_UNKNOWN || cfg!(debug_assertions) {
                let made = if gives_check || flags & NEAR_KING != 0 { 1 } else { 2 };
                // `root_class` must tell every move's pass as the made move
                // does, or a move is searched in two passes or in none.
                debug_assert!(class == CLASS_UNKNOWN || class == 0 || pass == 0 || class == made, "{m:?}");
                if class == CLASS_UNKNOWN && made != pass {
                    self.unmake(0, m);
                    continue;
                }
            }
            n += 1;
            let ext = (info >> 8) as i8;
            if follow && m == main {
                flags |= FOLLOW_PV;
            }
            let nd = depth - 1 + ext;
            let bound = n > 1 && depth > ROOT_RESEARCH && !bare_king;
            // The first move with the open window, the others with the
            // null window, searched again with the open one (for the score
            // and the PV) when they beat alpha. (One call site: `bench engine`
            // 252,593,635 -> 252,569,639 cycles, 8 B less.)
            let mut open = n == 1;
            let v = loop {
                let v = -self.search(1, nd, if open { -beta } else { -alpha - 1 }, -alpha, gives_check, flags);
                if open || v <= alpha || self.stopped || bound {
                    break v;
                }
                open = true;
            };
            self.unmake(0, m);
            if self.stopped {
                break;
            }
            if v > best {
                best = v;
            }
            if n == 1 && depth > 1 && v < old && v > alpha0 && v < beta && !bare_king {
                // The main line lost ground: the rest will hardly do better.
                beta = (beta - BETA_TRIM).max(v + 1);
            }
            if v > alpha {
                self.root_best = m;
                self.root_score = v;
                self.update_pv(0, m, nd > 0);
                if depth > 1 {
                    self.report(depth as u8, v);
                }
                // Later moves must beat it by the tolerance: a score from the
                // null window alone, or a fail high, is a lower bound, so
                // the tolerance is half a pawn where either may come from
                // a bound. (Without it on a fail high, in WAC.014 Qxh7+,
                // mate in 4, failed high at depth 7 at 4.53 pawns, and Ne4
                // replaced it on a bound of 4.54.)
                let fail_high = v >= beta;
                let tolerance = if bound || fail_high && depth > ROOT_RESEARCH && !bare_king {
                    ROOT_BOUND_TOLERANCE
                } else {
                    ROOT_TOLERANCE
                };
                let raised = if v.abs() < MATE_BOUND { v + tolerance } else { v };
                if fail_high {
                    // Accepted without re-search (CP1); null windows at the
                    // new bound check the other moves cheaply.
                    alpha = raised;
                    beta = INFINITE;
                } else {
                    alpha = raised.min(beta - 1);
                }
            }
        }
        if n == 0 {
            return if in_check { -MATE } else { DRAW };
        }
        best
    }

    /// The root pass of `m` (not yet made), as [`Searcher::root`] tells it
    /// once the move is made: 0 the main line and the captures, 1 the
    /// checks and the moves within two king steps of the enemy king
    /// (child_info's NEAR_KING), 2 the others; [`CLASS_UNKNOWN`] for
    /// castling and quiet promotions, which `gives_check` does not take.
    #[inline(never)]
    fn root_class(&self, m: Move, main: Move) -> u8 {
        if m == main || m.is_capture() {
            return 0;
        }
        if !m.is_simple() {
            return CLASS_UNKNOWN;
        }
        let king = self.pos.king_square(self.pos.side_to_move().other());
        // 0x88 squares: the rank and file differences plus 2, one a
        // nibble, both at most 4 within two king steps.
        let d = m.to().wrapping_sub(king).wrapping_add(0x22);
        if d & 0x0F <= 4 && d >> 4 <= 4 || self.pos.gives_check(m) {
            1
        } else {
            2
        }
    }

    /// Does `m` (not yet made) push a pawn to the 7th rank?
    #[inline(never)]
    fn pawn_to_seventh(&self, m: Move) -> bool {
        let seventh = if self.pos.side_to_move() == Color::White { 6 } else { 1 };
        // (The man's code compared with either pawn's, not its kind taken
        // first: `bench engine` 252,185,675 -> 252,089,506 cycles, -0.04%.)
        let code = self.pos.code_on(m.from());
        rank_of(m.to()) == seventh && (code == PAWN || code == PAWN + BLACK_OFFSET)
    }

    /// The child's flags after `m` was made (low byte) and the move's
    /// extension (high byte), in one call: both read the square `m` went
    /// to and the side now to move. `nf`: the node's flags (its
    /// [`N_IN_CHECK`] becomes the child's [`PREV_CHECK`], its [`NULL_LINE`]
    /// passed on); `extra`: [`CI_GIVES_CHECK`], [`CI_PAWN_ENDING`].
    ///
    /// The extension (`gives_check`: the opponent is now in check). Only while ply < 3 x iteration (CP1: 2 x; 3 x solves more
    /// WAC at the same nodes: 238 against 234 at 10 s, emulated; in host
    /// A/B games 2 x measured +0.21% +/- 0.25%, 130 of 5,942 games
    /// changed). Between 2 x and 3 x only the checks whose man cannot be
    /// won (swap-off after the move): +0.08% +/- 0.25%, 109 games changed,
    /// WAC 238, 92 bytes of flash: left out.
    /// Against a bare king no check is extended ([`Searcher::checks`]).
    /// At 880 nps (host engine, plies to mate lost a move by the tables;
    /// Stockfish defending, 40 positions on each of seeds 1 to 4; the
    /// tables, 200 on seeds 32 and 33) the two defences disagreed: every
    /// check extended, Stockfish 142 of 160 mated, 1.03 / 0.72 / 0.95 /
    /// 0.87, the tables 192 and 192, 0.50 / 0.44; no check extension,
    /// 151 of 160, 0.86 / 0.63 / 0.82 / 0.65, the tables 188 and 182,
    /// 0.58 / 0.60; checks were extended. At the image's speed of 1,330
    /// nps in KBNK (the same measures, 200 positions on each of seeds 18
    /// to 22 against the tables) the extended checks got worse as the
    /// speed grew, 971 of 1,000 mated at 1,170 nps, 943 at 1,330, and on
    /// seeds 18 and 19, 389 of 400 at 1,000 nps, 368 at 2,000; without
    /// them, 996 of 1,000 at 1,330 (0.42 / 0.45 / 0.45 / 0.46 / 0.45
    /// plies lost a move against 0.48 / 0.58 / 0.50 / 0.52 / 0.57), 392
    /// of 400 at 2,000, 389 at 1,000 (0.47 / 0.50 there against 0.40 /
    /// 0.46: extended checks still paid at 1,000); Stockfish defending on
    /// seed 1, 40 of 40 mated, 0.69, against 34, 0.91; KQK 200 of 200
    /// either way, 0.35 / 0.33 against 0.51 / 0.52, KRK 0.35 / 0.31
    /// against 0.36 / 0.36.
    #[cfg(not(target_arch = "avr"))]
    #[inline(never)]
    fn child_info(&self, m: Move, nf: u8, extra: u8, ply: u8) -> u16 {
        let to = m.to();
        // The side now to move is the one threatened.
        let black = self.pos.side_to_move() == Color::Black;
        let pawn = kind_of(self.pos.code_on(to)) == PAWN;
        let r = rank_of(to);
        // The rank counted from the mover's side (6: the 7th).
        let rr = if black { r } else { 7 - r };
        let mut f = (nf & NULL_LINE) | (nf & N_IN_CHECK) << 1;
        let king = self.pos.king_square(self.pos.side_to_move());
        if eval::manhattan(to, king) <= 4 {
            f |= PREV_THREAT;
            if eval::distance(to, king) <= 2 {
                f |= NEAR_KING;
            }
        } else if pawn && rr >= 5 {
            f |= PREV_THREAT;
        }
        let ext: u8 = if ply >= self.ext_limit {
            0
        } else if extra & CI_GIVES_CHECK != 0 {
            // Every check, the sacrifices too: leaving out the quiet checks
            // that lose the man measured +0.7% +/- 0.9% in host games (not
            // shown) but solved 228 of WAC at 10 s against 238.
            1
        } else if extra & CI_PAWN_ENDING != 0 {
            2
        } else if pawn && rr == 6 {
            1 // pawn to the 7th
        } else {
            0
        };
        (ext as u16) << 8 | f as u16
    }

    /// [`Searcher::child_info`] on the AVR: the squares, the man and the
    /// side read in Rust, the distances, flags and extension in assembly
    /// (the compiler widened the differences and tested each outcome apart).
    /// The answer built in one register pair (the flags its low byte, the
    /// extension its high: the compiler's `hi << 8 | lo` took 8 cycles)
    /// and the ply compared with the limit in the assembly (not a flag
    /// made first): `bench engine` 0.14% fewer cycles, 24 B smaller.
    #[cfg(target_arch = "avr")]
    #[inline(never)]
    fn child_info(&self, m: Move, nf: u8, extra: u8, ply: u8) -> u16 {
        let to = m.to();
        let side = self.pos.side_to_move();
        let king = self.pos.king_square(side);
        let code = self.pos.code_on(to);
        let lim = self.ext_limit;
        let info: u16;
        // SAFETY: registers only; r1 stays zero, no memory touched.
        unsafe {
            core::arch::asm!(
                // df = |file(to) - file(king)|, dr = |rank(to) - rank(king)|
                "mov  {df}, {to}",
                "andi {df}, 7",
                "mov  {t}, {king}",
                "andi {t}, 7",
                "sub  {df}, {t}",
                "brpl 1f",
                "neg  {df}",
                "1:",
                "mov  {rr}, {to}",
                "swap {rr}",
                "andi {rr}, 7",           // rr = rank(to)
                "mov  {dr}, {rr}",
                "swap {king}",
                "andi {king}, 7",
                "sub  {dr}, {king}",
                "brpl 2f",
                "neg  {dr}",
                "2:",
                // the rank from the mover's side: White moved (Black to move) as is
                "tst  {side}",
                "brne 3f",
                "subi {rr}, 7",
                "neg  {rr}",
                "3:",
                // NULL_LINE as is, N_IN_CHECK (2) as PREV_CHECK (4)
                "mov  {r:l}, {nf}",
                "andi {r:l}, {keep}",
                "sbrc {r:l}, 1",
                "subi {r:l}, 0xFE",
                "mov  {t}, {df}",
                "add  {t}, {dr}",
                "cpi  {t}, 5",
                "brsh 5f",                // manhattan > 4
                "ori  {r:l}, {threat}",
                "cpi  {df}, 3",
                "brsh 6f",
                "cpi  {dr}, 3",
                "brsh 6f",
                "ori  {r:l}, {near}",
                "rjmp 6f",
                // far from the king: a pawn on the mover's 6th or 7th
                "5:",
                "cpi  {code}, {wp}",
                "breq 4f",
                "cpi  {code}, {bp}",
                "brne 6f",
                "4:",
                "cpi  {rr}, 5",
                "brlo 6f",
                "ori  {r:l}, {threat}",
                // the extension: check 1, pawn ending 2, pawn to the 7th 1
                "6:",
                "ldi  {r:h}, 0",
                "cp   {ply}, {lim}",
                "brsh 9f",                // ply >= 3 * iteration
                "ldi  {r:h}, 1",
                "sbrc {extra}, 0",
                "rjmp 9f",
                "ldi  {r:h}, 2",
                "sbrc {extra}, 1",
                "rjmp 9f",
                "ldi  {r:h}, 0",
                "cpi  {rr}, 6",
                "brne 9f",
                "cpi  {code}, {wp}",
                "breq 8f",
                "cpi  {code}, {bp}",
                "brne 9f",
                "8:",
                "ldi  {r:h}, 1",
                "9:",
                to = in(reg) to,
                king = inout(reg_upper) king => _,
                side = in(reg) side as u8,
                code = in(reg_upper) code,
                nf = in(reg) nf,
                extra = in(reg) extra,
                ply = in(reg) ply,
                lim = in(reg) lim,
                df = out(reg_upper) _,
                dr = out(reg) _,
                rr = out(reg_upper) _,
                t = out(reg_upper) _,
                r = out(reg_iw) info,
                keep = const NULL_LINE | N_IN_CHECK,
                threat = const PREV_THREAT,
                near = const NEAR_KING,
                wp = const PAWN,
                bp = const PAWN + BLACK_OFFSET,
                options(pure, nomem, nostack),
            );
        }
        info
    }

    /// Empty squares next to the side to move's king that are not
    /// attacked (the king still on its square). Out of line: its loop
    /// inlined into [`Searcher::static_cut`] cost register saves on
    /// every call, or into `search` 0.11% more cycles for 36 B more.
    /// (Its scan ended at the second flight: 0.01% fewer cycles, 24 B
    /// more.)
    #[inline(never)]
    fn flights(&self) -> u8 {
        let us = self.pos.side_to_move();
        let k = self.pos.king_square(us);
        let mut n = 0;
        for r in 0..8u8 {
            let s = k.wrapping_add(eval::RAYS.get(r as usize) as u8);
            if on_board(s)
                && self.pos.piece_at(s) == EMPTY
                && !self.pos.is_square_attacked(s, us.other())
            {
                n += 1;
            }
        }
        n
    }

    /// Legal replies to check, counted up to two.
    #[inline(never)]
    fn count_replies(&self) -> u8 {
        let mut gen = MoveGen::new();
        let mut n = 0;
        while gen.next_legal(self.pos).is_some() {
            n += 1;
            if n > 1 {
                break;
            }
        }
        n
    }

    /// CP1's static pruning (two plies before the horizon) and null move
    /// (further away). Some(score) = cut this node. Called only where
    /// eval >= beta and no flag of [`PRUNE_BARS`] (static pruning) or
    /// [`NULL_BARS`] (null move) is set: [`Searcher::enter`] tests them
    /// (no call of [`Searcher::prune_null`] and its 18 register saves where
    /// they bar it; `bench engine` 0.02% fewer cycles, 8 B less).
    #[inline(always)]
    fn prune(&mut self, ply: u8, depth: i8, beta: i16, eval: i16, flags: u8) -> Option<i16> {
        if depth <= 2 {
            debug_assert!(flags & PRUNE_BARS == 0 && eval >= beta);
            self.static_cut(depth, beta, eval)
        } else {
            debug_assert!(flags & NULL_BARS == 0 && eval >= beta);
            self.prune_null(ply, depth, beta)
        }
    }

    /// [`Searcher::prune`]'s static pruning, apart from the null move
    /// ([`Searcher::prune_null`], out of line) and inlined into
    /// [`Searcher::search`], whose registers are saved and frame set up
    /// already (`hanging`'s answer goes there). Out of line it saved 9
    /// registers and set up a frame of its own: inlined, `bench engine`
    /// 257,225,976 -> 256,721,730 cycles (-0.20%), 84 B less. (The one
    /// `prune` before, with its 18 saves: 0.21% more cycles still.)
    #[inline(always)]
    fn static_cut(&mut self, depth: i8, beta: i16, eval: i16) -> Option<i16> {
        // (eval >= beta tested by the caller: enough while the margin is 0.)
        if self.e.pruning && (STATIC_MARGIN == 0 || eval - STATIC_MARGIN >= beta) && eval < MATE_BOUND {
            // (Handing these men on to the picker's hanging-men stage,
            // which scans for them again: the same nodes to depth 4 in
            // `bench engine`, 0.06% more cycles and 152 B more flash.)
            let loss = hanging(self.pos).max_loss;
            // Two plies before the horizon, not when our king has at
            // most one safe square: `hanging` sees no mate threat.
            // (WAC.055: after Qxg7+ Kxg7 Bf6+ Kf8, Black's node was
            // cut here and the quiet Rh4, Rh8 mate next, never seen.
            // Host engine, WAC at 6,000 / 12,000 nodes: 244 / 248 ->
            // 246 / 252; emulated at 10 s 246 -> 248 (055, 243, 262,
            // 299 gained, 208, 261 lost). `bench engine` 5.7% more
            // nodes to depth 4, 6.0% more cycles; host A/B, 3,000
            // paired games at 10 s against Stockfish `nodes=500` at
            // 606 and 604 nps: +1.78% +/- 1.80%. At both depths it
            // lost more to the extra nodes than it gained; one ply
            // before the horizon only, with no safe square: 246 /
            // 248 on the host.)
            if eval - loss - STATIC_MARGIN >= beta && (depth == 1 || self.flights() > 1) {
                return Some(eval - loss - STATIC_MARGIN);
            }
        }
        None
    }

    /// [`Searcher::prune`]'s null move. (Named `prune…`: the recursion
    /// bound of `assets/stack_recursion.txt` for the null move's
    /// search -> prune -> search counts frames of `SearchHost>>::prune`.)
    /// Its child through [`Searcher::child`]: at depth 3 or 4 the null
    /// move's child is a quiescence node, which `search` would only pass
    /// on to `q_entry` after its 18 register saves (`bench engine`
    /// 254,049,667 -> 253,969,669 cycles, -0.03%, +24 B; the root's
    /// children at depth 1 the same way, -0.01% more for 42 B: left out).
    #[inline(never)]
    fn prune_null(&mut self, ply: u8, depth: i8, beta: i16) -> Option<i16> {
        let us = self.pos.side_to_move().index();
        // Off against a bare king (`null_move`, set in `run`): the lone
        // king's threat is a quiet step that attacks two men, then the
        // capture, and the pass's reduced search (a quiescence node at
        // depth 4) sees neither. KBNK 8/8/8/8/8/B7/1N1k2K1/8 w (seed
        // 533): depth 6 played Kf3, and Kc2, Kb3 forked knight and
        // bishop; without the pass, Na4 at depth 6 (the start against
        // 171 tie streams of the tables: 171 mated, with the pass 0).
        // Host at 2,577 nodes/s, seeds 400 to 459 (12,000 starts): plies
        // lost a move 0.149 against 0.151 (paired over the seeds, -0.0024
        // +/- 0.0006), 11,999 mated against 12,000 (seed 447's
        // 1k6/8/8/2K5/6n1/8/8/3b4 b ran out of moves; that start against
        // 171 tie streams: 168 mated, with the pass 170). KQK and KRK
        // (seed 7, 200 each): 200/200 either way, 0.292 and 0.323 plies
        // lost a move against 0.292 and 0.322.
        if self.null_move && self.e.npm[us] != 0 && beta.abs() < MATE_BOUND {
            let undo = self.pos.make_null_move();
            let v = -self.child(ply + 1, depth - 4, -beta, -beta + 1, false, NULL_LINE | PREV_NULL);
            self.pos.unmake_null_move(&undo);
            if self.stopped {
                return Some(0);
            }
            if v >= beta {
                return Some(if v > MATE_BOUND { beta } else { v });
            }
            // (One more ply when passing gets us mated, a mate-threat
            // extension: host A/B -0.01% +/- 0.33%, 177 games changed;
            // WAC at 10 s 236 against 238. Left out.)
        }
        None
    }

    /// Everything a node does before its move loop: node count and polling,
    /// draws, mate-distance pruning, the single-reply extension, static
    /// evaluation, static pruning, null move, futility; then the node state
    /// goes to the ply array. Some(score) = the node is done. `iid`: the
    /// move internal iterative deepening found, first off the main line.
    /// Inlined into [`Searcher::search`], whose registers are saved
    /// already: out of line it saved 17 registers of its own and set up a
    /// frame on every node (about 90 cycles); inlined, `bench engine`
    /// 288,699,066 -> 287,090,873 cycles (-0.56%), 140 B less flash, the
    /// static stack bound 16 B less (`search`'s frame grew less than
    /// `enter`'s went away).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn enter(&mut self, ply: u8, depth: i8, alpha: i16, beta: i16, in_check: bool, flags: u8, iid: Move) -> Option<i16> {
        if self.tick_full() {
            return Some(0);
        }
        let p = ply as usize;
        if p < PV_LEN {
            self.e.pv_len[p] = 0;
        }
        // A repetition is at least 4 plies back: below that the history
        // is not asked (`HashHistory::count` would answer 0 after its call
        // and set-up, about 55 cycles). `bench engine` 253,969,669 ->
        // 253,081,635 cycles (-0.35%), +36 B; its positions come with the
        // clock at 0, so every node of the first 3 plies gains (in games
        // only those within 3 plies of a capture or pawn move).
        let halfmove = self.pos.halfmove_clock();
        if halfmove >= 4 && (halfmove >= 100 || self.pos.repetitions() > 0) {
            return Some(DRAW);
        }
        // (Bytes, as in qsearch.)
        if ply >= self.ply_cap {
            return Some(self.e.evaluate(self.pos, alpha, beta));
        }
        let p = slot(ply);
        // Mate-distance pruning.
        let mut alpha = alpha;
        let mut beta = beta;
        let mated = -MATE + ply as i16;
        if alpha < mated {
            alpha = mated;
        }
        if beta > -mated - 1 {
            beta = -mated - 1;
        }
        if alpha >= beta {
            return Some(alpha);
        }
        let pv_node = alpha + 1 < beta;
        let mut depth = depth;
        if in_check && ply < self.reply_limit {
            // Single reply to check: one more ply. (Up to 3 x the
            // iteration, as the check extension: WAC at 10 s, the host
            // engine at 567 nps, 232 against 233.)
            match self.count_replies() {
                0 => return Some(mated),
                1 => depth += 1,
                _ => {}
            }
        }
        let mut futile = false;
        if !in_check {
            // At a PV node the score is not used: a lower bound at the
            // top makes the evaluation's lazy exit answer where it may
            // (262 full evaluations of `bench engine` fewer, 230,545,144
            // -> 230,481,321 cycles, -0.03%, +32 B). (Not called there at
            // all: search's frame grew by 3 bytes and its move loop
            // spilled more, +0.14% cycles; nor from three plies before the
            // horizon where the null move is barred either, +0.06%.)
            let eval = self.e.evaluate(self.pos, if pv_node { i16::MAX } else { alpha }, beta);
            if !pv_node {
                // (Both of prune's cuts need eval >= beta and neither
                // follows a null move or a check (static pruning, not a
                // threat either): tested here, without prune's register
                // saves.)
                if eval >= beta && flags & if depth <= 2 { PRUNE_BARS } else { NULL_BARS } == 0 {
                    if let Some(v) = self.prune(ply, depth, beta, eval, flags) {
                        return Some(v);
                    }
                }
                // Not against a bare king: there the mating evaluation's
                // slope is a few tens of centipawns a move, and moves cut for
                // it went missing as the image got faster. `cargo xtask
                // endgames --host --host-nps 1510 --endings kbnk --defender
                // tablebase`, 200 positions a seed: seeds 18 to 24, 1,367 of
                // 1,400 mated with it, 1,396 without (seeds 19, 20, 22: 579
                // and 0.499 plies to mate lost a move against 597 and
                // 0.445); at 1,370 nps, seeds 19 and 22, 397 and 398; at
                // 1,700, 386 and 392. KQK and KRK 200 of 200 either way.
                // (At 880 nps it measured neutral: 582 against 577 on seeds
                // 18 to 20, 764 either way on seeds 21 to 24.)
                futile = self.e.pruning
                    && depth <= 2
                    && eval + FUTILITY[depth as usize] <= alpha
                    && !self.e.ctx.phase.bare_king();
            }
        }
        let main = if flags & FOLLOW_PV != 0 && p < self.e.main_len as usize {
            self.e.main_line[p]
        } else {
            iid
        };
        // (No hanging-men stage at futile nodes, whose quiet moves are
        // pruned but for the first: `bench engine` 0.59% fewer cycles to
        // depth 4; host A/B +0.25% +/- 0.64% over 1,000 games; WAC at
        // 10 s 237 against 238. Left out.)
        // (The hanging-men stage only from two plies before the horizon:
        // 8.7% more nodes to depth 7 on the host bench; WAC at 10 s, the
        // host engine at 567 nps, 225 against 233. Kept everywhere.)
        let n = at(&mut self.e.plies, p);
        n.picker.reset(main, true, false);
        if in_check {
            n.picker.evade(self.pos);
        }
        n.alpha = alpha;
        n.beta = beta;
        n.best = -INFINITE;
        n.depth = depth;
        n.legal = 0;
        n.flags = (flags & NULL_LINE)
            | if in_check { N_IN_CHECK } else { 0 }
            | if pv_node { N_PV } else { 0 }
            | if futile { N_FUTILE } else { 0 };
        None
    }

    /// A child of the move loop: the quiescence search straight away at
    /// the horizon, as [`Searcher::search`] would call it, without
    /// search's frame in between (its saves and frame set-up cost about
    /// 100 cycles a leaf).
    #[inline(always)]
    fn child(&mut self, ply: u8, depth: i8, alpha: i16, beta: i16, in_check: bool, flags: u8) -> i16 {
        if depth <= 0 {
            self.q_entry(ply, alpha, beta, in_check as u8 | Q_CHECKS)
        } else {
            self.search(ply, depth, alpha, beta, in_check, flags)
        }
    }

    fn search(&mut self, ply: u8, depth: i8, alpha: i16, beta: i16, in_check: bool, flags: u8) -> i16 {
        if depth <= 0 {
            // Quiet checks for either side to move. The root side's alone
            // solve as much of WAC (the defender's cost quiescence nodes),
            // but in games the defender's are worth their nodes: host A/B
            // as at LMP_MOVES, both sides against the root side only,
            // +1.9% +/- 1.2%, better at 95%; WAC probe 234 of 299 against
            // 235; `bench engine` ratio 0.986. Quiet checks at the second
            // quiescence ply too: +1.5% +/- 1.1% on a 575 nps clock, but
            // only +1.0% +/- 1.2% (not shown) on its own, 552 nps (2.6%
            // slower than this, 2.3% more nodes to depth 4): left out.
            // Quiet checks again after the evasion of a quiescence check
            // (once): -0.4% +/- 1.1%, 2.0% more nodes: left out.
            return self.q_entry(ply, alpha, beta, in_check as u8 | Q_CHECKS);
        }
        let p = ply as usize;
        // Internal iterative deepening: a PV node off the main line has no
        // move to try first (no transposition table); a search two plies
        // shallower finds one.
        let mut iid = Move::NONE;
        if depth >= IID_DEPTH && alpha + 1 < beta && flags & FOLLOW_PV == 0 && p < PV_LEN {
            self.ply_cap -= 1;
            let _ = self.search(ply, depth - 2, alpha, beta, in_check, flags);
            self.ply_cap += 1;
            if self.stopped {
                return 0;
            }
            if self.e.pv_len[p] > 0 {
                iid = self.e.pv[PV_ROWS.get(p) as usize];
            }
        }
        if let Some(v) = self.enter(ply, depth, alpha, beta, in_check, flags, iid) {
            return v;
        }
        // Past enter's ply limit.
        let p = slot(ply);
        // The move that leads on along the main line: none off it (then
        // each move is compared with NONE alone, not the flags read too:
        // `bench engine` 253,081,635 -> 252,929,779 cycles, -0.06%, +12 B).
        let main = if flags & FOLLOW_PV != 0 { at(&mut self.e.plies, p).picker.main() } else { Move::NONE };
        loop {
            let e = &mut *self.e;
            let Some((m, stage)) = at(&mut e.plies, p).picker.next(self.pos, &e.killers[p]) else {
                break;
            };
            let nf = at(&mut e.plies, p).flags;
            let in_check = nf & N_IN_CHECK != 0;
            // Legality first. (The pruning below moved before it, the
            // moves it pruned counted untested: with the futile nodes'
            // hanging-men stage left out, `bench engine` 0.79% fewer
            // cycles, but host A/B -3.45% +/- 2.13% over 1,000 games,
            // worse, and WAC at 10 s 234: probably the illegal king steps,
            // which the generator yields first, counting towards the
            // late-move thresholds. The other way, counting only the moves
            // searched and not the pruned ones: -0.80% +/- 1.90%.)
            if !self.pos.is_legal_given_check(m, in_check) {
                continue;
            }
            let n = at(&mut self.e.plies, p);
            n.legal += 1;
            // Both prunings below take only moves from the killers on,
            // after the first legal one, once a score above a mate was
            // found: tested first, once (the captures pass over the rest:
            // `bench engine` 252,569,639 -> 252,185,675 cycles, -0.15%, 52 B
            // less).
            if n.legal > 1 && stage >= Stage::Killer1 && n.best > -MATE_BOUND {
                // Futility and late-move pruning, decided before the move
                // is made: quiet moves (late-move pruning: the last stage
                // one ply before the horizon once LMP_MOVES legal moves
                // were tried), unless they give check or push a pawn to
                // the 7th.
                if (nf & N_FUTILE != 0
                    || n.depth == 1
                        && nf & (N_PV | N_IN_CHECK) == 0
                        && stage >= Stage::Quiets
                        && n.legal > LMP_MOVES
                        && !self.e.ctx.phase.bare_king())
                    && m.is_simple()
                    && !m.is_capture()
                    && !self.pos.gives_check(m)
                    && !self.pawn_to_seventh(m)
                {
                    // So will every later quiet move that neither checks nor
                    // reaches the 7th: the picker need not generate them.
                    at(&mut self.e.plies, p).picker.restrict_quiets();
                    continue;
                }
                // Swap-off pruning: near the horizon, a quiet move that loses
                // material by swap-off and gives no check is pruned. (Pruning
                // the losing captures too measured worse.)
                let n = at(&mut self.e.plies, p);
                if n.depth <= SEE_PRUNE_DEPTH
                    && nf & (N_PV | N_IN_CHECK) == 0
                    && stage <= Stage::Quiets
                    && self.e.pruning
                    && !m.is_promotion()
                    && see(self.pos, m) < 0
                    && !self.pos.gives_check(m)
                {
                    continue;
                }
            }
            let pawn_ending = self.make(ply, m, true);
            let gives_check = self.pos.in_check_after(m);
            let info = self.child_info(m, nf, gives_check as u8 & self.checks | (pawn_ending as u8) << 1, ply);
            let ext = (info >> 8) as i8;
            let quiet = !m.is_capture() && !m.is_promotion();
            let mut cf = info as u8;
            if m == main {
                cf |= FOLLOW_PV;
            }
            let n = at(&mut self.e.plies, p);
            let (alpha, beta, depth, legal) = (n.alpha, n.beta, n.depth, n.legal);
            let nd = depth - 1 + ext;
            // (These calls merged into one in a loop, as the root's:
            // `bench engine` 0.67% more cycles, 76 B less.)
            let mut v;
            if legal == 1 {
                v = -self.child(ply + 1, nd, -beta, -alpha, gives_check, cf);
            } else {
                // (Host A/B as for LMP_MOVES: reducing by 2 after 6 moves
                // from depth 4 measured -1.7% +/- 1.2%, worse at 95%;
                // after 12 moves from depth 6, -0.3% +/- 0.8%; no reduction
                // at PV nodes, -0.6% +/- 1.4%, WAC 236 against 238.
                // Over the first 1,000 games of that A/B: no reduction for
                // moves landing near the enemy king or pushing a pawn to
                // the 6th or 7th (PREV_THREAT), -2.1% +/- 3.0%, WAC 238;
                // none when the move gains 15 or more in piece-square
                // value, -1.9% +/- 3.2%; one more ply when it loses 15 or
                // more, +0.2% +/- 1.4%, 82 games changed. Left out.)
                // (One ply always, never 2: host engine, WAC at 6,000 /
                // 12,000 nodes 246 / 252 -> 247 / 253, but emulated at
                // 10 s the same 248; host A/B, 3,000 paired games at 10 s
                // against Stockfish `nodes=500` at 638 nps: -0.07% +/-
                // 1.08%; 8.8% more nodes to depth 6. Left out.)
                let r: i8 = if self.lmr
                    && depth >= 3
                    && stage >= Stage::Quiets
                    && !in_check
                    && !gives_check
                    && ext == 0
                    && legal > 3
                {
                    if legal > 8 && depth >= 5 {
                        2
                    } else {
                        1
                    }
                } else {
                    0
                };
                v = -self.child(ply + 1, nd - r, -alpha - 1, -alpha, gives_check, cf);
                if r > 0 && v > alpha && !self.stopped {
                    v = -self.search(ply + 1, nd, -alpha - 1, -alpha, gives_check, cf);
                }
                if nf & N_PV != 0 && v > alpha && v < beta && !self.stopped {
                    v = -self.child(ply + 1, nd, -beta, -alpha, gives_check, cf);
                }
            }
            self.unmake_in(ply, m);
            if self.stopped {
                return 0;
            }
            let r = self.improve(ply, m, v, stage, quiet);
            if r & IMPROVE_PV != 0 {
                self.update_pv(p, m, nd > 0);
            }
            if r & IMPROVE_CUT != 0 {
                break;
            }
        }
        let n = at(&mut self.e.plies, p);
        if n.legal == 0 {
            return if n.flags & N_IN_CHECK != 0 { -MATE + ply as i16 } else { DRAW };
        }
        n.best
    }

    /// A child of ply `p` returned `v` for `m`: new best, killers.
    /// [`IMPROVE_CUT`] on a beta cut-off, [`IMPROVE_PV`] when the caller
    /// is to copy the line ([`Searcher::update_pv`]). Inlined into
    /// [`Searcher::search`] (once `enter` was inlined there too): out of
    /// line it saved 4 registers of its own, and `search` kept the move's
    /// values across the call; `bench engine` 287,090,873 -> 285,618,885
    /// cycles (-0.51%), 68 B less flash.
    #[inline(always)]
    fn improve(&mut self, p: u8, m: Move, v: i16, stage: Stage, quiet: bool) -> u8 {
        let p = slot(p);
        let n = at(&mut self.e.plies, p);
        if v <= n.best {
            return 0;
        }
        n.best = v;
        if v <= n.alpha {
            return 0;
        }
        n.alpha = v;
        let cut = v >= n.beta;
        let pv = if n.flags & N_PV != 0 { IMPROVE_PV } else { 0 };
        if cut && quiet && !m.is(MoveKind::Castle) && stage != Stage::MainLine {
            let k = &mut self.e.killers[p];
            if k[0] != m {
                k[1] = k[0];
                k[0] = m;
            }
        }
        pv | cut as u8
    }

    /// The head of a quiescence node (node count, ply limit, standing
    /// pat), then [`Searcher::qsearch`] for its moves. `mode`:
    /// [`Q_IN_CHECK`] (the side to move is in check: all evasions, no
    /// standing pat), [`Q_CHECKS`] (the first ply after the horizon: quiet
    /// checks too).
    ///
    /// Inlined into `qsearch`'s loop, whose registers are saved already:
    /// only a node that goes on to its moves calls `qsearch` and pays its
    /// 18 saved registers and frame (about 95 cycles). Nearly half the
    /// quiescence nodes of `bench engine` end on the standing pat (16,862
    /// of 36,102). The full-width nodes call it out of line
    /// ([`Searcher::q_entry`], 7 registers saved). `bench engine`
    /// 290,763,041 -> 289,891,120 cycles (-0.30%), +228 B. (The head
    /// inlined into `search`'s three calls of [`Searcher::child`] too:
    /// -0.28%, +784 B, `search` short of registers around it; those calls
    /// merged into one in a loop, the head inlined there: +0.10% against
    /// the base.)
    #[inline(always)]
    fn q_head(&mut self, ply: u8, alpha: i16, beta: i16, mode: u8) -> i16 {
        if self.tick() {
            return 0;
        }
        // (The line's length is not cleared here: [`Searcher::update_pv`]
        // is told whether the child was a quiescence node, its line
        // empty. Cleared on every first quiescence ply, 17 cycles, for
        // the few hundred copies: `bench engine` 216,456,519 ->
        // 216,216,200 cycles, -0.11%, 44 B less.)
        if ply > self.seldepth {
            self.seldepth = ply;
        }
        // (Bytes: both are below MAX_PLY.)
        if ply >= self.ply_cap {
            return self.e.evaluate(self.pos, alpha, beta);
        }
        let stand = if mode & Q_IN_CHECK != 0 {
            -INFINITE
        } else {
            // (Standing pat less half the largest loss the opponent
            // threatens, `hanging`: WAC at 10 s, the host engine at 567
            // nps, 219 against 233.)
            let stand = self.e.evaluate(self.pos, alpha, beta);
            if stand >= beta {
                return stand;
            }
            stand
        };
        self.qsearch(ply, alpha, beta, mode, stand)
    }

    /// [`Searcher::q_head`] out of line, for the full-width nodes
    /// ([`Searcher::child`]; [`Searcher::search`] at the horizon, the null
    /// move's child). (Not named `qsearch…`: `assets/stack_recursion.txt`
    /// bounds the recursion of `qsearch`, which this does not take part in.)
    #[inline(never)]
    fn q_entry(&mut self, ply: u8, alpha: i16, beta: i16, mode: u8) -> i16 {
        self.q_head(ply, alpha, beta, mode)
    }

    /// The moves of a quiescence node past its head ([`Searcher::q_head`]):
    /// `stand` its standing pat, below beta (-INFINITE in check).
    /// (No longer `optimize(speed)`, which the lib's comment tells of:
    /// with the head inlined and `make` too, `bench engine` 280,922,519 ->
    /// 280,874,571 cycles without it, 4 B less.)
    #[inline(never)]
    fn qsearch(&mut self, ply: u8, alpha: i16, beta: i16, mode: u8, stand: i16) -> i16 {
        let in_check = mode & Q_IN_CHECK != 0;
        let p = slot(ply);
        let mut alpha = alpha;
        let mut best;
        // Whether the search's delta test may prune a capture of the
        // capture stages: those [`Picker::prune_victims`] left would all
        // pass it until alpha rises (or where only a mate reaches alpha,
        // as then every victim is kept). (Never in check.) (Dropping the
        // picker's pending victims the test would prune, each time alpha
        // rose: in `bench engine` alpha seldom rose that far, the calls took
        // 5,679 cycles in all and saved 4 capture scans, the loop's added
        // code cost 0.10% more cycles.)
        let mut delta_on;
        if in_check {
            best = -INFINITE;
            delta_on = false;
            let picker = &mut at(&mut self.e.plies, p).picker;
            picker.reset(Move::NONE, false, false);
            picker.evade(self.pos);
        } else {
            if stand > alpha {
                alpha = stand;
            }
            best = stand;
            // alpha.saturating_sub(stand).saturating_sub(DELTA), alpha >=
            // stand: the difference is exact as a u16, only the clamp to
            // i16::MAX is left (the two calls took 26 cycles a node).
            let d = (alpha as u16).wrapping_sub(stand as u16);
            let floor = if d > i16::MAX as u16 { i16::MAX } else { d as i16 } - DELTA;
            delta_on = alpha > MATE_BOUND;
            // (Reset and pruned in one, in line: the reset out of line
            // stored the fields the prune stored again, and the prune
            // tested the stage just set: `bench engine` 217,232,425 ->
            // 216,696,432 cycles, -0.25%, 12 B less.)
            let picker = &mut at(&mut self.e.plies, p).picker;
            picker.reset_quiescence(self.pos, floor, delta_on);
            // No victim kept, nothing to promote or take en passant, no
            // quiet checks: no move, the standing pat stands, without the
            // picker's call through its empty stages (1,711 nodes of
            // `bench engine`): 216,696,432 -> 216,456,519 cycles (-0.11%),
            // +68 B. (Q_CHECKS tested first: -0.06%.)
            if picker.quiescence_empty(self.pos) && mode & Q_CHECKS == 0 {
                return best;
            }
            if mode & Q_CHECKS != 0 {
                // Quiet checks after the captures, however far below alpha
                // the standing pat is: they are searched for mates.
                picker.allow_checks();
            }
        }
        loop {
            let e = &mut *self.e;
            let Some((m, stage)) = at(&mut e.plies, p).picker.next(self.pos, &NO_KILLERS) else {
                break;
            };
            if !in_check && (delta_on || stage == Stage::EnPassant) && !m.is_promotion() && stage != Stage::Checks {
                // Delta pruning: even winning the victim cannot reach alpha.
                // (Not for quiet checks, played for mate, nor, where only a
                // mate reaches alpha, for a capture that gives check:
                // `Picker::prune_victims`.)
                let victim = kind_of(self.pos.code_on(victim_square(m)));
                if stand + VALUE.get(victim as usize) + DELTA <= alpha
                    && (alpha <= MATE_BOUND || !self.pos.gives_check(m))
                {
                    continue;
                }
            }
            if !self.pos.is_legal_given_check(m, in_check) {
                continue;
            }
            self.make(ply, m, in_check);
            let gives_check = self.pos.in_check_after(m);
            debug_assert!(stage != Stage::Checks || gives_check);
            let v = -self.q_head(ply + 1, -beta, -alpha, gives_check as u8);
            self.unmake(ply, m);
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                    delta_on = true;
                }
            }
        }
        // In check, no legal move (any other leaves best above -INFINITE:
        // a child's score is a mate score at worst).
        if best == -INFINITE {
            return -MATE + ply as i16;
        }
        best
    }
}

/// The move's high byte, through an empty assembly block:
/// the compiler cannot fold the byte's tests back into 16-bit masks of
/// the move (its `andi`, `andi`, `cp`, `cpc`, 7 cycles to a branch with
/// the `rjmp`), and tests the byte's bit (`sbrs`).
#[inline(always)]
fn move_hi(m: Move) -> u8 {
    let b = (m.0 >> 8) as u8;
    #[cfg(target_arch = "avr")]
    {
        let o: u8;
        // SAFETY: no instruction; the byte passes through its register.
        unsafe { core::arch::asm!("; {0}", inout(reg) b => o, options(pure, nomem, nostack)) };
        o
    }
    #[cfg(not(target_arch = "avr"))]
    b
}

/// [`Move::is_promotion`] by [`move_hi`], for [`Searcher::unmake`] and
/// [`Searcher::unmake_in`]: `bench engine` 216,216,200 -> 216,000,416
/// cycles (-0.10%), 20 B less. (Elsewhere it cost: in qsearch's delta
/// test +0.24%, for search's quiet flag +0.17%, everywhere +0.5%; only
/// in `unmake` +0.07%; [`Move::is_simple`] so in `make` +0.06%.)
#[inline(always)]
fn promotes(m: Move) -> bool {
    move_hi(m) & (0x0800u16 >> 8) as u8 != 0
}

/// The material counts after the man `vcode` was taken on `sq`; its
/// piece-square value there. (The value here too: one call less in
/// [`Searcher::make`]'s three inlined copies.) Whether it was an officer
/// the caller tells from `vcode`: with nothing kept across its call of
/// [`EvalCtx::psq`] this saves no register and ends in a tail jump
/// (`bench engine` 229,945,127 -> 229,657,117 cycles, -0.13%, +60 B).
/// (A pawn told by its code, the kind taken only for an officer's
/// units; with [`Searcher::unmake`]'s the same way, `bench engine`
/// 252,089,506 -> 251,985,608 cycles, -0.04%, +16 B.
/// A table of the units by code instead of the kind: -0.12%, but the
/// code after it moved `App::key` to 0x2000, whose word address a
/// constant of `App::search` loads: `cargo xtask ram` counted it a
/// pointer and its bound grew by 291 B.)
#[inline(never)]
fn taken(e: &mut Engine, vcode: u8, sq: Square) -> i16 {
    let them = (vcode > BLACK_OFFSET) as usize;
    let officer = vcode != PAWN && vcode != PAWN + BLACK_OFFSET;
    if officer {
        let k = if them != 0 { vcode - BLACK_OFFSET } else { vcode };
        e.npm[them] -= NPM_UNITS.get(k as usize);
    } else {
        e.pawns[them] -= 1;
    }
    e.ctx.psq(vcode, sq)
}

/// [`Searcher::make`]'s score change and material counts for castling, en
/// passant and promotions (captures among them too); true if an officer
/// was taken.
#[inline(never)]
fn special_delta(e: &mut Engine, pos: &Position, m: Move) -> (i16, bool) {
    let us = pos.side_to_move().index();
    let from = m.from();
    let to = m.to();
    let code = pos.code_on(from);
    let mut d = -e.ctx.psq(code, from);
    let mut officer_taken = false;
    if m.is_capture() {
        let vsq = victim_square(m);
        let vcode = pos.code_on(vsq);
        d -= taken(e, vcode, vsq);
        officer_taken = vcode != PAWN && vcode != PAWN + BLACK_OFFSET;
    }
    if m.is_promotion() {
        let p = m.promotion();
        d += e.ctx.psq(code - PAWN + p, to);
        e.pawns[us] -= 1;
        e.npm[us] += NPM_UNITS.get(p as usize);
    } else {
        d += e.ctx.psq(code, to);
    }
    if m.is(MoveKind::Castle) {
        let (rf, rt) = if to > from { (from + 3, from + 1) } else { (from - 4, from - 1) };
        let rook = pos.code_on(rf);
        d += e.ctx.psq(rook, rt) - e.ctx.psq(rook, rf);
    }
    (d, officer_taken)
}

/// [`Searcher::unmake`]'s material counts after taking back a capture:
/// the victim `c` (its board byte) back to `them` (the side to move
/// before the take-back, 0 or 1). On the AVR by assembly with three
/// scratch registers, so that the out-of-line `unmake` keeps nothing in
/// saved ones.
#[inline(always)]
fn restore_captured(e: &mut Engine, c: u8, them: u8) {
    #[cfg(target_arch = "avr")]
    // SAFETY: adds to `e.pawns[them]` or `e.npm[them]` (them 0 or
    // 1), reads NPM_UNITS in flash; r1 stays zero.
    unsafe {
        use core::mem::offset_of;
        core::arch::asm!(
            "andi {c}, {mask}",
            "cpi  {c}, {wp}",
            "breq 1f",
            "cpi  {c}, {bp}",
            "breq 1f",
            // an officer: its kind, its units
            "cpi  {c}, {bo} + 1",
            "brlo 2f",
            "subi {c}, {bo}",
            "2:",
            "ldi  r30, lo8({units})",
            "ldi  r31, hi8({units})",
            "add  r30, {c}",
            "adc  r31, r1",
            "lpm  {c}, Z",
            "movw r30, {e}",
            "subi r30, lo8(-({npm}))",
            "sbci r31, hi8(-({npm}))",
            "rjmp 3f",
            "1:",
            "ldi  {c}, 1",
            "movw r30, {e}",
            "subi r30, lo8(-({pawns}))",
            "sbci r31, hi8(-({pawns}))",
            "3:",
            "add  r30, {them}",
            "adc  r31, r1",
            "ld   r0, Z",
            "add  r0, {c}",
            "st   Z, r0",
            e = in(reg_pair) e as *mut Engine,
            c = inout(reg_upper) c => _,
            them = in(reg) them,
            mask = const CODE_MASK,
            wp = const PAWN,
            bp = const PAWN + BLACK_OFFSET,
            bo = const BLACK_OFFSET,
            units = sym NPM_UNITS,
            npm = const offset_of!(Engine, npm),
            pawns = const offset_of!(Engine, pawns),
            out("r30") _,
            out("r31") _,
            options(nostack),
        );
    }
    #[cfg(not(target_arch = "avr"))]
    {
        let c = c & CODE_MASK;
        if c == PAWN || c == PAWN + BLACK_OFFSET {
            e.pawns[(them & 1) as usize] += 1;
        } else {
            e.npm[(them & 1) as usize] += NPM_UNITS.get(kind_of(c) as usize);
        }
    }
}

/// [`Searcher::unmake`]'s material counts after taking back promotion
/// `m`: the pawn back to the mover (`them ^ 1`), the piece's units off.
#[inline(always)]
fn restore_promoted(e: &mut Engine, m: Move, them: u8) {
    #[cfg(target_arch = "avr")]
    // SAFETY: `e.npm[us]` less the promoted piece's units (read in
    // flash), `e.pawns[us]` one more (us 0 or 1); r1 stays zero.
    unsafe {
        use core::mem::offset_of;
        const NPM: usize = offset_of!(Engine, npm);
        const PAWNS: usize = offset_of!(Engine, pawns);
        const { assert!(PAWNS > NPM && PAWNS - NPM < 64) };
        core::arch::asm!(
            // the piece: ((lo >> 3) & 1 | (lo >> 6) & 2) + KNIGHT
            "ldi  {t}, {knight}",
            "sbrc {lo}, 3",
            "subi {t}, 0xFF",
            "sbrc {lo}, 7",
            "subi {t}, 0xFE",
            "ldi  r30, lo8({units})",
            "ldi  r31, hi8({units})",
            "add  r30, {t}",
            "adc  r31, r1",
            "lpm  {t}, Z",
            "movw r30, {e}",
            "subi r30, lo8(-({npm}))",
            "sbci r31, hi8(-({npm}))",
            "add  r30, {us}",
            "adc  r31, r1",
            "ld   r0, Z",
            "sub  r0, {t}",
            "st   Z, r0",
            "ldd  r0, Z+{pd}",
            "inc  r0",
            "std  Z+{pd}, r0",
            e = in(reg_pair) e as *mut Engine,
            lo = in(reg) m.0 as u8,
            us = in(reg) them ^ 1,
            t = out(reg_upper) _,
            knight = const KNIGHT,
            units = sym NPM_UNITS,
            npm = const NPM,
            pd = const PAWNS - NPM,
            out("r30") _,
            out("r31") _,
            options(nostack),
        );
    }
    #[cfg(not(target_arch = "avr"))]
    {
        e.pawns[(them ^ 1) as usize & 1] += 1;
        e.npm[(them ^ 1) as usize & 1] -= NPM_UNITS.get(m.promotion() as usize);
    }
}

const NO_KILLERS: [Move; 2] = [Move::NONE; 2];

/// The index of ply `p`'s slot in the ply array (make, unmake, improve;
/// enter, search and qsearch past their ply limit): below [`MAX_PLY`], as
/// search and qsearch make no move once ply >= `Searcher::ply_cap` =
/// MAX_PLY - 1 - nest (nest: the IID searches on the stack, as
/// `assets/stack_recursion.txt` counts them; the root is ply 0), which
/// the compiler cannot see: without this, a bounds
/// test and a panic call for each access.
#[inline(always)]
fn slot(p: u8) -> usize {
    debug_assert!((p as usize) < MAX_PLY);
    // SAFETY: every caller passes the ply of a node past its ply limit
    // (it may make moves), at most MAX_PLY - 2 (`Searcher::enter`,
    // `Searcher::qsearch`).
    unsafe { core::hint::assert_unchecked((p as usize) < MAX_PLY) };
    p as usize
}

/// `&mut plies[p]` for a `p` from [`slot`]. On the AVR its address by one
/// `mul`: the compiler built the 16-bit product of the 37-byte stride in a
/// dozen instructions.
#[inline(always)]
fn at(plies: &mut [PlyState; MAX_PLY], p: usize) -> &mut PlyState {
    #[cfg(target_arch = "avr")]
    {
        const STRIDE: usize = core::mem::size_of::<PlyState>();
        const { assert!(STRIDE < 256) };
        let off: u16;
        // SAFETY: registers only (r1 cleared again); the offset is that of
        // slot `p` < MAX_PLY, inside the array.
        unsafe {
            core::arch::asm!(
                "mul  {p}, {k}",
                "movw {off:l}, r0",
                "clr  r1",
                p = in(reg) p as u8,
                k = in(reg) STRIDE as u8,
                off = out(reg_pair) off,
                options(pure, nomem, nostack),
            );
            &mut *plies.as_mut_ptr().cast::<u8>().add(off as usize).cast::<PlyState>()
        }
    }
    #[cfg(not(target_arch = "avr"))]
    &mut plies[p]
}

crate::progmem! {
    /// [`pv_offset`] of each ply: a table read instead of a multiplication.
    static PV_ROWS: [u8; PV_LEN] = {
        let mut t = [0u8; PV_LEN];
        let mut p = 0;
        while p < PV_LEN {
            t[p] = pv_offset(p) as u8;
            p += 1;
        }
        t
    };
}

#[cfg(test)]
mod tests {
    use super::super::picker::Picker;
    use super::*;

    /// KBNK's cap ([`kbnk_cap`]): 7 on an edge at corner slope 0, 5 or 7
    /// or a square in at slope 2, by either bishop, either strong side.
    #[test]
    fn kbnk_cap_by_the_lone_kings_place() {
        // Dark bishop (c1): the right corners a1 and h8.
        let cases = [
            ("k7/8/8/8/8/3K4/8/2BN4 w - - 0 1", 7), // a8: edge, slope 0 (the wrong corner)
            ("7k/8/8/8/8/3K4/8/2BN4 w - - 0 1", 7), // h8: edge, slope 7
            ("8/8/8/8/k7/3K4/8/2BN4 w - - 0 1", 6), // a4: edge, slope 4
            ("8/8/7k/8/8/3K4/1B6/3N4 w - - 0 1", 7), // h6: edge, slope 5
            ("8/8/8/8/8/3K4/8/2BNk3 w - - 0 1", 6), // e1: edge, slope 3
            ("8/8/8/8/8/3K4/8/2BN1k2 w - - 0 1", 6), // f1: edge, slope 2
            ("8/8/8/8/8/3K4/8/2BN2k1 w - - 0 1", 6), // g1: edge, slope 1
            ("8/1k6/8/8/8/3K4/8/2BN4 w - - 0 1", 6), // b7: a square in, slope 0
            ("8/8/8/1k6/8/3K4/8/2BN4 w - - 0 1", 7), // b5: a square in, slope 2
            ("8/8/8/8/6k1/3K4/8/2BN4 w - - 0 1", 7), // g4: a square in, slope 2
            ("8/8/8/8/8/3K2k1/8/2BN4 w - - 0 1", 6), // g3: a square in, slope 1
            ("8/8/8/3k4/8/8/3K4/2BN4 w - - 0 1", 6), // d5: the centre, slope 0
            ("8/8/8/8/4k3/8/3K4/2BN4 w - - 0 1", 6), // e4: the centre, slope 0
            // Light bishop (f1): the right corners h1 and a8; black strong.
            ("8/8/8/8/8/3k4/8/K4bn1 b - - 0 1", 7), // a1: edge, slope 0
            ("8/8/8/8/8/3k4/8/4Kbn1 b - - 0 1", 6), // e1: edge, slope 4
            ("8/8/8/8/8/3k4/1K6/5bn1 b - - 0 1", 6), // b2: a square in, slope 0
            ("8/8/8/8/4k3/8/2K5/5bn1 b - - 0 1", 6), // c2: a square in, slope 1
            ("8/8/8/8/1K6/3k4/8/5bn1 b - - 0 1", 7), // b4: a square in, slope 2
        ];
        for (fen, cap) in cases {
            let p = Position::from_fen(fen.as_bytes()).expect(fen);
            let strong = p.side_to_move();
            assert_eq!(kbnk_cap(super::super::kbnk_book::probe(&p, strong).1), cap, "{fen}");
        }
    }

    /// [`kbnk_cap`] on the book's view agrees with the cap worked out on
    /// the real board (edge ring and [`corner_slope`](super::super::eval::corner_slope)
    /// by the bishop's colour) for every square of the lone king, either
    /// bishop, either strong side, either side to move.
    #[test]
    fn kbnk_cap_on_the_books_view_matches_the_real_board() {
        use super::super::eval::corner_slope;
        let reference = |wk: Square, b: Square| {
            let (f, r) = (wk & 7, wk >> 4);
            let edge = |x: u8| if x > 3 { 7 - x } else { x };
            let deeper = match edge(f).min(edge(r)) {
                0 => 0b1010_0001u8,
                1 => 0b0000_0100,
                _ => 0,
            };
            6 + (deeper >> corner_slope(wk, square_colour(b) * 7) & 1)
        };
        let mut checked = 0;
        for lone in (0..128u8).filter(|s| s & 0x88 == 0) {
            for (k, b, n) in [(0x33u8, 0x02u8, 0x03u8), (0x44, 0x05, 0x06), (0x35, 0x72, 0x76)] {
                if [k, b, n].contains(&lone) || (lone & 7).abs_diff(k & 7) <= 1 && (lone >> 4).abs_diff(k >> 4) <= 1 {
                    continue;
                }
                for strong in [Color::White, Color::Black] {
                    for to_move in [strong, strong.other()] {
                        let case = |c: u8| if strong == Color::White { c.to_ascii_uppercase() } else { c };
                        let men = [(lone, if strong == Color::White { b'k' } else { b'K' }), (k, case(b'k')), (b, case(b'b')), (n, case(b'n'))];
                        let fen = fen_of(&men, to_move);
                        let Ok(p) = Position::from_fen(fen.as_bytes()) else { continue };
                        let (_, view) = super::super::kbnk_book::probe(&p, strong);
                        assert_eq!(kbnk_cap(view), reference(lone, b), "{fen}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 500, "{checked}");
    }
    extern crate std;
    use std::vec::Vec;

    /// The FEN of `men` (0x88 square, FEN letter) alone on the board,
    /// `to_move` to move.
    fn fen_of(men: &[(Square, u8)], to_move: Color) -> std::string::String {
        let mut board = [b'1'; 64];
        for &(sq, c) in men {
            board[(7 - (sq >> 4)) as usize * 8 + (sq & 7) as usize] = c;
        }
        let rows: Vec<&str> = board.chunks(8).map(|r| core::str::from_utf8(r).unwrap()).collect();
        rows.join("/") + if to_move == Color::White { " w - - 0 1" } else { " b - - 0 1" }
    }

    /// KBNK's book answers on the clock at once, and only there: a depth
    /// asked for, analysis and pondering search. (The book's first entry,
    /// its position rebuilt from the key: white strong, to move.)
    #[test]
    fn kbnk_book_answers_on_the_clock_only() {
        let e0 = super::super::kbnk_book::entries()[0];
        let (key, _, _) = super::super::kbnk_book::split(e0);
        let men: Vec<(Square, u8)> = key.iter().map(|&sq| sq >> 3 << 4 | sq & 7).zip([b'k', b'K', b'B', b'N']).collect();
        let fen = fen_of(&men, Color::White);
        let mut p = Position::from_fen(fen.as_bytes()).unwrap();
        let book = super::super::kbnk_book::probe(&p, Color::White).0;
        assert!(!book.is_none(), "{fen}");
        let mut e = Engine::new();
        let r = e.search(&mut p, &SearchLimits::movetime(10_000), &mut Host);
        assert_eq!((r.best, r.depth, r.nodes), (book, 0, 0), "{fen}");
        let r = e.search(&mut p, &SearchLimits::depth(3), &mut Host);
        assert!(r.depth == 3 && r.nodes > 0, "{fen}");
        let mut ponder = SearchLimits::movetime(10_000);
        ponder.ponder = true;
        struct Stop;
        impl SearchHost for Stop {
            fn now_ms(&mut self) -> u32 {
                0
            }
            fn stop_requested(&mut self) -> bool {
                true
            }
        }
        let r = e.search(&mut p, &ponder, &mut Stop);
        assert!(r.nodes > 0, "pondering searched: {fen}");
    }

    /// The bench's positions (`assets/bench_positions.epd`) as FENs.
    fn bench_fens() -> Vec<std::string::String> {
        include_str!("../../../assets/bench_positions.epd")
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.split(' ').take(4).collect::<Vec<_>>().join(" ") + " 0 1")
            .collect()
    }

    /// `probe` on each of `fens`' positions and on each of their children.
    fn for_each_position_and_child(fens: &[std::string::String], probe: &mut impl FnMut(&Position)) {
        for fen in fens {
            let mut p = Position::from_fen(fen.as_bytes()).unwrap();
            probe(&p);
            let in_check = p.in_check();
            let mut gen = MoveGen::new();
            while let Some(m) = gen.next(&p) {
                if !p.is_legal_given_check(m, in_check) {
                    continue;
                }
                let u = p.make_move(m);
                probe(&p);
                p.unmake_move(m, &u);
            }
        }
    }

    struct Host;

    impl SearchHost for Host {
        fn now_ms(&mut self) -> u32 {
            0
        }
        fn stop_requested(&mut self) -> bool {
            false
        }
    }

    /// [`Searcher::qsearch`]'s early exit: where
    /// [`Picker::quiescence_empty`](super::super::picker::Picker::quiescence_empty)
    /// answers true after [`Picker::reset_quiescence`](super::super::picker::Picker::reset_quiescence),
    /// the picker yields no move (the bench positions and their children,
    /// a few with a pawn on the 7th or an en-passant square; every floor).
    #[test]
    fn quiescence_empty_yields_nothing() {
        let mut fens = bench_fens();
        fens.push("4k3/1P6/8/3pP3/8/8/8/4K3 w - d6 0 1".into());
        fens.push("4k3/8/8/8/3pP3/8/6p1/4K3 b - e3 0 1".into());
        fens.push("4k3/p7/8/8/8/8/7P/4K3 w - - 0 1".into());
        fens.push("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1".into());
        fens.push("7k/8/8/8/8/8/6p1/4K3 b - - 0 1".into());
        fens.push("4k3/p7/8/8/8/8/6PP/4K1N1 b - - 0 1".into());
        let (mut empty, mut moves) = (0u32, 0u32);
        let mut probe = |p: &Position| {
            if p.in_check() {
                return;
            }
            for floor in [i16::MIN, -400, 0, 99, 100, 250, 330, 500, 900, 1000, i16::MAX - DELTA] {
                for mating in [false, true] {
                    let mut pk = Picker::quiescence();
                    pk.reset_quiescence(p, floor, mating);
                    if pk.quiescence_empty(p) {
                        empty += 1;
                        assert!(pk.next(p, &NO_KILLERS).is_none(), "floor {floor}");
                    } else if pk.next(p, &NO_KILLERS).is_some() {
                        moves += 1;
                    }
                }
            }
        };
        for_each_position_and_child(&fens, &mut probe);
        assert!(empty > 100 && moves > 100, "{empty} {moves}");
    }

    /// [`Searcher::root`]'s first pass, its picker restricted from the
    /// hanging-men stage on, finds the same moves to search (the main
    /// line move, the captures, the capturing under-promotions among
    /// them), in the same order, as unrestricted: the bench positions and
    /// a few with a pawn on the 7th, and their children, each with no
    /// main line move and with a quiet one, with killers and without.
    #[test]
    fn root_first_pass_restriction_keeps_its_moves() {
        let mut fens = bench_fens();
        fens.push("r3k2r/8/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1".into());
        fens.push("4k3/8/8/8/8/2n5/1P2q3/4K3 w - - 0 1".into());
        fens.push("r7/1P6/8/7k/8/8/8/4K3 w - - 0 1".into());
        fens.push("1r2k3/P1P5/8/8/8/8/8/4K3 w - - 0 1".into());
        fens.push("4k3/8/8/8/8/7K/p1p5/1N6 b - - 0 1".into());
        let walk = |p: &Position, main: Move, killers: &[Move; 2], restrict: bool| {
            let mut pk = Picker::new(main, true);
            pk.reset(main, true, false);
            let mut searched = Vec::new();
            while let Some((m, stage)) = pk.next(p, killers) {
                if !m.is_capture() && m != main {
                    if restrict && stage >= Stage::Hanging {
                        pk.restrict_quiets();
                    }
                    continue;
                }
                searched.push(m);
            }
            searched
        };
        let (mut restricted, mut captures, mut under) = (0u32, 0usize, 0usize);
        let mut probe = |p: &Position| {
            let mut quiets = Vec::new();
            let mut gen = MoveGen::new();
            while let Some(m) = gen.next(p) {
                if !m.is_capture() && p.is_legal_given_check(m, p.in_check()) {
                    quiets.push(m);
                }
            }
            let killers = [quiets.get(1).copied().unwrap_or(Move::NONE), quiets.get(2).copied().unwrap_or(Move::NONE)];
            for main in [Move::NONE, quiets.first().copied().unwrap_or(Move::NONE)] {
                for k in [NO_KILLERS, killers] {
                    let all = walk(p, main, &k, false);
                    restricted += 1;
                    captures += all.len();
                    under += all.iter().filter(|m| m.is_promotion() && m.0 as u8 & 0x88 != 0x88).count();
                    assert_eq!(walk(p, main, &k, true), all);
                }
            }
        };
        for_each_position_and_child(&fens, &mut probe);
        assert!(restricted > 1000 && captures > 1000 && under > 10, "{restricted} {captures} {under}");
    }

    /// The main line is a legal line from the root at every depth: a
    /// quiescence child's line (which [`Searcher::update_pv`] is told is
    /// empty, its row's length not cleared) copied from a stale row
    /// would break it.
    #[test]
    fn main_line_is_legal() {
        let mut long = 0;
        for fen in bench_fens() {
            for depth in 1..=5 {
                let mut p = Position::from_fen(fen.as_bytes()).unwrap();
                let mut e = Engine::new();
                let r = e.search(&mut p, &SearchLimits::depth(depth), &mut Host);
                let line = e.main_line();
                assert_eq!(line.first(), Some(&r.best));
                long += (line.len() >= depth as usize) as u32;
                for &m in line {
                    assert!(p.is_pseudo_legal(m) && p.is_legal_given_check(m, p.in_check()), "{fen} {depth}");
                    let _ = p.make_move(m);
                }
            }
        }
        assert!(long > 50, "{long}");
    }

    /// A perpetual check from a position with the halfmove clock at 0:
    /// the root comes back 4 plies down (Qe8+ Kh7 Qh5+ Kg8), where
    /// [`Searcher::enter`] first asks the history (below 4 it does not).
    #[test]
    fn perpetual_check_from_halfmove_zero() {
        let mut p = Position::from_fen(b"6k1/6p1/8/7Q/8/7K/r7/q7 w - - 0 1").unwrap();
        let mut e = Engine::new();
        let r = e.search(&mut p, &SearchLimits::depth(4), &mut Host);
        assert_eq!(r.score, DRAW);
        assert_eq!((r.best.from(), r.best.to()), (0x47, E8), "Qh5-e8+");
    }
}

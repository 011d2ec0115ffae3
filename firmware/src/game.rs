//! The game being played: the live position plus what the chess computer
//! remembers about it.
//!
//! * the position (`repr(C)` first field, so the debugger's chessboard panel
//!   finds the 0x88 board at the `CHESS_POSITION` symbol, see `main.rs`);
//! * the last [`TAKEBACK_PLIES`] moves with their [`Undo`] records (CP1:
//!   "take back up to three moves");
//! * the line played from the initial position while it is short enough to
//!   be in the opening book ([`LINE_PLIES`]);
//! * the user parameters: the computer's colour, the level (fixed time per
//!   move or a tournament time control), "Guess" (pondering);
//! * the two clocks of a tournament game.
//!
//! Everything is target-neutral and host-tested; RAM on the AVR is about
//! 700 bytes, most of it the position's hash history.

use crate::chess::piece::{Color, CODE_MASK};
use crate::chess::square::{from_index64, to_index64};
use crate::chess::{FenError, GameStatus, Move, MoveGen, Position, Undo, FEN_MAX_LEN, START_FEN};
use crate::engine::SearchLimits;
use core::mem::MaybeUninit;

/// Plies that can be taken back (three moves of each side).
pub const TAKEBACK_PLIES: usize = 6;
/// Plies of the game remembered for the opening book (the book's lines are
/// at most 24 plies deep).
pub const LINE_PLIES: usize = 24;
/// Whether the opening book is used (and linked into the image). On since
/// the code shrank enough for engine, rules, book and UI to fit the 64 KB of
/// flash with 1 KB to spare (see the size report of `cargo xtask firmware`).
pub const USE_BOOK: bool = true;

/// Fixed-time levels 0..=9 (see `engine::LEVEL_SECONDS`); this one is the
/// tournament time control of [`TimeControl`].
pub const LEVEL_TOURNAMENT: u8 = 10;
pub const LEVELS: u8 = 11;
/// Level of a new machine: 5 seconds per move.
pub const DEFAULT_LEVEL: u8 = 1;

/// Who the computer plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Opponent {
    /// The computer plays White.
    White = 0,
    /// The computer plays Black.
    Black = 1,
    /// Nobody: the user enters the moves of both sides (set by the serial
    /// protocol's position commands; the computer moves on `go` or Swap).
    None = 2,
}

impl Opponent {
    pub fn of(c: Color) -> Opponent {
        match c {
            Color::White => Opponent::White,
            Color::Black => Opponent::Black,
        }
    }
    #[inline(never)]
    pub fn plays(self, c: Color) -> bool {
        self as u8 == c as u8
    }
    fn from_u8(v: u8) -> Opponent {
        match v {
            0 => Opponent::White,
            1 => Opponent::Black,
            _ => Opponent::None,
        }
    }
}

/// A tournament time control: `moves` in `minutes` (0 moves = the whole
/// game), plus `increment` seconds per move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    pub moves: u8,
    pub minutes: u8,
    pub increment: u8,
}

impl TimeControl {
    /// 40 moves in 10 minutes, no increment.
    pub const DEFAULT: TimeControl = TimeControl { moves: 40, minutes: 10, increment: 0 };

    #[inline(never)]
    pub fn period_ms(&self) -> u32 {
        self.minutes as u32 * 60_000
    }
}

/// Why a saved game was not loaded (besides a bad EEPROM record).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// The record is intact but its contents make no sense.
    BadContents,
}

/// The game. `repr(C)` with the small fields first (the AVR reaches them
/// with one instruction) and the position last; `main.rs` exports the
/// position's address as `CHESS_POSITION` for the debugger.
#[repr(C)]
pub struct Game {
    pub computer: Opponent,
    /// 0..=9 fixed time per move, [`LEVEL_TOURNAMENT`] = `tc`.
    pub level: u8,
    /// Think on the opponent's time.
    pub guess: bool,
    pub tc: TimeControl,
    undo_head: u8,
    undo_len: u8,
    line_len: u8,
    /// The game started from the initial position and all its moves are in `line`.
    in_line: bool,
    /// Moves each side made since the clocks were set.
    made: [u16; 2],
    /// Remaining time of White and Black in a tournament game.
    pub clock_ms: [u32; 2],
    /// Ring of the last moves and their undo records, newest at `undo_head - 1`.
    undo_moves: [Move; TAKEBACK_PLIES],
    undos: MaybeUninit<[Undo; TAKEBACK_PLIES]>,
    /// The book keys ([`book_key`]) of the moves from the initial
    /// position, while `in_line`.
    line: [u8; LINE_PLIES],
    pub pos: Position,
}

impl Game {
    /// An empty game: call [`Game::new_game`] before use (const so it can be
    /// a static).
    pub const fn new() -> Game {
        Game {
            pos: Position::empty(),
            undo_moves: [Move::NONE; TAKEBACK_PLIES],
            undos: MaybeUninit::uninit(),
            undo_head: 0,
            undo_len: 0,
            line: [0; LINE_PLIES],
            line_len: 0,
            in_line: false,
            computer: Opponent::Black,
            level: DEFAULT_LEVEL,
            guess: false,
            tc: TimeControl::DEFAULT,
            clock_ms: [0; 2],
            made: [0; 2],
        }
    }

    /// An all-zero game, for a static in `.bss` (no flash copy of an
    /// initial value): call [`Game::init`] before use.
    pub const fn zeroed() -> Game {
        // SAFETY: every field is plain integers, bools, `Move`s and enums
        // whose discriminant 0 exists, so all-zero bytes are a valid `Game`.
        unsafe { MaybeUninit::zeroed().assume_init() }
    }

    /// Default settings and a new game.
    pub fn init(&mut self) {
        self.level = DEFAULT_LEVEL;
        self.guess = false;
        self.tc = TimeControl::DEFAULT;
        self.new_game();
    }

    /// A new game from the initial position; the computer plays Black and
    /// the settings (level, guess) are kept.
    #[inline(never)]
    pub fn new_game(&mut self) {
        // The start FEN is valid.
        let _ = self.pos.set_fen(START_FEN.as_bytes());
        self.forget_moves();
        self.in_line = true;
        self.computer = Opponent::Black;
        self.reset_clocks();
    }

    #[inline(never)]
    fn forget_moves(&mut self) {
        self.undo_len = 0;
        self.undo_head = 0;
        self.line_len = 0;
        self.in_line = false;
    }

    /// Sets the clocks to the start of the time control.
    #[inline(never)]
    pub fn reset_clocks(&mut self) {
        self.clock_ms = [self.tc.period_ms(); 2];
        self.made = [0; 2];
    }

    /// Sets up a position; on error the game is unchanged (except for the
    /// position's repetition history).
    #[inline(never)]
    #[cfg_attr(target_arch = "avr", optimize(size))]
    pub fn set_fen(&mut self, fen: &[u8]) -> Result<(), FenError> {
        let mut backup = [0u8; FEN_MAX_LEN];
        let n = self.pos.write_fen(&mut backup).unwrap_or(0);
        if let Err(e) = self.pos.set_fen(fen) {
            let _ = self.pos.set_fen(&backup[..n]);
            return Err(e);
        }
        self.forget_moves();
        self.in_line = is_start_fen(fen);
        Ok(())
    }

    /// Plays legal move `m`, remembering it for takeback and the book.
    pub fn play(&mut self, m: Move) {
        let side = self.pos.side_to_move().index();
        // The book's key needs the position before the move.
        let key = if self.in_line { book_key(&self.pos, m) } else { 0 };
        let undo = self.pos.make_move(m);
        let i = self.undo_head as usize;
        // `get_mut`: the index is below TAKEBACK_PLIES, no panicking check (flash).
        if let Some(slot) = self.undo_moves.get_mut(i) {
            *slot = m;
        }
        // SAFETY: writes one element of the array in place.
        unsafe { (self.undos.as_mut_ptr() as *mut Undo).add(i).write(undo) };
        self.undo_head = if i + 1 == TAKEBACK_PLIES { 0 } else { i as u8 + 1 };
        if (self.undo_len as usize) < TAKEBACK_PLIES {
            self.undo_len += 1;
        }
        if self.in_line {
            if (self.line_len as usize) < LINE_PLIES {
                self.line[self.line_len as usize] = key;
                self.line_len += 1;
            } else {
                self.in_line = false;
            }
        }
        self.made[side] = self.made[side].saturating_add(1);
    }

    /// Charges `elapsed_ms` to `side`, which just moved (call after
    /// [`Game::play`]), and adds its increment and, at a time control, the
    /// next period.
    #[inline(never)]
    pub fn charge_clock(&mut self, side: Color, elapsed_ms: u32) {
        if self.level != LEVEL_TOURNAMENT {
            return;
        }
        let side = side.index();
        let c = &mut self.clock_ms[side];
        *c = c.saturating_sub(elapsed_ms).saturating_add(self.tc.increment as u32 * 1000);
        if self.tc.moves > 0 && self.made[side].is_multiple_of(self.tc.moves as u16) {
            *c = c.saturating_add(self.tc.period_ms());
        }
    }

    /// Plies that can be taken back now.
    pub fn takebacks(&self) -> u8 {
        self.undo_len
    }

    /// The last move played, if it can be taken back.
    #[inline]
    pub fn last_move(&self) -> Move {
        if self.undo_len == 0 {
            return Move::NONE;
        }
        // `get`: the index is below TAKEBACK_PLIES, no panicking check (flash).
        self.undo_moves.get(self.prev(self.undo_head) as usize).copied().unwrap_or(Move::NONE)
    }

    fn prev(&self, i: u8) -> u8 {
        if i == 0 {
            TAKEBACK_PLIES as u8 - 1
        } else {
            i - 1
        }
    }

    /// Takes back the last ply; false when there is none left.
    #[inline(never)]
    pub fn take_back(&mut self) -> bool {
        if self.undo_len == 0 {
            return false;
        }
        let i = self.prev(self.undo_head);
        // `get`: the index is below TAKEBACK_PLIES, no panicking check (flash).
        let Some(&m) = self.undo_moves.get(i as usize) else {
            return false;
        };
        self.undo_head = i;
        self.undo_len -= 1;
        // SAFETY: entries below `undo_len` were written by `play`.
        let undo = unsafe { (self.undos.as_ptr() as *const Undo).add(i as usize).read() };
        self.pos.unmake_move(m, &undo);
        if self.in_line && self.line_len > 0 {
            self.line_len -= 1;
        }
        let side = self.pos.side_to_move().index();
        self.made[side] = self.made[side].saturating_sub(1);
        true
    }

    /// Where the game stands (mate, stalemate, the draw rules).
    pub fn status(&self) -> GameStatus {
        self.pos.status()
    }

    /// True when the computer is to move in a game that is not over.
    #[inline]
    pub fn computer_to_move(&self) -> bool {
        self.computer.plays(self.pos.side_to_move()) && !self.status().is_over()
    }

    /// The moves from the initial position, if the game started there and
    /// is still short enough for the book.
    pub fn book_line(&self) -> Option<&[u8]> {
        if self.in_line {
            // `get`: `line_len` <= LINE_PLIES, no panicking check (flash).
            self.line.get(..self.line_len as usize)
        } else {
            None
        }
    }

    /// A book move for the current position, chosen with `random`.
    #[inline(never)]
    #[cfg_attr(target_arch = "avr", optimize(size))]
    pub fn book_move(&self, random: u16) -> Option<Move> {
        if !USE_BOOK {
            return None;
        }
        let line = self.book_line()?;
        let book = crate::book::book();
        let key = book.choose(line.iter().copied(), random)?;
        // The book stores a key, not the move: the one legal move of that
        // rank (book moves never promote; promotions share their rank).
        let mut gen = MoveGen::new();
        while let Some(m) = gen.next_legal(&self.pos) {
            if m.promotion() == 0 && book_key(&self.pos, m) == key {
                return Some(m);
            }
        }
        None
    }

    /// The legal move between two 0x88 squares (`promo` = kind or 0).
    #[inline(never)]
    pub fn find_move(&self, from: u8, to: u8, promo: u8) -> Option<Move> {
        let mut gen = MoveGen::new();
        while let Some(m) = gen.next_legal(&self.pos) {
            if m.from() == from && m.to() == to && m.promotion() == promo {
                return Some(m);
            }
        }
        None
    }

    /// Search limits for the side to move under the current level.
    #[inline(never)]
    pub fn limits(&self) -> SearchLimits {
        if self.level < LEVEL_TOURNAMENT {
            return SearchLimits::level(self.level);
        }
        let inc = self.tc.increment as u32 * 1000;
        let side = self.pos.side_to_move().index();
        let togo = if self.tc.moves == 0 {
            0
        } else {
            let m = self.tc.moves as u16;
            (m - self.made[side] % m) as u8
        };
        SearchLimits::clock(self.clock_ms[0], self.clock_ms[1], inc, inc, togo)
    }

    /// Encodes the game for the EEPROM; returns the payload length.
    /// Layout: flags (computer, guess, in_line), level, time control (3),
    /// clocks (2 x u32 LE), moves made (2 x u16 LE), line length, line
    /// (the moves' book keys, a byte each), FEN.
    #[inline(never)]
    #[cfg_attr(target_arch = "avr", optimize(size))]
    pub fn encode(&self, out: &mut [u8; SAVE_MAX]) -> usize {
        out[0] = self.computer as u8 | (self.guess as u8) << 2 | (self.in_line as u8) << 3;
        out[1] = self.level;
        out[2] = self.tc.moves;
        out[3] = self.tc.minutes;
        out[4] = self.tc.increment;
        out[5..9].copy_from_slice(&self.clock_ms[0].to_le_bytes());
        out[9..13].copy_from_slice(&self.clock_ms[1].to_le_bytes());
        out[13..15].copy_from_slice(&self.made[0].to_le_bytes());
        out[15..17].copy_from_slice(&self.made[1].to_le_bytes());
        let n = if self.in_line { self.line_len } else { 0 };
        out[17] = n;
        let at = 18 + n as usize;
        out[18..at].copy_from_slice(&self.line[..n as usize]);
        at + self.pos.write_fen(&mut out[at..]).unwrap_or(0)
    }

    /// Restores a game saved by [`Game::encode`]; on error nothing changes
    /// (except the position's repetition history).
    #[inline(never)]
    #[cfg_attr(target_arch = "avr", optimize(size))]
    pub fn decode(&mut self, p: &[u8]) -> Result<(), LoadError> {
        if p.len() < 18 {
            return Err(LoadError::BadContents);
        }
        let n = p[17] as usize;
        let fen_at = 18 + n;
        if n > LINE_PLIES || p.len() <= fen_at || p[1] >= LEVELS || p[0] & 3 == 3 {
            return Err(LoadError::BadContents);
        }
        let tc = TimeControl { moves: p[2], minutes: p[3], increment: p[4] };
        if !tc_valid(&tc) {
            return Err(LoadError::BadContents);
        }
        self.set_fen(&p[fen_at..]).map_err(|_| LoadError::BadContents)?;
        self.computer = Opponent::from_u8(p[0] & 3);
        self.guess = p[0] & 4 != 0;
        self.in_line = p[0] & 8 != 0;
        self.level = p[1];
        self.tc = tc;
        self.clock_ms = [le32(&p[5..9]), le32(&p[9..13])];
        self.made = [u16::from_le_bytes([p[13], p[14]]), u16::from_le_bytes([p[15], p[16]])];
        self.line[..n].copy_from_slice(&p[18..fen_at]);
        self.line_len = n as u8;
        Ok(())
    }
}

impl Default for Game {
    fn default() -> Self {
        let mut g = Game::new();
        g.new_game();
        g
    }
}

/// The opening book's key of the legal move `m` in `pos` (see
/// `crate::book`): how many legal moves come before it when they are
/// ordered by `64 * from + to` (squares 0 = a1 .. 63 = h8, castling as
/// the king's move; a promotion's four moves share one place). Counted
/// in one pass whatever the generator's order, so `cargo xtask book`
/// works it out alike from its own move generator. Saturates at 255 (a
/// key above 63 is in no book).
#[inline(never)]
#[cfg_attr(target_arch = "avr", optimize(size))]
pub fn book_key(pos: &Position, m: Move) -> u8 {
    let value = |m: Move| u16::from(to_index64(m.from())) << 6 | u16::from(to_index64(m.to()));
    let v = value(m);
    let mut below = 0u8;
    let mut gen = MoveGen::new();
    while let Some(o) = gen.next_legal(pos) {
        if value(o) < v {
            below = below.saturating_add(1);
        }
    }
    below
}

/// Largest save payload.
pub const SAVE_MAX: usize = 18 + LINE_PLIES + FEN_MAX_LEN;
const _: () = assert!(SAVE_MAX <= crate::savegame::MAX_PAYLOAD);

fn le32(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// Time controls the Level screen can set.
pub fn tc_valid(tc: &TimeControl) -> bool {
    tc.minutes >= 1 && tc.minutes <= 240 && tc.moves <= 99 && tc.increment <= 99
}

/// Length of the initial position's first four fields in [`START_FEN`]
/// (placement, side, castling, en passant: up to the 4th space), worked
/// out at compile time.
const START_FIELDS_LEN: usize = {
    let start = START_FEN.as_bytes();
    let mut spaces = 0;
    let mut i = 0;
    while spaces < 4 {
        if start[i] == b' ' {
            spaces += 1;
        }
        i += 1;
    }
    i - 1
};

/// The FEN starts with the initial position's first four fields.
fn is_start_fen(fen: &[u8]) -> bool {
    let start = START_FEN.as_bytes();
    let len = START_FIELDS_LEN;
    fen.len() >= len && fen[..len] == start[..len] && fen.get(len).is_none_or(|&b| b == b' ')
}

/// Piece code (0..=12) on the square with index 0..=63.
pub fn code_at(pos: &Position, i: u8) -> u8 {
    pos.piece_at(from_index64(i)) & CODE_MASK
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::square::*;

    fn mv(g: &Game, s: &str) -> Move {
        g.pos.parse_coord(s.as_bytes()).unwrap()
    }

    #[test]
    fn takeback_up_to_six_plies() {
        let mut g = Game::default();
        let start = g.pos.hash();
        let line = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "b5a4"];
        let mut hashes = vec![];
        for s in line {
            hashes.push(g.pos.hash());
            let m = mv(&g, s);
            g.play(m);
        }
        assert_eq!(g.takebacks(), 6);
        assert_eq!(g.last_move(), mv_str(&g, "b5a4"));
        for i in (1..7).rev() {
            assert!(g.take_back());
            assert_eq!(g.pos.hash(), hashes[i]);
            assert!(g.pos.is_consistent());
        }
        assert!(!g.take_back(), "only six plies are kept");
        assert_ne!(g.pos.hash(), start);
        assert_eq!(g.book_line().unwrap().len(), 1);
    }

    fn mv_str(_g: &Game, s: &str) -> Move {
        // b5a4 from the position before it: a plain bishop move.
        let b = s.as_bytes();
        Move::new(parse_square(b[0], b[1]).unwrap(), parse_square(b[2], b[3]).unwrap(), crate::chess::MoveKind::Normal, false)
    }

    #[test]
    fn book_follows_the_line() {
        let mut g = Game::default();
        let m = g.book_move(0).expect("the start position is in the book");
        g.play(m);
        assert!(g.book_move(12345).is_some());
        g.set_fen(b"8/8/8/8/8/8/k7/7K w - - 0 1").unwrap();
        assert!(g.book_line().is_none());
        assert_eq!(g.book_move(0), None);
        g.set_fen(START_FEN.as_bytes()).unwrap();
        assert!(g.book_move(0).is_some());
    }

    #[test]
    fn bad_fen_changes_nothing() {
        let mut g = Game::default();
        g.play(mv(&g, "e2e4"));
        let h = g.pos.hash();
        assert!(g.set_fen(b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1").is_err());
        assert_eq!(g.pos.hash(), h);
        assert_eq!(g.takebacks(), 1);
    }

    #[test]
    fn save_round_trip() {
        let mut g = Game::default();
        for s in ["d2d4", "d7d5", "c2c4"] {
            g.play(mv(&g, s));
        }
        g.level = 3;
        g.guess = true;
        g.computer = Opponent::White;
        let mut buf = [0u8; SAVE_MAX];
        let n = g.encode(&mut buf);
        let mut h = Game::default();
        h.decode(&buf[..n]).unwrap();
        assert_eq!(h.pos.hash(), g.pos.hash());
        assert_eq!((h.level, h.guess, h.computer), (3, true, Opponent::White));
        assert_eq!(h.book_line().unwrap(), g.book_line().unwrap());
        // Garbage is refused and changes nothing.
        let before = h.pos.hash();
        assert_eq!(h.decode(&buf[..10]), Err(LoadError::BadContents));
        let mut bad = buf;
        bad[n - 3] = b'X';
        assert!(h.decode(&bad[..n]).is_err());
        assert_eq!(h.pos.hash(), before);
    }

    #[test]
    fn tournament_clock() {
        let mut g = Game { level: LEVEL_TOURNAMENT, tc: TimeControl { moves: 2, minutes: 1, increment: 2 }, ..Game::zeroed() };
        g.new_game();
        g.reset_clocks();
        assert_eq!(g.limits().movestogo, 2);
        g.play(mv(&g, "e2e4"));
        g.charge_clock(Color::White, 10_000);
        assert_eq!(g.clock_ms[0], 52_000);
        g.play(mv(&g, "e7e5"));
        g.charge_clock(Color::Black, 1_000);
        assert_eq!(g.limits().movestogo, 1);
        g.play(mv(&g, "g1f3"));
        g.charge_clock(Color::White, 2_000);
        // Second move of White: the control is reached, a new period starts.
        assert_eq!(g.clock_ms[0], 52_000 + 60_000);
        assert_eq!(g.limits().wtime_ms, 112_000);
    }

    #[test]
    fn start_fen_detection() {
        assert_eq!(&START_FEN[..START_FIELDS_LEN], "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
        assert!(is_start_fen(START_FEN.as_bytes()));
        assert!(is_start_fen(b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"));
        assert!(!is_start_fen(b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1"));
    }
}

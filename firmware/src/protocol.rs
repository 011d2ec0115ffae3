//! The serial protocol of `firmware/docs/serial-protocol.md`: one command
//! per line (from [`crate::line::LineAssembler`]), executed against the game.
//!
//! Every bad line (unknown command, bad argument, illegal move, bad FEN)
//! gets one `error ...` line and changes nothing. Searches (`go`, `bench`)
//! are returned to the driver as [`Deferred`] work, because they need the
//! serial line themselves (`stop`, `ponderhit`).
//!
//! All constant text is in flash; replies end with LF.

use crate::app::Platform;
use crate::chess::piece::{BISHOP, KNIGHT, QUEEN, ROOK};
use crate::chess::square::parse_square;
use crate::chess::{GameStatus, Move, Undo, FEN_MAX_LEN};
use crate::engine::{Score, SearchInfo, SearchLimits, SearchResult};
use crate::decimal::parse_u32;
use crate::flash_str;
use crate::game::{Game, Opponent};
use crate::line::LineError;
use crate::progmem::Table;
use core::mem::MaybeUninit;
use crate::ui::Ui;

/// Largest `perft` depth accepted.
pub const MAX_PERFT: u8 = 6;
/// Default depth of `bench`.
pub const BENCH_DEPTH: u8 = 4;
/// Largest `bench` depth accepted.
pub const MAX_BENCH_DEPTH: u8 = 8;
pub const BENCH_POSITIONS: u8 = 4;
/// Moves one `moves` line can carry (a 96-byte line holds at most 19).
const MAX_MOVES: usize = 20;

/// Work for the driver: a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deferred {
    Go(SearchLimits),
    /// `bench` at this depth.
    Bench(u8),
}

/// A line received while a search runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Busy {
    Stop,
    PonderHit,
    Ping,
    Refused,
}

/// Serial output helpers.
pub struct Tx<'a, P: Platform>(pub &'a mut P);

impl<P: Platform> Tx<'_, P> {
    pub fn byte(&mut self, b: u8) {
        self.0.tx(b);
    }

    #[inline(never)]
    pub fn bytes(&mut self, s: &[u8]) {
        self.0.tx_bytes(s);
    }

    /// A flash string.
    #[inline(always)]
    pub fn flash<const N: usize>(&mut self, s: &Table<u8, N>) {
        self.flash_raw(s as *const Table<u8, N> as *const u8, N);
    }

    #[inline(never)]
    fn flash_raw(&mut self, p: *const u8, n: usize) {
        // SAFETY: `p..p+n` is a flash string (see `flash`).
        unsafe { self.0.tx_flash(p, n) }
    }

    /// A flash string and the line end.
    #[inline(always)]
    pub fn line<const N: usize>(&mut self, s: &Table<u8, N>) {
        self.flash(s);
        self.nl();
    }

    /// The line end. (Constant bytes as flash strings: the AVR's
    /// `Platform::tx` then has no caller, and its byte-at-a-time copy of
    /// the ring's code is left out, 78 B.)
    #[inline(never)]
    pub fn nl(&mut self) {
        self.flash(&NL);
    }

    /// A space.
    #[inline(never)]
    pub fn space(&mut self) {
        self.flash(&SPACE);
    }

    /// `n` in decimal; returns its length.
    pub fn num32(&mut self, n: u32) -> u8 {
        let mut d = [0u8; 10];
        let len = crate::display::format_u32(n, &mut d);
        self.bytes(&d[10 - len..]);
        len as u8
    }

    /// A move in coordinate notation ("0000" for none); returns its length.
    pub fn mv(&mut self, m: Move) -> u8 {
        let mut b = [0u8; 5];
        match coord_text(m, &mut b) {
            0 => {
                self.flash(flash_str!(b"0000"));
                4
            }
            n => {
                self.bytes(b.get(..n as usize).unwrap_or(&[]));
                n
            }
        }
    }
}

/// `m` in coordinate notation in `b`; its length, 0 for no move. The
/// serial line's moves and the LCD's share it (20 B less than a
/// `write_coord` and a test of their own each).
#[inline(never)]
pub(crate) fn coord_text(m: Move, b: &mut [u8; 5]) -> u8 {
    match m.write_coord(b) {
        Some(n) if !m.is_none() => n as u8,
        _ => 0,
    }
}

/// Reports a line the assembler rejected.
pub fn line_error<P: Platform>(p: &mut P, e: LineError) {
    let mut t = Tx(p);
    match e {
        LineError::TooLong => t.line(flash_str!(b"error line too long")),
        LineError::Garbage => t.line(flash_str!(b"error bad characters")),
    }
}

crate::progmem! {
    // Texts said in more than one place: stored once (a `flash_str!` is
    // a string of its own at each). Named to sort after the engine's
    // tables, as the `flash_str!`s do (see `zz_ui_text_packed`).
    #[export_name = "zz_protocol_ok"]
    static OK: [u8; 2] = *b"ok";
    #[export_name = "zz_protocol_bad_depth"]
    static BAD_DEPTH: [u8; 15] = *b"error bad depth";
    #[export_name = "zz_protocol_time"]
    static TIME: [u8; 6] = *b" time ";
    #[export_name = "zz_protocol_nl"]
    static NL: [u8; 1] = *b"\n";
    #[export_name = "zz_protocol_space"]
    static SPACE: [u8; 1] = *b" ";
}

/// Splits off the first space-separated word.
fn word(s: &[u8]) -> (&[u8], &[u8]) {
    let s = trim(s);
    let end = s.iter().position(|&b| b == b' ').unwrap_or(s.len());
    (&s[..end], trim(&s[end..]))
}

fn trim(mut s: &[u8]) -> &[u8] {
    while let [b' ', rest @ ..] = s {
        s = rest;
    }
    while let [rest @ .., b' '] = s {
        s = rest;
    }
    s
}

/// Command and `go` keywords, in the order of the `K_*` indices.
const KEYWORDS: [&[u8]; 21] = [
    b"ping", b"new", b"fen", b"moves", b"go", b"perft", b"bench", b"fen?", b"status?", b"stop", b"ponderhit",
    b"infinite", b"ponder", b"depth", b"nodes", b"movetime", b"wtime", b"btime", b"winc", b"binc", b"movestogo",
];

/// Bytes of all the keywords.
const WORDS_LEN: usize = {
    let mut n = 0;
    let mut k = 0;
    while k < KEYWORDS.len() {
        n += KEYWORDS[k].len();
        k += 1;
    }
    n
};

crate::progmem! {
    /// [`KEYWORDS`] one after the other, bit 7 set on each one's last
    /// byte. (NUL-padded to 9 bytes each, they took 79 B more, and
    /// `keyword` 190 B more.)
    static WORDS: [u8; WORDS_LEN] = pack_keywords();
}

const fn pack_keywords() -> [u8; WORDS_LEN] {
    let mut out = [0u8; WORDS_LEN];
    let mut i = 0;
    let mut k = 0;
    while k < KEYWORDS.len() {
        let w = KEYWORDS[k];
        let mut j = 0;
        while j < w.len() {
            assert!(w[j] < 0x80);
            out[i] = w[j] | if j + 1 == w.len() { 0x80 } else { 0 };
            i += 1;
            j += 1;
        }
        k += 1;
    }
    out
}

const K_PING: u8 = 0;
const K_NEW: u8 = 1;
const K_FEN: u8 = 2;
const K_MOVES: u8 = 3;
const K_GO: u8 = 4;
const K_PERFT: u8 = 5;
const K_BENCH: u8 = 6;
const K_FEN_Q: u8 = 7;
const K_STATUS_Q: u8 = 8;
const K_STOP: u8 = 9;
const K_PONDERHIT: u8 = 10;
const K_INFINITE: u8 = 11;
const K_PONDER: u8 = 12;
const K_DEPTH: u8 = 13;
const K_MOVESTOGO: u8 = 20;
const K_NONE: u8 = 255;

/// Index of keyword `s` in `WORDS`, or `K_NONE`.
#[inline(never)]
fn keyword(s: &[u8]) -> u8 {
    let mut k = 0u8;
    // Bytes of keyword `k` matched so far; 255 after a mismatch.
    let mut j = 0u8;
    for i in 0..WORDS_LEN {
        let c = WORDS.get(i);
        if j != 255 {
            j = if s.get(j as usize) == Some(&(c & 0x7f)) { j + 1 } else { 255 };
        }
        if c & 0x80 != 0 {
            if j as usize == s.len() {
                return k;
            }
            k += 1;
            j = 0;
        }
    }
    K_NONE
}

/// A line while a search runs.
pub fn busy_command(line: &[u8]) -> Busy {
    let (cmd, rest) = word(line);
    match keyword(cmd) {
        _ if !rest.is_empty() => Busy::Refused,
        K_STOP => Busy::Stop,
        K_PONDERHIT => Busy::PonderHit,
        K_PING => Busy::Ping,
        _ => Busy::Refused,
    }
}

/// Executes a line while idle.
#[inline(never)]
#[cfg_attr(target_arch = "avr", optimize(size))]
pub fn execute<P: Platform>(line: &[u8], game: &mut Game, ui: &mut Ui, p: &mut P) -> Option<Deferred> {
    let (cmd, rest) = word(line);
    let mut t = Tx(p);
    let bare = rest.is_empty();
    match keyword(cmd) {
        K_PING if bare => t.line(flash_str!(b"pong")),
        K_NEW if bare => {
            game.new_game();
            game.computer = Opponent::None;
            ui.reset(game);
            t.line(&OK);
        }
        K_FEN if !bare => {
            if game.set_fen(rest).is_ok() {
                game.computer = Opponent::None;
                ui.reset(game);
                t.line(&OK);
            } else {
                t.line(flash_str!(b"error bad fen"));
            }
        }
        K_MOVES => moves(rest, game, ui, &mut t),
        K_GO => match parse_go(rest) {
            Some(l) => return Some(Deferred::Go(l)),
            None => t.line(flash_str!(b"error bad go")),
        },
        K_PERFT => match parse_u32(rest) {
            Some(n) if n <= MAX_PERFT as u32 => {
                let leaves = game.pos.perft(n as u8);
                if leaves == u32::MAX {
                    t.line(flash_str!(b"error overflow"));
                } else {
                    t.flash(flash_str!(b"perft "));
                    t.num32(n);
                    t.space();
                    t.num32(leaves);
                    t.nl();
                }
            }
            _ => t.line(&BAD_DEPTH),
        },
        K_BENCH => match if bare { Some(BENCH_DEPTH as u32) } else { parse_u32(rest) } {
            Some(d) if (1..=MAX_BENCH_DEPTH as u32).contains(&d) => return Some(Deferred::Bench(d as u8)),
            _ => t.line(&BAD_DEPTH),
        },
        K_FEN_Q if bare => {
            let mut buf = [0u8; FEN_MAX_LEN];
            let n = game.pos.write_fen(&mut buf).unwrap_or(0);
            t.flash(flash_str!(b"fen "));
            t.bytes(&buf[..n]);
            t.nl();
        }
        K_STATUS_Q if bare => {
            t.flash(flash_str!(b"status "));
            match game.status() {
                GameStatus::Ongoing => t.line(flash_str!(b"ongoing")),
                GameStatus::Checkmate => t.line(flash_str!(b"checkmate")),
                GameStatus::Stalemate => t.line(flash_str!(b"stalemate")),
                GameStatus::DrawFiftyMoves => t.line(flash_str!(b"draw fifty")),
                GameStatus::DrawThreefold => t.line(flash_str!(b"draw repetition")),
                GameStatus::DrawInsufficientMaterial => t.line(flash_str!(b"draw material")),
            }
        }
        // Nothing is running: the search these were meant for has ended.
        K_STOP | K_PONDERHIT if bare => {}
        _ => t.line(flash_str!(b"error unknown command")),
    }
    None
}

/// `moves m1 m2 ...`: all or nothing.
#[inline(never)]
#[cfg_attr(target_arch = "avr", optimize(size))]
fn moves<P: Platform>(rest: &[u8], game: &mut Game, ui: &mut Ui, t: &mut Tx<P>) {
    let mut made = [Move::NONE; MAX_MOVES];
    let mut undos: MaybeUninit<[Undo; MAX_MOVES]> = MaybeUninit::uninit();
    let undo = undos.as_mut_ptr() as *mut Undo;
    let mut n = 0;
    let mut s = rest;
    let mut bad: &[u8] = &[];
    while !s.is_empty() {
        let (w, r) = word(s);
        s = r;
        match coord(game, w) {
            Some(m) if n < MAX_MOVES => {
                made[n] = m;
                // SAFETY: slot n < MAX_MOVES of the array.
                unsafe { undo.add(n).write(game.pos.make_move(m)) };
                n += 1;
            }
            _ => {
                bad = w;
                break;
            }
        }
    }
    // Unmake everything, then replay through the game on success.
    for i in (0..n).rev() {
        // SAFETY: slots below n were written above.
        game.pos.unmake_move(made[i], unsafe { &*undo.add(i) });
    }
    if !bad.is_empty() || n == 0 {
        t.flash(flash_str!(b"error illegal move "));
        t.bytes(bad);
        t.nl();
        return;
    }
    for &m in &made[..n] {
        game.play(m);
    }
    game.computer = Opponent::None;
    ui.reset(game);
    t.line(&OK);
}

/// The legal move written as `w` ("e2e4", "e7e8q").
#[inline(never)]
pub fn coord(game: &Game, w: &[u8]) -> Option<Move> {
    if w.len() < 4 || w.len() > 5 {
        return None;
    }
    let from = parse_square(w[0], w[1])?;
    let to = parse_square(w[2], w[3])?;
    let promo = match w.get(4) {
        None => 0,
        Some(b'q' | b'Q') => QUEEN,
        Some(b'r' | b'R') => ROOK,
        Some(b'b' | b'B') => BISHOP,
        Some(b'n' | b'N') => KNIGHT,
        Some(_) => return None,
    };
    game.find_move(from, to, promo)
}

/// The arguments of `go`.
#[inline(never)]
#[cfg_attr(target_arch = "avr", optimize(size))]
fn parse_go(mut s: &[u8]) -> Option<SearchLimits> {
    let mut l = SearchLimits::new();
    // depth, nodes, movetime, wtime, btime, winc, binc, movestogo
    let mut v = [0u32; 8];
    while !s.is_empty() {
        let (key, r) = word(s);
        s = r;
        let k = keyword(key);
        if k == K_INFINITE {
            l.infinite = true;
        } else if k == K_PONDER {
            l.ponder = true;
        } else if (K_DEPTH..=K_MOVESTOGO).contains(&k) {
            let (n, r) = word(s);
            s = r;
            v[(k - K_DEPTH) as usize] = parse_u32(n)?;
        } else {
            return None;
        }
    }
    l.depth = v[0].min(crate::engine::MAX_PLY as u32) as u8;
    l.nodes = v[1];
    l.movetime_ms = v[2];
    l.wtime_ms = v[3];
    l.btime_ms = v[4];
    l.winc_ms = v[5];
    l.binc_ms = v[6];
    l.movestogo = v[7].min(255) as u8;
    Some(l)
}

/// `info depth D seldepth S score cp X nodes N time MS pv ...`, under 96 bytes.
/// The line's length is counted in a byte (the texts' lengths as one
/// constant) and both kinds of score take one path: 84 B less than
/// counted in a `usize` text by text.
pub fn info<P: Platform>(p: &mut P, i: &SearchInfo) {
    let mut t = Tx(p);
    t.flash(flash_str!(b"info depth "));
    let mut n = t.num32(i.depth as u32);
    t.flash(flash_str!(b" seldepth "));
    n += t.num32(i.seldepth as u32);
    // "info depth ", " seldepth ", " score cp " or " score mate ",
    // " nodes ", " time ".
    let v = match i.score {
        Score::Cp(c) => {
            t.flash(flash_str!(b" score cp "));
            n += 11 + 10 + 10 + 7 + 6;
            c
        }
        Score::Mate(m) => {
            t.flash(flash_str!(b" score mate "));
            n += 11 + 10 + 12 + 7 + 6;
            m as i16
        }
    };
    if v < 0 {
        t.flash(flash_str!(b"-"));
        n += 1;
    }
    n += t.num32(v.unsigned_abs() as u32);
    t.flash(flash_str!(b" nodes "));
    n += t.num32(i.nodes);
    t.flash(&TIME);
    n += t.num32(i.elapsed_ms);
    if !i.pv.is_empty() {
        t.flash(flash_str!(b" pv"));
        n += 3;
        for &m in i.pv {
            if n + 6 >= 96 {
                break;
            }
            t.space();
            n += 1 + t.mv(m);
        }
    }
    t.nl();
}

/// `bestmove <m> [ponder <m>]`.
pub fn bestmove<P: Platform>(p: &mut P, r: &SearchResult) {
    let mut t = Tx(p);
    t.flash(flash_str!(b"bestmove "));
    t.mv(r.best);
    if !r.ponder.is_none() && !r.best.is_none() {
        t.flash(flash_str!(b" ponder "));
        t.mv(r.ponder);
    }
    t.nl();
}

/// Sets up benchmark position `i` (the game's history is lost: `bench`
/// ends with a new game).
#[inline(never)]
pub fn bench_position(game: &mut Game, i: u8) {
    let mut buf = [0u8; FEN_MAX_LEN];
    let n = bench_fen(i, &mut buf);
    let _ = game.set_fen(&buf[..n]);
}

crate::progmem! {
    /// The benchmark positions, each ending in a NUL. (NUL-padded to 68
    /// bytes each, 36 B more.)
    static BENCH: [u8; 236] = *b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\0\
        r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1\0\
        r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8\0\
        8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1\0";
}

fn bench_fen(i: u8, out: &mut [u8; FEN_MAX_LEN]) -> usize {
    let mut k = 0;
    let mut left = i;
    while left > 0 {
        if BENCH.get(k) == 0 {
            left -= 1;
        }
        k += 1;
    }
    let mut n = 0;
    loop {
        let b = BENCH.get(k + n);
        match out.get_mut(n) {
            Some(o) if b != 0 => *o = b,
            _ => return n,
        }
        n += 1;
    }
}

/// Starts a new game (two-player, as after `new`) and prints the `bench` line.
#[inline(never)]
pub fn bench_done<P: Platform>(p: &mut P, game: &mut Game, nodes: u32, ms: u32) {
    game.new_game();
    game.computer = Opponent::None;
    let mut t = Tx(p);
    t.flash(flash_str!(b"bench nodes "));
    t.num32(nodes);
    t.flash(&TIME);
    t.num32(ms);
    t.flash(flash_str!(b" nps "));
    // Without 64-bit division: exact while nodes * 1000 fits in 32 bits.
    // (Tested by a compare: `checked_mul` took 100 B more.)
    let nps = if ms == 0 {
        0
    } else if nodes <= u32::MAX / 1000 {
        nodes * 1000 / ms
    } else {
        nodes / ms * 1000
    };
    t.num32(nps);
    t.nl();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_are_found_whole_only() {
        for (k, w) in KEYWORDS.iter().enumerate() {
            assert_eq!(keyword(w), k as u8);
            assert_eq!(keyword(&w[..w.len() - 1]), if *w == b"fen?" { K_FEN } else { K_NONE });
            assert_eq!(keyword(&[*w, b"x"].concat()), K_NONE);
        }
        assert_eq!(keyword(b""), K_NONE);
        assert_eq!(keyword(b"movestogoo"), K_NONE);
        assert_eq!(keyword(b"Ping"), K_NONE);
    }

    #[test]
    fn bench_fens() {
        let mut buf = [0u8; FEN_MAX_LEN];
        let n = bench_fen(0, &mut buf);
        assert_eq!(&buf[..n], b"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let n = bench_fen(3, &mut buf);
        assert_eq!(&buf[..n], b"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1");
        for i in 0..BENCH_POSITIONS {
            let n = bench_fen(i, &mut buf);
            assert!(crate::chess::Position::from_fen(&buf[..n]).is_ok());
        }
    }
}

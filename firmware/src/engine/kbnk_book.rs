//! KBNK's book: the tables' move in the positions where the search loses
//! most of its way to mate.
//!
//! Played out against the tables' longest defence, the depth-6 search
//! (`search.rs`, `kbnk_cap`) loses most of its plies to mate in a few
//! positions that it reaches again and again: the lone king on an edge
//! between the corners, where the knight's way round lies past the
//! horizon. The defence and the search answer alike in like positions, so
//! play-outs from any start funnel into them (one position, up to
//! symmetry, held an eighth of all the plies lost). The book holds, for each of
//! the worst of those positions up to symmetry, the tables' fastest move
//! (`cargo xtask kbnk-book` builds it from play-out dumps, summed in
//! `assets/kbnk_book_losses.tsv`; its tests check every entry against the
//! tables under every symmetry). Away from them it says nothing and the
//! search plays.
//!
//! Measured on the host engine at the image's KBNK speed (`cargo xtask
//! endgames --host --host-nps 2548 --endings kbnk --defender tablebase
//! --ties random`, 10 s a move, seeds 18 to 32, 3,000 positions none of
//! which the dumps came from): without the book 2,972 mated, about 0.44
//! plies to mate lost a move; with 30 entries 2,999 (0.252), 40 2,998
//! (0.260), 50 2,999 (0.238). When the opening book's smaller keys
//! freed 1.4 KB of flash, 200 entries (800 B; 614 B of code for the
//! probe with the depth cap's view of the board shared, where `kbnk_cap`
//! had its own scan of 200 B): on seeds 18 to 47 (6,000 positions) 50
//! entries mated 5,996 (0.240), 100 5,999 (0.205), 200 5,999 (0.170), the
//! one left a fork that [`eval`](super::eval)'s `KBNK_LOOSE` now avoids
//! (with it, 6,000); on seeds 200 to 209, 50 entries 0.248, 100 0.207,
//! 200 0.169; 300 would cover 78% of the dumps' plies lost against
//! 200's 73%. Then 2 of 12,000 starts of seeds 300 to 359 failed (a
//! start of seed 353 failed 27 times in 171 against the tables' random
//! ties); with those starts' 171 play-outs and seeds 300 to 359's dumps
//! summed in, 300 entries (1,200 B): on the fresh seeds 400 to 459
//! (12,000 starts) 12,000 mated, 0.151 plies lost a move, against the
//! 200 entries' 11,999 (0.169). Seeds 600 to 719's dumps summed in as
//! plain dumps dropped 158 of those 300 entries (the book's own positions
//! lose nothing in dumps made with it): on seeds 720 to 779, 0.166 against
//! 0.149. Summed in with `--with-book` (such visits at the position's rate
//! elsewhere), 85 entries changed: 12,000 mated, 0.142 (paired over the
//! 60 seeds, -0.007 +/- 0.002).

use crate::chess::piece::*;
use crate::chess::square::*;
use crate::chess::{Color, Move, MoveKind, Position};

include!("kbnk_book_table.rs");

/// A KBNK position seen as the book sees it: the strong side white (ranks mirrored if it is black), its bishop
/// on a dark square (files mirrored if not), then turned by the first of
/// the four colour-keeping symmetries that brings the lone king into the
/// triangle a1-h1-d4 ([`in_triangle`]). A lone king on the triangle's
/// diagonal sides can be brought there two ways (four on a1 and h1): the
/// book holds an entry for each (`cargo xtask kbnk-book`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Canonical {
    /// The view (see [`code`]).
    view: u8,
    /// Real squares of the lone king, the strong king, the bishop and
    /// the knight.
    men: [Square; 4],
}

/// The book's square (`8 * rank + file`) of the real square `sq` in the
/// view `view`: `sq ^ (view & 0x77)` mirrors the files and ranks it
/// names; then bit 3 swaps file and rank (the a1-h8 diagonal) and bit 7
/// turns the board round, the two symmetries that keep the colours.
#[inline(never)]
fn code(view: u8, sq: Square) -> u8 {
    let s = sq ^ (view & 0x77);
    let (f, r) = (s & 7, s >> 4);
    let c = if view & 8 != 0 { f << 3 | r } else { r << 3 | f };
    if view & 0x80 != 0 {
        c ^ 63
    } else {
        c
    }
}

/// Whether the book's square `c` is in the triangle a1-h1-d4 (rank at
/// most file, at most 7 - file), which meets every square's images under
/// the colour-keeping symmetries.
#[inline(always)]
pub fn in_triangle(c: u8) -> bool {
    let (f, r) = (c & 7, c >> 3);
    r <= f && r + f <= 7
}

impl Canonical {
    /// `pos` as the book sees it, or `None` unless it is KBNK with the
    /// bishop and knight `strong`'s.
    pub fn of(pos: &Position, strong: Color) -> Option<Canonical> {
        let mut c = Canonical { view: 0, men: [NO_SQUARE; 4] };
        c.see(pos, strong).then_some(c)
    }

    /// `pos` in the `t`-th (0..4) of the colour-keeping symmetries,
    /// whether or not the lone king lands in the triangle (for the book's
    /// builder, which counts a position and its images as one).
    pub fn in_view(pos: &Position, strong: Color, t: u8) -> Option<Canonical> {
        let mut c = Canonical { view: 0, men: [NO_SQUARE; 4] };
        c.see(pos, strong).then(|| {
            c.turn(t);
            c
        })
    }

    /// [`Canonical::of`] into `self` (a `Canonical` as it is built), false
    /// if `pos` is not KBNK with the bishop and knight `strong`'s. (In place: returned in
    /// an `Option`, it was copied out, 30 B more.)
    #[inline(always)]
    fn see(&mut self, pos: &Position, strong: Color) -> bool {
        self.men[0] = pos.king_square(strong.other());
        self.men[1] = pos.king_square(strong);
        for &sq in pos.piece_list(strong) {
            if sq != NO_SQUARE {
                match kind_of(pos.code_on(sq)) {
                    BISHOP => self.men[2] = sq,
                    KNIGHT => self.men[3] = sq,
                    _ => {}
                }
            }
        }
        let b = self.men[2];
        if b == NO_SQUARE || self.men[3] == NO_SQUARE {
            return false;
        }
        // Black strong: the ranks mirrored; then a light bishop: the files.
        let v = if strong == Color::Black { 0x70 } else { 0 };
        self.view = ((b ^ (b >> 4) ^ (v >> 4)) & 1) * 7 | v;
        let mut t = 0;
        while t < 3 && !in_triangle(self.code(self.men[0])) {
            t += 1;
            self.turn(t);
        }
        true
    }

    /// The view turned by the `t`-th (0..4) colour-keeping symmetry.
    #[inline(always)]
    fn turn(&mut self, t: u8) {
        self.view = self.view & 0x77 | (t & 1) << 7 | (t & 2) << 2;
    }

    /// The book's squares (`8 * rank + file`) of the lone king, the
    /// strong king, the bishop and the knight: the book's key.
    pub fn key(&self) -> [u8; 4] {
        self.men.map(|sq| self.code(sq))
    }

    /// The real square of the book's square `code` (`8 * rank + file`):
    /// the one the view takes there. (Searched for: the inverse's own
    /// code was 40 B more, and this runs once a move.)
    #[inline(always)]
    pub fn square(&self, code: u8) -> Square {
        let mut sq = 0;
        while self.code(sq) != code {
            sq = (sq + 9) & !8; // the next square on the 0x88 board
        }
        sq
    }

    /// The book's square (`8 * rank + file`) of the real square `sq`.
    #[inline(always)]
    pub fn code(&self, sq: Square) -> u8 {
        code(self.view, sq)
    }
}

/// The book's entry for a move of `man` (0 king, 1 bishop, 2 knight) to
/// the book's square `to` in the position of key `key`: the key's four
/// squares, the move's 8 bits two by two in their top bits.
pub fn entry(key: [u8; 4], man: u8, to: u8) -> [u8; 4] {
    let m = man << 6 | to;
    let mut e = key;
    for (i, b) in e.iter_mut().enumerate() {
        *b |= (m >> (6 - 2 * i)) << 6;
    }
    e
}

/// An entry's key, man and square (the inverse of [`entry`]).
#[inline(always)]
pub fn split(e: [u8; 4]) -> ([u8; 4], u8, u8) {
    let m = e.iter().fold(0u8, |m, &b| m << 2 | b >> 6);
    (e.map(|b| b & 63), m >> 6, m & 63)
}

/// The book's entries, sorted by key (for `cargo xtask kbnk-book`'s checks).
#[cfg(not(target_arch = "avr"))]
pub fn entries() -> &'static [[u8; 4]] {
    BOOK.as_slice()
}

/// The book's move for `pos` (KBNK alone, [`Phase::MateBn`](super::Phase::MateBn):
/// other men are not looked for; `strong` the side with the bishop and
/// knight), or [`Move::NONE`] if it has none or the lone king is to
/// move; and the lone king's square as the book sees it (for the search's
/// depth cap, `search.rs`'s `kbnk_cap`). The key fixes the position (no
/// castling or en passant in KBNK, nothing for the strong side to take),
/// so the entry's move is legal and quiet: `cargo xtask`'s tests play
/// every entry under every symmetry, so it is not checked here.
/// Optimised for size: it runs once a search (12 B less; `bench engine`'s
/// cycles the same).
#[inline(never)]
#[cfg_attr(target_arch = "avr", optimize(size))]
pub fn probe(pos: &Position, strong: Color) -> (Move, u8) {
    let mut c = Canonical { view: 0, men: [NO_SQUARE; 4] };
    if !c.see(pos, strong) {
        return (Move::NONE, 0);
    }
    let lone = c.code(c.men[0]);
    if pos.side_to_move() == strong {
        'entries: for i in 0..BOOK.len() {
            let e = BOOK.get(i);
            let mut m = 0u8;
            for j in 0..4 {
                if e[j] & 63 != c.code(c.men[j]) {
                    continue 'entries;
                }
                m = m << 2 | e[j] >> 6;
            }
            return (Move::new(c.men[(1 + (m >> 6)) as usize & 3], c.square(m & 63), MoveKind::Normal, false), lone);
        }
    }
    (Move::NONE, lone)
}

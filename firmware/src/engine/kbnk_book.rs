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
//! 60 seeds, -0.007 +/- 0.002). Packed in 3 bytes an entry ([`pack`],
//! 106 B more code in the probe), the book holds 400 entries in about the
//! flash of 300 unpacked: on seeds 720 to 779, 12,000 mated, 0.131
//! plies lost a move (paired against 300 entries, -0.011 +/- 0.001),
//! 15 play-outs 15 or more moves over the optimum (300: 28; 200 at 0.149:
//! 46), none of 45 moves or more (3; 6). Seeds 900 to 1019's dumps by
//! that book summed in `--with-book`: on seeds 1020 to 1049 (6,000), all
//! mated, 0.118 plies lost a move against 0.133 (paired -0.015 +/- 0.001).

use crate::chess::piece::*;
use crate::chess::square::*;
use crate::chess::{Color, Move, MoveKind, Position};

// The host's tools pack and unpack the table.
#[cfg(not(target_arch = "avr"))]
extern crate std;

include!("kbnk_book_table.rs");

crate::progmem! {
    /// Steps on the book's squares (`8 * rank + file`) of the entries'
    /// move codes ([`pack`]): the king's eight, the knight's eight; the
    /// last four of the king's are the bishop's diagonals.
    static STEPS: [i8; 16] = [1, -1, 8, -8, 7, -7, 9, -9, 6, -6, 10, -10, 15, -15, 17, -17];
}

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
/// squares, the move's 8 bits two by two in their top bits (the form the
/// builder and the tests handle; the firmware holds the entries packed,
/// [`pack`]).
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

/// The man (0 king, 1 bishop, 2 knight) and the steps of a packed move
/// code `m` (6 bits): 0 to 7 a king's step, 8 to 15 a knight's jump
/// ([`STEPS`]), then the bishop: `16 + 8 * diagonal + distance`.
#[inline(always)]
fn unpack_move(m: u8) -> (u8, u8, u8) {
    if m < 8 {
        (0, m, 1)
    } else if m < 16 {
        (2, m, 1)
    } else {
        (1, (m >> 3) + 2, m & 7)
    }
}

/// A packed entry's move code, from the top bits of its 3 bytes ([`pack`]).
#[inline(always)]
fn move_code(e0: u8, e1: u8, e2: u8) -> u8 {
    (e0 >> 6) << 4 | (e1 >> 5 & 3) << 2 | e2 >> 6
}

/// The book's square `from` moved `times` by [`STEPS`]' `step`th.
#[inline(always)]
fn stepped(from: u8, step: u8, times: u8) -> u8 {
    let d = STEPS.get(step as usize) as u8;
    let mut to = from;
    for _ in 0..times {
        to = to.wrapping_add(d);
    }
    to
}

/// Packs the book's entries ([`entry`]'s form, lone kings in the
/// triangle) as the firmware holds them: where the entries of each lone
/// king's square (`8 * rank + file`, below 32 in the triangle) start and
/// (the next one's start) end, in bytes, and 3 bytes an entry in their
/// order: the strong king's square and the move
/// code's top 2 bits, the bishop's dark square's number (`square >> 1`)
/// and its next 2, the knight's square and its last 2. The move code
/// (see [`unpack_move`]) is the man's step, not its square: the lone king
/// is implied by the starts, and 24 bits hold the rest. An error for an
/// entry that does not fit (a lone king off the triangle, a light
/// bishop, a move that is no step of its man, more than 64 KB).
#[cfg(not(target_arch = "avr"))]
pub fn pack(entries: &[[u8; 4]]) -> Result<([u16; 33], std::vec::Vec<u8>), std::string::String> {
    use std::format;
    let mut sorted: std::vec::Vec<[u8; 4]> = entries.to_vec();
    sorted.sort_unstable_by_key(|&e| split(e));
    let mut starts = [0u16; 33];
    let mut bytes = std::vec::Vec::new();
    for e in sorted {
        let (key, man, to) = split(e);
        let [lone, king, bishop, knight] = key;
        let bad = |why: &str| format!("KBNK book entry {key:?} (man {man}, to {to}): {why}");
        if !in_triangle(lone) {
            return Err(bad("the lone king off the triangle"));
        }
        if (bishop ^ bishop >> 3) & 1 != 0 {
            return Err(bad("a light-squared bishop"));
        }
        let from = key[1 + man as usize];
        let m = (0..48u8)
            .find(|&m| {
                let (who, step, times) = unpack_move(m);
                who == man && (m < 16 || times > 0) && stepped(from, step, times) == to
            })
            .ok_or_else(|| bad("not a step of its man"))?;
        bytes.extend([king | (m >> 4) << 6, bishop >> 1 | (m >> 2 & 3) << 5, knight | (m & 3) << 6]);
        let end = u16::try_from(bytes.len()).map_err(|_| bad("more than 64 KB"))?;
        for s in &mut starts[lone as usize + 1..] {
            *s = end;
        }
    }
    Ok((starts, bytes))
}

/// The book's entries in [`entry`]'s form, sorted by key (for `cargo
/// xtask kbnk-book`'s checks): [`pack`] undone.
#[cfg(not(target_arch = "avr"))]
pub fn entries() -> std::vec::Vec<[u8; 4]> {
    let bytes = BOOK.as_slice();
    let mut out = std::vec::Vec::new();
    let mut at = 0;
    for lone in 0..32u8 {
        assert_eq!(at, STARTS.get(lone as usize) as usize, "the entries of a lone king's square where they start");
        while at < STARTS.get(lone as usize + 1) as usize {
            let e = &bytes[at..at + 3];
            at += 3;
            let m = move_code(e[0], e[1], e[2]);
            let bishop = (e[1] & 31) << 1;
            let key = [lone, e[0] & 63, bishop | (bishop >> 3 & 1), e[2] & 63];
            let (man, step, times) = unpack_move(m);
            out.push(entry(key, man, stepped(key[1 + man as usize], step, times)));
        }
    }
    assert_eq!(at, bytes.len(), "the starts hold every entry");
    out
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
        let mut at = STARTS.get(lone as usize) as usize;
        let end = STARTS.get(lone as usize + 1) as usize;
        let want = [c.code(c.men[1]), c.code(c.men[2]) >> 1, c.code(c.men[3])];
        while at < end {
            let e = [BOOK.get(at), BOOK.get(at + 1), BOOK.get(at + 2)];
            at += 3;
            if e[0] & 63 == want[0] && e[1] & 31 == want[1] && e[2] & 63 == want[2] {
                let m = move_code(e[0], e[1], e[2]);
                let (man, step, times) = unpack_move(m);
                let from = c.men[1 + man as usize];
                return (Move::new(from, c.square(stepped(c.code(from), step, times)), MoveKind::Normal, false), lone);
            }
        }
    }
    (Move::NONE, lone)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table unpacks to entries that pack back to it, each move a
    /// step of its man from its square.
    #[test]
    fn the_table_unpacks_and_packs_back() {
        let entries = entries();
        assert_eq!(3 * entries.len(), STARTS.get(32) as usize);
        let (starts, bytes) = pack(&entries).unwrap();
        assert_eq!((&starts[..], &bytes[..]), (STARTS.as_slice(), BOOK.as_slice()));
    }

    /// Every man's every move packs and unpacks; what no entry can be is
    /// refused, named.
    #[test]
    fn packing_takes_every_step_and_refuses_the_rest() {
        // Lone king a1 (0), king e4 (28), bishop c5 (34, dark), knight f6 (45).
        let key = [0, 28, 34, 45];
        let mut moves = std::vec::Vec::new();
        for d in [1i8, -1, 8, -8, 7, -7, 9, -9] {
            moves.push(entry(key, 0, (28 + d) as u8));
        }
        for d in [6i8, -6, 10, -10, 15, -15, 17, -17] {
            moves.push(entry(key, 2, (45 + d) as u8));
        }
        for to in [41, 48, 27, 20, 13, 6, 25, 16, 43, 52, 61] {
            moves.push(entry(key, 1, to));
        }
        for e in &moves {
            let (starts, bytes) = pack(&[*e]).unwrap();
            assert_eq!((starts[0], starts[1], starts[32], bytes.len()), (0, 3, 3, 3));
            let (man, step, times) = unpack_move(move_code(bytes[0], bytes[1], bytes[2]));
            let (k, want_man, to) = split(*e);
            assert_eq!((man, stepped(k[1 + man as usize], step, times)), (want_man, to), "{e:?}");
        }
        let refused = |e: [u8; 4], why: &str| {
            let err = pack(&[e]).unwrap_err();
            assert!(err.contains(why), "{e:?}: {err}");
        };
        refused(entry([9 * 4, 28, 34, 45], 0, 29), "off the triangle");
        refused(entry([0, 28, 35, 45], 0, 29), "light-squared");
        refused(entry(key, 0, 30), "not a step");
        refused(entry(key, 2, 46), "not a step");
        refused(entry(key, 1, 42), "not a step");
    }
}

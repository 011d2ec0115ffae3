//! The opening book: a move tree in flash, walked with O(1) RAM.
//!
//! The blob is `assets/book.bin`, built by `cargo xtask book build` from the
//! readable `assets/book.txt` (and checked with Stockfish by `cargo xtask book
//! check`). The lookup here is independent of the board representation: the
//! caller gives the game so far as (from, to) square pairs and a random
//! number, and gets a book move back or `None` when out of book.
//!
//! # Format
//!
//! The book is the tree of all book lines, keyed by move sequence, serialized
//! in pre-order: one little-endian `u16` per move (tree edge), no header.
//!
//! | bits  | meaning                                                      |
//! |-------|--------------------------------------------------------------|
//! | 0-5   | from square, 0 = a1, 1 = b1 .. 63 = h8                       |
//! | 6-11  | to square; castling is the king's move (e1g1, e8c8, ...)     |
//! | 12    | has children: the replies follow immediately                |
//! | 13    | last sibling: no more candidates in this position after it   |
//! | 14-15 | weight - 1: relative frequency 1..4 of the move              |
//!
//! The list at offset 0 holds the candidates in the initial position. A
//! node's children start right after it; its next sibling comes after its
//! whole subtree. Skipping a subtree needs one counter: starting at 1 after a
//! node with children, add 1 for every node with children and subtract 1 for
//! every last sibling; the subtree ends when the counter reaches 0. Book moves
//! never promote, so 12 bits hold any move.

use crate::progmem::Table;

/// Size of the blob in bytes (two per book move).
pub const BLOB_LEN: usize = include_bytes!("../../assets/book.bin").len();

crate::progmem! {
    /// `assets/book.bin`, in flash.
    static BOOK: [u8; BLOB_LEN] = *include_bytes!("../../assets/book.bin");
}

const HAS_CHILDREN: u16 = 1 << 12;
const LAST: u16 = 1 << 13;
const MOVE_MASK: u16 = 0x0fff;

/// Bytes the book is read from: the flash table, or a slice in tests.
pub trait Blob {
    fn len(&self) -> usize;
    /// Little-endian `u16` number `i`.
    fn word(&self, i: usize) -> u16;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<const N: usize> Blob for Table<u8, N> {
    fn len(&self) -> usize {
        N
    }
    #[inline(always)]
    fn word(&self, i: usize) -> u16 {
        Table::word(self, i)
    }
}

impl Blob for [u8] {
    fn len(&self) -> usize {
        <[u8]>::len(self)
    }
    fn word(&self, i: usize) -> u16 {
        u16::from(self[2 * i]) | u16::from(self[2 * i + 1]) << 8
    }
}

/// A book move: (from, to) squares, 0 = a1 .. 63 = h8.
pub type Move = (u8, u8);

/// A view of a book blob.
pub struct Book<'a, B: ?Sized + Blob>(pub &'a B);

/// The book in flash.
pub fn book() -> Book<'static, Table<u8, BLOB_LEN>> {
    Book(&BOOK)
}

/// The book move to play after `history` (the game's moves from the initial
/// position), chosen among the candidates with probability proportional to
/// their weights using `random`; `None` when out of book.
pub fn choose<I: IntoIterator<Item = Move>>(history: I, random: u16) -> Option<Move> {
    book().choose(history, random)
}

impl<B: ?Sized + Blob> Book<'_, B> {
    /// Number of book moves (tree edges).
    pub fn moves(&self) -> usize {
        self.0.len() / 2
    }

    #[inline]
    fn word(&self, i: usize) -> u16 {
        self.0.word(i)
    }

    /// Index of the node after the subtree of node `i` (its next sibling, if
    /// it has one). Iterative, one counter; clamps at the end of the blob.
    fn skip(&self, i: usize) -> usize {
        let n = self.moves();
        if self.word(i) & HAS_CHILDREN == 0 {
            return i + 1;
        }
        let mut open: usize = 1;
        let mut j = i + 1;
        while j < n {
            let w = self.word(j);
            j += 1;
            if w & HAS_CHILDREN != 0 {
                open += 1;
            }
            if w & LAST != 0 {
                open -= 1;
                if open == 0 {
                    break;
                }
            }
        }
        j
    }

    /// Index of the first candidate after `history`, or `None` if the game
    /// left the book (or the last book move of the line was played).
    pub fn position<I: IntoIterator<Item = Move>>(&self, history: I) -> Option<usize> {
        let n = self.moves();
        let mut list = 0;
        for (from, to) in history {
            if from > 63 || to > 63 {
                return None;
            }
            let key = u16::from(from) | u16::from(to) << 6;
            let mut i = list;
            loop {
                if i >= n {
                    return None;
                }
                let w = self.word(i);
                if w & MOVE_MASK == key {
                    if w & HAS_CHILDREN == 0 {
                        return None;
                    }
                    list = i + 1;
                    break;
                }
                if w & LAST != 0 {
                    return None;
                }
                i = self.skip(i);
            }
        }
        (list < n).then_some(list)
    }

    /// Calls `f(move, weight)` for each candidate of the list at `list`.
    pub fn for_each_candidate(&self, list: usize, mut f: impl FnMut(Move, u8)) {
        let n = self.moves();
        let mut i = list;
        while i < n {
            let w = self.word(i);
            f(((w & 63) as u8, (w >> 6 & 63) as u8), (w >> 14) as u8 + 1);
            if w & LAST != 0 {
                break;
            }
            i = self.skip(i);
        }
    }

    /// See [`choose`].
    pub fn choose<I: IntoIterator<Item = Move>>(&self, history: I, random: u16) -> Option<Move> {
        let list = self.position(history)?;
        // First pass: the total weight (nothing is chosen with r = MAX);
        // second pass: the candidate `random % total` falls on.
        let (total, _) = self.pick(list, u16::MAX);
        if total == 0 {
            return None;
        }
        self.pick(list, random % total).1
    }

    /// Walks the candidates at `list`: their total weight, and the first
    /// one at which `r` minus the weights before it is below its weight.
    /// One walk for both passes of [`Book::choose`] (flash).
    #[inline(never)]
    fn pick(&self, list: usize, mut r: u16) -> (u16, Option<Move>) {
        let mut total: u16 = 0;
        let mut chosen = None;
        self.for_each_candidate(list, |m, w| {
            let w = u16::from(w);
            total += w;
            if chosen.is_none() {
                if r < w {
                    chosen = Some(m);
                } else {
                    r -= w;
                }
            }
        });
        (total, chosen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Square index of a name like "e4".
    fn sq(s: &str) -> u8 {
        let b = s.as_bytes();
        (b[0] - b'a') + 8 * (b[1] - b'1')
    }

    /// Moves of a line in coordinates: "e2e4 e7e5".
    fn line(s: &str) -> Vec<Move> {
        s.split_whitespace().map(|m| (sq(&m[0..2]), sq(&m[2..4]))).collect()
    }

    fn candidates<B: ?Sized + Blob>(b: &Book<B>, history: &str) -> Vec<(Move, u8)> {
        let mut out = Vec::new();
        if let Some(list) = b.position(line(history)) {
            b.for_each_candidate(list, |m, w| out.push((m, w)));
        }
        out
    }

    fn has(c: &[(Move, u8)], m: &str) -> bool {
        c.iter().any(|&(x, _)| x == line(m)[0])
    }

    #[test]
    fn blob_parses_and_fits() {
        let b = book();
        assert_eq!(BLOB_LEN % 2, 0);
        assert!(b.moves() >= 3000, "only {} book moves", b.moves());
        const { assert!(BLOB_LEN <= 10 * 1024, "the book must fit its 10 KB budget") };
        // The top-level list, skipped subtree by subtree, ends exactly at the
        // end of the blob, and every node is visited by a full walk.
        let mut i = 0;
        loop {
            let w = b.word(i);
            let next = b.skip(i);
            assert!(next <= b.moves());
            if w & LAST != 0 {
                assert_eq!(next, b.moves(), "data after the last first move");
                break;
            }
            i = next;
        }
        // No promotions, no null moves.
        for k in 0..b.moves() {
            let w = b.word(k);
            assert_ne!(w & 63, w >> 6 & 63, "move {k} goes nowhere");
        }
    }

    #[test]
    fn first_moves_include_e4_and_d4() {
        let c = candidates(&book(), "");
        assert!(has(&c, "e2e4") && has(&c, "d2d4"), "{c:?}");
        assert!(c.iter().all(|&(_, w)| (1..=4).contains(&w)));
    }

    #[test]
    fn follows_the_ruy_lopez() {
        let b = book();
        let ruy = "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6";
        let mut played = String::new();
        for m in ruy.split_whitespace() {
            assert!(has(&candidates(&b, &played), m), "{m} not in book after `{played}`");
            played = format!("{played} {m}");
        }
        // Castling is stored as the king's move, and the line goes on.
        assert!(has(&candidates(&b, &played), "e1g1"));
        played.push_str(" e1g1");
        assert!(has(&candidates(&b, &played), "f8e7"));
        // Every choice in the main line is itself a book move.
        for r in [0, 1, 7, 1000, u16::MAX] {
            let m = b.choose(line(&played), r).unwrap();
            assert!(has(&candidates(&b, &played), &format!("{}{}", name(m.0), name(m.1))));
        }
    }

    fn name(s: u8) -> String {
        format!("{}{}", (b'a' + s % 8) as char, s / 8 + 1)
    }

    #[test]
    fn out_of_book_is_none() {
        let b = book();
        assert_eq!(choose(line("a2a4 h7h5 h2h4 a7a5"), 0), None);
        assert_eq!(b.choose(line("e2e4 e7e5 e1e2"), 0), None);
        assert_eq!(b.choose(line("e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5c6 d7c6 e1g1 f7f6 d2d4 e5d4 f3d4 c6c5 a2a3"), 3), None);
        assert_eq!(b.choose([(64, 0)], 0), None);
        // A very long game is out of book too.
        let long: Vec<Move> = line("g1f3 g8f6 f3g1 f6g8").into_iter().cycle().take(400).collect();
        assert_eq!(b.choose(long, 0), None);
    }

    #[test]
    fn weighted_choice_varies_with_the_random_number() {
        let b = book();
        let c = candidates(&b, "");
        let total: u16 = c.iter().map(|&(_, w)| u16::from(w)).sum();
        let mut seen = std::collections::HashMap::new();
        for r in 0..total * 10 {
            *seen.entry(b.choose(line(""), r).unwrap()).or_insert(0u16) += 1;
        }
        assert!(seen.len() > 1);
        for (m, w) in c {
            assert_eq!(seen[&m], 10 * u16::from(w), "{m:?} chosen in proportion to its weight");
        }
        // Deeper too: Black's replies to 1.e4 vary.
        let replies: std::collections::HashSet<_> = (0..64).filter_map(|r| b.choose(line("e2e4"), r)).collect();
        assert!(replies.len() >= 3, "{replies:?}");
    }

    /// A hand-made tree: 1.e4 (e5 (Nf3 {Nc6}) c5) 1.d4 {d5}, with weights.
    #[test]
    fn walks_a_small_tree() {
        let node = |m: &str, kids: bool, last: bool, w: u16| {
            let mv = line(m)[0];
            let word = u16::from(mv.0) | u16::from(mv.1) << 6 | u16::from(kids) << 12 | u16::from(last) << 13 | (w - 1) << 14;
            word.to_le_bytes()
        };
        let blob: Vec<u8> = [
            node("e2e4", true, false, 3),
            node("e7e5", true, false, 2),
            node("g1f3", true, true, 2),
            node("b8c6", false, true, 1),
            node("c7c5", false, true, 4),
            node("d2d4", true, true, 1),
            node("d7d5", false, true, 2),
        ]
        .concat();
        let b = Book(&blob[..]);
        assert_eq!(b.skip(0), 5);
        assert_eq!(b.skip(1), 4);
        assert_eq!(b.skip(5), 7);
        assert_eq!(candidates(&b, ""), vec![(line("e2e4")[0], 3), (line("d2d4")[0], 1)]);
        assert_eq!(candidates(&b, "e2e4"), vec![(line("e7e5")[0], 2), (line("c7c5")[0], 4)]);
        assert_eq!(candidates(&b, "d2d4"), vec![(line("d7d5")[0], 2)]);
        assert_eq!(b.choose(line("e2e4 e7e5 g1f3"), 9), Some(line("b8c6")[0]));
        assert_eq!(b.choose(line("e2e4 c7c5"), 0), None);
        assert_eq!(b.choose(line("e2e4 e7e5 g1f3 b8c6"), 0), None);
        assert_eq!(b.choose(line("d2d4"), 5), Some(line("d7d5")[0]));
        let picks: Vec<_> = (0..4).map(|r| b.choose(line(""), r).unwrap()).collect();
        assert_eq!(picks, line("e2e4 e2e4 e2e4 d2d4"));
        let picks: Vec<_> = (0..6).map(|r| b.choose(line("e2e4"), r).unwrap()).collect();
        assert_eq!(picks, line("e7e5 e7e5 c7c5 c7c5 c7c5 c7c5"));
    }
}

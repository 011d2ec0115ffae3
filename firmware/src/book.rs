//! The opening book: a move tree in flash, walked with O(1) RAM.
//!
//! The blob is `assets/book.bin`, built by `cargo xtask book build` from the
//! readable `assets/book.txt` (and checked with Stockfish by `cargo xtask book
//! check`). The lookup here is independent of the board representation: the
//! caller gives the game so far as (from, to) square pairs and a random
//! number, and gets back the *key* of a book move, or `None` when out of book;
//! [`Book::key`] gives the key of any move, so the caller finds the legal
//! move with that key (there is exactly one, see below).
//!
//! # Format
//!
//! One little-endian bitstream (bit `k` is bit `k % 8` of byte `k / 8`):
//!
//! | bytes      | what                                                      |
//! |------------|-----------------------------------------------------------|
//! | 0..24      | the 3-bit code of each from square: square s (0 = a1 .. 63 = h8) at bits 3 s .. 3 s + 2 |
//! | 24..       | the move tree, one record of 10 to 16 bits per move, back to back |
//! | last       | zeros to a whole byte, then one zero byte                 |
//!
//! A record is the move's 9-bit *key*, then its *shape* in a prefix code:
//!
//! | record bits | meaning                                                  |
//! |-------------|----------------------------------------------------------|
//! | 0-5         | to square, 0 = a1 .. 63 = h8; castling is the king's move (e1g1, e8c8, ...) |
//! | 6-8         | the code of the from square                              |
//! | 9..         | the shape: has children (the replies follow at once), last sibling (no more candidates in this position after it), weight 1..4 (relative frequency of the move) |
//!
//! | shape code (first bit first) | has children | last | weight | record |
//! |------------------------------|--------------|------|--------|--------|
//! | `0`                          | yes          | yes  | 2      | 10 bits |
//! | `1 0`                        | no           | yes  | 2      | 11 bits |
//! | `1 1 0`                      | yes          | no   | 2      | 12 bits |
//! | `1 1 1` c l w w              | c            | l    | 1 + ww | 16 bits |
//!
//! Most of the book is single lines with the default weight, so nearly
//! three records in four take the one-bit shape: 4,458 B for 3,348 moves,
//! where fixed 13-bit records (key, two flags, two weight bits) took 5,466 B.
//!
//! Bits 0-8 are the move's *key*. The build chooses the codes (the square's
//! file wherever that works) so that in every book position no other legal
//! move has a book move's key, and checks it. So a game's move matches a
//! record exactly when their keys are equal, and the position alone turns a
//! record back into its move. Book moves never promote.
//!
//! The tree is serialized in pre-order. The list at the first record holds
//! the candidates in the initial position. A node's children start right
//! after it; its next sibling comes after its whole subtree. Skipping a
//! subtree needs one counter: starting at 1 after a node with children, add
//! 1 for every node with children and subtract 1 for every last sibling;
//! the subtree ends when the counter reaches 0.
//!
//! Records are found by their bit position in the blob. One is read as
//! three bytes shifted right by 0..=7 bits; the final zero byte keeps that
//! read inside the blob for the last record. The padding is under 8 bits
//! and a record at least 10, so a record starts at bit `p` exactly when
//! `p + 10` is at most the bits before the pad byte.

use crate::progmem::Table;

/// Size of the blob in bytes.
pub const BLOB_LEN: usize = include_bytes!("../../assets/book.bin").len();

crate::progmem! {
    /// `assets/book.bin`, in flash.
    static BOOK: [u8; BLOB_LEN] = *include_bytes!("../../assets/book.bin");
}

/// Bytes of the code table before the records.
const CODES: usize = 24;
const KEY_MASK: u16 = 0x1ff;
/// A record as [`Book::record`] returns it: the key, then these flags and
/// the weight - 1 in bits 11-12, whatever its shape code in the blob.
const HAS_CHILDREN: u16 = 1 << 9;
const LAST: u16 = 1 << 10;
const WEIGHT_2: u16 = 1 << 11;
/// Bits of the shortest record.
const MIN_RECORD: usize = 10;

// Bit positions must fit a 16-bit usize.
const _: () = assert!(8 * BLOB_LEN <= u16::MAX as usize);

/// Bytes the book is read from: the flash table, or a slice in tests.
pub trait Blob {
    fn len(&self) -> usize;
    fn byte(&self, i: usize) -> u8;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<const N: usize> Blob for Table<u8, N> {
    fn len(&self) -> usize {
        N
    }
    #[inline(always)]
    fn byte(&self, i: usize) -> u8 {
        self.get(i)
    }
}

impl Blob for [u8] {
    fn len(&self) -> usize {
        <[u8]>::len(self)
    }
    fn byte(&self, i: usize) -> u8 {
        self[i]
    }
}

/// A move of the game: (from, to) squares, 0 = a1 .. 63 = h8.
pub type Move = (u8, u8);

/// A book move's key: to square (bits 0-5) and the code of its from square
/// (bits 6-8); see the module docs.
pub type Key = u16;

/// A view of a book blob.
pub struct Book<'a, B: ?Sized + Blob>(pub &'a B);

/// The book in flash.
pub fn book() -> Book<'static, Table<u8, BLOB_LEN>> {
    Book(&BOOK)
}

impl<B: ?Sized + Blob> Book<'_, B> {
    /// Bit position of the first record.
    const FIRST: usize = 8 * CODES;

    /// Bit position after the last place a record can start: every record
    /// starts below it (see the module docs). 0 for a blob too short.
    fn end(&self) -> usize {
        (8 * self.0.len()).saturating_sub(8 + MIN_RECORD - 1)
    }

    /// Number of book moves (tree edges): the records, counted.
    pub fn moves(&self) -> usize {
        let mut n = 0;
        let mut at = Self::FIRST;
        while at < self.end() {
            at = self.record(at).1;
            n += 1;
        }
        n
    }

    /// 16 bits of the stream from bit `shift` (0..=7) of byte `at`.
    #[inline(never)]
    fn bits(&self, at: usize, shift: usize) -> u16 {
        let b = |k| u32::from(self.0.byte(at + k));
        ((b(0) | b(1) << 8 | b(2) << 16) >> shift) as u16
    }

    /// The record at bit `at`, its shape decoded (key, [`HAS_CHILDREN`],
    /// [`LAST`], weight - 1 in bits 11-12), and the bit after it.
    /// Not inlined: one call per read site is the smallest code.
    #[inline(never)]
    fn record(&self, at: usize) -> (u16, usize) {
        let w = self.bits(at >> 3, at & 7);
        let shape = w >> 9;
        let (flags, len) = if shape & 1 == 0 {
            (HAS_CHILDREN | LAST | WEIGHT_2, 10)
        } else if shape & 2 == 0 {
            (LAST | WEIGHT_2, 11)
        } else if shape & 4 == 0 {
            (HAS_CHILDREN | WEIGHT_2, 12)
        } else {
            // The escape: children, last and weight - 1 in the next 4 bits.
            ((shape >> 3) << 9, 16)
        };
        (w & KEY_MASK | flags, at + len)
    }

    /// The key of a move (squares 0..=63) in this book.
    pub fn key(&self, (from, to): Move) -> Key {
        let bit = 3 * usize::from(from & 63);
        u16::from(to & 63) | (self.bits(bit >> 3, bit & 7) & 7) << 6
    }

    /// Bit position of the node after the subtree of the node at `at` (its
    /// next sibling, if it has one). Iterative, one counter; stops at the
    /// end of the blob.
    fn skip(&self, at: usize) -> usize {
        let end = self.end();
        let (w, mut j) = self.record(at);
        if w & HAS_CHILDREN == 0 {
            return j;
        }
        let mut open: usize = 1;
        while j < end {
            let (w, next) = self.record(j);
            j = next;
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

    /// Bit position of the first candidate after `history`, or `None` if
    /// the game left the book (or the last book move of the line was played).
    pub fn position<I: IntoIterator<Item = Move>>(&self, history: I) -> Option<usize> {
        let end = self.end();
        let mut list = Self::FIRST;
        for (from, to) in history {
            if from > 63 || to > 63 {
                return None;
            }
            let key = self.key((from, to));
            let mut i = list;
            loop {
                if i >= end {
                    return None;
                }
                let (w, next) = self.record(i);
                if w & KEY_MASK == key {
                    if w & HAS_CHILDREN == 0 {
                        return None;
                    }
                    list = next;
                    break;
                }
                if w & LAST != 0 {
                    return None;
                }
                i = self.skip(i);
            }
        }
        (list < end).then_some(list)
    }

    /// Calls `f(key, weight)` for each candidate of the list at bit `list`.
    pub fn for_each_candidate(&self, list: usize, mut f: impl FnMut(Key, u8)) {
        let end = self.end();
        let mut i = list;
        while i < end {
            let (w, _) = self.record(i);
            f(w & KEY_MASK, (w >> 11) as u8 + 1);
            if w & LAST != 0 {
                break;
            }
            i = self.skip(i);
        }
    }

    /// The key of the book move to play after `history` (the game's moves
    /// from the initial position), chosen among the candidates with
    /// probability proportional to their weights using `random`; `None`
    /// when out of book. The move is the legal move whose [`Book::key`] it is.
    pub fn choose<I: IntoIterator<Item = Move>>(&self, history: I, random: u16) -> Option<Key> {
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
    fn pick(&self, list: usize, mut r: u16) -> (u16, Option<Key>) {
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

    /// The key of one move in coordinates, in book `b`.
    fn key<B: ?Sized + Blob>(b: &Book<B>, m: &str) -> Key {
        b.key(line(m)[0])
    }

    fn candidates<B: ?Sized + Blob>(b: &Book<B>, history: &str) -> Vec<(Key, u8)> {
        let mut out = Vec::new();
        if let Some(list) = b.position(line(history)) {
            b.for_each_candidate(list, |k, w| out.push((k, w)));
        }
        out
    }

    fn has<B: ?Sized + Blob>(b: &Book<B>, c: &[(Key, u8)], m: &str) -> bool {
        c.iter().any(|&(k, _)| k == key(b, m))
    }

    /// The bits of record `r` (key, children, last, weight - 1 in bits
    /// 11-12) in the blob, first bit first: the key, then the shape code of
    /// the module docs' table.
    fn record_bits(r: u16) -> Vec<bool> {
        let mut out: Vec<bool> = (0..9).map(|k| r >> k & 1 != 0).collect();
        let shape = r >> 9;
        match shape {
            0b0111 => out.push(false),
            0b0110 => out.extend([true, false]),
            0b0101 => out.extend([true, true, false]),
            _ => {
                out.extend([true, true, true]);
                out.extend((0..4).map(|k| shape >> k & 1 != 0));
            }
        }
        out
    }

    /// Bit position of each record of a blob made by [`pack`], and the end.
    fn starts(records: &[u16]) -> Vec<usize> {
        let mut at = 8 * CODES;
        let mut out = vec![at];
        for &r in records {
            at += record_bits(r).len();
            out.push(at);
        }
        out
    }

    /// A blob written bit by bit, independently of the reader: the codes
    /// (3 bits per square), the records, zeros to a byte and one more zero
    /// byte.
    fn pack(codes: &[u8; 64], records: &[u16]) -> Vec<u8> {
        let mut bits: Vec<bool> = Vec::new();
        for &c in codes {
            bits.extend((0..3).map(|k| c >> k & 1 != 0));
        }
        for &r in records {
            bits.extend(record_bits(r));
        }
        let mut out = vec![0u8; bits.len().div_ceil(8) + 1];
        for (i, &b) in bits.iter().enumerate() {
            out[i / 8] |= u8::from(b) << (i % 8);
        }
        out
    }

    /// The code of each square is its file.
    fn file_codes() -> [u8; 64] {
        core::array::from_fn(|s| s as u8 % 8)
    }

    #[test]
    fn blob_parses_and_fits() {
        let b = book();
        let n = b.moves();
        assert!(n >= 3000, "only {n} book moves");
        const { assert!(BLOB_LEN <= 10 * 1024, "the book must fit its 10 KB budget") };
        // The code table, the records to a whole byte, one zero byte: no more.
        let mut used = Book::<[u8]>::FIRST;
        for _ in 0..n {
            used = b.record(used).1;
        }
        assert_eq!(BLOB_LEN, CODES + (used - 8 * CODES).div_ceil(8) + 1);
        let blob = BOOK.as_slice();
        assert_eq!(blob[BLOB_LEN - 1], 0, "the pad byte");
        assert_eq!(blob[used / 8] >> (used % 8), 0, "padding bits after the last record");
        // The top-level list, skipped subtree by subtree, ends exactly at the
        // end of the records, and every node is visited by a full walk.
        let mut i = Book::<[u8]>::FIRST;
        loop {
            let (w, _) = b.record(i);
            let next = b.skip(i);
            assert!(next <= used);
            if w & LAST != 0 {
                assert_eq!(next, used, "data after the last first move");
                break;
            }
            i = next;
        }
    }

    #[test]
    fn reads_records_at_every_bit_offset() {
        // 48 records of every shape, the keys all-ones, all-zeros and mixed.
        let records: Vec<u16> = (0..48u16).map(|i| [0x1ff, 0, 0x134 ^ (i * 0x51)][i as usize % 3] & 0x1ff | (i % 16) << 9).collect();
        let mut codes = file_codes();
        codes[0] = 7;
        codes[63] = 5;
        codes[21] = 3;
        let blob = pack(&codes, &records);
        let b = Book(&blob[..]);
        assert_eq!(b.moves(), records.len());
        let at = starts(&records);
        for (i, &r) in records.iter().enumerate() {
            assert_eq!(b.record(at[i]), (r, at[i + 1]), "record {i} (bit offset {})", at[i] % 8);
        }
        assert_eq!((0..8).filter(|s| at.iter().any(|a| a % 8 == *s)).count(), 8, "every shift read");
        // The key uses the from square's code, not its file.
        assert_eq!(b.key((0, 8)), 8 | 7 << 6);
        assert_eq!(b.key((63, 62)), 62 | 5 << 6);
        assert_eq!(b.key((21, 4)), 4 | 3 << 6);
        assert_eq!(b.key((22, 4)), 4 | 6 << 6);
    }

    #[test]
    fn first_moves_include_e4_and_d4() {
        let b = book();
        let c = candidates(&b, "");
        assert!(has(&b, &c, "e2e4") && has(&b, &c, "d2d4"), "{c:?}");
        assert!(c.iter().all(|&(_, w)| (1..=4).contains(&w)));
    }

    #[test]
    fn follows_the_ruy_lopez() {
        let b = book();
        let ruy = "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6";
        let mut played = String::new();
        for m in ruy.split_whitespace() {
            assert!(has(&b, &candidates(&b, &played), m), "{m} not in book after `{played}`");
            played = format!("{played} {m}");
        }
        // Castling is stored as the king's move, and the line goes on.
        assert!(has(&b, &candidates(&b, &played), "e1g1"));
        played.push_str(" e1g1");
        assert!(has(&b, &candidates(&b, &played), "f8e7"));
        // Re1 and Ne1 both go to e1 from the f-file: their keys differ.
        played.push_str(" f8e7");
        assert!(has(&b, &candidates(&b, &played), "f1e1"));
        assert!(!has(&b, &candidates(&b, &played), "f3e1"));
        assert_ne!(key(&b, "f1e1"), key(&b, "f3e1"));
        // Every choice in the main line is itself a book move.
        for r in [0, 1, 7, 1000, u16::MAX] {
            let k = b.choose(line(&played), r).unwrap();
            assert!(candidates(&b, &played).iter().any(|&(c, _)| c == k));
        }
    }

    #[test]
    fn out_of_book_is_none() {
        let b = book();
        assert_eq!(b.choose(line("a2a4 h7h5 h2h4 a7a5"), 0), None);
        assert_eq!(b.choose(line("e2e4 e7e5 e1e2"), 0), None);
        assert_eq!(b.choose(line("e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5c6 d7c6 e1g1 f7f6 d2d4 e5d4 f3d4 c6c5 a2a3"), 3), None);
        assert_eq!(b.choose([(64, 0)], 0), None);
        assert_eq!(b.choose([(12, 64)], 0), None);
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
        for (k, w) in c {
            assert_eq!(seen[&k], 10 * u16::from(w), "{k:#x} chosen in proportion to its weight");
        }
        // Deeper too: Black's replies to 1.e4 vary.
        let replies: std::collections::HashSet<_> = (0..64).filter_map(|r| b.choose(line("e2e4"), r)).collect();
        assert!(replies.len() >= 3, "{replies:?}");
    }

    /// A hand-made tree: 1.e4 (e5 (Nf3 {Nc6}) c5) 1.d4 {d5}, with weights,
    /// and f3 coded 7 instead of its file (so Nf3 from g1 and a move from
    /// f3 would differ even if both went to the same square).
    #[test]
    fn walks_a_small_tree() {
        let mut codes = file_codes();
        codes[usize::from(sq("f3"))] = 7;
        codes[usize::from(sq("g1"))] = 2;
        let key_of = |m: &str| {
            let (from, to) = line(m)[0];
            u16::from(to) | u16::from(codes[usize::from(from)]) << 6
        };
        let node = |m: &str, kids: bool, last: bool, w: u16| key_of(m) | u16::from(kids) << 9 | u16::from(last) << 10 | (w - 1) << 11;
        let records = [
            node("e2e4", true, false, 3),
            node("e7e5", true, false, 2),
            node("g1f3", true, true, 2),
            node("b8c6", false, true, 1),
            node("c7c5", false, true, 4),
            node("d2d4", true, true, 1),
            node("d7d5", false, true, 2),
        ];
        let blob = pack(&codes, &records);
        let b = Book(&blob[..]);
        assert_eq!(b.moves(), 7);
        let at = starts(&records);
        assert_eq!(b.key(line("g1f3")[0]), 21 | 2 << 6);
        assert_eq!(b.key(line("f3e5")[0]), 36 | 7 << 6);
        assert_eq!(b.skip(at[0]), at[5]);
        assert_eq!(b.skip(at[1]), at[4]);
        assert_eq!(b.skip(at[5]), at[7]);
        assert_eq!(candidates(&b, ""), vec![(key_of("e2e4"), 3), (key_of("d2d4"), 1)]);
        assert_eq!(candidates(&b, "e2e4"), vec![(key_of("e7e5"), 2), (key_of("c7c5"), 4)]);
        assert_eq!(candidates(&b, "d2d4"), vec![(key_of("d7d5"), 2)]);
        assert_eq!(b.choose(line("e2e4 e7e5 g1f3"), 9), Some(key_of("b8c6")));
        // A move with another from square of the same file is another move.
        assert_eq!(b.choose(line("e2e4 e7e5 g2f3"), 0), None);
        assert_eq!(b.choose(line("e2e4 c7c5"), 0), None);
        assert_eq!(b.choose(line("e2e4 e7e5 g1f3 b8c6"), 0), None);
        assert_eq!(b.choose(line("d2d4"), 5), Some(key_of("d7d5")));
        let picks: Vec<_> = (0..4).map(|r| b.choose(line(""), r).unwrap()).collect();
        assert_eq!(picks, ["e2e4", "e2e4", "e2e4", "d2d4"].map(key_of));
        let picks: Vec<_> = (0..6).map(|r| b.choose(line("e2e4"), r).unwrap()).collect();
        assert_eq!(picks, ["e7e5", "e7e5", "c7c5", "c7c5", "c7c5", "c7c5"].map(key_of));
    }
}

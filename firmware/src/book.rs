//! The opening book: a move tree in flash, walked with O(1) RAM.
//!
//! The blob is `assets/book.bin`, built by `cargo xtask book build` from the
//! readable `assets/book.txt` (and checked with Stockfish by `cargo xtask book
//! check`). The lookup here is independent of the board representation: the
//! caller gives the game so far as the moves' *keys* and a random number,
//! and gets back the key of a book move, or `None` when out of book. A
//! move's key is its rank among the legal moves of its position
//! (`crate::game::book_key`), so the position turns a key back into its
//! one move.
//!
//! # Format
//!
//! One little-endian bitstream (bit `k` is bit `k % 8` of byte `k / 8`):
//!
//! | bytes      | what                                                      |
//! |------------|-----------------------------------------------------------|
//! | 0..        | the move tree, one record of 7 to 13 bits per move, back to back |
//! | last       | zeros to a whole byte (at most 6 bits), then one zero byte |
//!
//! A record is the move's 6-bit *key*, then its *shape* in a prefix code:
//!
//! | record bits | meaning                                                  |
//! |-------------|----------------------------------------------------------|
//! | 0-5         | the key: how many legal moves come before the move, ordered by `64 * from + to` (0 = a1 .. 63 = h8; castling is the king's move e1g1, e8c8, ...) |
//! | 6..         | the shape: has children (the replies follow at once), last sibling (no more candidates in this position after it), weight 1..4 (relative frequency of the move) |
//!
//! | shape code (first bit first) | has children | last | weight | record |
//! |------------------------------|--------------|------|--------|--------|
//! | `0`                          | yes          | yes  | 2      | 7 bits |
//! | `1 0`                        | no           | yes  | 2      | 8 bits |
//! | `1 1 0`                      | yes          | no   | 2      | 9 bits |
//! | `1 1 1` c l w w              | c            | l    | 1 + ww | 13 bits |
//!
//! Most of the book is single lines with the default weight, so nearly
//! three records in four take the one-bit shape. The rank as the key takes
//! 3,178 B for 3,348 moves, where a 9-bit key (to square, a 3-bit code of
//! the from square, and a table of the codes) took 4,458 B, and fixed
//! 13-bit records 5,466 B.
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
//! read inside the blob for the last record. The build keeps the padding
//! under 7 bits (writing the last short record's shape in the `1 1 1` form if
//! need be) and a record is at least 7, so a record starts at bit `p`
//! exactly when `p + 7` is at most the bits before the pad byte.

use crate::progmem::Table;

/// Size of the blob in bytes.
pub const BLOB_LEN: usize = include_bytes!("../../assets/book.bin").len();

crate::progmem! {
    /// `assets/book.bin`, in flash.
    static BOOK: [u8; BLOB_LEN] = *include_bytes!("../../assets/book.bin");
}

const KEY_MASK: u16 = 0x3f;
/// A record as [`Book::record`] returns it: the key, then these flags and
/// the weight - 1 in bits 8-9, whatever its shape code in the blob.
const HAS_CHILDREN: u16 = 1 << 6;
const LAST: u16 = 1 << 7;
const WEIGHT_2: u16 = 1 << 8;
/// Bits of the shortest record.
const MIN_RECORD: usize = 7;

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

/// A book move's key: its rank among the legal moves of its position
/// (0..=63; see the module docs).
pub type Key = u8;

/// A view of a book blob.
pub struct Book<'a, B: ?Sized + Blob>(pub &'a B);

/// The book in flash.
pub fn book() -> Book<'static, Table<u8, BLOB_LEN>> {
    Book(&BOOK)
}

impl<B: ?Sized + Blob> Book<'_, B> {
    /// Bit position of the first record.
    const FIRST: usize = 0;

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
        let shape = w >> 6;
        let (flags, len) = if shape & 1 == 0 {
            (HAS_CHILDREN | LAST | WEIGHT_2, 7)
        } else if shape & 2 == 0 {
            (LAST | WEIGHT_2, 8)
        } else if shape & 4 == 0 {
            (HAS_CHILDREN | WEIGHT_2, 9)
        } else {
            // The escape: children, last and weight - 1 in the next 4 bits.
            ((shape >> 3 & 15) << 6, 13)
        };
        (w & KEY_MASK | flags, at + len)
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
    pub fn position<I: IntoIterator<Item = Key>>(&self, history: I) -> Option<usize> {
        let end = self.end();
        let mut list = Self::FIRST;
        for key in history {
            let mut i = list;
            loop {
                if i >= end {
                    return None;
                }
                let (w, next) = self.record(i);
                if w & KEY_MASK == u16::from(key) {
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
            f((w & KEY_MASK) as Key, (w >> 8) as u8 + 1);
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
    pub fn choose<I: IntoIterator<Item = Key>>(&self, history: I, random: u16) -> Option<Key> {
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
    use crate::chess::Position;
    use crate::game::book_key;

    /// The keys of a line in coordinates ("e2e4 e7e5") played from the
    /// initial position.
    fn line(s: &str) -> Vec<Key> {
        let mut pos = Position::start();
        let mut keys = Vec::new();
        for m in s.split_whitespace() {
            let mv = pos.parse_coord(m.as_bytes()).unwrap_or_else(|e| panic!("{m}: {e:?}"));
            keys.push(book_key(&pos, mv));
            pos.make_move(mv);
        }
        keys
    }

    /// The key of the last move of a line.
    fn key(s: &str) -> Key {
        *line(s).last().unwrap()
    }

    fn candidates<B: ?Sized + Blob>(b: &Book<B>, history: &str) -> Vec<(Key, u8)> {
        let mut out = Vec::new();
        if let Some(list) = b.position(line(history)) {
            b.for_each_candidate(list, |k, w| out.push((k, w)));
        }
        out
    }

    /// Whether move `m` is a candidate after `history`.
    fn has<B: ?Sized + Blob>(b: &Book<B>, history: &str, m: &str) -> bool {
        let k = key(&format!("{history} {m}"));
        candidates(b, history).iter().any(|&(c, _)| c == k)
    }

    /// The bits of record `r` (key, children, last, weight - 1 in bits
    /// 8-9) in the blob, first bit first: the key, then the shape code of
    /// the module docs' table (its `1 1 1` form if `escape`).
    fn record_bits(r: u16, escape: bool) -> Vec<bool> {
        let mut out: Vec<bool> = (0..6).map(|k| r >> k & 1 != 0).collect();
        let shape = r >> 6;
        match shape {
            0b0111 if !escape => out.push(false),
            0b0110 if !escape => out.extend([true, false]),
            0b0101 if !escape => out.extend([true, true, false]),
            _ => {
                out.extend([true, true, true]);
                out.extend((0..4).map(|k| shape >> k & 1 != 0));
            }
        }
        out
    }

    /// A blob written bit by bit, independently of the reader: the
    /// records, zeros to a byte and one more zero byte; the last record
    /// in its `1 1 1` form if the padding would be 7 bits (as the build
    /// does). And the bit position of each record, and the end.
    fn pack(records: &[u16]) -> (Vec<u8>, Vec<usize>) {
        let mut bits: Vec<bool> = Vec::new();
        let mut at = vec![0];
        for (i, &r) in records.iter().enumerate() {
            let mut b = record_bits(r, false);
            if i + 1 == records.len() && (bits.len() + b.len()) % 8 == 1 {
                b = record_bits(r, true);
            }
            bits.extend(b);
            at.push(bits.len());
        }
        let mut out = vec![0u8; bits.len().div_ceil(8) + 1];
        for (i, &b) in bits.iter().enumerate() {
            out[i / 8] |= u8::from(b) << (i % 8);
        }
        (out, at)
    }

    #[test]
    fn blob_parses_and_fits() {
        let b = book();
        let n = b.moves();
        assert!(n >= 3000, "only {n} book moves");
        const { assert!(BLOB_LEN <= 10 * 1024, "the book must fit its 10 KB budget") };
        // The records to a whole byte (at most 6 bits of padding), one zero
        // byte: no more.
        let mut used = Book::<[u8]>::FIRST;
        for _ in 0..n {
            used = b.record(used).1;
        }
        assert_eq!(BLOB_LEN, used.div_ceil(8) + 1);
        assert!(8 * (BLOB_LEN - 1) - used < 7, "padding of {} bits", 8 * (BLOB_LEN - 1) - used);
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
        let records: Vec<u16> = (0..48u16).map(|i| [0x3f, 0, 0x34 ^ (i * 0x51)][i as usize % 3] & 0x3f | (i % 16) << 6).collect();
        let (blob, at) = pack(&records);
        let b = Book(&blob[..]);
        assert_eq!(b.moves(), records.len());
        for (i, &r) in records.iter().enumerate() {
            assert_eq!(b.record(at[i]), (r, at[i + 1]), "record {i} (bit offset {})", at[i] % 8);
        }
        assert_eq!((0..8).filter(|s| at.iter().any(|a| a % 8 == *s)).count(), 8, "every shift read");
    }

    /// A last record that would leave 7 bits of padding is written in
    /// the long form, and the reader counts no record in the padding.
    #[test]
    fn padding_stays_under_a_record() {
        // 7 + 9 + 9 bits: a short last record would leave 7 bits.
        let records = [0x25 | 0b0111 << 6, 0x01 | 0b0101 << 6, 0x3e | 0b0101 << 6];
        let (blob, at) = pack(&records);
        assert_eq!(at[3], 7 + 9 + 13);
        let b = Book(&blob[..]);
        assert_eq!(b.moves(), 3);
        assert_eq!(b.record(at[2]), (records[2], at[3]));
    }

    #[test]
    fn first_moves_include_e4_and_d4() {
        let b = book();
        assert!(has(&b, "", "e2e4") && has(&b, "", "d2d4"));
        assert!(candidates(&b, "").iter().all(|&(_, w)| (1..=4).contains(&w)));
        // The key is the rank: e2e4 comes after the knights' four moves
        // and a2..d2's eight, and after e2e3.
        assert_eq!(key("e2e4"), 13);
    }

    #[test]
    fn follows_the_ruy_lopez() {
        let b = book();
        let ruy = "e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4 g8f6";
        let mut played = String::new();
        for m in ruy.split_whitespace() {
            assert!(has(&b, &played, m), "{m} not in book after `{played}`");
            played = format!("{played} {m}");
        }
        // Castling is stored as the king's move, and the line goes on.
        assert!(has(&b, &played, "e1g1"));
        played.push_str(" e1g1");
        assert!(has(&b, &played, "f8e7"));
        // Re1 and Ne1 both go to e1: only Re1 is in the book.
        played.push_str(" f8e7");
        assert!(has(&b, &played, "f1e1"));
        assert!(!has(&b, &played, "f3e1"));
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
        assert_eq!(b.choose([64], 0), None);
        assert_eq!(b.choose([255], 0), None);
        // A very long game is out of book too.
        let long: Vec<Key> = line("g1f3 g8f6 f3g1 f6g8").into_iter().cycle().take(400).collect();
        assert_eq!(b.choose(long, 0), None);
    }

    #[test]
    fn weighted_choice_varies_with_the_random_number() {
        let b = book();
        let c = candidates(&b, "");
        let total: u16 = c.iter().map(|&(_, w)| u16::from(w)).sum();
        let mut seen = std::collections::HashMap::new();
        for r in 0..total * 10 {
            *seen.entry(b.choose([], r).unwrap()).or_insert(0u16) += 1;
        }
        assert!(seen.len() > 1);
        for (k, w) in c {
            assert_eq!(seen[&k], 10 * u16::from(w), "{k:#x} chosen in proportion to its weight");
        }
        // Deeper too: Black's replies to 1.e4 vary.
        let replies: std::collections::HashSet<_> = (0..64).filter_map(|r| b.choose(line("e2e4"), r)).collect();
        assert!(replies.len() >= 3, "{replies:?}");
    }

    /// A hand-made tree: 1.e4 (e5 (Nf3 {Nc6}) c5) 1.d4 {d5}, with weights.
    #[test]
    fn walks_a_small_tree() {
        let node = |l: &str, kids: bool, last: bool, w: u16| u16::from(key(l)) | u16::from(kids) << 6 | u16::from(last) << 7 | (w - 1) << 8;
        let records = [
            node("e2e4", true, false, 3),
            node("e2e4 e7e5", true, false, 2),
            node("e2e4 e7e5 g1f3", true, true, 2),
            node("e2e4 e7e5 g1f3 b8c6", false, true, 1),
            node("e2e4 c7c5", false, true, 4),
            node("d2d4", true, true, 1),
            node("d2d4 d7d5", false, true, 2),
        ];
        let (blob, at) = pack(&records);
        let b = Book(&blob[..]);
        assert_eq!(b.moves(), 7);
        assert_eq!(b.skip(at[0]), at[5]);
        assert_eq!(b.skip(at[1]), at[4]);
        assert_eq!(b.skip(at[5]), at[7]);
        assert_eq!(candidates(&b, ""), vec![(key("e2e4"), 3), (key("d2d4"), 1)]);
        assert_eq!(candidates(&b, "e2e4"), vec![(key("e2e4 e7e5"), 2), (key("e2e4 c7c5"), 4)]);
        assert_eq!(candidates(&b, "d2d4"), vec![(key("d2d4 d7d5"), 2)]);
        assert_eq!(b.choose(line("e2e4 e7e5 g1f3"), 9), Some(key("e2e4 e7e5 g1f3 b8c6")));
        // Another move to the same square is another key.
        assert_eq!(b.choose(line("e2e4 e7e5 d1f3"), 0), None);
        assert_eq!(b.choose(line("e2e4 c7c5"), 0), None);
        assert_eq!(b.choose(line("e2e4 e7e5 g1f3 b8c6"), 0), None);
        assert_eq!(b.choose(line("d2d4"), 5), Some(key("d2d4 d7d5")));
        let picks: Vec<_> = (0..4).map(|r| b.choose([], r).unwrap()).collect();
        assert_eq!(picks, ["e2e4", "e2e4", "e2e4", "d2d4"].map(key));
        let picks: Vec<_> = (0..6).map(|r| b.choose(line("e2e4"), r).unwrap()).collect();
        assert_eq!(picks, ["e2e4 e7e5", "e2e4 e7e5", "e2e4 c7c5", "e2e4 c7c5", "e2e4 c7c5", "e2e4 c7c5"].map(key));
    }
}

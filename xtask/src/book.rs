//! `cargo xtask book`: the opening book, from its readable source to the blob
//! the firmware embeds, and its check against Stockfish.
//!
//! * `assets/book.txt` — the source: one variation per line in SAN, `#`
//!   comments, optional `{n}` weights (see the top of that file).
//! * `assets/book.bin` — what `book build` makes of it (committed, so the
//!   firmware build needs no tool); `firmware/src/book.rs` reads it.
//! * `assets/book_check.tsv` — what `book check` found, one row per
//!   (position, move) edge; rows at the asked depth or deeper are not redone.
//!
//! Blob format v2 (documented in full in `firmware/src/book.rs`): one
//! little-endian bitstream (bit k is bit k % 8 of byte k / 8), no header:
//!
//! * from bit 0: the move tree in pre-order, one record of 7 to 13 bits per
//!   move, back to back: bits 0-5 the move's *key* ([`key`]), then the
//!   move's shape ("has children": they follow at once; "last sibling";
//!   weight 1..4) in a prefix code, first bit first: `0` children, last,
//!   weight 2; `10` no children, last, weight 2; `110` children, not last,
//!   weight 2; `111` then 4 bits (children, last, weight - 1) for the rest
//!   and for any shape where the build needs it ([`record_code`]). The
//!   top-level list holds the candidates in the initial position;
//! * zeros to a whole byte, at most 6 bits, then one more zero byte, so a
//!   three-byte read of any record stays inside the blob.
//!
//! The key of a move is its rank among the legal moves of its position,
//! ordered by `64 * from + to` (0 = a1 .. 63 = h8, castling as the king's
//! move e1g1): the number of legal moves that come before it. It is unique
//! among moves that do not promote (book moves never do), so a game's move
//! matches a record exactly when their keys are equal, and the position
//! alone turns a record back into its move. The build refuses a book move
//! whose key does not fit 6 bits (above 63).
//!
//! A record is at least 7 bits ([`MIN_RECORD_BITS`]), so the reader takes a
//! record to start at bit `p` exactly when `p + 7` is at most the bits
//! before the pad byte. The padding therefore must stay under 7 bits: where
//! the records would leave exactly 7, the build writes the last record that
//! has a short shape code (in a tree, the very last record unless it has a
//! weight of its own) in the `111` form instead, 4 to 6 bits longer, which
//! leaves 1 to 3 bits of padding.

use crate::util::{root, Result};
use clap::Subcommand;
use shakmaty::fen::Fen;
use shakmaty::san::{San, SanError, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, EnPassantMode, Move, Position};
use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{mpsc, Arc, Mutex};

/// Flash the book may take (the original CP1 budget).
pub const MAX_BYTES: usize = 10 * 1024;
/// Weight of a move that the source gives none.
pub const DEFAULT_WEIGHT: u8 = 2;
/// Bits of the shortest record in the blob (a key and a one-bit shape).
pub const MIN_RECORD_BITS: usize = 7;
/// Bits of a record whose shape takes the `111` escape code.
const ESCAPE_BITS: usize = 13;
/// The key's bits in a record.
const KEY_MASK: u16 = 0x3f;
/// A record as [`Tree::records`] gives it, above the key (bits 0-5): the
/// shape, which the blob holds in a prefix code.
const HAS_CHILDREN: u16 = 1 << 6;
const LAST: u16 = 1 << 7;
const WEIGHT_SHIFT: u32 = 8;
pub(crate) const STOCKFISH: &str = "/usr/games/stockfish";

#[derive(Subcommand)]
pub enum Action {
    /// Parse assets/book.txt, encode it and write assets/book.bin
    Build,
    /// Check every book move with Stockfish (incremental: see assets/book_check.tsv)
    Check {
        /// Search depth for the best move and for each book move
        #[arg(long, default_value_t = 18)]
        depth: u32,
        /// Largest loss against the best move a book move may have, in centipawns
        #[arg(long, default_value_t = 50)]
        tolerance_cp: i32,
        /// Stockfish processes run in parallel (each with Threads=1, Hash=64)
        #[arg(long, default_value_t = 1)]
        jobs: usize,
        /// The Stockfish binary
        #[arg(long, default_value = STOCKFISH)]
        stockfish: PathBuf,
    },
    /// Print the book's size, shape and check coverage
    Stats {
        /// Moves losing more than this (centipawns, as recorded) are listed
        #[arg(long, default_value_t = 50)]
        tolerance_cp: i32,
    },
}

pub fn run(action: Action) -> Result {
    match action {
        Action::Build => build(),
        Action::Check { depth, tolerance_cp, jobs, stockfish } => check(depth, tolerance_cp, jobs.max(1), &stockfish),
        Action::Stats { tolerance_cp } => stats(tolerance_cp),
    }
}

pub fn source_path() -> PathBuf {
    root().join("assets/book.txt")
}
pub fn blob_path() -> PathBuf {
    root().join("assets/book.bin")
}
pub fn check_path() -> PathBuf {
    root().join("assets/book_check.tsv")
}

// ---------------------------------------------------------------- the tree

/// One book move: an edge of the tree.
pub struct Node {
    /// (from, to), 0 = a1 .. 63 = h8; castling is the king's two-square move.
    pub mv: (u8, u8),
    pub san: String,
    /// Explicit weight and the line that gave it.
    weight: Option<(u8, usize)>,
    /// First source line that plays this move.
    pub line: usize,
    pub children: Vec<usize>,
}

impl Node {
    pub fn weight(&self) -> u8 {
        self.weight.map_or(DEFAULT_WEIGHT, |w| w.0)
    }
}

/// The book as a tree keyed by move sequence; node 0 is the initial position.
pub struct Tree {
    pub nodes: Vec<Node>,
    pub lines: usize,
}

fn read_source() -> Result<(PathBuf, String)> {
    let path = source_path();
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok((path, text))
}

/// Square index of shakmaty's square.
fn sq(s: shakmaty::Square) -> u8 {
    s.to_u32() as u8
}

/// (from, to) of a legal move, castling as the king's move.
fn encode_move(m: &Move) -> Result<(u8, u8)> {
    match UciMove::from_standard(*m) {
        UciMove::Normal { from, to, promotion: None } => Ok((sq(from), sq(to))),
        UciMove::Normal { promotion: Some(_), .. } => Err("promotions cannot be stored in the book".into()),
        other => Err(format!("unexpected move {other}")),
    }
}

/// (from, to) of any legal move, promotions included (for the key check).
fn squares(m: &Move) -> Option<(u8, u8)> {
    match UciMove::from_standard(*m) {
        UciMove::Normal { from, to, .. } => Some((sq(from), sq(to))),
        _ => None,
    }
}

/// Parses the book source. Errors name the file, line and move.
pub fn parse(name: &str, text: &str) -> Result<Tree> {
    let mut tree = Tree { nodes: vec![Node { mv: (0, 0), san: String::new(), weight: None, line: 0, children: vec![] }], lines: 0 };
    let mut errors = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        if let Err(e) = parse_line(&mut tree, name, i + 1, raw) {
            errors.push(e);
        }
    }
    if !errors.is_empty() {
        let n = errors.len();
        errors.truncate(30);
        return Err(format!("{n} error(s) in the book source:\n  {}", errors.join("\n  ")));
    }
    Ok(tree)
}

fn parse_line(tree: &mut Tree, name: &str, lineno: usize, raw: &str) -> Result {
    {
        let content = raw.split('#').next().unwrap_or("");
        // `{n}` may be written apart (`e4 {3}`) or attached (`e4{3}`).
        let spaced = content.replace('{', " {");
        let mut pos = Chess::default();
        let mut cur = 0usize;
        let mut played: Vec<String> = Vec::new();
        for tok in spaced.split_whitespace() {
            let here = || format!("{name}:{lineno}");
            if let Some(w) = tok.strip_prefix('{') {
                let w = w.strip_suffix('}').ok_or_else(|| format!("{}: weight `{tok}` must be written {{1}} .. {{4}}", here()))?;
                let w: u8 = w.parse().ok().filter(|w| (1..=4).contains(w)).ok_or_else(|| format!("{}: weight `{tok}` must be 1 .. 4", here()))?;
                if cur == 0 {
                    return Err(format!("{}: weight `{tok}` before any move", here()));
                }
                let node = &mut tree.nodes[cur];
                match node.weight {
                    Some((old, at)) if old != w => {
                        return Err(format!(
                            "{}: weight {{{w}}} for `{}` after {} conflicts with {{{old}}} given on line {at}",
                            here(),
                            node.san,
                            if played.len() > 1 { played[..played.len() - 1].join(" ") } else { "the start".into() }
                        ))
                    }
                    _ => node.weight = Some((w, lineno)),
                }
                continue;
            }
            // Move numbers (`1.`, `12...`, `1.e4`) are allowed and ignored.
            let tok = tok.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
            let tok = tok.trim_end_matches(['!', '?', '+', '#']);
            if tok.is_empty() {
                continue;
            }
            let after = || if played.is_empty() { "in the initial position".to_string() } else { format!("after {}", played.join(" ")) };
            let san = San::from_ascii(tok.as_bytes()).map_err(|_| format!("{}: `{tok}` is not a move in SAN ({})", here(), after()))?;
            let m = san.to_move(&pos).map_err(|e| match e {
                SanError::IllegalSan => format!("{}: `{tok}` is illegal {} (FEN {})", here(), after(), fen(&pos)),
                SanError::AmbiguousSan => format!("{}: `{tok}` is ambiguous {} (FEN {})", here(), after(), fen(&pos)),
            })?;
            let mv = encode_move(&m).map_err(|e| format!("{}: `{tok}`: {e}", here()))?;
            let found = tree.nodes[cur].children.iter().copied().find(|&c| tree.nodes[c].mv == mv);
            cur = match found {
                Some(c) => c,
                None => {
                    let id = tree.nodes.len();
                    let san = SanPlus::from_move(pos.clone(), m).to_string();
                    tree.nodes.push(Node { mv, san, weight: None, line: lineno, children: vec![] });
                    tree.nodes[cur].children.push(id);
                    id
                }
            };
            played.push(tok.to_string());
            pos.play_unchecked(m);
        }
        if !played.is_empty() {
            tree.lines += 1;
        }
    }
    Ok(())
}

fn fen(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

impl Tree {
    /// Every line to a leaf of the tree, in UCI coordinates, with the
    /// source line that reached the leaf. The book has no promotions, and
    /// castling is stored as the king's two-square move, which is UCI's.
    pub fn leaf_lines(&self) -> Vec<(usize, Vec<String>)> {
        self.lines(usize::MAX)
    }

    /// The line to every node of the tree at least `min_ply` moves deep
    /// (pre-order), and to every leaf however shallow, like
    /// [`Tree::leaf_lines`]. `usize::MAX`: the leaves only.
    pub fn lines(&self, min_ply: usize) -> Vec<(usize, Vec<String>)> {
        let name = |s: u8| shakmaty::Square::new(s as u32).to_string();
        let mut out = Vec::new();
        let mut stack = vec![(0usize, Vec::new())];
        while let Some((id, path)) = stack.pop() {
            let node = &self.nodes[id];
            if !path.is_empty() && (node.children.is_empty() || path.len() >= min_ply) {
                out.push((node.line, path.clone()));
            }
            for &c in node.children.iter().rev() {
                let (from, to) = self.nodes[c].mv;
                let mut p = path.clone();
                p.push(format!("{}{}", name(from), name(to)));
                stack.push((c, p));
            }
        }
        out
    }

    /// Book moves: the edges of the tree.
    pub fn moves(&self) -> usize {
        self.nodes.len() - 1
    }

    /// The records in pre-order: key (bits 0-5), children (bit 6), last
    /// (bit 7), weight - 1 (bits 8-9). Errors, for a book move whose key
    /// does not fit 6 bits, name the source line, the move and the position.
    pub fn records(&self, name: &str) -> Result<Vec<u16>> {
        let mut out = Vec::with_capacity(self.moves());
        let mut errors = Vec::new();
        // Explicit stack of (node, is last sibling, position before it, SAN path to it) in pre-order.
        let mut stack: Vec<(usize, bool, Chess, Vec<String>)> = Vec::new();
        let push_children = |stack: &mut Vec<(usize, bool, Chess, Vec<String>)>, n: &Node, pos: &Chess, path: &[String]| {
            for (k, &c) in n.children.iter().enumerate().rev() {
                stack.push((c, k + 1 == n.children.len(), pos.clone(), path.to_vec()));
            }
        };
        push_children(&mut stack, &self.nodes[0], &Chess::default(), &[]);
        while let Some((id, last, pos, mut path)) = stack.pop() {
            let n = &self.nodes[id];
            let m = find_move(&pos, n.mv).expect("book moves were legal when parsed");
            let k = key(&pos, n.mv);
            if k > KEY_MASK {
                errors.push(format!(
                    "{name}:{}: `{}` ({}) {} has key {k} (its rank among the {} legal moves), more than the 63 \
                     a 6-bit key holds (FEN {})",
                    n.line,
                    n.san,
                    UciMove::from_standard(m),
                    if path.is_empty() { "in the initial position".to_string() } else { format!("after {}", path.join(" ")) },
                    pos.legal_moves().len(),
                    fen(&pos)
                ));
            }
            let record = (k & KEY_MASK)
                | if n.children.is_empty() { 0 } else { HAS_CHILDREN }
                | if last { LAST } else { 0 }
                | u16::from(n.weight() - 1) << WEIGHT_SHIFT;
            out.push(record);
            if !n.children.is_empty() {
                let mut next = pos;
                next.play_unchecked(m);
                path.push(n.san.clone());
                push_children(&mut stack, n, &next, &path);
            }
        }
        if errors.is_empty() {
            return Ok(out);
        }
        let n = errors.len();
        errors.truncate(30);
        Err(format!("{n} book move(s) have a key above 63:\n  {}", errors.join("\n  ")))
    }

    /// The blob: the records packed into a bitstream (see the module docs).
    /// `name` is the source's, for errors.
    pub fn encode(&self, name: &str) -> Result<Vec<u8>> {
        pack(&self.records(name)?).map_err(|e| format!("{name}: {e}"))
    }

    /// Every node with the position before it, in breadth-first (ply) order.
    fn walk(&self) -> Vec<(usize, Chess, Vec<String>)> {
        let mut out = Vec::new();
        let mut queue: VecDeque<(usize, Chess, Vec<String>)> = VecDeque::new();
        queue.push_back((0, Chess::default(), vec![]));
        while let Some((id, pos, path)) = queue.pop_front() {
            for &c in &self.nodes[id].children {
                let n = &self.nodes[c];
                let m = find_move(&pos, n.mv).expect("book moves were legal when parsed");
                let mut next = pos.clone();
                next.play_unchecked(m);
                let mut p = path.clone();
                p.push(n.san.clone());
                queue.push_back((c, next, p));
            }
            out.push((id, pos, path));
        }
        out
    }
}

fn find_move(pos: &Chess, mv: (u8, u8)) -> Option<Move> {
    pos.legal_moves().into_iter().find(|m| encode_move(m).ok() == Some(mv))
}

/// The book key of the move `mv` = (from, to) in `pos`: its rank among the
/// legal moves, ordered by `value = 64 * from + to` (squares 0 = a1 .. 63 =
/// h8; castling as the king's two-square move e1g1, e1c1, e8g8, e8c8; the
/// four promotions of a pawn move share one value), that is the number of
/// legal moves whose value is strictly smaller than `mv`'s. Unique among
/// moves that do not promote. The blob holds it in 6 bits, so a book move's
/// key must be at most 63 (the build checks it).
///
/// This is the reference the firmware's key of a move must agree with.
pub fn key(pos: &Chess, mv: (u8, u8)) -> u16 {
    let value = |(from, to): (u8, u8)| u16::from(from) * 64 + u16::from(to);
    pos.legal_moves().iter().filter_map(squares).filter(|&m| value(m) < value(mv)).count() as u16
}

/// A record's bits in the blob and their count: the key, then the shortest
/// prefix code of its shape (children, last, weight; see the module docs).
pub fn record_code(r: u16) -> (u16, usize) {
    let key = r & KEY_MASK;
    match r >> 6 {
        0b0111 => (key, 7),          // `0`: children, last, weight 2
        0b0110 => (key | 1 << 6, 8), // `1 0`: no children, last, weight 2
        0b0101 => (key | 3 << 6, 9), // `1 1 0`: children, not last, weight 2
        _ => escape_code(r),
    }
}

/// A record's bits in the `111` escape form, which can code any shape.
fn escape_code(r: u16) -> (u16, usize) {
    (r & KEY_MASK | 7 << 6 | (r >> 6 & 15) << 9, ESCAPE_BITS)
}

/// The code of each record as [`pack`] writes it: the shortest, except
/// that where the records would leave 7 bits of padding, the last record
/// with a short code takes the escape code, 4 to 6 bits longer, leaving 1
/// to 3. Refuses records that do not fit the format: a key or shape out of
/// range, a last record with children (the zero bits of padding would read
/// as one), or 7 bits of padding left with no short code to lengthen.
fn layout(records: &[u16]) -> Result<Vec<(u16, usize)>> {
    if let Some(r) = records.iter().find(|&&r| r >> 10 != 0) {
        return Err(format!("record {r:#x} has bits above the weight"));
    }
    if records.last().is_some_and(|&r| r & HAS_CHILDREN != 0) {
        return Err("the last record has children".into());
    }
    let mut codes: Vec<(u16, usize)> = records.iter().map(|&r| record_code(r)).collect();
    if codes.iter().map(|c| c.1).sum::<usize>() % 8 == 1 {
        let i = codes
            .iter()
            .rposition(|c| c.1 < ESCAPE_BITS)
            .ok_or("every record takes the escape code and they would leave 7 bits of padding: change a move's weight")?;
        codes[i] = escape_code(records[i]);
    }
    Ok(codes)
}

/// Blob length for these records: the records to a whole byte, and the
/// zero pad byte.
pub fn blob_len(records: &[u16]) -> Result<usize> {
    Ok(layout(records)?.iter().map(|c| c.1).sum::<usize>().div_ceil(8) + 1)
}

/// ORs the low `bits` bits of `v` into `out` at bit `at` (least significant first).
fn put_bits(out: &mut [u8], at: usize, bits: usize, v: u16) {
    assert!(u32::from(v) < 1 << bits, "{v} has more than {bits} bits");
    for k in 0..bits {
        out[(at + k) / 8] |= ((v >> k & 1) as u8) << ((at + k) % 8);
    }
}

fn get_bits(blob: &[u8], at: usize, bits: usize) -> u16 {
    (0..bits).map(|k| u16::from(blob[(at + k) / 8] >> ((at + k) % 8) & 1) << k).sum()
}

/// Packs the records into the blob (see the module docs and [`layout`]).
pub fn pack(records: &[u16]) -> Result<Vec<u8>> {
    let codes = layout(records)?;
    let mut out = vec![0u8; blob_len(records)?];
    let mut at = 0;
    for (v, n) in codes {
        put_bits(&mut out, at, n, v);
        at += n;
    }
    Ok(out)
}

/// The records of a blob: the inverse of [`pack`] (a record in the escape
/// code reads as any other). Refuses an empty blob, a record cut short,
/// 7 bits of padding or more (which a reader takes for records of zero
/// bits: they are counted back as padding here), and padding that is not
/// zero.
pub fn unpack(blob: &[u8]) -> Result<Vec<u16>> {
    if blob.is_empty() {
        return Err("an empty blob has not even the pad byte".into());
    }
    // Bits before the pad byte.
    let limit = 8 * (blob.len() - 1);
    let mut at = 0;
    let mut records = Vec::new();
    let mut lens = Vec::new();
    while at + MIN_RECORD_BITS <= limit {
        // The shape code's bits, read one at a time (the pad byte is zero).
        let bit = |k: usize| get_bits(blob, at + 6 + k, 1) != 0;
        let (shape, len) = match (bit(0), bit(1), bit(2)) {
            (false, _, _) => (0b0111, 7),
            (true, false, _) => (0b0110, 8),
            (true, true, false) => (0b0101, 9),
            (true, true, true) => (if at + ESCAPE_BITS <= limit { get_bits(blob, at + 9, 4) } else { 0 }, ESCAPE_BITS),
        };
        if at + len > limit {
            return Err(format!("record {} is cut short by the end of the blob", records.len()));
        }
        records.push(get_bits(blob, at, 6) | shape << 6);
        lens.push(len);
        at += len;
    }
    // Trailing 7-bit records of zeros are padding (a tree never ends with a
    // record with children, and `pack` refuses one).
    while records.last() == Some(&(0b0111 << 6)) && lens.last() == Some(&MIN_RECORD_BITS) {
        records.pop();
        lens.pop();
        at -= MIN_RECORD_BITS;
    }
    if limit - at >= MIN_RECORD_BITS {
        return Err(format!(
            "a blob of {} bytes has {} bits of padding before the pad byte, more than the 6 its records may leave",
            blob.len(),
            limit - at
        ));
    }
    if (at..8 * blob.len()).any(|i| get_bits(blob, i, 1) != 0) {
        return Err("the padding after the last record is not zero".into());
    }
    Ok(records)
}

/// Decodes a blob back into (depth, key, weight) in pre-order, checking its
/// structure: the inverse of [`Tree::encode`], used by the build and tests.
pub fn decode(blob: &[u8]) -> Result<Vec<(usize, u8, u8)>> {
    let records = unpack(blob)?;
    let mut out = Vec::new();
    // For each list being read below the top: was its owner the last of its own list?
    let mut owners_last: Vec<bool> = Vec::new();
    let mut ended = records.is_empty();
    for w in records {
        if ended {
            return Err(format!("data after the end of the tree at move {}", out.len()));
        }
        let (has_children, last) = (w & HAS_CHILDREN != 0, w & LAST != 0);
        out.push((owners_last.len(), (w & KEY_MASK) as u8, (w >> WEIGHT_SHIFT) as u8 + 1));
        if has_children {
            owners_last.push(last);
        } else if last {
            // This list ends, and with it every enclosing list whose owner was last.
            loop {
                match owners_last.pop() {
                    None => {
                        ended = true;
                        break;
                    }
                    Some(false) => break,
                    Some(true) => {}
                }
            }
        }
    }
    if !ended {
        return Err("the tree is truncated".into());
    }
    Ok(out)
}

// ---------------------------------------------------------------- build

/// The tree of `assets/book.txt`.
pub fn source_tree() -> Result<Tree> {
    let (path, text) = read_source()?;
    parse(&path.display().to_string(), &text)
}

pub fn build_blob() -> Result<(Tree, Vec<u8>)> {
    let (path, text) = read_source()?;
    encode_source(&path.display().to_string(), &text)
}

/// Source text to blob: parse, key every move, encode, decode again.
/// Errors name the file and line.
pub fn encode_source(name: &str, text: &str) -> Result<(Tree, Vec<u8>)> {
    let tree = parse(name, text)?;
    if tree.moves() == 0 {
        return Err(format!("{name}: the book has no moves"));
    }
    let blob = tree.encode(name)?;
    let back = decode(&blob)?;
    if back.len() != tree.moves() {
        return Err(format!("internal: {} moves encoded, {} decoded", tree.moves(), back.len()));
    }
    Ok((tree, blob))
}

fn build() -> Result {
    let (tree, blob) = build_blob()?;
    if blob.len() > MAX_BYTES {
        return Err(format!("the book takes {} bytes, more than its {MAX_BYTES}-byte budget", blob.len()));
    }
    let out = blob_path();
    let changed = std::fs::read(&out).ok().as_deref() != Some(&blob[..]);
    if changed {
        std::fs::write(&out, &blob).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    }
    let largest = decode(&blob)?.iter().map(|r| r.1).max().unwrap_or(0);
    println!(
        "book: {} lines, {} moves, {} bytes ({} free of {MAX_BYTES}; largest key {largest} of 63) -> {}{}",
        tree.lines,
        tree.moves(),
        blob.len(),
        MAX_BYTES - blob.len(),
        out.display(),
        if changed { "" } else { " (unchanged)" }
    );
    Ok(())
}

// ---------------------------------------------------------------- stats

fn stats(tolerance: i32) -> Result {
    let (tree, blob) = build_blob()?;
    let walk = tree.walk();
    let leaves = tree.nodes.iter().skip(1).filter(|n| n.children.is_empty()).count();
    let max_ply = walk.iter().map(|(_, _, p)| p.len()).max().unwrap_or(0);
    let mut per_ply = vec![0usize; max_ply + 1];
    for (_, _, p) in &walk {
        per_ply[p.len()] += 1;
    }
    println!("book: {} lines, {} moves, {} bytes ({:.2} bytes/move), budget {MAX_BYTES}", tree.lines, tree.moves(), blob.len(), blob.len() as f64 / tree.moves().max(1) as f64);
    println!("      {leaves} leaves, deepest line {max_ply} plies");
    println!("      moves per ply: {}", per_ply[1..].iter().map(|n| n.to_string()).collect::<Vec<_>>().join(" "));
    let root = &tree.nodes[0];
    let first: Vec<String> = root.children.iter().map(|&c| format!("{} ({})", tree.nodes[c].san, tree.nodes[c].weight())).collect();
    println!("      first moves (weight): {}", first.join(", "));
    if blob_path().exists() {
        let on_disk = std::fs::read(blob_path()).unwrap_or_default();
        println!("      assets/book.bin {}", if on_disk == blob { "is up to date" } else { "is STALE: run `cargo xtask book build`" });
    }
    let rows = load_checks(&check_path())?;
    let edges = edges(&tree);
    let mut by_depth: Vec<(u32, usize)> = Vec::new();
    let mut unchecked = 0;
    let mut worst: Vec<(i32, &Edge)> = Vec::new();
    for e in &edges {
        match rows.get(&(e.fen.clone(), e.uci.clone())) {
            Some(r) => {
                match by_depth.iter_mut().find(|(d, _)| *d == r.depth) {
                    Some(x) => x.1 += 1,
                    None => by_depth.push((r.depth, 1)),
                }
                worst.push((r.loss, e));
            }
            None => unchecked += 1,
        }
    }
    by_depth.sort();
    println!(
        "check: {} distinct (position, move) edges; checked at depth {}; unchecked {unchecked}",
        edges.len(),
        by_depth.iter().map(|(d, n)| format!("{d}: {n}")).collect::<Vec<_>>().join(", ")
    );
    worst.sort_by_key(|w| std::cmp::Reverse(w.0));
    let over = worst.iter().filter(|(l, _)| *l > tolerance).count();
    println!("      {over} recorded over {tolerance} cp; the largest losses:");
    for (loss, e) in worst.iter().take(over.max(5)) {
        println!("      {loss:>4} cp  line {}: {}", e.line, e.path.join(" "));
    }
    Ok(())
}

// ---------------------------------------------------------------- check

/// A distinct (position, move) pair of the book.
struct Edge {
    fen: String,
    uci: String,
    line: usize,
    path: Vec<String>,
}

fn edges(tree: &Tree) -> Vec<Edge> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (id, pos, path) in tree.walk() {
        let f = fen(&pos);
        for &c in &tree.nodes[id].children {
            let n = &tree.nodes[c];
            let uci = uci_of(&pos, n.mv);
            if seen.insert((f.clone(), uci.clone())) {
                let mut p = path.clone();
                p.push(n.san.clone());
                out.push(Edge { fen: f.clone(), uci, line: n.line, path: p });
            }
        }
    }
    out
}

fn uci_of(pos: &Chess, mv: (u8, u8)) -> String {
    let m = find_move(pos, mv).expect("legal");
    UciMove::from_standard(m).to_string()
}

#[derive(Clone)]
struct Row {
    best: String,
    loss: i32,
    depth: u32,
}

const TSV_HEADER: &str = "# fen\tmove\tbest\tloss_cp\tdepth";

fn load_checks(path: &Path) -> Result<HashMap<(String, String), Row>> {
    let mut rows = HashMap::new();
    let Ok(text) = std::fs::read_to_string(path) else { return Ok(rows) };
    for (i, l) in text.lines().enumerate() {
        if l.starts_with('#') || l.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = l.split('\t').collect();
        let bad = || format!("{}:{}: expected 5 tab-separated fields: fen, move, best, loss_cp, depth", path.display(), i + 1);
        if f.len() != 5 {
            return Err(bad());
        }
        let row = Row { best: f[2].into(), loss: f[3].parse().map_err(|_| bad())?, depth: f[4].parse().map_err(|_| bad())? };
        let key = (f[0].to_string(), f[1].to_string());
        // Later or deeper rows win.
        if rows.get(&key).is_none_or(|old: &Row| row.depth >= old.depth) {
            rows.insert(key, row);
        }
    }
    Ok(rows)
}

/// One Stockfish process spoken to over UCI.
pub(crate) struct Stockfish {
    child: Child,
    stdin: ChildStdin,
    out: BufReader<ChildStdout>,
}

impl Stockfish {
    pub(crate) fn start(path: &Path) -> Result<Stockfish> {
        if !path.exists() {
            return Err(format!(
                "Stockfish not found at {}: the book check and the tuner need it.\n  fix: apt-get install stockfish (Debian puts it in /usr/games), or pass --stockfish PATH",
                path.display()
            ));
        }
        // Nice, so the check can run beside builds on a shared machine.
        let mut cmd = if crate::util::have("nice") {
            let mut c = Command::new("nice");
            c.arg("-n").arg("10").arg(path);
            c
        } else {
            Command::new(path)
        };
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", path.display()))?;
        let stdin = child.stdin.take().expect("piped");
        let out = BufReader::new(child.stdout.take().expect("piped"));
        let mut e = Stockfish { child, stdin, out };
        e.send("uci")?;
        e.wait_for("uciok")?;
        e.send("setoption name Threads value 1")?;
        e.send("setoption name Hash value 64")?;
        e.send("isready")?;
        e.wait_for("readyok")?;
        Ok(e)
    }

    fn send(&mut self, line: &str) -> Result {
        writeln!(self.stdin, "{line}").and_then(|_| self.stdin.flush()).map_err(|e| format!("Stockfish: cannot write: {e}"))
    }

    fn read_line(&mut self) -> Result<String> {
        let mut l = String::new();
        match self.out.read_line(&mut l) {
            Ok(0) => Err("Stockfish exited unexpectedly".into()),
            Ok(_) => Ok(l.trim_end().to_string()),
            Err(e) => Err(format!("Stockfish: cannot read: {e}")),
        }
    }

    fn wait_for(&mut self, token: &str) -> Result {
        while self.read_line()? != token {}
        Ok(())
    }

    /// Searches `fen` to `depth` (only `only` if given): (best move, score in
    /// centipawns for the side to move, depth reached).
    pub(crate) fn search(&mut self, fen: &str, depth: u32, only: Option<&str>) -> Result<(String, i32, u32)> {
        self.send(&format!("position fen {fen}"))?;
        match only {
            Some(m) => self.send(&format!("go depth {depth} searchmoves {m}"))?,
            None => self.send(&format!("go depth {depth}"))?,
        }
        let (mut score, mut reached) = (None, 0);
        loop {
            let l = self.read_line()?;
            let t: Vec<&str> = l.split_whitespace().collect();
            match t.first() {
                Some(&"bestmove") => {
                    let best = t.get(1).unwrap_or(&"(none)").to_string();
                    let score = score.ok_or_else(|| format!("Stockfish gave no score for {fen}"))?;
                    return Ok((best, score, reached));
                }
                Some(&"info") if !l.contains("bound") => {
                    let field = |k: &str| t.iter().position(|x| *x == k).and_then(|i| t.get(i + 1));
                    if let Some(kind) = field("score") {
                        let v: i32 = t[t.iter().position(|x| *x == "score").unwrap() + 2].parse().unwrap_or(0);
                        score = Some(if *kind == "mate" { if v > 0 { 30000 - v } else { -30000 - v } } else { v });
                        reached = field("depth").and_then(|d| d.parse().ok()).unwrap_or(0);
                    }
                }
                _ => {}
            }
        }
    }
}

/// Stockfish processes working through a queue of jobs, one engine per
/// thread: `run` handles one job and sends what it finds to `results`; an
/// error (the engine not starting, a search failing) is sent too and ends
/// that worker.
pub(crate) struct Pool<J, R> {
    queue: Arc<Mutex<VecDeque<J>>>,
    pub(crate) results: mpsc::Receiver<Result<R>>,
    handles: Vec<std::thread::JoinHandle<()>>,
}

impl<J: Send + 'static, R: Send + 'static> Pool<J, R> {
    pub(crate) fn start<F>(stockfish: &Path, jobs: usize, work: Vec<J>, run: F) -> Pool<J, R>
    where
        F: Fn(&mut Stockfish, J, &mpsc::Sender<Result<R>>) -> Result + Clone + Send + 'static,
    {
        let queue = Arc::new(Mutex::new(VecDeque::from(work)));
        let (tx, results) = mpsc::channel();
        let handles = (0..jobs)
            .map(|_| {
                let (queue, tx, run, path) = (Arc::clone(&queue), tx.clone(), run.clone(), stockfish.to_path_buf());
                std::thread::spawn(move || {
                    let mut engine = match Stockfish::start(&path) {
                        Ok(e) => e,
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            return;
                        }
                    };
                    loop {
                        // (Not `while let`: the queue must not stay locked during the search.)
                        let next = queue.lock().unwrap().pop_front();
                        let Some(job) = next else { return };
                        if let Err(e) = run(&mut engine, job, &tx) {
                            let _ = tx.send(Err(e));
                            return;
                        }
                    }
                })
            })
            .collect();
        Pool { queue, results, handles }
    }

    /// Drops the jobs not yet taken: the workers stop after their current one.
    pub(crate) fn cancel(&self) {
        self.queue.lock().unwrap().clear();
    }

    pub(crate) fn join(self) {
        drop(self.results);
        for h in self.handles {
            let _ = h.join();
        }
    }
}

impl Drop for Stockfish {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let _ = self.child.wait();
    }
}

/// Work for one Stockfish: a position and the book moves in it to judge.
struct Job {
    fen: String,
    moves: Vec<String>,
}

fn check(depth: u32, tolerance: i32, jobs: usize, stockfish: &Path) -> Result {
    if stockfish == Path::new(STOCKFISH) {
        crate::setup::debian_engine("stockfish", "the book check's judge")?;
    }
    let (tree, blob) = build_blob()?;
    if std::fs::read(blob_path()).ok().as_deref() != Some(&blob[..]) {
        println!("note: assets/book.bin is stale; `cargo xtask book build` updates it");
    }
    let path = check_path();
    let mut rows = load_checks(&path)?;
    let all = edges(&tree);
    // Positions in ply order, each with its moves still to check.
    let mut work: Vec<Job> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for e in &all {
        if rows.get(&(e.fen.clone(), e.uci.clone())).is_some_and(|r| r.depth >= depth) {
            continue;
        }
        let k = *index.entry(e.fen.clone()).or_insert_with(|| {
            work.push(Job { fen: e.fen.clone(), moves: vec![] });
            work.len() - 1
        });
        work[k].moves.push(e.uci.clone());
    }
    let todo: usize = work.iter().map(|j| j.moves.len()).sum();
    println!("check: {} edges in the book, {} to search at depth {depth} in {} positions ({jobs} Stockfish, Threads=1, Hash=64)", all.len(), todo, work.len());
    if todo > 0 {
        if !path.exists() {
            std::fs::write(&path, format!("{TSV_HEADER}\n")).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        let mut file = std::fs::OpenOptions::new().append(true).open(&path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
        let pool = Pool::start(stockfish, jobs, work, move |engine, job: Job, tx| {
            let (best, best_score, d) = engine.search(&job.fen, depth, None)?;
            for m in &job.moves {
                let (loss, dm) = if *m == best {
                    (0, d)
                } else {
                    let (_, s, dm) = engine.search(&job.fen, depth, Some(m))?;
                    ((best_score - s).max(0), dm)
                };
                let row = Row { best: best.clone(), loss, depth: d.min(dm) };
                tx.send(Ok((job.fen.clone(), m.clone(), row))).map_err(|_| "stopped".to_string())?;
            }
            Ok(())
        });
        let mut done = 0;
        let start = std::time::Instant::now();
        let mut first_err = None;
        for msg in pool.results.iter() {
            match msg {
                Ok((fen, m, row)) => {
                    writeln!(file, "{fen}\t{m}\t{}\t{}\t{}", row.best, row.loss, row.depth).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                    file.flush().ok();
                    done += 1;
                    if row.loss > tolerance || done % 50 == 0 || done == todo {
                        let secs = start.elapsed().as_secs_f64();
                        println!(
                            "[{done}/{todo}, {:.0} s, ~{:.0} s left] {fen} {m}: loss {} cp{}",
                            secs,
                            secs / done as f64 * (todo - done) as f64,
                            row.loss,
                            if row.loss > tolerance { "  <-- over tolerance" } else { "" }
                        );
                    }
                    rows.insert((fen, m), row);
                }
                Err(e) => match first_err {
                    // The first error ends the run; report any others here.
                    Some(_) => eprintln!("check: {e}"),
                    None => first_err = Some(e),
                },
            }
        }
        pool.join();
        if let Some(e) = first_err {
            return Err(e);
        }
    }
    // Rewrite the results sorted, for the book's current edges only.
    let mut text = format!("{TSV_HEADER}\n");
    let mut lines: Vec<String> = Vec::new();
    for e in &all {
        if let Some(r) = rows.get(&(e.fen.clone(), e.uci.clone())) {
            lines.push(format!("{}\t{}\t{}\t{}\t{}", e.fen, e.uci, r.best, r.loss, r.depth));
        }
    }
    lines.sort();
    lines.dedup();
    for l in lines {
        let _ = writeln!(text, "{l}");
    }
    std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;

    let mut bad = Vec::new();
    let mut shallow = 0;
    for e in &all {
        match rows.get(&(e.fen.clone(), e.uci.clone())) {
            Some(r) if r.depth < depth => shallow += 1,
            Some(r) if r.loss > tolerance => bad.push((e, r.clone())),
            Some(_) => {}
            None => shallow += 1,
        }
    }
    println!("check: {} edges, {} within {tolerance} cp at depth >= {depth}, {} over, {shallow} not checked to that depth", all.len(), all.len() - bad.len() - shallow, bad.len());
    if bad.is_empty() && shallow == 0 {
        return Ok(());
    }
    for (e, r) in &bad {
        let best = best_san(&e.fen, &r.best);
        println!("  line {}: {}  loses {} cp (best {best})", e.line, e.path.join(" "), r.loss);
    }
    Err(format!("{} book moves lose more than {tolerance} cp, {shallow} unchecked at depth {depth}", bad.len()))
}

fn best_san(fen: &str, uci: &str) -> String {
    let pos: Option<Chess> = fen.parse::<Fen>().ok().and_then(|f| f.into_position(shakmaty::CastlingMode::Standard).ok());
    let m = pos.as_ref().and_then(|p| UciMove::from_ascii(uci.as_bytes()).ok()?.to_move(p).ok());
    match (pos, m) {
        (Some(p), Some(m)) => SanPlus::from_move(p, m).to_string(),
        _ => uci.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_blob_is_built_from_the_source() {
        let (tree, blob) = build_blob().unwrap();
        let committed = std::fs::read(blob_path()).expect("assets/book.bin is committed");
        assert!(committed == blob, "assets/book.bin is stale: run `cargo xtask book build` and commit it");
        assert!(tree.moves() >= 3000, "{} moves", tree.moves());
        assert!(blob.len() <= MAX_BYTES);
        assert!(padding(&blob) <= 6, "{} bits of padding", padding(&blob));
        assert!(decode(&blob).unwrap().iter().all(|r| r.1 <= 63));
    }

    /// A blob from its bits written first bit first ('0'/'1'; spaces ignored).
    fn blob_of(bits: &str) -> Vec<u8> {
        let bits: Vec<bool> = bits.chars().filter(|c| !c.is_whitespace()).map(|c| c == '1').collect();
        let mut out = vec![0u8; bits.len().div_ceil(8)];
        for (k, &b) in bits.iter().enumerate() {
            out[k / 8] |= u8::from(b) << (k % 8);
        }
        out
    }

    /// Bits of padding before the pad byte of a blob that [`pack`] made.
    fn padding(blob: &[u8]) -> usize {
        8 * (blob.len() - 1) - layout(&unpack(blob).unwrap()).unwrap().iter().map(|c| c.1).sum::<usize>()
    }

    /// The position after these SAN moves from the initial one.
    fn after(moves: &str) -> Chess {
        let mut pos = Chess::default();
        for m in moves.split_whitespace() {
            let m = San::from_ascii(m.as_bytes()).unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(m);
        }
        pos
    }

    #[test]
    fn the_key_is_the_rank_among_the_legal_moves() {
        // The 20 first moves by 64 * from + to: b1a3 b1c3 g1f3 g1h3, then the
        // pawns a2a3 a2a4 .. h2h3 h2h4 (from 8 .. 15, to the third rank first).
        let start = Chess::default();
        assert_eq!(key(&start, (12, 28)), 13, "e2e4: from 12 to 28");
        assert_eq!(key(&start, (12, 20)), 12, "e2e3");
        assert_eq!(key(&start, (1, 16)), 0, "b1a3");
        assert_eq!(key(&start, (6, 21)), 2, "g1f3");
        assert_eq!(key(&start, (11, 27)), 11, "d2d4");
        assert_eq!(key(&start, (15, 31)), 19, "h2h4");
        // Black after 1.e4: a7 .. h7 (from 48 .. 55, to the fifth rank first),
        // then the knights.
        let e4 = after("e4");
        assert_eq!(key(&e4, (52, 36)), 8, "e7e5");
        assert_eq!(key(&e4, (50, 34)), 4, "c7c5");
        assert_eq!(key(&e4, (62, 45)), 18, "g8f6");
        // Castling is the king's move e1g1 (4 -> 6): before it only b1a3,
        // b1c3, d1e2 and e1f1.
        let italian = after("e4 e5 Nf3 Nc6 Bc4 Bc5");
        assert_eq!(key(&italian, (4, 6)), 4, "e1g1");
        assert_eq!(key(&italian, (4, 5)), 3, "e1f1");
        let t = parse("t", "e4 e5 Nf3 Nc6 Bc4 Bc5 O-O\n").unwrap();
        assert_eq!(t.records("t").unwrap()[6] & 0x3f, 4, "the book's O-O");
        // En passant, e5xd6 (36 -> 43): before it the 29 moves of the
        // pieces on the first rank and of the pawns on the second.
        let ep = after("e4 a6 e5 d5");
        assert_eq!(key(&ep, (36, 43)), 29, "e5d6 en passant");
        assert_eq!(key(&ep, (36, 44)), 30, "e5e6");
        // Promotions: the four of a pawn share one value and count four times.
        let promo: Chess = "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1".parse::<Fen>().unwrap().into_position(shakmaty::CastlingMode::Standard).unwrap();
        // e1d1 e1f1 e1d2 e1e2 e1f2 (from 4), then b7b8 x4 (from 49).
        assert_eq!(key(&promo, (4, 13)), 4, "e1f2");
        assert_eq!(key(&promo, (49, 57)), 5, "b7b8");
        assert_eq!(key(&promo, (60, 61)), 9, "a value after the promotions");
    }

    #[test]
    fn encodes_a_small_tree_in_pre_order() {
        let t = parse("t", "e4 e5 Nf3 {3}\ne4 c5\nd4 d5 c4\nNf3 {1}\n").unwrap();
        assert_eq!(t.moves(), 8);
        let blob = t.encode("t").unwrap();
        let records = unpack(&blob).unwrap();
        // Records of 9 (e4: children, not last), 9 (e5), 13 (Nf3: weight
        // 3), 8 (c5: no children, last), 9 (d4), 7 (d5: children, last), 8
        // and 13 bits (Nf3: weight 1): 76 bits, 10 bytes with 4 bits of padding.
        assert_eq!(blob.len(), 10 + 1);
        assert_eq!(blob.len(), blob_len(&records).unwrap());
        assert_eq!(padding(&blob), 4);
        let has = 1 << 6;
        let last = 1 << 7;
        let w = |n: u16| (n - 1) << 8;
        assert_eq!(records[0], 13 | has | w(2)); // e2e4
        assert_eq!(records[1], 8 | has | w(2)); // e7e5
        assert_eq!(records[2], 13 | last | w(3)); // g1f3 after 1.e4 e5
        assert_eq!(records[3], 4 | last | w(2)); // c7c5
        assert_eq!(records.last().copied(), Some(2 | last | w(1))); // 1.Nf3, last first move
        // The bitstream itself: e2e4's key is the low 6 bits, then its shape
        // `1 1 0`; e7e5's key follows, then `1 1 0` again.
        assert_eq!(u16::from_le_bytes([blob[0], blob[1]]) & 0x1ff, 13 | 0b011 << 6);
        assert_eq!(u16::from_le_bytes([blob[1], blob[2]]) >> 1 & 0x1ff, 8 | 0b011 << 6);
        let back = decode(&blob).unwrap();
        let depths: Vec<usize> = back.iter().map(|d| d.0).collect();
        assert_eq!(depths, [0, 1, 2, 1, 0, 1, 2, 0]);
        let keys: Vec<u8> = back.iter().map(|d| d.1).collect();
        assert_eq!(keys, [13, 8, 13, 4, 11, 6, 18, 2]);
        assert_eq!(back[2].2, 3, "Nf3's weight");
        assert!(decode(&blob[..blob.len() - 2]).is_err(), "truncated");
        assert!(decode(&pack(&records[..7]).unwrap()).is_err(), "the tree is cut short");
        assert!(decode(&pack(&[&records[..], &records[..]].concat()).unwrap()).is_err(), "trailing data");
        let mut bad = blob.clone();
        *bad.last_mut().unwrap() = 1;
        assert!(decode(&bad).is_err(), "a pad byte that is not zero");
        assert!(decode(&[blob.clone(), vec![0]].concat()).is_err(), "a byte too many");
        // An empty book is refused.
        assert!(encode_source("book.txt", "# nothing\n").err().unwrap().contains("no moves"));
    }

    #[test]
    fn keeps_the_padding_under_seven_bits() {
        let (has, last) = (1 << 6, 1 << 7);
        let w = |n: u16| (n - 1) << 8;
        // 9 + 8 + 8 = 25 bits would leave 7 bits of padding: the last record
        // takes the escape code, 13 bits, and leaves 2.
        let records = [13 | has | w(2), 5 | last | w(2), 63 | last | w(2)];
        let blob = pack(&records).unwrap();
        let expect = blob_of("101100 110  101000 10  111111 111 0110  00  00000000");
        assert_eq!(blob, expect);
        assert_eq!(blob.len(), blob_len(&records).unwrap());
        assert_eq!(padding(&blob), 2);
        assert_eq!(unpack(&blob).unwrap(), records);
        assert_eq!(decode(&blob).unwrap(), [(0, 13, 2), (1, 5, 2), (0, 63, 2)]);
        // Where the last record already takes the escape code, an earlier
        // short one does: 7 + 13 + 13 = 33 bits, then 13 + 13 + 13 = 39.
        let records = [1 | has | last | w(2), 2 | w(2), 3 | last | w(4)];
        let blob = pack(&records).unwrap();
        let expect = blob_of("100000 111 1110  010000 111 0010  110000 111 0111  0  00000000");
        assert_eq!(blob, expect);
        assert_eq!(padding(&blob), 1);
        assert_eq!(decode(&blob).unwrap(), [(0, 1, 2), (1, 2, 2), (1, 3, 4)]);
        // No short code to lengthen: 5 x 13 = 65 bits cannot be packed.
        let all_escape = [1 | w(1), 2 | w(1), 3 | w(1), 4 | w(1), 5 | last | w(1)];
        assert!(pack(&all_escape).unwrap_err().contains("7 bits of padding"));
        // Nor can a last record with children (its code could be all zeros).
        assert!(pack(&[has | last | w(2)]).is_err());
    }

    #[test]
    fn unpack_refuses_bad_padding_and_cut_records() {
        let good = blob_of("101100 110  101000 10  111111 111 0110  00  00000000");
        assert_eq!(unpack(&good).unwrap().len(), 3);
        // The same records in their short codes: 25 bits and 7 of padding.
        let seven = blob_of("101100 110  101000 10  111111 10  0000000  00000000");
        let e = unpack(&seven).unwrap_err();
        assert!(e.contains("7 bits of padding"), "{e}");
        // A byte too many: 10 bits of padding.
        let e = unpack(&[&good[..], &[0]].concat()).unwrap_err();
        assert!(e.contains("10 bits of padding"), "{e}");
        let e = unpack(&[&seven[..], &[0]].concat()).unwrap_err();
        assert!(e.contains("15 bits of padding"), "{e}");
        // A record cut short: the escape-coded third one, without its last byte.
        let e = unpack(&good[..good.len() - 1]).unwrap_err();
        assert!(e.contains("record 2 is cut short"), "{e}");
        let cut = blob_of("101100 110  101000 10  111111 1  00000000");
        assert!(unpack(&cut).unwrap_err().contains("cut short"));
        // Padding that is not zero, before the pad byte or in it.
        let mut bad = good.clone();
        bad[3] |= 0x80;
        assert!(unpack(&bad).unwrap_err().contains("not zero"));
        let mut bad = good.clone();
        bad[4] = 0x10;
        assert!(unpack(&bad).unwrap_err().contains("not zero"));
        assert!(unpack(&[]).is_err());
        assert_eq!(unpack(&[0]).unwrap(), []);
    }

    #[test]
    fn packs_records_at_every_bit_offset() {
        // Every shape three times, with varied keys; a tree's last record has no children.
        let mut records: Vec<u16> = (0..48u16).map(|i| ((0x3f ^ (37 * i)) & 0x3f) | (i % 16) << 6).collect();
        records.push(9 | 0b0110 << 6);
        let blob = pack(&records).unwrap();
        assert_eq!(blob.len(), blob_len(&records).unwrap());
        assert_eq!(unpack(&blob).unwrap(), records);
        // Independently: the key, then the shape code of the module docs.
        let shape_code = |shape: u16, escape: bool| match shape {
            0b0111 if !escape => (0b0, 1),
            0b0110 if !escape => (0b01, 2),
            0b0101 if !escape => (0b011, 3),
            _ => (0b111 | u32::from(shape) << 3, 7),
        };
        let natural: usize = records.iter().map(|&r| 6 + shape_code(r >> 6, false).1).sum();
        let escaped = (natural % 8 == 1).then(|| records.iter().rposition(|&r| shape_code(r >> 6, false).1 < 7).unwrap());
        let mut bit = 0;
        let mut shifts = HashSet::new();
        for (i, &r) in records.iter().enumerate() {
            let v = u32::from_le_bytes([blob[bit / 8], blob[bit / 8 + 1], blob[bit / 8 + 2], 0]) >> (bit % 8);
            assert_eq!(v as u16 & 0x3f, r & 0x3f, "record {i}'s key");
            let (code, len) = shape_code(r >> 6, escaped == Some(i));
            assert_eq!(v >> 6 & ((1 << len) - 1), code, "record {i}'s shape");
            shifts.insert(bit % 8);
            bit += 6 + len;
        }
        assert_eq!(shifts.len(), 8, "records at every bit offset");
        assert_eq!(blob.len(), bit.div_ceil(8) + 1);
        assert!(8 * (blob.len() - 1) - bit <= 6, "padding");
        // A record cut short is refused; so is a byte too many.
        let escape = [0x3f | 0b1010 << 6];
        let whole = pack(&escape).unwrap();
        assert_eq!(unpack(&whole).unwrap(), escape);
        assert!(unpack(&whole[..whole.len() - 1]).is_err(), "cut short");
        assert!(unpack(&[&blob[..], &[0]].concat()).is_err(), "a byte too many");
        // Other lengths of the records, for the padding rule (from the 7th on,
        // record 5 has a short code to lengthen).
        for n in 7..records.len() {
            let mut some = records[..n].to_vec();
            *some.last_mut().unwrap() &= !(1 << 6);
            let blob = pack(&some).unwrap();
            assert_eq!(unpack(&blob).unwrap(), some, "{n} records");
        }
    }

    #[test]
    fn reports_bad_moves_with_line_numbers() {
        let e = parse("book.txt", "e4 e5\ne4 e5 Ke3\n").err().unwrap();
        assert!(e.contains("book.txt:2") && e.contains("Ke3") && e.contains("illegal"), "{e}");
        let e = parse("book.txt", "Nf3 d5 d3 e5 Nd2\n").err().unwrap();
        assert!(e.contains("book.txt:1") && e.contains("ambiguous"), "{e}");
        let e = parse("book.txt", "e4 {2} e5\ne4 {3}\n").err().unwrap();
        assert!(e.contains("book.txt:2") && e.contains("line 1"), "{e}");
        let e = parse("book.txt", "e4 x9\n").err().unwrap();
        assert!(e.contains("book.txt:1") && e.contains("x9"), "{e}");
    }

    #[test]
    fn castling_is_the_kings_move_and_numbers_are_ignored() {
        let t = parse("t", "1.e4 e5 2. Nf3 Nc6 3.Bc4 Bc5 4.O-O # Italian\n").unwrap();
        let mut id = 0;
        while let Some(&c) = t.nodes[id].children.first() {
            id = c;
        }
        assert_eq!(t.nodes[id].mv, (4, 6));
        assert_eq!(t.moves(), 7);
    }
}


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
//! Blob format (documented in full in `firmware/src/book.rs`): one
//! little-endian bitstream, least significant bit first, no other header:
//!
//! * bytes 0..24: the 3-bit *code* of each from square (square s = 0 = a1 ..
//!   63 = h8 at bits 3 s .. 3 s + 2);
//! * from byte 24: the move tree in pre-order, one record of 10 to 16 bits
//!   per move, back to back: bits 0-5 the to square (castling as the king's
//!   move e1g1), 6-8 the code of the from square, then the move's shape
//!   ("has children": they follow at once; "last sibling"; weight 1..4) in
//!   a prefix code, first bit first: `0` children, last, weight 2; `10`
//!   no children, last, weight 2; `110` children, not last, weight 2; `111`
//!   then 4 bits (children, last, weight - 1) for the rest ([`record_code`]).
//!   The top-level list holds the candidates in the initial position;
//! * zeros to a whole byte, then one more zero byte, so a three-byte read of
//!   any record stays inside the blob. The padding is shorter than any
//!   record, so the records end where no whole record fits.
//!
//! A record keeps (to square, from code) of its move, the *key*, not the
//! move. The build picks the codes ([`choose_codes`]: the square's file
//! wherever that works) so that in every book position no other legal move
//! has a book move's key, and checks it ([`Tree::check_keys`]): then a game's
//! move matches a record exactly, and the position alone turns a record back
//! into its move. (The file alone is not enough: after 1.e4 e5 2.Nf3 Nc6
//! 3.Bb5 a6 4.Ba4 Nf6 5.O-O Be7 both Re1 and Ne1 go to e1 from the f-file.)

use crate::util::{root, Result};
use clap::Subcommand;
use shakmaty::fen::Fen;
use shakmaty::san::{San, SanError, SanPlus};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, EnPassantMode, Move, Position};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
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
pub const MIN_RECORD_BITS: usize = 10;
/// Bytes of the from-square code table at the head of the blob (64 x 3 bits).
pub const CODES_BYTES: usize = 24;
/// A code of each from square 0 = a1 .. 63 = h8, 0..=7.
pub type Codes = [u8; 64];
/// A record as [`Tree::records`] gives it, above the key (to square, bits
/// 0-5; from code, 6-8): the shape, which the blob holds in a prefix code.
const HAS_CHILDREN: u16 = 1 << 9;
const LAST: u16 = 1 << 10;
const WEIGHT_SHIFT: u32 = 11;
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

    /// The records in pre-order: key, children, last, weight - 1 (bits 11-12).
    pub fn records(&self, codes: &Codes) -> Vec<u16> {
        let mut out = Vec::with_capacity(self.moves());
        // Explicit stack of (node, is last sibling) in pre-order.
        let mut stack: Vec<(usize, bool)> = Vec::new();
        let push_children = |stack: &mut Vec<(usize, bool)>, n: &Node| {
            for (k, &c) in n.children.iter().enumerate().rev() {
                stack.push((c, k + 1 == n.children.len()));
            }
        };
        push_children(&mut stack, &self.nodes[0]);
        while let Some((id, last)) = stack.pop() {
            let n = &self.nodes[id];
            let record = key(codes, n.mv)
                | if n.children.is_empty() { 0 } else { HAS_CHILDREN }
                | if last { LAST } else { 0 }
                | u16::from(n.weight() - 1) << WEIGHT_SHIFT;
            out.push(record);
            push_children(&mut stack, n);
        }
        out
    }

    /// The blob: the codes and the records packed into a bitstream (see
    /// the module docs).
    pub fn encode(&self, codes: &Codes) -> Vec<u8> {
        pack(codes, &self.records(codes))
    }

    /// The pairs of from squares whose codes must differ, each with the
    /// first source line that needs it: for every book move, its from square
    /// and that of every other legal move to the same square.
    pub fn conflicts(&self) -> BTreeMap<(u8, u8), usize> {
        let mut out = BTreeMap::new();
        for (id, pos, _) in self.walk() {
            let legal = pos.legal_moves();
            for &c in &self.nodes[id].children {
                let n = &self.nodes[c];
                for (from, to) in legal.iter().filter_map(squares) {
                    if to == n.mv.1 && from != n.mv.0 {
                        let line = out.entry((from.min(n.mv.0), from.max(n.mv.0))).or_insert(n.line);
                        *line = (*line).min(n.line);
                    }
                }
            }
        }
        out
    }

    /// Checks that in every book position no other legal move has the key
    /// of a book move under `codes`; the error names the source line, the
    /// moves and the position.
    pub fn check_keys(&self, name: &str, codes: &Codes) -> Result {
        let mut errors = Vec::new();
        for (id, pos, path) in self.walk() {
            let legal = pos.legal_moves();
            for &c in &self.nodes[id].children {
                let n = &self.nodes[c];
                let k = key(codes, n.mv);
                let book = find_move(&pos, n.mv).expect("book moves were legal when parsed");
                for o in legal.iter().filter(|o| **o != book && squares(o).map(|mv| key(codes, mv)) == Some(k)) {
                    let to = shakmaty::Square::new(n.mv.1.into());
                    errors.push(format!(
                        "{name}:{}: `{}` ({}) {} has the same book key (to {to}, from code {}) as the legal move {} ({}): \
                         the book's key cannot tell them apart (FEN {})",
                        n.line,
                        n.san,
                        UciMove::from_standard(book),
                        if path.is_empty() { "in the initial position".to_string() } else { format!("after {}", path.join(" ")) },
                        k >> 6,
                        SanPlus::from_move(pos.clone(), *o),
                        UciMove::from_standard(*o),
                        fen(&pos)
                    ));
                }
            }
        }
        if errors.is_empty() {
            return Ok(());
        }
        let n = errors.len();
        errors.truncate(30);
        Err(format!("{n} book move(s) share their key with another legal move:\n  {}", errors.join("\n  ")))
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

/// The key of a (from, to) move under `codes`: to square | code of the
/// from square << 6 (record bits 0-8).
pub fn key(codes: &Codes, mv: (u8, u8)) -> u16 {
    u16::from(mv.1) | u16::from(codes[usize::from(mv.0)]) << 6
}

/// Colouring steps before [`choose_codes`] gives up.
const COLOURING_STEPS: u64 = 10_000_000;

/// Codes 0..=7 for the 64 from squares such that the squares of each pair
/// in `conflicts` differ: a graph colouring by backtracking, the most
/// constrained squares first, trying each square's file first (so the code
/// is the file wherever that works). Deterministic. `Err` names the first
/// line of source `name` after which no colouring was found.
pub fn choose_codes(name: &str, conflicts: &BTreeMap<(u8, u8), usize>) -> Result<Codes> {
    fn colour(pairs: &[(u8, u8)]) -> Option<Codes> {
        let mut adj = vec![Vec::new(); 64];
        for &(a, b) in pairs {
            adj[usize::from(a)].push(usize::from(b));
            adj[usize::from(b)].push(usize::from(a));
        }
        let mut order: Vec<usize> = (0..64).collect();
        order.sort_by_key(|&s| std::cmp::Reverse(adj[s].len()));
        let mut codes = [u8::MAX; 64];
        let mut steps = 0u64;
        fn go(k: usize, order: &[usize], adj: &[Vec<usize>], codes: &mut Codes, steps: &mut u64) -> bool {
            let Some(&s) = order.get(k) else { return true };
            *steps += 1;
            if *steps > COLOURING_STEPS {
                return false;
            }
            for c in (0..8).map(|i| (s as u8 + i) % 8) {
                if adj[s].iter().all(|&t| codes[t] != c) {
                    codes[s] = c;
                    if go(k + 1, order, adj, codes, steps) {
                        return true;
                    }
                }
            }
            codes[s] = u8::MAX;
            false
        }
        go(0, &order, &adj, &mut codes, &mut steps).then_some(codes)
    }
    let pairs: Vec<(u8, u8)> = conflicts.keys().copied().collect();
    if let Some(codes) = colour(&pairs) {
        return Ok(codes);
    }
    // Name the line from which it fails: the shortest failing prefix of the source.
    let mut lines: Vec<usize> = conflicts.values().copied().collect();
    lines.sort();
    lines.dedup();
    let first_bad = lines.iter().copied().find(|&l| colour(&conflicts.iter().filter(|(_, &at)| at <= l).map(|(p, _)| *p).collect::<Vec<_>>()).is_none());
    let names = |l: usize| {
        let mut v: Vec<String> = conflicts
            .iter()
            .filter(|(_, &at)| at == l)
            .map(|(&(a, b), _)| format!("{}-{}", shakmaty::Square::new(a.into()), shakmaty::Square::new(b.into())))
            .collect();
        v.truncate(12);
        v.join(" ")
    };
    Err(match first_bad {
        Some(l) => format!(
            "{name}:{l}: from this line on, no 3-bit code of the from squares keeps every book move's key (to square, from code) \
             unique; the line adds these pairs of squares that must get different codes: {}. Drop or change the line",
            names(l)
        ),
        None => format!("{name}: no 3-bit code of the from squares found in {COLOURING_STEPS} steps for {} pairs", pairs.len()),
    })
}

/// A record's bits in the blob and their count: the key, then the prefix
/// code of its shape (children, last, weight; see the module docs).
pub fn record_code(r: u16) -> (u16, usize) {
    let key = r & 0x1ff;
    match r >> 9 {
        0b0111 => (key, 10),            // `0`: children, last, weight 2
        0b0110 => (key | 1 << 9, 11),   // `1 0`: no children, last, weight 2
        0b0101 => (key | 3 << 9, 12),   // `1 1 0`: children, not last, weight 2
        shape => (key | 7 << 9 | shape << 12, 16),
    }
}

/// Blob length for these records: the code table, the records to a whole
/// byte, and the zero pad byte.
pub fn blob_len(records: &[u16]) -> usize {
    CODES_BYTES + records.iter().map(|&r| record_code(r).1).sum::<usize>().div_ceil(8) + 1
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

/// Packs the codes and the records into the blob (see the module docs).
pub fn pack(codes: &Codes, records: &[u16]) -> Vec<u8> {
    let mut out = vec![0u8; blob_len(records)];
    for (s, &c) in codes.iter().enumerate() {
        put_bits(&mut out, 3 * s, 3, c.into());
    }
    let mut at = 8 * CODES_BYTES;
    for &r in records {
        let (v, n) = record_code(r);
        put_bits(&mut out, at, n, v);
        at += n;
    }
    out
}

/// The codes and records of a blob: the inverse of [`pack`]. Refuses a
/// blob shorter than the table and the pad byte, a record cut short, a
/// byte more than the records need, and padding that is not zero.
pub fn unpack(blob: &[u8]) -> Result<(Codes, Vec<u16>)> {
    if blob.len() < CODES_BYTES + 1 {
        return Err(format!("a blob of {} bytes is shorter than the code table and the pad byte", blob.len()));
    }
    // Bits before the pad byte.
    let limit = 8 * (blob.len() - 1);
    let mut at = 8 * CODES_BYTES;
    let mut records = Vec::new();
    while at + MIN_RECORD_BITS <= limit {
        // The shape code's bits, read one at a time (the pad byte is zero).
        let bit = |k: usize| get_bits(blob, at + 9 + k, 1) != 0;
        let (shape, len) = match (bit(0), bit(1), bit(2)) {
            (false, _, _) => (0b0111, 10),
            (true, false, _) => (0b0110, 11),
            (true, true, false) => (0b0101, 12),
            (true, true, true) => (if at + 16 <= limit { get_bits(blob, at + 12, 4) } else { 0 }, 16),
        };
        if at + len > limit {
            return Err(format!("record {} is cut short by the end of the blob", records.len()));
        }
        records.push(get_bits(blob, at, 9) | shape << 9);
        at += len;
    }
    if limit - at >= 8 {
        return Err(format!("a blob of {} bytes has a byte more than its records need", blob.len()));
    }
    if (at..8 * blob.len()).any(|i| get_bits(blob, i, 1) != 0) {
        return Err("the padding after the last record is not zero".into());
    }
    let mut codes = [0u8; 64];
    for (s, c) in codes.iter_mut().enumerate() {
        *c = get_bits(blob, 3 * s, 3) as u8;
    }
    Ok((codes, records))
}

/// Decodes a blob back into (depth, from code, to, weight) in pre-order,
/// checking its structure: the inverse of [`Tree::encode`], used by the
/// build and tests.
pub fn decode(blob: &[u8]) -> Result<Vec<(usize, u8, u8, u8)>> {
    let (_, records) = unpack(blob)?;
    let mut out = Vec::new();
    // For each list being read below the top: was its owner the last of its own list?
    let mut owners_last: Vec<bool> = Vec::new();
    let mut ended = records.is_empty();
    for w in records {
        if ended {
            return Err(format!("data after the end of the tree at move {}", out.len()));
        }
        let (has_children, last) = (w & HAS_CHILDREN != 0, w & LAST != 0);
        out.push((owners_last.len(), (w >> 6 & 7) as u8, (w & 63) as u8, (w >> WEIGHT_SHIFT) as u8 + 1));
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

/// Source text to blob: parse, choose the codes, check every key, encode,
/// decode again. Errors name the file and line.
pub fn encode_source(name: &str, text: &str) -> Result<(Tree, Vec<u8>)> {
    let tree = parse(name, text)?;
    if tree.moves() == 0 {
        return Err(format!("{name}: the book has no moves"));
    }
    let codes = choose_codes(name, &tree.conflicts())?;
    tree.check_keys(name, &codes)?;
    let blob = tree.encode(&codes);
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
    let (codes, _) = unpack(&blob)?;
    println!(
        "book: {} lines, {} moves, {} bytes ({} free of {MAX_BYTES}; from codes: {} of 64 squares differ from their file) -> {}{}",
        tree.lines,
        tree.moves(),
        blob.len(),
        MAX_BYTES - blob.len(),
        codes.iter().enumerate().filter(|&(s, &c)| c != s as u8 % 8).count(),
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
    }

    /// The simplest table, each square's code its file: not enough for the real book.
    fn file_codes() -> Codes {
        std::array::from_fn(|s| s as u8 % 8)
    }

    #[test]
    fn encodes_a_small_tree_in_pre_order() {
        let t = parse("t", "e4 e5 Nf3 {3}\ne4 c5\nd4 d5 c4\nNf3 {1}\ne4 e5 O-O\n".replace("O-O\n", "\n").as_str()).unwrap();
        assert_eq!(t.moves(), 8);
        // Nothing here needs a code other than the file.
        let codes = choose_codes("t", &t.conflicts()).unwrap();
        assert_eq!(codes, file_codes());
        let blob = t.encode(&codes);
        let (back_codes, records) = unpack(&blob).unwrap();
        // Records of 12 (e4: children, not last), 12, 16 (Nf3: weight 3),
        // 11 (c5: no children, last), 12, 10 (d5: children, last), 11 and
        // 16 bits (Nf3: weight 1): 100 bits, 13 bytes.
        assert_eq!(blob.len(), 24 + 13 + 1);
        assert_eq!(blob.len(), blob_len(&records));
        assert_eq!(back_codes, codes);
        let e2e4 = 28 | 4 << 6; // to e4, from the e-file
        let has = 1 << 9;
        let last = 1 << 10;
        let w = |n: u16| (n - 1) << 11;
        assert_eq!(records[0], e2e4 | has | w(2));
        assert_eq!(records[1], (36 | 4 << 6) | has | w(2)); // e7e5
        assert_eq!(records[2], (21 | 6 << 6) | last | w(3)); // Nf3, only child
        assert_eq!(records[3], (34 | 2 << 6) | last | w(2)); // c5
        assert_eq!(records.last().copied(), Some((21 | 6 << 6) | last | w(1))); // 1.Nf3, last first move
        // The bitstream itself: e2e4's key is the low 9 bits right after
        // the table, then its shape `1 1 0`; e7e5's key follows.
        assert_eq!(u16::from_le_bytes([blob[24], blob[25]]) & 0xfff, e2e4 | 0b011 << 9);
        assert_eq!(u16::from_le_bytes([blob[25], blob[26]]) >> 4 & 0x1ff, 36 | 4 << 6);
        assert_eq!(blob[0] & 7, 0, "a1 has code 0");
        assert_eq!(blob[2] >> 5, 7, "h1 (square 7) has code 7, bits 21-23");
        let back = decode(&blob).unwrap();
        let depths: Vec<usize> = back.iter().map(|d| d.0).collect();
        assert_eq!(depths, [0, 1, 2, 1, 0, 1, 2, 0]);
        assert_eq!((back[6].1, back[6].2, back[6].3), (2, 26, 2)); // c2c4: from code 2 (c-file), to c4, weight 2
        assert!(decode(&blob[..blob.len() - 2]).is_err(), "truncated");
        assert!(decode(&pack(&codes, &records[..7])).is_err(), "the tree is cut short");
        assert!(decode(&pack(&codes, &[&records[..], &records[..]].concat())).is_err(), "trailing data");
        let mut bad = blob.clone();
        *bad.last_mut().unwrap() = 1;
        assert!(decode(&bad).is_err(), "a pad byte that is not zero");
        assert!(decode(&[blob.clone(), vec![0]].concat()).is_err(), "a byte too many");
    }

    #[test]
    fn packs_records_at_every_bit_offset() {
        // Every shape three times, with varied keys.
        let records: Vec<u16> = (0..48u16).map(|i| (0x1ff ^ 37 * i) & 0x1ff | (i % 16) << 9).collect();
        let codes: Codes = std::array::from_fn(|s| (s * 5 % 8) as u8);
        let blob = pack(&codes, &records);
        assert_eq!(blob.len(), blob_len(&records));
        assert_eq!(unpack(&blob).unwrap(), (codes, records.clone()));
        // Independently: the key, then the shape code of the module docs.
        let mut bit = 8 * CODES_BYTES;
        let mut shifts = HashSet::new();
        for (i, &r) in records.iter().enumerate() {
            let v = u32::from_le_bytes([blob[bit / 8], blob[bit / 8 + 1], blob[bit / 8 + 2], 0]) >> (bit % 8);
            assert_eq!(v as u16 & 0x1ff, r & 0x1ff, "record {i}'s key");
            let (code, len) = match r >> 9 {
                0b0111 => (0b0, 1),
                0b0110 => (0b01, 2),
                0b0101 => (0b011, 3),
                shape => (0b111 | u32::from(shape) << 3, 7),
            };
            assert_eq!(v >> 9 & ((1 << len) - 1), code, "record {i}'s shape");
            shifts.insert(bit % 8);
            bit += 9 + len;
        }
        assert_eq!(shifts.len(), 8, "records at every bit offset");
        assert_eq!(blob.len(), CODES_BYTES + (bit - 8 * CODES_BYTES).div_ceil(8) + 1);
        // A record cut short is refused; a byte too many is refused or, where
        // the padding grows to 10 bits, read as one more (zero) record,
        // which `decode` refuses as data after the tree.
        let escape = [0x1ff | 0b1000 << 9];
        let whole = pack(&codes, &escape);
        assert_eq!(unpack(&whole).unwrap().1, escape);
        assert!(unpack(&whole[..whole.len() - 1]).is_err(), "cut short");
        assert_ne!(unpack(&[&blob[..], &[0]].concat()).ok().map(|b| b.1), Some(records), "a byte too many");
        assert!(unpack(&blob[..10]).is_err(), "shorter than the table");
    }

    /// 1.a4 h5 2.h4 a6 3.Rh3 b6 4.Rha3 c6: rooks on a1 and a3 can both go to a2.
    const TWO_ROOKS: &str = "a4 h5 h4 a6 Rh3 b6 Rha3 c6 R1a2\n";

    #[test]
    fn refuses_a_book_move_whose_key_another_move_shares() {
        // With the from file as the code (the plain layout), R1a2 and R3a2
        // have one key: the check names the line, both moves and the position.
        let t = parse("tiny.txt", TWO_ROOKS).unwrap();
        let e = t.check_keys("tiny.txt", &file_codes()).err().unwrap();
        assert!(e.contains("tiny.txt:1") && e.contains("R1a2") && e.contains("a1a2") && e.contains("R3a2") && e.contains("a3a2"), "{e}");
        assert!(e.contains("after a4 h5 h4 a6 Rh3 b6 Rha3 c6") && e.contains("FEN"), "{e}");
        // The same in the real book: Re1 and Ne1 after 5.O-O Be7 (both from the f-file).
        let t = parse("book.txt", "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1\n").unwrap();
        let e = t.check_keys("book.txt", &file_codes()).unwrap_err();
        assert!(e.contains("Re1") && e.contains("Ne1"), "{e}");
        // The build gives the squares different codes, and the check passes.
        let codes = choose_codes("book.txt", &t.conflicts()).unwrap();
        assert_ne!(codes[5], codes[21], "f1 and f3");
        t.check_keys("book.txt", &codes).unwrap();
        let (_, blob) = encode_source("tiny.txt", TWO_ROOKS).unwrap();
        let (codes, _) = unpack(&blob).unwrap();
        assert_ne!(codes[0], codes[16], "a1 and a3");
    }

    #[test]
    fn refuses_a_book_no_code_can_tell_apart() {
        // Nine squares that must all differ: eight codes cannot do it. The
        // last pair, given by line 7, makes it impossible.
        let nine = [0u8, 1, 2, 3, 4, 5, 6, 7, 8];
        let mut conflicts = BTreeMap::new();
        for (i, &a) in nine.iter().enumerate() {
            for &b in &nine[i + 1..] {
                conflicts.insert((a, b), 3);
            }
        }
        conflicts.insert((7, 8), 7);
        let e = choose_codes("book.txt", &conflicts).unwrap_err();
        assert!(e.contains("book.txt:7") && e.contains("h1-a2"), "{e}");
        // Eight are fine, each with its own code.
        conflicts.retain(|&(a, b), _| a < 8 && b < 8);
        let codes = choose_codes("book.txt", &conflicts).unwrap();
        let mut used: Vec<u8> = codes[..8].to_vec();
        used.sort();
        used.dedup();
        assert_eq!(used.len(), 8);
        // An empty book is refused too.
        assert!(encode_source("book.txt", "# nothing\n").err().unwrap().contains("no moves"));
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


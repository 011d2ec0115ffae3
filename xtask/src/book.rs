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
//! Blob format (documented in full in `firmware/src/book.rs`): the move tree
//! serialized in pre-order, one little-endian u16 per move:
//! bits 0-5 from square, 6-11 to square (0 = a1 .. 63 = h8, castling as the
//! king's move e1g1), bit 12 "has children" (they follow at once), bit 13
//! "last sibling", bits 14-15 weight - 1. The top-level list holds the
//! candidates in the initial position; no header, length = 2 * moves.

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
const STOCKFISH: &str = "/usr/games/stockfish";

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
    /// Book moves: the edges of the tree.
    pub fn moves(&self) -> usize {
        self.nodes.len() - 1
    }

    /// The blob: pre-order, one little-endian u16 per move.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(2 * self.moves());
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
            let word = u16::from(n.mv.0)
                | u16::from(n.mv.1) << 6
                | u16::from(!n.children.is_empty()) << 12
                | u16::from(last) << 13
                | u16::from(n.weight() - 1) << 14;
            out.extend_from_slice(&word.to_le_bytes());
            push_children(&mut stack, n);
        }
        out
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

/// Decodes a blob back into (depth, from, to, weight) in pre-order, checking
/// its structure: the inverse of [`Tree::encode`], used by the build and tests.
pub fn decode(blob: &[u8]) -> Result<Vec<(usize, u8, u8, u8)>> {
    if !blob.len().is_multiple_of(2) {
        return Err("odd blob length".into());
    }
    let mut out = Vec::new();
    // For each list being read below the top: was its owner the last of its own list?
    let mut owners_last: Vec<bool> = Vec::new();
    let mut ended = blob.is_empty();
    for w in blob.chunks(2).map(|c| u16::from_le_bytes([c[0], c[1]])) {
        if ended {
            return Err(format!("data after the end of the tree at move {}", out.len()));
        }
        let (has_children, last) = (w & 1 << 12 != 0, w & 1 << 13 != 0);
        out.push((owners_last.len(), (w & 63) as u8, (w >> 6 & 63) as u8, (w >> 14) as u8 + 1));
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

pub fn build_blob() -> Result<(Tree, Vec<u8>)> {
    let (path, text) = read_source()?;
    let tree = parse(&path.display().to_string(), &text)?;
    let blob = tree.encode();
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
    println!(
        "book: {} lines, {} moves, {} bytes ({} free of {MAX_BYTES}) -> {}{}",
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
struct Engine {
    child: Child,
    stdin: ChildStdin,
    out: BufReader<ChildStdout>,
}

impl Engine {
    fn start(path: &Path) -> Result<Engine> {
        if !path.exists() {
            return Err(format!(
                "Stockfish not found at {}: the book check needs it.\n  fix: apt-get install stockfish (Debian puts it in /usr/games), or pass --stockfish PATH",
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
        let mut e = Engine { child, stdin, out };
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
    fn search(&mut self, fen: &str, depth: u32, only: Option<&str>) -> Result<(String, i32, u32)> {
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

impl Drop for Engine {
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
        let queue = Arc::new(Mutex::new(VecDeque::from(work)));
        let (tx, rx) = mpsc::channel::<Result<(String, String, Row)>>();
        let mut handles = Vec::new();
        for _ in 0..jobs {
            let queue = Arc::clone(&queue);
            let tx = tx.clone();
            let sf = stockfish.to_path_buf();
            handles.push(std::thread::spawn(move || {
                let mut engine = match Engine::start(&sf) {
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
                    let r = (|| -> Result {
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
                    })();
                    if let Err(e) = r {
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
            }));
        }
        drop(tx);
        let mut done = 0;
        let start = std::time::Instant::now();
        let mut first_err = None;
        for msg in rx {
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
        for h in handles {
            let _ = h.join();
        }
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

    #[test]
    fn encodes_a_small_tree_in_pre_order() {
        let t = parse("t", "e4 e5 Nf3 {3}\ne4 c5\nd4 d5 c4\nNf3 {1}\ne4 e5 O-O\n".replace("O-O\n", "\n").as_str()).unwrap();
        assert_eq!(t.moves(), 8);
        let words: Vec<u16> = t.encode().chunks(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
        let e2e4 = 12 | 28 << 6;
        let has = 1 << 12;
        let last = 1 << 13;
        let w = |n: u16| (n - 1) << 14;
        assert_eq!(words[0], e2e4 | has | w(2));
        assert_eq!(words[1], (52 | 36 << 6) | has | w(2)); // e7e5
        assert_eq!(words[2], (6 | 21 << 6) | last | w(3)); // Nf3, only child
        assert_eq!(words[3], (50 | 34 << 6) | last | w(2)); // c5
        assert_eq!(words.last().copied(), Some((6 | 21 << 6) | last | w(1))); // 1.Nf3, last first move
        let back = decode(&t.encode()).unwrap();
        let depths: Vec<usize> = back.iter().map(|d| d.0).collect();
        assert_eq!(depths, [0, 1, 2, 1, 0, 1, 2, 0]);
        assert_eq!((back[6].1, back[6].2, back[6].3), (10, 26, 2)); // c2c4
        assert!(decode(&t.encode()[..6]).is_err(), "truncated");
        assert!(decode(&[t.encode(), t.encode()].concat()).is_err(), "trailing data");
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

//! Shared helpers of the engine tests (included with `#[path]`; also a
//! trivial test target of its own).
#![allow(dead_code)]

use firmware::chess::{Move, MoveGen, MoveKind, Position};
use firmware::engine::{SearchHost, SearchInfo};
use std::time::Instant;

/// Host with a real clock that never stops the search by itself.
pub struct RealHost {
    pub start: Instant,
    pub verbose: bool,
    pub last_depth: u8,
}

impl Default for RealHost {
    fn default() -> Self {
        Self::new()
    }
}

impl RealHost {
    pub fn new() -> Self {
        RealHost { start: Instant::now(), verbose: false, last_depth: 0 }
    }
}

impl SearchHost for RealHost {
    fn now_ms(&mut self) -> u32 {
        self.start.elapsed().as_millis() as u32
    }
    fn stop_requested(&mut self) -> bool {
        false
    }
    fn report(&mut self, info: &SearchInfo) {
        self.last_depth = info.depth;
        if self.verbose {
            let pv: Vec<String> = info.pv.iter().map(|m| coord(*m)).collect();
            println!(
                "depth {} sel {} score {:?} nodes {} ms {} pv {}",
                info.depth, info.seldepth, info.score, info.nodes, info.elapsed_ms, pv.join(" ")
            );
        }
    }
}

pub fn coord(m: Move) -> String {
    let mut b = [0u8; 5];
    let n = m.write_coord(&mut b).unwrap();
    String::from_utf8_lossy(&b[..n]).into_owned()
}

pub fn pos(fen: &str) -> Position {
    Position::from_fen(fen.as_bytes()).unwrap_or_else(|e| panic!("bad FEN {fen}: {e:?}"))
}

pub fn legal_moves(p: &Position) -> Vec<Move> {
    let mut g = MoveGen::new();
    let mut v = Vec::new();
    while let Some(m) = g.next_legal(p) {
        v.push(m);
    }
    v
}

/// Standard algebraic notation of legal move `m` in `p` (no check suffix).
pub fn san(p: &Position, m: Move) -> String {
    use firmware::chess::piece::*;
    let from = m.from();
    let to = m.to();
    let kind = kind_of(p.piece_at(from));
    let sq = |s: u8| format!("{}{}", (b'a' + (s & 7)) as char, (b'1' + (s >> 4)) as char);
    if m.kind() == MoveKind::Castle {
        return if to > from { "O-O".into() } else { "O-O-O".into() };
    }
    let mut s = String::new();
    if kind == PAWN {
        if m.is_capture() {
            s.push((b'a' + (from & 7)) as char);
            s.push('x');
        }
        s.push_str(&sq(to));
        if m.is_promotion() {
            s.push('=');
            s.push(b"??NBRQ"[m.promotion() as usize] as char);
        }
        return s;
    }
    s.push(b"??NBRQK"[kind as usize] as char);
    // Disambiguation.
    let others: Vec<Move> = legal_moves(p)
        .into_iter()
        .filter(|o| o.to() == to && o.from() != from && kind_of(p.piece_at(o.from())) == kind)
        .collect();
    if !others.is_empty() {
        let same_file = others.iter().any(|o| o.from() & 7 == from & 7);
        let same_rank = others.iter().any(|o| o.from() >> 4 == from >> 4);
        if !same_file {
            s.push((b'a' + (from & 7)) as char);
        } else if !same_rank {
            s.push((b'1' + (from >> 4)) as char);
        } else {
            s.push_str(&sq(from));
        }
    }
    if m.is_capture() {
        s.push('x');
    }
    s.push_str(&sq(to));
    s
}

/// Finds the legal move written in SAN (suffixes +, #, !, ? ignored).
pub fn parse_san(p: &Position, text: &str) -> Option<Move> {
    let t: String = text.chars().filter(|c| !"+#!?".contains(*c)).collect();
    let t = t.replace("0-0-0", "O-O-O").replace("0-0", "O-O");
    legal_moves(p).into_iter().find(|&m| {
        let s = san(p, m);
        s == t || s.replace('x', "") == t.replace('x', "") || s.replace('=', "") == t.replace('=', "")
    })
}

/// One EPD record: FEN (4 fields + default counters) and its operations.
pub struct Epd {
    pub fen: String,
    pub ops: Vec<(String, String)>,
}

impl Epd {
    pub fn op(&self, name: &str) -> Option<&str> {
        self.ops.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

pub fn load_epd(path: &str) -> Vec<Epd> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.splitn(5, ' ').collect();
            let fen = format!("{} {} {} {} 0 1", fields[0], fields[1], fields[2], fields[3]);
            let rest = fields.get(4).copied().unwrap_or("");
            let ops = rest
                .split(';')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|op| match op.split_once(' ') {
                    Some((k, v)) => (k.to_string(), v.trim().trim_matches('"').to_string()),
                    None => (op.to_string(), String::new()),
                })
                .collect();
            Epd { fen, ops }
        })
        .collect()
}

/// The engine's benchmark positions, `assets/bench_positions.epd`.
pub fn bench_positions() -> Vec<Epd> {
    load_epd(&format!("{}/../assets/bench_positions.epd", env!("CARGO_MANIFEST_DIR")))
}

pub fn testdata(name: &str) -> String {
    format!("{}/../../shared/testdata/{}", env!("CARGO_MANIFEST_DIR"), name)
}

#[test]
fn san_round_trip() {
    let p = pos("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    for m in legal_moves(&p) {
        assert_eq!(parse_san(&p, &san(&p, m)), Some(m));
    }
}

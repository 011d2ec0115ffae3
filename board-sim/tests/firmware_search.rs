//! The AVR build searches exactly as the host build of the same source:
//! every position of `assets/bench_positions.epd` and a few more to depth
//! 4, searched by the firmware in the emulator over its serial protocol
//! and by the engine compiled for this machine, gives the same reports
//! (depth, selective depth, nodes, main line) and the same best move. The hot paths of the
//! AVR build may be written differently from the host's (inline assembly
//! in place of the Rust scan): one node more or less anywhere shows here.
//! The AVR's swap-off (`see`) is also checked alone, called directly in
//! the emulator, on the moves the search never gives it (en passant,
//! promotions).
//!
//! Needs the AVR build: `cargo xtask test` builds it and passes its path in
//! `PRODIGY_ELF`.

mod common;

use board_sim::board::Board;
use common::{coord, ms, usart, CLOCK_HZ};
use emulator::Stop;
use firmware::chess::Position;
use firmware::engine::{Engine, SearchHost, SearchInfo, SearchLimits};
use std::path::PathBuf;

const DEPTH: u8 = 4;

/// Sends `line` and runs until a line satisfying `last` arrives; returns
/// all lines received.
fn exchange(b: &mut Board, line: &str, timeout_ms: u64, last: impl Fn(&str) -> bool) -> Vec<String> {
    let now = b.avr.cycles();
    usart(b).host_send(now, format!("{line}\n").as_bytes());
    let end = now + ms(timeout_ms);
    let mut text = String::new();
    while b.avr.cycles() < end {
        assert_eq!(b.run_for(ms(20)), Stop::CycleLimit, "the firmware stopped after {line:?}");
        text.push_str(&String::from_utf8_lossy(&usart(b).host_take()));
        let lines: Vec<String> = text.lines().map(|l| l.trim_end().to_string()).collect();
        if text.ends_with('\n') && lines.last().is_some_and(|l| last(l)) {
            return lines;
        }
    }
    panic!("no answer to {line:?} within {timeout_ms} ms of emulated time: {text:?}");
}

/// One report: depth, selective depth, nodes, main line.
#[derive(Debug, PartialEq, Eq)]
struct Report {
    depth: u8,
    seldepth: u8,
    nodes: u32,
    pv: String,
}

/// The firmware's `info` line, e.g. `info depth 4 seldepth 9 score cp 84
/// nodes 1340 time 2068 pv c1b1`.
fn parse_info(line: &str) -> Report {
    let words: Vec<&str> = line.split_whitespace().collect();
    let field = |name: &str| -> u32 {
        let i = words.iter().position(|w| *w == name).unwrap_or_else(|| panic!("no {name} in {line:?}"));
        words[i + 1].parse().unwrap_or_else(|e| panic!("bad {name} in {line:?}: {e}"))
    };
    let pv = match words.iter().position(|w| *w == "pv") {
        Some(i) => words[i + 1..].join(" "),
        None => String::new(),
    };
    Report { depth: field("depth") as u8, seldepth: field("seldepth") as u8, nodes: field("nodes"), pv }
}

/// The host engine's reports, with a clock that never moves (the search is
/// limited by depth only).
struct Recorder(Vec<Report>);

impl SearchHost for Recorder {
    fn now_ms(&mut self) -> u32 {
        0
    }
    fn stop_requested(&mut self) -> bool {
        false
    }
    fn report(&mut self, info: &SearchInfo) {
        let pv: Vec<String> = info.pv.iter().map(|m| coord(*m)).collect();
        self.0.push(Report { depth: info.depth, seldepth: info.seldepth, nodes: info.nodes, pv: pv.join(" ") });
    }
}

/// Beyond the bench's middlegames: promotions and under-promotions for
/// both sides, an en-passant capture, a rook-and-pawns ending and the
/// mating evaluation against a bare king.
const MORE: [(&str, &str); 16] = [
    ("r3k2r/pPpp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1", "promotions"),
    ("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3", "en passant"),
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", "rook and pawns"),
    ("8/8/3k4/8/8/2BNK3/8/8 b - - 0 1", "KBNK"),
    // Pawn endings (the passed pawns' quadrant rule) and other sparse
    // boards, which the bench positions do not reach.
    ("8/5k2/8/3P4/8/8/6K1/8 w - - 0 1", "passed pawn"),
    ("8/1p6/8/8/8/8/5PPK/1k6 b - - 0 1", "passed pawn, defender to move"),
    ("8/8/8/4k3/8/2N5/P7/4K3 b - - 0 1", "knight and pawn"),
    ("4k3/8/8/8/8/p7/8/4K3 w - - 0 1", "black passed pawn"),
    ("8/8/8/8/1k6/8/1p6/4K3 w - - 0 1", "pawn on the 7th"),
    ("8/pp3k2/8/8/8/8/5PPP/6K1 w - - 0 1", "pawn ending"),
    ("4k3/1P6/8/8/8/8/8/r3K3 w - - 0 1", "promotion against a rook"),
    ("8/8/8/4k3/8/8/8/R3K3 w - - 0 1", "KRK"),
    ("4k3/8/8/8/8/8/1q6/6K1 w - - 0 1", "KQK, lone king to move"),
    ("8/8/3K4/8/8/2bnk3/8/8 w - - 0 1", "KBNK, lone king to move"),
    // In check at the root: the picker's evasions below it.
    ("4k3/8/8/8/1b6/8/8/R2QK2R w KQ - 0 1", "in check, blocks"),
    ("7R/8/8/8/r6K/2P5/1P2N3/k7 w - - 0 1", "in check, pawn blocks"),
];

/// (FEN, name) of each bench position, then [`MORE`].
fn positions() -> Vec<(String, String)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../assets/bench_positions.epd");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let fields: Vec<&str> = l.split_whitespace().collect();
            let name = l.split('"').nth(1).unwrap_or("?").to_string();
            (format!("{} 0 1", fields[..4].join(" ")), name)
        })
        .chain(MORE.iter().map(|(fen, name)| (fen.to_string(), name.to_string())))
        .collect()
}

#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn the_avr_search_equals_the_host_search_node_for_node() {
    let path = std::env::var("PRODIGY_ELF")
        .expect("PRODIGY_ELF is not set: this test runs the AVR firmware; run it with `cargo xtask test`");
    let mut b = Board::from_elf_file(path.as_ref(), CLOCK_HZ).unwrap_or_else(|e| panic!("{e}"));
    b.run_for(ms(2500));
    usart(&mut b).host_take();
    // One engine for all positions, as the firmware keeps one: what a
    // search leaves behind (the pawn cache) is carried over alike.
    let mut engine = Engine::new();
    let list = positions();
    assert!(list.len() >= 20, "only {} bench positions", list.len());
    let mut nodes = 0u64;
    for (fen, name) in &list {
        assert_eq!(exchange(&mut b, &format!("fen {fen}"), 1_000, |_| true), vec!["ok"], "{name}");
        let lines = exchange(&mut b, &format!("go depth {DEPTH}"), 120_000, |l| l.starts_with("bestmove"));
        let avr: Vec<Report> = lines.iter().filter(|l| l.starts_with("info depth")).map(|l| parse_info(l)).collect();
        let avr_best = lines.last().unwrap().split_whitespace().nth(1).unwrap_or("").to_string();

        let mut pos = Position::from_fen(fen.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        // As the firmware's `fen` command does.
        engine.clear();
        let mut host = Recorder(Vec::new());
        let result = engine.search(&mut pos, &SearchLimits::depth(DEPTH), &mut host);
        assert_eq!(avr, host.0, "{name}: the reports differ (left: AVR, right: host)");
        assert_eq!(avr_best, coord(result.best), "{name}: the best moves differ");
        assert_eq!(avr.last().map(|r| r.depth), Some(DEPTH), "{name}");
        nodes += result.nodes as u64;
    }
    // The bench's tree, so not a trivially small one.
    assert!(nodes > 20_000, "{nodes} nodes in all");
}

/// Positions rich in en-passant captures and promotions (captures on the
/// promotion square among them), for [`the_avr_see_equals_the_host_see`].
const SEE_FENS: [&str; 8] = [
    "r3k2r/pPpp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "1r1qk1nr/P1P2pPp/8/1pPpP3/8/8/pp1p1PpP/RN2K1R1 w - d6 0 1",
    "r1n3r1/1P1P1P1P/7k/3pP3/2pP4/4K3/1p5p/R1N3R1 b - d3 0 1",
    "2r1r3/1P1P2k1/8/4pPp1/1PpP4/8/1p1p2K1/2R1R3 w - e6 0 1",
    "n1b1r1q1/PP1P1P1P/2k5/1pP5/5pP1/2K5/pp1p1p1p/N1B1R1Q1 b - g3 0 1",
    "4k3/8/8/2PpP3/8/8/8/4K3 w - d6 0 1",
    "4k3/8/8/8/3pPp2/8/8/4K3 b - e3 0 1",
];

/// The AVR's `see` (its hand-written `see_avr`, called directly in the
/// emulator on the firmware's own position, set up by its `fen` command)
/// gives the host's value for every legal move of positions along
/// random games from [`SEE_FENS`]. The search never asks it about an
/// en-passant capture or a promotion (captures come from the picker's
/// scan as plain moves, those two have stages of their own), so the
/// node-for-node test above cannot reach those paths of its assembly.
#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn the_avr_see_equals_the_host_see() {
    use firmware::chess::{MoveGen, MoveKind};
    let mut b = common::boot();
    let see_pc = common::symbol(&b, "see7see_avr") / 2;
    let position = common::symbol(&b, "CHESS_POSITION") as u16;
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let (mut checked, mut en_passant, mut promotions, mut taking_promotions) = (0u32, 0u32, 0u32, 0u32);
    for fen in SEE_FENS {
        for _game in 0..8 {
            let mut pos = Position::from_fen(fen.as_bytes()).unwrap_or_else(|e| panic!("{fen}: {e:?}"));
            for _ply in 0..12 {
                let mut buf = [0u8; firmware::chess::FEN_MAX_LEN];
                let n = pos.write_fen(&mut buf).unwrap();
                let text = String::from_utf8_lossy(&buf[..n]).into_owned();
                assert_eq!(exchange(&mut b, &format!("fen {text}"), 1_000, |_| true), vec!["ok"], "{text}");
                // The firmware's position as its `fen` command builds it:
                // the swap-off's order among equal attackers follows the
                // piece lists, which the moves made here may have ordered
                // otherwise.
                let fresh = Position::from_fen(text.as_bytes()).unwrap();
                let mut moves = Vec::new();
                let mut gen = MoveGen::new();
                while let Some(m) = gen.next_legal(&pos) {
                    moves.push(m);
                }
                if moves.is_empty() {
                    break;
                }
                for &m in &moves {
                    let args = [(24, position as u8), (25, (position >> 8) as u8), (22, m.0 as u8), (23, (m.0 >> 8) as u8)];
                    let returned = common::call(&mut b, see_pc, &args, &format!("{text} {}", coord(m)));
                    let avr = i16::from_le_bytes([returned[24], returned[25]]);
                    assert_eq!(avr, firmware::engine::see(&fresh, m), "{text} {}: AVR, host", coord(m));
                    checked += 1;
                    en_passant += m.is(MoveKind::EnPassant) as u32;
                    promotions += m.is_promotion() as u32;
                    taking_promotions += (m.is_promotion() && m.is_capture()) as u32;
                }
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let m = moves[(seed >> 33) as usize % moves.len()];
                pos.make_move(m);
            }
        }
    }
    eprintln!("{checked} moves, {en_passant} en passant, {promotions} promotions ({taking_promotions} taking)");
    assert!(en_passant >= 40 && taking_promotions >= 1_000, "{checked} {en_passant} {promotions} {taking_promotions}");
}

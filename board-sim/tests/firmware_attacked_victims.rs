//! The AVR's `attacked_victims` (the picker's scan of the enemy men a
//! side attacks, hand-written assembly) gives the host's result, called
//! directly in the emulator on the firmware's own position along random
//! games: the victims' slot bits, the attacker classes, and its note of
//! the side's queen. The node-for-node search test sees the scan only
//! through the moves it orders; a wrong bit there may change no node of
//! the bench, and a wrong scan may still pass it by luck. This test also
//! reaches what the bench's middlegames rarely do: promoted men, several
//! queens, a pawn in an officer's slot (below a bound raised by a
//! promotion), men on every edge.
//!
//! Needs the AVR build: `cargo xtask test` builds it and passes its path in
//! `PRODIGY_ELF`.

mod common;

use board_sim::board::Board;
use common::{ask, boot, call, coord, fen, symbol};
use firmware::chess::piece::{BLACK_OFFSET, PAWN, QUEEN};
use firmware::chess::{Color, Move, MoveGen, Position, NO_SQUARE};
use firmware::engine::picker::attacked_victims;
use std::path::PathBuf;

/// Sends `line` and runs until the firmware's answer, which must be `ok`.
fn command(b: &mut Board, line: &str) {
    assert_eq!(ask(b, line), "ok", "{line}");
}

/// Promotions for both sides, under-promotions, pawns on every file and
/// men on the edges, beside the bench's middlegames.
const MORE: [&str; 10] = [
    "r3k2r/pPpp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "1r1qk1nr/P1P2pPp/8/1pPpP3/8/8/pp1p1PpP/RN2K1R1 w - d6 0 1",
    "r1n3r1/1P1P1P1P/7k/3pP3/2pP4/4K3/1p5p/R1N3R1 b - d3 0 1",
    "2r1r3/1P1P2k1/8/4pPp1/1PpP4/8/1p1p2K1/2R1R3 w - e6 0 1",
    "n1b1r1q1/PP1P1P1P/2k5/1pP5/5pP1/2K5/pp1p1p1p/N1B1R1Q1 b - g3 0 1",
    "1q5k/1P1P1P1P/8/8/8/8/1p1p1p1p/1Q5K w - - 0 1",
    "7k/1P4P1/8/N6N/n6n/8/1p4p1/3K4 b - - 0 1",
    "r6r/1k6/8/Q6Q/q6q/8/6K1/R6R w - - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "4k3/8/8/8/1b6/8/8/R2QK2R w KQ - 0 1",
];

/// The FEN of each bench position, then [`MORE`].
fn positions() -> Vec<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../assets/bench_positions.epd");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| format!("{} 0 1", l.split_whitespace().take(4).collect::<Vec<_>>().join(" ")))
        .chain(MORE.iter().map(|f| f.to_string()))
        .collect()
}

/// The note the AVR's scan leaves of `us`'s queen: its square, 0x08 for
/// none, 0xFF for several.
fn queen_note(pos: &Position, us: Color) -> u8 {
    let queen = QUEEN + if us == Color::White { 0 } else { BLACK_OFFSET };
    let queens: Vec<u8> =
        pos.piece_list(us).iter().copied().filter(|&s| s != NO_SQUARE && pos.code_on(s) == queen).collect();
    match queens.len() {
        0 => 0x08,
        1 => queens[0],
        _ => 0xFF,
    }
}

#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn the_avr_attacked_victims_equals_the_host_scan() {
    let mut b = boot();
    let scan_pc = symbol(&b, "picker16attacked_victims") / 2;
    let queen_note_at = symbol(&b, "picker10QUEEN_NOTE") as u16;
    let position = symbol(&b, "CHESS_POSITION") as u16;
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let (mut calls, mut victims, mut pawns_below_bound, mut several_queens) = (0u32, 0u32, 0u32, 0u32);
    let mut classes_seen = 0u8;
    for start in positions() {
        for _game in 0..5 {
            command(&mut b, &format!("fen {start}"));
            let mut pos = Position::from_fen(start.as_bytes()).unwrap_or_else(|e| panic!("{start}: {e:?}"));
            for _ply in 0..60 {
                let text = fen(&pos);
                // The firmware's board, slot map and piece lists are the
                // host's (the same moves made from the same set-up).
                let ram = b.avr.read_data_range(position, 160);
                for sq in (0..128u8).filter(|s| s & 0x88 == 0) {
                    assert_eq!(ram[sq as usize], pos.byte_at(sq), "{text}: the board at {sq:#x}");
                    if pos.byte_at(sq) != 0 {
                        assert_eq!(ram[sq as usize + 8] & 15, pos.slot_at(sq), "{text}: the slot at {sq:#x}");
                    }
                }
                for c in [Color::White, Color::Black] {
                    assert_eq!(&ram[128 + 16 * c.index()..][..16], pos.piece_list(c), "{text}: the list of {c:?}");
                }
                for us in [Color::White, Color::Black] {
                    // Not a value the scan may leave.
                    b.avr.write_data(queen_note_at, 0x77);
                    let args = [(24, position as u8), (25, (position >> 8) as u8), (22, us as u8)];
                    let returned = call(&mut b, scan_pc, &args, &format!("{text} {us:?}"));
                    // (u16, u8): the victims in r23:r22, the classes in r24.
                    let avr = (u16::from_le_bytes([returned[22], returned[23]]), returned[24]);
                    let note = b.avr.read_data(queen_note_at).unwrap();
                    let host = attacked_victims(&pos, us);
                    assert_eq!(avr, host, "{text} {us:?}: (victims, classes) AVR, host");
                    assert_eq!(note, queen_note(&pos, us), "{text} {us:?}: the queen's note");
                    calls += 1;
                    victims += host.0.count_ones();
                    classes_seen |= host.1;
                    several_queens += (note == 0xFF) as u32;
                    let own = if us == Color::White { 0 } else { BLACK_OFFSET };
                    let list = pos.piece_list(us);
                    pawns_below_bound += list[1..pos.officer_end(us) as usize]
                        .iter()
                        .any(|&s| s != NO_SQUARE && pos.code_on(s) == PAWN + own)
                        as u32;
                }
                let mut moves = Vec::new();
                let mut gen = MoveGen::new();
                while let Some(m) = gen.next_legal(&pos) {
                    moves.push(m);
                }
                if moves.is_empty() {
                    break;
                }
                // Captures and promotions first more often than not: the
                // games keep fewer men and more promoted ones than random
                // moves would.
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let takes: Vec<Move> = moves.iter().copied().filter(|m| m.is_capture() || m.is_promotion()).collect();
                let m = if !takes.is_empty() && (seed >> 62) != 0 {
                    takes[(seed >> 33) as usize % takes.len()]
                } else {
                    moves[(seed >> 33) as usize % moves.len()]
                };
                command(&mut b, &format!("moves {}", coord(m)));
                pos.make_move(m);
            }
        }
    }
    eprintln!(
        "{calls} calls, {victims} victims, classes {classes_seen:#04x}, {pawns_below_bound} with a pawn below the \
         bound, {several_queens} with several queens"
    );
    assert!(calls >= 5_000 && victims >= 10_000, "{calls} calls, {victims} victims");
    assert_eq!(classes_seen, 0xF8, "every attacker class");
    assert!(pawns_below_bound >= 20 && several_queens >= 20, "{pawns_below_bound} {several_queens}");
}

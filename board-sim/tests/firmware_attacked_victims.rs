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

use board_sim::board::Board;
use emulator::periph::usart::Usart;
use emulator::Stop;
use firmware::chess::piece::{BLACK_OFFSET, PAWN, QUEEN};
use firmware::chess::{Color, Move, MoveGen, Position, NO_SQUARE};
use firmware::engine::picker::attacked_victims;
use std::path::PathBuf;

const CLOCK_HZ: u32 = 8_000_000;

fn ms(n: u64) -> u64 {
    n * CLOCK_HZ as u64 / 1000
}

fn usart(b: &mut Board) -> &mut Usart {
    b.avr.peripheral_mut::<Usart>().expect("the ATmega644 has USART0")
}

/// Sends `line` and runs until the firmware's answer `ok` (one line).
fn command(b: &mut Board, line: &str) {
    let now = b.avr.cycles();
    usart(b).host_send(now, format!("{line}\n").as_bytes());
    let end = now + ms(1_000);
    let mut text = String::new();
    while b.avr.cycles() < end {
        assert_eq!(b.run_for(ms(2)), Stop::CycleLimit, "the firmware stopped after {line:?}");
        text.push_str(&String::from_utf8_lossy(&usart(b).host_take()));
        if text.ends_with('\n') {
            assert_eq!(text.trim_end(), "ok", "{line}");
            return;
        }
    }
    panic!("no answer to {line:?}: {text:?}");
}

fn coord(m: Move) -> String {
    let mut buf = [0u8; 8];
    let n = m.write_coord(&mut buf).expect("a move has a coordinate form");
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

fn fen(pos: &Position) -> String {
    let mut buf = [0u8; firmware::chess::FEN_MAX_LEN];
    let n = pos.write_fen(&mut buf).unwrap();
    String::from_utf8_lossy(&buf[..n]).into_owned()
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
    let path = std::env::var("PRODIGY_ELF")
        .expect("PRODIGY_ELF is not set: this test runs the AVR firmware; run it with `cargo xtask test`");
    let mut b = Board::from_elf_file(path.as_ref(), CLOCK_HZ).unwrap_or_else(|e| panic!("{e}"));
    let find = |b: &Board, part: &str| {
        let s: Vec<_> = b.avr.symbols().symbols.iter().filter(|s| s.name.contains(part)).collect();
        assert_eq!(s.len(), 1, "one symbol {part}: {s:?}");
        s[0].address
    };
    let scan_pc = find(&b, "picker16attacked_victims") / 2;
    let queen_note_at = find(&b, "picker10QUEEN_NOTE") as u16;
    let position = find(&b, "CHESS_POSITION") as u16;
    b.run_for(ms(2500));
    usart(&mut b).host_take();
    // Returning to word 0 (the reset vector) stops the call.
    b.avr.add_breakpoint(0);
    const GPIOR0: u16 = 0x3E;
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
                    // Between two instructions of the firmware, awake.
                    while b.avr.is_sleeping() {
                        b.step();
                    }
                    let (regs, sp, pc, sreg) = (b.avr.regs(), b.avr.sp(), b.avr.pc(), b.avr.sreg());
                    let gpior0 = b.avr.read_data(GPIOR0).unwrap();
                    // A call: the return address (0) pushed, interrupts off.
                    b.avr.write_data(sp, 0);
                    b.avr.write_data(sp - 1, 0);
                    b.avr.set_sp(sp - 2);
                    b.avr.set_sreg(sreg & 0x7F);
                    b.avr.set_reg(24, position as u8);
                    b.avr.set_reg(25, (position >> 8) as u8);
                    b.avr.set_reg(22, us as u8);
                    // Not a value the scan may leave.
                    b.avr.write_data(queen_note_at, 0x77);
                    b.avr.set_pc(scan_pc);
                    assert_eq!(b.run_for(ms(10)), Stop::Breakpoint(0), "{text} {us:?}");
                    assert_eq!(b.avr.sp(), sp, "{text} {us:?}: the stack");
                    // (u16, u8): the victims in r23:r22, the classes in r24.
                    let avr = (b.avr.reg_pair(22), b.avr.reg(24));
                    let note = b.avr.read_data(queen_note_at).unwrap();
                    // The call-saved registers kept (r2..r17, r28, r29).
                    let after = b.avr.regs();
                    for r in (2..18).chain(28..30) {
                        assert_eq!(after[r], regs[r], "{text} {us:?}: r{r} not restored");
                    }
                    for (r, v) in regs.iter().enumerate() {
                        b.avr.set_reg(r as u8, *v);
                    }
                    b.avr.set_sp(sp);
                    b.avr.set_pc(pc);
                    b.avr.set_sreg(sreg);
                    b.avr.write_data(GPIOR0, gpior0);
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

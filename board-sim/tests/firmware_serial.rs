//! The firmware's serial protocol (`firmware/docs/serial-protocol.md`) over
//! the emulated USART0.
//!
//! These tests need the AVR build: `cargo xtask test` builds it and passes
//! its path in `PRODIGY_ELF`.

use board_sim::board::Board;
use emulator::Stop;
use emulator::periph::usart::Usart;
use firmware::chess::{Position, START_FEN};

const CLOCK_HZ: u32 = 8_000_000;

fn firmware() -> Board {
    let path = std::env::var("PRODIGY_ELF")
        .expect("PRODIGY_ELF is not set: these tests run the AVR firmware; run them with `cargo xtask test`");
    let mut b = Board::from_elf_file(path.as_ref(), CLOCK_HZ).unwrap_or_else(|e| panic!("{e}"));
    // Boot and splash.
    b.run_for(ms(2500));
    take(&mut b);
    b
}

fn ms(n: u64) -> u64 {
    n * CLOCK_HZ as u64 / 1000
}

fn usart(b: &mut Board) -> &mut Usart {
    b.avr.peripheral_mut::<Usart>().expect("the ATmega644 has USART0")
}

fn take(b: &mut Board) -> String {
    String::from_utf8_lossy(&usart(b).host_take()).into_owned()
}

/// Sends `bytes` and runs until a line satisfying `last` arrives (or
/// `timeout_ms` of emulated time pass); returns all lines received.
fn exchange(b: &mut Board, bytes: &[u8], timeout_ms: u64, last: impl Fn(&str) -> bool) -> Vec<String> {
    let now = b.avr.cycles();
    usart(b).host_send(now, bytes);
    let mut text = String::new();
    let end = b.avr.cycles() + ms(timeout_ms);
    while b.avr.cycles() < end {
        let stop = b.run_for(ms(5));
        assert_eq!(stop, Stop::CycleLimit, "the firmware stopped; it said {text:?}");
        text.push_str(&take(b));
        if text.ends_with('\n') && text.lines().last().is_some_and(&last) {
            return text.lines().map(str::to_string).collect();
        }
    }
    panic!("no answer to {:?} within {timeout_ms} ms; got {text:?}", String::from_utf8_lossy(bytes));
}

/// One command line answered by one line.
fn ask(b: &mut Board, line: &str) -> String {
    let lines = exchange(b, format!("{line}\n").as_bytes(), 5_000, |_| true);
    assert_eq!(lines.len(), 1, "{line}: {lines:?}");
    lines[0].clone()
}

#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn ping_perft_fen_moves_and_errors() {
    let mut b = firmware();
    assert_eq!(ask(&mut b, "ping"), "pong");
    // The host build and the AVR build come from the same source.
    let host = Position::start().perft(3);
    let lines = exchange(&mut b, b"perft 3\n", 60_000, |l| l.starts_with("perft"));
    assert_eq!(lines, vec![format!("perft 3 {host}")]);
    assert_eq!(ask(&mut b, "fen?"), format!("fen {START_FEN}"));
    let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    assert_eq!(ask(&mut b, &format!("fen {fen}")), "ok");
    assert_eq!(ask(&mut b, "fen?"), format!("fen {fen}"));
    // An illegal move: refused, and the position is unchanged.
    assert_eq!(ask(&mut b, "moves e1g1 a8b8 e2e5"), "error illegal move e2e5");
    assert_eq!(ask(&mut b, "fen?"), format!("fen {fen}"));
    assert_eq!(ask(&mut b, "moves e1g1 a8b8"), "ok");
    assert_eq!(ask(&mut b, "fen?"), "fen 1r2k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R4RK1 w k - 2 2");
    // Garbage.
    assert_eq!(ask(&mut b, "hello"), "error unknown command");
    let lines = exchange(&mut b, b"pi\x01\xffng\n", 5_000, |_| true);
    assert_eq!(lines, vec!["error bad characters"]);
    let long = "x".repeat(200) + "\n";
    let lines = exchange(&mut b, long.as_bytes(), 5_000, |_| true);
    assert_eq!(lines, vec!["error line too long"]);
    assert_eq!(ask(&mut b, "fen 8/8/8/8 w - - 0 1"), "error bad fen");
    assert_eq!(ask(&mut b, "status?"), "status ongoing");
    assert_eq!(ask(&mut b, "ping"), "pong");
    assert!(b.lcd_warnings().is_empty(), "LCD timing violations: {:#?}", b.lcd_warnings());
}

#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn go_depth_3_returns_a_legal_move() {
    let mut b = firmware();
    assert_eq!(ask(&mut b, "new"), "ok");
    assert_eq!(ask(&mut b, "moves e2e4 e7e5 g1f3"), "ok");
    let lines = exchange(&mut b, b"go depth 3\n", 120_000, |l| l.starts_with("bestmove"));
    let best = lines.last().unwrap();
    assert!(lines.iter().any(|l| l.starts_with("info depth 3 ")), "{lines:?}");
    let mv = best.split(' ').nth(1).unwrap();
    let mut pos = Position::from_fen(START_FEN.as_bytes()).unwrap();
    for m in ["e2e4", "e7e5", "g1f3"] {
        let m = pos.parse_coord(m.as_bytes()).unwrap();
        pos.make_move(m);
    }
    assert!(pos.parse_coord(mv.as_bytes()).is_ok(), "illegal bestmove in {lines:?}");
    // While searching: ping is answered, other commands are busy, stop ends it.
    let now = b.avr.cycles();
    usart(&mut b).host_send(now, b"go infinite\n");
    b.run_for(ms(500));
    let lines = exchange(&mut b, b"ping\nfen?\nstop\n", 10_000, |l| l.starts_with("bestmove"));
    assert!(lines.iter().any(|l| l == "pong"), "{lines:?}");
    assert!(lines.iter().any(|l| l == "error busy"), "{lines:?}");
    assert_eq!(ask(&mut b, "ping"), "pong");
}

/// Static RAM plus the deepest stack of a 30 s search (Level 3) on a
/// middlegame position stays within 3,840 bytes (256 of the 4 KB kept free).
#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn ram_and_peak_stack_of_a_deep_search_fit() {
    let mut b = firmware();
    let fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8";
    assert_eq!(ask(&mut b, &format!("fen {fen}")), "ok");
    let lines = exchange(&mut b, b"go movetime 30000\n", 40_000, |l| l.starts_with("bestmove"));
    let depth = lines.iter().rev().find_map(|l| l.strip_prefix("info depth ")).unwrap_or("?");
    let heap_start = b.program.static_data_end().expect("the ELF tells where static data ends") as u32;
    let static_ram = heap_start - 0x100;
    let peak = 0x10FF - b.avr.min_sp() as u32;
    println!("static RAM {static_ram} B, peak stack {peak} B (info depth {depth}), total {}", static_ram + peak);
    assert!(static_ram + peak <= 3840, "static {static_ram} + stack {peak} > 3840 B");
}

/// The receiver holds two bytes and a third in its shift register: at
/// `SERIAL_BAUD` a byte must be taken within two frames of the one before.
/// So no handler or critical section may keep interrupts off for a frame
/// (10 bits of 8 * (UBRR0 + 1) cycles), over a boot (from the first
/// `sei`: the start-up before it, the LCD's initialisation included, runs
/// with the receiver off), a search answering `ping`, a key's beep and
/// its decoding, stepped instruction by instruction from reset.
#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn interrupts_are_never_off_for_a_serial_frame() {
    use firmware::board::{Button, SERIAL_BAUD};
    let path = std::env::var("PRODIGY_ELF").expect("PRODIGY_ELF is not set: run by cargo xtask test");
    let mut b = Board::from_elf_file(path.as_ref(), CLOCK_HZ).unwrap_or_else(|e| panic!("{e}"));
    let frame = 10 * CLOCK_HZ as u64 / SERIAL_BAUD as u64;
    // The longest stretch with SREG's I clear, and where it began.
    let mut longest = (0u64, 0u32);
    let mut off_since: Option<(u64, u32)> = None;
    let mut started = false;
    let mut text = String::new();
    let mut step_until = |b: &mut Board, end: u64, text: &mut String, done: &dyn Fn(&str) -> bool| {
        while b.avr.cycles() < end {
            // A step from sleep sleeps until an interrupt and enters its
            // handler: the stretch starts at the wake-up (4 cycles) and
            // the vector's call (4 + the handler's first instruction), not
            // when the sleep began.
            let asleep = b.avr.is_sleeping();
            let before = b.avr.cycles();
            let stop = b.step();
            let off_from = if asleep { b.avr.cycles().saturating_sub(12) } else { before };
            assert!(matches!(stop, Stop::Stepped | Stop::CycleLimit | Stop::PinChange | Stop::Sleeping { interrupts_enabled: true, .. }), "the firmware stopped: {stop:?}");
            let off = b.avr.sreg() & 0x80 == 0 && !b.avr.is_sleeping();
            started |= !off;
            match (off, off_since) {
                (true, None) if started => off_since = Some((off_from, b.avr.pc() * 2)),
                (false, Some((t, pc))) => {
                    if b.avr.cycles() - t > longest.0 {
                        longest = (b.avr.cycles() - t, pc);
                    }
                    off_since = None;
                }
                _ => {}
            }
            if before / 40_000 != b.avr.cycles() / 40_000 {
                text.push_str(&take(b));
                if done(text) {
                    return;
                }
            }
        }
    };
    let never = |_: &str| false;
    step_until(&mut b, ms(2500), &mut text, &never);
    text.clear();
    let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let now = b.avr.cycles();
    usart(&mut b).host_send(now, format!("fen {fen}\ngo depth 3\n").as_bytes());
    step_until(&mut b, now + ms(300), &mut text, &never);
    b.press(Button::Up);
    let now = b.avr.cycles();
    usart(&mut b).host_send(now, b"ping\nping\nping\n");
    step_until(&mut b, now + ms(100), &mut text, &never);
    b.release(Button::Up);
    let now = b.avr.cycles();
    step_until(&mut b, now + ms(20_000), &mut text, &|t: &str| t.contains("bestmove"));
    text.push_str(&take(&mut b));
    assert!(text.contains("bestmove"), "no bestmove at {} (pc {:#06x}, asleep {}): {text:?}", b.avr.cycles() - now, b.avr.pc() * 2, b.avr.is_sleeping());
    assert_eq!(text.matches("pong").count(), 3, "{text:?}");
    assert!(!text.contains("error"), "{text:?}");
    println!("longest stretch with interrupts off: {} cycles (from {:#06x}), a frame {frame}", longest.0, longest.1);
    assert!(longest.0 < frame, "interrupts off for {} cycles (from {:#06x}): a frame is {frame}", longest.0, longest.1);
}

//! Perft on the AVR build: every position of the shared perft suite to
//! depth 3, counted by the firmware in the emulator over its serial
//! protocol, must match the published counts.
//!
//! Needs the AVR build: `cargo xtask test` builds it and passes its path in
//! `PRODIGY_ELF`.

use board_sim::board::Board;
use emulator::periph::usart::Usart;
use emulator::Stop;
use std::path::PathBuf;

const CLOCK_HZ: u32 = 8_000_000;
const DEPTH: u32 = 3;

fn ms(n: u64) -> u64 {
    n * CLOCK_HZ as u64 / 1000
}

/// Sends one line and runs until a complete answer line arrives.
fn ask(b: &mut Board, line: &str, timeout_ms: u64) -> String {
    let now = b.avr.cycles();
    b.avr.peripheral_mut::<Usart>().expect("USART0").host_send(now, format!("{line}\n").as_bytes());
    let mut text = String::new();
    let end = now + ms(timeout_ms);
    while b.avr.cycles() < end {
        assert_eq!(b.run_for(ms(20)), Stop::CycleLimit, "the firmware stopped after {line:?}");
        text.push_str(&String::from_utf8_lossy(&b.avr.peripheral_mut::<Usart>().expect("USART0").host_take()));
        if let Some(end) = text.find('\n') {
            return text[..end].trim_end().to_string();
        }
    }
    panic!("no answer to {line:?} within {timeout_ms} ms of emulated time");
}

/// (FEN, leaves at DEPTH) from `shared/testdata/perft.epd` (`;D3 n` fields).
fn suite() -> Vec<(String, u64)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/testdata/perft.epd");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')) {
        let mut fields = line.split(';');
        let fen = fields.next().unwrap_or_default().trim().to_string();
        let count = fields
            .filter_map(|f| f.trim().strip_prefix(&format!("D{DEPTH} ")).map(|n| n.trim().parse::<u64>()))
            .next()
            .unwrap_or_else(|| panic!("no D{DEPTH} count in {line:?}"))
            .unwrap_or_else(|e| panic!("bad D{DEPTH} count in {line:?}: {e}"));
        out.push((fen, count));
    }
    out
}

#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn perft_depth_3_of_every_suite_position_on_the_avr() {
    let path = std::env::var("PRODIGY_ELF")
        .expect("PRODIGY_ELF is not set: this test runs the AVR firmware; run it with `cargo xtask test`");
    let mut b = Board::from_elf_file(path.as_ref(), CLOCK_HZ).unwrap_or_else(|e| panic!("{e}"));
    b.run_for(ms(2500));
    b.avr.peripheral_mut::<Usart>().expect("USART0").host_take(); // the boot banner
    assert_eq!(ask(&mut b, "ping", 1000), "pong");
    let positions = suite();
    assert_eq!(positions.len(), 6, "the suite has six positions");
    for (fen, expected) in positions {
        // Four-field EPD positions get the move counters FEN needs.
        let full = if fen.split_whitespace().count() == 4 { format!("{fen} 0 1") } else { fen.clone() };
        assert_eq!(ask(&mut b, &format!("fen {full}"), 1000), "ok", "{fen}");
        assert_eq!(ask(&mut b, &format!("perft {DEPTH}"), 600_000), format!("perft {DEPTH} {expected}"), "{fen}");
    }
}

//! The chess computer played with its four buttons on the emulated board:
//! a short game, an illegal move, takeback, save, power cycle and load.
//!
//! These tests need the AVR build: `cargo xtask test` builds it and passes
//! its path in `PRODIGY_ELF`.

use board_sim::board::Board;
use emulator::Stop;
use emulator::periph::eeprom::Eeprom;
use emulator::periph::usart::Usart;
use firmware::board::Button;

const CLOCK_HZ: u32 = 8_000_000;

fn elf() -> String {
    std::env::var("PRODIGY_ELF")
        .expect("PRODIGY_ELF is not set: these tests run the AVR firmware; run them with `cargo xtask test`")
}

/// A board past its splash screen, with `eeprom` contents if given.
fn boot(eeprom: Option<&[u8]>) -> Board {
    let mut b = Board::from_elf_file(elf().as_ref(), CLOCK_HZ).unwrap_or_else(|e| panic!("{e}"));
    if let Some(bytes) = eeprom {
        b.avr.peripheral_mut::<Eeprom>().expect("EEPROM").load(bytes).unwrap();
    }
    b.run_for(ms(2600));
    b
}

fn ms(n: u64) -> u64 {
    n * CLOCK_HZ as u64 / 1000
}

fn run(b: &mut Board, cycles: u64) {
    let stop = b.run_for(cycles);
    assert_eq!(stop, Stop::CycleLimit, "the firmware stopped; LCD shows {:?}", b.lcd_text());
}

fn tap(b: &mut Board, button: Button) {
    b.press(button);
    run(b, ms(80));
    b.release(button);
    run(b, ms(120));
}

fn keys(b: &mut Board, seq: &str) {
    for k in seq.split_whitespace() {
        let button = match k {
            "M" => Button::Menu,
            "U" => Button::Up,
            "D" => Button::Down,
            "E" => Button::Enter,
            _ => panic!("key {k}"),
        };
        tap(b, button);
    }
}

fn row(b: &Board, r: usize) -> String {
    b.lcd_text()[r].clone()
}

/// Runs until row `r` satisfies `ok` or `timeout_ms` pass.
fn wait_for(b: &mut Board, r: usize, timeout_ms: u64, ok: impl Fn(&str) -> bool) {
    let end = b.avr.cycles() + ms(timeout_ms);
    while b.avr.cycles() < end {
        if ok(&row(b, r)) {
            return;
        }
        run(b, ms(50));
    }
    panic!("row {r} never matched within {timeout_ms} ms; LCD shows {:?}", b.lcd_text());
}

/// The position over the serial line (the same firmware answers `fen?`).
fn fen(b: &mut Board) -> String {
    let now = b.avr.cycles();
    let u = b.avr.peripheral_mut::<Usart>().unwrap();
    u.host_take();
    u.host_send(now, b"fen?\n");
    b.run_for(ms(100));
    let out = String::from_utf8_lossy(&b.avr.peripheral_mut::<Usart>().unwrap().host_take()).into_owned();
    out.lines().find_map(|l| l.strip_prefix("fen ")).unwrap_or_else(|| panic!("no fen in {out:?}")).to_string()
}

fn assert_clean(b: &Board) {
    assert!(b.lcd_warnings().is_empty(), "LCD timing violations: {:#?}", b.lcd_warnings());
    let w: Vec<_> = b.avr.warnings().iter().map(|w| &w.message).collect();
    assert!(w.is_empty(), "emulator warnings: {w:#?}");
}

/// Level 0 (2 s per move) so the test does not wait long for replies.
fn level_0(b: &mut Board) {
    keys(b, "M D D E");
    assert_eq!(row(b, 0).trim_end(), "Level 1   (set)");
    keys(b, "D");
    assert_eq!(row(b, 1).trim_end(), "2 s per move");
    keys(b, "E M");
    assert_eq!(row(b, 1), "Your move: e... ");
}

#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn a_short_game_with_an_illegal_move_and_takeback() {
    let mut b = boot(None);
    assert_eq!(row(&b, 0).trim_end(), "White to move");
    assert_eq!(row(&b, 1), "Your move: e... ");
    level_0(&mut b);

    // e2e4: e2 is preset, the destination starts one rank up (e3).
    keys(&mut b, "E E");
    assert_eq!(row(&b, 1), "Your move: e2e. ");
    keys(&mut b, "E U E");
    // The computer thinks, then answers; 1.e4 is in the opening book.
    wait_for(&mut b, 0, 4000, |r| r.starts_with("1..."));
    assert!(row(&b, 0).ends_with("Book"), "{:?}", b.lcd_text());
    assert_eq!(row(&b, 1), "Your move: e... ");

    // An illegal move is refused; the position does not change.
    let before = fen(&mut b);
    keys(&mut b, "E E E U E"); // e2e4 again: the pawn is gone
    assert_eq!(row(&b, 1), "Illegal move    ");
    assert_eq!(fen(&mut b), before);
    b.run_for(ms(2200));
    assert_eq!(row(&b, 1), "Your move: e... ");

    // g1f3 and the reply.
    keys(&mut b, "U U E D E D E U E");
    wait_for(&mut b, 0, 4000, |r| r.starts_with("2..."));

    // Take back one move (the reply and g1f3).
    keys(&mut b, "M D D D D");
    assert_eq!(row(&b, 0), ">Back       5/12");
    assert_eq!(row(&b, 1).trim_end(), "Take back: 4");
    keys(&mut b, "E");
    assert_eq!(row(&b, 1).trim_end(), "Move taken back");
    keys(&mut b, "M");
    assert!(row(&b, 0).starts_with("1..."), "{:?}", b.lcd_text());
    assert!(fen(&mut b).contains(" w "), "White to move again");
    assert_clean(&b);
}

#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn save_power_cycle_and_load() {
    let mut b = boot(None);
    // Loading from a blank EEPROM is refused.
    keys(&mut b, "M D D D D D D D D D E");
    assert_eq!(row(&b, 1), "No saved game   ");
    keys(&mut b, "M");
    level_0(&mut b);
    keys(&mut b, "E E E U E"); // e2e4
    wait_for(&mut b, 0, 4000, |r| r.starts_with("1..."));
    let saved = fen(&mut b);
    keys(&mut b, "M D D D D D D D D E");
    wait_for(&mut b, 1, 2000, |r| r.starts_with("Game saved"));
    let eeprom = b.avr.peripheral_mut::<Eeprom>().unwrap().contents().to_vec();

    // Power cycle: a new board with the EEPROM contents.
    let mut b = boot(Some(&eeprom));
    assert_ne!(fen(&mut b), saved);
    keys(&mut b, "M D D D D D D D D D");
    assert_eq!(row(&b, 0), ">Load      10/12");
    keys(&mut b, "E");
    assert_eq!(row(&b, 1), "Game loaded     ");
    assert_eq!(fen(&mut b), saved);
    // The level came back too: Level shows 0.
    b.run_for(ms(2200));
    assert_eq!(row(&b, 0).trim_end(), "White to move");
    keys(&mut b, "M D D E");
    assert_eq!(row(&b, 0).trim_end(), "Level 0   (set)");

    // A corrupt record is reported and not loaded.
    let mut bad = eeprom.clone();
    bad[8] ^= 0x10;
    let mut b = boot(Some(&bad));
    let start = fen(&mut b);
    keys(&mut b, "M D D D D D D D D D E");
    assert_eq!(row(&b, 1), "Saved game bad  ");
    assert_eq!(fen(&mut b), start);
    assert_clean(&b);
}

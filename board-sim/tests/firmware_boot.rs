//! The real firmware image boots on the emulated board.
//!
//! These tests need the AVR build: `cargo xtask test` builds it and passes
//! its path in `PRODIGY_ELF`.

use board_sim::board::Board;
use emulator::Stop;
use firmware::board::{self as pins, Port};

const CLOCK_HZ: u32 = 8_000_000;

fn firmware() -> Board {
    let path = std::env::var("PRODIGY_ELF")
        .expect("PRODIGY_ELF is not set: these tests run the AVR firmware; run them with `cargo xtask test`");
    Board::from_elf_file(path.as_ref(), CLOCK_HZ).unwrap_or_else(|e| panic!("{e}"))
}

fn ms(n: u64) -> u64 {
    n * CLOCK_HZ as u64 / 1000
}

#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn boots_to_the_splash_screen_without_lcd_timing_violations() {
    let mut board = firmware();
    assert_eq!(board.run_for(ms(1000)), Stop::CycleLimit);
    let [top, _] = board.lcd_text();
    assert_eq!(top.trim(), "Chess Prodigy", "LCD shows {:?}", board.lcd_text());
    assert!(board.lcd.backlight(), "backlight should be on");
    assert!(board.lcd_warnings().is_empty(), "LCD timing violations: {:#?}", board.lcd_warnings());
}

/// The AVR build's port set-up is the host build's `firmware::board` map:
/// both come from the same source file.
#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn port_directions_follow_the_board_pin_map() {
    let mut board = firmware();
    board.run_for(ms(3000));
    let ddr = |p: Port| board.avr.pins().ddr[p.index()];
    let port = |p: Port| board.avr.pins().port[p.index()];
    // Buttons are inputs with pull-ups.
    assert_eq!(ddr(pins::BUTTON_PORT) & pins::BUTTON_MASK, 0);
    assert_eq!(port(pins::BUTTON_PORT) & pins::BUTTON_MASK, pins::BUTTON_MASK);
    // LCD control lines and the buzzer are outputs.
    for pin in [pins::LCD_RS, pins::LCD_RW, pins::LCD_E, pins::LCD_BACKLIGHT, pins::BUZZER] {
        assert_ne!(ddr(pin.port) & pin.mask(), 0, "{pin:?} should be an output");
    }
    // Every button reads high (released) through its pull-up.
    let levels = board.avr.pins().level(pins::BUTTON_PORT.index());
    assert_eq!(levels & pins::BUTTON_MASK, pins::BUTTON_MASK);
}

#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn a_pressed_button_reaches_the_chip() {
    let mut board = firmware();
    board.run_for(ms(2500));
    let before = board.lcd_text();
    board.press(pins::Button::Enter);
    let level = board.avr.pins().level(pins::Button::Enter.pin().port.index());
    assert_eq!(level & pins::Button::Enter.pin().mask(), 0, "a pressed button pulls its pin low");
    board.run_for(ms(200));
    board.release(pins::Button::Enter);
    board.run_for(ms(300));
    assert_ne!(board.lcd_text(), before, "the firmware did not react to ENTER");
}

/// The search's position (`CHESS_POSITION`, the game's) lies well past the
/// I/O space: the move picker's assembly scans read bytes off the board
/// unchecked, up to 33 before the board array (its first field), where a
/// read of an I/O register could have side effects (a UART data read
/// takes the byte).
#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn the_searched_position_lies_clear_of_the_io_space() {
    const READ_BEFORE_THE_BOARD: u32 = 33;
    const FIRST_SRAM: u32 = 0x100;
    let board = firmware();
    let sym = board.program.symbols.lookup("CHESS_POSITION").expect("the firmware defines CHESS_POSITION");
    let addr = sym.address & 0xFFFF;
    assert!(
        addr >= FIRST_SRAM + READ_BEFORE_THE_BOARD,
        "CHESS_POSITION at {addr:#06x}: the picker's reads before its board would reach the I/O space"
    );
}

/// The assembly's table layouts that the linker, not the type system,
/// decides: GEOMETRY starts a 256-byte page just after `FLASH_PAGES`
/// (`chess/attacks.rs`, one section for the two, by definition order),
/// so the assembly (`least_attacker_avr` in `engine/see.rs` among it)
/// finds an entry from its low byte alone; `attacked_after` reads an
/// empty slot's GEOMETRY entry 0x88 bytes below GEOMETRY, in the pad of
/// zeros, REACH's copy fills that page's last 16 bytes, and DIRECTIONS'
/// copy GEOMETRY's page's.
#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn the_geometry_tables_lie_where_the_assembly_reads_them() {
    let board = firmware();
    // Demangled (`...::NAME`) or v0-mangled (`...<len>NAME`).
    let at = |name: &str| {
        let (plain, mangled) = (format!("::{name}"), format!("{}{name}", name.len()));
        let sym = board.program.symbols.symbols.iter().find(|s| s.name.ends_with(&plain) || s.name.ends_with(&mangled));
        sym.unwrap_or_else(|| panic!("the firmware defines {name}")).address & 0xFFFF
    };
    let (pages, reach, geometry) = (at("FLASH_PAGES"), at("REACH"), at("GEOMETRY"));
    assert_eq!(pages % 256, 0, "FLASH_PAGES at {pages:#06x} is not page-aligned");
    assert_eq!(geometry, pages + 0x200, "FLASH_PAGES at {pages:#06x}, GEOMETRY at {geometry:#06x}");
    let flash = &board.program.flash;
    let bytes = |from: u32, n: usize| flash[from as usize..from as usize + n].to_vec();
    assert_eq!(bytes(geometry - 0x88, 0x78), vec![0; 0x78], "the pad below GEOMETRY is not zeros");
    assert_eq!(bytes(geometry - 0x10, 16), bytes(reach, 16), "REACH's copy below GEOMETRY differs from REACH");
    assert_eq!(bytes(geometry + 0xF0, 16), bytes(at("DIRECTIONS"), 16), "DIRECTIONS' copy at GEOMETRY's page end differs");
}

//! The HD44780U model against the datasheet, driven through the board's pins.

use super::*;
use firmware::board::{Port, LCD_DATA_SHIFT, LCD_E, LCD_PORT, LCD_RS, LCD_RW};

const HZ: u32 = 8_000_000;

fn us(us: f64) -> u64 {
    (us * HZ as f64 / 1e6).round() as u64
}

/// Drives the LCD's port like firmware would, with datasheet-safe timing
/// unless a test says otherwise.
struct Bus {
    lcd: Hd44780,
    now: u64,
    port: u8,
}

impl Bus {
    fn new() -> Bus {
        Bus {
            lcd: Hd44780::new(HZ),
            now: 0,
            port: 0,
        }
    }

    /// A freshly initialised display: 4-bit, 2 lines, display on, no
    /// cursor, cleared, incrementing.
    fn ready() -> Bus {
        let mut bus = Bus::new();
        bus.init_4bit();
        bus.command(0x0C);
        bus.command(0x01);
        bus.command(0x06);
        assert_eq!(bus.lcd.warnings(), &[], "a clean initialisation warns");
        bus
    }

    fn emit(&mut self) {
        self.lcd
            .port_changed(self.now, LCD_PORT.index(), self.port, Some(0x100));
    }

    fn set(&mut self, pin: Pin, high: bool) {
        if high {
            self.port |= pin.mask();
        } else {
            self.port &= !pin.mask();
        }
        self.emit();
    }

    fn set_nibble(&mut self, n: u8) {
        self.port = self.port & !(0x0F << LCD_DATA_SHIFT) | (n & 0x0F) << LCD_DATA_SHIFT;
        self.emit();
    }

    fn wait(&mut self, microseconds: f64) {
        self.now += us(microseconds);
    }

    /// One write transfer of 4 bits with 1 µs setup, pulse and hold.
    fn nibble(&mut self, rs: bool, n: u8) {
        self.set(LCD_RW, false);
        self.set(LCD_RS, rs);
        self.set_nibble(n);
        self.wait(1.0);
        self.set(LCD_E, true);
        self.wait(1.0);
        self.set(LCD_E, false);
        self.wait(1.0);
    }

    /// A byte without waiting for it to execute.
    fn send(&mut self, rs: bool, byte: u8) {
        self.nibble(rs, byte >> 4);
        self.nibble(rs, byte & 0x0F);
    }

    /// An instruction, then the wait the datasheet gives for it.
    fn command(&mut self, byte: u8) {
        self.send(false, byte);
        self.wait(if byte < 4 { 1600.0 } else { 50.0 });
    }

    fn data(&mut self, byte: u8) {
        self.send(true, byte);
        self.wait(50.0);
    }

    fn print(&mut self, s: &str) {
        s.bytes().for_each(|b| self.data(b));
    }

    /// Datasheet figure 24: initialisation by instruction, 4-bit interface.
    fn init_4bit(&mut self) {
        self.wait(50_000.0);
        self.nibble(false, 0x3);
        self.wait(4_500.0);
        self.nibble(false, 0x3);
        self.wait(150.0);
        self.nibble(false, 0x3);
        self.wait(50.0);
        self.nibble(false, 0x2);
        self.wait(50.0);
        self.command(0x28);
    }

    /// One 4-bit read transfer: what the LCD drives while E is high.
    fn read_nibble(&mut self, rs: bool) -> u8 {
        self.set(LCD_RS, rs);
        self.set(LCD_RW, true);
        self.wait(1.0);
        self.set(LCD_E, true);
        self.wait(1.0);
        let n = self
            .lcd
            .bus_output(self.now)
            .expect("the LCD drives the bus during a read");
        self.set(LCD_E, false);
        self.wait(1.0);
        n
    }

    fn read(&mut self, rs: bool) -> u8 {
        let high = self.read_nibble(rs);
        high << 4 | self.read_nibble(rs)
    }

    fn line(&self, n: usize) -> String {
        self.lcd.text()[n].clone()
    }

    fn messages(&self) -> Vec<String> {
        self.lcd
            .warnings()
            .iter()
            .map(|w| w.message.clone())
            .collect()
    }
}

#[test]
fn power_on_state_is_8_bit_one_line_display_off() {
    let lcd = Hd44780::new(HZ);
    assert!(lcd.eight_bit_mode());
    assert!(!lcd.two_line_mode());
    assert!(!lcd.display_on());
    assert!(lcd.busy(0));
    assert_eq!(lcd.text(), ["                ", "                "]);
}

#[test]
fn initialisation_by_instruction_enters_4_bit_mode() {
    let mut bus = Bus::new();
    bus.init_4bit();
    assert!(!bus.lcd.eight_bit_mode());
    assert!(bus.lcd.two_line_mode());
    assert_eq!(bus.lcd.warnings(), &[]);
    bus.command(0x0F);
    assert!(bus.lcd.display_on() && bus.lcd.cursor() && bus.lcd.blink());
}

#[test]
fn hurried_initialisation_warns() {
    let mut bus = Bus::new();
    bus.wait(50_000.0);
    bus.nibble(false, 0x3);
    bus.wait(100.0); // the datasheet asks for more than 4.1 ms here
    bus.nibble(false, 0x3);
    let m = bus.messages();
    assert!(
        m.iter()
            .any(|m| m.contains("initialisation by instruction")),
        "{m:?}"
    );
}

#[test]
fn instructions_during_the_power_on_reset_are_ignored() {
    let mut bus = Bus::new();
    bus.wait(1_000.0);
    bus.nibble(false, 0x2);
    assert!(bus.lcd.eight_bit_mode());
    assert!(
        bus.messages()[0].contains("during the power-on reset (wait 40 ms"),
        "{:?}",
        bus.messages()
    );
}

#[test]
fn hello_appears_on_line_1() {
    let mut bus = Bus::ready();
    bus.print("Hello");
    assert_eq!(bus.line(0), "Hello           ");
    assert_eq!(bus.line(1), "                ");
    assert_eq!(bus.lcd.address_counter(), 5);
    assert_eq!(bus.lcd.warnings(), &[]);
}

#[test]
fn ddram_address_0x40_is_line_2() {
    let mut bus = Bus::ready();
    bus.command(0x80 | 0x40);
    bus.print("Line 2");
    bus.command(0x80 | 0x05);
    bus.print("1");
    assert_eq!(bus.line(0), "     1          ");
    assert_eq!(bus.line(1), "Line 2          ");
}

#[test]
fn address_counter_wraps_between_the_lines() {
    let mut bus = Bus::ready();
    bus.command(0x80 | 0x27);
    bus.print("AB");
    assert_eq!(bus.lcd.ddram()[39], b'A');
    assert_eq!(bus.line(1).chars().next(), Some('B'));
    bus.command(0x80 | 0x67);
    bus.print("CD");
    assert_eq!(bus.line(0).chars().next(), Some('D'));
    assert_eq!(bus.lcd.address_counter(), 0x01);
    // And backwards in decrement mode.
    bus.command(0x04);
    bus.command(0x80 | 0x40);
    bus.print("EF");
    assert_eq!(bus.lcd.ddram()[40], b'E');
    assert_eq!(bus.lcd.ddram()[39], b'F');
    assert_eq!(bus.lcd.address_counter(), 0x26);
}

#[test]
fn one_line_mode_wraps_at_0x4f() {
    let mut bus = Bus::ready();
    bus.command(0x20); // 4-bit, 1 line
    bus.command(0x80 | 0x4F);
    bus.print("XY");
    assert_eq!(bus.lcd.ddram()[0x4F], b'X');
    assert_eq!(bus.line(0).chars().next(), Some('Y'));
    assert_eq!(
        bus.line(1),
        "                ",
        "line 2 is dark in 1-line mode"
    );
}

#[test]
fn entry_mode_decrement_writes_leftwards() {
    let mut bus = Bus::ready();
    bus.command(0x04); // I/D = 0, S = 0
    bus.command(0x80 | 0x05);
    bus.print("abc");
    assert_eq!(bus.line(0), "   cba          ");
    assert_eq!(bus.lcd.address_counter(), 0x02);
}

#[test]
fn display_shift_moves_the_window_and_the_cursor_follows() {
    let mut bus = Bus::ready();
    bus.print("Hello");
    bus.command(0x18); // shift display left
    assert_eq!(bus.line(0), "ello            ");
    bus.command(0x1C);
    bus.command(0x1C); // twice right
    assert_eq!(bus.line(0), " Hello          ");
    assert_eq!(bus.lcd.display_shift(), 39);
    // Line 2 shifts with line 1.
    bus.command(0xC0);
    bus.print("2");
    assert_eq!(bus.line(1), " 2              ");
    // Return home undoes the shift but keeps the text.
    bus.command(0x02);
    assert_eq!(bus.line(0), "Hello           ");
    assert_eq!(bus.lcd.address_counter(), 0);
}

#[test]
fn entry_mode_shift_keeps_the_cursor_still() {
    let mut bus = Bus::ready();
    bus.command(0x80 | 0x10);
    bus.command(0x07); // increment and shift
    bus.print("abc");
    // Each write shifted the display left by one.
    assert_eq!(bus.lcd.display_shift(), 3);
    assert_eq!(bus.line(0), "             abc");
}

#[test]
fn cursor_shift_moves_the_address_counter() {
    let mut bus = Bus::ready();
    bus.command(0x14); // cursor right
    bus.command(0x14);
    bus.command(0x10); // cursor left
    assert_eq!(bus.lcd.address_counter(), 1);
    bus.command(0x10);
    bus.command(0x10);
    assert_eq!(
        bus.lcd.address_counter(),
        0x67,
        "left of 0x00 is the end of line 2"
    );
}

#[test]
fn clear_display_resets_increment_mode() {
    let mut bus = Bus::ready();
    bus.command(0x04);
    bus.print("x");
    bus.command(0x01);
    bus.print("ab");
    assert_eq!(bus.line(0), "ab              ");
}

#[test]
fn cgram_characters_are_defined_and_displayed() {
    let mut bus = Bus::ready();
    let glyph = [0x0E, 0x11, 0x1F, 0x00, 0x15, 0x0A, 0x04, 0x1B];
    bus.command(0x40 | 3 << 3); // character 3
    for row in glyph {
        bus.data(row | 0xE0); // bits 5..7 are storage only
    }
    bus.command(0x80);
    bus.data(3);
    bus.data(11); // aliases character 3
    bus.data(b'A');
    let px = bus.lcd.pixels(bus.now);
    for cell in [0, 1] {
        for (r, row) in glyph.iter().enumerate() {
            let expect: Vec<bool> = (0..5).map(|c| row & (0x10 >> c) != 0).collect();
            assert_eq!(px[cell][r].to_vec(), expect, "cell {cell} row {r}");
        }
    }
    assert_eq!(bus.line(0), "³³A             ");
    assert_eq!(bus.lcd.cgram()[24], 0xEE);
}

#[test]
fn rom_glyphs_and_cursor_in_pixels() {
    let mut bus = Bus::ready();
    bus.print("A");
    bus.command(0x0E); // cursor on, no blink
    let px = bus.lcd.pixels(bus.now);
    assert_eq!(px[0][0], [false, true, true, true, false]);
    assert_eq!(px[0][7], [false; 5], "no underline under 'A'");
    assert_eq!(px[1][7], [true; 5], "underline at the address counter");
    assert_eq!(px[16], [[false; 5]; 8]);
}

#[test]
fn blinking_block_alternates_every_204_8_ms() {
    let mut bus = Bus::ready();
    bus.command(0x0D); // blink, no underline
    let period = us(409_600.0);
    let block = [[true; 5]; 8];
    let on = bus.lcd.pixels(period * 10);
    let off = bus.lcd.pixels(period * 10 + period / 2 + 1);
    assert_eq!(on[0], block);
    assert_eq!(off[0], [[false; 5]; 8]);
    assert_eq!(bus.lcd.pixels(period * 11)[0], block);
}

#[test]
fn display_off_shows_nothing_but_keeps_ddram() {
    let mut bus = Bus::ready();
    bus.print("Hi");
    bus.command(0x08);
    assert_eq!(bus.line(0), "                ");
    assert!(bus
        .lcd
        .pixels(bus.now)
        .iter()
        .flatten()
        .flatten()
        .all(|&d| !d));
    bus.command(0x0C);
    assert_eq!(bus.line(0), "Hi              ");
}

#[test]
fn busy_flag_is_read_during_a_clear() {
    let mut bus = Bus::ready();
    bus.print("abc");
    bus.send(false, 0x01);
    let status = bus.read(false);
    assert_eq!(status, 0x80, "busy, address counter already 0");
    bus.wait(1_000.0);
    assert_eq!(bus.read(false) & 0x80, 0x80, "1.52 ms not over yet");
    bus.wait(600.0);
    assert_eq!(bus.read(false), 0x00);
    assert_eq!(
        bus.lcd.warnings(),
        &[],
        "reading the busy flag is always allowed"
    );
}

#[test]
fn busy_flag_after_a_data_write_and_address_counter() {
    let mut bus = Bus::ready();
    bus.send(true, b'x');
    assert_eq!(bus.read(false), 0x81);
    bus.wait(45.0);
    assert_eq!(bus.read(false), 0x01);
}

#[test]
fn command_while_busy_is_ignored_with_a_warning() {
    let mut bus = Bus::ready();
    bus.send(true, b'A');
    bus.wait(10.0);
    bus.send(true, b'B');
    bus.wait(50.0);
    assert_eq!(bus.line(0), "A               ");
    let w = bus.lcd.warnings();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].message.contains("data 0x42 sent while busy"),
        "{}",
        w[0].message
    );
    assert_eq!(w[0].pc, Some(0x100));
}

#[test]
fn short_e_pulse_warns() {
    let mut bus = Bus::ready();
    bus.set(LCD_RS, true);
    bus.set_nibble(4);
    bus.wait(1.0);
    bus.set(LCD_E, true);
    bus.now += 2; // 250 ns: too short for the default 450 ns
    bus.set(LCD_E, false);
    let m = bus.messages();
    assert!(
        m.iter().any(|m| m.contains("shorter than PW_EH = 450 ns")),
        "{m:?}"
    );
    // Accepted at 5 V, where PW_EH is 230 ns.
    let mut lcd = Hd44780::with_config(HZ, LcdWiring::board(), Timing::VCC_5V);
    lcd.set_lines(
        50_000,
        LcdLines {
            e: true,
            ..LcdLines::default()
        },
        None,
    );
    lcd.set_lines(50_002, LcdLines::default(), None);
    assert!(
        !lcd.warnings().iter().any(|w| w.message.contains("PW_EH")),
        "{:?}",
        lcd.warnings()
    );
}

#[test]
fn setup_and_hold_violations_warn() {
    let mut bus = Bus::ready();
    // RS and E in one port write: no address setup time.
    bus.port |= LCD_RS.mask() | LCD_E.mask();
    bus.emit();
    bus.wait(1.0);
    // Data and E falling in one write: no hold time.
    bus.port = bus.port & !LCD_E.mask() ^ 0xF0;
    bus.emit();
    let m = bus.messages();
    assert!(m.iter().any(|m| m.contains("tAS")), "{m:?}");
    assert!(m.iter().any(|m| m.contains("tH")), "{m:?}");
}

#[test]
fn data_is_read_back_through_the_data_register() {
    let mut bus = Bus::ready();
    bus.print("Hey");
    bus.command(0x80);
    assert_eq!(bus.read(true), b'H');
    bus.wait(50.0);
    assert_eq!(bus.read(true), b'e');
    bus.wait(50.0);
    assert_eq!(bus.lcd.address_counter(), 2);
    assert_eq!(bus.lcd.warnings(), &[]);
    // After a write, the first read is invalid without an address set.
    bus.print("!");
    bus.read(true);
    assert!(
        bus.messages()[0].contains("first read is invalid"),
        "{:?}",
        bus.messages()
    );
}

#[test]
fn bus_is_driven_after_tddr_on_the_data_pins() {
    let mut bus = Bus::ready();
    bus.set(LCD_RW, true);
    bus.wait(1.0);
    bus.set(LCD_E, true);
    let rose = bus.now;
    assert_eq!(bus.lcd.bus_output(rose), None, "data not valid before tDDR");
    let valid = bus.lcd.next_bus_change(rose).unwrap();
    assert_eq!(valid, rose + 3, "360 ns at 8 MHz");
    assert_eq!(bus.lcd.bus_output(valid), Some(0));
    let drive = bus.lcd.bus_drive(valid);
    assert_eq!(
        drive[Port::C.index()],
        PortDrive {
            mask: 0xF0,
            levels: 0
        }
    );
    assert_eq!(drive[Port::A.index()], PortDrive::default());
}

#[test]
fn eight_bit_bus_on_two_ports() {
    let data = [0, 1, 2, 3, 4, 5, 6, 7].map(|b| Pin::new(Port::B, b));
    let wiring = LcdWiring {
        rs: LCD_RS,
        rw: LCD_RW,
        e: LCD_E,
        bus: LcdBus::EightBit(data),
        backlight: None,
    };
    let mut lcd = Hd44780::with_config(HZ, wiring, Timing::default());
    let mut now = us(50_000.0);
    let (b, c) = (Port::B.index(), Port::C.index());
    let mut send = |lcd: &mut Hd44780, rs: bool, byte: u8| {
        let ctrl = if rs { LCD_RS.mask() } else { 0 };
        lcd.port_changed(now, c, ctrl, None);
        lcd.port_changed(now, b, byte, None);
        now += us(1.0);
        lcd.port_changed(now, c, ctrl | LCD_E.mask(), None);
        now += us(1.0);
        lcd.port_changed(now, c, ctrl, None);
        now += us(2_000.0);
    };
    for (rs, byte) in [
        (false, 0x38),
        (false, 0x0C),
        (false, 0x01),
        (true, b'8'),
        (true, b'!'),
    ] {
        send(&mut lcd, rs, byte);
    }
    assert!(lcd.eight_bit_mode());
    assert_eq!(lcd.text()[0], "8!              ");
    assert_eq!(lcd.warnings(), &[]);
}

#[test]
fn text_maps_rom_codes_to_unicode() {
    let mut bus = Bus::ready();
    for code in [b'\\', 0x7E, 0xE4, 0xDF, 0xB1] {
        bus.data(code);
    }
    assert_eq!(bus.line(0), "¥→μﾟｱ           ");
}

#[test]
fn e_cycle_and_control_changes_during_e_warn() {
    let mut bus = Bus::ready();
    bus.set(LCD_RS, true);
    bus.wait(1.0);
    bus.set(LCD_E, true);
    bus.wait(0.5);
    bus.set(LCD_RS, false); // RS moves while E is high
    bus.wait(0.5);
    bus.set(LCD_E, false);
    bus.now += 1;
    bus.set(LCD_E, true); // 1.125 µs after the last rise: tcycE is 1 µs, fine
    bus.now += 4;
    bus.set(LCD_E, false);
    bus.now += 1;
    bus.set(LCD_E, true); // 625 ns after the last rise
    let m = bus.messages();
    assert!(
        m.iter().any(|m| m.contains("changed while E is high")),
        "{m:?}"
    );
    assert_eq!(m.iter().filter(|m| m.contains("tcycE")).count(), 1, "{m:?}");
}

#[test]
fn backlight_follows_its_pin() {
    let mut bus = Bus::new();
    assert!(!bus.lcd.backlight());
    bus.set(firmware::board::LCD_BACKLIGHT, true);
    assert!(bus.lcd.backlight());
    assert_eq!(bus.lcd.warnings(), &[], "the backlight is not an LCD line");
}

//! Hitachi HD44780U dot-matrix LCD controller driving a 16x2 panel.
//!
//! The model follows the HD44780U datasheet (ADE-207-272):
//!
//! * Transfers are latched on the falling edge of E. In 4-bit mode a byte is
//!   two transfers, high nibble first, for writes and reads alike.
//! * Power-on reset leaves the chip in 8-bit mode, 1 line, display off,
//!   increment, DDRAM cleared to spaces, and busy until the power-on wait
//!   has passed. On a 4-bit board the unconnected DB0..DB3 read high (the
//!   chip's pull-ups), so the 0x3 nibbles of "initialisation by
//!   instruction" are function sets 0x3F, and 0x2 switches to 4-bit mode.
//! * Every instruction, DDRAM (80 bytes; line 2 at 0x40 in 2-line mode, with
//!   the 0x27→0x40 and 0x67→0x00 wraps) and CGRAM (8 characters of 8 rows;
//!   codes 0..7 and 8..15 alias), display shift, the busy flag and address
//!   counter read, and data reads through the data register.
//! * Execution times scale with the caller's CPU clock: the busy flag is set
//!   for the instruction's time after the E edge that completed it.
//!
//! What the firmware gets wrong is not silently accepted: a transfer while
//! busy, an E pulse shorter than PW_EH, E edges closer than tcycE, or
//! RS/RW/data setup and hold times violated as far as cycle stamps can show,
//! are recorded as [`LcdWarning`]s. The model then does what the chip would
//! most plausibly do: a transfer while busy is ignored; a short E pulse
//! still latches (the datasheet minimum has margin); setup and hold
//! violations latch the levels that were present while E was high.
//!
//! During a read the LCD drives the data lines; [`Hd44780::bus_drive`]
//! tells the board which levels to feed back to the CPU's input pins, from
//! tDDR after the rising edge of E until E falls.

use firmware::board::{self, Pin};

use super::font::{Font, Glyph};
use super::{cycles_to_ns, ns_to_cycles, port_from_index, PortDrive, PortLevels, PORTS};

mod display;
mod instructions;
mod interface;
mod timing;

pub use timing::Timing;

/// Visible characters per line of the panel.
pub const COLUMNS: usize = 16;
/// Visible lines of the panel.
pub const LINES: usize = 2;

/// Text shown for the CGRAM characters 0..7 by [`Hd44780::text`]: they have
/// no Unicode equivalent, so each gets a distinct superscript digit.
pub const CGRAM_PLACEHOLDERS: [char; 8] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷'];

/// Keep at most this many warnings: a firmware bug in a loop would
/// otherwise grow the list without bound. Later ones are only counted.
const MAX_WARNINGS: usize = 10_000;

/// Blink period of the blinking cursor (409.6 ms at fosc = 250 kHz).
const BLINK_PERIOD_NS: u64 = 409_600_000;

/// A misuse of the LCD seen on its pins.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LcdWarning {
    pub cycle: u64,
    /// Word address of the instruction that made the pin change, if known.
    pub pc: Option<u32>,
    pub message: String,
}

impl std::fmt::Display for LcdWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.pc {
            Some(pc) => write!(f, "LCD at cycle {} (pc 0x{:04x}): {}", self.cycle, pc * 2, self.message),
            None => write!(f, "LCD at cycle {}: {}", self.cycle, self.message),
        }
    }
}

/// The data bus as wired to the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LcdBus {
    /// DB4..DB7 only, in bus order; DB0..DB3 are unconnected.
    FourBit([Pin; 4]),
    /// DB0..DB7 in bus order.
    EightBit([Pin; 8]),
}

/// Which CPU pins the LCD's control and data lines are wired to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LcdWiring {
    pub rs: Pin,
    pub rw: Pin,
    pub e: Pin,
    pub bus: LcdBus,
    /// The backlight switch, if the CPU controls it.
    pub backlight: Option<Pin>,
}

impl LcdWiring {
    /// The Chess Prodigy board, from its pin map.
    pub const fn board() -> LcdWiring {
        LcdWiring {
            rs: board::LCD_RS,
            rw: board::LCD_RW,
            e: board::LCD_E,
            bus: LcdBus::FourBit(board::LCD_DATA),
            backlight: Some(board::LCD_BACKLIGHT),
        }
    }

    /// The lines as the LCD sees them, decoded from the port levels.
    pub fn decode(&self, ports: &PortLevels) -> LcdLines {
        let data = match self.bus {
            // DB0..DB3 float and the HD44780U's pull-ups make them read high.
            LcdBus::FourBit(pins) => gather(ports, &pins) << 4 | 0x0F,
            LcdBus::EightBit(pins) => gather(ports, &pins),
        };
        LcdLines {
            rs: ports.get(self.rs),
            rw: ports.get(self.rw),
            e: ports.get(self.e),
            data,
        }
    }

    /// Whether `port` carries any of the LCD's lines.
    fn uses_port(&self, port: usize) -> bool {
        let data: &[Pin] = match &self.bus {
            LcdBus::FourBit(p) => p,
            LcdBus::EightBit(p) => p,
        };
        [self.rs, self.rw, self.e]
            .iter()
            .chain(data)
            .chain(&self.backlight)
            .any(|p| p.port.index() == port)
    }
}

fn gather(ports: &PortLevels, pins: &[Pin]) -> u8 {
    pins.iter()
        .enumerate()
        .fold(0, |v, (i, &p)| v | (ports.get(p) as u8) << i)
}

/// The LCD's input lines at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LcdLines {
    pub rs: bool,
    pub rw: bool,
    pub e: bool,
    /// DB7..DB0 as the chip sees them (bit n = DBn).
    pub data: u8,
}

/// Where the address counter points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ram {
    Ddram,
    Cgram,
}

/// The first half of a 4-bit transfer.
#[derive(Clone, Copy, Debug)]
struct HalfTransfer {
    rs: bool,
    rw: bool,
    high: u8,
    /// The chip was busy when this half arrived.
    busy: bool,
}

/// Progress of "initialisation by instruction" after power-on: how many
/// 8-bit function sets have been seen, and when the last one was.
#[derive(Clone, Copy, Debug)]
struct InitSequence {
    function_sets: u8,
    last: u64,
}

/// The HD44780U with its 16x2 panel.
#[derive(Clone)]
pub struct Hd44780 {
    clock_hz: u32,
    timing: Timing,
    wiring: LcdWiring,
    font: &'static Font,
    warnings: Vec<LcdWarning>,
    dropped_warnings: u64,

    // The pins and their history, for latching and timing checks.
    ports: PortLevels,
    lines: LcdLines,
    e_rose: Option<u64>,
    rs_rw_changed: u64,
    data_changed: u64,
    /// First half of a 4-bit transfer, once its E edge has fallen.
    half: Option<HalfTransfer>,
    /// The byte being read and whether the current E pulse outputs its high
    /// nibble (4-bit mode) or all of it; valid while E is high with RW=1.
    read_byte: u8,
    read_high_nibble: bool,
    read_valid_from: u64,
    /// The busy flag was set when the current read started.
    read_busy: bool,

    // The controller.
    eight_bit: bool,
    two_lines: bool,
    font_5x10: bool,
    display_on: bool,
    cursor_on: bool,
    blink_on: bool,
    increment: bool,
    entry_shift: bool,
    ac: u8,
    ram: Ram,
    /// Display shift: the DDRAM offset of the leftmost visible column.
    shift: u8,
    ddram: [u8; 80],
    cgram: [u8; 64],
    /// The data register, loaded from RAM for reads; invalid after a write
    /// until the next address set or cursor shift.
    dr: u8,
    dr_valid: bool,
    busy_until: u64,
    /// End of the power-on reset, to explain transfers ignored during it.
    reset_until: u64,
    init: InitSequence,
}

impl Hd44780 {
    /// The board's LCD, powered on at cycle 0, with the default timing.
    pub fn new(clock_hz: u32) -> Hd44780 {
        Hd44780::with_config(clock_hz, LcdWiring::board(), Timing::default())
    }

    pub fn with_config(clock_hz: u32, wiring: LcdWiring, timing: Timing) -> Hd44780 {
        let mut lcd = Hd44780 {
            clock_hz,
            timing,
            wiring,
            font: Font::a00(),
            warnings: Vec::new(),
            dropped_warnings: 0,
            ports: PortLevels::default(),
            lines: LcdLines::default(),
            e_rose: None,
            rs_rw_changed: 0,
            data_changed: 0,
            half: None,
            read_byte: 0,
            read_high_nibble: false,
            read_valid_from: 0,
            read_busy: false,
            eight_bit: true,
            two_lines: false,
            font_5x10: false,
            display_on: false,
            cursor_on: false,
            blink_on: false,
            increment: true,
            entry_shift: false,
            ac: 0,
            ram: Ram::Ddram,
            shift: 0,
            ddram: [b' '; 80],
            cgram: [0; 64],
            dr: b' ',
            dr_valid: false,
            busy_until: 0,
            reset_until: 0,
            init: InitSequence {
                function_sets: 0,
                last: 0,
            },
        };
        lcd.power_on(0);
        lcd
    }

    /// Power-on reset at `cycle` (the datasheet's "initializing by internal
    /// reset circuit"). CGRAM keeps its contents: it is not initialised.
    pub fn power_on(&mut self, cycle: u64) {
        self.eight_bit = true;
        self.two_lines = false;
        self.font_5x10 = false;
        self.display_on = false;
        self.cursor_on = false;
        self.blink_on = false;
        self.increment = true;
        self.entry_shift = false;
        self.ac = 0;
        self.ram = Ram::Ddram;
        self.shift = 0;
        self.ddram = [b' '; 80];
        self.dr_valid = false;
        self.half = None;
        self.busy_until = cycle + self.cycles(self.timing.power_on_ns);
        self.reset_until = self.busy_until;
        self.init = InitSequence {
            function_sets: 0,
            last: cycle,
        };
    }

    /// Whether the busy flag is set at `cycle`.
    pub fn busy(&self, cycle: u64) -> bool {
        cycle < self.busy_until
    }

    pub fn display_on(&self) -> bool {
        self.display_on
    }

    pub fn cursor(&self) -> bool {
        self.cursor_on
    }

    pub fn blink(&self) -> bool {
        self.blink_on
    }

    /// Whether the CPU has the backlight switched on (false if not wired).
    pub fn backlight(&self) -> bool {
        self.wiring.backlight.is_some_and(|p| self.ports.get(p))
    }

    pub fn eight_bit_mode(&self) -> bool {
        self.eight_bit
    }

    pub fn two_line_mode(&self) -> bool {
        self.two_lines
    }

    /// The address counter (DDRAM or CGRAM address).
    pub fn address_counter(&self) -> u8 {
        self.ac
    }

    /// The display shift: DDRAM offset of the leftmost visible column.
    pub fn display_shift(&self) -> u8 {
        self.shift
    }

    /// DDRAM contents in the model's layout (2-line mode: line 1 in 0..40,
    /// line 2 in 40..80).
    pub fn ddram(&self) -> &[u8; 80] {
        &self.ddram
    }

    pub fn cgram(&self) -> &[u8; 64] {
        &self.cgram
    }

    pub fn warnings(&self) -> &[LcdWarning] {
        &self.warnings
    }

    /// Removes and returns the warnings so far.
    pub fn take_warnings(&mut self) -> Vec<LcdWarning> {
        std::mem::take(&mut self.warnings)
    }

    /// Warnings not kept because there were too many.
    pub fn dropped_warnings(&self) -> u64 {
        self.dropped_warnings
    }

    // ----- Helpers -----

    fn warn(&mut self, cycle: u64, pc: Option<u32>, message: String) {
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings.push(LcdWarning { cycle, pc, message });
        } else {
            self.dropped_warnings += 1;
        }
    }

    fn cycles(&self, ns: u64) -> u64 {
        ns_to_cycles(ns, self.clock_hz)
    }

    fn ns(&self, cycles: u64) -> u64 {
        cycles_to_ns(cycles, self.clock_hz)
    }
}

#[cfg(test)]
mod tests;

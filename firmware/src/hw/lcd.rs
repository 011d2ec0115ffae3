//! HD44780 16x2 LCD in 4-bit mode, on the pins of `board::LCD_*`.
//!
//! Timing (HD44780U datasheet, worst case over the supply range, at 8 MHz
//! one cycle is 125 ns; every figure below is a minimum and the code adds a
//! cycle of margin on top, so a sampling simulator never sees it short):
//!
//! | parameter                     | needs        | here                        |
//! |-------------------------------|--------------|-----------------------------|
//! | power-on to first instruction | > 40 ms      | 50 ms                       |
//! | tAS  RS/RW setup before E     | >= 60 ns     | >= 2 cycles (250 ns)        |
//! | PWEH E high                   | >= 450 ns    | >= 5 NOPs + store (>= 750)  |
//! | tcycE E cycle                 | >= 1000 ns   | E low >= 5 NOPs + stores    |
//! | tDSW data setup before E fall | >= 195 ns    | data set before E rises     |
//! | tH / tAH hold after E fall    | >= 10 ns     | >= 1 cycle                  |
//! | tDDR read data valid after E  | <= 360 ns    | sampled >= 5 NOPs after E   |
//!
//! Instructions are paced by the busy flag (RW=1, D4..D7 inputs without
//! pull-ups, both nibbles read) except in the init-by-instruction sequence,
//! where it cannot be read and the datasheet waits are used. If the busy
//! flag never clears (no LCD, broken bus) the driver falls back to fixed
//! waits for the rest of the session.
//!
//! All of this runs in the background with interrupts enabled: an interrupt
//! can only lengthen a pulse, and no handler touches the LCD port.

use super::gpio::Gpio;
use super::delay_us;
use firmware::board::{self, CPU_HZ};
use firmware::display::{Display, LcdSink, COLS, ROWS};
use firmware::glyphs;

const BUS: Gpio = Gpio::of(board::LCD_PORT);
const RS: u8 = board::LCD_RS.mask();
const RW: u8 = board::LCD_RW.mask();
const E: u8 = board::LCD_E.mask();
const BACKLIGHT: u8 = board::LCD_BACKLIGHT.mask();
const SHIFT: u8 = board::LCD_DATA_SHIFT;
const DATA: u8 =
    board::LCD_DATA[0].mask() | board::LCD_DATA[1].mask() | board::LCD_DATA[2].mask() | board::LCD_DATA[3].mask();
/// D7 within a nibble read back (the busy flag in the high nibble).
const BF: u8 = board::LCD_DATA[3].mask() >> SHIFT;

const _: () = {
    let p = board::LCD_PORT as u8;
    assert!(board::LCD_RS.port as u8 == p && board::LCD_RW.port as u8 == p);
    assert!(board::LCD_E.port as u8 == p && board::LCD_BACKLIGHT.port as u8 == p);
    let mut i = 0;
    while i < 4 {
        assert!(board::LCD_DATA[i].port as u8 == p, "D4..D7 must share the LCD port");
        assert!(board::LCD_DATA[i].bit == SHIFT + i as u8, "D4..D7 must be consecutive bits");
        i += 1;
    }
    assert!(DATA == 0x0F << SHIFT);
};

/// Whole CPU cycles covering `ns`, plus one cycle of margin.
const fn cycles(ns: u32) -> u32 {
    (ns as u64 * CPU_HZ as u64).div_ceil(1_000_000_000) as u32 + 1
}

/// NOPs after a control-line change before E rises (tAS 60 ns).
const T_AS: u32 = cycles(60);
/// NOPs with E high (PWEH 450 ns; the read also waits tDDR 360 ns).
const T_EH: u32 = cycles(450);
/// NOPs with E low before anything else may pulse it (tcycE 1000 ns).
const T_EL: u32 = cycles(1000 - 450);
const _: () = assert!(T_EH >= cycles(360), "E must stay high past tDDR before sampling");

/// Busy-flag polls before giving up: each poll is two full E cycles
/// (>= 2 * (T_EH + T_EL) cycles), so this is well over 4 ms, more than the
/// slowest instruction (clear/home, 1.52 ms nominal, ~2.2 ms at 190 kHz).
const BUSY_POLLS: u16 = (4_000 * (CPU_HZ / 1_000_000) / (2 * (T_EH + T_EL))) as u16;

// Instructions.
const CLEAR: u8 = 0x01;
const ENTRY_INCREMENT: u8 = 0x06;
const DISPLAY_OFF: u8 = 0x08;
const DISPLAY_ON: u8 = 0x0C;
const CURSOR_ON: u8 = 0x02;
const BLINK_ON: u8 = 0x01;
const FUNCTION_4BIT_2LINES: u8 = 0x28;
const SET_CGRAM: u8 = 0x40;
const SET_DDRAM: u8 = 0x80;
/// DDRAM address of the start of row 1 (row 0 starts at 0).
const ROW1_ADDR: u8 = 0x40;
const _: () = assert!(ROWS == 2 && COLS == 16);

/// Exactly `N` NOPs; an optimisation barrier, so pulses keep their width.
#[inline(always)]
fn nops<const N: u32>() {
    // SAFETY: only burns cycles.
    unsafe { core::arch::asm!(".rept {n}", "nop", ".endr", n = const N, options(preserves_flags)) }
}

pub struct Lcd {
    /// Pace instructions by the busy flag; false after a timeout.
    use_busy_flag: bool,
    /// The last instruction was clear or home (1.52 ms instead of 37 us),
    /// for the fixed-wait fallback.
    last_slow: bool,
    /// Where the visible cursor is shown, if any.
    cursor: Option<(u8, u8)>,
}

impl Lcd {
    /// Powers the LCD up: datasheet init-by-instruction to 4-bit, 2 lines,
    /// 5x8 font; clears it, uploads the CGRAM glyphs and switches it on.
    /// `pins::init` must have made the control and data lines outputs.
    /// Takes about 60 ms; call it before interrupts are enabled or not, as
    /// it only busy-waits.
    pub fn init() -> Lcd {
        let mut lcd = Lcd { use_busy_flag: true, last_slow: false, cursor: None };
        BUS.out_clear(RS | RW | E | DATA);
        BUS.set_ddr(BUS.ddr() | RS | RW | E | BACKLIGHT | DATA);
        BUS.out_set(BACKLIGHT);

        wait_150us(334); // 50.1 ms: > 40 ms after Vcc rises to 2.7 V
        // Init by instruction: three times "8-bit interface", then "4-bit",
        // each followed by a wait: > 4.1 ms (here 5.1), > 100 us, > 37 us
        // (execution), > 37 us; from then on the interface is 4 bits wide.
        // The busy flag cannot be read during this sequence. (One wait
        // loop, and the sequence a loop: 56 B less than written out.)
        for i in 0..4u8 {
            write_nibble(if i == 3 { 0x2 } else { 0x3 });
            wait_150us(if i == 0 { 34 } else { 1 });
        }

        lcd.command(FUNCTION_4BIT_2LINES);
        lcd.command(DISPLAY_OFF);
        lcd.command(CLEAR);
        lcd.command(ENTRY_INCREMENT);
        lcd.upload_glyphs();
        lcd.command(SET_DDRAM);
        lcd.command(DISPLAY_ON);
        lcd
    }

    /// Whether instructions are still paced by the busy flag (false once it
    /// timed out and fixed waits took over).
    pub fn busy_flag_ok(&self) -> bool {
        self.use_busy_flag
    }

    fn upload_glyphs(&mut self) {
        self.command(SET_CGRAM);
        for i in 0..8 * glyphs::COUNT as u8 {
            self.data(glyphs::cgram_byte(i));
        }
    }

    /// Sends an instruction byte.
    pub fn command(&mut self, cmd: u8) {
        self.wait_ready();
        BUS.out_clear(RS);
        write_byte(cmd);
        self.last_slow = cmd == CLEAR || cmd & 0xFE == 0x02;
    }

    /// Writes a data byte to DDRAM or CGRAM at the address counter.
    pub fn data(&mut self, byte: u8) {
        self.wait_ready();
        BUS.out_set(RS);
        write_byte(byte);
        self.last_slow = false;
    }

    /// Waits until the controller can take the next instruction.
    fn wait_ready(&mut self) {
        if !self.use_busy_flag {
            delay_us(if self.last_slow { 3_000 } else { 60 });
            return;
        }
        // Release the data lines (no pull-ups: a floating D7 must not look
        // busy forever), then RS=0, RW=1: read busy flag and address.
        BUS.set_ddr(BUS.ddr() & !DATA);
        BUS.out_clear(DATA | RS);
        BUS.out_set(RW);
        nops::<T_AS>();
        let mut ready = false;
        for _ in 0..BUSY_POLLS {
            let high = read_nibble();
            let _low = read_nibble(); // 4-bit mode: both nibbles, always
            if high & BF == 0 {
                ready = true;
                break;
            }
        }
        // E is low: the LCD has stopped driving; take the bus back.
        BUS.out_clear(RW);
        BUS.set_ddr(BUS.ddr() | DATA);
        if !ready {
            self.use_busy_flag = false;
        }
    }

    /// Shows a blinking block cursor at `(row, col)`, or hides it (`None`).
    pub fn set_cursor(&mut self, at: Option<(u8, u8)>) {
        self.cursor = at.filter(|&(r, c)| r < ROWS && c < COLS);
        match self.cursor {
            Some((r, c)) => {
                self.set_address(r, c);
                self.command(DISPLAY_ON | CURSOR_ON | BLINK_ON);
            }
            None => self.command(DISPLAY_ON),
        }
    }

    /// Sends the changed cells of `display`; returns how many were written.
    pub fn flush(&mut self, display: &mut Display) -> u8 {
        let n = display.flush(self);
        if n != 0 {
            if let Some((r, c)) = self.cursor {
                // Writing moved the address counter, and the cursor with it.
                self.set_address(r, c);
            }
        }
        n
    }

    pub fn set_backlight(&mut self, on: bool) {
        if on {
            BUS.out_set(BACKLIGHT);
        } else {
            BUS.out_clear(BACKLIGHT);
        }
    }
}

impl LcdSink for Lcd {
    fn set_address(&mut self, row: u8, col: u8) {
        let base = if row == 0 { 0 } else { ROW1_ADDR };
        self.command(SET_DDRAM | (base + (col & 0x3F)));
    }

    fn write_data(&mut self, ch: u8) {
        self.data(ch);
    }
}

/// Busy-waits `n` times 150 us.
#[inline(never)]
fn wait_150us(n: u16) {
    for _ in 0..n {
        delay_us(150);
    }
}

/// Writes a byte as two nibbles, high first. RS is set, RW=0, bus outputs.
#[inline(never)]
fn write_byte(b: u8) {
    write_nibble(b >> 4);
    write_nibble(b & 0x0F);
}

/// One write cycle: data on D4..D7, E pulse, E low time.
#[inline(never)]
fn write_nibble(n: u8) {
    BUS.set_out((BUS.out() & !DATA) | ((n << SHIFT) & DATA));
    nops::<T_AS>();
    BUS.out_set(E);
    nops::<T_EH>();
    BUS.out_clear(E);
    nops::<T_EL>();
}

/// One read cycle (RW=1, data lines inputs): returns D4..D7 as a nibble.
#[inline(never)]
fn read_nibble() -> u8 {
    BUS.out_set(E);
    nops::<T_EH>(); // covers tDDR, so D4..D7 are valid now
    let v = BUS.pins();
    BUS.out_clear(E);
    nops::<T_EL>();
    (v & DATA) >> SHIFT
}

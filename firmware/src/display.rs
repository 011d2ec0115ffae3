//! A 16x2 character frame buffer that the UI writes into.
//!
//! The UI never talks to the LCD: it puts characters, flash strings and
//! numbers into a [`Display`], and the hardware layer calls
//! [`Display::flush`] with an [`LcdSink`], which sends only the cells that
//! changed since the last flush. Writes past the end of a row are clipped (a
//! row never spills into the next one).
//!
//! Character codes are the HD44780's: ASCII 0x20..0x7D, plus the eight
//! CGRAM glyphs 0..=7 of [`crate::glyphs`].

use crate::progmem::Table;

pub const COLS: u8 = 16;
pub const ROWS: u8 = 2;
const CELLS: usize = (COLS as usize) * (ROWS as usize);

/// The LCD side of a flush: the hardware driver (or a test double).
pub trait LcdSink {
    /// Moves the controller's address counter to `(row, col)`.
    fn set_address(&mut self, row: u8, col: u8);
    /// Writes one character at the address counter, which then advances.
    fn write_data(&mut self, ch: u8);
}

/// In a cell: blanked, but not yet on the LCD, which still shows the
/// character in the low bits. A screen is redrawn by blanking a row, or
/// writing a row of text with spaces, then writing over it again: the
/// cells that come back to what the LCD shows are not sent. (The thinking
/// screen, redrawn twice a second and at every `info`, sent its depth,
/// score, move and clock each time: about 12 of the 21 characters a flush
/// wrote.) The characters are below 0x80 (see the module doc).
const BLANKED: u8 = 0x80;

pub struct Display {
    /// The characters, or [`BLANKED`] and the LCD's.
    cells: [u8; CELLS],
    /// Bit `col % 8` of byte `row * 2 + col / 8` set when that cell
    /// differs from the LCD (a blanked cell aside). Bytes: a `1 << i` of
    /// 32 bits is a loop of i steps on the AVR.
    dirty: [u8; 4],
    /// Where the next `put_*` writes: `row * 16 + col`; >= 32 means off-screen.
    cursor: u8,
}

/// Declares a string in flash and evaluates to a `&'static FlashStr<N>`:
/// `disp.put_flash(flash_str!(b"Chess Prodigy"))`.
#[macro_export]
macro_rules! flash_str {
    ($s:literal) => {{
        $crate::progmem! {
            static S: [u8; $s.len()] = *$s;
        }
        &S
    }};
}

impl Display {
    /// A blank screen (all spaces), entirely dirty so the first flush
    /// overwrites whatever the LCD shows.
    pub const fn new() -> Self {
        Display { cells: [b' '; CELLS], dirty: [0xFF; 4], cursor: 0 }
    }

    /// Marks every cell dirty, e.g. after the LCD was re-initialised.
    pub fn invalidate(&mut self) {
        self.dirty = [0xFF; 4];
    }

    /// True when a flush would send something.
    pub fn is_dirty(&self) -> bool {
        self.dirty != [0; 4] || self.cells.iter().any(|&c| c & BLANKED != 0)
    }

    /// Blanks the whole screen and homes the cursor.
    pub fn clear(&mut self) {
        for i in 0..CELLS as u8 {
            self.set_cell(i, b' ');
        }
        self.cursor = 0;
    }

    /// Blanks one row and puts the cursor at its start.
    #[inline(never)]
    pub fn clear_row(&mut self, row: u8) {
        self.set_cursor(row, 0);
        self.pad_row();
        self.set_cursor(row, 0);
    }

    /// Moves the write position. An off-screen position makes writes no-ops.
    #[inline(never)]
    pub fn set_cursor(&mut self, row: u8, col: u8) {
        self.cursor = if row < ROWS && col < COLS { row * COLS + col } else { CELLS as u8 };
    }

    /// Current write position `(row, col)`, or `None` past the end of a row.
    pub fn cursor(&self) -> Option<(u8, u8)> {
        if (self.cursor as usize) < CELLS {
            Some((self.cursor / COLS, self.cursor % COLS))
        } else {
            None
        }
    }

    /// The character at `(row, col)` (space when out of range).
    pub fn cell(&self, row: u8, col: u8) -> u8 {
        if row < ROWS && col < COLS {
            shown(self.cells[(row * COLS + col) as usize])
        } else {
            b' '
        }
    }

    /// One row of the buffer.
    pub fn row(&self, row: u8) -> [u8; COLS as usize] {
        let r = (row.min(ROWS - 1) * COLS) as usize;
        let mut out = [0; COLS as usize];
        for (o, &c) in out.iter_mut().zip(&self.cells[r..r + COLS as usize]) {
            *o = shown(c);
        }
        out
    }

    fn set_cell(&mut self, i: u8, ch: u8) {
        debug_assert!(ch & BLANKED == 0);
        let old = self.cells[i as usize];
        if old == ch {
            return;
        }
        if ch == b' ' {
            // Not sent yet: it may be written back before the flush.
            if old & BLANKED == 0 {
                self.cells[i as usize] = old | BLANKED;
            }
            return;
        }
        self.cells[i as usize] = ch;
        // A blanked cell written back with what the LCD shows is clean
        // again (or dirty still, if it was before its blanking).
        if old ^ BLANKED != ch {
            self.dirty[(i >> 3) as usize] |= 1 << (i & 7);
        }
    }

    /// Writes `ch` at the cursor and advances; clipped at the end of a row.
    pub fn put_char(&mut self, ch: u8) {
        if (self.cursor as usize) >= CELLS {
            return;
        }
        self.set_cell(self.cursor, ch);
        self.cursor += 1;
        if self.cursor.is_multiple_of(COLS) {
            // Ran off the row: park off-screen until the next set_cursor.
            self.cursor = CELLS as u8;
        }
    }

    /// Writes `ch` at `(row, col)` and leaves the cursor after it.
    pub fn put_char_at(&mut self, row: u8, col: u8, ch: u8) {
        self.set_cursor(row, col);
        self.put_char(ch);
    }

    /// Writes bytes from RAM (computed text). Use [`put_flash`](Self::put_flash)
    /// for constant text: a literal in RAM costs SRAM on the AVR.
    pub fn put_bytes(&mut self, s: &[u8]) {
        for &c in s {
            self.put_char(c);
        }
    }

    /// Writes a flash string.
    pub fn put_flash<const N: usize>(&mut self, s: &Table<u8, N>) {
        for i in 0..N {
            self.put_char(s.get(i));
        }
    }

    /// Writes a flash string centred on `row`, blanking the rest of the row.
    pub fn put_flash_centred<const N: usize>(&mut self, row: u8, s: &Table<u8, N>) {
        let col = (COLS as usize).saturating_sub(N) / 2;
        self.clear_row(row);
        self.set_cursor(row, col as u8);
        self.put_flash(s);
    }

    /// Fills from the cursor to the end of its row with spaces.
    pub fn pad_row(&mut self) {
        while (self.cursor as usize) < CELLS {
            self.put_char(b' ');
        }
    }

    /// Writes `n` in decimal, right-aligned in `width` columns filled with
    /// `fill` (e.g. b' ' or b'0'); a wider number is written in full.
    pub fn put_u32(&mut self, n: u32, width: u8, fill: u8) {
        let mut digits = [0u8; 10];
        let len = format_u32(n, &mut digits);
        for _ in len..width as usize {
            self.put_char(fill);
        }
        self.put_bytes(&digits[10 - len..]);
    }

    /// Writes `n` in decimal with a leading '-' when negative, right-aligned
    /// in `width` columns of spaces.
    pub fn put_i32(&mut self, n: i32, width: u8) {
        let mut digits = [0u8; 10];
        let len = crate::decimal::format_u32(n.unsigned_abs(), &mut digits);
        let total = len + (n < 0) as usize;
        for _ in total..width as usize {
            self.put_char(b' ');
        }
        if n < 0 {
            self.put_char(b'-');
        }
        self.put_bytes(&digits[10 - len..]);
    }

    /// Writes `n` as two upper-case hex digits.
    pub fn put_hex8(&mut self, n: u8) {
        self.put_char(hex_digit(n >> 4));
        self.put_char(hex_digit(n & 0xF));
    }

    /// Sends the changed cells to `lcd` and marks them clean. Consecutive
    /// dirty cells in a row share one address command. Returns the number of
    /// characters written.
    pub fn flush(&mut self, lcd: &mut impl LcdSink) -> u8 {
        let mut written = 0;
        // Address the LCD's counter would have after the last write.
        let mut next: u8 = u8::MAX;
        // The dirty bits are shifted out one a cell, a byte at a time: on
        // the AVR a `1 << i` of 32 bits is a loop of i steps, which made a
        // flush of the thinking screen cost about 6,000 cycles.
        let mut bits = 0u8;
        for i in 0..CELLS as u8 {
            if i & 7 == 0 {
                bits = core::mem::take(&mut self.dirty[(i >> 3) as usize]);
            }
            let dirty = bits & 1 != 0;
            bits >>= 1;
            // The blanked cells are sent too (dirty or not).
            let c = self.cells[i as usize];
            if c & BLANKED == 0 && !dirty {
                continue;
            }
            let c = shown(c);
            self.cells[i as usize] = c;
            if i != next {
                lcd.set_address(i / COLS, i % COLS);
            }
            lcd.write_data(c);
            written += 1;
            // The HD44780 does not wrap from column 15 of row 0 into row 1.
            next = if (i + 1).is_multiple_of(COLS) { u8::MAX } else { i + 1 };
        }
        written
    }
}

impl Default for Display {
    fn default() -> Self {
        Self::new()
    }
}

/// [`crate::decimal::format_u32`], below 65,536 without its 32-bit
/// divisions (about 220 cycles a digit): by subtracting powers of ten. The
/// thinking screen's numbers (depth, score, clock), drawn at every
/// refresh, and the `info` lines' (`protocol::Tx::num32`: `bench engine`
/// 0.15% fewer cycles, 44 B). (Below 100 only: 0.14% fewer, 88 B.)
#[inline(never)]
pub(crate) fn format_u32(n: u32, out: &mut [u8; 10]) -> usize {
    if n > u16::MAX as u32 {
        return crate::decimal::format_u32(n, out);
    }
    let [d4, d3, d2, d1, d0] = digits5(n as u16);
    out[5] = d4;
    out[6] = d3;
    out[7] = d2;
    out[8] = d1;
    out[9] = d0;
    // Leading zeros aside (at least one digit).
    let mut len = 5;
    while len > 1 && out[10 - len] == b'0' {
        len -= 1;
    }
    len
}

/// The five decimal digits of `v`, ASCII, most significant first.
#[cfg(not(target_arch = "avr"))]
fn digits5(v: u16) -> [u8; 5] {
    let mut d = [0u8; 5];
    let mut v = v;
    for c in d.iter_mut().rev() {
        *c = b'0' + (v % 10) as u8;
        v /= 10;
    }
    d
}

/// [`digits5`] on the AVR: each digit by subtracting its power of ten
/// (in Rust the compiler turned those loops back into divisions).
#[cfg(target_arch = "avr")]
#[inline(always)]
fn digits5(v: u16) -> [u8; 5] {
    let (d4, d3, d2, d1): (u8, u8, u8, u8);
    let mut lo = v as u8;
    let mut hi = (v >> 8) as u8;
    // SAFETY: registers only.
    unsafe {
        core::arch::asm!(
            "ldi  {d4}, 0x2F",
            "1:",
            "inc  {d4}",
            "subi {lo}, 0x10", // 10,000 = 0x2710
            "sbci {hi}, 0x27",
            "brcc 1b",
            "subi {lo}, 0xF0", // -10,000 = 0xD8F0
            "sbci {hi}, 0xD8",
            "ldi  {d3}, 0x2F",
            "2:",
            "inc  {d3}",
            "subi {lo}, 0xE8", // 1,000 = 0x03E8
            "sbci {hi}, 0x03",
            "brcc 2b",
            "subi {lo}, 0x18", // -1,000 = 0xFC18
            "sbci {hi}, 0xFC",
            "ldi  {d2}, 0x2F",
            "3:",
            "inc  {d2}",
            "subi {lo}, 100",
            "sbci {hi}, 0",
            "brcc 3b",
            "subi {lo}, 0x9C", // -100 = 0xFF9C
            "sbci {hi}, 0xFF",
            "ldi  {d1}, 0x2F",
            "4:",
            "inc  {d1}",
            "subi {lo}, 10",
            "brcc 4b",
            "subi {lo}, 0xC6", // + 10 + b'0'
            lo = inout(reg_upper) lo,
            hi = inout(reg_upper) hi,
            d4 = out(reg_upper) d4,
            d3 = out(reg_upper) d3,
            d2 = out(reg_upper) d2,
            d1 = out(reg_upper) d1,
            options(pure, nomem, nostack),
        );
    }
    let _ = hi;
    [d4, d3, d2, d1, lo]
}

/// What a cell shows once flushed.
fn shown(c: u8) -> u8 {
    if c & BLANKED != 0 {
        b' '
    } else {
        c
    }
}

fn hex_digit(n: u8) -> u8 {
    if n < 10 {
        b'0' + n
    } else {
        b'A' + n - 10
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records the LCD traffic of a flush.
    #[derive(Default)]
    struct Recorder {
        ops: Vec<(Option<(u8, u8)>, u8)>,
        addr: Option<(u8, u8)>,
        screen: [[u8; 16]; 2],
    }

    impl LcdSink for Recorder {
        fn set_address(&mut self, row: u8, col: u8) {
            self.addr = Some((row, col));
            self.ops.push((Some((row, col)), 0));
        }
        fn write_data(&mut self, ch: u8) {
            let (r, c) = self.addr.expect("data before any address");
            assert!(c < 16, "write past the visible row");
            self.screen[r as usize][c as usize] = ch;
            self.addr = Some((r, c + 1));
            self.ops.push((None, ch));
        }
    }

    fn text(d: &Display, row: u8) -> String {
        String::from_utf8(d.row(row).to_vec()).unwrap()
    }

    #[test]
    fn first_flush_writes_everything_then_nothing() {
        let mut d = Display::new();
        let mut lcd = Recorder::default();
        assert_eq!(d.flush(&mut lcd), 32);
        // One address per row: row 0 and row 1.
        let addrs: Vec<_> = lcd.ops.iter().filter_map(|(a, _)| *a).collect();
        assert_eq!(addrs, vec![(0, 0), (1, 0)]);
        assert!(!d.is_dirty());
        lcd.ops.clear();
        assert_eq!(d.flush(&mut lcd), 0);
        assert!(lcd.ops.is_empty());
    }

    #[test]
    fn only_changed_cells_are_sent() {
        let mut d = Display::new();
        let mut lcd = Recorder::default();
        d.flush(&mut lcd);
        lcd.ops.clear();
        d.set_cursor(1, 4);
        d.put_bytes(b"Key");
        d.put_char_at(0, 15, b'!');
        d.put_char_at(1, 10, b' '); // unchanged: not dirty
        assert_eq!(d.flush(&mut lcd), 4);
        assert_eq!(
            lcd.ops,
            vec![(Some((0, 15)), 0), (None, b'!'), (Some((1, 4)), 0), (None, b'K'), (None, b'e'), (None, b'y')]
        );
        assert_eq!(&lcd.screen[1][4..7], b"Key");
        // Rewriting the same text is free.
        lcd.ops.clear();
        d.set_cursor(1, 4);
        d.put_bytes(b"Key");
        assert!(!d.is_dirty());
        assert_eq!(d.flush(&mut lcd), 0);
    }

    #[test]
    fn a_redraw_sends_only_what_changed() {
        let mut d = Display::new();
        let mut lcd = Recorder::default();
        d.set_cursor(0, 0);
        d.put_bytes(b"D 4  +0.35 e2e4");
        d.set_cursor(1, 0);
        d.put_bytes(b"Thinking    0:12");
        d.flush(&mut lcd);
        lcd.ops.clear();
        // Blanked, then written back: nothing to send until the flush.
        d.clear_row(0);
        assert_eq!(text(&d, 0), "                ");
        assert_eq!(d.cell(0, 0), b' ');
        assert!(d.is_dirty());
        d.put_bytes(b"D 4  +0.41 e2e4");
        d.set_cursor(1, 0);
        d.put_bytes(b"Thinking        ");
        d.set_cursor(1, 12);
        d.put_bytes(b"0:13");
        assert_eq!(text(&d, 0), "D 4  +0.41 e2e4 ");
        assert_eq!(d.flush(&mut lcd), 3);
        assert_eq!(lcd.ops, vec![(Some((0, 8)), 0), (None, b'4'), (None, b'1'), (Some((1, 15)), 0), (None, b'3')]);
        // Blanked for good: sent as spaces.
        lcd.ops.clear();
        d.clear_row(0);
        d.put_bytes(b"D 4");
        assert_eq!(d.flush(&mut lcd), 9);
        assert_eq!(&lcd.screen[0], b"D 4             ");
        assert!(!d.is_dirty());
        // Invalidated while blanked: sent even when written back.
        d.set_cursor(0, 0);
        d.put_bytes(b"   ");
        d.invalidate();
        d.set_cursor(0, 0);
        d.put_bytes(b"D 4");
        assert_eq!(d.flush(&mut lcd), 32);
        assert_eq!(&lcd.screen[0], b"D 4             ");
    }

    #[test]
    fn rows_clip_and_do_not_wrap() {
        let mut d = Display::new();
        d.set_cursor(0, 12);
        d.put_bytes(b"ABCDEFG");
        assert_eq!(text(&d, 0), "            ABCD");
        assert_eq!(text(&d, 1), "                ");
        assert_eq!(d.cursor(), None);
        d.set_cursor(2, 0);
        d.put_char(b'X');
        d.set_cursor(0, 16);
        d.put_char(b'X');
        assert_eq!(text(&d, 1), "                ");
        assert_eq!(d.cell(5, 5), b' ');
    }

    #[test]
    fn flush_readdresses_at_the_row_boundary() {
        let mut d = Display::new();
        let mut lcd = Recorder::default();
        d.flush(&mut lcd);
        lcd.ops.clear();
        d.put_char_at(0, 15, b'a');
        d.put_char_at(1, 0, b'b');
        d.flush(&mut lcd);
        assert_eq!(lcd.ops, vec![(Some((0, 15)), 0), (None, b'a'), (Some((1, 0)), 0), (None, b'b')]);
    }

    #[test]
    fn flash_strings_and_centring() {
        let mut d = Display::new();
        d.put_flash_centred(0, crate::flash_str!(b"Chess Prodigy"));
        d.put_flash_centred(1, crate::flash_str!(b"v2.0  Rust"));
        assert_eq!(text(&d, 0), " Chess Prodigy  ");
        assert_eq!(text(&d, 1), "   v2.0  Rust   ");
        d.put_flash_centred(1, crate::flash_str!(b"a string longer than a row"));
        assert_eq!(text(&d, 1), "a string longer ");
    }

    #[test]
    fn numbers() {
        let mut d = Display::new();
        d.set_cursor(0, 0);
        d.put_u32(0, 0, b' ');
        d.put_char(b'|');
        d.put_u32(42, 4, b'0');
        d.put_char(b'|');
        d.put_i32(-7, 3);
        d.put_char(b'|');
        d.put_hex8(0xA5);
        assert_eq!(text(&d, 0), "0|0042| -7|A5   ");
        d.set_cursor(1, 0);
        d.put_u32(u32::MAX, 3, b' ');
        for n in [0, 9, 10, 99, 100, 101, 999, 1_000, 9_999, 10_000, 65_535, 65_536] {
            let mut a = [0u8; 10];
            let mut b = [0u8; 10];
            let len = super::format_u32(n, &mut a);
            assert_eq!(len, crate::decimal::format_u32(n, &mut b), "{n}");
            assert_eq!(a[10 - len..], b[10 - len..], "{n}");
        }
        d.put_i32(i32::MIN, 0);
        assert_eq!(text(&d, 1), "4294967295-21474");
    }

    #[test]
    fn clear_and_invalidate() {
        let mut d = Display::new();
        let mut lcd = Recorder::default();
        d.set_cursor(0, 0);
        d.put_bytes(b"hello");
        d.set_cursor(1, 3);
        d.put_bytes(b"world");
        d.flush(&mut lcd);
        d.clear_row(0);
        assert_eq!(d.cursor(), Some((0, 0)));
        assert_eq!(d.flush(&mut lcd), 5);
        d.clear();
        assert_eq!(d.flush(&mut lcd), 5);
        assert_eq!(lcd.screen, [[b' '; 16]; 2]);
        d.invalidate();
        assert_eq!(d.flush(&mut lcd), 32);
    }
}

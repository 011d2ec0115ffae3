//! What the panel shows: text and dots.

use super::*;

impl Hd44780 {
    /// The visible text of both lines after the display shift, mapped to
    /// Unicode through the character ROM; CGRAM characters are shown as
    /// [`CGRAM_PLACEHOLDERS`]. Blank while the display is off.
    pub fn text(&self) -> [String; 2] {
        self.text_with(|code| match code {
            0x00..=0x0F => CGRAM_PLACEHOLDERS[code as usize & 7],
            _ => self.font.unicode(code),
        })
    }

    /// The visible text with a caller-chosen mapping of char codes.
    pub fn text_with(&self, map: impl Fn(u8) -> char) -> [String; 2] {
        [0, 1].map(|line| {
            (0..COLUMNS)
                .map(|col| match self.visible_code(line, col) {
                    Some(code) => map(code),
                    None => ' ',
                })
                .collect()
        })
    }

    /// Char code shown in a cell, `None` if the cell is dark.
    fn visible_code(&self, line: usize, col: usize) -> Option<u8> {
        if !self.display_on {
            return None;
        }
        let addr = self.visible_address(line, col)?;
        Some(self.ddram[self.ddram_index(addr)?])
    }

    /// Dots of the 32 visible cells (line 1 columns 0..15, then line 2),
    /// `[cell][row][column]`, including the cursor underline and the
    /// blinking block (which alternates every half of 409.6 ms).
    pub fn pixels(&self, cycle: u64) -> [[[bool; 5]; 8]; LINES * COLUMNS] {
        let mut cells = [[[false; 5]; 8]; LINES * COLUMNS];
        for line in 0..LINES {
            for col in 0..COLUMNS {
                let Some(code) = self.visible_code(line, col) else {
                    continue;
                };
                let mut rows = self.glyph(code);
                if self.cursor_at(line, col) {
                    if self.cursor_on {
                        rows[7] = 0x1F;
                    }
                    if self.blink_on && self.blink_phase(cycle) {
                        rows = [0x1F; 8];
                    }
                }
                let cell = &mut cells[line * COLUMNS + col];
                for (dots, bits) in cell.iter_mut().zip(rows) {
                    *dots = std::array::from_fn(|c| bits & (0x10 >> c) != 0);
                }
            }
        }
        cells
    }

    /// Rows of a character: CGRAM for codes 0..15, else the ROM.
    ///
    /// Only the top 8 rows of the 5x10 font are modelled: the panel is 5x8.
    fn glyph(&self, code: u8) -> Glyph {
        if code >= 0x10 {
            return self.font.glyph(code);
        }
        // In 5x10 mode a CGRAM character spans 16 rows, so bit 0 of the
        // code is ignored; in 5x8 mode bit 3 is.
        let base = if self.font_5x10 {
            (code as usize >> 1 & 3) * 16
        } else {
            (code as usize & 7) * 8
        };
        let mut g = [0; 8];
        for (r, row) in g.iter_mut().enumerate() {
            *row = self.cgram[base + r] & 0x1F;
        }
        g
    }

    fn cursor_at(&self, line: usize, col: usize) -> bool {
        self.ram == Ram::Ddram && self.visible_address(line, col) == Some(self.ac)
    }

    /// True during the half of the blink period that shows the block.
    fn blink_phase(&self, cycle: u64) -> bool {
        let period = self.cycles(BLINK_PERIOD_NS).max(2);
        cycle % period < period / 2
    }
}

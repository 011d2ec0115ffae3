//! The eight user-defined 5x8 characters uploaded to the LCD's CGRAM.
//!
//! Character code `n` (0..=7) shows glyph `n`. Each glyph is 8 rows, top
//! first, of which the low 5 bits are the pixels (bit 4 = leftmost). The 8th
//! row is left blank: it is the cursor line on the HD44780.
//!
//! The HD44780 ROM (A00) already has the left/right arrows at 0x7F/0x7E, so
//! the custom set is the six chess men plus up/down arrows.

use crate::progmem;

pub const PAWN: u8 = 0;
pub const KNIGHT: u8 = 1;
pub const BISHOP: u8 = 2;
pub const ROOK: u8 = 3;
pub const QUEEN: u8 = 4;
pub const KING: u8 = 5;
pub const ARROW_UP: u8 = 6;
pub const ARROW_DOWN: u8 = 7;
/// The ROM's own arrows (character set A00).
pub const ARROW_RIGHT: u8 = 0x7E;
pub const ARROW_LEFT: u8 = 0x7F;

pub const COUNT: usize = 8;

progmem! {
    /// Pixel rows of glyph `n`, uploaded to CGRAM address `n * 8`.
    pub static GLYPHS: [[u8; 8]; COUNT] = [
        // Pawn
        [0b00000, 0b00100, 0b01110, 0b01110, 0b00100, 0b01110, 0b11111, 0b00000],
        // Knight (facing left)
        [0b00110, 0b01111, 0b11111, 0b10111, 0b00111, 0b01110, 0b11111, 0b00000],
        // Bishop (mitre with slit)
        [0b00100, 0b01010, 0b01101, 0b01110, 0b00100, 0b01110, 0b11111, 0b00000],
        // Rook (crenellated)
        [0b10101, 0b11111, 0b01110, 0b01110, 0b01110, 0b11111, 0b11111, 0b00000],
        // Queen (crown)
        [0b00100, 0b10101, 0b10101, 0b01110, 0b01110, 0b01110, 0b11111, 0b00000],
        // King (cross)
        [0b00100, 0b01110, 0b00100, 0b01110, 0b11111, 0b01110, 0b11111, 0b00000],
        // Arrow up
        [0b00100, 0b01110, 0b10101, 0b00100, 0b00100, 0b00100, 0b00100, 0b00000],
        // Arrow down
        [0b00100, 0b00100, 0b00100, 0b00100, 0b10101, 0b01110, 0b00100, 0b00000],
    ];
}

/// Glyph of a chess man by the conventional index 0 = pawn .. 5 = king.
pub const fn piece(kind: u8) -> u8 {
    if kind <= KING {
        kind
    } else {
        b'?'
    }
}

/// Row `row` (0..=7) of glyph `glyph` (0..=7), as written to CGRAM.
pub fn row(glyph: u8, row: u8) -> u8 {
    GLYPHS.get(glyph as usize & 7)[row as usize & 7]
}

/// Byte `i` (0..64) of the glyphs in CGRAM order (glyph `i / 8`, row
/// `i % 8`): one `LPM`, where [`row`]'s glyph went through the stack.
pub fn cgram_byte(i: u8) -> u8 {
    let p = &GLYPHS as *const _ as *const u8;
    // SAFETY: `GLYPHS` is a flash table of 64 bytes (`Table` is
    // transparent), and the index is kept below 64.
    unsafe { crate::progmem::read_flash(p.wrapping_add(i as usize & 63)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glyphs_are_5x8_with_blank_cursor_line() {
        for g in 0..COUNT as u8 {
            for r in 0..8 {
                assert_eq!(row(g, r) & !0x1F, 0, "glyph {g} row {r} uses more than 5 columns");
            }
            assert_eq!(row(g, 7), 0, "glyph {g}: the cursor line must stay blank");
            assert!((0..7).any(|r| row(g, r) != 0), "glyph {g} is empty");
        }
    }

    #[test]
    fn glyphs_are_distinct_and_arrows_mirror() {
        let all = GLYPHS.as_slice();
        for i in 0..COUNT {
            for j in i + 1..COUNT {
                assert_ne!(all[i], all[j], "glyphs {i} and {j} are identical");
            }
        }
        let up = all[ARROW_UP as usize];
        let down = all[ARROW_DOWN as usize];
        for r in 0..7 {
            assert_eq!(up[r], down[6 - r]);
        }
        assert_eq!(piece(0), PAWN);
        assert_eq!(piece(5), KING);
        assert_eq!(piece(6), b'?');
        for i in 0..64u8 {
            assert_eq!(cgram_byte(i), row(i / 8, i % 8));
        }
    }
}

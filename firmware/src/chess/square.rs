//! Squares of the 0x88 board.
//!
//! A square is one byte `0xRF` with rank `R` (0..=7) in the high nibble and
//! file `F` (0..=7) in the low nibble, so `sq & 0x88 != 0` means "off the
//! board" and stepping along a direction is one addition.

/// A 0x88 square index (`rank * 16 + file`).
pub type Square = u8;

/// "No square": captured pieces in the piece lists, no en-passant target.
pub const NO_SQUARE: Square = 0xFF;

/// Builds a square from file (0 = a) and rank (0 = first rank).
#[inline(always)]
pub const fn square(file: u8, rank: u8) -> Square {
    (rank << 4) | file
}

/// File 0..=7 (a..h).
#[inline(always)]
pub const fn file_of(sq: Square) -> u8 {
    sq & 7
}

/// Rank 0..=7 (1..8).
#[inline(always)]
pub const fn rank_of(sq: Square) -> u8 {
    sq >> 4
}

/// True if `sq` lies on the 8x8 board.
#[inline(always)]
pub const fn on_board(sq: Square) -> bool {
    sq & 0x88 == 0
}

crate::progmem! {
    static RANK_BITS: [u8; 8] = [1, 2, 4, 8, 16, 32, 64, 128];
}

/// Bit `rank_of(sq)` of a byte: a man's bit in a per-file rank mask. A
/// table read, because a variable shift is a loop on the AVR.
#[inline(always)]
pub fn rank_bit(sq: Square) -> u8 {
    RANK_BITS.get(((sq >> 4) & 7) as usize)
}

/// 0x88 square to 0..=63 (a1 = 0, h8 = 63).
#[inline(always)]
pub const fn to_index64(sq: Square) -> u8 {
    (sq & 7) | ((sq & 0x70) >> 1)
}

/// 0..=63 back to a 0x88 square.
#[inline(always)]
pub const fn from_index64(i: u8) -> Square {
    (i & 7) | ((i & 0x38) << 1)
}

/// 0 for dark squares (a1), 1 for light squares.
#[inline(always)]
pub const fn square_colour(sq: Square) -> u8 {
    (file_of(sq) + rank_of(sq)) & 1
}

/// Parses two bytes like `e4`.
pub fn parse_square(file: u8, rank: u8) -> Option<Square> {
    if (b'a'..=b'h').contains(&file) && (b'1'..=b'8').contains(&rank) {
        Some(square(file - b'a', rank - b'1'))
    } else {
        None
    }
}

/// The two ASCII bytes naming `sq`, e.g. `*b"e4"`.
pub const fn square_name(sq: Square) -> [u8; 2] {
    [b'a' + file_of(sq), b'1' + rank_of(sq)]
}

pub const A1: Square = 0x00;
pub const B1: Square = 0x01;
pub const C1: Square = 0x02;
pub const D1: Square = 0x03;
pub const E1: Square = 0x04;
pub const F1: Square = 0x05;
pub const G1: Square = 0x06;
pub const H1: Square = 0x07;
pub const A8: Square = 0x70;
pub const B8: Square = 0x71;
pub const C8: Square = 0x72;
pub const D8: Square = 0x73;
pub const E8: Square = 0x74;
pub const F8: Square = 0x75;
pub const G8: Square = 0x76;
pub const H8: Square = 0x77;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_conversions_round_trip() {
        for i in 0..64u8 {
            let sq = from_index64(i);
            assert!(on_board(sq));
            assert_eq!(to_index64(sq), i);
        }
        assert_eq!(square_colour(A1), 0);
        assert_eq!(square_colour(H1), 1);
        assert_eq!(parse_square(b'e', b'4'), Some(0x34));
        assert_eq!(parse_square(b'i', b'4'), None);
        assert_eq!(square_name(0x34), *b"e4");
    }
}

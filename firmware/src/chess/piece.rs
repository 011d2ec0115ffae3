//! Piece codes as stored in the board bytes.
//!
//! Low nibble: 0 = empty, 1..=6 = white pawn, knight, bishop, rook, queen,
//! king; 7..=12 = the black pieces in the same order. Bit 4 ([`MOVED`]) is set
//! once the man has left its square; castling rights are derived from it.

/// Side to move / owner of a piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Color {
    White = 0,
    Black = 1,
}

impl Color {
    #[inline(always)]
    pub const fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }
}

pub const EMPTY: u8 = 0;
/// Piece kinds (white codes; add [`BLACK_OFFSET`] for black).
pub const PAWN: u8 = 1;
pub const KNIGHT: u8 = 2;
pub const BISHOP: u8 = 3;
pub const ROOK: u8 = 4;
pub const QUEEN: u8 = 5;
pub const KING: u8 = 6;
/// Added to a kind to get the black piece code.
pub const BLACK_OFFSET: u8 = 6;
/// "Has moved" flag in a board byte.
pub const MOVED: u8 = 0x10;
/// Selects the piece code from a board byte.
pub const CODE_MASK: u8 = 0x0F;

/// Piece code of `kind` for `color`.
#[inline(always)]
pub const fn make_piece(color: Color, kind: u8) -> u8 {
    match color {
        Color::White => kind,
        Color::Black => kind + BLACK_OFFSET,
    }
}

/// Kind (1..=6) of a piece code or board byte; 0 for empty.
#[inline(always)]
pub const fn kind_of(byte: u8) -> u8 {
    let c = byte & CODE_MASK;
    if c > BLACK_OFFSET {
        c - BLACK_OFFSET
    } else {
        c
    }
}

/// Owner of a non-empty piece code or board byte.
#[inline(always)]
pub const fn color_of(byte: u8) -> Color {
    if byte & CODE_MASK > BLACK_OFFSET {
        Color::Black
    } else {
        Color::White
    }
}

/// True if the board byte holds a piece of `color`.
#[inline(always)]
pub const fn is_color(byte: u8, color: Color) -> bool {
    let c = byte & CODE_MASK;
    match color {
        Color::White => c != 0 && c <= BLACK_OFFSET,
        Color::Black => c > BLACK_OFFSET,
    }
}

crate::progmem! {
    /// FEN letter of each piece code (index 0 unused).
    static PIECE_CHARS: [u8; 13] = *b".PNBRQKpnbrqk";
}

/// FEN letter of a piece code.
pub fn piece_char(byte: u8) -> u8 {
    let c = (byte & CODE_MASK) as usize;
    if c < 13 {
        PIECE_CHARS.get(c)
    } else {
        b'?'
    }
}

/// Piece code of a FEN letter.
pub fn piece_from_char(ch: u8) -> Option<u8> {
    (1..13u8).find(|&c| PIECE_CHARS.get(c as usize) == ch)
}

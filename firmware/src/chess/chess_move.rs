//! The 16-bit move.
//!
//! Layout: bits 0..=5 from-square (0..=63), bits 6..=11 to-square, bits
//! 12..=14 kind ([`MoveKind`]), bit 15 set for captures. Two bytes keep killer
//! and PV tables small; the kind and capture bits spare the search from
//! looking at the board to classify a move.

use super::piece::{BISHOP, KNIGHT, ROOK};
use super::square::{from_index64, square_name, to_index64, Square};

/// What a move does besides moving one piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum MoveKind {
    Normal = 0,
    /// Pawn advances two squares (creates an en-passant target).
    DoublePush = 1,
    /// King moves two squares; the rook jumps over it.
    Castle = 2,
    /// Pawn captures the pawn that just double-pushed past it.
    EnPassant = 3,
    PromoteKnight = 4,
    PromoteBishop = 5,
    PromoteRook = 6,
    PromoteQueen = 7,
}

/// A move, as produced by the generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Move(pub u16);

const CAPTURE_BIT: u16 = 0x8000;

crate::progmem! {
    /// Promotion letters for KNIGHT..=QUEEN.
    static PROMOTION_CHARS: [u8; 4] = *b"nbrq";
}

/// Kind (KNIGHT..=QUEEN) of a lower-case promotion letter.
pub fn promotion_from_char(ch: u8) -> Option<u8> {
    (0..4u8)
        .find(|&i| PROMOTION_CHARS.get(i as usize) == ch)
        .map(|i| KNIGHT + i)
}

impl Move {
    /// "No move" (a1a1 can never be generated).
    pub const NONE: Move = Move(0);

    /// Builds a move between two 0x88 squares.
    #[inline(always)]
    pub const fn new(from: Square, to: Square, kind: MoveKind, capture: bool) -> Move {
        Move(
            to_index64(from) as u16
                | (to_index64(to) as u16) << 6
                | (kind as u16) << 12
                | if capture { CAPTURE_BIT } else { 0 },
        )
    }

    /// Origin, as a 0x88 square.
    #[inline(always)]
    pub const fn from(self) -> Square {
        from_index64((self.0 & 63) as u8)
    }

    /// Destination, as a 0x88 square.
    #[inline(always)]
    pub const fn to(self) -> Square {
        from_index64(((self.0 >> 6) & 63) as u8)
    }

    #[inline(always)]
    pub const fn kind(self) -> MoveKind {
        match (self.0 >> 12) & 7 {
            0 => MoveKind::Normal,
            1 => MoveKind::DoublePush,
            2 => MoveKind::Castle,
            3 => MoveKind::EnPassant,
            4 => MoveKind::PromoteKnight,
            5 => MoveKind::PromoteBishop,
            6 => MoveKind::PromoteRook,
            _ => MoveKind::PromoteQueen,
        }
    }

    /// True for captures, en passant included.
    #[inline(always)]
    pub const fn is_capture(self) -> bool {
        self.0 & CAPTURE_BIT != 0
    }

    #[inline(always)]
    pub const fn is_promotion(self) -> bool {
        self.0 & 0x4000 != 0
    }

    /// Kind of the piece promoted to (KNIGHT..=QUEEN), or 0.
    #[inline(always)]
    pub const fn promotion(self) -> u8 {
        if self.is_promotion() {
            ((self.0 >> 12) & 7) as u8 - 2
        } else {
            0
        }
    }

    #[inline(always)]
    pub const fn is_none(self) -> bool {
        self.0 == 0
    }

    /// Writes coordinate notation ("e2e4", "e7e8q") into `buf`; returns the
    /// length written, or `None` if `buf` is shorter than needed (5 is enough).
    pub fn write_coord(self, buf: &mut [u8]) -> Option<usize> {
        let len = if self.is_promotion() { 5 } else { 4 };
        let out = buf.get_mut(..len)?;
        let [f0, r0] = square_name(self.from());
        let [f1, r1] = square_name(self.to());
        out[0] = f0;
        out[1] = r0;
        out[2] = f1;
        out[3] = r1;
        if len == 5 {
            out[4] = PROMOTION_CHARS.get(((self.promotion() - KNIGHT) & 3) as usize);
        }
        Some(len)
    }
}

/// Move kind of a promotion to `kind` (KNIGHT..=QUEEN).
#[inline(always)]
pub const fn promotion_kind(kind: u8) -> MoveKind {
    match kind {
        KNIGHT => MoveKind::PromoteKnight,
        BISHOP => MoveKind::PromoteBishop,
        ROOK => MoveKind::PromoteRook,
        _ => MoveKind::PromoteQueen,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        let m = Move::new(0x64, 0x75, MoveKind::PromoteKnight, true);
        assert_eq!(m.from(), 0x64);
        assert_eq!(m.to(), 0x75);
        assert_eq!(m.kind(), MoveKind::PromoteKnight);
        assert!(m.is_capture() && m.is_promotion());
        assert_eq!(m.promotion(), KNIGHT);
        let mut buf = [0u8; 5];
        assert_eq!(m.write_coord(&mut buf), Some(5));
        assert_eq!(&buf, b"e7f8n");
        assert_eq!(m.write_coord(&mut buf[..4]), None);
        let q = Move::new(0x14, 0x34, MoveKind::DoublePush, false);
        assert_eq!(q.write_coord(&mut buf), Some(4));
        assert_eq!(&buf[..4], b"e2e4");
        assert!(!q.is_capture() && !q.is_promotion() && q.promotion() == 0);
    }
}

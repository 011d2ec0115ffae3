//! The 16-bit move.
//!
//! Layout: the low byte is the from-square, the high byte the to-square,
//! both as 0x88 squares (file in bits 0..=2, rank in bits 4..=6), so that
//! [`Move::from`] and [`Move::to`] are one AND each and [`Move::new`] one
//! OR: the search reads and builds the squares far more often than
//! anything else. The spare bits 3 and 7 of each byte hold the rest: bits
//! 3 and 7 the two low bits of the kind ([`MoveKind`]), bit 11 its
//! promotion bit, bit 15 the capture flag. Two bytes keep killer and PV
//! tables small; the kind and capture bits spare the search from looking
//! at the board to classify a move.

use super::piece::{BISHOP, KNIGHT, ROOK};
use super::square::{square_name, Square};

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
/// (`repr(transparent)`: passed as its `u16` to the C-ABI functions the
/// AVR's assembly calls.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(transparent)]
pub struct Move(pub u16);

const CAPTURE_BIT: u16 = 0x8000;
/// The kind's bits: its bit 0, bit 1 and promotion bit 2.
const KIND_0: u16 = 0x0008;
const KIND_1: u16 = 0x0080;
const PROMOTION_BIT: u16 = 0x0800;
const KIND_MASK: u16 = KIND_0 | KIND_1 | PROMOTION_BIT;
/// The squares' bits.
const SQUARE_MASK: u8 = 0x77;

/// Where the bits of `kind` go in a move.
#[inline(always)]
const fn kind_bits(kind: MoveKind) -> u16 {
    let k = kind as u16;
    (k & 1) << 3 | (k & 2) << 6 | (k & 4) << 9
}

/// The kind of number `k` (0..=7).
#[inline(always)]
const fn kind_of_number(k: u8) -> MoveKind {
    match k & 7 {
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

    /// Builds a move between two 0x88 squares (on the board).
    #[inline(always)]
    pub const fn new(from: Square, to: Square, kind: MoveKind, capture: bool) -> Move {
        Move(from as u16 | (to as u16) << 8 | kind_bits(kind) | if capture { CAPTURE_BIT } else { 0 })
    }

    /// Origin, as a 0x88 square.
    #[inline(always)]
    pub const fn from(self) -> Square {
        self.0 as u8 & SQUARE_MASK
    }

    /// Destination, as a 0x88 square.
    #[inline(always)]
    pub const fn to(self) -> Square {
        (self.0 >> 8) as u8 & SQUARE_MASK
    }

    #[inline(always)]
    pub const fn kind(self) -> MoveKind {
        let lo = self.0 as u8;
        let hi = (self.0 >> 8) as u8;
        kind_of_number((lo >> 3) & 1 | (lo >> 6) & 2 | (hi >> 1) & 4)
    }

    /// Is the move of kind `kind`? One mask and compare.
    #[inline(always)]
    pub const fn is(self, kind: MoveKind) -> bool {
        self.0 & KIND_MASK == kind_bits(kind)
    }

    /// A normal move or a double push: one man moves, no castling, en
    /// passant or promotion.
    #[inline(always)]
    pub const fn is_simple(self) -> bool {
        self.0 & (KIND_1 | PROMOTION_BIT) == 0
    }

    /// True for captures, en passant included.
    #[inline(always)]
    pub const fn is_capture(self) -> bool {
        self.0 & CAPTURE_BIT != 0
    }

    #[inline(always)]
    pub const fn is_promotion(self) -> bool {
        self.0 & PROMOTION_BIT != 0
    }

    /// Kind of the piece promoted to (KNIGHT..=QUEEN), or 0.
    #[inline(always)]
    pub const fn promotion(self) -> u8 {
        if self.is_promotion() {
            let lo = self.0 as u8;
            ((lo >> 3) & 1 | (lo >> 6) & 2) + KNIGHT
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
    use crate::chess::square::from_index64;

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
        assert!(q.is(MoveKind::DoublePush) && q.is_simple() && !m.is_simple());
        assert!(Move::NONE.is(MoveKind::Normal) && Move::NONE.from() == 0 && Move::NONE.to() == 0);
    }

    /// Every kind, capture flag and pair of squares: the accessors give
    /// back what was built.
    #[test]
    fn every_move_round_trips() {
        for k in 0..8u8 {
            let kind = kind_of_number(k);
            for capture in [false, true] {
                for a in 0..64u8 {
                    for b in 0..64u8 {
                        let (from, to) = (from_index64(a), from_index64(b));
                        let m = Move::new(from, to, kind, capture);
                        assert_eq!((m.from(), m.to(), m.kind(), m.is_capture()), (from, to, kind, capture));
                        assert_eq!(m.is_promotion(), k >= 4);
                        assert_eq!(m.is_simple(), k <= 1);
                        for j in 0..8u8 {
                            assert_eq!(m.is(kind_of_number(j)), j == k);
                        }
                    }
                }
            }
        }
    }
}

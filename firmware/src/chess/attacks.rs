//! Attack detection, looking outward from the attacked square.
//!
//! The core routine can pretend a move has been made without touching the
//! board: two squares may be treated as vacated and one as newly occupied.
//! That is what makes the legality test exact for king moves, pins and the
//! en-passant rank pin, without make/unmake.

use super::piece::*;
use super::position::Position;
use super::square::*;

crate::progmem! {
    /// 0x88 step offsets: 0..4 diagonal, 4..8 orthogonal, 8..16 knight jumps.
    pub(super) static DIRECTIONS: [i8; 16] = [
        -17, -15, 15, 17, -16, -1, 1, 16, -33, -31, -18, -14, 14, 18, 31, 33,
    ];
}

/// First diagonal, orthogonal and knight entries of [`DIRECTIONS`].
pub(super) const DIAGONALS: u8 = 0;
pub(super) const ORTHOGONALS: u8 = 4;
pub(super) const KNIGHT_JUMPS: u8 = 8;

#[inline(always)]
pub(super) fn step(sq: Square, dir_index: u8) -> Square {
    sq.wrapping_add(DIRECTIONS.get(dir_index as usize) as u8)
}

impl Position {
    /// True if `by` attacks `sq` in the current position.
    #[inline]
    pub fn is_square_attacked(&self, sq: Square, by: Color) -> bool {
        self.attacked_after(sq, by, NO_SQUARE, NO_SQUARE, NO_SQUARE)
    }

    /// True if the side to move is in check. Not inlined (called in many
    /// places; `attacked_after` dominates its cost anyway).
    #[inline(never)]
    pub fn in_check(&self) -> bool {
        self.is_square_attacked(self.king_square(self.side), self.side.other())
    }

    /// Is `sq` attacked by `by` once `vacated1` and `vacated2` are emptied and
    /// `filled` is occupied by a man of the other side? An attacker standing
    /// on `filled` counts as captured.
    pub(super) fn attacked_after(
        &self,
        sq: Square,
        by: Color,
        vacated1: Square,
        vacated2: Square,
        filled: Square,
    ) -> bool {
        let board = &self.board;
        // A leaper of the wanted code on `s`, unless it was just captured or moved away.
        let holds = |s: Square, code: u8| -> bool {
            on_board(s) && s != filled && s != vacated2 && board[s as usize] & CODE_MASK == code
        };

        let pawn = make_piece(by, PAWN);
        let (p1, p2) = match by {
            Color::White => (sq.wrapping_sub(15), sq.wrapping_sub(17)),
            Color::Black => (sq.wrapping_add(15), sq.wrapping_add(17)),
        };
        if holds(p1, pawn) || holds(p2, pawn) {
            return true;
        }

        let knight = make_piece(by, KNIGHT);
        let king = make_piece(by, KING);
        let bishop = make_piece(by, BISHOP);
        let rook = make_piece(by, ROOK);
        let queen = make_piece(by, QUEEN);

        for d in KNIGHT_JUMPS..KNIGHT_JUMPS + 8 {
            if holds(step(sq, d), knight) {
                return true;
            }
        }
        for d in DIAGONALS..ORTHOGONALS + 4 {
            let slider = if d < ORTHOGONALS { bishop } else { rook };
            let mut s = step(sq, d);
            if holds(s, king) {
                return true;
            }
            while on_board(s) {
                if s == filled {
                    break;
                }
                if s != vacated1 && s != vacated2 {
                    let c = board[s as usize] & CODE_MASK;
                    if c != 0 {
                        if c == slider || c == queen {
                            return true;
                        }
                        break;
                    }
                }
                s = step(s, d);
            }
        }
        false
    }
}

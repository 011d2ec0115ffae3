//! Attack detection, looking outward from the attacked square.
//!
//! The core routine can pretend a move has been made without touching the
//! board: two squares may be treated as vacated and one as newly occupied.
//! That is what makes the legality test exact for king moves, pins and the
//! en-passant rank pin, without make/unmake.

use super::piece::*;
use super::position::Position;
use super::square::*;
use super::{Move, MoveKind};

crate::progmem! {
    /// 0x88 step offsets: 0..4 diagonal, 4..8 orthogonal, 8..16 knight jumps.
    pub(super) static DIRECTIONS: [i8; 16] = [
        -17, -15, 15, 17, -16, -1, 1, 16, -33, -31, -18, -14, 14, 18, 31, 33,
    ];
}

/// [`geometry`] bits: on a diagonal, on a rank or file, a knight's jump
/// apart, diagonally adjacent (a pawn's capture, either direction).
const DIAGONAL: u8 = 1;
const STRAIGHT: u8 = 2;
const JUMP: u8 = 4;
const NEXT_DIAGONAL: u8 = 8;
const LINE: u8 = DIAGONAL | STRAIGHT;

crate::progmem! {
    /// By piece code: the [`geometry`] bits from which that man can attack
    /// (a superset: blockers are not looked at). Kings never give check.
    static REACH: [u8; 16] = {
        let mut t = [0u8; 16];
        let mut c = 0;
        while c < 2 {
            let o = c * BLACK_OFFSET as usize;
            t[o + PAWN as usize] = NEXT_DIAGONAL;
            t[o + KNIGHT as usize] = JUMP;
            t[o + BISHOP as usize] = DIAGONAL;
            t[o + ROOK as usize] = STRAIGHT;
            t[o + QUEEN as usize] = LINE;
            c += 1;
        }
        t
    };
}

/// How squares `a` and `b` (distinct) lie to each other, as bits above.
#[inline(never)]
pub(super) fn geometry(a: Square, b: Square) -> u8 {
    let f = (a & 7).wrapping_sub(b & 7);
    let f = if f & 0x80 != 0 { f.wrapping_neg() } else { f };
    let r = (a >> 4).wrapping_sub(b >> 4);
    let r = if r & 0x80 != 0 { r.wrapping_neg() } else { r };
    if f == r {
        return if f == 1 { DIAGONAL | NEXT_DIAGONAL } else { DIAGONAL };
    }
    if f == 0 || r == 0 {
        return STRAIGHT;
    }
    if f + r == 3 {
        return JUMP;
    }
    0
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

    /// [`Position::in_check`] right after `m` was made. The king of the side
    /// to move was safe before `m`, so only the man now on `m.to()` or a
    /// line through the vacated `m.from()` can attack it: when neither can,
    /// the full scan is skipped (most moves). Castling and en passant move
    /// or remove a second man and always take the full scan.
    #[inline(never)]
    pub fn in_check_after(&self, m: Move) -> bool {
        if !matches!(m.kind(), MoveKind::Castle | MoveKind::EnPassant) {
            let king = self.king_square(self.side);
            if geometry(m.from(), king) & LINE == 0 {
                let to = m.to();
                let code = self.board[(to & 0x7F) as usize] & CODE_MASK;
                if geometry(to, king) & REACH.get(code as usize) == 0 {
                    debug_assert!(!self.in_check());
                    return false;
                }
            }
        }
        self.in_check()
    }

    /// Does the quiet move `m` (not yet made; no castling, en passant or
    /// promotion) give check? Exact: the man lands where it attacks the
    /// enemy king (a pawn forwards, a slider through empty squares, its
    /// old square counting as empty), or it leaves a line through the
    /// king and uncovers one of our sliders (the full scan, only then).
    #[inline(never)]
    pub fn gives_check(&self, m: Move) -> bool {
        let us = self.side;
        let king = self.king_square(us.other());
        let from = m.from();
        let to = m.to();
        let g = geometry(to, king) & REACH.get((self.board[from as usize] & CODE_MASK) as usize);
        if g != 0
            && (g & NEXT_DIAGONAL == 0 || (king > to) == (us == Color::White))
            && (g & LINE == 0 || self.scan(to, king, from) == king)
        {
            return true;
        }
        geometry(from, king) & LINE != 0 && self.attacked_after(king, us, from, NO_SQUARE, to)
    }

    /// From `a` towards `b` (on a line through `a`), the first occupied
    /// square, `skip` counting as empty.
    #[inline(never)]
    fn scan(&self, a: Square, b: Square, skip: Square) -> Square {
        let mut dir = 0u8;
        if b >> 4 != a >> 4 {
            dir = if b > a { 16 } else { 0xF0 };
        }
        if b & 7 != a & 7 {
            dir = dir.wrapping_add(if b & 7 > a & 7 { 1 } else { 0xFF });
        }
        let mut s = a;
        loop {
            s = s.wrapping_add(dir);
            if s != skip && self.board[s as usize] != EMPTY {
                return s;
            }
        }
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

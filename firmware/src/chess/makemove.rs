//! Making and unmaking moves in place.
//!
//! The search never copies a position: it makes a move, recurses and unmakes
//! it with the 9-byte [`Undo`] record that `make_move` returned. The hash is
//! updated incrementally and the previous one is simply restored.

use super::chess_move::{Move, MoveKind};
use super::piece::*;
use super::position::Position;
use super::square::*;
use super::zobrist::{castle_key, ep_key, move_key, piece_key, SIDE_KEY};

/// What `unmake_move` needs that the move itself does not tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undo {
    /// Board byte of the moving man before the move (restores promotions and the moved flag).
    moved: u8,
    /// Board byte of the captured man, 0 if none.
    captured: u8,
    /// Piece-list slot of the captured man (low nibble) and [`FULLMOVE_BUMPED`].
    captured_slot: u8,
    ep: Square,
    halfmove: u8,
    hash: u32,
}

impl Undo {
    /// A placeholder (e.g. to initialise per-ply arrays); never unmake with it.
    pub const EMPTY: Undo = Undo {
        moved: EMPTY,
        captured: EMPTY,
        captured_slot: 0,
        ep: NO_SQUARE,
        halfmove: 0,
        hash: 0,
    };

    /// Board byte of the man the move captured, 0 if none.
    #[inline(always)]
    pub fn captured(&self) -> u8 {
        self.captured
    }
}

/// Flag in `Undo::captured_slot`: the move advanced the fullmove number
/// (which saturates, so unmake cannot simply decrement).
const FULLMOVE_BUMPED: u8 = 0x80;

crate::progmem! {
    /// By file: 1 on the files of the king and rooks at home (a, e, h).
    static CASTLING_FILES: [u8; 8] = [1, 0, 0, 0, 1, 0, 0, 1];
}

/// Squares whose occupants decide castling rights.
#[inline(always)]
fn affects_castling(sq: Square) -> bool {
    // Files a, e and h on the first or last rank. (A table: `0x91 >>
    // file` is a shift loop on the AVR.)
    let rank = sq & 0x70;
    (rank == 0 || rank == 0x70) && CASTLING_FILES.get((sq & 7) as usize) != 0
}

/// Home and castled squares of the rook for a castling king move.
#[inline(always)]
fn castling_rook(from: Square, to: Square) -> (Square, Square) {
    if to > from {
        (from + 3, from + 1)
    } else {
        (from - 4, from - 1)
    }
}

/// Square of the man `m` captures (given that it captures).
#[inline(always)]
pub fn victim_square(m: Move) -> Square {
    if m.is(MoveKind::EnPassant) {
        // The pawn taken en passant: the mover's rank, the target's file.
        (m.from() & 0xF0) | (m.to() & 0x0F)
    } else {
        m.to()
    }
}

impl Position {
    /// Plays pseudo-legal move `m` (from the generator or checked with
    /// [`Position::is_pseudo_legal`]) and returns what undoes it.
    pub fn make_move(&mut self, m: Move) -> Undo {
        // All zeros (every field is overwritten): `Undo::EMPTY` would be a
        // 9-byte constant copied into RAM at boot.
        let mut undo = Undo {
            moved: 0,
            captured: 0,
            captured_slot: 0,
            ep: 0,
            halfmove: 0,
            hash: 0,
        };
        self.make_move_into(m, &mut undo, true);
        undo
    }

    /// [`Position::make_move`] writing the undo record in place (the search
    /// keeps it in its ply array: no 9-byte copy per move).
    ///
    /// With `hashed` false the men's keys are not folded into the hash,
    /// which stays wrong until the move is unmade (the undo record
    /// restores it): for the quiescence search, which never looks for
    /// repetitions, two or three fewer [`piece_key`] calls a move. In
    /// `bench engine` the same 45,761 nodes in 0.50% fewer cycles
    /// (643,317,890 against 646,550,159) for 60 B of flash. Built with the
    /// former inline threshold 25 it took 56 B, 42 of them in this
    /// function; guarding each key apart, 68 B; a flag in the position set
    /// around the quiescence search, 72 B, and 92 B with the two keys in a
    /// helper of their own.
    #[cfg_attr(target_arch = "avr", optimize(speed))]
    pub fn make_move_into(&mut self, m: Move, undo: &mut Undo, hashed: bool) {
        let us = self.side;
        let them = us.other();
        let from = m.from();
        let to = m.to();
        let moved = self.board[from as usize];
        let slot = self.board[from as usize + 8];
        undo.moved = moved;
        undo.captured = EMPTY;
        undo.captured_slot = 0;
        undo.ep = self.ep;
        undo.halfmove = self.halfmove;
        undo.hash = self.hash;
        self.history.push(self.hash);

        let mut h = self.hash;
        let castling_changes = affects_castling(from) || affects_castling(to);
        if castling_changes {
            h ^= castle_key(self.castle_rights());
        }
        // (Tested before the call: the square is mostly empty.)
        if self.ep != NO_SQUARE && self.ep_capturable() {
            h ^= ep_key(file_of(self.ep));
        }

        let victim = victim_square(m);
        if m.is_capture() {
            let vb = self.board[victim as usize];
            let vs = self.board[victim as usize + 8];
            undo.captured = vb;
            undo.captured_slot = vs & 15;
            *self.list_at_mut(them, vs) = NO_SQUARE;
            self.board[victim as usize] = EMPTY;
            if kind_of(vb) == PAWN {
                self.toggle_pawn(them, victim);
            }
        }

        let placed = if m.is_promotion() {
            let end = &mut self.officer_end[us.index()];
            if slot & 15 >= *end {
                *end = (slot & 15) + 1;
            }
            make_piece(us, m.promotion()) | MOVED
        } else {
            moved | MOVED
        };
        if hashed {
            h ^= if m.is_promotion() {
                piece_key(moved, from) ^ piece_key(placed, to)
            } else {
                move_key(moved, from, to)
            };
            if undo.captured != EMPTY {
                h ^= piece_key(undo.captured, victim);
            }
        }
        self.board[from as usize] = EMPTY;
        self.board[to as usize] = placed;
        self.board[to as usize + 8] = slot;
        *self.list_at_mut(us, slot) = to;

        if m.is(MoveKind::Castle) {
            let (rf, rt) = castling_rook(from, to);
            let rb = self.board[rf as usize];
            let rs = self.board[rf as usize + 8];
            self.board[rf as usize] = EMPTY;
            self.board[rt as usize] = rb | MOVED;
            self.board[rt as usize + 8] = rs;
            *self.list_at_mut(us, rs) = rt;
            h ^= move_key(rb, rf, rt);
        }

        let pawn_moved = kind_of(moved) == PAWN;
        if pawn_moved {
            self.toggle_pawn(us, from);
            if !m.is_promotion() {
                self.toggle_pawn(us, to);
            }
        }
        self.halfmove = if pawn_moved || m.is_capture() {
            0
        } else {
            self.halfmove.saturating_add(1)
        };
        if us == Color::Black && self.fullmove < u16::MAX {
            self.fullmove += 1;
            undo.captured_slot |= FULLMOVE_BUMPED;
        }
        self.side = them;
        h ^= SIDE_KEY;
        self.ep = NO_SQUARE;
        if m.is(MoveKind::DoublePush) {
            self.ep = (from + to) / 2;
            if self.ep_capturable() {
                h ^= ep_key(file_of(self.ep));
            }
        }
        if castling_changes {
            h ^= castle_key(self.castle_rights());
        }
        self.hash = h;
    }

    /// Takes back `m`, which must be the last move made, with its `undo`.
    /// Calls only at the end (castling's rook; the pawn files, when a pawn
    /// moved or was taken), so no value is kept across one: fewer
    /// registers to save.
    pub fn unmake_move(&mut self, m: Move, undo: &Undo) {
        let them = self.side;
        let us = them.other();
        self.side = us;
        self.history.pop();
        let from = m.from();
        let to = m.to();

        self.ep = undo.ep;
        self.halfmove = undo.halfmove;
        self.hash = undo.hash;
        if undo.captured_slot & FULLMOVE_BUMPED != 0 {
            self.fullmove -= 1;
        }

        let slot = self.board[to as usize + 8];
        self.board[to as usize] = EMPTY;
        self.board[from as usize] = undo.moved;
        self.board[from as usize + 8] = slot;
        *self.list_at_mut(us, slot) = from;

        if m.is(MoveKind::Castle) {
            self.unmake_castling_rook(us, from, to);
            return;
        }
        if m.is_capture() {
            let victim = victim_square(m);
            self.board[victim as usize] = undo.captured;
            self.board[victim as usize + 8] = undo.captured_slot & 15;
            *self.list_at_mut(them, undo.captured_slot) = victim;
        }
        if kind_of(undo.moved) == PAWN || kind_of(undo.captured) == PAWN {
            self.unmake_pawns(m, undo);
        }
    }

    /// The rook's half of taking back castling.
    #[cold]
    #[inline(never)]
    fn unmake_castling_rook(&mut self, us: Color, from: Square, to: Square) {
        let (rf, rt) = castling_rook(from, to);
        let rb = self.board[(rt & 0x77) as usize];
        let rs = self.board[(rt & 0x77) as usize + 8];
        self.board[rt as usize] = EMPTY;
        // Castling needs an unmoved rook, so its flag was clear.
        self.board[rf as usize] = rb & !MOVED;
        self.board[rf as usize + 8] = rs;
        *self.list_at_mut(us, rs) = rf;
    }

    /// The pawn files' (and officer bound's) half of [`Position::unmake_move`],
    /// once the men are back.
    #[inline(never)]
    fn unmake_pawns(&mut self, m: Move, undo: &Undo) {
        let us = self.side;
        let from = m.from();
        let to = m.to();
        if kind_of(undo.captured) == PAWN {
            self.toggle_pawn(us.other(), victim_square(m));
        }
        if kind_of(undo.moved) == PAWN {
            if m.is_promotion() {
                self.lower_officer_end(us, self.board[from as usize + 8] & 15);
            } else {
                self.toggle_pawn(us, to);
            }
            self.toggle_pawn(us, from);
        }
    }

    /// Passes the move (for null-move pruning). Resets the halfmove clock so
    /// that repetition checks never look across the null move.
    pub fn make_null_move(&mut self) -> Undo {
        let undo = Undo {
            moved: EMPTY,
            captured: EMPTY,
            captured_slot: 0,
            ep: self.ep,
            halfmove: self.halfmove,
            hash: self.hash,
        };
        self.history.push(self.hash);
        let mut h = self.hash;
        if self.ep_capturable() {
            h ^= ep_key(file_of(self.ep));
        }
        self.ep = NO_SQUARE;
        self.halfmove = 0;
        self.side = self.side.other();
        self.hash = h ^ SIDE_KEY;
        undo
    }

    /// Takes back [`Position::make_null_move`].
    pub fn unmake_null_move(&mut self, undo: &Undo) {
        self.history.pop();
        self.side = self.side.other();
        self.ep = undo.ep;
        self.halfmove = undo.halfmove;
        self.hash = undo.hash;
    }
}

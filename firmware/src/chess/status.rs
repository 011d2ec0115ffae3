//! End-of-game detection: mate, stalemate and the draw rules.

use super::piece::*;
use super::position::Position;
use super::square::*;

/// Where the game stands, from the side to move's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameStatus {
    Ongoing,
    /// The side to move is mated.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// 100 plies without capture or pawn move.
    DrawFiftyMoves,
    /// The same position for the third time (same side to move, rights, ep).
    DrawThreefold,
    /// Neither side can ever mate.
    DrawInsufficientMaterial,
}

impl GameStatus {
    pub fn is_over(self) -> bool {
        self != GameStatus::Ongoing
    }
}

impl Position {
    /// Full game status; mate and stalemate take precedence over the draw rules.
    #[cfg_attr(target_arch = "avr", optimize(size))]
    pub fn status(&self) -> GameStatus {
        if !self.has_legal_move() {
            return if self.in_check() {
                GameStatus::Checkmate
            } else {
                GameStatus::Stalemate
            };
        }
        if self.is_fifty_move_draw() {
            GameStatus::DrawFiftyMoves
        } else if self.repetitions() >= 2 {
            GameStatus::DrawThreefold
        } else if self.is_insufficient_material() {
            GameStatus::DrawInsufficientMaterial
        } else {
            GameStatus::Ongoing
        }
    }

    /// Halfmove clock has reached 100 plies.
    #[inline]
    pub fn is_fifty_move_draw(&self) -> bool {
        self.halfmove >= 100
    }

    /// How many earlier positions of the game equal the current one (looking
    /// back no further than the last capture or pawn move). The search treats
    /// 1 as a draw; the game needs 2 (threefold).
    #[inline]
    pub fn repetitions(&self) -> u8 {
        self.history.count(self.hash, self.halfmove as usize)
    }

    /// No sequence of legal moves can mate: only kings plus either a single
    /// minor piece or bishops that all stand on squares of one colour.
    pub fn is_insufficient_material(&self) -> bool {
        let mut minors = 0u8;
        let mut knights = 0u8;
        let mut bishop_colours = 0u8;
        // Both lists in one walk, the kings (slot 0) left out.
        for (i, &sq) in self.lists.as_flattened().iter().enumerate() {
            if i & 15 == 0 || sq == NO_SQUARE {
                continue;
            }
            match kind_of(self.board[(sq & 0x7F) as usize]) {
                KNIGHT => {
                    knights += 1;
                    minors += 1;
                }
                BISHOP => {
                    minors += 1;
                    // Bit 0 for dark squares, bit 1 for light ones (no shift).
                    bishop_colours |= square_colour(sq) + 1;
                }
                _ => return false,
            }
        }
        minors <= 1 || (knights == 0 && bishop_colours != 3)
    }
}

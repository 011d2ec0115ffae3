//! Coordinate notation ("e2e4", "e7e8q", "e1g1" for castling).

use super::chess_move::{promotion_from_char, Move};
use super::movegen::MoveGen;
use super::position::Position;
use super::square::parse_square;

/// Why a coordinate move was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotationError {
    /// Not of the form `[a-h][1-8][a-h][1-8][qrbn]?`.
    Malformed,
    /// Well formed, but no legal move of this position (a pawn reaching the
    /// last rank without a promotion letter also lands here).
    Illegal,
}

impl Position {
    /// Finds the legal move written as `text` (promotion letter in either case).
    pub fn parse_coord(&self, text: &[u8]) -> Result<Move, NotationError> {
        let (squares, promo) = match text {
            [a, b, c, d] => ([*a, *b, *c, *d], 0),
            [a, b, c, d, p] => (
                [*a, *b, *c, *d],
                promotion_from_char(p.to_ascii_lowercase()).ok_or(NotationError::Malformed)?,
            ),
            _ => return Err(NotationError::Malformed),
        };
        let from = parse_square(squares[0], squares[1]).ok_or(NotationError::Malformed)?;
        let to = parse_square(squares[2], squares[3]).ok_or(NotationError::Malformed)?;
        let mut gen = MoveGen::new();
        while let Some(m) = gen.next_legal(self) {
            if m.from() == from && m.to() == to && m.promotion() == promo {
                return Ok(m);
            }
        }
        Err(NotationError::Illegal)
    }
}

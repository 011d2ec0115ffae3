//! The rules of chess, sized for a 4 KB SRAM microcontroller.
//!
//! * [`Position`]: 0x88 board with has-moved flags, two 16-slot piece lists,
//!   side, en-passant square, counters, 32-bit Zobrist hash and the hash
//!   history used for repetitions.
//! * [`MoveGen`]: lazy pseudo-legal generator with five bytes of state; the
//!   caller filters with [`Position::is_legal`] or uses [`MoveGen::next_legal`].
//! * [`Position::make_move`] / [`Position::unmake_move`] with a small [`Undo`].
//! * FEN in/out, coordinate notation, game status and perft.
//!
//! Every constant table is in flash (`progmem!`). Nothing allocates, nothing
//! but perft recurses.

mod attacks;
mod chess_move;
mod fen;
mod history;
mod makemove;
mod movegen;
mod notation;
mod perft;
pub mod piece;
mod position;
pub mod square;
mod status;
mod zobrist;

pub(crate) use attacks::{is_adjacent, reach, JUMPS_THERE};
pub use chess_move::{Move, MoveKind};
pub(crate) use fen::Writer;
pub use fen::{BufferTooSmall, FenError, FEN_MAX_LEN};
pub use history::{HashHistory, HISTORY_LEN};
pub use makemove::Undo;
pub use movegen::MoveGen;
pub use notation::NotationError;
pub use piece::Color;
pub use position::{
    Position, BLACK_KINGSIDE, BLACK_QUEENSIDE, START_FEN, WHITE_KINGSIDE, WHITE_QUEENSIDE,
};
pub use square::{Square, NO_SQUARE};
pub use status::GameStatus;

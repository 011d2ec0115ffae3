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

pub use chess_move::{Move, MoveKind};
pub use fen::{BufferTooSmall, FenError, FEN_MAX_LEN};
pub(crate) use attacks::is_adjacent;
// The swap-off's attacker scan: in Rust on the host, in assembly on the
// AVR, which reads the tables itself.
#[cfg(not(target_arch = "avr"))]
pub(crate) use attacks::{reach, JUMPS_THERE};
#[cfg(target_arch = "avr")]
pub(crate) use attacks::{GEOMETRY, JUMP, LINE, REACH};
pub(crate) use fen::Writer;
pub use history::{HashHistory, HISTORY_LEN};
pub use makemove::{victim_square, Undo};
pub use movegen::MoveGen;
pub use notation::NotationError;
pub use piece::Color;
pub use position::{
    Position, BLACK_KINGSIDE, BLACK_QUEENSIDE, START_FEN, WHITE_KINGSIDE, WHITE_QUEENSIDE,
};
pub use square::{Square, NO_SQUARE};
pub use status::GameStatus;

/// For tests: a random legal game of up to `plies` moves from `fen`
/// (xorshift on `seed`), `visit` called on the start position and after
/// every move.
#[cfg(test)]
pub(crate) fn random_game(fen: &str, plies: usize, seed: &mut u64, mut visit: impl FnMut(&Position)) {
    let mut pos = Position::from_fen(fen.as_bytes()).unwrap();
    visit(&pos);
    for _ in 0..plies {
        let mut moves = [Move::NONE; 256];
        let mut n = 0;
        let mut gen = MoveGen::new();
        while let Some(m) = gen.next_legal(&pos) {
            moves[n] = m;
            n += 1;
        }
        if n == 0 {
            break;
        }
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        pos.make_move(moves[(*seed % n as u64) as usize]);
        visit(&pos);
    }
}

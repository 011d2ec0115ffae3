//! Move-path enumeration, the standard test of a move generator.

use super::movegen::MoveGen;
use super::position::Position;

impl Position {
    /// Number of legal move sequences of `depth` plies (leaves counted in bulk
    /// at the last ply). The one recursive function of the rules code.
    /// Saturates at `u32::MAX` (too many to count): on the AVR, 64-bit sums
    /// cost more flash than the whole function otherwise, and the chip
    /// could not count that far anyway.
    #[cfg_attr(target_arch = "avr", optimize(size))]
    pub fn perft(&mut self, depth: u8) -> u32 {
        if depth == 0 {
            return 1;
        }
        let mut gen = MoveGen::new();
        let mut nodes = 0u32;
        while let Some(m) = gen.next_legal(self) {
            // One loop for both: the last ply counts its moves unplayed.
            let n = if depth == 1 {
                1
            } else {
                let undo = self.make_move(m);
                let n = self.perft(depth - 1);
                self.unmake_move(m, &undo);
                n
            };
            nodes = nodes.saturating_add(n);
        }
        nodes
    }
}

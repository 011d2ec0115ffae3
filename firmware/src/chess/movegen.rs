//! Lazy pseudo-legal move generation.
//!
//! [`MoveGen`] is a five-byte cursor over the side to move's piece list. Each
//! call to [`MoveGen::next`] resumes where the last one stopped and yields one
//! move, so a search ply costs five bytes of RAM instead of a move list. The
//! position is passed on every call (not borrowed), so the caller can make
//! and unmake the yielded move before asking for the next one.
//!
//! Order: pieces in list order (king first), then castling. Promotions come
//! queen first. (The engine's quiet moves in the reverse order, pawns first
//! and the king last, measured -1.3% +/- 1.6% on the host A/B described at
//! the engine's `LMP_MOVES`. The officers from the last slot down, so
//! knights and bishops first, then the pawns, the king last: -0.7% +/-
//! 1.6% on that A/B with games at the ply limit adjudicated, and `bench
//! engine` ratio 0.971, the tree needing more nodes and the two walks over
//! the list more cycles a node. Late-move pruning keeps only the first
//! three quiet moves near the horizon, yet none of these orders helps.
//! The king alone moved last: `bench engine` 1.3% more nodes and 4.7%
//! more cycles to depth 4, not played.)

#[cfg(not(target_arch = "avr"))]
use super::attacks::{geometry, on_line, JUMP};
use super::attacks::{is_adjacent, reach, JUMPS_THERE};
#[cfg(not(target_arch = "avr"))]
use super::attacks::{step, DIAGONALS, KNIGHT_JUMPS, ORTHOGONALS, REACH};
use super::chess_move::{promotion_kind, Move, MoveKind};
use super::piece::*;
use super::position::Position;
use super::square::*;

/// The AVR walk's directions: the knight's, the bishop's and the
/// queen's (the king's too, the rook's its last four), as in
/// [`DIRECTIONS`](super::attacks::DIRECTIONS), each list ended by 0.
/// (The AVR's in [`FLASH_PAGES`](super::attacks::FLASH_PAGES), one
/// byte after a page's start: a step, the entry's index plus one, is
/// the entry's low byte.)
#[cfg_attr(not(any(test, target_arch = "avr")), allow(dead_code))]
pub(super) const RAY_STEPS: [i8; 23] = [
    -33, -31, -18, -14, 14, 18, 31, 33, 0, // knight
    -17, -15, 15, 17, 0, // bishop
    -17, -15, 15, 17, -16, -1, 1, 16, 0, // queen, king; rook from -16
];
/// Per piece kind (index 1..=6): its first entry in [`RAY_STEPS`] plus
/// one | slides << 7, the generator's step when the man starts. (The
/// AVR's in [`FLASH_PAGES`](super::attacks::FLASH_PAGES).)
#[cfg_attr(not(any(test, target_arch = "avr")), allow(dead_code))]
pub(super) const RAY_STARTS: [u8; 7] = [0, 0, 1, 10 | 0x80, 19 | 0x80, 15 | 0x80, 15];

#[cfg(test)]
crate::progmem! {
    static RAYS: [i8; 23] = RAY_STEPS;
    static RAY_START: [u8; 7] = RAY_STARTS;
}

crate::progmem! {
    /// Per piece kind (index 1..=6): first direction | (count / 4) << 4 | slides << 7.
    #[cfg(not(target_arch = "avr"))]
    static PIECE_STEPS: [u8; 7] = [
        0,
        0,                                 // pawn: handled apart
        KNIGHT_JUMPS | 2 << 4,             // knight
        DIAGONALS | 1 << 4 | 0x80,         // bishop
        ORTHOGONALS | 1 << 4 | 0x80,       // rook
        DIAGONALS | 2 << 4 | 0x80,         // queen
        DIAGONALS | 2 << 4,                // king
    ];
}

/// Piece-list slot value meaning "castling stage".
const CASTLING: u8 = 16;
/// Piece-list slot value meaning "exhausted".
const DONE: u8 = 17;

#[cfg(not(target_arch = "avr"))]
const CAPTURES_ONLY: u8 = 1;
/// The AVR's (bit 0, the host's captures mode): the side to move is in
/// check ([`Position::checked`]), so the quiet moves of the officers but
/// the king (with [`DIRECT_CHECKS`]' walk, our king its target) and the
/// pawns' pushes, promotions aside, keep only squares on the ray from
/// our king through the checker (a knight's: its jumps): the others
/// cannot be legal. Only in a generator
/// without captures ([`MoveGen::without_captures`]) and not restricted to
/// checks; once [`MoveGen::restrict_to_checks`] came, only the man being
/// expanded keeps it.
#[cfg(target_arch = "avr")]
const EVASIONS: u8 = 1;
const SINGLE_PIECE: u8 = 2;
/// `IN_CHECK` below is valid (computed on the first `next_legal`).
const CHECK_KNOWN: u8 = 4;
const IN_CHECK: u8 = 8;
/// Knights and sliders yield only quiet moves to squares from which they
/// would attack the enemy king if the line were clear.
const DIRECT_CHECKS: u8 = 16;
/// Only the quiet moves that may give check or push a pawn to the 7th
/// ([`MoveGen::restrict_to_checks`]).
const CHECKS_ONLY: u8 = 32;
/// No captures (en passant included) and no castling: the quiet moves
/// and the promotions ([`MoveGen::without_captures`]).
const NO_CAPTURES: u8 = 64;
/// With [`CHECKS_ONLY`] ([`MoveGen::quiet_checks`]): the quiet moves
/// that can give check only, not the pawns' that reach the 7th (the
/// pruning's), nor a slider's to a square whose line to the king is
/// blocked (its own square counts as occupied: in a legal position a
/// line through it to the king is blocked anyway). The checks stage
/// served only the checks; it tested each of the others exactly. (Bit
/// 3, `IN_CHECK`'s, which only `next_legal` reads: the quiescence
/// picker never calls it; `next_legal` on a [`MoveGen::quiet_checks`]
/// would take the position for one in check. Clearing the bit there
/// cost 8,000 cycles in `bench engine`, which calls `next_legal`.)
const CHECKS_EXACT: u8 = IN_CHECK;
/// [`MoveGen::walk`]'s answer: the filter of the man (kind in the low
/// bits) is to be chosen.
#[cfg(not(target_arch = "avr"))]
const CHOOSE: u8 = 0x80;

/// Pawn sub-steps, stored in `step`.
#[cfg(not(target_arch = "avr"))]
const PAWN_PUSH: u8 = 0;
#[cfg(not(target_arch = "avr"))]
const PAWN_DOUBLE: u8 = 1;
#[cfg(not(target_arch = "avr"))]
const PAWN_TAKE_WEST: u8 = 2;
#[cfg(not(target_arch = "avr"))]
const PAWN_TAKE_EAST: u8 = 3;
#[cfg(not(target_arch = "avr"))]
const PAWN_END: u8 = 4;

/// Resumable cursor over the pseudo-legal moves of a position.
/// (`repr(C)`: the AVR's assembly [`MoveGen::next`] reads and writes
/// the fields at their offsets.)
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct MoveGen {
    /// Piece-list slot being expanded, or [`CASTLING`] / [`DONE`]. (The
    /// AVR's: once started, the slot's entry's offset in the position,
    /// 0x80 | side << 4 | slot, and black to move in bit 7 of `flags`, so
    /// that a call resumes without reading the side: `bench engine` 0.24%
    /// fewer cycles, 4 B.)
    slot: u8,
    /// Direction index (pieces), pawn sub-step, or castling side. (The
    /// AVR's, for an officer: its direction's index in `RAYS` plus one,
    /// | 0x80 for a slider, so that a call resumes without reading
    /// `RAY_START`: 0.23% fewer cycles, 0 B; | 0x40 once written back,
    /// so that a call resumes an officer without reading its kind, out
    /// of the checks filter: 0.28%, 24 B.)
    step: u8,
    /// Square reached along the current ray, or the pending promotion target.
    ray: Square,
    /// Promotions still to yield for the target in `ray`.
    promos: u8,
    flags: u8,
}

impl MoveGen {
    /// All pseudo-legal moves.
    pub const fn new() -> MoveGen {
        MoveGen {
            slot: 0,
            step: 0,
            ray: NO_SQUARE,
            promos: 0,
            flags: 0,
        }
    }

    /// Captures (en passant included) and promotions only. (The host's,
    /// for tests: the engine's picker serves captures itself, and the
    /// AVR's assembly [`MoveGen::next`] has no captures mode, which spared
    /// it a flag test a square: `bench engine` 0.10% fewer cycles, 12 B
    /// less.)
    #[cfg(not(target_arch = "avr"))]
    pub const fn captures() -> MoveGen {
        MoveGen {
            slot: 0,
            step: 0,
            ray: NO_SQUARE,
            promos: 0,
            flags: CAPTURES_ONLY,
        }
    }

    /// The pseudo-legal moves of the man in piece-list slot `slot` only
    /// (for the king, slot 0, castling too). For staged move picking.
    pub const fn for_slot(slot: u8) -> MoveGen {
        MoveGen::single(slot)
    }

    /// The quiet moves that may give check, and a few others, for the
    /// quiescence checks stage: [`MoveGen::restrict_to_checks`]' filter
    /// without its pawns that only reach the 7th and without the
    /// sliders' squares whose line to the king is blocked
    /// ([`CHECKS_EXACT`]); the checks in the same order.
    pub const fn quiet_checks() -> MoveGen {
        MoveGen {
            slot: 0,
            step: 0,
            ray: NO_SQUARE,
            promos: 0,
            flags: CHECKS_ONLY | CHECKS_EXACT,
        }
    }

    /// From now on, of the quiet moves only those that may give check
    /// (direct or discovered) or push a pawn to the 7th rank or promote:
    /// a superset of the quiet moves that the search does not prune once
    /// futility or late-move pruning has set in. Each man's filter is
    /// chosen when it is reached: all its moves if it uncovers a slider on
    /// the enemy king, none for our king otherwise, for knights and
    /// sliders only the squares on the king's lines ([`DIRECT_CHECKS`]),
    /// for a pawn all or none; the man being expanded keeps all its moves.
    /// Castling is dropped, and so are the captures of the filtered men.
    /// The order of the moves left is unchanged.
    pub fn restrict_to_checks(&mut self) {
        self.flags |= CHECKS_ONLY;
    }

    /// Leaves out en passant, castling and every capture but a promotion:
    /// the staged picker serves those in stages of their own,
    /// so its quiet stages would only generate them to throw them away
    /// (and castling would pay its attack tests twice).
    pub const fn without_captures(mut self) -> MoveGen {
        self.flags |= NO_CAPTURES;
        self
    }

    /// Does [`MoveGen::restrict_to_checks`] hold?
    pub fn is_restricted(&self) -> bool {
        self.flags & CHECKS_ONLY != 0
    }

    /// The moves of the man in piece-list slot `slot` (for the king, castling too).
    const fn single(slot: u8) -> MoveGen {
        MoveGen {
            slot,
            step: 0,
            ray: NO_SQUARE,
            promos: 0,
            flags: SINGLE_PIECE,
        }
    }

    /// The next pseudo-legal move, or `None` when exhausted. `pos` must be the
    /// same position on every call (moves made in between must be unmade).
    /// (The host's, and the reference of the AVR's assembly
    /// `MoveGen::next_avr`, which yields the same moves in the same
    /// order; `bench engine` and board-sim's `firmware_search` compare
    /// the two searches node for node.)
    #[cfg(not(target_arch = "avr"))]
    pub fn next(&mut self, pos: &Position) -> Option<Move> {
        let mut chosen = false;
        loop {
            if self.promos > 0 || self.slot >= CASTLING {
                let m = self.next_special(pos);
                return if m == 0 { None } else { Some(Move(m)) };
            }
            let (m, from, status) = self.walk(pos, chosen);
            chosen = false;
            if m != 0 {
                return Some(Move(m));
            }
            if status == PAWN {
                if let Some(m) = self.next_pawn(pos, from) {
                    return Some(m);
                }
            } else if status & CHOOSE != 0 {
                // A man's filter is chosen as it starts; the one being
                // expanded when the restriction came keeps all its moves.
                if self.choose_checks_filter(pos, from, status & 7) {
                    chosen = true;
                } else {
                    self.next_piece();
                }
            }
        }
    }

    /// [`MoveGen::next`]'s promotions, castling and end, out of line:
    /// their locals weigh on none of the officers' and pawns' calls.
    /// The move's bits, 0 for none (C ABI: the AVR's assembly
    /// [`MoveGen::next`] calls it for the promotions only, castling in
    /// its own assembly).
    #[inline(never)]
    extern "C" fn next_special(&mut self, pos: &Position) -> u16 {
        if self.promos > 0 {
            self.promos -= 1;
            let from = pos.list_at(pos.side, self.slot);
            let to = self.ray;
            let capture = pos.board[(to & 0x7F) as usize] != EMPTY;
            let kind = promotion_kind(KNIGHT + self.promos);
            return Move::new(from, to, kind, capture).0;
        }
        // (The AVR's castling is the assembly `next_avr`'s.)
        #[cfg(not(target_arch = "avr"))]
        if self.slot == CASTLING && self.flags & (CAPTURES_ONLY | CHECKS_ONLY | NO_CAPTURES) == 0 {
            if let Some(m) = self.next_castle(pos) {
                return m.0;
            }
        }
        self.slot = DONE;
        0
    }

    /// The officers' moves from `self.slot` on (the slot below
    /// [`CASTLING`]): a move, as its bits, or 0 and what stopped the walk:
    /// a pawn on `from` ([`PAWN`]), a man on `from` whose checks filter is
    /// to be chosen ([`CHOOSE`] | its kind; not when `chosen`, its filter
    /// just chosen), or 0: the slots are over.
    #[cfg(not(target_arch = "avr"))]
    fn walk(&mut self, pos: &Position, mut chosen: bool) -> (u16, Square, u8) {
        let us = pos.side;
        let captures_only = self.flags & CAPTURES_ONLY != 0;
        loop {
            let from = pos.list_at(us, self.slot);
            if from != NO_SQUARE {
                let kind = kind_of(pos.board[(from & 0x7F) as usize]);
                if self.flags & CHECKS_ONLY != 0 && !chosen && self.step == 0 && self.ray == NO_SQUARE {
                    return (0, from, CHOOSE | kind);
                }
                if kind == PAWN {
                    return (0, from, PAWN);
                }
                let info = PIECE_STEPS.get(kind as usize);
                let first = info & 15;
                let count = ((info >> 4) & 3) * 4;
                let slides = info & 0x80 != 0;
                while self.step < count {
                    let dir = first + self.step;
                    let origin = if self.ray == NO_SQUARE {
                        from
                    } else {
                        self.ray
                    };
                    let to = step(origin, dir);
                    if !on_board(to) {
                        self.step += 1;
                        self.ray = NO_SQUARE;
                        continue;
                    }
                    let target = pos.board[to as usize];
                    if target == EMPTY {
                        if slides {
                            self.ray = to;
                        } else {
                            self.step += 1;
                        }
                        let king = pos.list_at(us.other(), 0);
                        if !captures_only
                            && (self.flags & DIRECT_CHECKS == 0
                                || geometry(to, king) & REACH.get(kind as usize) != 0
                                    && (self.flags & CHECKS_EXACT == 0 || !slides || pos.scan(to, king, NO_SQUARE) == king))
                        {
                            return (Move::new(from, to, MoveKind::Normal, false).0, from, 0);
                        }
                        continue;
                    }
                    self.step += 1;
                    self.ray = NO_SQUARE;
                    if !is_color(target, us) && self.flags & (DIRECT_CHECKS | NO_CAPTURES) == 0 {
                        return (Move::new(from, to, MoveKind::Normal, true).0, from, 0);
                    }
                }
            }
            chosen = false;
            self.next_piece();
            if self.slot >= CASTLING {
                return (0, 0, 0);
            }
        }
    }

    /// [`MoveGen::next`] for the AVR: the assembly [`MoveGen::next_avr`],
    /// its move's bits made an `Option`.
    #[cfg(target_arch = "avr")]
    #[inline(always)]
    pub fn next(&mut self, pos: &Position) -> Option<Move> {
        let m = Self::next_avr(self, pos);
        if m == 0 {
            None
        } else {
            Some(Move(m))
        }
    }

    /// The host's [`MoveGen::next`] by hand (C ABI: the generator in
    /// r25:r24, the position in r23:r22, the move's bits, 0 for none,
    /// back in r25:r24): the officers' walk ([`MoveGen::walk`]), the
    /// pawns' sub-steps ([`MoveGen::next_pawn`], all of a pawn's in one
    /// loop) and the choice of a man's filter
    /// ([`MoveGen::choose_checks_filter`]; [`Position::uncovers_along`]
    /// called for a man on a line with the king) in registers, and the
    /// end and castling; [`MoveGen::next_special`] called only for the
    /// promotions. (The end by that call, which saves 18 registers for
    /// castling, cost 0.20% more cycles in `bench engine`, 28 B less.)
    /// In check ([`EVASIONS`]) the quiet moves off the ray from our king
    /// through the checker are never yielded: `bench engine` 2.4% fewer
    /// cycles with the checks' notes kept (0.50% the officers' to any
    /// line from the king; the ray, 0.99% more; the pawns' pushes, 0.80%).
    /// The body is this one `asm!` with its operands where the ABI
    /// brings them, so the compiler adds nothing but the `ret`; it saves
    /// Y itself (and no other register: the stack bound sees one depth
    /// at every label). In `bench engine` 212 cycles a call (291 before
    /// the resumption from the generator's state alone, the checks
    /// filter's quicker skips and the captures mode left to the host),
    /// against 392 for the Rust loop around the assembly walk (with
    /// `next_pawn`'s, `choose_checks_filter`'s and `next_special`'s
    /// calls, 530).
    #[cfg(target_arch = "avr")]
    #[inline(never)]
    pub(crate) extern "C" fn next_avr(&mut self, pos: &Position) -> u16 {
        use core::mem::offset_of;
        const SLOT: usize = offset_of!(MoveGen, slot);
        const STEP: usize = offset_of!(MoveGen, step);
        const RAY: usize = offset_of!(MoveGen, ray);
        const PROMOS: usize = offset_of!(MoveGen, promos);
        const FLAGS: usize = offset_of!(MoveGen, flags);
        const SIDE: usize = offset_of!(Position, side);
        const EP: usize = offset_of!(Position, ep);
        const _: () = assert!(offset_of!(Position, lists) == 128 && offset_of!(Position, board) == 0);
        let m: u16;
        // Registers: Y the generator, r25:r24 the position (the move on
        // the way out), r18 the slot (its list entry's offset in the
        // position while walking), r19 the step, r20 the ray (the
        // square reached while walking, else from the man's square on),
        // r21 the flags (bit 7: black to move, kept in the generator once
        // worked out), r22 the man's square, r23 its kind, then scratch;
        // Z the tables and the board. An officer: Z its next direction's
        // entry in RAYS (the generator's step is that entry's index plus
        // one, | 0x80 for a slider: no table read to resume), r0 the
        // direction's step, X the board, T a slider;
        // under DIRECT_CHECKS the slot and the flags wait in the
        // generator, r19:r18 the address of GEOMETRY's entry of the
        // enemy king less square 0, r21 the reach bits of the kind. A pawn:
        // r26 the square ahead, r27 the step forward, T the square
        // ahead on the last rank. Choosing a man's filter: r26 the
        // enemy king, r27 the man may check.
        // SAFETY: `MoveGen` and `Position` are `repr(C)` (offsets above,
        // the 0x88 board at 0 and the two 16-square piece lists after
        // it); reads the position and the flash tables at in-range
        // indices, writes the generator's fields; calls next_special
        // (C ABI) with the generator and the position, and
        // uncovers_along (its own registers) with its arguments; saves Y.
        unsafe {
            core::arch::asm!(
                "    push r28",
                "    push r29",
                "    movw r28, r24",
                "    movw r24, r22",
                // The state from the generator. A slot with bit 7 is
                // its entry's offset already, the side in the flags' bit
                // 7 (promotions pending leave the slot itself): else see
                // 4 below.
                "    ldd r18, Y+{slot}",
                "    ldd r21, Y+{flags}",
                "    sbrs r18, 7",
                "    rjmp 4f",
                "2:  ldd r19, Y+{step}",
                "    ldd r20, Y+{ray}",
                // An officer resumed (bit 6 of its step), unless under
                // DIRECT_CHECKS: its square only, straight to its walk.
                "    sbrs r19, 6",
                "    rjmp 10f",
                "17: sbrc r21, 4",
                "    rjmp 10f",
                "    movw r30, r24",
                "    add r30, r18",
                "    adc r31, r1",
                "    ld r22, Z",
                // 16's work for a walk with no DIRECT_CHECKS, here.
                // (The jump to 16: `bench engine` 0.03% more cycles, 16 B less.)
                "    bst r19, 7",
                "    andi r19, 0x3F",
                "    mov r30, r19",
                "    ldi r31, hi8({pages}+{rays0_at})",
                "    cpi r20, 0xFF",
                "    brne 1f",
                "    mov r20, r22",
                "1:  rjmp 20f",
                "87: rjmp 88f",
                // An officer's directions are over; the next man
                // (next_piece), falling into 10. (Placed by the stage's
                // end, with the resumption at 17 there, two jumps more:
                // `bench engine` 0.04% more cycles.)
                "80: sbrc r21, 4",
                "    ldd r18, Y+{slot}",
                "81: clr r19",
                "    ldi r20, 0xFF",
                "    sbrc r21, 1",
                "    rjmp 85f",
                // (The list's end: the slot's low nibble wraps, no
                // borrow from bit 3 when adding 1 by subtracting 0xFF:
                // H clear. Two cycles less than its nibble masked and
                // tested, here and at 79: `bench engine` 0.09% fewer
                // cycles, 4 B less.)
                "    subi r18, 0xFF",
                "    brhc 87b",
                // The man in the slot (r18 its entry's offset in the
                // position, 0x80 + 16 * side + slot, till the way out).
                "10: movw r30, r24",
                "    add r30, r18",
                "    adc r31, r1",
                "    ld r22, Z",
                // (A man found falls into 11: the filters' block 18
                // after 13. `bench engine` 0.04% fewer cycles, 4 B less.)
                "    cpi r22, 0xFF",
                "    breq 81b",
                "11: movw r30, r24",
                "    add r30, r22",
                "    adc r31, r1",
                "    ld r23, Z",
                "    andi r23, 0x0F",
                "    sbrc r21, 7",
                "    subi r23, 6",
                // A man starting under CHECKS_ONLY or EVASIONS: its
                // filter first.
                "12: mov r30, r21",
                "    andi r30, {filters}",
                "    brne 18f",
                "13: cpi r23, 1",
                "    brne 14f",
                "    rjmp 60f",
                // A man starting: CHECKS_ONLY's filter (70), else
                // EVASIONS': an officer but the king only to a square on
                // a line from our king, the only quiet moves that can be
                // legal in check (all of them for the others).
                "18: tst r19",
                "    brne 13b",
                "    cpi r20, 0xFF",
                "    brne 13b",
                "    sbrc r21, 5",
                "    rjmp 70f",
                "    andi r21, 0xEF",
                "    cpi r23, 1",
                "    breq 19f",
                "    cpi r23, 6",
                "    breq 19f",
                "    ori r21, 0x10",
                "19: rjmp 76f",
                // An officer; under DIRECT_CHECKS the slot waits in the
                // generator, r18 the enemy king, r26 the reach (under
                // EVASIONS our king and any line).
                // (Every officer's slot into the generator here, as it
                // starts, not at each quiet move's way out at 24, where
                // a man resumed at 17 keeps his: `bench engine` 0.044%
                // fewer cycles, 4 B less.)
                "14: std Y+{slot}, r18",
                "    sbrs r21, 4",
                "    rjmp 15f",
                "    movw r30, r24",
                "    subi r30, 0x80",
                "    sbci r31, 0xFF",
                "    sbrc r21, 0",
                "    rjmp 6f",
                "    sbrs r21, 7",
                "    adiw r30, 16",
                "    ld r18, Z",
                // The reach (REACH's) of a knight, bishop, rook or
                // queen (kinds 2 to 5; a king or a pawn never walks
                // here): JUMP, else the kind less 2. (`bench engine`
                // 0.04% fewer cycles than the table.)
                "    mov r26, r23",
                "    subi r26, 2",
                "    brne 15f",
                "    ldi r26, {jump}",
                "    rjmp 15f",
                // (EVASIONS: r19 the note, the GEOMETRY entry of the
                // checker towards our king, but its adjacency bit.)
                "6:  ldd r26, Z+{chk_l}",
                "    andi r26, {evasion_mask}",
                "    sbrc r21, 7",
                "    adiw r30, 16",
                "    ld r18, Z",
                // Z the direction's entry in RAYS: from the generator's
                // step, or RAY_START's for a man starting.
                "15: tst r19",
                "    brne 16f",
                "    ldi r30, lo8({pages}+{rs_at})",
                "    add r30, r23",
                "    ldi r31, hi8({pages}+{rs_at})",
                "    lpm r19, Z",
                "16: bst r19, 7",
                "    andi r19, 0x3F",
                "    mov r30, r19",
                "    ldi r31, hi8({pages}+{rays0_at})",
                "    sbrc r21, 4",
                "    rjmp 31f",
                // The walk goes on from the ray's square, or from the
                // man (each new direction too: r20 is 0xFF again only
                // in the state written back).
                // (A direction that ends goes back to 30, just above the
                // loop: no jump back to it. `bench engine` 0.12% fewer
                // cycles, 4 B less.)
                "    cpi r20, 0xFF",
                "    brne 20f",
                "30: mov r20, r22",
                // The next direction.
                "20: lpm r0, Z+",
                "    tst r0",
                "    breq 29f",
                "21: add r20, r0",
                "    mov r23, r20",
                "    andi r23, 0x88",
                "    brne 30b",
                "    movw r26, r24",
                "    add r26, r20",
                "    adc r27, r1",
                "    ld r23, X",
                "    tst r23",
                "    brne 40f",
                // A quiet move; a slider keeps the square as its ray and
                // the direction as its step, the others go on to the next.
                "22: mov r24, r22",
                "    mov r25, r20",
                "    mov r19, r30",
                "    brtc 23f",
                "    dec r19",
                "    ori r19, 0xC0",
                // The state back and out, here: the most common way
                // out. (The slot waits in the generator already, from
                // 14. `bench engine` 0.06% fewer cycles than the jump to
                // 99, 8 B.)
                "24: std Y+{step}, r19",
                "    std Y+{ray}, r20",
                "    pop r29",
                "    pop r28",
                "    ret",
                // (A step's end out on its own, no jump back to 24:
                // `bench engine` 0.014% fewer cycles, 8 B.)
                "23: ldi r20, 0xFF",
                "    ori r19, 0x40",
                "    std Y+{step}, r19",
                "    std Y+{ray}, r20",
                "    pop r29",
                "    pop r28",
                "    ret",
                "29: rjmp 80b",
                // A man on the square: an enemy is a capture.
                "40: sbrc r21, 6",
                "    rjmp 30b",
                "    andi r23, 0x0F",
                "    sbrs r21, 7",
                "    subi r23, 6",
                "    dec r23",
                "    cpi r23, 6",
                "    brsh 30b",
                "    mov r24, r22",
                "    mov r25, r20",
                "    ori r25, 0x80",
                "    ldi r20, 0xFF",
                "    mov r19, r30",
                "    bld r19, 7",
                "    ori r19, 0x40",
                "    rjmp 99f",
                // DIRECT_CHECKS' walk (and EVASIONS'), the same as
                // above but for the captures, then the square's geometry
                // to the king. (A loop of its own, no flag tests a
                // square: `bench engine` 0.14% fewer cycles, 24 B.)
                // (The reach set here, not before the jump: one cycle
                // less in the other walks.) r19:r18 the address of the
                // king's GEOMETRY entry less square 0, a square's entry
                // one 8-bit subtraction away (GEOMETRY starts a page: no
                // borrow), r21 the reach, the flags waiting
                // in the generator (read back at 56, 27 and 28): 0.05%
                // fewer cycles than the entry's address from the king +
                // 0x77 at each square, 8 B.
                "31: mov r21, r26",
                "    ldi r19, hi8({geometry})",
                "    subi r18, lo8(-({geometry}+0x77))",
                "    cpi r20, 0xFF",
                "    brne 32f",
                "33: mov r20, r22",
                "32: lpm r0, Z+",
                "    tst r0",
                "    breq 27f",
                "34: add r20, r0",
                "    mov r23, r20",
                "    andi r23, 0x88",
                "    brne 33b",
                "    movw r26, r24",
                "    add r26, r20",
                "    adc r27, r1",
                "    ld r23, X",
                "    tst r23",
                "    brne 33b",
                "50: movw r26, r30",
                "    movw r30, r18",
                "    sub r30, r20",
                "    lpm r23, Z",
                "    movw r30, r26",
                "    mov r26, r23",
                "    and r23, r21",
                "    brne 56f",
                "52: brts 34b",
                "    rjmp 33b",
                // EVASIONS: the square between our king and the
                // checker, or beyond it: its entry towards our king the
                // checker's. (Tested once the entry shares a bit with
                // the note: no other can equal it. The flag tested only
                // then, `bench engine` 0.06% fewer cycles, 0 B.)
                "51: andi r26, {evasion_mask}",
                "    cp r26, r21",
                "    brne 52b",
                "    rjmp 28f",
                "56: ldd r23, Y+{flags}",
                "    sbrc r23, 0",
                "    rjmp 51b",
                // CHECKS_EXACT: a slider's square only with its line
                // to the king clear (53).
                "55: sbrc r23, 3",
                "    brts 53f",
                "    rjmp 28f",
                // CHECKS_EXACT's walk from the square towards the king
                // (r26 the entry: its direction in the high nibble), Z
                // kept on the stack; the first man met the king (r18
                // less 0x77)?
                "53: push r30",
                "    push r31",
                "    mov r30, r26",
                "    swap r30",
                "    ori r30, 0xF0",
                "    ldi r31, hi8({geometry})",
                "    lpm r27, Z",
                "    mov r23, r20",
                "54: add r23, r27",
                "    movw r30, r24",
                "    add r30, r23",
                "    adc r31, r1",
                "    ld r26, Z",
                "    tst r26",
                "    breq 54b",
                "    sub r23, r18",
                "    pop r31",
                "    pop r30",
                "    cpi r23, lo8(-({geometry}+0x77))",
                "    brne 52b",
                // The flags back from the generator (r21 held the
                // reach): to the move (28) or the next man (27).
                "28: ldd r21, Y+{flags}",
                "    rjmp 22b",
                "27: ldd r21, Y+{flags}",
                "    rjmp 80b",
                // Captures: west (step 3 now), east (4).
                // Under NO_CAPTURES the captures only for a promotion
                // (`bench engine` 0.18% fewer cycles, 8 B).
                "67: brts 57f",
                "    sbrc r21, 6",
                "    rjmp 81b",
                "57: mov r23, r26",
                "    dec r23",
                "    sbrc r19, 2",
                "    subi r23, 0xFE",
                "    mov r30, r23",
                "    andi r30, 0x88",
                "    brne 61f",
                "    movw r30, r24",
                "    add r30, r23",
                "    adc r31, r1",
                "    ld r30, Z",
                "    tst r30",
                "    brne 64f",
                "    sbrc r21, 6",
                "    rjmp 61f",
                "    movw r30, r24",
                "    subi r30, {ep_nlo}",
                "    sbci r31, {ep_nhi}",
                "    ld r30, Z",
                "    cp r30, r23",
                "    brne 61f",
                "    mov r24, r22",
                "    ori r24, 0x88",
                "    mov r25, r23",
                "    ori r25, 0x80",
                "    rjmp 99f",
                "64: andi r30, 0x0F",
                "    sbrs r21, 7",
                "    subi r30, 6",
                "    dec r30",
                "    cpi r30, 6",
                "    brsh 61f",
                "    brts 68f",
                "    sbrc r21, 6",
                "    rjmp 61f",
                "    mov r24, r22",
                "    mov r25, r23",
                "    ori r25, 0x80",
                "    rjmp 99f",
                // A promotion on r23: its four moves from next_special.
                "68: mov r20, r23",
                "    ldi r30, 4",
                "    std Y+{promos}, r30",
                "    andi r18, 0x0F",
                "    rjmp 96f",
                // A pawn (next_pawn), its sub-steps in a loop.
                "60: ldi r27, 16",
                "    sbrc r21, 7",
                "    ldi r27, 0xF0",
                "    mov r26, r22",
                "    add r26, r27",
                "    mov r23, r26",
                "    andi r23, 0x70",
                "    sbrs r21, 7",
                "    subi r23, 0x70",
                "    clt",
                "    tst r23",
                "    brne 61f",
                "    set",
                "61: cpi r19, 4",
                "    brlo 62f",
                "    rjmp 81b",
                "62: inc r19",
                "    cpi r19, 2",
                "    brlo 63f",
                "    breq 66f",
                "    rjmp 67b",
                // The push; blocked, no double push either.
                "63: mov r23, r26",
                "    andi r23, 0x88",
                "    brne 65f",
                "    movw r30, r24",
                "    add r30, r26",
                "    adc r31, r1",
                "    ld r30, Z",
                "    tst r30",
                "    brne 65f",
                "    mov r23, r26",
                "    brts 68b",
                "    sbrc r21, 0",
                "    rcall 87f",
                "    brne 61b",
                "    mov r24, r22",
                "    mov r25, r26",
                "    rjmp 99f",
                "65: ldi r19, 2",
                "    rjmp 61b",
                // The double push, from the start rank.
                "66: mov r23, r22",
                "    andi r23, 0x70",
                "    sbrc r21, 7",
                "    subi r23, 0x50",
                "    cpi r23, 0x10",
                "    brne 61b",
                "    mov r23, r26",
                "    add r23, r27",
                "    movw r30, r24",
                "    add r30, r23",
                "    adc r31, r1",
                "    ld r30, Z",
                "    tst r30",
                "    brne 61b",
                "    sbrc r21, 0",
                "    rcall 87f",
                "    brne 61b",
                "    mov r24, r22",
                "    ori r24, 0x08",
                "    mov r25, r23",
                "    rjmp 99f",
                // EVASIONS for a pawn's push to r23: Z set if its
                // GEOMETRY entry towards our king is the note (but the
                // adjacency bit). Clobbers r0, r20 (a pawn's ray is not
                // read), Z.
                "87: movw r30, r24",
                "    subi r30, 0x80",
                "    sbci r31, 0xFF",
                "    ldd r0, Z+{chk_l}",
                "    sbrc r21, 7",
                "    adiw r30, 16",
                "    ld r20, Z",
                "    subi r20, lo8(-({geometry}+0x77))",
                "    sub r20, r23",
                "    mov r30, r20",
                "    ldi r31, hi8({geometry})",
                "    lpm r20, Z",
                "    eor r20, r0",
                "    andi r20, {evasion_mask}",
                "    ret",
                // The man's filter (choose_checks_filter): r26 the enemy
                // king, r27 the man may check directly or (a pawn) reach
                // the 7th; then its moves, or the next man.
                "70: movw r30, r24",
                "    subi r30, 0x80",
                "    sbci r31, 0xFF",
                "    sbrs r21, 7",
                "    adiw r30, 16",
                "    ld r26, Z",
                // (Not EVASIONS: its man being expanded when the
                // restriction came keeps its filter, the others take
                // this one.)
                "69: andi r21, 0xEE",
                "    clr r27",
                "    cpi r23, 1",
                "    brne 72f",
                // A pawn: two or three ranks below the king on a next
                // file, or past the 5th rank.
                "    mov r30, r26",
                "    andi r30, 0x70",
                "    mov r31, r22",
                "    andi r31, 0x70",
                "    sub r30, r31",
                "    sbrc r21, 7",
                "    neg r30",
                "    subi r30, 0x20",
                "    cpi r30, 0x20",
                "    brsh 71f",
                // (Under CHECKS_EXACT three ranks below only on its
                // first rank: a single push cannot check.)
                "    sbrs r21, 3",
                "    rjmp 78f",
                "    cpi r30, 0x10",
                "    brne 78f",
                "    mov r31, r22",
                "    sbrc r21, 7",
                "    com r31",
                "    andi r31, 0x70",
                "    cpi r31, 0x10",
                "    brne 71f",
                "78: mov r30, r26",
                "    andi r30, 7",
                "    mov r31, r22",
                "    andi r31, 7",
                "    sub r30, r31",
                "    subi r30, 0xFF",
                "    andi r30, 0xFD",
                "    brne 71f",
                "    ldi r27, 1",
                // (Under CHECKS_EXACT not the 7th.)
                "71: sbrc r21, 3",
                "    rjmp 73f",
                "    mov r30, r22",
                "    sbrc r21, 7",
                "    com r30",
                "    andi r30, 0x70",
                "    cpi r30, 0x50",
                "    brlo 73f",
                "    ldi r27, 1",
                "    rjmp 73f",
                // An officer: DIRECT_CHECKS; a king never checks, a
                // bishop or a knight only on the king's colour.
                "72: ori r21, 0x10",
                "    cpi r23, 6",
                "    breq 73f",
                "    ldi r27, 1",
                "    cpi r23, 4",
                "    brsh 73f",
                "    mov r30, r26",
                "    eor r30, r22",
                "    mov r31, r30",
                "    swap r31",
                "    eor r30, r31",
                "    sbrc r30, 0",
                "    clr r27",
                "    cpi r23, 3",
                "    breq 73f",
                // A knight: two jumps from the king, so on its colour
                // and at most four files and four ranks away.
                "    mov r30, r26",
                "    andi r30, 7",
                "    mov r31, r22",
                "    andi r31, 7",
                "    sub r30, r31",
                "    subi r30, 0xFC",
                "    cpi r30, 9",
                "    brsh 77f",
                "    mov r30, r26",
                "    andi r30, 0x70",
                "    mov r31, r22",
                "    andi r31, 0x70",
                "    sub r30, r31",
                "    subi r30, 0xC0",
                "    cpi r30, 0x81",
                "    brlo 73f",
                "77: clr r27",
                // On a line with the king: a discovered check?
                "73: ldi r30, lo8({geometry}+0x77)",
                "    ldi r31, hi8({geometry})",
                "    add r30, r22",
                "    sub r30, r26",
                "    lpm r31, Z",
                "    mov r30, r31",
                "    andi r30, {line}",
                "    brne 75f",
                "74: tst r27",
                "    brne 76f",
                // A man skipped: the next one straight to its filter,
                // the enemy king kept in r26 (r19 is 0 and r20 0xFF).
                // (Through the generic next man: 0.25% more cycles in
                // `bench engine`, 44 B less.)
                "    sbrc r21, 1",
                "    rjmp 81b",
                "79: subi r18, 0xFF",
                "    brhc 88f",
                "    movw r30, r24",
                "    add r30, r18",
                "    adc r31, r1",
                "    ld r22, Z",
                "    cpi r22, 0xFF",
                "    breq 79b",
                "    movw r30, r24",
                "    add r30, r22",
                "    adc r31, r1",
                "    ld r23, Z",
                "    andi r23, 0x0F",
                "    sbrc r21, 7",
                "    subi r23, 6",
                "    rjmp 69b",
                // Its moves: DIRECT_CHECKS into the generator's flags
                // (a man skipped leaves them: no one reads the bit then).
                "76: ldd r30, Y+{flags}",
                "    andi r30, 0xEE",
                "    mov r31, r21",
                "    andi r31, {dc_ev}",
                "    or r30, r31",
                "    std Y+{flags}, r30",
                "    rjmp 13b",
                // uncovered_filter: all its moves if it uncovers one of
                // our sliders (uncovers_along, its own registers: it
                // keeps r18, whose bit 7 makes it no `to`, r21, r23,
                // r27 and the position). Not asked for a pawn on the
                // king's file: its pushes stay on it, and a promotion
                // or a capture, none of the checks stage's, comes from
                // the 6th rank on, where it keeps all its moves anyway.
                // (`bench engine` 0.09% fewer cycles, 20 B. Nor for a
                // man reaching along the line, which cannot be the first
                // from the king: 1,400 of 7,700 calls spared, no cycles.)
                "75: cpi r23, 1",
                "    brne 57f",
                "    mov r30, r26",
                "    eor r30, r22",
                "    andi r30, 7",
                "    breq 74b",
                "57: mov r19, r31",
                "    mov r20, r22",
                "    mov r22, r26",
                "    bst r21, 7",
                "    call {uncovers_along}",
                "    mov r22, r20",
                "    mov r30, r19",
                "    ldi r19, 0",
                "    ldi r20, 0xFF",
                "    tst r30",
                "    brne 59f",
                // (uncovers_along took r26: skipped, the generic next man.)
                "    tst r27",
                "    brne 76b",
                "    rjmp 81b",
                "59: andi r21, 0xEF",
                "    rjmp 76b",
                // The slots are over (80 above).
                "88: ldi r18, 16",
                "    rjmp 96f",
                "85: mov r23, r18",
                "    andi r23, 0x0F",
                "86: ldi r18, 16",
                "    breq 96f",
                "    ldi r18, 17",
                // The slots are over: the state back, then next_special.
                "96: std Y+{slot}, r18",
                "    std Y+{step}, r19",
                "    std Y+{ray}, r20",
                // (The end, and a castling stage to skip, without the
                // call: the slot DONE, no move.)
                "90: ldd r18, Y+{promos}",
                "    tst r18",
                "    brne 91f",
                "    ldd r18, Y+{slot}",
                "    cpi r18, {castling}",
                "    brne 92f",
                "    ldd r18, Y+{flags}",
                "    andi r18, {no_castling}",
                "    brne 92f",
                // In check (as `in_check_after` noted): no castling.
                // (`bench engine`: 1,700 of the 3,400 castling stages,
                // each its king's square attacked once or twice.)
                "    movw r30, r24",
                "    subi r30, 0x80",
                "    sbci r31, 0xFF",
                "    ldd r18, Z+{chk_l}",
                "    tst r18",
                "    brne 92f",
                "    rjmp 26f",
                "91: movw r22, r24",
                "    movw r24, r28",
                "    call {special}",
                "    rjmp 98f",
                "92: ldi r18, {done}",
                "    std Y+{slot}, r18",
                "    clr r24",
                "    clr r25",
                "    rjmp 98f",
                // Promotions pending (up to 4) or the slots over:
                // next_special's; else a generator's first call: the
                // slot's entry's offset, the side into the flags.
                "4:  ldd r19, Y+{promos}",
                "    tst r19",
                "    brne 3f",
                "    cpi r18, 16",
                "    brsh 3f",
                "    movw r30, r24",
                "    subi r30, {side_nlo}",
                "    sbci r31, {side_nhi}",
                "    ld r22, Z",
                "    subi r18, 0x80",
                "    sbrc r22, 0",
                "    ori r21, 0x80",
                "    sbrc r22, 0",
                "    subi r18, 0xF0",
                // In check (as `in_check_after` noted), a generator of
                // quiet moves not restricted to checks: EVASIONS.
                "    ldd r22, Z+{chk}",
                "    tst r22",
                "    breq 5f",
                "    sbrc r21, 6",
                "    sbrc r21, 5",
                "    rjmp 5f",
                "    ori r21, {evasions}",
                "5:  std Y+{flags}, r21",
                "    rjmp 2b",
                "3:  rjmp 90b",
                // Castling (next_castle; from 90, not in check): the king on its square,
                // the rook on its corner, the squares between empty,
                // then attacked_after (C ABI; it keeps r14, r16, r17,
                // r18, r22, r25 and Y) on the square passed and the
                // king's own (in either order: both must be safe; the
                // one passed fails more often). r17 the position's low
                // byte, r16, r14 and r18 NO_SQUARE for its squares, r22
                // the square, r20 the enemy (bit 0), r21 the direction,
                // r23 our rook; the generator's step as the host's: 1
                // once the king's side is done, 2 the queen's. A side
                // failing starts over at 25 from that step. (Through
                // next_special, which saved 17 registers for it:
                // `bench engine` 0.13% more cycles, 248 B more.)
                "26: push r14",
                "    push r16",
                "    push r17",
                "    mov r17, r24",
                "    ldi r18, 0xFF",
                "    mov r16, r18",
                "    mov r14, r18",
                "25: movw r30, r24",
                "    subi r30, {side_nlo}",
                "    sbci r31, {side_nhi}",
                "    ld r20, Z",
                "    ldi r22, {e1}",
                "    ldi r23, {wking}",
                "    sbrc r20, 0",
                "    ldi r22, {e8}",
                "    sbrc r20, 0",
                "    ldi r23, {bking}",
                "    com r20",
                "    movw r30, r24",
                "    add r30, r22",
                "    adc r31, r1",
                "    ld r0, Z",
                "    cp r0, r23",
                "    brne 38f",
                "    subi r23, {king_rook}",
                "    ldd r19, Y+{step}",
                "    tst r19",
                "    brne 35f",
                "    ldi r19, 1",
                "    std Y+{step}, r19",
                "    ldd r0, Z+3",
                "    cp r0, r23",
                "    brne 35f",
                "    ldd r0, Z+1",
                "    ldd r21, Z+2",
                "    or r0, r21",
                "    brne 35f",
                "    ldi r21, 1",
                "    rjmp 36f",
                "35: cpi r19, 2",
                "    brsh 38f",
                "    ldi r19, 2",
                "    std Y+{step}, r19",
                "    sbiw r30, 4",
                "    ld r0, Z",
                "    cp r0, r23",
                "    brne 38f",
                "    ldd r0, Z+1",
                "    ldd r21, Z+2",
                "    or r0, r21",
                "    ldd r21, Z+3",
                "    or r0, r21",
                "    brne 38f",
                "    ldi r21, 0xFF",
                "36: push r21",
                "    push r20",
                "    add r22, r21",
                "    call {attacked}",
                "    pop r20",
                "    pop r21",
                "    sub r22, r21",
                "    tst r24",
                "    mov r24, r17",
                "    brne 25b",
                "    push r21",
                "    call {attacked}",
                "    pop r21",
                "    tst r24",
                "    mov r24, r17",
                "    brne 25b",
                "    mov r24, r22",
                "    ori r24, {castle_bits}",
                "    add r22, r21",
                "    add r22, r21",
                "    mov r25, r22",
                "    pop r17",
                "    pop r16",
                "    pop r14",
                "    rjmp 98f",
                "38: pop r17",
                "    pop r16",
                "    pop r14",
                "    rjmp 92b",
                // A move: the state back.
                "99: std Y+{slot}, r18",
                "    std Y+{step}, r19",
                "    std Y+{ray}, r20",
                "98: pop r29",
                "    pop r28",
                slot = const SLOT,
                step = const STEP,
                ray = const RAY,
                promos = const PROMOS,
                flags = const FLAGS,
                side_nlo = const (SIDE as u16).wrapping_neg() as u8,
                side_nhi = const ((SIDE as u16).wrapping_neg() >> 8) as u8,
                ep_nlo = const (EP as u16).wrapping_neg() as u8,
                ep_nhi = const ((EP as u16).wrapping_neg() >> 8) as u8,
                pages = sym super::attacks::FLASH_PAGES,
                rs_at = const super::attacks::RAY_START_AT,
                rays0_at = const super::attacks::RAYS_BEFORE_AT,
                castling = const CASTLING,
                done = const DONE,
                no_castling = const CHECKS_ONLY | NO_CAPTURES,
                filters = const CHECKS_ONLY | EVASIONS,
                evasions = const EVASIONS,
                dc_ev = const DIRECT_CHECKS | EVASIONS,
                chk = const offset_of!(Position, checked) - SIDE,
                chk_l = const offset_of!(Position, checked) - 128,
                evasion_mask = const 0xF7,
                geometry = sym super::attacks::GEOMETRY,
                jump = const super::attacks::JUMP,
                line = const super::attacks::LINE,
                uncovers_along = sym Position::uncovers_along,
                special = sym MoveGen::next_special,
                attacked = sym Position::attacked_after,
                e1 = const E1,
                e8 = const E8,
                wking = const KING,
                bking = const KING + BLACK_OFFSET,
                king_rook = const KING - ROOK,
                castle_bits = const Move::new(0, 0, MoveKind::Castle, false).0 as u8,
                inout("r25r24") self as *mut MoveGen => m,
                inout("r23r22") pos as *const Position => _,
                out("r18") _, out("r19") _, out("r20") _, out("r21") _,
                out("X") _, out("Z") _,
            );
        }
        m
    }

    /// The next legal move (pseudo-legal moves filtered with [`Position::is_legal`]).
    /// In check as `in_check_after` noted ([`Position::checked`]), no
    /// attack test: the search counts the replies to a check so
    /// (`bench engine` 0.11% fewer cycles, 16 B).
    pub fn next_legal(&mut self, pos: &Position) -> Option<Move> {
        if self.flags & CHECK_KNOWN == 0 {
            self.flags |= CHECK_KNOWN | if pos.checked != 0 || pos.in_check() { IN_CHECK } else { 0 };
        }
        let in_check = self.flags & IN_CHECK != 0;
        while let Some(m) = self.next(pos) {
            if pos.is_legal_given_check(m, in_check) {
                return Some(m);
            }
        }
        None
    }

    /// [`MoveGen::restrict_to_checks`]: the filter of the man on `from`;
    /// false = none of its quiet moves can check or reach the 7th. The
    /// walk for a discovered check, on the rare men on a line with the
    /// king, is left to [`MoveGen::uncovered_filter`], called last: this
    /// function then keeps no value across a call (no registers to save).
    /// (The AVR's assembly [`MoveGen::next`] chooses by hand.)
    #[cfg(not(target_arch = "avr"))]
    #[inline(never)]
    fn choose_checks_filter(&mut self, pos: &Position, from: Square, kind: u8) -> bool {
        let us = pos.side;
        let king = pos.list_at(us.other(), 0);
        // False for a king.
        let mut checks = pos.may_check_directly(from, king);
        self.flags &= !DIRECT_CHECKS;
        if kind == PAWN {
            let rank = if us == Color::White { rank_of(from) } else { 7 - rank_of(from) };
            if self.flags & CHECKS_EXACT != 0 {
                // Three ranks below the king only a double push checks.
                let up = if us == Color::White { rank_of(king) } else { 7 - rank_of(king) }.wrapping_sub(rank);
                checks &= up != 3 || rank == 1;
            } else {
                checks |= rank >= 5;
            }
        } else {
            self.flags |= DIRECT_CHECKS;
        }
        // A pawn on the king's file uncovers nothing by a push (a
        // capture or a promotion, from its 6th rank on, finds `checks`
        // set under `restrict_to_checks`, and the checks stage takes none).
        if on_line(king, from) && (kind != PAWN || (king ^ from) & 7 != 0) {
            return self.uncovered_filter(pos, king, from, checks);
        }
        checks
    }

    /// [`MoveGen::choose_checks_filter`] for a man on a line with the
    /// enemy king: all its moves if it uncovers one of our sliders.
    #[cfg(not(target_arch = "avr"))]
    #[inline(never)]
    fn uncovered_filter(&mut self, pos: &Position, king: Square, from: Square, checks: bool) -> bool {
        if pos.uncovers(king, from, NO_SQUARE, pos.side) {
            self.flags &= !DIRECT_CHECKS;
            return true;
        }
        checks
    }

    #[cfg(not(target_arch = "avr"))]
    fn next_piece(&mut self) {
        self.step = 0;
        self.ray = NO_SQUARE;
        self.slot = if self.flags & SINGLE_PIECE == 0 {
            self.slot + 1
        } else if self.slot == 0 {
            CASTLING
        } else {
            DONE
        };
    }

    /// Expands one pawn sub-step; `None` means "nothing here, call again".
    /// (The host's; the AVR's `MoveGen::next_avr` runs all of a pawn's
    /// sub-steps in one loop.)
    #[cfg(not(target_arch = "avr"))]
    #[inline(never)]
    fn next_pawn(&mut self, pos: &Position, from: Square) -> Option<Move> {
        let us = pos.side;
        let captures_only = self.flags & CAPTURES_ONLY != 0;
        let (forward, start_rank, last_rank): (u8, u8, u8) = match us {
            Color::White => (16, 1, 7),
            Color::Black => (0u8.wrapping_sub(16), 6, 0),
        };
        let s = self.step;
        if s >= PAWN_END {
            self.next_piece();
            return None;
        }
        self.step += 1;
        let ahead = from.wrapping_add(forward);
        match s {
            PAWN_PUSH => {
                if !on_board(ahead) || pos.board[ahead as usize] != EMPTY {
                    // Blocked: no double push either.
                    self.step = PAWN_TAKE_WEST;
                    return None;
                }
                if rank_of(ahead) == last_rank {
                    self.ray = ahead;
                    self.promos = 4;
                    return None;
                }
                if captures_only {
                    return None;
                }
                Some(Move::new(from, ahead, MoveKind::Normal, false))
            }
            PAWN_DOUBLE => {
                let two = ahead.wrapping_add(forward);
                if captures_only || rank_of(from) != start_rank || pos.board[two as usize] != EMPTY
                {
                    return None;
                }
                Some(Move::new(from, two, MoveKind::DoublePush, false))
            }
            _ => {
                let to = if s == PAWN_TAKE_EAST {
                    ahead.wrapping_add(1)
                } else {
                    ahead.wrapping_sub(1)
                };
                if !on_board(to) {
                    return None;
                }
                let target = pos.board[to as usize];
                if target == EMPTY {
                    if to == pos.ep && self.flags & NO_CAPTURES == 0 {
                        return Some(Move::new(from, to, MoveKind::EnPassant, true));
                    }
                    return None;
                }
                if is_color(target, us) {
                    return None;
                }
                if rank_of(to) == last_rank {
                    self.ray = to;
                    self.promos = 4;
                    return None;
                }
                if self.flags & NO_CAPTURES != 0 {
                    return None;
                }
                Some(Move::new(from, to, MoveKind::Normal, true))
            }
        }
    }

    /// Castling moves: king and rook unmoved, squares between empty, king not
    /// in check and not passing an attacked square. The destination square is
    /// left to the ordinary legality test. (The host's: the AVR's
    /// assembly `next_avr` castles itself.)
    #[cfg(not(target_arch = "avr"))]
    fn next_castle(&mut self, pos: &Position) -> Option<Move> {
        let us = pos.side;
        let home = match us {
            Color::White => E1,
            Color::Black => E8,
        };
        if pos.board[home as usize] != make_piece(us, KING) {
            return None;
        }
        // In check, as `in_check_after` noted: none. (The AVR's
        // assembly `next` tests it before calling.)
        #[cfg(not(target_arch = "avr"))]
        if pos.checked != 0 {
            return None;
        }
        let rook = make_piece(us, ROOK);
        let them = us.other();
        while self.step < 2 {
            // Kingside: two squares between king and rook; queenside three.
            let dir = if self.step == 0 { 1u8 } else { 0xFF };
            self.step += 1;
            let rook_sq = if dir == 1 { home + 3 } else { home - 4 };
            if pos.board[(rook_sq & 0x7F) as usize] != rook {
                continue;
            }
            let mut sq = home.wrapping_add(dir);
            while sq != rook_sq && pos.board[(sq & 0x7F) as usize] == EMPTY {
                sq = sq.wrapping_add(dir);
            }
            if sq != rook_sq || pos.is_square_attacked(home, them) {
                continue;
            }
            let pass = home.wrapping_add(dir);
            if pos.is_square_attacked(pass, them) {
                continue;
            }
            return Some(Move::new(home, pass.wrapping_add(dir), MoveKind::Castle, false));
        }
        None
    }
}

impl Default for MoveGen {
    fn default() -> Self {
        MoveGen::new()
    }
}

impl Position {
    /// Is `m` exactly one of the pseudo-legal moves here (flags included)?
    /// For killer and PV moves carried over from other positions. A move
    /// of a knight, bishop, rook, queen or king is decided from the board:
    /// a man of the side to move on `from`, the target empty or an enemy
    /// man as the capture flag says, and a step, jump or free line of its
    /// kind. (Running the man's generator until the move came up cost 1.8
    /// [`MoveGen::next`] calls a test: `bench engine` 0.30% more cycles,
    /// 276 B less flash.) Pawn moves and castling, with their special
    /// kinds, still ask the generator.
    pub fn is_pseudo_legal(&self, m: Move) -> bool {
        let from = m.from();
        let to = m.to();
        if from == to {
            // Move::NONE among them.
            return false;
        }
        let us = self.side;
        let byte = self.board[from as usize];
        if !is_color(byte, us) {
            return false;
        }
        let code = byte & CODE_MASK;
        let slot = self.board[from as usize + 8];
        if kind_of(code) != PAWN && !m.is(MoveKind::Castle) {
            let target = self.board[to as usize];
            if !m.is(MoveKind::Normal) || (target != EMPTY) != m.is_capture() || is_color(target, us) {
                return false;
            }
            if slot == 0 {
                return is_adjacent(from, to);
            }
            let dir = reach(code, from, to);
            if dir == JUMPS_THERE {
                return true;
            }
            if dir == 0 {
                return false;
            }
            let mut s = from.wrapping_add(dir);
            while s != to {
                if self.board[(s & 0x7F) as usize] != EMPTY {
                    return false;
                }
                s = s.wrapping_add(dir);
            }
            return true;
        }
        self.generates(m, slot)
    }

    /// The generator's own answer: is `m` among the moves of the man in
    /// piece-list `slot` (castling: of the castling generator, for the king)?
    /// (Out of line: its loop's registers, saved, weigh on no officer's
    /// test: `bench engine` 0.063% fewer cycles, 8 B less.)
    #[inline(never)]
    fn generates(&self, m: Move, slot: u8) -> bool {
        let mut gen = if m.is(MoveKind::Castle) {
            if slot != 0 {
                return false;
            }
            MoveGen::single(CASTLING)
        } else {
            MoveGen::single(slot)
        };
        while let Some(x) = gen.next(self) {
            if x == m {
                return true;
            }
        }
        false
    }

    /// Does pseudo-legal `m` leave the mover's king safe?
    pub fn is_legal(&self, m: Move) -> bool {
        self.is_legal_given_check(m, self.in_check())
    }

    /// [`Position::is_legal`] when the caller already knows whether the side
    /// to move is in check. Out of check, only a man on a line with its king
    /// (or the king itself, or an en-passant capture) can expose the king,
    /// which spares most attack scans.
    ///
    /// On the AVR in assembly, calling [`Position::uncovers_along`] and
    /// the exact test (C ABI): 51 cycles a call in `bench engine`, the
    /// Rust 59; 56 with the tests in check below (a jump, a capture, a
    /// block), which leave 17,900 of its 41,700 exact tests.
    #[cfg(target_arch = "avr")]
    #[inline(always)]
    pub fn is_legal_given_check(&self, m: Move, in_check: bool) -> bool {
        let r = self.is_legal_avr(m, in_check);
        // SAFETY: the answer byte is 0 or 1.
        unsafe { core::hint::assert_unchecked(r <= 1) };
        r != 0
    }

    /// [`Position::is_legal_given_check`] on the AVR, the answer a byte
    /// (C ABI: a `bool` returned cost two `andi` a call, r24 and r25
    /// extended; `bench engine` 0.12% fewer cycles, 8 B less).
    #[cfg(target_arch = "avr")]
    #[inline(never)]
    extern "C" fn is_legal_avr(&self, m: Move, in_check: bool) -> u8 {
        use core::mem::offset_of;
        const SIDE: usize = offset_of!(Position, side);
        const _: () = assert!(offset_of!(Position, lists) == 128 && SIDE - 128 < 64);
        let r: u16;
        // Registers: r25:r24 the position (r24 at the end the answer),
        // r23:r22 the move (kept for king_safe_after), r20 `in_check`; r21
        // the side to move, r26 its king's square, r19 `from`.
        // SAFETY: reads the side, the king's list entry and the flash
        // table GEOMETRY; calls uncovers_along (its own registers) and
        // king_safe_after (C ABI) with their arguments.
        unsafe {
            core::arch::asm!(
                // En passant (kind 3): the exact test. (Bit by bit: most
                // moves leave at the first. Masked and compared, `bench
                // engine` 0.07% more cycles.)
                // (The rest of the test at 2 below, off the way: one
                // cycle less for the others.)
                "    sbrc r22, 7",
                "    rjmp 2f",
                "1:  movw r30, r24",
                "    subi r30, 0x80",
                "    sbci r31, 0xFF",
                "    ldd r21, Z+{side_l}",
                "    ld r26, Z",
                "    sbrc r21, 0",
                "    ldd r26, Z+16",
                // The king moves: the exact test.
                "    mov r19, r22",
                "    andi r19, 0x77",
                "    cp r19, r26",
                "    breq 80f",
                "    tst r20",
                "    brne 40f",
                // Out of check: only a pin along the line king-`from`.
                "    ldi r30, lo8({geometry}+0x77)",
                "    ldi r31, hi8({geometry})",
                "    add r30, r19",
                "    sub r30, r26",
                "    lpm r27, Z",
                "    mov r18, r27",
                "    andi r18, {line}",
                "    breq 90f",
                "    clt",
                "    sbrs r21, 0",
                "    set",
                "    mov r18, r23",
                "    andi r18, 0x77",
                "    mov r20, r19",
                "    mov r22, r26",
                "    mov r19, r27",
                "    call {uncovers_along}",
                "    ldi r24, 1",
                "    eor r24, r19",
                "    ret",
                "2:  sbrs r22, 3",
                "    rjmp 1b",
                "    sbrc r23, 3",
                "    rjmp 1b",
                // (Its answer ours: a tail jump. With the returns here,
                // not jumps to the compiler's `ret`, and the same in
                // in_check_after, gives_check and attacked_after:
                // `bench engine` 0.11% fewer cycles, 0 B.)
                "80: jmp {king_safe_after}",
                "90: ldi r24, 1",
                "    ret",
                // In check, a man other than the king must land on a line
                // or a jump from the king. (r18 `to`, r20 the GEOMETRY
                // entry of the king less `to`, r27 its bits, r0 the man
                // on `to`.)
                "40: mov r18, r23",
                "    andi r18, 0x77",
                "    ldi r30, lo8({geometry}+0x77)",
                "    ldi r31, hi8({geometry})",
                "    add r30, r26",
                "    sub r30, r18",
                "    lpm r20, Z",
                "    mov r27, r20",
                "    andi r27, 0x0F",
                "    breq 41f",
                "    movw r30, r24",
                "    add r30, r18",
                "    adc r31, r1",
                "    ld r0, Z",
                // A knight's jump blocks no line, and taking a man on a
                // line blocks nothing new: the man taken must be able to
                // check from there (below, for an empty `to` no enemy).
                "    cpi r27, {jump}",
                "    breq 47f",
                "    tst r0",
                "    brne 47f",
                // (`bench engine`: the jump alone 0.21% fewer cycles for
                // 24 B; with the captures and the blocks 0.80% for 104 B.
                // The host's tests only the jump: the same answers.)
                // A quiet move onto a line from the king can only block:
                // the squares from the king to `to` empty (`from`
                // counting as empty), the first man beyond (T) an enemy
                // slider along that line.
                "    mov r30, r20",
                "    swap r30",
                "    ori r30, 0xF0",
                "    ldi r31, hi8({geometry})",
                "    lpm r20, Z",
                "    neg r20",
                "    andi r27, {line}",
                "    clt",
                "44: add r26, r20",
                "    cp r26, r18",
                "    brne 45f",
                "    set",
                "    rjmp 44b",
                "45: cp r26, r19",
                "    breq 44b",
                "    mov r30, r26",
                "    andi r30, 0x88",
                "    brne 41f",
                "    movw r30, r24",
                "    add r30, r26",
                "    adc r31, r1",
                "    ld r0, Z",
                "    tst r0",
                "    breq 44b",
                "    brtc 41f",
                // An enemy (White's codes 1..=6, Black's 7..=12: r18 its
                // kind less one) whose reach has the line's bits: the
                // exact test.
                "47: mov r18, r0",
                "    andi r18, 0x0F",
                "    subi r18, 7",
                "    sbrc r21, 0",
                "    subi r18, 0xFA",
                "    cpi r18, 6",
                "    brsh 41f",
                "    ldi r30, lo8({pages}+{reach_at}+1)",
                "    add r30, r18",
                "    ldi r31, hi8({pages}+{reach_at})",
                "    lpm r18, Z",
                "    and r18, r27",
                "    breq 41f",
                "    rjmp 80b",
                "41: clr r24",
                "99:",
                side_l = const SIDE - 128,
                line = const super::attacks::LINE,
                jump = const super::attacks::JUMP,
                pages = sym super::attacks::FLASH_PAGES,
                reach_at = const super::attacks::REACH_AT,
                geometry = sym super::attacks::GEOMETRY,
                uncovers_along = sym Position::uncovers_along,
                king_safe_after = sym Position::king_safe_after,
                inout("r25r24") self as *const Position => r,
                inout("r23r22") m.0 => _,
                inout("r20") in_check as u8 => _,
                out("r18") _, out("r19") _, out("r21") _,
                out("X") _, out("Z") _,
            );
        }
        r as u8
    }

    /// [`Position::is_legal_given_check`] for the host (the AVR's reference).
    #[cfg(not(target_arch = "avr"))]
    pub fn is_legal_given_check(&self, m: Move, in_check: bool) -> bool {
        let king = self.list_at(self.side, 0);
        let from = m.from();
        if from != king && !m.is(MoveKind::EnPassant) {
            if !in_check {
                // Only a pin along the line from the king through `from`.
                return !self.uncovers(king, from, m.to(), self.side.other());
            }
            let g = geometry(m.to(), king);
            if g == 0 {
                // In check, a man other than the king can only capture the
                // checker (on a line or a knight's jump from the king) or
                // block a line: a move to any other square leaves the check.
                return false;
            }
            let knight = make_piece(self.side.other(), KNIGHT);
            if g == JUMP && self.board[m.to() as usize] & CODE_MASK != knight {
                // A knight's jump blocks no line: only the capture of a
                // checking knight there. (`bench engine` 0.21% fewer
                // cycles, 24 B.)
                return false;
            }
        }
        self.king_safe_after(m)
    }

    /// The exact test: is the king attacked once `m` is on the board?
    /// Not inlined: its call of `attacked_after` made the pin test above,
    /// the common case, save and restore three registers.
    #[cfg(not(target_arch = "avr"))]
    #[inline(never)]
    extern "C" fn king_safe_after(&self, m: Move) -> bool {
        let us = self.side;
        let from = m.from();
        let to = m.to();
        let king = self.list_at(us, 0);
        let target = if from == king { to } else { king };
        let captured_ep = if m.is(MoveKind::EnPassant) {
            (from & 0xF0) | (to & 0x0F)
        } else {
            NO_SQUARE
        };
        !self.attacked_after(target, us.other(), from, captured_ep, to)
    }

    /// [`Position::king_safe_after`] for the AVR (C ABI: the position
    /// in r25:r24, the move in r23:r22, the answer in r24): the
    /// arguments of [`Position::attacked_after`] (C ABI too) put where
    /// it takes them, r14 and r16 saved around the call.
    #[cfg(target_arch = "avr")]
    #[inline(never)]
    extern "C" fn king_safe_after(&self, m: Move) -> u8 {
        use core::mem::offset_of;
        const SIDE: usize = offset_of!(Position, side);
        const _: () = assert!(offset_of!(Position, lists) == 128 && SIDE - 128 < 64);
        let r: u16;
        // Registers: r25:r24 the position; r22 `from` (then the square
        // to test), r23 `to`; r20 the side to move (then `by`), r21 its
        // king; r18 `vacated1`, r16 `vacated2`, r14 `filled`.
        // SAFETY: reads the side and the king's list entry; calls
        // attacked_after (C ABI) with its arguments; saves r14 and r16.
        unsafe {
            core::arch::asm!(
                "    push r14",
                "    push r16",
                // En passant (kind 3): the victim beside `from`, on `to`'s file.
                "    ldi r16, 0xFF",
                "    mov r18, r22",
                "    andi r18, 0x88",
                "    cpi r18, 0x88",
                "    brne 1f",
                "    sbrc r23, 3",
                "    rjmp 1f",
                "    mov r16, r22",
                "    andi r16, 0x70",
                "    mov r18, r23",
                "    andi r18, 0x07",
                "    or r16, r18",
                "1:  andi r22, 0x77",
                "    andi r23, 0x77",
                "    movw r30, r24",
                "    subi r30, 0x80",
                "    sbci r31, 0xFF",
                "    ldd r20, Z+{side_l}",
                "    ld r21, Z",
                "    sbrc r20, 0",
                "    ldd r21, Z+16",
                "    mov r14, r23",
                "    mov r18, r22",
                "    mov r22, r21",
                "    cp r18, r21",
                "    brne 2f",
                "    mov r22, r23",
                "2:  ldi r19, 1",
                "    eor r20, r19",
                "    call {attacked_after}",
                "    ldi r18, 1",
                "    eor r24, r18",
                "    pop r16",
                "    pop r14",
                side_l = const SIDE - 128,
                attacked_after = sym Position::attacked_after,
                inout("r25r24") self as *const Position => r,
                inout("r23r22") m.0 => _,
                out("r18") _, out("r19") _, out("r20") _, out("r21") _,
                out("X") _, out("Z") _,
            );
        }
        // attacked_after's answer, flipped: 0 or 1.
        r as u8
    }

    /// Is `m` legal here? Safe for any move value (killers, user input).
    pub fn is_legal_move(&self, m: Move) -> bool {
        self.is_pseudo_legal(m) && self.is_legal(m)
    }

    /// True if the side to move has at least one legal move.
    pub fn has_legal_move(&self) -> bool {
        MoveGen::new().next_legal(self).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generator's own answer for any man: is `m` among the moves of
    /// the man on its from square?
    fn generated(pos: &Position, m: Move) -> bool {
        let from = m.from();
        if m.is_none() || !is_color(pos.board[from as usize], pos.side) {
            return false;
        }
        pos.generates(m, pos.board[from as usize + 8])
    }

    /// `checked` (which the AVR's generator trusts) is cleared by every
    /// make and set by `in_check_after` to the checker's GEOMETRY entry
    /// towards the king, if in check; the host's unmake leaves it 0 (its
    /// make keeps the en-passant square, EP_KEPT). A make, unhashed or
    /// not, and its take-back leave the hash, clocks and history as they
    /// were.
    #[test]
    fn checked_follows_make_in_check_after_and_unmake() {
        let fens = [
            crate::chess::START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        ];
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut checks = 0;
        for fen in fens {
            crate::chess::random_game(fen, 60, &mut seed, |pos| {
                let mut p = pos.clone();
                let before = (p.hash(), p.halfmove_clock(), p.fullmove_number(), p.history().len());
                let mut gen = MoveGen::new();
                let mut i = 0;
                while let Some(m) = gen.next_legal(pos) {
                    let mut undo = super::super::Undo::EMPTY;
                    p.make_move_into(m, &mut undo, i % 2 == 0);
                    assert_eq!(p.checked, 0);
                    let c = p.in_check_after(m);
                    assert_eq!(c, p.in_check(), "{m:?}");
                    if p.checked != 0 {
                        // A checker: a man of the side that moved whose
                        // entry towards the king is the note.
                        assert!(c);
                        let king = p.king_square(p.side);
                        let found = (0..64).map(from_index64).any(|sq| {
                            sq != king
                                && is_color(p.board[sq as usize], p.side.other())
                                && super::super::attacks::GEOMETRY.get((king.wrapping_sub(sq).wrapping_add(0x77)) as usize) & 0xF7
                                    == p.checked & 0xF7
                        });
                        assert!(found, "{m:?} {:#04x}", p.checked);
                    } else {
                        assert!(!c || m.is(MoveKind::Castle) || m.is(MoveKind::EnPassant), "{m:?}");
                    }
                    checks += c as u32;
                    p.unmake_move(m, &undo);
                    assert_eq!(p.checked, 0);
                    let after = (p.hash(), p.halfmove_clock(), p.fullmove_number(), p.history().len());
                    assert_eq!(after, before, "{m:?}");
                    assert!(p.is_consistent());
                    i += 1;
                }
            });
        }
        assert!(checks > 20, "{checks}");
    }

    /// The AVR walk's reach of a knight, bishop, rook or queen: JUMP,
    /// else the kind less 2, as REACH has it.
    #[test]
    fn walk_reach_is_reach() {
        for kind in KNIGHT..=QUEEN {
            let want = if kind == KNIGHT { super::super::attacks::JUMP } else { kind - 2 };
            assert_eq!(super::super::attacks::REACH.get(kind as usize), want, "{kind}");
        }
    }

    /// The AVR walk's direction lists are the host's.
    #[test]
    fn rays_match_the_piece_steps() {
        for kind in KNIGHT..=KING {
            let info = PIECE_STEPS.get(kind as usize);
            let start = RAY_START.get(kind as usize);
            assert_eq!(start & 0x80, info & 0x80, "{kind}");
            let count = ((info >> 4) & 3) * 4;
            for k in 0..count {
                let dir = super::super::attacks::DIRECTIONS.get(((info & 15) + k) as usize);
                let entry = (start & 0x7F) - 1 + k;
                assert_eq!(RAYS.get(entry as usize), dir, "{kind} {k}");
            }
            assert_eq!(RAYS.get(((start & 0x7F) - 1 + count) as usize), 0, "{kind}");
        }
    }

    /// Every move value between two squares (all kinds, with and without
    /// the capture flag) along random games: the board test agrees with
    /// the generator.
    #[test]
    fn pseudo_legality_matches_the_generator() {
        let fens = [
            crate::chess::START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/pPpp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        ];
        let kinds = [
            MoveKind::Normal,
            MoveKind::DoublePush,
            MoveKind::Castle,
            MoveKind::EnPassant,
            MoveKind::PromoteKnight,
            MoveKind::PromoteBishop,
            MoveKind::PromoteRook,
            MoveKind::PromoteQueen,
        ];
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut yes = 0u32;
        for fen in fens {
            for _ in 0..3 {
                crate::chess::random_game(fen, 40, &mut seed, |pos| {
                    for a in 0..64u8 {
                        for b in 0..64u8 {
                            for kind in kinds {
                                for capture in [false, true] {
                                    let m = Move::new(from_index64(a), from_index64(b), kind, capture);
                                    let want = generated(pos, m);
                                    assert_eq!(pos.is_pseudo_legal(m), want, "{m:?}");
                                    yes += want as u32;
                                }
                            }
                        }
                    }
                });
            }
        }
        assert!(yes > 10_000, "{yes}");
    }
}

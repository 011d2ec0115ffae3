//! The position: 0x88 board, piece lists, side to move and counters.
//!
//! Board bytes hold a piece code plus the [`MOVED`] flag. The right half of
//! each 0x88 rank (files 8..=15, never on the board) is reused as a map from
//! square to piece-list index: `board[sq + 8]` is the list slot of the man on
//! `sq`. That makes captures and moves O(1) without another 64-byte table.
//!
//! Piece lists: 16 squares per side, slot 0 is always the king, captured men
//! hold [`NO_SQUARE`]. FEN setup fills them king, queens, rooks, bishops,
//! knights, pawns, so generation tries the heavy pieces first; a promoted
//! pawn keeps its slot.
//!
//! RAM on the AVR (alignment 1): 186 bytes of position (16 of them the pawn
//! files the evaluation reads) plus the 402-byte hash history = 588 bytes.
//! Castling rights are not stored: a right exists while the king and that
//! rook stand unmoved on their home squares.

use super::history::HashHistory;
use super::piece::*;
use super::square::*;
use super::zobrist;

/// Castling-right bits of [`Position::castle_rights`].
pub const WHITE_KINGSIDE: u8 = 1;
pub const WHITE_QUEENSIDE: u8 = 2;
pub const BLACK_KINGSIDE: u8 = 4;
pub const BLACK_QUEENSIDE: u8 = 8;

/// A chess position plus the hash history of the game leading to it.
///
/// `repr(C)` keeps the 0x88 board at offset 0, so tools (the debugger's
/// chessboard panel) can decode it from SRAM through the firmware's
/// `CHESS_POSITION` symbol, and the piece lists right after it, where the
/// AVR build's assembly scans read them (asserted below).
#[derive(Clone)]
#[repr(C)]
pub struct Position {
    pub(super) board: [u8; 128],
    pub(super) lists: [[Square; 16]; 2],
    pub(super) side: Color,
    pub(super) ep: Square,
    /// The side to move is in check: the GEOMETRY entry of the checker
    /// towards the king (never 0); or 0, not in check or not known. Set
    /// by [`Position::in_check_after`] right after the move that led
    /// here, cleared by every make, restored by unmake (or left 0). The
    /// AVR's generator then leaves out quiet moves that cannot be legal
    /// (see `MoveGen::next_avr`) and castling, and `MoveGen::next_legal`
    /// takes the check from it.
    pub(super) checked: u8,
    pub(super) halfmove: u8,
    pub(super) fullmove: u16,
    pub(super) hash: u32,
    /// Pawn files: bit `r` of `pawn_files[c][f]` = a pawn of colour `c` on
    /// file `f`, rank `r`. Kept up to date by make/unmake, so the
    /// evaluation reads the pawn structure instead of rebuilding it.
    pub(super) pawn_files: [[u8; 8]; 2],
    /// Key of the pawn files, kept with them: see [`Position::pawn_key`].
    pub(super) pawn_key: u16,
    /// By colour: every man but the king and the pawns stands in a slot
    /// below this one. FEN set-up lists officers before pawns, so this is
    /// where the pawns begin; a promotion raises it to cover its slot and
    /// its take-back lowers it again; a capture leaves it. A bound, never
    /// too low, and only as loose as the highest promoting pawn's slot.
    /// Attack scans over the officers stop here instead of stepping over
    /// the pawn slots.
    pub(super) officer_end: [u8; 2],
    pub(super) history: HashHistory,
}

// The AVR build's assembly scans (picker, see, eval, movegen) address the
// board and the piece lists from the position's address: keep them there.
const _: () = assert!(core::mem::offset_of!(Position, board) == 0);
const _: () = assert!(core::mem::offset_of!(Position, lists) == 128);

// The evaluation's assembly reads these fields from the position's
// address (its fields are private to this module).
#[allow(dead_code)]
impl Position {
    pub(crate) const SIDE_OFFSET: usize = core::mem::offset_of!(Position, side);
    pub(crate) const PAWN_FILES_OFFSET: usize = core::mem::offset_of!(Position, pawn_files);
    pub(crate) const PAWN_KEY_OFFSET: usize = core::mem::offset_of!(Position, pawn_key);
    pub(crate) const OFFICER_END_OFFSET: usize = core::mem::offset_of!(Position, officer_end);
}
const _: () = assert!(core::mem::size_of::<Color>() == 1 && core::mem::size_of::<[[u8; 8]; 2]>() == 16);

/// FEN of the initial position.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

impl Position {
    /// An empty board (no kings: not a legal position until set up).
    pub const fn empty() -> Position {
        Position {
            board: [0; 128],
            lists: [[NO_SQUARE; 16]; 2],
            side: Color::White,
            ep: NO_SQUARE,
            checked: 0,
            halfmove: 0,
            fullmove: 1,
            hash: 0,
            pawn_files: [[0; 8]; 2],
            pawn_key: 0,
            officer_end: [1; 2],
            history: HashHistory::new(),
        }
    }

    /// The initial position.
    pub fn start() -> Position {
        let mut p = Position::empty();
        // The start FEN is valid, so this cannot fail; fall back to empty anyway.
        if p.set_fen(START_FEN.as_bytes()).is_err() {
            return Position::empty();
        }
        p
    }

    /// Empties the board in place (no king: not playable until set up).
    pub fn clear(&mut self) {
        self.board = [0; 128];
        // One fill: the nested arrays took a memset call each.
        self.lists.as_flattened_mut().fill(NO_SQUARE);
        self.side = Color::White;
        self.ep = NO_SQUARE;
        self.checked = 0;
        self.halfmove = 0;
        self.fullmove = 1;
        self.hash = 0;
        self.pawn_files = [[0; 8]; 2];
        self.pawn_key = 0;
        self.officer_end = [1; 2];
        self.history.clear();
    }

    /// Board byte (piece code plus [`MOVED`] flag) on `sq`; 0 if empty or off-board.
    #[inline(always)]
    pub fn byte_at(&self, sq: Square) -> u8 {
        if on_board(sq) {
            self.board[sq as usize]
        } else {
            0
        }
    }

    /// Piece code on `sq`, which must be on the board (e.g. from a piece
    /// list): no off-board test, no bounds check.
    #[inline(always)]
    pub fn code_on(&self, sq: Square) -> u8 {
        self.board[(sq & 0x7F) as usize] & CODE_MASK
    }

    /// Is `sq`, which must be on the board, empty? The whole byte: an
    /// empty square holds 0, the moved flag too.
    #[inline(always)]
    pub fn is_empty(&self, sq: Square) -> bool {
        self.board[(sq & 0x7F) as usize] == EMPTY
    }

    /// Piece code (0 = empty, 1..=12) on `sq`.
    #[inline(always)]
    pub fn piece_at(&self, sq: Square) -> u8 {
        self.byte_at(sq) & CODE_MASK
    }

    /// Piece-list squares of `color`; slot 0 is the king, [`NO_SQUARE`] = captured.
    #[inline(always)]
    pub fn piece_list(&self, color: Color) -> &[Square; 16] {
        &self.lists[color.index()]
    }

    /// Slots `1..officer_end(color)` of [`Position::piece_list`] hold all
    /// of `color`'s men other than its king and pawns (and maybe pawns or
    /// holes too); the slots from there on hold only pawns and holes.
    #[inline(always)]
    pub fn officer_end(&self, color: Color) -> u8 {
        self.officer_end[color.index()]
    }

    /// Taking back a promotion from `slot`: if the bound of `color` ends
    /// just past `slot`, it ends at `slot` again. (That stays a valid
    /// bound: the pawn is back in `slot`, and no other man can be.)
    #[cfg(not(target_arch = "avr"))]
    #[inline(always)]
    pub(super) fn lower_officer_end(&mut self, color: Color, slot: u8) {
        let end = &mut self.officer_end[color.index()];
        if *end == slot + 1 {
            *end = slot;
        }
    }

    /// Piece-list slot of the man on `sq` (meaningless for an empty square).
    #[inline(always)]
    pub fn slot_at(&self, sq: Square) -> u8 {
        self.board[(sq & 0x77) as usize + 8] & 15
    }

    /// Square of `color`'s king.
    #[inline(always)]
    pub fn king_square(&self, color: Color) -> Square {
        self.list_at(color, 0)
    }

    /// Entry `slot` (below 16) of `color`'s piece list, the offset worked
    /// out in a byte: `lists[color.index()]` scales a 16-bit index.
    #[inline(always)]
    pub(super) fn list_at(&self, color: Color, slot: u8) -> Square {
        self.lists.as_flattened()[((color as u8) << 4 | (slot & 15)) as usize]
    }

    /// [`Position::list_at`] to write.
    #[inline(always)]
    pub(super) fn list_at_mut(&mut self, color: Color, slot: u8) -> &mut Square {
        &mut self.lists.as_flattened_mut()[((color as u8) << 4 | (slot & 15)) as usize]
    }

    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// En-passant target square (behind a pawn that just moved two), or [`NO_SQUARE`].
    #[inline(always)]
    pub fn ep_square(&self) -> Square {
        self.ep
    }

    /// Plies since the last capture or pawn move.
    #[inline(always)]
    pub fn halfmove_clock(&self) -> u8 {
        self.halfmove
    }

    #[inline(always)]
    pub fn fullmove_number(&self) -> u16 {
        self.fullmove
    }

    /// Pawn files of `color`: bit `r` of entry `f` = a pawn on file `f`, rank `r`.
    #[inline(always)]
    pub fn pawn_files(&self, color: Color) -> &[u8; 8] {
        &self.pawn_files[color.index()]
    }

    /// A 16-bit Zobrist key of the pawns alone (for the evaluation's pawn
    /// cache): two different pawn structures share it about once in 65,536.
    #[inline(always)]
    pub fn pawn_key(&self) -> u16 {
        self.pawn_key
    }


    /// Puts a pawn of `color` on `sq` or takes it away (pawn files and key
    /// alike: both are XOR-maintained). One out-of-line copy for the eight
    /// call sites in make/unmake: flash is the scarcer resource.
    #[cfg(not(target_arch = "avr"))]
    #[inline(never)]
    pub(super) fn toggle_pawn(&mut self, color: Color, sq: Square) {
        self.pawn_files.as_flattened_mut()[((color as u8) << 3 | file_of(sq)) as usize] ^= rank_bit(sq);
        self.pawn_key ^= zobrist::pawn_key(color, sq);
    }

    /// [`Position::toggle_pawn`] in assembly: [`toggle_pawn_avr`], which
    /// the assembly make ([`Position::make_move_into`]) calls too.
    #[cfg(target_arch = "avr")]
    #[inline(always)]
    pub(super) fn toggle_pawn(&mut self, color: Color, sq: Square) {
        // SAFETY: `self` is a valid position and `sq` on the board.
        unsafe { toggle_pawn_avr(self, sq, color as u8) }
    }

    /// The pawn files and their key from scratch (the incremental ones
    /// must equal them).
    pub(super) fn compute_pawn_files(&self) -> ([[u8; 8]; 2], u16) {
        let mut files = [[0u8; 8]; 2];
        let mut key = 0u16;
        for i in 0..64 {
            let sq = from_index64(i);
            let b = self.board[sq as usize];
            if b & CODE_MASK != 0 && kind_of(b) == PAWN {
                let c = color_of(b);
                files[c.index()][file_of(sq) as usize] |= rank_bit(sq);
                key ^= zobrist::pawn_key(c, sq);
            }
        }
        (files, key)
    }

    /// The incrementally maintained Zobrist hash.
    #[inline(always)]
    pub fn hash(&self) -> u32 {
        self.hash
    }

    /// Hashes of the earlier positions of the game.
    pub fn history(&self) -> &HashHistory {
        &self.history
    }

    /// Forgets earlier positions (e.g. after the user edited the board).
    pub fn clear_history(&mut self) {
        self.history.clear();
    }

    /// Castling rights derived from the has-moved flags: a right exists while
    /// king and rook are on their home squares and have never moved.
    pub fn castle_rights(&self) -> u8 {
        let mut r = 0;
        if self.board[E1 as usize] == KING {
            if self.board[H1 as usize] == ROOK {
                r |= WHITE_KINGSIDE;
            }
            if self.board[A1 as usize] == ROOK {
                r |= WHITE_QUEENSIDE;
            }
        }
        if self.board[E8 as usize] == KING + BLACK_OFFSET {
            if self.board[H8 as usize] == ROOK + BLACK_OFFSET {
                r |= BLACK_KINGSIDE;
            }
            if self.board[A8 as usize] == ROOK + BLACK_OFFSET {
                r |= BLACK_QUEENSIDE;
            }
        }
        r
    }

    /// True if the side to move has a pawn that could capture en passant
    /// (pseudo-legally). Only then does the target enter the hash, so that a
    /// double push nobody can take does not spoil repetition detection.
    pub(super) fn ep_capturable(&self) -> bool {
        if self.ep == NO_SQUARE {
            return false;
        }
        let pawn = make_piece(self.side, PAWN);
        // The capturing pawns stand beside the target, one rank nearer their own side.
        let base = match self.side {
            Color::White => self.ep.wrapping_sub(16),
            Color::Black => self.ep.wrapping_add(16),
        };
        let left = base.wrapping_sub(1);
        let right = base.wrapping_add(1);
        (on_board(left) && self.board[left as usize] & CODE_MASK == pawn)
            || (on_board(right) && self.board[right as usize] & CODE_MASK == pawn)
    }

    /// The hash computed from scratch (the incremental one must always equal it).
    pub fn compute_hash(&self) -> u32 {
        let mut h = 0;
        for i in 0..64 {
            let sq = from_index64(i);
            let b = self.board[sq as usize];
            if b & CODE_MASK != 0 {
                h ^= zobrist::piece_key(b, sq);
            }
        }
        h ^= zobrist::castle_key(self.castle_rights());
        if self.ep_capturable() {
            h ^= zobrist::ep_key(file_of(self.ep));
        }
        if self.side == Color::Black {
            h ^= zobrist::SIDE_KEY;
        }
        h
    }

    /// Checks the internal invariants (piece lists, index map, hash). For tests.
    pub fn is_consistent(&self) -> bool {
        for c in 0..2 {
            for (slot, &sq) in self.lists[c].iter().enumerate() {
                if sq == NO_SQUARE {
                    continue;
                }
                if !on_board(sq) {
                    return false;
                }
                let b = self.board[sq as usize];
                if b & CODE_MASK == 0 || color_of(b).index() != c {
                    return false;
                }
                if self.board[sq as usize + 8] as usize != slot {
                    return false;
                }
                if (slot == 0) != (kind_of(b) == KING) {
                    return false;
                }
                if slot != 0 && kind_of(b) != PAWN && slot >= self.officer_end[c] as usize {
                    return false;
                }
            }
        }
        let mut men = 0;
        for i in 0..64 {
            if self.board[from_index64(i) as usize] & CODE_MASK != 0 {
                men += 1;
            }
        }
        let listed = self
            .lists
            .iter()
            .flatten()
            .filter(|&&s| s != NO_SQUARE)
            .count();
        men == listed && self.hash == self.compute_hash() && (self.pawn_files, self.pawn_key) == self.compute_pawn_files()
    }
}

/// [`Position::toggle_pawn`] for the AVR (C ABI: the position in
/// r25:r24, the square in r22, the colour, 0 or 1, in r20; the assembly
/// make and unmake call its second instruction with the square in r23).
/// The file's
/// rank mask gets the rank's bit, the pawn key the 16-bit key at byte
/// 4 * index64 + 2 * colour of `SQUARE_KEYS`. Uses only r18, r19, X and Z,
/// and keeps T and r0: the assembly make calls it with its values in the
/// other registers. (A Rust body of its own, 92 B, cost 61 cycles a call.
/// Its square in r22 alone, where make keeps `from`, and the pair's
/// clobbered: a push and pop of it around make's calls, `bench engine`
/// 0.055% more cycles, 4 B more.)
///
/// Not a naked function (module assembly is assembled without the
/// ATmega's instructions): the body is this one `asm!` with its operands
/// where the ABI brings them, so the compiler adds nothing but the `ret`
/// (checked in the image).
#[cfg(target_arch = "avr")]
#[inline(never)]
pub(super) unsafe extern "C" fn toggle_pawn_avr(pos: *mut Position, sq: Square, color: u8) {
    // SAFETY: writes the pawn files and the pawn key of `pos`, reads the
    // flash table SQUARE_KEYS at an index below 256.
    unsafe { core::arch::asm!(
        // (The assembly make and unmake call past this first
        // instruction, the square in r23 already.)
        "    mov r23, r22",
        "    mov r19, r23",
        "    andi r19, 7",
        "    mov r18, r19",
        "    sbrc r20, 0",
        "    ori r18, 8",
        "    movw r26, r24",
        "    add r26, r18",
        "    adc r27, r1",
        "    subi r26, {pf_nlo}",
        "    sbci r27, {pf_nhi}",
        // Byte (rank << 5) | (file << 2) | (colour << 1) of the keys:
        // (sq + file + colour) << 1.
        "    add r19, r23",
        "    add r19, r20",
        "    lsl r19",
        // The rank's bit, 1 << (sq >> 4).
        "    ldi r18, 1",
        "    sbrc r23, 5",
        "    ldi r18, 4",
        "    sbrc r23, 4",
        "    lsl r18",
        "    sbrc r23, 6",
        "    swap r18",
        "    ld r30, X",
        "    eor r30, r18",
        "    st X, r30",
        "    mov r30, r19",
        "    ldi r31, hi8({sqkeys})",
        "    lpm r18, Z+",
        "    lpm r19, Z",
        "    movw r26, r24",
        "    subi r26, {pk_nlo}",
        "    sbci r27, {pk_nhi}",
        "    ld r30, X",
        "    eor r30, r18",
        "    st X+, r30",
        "    ld r30, X",
        "    eor r30, r19",
        "    st X, r30",
        pf_nlo = const (core::mem::offset_of!(Position, pawn_files) as u16).wrapping_neg() as u8,
        pf_nhi = const ((core::mem::offset_of!(Position, pawn_files) as u16).wrapping_neg() >> 8) as u8,
        pk_nlo = const (core::mem::offset_of!(Position, pawn_key) as u16).wrapping_neg() as u8,
        pk_nhi = const ((core::mem::offset_of!(Position, pawn_key) as u16).wrapping_neg() >> 8) as u8,
        sqkeys = sym super::attacks::FLASH_PAGES,
        in("r25r24") pos,
        in("r22") sq,
        in("r20") color,
        out("r18") _, out("r19") _, out("r23") _, out("X") _, out("Z") _,
    ) }
}

/// [`toggle_pawn_avr`] for a pawn's move: the squares `from` (r22) and
/// `to` (r23) of the colour in r20, the two keys folded into the pawn
/// key at once (one call, one read and write of the key, for the two
/// toggles of a pawn moving in make and unmake). Uses only r18, r19,
/// r21, X and Z, and keeps T, r0, r22 and r23 (make keeps `from` in r22
/// without a push and pop: `to`'s part takes r21, r30 and r31 as
/// scratch, one `ldi` more).
#[cfg(target_arch = "avr")]
#[inline(never)]
pub(super) unsafe extern "C" fn toggle_pawn_pair_avr(pos: *mut Position, squares: u16, color: u8) {
    // SAFETY: writes the pawn files and the pawn key of `pos`, reads the
    // flash table SQUARE_KEYS at indices below 256.
    unsafe { core::arch::asm!(
        // `from`: its file's rank bit, its key into r22:r21.
        "    mov r19, r22",
        "    andi r19, 7",
        "    mov r18, r19",
        "    sbrc r20, 0",
        "    ori r18, 8",
        "    movw r26, r24",
        "    add r26, r18",
        "    adc r27, r1",
        "    subi r26, {pf_nlo}",
        "    sbci r27, {pf_nhi}",
        "    add r19, r22",
        "    add r19, r20",
        "    lsl r19",
        "    ldi r18, 1",
        "    sbrc r22, 5",
        "    ldi r18, 4",
        "    sbrc r22, 4",
        "    lsl r18",
        "    sbrc r22, 6",
        "    swap r18",
        "    ld r30, X",
        "    eor r30, r18",
        "    st X, r30",
        "    mov r30, r19",
        "    ldi r31, hi8({sqkeys})",
        "    lpm r18, Z+",
        "    lpm r19, Z",
        // `to`: the same (r30, r31 and r21 the scratch), its key
        // folded in.
        "    mov r30, r23",
        "    andi r30, 7",
        "    mov r21, r30",
        "    sbrc r20, 0",
        "    ori r21, 8",
        "    movw r26, r24",
        "    add r26, r21",
        "    adc r27, r1",
        "    subi r26, {pf_nlo}",
        "    sbci r27, {pf_nhi}",
        "    add r30, r23",
        "    add r30, r20",
        "    lsl r30",
        "    ldi r21, 1",
        "    sbrc r23, 5",
        "    ldi r21, 4",
        "    sbrc r23, 4",
        "    lsl r21",
        "    sbrc r23, 6",
        "    swap r21",
        "    ld r31, X",
        "    eor r31, r21",
        "    st X, r31",
        "    ldi r31, hi8({sqkeys})",
        "    lpm r21, Z+",
        "    eor r18, r21",
        "    lpm r21, Z",
        "    eor r19, r21",
        "    movw r26, r24",
        "    subi r26, {pk_nlo}",
        "    sbci r27, {pk_nhi}",
        "    ld r30, X",
        "    eor r30, r18",
        "    st X+, r30",
        "    ld r30, X",
        "    eor r30, r19",
        "    st X, r30",
        pf_nlo = const (core::mem::offset_of!(Position, pawn_files) as u16).wrapping_neg() as u8,
        pf_nhi = const ((core::mem::offset_of!(Position, pawn_files) as u16).wrapping_neg() >> 8) as u8,
        pk_nlo = const (core::mem::offset_of!(Position, pawn_key) as u16).wrapping_neg() as u8,
        pk_nhi = const ((core::mem::offset_of!(Position, pawn_key) as u16).wrapping_neg() >> 8) as u8,
        sqkeys = sym super::attacks::FLASH_PAGES,
        in("r25r24") pos,
        in("r23r22") squares,
        in("r20") color,
        out("r18") _, out("r19") _, out("r21") _, out("X") _, out("Z") _,
    ) }
}

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}

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
/// (`repr(C)`: the AVR's assembly make stores `ep`, `moved` and
/// `captured` in turn, and `halfmove` and `captured_slot`.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Undo {
    /// The en-passant square, or (see [`EP_KEPT`]) the in-check note.
    ep: Square,
    /// Board byte of the moving man before the move (restores promotions and the moved flag).
    moved: u8,
    /// Board byte of the captured man, 0 if none.
    captured: u8,
    halfmove: u8,
    /// Piece-list slot of the captured man (low nibble), [`FULLMOVE_BUMPED`],
    /// [`NO_HISTORY`] and [`EP_KEPT`].
    captured_slot: u8,
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

/// Flag in `Undo::captured_slot`: the move was made unhashed, so it
/// changed neither the hash, the clocks nor the history (no one below
/// it reads them), and its take-back restores none of them.
const NO_HISTORY: u8 = 0x40;

/// Flag in `Undo::captured_slot`: `Undo::ep` is the en-passant square
/// before the move. Without it (the AVR's assembly make of a move made
/// with no en-passant square) it is the former
/// [`Position::checked`] (every make clears it; unmake restores it, or
/// leaves it 0, not known, after a move with the flag).
const EP_KEPT: u8 = 0x20;

/// By file: 1 on the files of the king and rooks at home (a, e, h).
pub(super) const CASTLING_FILE_FLAGS: [u8; 8] = [1, 0, 0, 0, 1, 0, 0, 1];

#[cfg(not(target_arch = "avr"))]
crate::progmem! {
    /// [`CASTLING_FILE_FLAGS`] (the AVR's in `FLASH_PAGES`).
    static CASTLING_FILES: [u8; 8] = CASTLING_FILE_FLAGS;
}

/// [`CASTLING_FILE_FLAGS`]' table in flash.
#[cfg(not(target_arch = "avr"))]
#[inline(always)]
fn castling_files() -> &'static crate::progmem::Table<u8, 8> {
    &CASTLING_FILES
}
#[cfg(target_arch = "avr")]
#[inline(always)]
fn castling_files() -> &'static crate::progmem::Table<u8, 8> {
    &super::attacks::FLASH_PAGES.castling_files
}

/// Squares whose occupants decide castling rights.
#[inline(always)]
fn affects_castling(sq: Square) -> bool {
    // Files a, e and h on the first or last rank. (A table: `0x91 >>
    // file` is a shift loop on the AVR.)
    let rank = sq & 0x70;
    (rank == 0 || rank == 0x70) && castling_files().get((sq & 7) as usize) != 0
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
    #[inline(always)]
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
    /// The AVR's assembly path goes further unhashed: no history push, no
    /// hash, clocks or castling rights at all, and [`NO_HISTORY`] tells its
    /// take-back to restore none of them (`bench engine` 0.63% fewer
    /// cycles, 28 B; the same in the Rust path too, 72 B more, was not
    /// worth it: it keeps the old way, and its undo record restores all).
    ///
    /// The AVR build makes most moves in assembly: a normal move or a
    /// double push (no castling, en passant or promotion) with no
    /// en-passant target standing, the men's keys ([`move_key`] and
    /// [`piece_key`]'s) in line at its end. The rest go to
    /// [`Position::make_move_general`], the host's only path. (In `bench
    /// engine` 57,418 of 58,419 calls; the Rust took 550 cycles a call.
    /// Leaving moves that touch a castling square to the Rust path, 9,350
    /// calls, cost 0.60% more cycles for 112 B less flash; the double
    /// pushes, 2,332 calls, 0.10% for 88 B.)
    #[cfg_attr(target_arch = "avr", optimize(speed), inline(never))]
    pub fn make_move_into(&mut self, m: Move, undo: &mut Undo, hashed: bool) {
        #[cfg(target_arch = "avr")]
        self.make_move_avr(m, undo, hashed);
        #[cfg(not(target_arch = "avr"))]
        self.make_move_general(m, undo, hashed);
    }

    /// [`Position::make_move_into`] on the AVR: if `m` is a normal move or
    /// a double push, makes it as
    /// [`Position::make_move_general`] would, the men's keys as
    /// [`move_key`] and [`piece_key`] work them out, in line around calls
    /// of `permuted` (C ABI); else calls `make_move_general` (C ABI too)
    /// with its arguments untouched. (The keys by calls of `move_key` and
    /// `piece_key`: `bench engine` 0.155% more cycles, 80 B less.)
    /// (Moves with an en-passant target standing, once left to it too,
    /// 608 calls at 590 cycles: `bench engine` 0.082% fewer cycles taken
    /// here, 120 B more.)
    /// (Those calls made from Rust after the assembly kept the move, the
    /// undo record and the flag in saved registers: 0.30% more cycles in
    /// `bench engine`, 36 B more flash.)
    #[cfg(target_arch = "avr")]
    #[inline(always)]
    fn make_move_avr(&mut self, m: Move, undo: &mut Undo, hashed: bool) {
        use core::mem::offset_of;
        const SIDE: usize = offset_of!(Position, side);
        const HEAD: usize = offset_of!(Position, history) + super::history::HEAD_OFFSET;
        const RING: usize = offset_of!(Position, history) + super::history::RING_OFFSET;
        const H: usize = offset_of!(Position, hash) - SIDE;
        const FM: usize = offset_of!(Position, fullmove) - SIDE;
        const _: () = assert!(offset_of!(Position, lists) == 128 && H + 3 < 64 && FM + 1 < 64);
        // The castling squares of the second rank are the first's + 0x70.
        const _: () = assert!(E8 == E1 + 0x70 && H8 == H1 + 0x70 && A8 == A1 + 0x70 && A1 == 0);
        const _: () = assert!(
            offset_of!(Undo, ep) == 0
                && offset_of!(Undo, moved) == 1
                && offset_of!(Undo, captured) == 2
                && offset_of!(Undo, halfmove) + 1 == offset_of!(Undo, captured_slot)
        );
        const fn neg_lo(x: usize) -> u8 {
            (x as u16).wrapping_neg() as u8
        }
        const fn neg_hi(x: usize) -> u8 {
            ((x as u16).wrapping_neg() >> 8) as u8
        }
        // Registers: r25:r24 the position; r21:r20 the undo record; r22
        // the from-square, r23 the to-square; r19 the mover's board byte
        // (r17 at the end), r18 its slot, r16 the victim's byte, r17 its
        // slot (plus FULLMOVE_BUMPED), r0 the side to move; T a pawn
        // moved. X and Z point in turn.
        // SAFETY: writes only the position's and the undo record's fields
        // at their offsets, board and list entries of on-board squares and
        // slots below 16, and the history ring's entry at its head (below
        // 2 * HISTORY_LEN, twice a slot); reads the flash table
        // SQUARE_KEYS; r1 stays 0 (no `mul`).
        unsafe {
            core::arch::asm!(
                // Not a normal move or a double push, or an en-passant
                // target standing: leave it to the Rust path. (`hashed`,
                // in r18, decides at 16 and 130; from there on NO_HISTORY
                // in r17 and then, from 140, bit 7 of r16 tell an
                // unhashed move: no push and pop of it, `bench engine`
                // 0.093% fewer cycles.)
                "    sbrc r22, 7",
                "    rjmp 90f",
                "    sbrc r23, 3",
                "    rjmp 90f",
                // The squares without the move's flags from here on.
                "    andi r22, 0x77",
                "    andi r23, 0x77",
                "    movw r30, r24",
                "    subi r30, {side_nlo}",
                "    sbci r31, {side_nhi}",
                "    ldd r19, Z+{ep}",
                "    cpi r19, 0xFF",
                "    brne 130f",
                "    tst r18",
                "    breq 16f",
                // (sq + 0x11) & 0x62 is 0 on a1, d1, e1, h1, a8, d8, e8,
                // h8 only: the rank plus one 0, 1 or 8, the file plus
                // one 1, 4, 5 or 8 (no carry between the nibbles: the
                // flags are off). A move touching one pushes the
                // castling rights before it if there are any, and r17
                // is 0x10 (else 0) up to 142: no change to look for
                // then. (The rights byte pushed in every case, 0 for
                // none, and popped and tested at 142: `bench engine`
                // 0.078% more cycles, 4 B less.) (The d-file, which
                // holds no right, taken along for one test a square.
                // With the flags on,
                // (sq + 0x10) & 0x63 against 0 and 3, two tests a
                // square: `bench engine` 0.10% more cycles, 24 B more,
                // with the slot masks dropped below and in unmake.)
                "    mov r18, r22",
                "    subi r18, 0xEF",
                "    andi r18, 0x62",
                "    breq 15f",
                "    mov r18, r23",
                "    subi r18, 0xEF",
                "    andi r18, 0x62",
                "    breq 15f",
                "    clr r17",
                "    rjmp 20f",
                "15: rcall 40f",
                "    tst r17",
                "    brne 14f",
                "    rjmp 20f",
                "14: push r17",
                "    ldi r17, 0x10",
                "    rjmp 20f",
                // Unhashed: no history, hash, clocks or castling
                // rights; r17 carries NO_HISTORY into the undo record.
                "16: ldi r17, {no_history}",
                "17: movw r30, r20",
                "    rjmp 19f",
                "90: call {general}",
                "    rjmp 99f",
                // Unhashed, from 26: captured_slot into the undo record;
                // no castling rights to look at.
                // Bit 7 of the victim's byte set for 35 (its other tests
                // mask it off; `tst r16` at 33 then takes a move without
                // a capture for one and finds it no pawn).
                "140: movw r30, r20",
                "    std Z+{u_cslot}, r17",
                "    ori r16, 0x80",
                "    rjmp 36f",

                // An en-passant target standing (r19; Z the side): as
                // make_move_general, the target into the undo record with
                // EP_KEPT (the in-check note lost, as there): `checked`
                // takes it for 19 to store, and the position's is none
                // (a double push sets its own). Unhashed: r17 carries
                // both flags. Hashed: the castling squares' test as
                // above, its byte pushed with bit 7 set for 134 below.
                "130: std Z+{chk}, r19",
                "    ldi r19, 0xFF",
                "    std Z+{ep}, r19",
                "    tst r18",
                "    brne 131f",
                "    ldi r17, {no_history} | {ep_kept}",
                "    rjmp 17b",
                "131: clr r17",
                "    mov r18, r22",
                "    subi r18, 0xEF",
                "    andi r18, 0x62",
                "    breq 132f",
                "    mov r18, r23",
                "    subi r18, 0xEF",
                "    andi r18, 0x62",
                "    brne 133f",
                "132: rcall 40f",
                "133: ori r17, 0x80",
                "    push r17",
                "    ldi r17, 0x10",
                "    rjmp 20f",
                // (Subroutines, here off the way: the men's keys fall
                // into the end.)
                // The position's hash ^= the 4-byte key at Z (flash).
                // Clobbers r18, r20, r21, X, Z.
                "45: movw r26, r24",
                "    subi r26, {hash_nlo}",
                "    sbci r27, {hash_nhi}",
                "    ldi r21, 4",
                "46: lpm r20, Z+",
                "    ld r18, X",
                "    eor r18, r20",
                "    st X+, r18",
                "    dec r21",
                "    brne 46b",
                "    ret",
                // A pawn of code r20 on square r21 (on the board)? Z set
                // if so. Clobbers r18, Z.
                "48: mov r18, r21",
                "    andi r18, 0x88",
                "    brne 49f",
                "    movw r30, r24",
                "    add r30, r21",
                "    adc r31, r1",
                "    ld r18, Z",
                "    andi r18, 0x0F",
                "    cp r18, r20",
                "49: ret",
                // (For 134, which runs after the board took the move.)
                // A pawn of code r20 (the mover's) on square r21 before
                // the move? Z set if so: `from` held it if a pawn moved
                // (T), `to` held none of the mover's, any other square
                // is as it stands. (48 alone there took the pawn that
                // had just captured beside the target for one that
                // stood there: the target's key went out though it had
                // never been in, and the hash was wrong.) Clobbers r18, Z.
                "138: cp r21, r22",
                "    brne 139f",
                "    brts 49b",
                "    clz",
                "    ret",
                "139: cp r21, r23",
                "    brne 48b",
                "    clz",
                "    ret",
                // castle_rights() into r17 (r18 and Z clobbered): the king
                // and a rook unmoved on their squares.
                "40: clr r17",
                "    movw r30, r24",
                "    ldd r18, Z+{sq_e1}",
                "    cpi r18, {wk}",
                "    brne 41f",
                "    ldd r18, Z+{sq_h1}",
                "    cpi r18, {wr}",
                "    brne 42f",
                "    ori r17, {wks}",
                "42: ldd r18, Z+{sq_a1}",
                "    cpi r18, {wr}",
                "    brne 41f",
                "    ori r17, {wqs}",
                "41: subi r30, 0x90",
                "    sbci r31, 0xFF",
                "    ldd r18, Z+{sq_e1}",
                "    cpi r18, {bk}",
                "    brne 43f",
                "    ldd r18, Z+{sq_h1}",
                "    cpi r18, {br}",
                "    brne 44f",
                "    ori r17, {bks}",
                "44: ldd r18, Z+{sq_a1}",
                "    cpi r18, {br}",
                "    brne 43f",
                "    ori r17, {bqs}",
                "43: ret",
                // (From the castling rights' test, bit 7 of r20 set, X the
                // undo record's captured_slot, r0 the mover.) EP_KEPT in,
                // and the former target's key out if a pawn of the mover
                // stood beside the pawn that made it before the move (138);
                // then the castling
                // rights as ever (r20 less bit 7).
                "134: ld r18, X",
                "    ori r18, {ep_kept}",
                "    st X, r18",
                "    push r20",
                "    movw r30, r26",
                "    sbiw r30, {u_cslot_ep}",
                "    ld r17, Z",
                "    mov r21, r17",
                "    ldi r20, {wpawn}",
                "    subi r21, 17",
                "    sbrc r0, 0",
                "    ldi r20, {bpawn}",
                "    sbrc r0, 0",
                "    subi r21, 0xE0",
                "    rcall 138b",
                "    breq 136f",
                "    subi r21, 0xFE",
                "    rcall 138b",
                "    brne 137f",
                "136: mov r20, r17",
                "    andi r20, 7",
                "    lsl r20",
                "    lsl r20",
                "    ldi r30, lo8({pages}+{ep_at})",
                "    add r30, r20",
                "    ldi r31, hi8({pages}+{ep_at})",
                "    rcall 45b",
                "137: pop r20",
                "    andi r20, 0x7F",
                "    brne 135f",
                "    rjmp 36f",
                // (From 142: the rights before the move pushed, bit 4 of
                // r17 set.) Castling rights: if the move changed them,
                // the key of the rights lost (the keys of a set of
                // rights are the XOR of the keys of its rights).
                "143: andi r17, 0xEF",
                "    st X, r17",
                "    pop r20",
                "    sbrc r20, 7",
                "    rjmp 134b",
                "135: rcall 40b",
                "    eor r20, r17",
                "    breq 139f",
                "    lsl r20",
                "    lsl r20",
                "    ldi r30, lo8({ckeys})",
                "    ldi r31, hi8({ckeys})",
                "    add r30, r20",
                "    adc r31, r1",
                "    rcall 45b",
                "139: rjmp 36f",
                // (Off the way, from 20: a push into a full ring: the
                // limit is the new head; the head wrapping, not full:
                // the limit 200 back.)
                "150: subi r18, 0xFE",
                "    cpi r18, 2 * {hlen}",
                "    brne 151f",
                "    clr r18",
                "151: std Z+1, r18",
                "    rjmp 22f",
                "152: clr r18",
                "    subi r19, 2 * {hlen}",
                "    std Z+1, r19",
                "    rjmp 22f",
                // History push: X = the ring entry (the head is twice its
                // slot: added twice), the head on by 2; the limit stays
                // unless full (equal to the head) or wrapping. (The slot
                // times 4 by `mul`, the length counted up to a compare
                // and stored: `bench engine` 0.19% more cycles with the
                // pop's.)
                "20: movw r30, r24",
                "    subi r30, {head_nlo}",
                "    sbci r31, {head_nhi}",
                "    ld r18, Z",
                "    ldd r19, Z+1",
                "    movw r26, r24",
                "    add r26, r18",
                "    adc r27, r1",
                "    add r26, r18",
                "    adc r27, r1",
                "    cp r19, r18",
                "    breq 150b",
                "    subi r18, 0xFE",
                "    cpi r18, 2 * {hlen}",
                "    breq 152b",
                "22: st Z, r18",
                "    subi r26, {ring_nlo}",
                "    sbci r27, {ring_nhi}",
                // The hash (in r16, r0, r18, r19) into the ring. (The
                // side key goes in with the men's keys at 51, the
                // position's hash read and written once: `bench engine`
                // 0.11% fewer cycles, 8 B less.) Z the side from the
                // head, still in Z: no movw.
                "    subi r30, {head_side_lo}",
                "    sbci r31, {head_side_hi}",
                "    ldd r16, Z+{h0}",
                "    ldd r0, Z+{h1}",
                "    ldd r18, Z+{h2}",
                "    ldd r19, Z+{h3}",
                "    st X+, r16",
                "    st X+, r0",
                "    st X+, r18",
                "    st X+, r19",
                // The undo record's hash and its ep.
                "    movw r30, r20",
                "    std Z+{u_h0}, r16",
                "    std Z+{u_h1}, r0",
                "    std Z+{u_h2}, r18",
                "    std Z+{u_h3}, r19",
                // The in-check note into the undo record's ep (there was
                // no en-passant square), cleared.
                // (X the undo record, its ep, moved and captured stored
                // in turn; Z the board, a square's slot at Z+8: no
                // `adiw`. The other way round, X the board: `bench
                // engine` 0.067% more cycles, 4 B more.)
                "19: movw r26, r30",
                "    movw r30, r24",
                "    subi r30, {chk_nlo}",
                "    sbci r31, {chk_nhi}",
                "    ld r18, Z",
                "    st Z, r1",
                "    st X+, r18",
                // The board: the mover off `from`, onto `to` with its slot.
                "    movw r30, r24",
                "    add r30, r22",
                "    adc r31, r1",
                "    ld r19, Z",
                "    st X+, r19",
                "    st Z, r1",
                "    ldd r18, Z+8",
                "    movw r30, r24",
                "    add r30, r23",
                "    adc r31, r1",
                "    ld r16, Z",
                "    st X+, r16",
                "    ori r19, {moved_flag}",
                "    st Z, r19",
                // (A man's slot byte is its slot exactly, the victim's
                // and the mover's below: no mask.)
                "    tst r16",
                "    breq 23f",
                "    ldd r0, Z+8",
                "    or r17, r0",
                "23: std Z+8, r18",
                // The piece lists (at offset 128): the mover's slot, the victim's.
                "    movw r30, r24",
                "    subi r30, {side_nlo}",
                "    sbci r31, {side_nhi}",
                "    ld r0, Z",
                "    sbrc r0, 0",
                "    ori r18, 0x10",
                "    subi r18, 0x80",
                "    movw r26, r24",
                "    add r26, r18",
                "    adc r27, r1",
                "    st X, r23",
                "    tst r16",
                "    breq 24f",
                "    mov r18, r17",
                "    andi r18, 0x0F",
                "    sbrs r0, 0",
                "    ori r18, 0x10",
                "    subi r18, 0x80",
                "    movw r26, r24",
                "    add r26, r18",
                "    adc r27, r1",
                "    ldi r18, 0xFF",
                "    st X, r18",
                "24: ldi r18, 1",
                "    eor r18, r0",
                "    st Z, r18",
                // T: a pawn moved (code 1 or 7).
                "    clt",
                "    mov r18, r19",
                "    andi r18, 0x0F",
                "    cpi r18, 1",
                "    breq 25f",
                "    cpi r18, 7",
                "    brne 26f",
                "25: set",
                // Halfmove clock: 0 after a capture or a pawn move, else one more (saturating).
                // (Not unhashed: no one below reads the clocks.)
                "26: sbrc r17, 6",
                "    rjmp 140b",
                // (X then the undo record's captured_slot, just after
                // its halfmove.)
                "    ldd r18, Z+{hm}",
                "    movw r26, r20",
                "    adiw r26, {u_hm}",
                "    st X+, r18",
                "    inc r18",
                "    brne 27f",
                "    dec r18",
                "27: tst r16",
                "    breq 28f",
                "    clr r18",
                "28: brtc 29f",
                "    clr r18",
                "29: std Z+{hm}, r18",
                // Fullmove number, after Black's move, unless saturated
                // (its low byte then back to 0xFF): byte by byte, X kept. (In a word in X, the
                // undo record's address worked out again for
                // captured_slot, and the unhashed moves' store here too:
                // `bench engine` 0.092% more cycles, 8 B less.)
                "    sbrs r0, 0",
                "    rjmp 142f",
                "    ldd r18, Z+{fm0}",
                "    inc r18",
                "    std Z+{fm0}, r18",
                "    brne 31f",
                "    ldd r18, Z+{fm1}",
                "    inc r18",
                "    brne 141f",
                "    dec r18",
                "    std Z+{fm0}, r18",
                "    rjmp 142f",
                "141: std Z+{fm1}, r18",
                "31: ori r17, {bumped}",
                "142: sbrc r17, 4",
                "    rjmp 143b",
                "    st X, r17",
                // A double push (a pawn moved two ranks): the en-passant
                // target, and its key if a pawn of the side now to move
                // stands beside `to`.
                "36: brtc 37f",
                "    mov r18, r23",
                "    sub r18, r22",
                "    subi r18, 0xE0",
                "    andi r18, 0xBF",
                "    brne 37f",
                "    mov r18, r22",
                "    add r18, r23",
                "    lsr r18",
                "    movw r30, r24",
                "    subi r30, {side_nlo}",
                "    sbci r31, {side_nhi}",
                "    std Z+{ep}, r18",
                "    sbrc r17, 6",
                "    rjmp 37f",
                "    ldi r20, {bpawn}",
                "    sbrc r0, 0",
                "    ldi r20, {wpawn}",
                "    mov r21, r23",
                "    dec r21",
                "    rcall 48b",
                "    breq 38f",
                "    subi r21, 0xFE",
                "    rcall 48b",
                "    brne 37f",
                "38: mov r20, r23",
                "    andi r20, 7",
                "    lsl r20",
                "    lsl r20",
                "    ldi r30, lo8({pages}+{ep_at})",
                "    add r30, r20",
                "    ldi r31, hi8({pages}+{ep_at})",
                "    rcall 45b",
                "37:",
                // Pawn files: a pawn from `from` to `to`, a pawn taken on
                // `to` (toggle_pawn_avr past its first instruction, which
                // takes its square in r23, and toggle_pawn_pair_avr keep r0, r16, r17, r20, r22,
                // r23, T).
                "    mov r17, r19",
                "    brtc 33f",
                "    mov r20, r0",
                "    call {toggle2}",
                "33: tst r16",
                "    breq 35f",
                "    mov r18, r16",
                "    andi r18, 0x0F",
                "    cpi r18, 1",
                "    breq 34f",
                "    cpi r18, 7",
                "    brne 35f",
                "34: ldi r20, 1",
                "    eor r20, r0",
                "    call {toggle}+2",
                // The men's keys, if `hashed`: move_key(moved, from, to),
                // with piece_key(victim, to) after a capture, both here
                // in line around calls of `permuted` (which uses only
                // r20..r25: X, the position, and r16..r19 and Z kept
                // across it). (Through
                // calls of move_key and piece_key: 7 cycles a call and
                // the arguments' moves more.)
                // Each square's key at byte (sq + file) << 1.
                // (A skip over a jump: the end is out of a branch's reach.)
                "35: sbrc r16, 7",
                "    rjmp 99f",
                "    movw r26, r24",
                super::zobrist::square_pair_key_asm!("r23"),
                "    mov r24, r17",
                "    call {permuted}",
                "    tst r16",
                "    breq 51f",
                // The victim's: `to`'s key permuted by it, its piece's
                // key (Z, from 4 * (code - 1)) after; the mover's in
                // r16..r19 meanwhile.
                "    mov r30, r19",
                "    movw r18, r24",
                "    mov r24, r16",
                "    movw r16, r22",
                "    lpm r20, Z+",
                "    lpm r21, Z+",
                "    lpm r22, Z+",
                "    lpm r23, Z",
                "    mov r30, r24",
                "    andi r30, 15",
                "    lsl r30",
                "    lsl r30",
                "    subi r30, lo8(-({pages}+{kinds_at}-4))",
                "    ldi r31, hi8({pages}+{kinds_at})",
                "    call {permuted}",
                "    lpm r0, Z+",
                "    eor r22, r0",
                "    lpm r0, Z+",
                "    eor r23, r0",
                "    lpm r0, Z+",
                "    eor r24, r0",
                "    lpm r0, Z",
                "    eor r25, r0",
                "    eor r22, r16",
                "    eor r23, r17",
                "    eor r24, r18",
                "    eor r25, r19",
                // With the side key, into the position's hash.
                "51: subi r26, {hash_nlo}",
                "    sbci r27, {hash_nhi}",
                "    ldi r18, {sk0}",
                "    eor r22, r18",
                "    ld r0, X",
                "    eor r0, r22",
                "    st X+, r0",
                "    ldi r18, {sk1}",
                "    eor r23, r18",
                "    ld r0, X",
                "    eor r0, r23",
                "    st X+, r0",
                "    ldi r18, {sk2}",
                "    eor r24, r18",
                "    ld r0, X",
                "    eor r0, r24",
                "    st X+, r0",
                "    ldi r18, {sk3}",
                "    eor r25, r18",
                "    ld r0, X",
                "    eor r0, r25",
                "    st X, r0",
                "99:",
                side_nlo = const neg_lo(SIDE),
                side_nhi = const neg_hi(SIDE),
                head_nlo = const neg_lo(HEAD),
                head_nhi = const neg_hi(HEAD),
                head_side_lo = const ((HEAD - SIDE) as u16) as u8,
                head_side_hi = const ((HEAD - SIDE) as u16 >> 8) as u8,
                ring_nlo = const neg_lo(RING),
                ring_nhi = const neg_hi(RING),
                ep = const offset_of!(Position, ep) - SIDE,
                hm = const offset_of!(Position, halfmove) - SIDE,
                fm0 = const FM,
                fm1 = const FM + 1,
                h0 = const H,
                h1 = const H + 1,
                h2 = const H + 2,
                h3 = const H + 3,
                sk0 = const SIDE_KEY as u8,
                sk1 = const (SIDE_KEY >> 8) as u8,
                sk2 = const (SIDE_KEY >> 16) as u8,
                sk3 = const (SIDE_KEY >> 24) as u8,
                u_h0 = const offset_of!(Undo, hash),
                u_h1 = const offset_of!(Undo, hash) + 1,
                u_h2 = const offset_of!(Undo, hash) + 2,
                u_h3 = const offset_of!(Undo, hash) + 3,
                u_cslot = const offset_of!(Undo, captured_slot),
                u_hm = const offset_of!(Undo, halfmove),
                hlen = const super::history::HISTORY_LEN,
                moved_flag = const MOVED,
                bumped = const FULLMOVE_BUMPED,
                no_history = const NO_HISTORY,
                ep_kept = const EP_KEPT,
                u_cslot_ep = const offset_of!(Undo, captured_slot) - offset_of!(Undo, ep),
                chk = const offset_of!(Position, checked) - SIDE,
                chk_nlo = const neg_lo(offset_of!(Position, checked)),
                chk_nhi = const neg_hi(offset_of!(Position, checked)),
                toggle = sym super::position::toggle_pawn_avr,
                toggle2 = sym super::position::toggle_pawn_pair_avr,
                ckeys = sym super::zobrist::CASTLE_KEYS,
                pages = sym super::attacks::FLASH_PAGES,
                ep_at = const super::attacks::EP_KEYS_AT,
                wpawn = const PAWN,
                bpawn = const PAWN + BLACK_OFFSET,
                hash_nlo = const neg_lo(offset_of!(Position, hash)),
                hash_nhi = const neg_hi(offset_of!(Position, hash)),
                sq_e1 = const E1,
                sq_h1 = const H1,
                sq_a1 = const A1,
                wk = const KING,
                wr = const ROOK,
                bk = const KING + BLACK_OFFSET,
                br = const ROOK + BLACK_OFFSET,
                wks = const super::position::WHITE_KINGSIDE,
                wqs = const super::position::WHITE_QUEENSIDE,
                bks = const super::position::BLACK_KINGSIDE,
                bqs = const super::position::BLACK_QUEENSIDE,
                general = sym Position::make_move_general,
                sqkeys = sym super::attacks::FLASH_PAGES,
                kinds_at = const super::attacks::PIECE_KINDS_AT,
                permuted = sym super::zobrist::permuted,
                inout("r25r24") self as *mut Position => _,
                inout("r21r20") undo as *mut Undo => _,
                inout("r23r22") m.0 => _,
                inout("r18") hashed as u8 => _,
                out("r16") _, out("r17") _, out("r19") _,
                out("X") _, out("Z") _,
            );
        }
    }

    /// [`Position::make_move_into`] for any move. (C ABI: the AVR's
    /// assembly calls it.)
    #[inline(never)]
    extern "C" fn make_move_general(&mut self, m: Move, undo: &mut Undo, hashed: bool) {
        let us = self.side;
        let them = us.other();
        let from = m.from();
        let to = m.to();
        let moved = self.board[from as usize];
        let slot = self.board[from as usize + 8];
        undo.moved = moved;
        undo.captured = EMPTY;
        undo.captured_slot = EP_KEPT;
        self.checked = 0;
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
            undo.captured_slot |= vs & 15;
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
            // (On the board: no bounds checks below.)
            let (rf, rt) = (rf & 0x77, rt & 0x77);
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
    #[cfg(not(target_arch = "avr"))]
    pub fn unmake_move(&mut self, m: Move, undo: &Undo) {
        let them = self.side;
        let us = them.other();
        self.side = us;
        let from = m.from();
        let to = m.to();

        if undo.captured_slot & EP_KEPT != 0 {
            self.ep = undo.ep;
            self.checked = 0;
        } else {
            self.ep = NO_SQUARE;
            self.checked = undo.ep;
        }
        if undo.captured_slot & NO_HISTORY == 0 {
            self.history.pop();
            self.halfmove = undo.halfmove;
            self.hash = undo.hash;
            if undo.captured_slot & FULLMOVE_BUMPED != 0 {
                self.fullmove -= 1;
            }
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
    #[cfg(not(target_arch = "avr"))]
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
    #[cfg(not(target_arch = "avr"))]
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

    /// [`Position::unmake_move`] in assembly, every kind of move: the
    /// Rust one (and its two helpers) took 216 cycles a call and 540 B.
    #[cfg(target_arch = "avr")]
    #[inline(never)]
    pub fn unmake_move(&mut self, m: Move, undo: &Undo) {
        use core::mem::offset_of;
        const SIDE: usize = offset_of!(Position, side);
        const HEAD: usize = offset_of!(Position, history) + super::history::HEAD_OFFSET;
        const OE: usize = offset_of!(Position, officer_end);
        // The walk from `side` stores ep, checked, halfmove, (fullmove,)
        // hash in turn.
        const _: () = assert!(
            offset_of!(Position, ep) == SIDE + 1
                && offset_of!(Position, checked) == SIDE + 2
                && offset_of!(Position, halfmove) == SIDE + 3
                && offset_of!(Position, fullmove) == SIDE + 4
                && offset_of!(Position, hash) == SIDE + 6
                && offset_of!(Position, lists) == 128
        );
        const fn neg_lo(x: usize) -> u8 {
            (x as u16).wrapping_neg() as u8
        }
        const fn neg_hi(x: usize) -> u8 {
            ((x as u16).wrapping_neg() >> 8) as u8
        }
        // Registers: r25:r24 the position; Z the undo record; r21:r20 the
        // move as it came (its kind and capture bits; no registers to
        // save: `bench engine` 0.12% fewer cycles than in r17:r16), r22 the
        // from-square, r23 the to-square; r0 the side that moved's
        // opponent (to move before the take-back); T a pawn moved.
        // SAFETY: writes only the position's fields at their offsets,
        // board and list entries of on-board squares and slots below 16,
        // the history's head and limit; reads the undo record.
        unsafe {
            core::arch::asm!(
                "    movw r30, r20",
                "    movw r20, r22",
                "    andi r22, 0x77",
                "    andi r23, 0x77",
                // Side, ep, halfmove clock, fullmove number, hash.
                "    movw r26, r24",
                "    subi r26, {side_nlo}",
                "    sbci r27, {side_nhi}",
                "    ld r0, X",
                "    ldi r18, 1",
                "    eor r18, r0",
                "    st X+, r18",
                // ep and the in-check note (see EP_KEPT).
                // (EP_KEPT's case at 50, off the way: `bench engine`
                // 0.041% fewer cycles, 4 B more than both chosen by skips.)
                "    ldd r19, Z+{u_cslot}",
                "    sbrc r19, 5",
                "    rjmp 50f",
                "    ldi r18, 0xFF",
                "    st X+, r18",
                "    ldd r18, Z+{u_ep}",
                "    st X+, r18",
                "51:",
                // (Made unhashed: nothing more to restore.)
                "    sbrc r19, 6",
                "    rjmp 23f",
                "    ldd r18, Z+{u_hm}",
                "    st X+, r18",
                "    sbrs r19, 7",
                "    rjmp 21f",
                "    ld r18, X+",
                "    ld r19, X",
                "    subi r18, 1",
                "    sbci r19, 0",
                "    st X, r19",
                "    st -X, r18",
                "21: adiw r26, 2",
                "    ldd r18, Z+{u_h0}",
                "    st X+, r18",
                "    ldd r18, Z+{u_h1}",
                "    st X+, r18",
                "    ldd r18, Z+{u_h2}",
                "    st X+, r18",
                "    ldd r18, Z+{u_h3}",
                "    st X+, r18",
                // History pop: the head from X, just past the hash (no
                // movw from the position); unless the ring is empty (the
                // limit 200 past the head: all room), the head back by 2
                // (twice the slot), the limit left; on a borrow the head
                // wraps and the limit goes 200 on. (That off the way is
                // out of a branch's reach.)
                "    subi r26, {hash_head_nlo}",
                "    sbci r27, {hash_head_nhi}",
                "    ld r18, X+",
                "    ld r19, X",
                "    sub r19, r18",
                "    cpi r19, 2 * {hlen}",
                "    breq 23f",
                "    subi r18, 2",
                "    brcc 22f",
                "    ldi r18, 2 * {hlen} - 2",
                "    subi r19, 0x100 - 2 * {hlen}",
                "    st X, r19",
                "22: st -X, r18",
                // The mover back from `to` to `from`, with its slot.
                // (The undo record in X meanwhile, the board through Z,
                // a square's slot at Z+8: no `adiw`. The mover's byte
                // kept in r18 for 30. X the board and the byte read
                // again at 30: `bench engine` 0.096% more cycles.)
                "23: ldd r18, Z+{u_moved}",
                "    movw r26, r30",
                "    movw r30, r24",
                "    add r30, r23",
                "    adc r31, r1",
                "    st Z, r1",
                "    ldd r19, Z+8",
                "    movw r30, r24",
                "    add r30, r22",
                "    adc r31, r1",
                "    st Z, r18",
                // (A man's slot byte is its slot exactly: no mask.)
                "    std Z+8, r19",
                "    sbrs r0, 0",
                "    ori r19, 0x10",
                "    subi r19, 0x80",
                "    movw r30, r24",
                "    add r30, r19",
                "    adc r31, r1",
                "    st Z, r22",
                "    movw r30, r26",
                // Castling (kind 2): the rook back too, and done.
                "    mov r19, r20",
                "    andi r19, 0x88",
                "    cpi r19, 0x80",
                "    brne 30f",
                "    sbrc r21, 3",
                "    rjmp 30f",
                "    mov r18, r22",
                "    mov r19, r22",
                "    cp r22, r23",
                "    brsh 24f",
                "    subi r18, 0xFD",
                "    subi r19, 0xFF",
                "    rjmp 25f",
                "24: subi r18, 4",
                "    subi r19, 1",
                "25: movw r26, r24",
                "    add r26, r19",
                "    adc r27, r1",
                "    ld r20, X",
                "    st X, r1",
                "    adiw r26, 8",
                "    ld r21, X",
                "    movw r26, r24",
                "    add r26, r18",
                "    adc r27, r1",
                "    andi r20, {not_moved}",
                "    st X, r20",
                "    adiw r26, 8",
                "    st X, r21",
                "    andi r21, 0x0F",
                "    sbrs r0, 0",
                "    ori r21, 0x10",
                "    subi r21, 0x80",
                "    movw r26, r24",
                "    add r26, r21",
                "    adc r27, r1",
                "    st X, r18",
                "    rjmp 99f",
                // A promotion taken back (from 40 below): the pawn's
                // file, and the officers' bound lowered instead of `to`
                // left.
                "41: mov r23, r22",
                "    call {toggle}+2",
                "    movw r26, r24",
                "    add r26, r22",
                "    adc r27, r1",
                "    adiw r26, 8",
                "    ld r18, X",
                "    andi r18, 0x0F",
                "    movw r26, r24",
                "    subi r26, {oe_nlo}",
                "    sbci r27, {oe_nhi}",
                "    sbrs r0, 0",
                "    adiw r26, 1",
                "    ld r19, X",
                "    dec r19",
                "    cp r19, r18",
                "    brne 42f",
                "    st X, r18",
                "42: rjmp 99f",
                "50: ldd r18, Z+{u_ep}",
                "    st X+, r18",
                "    st X+, r1",
                "    rjmp 51b",
                // T: the mover is a pawn (code 1 or 7).
                "30: clt",
                "    andi r18, 0x0F",
                "    cpi r18, 1",
                "    breq 31f",
                "    cpi r18, 7",
                "    brne 32f",
                "31: set",
                // A capture: the victim back on its square (en passant:
                // the mover's rank, the target's file) and in its slot.
                "32: sbrs r21, 7",
                "    rjmp 40f",
                "    mov r18, r20",
                "    andi r18, 0x88",
                "    cpi r18, 0x88",
                "    mov r18, r23",
                "    brne 33f",
                "    sbrc r21, 3",
                "    rjmp 33f",
                "    mov r18, r22",
                "    andi r18, 0xF0",
                "    mov r20, r23",
                "    andi r20, 0x0F",
                "    or r18, r20",
                // (Its byte in r19, its slot in r20, then Z the board,
                // the slot at Z+8: the undo record is read no more.)
                "33: ldd r19, Z+{u_captured}",
                "    ldd r20, Z+{u_cslot}",
                "    andi r20, 0x0F",
                "    movw r30, r24",
                "    add r30, r18",
                "    adc r31, r1",
                "    st Z, r19",
                "    std Z+8, r20",
                "    sbrc r0, 0",
                "    ori r20, 0x10",
                "    subi r20, 0x80",
                "    movw r30, r24",
                "    add r30, r20",
                "    adc r31, r1",
                "    st Z, r18",
                // A pawn taken: back in its file (toggle_pawn_avr past its
                // first instruction, its square in r23, keeps r0, r20,
                // r21, r22, T; `to` waits on the stack).
                "    andi r19, 0x0F",
                "    cpi r19, 1",
                "    breq 34f",
                "    cpi r19, 7",
                "    brne 40f",
                "34: push r23",
                "    mov r23, r18",
                "    mov r20, r0",
                "    call {toggle}+2",
                "    pop r23",
                // A pawn moved: back from `to` to `from`; a promotion
                // lowers the officers' bound instead of leaving `to`.
                // (No pawn: out here, not by a branch to the `ret`:
                // `bench engine` 0.01% fewer cycles, 2 B.)
                "40: brts 43f",
                "    ret",
                "43: ldi r20, 1",
                "    eor r20, r0",
                "    sbrc r21, 3",
                "    rjmp 41b",
                // (The promotion's block above, the common call last: it
                // falls into the end.)
                "    call {toggle2}",
                "99:",
                side_nlo = const neg_lo(SIDE),
                side_nhi = const neg_hi(SIDE),
                hash_head_nlo = const neg_lo(HEAD - SIDE - 10),
                hash_head_nhi = const neg_hi(HEAD - SIDE - 10),
                oe_nlo = const neg_lo(OE),
                oe_nhi = const neg_hi(OE),
                u_h0 = const offset_of!(Undo, hash),
                u_h1 = const offset_of!(Undo, hash) + 1,
                u_h2 = const offset_of!(Undo, hash) + 2,
                u_h3 = const offset_of!(Undo, hash) + 3,
                u_ep = const offset_of!(Undo, ep),
                u_moved = const offset_of!(Undo, moved),
                u_captured = const offset_of!(Undo, captured),
                u_cslot = const offset_of!(Undo, captured_slot),
                u_hm = const offset_of!(Undo, halfmove),
                hlen = const super::history::HISTORY_LEN,
                not_moved = const !MOVED,
                toggle = sym super::position::toggle_pawn_avr,
                toggle2 = sym super::position::toggle_pawn_pair_avr,
                in("r25r24") self as *mut Position,
                inout("r21r20") undo as *const Undo => _,
                inout("r23r22") m.0 => _,
                out("r18") _, out("r19") _,
                out("X") _, out("Z") _,
            );
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
        // (`checked` is 0: it is set only in check, where no null move
        // is made.)
        debug_assert!(self.checked == 0, "null move in check");
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

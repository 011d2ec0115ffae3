//! Staged move picking in CP1's order, one move at a time.
//!
//! Like Stockfish's movepick, an explicit [`Stage`] walks through:
//!
//! 1. the main line move of the previous iteration (checked pseudo-legal),
//! 2. winning captures, most valuable victim first, least valuable attacker
//!    first (a capture wins if the attacker is worth less than the victim,
//!    or its swap-off value is positive),
//! 3. queen promotions,
//! 4. equal captures (QxQ, RxR, minor for minor, PxP),
//! 5. en passant,
//! 6. two killers (checked pseudo-legal),
//! 7. castling,
//! 8. moves of hanging men (CP1's Hang_1 / Hang_2),
//! 9. the remaining quiet moves and under-promotions, in generator order
//!    (against a bare king in two passes: [`Picker::in_pass`]),
//! 10. losing captures.
//!
//! Nothing is stored but cursors: a bitmask of attacked enemy men (filled by
//! one tight pass over our men, [`attacked_victims`]), the victim being served and an
//! attacker cursor, the two hanging slots and one 5-byte [`MoveGen`], about
//! 17 bytes per ply. Each later stage skips the moves an earlier one already
//! returned, so no move is tried twice. Quiescence uses stages 2 to 5 only:
//! losing captures are pruned by their swap-off value; at its first ply a
//! last stage adds the quiet checks that do not lose the man. Once the
//! search prunes quiet moves at a node, stages 8 and 9 generate only the
//! ones that may check or reach the 7th ([`Picker::restrict_quiets`]).
//! In check ([`Picker::evade`]) the capture stages serve only the men that
//! give check or touch the king, and the hanging-men and quiet stages
//! only the king and the men that may block: the legal moves come in the
//! same order, the others are mostly not generated at all.

#[cfg(not(target_arch = "avr"))]
use super::eval::{JUMPS, RAYS};
use super::eval::{distance, VALUE};
#[cfg(not(target_arch = "avr"))]
use super::see::next_attacker;
use super::see::{hanging, see, ATTACKER_END};
use crate::chess::piece::*;
use crate::chess::square::*;
#[cfg(not(target_arch = "avr"))]
use crate::chess::{reach, JUMPS_THERE};
use crate::chess::{Color, Move, MoveGen, MoveKind, Position};

/// Where the picker stands; also tells the search what kind of move it got.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Stage {
    MainLine,
    CapturesInit,
    WinningCaptures,
    Promotions,
    EqualCaptures,
    EnPassant,
    Killer1,
    Killer2,
    Castling,
    HangingInit,
    Hanging,
    Quiets,
    LosingCaptures,
    /// Quiescence only, first ply: quiet moves that give check and do not
    /// lose the man ([`Picker::allow_checks`]).
    Checks,
    Done,
}

crate::progmem! {
    /// By victim kind: the [`next_attacker`] cursor window of the attackers
    /// in the victim's exchange class (pawns; knights and bishops; rooks;
    /// queens). (The AVR's loop in assembly compares the kind instead.)
    #[cfg_attr(target_arch = "avr", allow(dead_code))]
    static EQUAL_FROM: [u8; 7] = [0, 0, 2, 2, 14, 18, 26];
    #[cfg_attr(target_arch = "avr", allow(dead_code))]
    static EQUAL_TO: [u8; 7] = [0, 2, 14, 14, 18, 26, 34];
}

/// [`Picker::slot`] in a capture stage before the AVR's
/// [`Picker::next_capture`] has looked for our queen (then its square, 0x08
/// for none, 0xFF for several; our officers' bound + 0x80 meanwhile).
const QUEEN_UNSEEN: u8 = 0x80;

/// [`Picker::slot`] in the quiet stage of a node in check: the moves of
/// the king, then of the men left in `pending` ([`evading_men`]).
const EVADE: u8 = 0x40;

const QUIESCENCE: u8 = 1;
const HANG: u8 = 2;
const CHECKS: u8 = 4;
/// [`CHECKS`] without [`QUIESCENCE`] (a full-width picker, never
/// allowed checks): the side to move is in check ([`Picker::evade`]).
const IN_CHECK: u8 = CHECKS;
/// The other bits of `Picker::flags`: attacker classes that attack some
/// victim ([`attacked_victims`]), by kind (bishops and knights apart;
/// pawns are always probed, their two squares cost less than a flag).
const CLASSES: u8 = 0xF8;

crate::progmem! {
    /// (The AVR's scan in assembly loads these bits as constants.)
    #[cfg_attr(target_arch = "avr", allow(dead_code))]
    static CLASS_BITS: [u8; 8] = [0, 0, 8, 16, 32, 64, 128, 0];
}

crate::progmem! {
    /// The lowest set bit of a nibble (of 0: none, unused).
    #[cfg_attr(target_arch = "avr", allow(dead_code))]
    static LOWEST_BIT: [u8; 16] = [0, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0];
}

crate::progmem! {
    /// `1 << slot`: a variable 16-bit shift is a loop on the AVR. (Slot
    /// 16, past the list, 0: less one, all slots.)
    pub(crate) static SLOT_BITS: [u16; 17] = [
        1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 0,
    ];
}

/// Piece-list slots of the enemy men (king excluded) that `us` attacks,
/// and the attacker classes that hit anything ([`CLASS_BITS`] bits: the
/// picker's attacker scans skip the others): one tight pass over its men,
/// cheaper than the resumable generator. ([`hanging`] asks it for the
/// opponent's attacks.) Enemy men are recognised by their code range (one
/// subtract and compare), their slot bit comes from a table.
///
/// This is the host's version (the tests' reference); the AVR runs the
/// same scan in assembly, below.
#[cfg(not(target_arch = "avr"))]
pub fn attacked_victims(pos: &Position, us: Color) -> (u16, u8) {
    // Enemy codes are first..first + 5.
    let first = if us == Color::White { PAWN + BLACK_OFFSET } else { PAWN };
    let own = if us == Color::White { 0 } else { BLACK_OFFSET };
    let mut v = 0u16;
    let mut classes = 0u8;
    for &from in pos.piece_list(us).iter() {
        if from == NO_SQUARE {
            continue;
        }
        let kind = pos.code_on(from).wrapping_sub(own);
        let mut mine = 0u16;
        let mut hit = |s: Square| {
            if on_board(s) && pos.code_on(s).wrapping_sub(first) < 6 {
                mine |= SLOT_BITS.get(pos.slot_at(s) as usize);
            }
        };
        match kind {
            PAWN => {
                let ahead = if us == Color::White { from.wrapping_add(16) } else { from.wrapping_sub(16) };
                hit(ahead.wrapping_sub(1));
                hit(ahead.wrapping_add(1));
            }
            KNIGHT => {
                for j in 0..8u8 {
                    hit(from.wrapping_add(JUMPS.get(j as usize) as u8));
                }
            }
            KING => {
                for d in 0..8u8 {
                    hit(from.wrapping_add(RAYS.get(d as usize) as u8));
                }
            }
            _ => {
                let (first_ray, last_ray): (u8, u8) = match kind {
                    BISHOP => (0, 4),
                    ROOK => (4, 8),
                    _ => (0, 8),
                };
                for d in first_ray..last_ray {
                    let step = RAYS.get((d & 7) as usize) as u8;
                    let mut s = from.wrapping_add(step);
                    while on_board(s) && pos.is_empty(s) {
                        s = s.wrapping_add(step);
                    }
                    hit(s);
                }
            }
        }
        if mine & !1 != 0 {
            v |= mine;
            classes |= CLASS_BITS.get(kind as usize & 7);
        }
    }
    (v & !1, classes)
}

/// The AVR's [`attacked_victims`] notes here our queen's square (0x08:
/// none, 0xFF: several) for [`Picker::next_capture`]'s queens' window
/// ([`queen_note`]).
#[cfg(target_arch = "avr")]
static mut QUEEN_NOTE: u8 = 0x08;

/// [`Picker::slot`] for the capture stages right after
/// [`attacked_victims`]: its note of our queen, so that
/// [`Picker::next_capture`] need not look for it in the piece list
/// (the host's picker does not use it).
#[inline(always)]
fn queen_note() -> u8 {
    #[cfg(target_arch = "avr")]
    // SAFETY: a byte only the scan writes, read right after it.
    return unsafe { QUEEN_NOTE };
    #[cfg(not(target_arch = "avr"))]
    QUEEN_UNSEEN
}

/// [`attacked_victims`] by hand (the compiler's version took 2,245 cycles
/// a call, its loop over the list and its dispatch a fifth of them): the
/// same men, targets and results, checked against the Rust scan on every
/// call of `bench engine` (38,893, all equal). `bench engine` the same
/// 52,030 nodes in 4.2% fewer cycles, and 324 B smaller. (A ray walk alone
/// in assembly, a board pointer stepping with the square and the empty
/// test a zero byte, 11 cycles a square against the compiler's 16, used
/// here and in the swap-off's attacker scans, had made it 1.8% slower and
/// 168 B larger: each ray's setup cost more than its squares saved.)
/// The king (slot 0) is walked before the loop and the slots from
/// `officer_end` on (pawns only) without reading a code, the kind from
/// the code plus the first enemy code, and two registers fewer saved:
/// 0.58% fewer cycles, 4 B smaller. The single steps two a turn of the
/// loop: 0.27% fewer for 28 B. The pawns' two targets read at fixed
/// offsets from one pointer, only the file tested: 0.42% fewer for 8 B.
/// The king's eight neighbours unrolled the same way: 0.55% fewer for
/// 152 B. The pawns' slots a loop of their own, no T flag tested a man:
/// 0.17% fewer for 4 B. The knights' eight jumps unrolled too, each
/// square and its slot-map byte read at a fixed offset, the square
/// tested for the board only once its byte looks like a victim (7
/// cycles a jump against 16 in the loop): 1.0% fewer for 152 B (a pawn
/// in an officer's slot, once one pair of the knights' single steps,
/// now as in the pawns' loop; the jumps off the board first told by a
/// table of file and rank masks, 3 cycles each but 20 a knight for the
/// masks: 0.36% less gained). (The sliders' lines likewise, each first
/// square read at a fixed offset, the lines off the board told by such
/// masks, the rest of a line walked by a subroutine: 0.23% more cycles,
/// 252 B: most lines end at their first or second square, and the masks
/// and calls cost more than the tests saved.) The sliders' eight lines
/// unrolled instead, each step an immediate (Y stepped by adiw or sbiw,
/// the edge told by the step's own bits, no table of steps, no count of
/// lines left; a victim's bit by a call, no longer in line): 1.76% fewer
/// cycles (attacked_victims 1,148 -> 1,015 a call) for 140 B; the edges
/// then told by the step's own flags (N, H): 0.33% fewer, 4 B smaller.
/// The diagonals' victim bits in line again (not by a call): 0.09%
/// fewer cycles for 96 B (the files' and ranks' too would put the
/// knights out of the dispatch's branch). The king's neighbours read
/// at fixed offsets from one pointer (no adiw between them), the east
/// line by post-increment and the west by pre-decrement (ld Y+, ld -Y:
/// no adiw or sbiw a square): 0.35% fewer cycles, 4 B smaller. The
/// lines that step by 15, 16 or 17 walked two squares a turn, the first
/// read at a fixed offset, the pointer moved once: 0.24% fewer cycles
/// for 140 B (the files and ranks alone 0.05% for 48 B: the knights
/// then reached by a jump more, 2 cycles). The men met on the files
/// and ranks tested out of line where most are no victim (east, west,
/// the first square north or south), the east line's first square
/// read at Z+1, Y moved only if the line goes on: 0.14% fewer cycles
/// for 24 B. The king's victim-like neighbours likewise (after the
/// dispatch, within the branches' reach): 0.07% fewer for 16 B. The
/// colour taken in r22, where the call brings it, the first enemy code
/// loaded straight into r20: 0.04% fewer, 4 B smaller. r25:r24 the
/// board less 17 (Y the man's square less 17 from the dispatch, Z so
/// for the sliders): the first square of every line, and the second
/// southward after one sbiw, read at a fixed offset from it (no sbiw
/// before the first square southward), the king's neighbours with no
/// sbiw: 0.12% fewer cycles for 24 B. The knights told by bit 0 and
/// the queens by bit 2, each reached by rjmp (no stub): 0.06% fewer,
/// 4 B smaller. (With the pawns' victim bits in line and smaller steps
/// noted where they are: 974 -> 889 cycles a call, `bench engine`
/// 1.26% fewer cycles for 272 B. Left out: the west line's second
/// square at a fixed offset, 0.007% for 24 B; a pawn in an officer's
/// slot tested as in the pawns' loop, 0.007% for 12 B.) The queens'
/// note kept by the T flag, written once: 0.07% fewer cycles for 4 B.
/// The classes in r21, a register not saved (the files tested by a
/// step's H flag where a victim-like byte is met): 0.13% fewer for 4 B.
/// The files' first two squares' ranks told by the square itself (no
/// r17 set unless the line goes on, the south's first square read
/// from Z, Y set for the second): 0.10% fewer for 60 B. The north-east
/// and south-east lines' first step from the square itself (one subi,
/// the loop's top after it): 0.04% fewer for 4 B. The queens' note and
/// diagonals right after the west line (its and the east's men tested
/// between the two, the knights after the diagonals): 0.015% fewer, 0 B.
/// The north-west, south-east and south-west lines' first square read
/// at a fixed offset from Z, Y set only if the line goes on (no movw a
/// line): 0.10% fewer for 60 B; the north-east's too: 0.03% for 16 B.
/// (Asking the victims kept above a
/// quiescence node's delta floor for their least attacker instead of the
/// scan, 2,825 scans fewer, cost 0.08% more cycles and 180 B: the 7,900
/// swap-off scans and the code inlined into the quiescence search. A
/// single victim kept is asked whether it is attacked at all instead:
/// [`Picker::prune_victims`].)
#[cfg(target_arch = "avr")]
#[inline(never)]
pub fn attacked_victims(pos: &Position, us: Color) -> (u16, u8) {
    let v: u16;
    let classes: u8;
    // Registers: X the list, Y the square probed (its slot-map byte at
    // Y+8) or a base it is read from at a fixed offset, Z a slider's
    // square less 17 on the board (for pawns, the board plus the first
    // step), r25:r24 the board less 17, r19 the man's square, r17 a ray's square
    // (r9 once: a register less saved, 0.05% fewer cycles), r18
    // its class bit (in the pawns' loop a victim's bit), r0 the slots
    // left (officers', then from officer_end on pawns'; r15 once, a
    // call-saved register pushed: 0.06% more cycles, 4 B more), r20 the
    // first enemy code (7 white's turn, 1 black's: its bit 1 tells the
    // pawns' first capture step, +15 or -17), r23:r22 the victims, r21
    // the classes (r7 once, pushed and moved: r21 had the king's or a
    // pawn's file, now told where a victim-like byte is met, and a
    // diagonal's square plus 8: 0.13% fewer cycles, 4 B), T a queen
    // seen. Our man's code plus the
    // first enemy code is its kind plus 7 for either colour (white's
    // codes 1..6 and 7, black's 7..12 and 1): no offset kept.
    // An enemy king (code first + 5) is no victim: slot 0 is never set.
    // SAFETY: `Position` is `repr(C)` with its 0x88 board (and slot map)
    // at offset 0 and the piece lists at 128 (16 bytes a colour); the
    // scan only reads the board and the list, and for a pawn or the king
    // on the a-file the byte before the board (RAM, its value unused);
    // a slider's line reads only squares on the board.
    unsafe {
        core::arch::asm!(
            "    push r28",
            "    push r29",
            // White: enemy codes from 7 (pawns take at +15, +17); black:
            // from 1 (at -17, -15). X our list; r0 our officers' bound
            // (read here from Z, the lists' start plus the side: not by
            // the compiler before the block: 0.07% more cycles).
            "    movw r26, r24",
            "    subi r26, 0x80",
            "    sbci r27, 0xFF",
            "    movw r30, r26",
            "    ldi r20, 7",
            "    sbrs r22, 0",
            "    rjmp 1f",
            "    adiw r26, 16",
            "    adiw r30, 1",
            "    ldi r20, 1",
            "1:  ldd r0, Z+{oe}",
            "    sbiw r24, 17",
            "    clr r22",
            "    clr r23",
            "    clr r21",
            "    clt",
            // The king (slot 0, always listed): its eight neighbours
            // unrolled, each read at a fixed offset from Y, the board plus
            // k-17 (its slot-map byte 8 further), the rows and files off the
            // board skipped (the file told by the step's H flag in the
            // out-of-line tests, 181 on), not eight steps each tested for
            // the board's edge and added to it. (The file tested only once
            // the byte read looks like a victim, as for the pawns below:
            // 0.08% fewer cycles. Y stepped by adiw from one neighbour to
            // the next instead: 2 cycles more a neighbour.)
            "    ld r19, X+",
            "    ldi r18, 128",
            "    movw r28, r24",
            "    add r28, r19",
            "    adc r29, r1",
            "    cpi r19, 0x10",
            "    brlo 73f",
            "71: ldd r16, Y+0",
            "    andi r16, 0x0F",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brlo 181f",
            "72: ldd r16, Y+1",
            "    andi r16, 0x0F",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brlo 182f",
            "81: ldd r16, Y+2",
            "    andi r16, 0x0F",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brlo 183f",
            "73: ldd r16, Y+16",
            "    andi r16, 0x0F",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brlo 184f",
            "75: ldd r16, Y+18",
            "    andi r16, 0x0F",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brlo 185f",
            "76: cpi r19, 0x70",
            "    brsh 29f",
            "    ldd r16, Y+32",
            "    andi r16, 0x0F",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brlo 186f",
            "77: ldd r16, Y+33",
            "    andi r16, 0x0F",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brlo 187f",
            "82: ldd r16, Y+34",
            "    andi r16, 0x0F",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brlo 188f",
            // The officers' slots.
            "29: dec r0",
            "    breq 51f",
            "    ld r19, X+",
            "    cpi r19, 0xFF",
            "    breq 29b",
            "    movw r28, r24",
            "    add r28, r19",
            "    adc r29, r1",
            "    ldd r17, Y+17",
            "    andi r17, 0x0F",
            "    add r17, r20",
            // Rooks (11), bishops (10), knights (9), pawns (8), else
            // queens: the pawns, rare in these slots, tested last
            // (first, they cost each officer 2 or 3 cycles: 0.12% more).
            "    cpi r17, 11",
            "    breq 24f",
            "    cpi r17, 10",
            "    breq 23f",
            // Knights: bit 0 (9; rooks, 11, are gone), a jump with
            // the reach of rjmp (cpi and breq to a stub's rjmp: 2 cycles
            // more).
            "    sbrc r17, 0",
            "    rjmp 32f",
            // Queens (12) bit 2, else pawns (8): the queens' class bit
            // loaded before the test (a pawn's is cleared at 110), the
            // files and ranks reached by rjmp (by brne to a stub: 2
            // cycles more a queen).
            "    ldi r18, 64",
            "    sbrc r17, 2",
            "    rjmp 26f",
            "    rjmp 110f",
            "51: rjmp 50f",
            // The king's victim-like neighbours (out of line: most are
            // not; here within the branches' reach).
            "181: mov r17, r19",
            "    subi r17, 1",
            "    brhs 72b",
            "    ldd r16, Y+8",
            "    rcall 43f",
            "    rjmp 72b",
            "182: ldd r16, Y+9",
            "    rcall 43f",
            "    rjmp 81b",
            "183: mov r17, r19",
            "    subi r17, 0xF7",
            "    brhc 73b",
            "    ldd r16, Y+10",
            "    rcall 43f",
            "    rjmp 73b",
            "184: mov r17, r19",
            "    subi r17, 1",
            "    brhs 75b",
            "    ldd r16, Y+24",
            "    rcall 43f",
            "    rjmp 75b",
            "185: mov r17, r19",
            "    subi r17, 0xF7",
            "    brhc 76b",
            "    ldd r16, Y+26",
            "    rcall 43f",
            "    rjmp 76b",
            "186: mov r17, r19",
            "    subi r17, 1",
            "    brhs 77b",
            "    ldd r16, Y+40",
            "    rcall 43f",
            "    rjmp 77b",
            "187: ldd r16, Y+41",
            "    rcall 43f",
            "    rjmp 82b",
            "188: mov r17, r19",
            "    subi r17, 0xF7",
            "    brhc 29b",
            "    ldd r16, Y+42",
            "    rcall 43f",
            "    rjmp 29b",
            // Sliders: the eight lines unrolled, each step an
            // immediate: r17 the square, Y stepping by adiw or sbiw from
            // Z (the board plus the man's square less 17), the edge told by the
            // step's subi alone: off the top or bottom rank, N (bit 7);
            // off the a-file, H (westward the low nibble 0 borrows);
            // off the h-file, H clear: eastward r17 holds the square
            // plus 8 (the diagonals' likewise), and only a file of 7
            // (nibble 15) does not borrow from 15. (The files told by
            // bit 3 and the diagonals by 0x88 instead: 0.33% more
            // cycles, 4 B more.) No table, no
            // count of lines left (against one loop over RAYS, its step
            // in r0 and Y worked out from the square on every square:
            // the doc comment's figures). (Y stepping by r0 and its sign
            // in r9 in that loop had saved a cycle a square but cost four
            // a line: 0.4% more cycles.)
            // Bishops: the diagonals.
            "23: ldi r18, 16",
            "    movw r30, r28",
            "    rjmp 128f",
            // Queens (from the dispatch, at 26): the files and ranks,
            // then at 129 the square into QUEEN_NOTE and the diagonals.
            // Rooks: the files and ranks.
            // (North's first square's man tested here, within reach.)
            "138: sub r16, r20",
            "    cpi r16, 5",
            "    brsh 121f",
            "    ldd r16, Y+41",
            "    rcall 43f",
            "    rjmp 121f",
            "24: ldi r18, 32",
            "26: movw r30, r28",
            // North, two squares a turn (as all the lines that step
            // by 15, 16 or 17), read at fixed offsets from Y (the
            // square less 17, then moved by 32 a turn: the first at
            // Y+33, the second at Y+49, a victim there at Y+17 once Y
            // has moved), a man on the first tested out of line (138);
            // southward the first at Y+1, the second at Y+17 once Y
            // has stepped back by 32. The first two squares' ranks
            // told by the square itself (cpi), r17 set only if the
            // line goes on (the south's first square read at Z+1, Y
            // set only for the second; a man on it tested at 139, and
            // on later ones at 117): 0.10% fewer cycles for 60 B.
            "    cpi r19, 0x70",
            "    brsh 121f",
            "    ldd r16, Y+33",
            "    andi r16, 0x0F",
            "    brne 138b",
            "    cpi r19, 0x60",
            "    brsh 121f",
            "    ldd r16, Y+49",
            "    adiw r28, 32",
            "    andi r16, 0x0F",
            "    brne 119f",
            "    mov r17, r19",
            "    subi r17, 0xE0",
            "120: subi r17, 0xF0",
            "    brmi 121f",
            "    ldd r16, Y+33",
            "    andi r16, 0x0F",
            "    brne 138b",
            "    subi r17, 0xF0",
            "    brmi 121f",
            "    ldd r16, Y+49",
            "    adiw r28, 32",
            "    andi r16, 0x0F",
            "    breq 120b",
            "119: sub r16, r20",
            "    cpi r16, 5",
            "    brsh 121f",
            "    ldd r16, Y+25",
            "    rcall 43f",
            "    rjmp 121f",
            // (South's first square's man tested here, within reach.)
            "139: sub r16, r20",
            "    cpi r16, 5",
            "    brsh 123f",
            "    ldd r16, Z+9",
            "    rcall 43f",
            "    rjmp 123f",
            // South.
            "121: cpi r19, 0x10",
            "    brlo 123f",
            "    ldd r16, Z+1",
            "    andi r16, 0x0F",
            "    brne 139b",
            "    cpi r19, 0x20",
            "    brlo 123f",
            "    movw r28, r30",
            "    sbiw r28, 32",
            "    ldd r16, Y+17",
            "    andi r16, 0x0F",
            "    brne 118f",
            "    mov r17, r19",
            "    subi r17, 0x20",
            "122: subi r17, 0x10",
            "    brmi 123f",
            "    ldd r16, Y+1",
            "    andi r16, 0x0F",
            "    brne 117f",
            "    subi r17, 0x10",
            "    brmi 123f",
            "    sbiw r28, 32",
            "    ldd r16, Y+17",
            "    andi r16, 0x0F",
            "    breq 122b",
            "118: sub r16, r20",
            "    cpi r16, 5",
            "    brsh 123f",
            "    ldd r16, Y+25",
            "    rcall 43f",
            // East: the first two squares read at Z+18 and Z+19 (Y set
            // only if the line goes on: 0.02% fewer cycles for 20 B; the
            // west's second likewise: 0.007% more for 24 B, left out),
            // a man on them tested out of line, the
            // others by post-increment from Y (the victim's slot-map byte
            // then at Y+7); west by pre-decrement: 2 cycles a square
            // fewer than adiw (sbiw) and ld. r17 the square plus 9
            // (plus 8 before the step): the file's edge as below.
            "123: mov r17, r19",
            "    subi r17, 0xF7",
            "    brhc 125f",
            "    ldd r16, Z+18",
            "    andi r16, 0x0F",
            "    brne 171f",
            "    subi r17, 0xFF",
            "    brhc 125f",
            "    ldd r16, Z+19",
            "    andi r16, 0x0F",
            "    brne 175f",
            "    movw r28, r30",
            "    adiw r28, 20",
            "124: subi r17, 0xFF",
            "    brhc 125f",
            "    ld r16, Y+",
            "    andi r16, 0x0F",
            "    breq 124b",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brsh 125f",
            // The files' and ranks' men tested out of line (here,
            // between the east and the west, so that the queens' note
            // and diagonals follow the west at 127: 2 cycles fewer a
            // queen, one more a man ending the east line that is no
            // victim: 0.015% fewer cycles, 0 B).
            "172: ldd r16, Y+7",
            "    rcall 43f",
            "    rjmp 125f",
            "27: ldi r16, 0xFF",
            "    sts {queen}, r16",
            "    rjmp 128f",
            "117: sub r16, r20",
            "    cpi r16, 5",
            "    brsh 123b",
            "    ldd r16, Y+9",
            "    rcall 43f",
            "    rjmp 123b",
            "171: sub r16, r20",
            "    cpi r16, 5",
            "    brsh 125f",
            "    ldd r16, Z+26",
            "    rcall 43f",
            "    rjmp 125f",
            "173: rcall 40f",
            "    rjmp 127f",
            "174: sub r16, r20",
            "    cpi r16, 5",
            "    brsh 127f",
            "    ldd r16, Z+24",
            "    rcall 43f",
            "    rjmp 127f",
            "175: sub r16, r20",
            "    cpi r16, 5",
            "    brsh 125f",
            "    ldd r16, Z+27",
            "    rcall 43f",
            "    rjmp 125f",
            // West: the first square likewise at Z+16.
            "125: mov r17, r19",
            "    subi r17, 0x01",
            "    brhs 127f",
            "    ldd r16, Z+16",
            "    andi r16, 0x0F",
            "    brne 174b",
            "    movw r28, r30",
            "    adiw r28, 16",
            // West (a victim out of line: most men met are not).
            "126: subi r17, 0x01",
            "    brhs 127f",
            "    ld r16, -Y",
            "    andi r16, 0x0F",
            "    breq 126b",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brlo 173b",
            "127: sbrs r18, 6",
            "    rjmp 29b",
            // Queens, on from their files and ranks: the square into
            // QUEEN_NOTE, for the picker's queens' window (the T flag
            // set by the first: a second writes 0xFF, none 0x08 at the
            // end; not the note read, compared and written for each
            // queen and 0x08 written first: 0.07% fewer cycles, 4 B);
            // bishops from here on: the diagonals.
            "129: brts 27b",
            "    set",
            "    sts {queen}, r19",
            "128:",
            // The diagonals as the files: Y the square less 17, each
            // square read at a fixed offset from it, a victim's at Y+17
            // (its slot-map byte at Y+25) once Y is moved there.
            // North-east and south-east: the first step's subi from the
            // square itself (+25, -7: the flags and r17 as the square
            // plus 8 stepped; the loop's top after it, its next step
            // made before the jump back: 0.04% fewer cycles, 4 B).
            // North-east: the first square read at Z+34 (Y set only if
            // the line goes on: no movw for the queens at 129; a man
            // there tested at 150, read at Z), the loop's top at the
            // second square of a turn (then no jump back a turn): 0.03%
            // fewer cycles for 16 B.
            "    mov r17, r19",
            "    subi r17, 0xE7",
            "    brhc 131f",
            "    brmi 131f",
            "    ldd r16, Z+34",
            "    andi r16, 0x0F",
            "    brne 150f",
            "    movw r28, r30",
            "130: subi r17, 0xEF",
            "    brhc 131f",
            "    brmi 131f",
            "    ldd r16, Y+51",
            "    adiw r28, 34",
            "    andi r16, 0x0F",
            "    brne 149f",
            "    subi r17, 0xEF",
            "    brhc 131f",
            "    brmi 131f",
            "    ldd r16, Y+34",
            "    andi r16, 0x0F",
            "    breq 130b",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brsh 131f",
            "    adiw r28, 17",
            "    rjmp 151f",
            "150: sub r16, r20",
            "    cpi r16, 5",
            "    brsh 131f",
            "    ldd r16, Z+42",
            "    rjmp 141f",
            "149: sub r16, r20",
            "    cpi r16, 5",
            "    brsh 131f",
            "151: ldd r16, Y+25",
            "141:",
            "    ldi r17, 1",
            "    sbrc r16, 1",
            "    ldi r17, 4",
            "    sbrc r16, 0",
            "    lsl r17",
            "    sbrc r16, 2",
            "    swap r17",
            "    sbrs r16, 3",
            "    or r22, r17",
            "    sbrc r16, 3",
            "    or r23, r17",
            "    or r21, r18",
            "131:",
            // North-west: the first square read at Z+32 (Y, left
            // moved by the north-east, set only if the line goes on;
            // a man there tested at 146, read at Z), the loop's top at
            // the second square of a turn (with the south-east and the
            // south-west likewise: 0.10% fewer cycles for 60 B).
            "    mov r17, r19",
            "    subi r17, 0xF1",
            "    brhs 133f",
            "    brmi 133f",
            "    ldd r16, Z+32",
            "    andi r16, 0x0F",
            "    brne 146f",
            "    movw r28, r30",
            "132: subi r17, 0xF1",
            "    brhs 133f",
            "    brmi 133f",
            "    ldd r16, Y+47",
            "    adiw r28, 30",
            "    andi r16, 0x0F",
            "    brne 147f",
            "    subi r17, 0xF1",
            "    brhs 133f",
            "    brmi 133f",
            "    ldd r16, Y+32",
            "    andi r16, 0x0F",
            "    breq 132b",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brsh 133f",
            "    adiw r28, 15",
            "    rjmp 153f",
            "146: sub r16, r20",
            "    cpi r16, 5",
            "    brsh 133f",
            "    ldd r16, Z+40",
            "    rjmp 144f",
            "147: sub r16, r20",
            "    cpi r16, 5",
            "    brsh 133f",
            "153: ldd r16, Y+25",
            "144:",
            "    ldi r17, 1",
            "    sbrc r16, 1",
            "    ldi r17, 4",
            "    sbrc r16, 0",
            "    lsl r17",
            "    sbrc r16, 2",
            "    swap r17",
            "    sbrs r16, 3",
            "    or r22, r17",
            "    sbrc r16, 3",
            "    or r23, r17",
            "    or r21, r18",
            "133:",
            // South-east: as the north-west, the first square at Z+2.
            "    mov r17, r19",
            "    subi r17, 0x07",
            "    brhc 135f",
            "    brmi 135f",
            "    ldd r16, Z+2",
            "    andi r16, 0x0F",
            "    brne 143f",
            "    movw r28, r30",
            "154: subi r17, 0x0F",
            "    brhc 135f",
            "    brmi 135f",
            "    sbiw r28, 30",
            "    ldd r16, Y+17",
            "    andi r16, 0x0F",
            "    brne 148f",
            "    subi r17, 0x0F",
            "    brhc 135f",
            "    brmi 135f",
            "    ldd r16, Y+2",
            "    andi r16, 0x0F",
            "    breq 154b",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brsh 135f",
            "    sbiw r28, 15",
            "    rjmp 155f",
            "143: sub r16, r20",
            "    cpi r16, 5",
            "    brsh 135f",
            "    ldd r16, Z+10",
            "    rjmp 142f",
            "148: sub r16, r20",
            "    cpi r16, 5",
            "    brsh 135f",
            "155: ldd r16, Y+25",
            "142:",
            "    ldi r17, 1",
            "    sbrc r16, 1",
            "    ldi r17, 4",
            "    sbrc r16, 0",
            "    lsl r17",
            "    sbrc r16, 2",
            "    swap r17",
            "    sbrs r16, 3",
            "    or r22, r17",
            "    sbrc r16, 3",
            "    or r23, r17",
            "    or r21, r18",
            "135:",
            // South-west: as the north-west, the first square at Z+0.
            "    mov r17, r19",
            "    subi r17, 0x11",
            "    brhs 137f",
            "    brmi 137f",
            "    ldd r16, Z+0",
            "    andi r16, 0x0F",
            "    brne 158f",
            "    movw r28, r30",
            "156: subi r17, 0x11",
            "    brhs 137f",
            "    brmi 137f",
            "    sbiw r28, 34",
            "    ldd r16, Y+17",
            "    andi r16, 0x0F",
            "    brne 159f",
            "    subi r17, 0x11",
            "    brhs 137f",
            "    brmi 137f",
            "    ldd r16, Y+0",
            "    andi r16, 0x0F",
            "    breq 156b",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brsh 137f",
            "    sbiw r28, 17",
            "    rjmp 157f",
            "158: sub r16, r20",
            "    cpi r16, 5",
            "    brsh 137f",
            "    ldd r16, Z+8",
            "    rjmp 160f",
            "159: sub r16, r20",
            "    cpi r16, 5",
            "    brsh 137f",
            "157: ldd r16, Y+25",
            "160:",
            "    ldi r17, 1",
            "    sbrc r16, 1",
            "    ldi r17, 4",
            "    sbrc r16, 0",
            "    lsl r17",
            "    sbrc r16, 2",
            "    swap r17",
            "    sbrs r16, 3",
            "    or r22, r17",
            "    sbrc r16, 3",
            "    or r23, r17",
            "    or r21, r18",
            "137: rjmp 29b",
            // Knights: the eight jumps unrolled, each square and its
            // slot-map byte read at a fixed offset from Z, the board plus
            // the square less 33 (the first three), or from Y, less 17
            // (the others: Z set once, no adiw or sbiw of Y, a cycle
            // fewer a knight); the square tested for the board only once
            // its byte looks like a victim (off the board the byte is
            // the slot map's or lies within 33 bytes of the board, RAM).
            // That test out of line, 161 on, the usual byte (no victim)
            // falling through to the next jump: a cycle fewer a jump
            // (the branch not taken), three more a victim-like byte:
            // 0.09% fewer cycles for 16 B.
            "32: ldi r18, 8",
            "    movw r30, r28",
            "    sbiw r30, 16",
            "    ldd r16, Z+0",
            "    andi r16, 0x0F",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brlo 161f",
            "101: ldd r16, Z+2",
            "    andi r16, 0x0F",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brlo 162f",
            "102: ldd r16, Z+15",
            "    andi r16, 0x0F",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brlo 163f",
            "103: ldd r16, Y+3",
            "    andi r16, 0x0F",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brlo 164f",
            "104: ldd r16, Y+31",
            "    andi r16, 0x0F",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brlo 165f",
            "105: ldd r16, Y+35",
            "    andi r16, 0x0F",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brlo 166f",
            "106: ldd r16, Y+48",
            "    andi r16, 0x0F",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brlo 167f",
            "107: ldd r16, Y+50",
            "    andi r16, 0x0F",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brlo 168f",
            "108: rjmp 29b",
            "161: mov r17, r19",
            "    subi r17, 33",
            "    andi r17, 0x88",
            "    brne 101b",
            "    ldd r16, Z+8",
            "    rcall 43f",
            "    rjmp 101b",
            "162: mov r17, r19",
            "    subi r17, 31",
            "    andi r17, 0x88",
            "    brne 102b",
            "    ldd r16, Z+10",
            "    rcall 43f",
            "    rjmp 102b",
            "163: mov r17, r19",
            "    subi r17, 18",
            "    andi r17, 0x88",
            "    brne 103b",
            "    ldd r16, Z+23",
            "    rcall 43f",
            "    rjmp 103b",
            "164: mov r17, r19",
            "    subi r17, 14",
            "    andi r17, 0x88",
            "    brne 104b",
            "    ldd r16, Y+11",
            "    rcall 43f",
            "    rjmp 104b",
            "165: mov r17, r19",
            "    subi r17, 242",
            "    andi r17, 0x88",
            "    brne 105b",
            "    ldd r16, Y+39",
            "    rcall 43f",
            "    rjmp 105b",
            "166: mov r17, r19",
            "    subi r17, 238",
            "    andi r17, 0x88",
            "    brne 106b",
            "    ldd r16, Y+43",
            "    rcall 43f",
            "    rjmp 106b",
            "167: mov r17, r19",
            "    subi r17, 225",
            "    andi r17, 0x88",
            "    brne 107b",
            "    ldd r16, Y+56",
            "    rcall 43f",
            "    rjmp 107b",
            "168: mov r17, r19",
            "    subi r17, 223",
            "    andi r17, 0x88",
            "    brne 108b",
            "    ldd r16, Y+58",
            "    rcall 43f",
            "    rjmp 29b",
            // A pawn in an officer's slot (rare): its two captures as
            // in the pawns' loop below (+15, +17 white's, -17, -15
            // black's), no class; Y the board plus its square (from
            // the dispatch); the file told only for a victim-like byte.
            "110: ldi r18, 0",
            "    sbrc r20, 1",
            "    adiw r28, 32",
            "    ld r16, Y",
            "    andi r16, 0x0F",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brsh 111f",
            "    mov r17, r19",
            "    andi r17, 7",
            "    breq 111f",
            "    rcall 40f",
            "111: ldd r16, Y+2",
            "    andi r16, 0x0F",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brsh 112f",
            "    mov r17, r19",
            "    subi r17, 0xF7",
            "    brhc 112f",
            "    ldd r16, Y+10",
            "    rcall 43f",
            "112: rjmp 29b",
            // A victim at Y (here, before the pawns' loop: its exit
            // reaches the end only so): its slot's bit into r23:r22 (1 << slot: 1 or 4 by
            // bit 1, doubled by bit 0, nibbles swapped by bit 2, the high byte
            // by bit 3), the attacker's class into r21. (The high byte's
            // victim, a pawn, most here, returns with no jump: 1 cycle
            // fewer, 0.02% fewer cycles than the low byte's so, which
            // had saved 0.004% for 4 B when the pawns' victims came
            // here too.)
            "40: ldd r16, Y+8",
            "43: ldi r17, 1",
            "    sbrc r16, 1",
            "    ldi r17, 4",
            "    sbrc r16, 0",
            "    lsl r17",
            "    sbrc r16, 2",
            "    swap r17",
            "    or r21, r18",
            "    sbrs r16, 3",
            "    rjmp 44f",
            "    or r23, r17",
            "    ret",
            "44: or r22, r17",
            "    ret",
            // From officer_end on, pawns only, a loop of their own (no
            // test of the slot's kind): 16 - end pawn slots (X's offset
            // from our list's end, 144 + 16 * us from the board), plus
            // one for the decrement. No class (r18 0): the pawns are
            // always probed. Z the board plus the first step.
            "50: mov r17, r24",
            "    subi r17, 0x5E",
            "    sbrs r20, 1",
            "    subi r17, 0xF0",
            "    sub r17, r26",
            "    mov r0, r17",
            "    movw r30, r24",
            "    sbrc r20, 1",
            "    adiw r30, 32",
            "39: dec r0",
            "    breq 99f",
            "    ld r19, X+",
            "    cpi r19, 0xFF",
            "    breq 39b",
            // A pawn stands on ranks 2 to 7 (no position has one on
            // its first or last rank): only the file can leave the
            // board, a on the left, h on the right. Y the first target,
            // the second at Y+2. (Against a 0x88 test and the square
            // worked out for each: 8 cycles fewer a pawn.) The file is
            // tested only once the byte read looks like a victim (off
            // the board, it is the slot map's, or for a black pawn on
            // a2 the byte before the board): 0.21% fewer cycles, 4 B.
            "    movw r28, r30",
            "    add r28, r19",
            "    adc r29, r1",
            // (Both targets' bytes 0, empty or off the board: the next
            // pawn, 7 cycles instead of 14: 0.03% fewer cycles, 8 B.)
            "    ld r16, Y",
            "    ldd r17, Y+2",
            "    cp r16, r1",
            "    cpc r17, r1",
            "    breq 39b",
            // (Both bytes kept, tested by cp and cpc, not or: the
            // second not read again; a victim-like first byte out of
            // line: 0.03% fewer cycles, 4 B.)
            "    andi r16, 0x0F",
            "    sub r16, r20",
            "    cpi r16, 5",
            "    brlo 34f",
            "31: andi r17, 0x0F",
            "    sub r17, r20",
            "    cpi r17, 5",
            "    brsh 39b",
            // (The h-file: the square plus 9 does not borrow from 7.)
            "    mov r18, r19",
            "    subi r18, 0xF7",
            "    brhc 39b",
            // The victim's bit in line (as 40 below, r18 the bit: no
            // class for pawns, r18 free here), not by a call: 0.05% fewer
            // cycles for 40 B.
            "    ldd r16, Y+10",
            "    ldi r18, 1",
            "    sbrc r16, 1",
            "    ldi r18, 4",
            "    sbrc r16, 0",
            "    lsl r18",
            "    sbrc r16, 2",
            "    swap r18",
            "    sbrs r16, 3",
            "    or r22, r18",
            "    sbrc r16, 3",
            "    or r23, r18",
            "    rjmp 39b",
            "34: mov r18, r19",
            "    andi r18, 7",
            "    breq 31b",
            "    ldd r16, Y+8",
            "    ldi r18, 1",
            "    sbrc r16, 1",
            "    ldi r18, 4",
            "    sbrc r16, 0",
            "    lsl r18",
            "    sbrc r16, 2",
            "    swap r18",
            "    sbrs r16, 3",
            "    or r22, r18",
            "    sbrc r16, 3",
            "    or r23, r18",
            "    rjmp 31b",
            "99: brts 98f",
            "    ldi r16, 0x08",
            "    sts {queen}, r16",
            "98: pop r29",
            "    pop r28",
            queen = sym QUEEN_NOTE,
            oe = const Position::OFFICER_END_OFFSET - 128,
            inout("r25r24") pos as *const Position => _,
            in("r22") us as u8,
            out("r20") _,
            lateout("r23r22") v,
            out("r21") classes,
            out("r16") _, out("r17") _, out("r18") _, out("r19") _,
            out("X") _, out("Z") _,
        );
    }
    (v, classes)
}

/// Only a king left to `c`. (An officer stands below `officer_end`: the
/// bound alone settles the middlegame's nodes.)
fn bare(pos: &Position, c: Color) -> bool {
    pos.officer_end(c) <= 1 && pos.piece_list(c)[1..].iter().all(|&s| s == NO_SQUARE)
}

/// In check: the enemy men whose capture may be legal, as [`SLOT_BITS`]
/// bits (the victims of the capture stages, instead of every man
/// attacked, [`attacked_victims`]): those that give check, which any man
/// may take, and those next to the king, which it may take. The first man
/// on each of the king's lines (not only a slider that checks along it)
/// and every knight a jump away. (The host's; the AVR's in assembly,
/// below.)
#[cfg(not(target_arch = "avr"))]
fn checking_or_touching(pos: &Position) -> u16 {
    let us = pos.side_to_move();
    let king = pos.king_square(us);
    let first = if us == Color::White { PAWN + BLACK_OFFSET } else { PAWN };
    let mut v = 0u16;
    for d in 0..8 {
        let step = super::eval::RAYS.get(d) as u8;
        let mut s = king.wrapping_add(step);
        while on_board(s) && pos.is_empty(s) {
            s = s.wrapping_add(step);
        }
        if on_board(s) && pos.code_on(s).wrapping_sub(first) < 6 {
            v |= SLOT_BITS.get(pos.slot_at(s) as usize);
        }
        let s = king.wrapping_add(super::eval::JUMPS.get(d) as u8);
        if on_board(s) && pos.code_on(s) == first + KNIGHT - PAWN {
            v |= SLOT_BITS.get(pos.slot_at(s) as usize);
        }
    }
    v & !1
}

/// [`checking_or_touching`] by hand (the compiler's took 234 B), the
/// eight lines and the eight jumps unrolled, each step an immediate (Z
/// by adiw/sbiw from the king's square, the edge by the step's subi
/// flags as in [`attacked_victims`]: N for the ranks, H for the files),
/// the knights' bytes at fixed offsets from Z, not a loop over RAYS and
/// JUMPS with a 0x88 test a step: 432 -> 267 cycles a call (0.24% fewer
/// cycles, 244 B more). A line's first man tested in line, its bit set
/// by a call for an enemy alone (below).
#[cfg(target_arch = "avr")]
#[inline(never)]
fn checking_or_touching(pos: &Position) -> u16 {
    let v: u16;
    // Registers: r19:r18 the board plus the king's square, r23 the
    // king's square, r20 it plus 8 (the eastward lines' edge), r21 the
    // first enemy code, r22 the enemy knight's, Z the square probed, r17
    // the edge's square, r16 the byte read, r25:r24 the men.
    // SAFETY: reads the king's list entry, the board and slot map of
    // `pos` on the board only (a knight's byte off the board, within 33
    // bytes of it, is read but tested for the board before it is used).
    unsafe {
        core::arch::asm!(
            "    movw r30, r24",
            "    subi r30, 0x80",
            "    sbci r31, 0xFF",
            "    ld r23, Z",
            "    ldi r21, 7",
            "    sbrs r22, 0",
            "    rjmp 1f",
            "    ldd r23, Z+16",
            "    ldi r21, 1",
            "1:  movw r18, r24",
            "    add r18, r23",
            "    adc r19, r1",
            "    clr r24",
            "    clr r25",
            "    mov r22, r21",
            "    inc r22",
            "    mov r20, r23",
            "    subi r20, 0xF8",
            // North.
            "    movw r30, r18",
            "    mov r17, r23",
            "10: subi r17, 0xF0",
            "    brmi 11f",
            "    adiw r30, 16",
            "    ld r16, Z",
            "    andi r16, 0x0F",
            "    breq 10b",
            "    sub r16, r21",
            "    cpi r16, 6",
            "    brsh 11f",
            "    rcall 46f",
            // South.
            "11: movw r30, r18",
            "    mov r17, r23",
            "12: subi r17, 0x10",
            "    brmi 13f",
            "    sbiw r30, 16",
            "    ld r16, Z",
            "    andi r16, 0x0F",
            "    breq 12b",
            "    sub r16, r21",
            "    cpi r16, 6",
            "    brsh 13f",
            "    rcall 46f",
            // East.
            "13: movw r30, r18",
            "    mov r17, r20",
            "14: subi r17, 0xFF",
            "    brhc 15f",
            "    adiw r30, 1",
            "    ld r16, Z",
            "    andi r16, 0x0F",
            "    breq 14b",
            "    sub r16, r21",
            "    cpi r16, 6",
            "    brsh 15f",
            "    rcall 46f",
            // West.
            "15: movw r30, r18",
            "    mov r17, r23",
            "16: subi r17, 1",
            "    brhs 17f",
            "    ld r16, -Z",
            "    andi r16, 0x0F",
            "    breq 16b",
            "    sub r16, r21",
            "    cpi r16, 6",
            "    brsh 17f",
            "    rcall 46f",
            // North-east.
            "17: movw r30, r18",
            "    mov r17, r20",
            "18: subi r17, 0xEF",
            "    brhc 19f",
            "    brmi 19f",
            "    adiw r30, 17",
            "    ld r16, Z",
            "    andi r16, 0x0F",
            "    breq 18b",
            "    sub r16, r21",
            "    cpi r16, 6",
            "    brsh 19f",
            "    rcall 46f",
            // North-west.
            "19: movw r30, r18",
            "    mov r17, r23",
            "20: subi r17, 0xF1",
            "    brhs 21f",
            "    brmi 21f",
            "    adiw r30, 15",
            "    ld r16, Z",
            "    andi r16, 0x0F",
            "    breq 20b",
            "    sub r16, r21",
            "    cpi r16, 6",
            "    brsh 21f",
            "    rcall 46f",
            // South-east.
            "21: movw r30, r18",
            "    mov r17, r20",
            "22: subi r17, 0x0F",
            "    brhc 23f",
            "    brmi 23f",
            "    sbiw r30, 15",
            "    ld r16, Z",
            "    andi r16, 0x0F",
            "    breq 22b",
            "    sub r16, r21",
            "    cpi r16, 6",
            "    brsh 23f",
            "    rcall 46f",
            // South-west.
            "23: movw r30, r18",
            "    mov r17, r23",
            "24: subi r17, 0x11",
            "    brhs 25f",
            "    brmi 25f",
            "    sbiw r30, 17",
            "    ld r16, Z",
            "    andi r16, 0x0F",
            "    breq 24b",
            "    sub r16, r21",
            "    cpi r16, 6",
            "    brsh 25f",
            "    rcall 46f",
            // The jumps: the bytes at fixed offsets from Z (the board
            // plus the king's square less 33, then plus it); an enemy
            // knight's code, the square tested for the board (44).
            "25: movw r30, r18",
            "    sbiw r30, 33",
            "    ldd r16, Z+0",
            "    andi r16, 0x0F",
            "    cp r16, r22",
            "    brne 31f",
            "    ldi r17, -33",
            "    rcall 44f",
            "31: ldd r16, Z+2",
            "    andi r16, 0x0F",
            "    cp r16, r22",
            "    brne 32f",
            "    ldi r17, -31",
            "    rcall 44f",
            "32: ldd r16, Z+15",
            "    andi r16, 0x0F",
            "    cp r16, r22",
            "    brne 33f",
            "    ldi r17, -18",
            "    rcall 44f",
            "33: ldd r16, Z+19",
            "    andi r16, 0x0F",
            "    cp r16, r22",
            "    brne 34f",
            "    ldi r17, -14",
            "    rcall 44f",
            "34: movw r30, r18",
            "    ldd r16, Z+14",
            "    andi r16, 0x0F",
            "    cp r16, r22",
            "    brne 35f",
            "    ldi r17, 14",
            "    rcall 44f",
            "35: ldd r16, Z+18",
            "    andi r16, 0x0F",
            "    cp r16, r22",
            "    brne 36f",
            "    ldi r17, 18",
            "    rcall 44f",
            "36: ldd r16, Z+31",
            "    andi r16, 0x0F",
            "    cp r16, r22",
            "    brne 37f",
            "    ldi r17, 31",
            "    rcall 44f",
            "37: ldd r16, Z+33",
            "    andi r16, 0x0F",
            "    cp r16, r22",
            "    brne 38f",
            "    ldi r17, 33",
            "    rcall 44f",
            "38: andi r24, 0xFE",
            "    rjmp 99f",
            // A knight's code r17 from the king: on the board, its slot
            // from X (the board plus its square plus 8).
            "44: mov r16, r23",
            "    add r16, r17",
            "    andi r16, 0x88",
            "    brne 45f",
            "    movw r26, r18",
            "    add r26, r17",
            "    adc r27, r1",
            "    sbrc r17, 7",
            "    dec r27",
            "    adiw r26, 8",
            "    ld r16, X",
            "    rjmp 43f",
            // A line's first man at Z, an enemy (its code tested in
            // line, the call only for an enemy: 0.04% fewer cycles for
            // 44 B): its bit.
            "46: ldd r16, Z+8",
            // The slot r16's bit into r25:r24 (1 << slot).
            "43: ldi r17, 1",
            "    sbrc r16, 1",
            "    ldi r17, 4",
            "    sbrc r16, 0",
            "    lsl r17",
            "    sbrc r16, 2",
            "    swap r17",
            "    sbrs r16, 3",
            "    or r24, r17",
            "    sbrc r16, 3",
            "    or r25, r17",
            "45: ret",
            "99:",
            inout("r25r24") pos as *const Position => v,
            inout("r22") pos.side_to_move() as u8 => _,
            out("r16") _, out("r17") _, out("r18") _, out("r19") _, out("r20") _, out("r21") _, out("r23") _,
            out("X") _, out("Z") _,
            options(readonly),
        );
    }
    v
}

/// In check: the piece-list slots of the men of the side to move, not its
/// king, that may have a quiet move answering the check ([`SLOT_BITS`]
/// bits; in check, the quiet stage generates the moves of these men
/// only). With a pawn on the 7th, every man: its under-promotions come
/// with the quiet moves and may take the checker.
fn evading_men(pos: &Position) -> u16 {
    if pawn_on_seventh(pos) {
        0xFFFE
    } else {
        blocking_men(pos)
    }
}

/// [`evading_men`] without a pawn on the 7th: a quiet move then answers
/// only a distant slider's single check, by landing between it and the
/// king. Officers that cannot reach such a square (nothing in between
/// looked at) and pawns that cannot step onto one have none. (The host's;
/// the AVR's in assembly, below.)
#[cfg(not(target_arch = "avr"))]
fn blocking_men(pos: &Position) -> u16 {
    let us = pos.side_to_move();
    let them = us.other();
    let king = pos.king_square(us);
    let (forward, pawn, double_rank) = if us == Color::White { (16u8, PAWN, 3) } else { (0xF0, PAWN + BLACK_OFFSET, 4) };
    // The officers' checks: a knight's, or two, leave nothing to block; a
    // pawn's is not looked for (it leaves no checker below, or two).
    let mut checker = NO_SQUARE;
    let mut step = 0u8;
    for &sq in &pos.piece_list(them)[1..pos.officer_end(them).max(1) as usize] {
        if sq == NO_SQUARE {
            continue;
        }
        let r = reach(pos.code_on(sq), sq, king);
        if r == 0 {
            continue;
        }
        if r == JUMPS_THERE {
            return 0;
        }
        let mut s = sq.wrapping_add(r);
        while pos.is_empty(s) {
            s = s.wrapping_add(r);
        }
        if s == king {
            if checker != NO_SQUARE {
                // Two checkers.
                return 0;
            }
            checker = sq;
            step = r;
        }
    }
    if checker == NO_SQUARE {
        return 0;
    }
    let mut men = 0u16;
    let list = pos.piece_list(us);
    for slot in 1..pos.officer_end(us) {
        let from = list[(slot & 15) as usize];
        if from == NO_SQUARE {
            continue;
        }
        let code = pos.code_on(from);
        let mut t = checker.wrapping_add(step);
        while t != king {
            if reach(code, from, t) != 0 {
                men |= SLOT_BITS.get((slot & 15) as usize);
                break;
            }
            t = t.wrapping_add(step);
        }
    }
    // Pawns: a step, or two from the first rank, onto a square between.
    let mut t = checker.wrapping_add(step);
    while t != king {
        let one = t.wrapping_sub(forward);
        if on_board(one) {
            let two = one.wrapping_sub(forward);
            if pos.code_on(one) == pawn {
                men |= SLOT_BITS.get(pos.slot_at(one) as usize);
            } else if pos.is_empty(one) && rank_of(t) == double_rank && pos.code_on(two) == pawn {
                men |= SLOT_BITS.get(pos.slot_at(two) as usize);
            }
        }
        t = t.wrapping_add(step);
    }
    men
}

/// [`blocking_men`] by hand: the compiler's took 1,800 cycles a call and
/// 760 B. The same scans: their officers' lines to the king walked, our
/// officers' reach of each square between, the pawns behind each square
/// between.
#[cfg(target_arch = "avr")]
#[inline(never)]
fn blocking_men(pos: &Position) -> u16 {
    let us = pos.side_to_move();
    let men: u16;
    // Registers: r21:r20 the position, r22 the side to move then its
    // king's square, r23 the checker, r16 the
    // checker's step, r17 our pawns' step, r18 the slots left, r15 our
    // officers' bound then an officer's reach bits then our pawn code,
    // X a piece list, Z the board and the tables, r24:r25 the men (a
    // scratch pair before), r12:r13 a slot's bit then (r13) the rank of
    // a double step, r14 0x77 less an officer's square then a pawn's
    // square, r19 and r0 scratch.
    // SAFETY: reads the board, the slot map and the piece lists of `pos`
    // and the flash tables GEOMETRY, the copies of DIRECTIONS and REACH
    // at the ends of its page and of the page before, and SLOT_BITS;
    // every square read is on the board or, for the slot map, one of its
    // off-board columns.
    unsafe {
        core::arch::asm!(
            "    movw r30, r20",
            "    subi r30, 0x80",
            "    sbci r31, 0xFF",
            "    movw r26, r30",
            "    ld r19, X",
            "    ldi r17, 16",
            "    adiw r26, 16",
            "    sbrs r22, 0",
            "    rjmp 1f",
            "    ld r19, X",
            "    sbiw r26, 16",
            "    ldi r17, 0xF0",
            "1:  mov r22, r19",
            // Their officers (X their list): a knight's or a contact check,
            // or a second checker, leave nothing to block.
            "    ldi r23, 0xFF",
            "    adiw r26, 1",
            "    cpi r18, 2",
            "    brlo 20f",
            "    dec r18",
            "10: ld r24, X+",
            "    cpi r24, 0xFF",
            "    breq 19f",
            // (GEOMETRY starts a page, with DIRECTIONS' copy at its end
            // and REACH's at the end of the page before, FLASH_PAGES':
            // every table entry's low byte an 8-bit sum or the byte with
            // its high nibble set, the board byte's code or the entry
            // swapped; the geometry of our men's squares in the loop at
            // 31 a 0x77 - man worked out once a man: 0.04% fewer cycles,
            // 28 B smaller.)
            "    movw r30, r20",
            "    add r30, r24",
            "    adc r31, r1",
            "    ld r30, Z",
            "    ori r30, 0xF0",
            "    ldi r31, hi8({geometry}-16)",
            "    lpm r25, Z",
            "    andi r25, 7",
            "    breq 19f",
            "    ldi r30, lo8({geometry}+0x77)",
            "    add r30, r22",
            "    sub r30, r24",
            "    ldi r31, hi8({geometry})",
            "    lpm r0, Z",
            "    and r25, r0",
            "    breq 19f",
            "    cpi r25, 4",
            "    breq 8f",
            "    mov r30, r0",
            "    swap r30",
            "    ori r30, 0xF0",
            "    lpm r25, Z",
            "    mov r0, r24",
            "    add r0, r25",
            "11: movw r30, r20",
            "    add r30, r0",
            "    adc r31, r1",
            "    ld r19, Z",
            "    tst r19",
            "    brne 12f",
            "    add r0, r25",
            "    rjmp 11b",
            "12: cp r0, r22",
            "    brne 19f",
            "    cpi r23, 0xFF",
            "    brne 8f",
            "    mov r23, r24",
            "    mov r16, r25",
            "19: dec r18",
            "    brne 10b",
            "20: cpi r23, 0xFF",
            "    brne 21f",
            "8:  rjmp 90f",
            // Our officers (X our list from slot 1): one whose reach
            // covers a square between.
            "21: movw r26, r20",
            "    subi r26, 0x80",
            "    sbci r27, 0xFF",
            "    cpi r17, 16",
            "    breq 22f",
            "    adiw r26, 16",
            "22: adiw r26, 1",
            "    mov r18, r15",
            "    clr r24",
            "    clr r25",
            "    ldi r19, 2",
            "    mov r12, r19",
            "    clr r13",
            "    cpi r18, 2",
            "    brlo 40f",
            "    dec r18",
            "30: ld r19, X+",
            "    cpi r19, 0xFF",
            "    breq 39f",
            "    ldi r30, lo8({geometry}+0x77)",
            "    sub r30, r19",
            "    mov r14, r30",
            "    movw r30, r20",
            "    add r30, r19",
            "    adc r31, r1",
            "    ld r30, Z",
            "    ori r30, 0xF0",
            "    ldi r31, hi8({geometry}-16)",
            "    lpm r19, Z",
            "    andi r19, 7",
            "    breq 39f",
            "    mov r15, r19",
            "    ldi r31, hi8({geometry})",
            "    mov r19, r23",
            "31: add r19, r16",
            "    cp r19, r22",
            "    breq 39f",
            "    mov r30, r19",
            "    add r30, r14",
            "    lpm r0, Z",
            "    and r0, r15",
            "    breq 31b",
            "    or r24, r12",
            "    or r25, r13",
            "39: lsl r12",
            "    rol r13",
            "    dec r18",
            "    brne 30b",
            // Our pawns: one a step behind a square between, or two behind
            // one on the rank of double steps with the square behind empty.
            "40: ldi r19, 1",
            "    mov r15, r19",
            "    ldi r19, 3",
            "    mov r13, r19",
            "    cpi r17, 16",
            "    breq 41f",
            "    ldi r19, 7",
            "    mov r15, r19",
            "    ldi r19, 4",
            "    mov r13, r19",
            "41: mov r19, r23",
            "42: add r19, r16",
            "    cp r19, r22",
            "    breq 99f",
            "    mov r14, r19",
            "    sub r14, r17",
            "    mov r18, r14",
            "    andi r18, 0x88",
            "    brne 42b",
            "    movw r30, r20",
            "    add r30, r14",
            "    adc r31, r1",
            "    ld r0, Z",
            "    mov r18, r0",
            "    andi r18, 0x0F",
            "    cp r18, r15",
            "    breq 45f",
            "    tst r0",
            "    brne 42b",
            "    mov r18, r19",
            "    swap r18",
            "    andi r18, 0x0F",
            "    cp r18, r13",
            "    brne 42b",
            "    sub r14, r17",
            "    movw r30, r20",
            "    add r30, r14",
            "    adc r31, r1",
            "    ld r18, Z",
            "    andi r18, 0x0F",
            "    cp r18, r15",
            "    brne 42b",
            "45: movw r30, r20",
            "    add r30, r14",
            "    adc r31, r1",
            "    ldd r18, Z+8",
            "    andi r18, 0x0F",
            "    lsl r18",
            "    ldi r30, lo8({slot_bits})",
            "    ldi r31, hi8({slot_bits})",
            "    add r30, r18",
            "    adc r31, r1",
            "    lpm r0, Z+",
            "    or r24, r0",
            "    lpm r0, Z",
            "    or r25, r0",
            "    rjmp 42b",
            "90: clr r24",
            "    clr r25",
            "99:",
            geometry = sym crate::chess::GEOMETRY,
            slot_bits = sym SLOT_BITS,
            in("r21r20") pos as *const Position,
            inout("r22") us as u8 => _,
            inout("r18") pos.officer_end(us.other()) => _,
            inout("r15") pos.officer_end(us) => _,
            out("r25r24") men,
            out("r12") _, out("r13") _, out("r14") _, out("r16") _, out("r17") _,
            out("r19") _, out("r23") _, out("X") _, out("Z") _,
            options(nostack, readonly),
        );
    }
    men
}
/// A pawn of `them` guarding (attacking) `t`?
#[cfg(not(target_arch = "avr"))]
fn pawn_guarded(pos: &Position, t: Square, them: Color) -> bool {
    let pawn = make_piece(them, PAWN);
    let (a, b) = match them {
        Color::White => (t.wrapping_sub(15), t.wrapping_sub(17)),
        Color::Black => (t.wrapping_add(15), t.wrapping_add(17)),
    };
    (on_board(a) && pos.piece_at(a) == pawn) || (on_board(b) && pos.piece_at(b) == pawn)
}

/// [`see`] of a capture for the AVR's [`Picker::next_capture`], called from
/// its assembly (C ABI: the position in r25:r24, the move in r23:r22, the
/// value back in r25:r24).
#[cfg(target_arch = "avr")]
extern "C" fn capture_see(pos: &Position, m: u16) -> i16 {
    see(pos, Move(m))
}

/// A pawn of the side to move on its 7th rank? The pawn files tell at
/// once, without the walk over the piece list (most nodes have none: the
/// promotions stage is then not entered). Out of line: inlined, the side
/// to move was kept across [`Picker::next_stage`]'s loop (0.23% more
/// cycles).
#[cfg(not(target_arch = "avr"))]
#[inline(never)]
fn pawn_on_seventh(pos: &Position) -> bool {
    // (Unrolled: the loop's compare and branch cost 32 cycles a call,
    // 0.15% of `bench engine`'s. Each colour's files at a constant
    // offset: smaller than the index worked out.)
    let (files, rank) = if pos.side_to_move() == Color::White {
        (pos.pawn_files(Color::White), 1 << 6)
    } else {
        (pos.pawn_files(Color::Black), 1 << 1)
    };
    let any = files[0] | files[1] | files[2] | files[3] | files[4] | files[5] | files[6] | files[7];
    any & rank != 0
}

/// [`pawn_on_seventh`] by hand: the compiler's worked out the side's
/// files and its rank bit in a branch each, 80 B; here one branch sets
/// both: 58 B, 0.08% fewer cycles.
#[cfg(target_arch = "avr")]
#[inline(always)]
fn pawn_on_seventh(pos: &Position) -> bool {
    pawn_on_seventh_bit(pos) != 0
}

/// [`pawn_on_seventh_bit`]'s loads, also run in line by the AVR's
/// `next_of_captures`: from Z the position, r24 left the side's 7th-rank
/// bit of its pawn files (the `and`'s flags: Z clear if a pawn is there);
/// r18, r19 and Z used. `$l`: a local label free in the caller. Wants the
/// operands `side_lo`, `side_hi` (minus [`Position::SIDE_OFFSET`]) and
/// `files` (the pawn files less the side's offset).
#[cfg(target_arch = "avr")]
macro_rules! pawn_on_seventh_asm {
    ($l:literal) => {
        concat!(
            "    subi r30, {side_lo}\n",
            "    sbci r31, {side_hi}\n",
            "    ld r18, Z\n",
            "    ldi r24, 0x40\n",
            "    sbrs r18, 0\n",
            "    rjmp ", $l, "f\n",
            "    adiw r30, 8\n",
            "    ldi r24, 0x02\n",
            $l, ":  ldd r18, Z+{files}\n",
            "    ldd r19, Z+{files}+1\n",
            "    or r18, r19\n",
            "    ldd r19, Z+{files}+2\n",
            "    or r18, r19\n",
            "    ldd r19, Z+{files}+3\n",
            "    or r18, r19\n",
            "    ldd r19, Z+{files}+4\n",
            "    or r18, r19\n",
            "    ldd r19, Z+{files}+5\n",
            "    or r18, r19\n",
            "    ldd r19, Z+{files}+6\n",
            "    or r18, r19\n",
            "    ldd r19, Z+{files}+7\n",
            "    or r18, r19\n",
            "    and r24, r18",
        )
    };
}

/// [`pawn_on_seventh`]'s rank bit of the side's files (not made a `bool`
/// in the function: its callers test the byte as they would the `bool`,
/// 4 B fewer).
#[cfg(target_arch = "avr")]
#[inline(never)]
fn pawn_on_seventh_bit(pos: &Position) -> u8 {
    const SIDE: usize = Position::SIDE_OFFSET;
    const FILES: usize = Position::PAWN_FILES_OFFSET - SIDE;
    const { assert!(FILES + 15 < 64 && Color::White as u8 == 0 && Color::Black as u8 == 1) };
    let any: u8;
    // SAFETY: reads the side to move and its pawn files.
    unsafe {
        core::arch::asm!(
            pawn_on_seventh_asm!("1"),
            side_lo = const (0u16.wrapping_sub(SIDE as u16) & 0xFF),
            side_hi = const (0u16.wrapping_sub(SIDE as u16) >> 8),
            files = const FILES,
            inout("Z") pos as *const Position => _,
            out("r24") any,
            out("r18") _, out("r19") _,
            options(nostack, readonly),
        );
    }
    any
}

// `is_late_move` tells a queen promotion by the low byte's 0x88 alone.
const _: () = {
    let q = Move::new(0, 0, MoveKind::PromoteQueen, false).0 as u8 & 0x88;
    let n = Move::new(0, 0, MoveKind::PromoteKnight, false).0 as u8 & 0x88;
    let b = Move::new(0, 0, MoveKind::PromoteBishop, false).0 as u8 & 0x88;
    let r = Move::new(0, 0, MoveKind::PromoteRook, false).0 as u8 & 0x88;
    assert!(q == 0x88 && n != 0x88 && b != 0x88 && r != 0x88);
};

/// [`Picker::next`]'s answer as its assembly leaves it: the move in
/// r23:r22, the stage in r24 (a byte array instead made the compiler add
/// code, never run, to put the bytes together: 18 B a function).
#[cfg(target_arch = "avr")]
#[repr(C)]
struct ReturnRegs(u16, u8);

#[cfg(target_arch = "avr")]
extern "C" {
    /// [`Picker::next_of_captures`] past its register saves: an entry
    /// into its assembly for [`Picker::next_first`] (r17 and r16 pushed,
    /// the killers in them; the picker in r25:r24, the position in
    /// r23:r22; only jumped to from assembly).
    fn prodigy_captures_pushed();
}

/// What the AVR's [`Picker::next_capture`] and
/// [`Picker::next_of_captures`] (naked) take for granted.
#[cfg(target_arch = "avr")]
const _: () = {
    // The stage's bits: the winning and equal stages' own values (2
    // and 4), the losing stage's (12) above 7: one compare, not a
    // test for each.
    assert!(Stage::WinningCaptures as u8 == 2 && Stage::EqualCaptures as u8 == 4);
    assert!(Stage::LosingCaptures as u8 > 7);
    assert!(CLASSES & 7 == 0 && Position::SIDE_OFFSET < 256);
    // `slot`'s queen note: a square or 0x08 (none) below 0x78, the rest
    // (unseen, several) above.
    assert!(QUEEN_UNSEEN >= 0x78);
    // `Option<(Move, Stage)>` in r22, r23 (the move) and r24 (the stage;
    // 0xFF: none), as `Picker::next` returns it.
    use core::mem::{transmute, MaybeUninit};
    // SAFETY: same sizes (3 bytes, below); the bytes are only looked at.
    let some: [u8; 3] = unsafe { transmute(Some((Move(0x1234), Stage::Done))) };
    assert!(some[0] == 0x34 && some[1] == 0x12 && some[2] == Stage::Done as u8);
    // SAFETY: as above; only the stage's byte, the one None sets, is read.
    let none: [MaybeUninit<u8>; 3] = unsafe { transmute(None::<(Move, Stage)>) };
    assert!(unsafe { none[2].assume_init() } == 0xFF);
};

/// The picker of one node.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct Picker {
    /// First (`repr(C)`, no padding: every field is byte-aligned on the
    /// AVR): its address is the picker's, so the quiet loops keep no
    /// second pointer for it in saved registers (0.31% fewer cycles).
    gen: MoveGen,
    pub stage: Stage,
    flags: u8,
    main: Move,
    /// Enemy piece-list slots attacked by at least one capture (less,
    /// once the winning stage looked at them, the pawns that no pawn of
    /// ours attacks: the equal stage's victims); from the equal stage on,
    /// the losing stage's ([`Picker::begin_captures`]), bit 0 telling
    /// whether it asks the swap-off.
    victims: u16,
    /// Victims not yet served in the current capture stage.
    pending: u16,
    /// Attacker cursor ([`next_attacker`]) or sub-step.
    cursor: u8,
    /// Piece-list slot being expanded (promotions); in the quiet stage,
    /// its pass ([`Picker::in_pass`]); in the capture stages, the AVR's
    /// note of our queen ([`QUEEN_UNSEEN`] until looked for).
    slot: u8,
    /// The hanging men's slots (from the hanging-men stage on); before,
    /// from the winning captures to the equal ones, the victims (a slot
    /// mask) of which the winning stage turned a capture down by its
    /// swap-off: the only ones the losing stage need look at. (No byte
    /// more a ply: the losing stage scanned every victim again, its
    /// attackers and their swap-offs.)
    hang: [u8; 2],
}

impl Picker {
    /// All moves; `main` is tried first if pseudo-legal (NONE: no main
    /// line); `hang` enables the hanging-men stage (worth its cost away from
    /// the horizon).
    pub const fn new(main: Move, hang: bool) -> Picker {
        Picker {
            stage: Stage::MainLine,
            flags: if hang { HANG } else { 0 },
            main,
            victims: 0,
            pending: 0,
            cursor: 0,
            slot: 0,
            hang: [0; 2],
            gen: MoveGen::new(),
        }
    }

    /// The main-line move this picker tries first.
    #[inline(always)]
    pub fn main(&self) -> Move {
        self.main
    }

    /// Re-initialises in place (no temporary on the caller's stack).
    /// In line: the callers' arguments are constants, the body a few
    /// stores (called, 28 cycles, 27,000 calls in `bench engine`; in
    /// line 0.20% fewer cycles for 20 B).
    #[inline(always)]
    pub fn reset(&mut self, main: Move, hang: bool, quiescence: bool) {
        self.stage = if quiescence {
            Stage::CapturesInit
        } else {
            Stage::MainLine
        };
        self.flags = if quiescence {
            QUIESCENCE
        } else if hang {
            HANG
        } else {
            0
        };
        self.main = main;
        self.hang = [0; 2];
    }

    /// After [`Picker::reset`] for all moves: the side to move is in
    /// check, so the quiet stage generates only the moves of the men that
    /// may answer it ([`evading_men`]).
    #[inline(always)]
    pub fn evade(&mut self, pos: &Position) {
        // (Not for a lone king, whose own scans are cheaper: KBNK bench
        // 2.9% more cycles with them.)
        if pos.officer_end(pos.side_to_move()) > 1 {
            self.flags |= IN_CHECK;
        }
    }

    /// Reset for the root's later passes, which keep only moves that take
    /// nothing: the main line, the victims' scan and the capture stages
    /// are passed over (as if no victim were attacked); the moves that
    /// take nothing come in [`Picker::reset`]'s order.
    pub fn reset_without_captures(&mut self, pos: &Position, main: Move) {
        self.reset(main, true, false);
        self.victims = 0;
        if pawn_on_seventh(pos) {
            self.stage = Stage::Promotions;
            self.slot = 1;
            self.cursor = 0;
        } else {
            // (The equal stage, with no victim, ends at once.)
            self.stage = Stage::EnPassant;
            self.cursor = 0;
        }
    }

    /// Reset for the quiescence search's captures and quiet checks?
    pub fn is_quiescence(&self) -> bool {
        self.flags & QUIESCENCE != 0
    }

    /// Quiescence right after [`Picker::reset`]: delta pruning decided
    /// before any attacker is looked for. Victims worth `floor` or less
    /// are left out (capturing them cannot lift the score to alpha), and
    /// when no enemy man is worth more, the attack scan is skipped
    /// altogether. The search still checks each move against its current
    /// alpha, which only rises, so the moves left out are exactly those it
    /// would have pruned.
    ///
    /// `mating`: only a mate reaches alpha. Then every victim is kept
    /// (the search keeps the captures that give check): with them
    /// left out, a defender saw no mate behind a move that allowed a
    /// capture with mate, and preferred it to the moves already found
    /// to be mated. (Keeping them at every first quiescence ply, with
    /// the checking captures spared by delta pruning, solved WAC.293's
    /// mate in 4 at depth 7 with the other pruning off, but cost 1.8%
    /// more nodes and 2.9% more cycles to depth 4 in `bench engine`;
    /// WAC at 10 s on the host engine at 567, 1,134 and 4,000 nps: 240,
    /// 246, 258 against 238, 248, 258. Left out.)
    ///
    /// A single victim kept is asked whether we attack it at all
    /// ([`Position::is_square_attacked`], about 200 cycles) instead of
    /// the scan of all our men ([`attacked_victims`], 1,260): in `bench
    /// engine` 1,190 of the 16,000 calls keep one victim, 932 of them not
    /// attacked: 0.27% fewer cycles for 76 B. (Most calls keep every
    /// victim, the floor below a pawn.) Each of up to two, three or four
    /// kept victims asked in a loop: 0.27%, 0.26%, 0.23% fewer, 156 B.
    pub fn prune_victims(&mut self, pos: &Position, floor: i16, mating: bool) {
        if self.stage != Stage::CapturesInit {
            return;
        }
        let mut keep = 0xFFFEu16;
        if floor >= VALUE.get(PAWN as usize) && !mating {
            // Pawns (worth 100, not above `floor`) and the king (0) are
            // never kept: only the officers' slots are looked at.
            let them = pos.side_to_move().other();
            let list = pos.piece_list(them);
            let end = pos.officer_end(them);
            let offset = if pos.side_to_move() == Color::White { BLACK_OFFSET } else { 0 };
            keep = 0;
            let mut kept = 0u8;
            let mut last = NO_SQUARE;
            let mut slot = 1u8;
            while slot < end {
                let sq = list[(slot & 15) as usize];
                if sq != NO_SQUARE && VALUE.get(pos.code_on(sq).wrapping_sub(offset) as usize & 7) > floor {
                    keep |= SLOT_BITS.get((slot & 15) as usize);
                    kept += 1;
                    last = sq;
                }
                slot += 1;
            }
            if kept == 1 && !pos.is_square_attacked(last, pos.side_to_move()) {
                keep = 0;
            }
        }
        let mut queen = QUEEN_UNSEEN;
        if keep != 0 {
            let (v, classes) = attacked_victims(pos, pos.side_to_move());
            queen = queen_note();
            self.victims = v & keep;
            self.flags |= classes;
        } else {
            self.victims = 0;
        }
        self.begin_captures(Stage::WinningCaptures);
        self.slot = queen;
    }

    /// Quiescence, after [`Picker::reset`]: the captures are followed by
    /// the quiet moves that give check ([`Position::gives_check`], exact,
    /// before the move is made) and whose swap-off value is not negative.
    /// The generator of the full-width stages serves them, so no RAM is
    /// added.
    #[inline(always)]
    pub fn allow_checks(&mut self) {
        self.flags |= CHECKS;
    }

    /// Quiescence: good captures, queen promotions, en passant.
    pub const fn quiescence() -> Picker {
        Picker {
            stage: Stage::CapturesInit,
            flags: QUIESCENCE,
            main: Move::NONE,
            victims: 0,
            pending: 0,
            cursor: 0,
            slot: 0,
            hang: [0; 2],
            gen: MoveGen::new(),
        }
    }

    /// The next pseudo-legal move and the stage it came from. `killers` are
    /// this ply's killers; `pos` must be unchanged between calls.
    #[cfg(not(target_arch = "avr"))]
    pub fn next(&mut self, pos: &Position, killers: &[Move; 2]) -> Option<(Move, Stage)> {
        // The quiet and capture stages return three moves in four: served
        // here, with fewer registers to save (9: the killers and the stage
        // are read again, not kept across the calls; 14 when they were),
        // the rest out of line. (All
        // in one function saved all 18 and set up a stack frame on every
        // call, 200 of its 233 cycles. The quiet stage alone here: 0.11%
        // fewer cycles for 276 B; the captures alone 0.74% more; both 0.31%
        // fewer for 340 B.) Each path its own function, reached by a jump
        // from a dispatch that saves no register: the calls that go on to
        // `next_stage` no longer save the quiet loop's 8 (0.38% fewer
        // cycles for 36 B). (The main line and the victims' scan out of
        // `next_stage` too, in a function saving 8 registers, not 16:
        // 0.06% fewer cycles for 36 B, KBNK 0.07% more: left.)
        let stage = self.stage;
        if stage == Stage::Quiets && self.slot & !EVADE == 0 {
            return self.next_quiet(pos, killers);
        }
        if matches!(stage, Stage::WinningCaptures | Stage::EqualCaptures | Stage::LosingCaptures) {
            return self.next_of_captures(pos, killers);
        }
        self.next_stage(pos, killers)
    }

    /// [`Picker::next`]'s dispatch by hand: a jump to the function of the
    /// stage, the arguments left where they came (the three have its
    /// signature, and the one jumped to returns to its caller). The
    /// quiet stage tested first, then the capture stages; the compiler's
    /// range tests took 19 cycles to the quiet stage, 11 here. `bench
    /// engine` 0.54% fewer cycles, 28 B smaller: the dispatch 207,000
    /// cycles fewer, and the search's loops around its calls 1,134,000
    /// (qsearch and search, the same nodes; their code around the call
    /// compiled anew, no longer shaped by this body's). The victims'
    /// scan (the main line's move none, or tried) to
    /// [`Picker::next_first`], not [`Picker::next_stage`]: 0.27% fewer
    /// cycles for 80 B. The hanging-men stage's later calls to
    /// [`Picker::next_hanging_fast`]: 0.24% fewer for 128 B. (The killer
    /// stages to a function of their own saving 8 registers, on to
    /// `next_stage` from castling: 0.02% more cycles, +192 B; with
    /// castling and the hanging men there too, 0.06% fewer, +268 B.)
    #[cfg(target_arch = "avr")]
    #[inline(never)]
    pub fn next(&mut self, pos: &Position, killers: &[Move; 2]) -> Option<(Move, Stage)> {
        // SAFETY: reads the picker's stage and slot, then jumps to a
        // method of the same signature with the argument registers and
        // the stack as this function received them (nothing pushed: the
        // body is this block alone, never inlined).
        const { assert!(Stage::MainLine as u8 == 0) };
        let (m, c): (u16, u8);
        unsafe {
            core::arch::asm!(
                "    movw r30, r24",
                "    ldd r18, Z+{stage}",
                "    cpi r18, {quiets}",
                "    brne 1f",
                "    ldd r18, Z+{slot}",
                "    andi r18, {not_evade}",
                "    brne 3f",
                "    rjmp {quiet}",
                "1:  cpi r18, {winning}",
                "    breq 2f",
                "    cpi r18, {equal}",
                "    breq 2f",
                "    cpi r18, {losing}",
                "    brne 4f",
                "2:  rjmp {captures}",
                // The victims' scan, the main line's move none or tried.
                "4:  cpi r18, {hanging}",
                "    brne 6f",
                "    rjmp {hanging_fast}",
                "6:  cpi r18, {init}",
                "    breq 5f",
                "    tst r18",
                "    brne 3f",
                "    ldd r18, Z+{main}",
                "    ldd r19, Z+{main}+1",
                "    or r18, r19",
                "    brne 3f",
                "5:  rjmp {start}",
                "3:  rjmp {other}",
                stage = const core::mem::offset_of!(Picker, stage),
                slot = const core::mem::offset_of!(Picker, slot),
                quiets = const Stage::Quiets as u8,
                winning = const Stage::WinningCaptures as u8,
                equal = const Stage::EqualCaptures as u8,
                losing = const Stage::LosingCaptures as u8,
                not_evade = const !EVADE,
                init = const Stage::CapturesInit as u8,
                hanging = const Stage::Hanging as u8,
                hanging_fast = sym Self::next_hanging_fast,
                main = const core::mem::offset_of!(Picker, main),
                start = sym Self::next_first,
                quiet = sym Self::next_quiet,
                captures = sym Self::next_of_captures,
                other = sym Self::next_stage,
                in("r25r24") self as *mut Picker,
                inout("r23r22") pos as *const Position => m,
                in("r21r20") killers as *const [Move; 2],
                lateout("r24") c,
                out("r18") _, out("r19") _,
                out("Z") _,
            );
        }
        // (Never reached: the function jumped to returns to the caller.
        // The return registers as outputs make the compiler add nothing
        // after the block but the `ret`, which the linker's relaxation
        // drops after the block's last jump; with `noreturn` it took every
        // call for the end of its caller.)
        const { assert!(core::mem::size_of::<Option<(Move, Stage)>>() == 3) };
        // SAFETY: not reached (above); the bytes are those of the callee's
        // answer, in the return registers' order.
        unsafe { core::mem::transmute::<ReturnRegs, Option<(Move, Stage)>>(ReturnRegs(m, c)) }
    }

    /// [`Picker::next`] in the quiet stage's single pass.
    #[cfg(not(target_arch = "avr"))]
    #[inline(never)]
    fn next_quiet(&mut self, pos: &Position, killers: &[Move; 2]) -> Option<(Move, Stage)> {
        loop {
            while let Some(m) = self.gen.next(pos) {
                if self.is_late_quiet(pos, m, killers) {
                    return Some((m, Stage::Quiets));
                }
            }
            if self.slot != EVADE || !self.next_evading_man() {
                break;
            }
        }
        self.begin_captures(Stage::LosingCaptures);
        // (Not through `next_stage`: its 16 register saves.)
        self.next_of_captures(pos, killers)
    }

    /// [`Picker::next_quiet`] by hand: the body one block, the picker in
    /// Y (saved here, as [`MoveGen::next_avr`] saves it: no copy into Z
    /// for the fields), the position in r17:r16, the killers in r15:r14.
    /// [`Picker::is_late_move`]'s tests a byte of the move at a time,
    /// each reject a short branch back to the generator's call (the
    /// compiler's 16-bit masks and branches around long jumps cost 6
    /// cycles a move; then, with the tests an inline block in the
    /// compiler's loop, its flag's set and test and the registers'
    /// copies for the block, 9 cycles a call); the pass's end into the
    /// losing captures a jump to [`Picker::next_of_captures`], not a
    /// call. `bench engine` 0.15% fewer cycles than that loop, 12 B
    /// less. (The tests not in [`Picker::next_stage`]: fixed registers
    /// cost that function a frame and two register saves, 26 cycles a
    /// call.) The killers read each time: held in registers across the
    /// generator's calls, they cost four register saves.
    #[cfg(target_arch = "avr")]
    #[inline(never)]
    fn next_quiet(&mut self, pos: &Position, killers: &[Move; 2]) -> Option<(Move, Stage)> {
        use core::mem::offset_of;
        const PROMOTION: u8 = (Move::new(0, 0, MoveKind::PromoteKnight, false).0 >> 8) as u8;
        const CAPTURE: u8 = (Move::new(0, 0, MoveKind::Normal, true).0 >> 8) as u8;
        const CASTLE: u8 = Move::new(0, 0, MoveKind::Castle, false).0 as u8;
        const {
            assert!(PROMOTION == 1 << 3 && CAPTURE == 1 << 7 && CASTLE & 0x77 == 0);
            assert!(offset_of!(Picker, gen) == 0 && offset_of!(Picker, hang) < 63);
        };
        let (m, c): (u16, u8);
        // SAFETY: the block is the body, its arguments where the ABI
        // brings them; it leaves by `ret` or by a jump to a method of the
        // same signature with them as received, everything pushed popped
        // first. It restores r14..r17 and Y, reads the killers, the
        // picker's fields and the slot map at the move's origin (on the
        // board), writes the capture stage's fields as `begin_captures`
        // does; `next_avr` (C ABI) and `next_evading_man` keep r14..r17
        // and Y.
        unsafe { core::arch::asm!(
            "    push r14",
            "    push r15",
            "    push r16",
            "    push r17",
            "    push r28",
            "    push r29",
            "    movw r28, r24",
            "    movw r16, r22",
            "    movw r14, r20",
            "1:  movw r24, r28",
            "    movw r22, r16",
            "    call {gen_next}",
            "    movw r22, r24",
            "    cp r24, r1",
            "    cpc r25, r1",
            "    breq 20f",
            "    sbrc r23, 3",
            "    rjmp 5f",
            "    sbrc r23, 7",
            "    rjmp 1b",
            "    mov r18, r22",
            "    andi r18, 0x88",
            "    cpi r18, {castle}",
            "    breq 1b",
            "    movw r30, r14",
            "    ld r18, Z+",
            "    ld r19, Z+",
            "    cp r22, r18",
            "    cpc r23, r19",
            "    breq 1b",
            "    ld r18, Z+",
            "    ld r19, Z",
            "    cp r22, r18",
            "    cpc r23, r19",
            "    breq 1b",
            "    ldd r18, Y+{main}",
            "    ldd r19, Y+{main}+1",
            "    cp r22, r18",
            "    cpc r23, r19",
            "    breq 1b",
            // A move of a hanging man had its stage.
            "    ldd r18, Y+{hang}",
            "    tst r18",
            "    breq 8f",
            "    ldd r19, Y+{hang}+1",
            "    mov r30, r22",
            "    andi r30, 0x77",
            "    clr r31",
            "    add r30, r16",
            "    adc r31, r17",
            "    ldd r30, Z+8",
            "    andi r30, 0x0F",
            "    cp r30, r18",
            "    breq 1b",
            "    cp r30, r19",
            "    brne 8f",
            "    tst r30",
            "    brne 1b",
            "    rjmp 8f",
            // Promotions: the queen's had its stage (its kind's two
            // low bits, 0x88 of the low byte); the others come here
            // unless the main move.
            "5:  mov r18, r22",
            "    andi r18, 0x88",
            "    cpi r18, 0x88",
            "    breq 1b",
            "    ldd r18, Y+{main}",
            "    ldd r19, Y+{main}+1",
            "    cp r22, r18",
            "    cpc r23, r19",
            "    breq 1b",
            "8:  ldi r24, {quiets}",
            "    pop r29",
            "    pop r28",
            "    pop r17",
            "    pop r16",
            "    pop r15",
            "    pop r14",
            "    ret",
            // The generator's end: in check, the next man that may answer.
            "20: ldd r24, Y+{slot}",
            "    cpi r24, {evade}",
            "    brne 21f",
            "    movw r24, r28",
            "    call {evading}",
            "    cpse r24, r1",
            "    rjmp 1b",
            // `begin_captures(LosingCaptures)`, then its captures.
            "21: ldi r24, {losing}",
            "    std Y+{stage}, r24",
            "    std Y+{cursor}, r1",
            "    ldi r24, {unseen}",
            "    std Y+{slot}, r24",
            "    ldd r24, Y+{victims}",
            "    ldd r25, Y+{victims}+1",
            "    andi r24, 0xFE",
            "    std Y+{pending}, r24",
            "    std Y+{pending}+1, r25",
            "    movw r24, r28",
            "    movw r22, r16",
            "    movw r20, r14",
            "    pop r29",
            "    pop r28",
            "    pop r17",
            "    pop r16",
            "    pop r15",
            "    pop r14",
            "    jmp {captures}",
            castle = const CASTLE,
            main = const offset_of!(Picker, main),
            hang = const offset_of!(Picker, hang),
            slot = const offset_of!(Picker, slot),
            stage = const offset_of!(Picker, stage),
            cursor = const offset_of!(Picker, cursor),
            victims = const offset_of!(Picker, victims),
            pending = const offset_of!(Picker, pending),
            quiets = const Stage::Quiets as u8,
            losing = const Stage::LosingCaptures as u8,
            evade = const EVADE,
            unseen = const QUEEN_UNSEEN,
            gen_next = sym MoveGen::next_avr,
            evading = sym Self::next_evading_man,
            captures = sym Self::next_of_captures,
            in("r25r24") self as *mut Picker,
            inout("r23r22") pos as *const Position => m,
            in("r21r20") killers as *const [Move; 2],
            lateout("r24") c,
            out("r18") _, out("r19") _, out("X") _, out("Z") _,
        ) };
        // (Never reached, as in `next`: every path returns or jumps.)
        // SAFETY: not reached.
        unsafe { core::mem::transmute::<ReturnRegs, Option<(Move, Stage)>>(ReturnRegs(m, c)) }
    }

    /// [`Picker::next`] in a capture stage. The winning stage's end into
    /// the equal one, and the ends after which nothing is left, are passed
    /// here, as [`Picker::next_stage`] would; the others go on there.
    /// (On the AVR the capture tried in assembly, the arguments pushed
    /// around the call, the stage's end a jump to this loop's rest, the
    /// losing stage's end in line: 0.05% more cycles, +76 B: 18,185 of
    /// the 36,203 calls reach the stage's end, which costs as much again.
    /// Now all in assembly: below.)
    #[cfg(not(target_arch = "avr"))]
    #[inline(never)]
    fn next_of_captures(&mut self, pos: &Position, killers: &[Move; 2]) -> Option<(Move, Stage)> {
        loop {
            if self.pending != 0 {
                let m = self.next_capture(pos, self.stage);
                if !m.is_none() {
                    return Some((m, self.stage));
                }
            }
            // (The common ends of the capture stages, here: `next_stage`
            // saved 16 registers for them.)
            let stage = self.stage;
            if stage == Stage::WinningCaptures && !pawn_on_seventh(pos) {
                self.begin_captures(Stage::EqualCaptures);
                continue;
            }
            if stage == Stage::LosingCaptures
                || stage == Stage::EqualCaptures && self.flags & (QUIESCENCE | CHECKS) == QUIESCENCE && pos.ep_square() == NO_SQUARE
            {
                self.stage = Stage::Done;
                return None;
            }
            return self.next_stage(pos, killers);
        }
    }

    /// [`Picker::next_of_captures`] by hand: the function's body one
    /// block, its arguments where the ABI brings them, leaving by `ret`
    /// or by a jump to [`Picker::next_stage`] with them as received. The
    /// capture asked of [`Picker::next_capture`], which keeps r16 and r17
    /// and gives back the picker and the position, so that only the
    /// killers are kept (r17:r16); the stages' ends in line (the winning
    /// stage's into the equal one: [`pawn_on_seventh`] and
    /// [`Picker::begin_captures`] by hand). The compiler's loop saved 8
    /// registers on every call, and called those two: `bench engine`
    /// 0.25% fewer cycles with the capture and the winning stage's end
    /// here, the other ends left to the loop, +196 B; all here (the loop
    /// left to the host), 0.74% fewer, +72 B.
    #[cfg(target_arch = "avr")]
    #[inline(never)]
    #[allow(named_asm_labels)]
    fn next_of_captures(&mut self, pos: &Position, killers: &[Move; 2]) -> Option<(Move, Stage)> {
        // `Position::ep` follows `side` (asserted by `unmake_move`).
        const EP: usize = Position::SIDE_OFFSET + 1;
        // SAFETY: the block is the body, its arguments where the ABI
        // brings them, and it leaves by `ret` or by a jump to a method of
        // the same signature with them as received (nothing pushed left);
        // it reads and writes the picker's fields (the capture stages'),
        // reads the position's side, en-passant square and pawn files;
        // `next_capture` keeps r16 and r17 and returns the picker and the
        // position (there).
        let (m, c): (u16, u8);
        unsafe { core::arch::asm!(
            "    push r16",
            "    push r17",
            "    movw r16, r20",
            ".global prodigy_captures_pushed",
            "prodigy_captures_pushed:",
            "    movw r30, r24",
            "    ldd r18, Z+{pending}",
            "    ldd r19, Z+{pending}+1",
            "    or r18, r19",
            "    breq 7f",
            "2:  ldd r20, Z+{stage}",
            "    call {capture}",
            "    cp r24, r1",
            "    cpc r25, r1",
            "    breq 3f",
            "    movw r30, r20",
            "    movw r22, r24",
            "    ldd r24, Z+{stage}",
            "    pop r17",
            "    pop r16",
            "    ret",
            // None left: r21:r20 the picker, r23:r22 the position.
            "7:  movw r20, r24",
            "3:  movw r30, r20",
            "    ldd r18, Z+{stage}",
            "    cpi r18, {winning}",
            "    breq 10f",
            "    cpi r18, {equal}",
            "    brne 8f",
            // The equal stage's end: nothing after it in quiescence
            // without checks nor en passant; with no en-passant square,
            // the full width's killers next (as `next_stage`'s en-passant
            // stage would set them: two turns of its loop fewer, 0.17%
            // fewer cycles for 12 B); the rest from the en-passant stage.
            "    movw r26, r22",
            "    subi r26, {ep_lo}",
            "    sbci r27, {ep_hi}",
            "    ld r19, X",
            "    ldi r18, {en_passant}",
            "    std Z+{cursor}, r1",
            "    cpi r19, {no_square}",
            "    brne 12f",
            "    ldd r19, Z+{flags}",
            "    sbrs r19, {q_bit}",
            "    ldi r18, {killer1}",
            "    andi r19, {qc}",
            "    cpi r19, {q}",
            "    breq 8f",
            "12: std Z+{stage}, r18",
            "    rjmp 4f",
            // (The losing stage's end: nothing after it.)
            "8:  ldi r18, {done}",
            "    std Z+{stage}, r18",
            "    ldi r24, 0xFF",
            "    pop r17",
            "    pop r16",
            "    ret",
            // The other stages on in `next_stage`.
            "4:  movw r24, r20",
            "    movw r20, r16",
            "    pop r17",
            "    pop r16",
            "    jmp {rest}",
            // The winning stage's end: a pawn on the 7th
            // ([`pawn_on_seventh_bit`]'s loads)?
            "10: movw r30, r22",
            pawn_on_seventh_asm!("5"),
            "    brne 4b",
            // None: `begin_captures(EqualCaptures)` after the winning
            // stage, then its captures.
            "    movw r30, r20",
            "    ldi r18, {equal}",
            "    std Z+{stage}, r18",
            "    ldd r24, Z+{victims}",
            "    ldd r25, Z+{victims}+1",
            "    andi r24, 0xFE",
            "    std Z+{pending}, r24",
            "    std Z+{pending}+1, r25",
            "    ldd r18, Z+{hang}",
            "    ldd r19, Z+{hang}+1",
            "    ld r26, Z",
            "    ldd r27, Z+1",
            "    and r26, r18",
            "    and r27, r19",
            "    or r26, r27",
            "    breq 6f",
            "    ori r18, 1",
            "6:  std Z+{victims}, r18",
            "    std Z+{victims}+1, r19",
            "    std Z+{hang}, r1",
            "    std Z+{hang}+1, r1",
            "    std Z+{cursor}, r1",
            "    or r24, r25",
            "    brne 11f",
            "    rjmp 3b",
            "11: movw r24, r20",
            "    rjmp 2b",
            pending = const core::mem::offset_of!(Picker, pending),
            stage = const core::mem::offset_of!(Picker, stage),
            flags = const core::mem::offset_of!(Picker, flags),
            victims = const core::mem::offset_of!(Picker, victims),
            hang = const core::mem::offset_of!(Picker, hang),
            cursor = const core::mem::offset_of!(Picker, cursor),
            winning = const Stage::WinningCaptures as u8,
            equal = const Stage::EqualCaptures as u8,
            done = const Stage::Done as u8,
            en_passant = const Stage::EnPassant as u8,
            killer1 = const Stage::Killer1 as u8,
            q_bit = const QUIESCENCE.trailing_zeros(),
            qc = const QUIESCENCE | CHECKS,
            q = const QUIESCENCE,
            no_square = const NO_SQUARE,
            ep_lo = const (0u16.wrapping_sub(EP as u16) & 0xFF),
            ep_hi = const (0u16.wrapping_sub(EP as u16) >> 8),
            side_lo = const (0u16.wrapping_sub(Position::SIDE_OFFSET as u16) & 0xFF),
            side_hi = const (0u16.wrapping_sub(Position::SIDE_OFFSET as u16) >> 8),
            files = const Position::PAWN_FILES_OFFSET - Position::SIDE_OFFSET,
            capture = sym Self::next_capture,
            rest = sym Self::next_stage,
            in("r25r24") self as *mut Picker,
            inout("r23r22") pos as *const Position => m,
            in("r21r20") killers as *const [Move; 2],
            lateout("r24") c,
            out("r18") _, out("r19") _, out("X") _, out("Z") _,
        ) };
        // (Never reached, as in `next`: every path returns or jumps.)
        // SAFETY: not reached.
        unsafe { core::mem::transmute::<ReturnRegs, Option<(Move, Stage)>>(ReturnRegs(m, c)) }
    }

    /// The victims' scan of [`Stage::CapturesInit`] (then the winning
    /// stage), for [`Picker::next_stage`] and [`Picker::next_first`].
    #[inline(never)]
    fn init_captures(&mut self, pos: &Position) {
        let (v, classes, queen) = if self.flags & IN_CHECK != 0 {
            (checking_or_touching(pos), CLASSES, QUEEN_UNSEEN)
        } else {
            let (v, classes) = attacked_victims(pos, pos.side_to_move());
            (v, classes, queen_note())
        };
        self.victims = v;
        self.flags = (self.flags & !CLASSES) | classes;
        self.begin_captures(Stage::WinningCaptures);
        self.slot = queen;
    }

    /// [`Picker::next`] at the victims' scan (the main line's move none,
    /// or tried), on the AVR: the scan, then the captures in
    /// [`Picker::next_of_captures`], not through [`Picker::next_stage`]
    /// (16 register saves: the capture found by the first call at most
    /// nodes now comes with 6; `bench engine` 0.27% fewer cycles, 80 B
    /// more with the dispatch's tests). The body one block, as
    /// [`Picker::next_of_captures`]'s; it leaves by a jump there.
    #[cfg(target_arch = "avr")]
    #[inline(never)]
    fn next_first(&mut self, pos: &Position, killers: &[Move; 2]) -> Option<(Move, Stage)> {
        let (m, c): (u16, u8);
        // SAFETY: the block is the body, its arguments where the ABI
        // brings them; it saves what it uses of r12..r17 around the call
        // of `init_captures` (which keeps them) and jumps on with the
        // arguments as received, nothing left pushed.
        unsafe { core::arch::asm!(
            "    push r16",
            "    push r17",
            "    push r12",
            "    push r13",
            "    push r14",
            "    push r15",
            "    movw r12, r24",
            "    movw r14, r22",
            "    movw r16, r20",
            "    call {init}",
            "    movw r24, r12",
            "    movw r22, r14",
            "    pop r15",
            "    pop r14",
            "    pop r13",
            "    pop r12",
            // (Into `next_of_captures` past its saves, which are these:
            // r17 and r16 pushed, the killers in them; not popped here to
            // be pushed there again: 0.05% fewer cycles, 8 B smaller.)
            "    jmp {captures}",
            init = sym Self::init_captures,
            captures = sym prodigy_captures_pushed,
            in("r25r24") self as *mut Picker,
            inout("r23r22") pos as *const Position => m,
            in("r21r20") killers as *const [Move; 2],
            lateout("r24") c,
        ) };
        // (Never reached, as in `next`: the jump's function returns.)
        // SAFETY: not reached.
        unsafe { core::mem::transmute::<ReturnRegs, Option<(Move, Stage)>>(ReturnRegs(m, c)) }
    }

    /// [`Picker::next`] from any stage. (The compiler keeps loads and
    /// constants of the loop, the en-passant square, 14 and 0x0100, in
    /// saved registers, 15 saved a call; each loaded by assembly where
    /// used, it kept others instead: 16 saved, 0.02% more cycles. The
    /// king's home tested here before `next_castle`'s call: 0.24% more,
    /// +116 B.)
    #[inline(never)]
    fn next_stage(&mut self, pos: &Position, killers: &[Move; 2]) -> Option<(Move, Stage)> {
        loop {
            let stage = self.stage;
            match stage {
                Stage::MainLine => {
                    self.stage = Stage::CapturesInit;
                    if !self.main.is_none() && pos.is_pseudo_legal(self.main) {
                        return Some((self.main, stage));
                    }
                }
                Stage::CapturesInit => self.init_captures(pos),
                Stage::WinningCaptures | Stage::EqualCaptures | Stage::LosingCaptures => {
                    // Tested here: most stages have no victim left, and the
                    // call's register saves cost more than the test.
                    if self.pending != 0 {
                        let m = self.next_capture(pos, stage);
                        if !m.is_none() {
                            return Some((m, stage));
                        }
                    }
                    match stage {
                        // (Most nodes have no pawn on the 7th: then straight
                        // on to the equal captures, without a turn of the
                        // loop through the promotions stage.)
                        Stage::WinningCaptures if !pawn_on_seventh(pos) => self.begin_captures(Stage::EqualCaptures),
                        Stage::WinningCaptures => {
                            self.stage = Stage::Promotions;
                            self.slot = 1;
                            self.cursor = 0;
                        }
                        Stage::EqualCaptures => {
                            self.stage = Stage::EnPassant;
                            self.cursor = 0;
                        }
                        _ => self.stage = Stage::Done,
                    }
                }
                Stage::Promotions => {
                    // (Only entered with a pawn on the 7th: above.)
                    if let Some(m) = self.next_special(pos, Stage::Promotions) {
                        return Some((m, stage));
                    }
                    self.begin_captures(Stage::EqualCaptures);
                }
                Stage::EnPassant => {
                    // Tested before the out-of-line call: most nodes have
                    // no en-passant square.
                    if pos.ep_square() != NO_SQUARE {
                        if let Some(m) = self.next_special(pos, Stage::EnPassant) {
                            return Some((m, stage));
                        }
                    }
                    self.stage = if self.flags & QUIESCENCE == 0 {
                        Stage::Killer1
                    } else if self.flags & CHECKS != 0 {
                        self.gen = MoveGen::quiet_checks().without_captures();
                        Stage::Checks
                    } else {
                        Stage::Done
                    };
                }
                Stage::Killer1 | Stage::Killer2 => {
                    // (A volatile read, here and in the out-of-line stages:
                    // the killers stay behind their pointer, not loaded
                    // into four saved registers on every call.)
                    // SAFETY: a plain read of a valid reference.
                    let k = unsafe { core::ptr::read_volatile(&killers[if stage == Stage::Killer1 { 0 } else { 1 }]) };
                    self.stage = if stage == Stage::Killer1 {
                        Stage::Killer2
                    } else {
                        self.cursor = 0;
                        Stage::Castling
                    };
                    if !k.is_none()
                        && !k.is_capture()
                        && !k.is_promotion()
                        && k != self.main
                        && pos.is_pseudo_legal(k)
                    {
                        return Some((k, stage));
                    }
                }
                Stage::Castling => {
                    // One castling move tried a call (none left: the
                    // cursor at 2).
                    if self.cursor < 2 {
                        if let Some(m) = self.next_castle(pos, killers) {
                            return Some((m, stage));
                        }
                    } else {
                        self.stage = Stage::HangingInit;
                    }
                }
                Stage::HangingInit | Stage::Hanging => {
                    if let Some(m) = self.next_hanging(pos, killers) {
                        return Some((m, Stage::Hanging));
                    }
                }
                Stage::Quiets => match self.gen.next(pos) {
                    None => {
                        if self.slot == 1 {
                            self.slot = 2;
                            self.gen = self.carry_restriction(MoveGen::new().without_captures());
                        } else if self.slot != EVADE || !self.next_evading_man() {
                            self.begin_captures(Stage::LosingCaptures)
                        }
                    }
                    Some(m) => {
                        if self.is_late_move(pos, m, killers) && self.in_pass(pos, m) {
                            return Some((m, stage));
                        }
                    }
                },
                Stage::Checks => match self.gen.next(pos) {
                    None => self.stage = Stage::Done,
                    Some(m) => {
                        if !m.is_capture()
                            && !m.is_promotion()
                            && !m.is(MoveKind::Castle)
                            && pos.gives_check(m)
                            && see(pos, m) >= 0
                        {
                            return Some((m, Stage::Checks));
                        }
                    }
                },
                Stage::Done => return None,
            }
        }
    }

    /// The hanging-men stage, out of line like [`Picker::next_special`]:
    /// rarely reached, its locals need not burden every call of
    /// [`Picker::next`]. None = the stage is over (the quiet stage is set up).
    /// The stage pays for its scans: without it `bench engine` needs 4.7%
    /// more nodes and 2.1% more cycles to depth 4.
    #[inline(never)]
    fn next_hanging(&mut self, pos: &Position, killers: &[Move; 2]) -> Option<Move> {
        if self.stage == Stage::HangingInit {
            // In check, only the men that may answer it ([`evading_men`],
            // kept for the quiet stage): a hanging man that cannot has no
            // legal move here, and with no such man the scan is not run.
            let mut men = 0xFFFE;
            if self.flags & IN_CHECK != 0 {
                men = evading_men(pos);
                self.pending = men;
            }
            self.hang = if self.flags & HANG != 0 && men != 0 {
                let [a, b] = hanging(pos).slots;
                let b = if men & SLOT_BITS.get(b as usize) != 0 { b } else { 0 };
                if men & SLOT_BITS.get(a as usize) != 0 { [a, b] } else { [b, 0] }
            } else {
                [0; 2]
            };
            self.cursor = 0;
            self.gen = MoveGen::for_slot(self.hang[0]).without_captures();
            self.stage = Stage::Hanging;
        }
        loop {
            let idx = self.cursor as usize;
            if idx >= 2 || self.hang[idx] == 0 {
                self.gen = self.carry_restriction(MoveGen::new().without_captures());
                self.stage = Stage::Quiets;
                self.slot = bare(pos, pos.side_to_move().other()) as u8;
                if self.flags & IN_CHECK != 0 {
                    // In the full generator's order: the king first.
                    self.gen = MoveGen::for_slot(0).without_captures();
                    self.slot = EVADE;
                }
                return None;
            }
            match self.gen.next(pos) {
                None => self.next_hanging_man(),
                Some(m) => {
                    if !m.is_capture()
                        && !m.is_promotion()
                        && !m.is(MoveKind::Castle)
                        && m != self.main
                        // SAFETY: plain reads of valid references.
                        && m != unsafe { core::ptr::read_volatile(&killers[0]) }
                        && m != unsafe { core::ptr::read_volatile(&killers[1]) }
                    {
                        return Some(m);
                    }
                }
            }
        }
    }

    /// The hanging-men stage's generator at its end: on to the second
    /// man (for [`Picker::next_hanging`] and the AVR's
    /// [`Picker::next_hanging_fast`]).
    #[inline(never)]
    fn next_hanging_man(&mut self) {
        let idx = self.cursor;
        self.cursor += 1;
        if idx == 0 {
            self.gen = self.carry_restriction(MoveGen::for_slot(self.hang[1]).without_captures());
        }
    }

    /// [`Picker::next`] in [`Stage::Hanging`] (the stage begun by an
    /// earlier call): [`Picker::next_hanging`]'s loop by hand, reached
    /// from the dispatch, not through [`Picker::next_stage`] (15 register
    /// saves) and `next_hanging` (14): 6 here, the picker in Y as in
    /// [`Picker::next_quiet`]. With no hanging man's generator left, on
    /// in `next_stage` (its arms set up the quiet stage).
    #[cfg(target_arch = "avr")]
    #[inline(never)]
    fn next_hanging_fast(&mut self, pos: &Position, killers: &[Move; 2]) -> Option<(Move, Stage)> {
        use core::mem::offset_of;
        const PROMOTION: u8 = (Move::new(0, 0, MoveKind::PromoteKnight, false).0 >> 8) as u8;
        const CAPTURE: u8 = (Move::new(0, 0, MoveKind::Normal, true).0 >> 8) as u8;
        const CASTLE: u8 = Move::new(0, 0, MoveKind::Castle, false).0 as u8;
        const {
            assert!(PROMOTION == 1 << 3 && CAPTURE == 1 << 7 && CASTLE & 0x77 == 0);
            assert!(offset_of!(Picker, gen) == 0 && offset_of!(Picker, hang) + 1 < 63);
        };
        let (m, c): (u16, u8);
        // SAFETY: as in `next_quiet`: the block is the body; it leaves by
        // `ret` or by a jump to `next_stage` with the arguments as
        // received, everything pushed popped first; it restores r14..r17
        // and Y, reads the killers and the picker's fields; `next_avr`
        // (C ABI) and `next_hanging_man` keep r14..r17 and Y.
        unsafe { core::arch::asm!(
            "    push r14",
            "    push r15",
            "    push r16",
            "    push r17",
            "    push r28",
            "    push r29",
            "    movw r28, r24",
            "    movw r16, r22",
            "    movw r14, r20",
            // The man at the cursor, none past two or a zero slot.
            "1:  ldd r18, Y+{cursor}",
            "    cpi r18, 2",
            "    brsh 30f",
            "    movw r30, r28",
            "    add r30, r18",
            "    adc r31, r1",
            "    ldd r18, Z+{hang}",
            "    tst r18",
            "    breq 30f",
            "    movw r24, r28",
            "    movw r22, r16",
            "    call {gen_next}",
            "    movw r22, r24",
            "    cp r24, r1",
            "    cpc r25, r1",
            "    breq 20f",
            // No capture, promotion, castling, main move or killer.
            "    sbrc r23, 7",
            "    rjmp 1b",
            "    sbrc r23, 3",
            "    rjmp 1b",
            "    mov r18, r22",
            "    andi r18, 0x88",
            "    cpi r18, {castle}",
            "    breq 1b",
            "    ldd r18, Y+{main}",
            "    ldd r19, Y+{main}+1",
            "    cp r22, r18",
            "    cpc r23, r19",
            "    breq 1b",
            "    movw r30, r14",
            "    ld r18, Z+",
            "    ld r19, Z+",
            "    cp r22, r18",
            "    cpc r23, r19",
            "    breq 1b",
            "    ld r18, Z+",
            "    ld r19, Z",
            "    cp r22, r18",
            "    cpc r23, r19",
            "    breq 1b",
            "    ldi r24, {stage_hanging}",
            "    pop r29",
            "    pop r28",
            "    pop r17",
            "    pop r16",
            "    pop r15",
            "    pop r14",
            "    ret",
            "20: movw r24, r28",
            "    call {next_man}",
            "    rjmp 1b",
            "30: movw r24, r28",
            "    movw r22, r16",
            "    movw r20, r14",
            "    pop r29",
            "    pop r28",
            "    pop r17",
            "    pop r16",
            "    pop r15",
            "    pop r14",
            "    jmp {rest}",
            castle = const CASTLE,
            main = const offset_of!(Picker, main),
            hang = const offset_of!(Picker, hang),
            cursor = const offset_of!(Picker, cursor),
            stage_hanging = const Stage::Hanging as u8,
            gen_next = sym MoveGen::next_avr,
            next_man = sym Self::next_hanging_man,
            rest = sym Self::next_stage,
            in("r25r24") self as *mut Picker,
            inout("r23r22") pos as *const Position => m,
            in("r21r20") killers as *const [Move; 2],
            lateout("r24") c,
            out("r18") _, out("r19") _, out("X") _, out("Z") _,
        ) };
        // (Never reached, as in `next`: every path returns or jumps.)
        // SAFETY: not reached.
        unsafe { core::mem::transmute::<ReturnRegs, Option<(Move, Stage)>>(ReturnRegs(m, c)) }
    }

    /// In check ([`EVADE`]): the generator moves on to the next man of
    /// `pending` ([`evading_men`]); false when none is left.
    #[inline(never)]
    fn next_evading_man(&mut self) -> bool {
        let men = self.pending;
        // (Slot 0, the king's, is never among them.)
        let m = men & !1;
        if m == 0 {
            return false;
        }
        // The lowest slot: its byte's bits shifted out, not SLOT_BITS
        // read a slot from 1 on (0.05% fewer cycles, 12 B).
        let (mut bits, mut slot) = if m as u8 != 0 { (m as u8, 0u8) } else { ((m >> 8) as u8, 8u8) };
        while bits & 1 == 0 {
            bits >>= 1;
            slot += 1;
        }
        self.pending = men & (men - 1);
        self.gen = self.carry_restriction(MoveGen::for_slot(slot).without_captures());
        true
    }

    /// Full-width search, once futility or late-move pruning has set in at
    /// this node (it only spreads: more moves tried, a better best): the
    /// quiet moves left to come are pruned unless they give check or push
    /// a pawn to the 7th, so the generator of the hanging-men and quiet
    /// stages skips the others ([`MoveGen::restrict_to_checks`]). The
    /// moves returned, and their order, are those the search would not
    /// prune, as before; the others are no longer generated and tested.
    pub fn restrict_quiets(&mut self) {
        if matches!(self.stage, Stage::Hanging | Stage::Quiets) {
            self.gen.restrict_to_checks();
        }
    }

    /// A new generator of the hanging-men or quiet stage keeps
    /// [`Picker::restrict_quiets`].
    fn carry_restriction(&self, mut gen: MoveGen) -> MoveGen {
        if self.gen.is_restricted() {
            gen.restrict_to_checks();
        }
        gen
    }

    fn begin_captures(&mut self, stage: Stage) {
        let after_winning = self.stage == Stage::WinningCaptures;
        self.stage = stage;
        // (Bit 0, the king's slot, is no victim: see below.)
        self.pending = self.victims & !1;
        if stage == Stage::WinningCaptures {
            *self.wins() = [0; 2];
        } else if stage == Stage::EqualCaptures {
            // From here on `victims` serves the losing stage alone: only
            // the victims the winning stage turned a capture of down, and
            // in bit 0 whether one of them had another taken there.
            // Without, every capture the losing stage finds loses: no
            // swap-off is asked for again.
            let losing = u16::from_le_bytes(self.hang);
            let mixed = losing & u16::from_le_bytes(*self.wins()) != 0;
            self.victims = losing | mixed as u16;
            self.hang = [0; 2];
        }
        self.cursor = 0;
        // The winning stage's note of our queen holds for the equal stage
        // right after it (the promotions stage between uses `slot`):
        // 0.04% fewer cycles for 8 B.
        if !(stage == Stage::EqualCaptures && after_winning) {
            self.slot = QUEEN_UNSEEN;
        }
    }

    /// In the capture stages the generator is idle: its first two bytes
    /// note the victims (a slot mask) the winning stage took with a dearer
    /// attacker, its swap-off won. (The next two, on the AVR, the victim
    /// [`Picker::next_capture`] resumes.)
    #[inline(always)]
    fn wins(&mut self) -> &mut [u8; 2] {
        const { assert!(core::mem::offset_of!(Picker, gen) == 0) };
        // SAFETY: `MoveGen` is `repr(C)` with five `u8` fields (any bytes
        // are one), set afresh before the stages that use it.
        unsafe { &mut *(core::ptr::addr_of_mut!(self.gen) as *mut [u8; 2]) }
    }

    /// Against a bare king (`slot` 1 and 2, set when the quiet stage
    /// begins; 0 elsewhere: one pass) the quiet moves come in two passes:
    /// first those landing within two king steps of the bare king, then
    /// the others. There every move is quiet and the generator's order
    /// (king first) says nothing; these moves are the likelier cut-offs,
    /// and the late-move reductions fall on the others. `cargo xtask
    /// endgames --host --endings kbnk --defender tablebase`, 200 positions
    /// a seed, plies to mate lost a move by the tables: seeds 18 to 22,
    /// 965 of 1,000 mated before (0.456), 974 after (0.447); fresh seeds 23
    /// to 27, 955 (0.468) -> 980 (0.427). The host clock at each build's
    /// AVR speed in KBNK (`bench engine --epd assets/bench_kbnk.epd --depth
    /// 5`: 1,147 nps before, 1,082 after, the second generator pass): 1,150
    /// and 1,085 nps. At 1,150 nps for both, 980 and 982 (0.438 and 0.425).
    /// KQK and KRK 200/200 either way (seed 18: 0.547 -> 0.528 and 0.414
    /// -> 0.410 plies lost a move). Measured and left out (at 1,150 nps,
    /// seeds 18 to 22): within one king step, 931 (0.528); within three,
    /// 964 (0.456); the bishop's moves all first, 941, or all last, 936;
    /// moving nearer the bare king instead, 978 (0.502), and the bare
    /// king's moves towards the centre first too, 975 (0.507).
    #[inline(never)]
    fn in_pass(&self, pos: &Position, m: Move) -> bool {
        // (One pass in check too: `slot` is then EVADE.)
        self.slot & 3 == 0 || (distance(m.to(), pos.king_square(pos.side_to_move().other())) <= 2) == (self.slot == 1)
    }

    /// Is `m` (from the full generator) one for the Quiets stage?
    #[inline]
    fn is_late_move(&self, pos: &Position, m: Move, killers: &[Move; 2]) -> bool {
        if m.is_promotion() {
            // Queen promotions had their stage; under-promotions come here.
            // (The kind's two low bits, 0x88 of the low byte, tell the
            // queen among promotions: one byte, no 16-bit constant kept
            // in a saved register.)
            return m.0 as u8 & 0x88 != 0x88 && m != self.main;
        }
        if m.is_capture() || m.is(MoveKind::Castle) {
            return false;
        }
        // (Read each time: held in registers across the generator's
        // calls, they cost the quiet loop's caller four register saves.)
        // SAFETY: plain reads of valid references.
        let (k0, k1) = unsafe { (core::ptr::read_volatile(&killers[0]), core::ptr::read_volatile(&killers[1])) };
        if m == self.main || m == k0 || m == k1 {
            return false;
        }
        if self.hang[0] != 0 {
            let s = pos.slot_at(m.from());
            if s == self.hang[0] || (s == self.hang[1] && s != 0) {
                return false;
            }
        }
        true
    }

    /// [`Picker::is_late_move`] for [`Picker::next_quiet`]'s loop (the
    /// AVR's in its assembly).
    #[cfg(not(target_arch = "avr"))]
    #[inline(always)]
    fn is_late_quiet(&self, pos: &Position, m: Move, killers: &[Move; 2]) -> bool {
        self.is_late_move(pos, m, killers)
    }

    /// Next capture of the current capture stage, victims in piece-list order
    /// (queen, rooks, bishops, knights, pawns), attackers cheapest first;
    /// [`Move::NONE`] when the stage has no more (a move, not an `Option`:
    /// the AVR's assembly leaves it in the return registers).
    ///
    /// This is the host's version (the tests' reference); the AVR runs the
    /// same loop in assembly, below.
    #[cfg(not(target_arch = "avr"))]
    #[inline(never)]
    fn next_capture(&mut self, pos: &Position, stage: Stage) -> Move {
        loop {
            let Some((m, by_see)) = self.capture_candidate(pos, stage) else {
                return Move::NONE;
            };
            // The main line's move was tried first. Winning stage: a
            // dearer attacker only if the swap-off wins; losing stage:
            // only those it does not.
            if m == self.main {
                continue;
            }
            if !by_see {
                return m;
            }
            let winning = stage == Stage::WinningCaptures;
            if !winning && self.victims & 1 == 0 {
                return m;
            }
            if (see(pos, m) > 0) == winning {
                if winning {
                    let w = u16::from_le_bytes(*self.wins()) | self.victim_bit();
                    *self.wins() = w.to_le_bytes();
                }
                return m;
            }
            if winning {
                self.mark_losing();
            }
        }
    }

    /// The current victim's bit: the lowest pending one.
    #[cfg(not(target_arch = "avr"))]
    fn victim_bit(&self) -> u16 {
        let p = self.pending;
        p & !p.wrapping_sub(1)
    }

    /// The winning stage turned down a capture of the current victim by
    /// its swap-off: the losing stage will take it.
    #[cfg(not(target_arch = "avr"))]
    fn mark_losing(&mut self) {
        self.hang = (u16::from_le_bytes(self.hang) | self.victim_bit()).to_le_bytes();
    }

    /// The next capture of the stage's attacker windows, and whether its
    /// swap-off value decides. A window holds one exchange class, so the
    /// window tells how the attacker compares with the victim: the winning
    /// stage's first pass (below the victim's class) and the equal stage
    /// take theirs as they come; the winning stage's second pass and the
    /// losing stage (above it) leave them to the swap-off.
    ///
    /// This is the host's version (the tests' reference); the AVR runs the
    /// same loop in assembly, below.
    #[cfg(not(target_arch = "avr"))]
    #[inline(always)]
    fn capture_candidate(&mut self, pos: &Position, stage: Stage) -> Option<(Move, bool)> {
        let us = pos.side_to_move();
        let them = pos.piece_list(us.other());
        while self.pending != 0 {
            // Lowest set bit by nibbles from a table: the 8-bit count was
            // a 20-cycle popcount of (x - 1) & !x on the AVR.
            let p = self.pending;
            let (byte, base) = if p as u8 != 0 { (p as u8, 0) } else { ((p >> 8) as u8, 8) };
            let slot = if byte & 15 != 0 {
                base + LOWEST_BIT.get((byte & 15) as usize)
            } else {
                base + 4 + LOWEST_BIT.get((byte >> 4) as usize)
            };
            let t = them[(slot & 15) as usize];
            // (`code_on`: a listed square is on the board.)
            let victim = kind_of(pos.code_on(t));
            // The attackers of the victim's own exchange class form one
            // contiguous cursor window (see `next_attacker`): the equal
            // stage scans only that window, the losing stage only what
            // lies above it and the winning stage everything but it. The
            // moves skipped would all be rejected, so the order is
            // unchanged; only the ray scans are saved.
            let lo = EQUAL_FROM.get(victim as usize);
            let hi = EQUAL_TO.get(victim as usize);
            let end = match stage {
                Stage::EqualCaptures => {
                    if self.cursor < lo {
                        self.cursor = lo;
                    }
                    hi
                }
                Stage::WinningCaptures if self.cursor <= lo => lo,
                Stage::WinningCaptures => ATTACKER_END,
                _ => {
                    if self.cursor < hi {
                        self.cursor = hi;
                    }
                    ATTACKER_END
                }
            };
            let from = next_attacker(pos, t, us, &mut self.cursor, end, self.flags);
            if from == NO_SQUARE {
                if end == lo && stage == Stage::WinningCaptures {
                    // A pawn that none of ours takes is left out of the
                    // equal stage, which takes only pawns with pawns.
                    if victim == PAWN && !pawn_guarded(pos, t, us) {
                        self.victims &= !self.victim_bit();
                    }
                    // Guarded by an enemy pawn, the victim is lost to any
                    // dearer attacker (the pawn retakes, and the attacker
                    // is worth more than the victim and the pawn): no
                    // scan above its class, only the note for the losing
                    // stage (there may be none: that stage finds out).
                    if !pawn_guarded(pos, t, us.other()) {
                        self.cursor = hi;
                        continue;
                    }
                    self.mark_losing();
                }
                self.pending &= self.pending - 1;
                self.cursor = 0;
                continue;
            }
            let m = Move::new(from, t, MoveKind::Normal, true);
            return Some((m, stage != Stage::EqualCaptures && end == ATTACKER_END));
        }
        None
    }

    /// [`Picker::next_capture`] by hand: victim loop, attacker scan
    /// (`next_attacker`'s windows, probes and cursor), the main line's
    /// move and the swap-off calls in one block. The compiler's loop
    /// around the scan (the block returned each candidate) saved 17
    /// registers and spilled `self` to a frame on every call, 140 of its
    /// 791 cycles; now the block keeps to the call-clobbered registers but
    /// six (the side, stage and attacker classes in one byte), saves its
    /// live ones only around a `see` call ([`capture_see`]), and the
    /// function saves 8. The lowest pending bit is isolated and located
    /// by three bit tests instead of a shift loop. `bench engine` the same
    /// nodes in 1.85% fewer cycles, 40 B smaller, the stack bound 91
    /// bytes lower. The windows are chained in cursor order, each falling
    /// into the next (the end tested only where it may fall): a window
    /// skipped by its class bit costs 6 cycles, not 16 to 19 through the
    /// dispatch (458,000 windows dispatched in `bench engine`, most of
    /// them skipped), 0.41% fewer cycles for 24 B. The queens' window
    /// (47,000 scans, 8 rays each, 376,000 of the 409,000 rays walked)
    /// looks at our queen's line to the victim instead, the queen found
    /// once a call: 0.55% fewer cycles for 164 B; once a stage, noted in
    /// [`Picker::slot`]: 0.26% fewer; noted by the victims' scan itself
    /// ([`queen_note`]) for the stages right after it: 0.26% fewer again
    /// for 24 B (KBNK, without queens, 0.06% more). (Each window's queens
    /// from the piece list instead, 0.24% more cycles: the scan over the
    /// officers' slots cost what the rays did.) A dearer attacker's victim
    /// guarded by a pawn needs no swap-off (its value is known, below):
    /// 1.15% fewer cycles for 60 B. The knights' window from its start
    /// unrolled (the loop kept for a window resumed): 0.32% fewer for
    /// 132 B. (The victims our knights attack, noted by the victims' scan
    /// in the idle generator's bytes, the window skipped for the others:
    /// 0.21% more cycles, 104 B; the scan's notes cost more than the
    /// windows skipped.) The main line's move and the queen's note read
    /// from the picker where they are needed, not kept in r13:r12 and r14
    /// (call-saved, pushed and set up on every call): 0.41% fewer cycles,
    /// 28 B smaller. The rooks' window from its start unrolled, each line's
    /// step an immediate and its edge told by the step's flags (as in
    /// [`attacked_victims`]; a window resumed goes on in the loop): 0.17%
    /// fewer cycles for 110 B; the bishops' the same way: 0.17% fewer for
    /// 120 B. The mode, pending victims and cursor read by the block from
    /// the arguments (the compiler's prologue moved them about), the move
    /// made by one movw: 0.07% fewer cycles, 8 B smaller. The pawns'
    /// window read at fixed offsets from one pointer as the knights', and
    /// every window resumed entering its unrolled reads at its cursor (the
    /// loops over JUMPS and RAYS gone, but the several queens' walk):
    /// 0.21% fewer cycles for 40 B; the pawn-guard tests likewise, 0.11%
    /// for 48 B (figures by the blocks).
    #[cfg(target_arch = "avr")]
    #[inline(never)]
    fn next_capture(&mut self, pos: &Position, stage: Stage) -> Move {
        // (Its constants' assertions: above `Picker`.)
        let m: u16;
        // Registers: r23:r22 the pending victims, r20 the cursor (stepped
        // by the scans themselves), r15 the mode (bit 0 black to move, bit
        // 1 the winning stage, bit 2 the equal one, bits 3..7 the attacker
        // classes), r19 the victim's square, r16 the scan's end, r17 the
        // attacker's code, r0 a ray's step; the
        // block returns the attacker's square in r18 (0xFF: none).
        // SAFETY: `Position` is `repr(C)` with its 0x88 board at offset 0 and
        // the piece lists right after it (128 + 16 * colour); only read.
        // `capture_see` (C ABI) gets the position and a capture on it; the
        // registers it may clobber are all call-clobbered or saved around it.
        // The block is the whole body (the arguments where the ABI brings
        // them, the move where it returns it: the compiler adds only the
        // `ret`, checked in the image): it saves what it uses of r2..r17
        // itself and leaves, as [`Picker::next_of_captures`] counts on, the
        // position in r23:r22 and the picker in r21:r20.
        unsafe { core::arch::asm!(
                "    push r10",
                "    push r11",
                "    push r15",
                "    push r16",
                "    push r17",
                "    movw r10, r24",
                "    movw r30, r24",
                "    movw r24, r22",
                "    ldd r16, Z+{flags}",
                "    andi r16, {classes}",
                "    cpi r20, 8",
                "    brsh 250f",
                "    or r16, r20",
                "250: movw r26, r24",
                "    subi r26, {side_lo}",
                "    sbci r27, {side_hi}",
                "    ld r17, X",
                "    or r16, r17",
                "    mov r15, r16",
                "    ldd r22, Z+{pending}",
                "    ldd r23, Z+{pending}+1",
                "    ldd r20, Z+{cursor}",
                // A victim resumed (the cursor past the attacker of the
                // capture returned last; 0 for a fresh one): its square
                // and the scan's end as that call left them in the idle
                // generator's bytes 2 and 3 (at 99), not worked
                // out again from `pending` (its bit, slot, square, kind,
                // window and the stage's end): 0.22% fewer cycles for
                // 20 B. (Every change of victim or stage sets the cursor
                // to 0, and the capture stages leave those bytes alone:
                // `Picker::wins` has the first two.)
                "    tst r20",
                "    breq 60f",
                "63: ldd r19, Z+{gen}+2",
                "    ldd r16, Z+{gen}+3",
                "    rjmp 1f",
                // A victim done: off `pending`, on to the next. (Here, run
                // into 60, not a jump there from after 90, and the resumed
                // victim's loads here too: 0.04% fewer cycles, same size.)
                "91: movw r16, r22",
                "    subi r16, 1",
                "    sbci r17, 0",
                "    and r22, r16",
                "    and r23, r17",
                "    clr r20",
                // The lowest pending victim (slot 0, the king, is never set):
                // its bit isolated, the slot from the bit's position.
                "60: mov r21, r22",
                "    ldi r17, 0x80",
                "    tst r21",
                "    brne 61f",
                "    mov r21, r23",
                "    ldi r17, 0x88",
                "    tst r21",
                "    brne 61f",
                "    clr r18",
                "    clr r19",
                "    rjmp 98f",
                "61: mov r16, r21",
                "    neg r16",
                "    and r21, r16",
                "    cpi r21, 0x10",
                "    brlo 62f",
                "    subi r17, 0xFC",
                "    swap r21",
                "62: sbrc r21, 1",
                "    subi r17, 0xFF",
                "    sbrc r21, 2",
                "    subi r17, 0xFE",
                "    sbrc r21, 3",
                "    subi r17, 0xFD",
                // Its square, from the enemy list (128 + 16 * them + slot:
                // r17 counted from 0x80, not 128 added to Z: 0.07% fewer
                // cycles, 4 B smaller).
                "    sbrs r15, 0",
                "    subi r17, 0xF0",
                "    movw r30, r24",
                "    add r30, r17",
                "    adc r31, r1",
                "    ld r19, Z",
                // Its kind, then its class window (r16, r21): pawns 0..2,
                // knights and bishops 2..14, rooks 14..18, queens 18..26.
                "    movw r30, r24",
                "    add r30, r19",
                "    adc r31, r1",
                "    ld r17, Z",
                "    andi r17, 0x0F",
                "    cpi r17, 7",
                "    brlo 64f",
                "    subi r17, 6",
                "64: ldi r16, 0",
                "    ldi r21, 2",
                "    cpi r17, 2",
                "    brsh 24f",
                // A pawn in the winning stage: nothing below its class
                // (the scan's end 0), straight to the guards' tests at 90
                // (not through the end by stage and the windows' dispatch:
                // 0.17% fewer cycles for 8 B); in the equal stage, to the
                // pawns' window, its end the class's top (0.02% fewer
                // cycles for 8 B).
                "    sbrc r15, 1",
                "    rjmp 42f",
                "    sbrs r15, 2",
                "    rjmp 65f",
                "    ldi r16, 2",
                "    rjmp 10f",
                "24: ldi r16, 2",
                "    ldi r21, 14",
                "    cpi r17, 4",
                "    brlo 65f",
                "    ldi r16, 14",
                "    ldi r21, 18",
                "    breq 65f",
                "    ldi r16, 18",
                "    ldi r21, 26",
                // The scan's end by stage: equal, the window itself; winning,
                // below it, then above it; losing, above it.
                // (The winning stage's fresh victim, not a pawn: from
                // the pawns' window, the end its class's bottom, without
                // the windows' dispatch at 1: 0.07% fewer cycles, 8 B
                // smaller.)
                "65: sbrc r15, 1",
                "    rjmp 10f",
                "    sbrs r15, 2",
                "    rjmp 68f",
                "    cp r20, r16",
                "    brsh 67f",
                "    mov r20, r16",
                "67: mov r16, r21",
                "    rjmp 1f",
                "68: cp r20, r21",
                "    brsh 69f",
                "    mov r20, r21",
                "69: ldi r16, {end}",
                // Resuming at the cursor: below the end, to its window.
                "1:  cp r20, r16",
                "    brsh 9f",
                "    cpi r20, 2",
                "    brlo 10f",
                "    cpi r20, 10",
                "    brlo 20f",
                "    cpi r20, 14",
                "    brsh 3f",
                "    rjmp 30f",
                "3:  cpi r20, 18",
                "    brsh 4f",
                "    rjmp 31f",
                "4:  cpi r20, 26",
                "    brsh 5f",
                "    rjmp 32f",
                "5:  rjmp 40f",
                "9:  rjmp 90f",
                // From here each window falls into the next, testing the
                // end where a scan may end (2, 14, 18, 26, 34; the end is
                // never 10).
                // Pawns: none captures onto its last rank.
                "10: ldi r17, 1",
                "    mov r21, r19",
                "    andi r21, 0x70",
                "    sbrc r15, 0",
                "    rjmp 11f",
                "    cpi r21, 0x70",
                "    rjmp 12f",
                "11: ldi r17, 7",
                "    cpi r21, 0",
                "12: breq 19f",
                "    rjmp 150f",
                "19: ldi r20, 2",
                "    cp r20, r16",
                "    brsh 90f",
                // Knights: JUMPS[i - 2].
                "20: sbrs r15, 3",
                "    rjmp 29f",
                "    ldi r17, 2",
                "    sbrc r15, 0",
                "    ldi r17, 8",
                // The jumps unrolled at 23, a window resumed too.
                "    rjmp 23f",
                "29: ldi r20, 10",
                "    rjmp 30f",
                // No attacker left below the end: the winning stage's first
                // pass goes on above the class (the end was its bottom),
                // else the next victim.
                // Guarded by an enemy pawn, the victim is lost to any
                // dearer attacker (below, at 80): no scan above its
                // class, only the note for the losing stage.
                // A pawn that none of ours takes leaves the equal
                // stage's victims (`victims`), which takes pawns only
                // with pawns.
                "90: sbrs r15, 1",
                "    rjmp 91b",
                "    cpi r16, {end}",
                "    brne 44f",
                "    rjmp 91b",
                "44: tst r16",
                "    brne 53f",
                // (A pawn of ours guarding it? In line, as 87's test below,
                // not called: 25,000 calls, 0.09% fewer cycles for 52 B,
                // the jump to 91 above now around; its note in `victims`
                // in line too, 0.05% fewer, 8 B smaller.)
                // (Each side's two squares read at fixed offsets from Z,
                // the board plus `t` less 17 or plus 15, a square worked
                // out only for a byte showing the pawn (off the board,
                // the byte lies within 17 bytes of it, RAM); here and at
                // 53: 0.11% fewer cycles for 48 B.)
                "42: movw r30, r24",
                "    add r30, r19",
                "    adc r31, r1",
                "    sbrc r15, 0",
                "    rjmp 49f",
                "    ldi r17, 1",
                "    sbiw r30, 17",
                "    ld r18, Z",
                "    andi r18, 0x0F",
                "    cp r18, r17",
                "    brne 46f",
                "    mov r18, r19",
                "    subi r18, 17",
                "    andi r18, 0x88",
                "    breq 53f",
                "46: ldd r18, Z+2",
                "    andi r18, 0x0F",
                "    cp r18, r17",
                "    brne 45f",
                "    mov r18, r19",
                "    subi r18, 15",
                "    rjmp 140f",
                "49: ldi r17, 7",
                "    adiw r30, 15",
                "    ld r18, Z",
                "    andi r18, 0x0F",
                "    cp r18, r17",
                "    brne 141f",
                "    mov r18, r19",
                "    subi r18, 0xF1",
                "    andi r18, 0x88",
                "    breq 53f",
                "141: ldd r18, Z+2",
                "    andi r18, 0x0F",
                "    cp r18, r17",
                "    brne 45f",
                "    mov r18, r19",
                "    subi r18, 0xEF",
                "140: andi r18, 0x88",
                "    breq 53f",
                // No pawn of ours guards it: its bit out of `victims`.
                "45: movw r30, r10",
                "    mov r17, r22",
                "    tst r17",
                "    breq 43f",
                "    neg r17",
                "    and r17, r22",
                "    com r17",
                "    ldd r21, Z+{victims}",
                "    and r21, r17",
                "    std Z+{victims}, r21",
                "    rjmp 53f",
                "43: mov r17, r23",
                "    neg r17",
                "    and r17, r23",
                "    com r17",
                "    ldd r21, Z+{victims}+1",
                "    and r21, r17",
                "    std Z+{victims}+1, r21",
                // (87 in line, branching on what it finds, not through T:
                // 38,900 calls in `bench engine`, 0.17% fewer cycles for
                // 52 B.)
                "53: movw r30, r24",
                "    add r30, r19",
                "    adc r31, r1",
                "    sbrc r15, 0",
                "    rjmp 59f",
                "    ldi r17, 7",
                "    adiw r30, 15",
                "    ld r18, Z",
                "    andi r18, 0x0F",
                "    cp r18, r17",
                "    brne 47f",
                "    mov r18, r19",
                "    subi r18, 0xF1",
                "    andi r18, 0x88",
                "    breq 48f",
                "47: ldd r18, Z+2",
                "    andi r18, 0x0F",
                "    cp r18, r17",
                "    brne 93f",
                "    mov r18, r19",
                "    subi r18, 0xEF",
                "    rjmp 142f",
                "59: ldi r17, 1",
                "    sbiw r30, 17",
                "    ld r18, Z",
                "    andi r18, 0x0F",
                "    cp r18, r17",
                "    brne 143f",
                "    mov r18, r19",
                "    subi r18, 17",
                "    andi r18, 0x88",
                "    breq 48f",
                "143: ldd r18, Z+2",
                "    andi r18, 0x0F",
                "    cp r18, r17",
                "    brne 93f",
                "    mov r18, r19",
                "    subi r18, 15",
                "142: andi r18, 0x88",
                "    brne 93f",
                // Guarded: the victim's bit into `hang` (`mark_losing`,
                // in line, not called: 0.05% fewer cycles for 28 B), then
                // the next victim.
                "48: movw r30, r10",
                "    mov r17, r22",
                "    tst r17",
                "    breq 28f",
                "    neg r17",
                "    and r17, r22",
                "    ldd r21, Z+{hang}",
                "    or r21, r17",
                "    std Z+{hang}, r21",
                "    rjmp 91b",
                "28: mov r17, r23",
                "    neg r17",
                "    and r17, r23",
                "    ldd r21, Z+{hang}+1",
                "    or r21, r17",
                "    std Z+{hang}+1, r21",
                "    rjmp 91b",
                // (Each straight to its window above the class, not
                // through the windows' dispatch at 1: 0.12% fewer cycles
                // for 12 B.)
                "93: ldi r20, 2",
                "    cpi r16, 2",
                "    brlo 25f",
                "    ldi r20, 14",
                "    breq 26f",
                "    ldi r20, 18",
                "    cpi r16, 18",
                "    brlo 27f",
                "    ldi r20, 26",
                "    ldi r16, {end}",
                "    rjmp 40f",
                "25: ldi r16, {end}",
                "    rjmp 20b",
                "26: ldi r16, {end}",
                "    rjmp 31f",
                "27: ldi r16, {end}",
                "    rjmp 32f",
                // The pawns' window: its two squares read at fixed offsets
                // from Z (the board plus `t` less 17, or plus 15), the
                // square tested for the board only once its byte shows our
                // pawn (as the knights', below). (4 cycles a square, not
                // 17 in a loop: 0.06% fewer cycles for 92 B; a window
                // resumed, the cursor 1, here too, at its second square,
                // the loop gone: the same cycles, 36 B smaller.)
                "150: movw r30, r24",
                "    add r30, r19",
                "    adc r31, r1",
                "    sbrc r15, 0",
                "    rjmp 151f",
                "    sbiw r30, 17",
                "    tst r20",
                "    brne 152f",
                "    ldi r20, 1",
                "    ldi r18, 0xF1",
                "    ldd r21, Z+2",
                "    andi r21, 0x0F",
                "    cp r21, r17",
                "    breq 156f",
                "152: ldi r20, 2",
                "    ldi r18, 0xEF",
                "    ld r21, Z",
                "    andi r21, 0x0F",
                "    cp r21, r17",
                "    breq 156f",
                "158: rjmp 19b",
                "151: adiw r30, 15",
                "    tst r20",
                "    brne 153f",
                "    ldi r20, 1",
                "    ldi r18, 15",
                "    ld r21, Z",
                "    andi r21, 0x0F",
                "    cp r21, r17",
                "    breq 156f",
                "153: ldi r20, 2",
                "    ldi r18, 17",
                "    ldd r21, Z+2",
                "    andi r21, 0x0F",
                "    cp r21, r17",
                "    brne 158b",
                // Our pawn's byte at `t` plus the step r18 (the cursor
                // past it): on the board, a capture; else on with the
                // window's other square, if any.
                "156: add r18, r19",
                "    mov r21, r18",
                "    andi r21, 0x88",
                "    brne 157f",
                "    rjmp 50f",
                "157: cpi r20, 2",
                "    brsh 158b",
                "    sbrs r15, 0",
                "    rjmp 152b",
                "    rjmp 153b",
                // The knights' window: the eight jumps unrolled, each
                // square read at a fixed offset from Z (the board plus `t`
                // less 33, then plus `t`), the cursor set by the jump found
                // (below); the square tested for the board only once its
                // byte shows our knight (off the board the byte lies within
                // 33 bytes of the board, RAM) (4 cycles a jump against 11
                // to 17 in a loop over JUMPS). A window resumed (the cursor
                // 3 to 9) enters the jumps at its cursor's (the loop over
                // JUMPS for it before: 0.11% fewer cycles, 16 B smaller).
                "23: movw r30, r24",
                "    add r30, r19",
                "    adc r31, r1",
                "    sbiw r30, 33",
                "    cpi r20, 3",
                "    brsh 190f",
                "160: ldd r21, Z+0",
                "    andi r21, 0x0F",
                "    cp r21, r17",
                "    breq 171f",
                "191: ldd r21, Z+2",
                "    andi r21, 0x0F",
                "    cp r21, r17",
                "    breq 172f",
                "192: ldd r21, Z+15",
                "    andi r21, 0x0F",
                "    cp r21, r17",
                "    breq 173f",
                "193: ldd r21, Z+19",
                "    andi r21, 0x0F",
                "    cp r21, r17",
                "    breq 174f",
                "    adiw r30, 33",
                "194: ldd r21, Z+14",
                "    andi r21, 0x0F",
                "    cp r21, r17",
                "    breq 175f",
                "195: ldd r21, Z+18",
                "    andi r21, 0x0F",
                "    cp r21, r17",
                "    breq 176f",
                "196: ldd r21, Z+31",
                "    andi r21, 0x0F",
                "    cp r21, r17",
                "    breq 177f",
                "197: ldd r21, Z+33",
                "    andi r21, 0x0F",
                "    cp r21, r17",
                "    breq 178f",
                "    rjmp 29b",
                // A window resumed: its next jump (index: the cursor less 2).
                "190: cpi r20, 6",
                "    brsh 198f",
                "    cpi r20, 4",
                "    brlo 191b",
                "    breq 192b",
                "    rjmp 193b",
                "198: adiw r30, 33",
                "    cpi r20, 7",
                "    brlo 194b",
                "    breq 195b",
                "    cpi r20, 9",
                "    brlo 196b",
                "    rjmp 197b",
                // (The cursor set only on a hit, not before each jump:
                // 0.04% fewer cycles for 16 B.)
                "171: ldi r20, 3",
                "    rjmp 161f",
                "172: ldi r20, 4",
                "    rjmp 161f",
                "173: ldi r20, 5",
                "    rjmp 161f",
                "174: ldi r20, 6",
                "    rjmp 161f",
                "175: ldi r20, 7",
                "    rjmp 161f",
                "176: ldi r20, 8",
                "    rjmp 161f",
                "177: ldi r20, 9",
                "    rjmp 161f",
                "178: ldi r20, 10",
                "161: ldi r26, lo8({jumps} - 3)",
                "    ldi r27, hi8({jumps} - 3)",
                "    add r26, r20",
                "    adc r27, r1",
                "    ld r18, X",
                "    add r18, r19",
                "    mov r21, r18",
                "    andi r21, 0x88",
                "    brne 162f",
                "    rjmp 50f",
                "162: cpi r20, 10",
                "    brlo 163f",
                "    rjmp 29b",
                "163: rjmp 23b",
                // A capture. The main line's move was tried first: scan on.
                // (Read from the picker here, Z free: not kept in r13:r12,
                // two registers fewer saved a call: 0.19% fewer cycles, 8 B
                // smaller.)
                "50: movw r30, r10",
                "    ldd r21, Z+{main}",
                "    cp r18, r21",
                "    brne 51f",
                "    ldd r21, Z+{main}+1",
                "    eor r21, r19",
                "    cpi r21, 0x80",
                "    brne 51f",
                "    rjmp 1b",
                // Above the victim's class (the scan's end at the top),
                // outside the equal stage, the swap-off decides: the
                // winning stage keeps it if positive, the losing stage
                // if not. (`capture_see` keeps r12..r17.)
                "51: sbrc r15, 2",
                "58: rjmp 99f",
                "    cpi r16, {end}",
                "    brne 58b",
                "    rjmp 80f",
                // Sliders: bishops RAYS[i - 10] (0..4), rooks RAYS[i - 10]
                // (4..8), queens RAYS[i - 18] (0..8).
                "30: sbrs r15, 4",
                "    rjmp 38f",
                "    ldi r17, 3",
                "    rjmp 200f",
                "97: rjmp 90b",
                "38: ldi r20, 14",
                "    cp r20, r16",
                "    brsh 97b",
                "31: sbrs r15, 5",
                "    rjmp 39f",
                "    ldi r17, 4",
                "    rjmp 180f",
                // Several queens: RAYS[i - 18] walked (X set at 75).
                "64: add r26, r20",
                "    adc r27, r1",
                "35: ld r0, X+",
                "    inc r20",
                "    mov r18, r19",
                "36: add r18, r0",
                "    mov r21, r18",
                "    andi r21, 0x88",
                "    brne 37f",
                "    movw r30, r24",
                "    add r30, r18",
                "    adc r31, r1",
                // (Empty: a zero code nibble, the whole byte 0.)
                "    ld r21, Z",
                "    andi r21, 0x0F",
                "    breq 36b",
                "    cp r21, r17",
                "    breq 50b",
                // (To RAYS' end, X: the cursor 26.)
                "37: cpi r26, lo8({rays} + 8)",
                "    brne 35b",
                "    rjmp 33f",
                // Rooks: their four lines unrolled (RAYS[4..8]: -16,
                // -1, +1, +16), each step an immediate, Z stepping from
                // X (the board plus `t`) by sbiw or adiw, the edge told by
                // the subi's flags as in `attacked_victims` (N the ranks,
                // H westward; eastward bit 3: smaller); the cursor set
                // to the next line's as each begins. A window resumed
                // (the bishops' too) enters at its next line, not the loop
                // over RAYS above (now the queens' alone): 0.04% fewer
                // cycles, same size.
                "180: sbrc r15, 0",
                "    subi r17, 0xFA",
                "    movw r26, r24",
                "    add r26, r19",
                "    adc r27, r1",
                "    cpi r20, 15",
                "    brsh 179f",
                "    ldi r20, 15",
                "    mov r18, r19",
                "    movw r30, r26",
                "182: subi r18, 0x10",
                "    brmi 183f",
                "    sbiw r30, 16",
                "    ld r21, Z",
                "    andi r21, 0x0F",
                "    breq 182b",
                "    cp r21, r17",
                "    breq 189f",
                "183: ldi r20, 16",
                "    mov r18, r19",
                "    movw r30, r26",
                "184: subi r18, 0x01",
                "    brhs 185f",
                "    sbiw r30, 1",
                "    ld r21, Z",
                "    andi r21, 0x0F",
                "    breq 184b",
                "    cp r21, r17",
                "    breq 189f",
                "185: ldi r20, 17",
                "    mov r18, r19",
                "    movw r30, r26",
                "186: subi r18, 0xFF",
                "    sbrc r18, 3",
                "    rjmp 187f",
                "    adiw r30, 1",
                "    ld r21, Z",
                "    andi r21, 0x0F",
                "    breq 186b",
                "    cp r21, r17",
                "    breq 189f",
                "187: ldi r20, 18",
                "    mov r18, r19",
                "    movw r30, r26",
                "188: subi r18, 0xF0",
                "    brmi 39f",
                "    adiw r30, 16",
                "    ld r21, Z",
                "    andi r21, 0x0F",
                "    breq 188b",
                "    cp r21, r17",
                "    brne 39f",
                "189: rjmp 50b",
                // A window resumed (the cursor 15 to 17): its next line.
                "179: breq 183b",
                "    cpi r20, 17",
                "    brlo 185b",
                "    rjmp 187b",
                "97: rjmp 90b",
                "39: ldi r20, 18",
                "    cp r20, r16",
                "    brsh 97b",
                "32: sbrs r15, 6",
                "    rjmp 33f",
                "    rjmp 70f",
                "33: ldi r20, 26",
                "    cp r20, r16",
                "    brsh 97b",
                // The king: its square from the list, adjacent to `t`?
                "40: ldi r20, 34",
                "    sbrs r15, 7",
                "    rjmp 90b",
                "    movw r30, r24",
                "    subi r30, 0x80",
                "    sbci r31, 0xFF",
                "    sbrc r15, 0",
                "    adiw r30, 16",
                "    ld r18, Z",
                // (Adjacent: the 0x88 difference plus 17 below 35, its
                // low nibble below 3; the squares differ.)
                "    cp r18, r19",
                "    breq 41f",
                "    mov r17, r18",
                "    sub r17, r19",
                "    subi r17, 0xEF",
                "    cpi r17, 35",
                "    brsh 41f",
                "    andi r17, 0x0F",
                "    cpi r17, 3",
                "    brsh 41f",
                "    rjmp 50b",
                "41: rjmp 90b",
                // Bishops: their four lines unrolled as the rooks' (RAYS[0..4]:
                // -17, -15, +15, +17), the eastward ones' edge by H from
                // the square plus 8 (taken off on a hit).
                "200: sbrc r15, 0",
                "    subi r17, 0xFA",
                "    movw r26, r24",
                "    add r26, r19",
                "    adc r27, r1",
                "    cpi r20, 11",
                "    brsh 199f",
                "    ldi r20, 11",
                "    mov r18, r19",
                "    movw r30, r26",
                "201: subi r18, 0x11",
                "    brhs 202f",
                "    brmi 202f",
                "    sbiw r30, 17",
                "    ld r21, Z",
                "    andi r21, 0x0F",
                "    breq 201b",
                "    cp r21, r17",
                "    breq 209f",
                "202: ldi r20, 12",
                "    mov r18, r19",
                "    subi r18, 0xF8",
                "    movw r30, r26",
                "203: subi r18, 0x0F",
                "    brhc 204f",
                "    brmi 204f",
                "    sbiw r30, 15",
                "    ld r21, Z",
                "    andi r21, 0x0F",
                "    breq 203b",
                "    cp r21, r17",
                "    breq 208f",
                "204: ldi r20, 13",
                "    mov r18, r19",
                "    movw r30, r26",
                "205: subi r18, 0xF1",
                "    brhs 206f",
                "    brmi 206f",
                "    adiw r30, 15",
                "    ld r21, Z",
                "    andi r21, 0x0F",
                "    breq 205b",
                "    cp r21, r17",
                "    breq 209f",
                "206: ldi r20, 14",
                "    mov r18, r19",
                "    subi r18, 0xF8",
                "    movw r30, r26",
                "207: subi r18, 0xEF",
                "    brhc 210f",
                "    brmi 210f",
                "    adiw r30, 17",
                "    ld r21, Z",
                "    andi r21, 0x0F",
                "    breq 207b",
                "    cp r21, r17",
                "    brne 210f",
                "208: subi r18, 8",
                "209: rjmp 50b",
                "210: rjmp 38b",
                // A window resumed (the cursor 11 to 13): its next line.
                "199: breq 202b",
                "    cpi r20, 13",
                "    brlo 204b",
                "    rjmp 206b",
                // Queens: usually one, found in the piece list once a call
                // (`Picker::slot`, read here: QUEEN_UNSEEN until then; then
                // the queen's square, 0x08 for none, 0xFF for several; kept
                // in r14 before, a call-saved register pushed on every call
                // and set up in the prologue: 0.22% more cycles, 20 B): then
                // not eight rays walked from `t`, but the queen's line to `t`
                // (GEOMETRY: ray k, the step from `t` towards it) and the
                // squares between, the cursor 19 + k if at or above its own,
                // as the walk would have found it. Several queens: the walk.
                // (A square or none, below 0x78, tested first, the
                // queen's code set only for the list and the walk: 0.07%
                // fewer cycles, same size.)
                "70: movw r30, r10",
                "    ldd r18, Z+{slot}",
                "    cpi r18, 0x78",
                "    brlo 73f",
                "    ldi r17, 5",
                "    sbrc r15, 0",
                "    ldi r17, 11",
                "    cpi r18, {unseen}",
                "    breq 66f",
                "    rjmp 75f",
                "66: push r16",
                "    movw r26, r24",
                "    ldi r16, {oe}",
                "    add r26, r16",
                "    adc r27, r1",
                "    sbrc r15, 0",
                "    adiw r26, 1",
                "    ld r16, X",
                "    ldi r21, 0x08",
                "    movw r26, r24",
                "    subi r26, 0x7F",
                "    sbci r27, 0xFF",
                "    sbrc r15, 0",
                "    adiw r26, 16",
                "    rjmp 77f",
                "71: ld r18, X+",
                "    cpi r18, 0xFF",
                "    breq 77f",
                "    movw r30, r24",
                "    add r30, r18",
                "    adc r31, r1",
                "    ld r30, Z",
                "    andi r30, 0x0F",
                "    cp r30, r17",
                "    brne 77f",
                "    cpi r21, 0x08",
                "    brne 79f",
                "    mov r21, r18",
                "77: dec r16",
                "    brne 71b",
                "    rjmp 72f",
                "79: ldi r21, 0xFF",
                "72: movw r30, r10",
                "    std Z+{slot}, r21",
                "    mov r18, r21",
                "    pop r16",
                "    cpi r21, 0xFF",
                "    breq 75f",
                // One queen (or none): its line to `t`.
                // (GEOMETRY starts a page: the entry's low byte an 8-bit
                // sum, no carry; its step from DIRECTIONS' copy at the
                // page's end, 0xF0 + k = 19 + k - 0x23, the high byte
                // kept: 0.05% fewer
                // cycles, 10 B smaller.)
                "73: cpi r18, 0x08",
                "    breq 74f",
                "    ldi r30, lo8({geometry}+0x77)",
                "    add r30, r18",
                "    sub r30, r19",
                "    ldi r31, hi8({geometry})",
                "    lpm r21, Z",
                "    mov r0, r21",
                "    andi r21, {line}",
                "    breq 74f",
                "    mov r21, r0",
                "    swap r21",
                "    andi r21, 0x0F",
                "    subi r21, 0xED",
                "    cp r20, r21",
                "    brsh 74f",
                "    mov r30, r21",
                "    subi r30, 0x23",
                "    lpm r0, Z",
                "    mov r17, r19",
                "76: add r17, r0",
                "    cp r17, r18",
                "    breq 78f",
                "    movw r30, r24",
                "    add r30, r17",
                "    adc r31, r1",
                "    ld r30, Z",
                "    tst r30",
                "    breq 76b",
                "74: rjmp 33b",
                "78: mov r20, r21",
                "    rjmp 50b",
                // Several queens: the rays RAYS[i - 18] walked.
                "75: ldi r26, lo8({rays} - 18)",
                "    ldi r27, hi8({rays} - 18)",
                "    rjmp 64b",
                // An enemy pawn guarding `t` (white to move: black pawns
                // on t+15, t+17; black: white ones on t-17, t-15) settles
                // the swap-off without it: the pawn retakes, and the
                // attacker, a class dearer than the victim, is worth more
                // than the victim and the pawn together, so `see` is the
                // victim less the attacker (negative), whatever follows.
                // (The winning stage asked at 90, before its scan above
                // the class: here the guard is known to be missing.)
                "80: sbrc r15, 1",
                "    rjmp 83f",
                // The losing stage, no victim with one capture taken and
                // one turned down by the winning stage (bit 0 of
                // `victims` clear): each one found loses.
                "    movw r30, r10",
                "    ldd r21, Z+{victims}",
                "    sbrs r21, 0",
                "    rjmp 99f",
                "    rcall 87f",
                "    brtc 83f",
                "    rjmp 99f",
                // T set if an enemy pawn guards `t` (r17, r21, Z used).
                // (Its copies in line at 53 and, for a pawn of ours, at
                // 44, the winning stage's.)
                "87: sbrs r15, 0",
                "    rjmp 57f",
                "    ldi r17, 1",
                "    ldi r21, 0xEF",
                "    rjmp 81f",
                "57: ldi r17, 7",
                "    ldi r21, 15",
                // (The square tested for the board only once its byte
                // shows the pawn: off the board, the byte read is the
                // slot map's or the piece lists', the square wrapping
                // within the position's first 256 bytes: 0.06% fewer
                // cycles.)
                "81: clt",
                "    add r21, r19",
                "    movw r30, r24",
                "    add r30, r21",
                "    adc r31, r1",
                "    ld r30, Z",
                "    andi r30, 0x0F",
                "    cp r30, r17",
                "    brne 82f",
                "    mov r30, r21",
                "    andi r30, 0x88",
                "    breq 84f",
                "82: subi r21, 0xFE",
                "    movw r30, r24",
                "    add r30, r21",
                "    adc r31, r1",
                "    ld r30, Z",
                "    andi r30, 0x0F",
                "    cp r30, r17",
                "    brne 94f",
                "    mov r30, r21",
                "    andi r30, 0x88",
                "    brne 94f",
                "84: set",
                "94: ret",
                // (The cursor kept in r17, free here and kept by the
                // call, not pushed; the move made by one movw: 0.04% fewer
                // cycles, 4 B smaller.)
                "83: push r18",
                "    push r19",
                "    mov r17, r20",
                "    push r22",
                "    push r23",
                "    push r24",
                "    push r25",
                "    movw r22, r18",
                "    ori r23, 0x80",
                "    call {see}",
                "    ldi r21, 0",
                "    cp r1, r24",
                "    cpc r1, r25",
                "    brge 52f",
                "    ldi r21, 2",
                "52: eor r21, r15",
                "    andi r21, 2",
                "    pop r25",
                "    pop r24",
                "    pop r23",
                "    pop r22",
                "    mov r20, r17",
                "    pop r19",
                "    pop r18",
                "    breq 95f",
                // Turned down: in the winning stage the victim's bit into
                // `hang` (`Picker::mark_losing`; in line, not called:
                // 0.04% fewer cycles for 28 B), then the scan goes on.
                "    sbrs r15, 1",
                "    rjmp 1b",
                "    movw r30, r10",
                "    mov r17, r22",
                "    tst r17",
                "    breq 15f",
                "    neg r17",
                "    and r17, r22",
                "    ldd r21, Z+{hang}",
                "    or r21, r17",
                "    std Z+{hang}, r21",
                "    rjmp 1b",
                "15: mov r17, r23",
                "    neg r17",
                "    and r17, r23",
                "    ldd r21, Z+{hang}+1",
                "    or r21, r17",
                "    std Z+{hang}+1, r21",
                "    rjmp 1b",
                "98: movw r30, r10",
                "    rjmp 96f",
                // Taken by the winning stage: the victim's bit into the
                // generator's first bytes (`Picker::wins`; in line, not
                // called: 0.02% fewer cycles, same size).
                "95: sbrs r15, 1",
                "    rjmp 99f",
                "    movw r30, r10",
                "    mov r17, r22",
                "    tst r17",
                "    breq 16f",
                "    neg r17",
                "    and r17, r22",
                "    ld r21, Z",
                "    or r21, r17",
                "    st Z, r21",
                "    rjmp 99f",
                "16: mov r17, r23",
                "    neg r17",
                "    and r17, r23",
                "    ldd r21, Z+1",
                "    or r21, r17",
                "    std Z+1, r21",
                // The move: from, to and the capture flag (none: 0).
                "99: movw r30, r10",
                "    std Z+{gen}+2, r19",
                "    std Z+{gen}+3, r16",
                "    ori r19, 0x80",
                "96: std Z+{cursor}, r20",
                "    std Z+{pending}+1, r23",
                "    std Z+{pending}, r22",
                "    movw r22, r24",
                "    movw r24, r18",
                "    movw r20, r10",
                "    pop r17",
                "    pop r16",
                "    pop r15",
                "    pop r11",
                "    pop r10",
                "    ret",
                rays = sym super::eval::RAYS,
                jumps = sym super::eval::JUMPS,
                see = sym capture_see,
                geometry = sym crate::chess::GEOMETRY,
                line = const crate::chess::LINE,
                end = const ATTACKER_END,
                hang = const core::mem::offset_of!(Picker, hang),
                main = const core::mem::offset_of!(Picker, main),
                slot = const core::mem::offset_of!(Picker, slot),
                unseen = const QUEEN_UNSEEN,
                oe = const Position::OFFICER_END_OFFSET,
                victims = const core::mem::offset_of!(Picker, victims),
                // (The picker's address in and out again: the fields are
                // stored through it after the block, and the compiler
                // keeps no second copy in two more saved registers.)
                flags = const core::mem::offset_of!(Picker, flags),
                classes = const CLASSES,
                side_lo = const (0u16.wrapping_sub(Position::SIDE_OFFSET as u16) & 0xFF),
                side_hi = const (0u16.wrapping_sub(Position::SIDE_OFFSET as u16) >> 8),
                pending = const core::mem::offset_of!(Picker, pending),
                cursor = const core::mem::offset_of!(Picker, cursor),
                gen = const core::mem::offset_of!(Picker, gen),
                inout("r25r24") self as *mut Picker => m,
                inout("r23r22") pos as *const Position => _,
                inout("r20") stage as u8 => _,
                out("r21") _, out("r18") _, out("r19") _,
                out("X") _, out("Z") _,
        ) };
        Move(m)
    }

    /// The few-move stages (promotions, en passant; castling in
    /// [`Picker::next_castle`]), out of line:
    /// inlined, their side-dependent constants were set up on every call
    /// of [`Picker::next`] (250 cycles of its prologue).
    #[inline(never)]
    fn next_special(&mut self, pos: &Position, stage: Stage) -> Option<Move> {
        match stage {
            Stage::Promotions => self.next_promotion(pos),
            _ => self.next_en_passant(pos),
        }
    }

    /// Queen promotions (pushes and captures) of the pawns on the 7th rank.
    fn next_promotion(&mut self, pos: &Position) -> Option<Move> {
        let us = pos.side_to_move();
        let pawn = make_piece(us, PAWN);
        let (seventh, fwd): (u8, u8) = match us {
            Color::White => (6, 16),
            Color::Black => (1, 0u8.wrapping_sub(16)),
        };
        let list = pos.piece_list(us);
        while (self.slot as usize) < 16 {
            let from = list[self.slot as usize];
            if from == NO_SQUARE || rank_of(from) != seventh || pos.code_on(from) != pawn {
                self.slot += 1;
                self.cursor = 0;
                continue;
            }
            let step = self.cursor;
            self.cursor += 1;
            let ahead = from.wrapping_add(fwd);
            let m = match step {
                0 => {
                    if !pos.is_empty(ahead) {
                        continue;
                    }
                    Move::new(from, ahead, MoveKind::PromoteQueen, false)
                }
                1 | 2 => {
                    let to = if step == 1 {
                        ahead.wrapping_sub(1)
                    } else {
                        ahead.wrapping_add(1)
                    };
                    let b = pos.piece_at(to);
                    if !on_board(to) || b == EMPTY || is_color(b, us) {
                        continue;
                    }
                    Move::new(from, to, MoveKind::PromoteQueen, true)
                }
                _ => {
                    self.slot += 1;
                    self.cursor = 0;
                    continue;
                }
            };
            if m != self.main {
                return Some(m);
            }
        }
        None
    }

    /// Only called with an en-passant square ([`Picker::next`] tests it).
    fn next_en_passant(&mut self, pos: &Position) -> Option<Move> {
        let ep = pos.ep_square();
        let us = pos.side_to_move();
        let pawn = make_piece(us, PAWN);
        while self.cursor < 2 {
            let side: u8 = if self.cursor == 0 { 1 } else { 0u8.wrapping_sub(1) };
            self.cursor += 1;
            let base = match us {
                Color::White => ep.wrapping_sub(16),
                Color::Black => ep.wrapping_add(16),
            };
            let from = base.wrapping_add(side);
            if on_board(from) && pos.piece_at(from) == pawn {
                let m = Move::new(from, ep, MoveKind::EnPassant, true);
                if m != self.main {
                    return Some(m);
                }
            }
        }
        None
    }

    /// The castling move at the cursor (below 2), the cursor stepped on;
    /// None if it is not to be tried. Out of line and one move a call,
    /// called from [`Picker::next_stage`]'s loop: only the move is kept
    /// across the legality probe, not the picker, position and killers
    /// for a second turn (15 registers saved; in
    /// [`Picker::next_special`], 18 and a frame: 0.07% more cycles).
    #[inline(never)]
    fn next_castle(&mut self, pos: &Position, killers: &[Move; 2]) -> Option<Move> {
        let us = pos.side_to_move();
        let home = if us == Color::White { E1 } else { E8 };
        if pos.byte_at(home) != make_piece(us, KING) {
            // No castling once the king has moved (the generator's own first
            // test, before two legality probes).
            self.cursor = 2;
            return None;
        }
        let to = if self.cursor == 0 { home + 2 } else { home - 2 };
        self.cursor += 1;
        let m = Move::new(home, to, MoveKind::Castle, false);
        // SAFETY: plain reads of valid references.
        let killer = unsafe { m == core::ptr::read_volatile(&killers[0]) || m == core::ptr::read_volatile(&killers[1]) };
        if m != self.main && !killer && pos.is_pseudo_legal(m) {
            Some(m)
        } else {
            None
        }
    }
}


impl Picker {
    /// [`Picker::reset`] for the quiescence search's captures, then
    /// [`Picker::prune_victims`], in line in [`Searcher::qsearch`](super::search):
    /// the stage just set is known there, so the prune's test of it and
    /// the call's stores of flags and stage fold away. (Reset out of
    /// line, then pruned: the same fields, stored twice.)
    #[inline(always)]
    pub fn reset_quiescence(&mut self, pos: &Position, floor: i16, mating: bool) {
        self.stage = Stage::CapturesInit;
        self.flags = QUIESCENCE;
        self.main = Move::NONE;
        self.hang = [0; 2];
        self.prune_victims(pos, floor, mating);
    }
}

impl Picker {
    /// Quiescence without quiet checks, right after
    /// [`Picker::reset_quiescence`]: whether [`Picker::next`] would
    /// answer None at once (no victim kept, no pawn on the 7th to
    /// promote, no en-passant square).
    #[inline(always)]
    pub fn quiescence_empty(&self, pos: &Position) -> bool {
        self.victims == 0 && pos.ep_square() == NO_SQUARE && !pawn_on_seventh(pos)
    }
}

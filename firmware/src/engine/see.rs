//! Static exchange evaluation: Levy's "swap-off", done with x-rays.
//!
//! The exchange on one square is played out with the least valuable
//! attacker each time; each side may stop capturing whenever continuing
//! would lose. Men that have already taken part are marked in an 8-byte
//! bitmap and treated as empty squares, so a slider behind an attacker
//! (a rook behind a rook, a bishop or queen behind a pawn) joins in: the
//! x-rays come for free from re-scanning the rays. Pins are ignored, as in
//! Levy's description.

use super::eval::VALUE;
#[cfg(not(target_arch = "avr"))]
use super::eval::{BIT, JUMPS, RAYS};
use super::picker::{attacked_victims, SLOT_BITS};
#[cfg_attr(target_arch = "avr", allow(unused_imports))]
use crate::chess::is_adjacent;
#[cfg(not(target_arch = "avr"))]
use crate::chess::{reach, JUMPS_THERE};
use crate::chess::piece::*;
use crate::chess::square::*;
#[cfg(not(target_arch = "avr"))]
use crate::chess::MoveKind;
use crate::chess::{Color, Move, Position};

crate::progmem! {
    /// Exchange values by piece code, either colour's (0 empty; by kind
    /// for the kinds' codes, white's); the king is "priceless" so that
    /// capturing with it into a defended square never pays. (By code, not
    /// kind: no kind worked out a lookup, 0.19% fewer cycles and 28 B
    /// smaller, the table 18 B larger.)
    pub static SEE_VALUE: [i16; 13] = [0, 100, 320, 330, 500, 950, 5000, 100, 320, 330, 500, 950, 5000];
}

/// [`SEE_VALUE`] again for the AVR's assembly, on a 32-byte boundary: an
/// entry's address is then the code doubled ORed into the table's low
/// byte, its high byte loaded as it is (no 16-bit add: one cycle less a
/// lookup, `bench engine` 0.05% fewer cycles, 12 B smaller with the
/// padding it took here). The Rust code
/// reads SEE_VALUE only on the host, so the AVR image holds this copy
/// alone.
#[cfg(target_arch = "avr")]
#[repr(C, align(32))]
struct SeeValues([i16; 13]);

#[cfg(target_arch = "avr")]
#[link_section = ".progmem.see_values"]
static SEE_VALUES: SeeValues =
    // SAFETY: a progmem `Table` is its array (`repr(transparent)`), read
    // here at compile time.
    SeeValues(unsafe { *(core::ptr::addr_of!(SEE_VALUE) as *const [i16; 13]) });

/// Longest exchange followed.
const MAX_SWAPS: usize = 16;

/// Squares already used in the exchange: bit `file` of byte `rank`.
type Removed = [u8; 8];

#[cfg(not(target_arch = "avr"))]
#[inline(always)]
fn is_removed(removed: &Removed, s: Square) -> bool {
    removed[(rank_of(s) & 7) as usize] & BIT.get(file_of(s) as usize) != 0
}

#[cfg(not(target_arch = "avr"))]
#[inline(always)]
fn mark(removed: &mut Removed, s: Square) {
    removed[(rank_of(s) & 7) as usize] |= BIT.get(file_of(s) as usize);
}

/// A pawn of `by` attacking `t` that is not `removed`, or [`NO_SQUARE`]
/// (of two, always the same one).
#[cfg(not(target_arch = "avr"))]
#[inline(always)]
fn pawn_attacker(pos: &Position, t: Square, by: Color, removed: &Removed) -> Square {
    let pawn = make_piece(by, PAWN);
    let (a, b) = match by {
        Color::White => (t.wrapping_sub(15), t.wrapping_sub(17)),
        Color::Black => (t.wrapping_add(15), t.wrapping_add(17)),
    };
    if pos.piece_at(a) == pawn && !is_removed(removed, a) {
        return a;
    }
    if pos.piece_at(b) == pawn && !is_removed(removed, b) {
        return b;
    }
    NO_SQUARE
}

/// Square of the least valuable man of `by` attacking `t`, ignoring the
/// `removed` squares (as if empty), or [`NO_SQUARE`]. Pawns are probed on
/// their two squares; the other men come from the piece list, as in
/// `Position::attacked_after`: only a man on a fitting line walks it.
/// (Walking the eight rays out of `t` cost 623 cycles a call in `bench
/// engine`, 897 against a bare king, where the rays are long.) A knight
/// serves as well as a bishop: none is cheaper. Among equal men the one
/// in the lowest slot serves (the same exchange in all but freak cases:
/// what an x-ray reveals behind either is no cheaper, but for a bishop or
/// rook behind one of two queens), except knights: the first knight found
/// ends the scan. No man is cheaper, and which knight goes first never
/// matters: a knight stands on no line through `t`, so taking it away
/// uncovers nothing (the swap-off's value is the same in every case;
/// `bench engine` 0.25% fewer cycles, the rest of the list was walked
/// for a cheaper man or a lower knight). The officers are scanned from the
/// last slot down (`bench engine` 0.16% fewer cycles than upwards, where
/// every queen and rook on a line walked it before a bishop or knight).
///
/// This is the host's version (the tests' reference); the AVR runs the
/// officers' scan in assembly, below.
#[cfg(not(target_arch = "avr"))]
fn least_attacker(pos: &Position, t: Square, by: Color, removed: &Removed, own_removed: bool, only: Square) -> Square {
    // Without `own_removed`, `removed` holds `only` alone (or nothing, if
    // NO_SQUARE), a man not of `by`.
    debug_assert!(own_removed || {
        let mut m = [0u8; 8];
        if only != NO_SQUARE {
            mark(&mut m, only);
        }
        m == *removed && (only == NO_SQUARE || !is_color(pos.code_on(only), by))
    });
    let p = pawn_attacker(pos, t, by, removed);
    if p != NO_SQUARE {
        return p;
    }
    let list = pos.piece_list(by);
    let mut best = NO_SQUARE;
    let mut best_kind = KING;
    // From the last officer down: the lists hold queens, rooks, bishops,
    // knights in that order, so the cheap men come first and the dearer
    // ones are passed over without a walk once one is found. Among men of
    // one kind the lowest slot still serves, as in a forward scan.
    let mut slot = pos.officer_end(by);
    while slot > 1 {
        slot -= 1;
        let s = list[(slot & 15) as usize];
        if s == NO_SQUARE {
            continue;
        }
        let code = pos.code_on(s);
        let kind = kind_of(code);
        if kind > best_kind {
            continue;
        }
        let dir = reach(code, s, t);
        if dir == 0 || is_removed(removed, s) {
            continue;
        }
        if dir == JUMPS_THERE {
            return s;
        }
        let mut x = s.wrapping_add(dir);
        while x != t {
            if !pos.is_empty(x) && !is_removed(removed, x) {
                break;
            }
            x = x.wrapping_add(dir);
        }
        if x != t {
            continue;
        }
        best = s;
        best_kind = kind;
    }
    if best == NO_SQUARE {
        let king = list[0];
        if is_adjacent(king, t) && !is_removed(removed, king) {
            return king;
        }
    }
    best
}

/// [`least_attacker`] by hand: the same men, tests and result (the
/// officers' scan checked against the Rust scan on every call of `bench
/// engine`, 89,627, all equal). The pawn probes and the king test are
/// in the assembly too, and it saves no register (the Rust wrapper
/// pushed eleven), and a pawn found returns at once.
/// Without `own_removed` (the first scan of each side: none of its men
/// has taken part yet) the men of `by` found are not looked up in
/// `removed`, only the men in the way: 69% of the calls, `bench engine`
/// 0.26% fewer cycles for 20 B.
/// (The scan below maps a kind to its reach by the numbers of these bits.)
#[cfg(target_arch = "avr")]
const _: () = assert!(crate::chess::LINE == 3 && crate::chess::JUMP == 4);

/// [`least_attacker_avr`]'s best square so far (its code in GPIOR2): in
/// RAM, not in GPIOR2 with the code in a saved register (r12, pushed and
/// popped each officers' scan: `bench engine` 0.015% fewer cycles, 1 B of
/// RAM, 4 B).
#[cfg(target_arch = "avr")]
static mut LA_BEST: u8 = 0;

/// A square's bit in the removed-men map (AVR assembly): the square in
/// `$sq`, its rank's byte of `{removed}` into `$byte` (Z left at it, for
/// a store), the file's bit into `$bit` (file 0..=7 as 1, 2, 4, ... 128:
/// three skips, no shift loop); r30 and r31 clobbered unless named.
#[cfg(target_arch = "avr")]
macro_rules! removed_bit_asm {
    ($sq:literal, $byte:literal, $bit:literal) => {
        concat!(
            "    mov r30, ", $sq, "\n",
            "    swap r30\n",
            "    andi r30, 7\n",
            "    ldi r31, 0\n",
            "    subi r30, lo8(-({removed}))\n",
            "    sbci r31, hi8(-({removed}))\n",
            "    ld ", $byte, ", Z\n",
            "    ldi ", $bit, ", 1\n",
            "    sbrc ", $sq, ", 1\n",
            "    ldi ", $bit, ", 4\n",
            "    sbrc ", $sq, ", 0\n",
            "    lsl ", $bit, "\n",
            "    sbrc ", $sq, ", 2\n",
            "    swap ", $bit, "\n",
        )
    };
}

/// The ATmega644's general purpose I/O registers 0, 1 and 2 (I/O
/// addresses, for `in` and `out`): [`least_attacker`]'s scratch, used by
/// nothing else (no interrupt handler among them).
#[cfg(target_arch = "avr")]
const GPIOR0: u8 = 0x1E;
#[cfg(target_arch = "avr")]
const GPIOR1: u8 = 0x2A;
#[cfg(target_arch = "avr")]
const GPIOR2: u8 = 0x2B;

// [`least_attacker`] reads `officer_end` at a displacement (0..=63) from
// the list of either colour.
#[cfg(target_arch = "avr")]
const _: () = assert!(Position::OFFICER_END_OFFSET >= 144 && Position::OFFICER_END_OFFSET - 128 <= 63);

// An empty slot's square (NO_SQUARE) is read as a board byte, at the
// position + 0xFF: still inside it.
#[cfg(target_arch = "avr")]
const _: () = assert!(core::mem::size_of::<Position>() > NO_SQUARE as usize);

#[cfg(target_arch = "avr")]
#[inline(always)]
fn least_attacker(pos: &Position, t: Square, by: Color, removed: &Removed, own_removed: bool, only: Square) -> Square {
    debug_assert!(core::ptr::eq(removed, core::ptr::addr_of!(REMOVED)));
    let r: u16;
    // SAFETY: the entry's convention (see `least_attacker_avr`); it keeps
    // the registers a C function keeps.
    unsafe {
        core::arch::asm!(
            "out {gpior0}, {only}",
            "bst {own}, 0",
            "call {la}",
            la = sym least_attacker_avr,
            gpior0 = const GPIOR0,
            only = in(reg) only,
            own = in(reg) own_removed as u8,
            inout("r25r24") pos as *const Position as usize as u16 => _,
            inout("r23r22") t as u16 => r,
            inout("r20") by as u8 => _,
            out("r18") _,
            out("r19") _,
            out("r21") _,
            out("X") _,
            out("Z") _,
        );
    }
    r as u8
}

/// [`least_attacker`]'s assembly (C ABI, for [`see_avr`]'s calls: the
/// position in r25:r24, `t` in r22, `by` in r20, `own_removed` in the T
/// flag, `only` in GPIOR0, both set by the caller (the swap-off's scans
/// at d = 2 on only set T, later ones nothing: `bench engine` 0.06% fewer
/// cycles than from r18 and r19 here, 8 B smaller); the square back in
/// r22, not r24: the position stays in r25:r24 for the callers: `bench
/// engine` 0.10% fewer cycles; `t` comes as 16 bits, not zero-extended
/// here). It leaves `t` in r23, T and GPIOR0 as they were, and uses only
/// r0, r18..r23, r26, r27, r30, r31, GPIOR1, GPIOR2 and [`LA_BEST`].
#[cfg(target_arch = "avr")]
#[inline(never)]
extern "C" fn least_attacker_avr(pos: &Position, t: u16, by: u8) -> u32 {
    // The scan's reach of a knight, bishop, rook or queen (its code less
    // the knight's: a jump, else that number) is REACH's.
    debug_assert!((KNIGHT..=QUEEN).all(|k| {
        crate::chess::REACH.get(k as usize) & (crate::chess::LINE | crate::chess::JUMP)
            == if k == KNIGHT { crate::chess::JUMP } else { k - KNIGHT }
    }));
    debug_assert!(pos.officer_end(if by == 0 { Color::White } else { Color::Black }) >= 1);
    let (hi, lo): (u16, u16);
    // Registers: r25:r24 the position (the result in r22), r20 `by`, r22
    // `t`, the T flag `own_removed` (clear, no man of `by` is looked up in
    // `removed`, and the men in the way are compared with `only`, in
    // GPIOR0, not looked up either: the map is then not even built, see
    // [`swap`]; set, all are looked up, but for the officers of `by`
    // where GPIOR0 is below 0x80: it is then the one man of `by` in the
    // map, and they are compared with it); `removed` is
    // always [`REMOVED`], read at
    // its address (its pointer kept in two saved registers cost 0.21%
    // more cycles). Pawn stage: r21 the pawn's code, r26/r27 its two
    // squares. Officers: X the list from `end` down, r0 the slots left
    // (then the king's square, read from slot 0 after the scan only when
    // no officer serves), r19 the man's square (then the walk), r20 its
    // code, GPIOR1 minus our knights' code, r21 the geometry entry (then
    // scratch), r22 the reach bits then the step, [`LA_BEST`] the best
    // square, GPIOR2 its code (0xFF while none; one colour's codes rank as
    // its kinds do: no kind worked out a man), r23 `t`, r31:r18 the GEOMETRY row of
    // `t` (one subtraction a man, not an index worked out and added to
    // the table: 0.12% fewer cycles; r31 set again after a man looked
    // at, who took Z, so the square takes r19, not a saved r16: `bench
    // engine` 0.02% fewer cycles, 4 B more). No register saved: the
    // count in r0, the walk in r19 and the values read least often in
    // the I/O registers (`in`, `out`: one cycle, as a register) freed
    // four (0.38% fewer cycles, 28 B smaller).
    // SAFETY: `Position` is `repr(C)` with its 0x88 board at offset 0 and
    // the piece lists at 128; the scan reads the board, the list of `by`
    // and the 8-byte `removed`, and writes GPIOR1, GPIOR2 (nothing else
    // uses them) and [`LA_BEST`].
    unsafe {
        core::arch::asm!(
            // Pawns: white (code 1) from t-15 and t-17, black (7) from
            // t+15 and t+17; off the board or removed, none. The square's
            // byte is read first, off the board too (the board's right
            // half, or up to 17 bytes before the position), and only a
            // pawn's code is then tested for the board: most squares hold
            // none (`bench engine` 0.09% fewer cycles). Both bytes are read
            // from one pointer per colour (`ldd`), the found pawn's tests
            // in a subroutine (`bench engine` 0.20% fewer cycles than two
            // pointers worked out, 4 B smaller).
            "    movw r30, r24",
            "    add r30, r22",
            "    adc r31, r1",
            "    tst r20",
            "    brne 45f",
            // White: Z at t-17, t-15 read at Z+2 first (16-bit sums: a
            // square that wraps is off the board, told by its 0x88 bits
            // whatever byte was read). A pawn's code branches out of line
            // (each probe falls through on the common way: `bench engine`
            // 0.05% fewer cycles, 4 B more).
            "    sbiw r30, 17",
            "    ldd r21, Z+2",
            "    andi r21, 0x0F",
            "    cpi r21, 1",
            "    breq 40f",
            "41: ld r21, Z",
            "    andi r21, 0x0F",
            "    cpi r21, 1",
            "    breq 42f",
            // The officers: X the list of `by` (the position + 128 + 16 *
            // `by`), r0 its `end` (read at a displacement from the list's
            // address), r21 minus our knights' code: a block by colour,
            // each reached from its own pawn probes (`bench engine` 0.20%
            // fewer cycles than one block testing `by` three times, 4 B
            // smaller).
            "31: movw r26, r24",
            "    subi r26, 0x80",
            "    sbci r27, 0xFF",
            "    movw r30, r26",
            "    ldd r0, Z+{end_white}",
            "    ldi r21, 0xFE",
            "    rjmp 3f",
            // The pawns found: do they serve (see 60 below)?
            "40: mov r26, r22",
            "    subi r26, 15",
            "    rcall 60f",
            "    breq 13f",
            "    movw r30, r24",
            "    add r30, r22",
            "    adc r31, r1",
            "    sbiw r30, 17",
            "    rjmp 41b",
            "42: mov r26, r22",
            "    subi r26, 17",
            "    rcall 60f",
            "    breq 13f",
            "    rjmp 31b",
            "47: mov r26, r22",
            "    subi r26, -15",
            "    rcall 60f",
            "    breq 13f",
            "    movw r30, r24",
            "    add r30, r22",
            "    adc r31, r1",
            "    rjmp 46f",
            "48: mov r26, r22",
            "    subi r26, -17",
            "    rcall 60f",
            "    brne 32f",
            "13: mov r23, r22",
            "    mov r22, r26",
            "    ret",
            // Black: t+15, then t+17.
            "45: ldd r21, Z+15",
            "    andi r21, 0x0F",
            "    cpi r21, 7",
            "    breq 47b",
            "46: ldd r21, Z+17",
            "    andi r21, 0x0F",
            "    cpi r21, 7",
            "    breq 48b",
            "32: movw r26, r24",
            "    subi r26, 0x70",
            "    sbci r27, 0xFF",
            "    movw r30, r26",
            "    ldd r0, Z+{end_black}",
            "    ldi r21, 0xF8",
            "3:  ldi r18, 0x77",
            // r31:r18 the geometry row of `t` (GEOMETRY + 0x77 + t; GEOMETRY
            // starts a page, see chess::attacks::FLASH_PAGES:
            // the entry of s to t at minus s, in the page: r31 taken as
            // it is, no borrow; `bench engine` 0.19% fewer cycles, when
            // a page-aligned copy of GEOMETRY here cost 256 B and its
            // padding).
            "    ldi r31, hi8({geometry})",
            "    add r18, r22",
            // X from `end` down (`end` read past the pawns: `bench engine`
            // 0.05% fewer cycles than read by the Rust wrapper, 4 B
            // smaller); GPIOR1 minus our knights' code, GPIOR2 the best
            // code, LA_BEST the best square.
            "    add r26, r0",
            "    adc r27, r1",
            "    out {gpior1}, r21",
            "    ldi r21, 0xFF",
            "    out {gpior2}, r21",
            "    sts {best}, r21",
            "    mov r23, r22",
            // (No officer slot: out through the loop's jump to 9, in
            // reach: 0.03% fewer cycles than around a jump of its own.)
            "    dec r0",
            "    breq 9f",
            // reach(): the geometry entry of s to t, masked by the code's.
            // The entry first: a man on no line of t and no jump from it
            // (55% of them) is passed over without its code read: 0.47%
            // fewer cycles than the code read and its cost compared first.
            // An entry without LINE or JUMP bits is 0 (chess::attacks
            // builds it so: the step index only with LINE, NEXT_DIAGONAL
            // only with DIAGONAL), so the entry itself is tested, not
            // its reach bits (0.12% fewer cycles, 4 B smaller). An empty
            // slot (NO_SQUARE) reads entry 0x78 + t (of the page: the
            // table's, or the 0 past it) and is told (below) only where
            // that byte is not 0: most men are on no line of
            // t, and pass one test. (With the king read at the end and
            // `end` taken as at least 1: 0.14% fewer cycles, 8 B smaller.)
            // (Two men a pass: the count's test falls through once of
            // two, `bench engine` 0.02% fewer cycles for 16 B.)
            "1:  ld r19, -X",
            "    mov r30, r18",
            "    sub r30, r19",
            "    lpm r21, Z",
            "    tst r21",
            "    brne 20f",
            "    dec r0",
            "    breq 9f",
            "    ld r19, -X",
            "    mov r30, r18",
            "    sub r30, r19",
            "    lpm r21, Z",
            "    tst r21",
            "    brne 20f",
            "8:  dec r0",
            "    brne 1b",
            // No officer: the king, if adjacent to t (and not t) and not
            // removed.
            "9:  lds r22, {best}",
            "    cpi r22, 0xFF",
            "    brne 10f",
            "    ld r0, -X",
            "    cp r0, r23",
            "    breq 10f",
            // (Adjacent: the 0x88 difference plus 17 below 35, its low
            // nibble below 3.)
            "    mov r21, r0",
            "    sub r21, r23",
            "    subi r21, 0xEF",
            "    cpi r21, 35",
            "    brsh 10f",
            "    andi r21, 0x0F",
            "    cpi r21, 3",
            "    brsh 10f",
            "    brtc 16f",
            "    in r21, {gpior0}",
            "    cp r0, r21",
            "    breq 10f",
            "    sbrs r21, 7",
            "    rjmp 16f",
            "    mov r21, r0",
            "    rcall 70f",
            "    brne 10f",
            "16: mov r22, r0",
            "10:",
            // (Returning here, not at the end: the compiler adds only
            // the `ret` after the block, checked in the image; `bench
            // engine` 0.04% fewer cycles than through a jump.)
            "    ret",
            // Back from a man looked at (which took Z): GEOMETRY's page
            // in r31 again, for the next men.
            "19: ldi r31, hi8({geometry})",
            "    dec r0",
            "    brne 1b",
            "    rjmp 9b",
            // A knight (its code less the knight's 0): it serves if a
            // jump away (the entry's JUMP bit), whatever was found before
            // (no man is cheaper: no dearer test), past the empty slot's
            // and the removed tests. (Its reach once set to JUMP and
            // tested with the other men's, which took a branch each
            // around it, and the JUMP compare after: with the step read
            // below, `bench engine` 0.18% fewer cycles, 4 B more.)
            "14: sbrs r21, 2",
            "    rjmp 19b",
            "    cpi r19, 0xFF",
            "    breq 19b",
            // (Without T, nothing to look up: it serves at once, and a
            // line man, without T, walks at once, past the knight's
            // test: `bench engine` 0.04% fewer cycles, 4 B.)
            "    ldi r22, {jump}",
            "    brts 3f",
            "    rjmp 12f",
            "20: movw r30, r24",
            "    add r30, r19",
            "    adc r31, r1",
            "    ld r20, Z",
            "    andi r20, 0x0F",
            // The kind's reach (REACH, no table read): by the code less
            // the knight's, knights (0) jump, bishops (1) DIAGONAL, rooks
            // (2) STRAIGHT, queens (3) LINE; a pawn in an officer slot
            // (below the knight's code: no carry) never reaches (probed
            // above).
            "    in r22, {gpior1}",
            "    add r22, r20",
            "    brcc 19b",
            "    breq 14b",
            "    and r22, r21",
            "    andi r22, {line}",
            "    breq 19b",
            // No dearer man than the best found (tested past the reach,
            // which more men fail: `bench engine` 0.03% fewer cycles).
            "    in r22, {gpior2}",
            "    cp r22, r20",
            "    brlo 19b",
            // An empty slot (NO_SQUARE) told only here, where a man would
            // serve: its byte, read from the position + 0xFF (inside the
            // position, past the lists), rarely gets this far (`bench
            // engine` 0.05% fewer cycles than told first).
            "    cpi r19, 0xFF",
            "    breq 19b",
            // The step: the entry swapped, its high nibble set, is the
            // low byte of its address in GEOMETRY's page, see
            // chess::attacks (2 cycles less than DIRECTIONS indexed, 4 B
            // smaller; with the knights' branch below, `bench engine`
            // 0.18% fewer cycles).
            "    swap r21",
            "    ori r21, 0xF0",
            "    mov r30, r21",
            "    ldi r31, hi8({geometry})",
            "    lpm r22, Z",
            // (Is s removed? The test of 70 below, in line here and in
            // the walk, the loop's end moved up to keep its branches in
            // reach: 0.13% fewer cycles for 56 B.)
            // (With T and GPIOR0 below 0x80, the one man of `by` in
            // `removed` is GPIOR0: s is compared with it, not looked up;
            // see [`see_avr`]'s loop.)
            "3:  brtc 5f",
            "    in r30, {gpior0}",
            "    sbrc r30, 7",
            "    rjmp 18f",
            "    cp r19, r30",
            "    breq 19b",
            "15: cpi r22, {jump}",
            "    breq 12f",
            // A line: walk from s to t, through empty or removed squares
            // (in s's register: s is read again from the list, where X
            // stays).
            "5:  add r19, r22",
            "    cp r19, r23",
            "    breq 6f",
            "    movw r30, r24",
            "    add r30, r19",
            "    adc r31, r1",
            "    ld r21, Z",
            "    tst r21",
            "    breq 5b",
            "    brts 17f",
            "    in r30, {gpior0}",
            "    cp r19, r30",
            "    breq 5b",
            "    rjmp 19b",
            // (Here, in the branches' reach.)
            "18:",
            removed_bit_asm!("r19", "r31", "r30"),
            "    and r30, r31",
            "    breq 15b",
            "    rjmp 19b",
            // (A man in the way at d = 2 of the swap-off, GPIOR0 below
            // 0x80: `first` and s (GAINS + 4) are the men in the map.
            // GPIOR0 with bit 7 never equals a square.)
            "17: in r30, {gpior0}",
            "    cp r19, r30",
            "    breq 5b",
            "    sbrc r30, 7",
            "    rjmp 72f",
            "    lds r30, {gains}+4",
            "    cpse r19, r30",
            "    rjmp 19b",
            "    rjmp 5b",
            "72:",
            removed_bit_asm!("r19", "r31", "r30"),
            "    and r30, r31",
            "    brne 5b",
            "    rjmp 19b",
            "6:  ld r19, X",
            "    sts {best}, r19",
            "    out {gpior2}, r20",
            "    rjmp 19b",
            // A knight: the first found serves (see above).
            "12: mov r22, r19",
            "    rjmp 10b",
            // Does the pawn on square r26 serve (on the board, and not
            // removed if T: not GPIOR0, below 0x80 the one man of `by`
            // in the map)? Z set if so (r30, r31 used).
            "64: clz",
            "    ret",
            "65: sez",
            "    ret",
            "60: mov r30, r26",
            "    andi r30, 0x88",
            "    brne 62f",
            "    brtc 62f",
            "    in r31, {gpior0}",
            "    cp r26, r31",
            "    breq 64b",
            "    sbrs r31, 7",
            "    rjmp 65b",
            removed_bit_asm!("r26", "r30", "r31"),
            "    and r31, r30",
            "62: ret",
            // Is square r21 removed? Z clear if so (r21 its bit; Z used).
            "70: mov r30, r21",
            "    swap r30",
            "    andi r30, 7",
            "    ldi r31, 0",
            "    subi r30, lo8(-({removed}))",
            "    sbci r31, hi8(-({removed}))",
            "    ld r31, Z",
            "    mov r30, r21",
            "    ldi r21, 1",
            "    sbrc r30, 1",
            "    ldi r21, 4",
            "    sbrc r30, 0",
            "    lsl r21",
            "    sbrc r30, 2",
            "    swap r21",
            "    and r21, r31",
            "    ret",
            "99:",
            geometry = sym crate::chess::GEOMETRY,
            line = const crate::chess::LINE,
            jump = const crate::chess::JUMP,
            gpior0 = const GPIOR0,
            gpior1 = const GPIOR1,
            end_white = const Position::OFFICER_END_OFFSET - 128,
            end_black = const Position::OFFICER_END_OFFSET + 1 - 144,
            gpior2 = const GPIOR2,
            best = sym LA_BEST,
            gains = sym GAINS,
            inout("r25r24") pos as *const Position as usize as u16 => hi,
            removed = sym REMOVED,
            out("r18") _,
            out("r19") _,
            inout("r20") by => _,
            inout("r23r22") t => lo,
            out("r21") _,
            out("X") _,
            out("Z") _,
        );
    }
    lo as u32 | (hi as u32) << 16
}

/// Plays out the exchange after the first capture: `gain0` was won, the
/// capturer (worth `on_square`) now stands on `t`, `side` is to recapture.
/// The first recapture is decided here, in line: most exchanges end there
/// (none worth making, or none at all) with `gain0`, and then without
/// [`swap_on`]'s gain list and register saves. `first` is the one man in
/// `removed` (the first capturer), or NO_SQUARE where the map is full
/// already (an en-passant capture: the victim too).
#[cfg(not(target_arch = "avr"))]
#[inline(always)]
fn swap(pos: &Position, t: Square, removed: &mut Removed, gain0: i16, on_square: i16, side: Color, first: Square) -> i16 {
    let cur = on_square - gain0;
    let a = -gain0;
    if (if a > cur { a } else { cur }) < 0 {
        return gain0;
    }
    // (No man of `side` has taken part: only the capturer, of the other
    // side, is in `removed`, and an en-passant victim. Without the
    // victim, `first` is the capturer: on the AVR the map is not built
    // until [`swap_on`] needs it, the scan compares the men in its way
    // with `first`; `bench engine` 0.14% fewer cycles for 44 B.)
    let s = least_attacker(pos, t, side, removed, first == NO_SQUARE, first);
    if s == NO_SQUARE {
        return gain0;
    }
    swap_on(pos, t, removed, gain0, cur, s, side, first)
}

/// [`swap`] from the first recapture on: `s` of `side` takes on `t`, where
/// `gain1` is the balance before it.
///
/// The swap-off's gain list g0, g1, .., gn (each side free to stop; the
/// last entry written, g(n+1), is speculative and left out) is worth
/// min(g0, max(-g1, min(g2, max(-g3, .. ±gn)))): the backward pass
/// `g[d-1] = min(g[d-1], -g[d])` unrolled. Folded in as the list grows,
/// the outer part is always a clamp to [lo, hi], so no list is kept: no
/// 32-byte frame, no backward pass (the same values; `bench engine` the
/// same nodes, fewer cycles).
#[cfg(not(target_arch = "avr"))]
#[inline(never)]
fn swap_on(pos: &Position, t: Square, removed: &mut Removed, gain0: i16, gain1: i16, s: Square, side: Color, first: Square) -> i16 {
    // A recapturer worth less than the capturer's net loss `gain1` ends
    // the exchange at once (the loop's first test), and then without the
    // loop's 16 register saves: the capturer is lost, -gain1 (below
    // `gain0`, never negative). `bench engine` 0.14% fewer cycles for 60 B.
    if SEE_VALUE.get(pos.code_on(s) as usize) < gain1 {
        return -gain1;
    }
    debug_assert!(is_color(pos.code_on(s), side));
    let _ = first;
    swap_loop(pos, t, removed, gain0, gain1, s)
}

/// [`swap`] on the AVR: `first` with bit 7 set where the map is full
/// already (an en-passant capture).
#[cfg(target_arch = "avr")]
#[inline(always)]
fn swap(pos: &Position, t: Square, removed: &mut Removed, gain0: i16, on_square: i16, side: Color, first: Square) -> i16 {
    let _ = removed;
    let r: i16;
    // SAFETY: the entry's convention (see `see_avr`); it keeps r12 and
    // r16 and the other registers a C function keeps.
    unsafe {
        core::arch::asm!(
            "call {swap}",
            swap = sym prodigy_see_swap,
            inout("r25r24") pos as *const Position as usize as u16 => r,
            inout("r23r22") t as u16 | (first as u16) << 8 => _,
            inout("r21r20") gain0 => _,
            inout("r19r18") on_square => _,
            inout("r27") side as u8 => _,
            out("r26") _,
            out("r30") _,
            out("r31") _,
        );
    }
    r
}

#[cfg(target_arch = "avr")]
extern "C" {
    /// [`swap`] and [`swap_on`] by hand: an entry into [`see_avr`]'s
    /// assembly (the position in r25:r24, `t` in r22, `first` in r23,
    /// `gain0` in r21:r20, `on_square` in r19:r18, the side to recapture
    /// in r27; only called from assembly).
    fn prodigy_see_swap();
}

/// [`see`] by hand (C ABI: the position in r25:r24, the move in r23:r22):
/// the two values read, with nothing saved (the compiled `see` saved 9
/// registers; en-passant captures and promotions, rare, at the end).
/// Then, at the global label `prodigy_see_swap` (an entry of its own for
/// [`swap`]'s other callers: `t` in r22, `first` in r23, `gain0` in
/// r21:r20, `on_square` in r19:r18, the side to recapture in r27, here
/// by the colour of the man on `from`, whose code is read for
/// `on_square` anyway: 0.04% fewer cycles than by the side to move,
/// 0.08% fewer than by `first`'s man at the label),
/// [`swap`] and [`swap_on`]: the first recapture's scan and test, again
/// with nothing saved (`gain0` and `gain1` kept in [`GAINS`] across the scans;
/// [`least_attacker_avr`] keeps the position and `t`, `first` stays in
/// GPIOR0), then [`swap_loop`] by hand, in line.
/// The function is this one block: the compiler adds only the `ret`
/// (checked in the image), so the label is an entry like the function's.
#[cfg(target_arch = "avr")]
#[inline(never)]
#[allow(named_asm_labels)]
extern "C" fn see_avr(pos: &Position, m: u16) -> i16 {
    let r: i16;
    // SAFETY: reads the board and SEE_VALUE, writes [`REMOVED`] and
    // GPIOR0..2 (the swap-off's scratch); the stack is balanced.
    unsafe {
        core::arch::asm!(
            "    mov r26, r22",
            "    andi r26, 0x77",
            "    mov r27, r23",
            "    andi r27, 0x77",
            // gain0 (r21:r20) by the man on `to`, on_square (r19:r18) by
            // the man on `from`.
            "    movw r30, r24",
            "    add r30, r27",
            "    adc r31, r1",
            "    ld r30, Z",
            "    andi r30, 0x0F",
            "    lsl r30",
            "    ori r30, lo8({see_value})",
            "    ldi r31, hi8({see_value})",
            "    lpm r20, Z+",
            "    lpm r21, Z",
            "    movw r30, r24",
            "    add r30, r26",
            "    adc r31, r1",
            "    ld r30, Z",
            "    andi r30, 0x0F",
            // r0 the side to recapture: 1 if the man on `from` is white
            // (its code below 7), not the side to move read from the
            // position (`bench engine` 0.04% fewer cycles, 4 B smaller).
            "    cpi r30, 7",
            "    clr r0",
            "    adc r0, r1",
            "    lsl r30",
            "    ori r30, lo8({see_value})",
            "    ldi r31, hi8({see_value})",
            "    lpm r18, Z+",
            "    lpm r19, Z",
            // A promotion (bit 11), or en passant (kind 3: bits 3 and 7).
            // (Bit 7 alone, a castle, rare: both bits tested out of line,
            // `bench engine` 0.05% fewer cycles than both masked here.)
            "    sbrc r23, 3",
            "    rjmp 80f",
            "    sbrc r22, 7",
            "    rjmp 86f",
            "70: mov r22, r27",
            "    mov r23, r26",
            "    mov r27, r0",
            ".global prodigy_see_swap",
            "prodigy_see_swap:",
            // gain1 = on_square - gain0; max(-gain0, gain1) < 0: gain0.
            // (gain1 negative, rare, tested out of line below: `bench
            // engine` 0.02% fewer cycles.)
            "    sub r18, r20",
            "    sbc r19, r21",
            "    brmi 2f",
            "1:  sts {gains}, r20",
            "    sts {gains}+1, r21",
            "    sts {gains}+2, r18",
            "    sts {gains}+3, r19",
            "    mov r20, r27",
            // own_removed (T) bit 7 (the map full), `only` = first.
            "    out {gpior0}, r23",
            "    bst r23, 7",
            "    rcall {la}",
            // None: gain0. (The block returns from inside, here and
            // below: the compiler adds only the `ret`; `bench engine`
            // 0.03% fewer cycles than through jumps to its end.)
            "    cpi r22, 0xFF",
            "    brne 5f",
            "    lds r24, {gains}",
            "    lds r25, {gains}+1",
            "    ret",
            "2:  cp r1, r20",
            "    cpc r1, r21",
            "    brge 1b",
            "    movw r24, r20",
            "    ret",
            // s in r27, t in r22.
            "5:  lds r18, {gains}+2",
            "    lds r19, {gains}+3",
            "    mov r27, r22",
            "    mov r22, r23",
            // A recapturer worth less than gain1: -gain1.
            "    movw r30, r24",
            "    add r30, r27",
            "    adc r31, r1",
            "    ld r30, Z",
            "    andi r30, 0x0F",
            "    lsl r30",
            "    ori r30, lo8({see_value})",
            "    ldi r31, hi8({see_value})",
            "    lpm r26, Z+",
            "    lpm r31, Z",
            "    cp r26, r18",
            "    cpc r31, r19",
            "    brge 3f",
            "    ldi r24, 0",
            "    ldi r25, 0",
            "    sub r24, r18",
            "    sbc r25, r19",
            "    ret",
            // d = 2: the scan for first's side (first and s in the map,
            // not built: compared with, see the loop below), before the
            // loop's seven saves: most exchanges end here, none found,
            // with lo, -gain1 (a, cur = value - gain1 not negative: s
            // is worth gain1 at least). Across the scan gain0 and gain1
            // stay in GAINS, s (for the scan) at GAINS + 4; found, s's value
            // read again (not saved: `bench engine` 0.03% fewer cycles,
            // 12 B more), the loop takes over at d = 2 (`bench engine` 0.16% fewer
            // cycles than the loop's eight saves first, 72 B more).
            "3:  sts {gains}+4, r27",
            // The side to recapture: 1 if s is white, its code (below 7)
            // told by the value's address still in r30 (the code
            // doubled, plus 1, in its low five bits: SEE_VALUES is on a
            // 32-byte boundary), not read again (`bench engine` 0.04%
            // fewer cycles, 8 B smaller).
            "    andi r30, 0x1F",
            "    cpi r30, 15",
            "    ldi r20, 0",
            "    adc r20, r1",
            // En passant (GPIOR0 bit 7, the map full): s marked in it
            // too, the scan looks all men up (`rcall`: 20 B smaller than
            // the loop from d = 1).
            "    sbic {gpior0}, 7",
            "    rcall 78f",
            "    set",
            "    rcall {la}",
            "    lds r26, {gains}+2",
            "    lds r27, {gains}+3",
            "    cpi r22, 0xFF",
            "    brne 77f",
            "    ldi r24, 0",
            "    ldi r25, 0",
            "    sub r24, r26",
            "    sbc r25, r27",
            "    ret",
            // Found (s in r22, t in r23): the loop from d = 2, `lo` the
            // negated gain1, `hi` gain0, `prev` cur, r14 the first
            // recapturer.
            "77: lds r20, {gains}",
            "    lds r21, {gains}+1",
            "    push r10",
            "    push r11",
            "    push r12",
            "    push r13",
            "    push r14",
            "    push r15",
            "    push r16",
            "    push r17",
            "    lds r14, {gains}+4",
            "    movw r12, r20",
            "    movw r30, r24",
            "    add r30, r14",
            "    adc r31, r1",
            "    ld r30, Z",
            "    andi r30, 0x0F",
            "    lsl r30",
            "    ori r30, lo8({see_value})",
            "    ldi r31, hi8({see_value})",
            "    lpm r18, Z+",
            "    lpm r19, Z",
            "    sub r18, r26",
            "    sbc r19, r27",
            "    movw r16, r18",
            "    mov r10, r1",
            "    mov r11, r1",
            "    sub r10, r26",
            "    sbc r11, r27",
            "    ldi r26, 2",
            "    mov r15, r26",
            "    mov r26, r22",
            "    mov r22, r23",
            "    mov r23, r26",
            "    rjmp 1f",
            // En passant: s into the map (r21, r26, r30, r31 used).
            "78:",
            removed_bit_asm!("r27", "r26", "r21"),
            "    or r26, r21",
            "    st Z, r26",
            "    ret",
            // The loop (swap_loop by hand, in line: the first man's value
            // and code known): eight registers saved (the position and
            // `t` kept by the scan), `lo` r11:r10, `hi` r13:r12, `prev`
            // r17:r16, `d` r15; s in r23, its value r19:r18, the side to
            // recapture r20.
            "1:  movw r30, r24",
            "    add r30, r23",
            "    adc r31, r1",
            "    ld r26, Z",
            "    andi r26, 0x0F",
            "    cpi r26, 7",
            "    ldi r20, 0",
            "    adc r20, r1",
            "    mov r30, r26",
            "    lsl r30",
            "    ori r30, lo8({see_value})",
            "    ldi r31, hi8({see_value})",
            "    lpm r18, Z+",
            "    lpm r19, Z",
            "    ldi r26, 2",
            "    cp r15, r26",
            "    brne 7f",
            "    in r26, {gpior0}",
            "    sbrc r26, 7",
            "    rjmp 7f",
            // The map: first and s at d = 2 (r14), eight stores through
            // Z and first's bit stored, not ORed in (the compiler's eight
            // `sts` took 36 B for the same 18 cycles). The later scans
            // look all men up: GPIOR0 bit 7 (T stays set).
            "    ldi r27, 0xFF",
            "    out {gpior0}, r27",
            "    ldi r30, lo8({removed})",
            "    ldi r31, hi8({removed})",
            "    std Z+0, r1",
            "    std Z+1, r1",
            "    std Z+2, r1",
            "    std Z+3, r1",
            "    std Z+4, r1",
            "    std Z+5, r1",
            "    std Z+6, r1",
            "    std Z+7, r1",
            "    mov r27, r26",
            "    swap r27",
            "    andi r27, 7",
            "    add r30, r27",
            "    adc r31, r1",
            "    ldi r27, 1",
            "    sbrc r26, 1",
            "    ldi r27, 4",
            "    sbrc r26, 0",
            "    lsl r27",
            "    sbrc r26, 2",
            "    swap r27",
            "    st Z, r27",
            removed_bit_asm!("r14", "r27", "r21"),
            "    or r27, r21",
            "    st Z, r27",
            "7:",
            removed_bit_asm!("r23", "r27", "r21"),
            "    or r27, r21",
            "    st Z, r27",
            // d += 1; cur = value - prev; a = -prev.
            "    inc r15",
            "    sub r18, r16",
            "    sbc r19, r17",
            "    ldi r26, 0",
            "    ldi r27, 0",
            "    sub r26, r16",
            "    sbc r27, r17",
            // Entry d - 1 joins the bounds: d even, lo = clamp(a, lo,
            // hi); odd, hi = clamp(prev, lo, hi).
            "    sbrc r15, 0",
            "    rjmp 3f",
            "    cp r10, r26",
            "    cpc r11, r27",
            "    brge 2f",
            "    movw r10, r26",
            "2:  cp r12, r10",
            "    cpc r13, r11",
            "    brge 5f",
            "    movw r10, r12",
            "    rjmp 5f",
            "3:  cp r16, r12",
            "    cpc r17, r13",
            "    brge 4f",
            "    movw r12, r16",
            "4:  cp r12, r10",
            "    cpc r13, r11",
            "    brge 5f",
            "    movw r12, r10",
            // Done if a and cur are both negative, or at the longest
            // exchange. (Also where the bounds meet, as the host's
            // loop: 4 times in `bench engine`'s 19,123 tests, 57,000
            // cycles more.)
            "5:  sbrs r27, 7",
            "    rjmp 6f",
            "    sbrc r19, 7",
            "    rjmp 9f",
            "6:  ldi r26, {max_d}",
            "    cp r15, r26",
            "    brsh 9f",
            "    movw r16, r18",
            // (The scan at d = 2, of `first`'s side, is made before the
            // loop, GPIOR0 `first`: its men are compared with it, the men
            // in the way with it and s (GAINS + 4), none looked up in the
            // map, not built yet (`bench engine` 0.05% fewer cycles for
            // 20 B than the map built; d = 3 too, with the first
            // recapturer kept in a saved register, would cost about what
            // it saves). The loop's scans, later, look them up: GPIOR0
            // bit 7, T set, both as they stay.)
            "    rcall {la}",
            "    cpi r22, 0xFF",
            "    breq 9f",
            "    mov r26, r22",
            "    mov r22, r23",
            "    mov r23, r26",
            "    rjmp 1b",
            // The new bound: lo if d is even, else hi.
            "9:  movw r24, r12",
            "    sbrs r15, 0",
            "    movw r24, r10",
            "    pop r17",
            "    pop r16",
            "    pop r15",
            "    pop r14",
            "    pop r13",
            "    pop r12",
            "    pop r11",
            "    pop r10",
            "    ret",
            // A promotion to the kind KNIGHT + bit 3 + 2 * bit 7: worth
            // v (eval's VALUE) on `to`, gain0 + v - VALUE[PAWN] won.
            "80: ldi r30, {knight}",
            "    sbrc r22, 3",
            "    subi r30, -1",
            "    sbrc r22, 7",
            "    subi r30, -2",
            "    ldi r31, 0",
            "    lsl r30",
            "    subi r30, lo8(-({value}))",
            "    sbci r31, hi8(-({value}))",
            "    lpm r18, Z+",
            "    lpm r19, Z",
            "    add r20, r18",
            "    adc r21, r19",
            "    ldi r30, lo8({value} + 2 * {pawn})",
            "    ldi r31, hi8({value} + 2 * {pawn})",
            "    lpm r23, Z+",
            "    sub r20, r23",
            "    lpm r23, Z",
            "    sbc r21, r23",
            "    rjmp 70b",
            "86: sbrc r22, 3",
            "    rjmp 85f",
            "    rjmp 70b",
            // En passant: a pawn won, the map full (the capturer and the
            // victim beside it: one byte), first's bit 7 set.
            "85: ldi r30, lo8({see_value} + 2 * {pawn})",
            "    ldi r31, hi8({see_value} + 2 * {pawn})",
            "    lpm r20, Z+",
            "    lpm r21, Z",
            "    ldi r30, lo8({removed})",
            "    ldi r31, hi8({removed})",
            "    std Z+0, r1",
            "    std Z+1, r1",
            "    std Z+2, r1",
            "    std Z+3, r1",
            "    std Z+4, r1",
            "    std Z+5, r1",
            "    std Z+6, r1",
            "    std Z+7, r1",
            "    mov r22, r26",
            "    swap r22",
            "    andi r22, 7",
            "    add r30, r22",
            "    adc r31, r1",
            "    ldi r22, 1",
            "    sbrc r26, 1",
            "    ldi r22, 4",
            "    sbrc r26, 0",
            "    lsl r22",
            "    sbrc r26, 2",
            "    swap r22",
            "    ldi r23, 1",
            "    sbrc r27, 1",
            "    ldi r23, 4",
            "    sbrc r27, 0",
            "    lsl r23",
            "    sbrc r27, 2",
            "    swap r23",
            "    or r22, r23",
            "    st Z, r22",
            "    ori r26, 0x80",
            "    rjmp 70b",
            // (Every way out returns above: none reaches the block's end,
            // where the linker's relaxation drops the compiler's `ret`
            // after the jump.)
            "99:",
            value = sym VALUE,
            knight = const KNIGHT,
            pawn = const PAWN,
            la = sym least_attacker_avr,
            gains = sym GAINS,
            max_d = const MAX_SWAPS - 1,
            see_value = sym SEE_VALUES,
            removed = sym REMOVED,
            gpior0 = const GPIOR0,
            inout("r25r24") pos as *const Position as usize as u16 => r,
            inout("r23r22") m => _,
            out("r21") _,
            out("r20") _,
            out("r19") _,
            out("r18") _,
            out("r26") _,
            out("r27") _,
            out("r30") _,
            out("r31") _,
        );
    }
    r
}


/// [`swap_on`] past its first test (the AVR's by hand, in [`see_avr`]).
#[cfg(not(target_arch = "avr"))]
#[inline(never)]
fn swap_loop(pos: &Position, t: Square, removed: &mut Removed, gain0: i16, gain1: i16, s: Square) -> i16 {
    let mut lo = i16::MIN;
    let mut hi = gain0;
    let mut prev = gain1;
    let mut s = s;
    let mut d = 1u8;
    loop {
        let code = pos.code_on(s);
        let value = SEE_VALUE.get(code as usize);
        mark(removed, s);
        // The side to recapture: the other one than the capturer's (from
        // its code, not kept: two registers fewer to save, `bench engine`
        // 0.09% fewer cycles, 16 B smaller).
        let side = color_of(code).other();
        d += 1;
        // The newest entry is speculative (its capturer may yet be lost):
        // it only decides whether to look on. Entry d - 1 joins the
        // bounds at once: whether or not a recapture follows, the value
        // is then that new bound (the clamp of entry d - 1), and where
        // the bounds meet it is settled without a scan.
        let cur = value.wrapping_sub(prev);
        let a = prev.wrapping_neg();
        // `prev` is entry d - 1: odd, it enters negated, as a lower bound.
        // (The parity from `d`: one register fewer than a flag.)
        if d & 1 == 0 {
            let b = if a > lo { a } else { lo };
            lo = if b < hi { b } else { hi };
        } else {
            let b = if prev < hi { prev } else { hi };
            hi = if b > lo { b } else { lo };
        }
        if (if a > cur { a } else { cur }) < 0 || d as usize + 1 >= MAX_SWAPS || lo == hi {
            break;
        }
        s = least_attacker(pos, t, side, removed, true, NO_SQUARE);
        if s == NO_SQUARE {
            break;
        }
        prev = cur;
    }
    if d & 1 == 0 {
        lo
    } else {
        hi
    }
}

/// The AVR's swap-offs keep their [`Removed`] map here, not on the stack:
/// a stack array cost [`see`] and [`see_at`] a frame (the stack pointer
/// set up and restored with interrupts off, Y saved), about 25 cycles a
/// call. The swap-off is never re-entered (no interrupt handler runs
/// one); the host keeps a local map (its tests run in parallel).
#[cfg(target_arch = "avr")]
static mut REMOVED: Removed = [0; 8];

/// [`see_avr`]'s swap-off keeps `gain0` and `gain1` here (little-endian,
/// in that order) across its first scans, not pushed: read back only
/// where needed, and at d = 2 still there (`bench engine` 0.09% fewer
/// cycles than pushed and popped, 4 B of RAM, 20 B); then the first
/// recapturer, for the scan at d = 2 ([`least_attacker_avr`] compares
/// the men in its way with it; not in a saved r14: `bench engine` 0.03%
/// fewer cycles, 1 B of RAM).
#[cfg(target_arch = "avr")]
static mut GAINS: [u8; 5] = [0; 5];

/// [`REMOVED`] as it is: filled later, or not at all (see [`swap`]).
#[cfg(target_arch = "avr")]
#[inline(always)]
fn unfilled_map() -> &'static mut Removed {
    // SAFETY: one swap-off at a time uses the map (see `REMOVED`).
    unsafe { &mut *core::ptr::addr_of_mut!(REMOVED) }
}

/// Static exchange value of move `m` for the side to move (0 for a quiet
/// move to a safe square, negative if the man is lost).
#[cfg(not(target_arch = "avr"))]
pub fn see(pos: &Position, m: Move) -> i16 {
    see_rust(pos, m)
}

/// [`see`] on the AVR: [`see_avr`].
#[cfg(target_arch = "avr")]
#[inline(always)]
pub fn see(pos: &Position, m: Move) -> i16 {
    see_avr(pos, m.0)
}

/// [`see`] in Rust (the host's).
#[cfg(not(target_arch = "avr"))]
#[inline(always)]
fn see_rust(pos: &Position, m: Move) -> i16 {
    let from = m.from();
    let to = m.to();
    let us = pos.side_to_move();
    let removed = &mut [0u8; 8];
    mark(removed, from);
    // `from` the one man in the map, or NO_SQUARE where the en-passant
    // victim is in it too.
    let mut first = from;
    let mut on_square = SEE_VALUE.get(pos.code_on(from) as usize);
    let mut gain0 = if m.is(MoveKind::EnPassant) {
        mark(removed, (from & 0xF0) | (to & 0x0F));
        first = NO_SQUARE;
        SEE_VALUE.get(PAWN as usize)
    } else {
        SEE_VALUE.get(pos.code_on(to) as usize)
    };
    if m.is_promotion() {
        let v = VALUE.get(m.promotion() as usize);
        gain0 += v - VALUE.get(PAWN as usize);
        on_square = v;
    }
    swap(pos, to, removed, gain0, on_square, us.other(), first)
}

/// What `by` can win by capturing the man on `sq` (0 if nothing), i.e. the
/// swap-off value of the square with `by` to move and free to abstain.
pub fn see_at(pos: &Position, sq: Square, by: Color) -> i16 {
    // (The AVR's map filled only if the exchange goes on: see [`swap`].)
    #[cfg(target_arch = "avr")]
    let removed = unfilled_map();
    #[cfg(not(target_arch = "avr"))]
    let removed = &mut [0u8; 8];
    let s = least_attacker(pos, sq, by, removed, false, NO_SQUARE);
    if s == NO_SQUARE {
        return 0;
    }
    #[cfg(not(target_arch = "avr"))]
    mark(removed, s);
    let gain0 = SEE_VALUE.get(pos.code_on(sq) as usize);
    let on_square = SEE_VALUE.get(pos.code_on(s) as usize);
    let v = swap(pos, sq, removed, gain0, on_square, by.other(), s);
    if v > 0 {
        v
    } else {
        0
    }
}

/// CP1's Hang_1 / Hang_2: the two men of the side to move that the
/// opponent could win most by (pawns and king excluded), and the larger loss.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hanging {
    /// Estimated maximum material loss (CP1's Max_Loss).
    pub max_loss: i16,
    /// Piece-list slots of the two most endangered men (0 = none).
    pub slots: [u8; 2],
}

/// [`Hanging`] for the side to move. In line in its two callers: the
/// search's static cut reads only the loss, the picker only the slots,
/// and neither gets the struct through memory (out of line, 80 cycles a
/// call of its own; `bench engine` 0.25% fewer cycles, 4 B smaller).
#[inline(always)]
pub fn hanging(pos: &Position) -> Hanging {
    let us = pos.side_to_move();
    // One pass over the enemy men finds all of ours they attack: cheaper
    // than an attack test per officer. Most men are not attacked at all,
    // and the swap-off is not needed: where no officer is, the slots'
    // loop (out of line, with its 13 register saves) is not entered.
    let (attacked, _) = attacked_victims(pos, us.other());
    let end = pos.officer_end(us);
    let officers = SLOT_BITS.get(end as usize).wrapping_sub(1);
    if attacked & officers == 0 {
        return Hanging::default();
    }
    #[cfg(target_arch = "avr")]
    {
        let v = hanging_officers_avr(pos, attacked & officers, us as u8);
        Hanging { max_loss: v as i16, slots: [(v >> 16) as u8, (v >> 24) as u8] }
    }
    #[cfg(not(target_arch = "avr"))]
    hanging_officers(pos, attacked & officers)
}

/// [`hanging_officers`] by hand (C ABI: the position in r25:r24,
/// `attacked` in r23:r22, `us` in r20; back the loss in r23:r22, the
/// slots in r24 and r25): [`see_at`] in line, [`least_attacker_avr`] and
/// the swap-off's entry called with 13 registers saved, no frame (the
/// compiled loop saved 18 and set up a 4-byte frame, 389 cycles a call).
/// Registers: r15:r14 the position, r13:r12 the bits left, r11 the slot,
/// r17:r16 the largest loss, r10 its slot, r9:r8 the second, r7 its
/// slot, r6 `them`, r5 the list's offset in the position.
#[cfg(target_arch = "avr")]
#[inline(never)]
extern "C" fn hanging_officers_avr(pos: &Position, attacked: u16, us: u8) -> u32 {
    let (loss, slots): (u16, u16);
    // SAFETY: reads the position and SEE_VALUE, the calls' scratch as
    // theirs; the registers saved are restored, the stack balanced.
    unsafe {
        core::arch::asm!(
            "    push r5",
            "    push r6",
            "    push r7",
            "    push r8",
            "    push r9",
            "    push r10",
            "    push r11",
            "    push r12",
            "    push r13",
            "    push r14",
            "    push r15",
            "    push r16",
            "    push r17",
            "    movw r14, r24",
            "    movw r12, r22",
            "    lsr r13",
            "    ror r12",
            "    ldi r26, 1",
            "    eor r26, r20",
            "    mov r6, r26",
            "    swap r20",
            "    subi r20, -{lists}",
            "    mov r5, r20",
            "    clr r11",
            "    clr r16",
            "    clr r17",
            "    clr r8",
            "    clr r9",
            "    clr r10",
            "    clr r7",
            // The next slot whose bit is set, while any is left (all
            // gone only once the low byte is: `bench engine` 0.02% fewer
            // cycles than both bytes tested each slot).
            "1:  inc r11",
            "    lsr r13",
            "    ror r12",
            "    brcs 2f",
            "    brne 1b",
            "    tst r13",
            "    brne 1b",
            "    rjmp 9f",
            "2:",
            // Its man (a pawn passed over) and the least attacker of
            // `them` on its square.
            "    movw r30, r14",
            "    add r30, r5",
            "    adc r31, r1",
            "    add r30, r11",
            "    adc r31, r1",
            "    ld r22, Z",
            "    movw r30, r14",
            "    mov r26, r22",
            "    andi r26, 0x7F",
            "    add r30, r26",
            "    adc r31, r1",
            "    ld r26, Z",
            "    andi r26, 0x0F",
            "    cpi r26, {wp}",
            "    breq 1b",
            "    cpi r26, {bp}",
            "    breq 1b",
            "    movw r24, r14",
            "    mov r20, r6",
            "    clt",
            "    ldi r19, 0xFF",
            "    out {gpior0}, r19",
            "    rcall {la}",
            "    cpi r22, 0xFF",
            "    breq 1b",
            // The swap-off: t (r22, from r23), first = s (r23), gain0
            // by the man on t, on_square by s.
            "    mov r26, r22",
            "    mov r22, r23",
            "    mov r23, r26",
            "    movw r30, r14",
            "    add r30, r22",
            "    adc r31, r1",
            "    ld r30, Z",
            "    andi r30, 0x0F",
            "    lsl r30",
            "    ori r30, lo8({see_value})",
            "    ldi r31, hi8({see_value})",
            "    lpm r20, Z+",
            "    lpm r21, Z",
            "    movw r30, r14",
            "    add r30, r23",
            "    adc r31, r1",
            "    ld r30, Z",
            "    andi r30, 0x0F",
            "    lsl r30",
            "    ori r30, lo8({see_value})",
            "    ldi r31, hi8({see_value})",
            "    lpm r18, Z+",
            "    lpm r19, Z",
            "    ldi r27, 1",
            "    eor r27, r6",
            "    rcall {swap}",
            // A loss (> 0): the largest, or the second.
            "    cp r1, r24",
            "    cpc r1, r25",
            "    brge 8f",
            "    cp r16, r24",
            "    cpc r17, r25",
            "    brge 3f",
            "    movw r8, r16",
            "    mov r7, r10",
            "    movw r16, r24",
            "    mov r10, r11",
            "    rjmp 1b",
            "3:  cp r8, r24",
            "    cpc r9, r25",
            "    brge 8f",
            "    movw r8, r24",
            "    mov r7, r11",
            "8:  rjmp 1b",
            "9:  movw r22, r16",
            "    mov r24, r10",
            "    mov r25, r7",
            "    pop r17",
            "    pop r16",
            "    pop r15",
            "    pop r14",
            "    pop r13",
            "    pop r12",
            "    pop r11",
            "    pop r10",
            "    pop r9",
            "    pop r8",
            "    pop r7",
            "    pop r6",
            "    pop r5",
            la = sym least_attacker_avr,
            swap = sym prodigy_see_swap,
            see_value = sym SEE_VALUES,
            gpior0 = const GPIOR0,
            lists = const 128,
            wp = const PAWN,
            bp = const PAWN + 6,
            inout("r25r24") pos as *const Position as usize as u16 => slots,
            inout("r23r22") attacked => loss,
            inout("r20") us => _,
            out("r21") _,
            out("r18") _,
            out("r19") _,
            out("r26") _,
            out("r27") _,
            out("r30") _,
            out("r31") _,
        );
    }
    loss as u32 | (slots as u32) << 16
}

/// [`hanging`]'s loop over our officers' slots, `attacked` those the
/// opponent attacks (bits of the officers' slots only, the king's maybe).
/// (The host's; the AVR's is [`hanging_officers_avr`].)
#[cfg(not(target_arch = "avr"))]
#[inline(never)]
fn hanging_officers(pos: &Position, attacked: u16) -> Hanging {
    let us = pos.side_to_move();
    let them = us.other();
    let mut h = Hanging::default();
    let mut second = 0i16;
    let list = pos.piece_list(us);
    // The attacked slots' bits shifted out from slot 1 up, until none is
    // left (a u8 slot counter: `enumerate().skip(1)` is 16-bit work on
    // the AVR). Pawns are left out: only the officers' slots. (Against a
    // walk over all the officers' slots, testing each one's bit: `bench
    // engine` 0.08% fewer cycles, 40 B smaller.)
    let mut rest = attacked >> 1;
    let mut slot = 0u8;
    while rest != 0 {
        slot += 1;
        let hit = rest & 1 != 0;
        rest >>= 1;
        if !hit {
            continue;
        }
        let sq = list[(slot & 15) as usize];
        if kind_of(pos.code_on(sq)) == PAWN {
            continue;
        }
        let loss = see_at(pos, sq, them);
        if loss <= 0 {
            continue;
        }
        if loss > h.max_loss {
            second = h.max_loss;
            h.slots[1] = h.slots[0];
            h.max_loss = loss;
            h.slots[0] = slot;
        } else if loss > second {
            second = loss;
            h.slots[1] = slot;
        }
    }
    h
}

crate::progmem! {
    /// By [`next_attacker`] cursor: the class bit of its window and the
    /// window's end. (The AVR's scan in assembly compares the cursor
    /// instead.)
    #[cfg(not(target_arch = "avr"))]
    static WINDOW: [u8; 34] = [
        0, 0, 8, 8, 8, 8, 8, 8, 8, 8, 16, 16, 16, 16, 32, 32, 32, 32,
        64, 64, 64, 64, 64, 64, 64, 64, 128, 128, 128, 128, 128, 128, 128, 128,
    ];
    #[cfg(not(target_arch = "avr"))]
    static WINDOW_END: [u8; 34] = [
        2, 2, 10, 10, 10, 10, 10, 10, 10, 10, 14, 14, 14, 14, 18, 18, 18, 18,
        26, 26, 26, 26, 26, 26, 26, 26, 34, 34, 34, 34, 34, 34, 34, 34,
    ];
}

/// One past the last [`next_attacker`] cursor value.
pub(crate) const ATTACKER_END: u8 = 34;

/// Enumerates the men of `us` attacking `t`, least valuable first: pawns,
/// knights, bishops, rooks, queens, king. `cursor` (start at 0) is the
/// whole state. Pawn captures onto the last rank are left out (they are
/// promotions, picked in their own stage). Cursor ranges: pawns 0..2,
/// knights 2..10, bishops 10..14, rooks 14..18, queens 18..26, king
/// 26..[`ATTACKER_END`]; the scan stops at `end`. A window whose class
/// bit (knights 8, bishops 16, rooks 32, queens 64, king 128; pawns have
/// none and are always probed) is clear in `classes` is skipped whole: no
/// man of that class attacks any victim.
///
/// This is the host's version (the tests' reference); the AVR runs the
/// same scan in assembly, below.
#[cfg(not(target_arch = "avr"))]
pub(crate) fn next_attacker(pos: &Position, t: Square, us: Color, cursor: &mut u8, end: u8, classes: u8) -> Square {
    // A window at a time, each scanned by its own tight loop: one pass of
    // the dispatch per window, not per cursor step. (`end` always falls
    // on a window boundary.)
    loop {
        let c = *cursor;
        if c >= end {
            return NO_SQUARE;
        }
        let w = WINDOW.get(c as usize);
        let w_end = WINDOW_END.get(c as usize);
        *cursor = w_end;
        if w != 0 && classes & w == 0 {
            continue;
        }
        match c {
            0 | 1 => {
                let last = if us == Color::White { 7 } else { 0 };
                if rank_of(t) == last {
                    continue;
                }
                let pawn = make_piece(us, PAWN);
                let mut i = c;
                while i < 2 {
                    let off: u8 = if i == 0 { 15 } else { 17 };
                    let s = if us == Color::White {
                        t.wrapping_sub(off)
                    } else {
                        t.wrapping_add(off)
                    };
                    i += 1;
                    if pos.piece_at(s) == pawn {
                        *cursor = i;
                        return s;
                    }
                }
            }
            2..=9 => {
                let knight = make_piece(us, KNIGHT);
                let mut i = c;
                while i < 10 {
                    let s = t.wrapping_add(JUMPS.get(i as usize - 2) as u8);
                    i += 1;
                    if pos.piece_at(s) == knight {
                        *cursor = i;
                        return s;
                    }
                }
            }
            26..=33 => {
                // One king: test its square rather than probing 8 squares.
                let k = pos.king_square(us);
                if is_adjacent(k, t) {
                    return k;
                }
            }
            _ => {
                // Cursor `i` walks ray `i - ray0`: bishops the diagonals
                // (RAYS 0..4), rooks the orthogonals (RAYS 4..8, so their
                // window 14..18 starts at 10), queens all eight.
                let (ray0, want) = if c < 14 {
                    (10, BISHOP)
                } else if c < 18 {
                    (10, ROOK)
                } else {
                    (18, QUEEN)
                };
                let piece = make_piece(us, want);
                let mut i = c;
                while i < w_end {
                    let step = RAYS.get((i - ray0) as usize) as u8;
                    i += 1;
                    let mut s = t.wrapping_add(step);
                    while on_board(s) && pos.is_empty(s) {
                        s = s.wrapping_add(step);
                    }
                    if on_board(s) && pos.code_on(s) == piece {
                        *cursor = i;
                        return s;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The least attacker by walking the eight rays out of `t` (the
    /// swap-off's scan before the piece-list one): its kind, or 0.
    fn least_kind_by_rays(pos: &Position, t: Square, by: Color, removed: &Removed) -> u8 {
        let pawn = make_piece(by, PAWN);
        let (a, b) = match by {
            Color::White => (t.wrapping_sub(15), t.wrapping_sub(17)),
            Color::Black => (t.wrapping_add(15), t.wrapping_add(17)),
        };
        for s in [a, b] {
            if on_board(s) && pos.piece_at(s) == pawn && !is_removed(removed, s) {
                return PAWN;
            }
        }
        for j in 0..8 {
            let s = t.wrapping_add(JUMPS.get(j) as u8);
            if on_board(s) && pos.piece_at(s) == make_piece(by, KNIGHT) && !is_removed(removed, s) {
                return KNIGHT;
            }
        }
        let mut best = 0;
        for d in 0..8 {
            let step = RAYS.get(d) as u8;
            let mut s = t.wrapping_add(step);
            let mut first = true;
            while on_board(s) {
                let c = pos.piece_at(s);
                if c != EMPTY && !is_removed(removed, s) {
                    let k = kind_of(c);
                    let line = if d < 4 { k == BISHOP } else { k == ROOK };
                    if is_color(c, by)
                        && (line || k == QUEEN || k == KING && first)
                        && (best == 0 || k < best)
                    {
                        best = k;
                    }
                    break;
                }
                first = false;
                s = s.wrapping_add(step);
            }
        }
        best
    }

    /// The piece-list scan upwards, first found serving (the scan before
    /// the downward one): the same square.
    fn least_attacker_upwards(pos: &Position, t: Square, by: Color, removed: &Removed) -> Square {
        let p = pawn_attacker(pos, t, by, removed);
        if p != NO_SQUARE {
            return p;
        }
        let list = pos.piece_list(by);
        let mut best = NO_SQUARE;
        let mut best_kind = KING;
        for slot in 1..pos.officer_end(by) {
            let s = list[(slot & 15) as usize];
            if s == NO_SQUARE {
                continue;
            }
            let code = pos.code_on(s);
            let dir = reach(code, s, t);
            if dir == 0 || kind_of(code) >= best_kind || is_removed(removed, s) {
                continue;
            }
            if dir == JUMPS_THERE {
                return s;
            }
            let mut x = s.wrapping_add(dir);
            while x != t {
                if pos.code_on(x) != EMPTY && !is_removed(removed, x) {
                    break;
                }
                x = x.wrapping_add(dir);
            }
            if x == t {
                best = s;
                best_kind = kind_of(code);
            }
        }
        if best == NO_SQUARE {
            let king = list[0];
            if is_adjacent(king, t) && !is_removed(removed, king) {
                return king;
            }
        }
        best
    }

    /// A least-attacker scan.
    type Finder = fn(&Position, Square, Color, &Removed) -> Square;

    /// [`least_attacker`] looking up every man in `removed`.
    fn full_scan(pos: &Position, t: Square, by: Color, removed: &Removed) -> Square {
        least_attacker(pos, t, by, removed, true, NO_SQUARE)
    }

    /// What `by` wins by capturing on `t` (as [`see_at`], any man on
    /// `t`), by the gain list with `find` picking the men.
    fn see_at_with(pos: &Position, t: Square, by: Color, find: Finder) -> i16 {
        let mut removed = [0u8; 8];
        let s = find(pos, t, by, &removed);
        if s == NO_SQUARE {
            return 0;
        }
        mark(&mut removed, s);
        let gain0 = SEE_VALUE.get(pos.code_on(t) as usize);
        let gain1 = SEE_VALUE.get(pos.code_on(s) as usize) - gain0;
        if core::cmp::max(-gain0, gain1) < 0 {
            return gain0;
        }
        let r = match find(pos, t, by.other(), &removed) {
            NO_SQUARE => gain0,
            s2 => swap_on_list(pos, t, &mut removed, gain0, gain1, s2, by.other(), find),
        };
        r.max(0)
    }

    /// [`see`] by the gain list, `find` picking the men.
    fn see_with(pos: &Position, m: Move, find: Finder) -> i16 {
        let (from, to) = (m.from(), m.to());
        let mut removed = [0u8; 8];
        mark(&mut removed, from);
        let mut on_square = SEE_VALUE.get(pos.code_on(from) as usize);
        let mut gain0 = SEE_VALUE.get(pos.code_on(to) as usize);
        if m.is(MoveKind::EnPassant) {
            mark(&mut removed, (from & 0xF0) | (to & 0x0F));
            gain0 = SEE_VALUE.get(PAWN as usize);
        }
        if m.is_promotion() {
            let v = VALUE.get(m.promotion() as usize);
            gain0 += v - VALUE.get(PAWN as usize);
            on_square = v;
        }
        let gain1 = on_square - gain0;
        if core::cmp::max(-gain0, gain1) < 0 {
            return gain0;
        }
        let them = pos.side_to_move().other();
        match find(pos, to, them, &removed) {
            NO_SQUARE => gain0,
            s => swap_on_list(pos, to, &mut removed, gain0, gain1, s, them, find),
        }
    }

    /// [`see`] (its first scan for a recapture not looking up the
    /// recapturing side's men in the removed map: none has taken part)
    /// gives the gain list's value with every man looked up, for every
    /// legal move along random games, en-passant captures among them.
    /// (Built with debug assertions, the scan checks that none of its
    /// men is in the map.)
    #[test]
    fn see_matches_the_gain_list() {
        let mut game_seed = 0x2545_F491_4F6C_DD1Du64;
        let (mut checked, mut en_passant) = (0u32, 0u32);
        for fen in [
            crate::chess::START_FEN,
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        ] {
            for _game in 0..6 {
                crate::chess::random_game(fen, 60, &mut game_seed, |pos| {
                    let mut gen = crate::chess::MoveGen::new();
                    while let Some(m) = gen.next_legal(pos) {
                        en_passant += m.is(MoveKind::EnPassant) as u32;
                        assert_eq!(see(pos, m), see_with(pos, m, full_scan), "{m:?}");
                        checked += 1;
                    }
                });
            }
        }
        assert!(checked > 10_000 && en_passant > 0, "{checked} {en_passant}");
    }

    /// [`hanging`] (over the attacked officers' bits) finds the same two
    /// men and loss as every officer's swap-off, along random games.
    #[test]
    fn hanging_matches_every_officers_swap_off() {
        let mut game_seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut lost = 0u32;
        for fen in [
            crate::chess::START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "2q1r1k1/1b3ppp/pp1Q4/2pPp3/P1P1P3/1P3B2/5PPP/3R2K1 w - - 0 1",
        ] {
            for _game in 0..8 {
                crate::chess::random_game(fen, 80, &mut game_seed, |pos| {
                    let us = pos.side_to_move();
                    let (mut max_loss, mut second, mut slots) = (0i16, 0i16, [0u8; 2]);
                    for slot in 1..pos.officer_end(us) {
                        let sq = pos.piece_list(us)[slot as usize];
                        if sq == NO_SQUARE || kind_of(pos.code_on(sq)) == PAWN {
                            continue;
                        }
                        let loss = see_at(pos, sq, us.other());
                        if loss > max_loss {
                            (second, slots[1], max_loss, slots[0]) = (max_loss, slots[0], loss, slot);
                        } else if loss > second {
                            (second, slots[1]) = (loss, slot);
                        }
                    }
                    let h = hanging(pos);
                    assert_eq!((h.max_loss, h.slots), (max_loss, slots));
                    lost += (max_loss > 0) as u32;
                });
            }
        }
        assert!(lost > 100, "{lost}");
    }

    /// The first knight found serving (not the lowest one's slot) leaves
    /// every swap-off's value as it was: the scan with the lowest slot
    /// serving among all equal men gives the same values, on every square
    /// for both sides, along random games (with two knights on a square
    /// often enough to tell).
    #[test]
    fn any_knight_gives_the_same_exchange() {
        let mut game_seed = 0x5851_F42D_4C95_7F2Du64;
        let (mut checked, mut other_knight) = (0u32, 0u32);
        for fen in [
            crate::chess::START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 0 1",
            "2q1r1k1/1b3ppp/pp1Q4/2pPp3/P1P1P3/1P3B2/5PPP/3R2K1 w - - 0 1",
        ] {
            for _game in 0..6 {
                crate::chess::random_game(fen, 60, &mut game_seed, |pos| {
                    for t in (0..128u8).filter(|&s| on_board(s)) {
                        for by in [Color::White, Color::Black] {
                            let a = least_attacker(pos, t, by, &[0; 8], false, NO_SQUARE);
                            if a != least_attacker_upwards(pos, t, by, &[0; 8]) {
                                assert_eq!(kind_of(pos.piece_at(a)), KNIGHT);
                                other_knight += 1;
                            }
                            let v = see_at_with(pos, t, by, full_scan);
                            assert_eq!(v, see_at_with(pos, t, by, least_attacker_upwards), "{t:#04x} {by:?}");
                            assert_eq!(v, see_at(pos, t, by), "{t:#04x} {by:?}");
                            checked += 1;
                        }
                    }
                });
            }
        }
        assert!(checked > 50_000 && other_knight > 100, "{checked} {other_knight}");
    }

    /// [`swap_on`] with the gain list and the backward pass (the version
    /// before the clamp): the same value.
    /// (`find` picks each recapturer.)
    fn swap_on_list(pos: &Position, t: Square, removed: &mut Removed, gain0: i16, gain1: i16, s: Square, side: Color, find: Finder) -> i16 {
        let mut gain = [0i16; MAX_SWAPS];
        gain[0] = gain0;
        gain[1] = gain1;
        let (mut s, mut side, mut d) = (s, side, 1usize);
        loop {
            let value = SEE_VALUE.get(pos.code_on(s) as usize);
            mark(removed, s);
            side = side.other();
            d += 1;
            gain[d] = value.wrapping_sub(gain[d - 1]);
            if core::cmp::max(gain[d - 1].wrapping_neg(), gain[d]) < 0 || d + 1 >= MAX_SWAPS {
                break;
            }
            s = find(pos, t, side, removed);
            if s == NO_SQUARE {
                break;
            }
        }
        loop {
            d -= 1;
            if d == 0 {
                break;
            }
            gain[d - 1] = core::cmp::max(gain[d - 1].wrapping_neg(), gain[d]).wrapping_neg();
        }
        gain[0]
    }

    /// The clamp in [`swap_on`] gives the gain list's value, for every
    /// man of either side recapturing on every square, along random games.
    #[test]
    fn swap_on_matches_the_gain_list() {
        let mut game_seed = 0x2545_F491_4F6C_DD1Du64;
        let mut checked = 0u32;
        for fen in [
            crate::chess::START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "2q1r1k1/1b3ppp/pp1Q4/2pPp3/P1P1P3/1P3B2/5PPP/3R2K1 w - - 0 1",
        ] {
            for _game in 0..4 {
                crate::chess::random_game(fen, 60, &mut game_seed, |pos| {
                    for t in (0..128u8).filter(|&s| on_board(s)) {
                        for side in [Color::White, Color::Black] {
                            let s = least_attacker(pos, t, side, &[0; 8], false, NO_SQUARE);
                            if s == NO_SQUARE {
                                continue;
                            }
                            for gain0 in [-330i16, 0, 100, 500] {
                                let gain1 = 320 - gain0;
                                let (mut r1, mut r2) = ([0u8; 8], [0u8; 8]);
                                let a = swap_on(pos, t, &mut r1, gain0, gain1, s, side, NO_SQUARE);
                                let b = swap_on_list(pos, t, &mut r2, gain0, gain1, s, side, full_scan);
                                assert_eq!(a, b, "{t:#04x} {side:?} {gain0}");
                                checked += 1;
                            }
                        }
                    }
                });
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    /// The piece-list scan finds a man of the same kind as the ray walk,
    /// on every square, for both colours, with the men already exchanged
    /// (removed) taken at random, along random games.
    #[test]
    fn least_attacker_matches_the_ray_walk() {
        let mut seed = 0x2545_f491u32;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        let fens = [
            crate::chess::START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/8/3B4/8/8/8/K5k1/3N4 w - - 0 1",
            "2q1r1k1/1b3ppp/pp1Q4/2pPp3/P1P1P3/1P3B2/5PPP/3R2K1 w - - 0 1",
        ];
        let mut checked = 0u32;
        let mut game_seed = 0x9E37_79B9_7F4A_7C15u64;
        for fen in fens {
            for _game in 0..6 {
                crate::chess::random_game(fen, 60, &mut game_seed, |pos| {
                    for t in (0..128u8).filter(|&s| on_board(s)) {
                        for by in [Color::White, Color::Black] {
                            let mut removed: Removed = [0; 8];
                            for b in removed.iter_mut() {
                                *b = (rnd() & rnd() & 0xFF) as u8;
                            }
                            if rnd() & 3 == 0 {
                                removed = [0; 8];
                            }
                            let s = least_attacker(pos, t, by, &removed, true, NO_SQUARE);
                            // (The same man, but for knights: any serves.)
                            let up = least_attacker_upwards(pos, t, by, &removed);
                            if s != NO_SQUARE && kind_of(pos.piece_at(s)) == KNIGHT {
                                assert_eq!(kind_of(pos.piece_at(up)), KNIGHT);
                            } else {
                                assert_eq!(s, up);
                            }
                            let got = if s == NO_SQUARE { 0 } else { kind_of(pos.piece_at(s)) };
                            if s != NO_SQUARE {
                                assert!(is_color(pos.piece_at(s), by) && !is_removed(&removed, s));
                            }
                            assert_eq!(got, least_kind_by_rays(pos, t, by, &removed), "{t:#04x} {by:?}");
                            checked += 1;
                        }
                    }
                });
            }
        }
        assert!(checked > 100_000, "{checked}");
    }
}

//! Evaluation.
//!
//! Two parts, as in CP1:
//!
//! * **Incremental** ([`EvalCtx::psq`]): material plus a piece-square value.
//!   CP1 filled 12 x 64-byte tables (PVTab) at the start of each search; that
//!   is 768 bytes, too much here. Instead the value is one flash base table
//!   (6 x 64 signed bytes) plus adjustments that are pure functions of the
//!   square and a 4-byte context fixed at the start of the search: king
//!   tropism towards the enemy king's square at the root, king centralisation
//!   in endgames, the gradual promotion bonus for pawns (larger in endgames,
//!   micro-Max style) and the queen's "stay home in the opening". The
//!   engine keeps the sum up to date in make/unmake ([`Engine`] wrappers in
//!   `search.rs`), so a node pays four table look-ups at most.
//! * **Dynamic** ([`evaluation`]): computed at the leaves from the piece lists:
//!   pawn structure (doubled, isolated, connected, passed with
//!   rank-graded bonus, king distance and the quadrant rule; cached by
//!   pawn key), knight outposts, bishop pair,
//!   (slider mobility: measured, off), rooks on open/half-open files and
//!   connected, king shield,
//!   insufficient material, and the mating evaluations for a bare king
//!   (KQK, KRK, KBNK: drive it to the (right) edge or corner, bring the kings
//!   together; KBNK also takes away its escape squares).
//!
//! Scores are centipawns, white's point of view inside, side to move's
//! point of view at the interface. The weights and tables are in
//! [`super::weights`] (`cargo xtask tune` fits them).

use super::weights::{passed_bonus, w};
#[cfg(not(target_arch = "avr"))]
use super::weights::{pawn_eg_rank, pst};
use super::Engine;
use crate::chess::piece::*;
use crate::chess::square::*;
use crate::chess::{Color, Position};
use crate::progmem::RamTable;

/// Game phase, fixed at the start of a search (CP1's criteria).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Phase {
    /// More than 20 men still on their initial squares.
    Opening,
    Middlegame,
    /// Fewer than 7 officers (non-pawn, non-king men) on the board.
    Endgame,
    /// No officers at all.
    PawnEnding,
    /// One side has a bare king, the other queen or rook and no pawns.
    MateHeavy,
    /// Bare king against king, bishop and knight.
    MateBn,
}

impl Phase {
    /// One side has a bare king ([`Phase::MateHeavy`], [`Phase::MateBn`]):
    /// every move is quiet and the search drives a mate, so some of its
    /// middlegame shortcuts are off.
    #[inline(always)]
    pub fn bare_king(self) -> bool {
        self >= Phase::MateHeavy
    }
}

/// [`VALUE`]'s values (the AVR build's [`EvalCtx::psq`] takes them as
/// constants).
const VALUES: [i16; 7] = [0, 100, 320, 330, 500, 950, 0];

crate::progmem! {
    /// Material by kind (index 0 unused, king 0).
    pub static VALUE: [i16; 7] = VALUES;
    /// Non-pawn material units by kind (for phases and null-move conditions).
    pub static NPM_UNITS: [u8; 7] = [0, 0, 3, 3, 5, 9, 0];
    /// Rank bit masks: ranks strictly above / below rank `r` (the AVR
    /// build's officer scan computes them).
    #[cfg_attr(target_arch = "avr", allow(dead_code))]
    static ABOVE: [u8; 8] = [0xFE, 0xFC, 0xF8, 0xF0, 0xE0, 0xC0, 0x80, 0x00];
    #[cfg_attr(target_arch = "avr", allow(dead_code))]
    static BELOW: [u8; 8] = [0x00, 0x01, 0x03, 0x07, 0x0F, 0x1F, 0x3F, 0x7F];
    pub(crate) static BIT: [u8; 8] = [1, 2, 4, 8, 16, 32, 64, 128];
}

crate::progmem! {
    /// 7 less the king-step distance of two squares, by the absolute value
    /// of their 0x88 difference (0..=0x77: the distance is symmetric, so
    /// half of the 239 differences): the AVR psq's tropism, a look-up in
    /// place of two nibbles' absolute values and their maximum (4 cycles
    /// a square less). Entries of no difference (low nibble 8, rank 8)
    /// are 0.
    #[cfg_attr(not(target_arch = "avr"), allow(dead_code))]
    pub(crate) static NEARNESS: [u8; 120] = {
        let mut t = [0u8; 120];
        let mut k = 0;
        while k < 120 {
            let lo = (k & 15) as i8;
            let hi = (k >> 4) as i8;
            let (df, dr) = if lo <= 7 { (lo, hi) } else { (16 - lo, hi + 1) };
            let d = if df > dr { df } else { dr };
            t[k] = if d <= 7 { 7 - d as u8 } else { 0 };
            k += 1;
        }
        t
    };
}

/// 0x88 steps: 4 diagonals, 4 orthogonals.
pub(crate) static RAYS: RamTable<i8, 8> = RamTable::new([-17, -15, 15, 17, -16, -1, 1, 16]);
pub(crate) static JUMPS: RamTable<i8, 8> = RamTable::new([-33, -31, -18, -14, 14, 18, 31, 33]);

/// Chebyshev (king-step) distance of two squares.
#[inline(always)]
pub fn distance(a: Square, b: Square) -> u8 {
    let df = file_of(a).abs_diff(file_of(b));
    let dr = rank_of(a).abs_diff(rank_of(b));
    if df > dr {
        df
    } else {
        dr
    }
}

/// Manhattan distance of two squares.
#[inline(always)]
pub fn manhattan(a: Square, b: Square) -> u8 {
    file_of(a).abs_diff(file_of(b)) + rank_of(a).abs_diff(rank_of(b))
}

/// Manhattan distance to the four centre squares (0..=6).
#[inline(always)]
pub fn centre_distance(sq: Square) -> u8 {
    let f = file_of(sq);
    let r = rank_of(sq);
    (if f < 4 { 3 - f } else { f - 4 }) + (if r < 4 { 3 - r } else { r - 4 })
}

/// The per-search evaluation context: the phase and the king squares at
/// the root, from which the piece-square adjustments are derived.
#[derive(Clone, Copy, Debug)]
pub struct EvalCtx {
    pub phase: Phase,
    /// King squares at the root (tropism targets).
    pub ksq: [Square; 2],
    /// The side with material in the mating phases.
    pub strong: Color,
    /// The root's officer slots by kind, per colour, for the AVR scan
    /// ([`full_scan`]): queens, rooks, bishops and knights (nibbles:
    /// `[queens | rooks << 4, bishops | knights << 4]`) from slot 1 on,
    /// holes counted with the kind before them. Men keep their slots and
    /// their kinds below the root's first pawn slot (a promotion takes
    /// the pawn's; holes stay holes), so these slots hold these kinds or
    /// nothing in the whole search ([`slot_layout`]).
    pub slots: [[u8; 2]; 2],
}

impl EvalCtx {
    pub const fn new() -> EvalCtx {
        EvalCtx {
            phase: Phase::Middlegame,
            ksq: [E1, E8],
            strong: Color::White,
            slots: [[0; 2]; 2],
        }
    }

    /// Phase and king squares of `pos` (CP1's game-phase criteria), and
    /// its officer slots ([`EvalCtx::slots`]). (The men counted by colour
    /// and kind in one array: 82 bytes less than counts by role.)
    pub fn from_position(pos: &Position) -> EvalCtx {
        let mut men = [[0u8; 8]; 2];
        let mut unmoved = 0u8;
        for (c, count) in men.iter_mut().enumerate() {
            let color = if c == 0 { Color::White } else { Color::Black };
            for &sq in pos.piece_list(color).iter() {
                if sq == NO_SQUARE {
                    continue;
                }
                let b = pos.byte_at(sq);
                if b & MOVED == 0 {
                    unmoved += 1;
                }
                count[(kind_of(b) & 7) as usize] += 1;
            }
        }
        let ksq = [pos.king_square(Color::White), pos.king_square(Color::Black)];
        let mut ctx = EvalCtx {
            phase: Phase::Middlegame,
            ksq,
            strong: Color::White,
            slots: [slot_layout(pos, Color::White), slot_layout(pos, Color::Black)],
        };
        let heavy = |c: usize| men[c][ROOK as usize] + men[c][QUEEN as usize];
        let officers = |c: usize| heavy(c) + men[c][KNIGHT as usize] + men[c][BISHOP as usize];
        let pawns = |c: usize| men[c][PAWN as usize];
        for s in 0..2 {
            let w = 1 - s;
            if officers(w) == 0 && pawns(w) == 0 && pawns(s) == 0 {
                ctx.strong = if s == 0 { Color::White } else { Color::Black };
                if heavy(s) > 0 {
                    ctx.phase = Phase::MateHeavy;
                    return ctx;
                }
                if men[s][KNIGHT as usize] == 1 && men[s][BISHOP as usize] == 1 && officers(s) == 2 {
                    ctx.phase = Phase::MateBn;
                    return ctx;
                }
            }
        }
        let total = officers(0) + officers(1);
        ctx.phase = if total == 0 {
            Phase::PawnEnding
        } else if unmoved > 20 {
            Phase::Opening
        } else if total < 7 {
            Phase::Endgame
        } else {
            Phase::Middlegame
        };
        ctx
    }

    /// Material plus positional value of piece `code` on `sq`, white's point
    /// of view (negative for black men). Pure for a given context, which is
    /// what makes the incremental update exact.
    #[cfg(not(target_arch = "avr"))]
    #[inline]
    pub fn psq(&self, code: u8, sq: Square) -> i16 {
        let code = code & CODE_MASK;
        let white = code <= BLACK_OFFSET;
        let kind = if white { code } else { code - BLACK_OFFSET };
        let flip = if white { 0 } else { 56 };
        let i = (to_index64(sq) ^ flip) as usize;
        let mut v = VALUE.get(kind as usize);
        let endgame = self.phase >= Phase::Endgame;
        if kind == KING {
            if endgame {
                v += 3 * w!(KING_CENTRE) - w!(KING_CENTRE) * centre_distance(sq) as i16;
            } else {
                v += pst(5 * 64 + i);
            }
        } else if kind == PAWN {
            if endgame {
                v += pawn_eg_rank(i >> 3);
            } else {
                v += pst(i);
            }
        } else {
            v += pst((kind as usize - 1) * 64 + i);
            // King tropism towards the enemy king (where it stood at the root).
            let target = self.ksq[if white { 1 } else { 0 }];
            // (`& 7` tells the compiler what is true anyway, that two
            // squares are at most 7 steps apart: `near` is then a byte,
            // and the weight's product one `mul`, not a 16-bit one.)
            let near = (7 - (distance(sq, target) & 7)) as i16;
            let weight = match kind {
                KNIGHT => w!(TROPISM_KNIGHT),
                QUEEN => w!(TROPISM_QUEEN),
                _ => w!(TROPISM_OTHER),
            };
            v += weight * near;
            if kind == QUEEN && self.phase == Phase::Opening && sq != if white { D1 } else { D8 } {
                v -= w!(QUEEN_OUT);
            }
        }
        if white {
            v
        } else {
            -v
        }
    }
}

/// [`EvalCtx::slots`] of `color` in `pos`: the slots from 1 on while
/// their men come in the lists' order (queens, rooks, bishops, knights;
/// a promoted man after them breaks it), up to the first pawn or
/// [`Position::officer_end`]. The scan takes the slots after them as
/// they come.
#[cfg(not(target_arch = "avr"))]
fn slot_layout(pos: &Position, color: Color) -> [u8; 2] {
    const { assert!(QUEEN == 5 && ROOK == 4 && BISHOP == 3 && KNIGHT == 2) };
    let list = pos.piece_list(color);
    // A nibble per kind, the queens' the lowest: `one` is 1 in the
    // nibble of `kind`, the kind of the slots now.
    let mut counts = 0u16;
    let mut one = 1u16;
    let mut kind = QUEEN;
    for &sq in &list[1..pos.officer_end(color) as usize] {
        if sq != NO_SQUARE {
            let k = kind_of(pos.piece_at(sq));
            if k < KNIGHT || k > kind {
                break;
            }
            while kind > k {
                kind -= 1;
                one <<= 4;
            }
        }
        counts += one;
    }
    [counts as u8, (counts >> 8) as u8]
}

/// [`slot_layout`] by hand (the compiler's was 180 bytes): X the list
/// from slot 1, r22 the slots left (from the officer bound), Z the man's
/// square, then its board byte and kind, r21 the kind now (queen down to
/// knight), r19:r18 one in its nibble, r23:r20 the counts.
#[cfg(target_arch = "avr")]
#[inline(never)]
fn slot_layout(pos: &Position, color: Color) -> [u8; 2] {
    const { assert!(QUEEN == 5 && ROOK == 4 && BISHOP == 3 && KNIGHT == 2 && BLACK_OFFSET == 6) };
    let lo: u8;
    let hi: u8;
    // SAFETY: reads the position's officer bound, its list slots 1 up to
    // that bound (at most 15) and the board at the squares listed.
    unsafe {
        core::arch::asm!(
            "    movw r26, r24",
            "    subi r26, lo8(-({list1}))",
            "    sbci r27, hi8(-({list1}))",
            "    movw r30, r24",
            "    subi r30, lo8(-({oe}))",
            "    sbci r31, hi8(-({oe}))",
            "    sbrs r22, 0",
            "    rjmp 1f",
            "    adiw r26, 16",
            "    adiw r30, 1",
            "1:  ld r22, Z",
            "    ldi r18, 1",
            "    clr r19",
            "    clr r20",
            "    clr r23",
            "    ldi r21, {queen}",
            "2:  dec r22",
            "    breq 9f",
            "    ld r30, X+",
            "    cpi r30, 0xFF",
            "    breq 5f",
            "    add r30, r24",
            "    mov r31, r25",
            "    adc r31, r1",
            "    ld r30, Z",
            "    andi r30, 0x0F",
            "    cpi r30, 7",
            "    brlo 3f",
            "    subi r30, 6",
            "3:  cpi r30, {knight}",
            "    brlo 9f",
            "    cp r21, r30",
            "    brlo 9f",
            "4:  cp r30, r21",
            "    brsh 5f",
            "    dec r21",
            "    swap r19",
            "    swap r18",
            "    andi r19, 0xF0",
            "    eor r19, r18",
            "    andi r18, 0xF0",
            "    eor r19, r18",
            "    rjmp 4b",
            "5:  add r20, r18",
            "    adc r23, r19",
            "    rjmp 2b",
            "9:",
            oe = const Position::OFFICER_END_OFFSET,
            list1 = const 129,
            queen = const QUEEN,
            knight = const KNIGHT,
            in("r25r24") pos as *const Position,
            inout("r22") color as u8 => _,
            out("r18") _, out("r19") _, out("r21") _,
            out("r20") lo, out("r23") hi,
            out("r26") _, out("r27") _, out("r30") _, out("r31") _,
        );
    }
    [lo, hi]
}

impl EvalCtx {
    /// [`EvalCtx::psq`] by hand, checked against the Rust version by the
    /// AVR search's equality with the host's. The weights and material
    /// values are const operands, the table [`PST88`](super::weights::PST88):
    /// the square is its index (0x88, the two kinds of a block 8 files
    /// apart), and its bytes are biased to be unsigned. Black's square and
    /// the enemy king's are turned over (`^ 0x70`), which keeps their
    /// distance and the centre distance, and turns the queen's home into
    /// d1 for both. An officer's biased table byte plus its tropism (at
    /// most 7 x 3) is still a byte, and the product's high byte 0, so r1
    /// stays clear after the `mul`. 52 cycles a call (`bench engine`),
    /// 61 with the 64-square tables, their index and sign extension.
    #[cfg(target_arch = "avr")]
    #[inline(never)]
    pub fn psq(&self, code: u8, sq: Square) -> i16 {
        use super::weights::{
            KING_CENTRE, PST88, PST88_BIAS, PST_DEFAULT, QUEEN_OUT, TROPISM_KNIGHT, TROPISM_OTHER, TROPISM_QUEEN,
        };
        const {
            // The officers' biased bytes plus tropism are bytes.
            let weights = [TROPISM_KNIGHT, TROPISM_OTHER, TROPISM_OTHER, TROPISM_QUEEN];
            let mut k = 0;
            while k < 4 {
                assert!(weights[k] >= 0 && weights[k] * 7 < 256);
                let mut i = 0;
                while i < 64 {
                    let v = PST_DEFAULT[(k + 1) * 64 + i] as i16 + PST88_BIAS + 7 * weights[k];
                    assert!(v < 256);
                    i += 1;
                }
                k += 1;
            }
            assert!(KING_CENTRE >= 0 && KING_CENTRE < 256);
            assert!(VALUES[KING as usize] == 0);
        };
        let v: i16;
        // Registers: Z `self` (then the table); r22 the code, then the
        // kind; r20 the square (turned over for black); r23 the enemy
        // king's root square (the same); T black; r18 the phase; r19 the
        // tropism weight; r21 the table byte; r25:r24 the value.
        // SAFETY: reads `self`'s phase and king squares and the flash
        // table PST88 at a valid square of a kind's block (or its
        // endgame pawn ranks); r1 is 0 after the `mul` (a product below
        // 256) and cleared after the other one.
        unsafe {
            core::arch::asm!(
                "    andi r22, 0x0F",
                "    ldd r23, Z+{ksq}+1",
                "    clt",
                "    cpi r22, 7",
                "    brlo 1f",
                "    subi r22, 6",
                "    ldd r23, Z+{ksq}",
                "    set",
                "    ldi r21, 0x70",
                "    eor r20, r21",
                "    eor r23, r21",
                "1:  cpi r22, 2",
                "    brlo 10f",
                "    cpi r22, 6",
                "    breq 60f",
                "    cpi r22, 4",
                "    brlo 30f",
                "    breq 40f",
                // The queen, less her bonus off her square in the opening.
                "    ldd r18, Z+{phase}",
                "    ldi r24, lo8({vq})",
                "    ldi r25, hi8({vq})",
                "    tst r18",
                "    brne 51f",
                "    cpi r20, 0x03",
                "    breq 51f",
                "    subi r24, lo8({qout})",
                "    sbci r25, hi8({qout})",
                "51: ldi r19, {tqueen}",
                "    ldi r30, lo8({pst} + 256)",
                "    ldi r31, hi8({pst} + 256)",
                "    rjmp 20f",
                "40: ldi r24, lo8({vr})",
                "    ldi r25, hi8({vr})",
                "    ldi r19, {tother}",
                "    ldi r30, lo8({pst} + 136)",
                "    ldi r31, hi8({pst} + 136)",
                "    rjmp 20f",
                "30: cpi r22, 3",
                "    brne 31f",
                "    ldi r24, lo8({vb})",
                "    ldi r25, hi8({vb})",
                "    ldi r19, {tother}",
                "    ldi r30, lo8({pst} + 128)",
                "    ldi r31, hi8({pst} + 128)",
                "    rjmp 20f",
                "31: ldi r24, lo8({vn})",
                "    ldi r25, hi8({vn})",
                "    ldi r19, {tknight}",
                "    ldi r30, lo8({pst} + 8)",
                "    ldi r31, hi8({pst} + 8)",
                "    rjmp 20f",
                // A pawn: the square, or in endgames the rank.
                "10: ldd r18, Z+{phase}",
                "    ldi r24, lo8({vp})",
                "    ldi r25, hi8({vp})",
                "    cpi r18, 2",
                "    brsh 11f",
                "    ldi r30, lo8({pst})",
                "    ldi r31, hi8({pst})",
                "12: add r30, r20",
                "    adc r31, r1",
                "    lpm r21, Z",
                "    rjmp 7f",
                "11: swap r20",
                "    andi r20, 7",
                "    ldi r30, lo8({pst} + 384)",
                "    ldi r31, hi8({pst} + 384)",
                "    rjmp 12b",
                // The king: the square, or in endgames the centre.
                "60: ldd r18, Z+{phase}",
                "    cpi r18, 2",
                "    brsh 61f",
                "    ldi r24, lo8({vk})",
                "    ldi r25, hi8({vk})",
                "    ldi r30, lo8({pst} + 264)",
                "    ldi r31, hi8({pst} + 264)",
                "    rjmp 12b",
                "61: clr r24",
                "    clr r25",
                "    mov r19, r20",
                "    andi r19, 7",
                "    subi r19, 4",
                "    brcc 62f",
                "    com r19",
                "62: mov r21, r20",
                "    swap r21",
                "    andi r21, 7",
                "    subi r21, 4",
                "    brcc 63f",
                "    com r21",
                "63: add r19, r21",
                "    ldi r21, {kc}",
                "    mul r19, r21",
                "    sub r24, r0",
                "    sbc r25, r1",
                "    clr r1",
                "    subi r24, lo8({kc3})",
                "    sbci r25, hi8({kc3})",
                "    rjmp 8f",
                // An officer: its square's byte, plus the tropism.
                "20: add r30, r20",
                "    adc r31, r1",
                "    lpm r21, Z",
                // The nearness by |sq - target| ([`NEARNESS`]).
                "    sub r20, r23",
                "    brpl 2f",
                "    neg r20",
                "2:  ldi r30, lo8({near})",
                "    ldi r31, hi8({near})",
                "    add r30, r20",
                "    adc r31, r1",
                "    lpm r22, Z",
                "    mul r22, r19",
                "    add r21, r0",
                "7:  add r24, r21",
                "    adc r25, r1",
                "8:  brtc 9f",
                "    neg r25",
                "    neg r24",
                "    sbc r25, r1",
                "9:",
                pst = sym PST88,
                near = sym NEARNESS,
                vp = const (VALUES[PAWN as usize] - PST88_BIAS) as u16,
                vn = const (VALUES[KNIGHT as usize] - PST88_BIAS) as u16,
                vb = const (VALUES[BISHOP as usize] - PST88_BIAS) as u16,
                vr = const (VALUES[ROOK as usize] - PST88_BIAS) as u16,
                vq = const (VALUES[QUEEN as usize] - PST88_BIAS) as u16,
                vk = const (VALUES[KING as usize] - PST88_BIAS) as u16,
                tother = const TROPISM_OTHER,
                tknight = const TROPISM_KNIGHT,
                tqueen = const TROPISM_QUEEN,
                kc = const KING_CENTRE,
                kc3 = const 0u16.wrapping_sub(3 * KING_CENTRE as u16),
                qout = const QUEEN_OUT as u16,
                ksq = const core::mem::offset_of!(EvalCtx, ksq),
                phase = const core::mem::offset_of!(EvalCtx, phase),
                inout("Z") self as *const EvalCtx => _,
                inout("r22") code => _,
                inout("r20") sq => _,
                out("r18") _, out("r19") _, out("r21") _, out("r23") _,
                out("r25r24") v,
            );
        }
        v
    }

    /// [`EvalCtx::psq`] of `code` on `to` less on `from`: the change of a
    /// quiet move or of the mover in a capture, for the search's `make`
    /// (`search.rs`), which called [`EvalCtx::psq`] twice with the same
    /// man: bench engine 337,588,466 -> 335,692,442 cycles (-0.56%, the
    /// same 52,030 nodes), +284 B flash (`psq` stays, for the victims, the
    /// special moves and the sums from scratch).
    #[cfg(not(target_arch = "avr"))]
    #[inline]
    pub fn psq_move(&self, code: u8, from: Square, to: Square) -> i16 {
        self.psq(code, to) - self.psq(code, from)
    }

    /// [`EvalCtx::psq_move`] by hand: one dispatch on the kind for both
    /// squares, and the material value, which cancels, not read. The
    /// table, the turning over for black and the byte arithmetic are
    /// [`EvalCtx::psq`]'s. Black's squares are exchanged as well as
    /// turned over (its change is white's on them, negated), and the
    /// difference of two bytes is the value (its borrow the high byte):
    /// the sum cleared, its negation and the sign flag went; the queen's
    /// opening bonus (only when one square is d1) is added out of line.
    /// `bench engine` 252,753,632 -> 252,561,569 cycles (-0.08%), 0 B.
    #[cfg(target_arch = "avr")]
    #[inline(never)]
    pub fn psq_move(&self, code: u8, from: Square, to: Square) -> i16 {
        use super::weights::{KING_CENTRE, PST88, QUEEN_OUT, TROPISM_KNIGHT, TROPISM_OTHER, TROPISM_QUEEN};
        let v: i16;
        // Registers: Z `self` (then the table), X the kind's table; r22
        // the code, then the kind, then scratch; r20 `from`, r18 `to`
        // (for black both turned over and exchanged: black's change is
        // white's with the squares turned over, negated); r23 the enemy
        // king's root square (turned over for black); T the queen's
        // bonus; r19 the phase, then the tropism weight; r21 and r18 the
        // bytes on `to` and on `from`; r25:r24 the value.
        // SAFETY: as `psq`: reads `self`'s phase and king squares and the
        // flash table PST88 at valid squares of a kind's block (or its
        // endgame pawn ranks); r1 is 0 after an unsigned `mul` (products
        // below 256) and cleared after the signed one.
        unsafe {
            core::arch::asm!(
                "    andi r22, 0x0F",
                "    ldd r23, Z+{ksq}+1",
                "    clt",
                "    cpi r22, 7",
                "    brlo 1f",
                "    subi r22, 6",
                "    ldd r23, Z+{ksq}",
                // Black: the squares turned over and exchanged.
                "    ldi r21, 0x70",
                "    eor r23, r21",
                "    eor r21, r18",
                "    eor r18, r20",
                "    eor r18, r21",
                "    mov r20, r21",
                "1:  cpi r22, 2",
                "    brlo 10f",
                "    cpi r22, 6",
                "    breq 60f",
                "    cpi r22, 4",
                "    brlo 30f",
                "    breq 40f",
                // The queen: her bonus off her square in the opening,
                // when one square is d1 (T set, the bonus in r25:r24).
                "    ldd r19, Z+{phase}",
                "    tst r19",
                "    brne 51f",
                "    ldi r24, lo8({nqout})",
                "    ldi r25, hi8({nqout})",
                "    cpi r20, 0x03",
                "    breq 52f",
                "    ldi r24, lo8({qout})",
                "    ldi r25, hi8({qout})",
                "    cpi r18, 0x03",
                "    brne 51f",
                "52: set",
                "51: ldi r19, {tqueen}",
                "    ldi r26, lo8({pst} + 256)",
                "    ldi r27, hi8({pst} + 256)",
                "    rjmp 20f",
                "40: ldi r19, {tother}",
                "    ldi r26, lo8({pst} + 136)",
                "    ldi r27, hi8({pst} + 136)",
                "    rjmp 20f",
                "30: ldi r19, {tother}",
                "    ldi r26, lo8({pst} + 128)",
                "    ldi r27, hi8({pst} + 128)",
                "    cpi r22, 3",
                "    breq 20f",
                "    ldi r19, {tknight}",
                "    ldi r26, lo8({pst} + 8)",
                "    ldi r27, hi8({pst} + 8)",
                "    rjmp 20f",
                // A pawn: the squares, or in endgames the ranks.
                "10: ldd r19, Z+{phase}",
                "    ldi r26, lo8({pst})",
                "    ldi r27, hi8({pst})",
                "    cpi r19, 2",
                "    brlo 12f",
                "    swap r18",
                "    andi r18, 7",
                "    swap r20",
                "    andi r20, 7",
                "    ldi r26, lo8({pst} + 384)",
                "    ldi r27, hi8({pst} + 384)",
                "12: movw r30, r26",
                "    add r30, r18",
                "    adc r31, r1",
                "    lpm r21, Z",
                "    movw r30, r26",
                "    add r30, r20",
                "    adc r31, r1",
                "    lpm r18, Z",
                "    rjmp 7f",
                // The king: the squares, or in endgames the centre
                // distances (from's less to's, times the weight).
                "60: ldd r19, Z+{phase}",
                "    ldi r26, lo8({pst} + 264)",
                "    ldi r27, hi8({pst} + 264)",
                "    cpi r19, 2",
                "    brlo 12b",
                "    rcall 65f",
                "    mov r21, r22",
                "    mov r20, r18",
                "    rcall 65f",
                "    sub r21, r22",
                "    ldi r19, {kc}",
                "    mulsu r21, r19",
                "    movw r24, r0",
                "    clr r1",
                "    rjmp 9f",
                // (The centre distance of r20 in r22, r19 scratch.)
                "65: mov r22, r20",
                "    andi r22, 7",
                "    subi r22, 4",
                "    brcc 66f",
                "    com r22",
                "66: mov r19, r20",
                "    swap r19",
                "    andi r19, 7",
                "    subi r19, 4",
                "    brcc 67f",
                "    com r19",
                "67: add r22, r19",
                "    ret",
                // The queen's bytes and bonus.
                "68: add r24, r21",
                "    adc r25, r1",
                "    sub r24, r18",
                "    sbc r25, r1",
                "    rjmp 9f",
                // An officer: each square's byte plus its tropism.
                "20: movw r30, r26",
                "    add r30, r18",
                "    adc r31, r1",
                "    lpm r21, Z",
                "    sub r18, r23",
                "    brpl 2f",
                "    neg r18",
                "2:  ldi r30, lo8({near})",
                "    ldi r31, hi8({near})",
                "    add r30, r18",
                "    adc r31, r1",
                "    lpm r22, Z",
                "    mul r22, r19",
                "    add r21, r0",
                "    movw r30, r26",
                "    add r30, r20",
                "    adc r31, r1",
                "    lpm r18, Z",
                "    sub r20, r23",
                "    brpl 5f",
                "    neg r20",
                "5:  ldi r30, lo8({near})",
                "    ldi r31, hi8({near})",
                "    add r30, r20",
                "    adc r31, r1",
                "    lpm r22, Z",
                "    mul r22, r19",
                "    add r18, r0",
                // The bytes' difference (their biases cancel; the borrow
                // is the high byte).
                "7:  brts 68b",
                "    mov r24, r21",
                "    sub r24, r18",
                "    sbc r25, r25",
                "9:",
                pst = sym PST88,
                near = sym NEARNESS,
                tother = const TROPISM_OTHER,
                tknight = const TROPISM_KNIGHT,
                tqueen = const TROPISM_QUEEN,
                kc = const KING_CENTRE,
                qout = const QUEEN_OUT as u16,
                nqout = const 0u16.wrapping_sub(QUEEN_OUT as u16),
                ksq = const core::mem::offset_of!(EvalCtx, ksq),
                phase = const core::mem::offset_of!(EvalCtx, phase),
                inout("Z") self as *const EvalCtx => _,
                inout("r22") code => _,
                inout("r20") from => _,
                inout("r18") to => _,
                out("r19") _, out("r21") _, out("r23") _, out("r26") _, out("r27") _,
                out("r25r24") v,
            );
        }
        v
    }
}

impl Default for EvalCtx {
    fn default() -> Self {
        EvalCtx::new()
    }
}

/// Sums of the incremental part from scratch: (psq, npm, pawns).
pub fn incremental_from_scratch(ctx: &EvalCtx, pos: &Position) -> (i16, [u8; 2], [u8; 2]) {
    let mut psq = 0i16;
    let mut npm = [0u8; 2];
    let mut pawns = [0u8; 2];
    for c in 0..2 {
        let color = if c == 0 { Color::White } else { Color::Black };
        for &sq in pos.piece_list(color).iter() {
            if sq == NO_SQUARE {
                continue;
            }
            let b = pos.piece_at(sq);
            psq += ctx.psq(b, sq);
            let k = kind_of(b);
            if k == PAWN {
                pawns[c] += 1;
            } else {
                npm[c] += NPM_UNITS.get(k as usize);
            }
        }
    }
    (psq, npm, pawns)
}

/// Full static evaluation of `pos` from the side to move's point of view,
/// with the context computed from `pos` itself (for tests and the UI).
pub fn eval(pos: &Position) -> i16 {
    let ctx = EvalCtx::from_position(pos);
    let (psq, npm, pawns) = incremental_from_scratch(&ctx, pos);
    let pi = pawn_info(pos);
    evaluation(pos, &ctx, psq, npm, pawns, &pi, NO_SCAN_WINDOW)
}

/// Margin of the lazy evaluation: the dynamic terms rarely exceed it.
/// Measured on the host's bench tree (26 positions, depth 4 and 6): the
/// full score differed from the incremental one by under 40 in 66% of
/// the full evaluations, by 140 or more in 0.3%; of those a margin of
/// 150 would have skipped, 0 of 3,318 (depth 4) and 3 of 13,502 (depth 6)
/// fell on the other side of the window; at 120, 27 of 5,609 and 137 of
/// 36,485. `bench engine`: 220 -> 150, 52,030 -> 52,026 nodes, 1.1% fewer
/// cycles; 120 and 100 changed the tree (52,871 and 50,948 nodes) for
/// 1.0% and 0.4% more nps each, not taken without a strength measurement.
pub const LAZY_MARGIN: i16 = 150;
/// Margin of the second lazy exit, after the pawns and before the
/// officers' scan (mobility-free piece terms, rooks' files, outposts, the
/// bishop pair, the king shields): the scan's part of the score. On the
/// host's bench tree (depths 4 and 6) it moved the score by under 40 in
/// 86% of the scans, by 120 or more in 1 of 165,002; of the scans a
/// margin of 100 would skip, none at depths 4 and 6 (5,186 and 33,596)
/// fell on the other side of the window, at 80 (7,463 and 45,325) 11 at depth 6, with 1.5% more
/// nodes there (0.3% at 100).
pub const SCAN_MARGIN: i16 = 100;
/// A window that never skips the scan: no score is at or below
/// `i16::MIN` nor at or above `i16::MAX`.
pub const NO_SCAN_WINDOW: [i16; 2] = [i16::MIN, i16::MAX];
/// Slider mobility (ray scans for bishops and rooks) in the dynamic terms.
const MOBILITY: bool = false;

impl Engine {
    /// Static evaluation for the search, side to move's point of view. When
    /// the incremental score is far outside `alpha..beta` the dynamic terms
    /// are skipped (lazy evaluation). Not inlined: a call is nothing next to
    /// an evaluation, and the search has three call sites. The rest is out
    /// of line ([`Engine::evaluate_fully`]), so the lazy exits save no
    /// register (on the AVR one block, which saves them after the lazy
    /// exit).
    #[cfg(not(target_arch = "avr"))]
    #[inline(never)]
    pub(crate) fn evaluate(&mut self, pos: &Position, alpha: i16, beta: i16) -> i16 {
        let white = pos.side_to_move() == Color::White;
        let base = if white { self.psq } else { -self.psq };
        let lazy_ok = self.ctx.phase < Phase::PawnEnding && self.npm[0] != 0 && self.npm[1] != 0;
        if lazy_ok && (base + LAZY_MARGIN <= alpha || base - LAZY_MARGIN >= beta) {
            return base;
        }
        self.scan_window = if lazy_ok { [alpha - SCAN_MARGIN, beta + SCAN_MARGIN] } else { NO_SCAN_WINDOW };
        self.evaluate_fully(pos)
    }

    /// [`Engine::evaluate`] by hand: the phase and material tests before
    /// the side to move and the score are read, the engine's and the
    /// position's fields each from one pointer (the compiler set one up
    /// per field), the margins as constants. The lazy exit returns from
    /// inside the block (the function has no frame: checked in the image;
    /// a flag for the compiler to test cost 4 cycles on each path), the
    /// rest goes on in the same block, [`full_scan`]'s (the rest of
    /// [`evaluation`]), with the engine, the position and the bounds still
    /// where the ABI brought them: the scan's window is worked out from the
    /// bounds in registers (it was stored in the engine here and read back
    /// there: 19 cycles of each evaluation that goes on). The lower test's
    /// bound is the upper one's less twice the margin (no second copy of
    /// the score: -47,939 cycles of `bench engine`). The rest was a
    /// function of its own, `evaluate_fully`, reached by a tail jump, which
    /// saved the scan's registers in its prologue; the block saves them
    /// itself after the lazy exit: `bench engine` 216,512,539 ->
    /// 216,472,441 cycles (-0.019%), KBNK -0.053%, +8 B.
    #[cfg(target_arch = "avr")]
    #[inline(never)]
    pub(crate) fn evaluate(&mut self, pos: &Position, alpha: i16, beta: i16) -> i16 {
        full_scan(pos, self, alpha, beta)
    }

    /// [`Engine::evaluate`] without the lazy exit: the pawn cache's hits,
    /// the dynamic terms and the scaling in one frame ([`evaluation`]).
    #[cfg(not(target_arch = "avr"))]
    #[inline(never)]
    fn evaluate_fully(&mut self, pos: &Position) -> i16 {
        let pi = &self.pawn_cache[self.pawn_slot(pos)];
        let (psq, npm, pawns) = (self.psq, self.npm, self.pawns);
        evaluation(pos, &self.ctx, psq, npm, pawns, pi, self.scan_window)
    }
}

impl Engine {
    /// The pawn-cache slot holding the pawn info of `pos`, computed on a
    /// miss (an index, not a copy of the entry).
    #[cfg_attr(target_arch = "avr", allow(dead_code))]
    #[inline(always)]
    fn pawn_slot(&mut self, pos: &Position) -> usize {
        let key = pos.pawn_key();
        // The low bits of the key see only the pawns on the low ranks: mix in
        // the high byte.
        let index = ((key as u8 ^ (key >> 8) as u8) & (PAWN_CACHE as u8 - 1)) as usize;
        if self.pawn_cache[index].key != key {
            fill_pawn_slot(&mut self.pawn_cache[index], pos);
        }
        index
    }

    /// The pawn info of `pos` through the cache (tests).
    #[cfg(test)]
    fn pawn_info(&mut self, pos: &Position) -> PawnInfo {
        let slot = self.pawn_slot(pos);
        self.pawn_cache[slot]
    }
}

/// A pawn-cache miss: the entry computed in place (the host's; the AVR's
/// is [`full_scan`]'s).
#[inline(never)]
fn fill_pawn_slot(slot: &mut PawnInfo, pos: &Position) {
    *slot = pawn_info(pos);
}

/// The static evaluation, side to move's point of view: the incremental
/// score `psq` plus the dynamic terms and tempo, white's point of view,
/// scaled towards a draw ([`scale_draw`]) and signed. `npm` and `pawns`
/// are the current material counts.
/// Inlined into the host's [`Engine::evaluate_fully`] (the lazy exits are in
/// [`Engine::evaluate`]; the AVR's is [`full_scan`]). The officers and king shields of both colours,
/// the scaling and the sign are one scan ([`scan_and_scale`]), the passed
/// pawns out of line before it ([`passed_pawns`]: most evaluations have
/// none, and their loop kept a frame and spilled registers): nothing is
/// live across the scan, so no register is saved for it but its own.
#[inline(always)]
fn evaluation(pos: &Position, ctx: &EvalCtx, psq: i16, npm: [u8; 2], pawns: [u8; 2], pi: &PawnInfo, window: [i16; 2]) -> i16 {
    // What the scaling and the sign ask, for the scan's end, and the
    // score with the tempo.
    let (flags, psq) = weak_flags(npm, pawns, pos.side_to_move(), psq);
    let stm_white = flags & BLACK_TO_MOVE == 0;

    // Bare king: mating evaluation only. (A bare king's side is weak:
    // with pawns on both sides, one test of the flags.)
    if flags & (WHITE_WEAK | BLACK_WEAK) != 0
        && (npm[0] == 0 && pawns[0] == 0 && pawns[1] == 0 && npm[1] >= 5
            || npm[1] == 0 && pawns[1] == 0 && pawns[0] == 0 && npm[0] >= 5)
    {
        let strong = if npm[0] > 0 { 0 } else { 1 };
        let s = scale_draw(psq + mating(pos, ctx, strong), npm, pawns);
        return if stm_white { s } else { -s };
    }

    let mut total = psq + pi.score;
    if pi.passed[0] | pi.passed[1] != 0 {
        total += passed_pawns(pos, npm, pi.passed, stm_white);
    }
    // The second lazy exit (not where the scan's end scales the score).
    if flags & (WHITE_WEAK | BLACK_WEAK) == 0 {
        let t = if stm_white { total } else { -total };
        if t <= window[0] || t >= window[1] {
            return t;
        }
    }
    scan_and_scale(pos, npm, total, flags)
}

/// [`mating`] as [`full_scan`]'s block calls it for [`evaluation`]'s
/// bare-king case (rare; the strong side the one not weak, the weak one
/// has no officers; the block adds the sum with the tempo, scales it by
/// the flags as [`scale_draw`] and signs it). The C ABI: the position in
/// r25:r24, the engine in r23:r22, the strong side in r20; the answer
/// in r25:r24.
#[cfg(target_arch = "avr")]
extern "C" fn mating_avr(pos: &Position, engine: &Engine, strong: u8) -> i16 {
    mating(pos, &engine.ctx, strong as usize)
}

/// [`scan_and_scale`]'s flags: which side cannot win ([`scale_draw`]:
/// no pawns and at most a minor piece), and black to move; and `psq`
/// with the tempo of the side to move `side`.
#[cfg(not(target_arch = "avr"))]
#[inline(always)]
fn weak_flags(npm: [u8; 2], pawns: [u8; 2], side: Color, psq: i16) -> (u8, i16) {
    let stm_white = side == Color::White;
    let mut flags = if stm_white { 0 } else { BLACK_TO_MOVE };
    if pawns[0] == 0 && npm[0] <= 3 {
        flags |= WHITE_WEAK;
    }
    if pawns[1] == 0 && npm[1] <= 3 {
        flags |= BLACK_WEAK;
    }
    (flags, psq + if stm_white { w!(TEMPO) } else { -w!(TEMPO) })
}

/// [`weak_flags`] by hand: byte tests (the compiler compared the counts
/// as 16-bit words), the king shields' material tests with them, and the
/// side's one test for the flag and the tempo (the compiler tested it
/// twice, branching around two pairs of `ldi`).
#[cfg(target_arch = "avr")]
#[inline(always)]
fn weak_flags(npm: [u8; 2], pawns: [u8; 2], side: Color, psq: i16) -> (u8, i16) {
    use super::weights::TEMPO;
    const { assert!(Color::White as u8 == 0 && Color::Black as u8 == 1) };
    let flags: u8;
    let with_tempo: i16;
    // SAFETY: register arithmetic only.
    unsafe {
        core::arch::asm!(
            "    ldi {f}, 0",
            "    subi r18, lo8({ntempo})",
            "    sbci r19, hi8({ntempo})",
            "    sbrs {side}, 0",
            "    rjmp 5f",
            "    ldi {f}, {btm}",
            "    subi r18, lo8({tempo2})",
            "    sbci r19, hi8({tempo2})",
            "5:  tst {p0}",
            "    brne 1f",
            "    cpi {n0}, 4",
            "    brsh 1f",
            "    ori {f}, {ww}",
            "1:  tst {p1}",
            "    brne 2f",
            "    cpi {n1}, 4",
            "    brsh 2f",
            "    ori {f}, {bw}",
            "2:  cpi {n1}, 12",
            "    brlo 3f",
            "    ori {f}, {ws}",
            "3:  cpi {n0}, 12",
            "    brlo 4f",
            "    ori {f}, {bs}",
            "4:",
            ww = const WHITE_WEAK,
            bw = const BLACK_WEAK,
            ws = const WHITE_SHIELD,
            bs = const BLACK_SHIELD,
            btm = const BLACK_TO_MOVE,
            ntempo = const 0u16.wrapping_sub(TEMPO as u16),
            tempo2 = const 2 * TEMPO as u16,
            f = out(reg_upper) flags,
            side = in(reg) side as u8,
            n0 = in(reg_upper) npm[0],
            n1 = in(reg_upper) npm[1],
            p0 = in(reg) pawns[0],
            p1 = in(reg) pawns[1],
            inout("r19r18") psq => with_tempo,
            options(pure, nomem, nostack),
        );
    }
    (flags, with_tempo)
}

/// [`scan_and_scale`]'s flags: white (black) cannot win ([`scale_draw`]),
/// black to move.
const WHITE_WEAK: u8 = 0x10;
const BLACK_WEAK: u8 = 0x20;
const BLACK_TO_MOVE: u8 = 0x40;
/// The AVR's [`scan_and_scale`] flags: white's (black's) king shield is
/// scored, the enemy having 12 units of officers or more.
#[cfg(target_arch = "avr")]
const WHITE_SHIELD: u8 = 0x02;
#[cfg(target_arch = "avr")]
const BLACK_SHIELD: u8 = 0x04;

/// The passed pawns of both colours, white's point of view: the front
/// pawns of the files the pawn info names. A colour at a time, out of
/// line ([`passed_side`]: the colour a byte argument, not an index into
/// arrays kept on the stack).
#[cfg_attr(not(target_arch = "avr"), inline(never))]
#[cfg_attr(target_arch = "avr", inline(always))]
fn passed_pawns(pos: &Position, npm: [u8; 2], passed_files: [u8; 2], stm_white: bool) -> i16 {
    let mut facts = if npm[0] + npm[1] <= 26 { PASSED_ENDGAME } else { 0 };
    if !stm_white {
        facts |= PASSED_DEFENDER_TO_MOVE;
    }
    let mut total = 0i16;
    if passed_files[0] != 0 {
        let bare = if npm[1] == 0 { PASSED_BARE } else { 0 };
        total += passed_side(pos, passed_files[0], facts | bare);
    }
    if passed_files[1] != 0 {
        let bare = if npm[0] == 0 { PASSED_BARE } else { 0 };
        total -= passed_side(pos, passed_files[1], (facts ^ PASSED_DEFENDER_TO_MOVE) | PASSED_BLACK | bare);
    }
    total
}

/// The passed pawns on `files` of the colour and in the case `facts` say.
#[inline(never)]
fn passed_side(pos: &Position, mut files: u8, facts: u8) -> i16 {
    let c = facts & PASSED_BLACK;
    let own = pos.pawn_files(if c == 0 { Color::White } else { Color::Black });
    let mut t = 0i16;
    let mut f = 0u8;
    while files != 0 {
        // (A file without pawns here would be a pawn-key collision.)
        if files & 1 != 0 && own[(f & 7) as usize] != 0 {
            let r = front_rank(own[(f & 7) as usize], c);
            t += passed(pos, (r << 4) | f, facts);
        }
        files >>= 1;
        f += 1;
    }
    t
}

crate::progmem! {
    /// Set bits of a nibble.
    #[cfg_attr(target_arch = "avr", allow(dead_code))]
    static NIBBLE_COUNT: [u8; 16] = [0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4];
}

/// What the pawn files alone decide: kept in the engine's small pawn cache,
/// because the pawn structure changes in few of the moves searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PawnInfo {
    /// [`Position::pawn_key`] of the pawn files.
    pub key: u16,
    /// Doubled and isolated pawns, white's point of view.
    pub score: i16,
    /// Per colour, the files whose front pawn is passed.
    pub passed: [u8; 2],
}

impl PawnInfo {
    /// The info of no pawns at all (key 0), so also a valid initial slot.
    pub const EMPTY: PawnInfo = PawnInfo {
        key: 0,
        score: 0,
        passed: [0; 2],
    };
}

/// Slots of the pawn cache (6 bytes each). Four missed on 38% of the
/// full evaluations of `cargo xtask bench engine`; eight are 0.6% faster
/// for 24 bytes, sixteen 1% for 72. With the walk in assembly, eight
/// missed on 10,056 of 31,754; sixteen: 290,763,041 -> 289,882,991
/// cycles (-0.30%) for 48 bytes of RAM; 32 another -0.26% (289,115,026)
/// for 96 more (after the slot layout: 287,578,945 -> 286,786,960,
/// -0.28%), over `cargo xtask ram`'s 64-byte growth check: left until RAM
/// was to spare (after the one-block scan: 253,209,529 -> 252,513,642,
/// -0.27%). Taken once the stack bound fell by 93 bytes: 232,809,344 ->
/// 232,161,256 cycles (-0.28%), 96 bytes. Of the bench's 28,427 full evaluations 16 slots
/// miss on 7,307, 32 on 6,030; 16 as 8 sets of 2 (LRU) would miss on
/// 6,798 and even 16 fully associative on 6,260: most misses are new
/// structures, not collisions.
pub const PAWN_CACHE: usize = 32;

/// Rank of the front pawn of a non-empty file mask (`c` = 0: white): the
/// mask shifted until its front bit comes out (a table's bit per rank
/// tried was an `LPM` and an address a step).
#[inline]
fn front_rank(file: u8, c: u8) -> u8 {
    let mut m = file;
    let mut n = 0u8;
    if c == 0 {
        while m & 0x80 == 0 {
            m <<= 1;
            n += 1;
        }
        7 - n
    } else {
        while m & 1 == 0 {
            m >>= 1;
            n += 1;
        }
        n
    }
}

/// Doubled and isolated pawns of colour `c` (white's point of view is the
/// caller's business) and its files with a passed front pawn, file by file:
/// every pawn behind another on its file pays, each pawn of an isolated
/// file pays, and only a file's front pawn can be passed. Counts first,
/// one multiplication each at the end; the "ranks ahead of the front pawn"
/// mask is the complement of the file's bits smeared towards the own side
/// (three shift-ors), not a search for the front pawn.
#[inline(always)]
fn pawn_structure(own: &[u8; 8], opp: &[u8; 8], c: u8) -> (i16, u8) {
    let mut rear = 0u8;
    let mut connected = 0u8;
    let mut isolated_open = 0u8;
    let mut isolated = 0u8;
    let mut passed = 0u8;
    let mut left = 0u8;
    let mut oleft = 0u8;
    let mut bit = 1u8;
    for f in 0..8u8 {
        let here = own[f as usize];
        let ohere = opp[f as usize];
        let (right, oright) = if f < 7 {
            (own[(f + 1) as usize], opp[(f + 1) as usize])
        } else {
            (0, 0)
        };
        if here != 0 {
            let n = NIBBLE_COUNT.get((here & 15) as usize) + NIBBLE_COUNT.get((here >> 4) as usize);
            rear += n - 1;
            if left | right == 0 {
                if ohere == 0 {
                    isolated_open += n;
                } else {
                    isolated += n;
                }
            }
            // Connected: side by side with a pawn of a next file, or
            // guarded by one.
            let adj = left | right;
            let guards = if c == 0 { adj << 1 } else { adj >> 1 };
            let linked = here & (adj | guards);
            connected += NIBBLE_COUNT.get((linked & 15) as usize) + NIBBLE_COUNT.get((linked >> 4) as usize);
            let mut behind = here;
            if c == 0 {
                behind |= behind >> 1;
                behind |= behind >> 2;
                behind |= behind >> 4;
            } else {
                behind |= behind << 1;
                behind |= behind << 2;
                behind |= behind << 4;
            }
            if (oleft | ohere | oright) & !behind == 0 {
                passed |= bit;
            }
        }
        left = here;
        oleft = ohere;
        bit <<= 1;
    }
    let t = -w!(DOUBLED) * rear as i16 - w!(ISOLATED_OPEN) * isolated_open as i16 - w!(ISOLATED) * isolated as i16
        + w!(CONNECTED) * connected as i16;
    (t, passed)
}

/// The pawn-file facts of `pos` from scratch (the AVR's walk is
/// [`full_scan`]'s).
pub fn pawn_info(pos: &Position) -> PawnInfo {
    let white = pos.pawn_files(Color::White);
    let black = pos.pawn_files(Color::Black);
    let (w, wp) = pawn_structure(white, black, 0);
    let (b, bp) = pawn_structure(black, white, 1);
    PawnInfo {
        key: pos.pawn_key(),
        score: w - b,
        passed: [wp, bp],
    }
}

/// Knight outposts, the bishop pair, rooks on open and half-open files and
/// connected rooks of colour `c` (0: white). Walks the piece list with a
/// u8 slot up to its first pawn or [`Position::officer_end`].
#[inline(always)]
fn officers(pos: &Position, c: u8, own: &[u8; 8], opp: &[u8; 8]) -> i16 {
    let color = if c == 0 { Color::White } else { Color::Black };
    let offset = if c == 0 { 0 } else { BLACK_OFFSET };
    let mut t = 0i16;
    let mut bishops = 0u8;
    let mut first_rook = NO_SQUARE;
    let list = pos.piece_list(color);
    let end = pos.officer_end(color);
    let mut slot = 1u8;
    while slot < end {
        let sq = list[(slot & 15) as usize];
        slot += 1;
        if sq == NO_SQUARE {
            continue;
        }
        let kind = pos.code_on(sq).wrapping_sub(offset);
        if kind == PAWN {
            // The lists are filled king, queens, rooks, bishops, knights,
            // pawns, and men keep their slots: the first pawn ends the
            // officers. Only a knight, bishop or rook promoted from a
            // later pawn slot goes unscored here (material and square
            // values still count it).
            break;
        }
        // Own men only, pawns gone: above the rooks are the queens (the
        // king has slot 0).
        if kind > ROOK {
            continue;
        }
        let f = sq & 7;
        let fi = f as usize;
        if kind == KNIGHT {
            // Outpost: on relative ranks 4..6, guarded by a pawn, no
            // enemy pawn left that could chase it away.
            let r = (sq >> 4) & 7;
            let rr = if c == 0 { r } else { 7 - r };
            if (3..=5).contains(&rr) {
                let (behind, ahead) = if c == 0 {
                    (r - 1, ABOVE.get(r as usize))
                } else {
                    (r + 1, BELOW.get(r as usize))
                };
                let bit = BIT.get((behind & 7) as usize);
                let guarded = (f > 0 && own[(f - 1) as usize] & bit != 0)
                    || (f < 7 && own[(f + 1) as usize] & bit != 0);
                let oleft = if f > 0 { opp[(f - 1) as usize] } else { 0 };
                let oright = if f < 7 { opp[(f + 1) as usize] } else { 0 };
                if guarded && (oleft | oright) & ahead == 0 {
                    t += w!(OUTPOST);
                }
            }
        } else if kind == BISHOP {
            bishops += 1;
            if MOBILITY {
                t += 3 * (mobility(pos, sq, 0) as i16 - 6);
            }
        } else {
            if own[fi] == 0 {
                t += if opp[fi] == 0 { w!(ROOK_OPEN) } else { w!(ROOK_HALF_OPEN) };
            }
            if MOBILITY {
                t += mobility(pos, sq, 4) as i16 - 6;
            }
            if first_rook == NO_SQUARE {
                first_rook = sq;
            } else if connected(pos, first_rook, sq) {
                t += w!(ROOKS_CONNECTED);
            }
        }
    }
    if bishops >= 2 {
        t += w!(BISHOP_PAIR);
    }
    t
}

/// King shield of colour `c` (0: white) while the enemy still has
/// attacking material (`their_npm` 12 or more): the king on its first two
/// ranks, each of its file and the next ones scored by its own pawn one or
/// two ranks ahead, or its absence (worse on a file without enemy pawns).
/// (A king-danger term, the enemy officers within two squares of the king
/// weighted and squared, measured +0.5% +/- 1.1% on the host A/B of
/// search.rs's LMP_MOVES, -0.1% at double weight, for 3.6% fewer nodes a
/// second (`bench engine` ratio 0.964) and 196 bytes of flash: left out.)
#[inline(always)]
fn shield(pos: &Position, c: u8, own: &[u8; 8], opp: &[u8; 8], their_npm: u8) -> i16 {
    if their_npm < 12 {
        return 0;
    }
    let my_king = pos.king_square(if c == 0 { Color::White } else { Color::Black });
    let kf = file_of(my_king);
    let kr = rank_of(my_king);
    let krr = if c == 0 { kr } else { 7 - kr };
    if krr > 1 {
        return 0;
    }
    // (The king on its first two ranks: both shield ranks are on the board.)
    let (r1, r2) = if c == 0 { (kr + 1, kr + 2) } else { (kr - 1, kr - 2) };
    let near = BIT.get((r1 & 7) as usize);
    let far = BIT.get((r2 & 7) as usize);
    let shield = |k: usize| -> i16 {
        let m = own[k];
        if m & near != 0 {
            w!(SHIELD_NEAR)
        } else if m & far != 0 {
            w!(SHIELD_FAR)
        } else if opp[k] == 0 {
            -w!(SHIELD_MISSING) - w!(SHIELD_OPEN)
        } else {
            -w!(SHIELD_MISSING)
        }
    };
    let k = kf as usize;
    let mut t = shield(k);
    if kf > 0 {
        t += shield(k - 1);
    }
    if kf < 7 {
        t += shield(k + 1);
    }
    t
}

/// `sum` plus the officers' terms and king shields of white less black's,
/// scaled towards a draw ([`scale_draw`]: `flags` says which side cannot
/// win) and from the side to move's point of view.
#[inline(always)]
fn scan_and_scale(pos: &Position, npm: [u8; 2], sum: i16, flags: u8) -> i16 {
    let white = pos.pawn_files(Color::White);
    let black = pos.pawn_files(Color::Black);
    let s = sum + officers(pos, 0, white, black) + shield(pos, 0, white, black, npm[1])
        - officers(pos, 1, black, white)
        - shield(pos, 1, black, white, npm[0]);
    let s = if s > 0 && flags & WHITE_WEAK != 0 || s < 0 && flags & BLACK_WEAK != 0 {
        s >> 3
    } else {
        s
    };
    if flags & BLACK_TO_MOVE != 0 {
        -s
    } else {
        s
    }
}

/// [`scan_and_scale`] by hand, after the pawn entry ([`Engine::pawn_slot`])
/// and a prelude for the rest of [`evaluation`] (the material,
/// [`weak_flags`], the tempo, the pawn entry's score, the bare-king test,
/// the passed pawns and the second lazy exit, its window `alpha -
/// SCAN_MARGIN`, `beta + SCAN_MARGIN`), both colours in one scan (the
/// compiler's loop kept the board's and the list's addresses on the stack
/// and reloaded them for every slot, and its king shield and colour loop
/// spilled registers and kept a frame): the same men, terms and sum,
/// checked against the Rust scan on every call of `bench engine`. The
/// weights come in as constants (`subi`/`sbci` of their negation), so
/// weights.rs still sets them; slider mobility is not in it (off: the
/// assertion asks for it before it may be switched on).
///
/// The officers' slots go by the root's layout ([`EvalCtx::slots`]): the
/// queens skipped, the rooks, bishops and knights each a loop of their
/// kind, no board byte read for the kind (that dispatch was 6.3 of the
/// scan's 12 million cycles); the slots after them (a promotion's) as
/// they come. `bench engine` 289,882,991 -> 287,578,945 cycles (-0.79%),
/// +192 B flash (of which the layout at the search's start 116). The
/// slots after them one at a time, each through its kind's loop with a
/// count of one (they were a mode of the loops, a T flag tested at every
/// rook and knight), the first rook's hole and open file out of line
/// (before the scan: in its branches' reach), the knight's outpost test
/// on the square less the ranks' offset (no copy) and the bishop pair by
/// a shift: 217,232,425 -> 216,768,323 cycles (-0.21%), -12 B.
/// (A king shield kept in the pawn entry for the king square it was
/// scored for, 10-byte entries: -0.20%, +64 B flash and +66 B RAM,
/// worse than 32 slots of 6 bytes: left out.)
///
/// The pawn entry's address is worked out in bytes (the compiler
/// multiplied a 16-bit index) and on a miss the entry is computed in
/// place. The walk is [`pawn_info`] by hand: both colours in one walk
/// over the files (each file's and its neighbours' bytes read once), the
/// weights added to the score as they are met (const operands), the
/// counts bit-clearing loops (a file holds one or two pawns; a file of
/// one pawn, most of them, counts its connected pawn without a loop and
/// files of more go out of line: the bench's 7,307 misses walk 58,456
/// files, 69,462 connected pawns, `bench engine` 252,561,569 ->
/// 252,217,606 cycles (-0.14%), +44 B flash), a front
/// pawn passed by comparisons instead of a smeared mask: white's when no
/// enemy pawn of the three files has a higher top bit (`msb(o) > msb(W)`
/// is `W < o && W < W ^ o`), black's when none lies below its lowest bit
/// (`o & (B - 1) & !B`). Checked against [`pawn_structure`] by the host
/// tests' pawn cache and the AVR search's equality with the host's. (The
/// entry and the scan were two blocks, the bounds stored in the engine
/// by [`Engine::evaluate`] and read back: one block with the bounds in
/// registers, the position's and the engine's fields each from one
/// pointer, `bench engine` 254,481,430 -> 253,593,821 cycles (-0.35%),
/// -28 B flash.) With [`Engine::evaluate`]'s lazy exit at its start (the
/// scan's registers saved after it), and a bare king's answer finished by
/// the block around a call of [`mating_avr`], its sum and flags in the
/// block's saved registers (the block's flags were tested after it, 4
/// cycles an evaluation: `bench engine` -0.045%, KBNK bench -0.12%; a
/// C-ABI `bare_king` of its own frame was KBNK +0.4%).
#[cfg(target_arch = "avr")]
#[inline(always)]
fn full_scan(pos: &Position, engine: &Engine, alpha: i16, beta: i16) -> i16 {
    use super::weights::{CONNECTED, DOUBLED, ISOLATED, ISOLATED_OPEN};
    use super::weights::{PASSED_EG, PASSED_MG, SHIELD_FAR, SHIELD_MISSING, SHIELD_NEAR, SHIELD_OPEN, TEMPO};
    use core::mem::offset_of;
    const PSQ: usize = offset_of!(Engine, psq);
    const NPM: usize = offset_of!(Engine, npm);
    const PAWNS: usize = offset_of!(Engine, pawns);
    const LAY: usize = offset_of!(Engine, ctx) + offset_of!(EvalCtx, slots);
    const CACHE: usize = offset_of!(Engine, pawn_cache);
    // The lazy exit's fields ([`Engine::evaluate`]): the phase, and the
    // score and material counts from their lowest address.
    const E_PHASE: usize = offset_of!(Engine, ctx) + offset_of!(EvalCtx, phase);
    const E_LOW: usize = if PSQ < NPM { PSQ } else { NPM };
    const LOW: usize = if PSQ < NPM && PSQ < PAWNS {
        PSQ
    } else if NPM < PAWNS {
        NPM
    } else {
        PAWNS
    };
    const {
        assert!(!MOBILITY && WHITE_SHIELD == 0x02 && BLACK_SHIELD == 0x04 && BLACK_TO_MOVE == 0x40);
        assert!(WHITE_WEAK == 0x10 && BLACK_WEAK == 0x20);
        assert!(BISHOP & 8 == 0 && (BISHOP + BLACK_OFFSET) & 8 != 0 && BLACK_OFFSET == 6);
        assert!(PASSED_BLACK == 1 && PASSED_ENDGAME == 2 && PASSED_BARE == 4 && PASSED_DEFENDER_TO_MOVE == 8);
        assert!(w!(PASSED_THEIR_KING) == 4 && w!(PASSED_OWN_KING) == 2);
        assert!(PSQ + 1 - LOW < 64 && NPM + 1 - LOW < 64 && PAWNS + 1 - LOW < 64);
        assert!(E_PHASE < 64 && PSQ + 1 - E_LOW < 64 && NPM + 1 - E_LOW < 64 && LAZY_MARGIN > 0);
        assert!(-super::INFINITE - SCAN_MARGIN > i16::MIN && super::INFINITE + SCAN_MARGIN < i16::MAX);
        assert!(CACHE > LOW && CACHE - LOW + 6 * (PAWN_CACHE - 1) < 256);
        assert!(PAWN_CACHE.is_power_of_two() && PAWN_CACHE <= 32 && core::mem::size_of::<PawnInfo>() == 6);
        assert!(core::mem::size_of::<[[u8; 2]; 2]>() == 4);
        assert!(Position::OFFICER_END_OFFSET > Position::PAWN_FILES_OFFSET && Position::OFFICER_END_OFFSET + 1 - Position::PAWN_FILES_OFFSET < 64);
        assert!(Position::PAWN_KEY_OFFSET > Position::SIDE_OFFSET && Position::PAWN_KEY_OFFSET + 1 - Position::SIDE_OFFSET < 64);
        assert!(Position::PAWN_FILES_OFFSET > Position::SIDE_OFFSET && Position::PAWN_FILES_OFFSET + 8 - Position::SIDE_OFFSET < 64);
        assert!(offset_of!(PawnInfo, key) == 0 && offset_of!(PawnInfo, score) == 2 && offset_of!(PawnInfo, passed) == 4);
        assert!(Color::White as u8 == 0 && Color::Black as u8 == 1);
    };
    let t: usize;
    // The entry: in r25:r24 the engine, r23:r22 the position, r21:r20
    // and r19:r18 the bounds; Z the position's side and pawn key, then
    // the engine's fields (to the end of the prelude), r17:r16 the key,
    // r18 the slot's offset from the engine's fields (the key's bytes
    // mixed, as `pawn_slot`, times 6 by two shifts and an add: a `mul` and
    // its `ldi`s were 2 cycles more), X the entry; r25:r24 the position,
    // r21:r20 and r23:r22 the bounds, r11 the side to move from then on
    // (r7 is not used: a register less to save, 4 cycles an evaluation).
    // A miss keeps the entry (after its key), the engine's fields and the
    // bounds in r9:r8, r11:r10, r13:r12 and r14 and the stack and walks the files: Z
    // the white file after the next (black's 8 bytes on: `ldd Z+7` reads
    // black's file of the white one just loaded), r18/r19 this file's
    // white and black pawns, r20/r21 the last file's, r22/r23 the next
    // file's; r17 the file's bit, r16 and r15 white's and black's passed
    // files; r26 and r27 masks, r0 scratch; the score in r25:r24. The
    // walk reads the 16 bytes of `pawn_files` (`[[u8; 8]; 2]`: black's
    // files follow white's) and, for the last file's next ones (cleared
    // after their loads: the step's loop branch tests the file's bit
    // after them, and reached the loop's start by a jump: the isolated
    // pawns out of line, the miss's set-up before them, -0.035%, +4 B),
    // black's first and the byte after them (`pawn_key`'s, within the
    // `repr(C)` position); the position's address is its end less 8 and
    // the files' offset.
    // The prelude: r17:r16 the sum (the entry's score, the incremental
    // score and the tempo), r9:r8 the entry's score, r14 and r15 its
    // passed files, r26 and r27 the officers' units, r12 and r13 the pawn
    // counts, r18 the flags ([`weak_flags`]' and the shields'), as the
    // scan wants them; the scan's start reads the officer bounds and sets
    // up the pawn files' addresses.
    // Registers: X the list, r22 the officer bound (X's offset from the
    // board), r25:r24 the board, Z the
    // square probed, r9:r8 our pawn files, r11:r10 theirs, r12 the shield
    // flags (bit 1 this colour's, bit 2 black's while white is scanned:
    // `flags`' own) and `flags` (bits 4 to 6, shifted down one with the
    // others for black's round; bit 7 set for black's), r15 and r13 the
    // slot layout ([`EvalCtx::slots`], black's on the stack while white
    // is scanned), then the counts of its kinds, r0 our king (black's officer bound
    // read again for its round), r18 the square, r19
    // the kind (then masks), r20 the file, r21 a mask, r23 the first rook
    // (0xFF: none yet), r14 the bishops, r15 a byte read, r17:r16 the sum
    // (`sum` on entry, negated between the colours: black's terms are
    // added to its negation, and the end negates it back).
    // SAFETY: the entry's offset is that of an entry of the cache, and a
    // miss writes only that entry. `Position` is `repr(C)` with its 0x88 board at offset 0 and
    // its two 16-square piece lists at 128; the scan only reads the board,
    // each list's slot 0 and slots 1.. below the officer bound (at most
    // 15 of its 16; the layout's slots are below the root's bound, and a
    // bound never falls below it in the search) and the two 8-byte
    // pawn-file arrays (`[[u8; 8]; 2]`:
    // black's follow white's). r0 is scratch
    // (no `mul` here).
    unsafe {
        core::arch::asm!(
            "    movw r30, r24",
            "    ldd r26, Z+{e_phase}",
            "    cpi r26, {pawn_ending}",
            "    brsh 9f",
            "    subi r30, lo8(-({e_low}))",
            "    sbci r31, hi8(-({e_low}))",
            "    ldd r26, Z+{e_npm0}",
            "    tst r26",
            "    breq 9f",
            "    ldd r26, Z+{e_npm0}+1",
            "    tst r26",
            "    breq 9f",
            "    ldd r26, Z+{e_psq}",
            "    ldd r27, Z+{e_psq}+1",
            "    movw r30, r22",
            "    subi r30, lo8(-({side}))",
            "    sbci r31, hi8(-({side}))",
            "    ld r30, Z",
            "    sbrs r30, 0",
            "    rjmp 1f",
            "    neg r27",
            "    neg r26",
            "    sbc r27, r1",
            "1:  movw r30, r26",
            "    subi r30, lo8(-({lazy_margin}))",
            "    sbci r31, hi8(-({lazy_margin}))",
            "    cp r20, r30",
            "    cpc r21, r31",
            "    brge 8f",
            "    subi r30, lo8(2 * {lazy_margin})",
            "    sbci r31, hi8(2 * {lazy_margin})",
            "    cp r30, r18",
            "    cpc r31, r19",
            "    brlt 7f",
            "8:  movw r24, r26",
            "    ret",
            // Where the lazy exit may not be taken, bounds whose scan
            // window (`full_scan`) holds every score.
            "9:  ldi r20, lo8({no_alpha})",
            "    ldi r21, hi8({no_alpha})",
            "    ldi r18, lo8({no_beta})",
            "    ldi r19, hi8({no_beta})",
            "7:",
            // The scan's registers saved (here, not by the compiler: the
            // lazy exit above returns without them).
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
            // The pawn entry: Z the position's side and pawn key, then
            // the engine's fields; r17:r16 the key, r18 its slot's
            // offset, X the entry.
            "    movw r30, r22",
            "    subi r30, lo8(-({side}))",
            "    sbci r31, hi8(-({side}))",
            "    ldd r16, Z+{pk}",
            "    ldd r17, Z+{pk}+1",
            "    ld r11, Z",
            "    movw r30, r24",
            "    subi r30, lo8(-({low}))",
            "    sbci r31, hi8(-({low}))",
            "    movw r24, r22",
            "    movw r22, r18",
            "    mov r18, r16",
            "    eor r18, r17",
            "    andi r18, {mask}",
            "    mov r19, r18",
            "    lsl r18",
            "    add r18, r19",
            "    lsl r18",
            "    subi r18, lo8(-({cache}))",
            "    movw r26, r30",
            "    add r26, r18",
            "    adc r27, r1",
            "    ld r8, X+",
            "    ld r9, X+",
            "    cp r8, r16",
            "    cpc r9, r17",
            "    brne 198f",
            "    ld r8, X+",
            "    ld r9, X+",
            "    ld r14, X+",
            "    ld r15, X",
            // The prelude.
            "199: ldd r16, Z+{psq}",
            "    ldd r17, Z+{psq}+1",
            "    ldd r26, Z+{npm}",
            "    ldd r27, Z+{npm}+1",
            "    ldd r12, Z+{pawns}",
            "    ldd r13, Z+{pawns}+1",
            "    ldi r18, 0",
            "    subi r16, lo8({ntempo})",
            "    sbci r17, hi8({ntempo})",
            "    sbrs r11, 0",
            "    rjmp 5f",
            "    ldi r18, {btm}",
            "    subi r16, lo8({tempo2})",
            "    sbci r17, hi8({tempo2})",
            // Pawns on both sides (most evaluations): only the shields'
            // flags (the other tests out of line: 5 cycles).
            "5:  tst r12",
            "    breq 180f",
            "    tst r13",
            "    breq 180f",
            "192:",
            "2:  cpi r27, 12",
            "    brlo 3f",
            "    ori r18, {ws}",
            "3:  cpi r26, 12",
            "    brlo 10f",
            "    ori r18, {bs}",
            // The passed pawns (the entry's files in r15:r14): a call, the
            // live registers kept in the scan's saved ones meanwhile.
            "10: add r16, r8",
            "    adc r17, r9",
            "    mov r0, r14",
            "    or r0, r15",
            "    brne 197f",
            // The second lazy exit: the sum, side to move's view, at or
            // beyond the scan's window (the bounds, r21:r20 and r23:r22,
            // less and plus `SCAN_MARGIN`), unless the end would scale it
            // (a weak side: its test out of line, where the flags are set,
            // the bounds there made a window that holds every score: the
            // flags' test here was 3 cycles an evaluation).
            "119: movw r26, r16",
            "    sbrs r18, 6",
            "    rjmp 116f",
            "    neg r27",
            "    neg r26",
            "    sbc r27, r1",
            "116: subi r20, lo8({scan_margin})",
            "    sbci r21, hi8({scan_margin})",
            "    cp r20, r26",
            "    cpc r21, r27",
            "    brge 117f",
            "    subi r22, lo8(-({scan_margin}))",
            "    sbci r23, hi8(-({scan_margin}))",
            "    cp r26, r22",
            "    cpc r27, r23",
            "    brlt 118f",
            "117: movw r16, r26",
            "    rjmp 66f",
            // Far jumps of the entry's miss and the passed pawns (their
            // tests' other outcomes fall through).
            "197: rjmp 120f",
            "198: rjmp 200f",
            // A side without pawns: weak with at most a minor piece.
            "180: tst r12",
            "    brne 1f",
            "    cpi r26, 4",
            "    brsh 1f",
            "    ori r18, {ww}",
            "1:  tst r13",
            "    brne 4f",
            "    cpi r27, 4",
            "    brsh 4f",
            "    ori r18, {bw}",
            // No pawns at all, one side without officers and the other
            // with 5 units or more: the bare king's answer, i16::MIN.
            "4:  or r12, r13",
            "    brne 181f",
            "    tst r26",
            "    brne 7f",
            "    cpi r27, 5",
            "    brsh 8f",
            "    rjmp 181f",
            "7:  tst r27",
            "    brne 181f",
            "    cpi r26, 5",
            "    brlo 181f",
            "8:  rjmp 244f",
            // Otherwise (a weak side?): out of line, after the scan.
            "181: rjmp 281f",
            // The first rook's cases out of line (here, within its branches'
            // reach: the rook falls through on the common path): a hole, a
            // file without our pawn.
            "161: dec r15",
            "    brne 159f",
            "    rjmp 163f",
            "42: movw r30, r10",
            "    add r30, r20",
            "    adc r31, r1",
            "    ld r19, Z",
            "    tst r19",
            "    breq 41f",
            "    subi r16, lo8({half})",
            "    sbci r17, hi8({half})",
            "    rjmp 4f",
            "41: subi r16, lo8({open})",
            "    sbci r17, hi8({open})",
            "    rjmp 4f",
            // The later rooks' cases, by jumps here (their branches'
            // reach; the code is after the slots left): no later rook, a
            // hole, a file without our pawn, a rook below the first, two
            // rooks on a file. (They were between the first rook and the
            // later ones, jumped over: -32,046 cycles, +12 B.)
            "187: rjmp 160f",
            "188: rjmp 43f",
            "189: rjmp 44f",
            "190: rjmp 72f",
            // The scan: the slot layouts (Z the engine's fields), black's
            // kept on the stack meanwhile.
            "118: subi r30, lo8({lay})",
            "    sbci r31, hi8({lay})",
            "    ldd r19, Z+3",
            "    push r19",
            "    ldd r19, Z+2",
            "    push r19",
            "    ld r15, Z",
            "    ldd r13, Z+1",
            "    movw r30, r24",
            "    subi r30, lo8(-({pf}))",
            "    sbci r31, hi8(-({pf}))",
            "    ldd r22, Z+{oe}",
            "    movw r8, r30",
            "    adiw r30, 8",
            "    movw r10, r30",
            "    subi r22, 0x80",
            "    mov r12, r18",
            "    movw r26, r24",
            "    subi r26, 0x80",
            "    sbci r27, 0xFF",
            // A colour: its king (slot 0); its queens skipped, its rooks,
            // bishops and knights by the layout (r15, r13: the counts, then
            // the kind's count down); then the slots left (below r22) one at a
            // time from 168, each through its kind's loop with a count of one
            // (r15 and r13 set for it: the loops had a T flag for this mode,
            // tested at each rook and knight).
            "20: ld r0, X+",
            "    clr r14",
            "    ldi r23, 0xFF",
            "    mov r19, r15",
            "    andi r19, 0x0F",
            "    add r26, r19",
            "    adc r27, r1",
            "    eor r15, r19",
            "    breq 163f",
            "    swap r15",
            "159: ld r18, X+",
            "    cpi r18, 0xFF",
            "    breq 161b",
            // A rook: its file, open or half-open (a file without our pawn
            // out of line, before the scan).
            "40: mov r20, r18",
            "    andi r20, 7",
            "    movw r30, r8",
            "    add r30, r20",
            "    adc r31, r1",
            "    ld r19, Z",
            "    tst r19",
            "    breq 42b",
            // The first rook is kept; each later one (a loop of its own:
            // the first's test was 2 or 3 cycles a rook) is tested
            // against it: a common rank (step 1) or file (16), nothing
            // between.
            "4:  mov r23, r18",
            "    dec r15",
            "    breq 163f",
            "158: ld r18, X+",
            "    cpi r18, 0xFF",
            "    breq 187b",
            "175: mov r20, r18",
            "    andi r20, 7",
            "    movw r30, r8",
            "    add r30, r20",
            "    adc r31, r1",
            "    ld r19, Z",
            "    tst r19",
            "    breq 188b",
            // r21 = |square - first|, r18 the higher square, Z at it (the
            // squares below read with a pre-decrement: the lower one's
            // next square was a carry more): a common rank iff r21 < 8, a
            // common file iff its low nibble is 0 (out of line, by a
            // jump near: most pairs share a rank); the squares between
            // counted down, two a round (84,000 squares of the bench;
            // both -72,002 cycles, +8 B).
            "5:  mov r21, r18",
            "    sub r21, r23",
            "    brcs 189b",
            "6:  movw r30, r24",
            "    add r30, r18",
            "    adc r31, r1",
            "    cpi r21, 8",
            "    brsh 190b",
            "    dec r21",
            "    breq 71f",
            "7:  ld r19, -Z",
            "    tst r19",
            "    brne 162f",
            "    dec r21",
            "    breq 71f",
            "    ld r19, -Z",
            "    tst r19",
            "    brne 162f",
            "    dec r21",
            "    brne 7b",
            "71: subi r16, lo8({conn})",
            "    sbci r17, hi8({conn})",
            // The next rook.
            "162: dec r15",
            "    brne 158b",
            // The bishops counted (a hole's 0xFF sets no carry), two a
            // round (most colours have two: -33,000 cycles, +10 B).
            "163: mov r19, r13",
            "    andi r19, 0x0F",
            "    breq 165f",
            "164: ld r18, X+",
            "    cpi r18, 0xFF",
            "    adc r14, r1",
            "    dec r19",
            "    breq 165f",
            "    ld r18, X+",
            "    cpi r18, 0xFF",
            "    adc r14, r1",
            "    dec r19",
            "    brne 164b",
            "165: mov r19, r13",
            "    swap r19",
            "    andi r19, 0x0F",
            "    breq 168f",
            "    mov r13, r19",
            // A knight: an outpost on relative ranks 4..6 (r19 the square
            // less 0x30 for white, 0x20 for black, below 0x30), guarded
            // by a pawn, no enemy pawn on the next files ahead of it. (A
            // hole, 0xFF, is on none of them: no test of its own, which
            // was 3 cycles a knight.)
            "166: ld r19, X+",
            "170: subi r19, 0x30",
            "    sbrc r12, 7",
            "    subi r19, 0xF0",
            "    cpi r19, 0x30",
            "    brlo 22f",
            "81: dec r13",
            "    brne 166b",
            // The slots left (promoted men, pawns, holes) as they come,
            // below the bound r22 (X's offset from the board).
            "168: mov r19, r26",
            "    sub r19, r24",
            "    cp r19, r22",
            "    brlo 167f",
            // The bishop pair: two bishops or more (r14 >> 1 not 0).
            "9:  lsr r14",
            "    breq 10f",
            "    subi r16, lo8({pair})",
            "    sbci r17, hi8({pair})",
            "10: sbrs r12, 1",
            "    rjmp 60f",
            // The king shield: the king (r18) on its first two ranks
            // (below 0x20, from 0x60 for black; bit 4 the rank's), near
            // and far (r20, r21) the ranks one and two ahead of it.
            "    mov r18, r0",
            "    sbrc r12, 7",
            "    rjmp 51f",
            "    cpi r18, 0x20",
            "    brsh 56f",
            "    ldi r20, 0x02",
            "    sbrc r18, 4",
            "    ldi r20, 0x04",
            "    mov r21, r20",
            "    lsl r21",
            "    rjmp 52f",
            // (Out of line here, in their branches' reach: the slots
            // after the layout's, the knights' outposts; the slots' test
            // falls through to the bishop pair, -46,000 cycles.)
            "56: rjmp 60f",
            "167: rjmp 1f",
            // (The knights' outposts, out of line.) r20 the file, r19 the
            // rank, then m = 1 << rank. White: guards a rank lower (m >> 1),
            // enemy pawns ahead above it (-(m << 1)); black: a rank higher
            // (m << 1), ahead below it (m - 1).
            "22: mov r20, r19",
            "    andi r20, 7",
            "    swap r19",
            "    andi r19, 7",
            "    subi r19, -3",
            "    sbrc r12, 7",
            "    dec r19",
            "    ldi r30, lo8({bit})",
            "    ldi r31, hi8({bit})",
            "    add r30, r19",
            "    adc r31, r1",
            "    lpm r19, Z",
            "    mov r21, r19",
            "    sbrc r12, 7",
            "    rjmp 24f",
            "    lsr r21",
            "    lsl r19",
            "    neg r19",
            "    rjmp 25f",
            "24: lsl r21",
            "    dec r19",
            "25: movw r30, r8",
            "    add r30, r20",
            "    adc r31, r1",
            "    clr r18",
            "    cpi r20, 7",
            "    breq 26f",
            "    ldd r18, Z+1",
            "26: cpi r20, 0",
            "    breq 27f",
            "    ld r15, -Z",
            "    or r18, r15",
            "27: and r18, r21",
            "    breq 81b",
            "    movw r30, r10",
            "    add r30, r20",
            "    adc r31, r1",
            "    clr r18",
            "    cpi r20, 7",
            "    breq 28f",
            "    ldd r18, Z+1",
            "28: cpi r20, 0",
            "    breq 29f",
            "    ld r15, -Z",
            "    or r18, r15",
            "29: and r18, r19",
            "    breq 23f",
            "    rjmp 81b",
            "23: subi r16, lo8({outpost})",
            "    sbci r17, hi8({outpost})",
            "    rjmp 81b",
            // (The king on the edge, out of line: two files, from r18;
            // Z one back: it starts at the second file's label.)
            "55: movw r26, r8",
            "    add r26, r18",
            "    adc r27, r1",
            "    movw r30, r10",
            "    add r30, r18",
            "    adc r31, r1",
            "    sbiw r30, 1",
            "    rjmp 92f",
            "51: cpi r18, 0x60",
            "    brlo 60f",
            "    ldi r20, 0x20",
            "    sbrc r18, 4",
            "    ldi r20, 0x40",
            "    mov r21, r20",
            "    lsr r21",
            // Its file and the next ones on the board (r18 the first; the
            // king's on the edge: two files, out of line; a T flag for it,
            // tested after the addresses, was 3 cycles a shield), each
            // outcome but a pawn one rank ahead out of line (after the
            // colours' round).
            "52: andi r18, 7",
            "    breq 55b",
            "    dec r18",
            "    cpi r18, 6",
            "    breq 55b",
            // X walks our files; Z stays at theirs, read only
            // for a file without a shield pawn (the other files' loads
            // were 2 cycles each of 188,000 in `bench engine`).
            "    movw r26, r8",
            "    add r26, r18",
            "    adc r27, r1",
            "    movw r30, r10",
            "    add r30, r18",
            "    adc r31, r1",
            "    ld r15, X+",
            "    mov r22, r15",
            "    and r22, r20",
            "    breq 95f",
            "    subi r16, lo8({near})",
            "    sbci r17, hi8({near})",
            "92: ld r15, X+",
            "    mov r22, r15",
            "    and r22, r20",
            "    breq 96f",
            "    subi r16, lo8({near})",
            "    sbci r17, hi8({near})",
            "93: ld r15, X+",
            "    mov r22, r15",
            "    and r22, r20",
            "    breq 97f",
            "    subi r16, lo8({near})",
            "    sbci r17, hi8({near})",
            // The sum negated; after white, black's round.
            "60: sbrc r12, 7",
            "    rjmp 61f",
            "    neg r17",
            "    neg r16",
            "    sbc r17, r1",
            "    movw r30, r8",
            "    ldd r22, Z+{oe}+1",
            "    movw r8, r10",
            "    movw r10, r30",
            "    sec",
            "    ror r12",
            "    pop r15",
            "    pop r13",
            "    subi r22, 0x70",
            "    movw r26, r24",
            "    subi r26, 0x70",
            "    sbci r27, 0xFF",
            "    rjmp 20b",
            // The shield's files without a pawn one rank ahead (most
            // without one two ranks ahead either: that case falls
            // through, -23,000 cycles).
            "95: and r15, r21",
            "    brne 85f",
            "    subi r16, lo8({missing})",
            "    sbci r17, hi8({missing})",
            "    ld r23, Z",
            "    tst r23",
            "    brne 92b",
            "    subi r16, lo8({open_file})",
            "    sbci r17, hi8({open_file})",
            "    rjmp 92b",
            "85: subi r16, lo8({far})",
            "    sbci r17, hi8({far})",
            "    rjmp 92b",
            "96: and r15, r21",
            "    brne 86f",
            "    subi r16, lo8({missing})",
            "    sbci r17, hi8({missing})",
            "    ldd r23, Z+1",
            "    tst r23",
            "    brne 93b",
            "    subi r16, lo8({open_file})",
            "    sbci r17, hi8({open_file})",
            "    rjmp 93b",
            "86: subi r16, lo8({far})",
            "    sbci r17, hi8({far})",
            "    rjmp 93b",
            "97: and r15, r21",
            "    brne 87f",
            "    subi r16, lo8({missing})",
            "    sbci r17, hi8({missing})",
            "    ldd r23, Z+2",
            "    tst r23",
            "    brne 60b",
            "    subi r16, lo8({open_file})",
            "    sbci r17, hi8({open_file})",
            "    rjmp 60b",
            "87: subi r16, lo8({far})",
            "    sbci r17, hi8({far})",
            "    rjmp 60b",
            // A slot left: the kind less our bishop's (two steps for
            // black: the carry is the kind's below the bishop's): 0 a
            // bishop, 1 a rook, above the queens (nothing), below the
            // knights and pawns; a pawn ends them. A rook or a knight
            // goes through its loop with a count of one and the counts
            // after it zero, back to 168.
            "1:  ld r18, X+",
            "    cpi r18, 0xFF",
            "    breq 178f",
            "    movw r30, r24",
            "    add r30, r18",
            "    adc r31, r1",
            "    ld r19, Z",
            "    andi r19, 0x0F",
            "    subi r19, {bishop}",
            "    sbrc r12, 7",
            "    subi r19, 6",
            "    breq 3f",
            "    brlo 2f",
            "    cpi r19, 1",
            "    brne 178f",
            "    clr r13",
            "    clr r15",
            "    inc r15",
            "    cpi r23, 0xFF",
            "    brne 177f",
            "    rjmp 40b",
            "177: rjmp 175b",
            "3:  inc r14",
            "178: rjmp 168b",
            "2:  cpi r19, {pawn_less_bishop}",
            "    brne 174f",
            "    rjmp 9b",
            "174: mov r19, r18",
            "    clr r13",
            "    inc r13",
            "    rjmp 170b",
            // Two rooks on a file (out of line: few are), Z the higher
            // one's square.
            "72: mov r19, r21",
            "    andi r19, 0x0F",
            "    brne 75f",
            "    swap r21",
            "    dec r21",
            "    breq 76f",
            "73: sbiw r30, 16",
            "    ld r19, Z",
            "    tst r19",
            "    brne 75f",
            "    dec r21",
            "    brne 73b",
            "76: rjmp 71b",
            "75: rjmp 162b",
            "160: dec r15",
            "    breq 191f",
            "    rjmp 158b",
            "191: rjmp 163b",
            "43: movw r30, r10",
            "    add r30, r20",
            "    adc r31, r1",
            "    ld r19, Z",
            "    tst r19",
            "    breq 176f",
            "    subi r16, lo8({half})",
            "    sbci r17, hi8({half})",
            "    rjmp 5b",
            "176: subi r16, lo8({open})",
            "    sbci r17, hi8({open})",
            "    rjmp 5b",
            "44: neg r21",
            "    mov r18, r23",
            "    rjmp 6b",
            // Otherwise, with a weak side, the shield flags, the sum and
            // the passed pawns' test as above and the scan, without the
            // second lazy exit (the end scales the score); for the passed
            // pawns' return to it, bounds whose scan window holds every
            // score.
            "281: mov r19, r18",
            "    andi r19, {ww} | {bw}",
            "    brne 282f",
            "    rjmp 192b",
            "282: ldi r20, lo8({no_alpha})",
            "    ldi r21, hi8({no_alpha})",
            "    ldi r22, lo8({no_beta})",
            "    ldi r23, hi8({no_beta})",
            "    cpi r27, 12",
            "    brlo 184f",
            "    ori r18, {ws}",
            "184: cpi r26, 12",
            "    brlo 185f",
            "    ori r18, {bs}",
            "185: add r16, r8",
            "    adc r17, r9",
            "    mov r0, r14",
            "    or r0, r15",
            "    breq 283f",
            "    rjmp 120f",
            "283: rjmp 118b",
            // The passed pawns (out of line: most evaluations have none),
            // [`passed_side`] and [`passed`] by hand, added to the sum
            // (black's to it negated): r15 and r14 black's and white's
            // passed files, r27 and r26 the officers' units, r18 the
            // flags (bit 6 black to move); X our pawn files, r14 the passed
            // files left (shifted down), r12 the file, r11 the facts
            // (`PASSED_BLACK` ...; r10 black's), r9 and r8 our and their
            // king, r19 the pawn's square, then the square in front of
            // it, r13 its relative rank, T blocked, r0 and Z scratch. The
            // position, the bounds and the flags (r25:r24, r21:r20,
            // r23:r22, r18) are kept.
            "120: push r30",
            "    push r31",
            "    mov r30, r26",
            "    add r30, r27",
            "    ldi r31, 0",
            "    cpi r30, 27",
            "    brsh 121f",
            "    ldi r31, {p_endgame}",
            "121: ldi r30, {p_black}",
            "    or r30, r31",
            "    sbrs r18, 6",
            "    rjmp 122f",
            "    ori r31, {p_dtm}",
            "    rjmp 123f",
            "122: ori r30, {p_dtm}",
            "123: tst r27",
            "    brne 124f",
            "    ori r31, {p_bare}",
            "124: tst r26",
            "    brne 125f",
            "    ori r30, {p_bare}",
            "125: mov r11, r31",
            "    mov r10, r30",
            "    movw r30, r24",
            "    subi r30, 0x80",
            "    sbci r31, 0xFF",
            "    ld r9, Z",
            "    ldd r8, Z+16",
            "    movw r26, r24",
            "    subi r26, lo8(-({pf}))",
            "    sbci r27, hi8(-({pf}))",
            "    clr r12",
            "    tst r14",
            "    breq 126f",
            "    rcall 130f",
            // Black's round: its files (X back to file 0, then 8 on), facts
            // and kings, the sum negated.
            "126: mov r14, r15",
            "    tst r14",
            "    breq 127f",
            "    sub r26, r12",
            "    sbc r27, r1",
            "    adiw r26, 8",
            "    mov r11, r10",
            "    mov r0, r9",
            "    mov r9, r8",
            "    mov r8, r0",
            "    neg r17",
            "    neg r16",
            "    sbc r17, r1",
            "    rcall 130f",
            "    neg r17",
            "    neg r16",
            "    sbc r17, r1",
            "127: pop r31",
            "    pop r30",
            "    rjmp 119b",
            // A colour's round: the files from 0 up to its last passed one.
            "130: clr r12",
            "    rjmp 131f",
            "132: ret",
            "133: inc r12",
            "    tst r14",
            "    breq 132b",
            "131: ld r19, X+",
            "    lsr r14",
            "    brcc 133b",
            "    tst r19",
            "    breq 133b",
            // The front pawn's rank: white's highest bit, black's lowest.
            "    sbrc r11, 0",
            "    rjmp 135f",
            "    ldi r30, 7",
            "134: lsl r19",
            "    brcs 137f",
            "    dec r30",
            "    rjmp 134b",
            "135: ldi r30, 0",
            "136: lsr r19",
            "    brcs 137f",
            "    inc r30",
            "    rjmp 136b",
            "137: mov r19, r30",
            "    swap r19",
            "    or r19, r12",
            "    mov r13, r30",
            "    sbrs r11, 0",
            "    rjmp 138f",
            "    ldi r30, 7",
            "    sub r30, r13",
            "    mov r13, r30",
            "    subi r19, 16",
            "    rjmp 139f",
            "138: subi r19, 0xF0",
            // Blocked: the square in front not empty.
            "139: movw r30, r24",
            "    add r30, r19",
            "    adc r31, r1",
            "    ld r0, Z",
            "    clt",
            "    tst r0",
            "    breq 140f",
            "    set",
            "140: ldi r30, lo8({mg})",
            "    ldi r31, hi8({mg})",
            "    sbrs r11, 1",
            "    rjmp 141f",
            "    ldi r30, lo8({eg})",
            "    ldi r31, hi8({eg})",
            "141: add r30, r13",
            "    adc r31, r1",
            "    lpm r0, Z",
            "    brtc 142f",
            "    asr r0",
            "142: clr r30",
            "    sbrc r0, 7",
            "    com r30",
            "    add r16, r0",
            "    adc r17, r30",
            // The endgame from relative rank 3: 4 a step of their king
            // from the square in front, less 2 a step of ours.
            "    sbrs r11, 1",
            "    rjmp 150f",
            "    mov r30, r13",
            "    cpi r30, 3",
            "    brlo 150f",
            "    mov r0, r8",
            "    sub r0, r19",
            "    brpl 143f",
            "    neg r0",
            "143: ldi r30, lo8({nearness})",
            "    ldi r31, hi8({nearness})",
            "    add r30, r0",
            "    adc r31, r1",
            "    lpm r0, Z",
            "    lsl r0",
            "    lsl r0",
            "    subi r16, lo8({n28})",
            "    sbci r17, hi8({n28})",
            "    sub r16, r0",
            "    sbc r17, r1",
            "    mov r0, r9",
            "    sub r0, r19",
            "    brpl 144f",
            "    neg r0",
            "144: ldi r30, lo8({nearness})",
            "    ldi r31, hi8({nearness})",
            "    add r30, r0",
            "    adc r31, r1",
            "    lpm r0, Z",
            "    lsl r0",
            "    subi r16, 14",
            "    sbci r17, 0",
            "    add r16, r0",
            "    adc r17, r1",
            // Against a bare king, the quadrant rule.
            "150: sbrs r11, 2",
            "    rjmp 133b",
            "    mov r30, r12",
            "    sbrs r11, 0",
            "    ori r30, 0x70",
            "    mov r0, r30",
            "    sub r0, r8",
            "    brpl 151f",
            "    neg r0",
            "151: ldi r30, lo8({nearness})",
            "    ldi r31, hi8({nearness})",
            "    add r30, r0",
            "    adc r31, r1",
            "    lpm r0, Z",
            "    ldi r30, 7",
            "    sub r30, r0",
            "    sbrs r11, 3",
            "    rjmp 152f",
            "    tst r30",
            "    breq 152f",
            "    dec r30",
            "152: ldi r31, 7",
            "    sub r31, r13",
            "    mov r0, r13",
            "    dec r0",
            "    brne 153f",
            "    dec r31",
            "153: cp r31, r30",
            "    brsh 154f",
            "    subi r16, lo8({n500})",
            "    sbci r17, hi8({n500})",
            "154: rjmp 133b",
            // A miss: the key stored, the entry (after it), the engine's
            // fields and the bounds kept in r9:r8, r11:r10, r13:r12, r14
            // and the stack while the files are walked (Z from the
            // position's white files; the side read again after it;
            // the walk by a jump: its loop's own branches reach it).
            "200: movw r8, r26",
            "    st -X, r17",
            "    st -X, r16",
            "    movw r10, r30",
            "    movw r12, r20",
            "    mov r14, r22",
            "    push r23",
            "    movw r30, r24",
            "    subi r30, lo8(-({pf}))",
            "    sbci r31, hi8(-({pf}))",
            "    clr r24",
            "    clr r25",
            "    clr r16",
            "    clr r15",
            "    ldi r17, 1",
            "    clr r20",
            "    clr r21",
            "    ld r18, Z+",
            "    ldd r19, Z+7",
            "    ld r22, Z+",
            "    ldd r23, Z+7",
            "    rjmp 201f",
            // A white file of two pawns or more (out of line): the
            // doubled ones, then the isolated and the connected counted.
            "211: subi r24, lo8({doubled})",
            "    sbci r25, hi8({doubled})",
            "    mov r0, r26",
            "    dec r0",
            "    and r26, r0",
            "    brne 211b",
            "    mov r26, r20",
            "    or r26, r22",
            "    breq 209f",
            "    mov r27, r26",
            "    lsl r27",
            "    or r27, r26",
            "    and r27, r18",
            "    breq 208f",
            "216: subi r24, lo8({wconn})",
            "    sbci r25, hi8({wconn})",
            "    mov r0, r27",
            "    dec r0",
            "    and r27, r0",
            "    brne 216b",
            "208: rjmp 217f",
            // (An isolated white pawn, out of line: most are connected.)
            "209: mov r27, r18",
            "    tst r19",
            "    brne 214f",
            "213: subi r24, lo8({iso_open})",
            "    sbci r25, hi8({iso_open})",
            "    mov r0, r27",
            "    dec r0",
            "    and r27, r0",
            "    brne 213b",
            "    rjmp 217f",
            "214: subi r24, lo8({iso})",
            "    sbci r25, hi8({iso})",
            "    mov r0, r27",
            "    dec r0",
            "    and r27, r0",
            "    brne 214b",
            "    rjmp 217f",
            // White: a file of one pawn here (two or more out of line).
            "201:  tst r18",
            "    breq 220f",
            "    mov r26, r18",
            "    dec r26",
            "    and r26, r18",
            "    brne 211b",
            // Isolated: each pawn, more on a file without black pawns.
            "    mov r26, r20",
            "    or r26, r22",
            "    breq 209b",
            // Connected: beside a pawn of a next file or guarded by one
            // (the file's one pawn).
            "215: mov r27, r26",
            "    lsl r27",
            "    or r27, r26",
            "    and r27, r18",
            "    breq 217f",
            "    subi r24, lo8({wconn})",
            "    sbci r25, hi8({wconn})",
            // Passed: no black pawn of the three files above its top bit.
            "217: mov r26, r21",
            "    or r26, r19",
            "    or r26, r23",
            "    cp r18, r26",
            "    brsh 218f",
            "    eor r26, r18",
            "    cp r18, r26",
            "    brsh 218f",
            // Black, the same with the signs and directions turned.
            "220: tst r19",
            "    breq 230f",
            "    mov r26, r19",
            "    dec r26",
            "    and r26, r19",
            "    brne 222f",
            "    mov r26, r21",
            "    or r26, r23",
            "    breq 229f",
            "226: mov r27, r26",
            "    lsr r27",
            "    or r27, r26",
            "    and r27, r19",
            "    breq 228f",
            "    subi r24, lo8({nconn})",
            "    sbci r25, hi8({nconn})",
            // Passed: no white pawn of the three files below its lowest bit
            // (the bits below it: (B ^ (B - 1)) >> 1).
            "228: mov r26, r20",
            "    or r26, r18",
            "    or r26, r22",
            "    mov r27, r19",
            "    dec r27",
            "    eor r27, r19",
            "    lsr r27",
            "    and r27, r26",
            "    breq 219f",
            // The next file (none after h: N set by the shift to bit 7).
            "230: lsl r17",
            "    breq 240f",
            "    movw r20, r18",
            "    movw r18, r22",
            "    ld r22, Z+",
            "    ldd r23, Z+7",
            "    brpl 201b",
            "    clr r22",
            "    clr r23",
            "    sbiw r30, 1",
            "    rjmp 201b",
            // (Passed front pawns, out of line: few are; their tests'
            // branches were taken for the others, -77,000 cycles.)
            "218: or r16, r17",
            "    rjmp 220b",
            "219: or r15, r17",
            "    rjmp 230b",
            // (An isolated black pawn, out of line.)
            "229: mov r27, r19",
            "    tst r18",
            "    brne 225f",
            "224: subi r24, lo8({niso_open})",
            "    sbci r25, hi8({niso_open})",
            "    mov r0, r27",
            "    dec r0",
            "    and r27, r0",
            "    brne 224b",
            "    rjmp 228b",
            "225: subi r24, lo8({niso})",
            "    sbci r25, hi8({niso})",
            "    mov r0, r27",
            "    dec r0",
            "    and r27, r0",
            "    brne 225b",
            "    rjmp 228b",
            // A black file of two pawns or more (as white's).
            "222: subi r24, lo8({ndoubled})",
            "    sbci r25, hi8({ndoubled})",
            "    mov r0, r26",
            "    dec r0",
            "    and r26, r0",
            "    brne 222b",
            "    mov r26, r21",
            "    or r26, r23",
            "    breq 229b",
            "    mov r27, r26",
            "    lsr r27",
            "    or r27, r26",
            "    and r27, r19",
            "    breq 206f",
            "227: subi r24, lo8({nconn})",
            "    sbci r25, hi8({nconn})",
            "    mov r0, r27",
            "    dec r0",
            "    and r27, r0",
            "    brne 227b",
            "206: rjmp 228b",
            "240:",
            "    movw r26, r8",
            "    st X+, r24",
            "    st X+, r25",
            "    st X+, r16",
            "    st X, r15",
            "    movw r8, r24",
            "    mov r22, r14",
            "    pop r23",
            "    mov r14, r16",
            "    sbiw r30, {pf} + 8 - {side}",
            "    movw r26, r30",
            "    movw r30, r10",
            "    ld r11, X",
            "    subi r26, lo8({side})",
            "    sbci r27, hi8({side})",
            "    movw r24, r26",
            "    movw r20, r12",
            "    rjmp 199b",
            // A bare king (out of line): [`evaluation`]'s case by hand around [`mating_avr`]'s call: the sum
            // and the flags kept in saved registers (r17:r16, r12; the
            // call's own frame was 0.4% of the KBNK bench).
            "244: subi r30, lo8({low})",
            "    sbci r31, hi8({low})",
            "    movw r22, r30",
            "    mov r12, r18",
            "    ldi r20, 0",
            "    sbrc r18, 4",
            "    ldi r20, 1",
            "    call {bk}",
            "    add r16, r24",
            "    adc r17, r25",
            "    brmi 241f",
            "    mov r0, r16",
            "    or r0, r17",
            "    breq 243f",
            "    sbrc r12, 4",
            "    rjmp 242f",
            "    rjmp 243f",
            "241: sbrs r12, 5",
            "    rjmp 243f",
            "242: asr r17",
            "    ror r16",
            "    asr r17",
            "    ror r16",
            "    asr r17",
            "    ror r16",
            "243: sbrs r12, 6",
            "    rjmp 66f",
            "    neg r17",
            "    neg r16",
            "    sbc r17, r1",
            "    rjmp 66f",
            // Scaled towards a draw when the side ahead cannot win (r12
            // bit 3 white, bit 4 black): the sum back to white's point of
            // view, then negated when black is to move (bit 5).
            "67: neg r17",
            "    neg r16",
            "    sbc r17, r1",
            "    tst r17",
            "    brmi 62f",
            "    mov r18, r16",
            "    or r18, r17",
            "    breq 64f",
            "    sbrs r12, 3",
            "    rjmp 64f",
            "    rjmp 63f",
            "62: sbrs r12, 4",
            "    rjmp 64f",
            "63: asr r17",
            "    ror r16",
            "    asr r17",
            "    ror r16",
            "    asr r17",
            "    ror r16",
            "64: sbrs r12, 5",
            "    rjmp 65f",
            "    rjmp 69f",
            // The sum is black's after its round: the answer when black
            // is to move and nothing is scaled (the two negations of the
            // other order were 6 cycles: -0.05%, +12 B).
            "61: mov r18, r12",
            "    andi r18, 0x18",
            "    brne 67b",
            "    sbrc r12, 5",
            "    rjmp 65f",
            "69: neg r17",
            "    neg r16",
            "    sbc r17, r1",
            "65:",
            "66: movw r24, r16",
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
            bit = sym BIT,
            lay = const LOW.wrapping_sub(LAY) as u16,
            bishop = const BISHOP,
            pawn_less_bishop = const PAWN.wrapping_sub(BISHOP),
            half = const 0u16.wrapping_sub(w!(ROOK_HALF_OPEN) as u16),
            open = const 0u16.wrapping_sub(w!(ROOK_OPEN) as u16),
            conn = const 0u16.wrapping_sub(w!(ROOKS_CONNECTED) as u16),
            outpost = const 0u16.wrapping_sub(w!(OUTPOST) as u16),
            pair = const 0u16.wrapping_sub(w!(BISHOP_PAIR) as u16),
            near = const 0u16.wrapping_sub(SHIELD_NEAR as u16),
            far = const 0u16.wrapping_sub(SHIELD_FAR as u16),
            missing = const SHIELD_MISSING as u16,
            open_file = const SHIELD_OPEN as u16,
            low = const LOW,
            psq = const PSQ - LOW,
            npm = const NPM - LOW,
            pawns = const PAWNS - LOW,
            ww = const WHITE_WEAK,
            bw = const BLACK_WEAK,
            ws = const WHITE_SHIELD,
            bs = const BLACK_SHIELD,
            btm = const BLACK_TO_MOVE,
            bk = sym mating_avr,
            ntempo = const 0u16.wrapping_sub(TEMPO as u16),
            tempo2 = const 2 * TEMPO as u16,
            mg = sym PASSED_MG,
            eg = sym PASSED_EG,
            nearness = sym NEARNESS,
            n28 = const 0u16.wrapping_sub(28),
            n500 = const 0u16.wrapping_sub(500),
            p_black = const PASSED_BLACK,
            p_endgame = const PASSED_ENDGAME,
            p_bare = const PASSED_BARE,
            p_dtm = const PASSED_DEFENDER_TO_MOVE,
            mask = const PAWN_CACHE - 1,
            cache = const CACHE - LOW,
            doubled = const DOUBLED as u16,
            iso_open = const ISOLATED_OPEN as u16,
            iso = const ISOLATED as u16,
            wconn = const 0u16.wrapping_sub(CONNECTED as u16),
            ndoubled = const 0u16.wrapping_sub(DOUBLED as u16),
            niso_open = const 0u16.wrapping_sub(ISOLATED_OPEN as u16),
            niso = const 0u16.wrapping_sub(ISOLATED as u16),
            nconn = const CONNECTED as u16,
            pk = const Position::PAWN_KEY_OFFSET - Position::SIDE_OFFSET,
            scan_margin = const SCAN_MARGIN,
            no_alpha = const (i16::MIN + SCAN_MARGIN) as u16,
            no_beta = const (i16::MAX - SCAN_MARGIN) as u16,
            e_phase = const E_PHASE,
            pawn_ending = const Phase::PawnEnding as u8,
            e_low = const E_LOW,
            e_npm0 = const NPM - E_LOW,
            e_psq = const PSQ - E_LOW,
            lazy_margin = const LAZY_MARGIN,
            inout("r25r24") engine as *const Engine as usize => t,
            inout("r23r22") pos as *const Position as usize => _,
            side = const Position::SIDE_OFFSET,
            oe = const Position::OFFICER_END_OFFSET - Position::PAWN_FILES_OFFSET,
            pf = const Position::PAWN_FILES_OFFSET,
            out("Z") _,
            inout("r21r20") alpha => _,
            inout("r19r18") beta => _,
            out("r26") _,
            out("r27") _,
        );
    }
    t as i16
}

/// Scales a white-point-of-view score `s` (incremental + dynamic) towards a
/// draw when the side ahead has no pawns and at most one minor piece.
#[inline]
pub fn scale_draw(s: i16, npm: [u8; 2], pawns: [u8; 2]) -> i16 {
    if s > 0 && pawns[0] == 0 && npm[0] <= 3 || s < 0 && pawns[1] == 0 && npm[1] <= 3 {
        s >> 3
    } else {
        s
    }
}

/// [`passed`]'s facts of a colour's passed pawns, a byte (the function
/// had nine arguments, kept across `passed_side`'s loop in 14 saved
/// registers).
const PASSED_BLACK: u8 = 1;
const PASSED_ENDGAME: u8 = 2;
/// The enemy has no officers: the quadrant rule.
const PASSED_BARE: u8 = 4;
/// The enemy, the defender, is to move.
const PASSED_DEFENDER_TO_MOVE: u8 = 8;

/// Value of a passed pawn on `sq`, of the colour and in the case `facts`
/// say ([`PASSED_BLACK`] ...).
#[inline(never)]
fn passed(pos: &Position, sq: Square, facts: u8) -> i16 {
    let black = facts & PASSED_BLACK != 0;
    let endgame = facts & PASSED_ENDGAME != 0;
    let r = rank_of(sq);
    let rr = if black { 7 - r } else { r };
    let (my_king, their_king) = if black {
        (pos.king_square(Color::Black), pos.king_square(Color::White))
    } else {
        (pos.king_square(Color::White), pos.king_square(Color::Black))
    };
    let mut b = passed_bonus(endgame, (rr & 7) as usize);
    let front = if black { sq - 16 } else { sq + 16 };
    if !pos.is_empty(front) {
        b >>= 1; // blocked
    }
    if endgame && rr >= 3 {
        b += w!(PASSED_THEIR_KING) * distance(their_king, front) as i16 - w!(PASSED_OWN_KING) * distance(my_king, front) as i16;
    }
    if facts & PASSED_BARE != 0 {
        // Quadrant rule: can the defending king still catch it?
        let promo = if black { sq & 7 } else { 0x70 | (sq & 7) };
        let mut steps = 7 - rr;
        if rr == 1 {
            steps -= 1;
        }
        let mut kd = distance(their_king, promo);
        if facts & PASSED_DEFENDER_TO_MOVE != 0 {
            kd = kd.saturating_sub(1);
        }
        if kd > steps {
            b += 500;
        }
    }
    b
}

/// Empty squares seen along the four rays from `first` (0 diagonals, 4 orthogonals).
#[cfg_attr(target_arch = "avr", allow(dead_code))]
#[inline]
fn mobility(pos: &Position, sq: Square, first: usize) -> u8 {
    let mut n = 0u8;
    for d in first..first + 4 {
        let step = RAYS.get(d) as u8;
        let mut s = sq.wrapping_add(step);
        while on_board(s) && pos.piece_at(s) == EMPTY {
            n += 1;
            s = s.wrapping_add(step);
        }
    }
    n
}

/// Two rooks on a common rank or file with nothing between them.
#[cfg_attr(target_arch = "avr", allow(dead_code))]
fn connected(pos: &Position, a: Square, b: Square) -> bool {
    let step: u8 = if rank_of(a) == rank_of(b) {
        1
    } else if file_of(a) == file_of(b) {
        16
    } else {
        return false;
    };
    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
    let mut s = lo + step;
    while s < hi {
        if !pos.is_empty(s) {
            return false;
        }
        s += step;
    }
    true
}

/// KBNK weights: the strong king and the knight near the weak king (by
/// king steps), and each escape square (next to the weak king, free, not
/// nearer the right corner) taken away. Measured with `cargo xtask
/// endgames --host --host-nps 950 --endings kbnk --positions 40` (10 s a
/// move, Stockfish defending), positions mated of 40 on seeds 1 and 2:
/// corner and kings only (before) 28 and 26; the king and knight terms
/// added, 31 on seed 1; escape squares at 5: 36 and 31; at 10 (these
/// weights): 38 and 37; at 15: 37 and 34; at 20: 36 and 31; at 40: 11 on
/// seed 1. With escapes at 20, on seed 1: only the squares farther from
/// the corner, at 30, 34; the king at 24, 32; king and knight at 12 and
/// 12, 31, at 6 and 0, 30; 30 more for the strong king farther from the
/// corner than the weak one, 32 (29 on seed 2); and the search did not
/// help: the null move, LMR and pruning off 36; no check extensions or
/// quiescence checks 29; no root tolerance 28; 30 s a move 31. The
/// failures are shuffles with the weak king in mid-edge.
/// On the emulated image (`--elf`, 10 s a move), mated before, with
/// escapes at 20, at 10: seed 1, 10 positions, 6, 10, 10; seed 2, 30
/// positions, 18, 25, 27 (against before: 11 gained, 2 lost). Not yet
/// every position, as issue 6 asks.
/// Once late-move pruning stopped in these endings (`search.rs`,
/// `LMP_MOVES`), the knight's weight came down from 6 to 3: against the
/// tablebase's defence, 200 positions each on seeds 11, 12, 13, 194, 185,
/// 193 mated against 184, 181, 175 (knight 0: 190, 2: 183, 4: 193 and 190
/// on seeds 11 and 13; knight 12: 172). The optimal lines take the knight
/// away from the weak king for the W-manoeuvre. With knight 3, on seed 13
/// (193): escapes 5 or 15, 185; king 8, 177, 16, 183; corner 30, 171, 50,
/// 162.
/// After the root's changes against a bare king (`search.rs`,
/// `ROOT_RESEARCH` and `BETA_TRIM`), seeds 18 to 20 (600 positions, 577
/// mated, 0.458 plies to mate lost a move by the tables): escapes 5, 563
/// and 0.586; 15, 554 and 0.584; corner 34, 506 and 0.669; 48, 570 and
/// 0.548. Before those changes (561 mated): the centre term 0 in KBNK,
/// 495; 20, 555; 30 more for the strong king farther from the right
/// corner than the weak one, 566; 60, 556. The mean distance to mate by
/// the weak king's square (over all placements of the strong men, from
/// the tables: 14.3 moves in the right corner, 25.2 in the wrong one,
/// 28.2 in the centre; the xtask test
/// `kbnk_mean_distance_to_mate_by_lone_king_square` checks them) in place
/// of the corner and centre terms, 12 a half-move: 98 mated, 1.68 plies
/// lost a move. It is flat in the centre and along the edge next to the
/// wrong corner, where the search needs a slope to follow.
/// A quicker measure than play-outs, tried and dropped: the evaluation's
/// own choice two plies deep (the strong move whose worst reply
/// evaluates best), judged by the tables (the xtask test
/// `kbnk_two_ply_choice_ranks_the_weights_against_the_play_outs`, 1,794
/// positions with 10 or more plies to mate): 2.60 plies to mate lost a
/// position with these weights. It prefers the king at 18 (2.41), the
/// knight at 0 (2.42), escapes at 15 (2.44) and the corner at 34 (2.48),
/// all of which mated fewer positions above, and rates the corner at 48
/// about the same (2.61).
/// Searched deeper these weights mate fewer, odd depths worst (fixed
/// depths, seeds 18 and 19: depth 6 400 of 400, 7 382, 8 392), though
/// they lose fewer plies to mate a move: the failures are 25-move
/// shuffles on a plateau (the lone king on an edge between the corners,
/// the root's choices within 10 to 25 of each other) that the tables'
/// defence holds, so the search stops at depth 6 here (`search.rs`,
/// `run`). Weighed again deeper, seed 18 at depth 7 and at 2,150 nps
/// (these weights 194 and 197 of 200): the king at 16, 189 and 187; the
/// strong king's centre distance at -6, 198 and 184; escapes by the side
/// to move (10 with the lone king to move), 5 or 15 with the strong side
/// to move, 190 and 157 at 2,150 (seed 19 at depth 7: these weights 188,
/// 191, 165); 15 with the lone king to move, 175 (and 188). At depth 6, seed 22
/// (197): the knight at 2 or 4, 199 and 198 (2 on seeds 18 to 21: 790
/// against 800); the king 11 or 13, 199 and 197; escapes 9, 196.
/// Terms for the three left (seed 22, the strong king behind an
/// edge-bound lone king), host at 1,800 nps, seeds 18 to 22 (these
/// weights 997 of 1,000, 0.448 plies lost a move): most mate the three
/// and lose others, none more. The strong king's centre distance at -6,
/// 833 (0.670). Its corner slope less the lone king's (-2..=2) at 10,
/// 553; -10, 983; -5, 995; -3, 987; -5 for behind only, 995; that
/// with the lone king on an edge in the far half (slope at most 4),
/// 994. The strong king nearer the centre than the lone king along the
/// edge's normal (-2..=1): 20, 992; 10 or 5 on an edge in the far half,
/// 994 (0.439) and 996; 5 on an edge at slope at most 3, 973; 5 within
/// a square of an edge (far half), 997 (two of the three still fail).
/// 10 for it two squares in (the W-manoeuvre's), 981; 20, 958. The
/// corner at 42, 989; 44, 995. The failures are long mates (optimum 21 to 31 moves)
/// lost by a few moves each: the spread of the plies lost, not one
/// pattern.
/// Fitted to the tables, at 2,440 nps (seeds 18 to 22: these weights 997,
/// 0.443; 23 to 27: 999, 0.442; seeds 22 and 18: 397 of 400, 0.43),
/// worse: least squares on the distance to mate over all won positions
/// (R^2 0.59; for the corner's 40, centre 33, Manhattan 9, king 26,
/// knight 5, escapes 20), 64 of 400 (1.67 plies lost a move); on the
/// choice among a position's moves after the tables' reply (the best
/// one 54% of the time, these weights 44%: centre 72, Manhattan 28,
/// king 41, knight 14, escapes 30), 45 (1.80); the residual by the lone
/// king's square is about 64 less 20 a corner step (a weaker corner).
/// With it on an edge at slope 4 or more (35% of the plies lost), king,
/// Manhattan and knight 6, 3, 3 more there, 267; 3, 2, 1, 349; king and
/// Manhattan 3, 2 less, 326; escapes 7 there, 398 (0.487). Its being on
/// an edge at 20, 367; all its free squares at 5, 341; the bishop's
/// nearness at 3, 396 (0.513); -2 x the kings' distance squared, 396
/// (0.430). In `search.rs` for KBNK: the root tolerance 0, 8, 12: 649
/// of 800, 376, 398 (0.492); depth 7, 375; depth 7 from the 31st move,
/// 999 (0.443) but 996 on 23 to 27 (0.444); the root's quiet moves in
/// one pass, 998 and 998 (0.444); those near the king last, 154 of 200.
/// The tables defend alike in like positions, so play-outs meet the same
/// ones: on 18 to 22 the 25 costliest (position, move) pairs up to
/// symmetry (`endgames --dump`) lose 6,554 of the 13,746 plies, Kc4 for
/// Bf4 (28 plies to mate for 26) with Kc5, Bb8, Nb4 against Kb2 612
/// times (the search finds Bf4 at depth 8: 83,848 nodes, 3.4 times the
/// 10 s budget at 2,440 nps).
/// A penalty at the horizon for a (strong king, lone king) pair the game
/// already had with the strong side to move (host at 2,548 nps, seeds 18
/// to 22): 20, 931 mated; 60, 944; for pairs seen twice, 980 and 987; at
/// depth 8 on seeds 18 and 19, 386 (392 without).
/// Terms only with the lone king on an edge at slope 3 or 4, where the
/// shuffles are (host, `--ties random`, seeds 18 to 22: these weights 991
/// mated, 0.445 plies lost a move): the knight on the edge square next to
/// it towards the wrong corner, 15, 980 (0.504); the strong king two
/// squares in, in opposition or a knight's move towards the wrong corner,
/// 10, 942 (0.495); that edge square free, -10, 961 (0.533). A term that
/// exists only there makes the plateau stickier. Seen in the dumps (the
/// dark bishop's frame, the lone king on d8 or e8): the knight parked on
/// c5 (covering only what the king holds) carries most of the plies lost
/// there; the tables play the knight c7-d5-e7 with the king on c6 and d6.
/// These weights against the tables' random ties (seeds 18 to 22, 991):
/// the knight at 2, 969, at 5, 964; escapes 8, 980, 13, 972; the king
/// at 14, 981 (the plies lost a move worse in each).
const KBNK_KING: i16 = 12;
const KBNK_KNIGHT: i16 = 3;
const KBNK_ESCAPE: i16 = 10;
/// KBNK: a man the lone king is nearer than its own king, while that king
/// is more than 3 squares from the lone king, costs this for each square
/// the lone king stands within 3 of it (1 to 3). Such a man is one the
/// lone king can hunt down together with the other before the strong king
/// comes back: in `3k4/8/8/8/6K1/8/6n1/5b2 b` the depth-6 search played
/// Kd8-c7 (or, at depth 8, Kd8-e7), after which the tables win a man by
/// force in 9 plies; with this it saves the bishop first (Bf1-c4) and
/// mates. Host, 2,548 nps, tables' defence with random ties, with the
/// 200-entry book: seeds 18-47 6,000 of 6,000 mated, 0.170 plies to mate
/// lost a move (0.170 without it, and that fork the one failure). Not
/// while the strong king is near: unconditioned (40 a square within 3)
/// seeds 18-36 failed 5 of 3,800 (fifty-move shuffles), 0.230.
const KBNK_LOOSE: i16 = 40;

/// Manhattan distance from `sq` to the nearer corner of colour `colour`
/// ([`square_colour`]: 0 = a1/h8, 1 = h1/a8). (The tests' reference:
/// [`mating`] compares [`corner_slope`]s.)
#[cfg(test)]
fn corner_distance(sq: Square, colour: u8) -> u8 {
    let f = if colour == 0 { file_of(sq) } else { 7 - file_of(sq) };
    let d = f + rank_of(sq);
    if d > 7 {
        14 - d
    } else {
        d
    }
}

/// 7 less the Manhattan distance from `sq` to the nearer corner of the
/// colour that `flip` names (0: a1/h8, 7: h1/a8; `7 - file` is `file ^
/// 7`): the diagonal's distance from the long diagonal of the other
/// colour. (`corner_distance` in its place, out of line, 8 calls an
/// evaluation: 2.5% of the KBNK bench; inlined, 1.5% less.)
#[inline(always)]
pub(crate) fn corner_slope(sq: Square, flip: u8) -> u8 {
    (((sq & 7) ^ flip) + (sq >> 4)).abs_diff(7)
}

/// Does the strong side of KBNK (king `sk`, bishop `b`, knight `n`)
/// attack `s`, a square next to the weak king `wk`? Exactly as
/// [`Position::is_square_attacked`] answers with these four men alone
/// on the board (no man attacks its own square; the bishop's ray is
/// blocked by the three others). (The host's [`kbnk_escapes`].)
#[cfg(not(target_arch = "avr"))]
fn kbnk_attacked(s: Square, sk: Square, b: Square, n: Square, wk: Square) -> bool {
    if crate::chess::is_adjacent(sk, s) {
        return true;
    }
    // A knight's jump: the file and rank differences 1 and 2.
    if file_of(s).abs_diff(file_of(n)) * rank_of(s).abs_diff(rank_of(n)) == 2 {
        return true;
    }
    let df = file_of(b) as i8 - file_of(s) as i8;
    let dr = rank_of(b) as i8 - rank_of(s) as i8;
    if df == 0 || df.unsigned_abs() != dr.unsigned_abs() {
        return false;
    }
    // From `s` towards the bishop: the first man met.
    let step = (if dr > 0 { 16u8 } else { 0xF0 }).wrapping_add(if df > 0 { 1 } else { 0xFF });
    let mut x = s;
    loop {
        x = x.wrapping_add(step);
        if x == b {
            return true;
        }
        if x == sk || x == n || x == wk {
            return false;
        }
    }
}

/// The weak king's escape squares in KBNK (king `sk`, bishop `b`,
/// knight `n` and the weak king `wk` alone on the board): the squares
/// next to `wk` whose [`corner_slope`] (with `flip`) is at most `a`
/// (no nearer the corner) that the strong men do not attack, as
/// [`escapes`] counts them. (Host: by [`kbnk_attacked`].)
#[cfg(not(target_arch = "avr"))]
fn kbnk_escapes(wk: Square, sk: Square, b: Square, n: Square, flip: u8, a: u8) -> u8 {
    let mut count = 0;
    for r in 0..8 {
        let s = wk.wrapping_add(RAYS.get(r) as u8);
        if on_board(s) && corner_slope(s, flip) <= a && !kbnk_attacked(s, sk, b, n, wk) {
            count += 1;
        }
    }
    count
}

/// The weak king's escape squares (as [`kbnk_escapes`]) whatever the
/// strong men: by [`Position::is_square_attacked`]. (The AVR's
/// [`mating`] calls it for more than one bishop or knight only.)
fn escapes(pos: &Position, wk: Square, sc: Color, flip: u8, a: u8) -> u8 {
    let mut count = 0;
    for r in 0..8 {
        let s = wk.wrapping_add(RAYS.get(r) as u8);
        if on_board(s) && corner_slope(s, flip) <= a && !pos.is_square_attacked(s, sc) {
            count += 1;
        }
    }
    count
}

/// Mating evaluation against a bare king (white's point of view): the
/// weak king is driven to the edge (KQK, KRK, ...) or, with bishop and
/// knight, to a corner of the bishop's colour, its escape squares taken
/// away; the strong king comes close. Out of line: inlined, the rare
/// bare-king path took registers and frame from every evaluation. The
/// strong men from the officers' slots only, not all 15 (KBNK bench
/// 158,422,270 -> 151,030,034 cycles, -4.7%, -24 B). With bishop and
/// knight alone, the escape squares by [`kbnk_escapes`]. (The host's;
/// the AVR's is in assembly.)
#[cfg(not(target_arch = "avr"))]
#[inline(never)]
fn mating(pos: &Position, ctx: &EvalCtx, strong: usize) -> i16 {
    let _ = ctx;
    let (sc, wc) = if strong == 0 {
        (Color::White, Color::Black)
    } else {
        (Color::Black, Color::White)
    };
    let wk = pos.king_square(wc);
    let sk = pos.king_square(sc);
    let mut bonus = 12 * centre_distance(wk) as i16 + 6 * (14 - manhattan(sk, wk) as i16);
    // Bishop and knight only: the right corner.
    let mut bishop = NO_SQUARE;
    let mut knight = NO_SQUARE;
    let mut others = 0u8;
    let mut men = 0u8;
    // (No pawns here: the officers' slots hold all the strong men.)
    for &sq in &pos.piece_list(sc)[1..pos.officer_end(sc) as usize] {
        if sq == NO_SQUARE {
            continue;
        }
        men += 1;
        match kind_of(pos.piece_at(sq)) {
            BISHOP => bishop = sq,
            KNIGHT => knight = sq,
            _ => others += 1,
        }
    }
    if others == 0 && bishop != NO_SQUARE && knight != NO_SQUARE {
        let flip = if square_colour(bishop) == 0 { 0 } else { 7 };
        // 7 less the corner distance.
        let a = corner_slope(wk, flip);
        let free = if men == 2 {
            kbnk_escapes(wk, sk, bishop, knight, flip, a)
        } else {
            escapes(pos, wk, sc, flip, a)
        };
        let far = distance(sk, wk) > 3;
        let loose = |x: Square| {
            let d = distance(wk, x);
            if far && d < 4 && d < distance(sk, x) {
                (4 - d) as i16
            } else {
                0
            }
        };
        bonus += 40 * (7 + a as i16)
            + KBNK_KING * (7 - distance(sk, wk) as i16)
            + KBNK_KNIGHT * (7 - distance(knight, wk) as i16)
            - KBNK_ESCAPE * free as i16
            - KBNK_LOOSE * (loose(bishop) + loose(knight));
    }
    if strong == 0 {
        bonus
    } else {
        -bonus
    }
}

/// The rays ([`RAYS`], bit by ray) whose squares next to a king are no
/// nearer the corner ([`corner_slope`] at most the king's): by `flip`
/// (0, 7: 0 and 3 on) and the sign of the king's slope before its
/// absolute value (`(file ^ flip) + rank - 7`; above 0, below, 0).
/// A ray's step changes that by -2..=2, so the square is no nearer
/// exactly when the change is 0 or of the other sign. The AVR's
/// [`mating`] tests a square's bit in place of its slope (14 cycles).
#[cfg_attr(not(target_arch = "avr"), allow(dead_code))]
const ESCAPE_RAYS: [u8; 6] = [0x37, 0xCE, 0x06, 0x5B, 0xAD, 0x09];

/// [`escapes`] for the AVR's [`mating`] (C ABI, its assembly calls
/// it): `af` holds `a` in its low nibble, `flip` in its high one.
#[cfg(target_arch = "avr")]
#[inline(never)]
extern "C" fn escapes_avr(pos: &Position, wk: Square, strong: u8, af: u8) -> u8 {
    let sc = if strong == 0 { Color::White } else { Color::Black };
    escapes(pos, wk, sc, af >> 4, af & 15)
}

/// [`mating`] on the AVR, in assembly but for the escape squares of
/// more than one bishop or knight ([`escapes_avr`], a call): the
/// compiled Rust was 732 B and 685 cycles a call besides its callees,
/// 119,000 calls of `is_square_attacked` (121 cycles each, 9.5% of the
/// KBNK bench) and 207,000 of `corner_distance` (19 each). The terms as
/// the host's: the centre distance by reflecting file and rank into
/// 4..=7; the king's corner distance by [`corner_slope`], its squares'
/// by [`ESCAPE_RAYS`]; the escape squares' attacks by the four men's squares as [`kbnk_attacked`] (the king's
/// by the 0x88 difference plus 17, `attacked_after`'s test; the
/// knight's by the difference's absolute value; the bishop's by a walk
/// from the square towards it). The callee-saved registers few and the
/// answer negated inside (a Rust tail kept the position and `strong`
/// in a frame: 1.1% of the KBNK bench).
#[cfg(target_arch = "avr")]
#[inline(never)]
fn mating(pos: &Position, ctx: &EvalCtx, strong: usize) -> i16 {
    let _ = ctx;
    let bonus: u16;
    // Registers: r25:r24 the position (then the square's file and
    // rank, at the end the answer), r20 `strong` (then the bishop; the
    // T flag keeps `strong`, the stack across the call), r17:r16 the bonus, r18 the strong king, r19 the
    // weak king (r14 its file, r15 its rank, then the bishop's file
    // less and plus its rank), r21
    // the knight, r13 the men (then `a`), r12 the slots (then the kings' nearness, then `flip`),
    // r31 the square, r30 the step; r22 and
    // r23 temporaries; X the lists, then RAYS; Z the board.
    // SAFETY: reads the piece list of the strong side up to its officer
    // bound, the board at its squares, both kings' slots, the officer
    // bound, RAYS and NEARNESS; calls escapes_avr (C ABI) with its arguments, the registers it
    // may change declared.
    unsafe {
        core::arch::asm!(
            "    bst r20, 0",
            "    movw r26, r24",
            "    subi r26, 0x80",
            "    sbci r27, 0xFF",
            "    ld r18, X",
            "    adiw r26, 16",
            "    ld r19, X",
            "    movw r30, r24",
            "    subi r30, lo8({oe_n})",
            "    sbci r31, hi8({oe_n})",
            "    add r30, r20",
            "    adc r31, r1",
            "    ld r12, Z",
            "    tst r20",
            "    brne 1f",
            "    sbiw r26, 16",
            "    rjmp 2f",
            "1:  mov r22, r18",
            "    mov r18, r19",
            "    mov r19, r22",
            "2:  adiw r26, 1",
            "    mov r22, r19",
            "    andi r22, 7",
            "    mov r14, r22",
            "    mov r22, r19",
            "    swap r22",
            "    andi r22, 15",
            "    mov r15, r22",
            // 12 x the centre distance: file and rank reflected into
            // 4..=7 (complemented below 4), less 4.
            "    mov r22, r14",
            "    sbrs r22, 2",
            "    com r22",
            "    andi r22, 3",
            "    mov r23, r15",
            "    sbrs r23, 2",
            "    com r23",
            "    andi r23, 3",
            "    add r22, r23",
            "    ldi r23, 12",
            "    mul r22, r23",
            "    movw r16, r0",
            // 6 x (14 less the kings' Manhattan distance).
            "    mov r22, r18",
            "    mov r23, r18",
            "    swap r23",
            "    andi r22, 7",
            "    andi r23, 15",
            "    sub r22, r14",
            "    brpl 61f",
            "    neg r22",
            "61: sub r23, r15",
            "    brpl 62f",
            "    neg r23",
            "62: add r22, r23",
            "    ldi r23, 6",
            "    mul r22, r23",
            "    sub r16, r0",
            "    sbc r17, r1",
            "    clr r1",
            "    subi r16, lo8({n84})",
            "    sbci r17, hi8({n84})",
            // The strong men: bishops and knights only, the last of each.
            "    clr r13",
            "    ldi r20, 0xFF",
            "    ldi r21, 0xFF",
            "    dec r12",
            "    breq 19f",
            "11: ld r22, X+",
            "    cpi r22, 0xFF",
            "    breq 18f",
            "    inc r13",
            "    movw r30, r24",
            "    add r30, r22",
            "    adc r31, r1",
            "    ld r23, Z",
            "    andi r23, {code_mask}",
            "    cpi r23, {black_offset}+1",
            "    brlo 12f",
            "    subi r23, {black_offset}",
            "12: cpi r23, {bishop}",
            "    brne 13f",
            "    mov r20, r22",
            "    rjmp 18f",
            "13: cpi r23, {knight}",
            "    brne 90f",
            "    mov r21, r22",
            "18: dec r12",
            "    brne 11b",
            "19: cpi r20, 0xFF",
            "    breq 90f",
            "    cpi r21, 0xFF",
            "    brne 20f",
            "90: rjmp 99f",
            // KBNK: king and knight by 7 less their distances to the
            // weak king (NEARNESS by the absolute 0x88 difference; the
            // file and rank differences, a call: 0.16% more cycles).
            "20: mov r22, r18",
            "    sub r22, r19",
            "    brpl 23f",
            "    neg r22",
            "23: ldi r30, lo8({nearness})",
            "    ldi r31, hi8({nearness})",
            "    add r30, r22",
            "    adc r31, r1",
            "    lpm r22, Z",
            "    mov r12, r22",
            "    ldi r23, {king}",
            "    mul r22, r23",
            "    add r16, r0",
            "    adc r17, r1",
            "    mov r22, r21",
            "    sub r22, r19",
            "    brpl 24f",
            "    neg r22",
            "24: ldi r30, lo8({nearness})",
            "    ldi r31, hi8({nearness})",
            "    add r30, r22",
            "    adc r31, r1",
            "    lpm r22, Z",
            "    ldi r23, {knight_w}",
            "    mul r22, r23",
            "    add r16, r0",
            "    adc r17, r1",
            "    clr r1",
            "    subi r16, lo8({n_kbnk})",
            "    sbci r17, hi8({n_kbnk})",
            // Loose men ([`KBNK_LOOSE`]), the strong king more than 3
            // squares away (its nearness, kept in r12 above, below 4):
            // the bishop, then the knight (X: the man, the count), 40 x
            // (nearness to the weak king less 3) if that is above 0 and
            // above the strong king's.
            "    mov r22, r12",
            "    cpi r22, 4",
            "    brsh 79f",
            "    mov r26, r20",
            "    ldi r27, 2",
            "72: mov r22, r26",
            "    sub r22, r19",
            "    brpl 73f",
            "    neg r22",
            "73: ldi r30, lo8({nearness})",
            "    ldi r31, hi8({nearness})",
            "    add r30, r22",
            "    adc r31, r1",
            "    lpm r23, Z",
            "    cpi r23, 4",
            "    brlo 76f",
            "    mov r22, r26",
            "    sub r22, r18",
            "    brpl 74f",
            "    neg r22",
            "74: ldi r30, lo8({nearness})",
            "    ldi r31, hi8({nearness})",
            "    add r30, r22",
            "    adc r31, r1",
            "    lpm r22, Z",
            "    cp r22, r23",
            "    brsh 76f",
            "    subi r23, 3",
            "    ldi r22, {loose}",
            "    mul r23, r22",
            "    sub r16, r0",
            "    sbc r17, r1",
            "    clr r1",
            "76: mov r26, r21",
            "    dec r27",
            "    brne 72b",
            "79:",
            // `flip` 7 for a bishop on an odd square (file + rank); 40 a.
            "    mov r22, r20",
            "    swap r22",
            "    eor r22, r20",
            "    andi r22, 1",
            "    neg r22",
            "    andi r22, 7",
            "    mov r12, r22",
            "    eor r22, r14",
            "    add r22, r15",
            "    subi r22, 7",
            "    brpl 21f",
            "    neg r22",
            "21: ldi r23, 40",
            "    mul r22, r23",
            "    add r16, r0",
            "    adc r17, r1",
            "    clr r1",
            // More than one bishop or knight: escapes_avr counts.
            "    mov r23, r13",
            "    mov r13, r22",
            "    cpi r23, 2",
            "    breq 30f",
            "    mov r18, r12",
            "    swap r18",
            "    or r18, r13",
            "    mov r22, r19",
            "    clr r20",
            "    bld r20, 0",
            "    push r20",
            "    call {escapes}",
            "    pop r23",
            "    bst r23, 0",
            "    ldi r22, {esc}",
            "    mul r24, r22",
            "    sub r16, r0",
            "    sbc r17, r1",
            "    clr r1",
            "    rjmp 99f",
            // The escape squares: on the board, no nearer the corner,
            // not attacked.
            // The rays whose squares are no nearer the corner (r13,
            // ESCAPE_RAYS by `flip` and the sign of the king's slope).
            "30: ldi r23, {m_up}",
            "    ldi r24, {m_down}",
            "    ldi r25, {m_level}",
            "    tst r12",
            "    breq 45f",
            "    ldi r23, {f_up}",
            "    ldi r24, {f_down}",
            "    ldi r25, {f_level}",
            "45: mov r22, r12",
            "    eor r22, r14",
            "    add r22, r15",
            "    subi r22, 7",
            "    brmi 46f",
            "    breq 47f",
            "    mov r13, r23",
            "    rjmp 48f",
            "46: mov r13, r24",
            "    rjmp 48f",
            "47: mov r13, r25",
            "48: mov r22, r20",
            "    andi r22, 7",
            "    mov r23, r20",
            "    swap r23",
            "    andi r23, 15",
            "    mov r14, r22",
            "    sub r14, r23",
            "    mov r15, r22",
            "    add r15, r23",
            "    ldi r26, lo8({rays})",
            "    ldi r27, hi8({rays})",
            "31: ld r31, X+",
            "    lsr r13",
            "    brcc 39f",
            "    add r31, r19",
            "    mov r22, r31",
            "    andi r22, 0x88",
            "    brne 39f",
            // The knight: |n - s| is 14, 18, 31 or 33.
            "    mov r22, r21",
            "    sub r22, r31",
            "    brpl 34f",
            "    neg r22",
            "34: cpi r22, 14",
            "    breq 39f",
            "    cpi r22, 18",
            "    breq 39f",
            "    cpi r22, 31",
            "    breq 39f",
            "    cpi r22, 33",
            "    breq 39f",
            // The king: sk - s + 17 at most 34, its low nibble at most 2.
            "    mov r22, r18",
            "    sub r22, r31",
            "    subi r22, 0xEF",
            "    cpi r22, 35",
            "    brsh 40f",
            "    andi r22, 15",
            "    cpi r22, 3",
            "    brsh 40f",
            "    rjmp 39f",
            "38: subi r16, {esc}",
            "    sbci r17, 0",
            "39: tst r13",
            "    brne 31b",
            "    rjmp 99f",
            // The bishop: on its diagonal (file less rank as its, r14:
            // steps of 17) or antidiagonal (file plus rank, r15: 15),
            // not on the square; the step (r30) from the square towards
            // it (up when the bishop's square is the greater), the first
            // man met.
            "40: mov r24, r31",
            "    andi r24, 7",
            "    mov r25, r31",
            "    swap r25",
            "    andi r25, 15",
            "    mov r22, r24",
            "    sub r22, r25",
            "    cp r22, r14",
            "    brne 42f",
            "    ldi r30, 17",
            "    rjmp 43f",
            "42: mov r22, r24",
            "    add r22, r25",
            "    cp r22, r15",
            "    brne 38b",
            "    ldi r30, 15",
            "43: cp r31, r20",
            "    breq 38b",
            "    brlo 44f",
            "    neg r30",
            "44:",
            "    mov r22, r31",
            "41: add r22, r30",
            "    cp r22, r20",
            "    breq 39b",
            "    cp r22, r18",
            "    breq 38b",
            "    cp r22, r21",
            "    breq 38b",
            "    cp r22, r19",
            "    brne 41b",
            "    rjmp 38b",
            // Black strong: negated.
            "99: movw r24, r16",
            "    brtc 98f",
            "    neg r25",
            "    neg r24",
            "    sbc r25, r1",
            "98:",
            oe_n = const 0u16.wrapping_sub(Position::OFFICER_END_OFFSET as u16),
            n84 = const 0u16.wrapping_sub(84),
            n_kbnk = const 0u16.wrapping_sub(40 * 7),
            nearness = sym NEARNESS,
            code_mask = const CODE_MASK,
            black_offset = const BLACK_OFFSET,
            bishop = const BISHOP,
            knight = const KNIGHT,
            king = const KBNK_KING,
            knight_w = const KBNK_KNIGHT,
            esc = const KBNK_ESCAPE,
            loose = const KBNK_LOOSE,
            m_up = const ESCAPE_RAYS[0],
            m_down = const ESCAPE_RAYS[1],
            m_level = const ESCAPE_RAYS[2],
            f_up = const ESCAPE_RAYS[3],
            f_down = const ESCAPE_RAYS[4],
            f_level = const ESCAPE_RAYS[5],
            rays = sym RAYS,
            escapes = sym escapes_avr,
            inout("r25r24") pos as *const Position as usize => bonus,
            inout("r20") strong as u8 => _,
            out("r12") _, out("r13") _, out("r14") _, out("r15") _,
            out("r16") _, out("r17") _, out("r18") _, out("r19") _,
            out("r21") _, out("r22") _, out("r23") _,
            out("r26") _, out("r27") _, out("r30") _, out("r31") _,
            options(readonly),
        );
    }
    bonus as i16
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::weights::{CONNECTED, DOUBLED, ISOLATED, ISOLATED_OPEN};

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen.as_bytes()).unwrap()
    }

    #[test]
    fn the_avr_psq_table_holds_the_base_tables() {
        use crate::engine::weights::{pawn_eg_rank, pst, PST88, PST88_BIAS};
        for kind in 0..6usize {
            for i in 0..64usize {
                let sq = (i / 8) * 16 + i % 8;
                let at = (kind / 2) * 128 + (kind % 2) * 8 + sq;
                assert_eq!(PST88.get(at) as i16 - PST88_BIAS, pst(kind * 64 + i));
            }
        }
        for r in 0..8 {
            assert_eq!(PST88.get(384 + r) as i16 - PST88_BIAS, pawn_eg_rank(r));
        }
    }

    #[test]
    fn nearness_by_the_absolute_0x88_difference_is_7_less_the_distance() {
        for a in 0..64u8 {
            for b in 0..64u8 {
                let (a, b) = (square(a & 7, a >> 3), square(b & 7, b >> 3));
                let diff = (b as i8).wrapping_sub(a as i8).unsigned_abs();
                assert_eq!(NEARNESS.get(diff as usize), 7 - distance(a, b), "{a:#x} {b:#x}");
            }
        }
    }

    #[test]
    fn corner_distance_is_to_the_nearer_corner_of_the_colour() {
        assert_eq!(corner_distance(A1, 0), 0);
        assert_eq!(corner_distance(H8, 0), 0);
        assert_eq!(corner_distance(A8, 0), 7);
        assert_eq!(corner_distance(square(6, 6), 0), 2);
        assert_eq!(corner_distance(A8, 1), 0);
        assert_eq!(corner_distance(H1, 1), 0);
        assert_eq!(corner_distance(A1, 1), 7);
        assert_eq!(corner_distance(square(1, 6), 1), 2);
    }

    #[test]
    fn the_corner_slope_is_7_less_the_corner_distance() {
        for i in 0..64u8 {
            let sq = square(i & 7, i >> 3);
            assert_eq!(corner_slope(sq, 0), 7 - corner_distance(sq, 0));
            assert_eq!(corner_slope(sq, 7), 7 - corner_distance(sq, 1));
        }
    }

    #[test]
    fn the_escape_rays_are_the_squares_no_nearer_the_corner() {
        for i in 0..64u8 {
            let wk = square(i & 7, i >> 3);
            for flip in [0u8, 7] {
                let u = ((wk & 7) ^ flip) as i8 + (wk >> 4) as i8 - 7;
                let k = if flip == 0 { 0 } else { 3 } + if u > 0 { 0 } else if u < 0 { 1 } else { 2 };
                let a = corner_slope(wk, flip);
                for r in 0..8 {
                    let s = wk.wrapping_add(RAYS.get(r) as u8);
                    if on_board(s) {
                        assert_eq!(ESCAPE_RAYS[k] >> r & 1 != 0, corner_slope(s, flip) <= a, "{wk:#x} {flip} {r}");
                    }
                }
            }
        }
    }

    /// KBNK's escape squares by the four men's squares (the AVR's
    /// [`mating`] tests them so in assembly) as `is_square_attacked`
    /// finds them, for either colour strong, on 40,000 placements.
    #[test]
    fn kbnk_escapes_answer_like_the_attack_scan() {
        let mut seed = 0x2545_F491u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            (seed % 64) as u8
        };
        let mut tested = 0;
        while tested < 40_000 {
            let sqs = [next(), next(), next(), next()];
            if (1..4).any(|i| sqs[..i].contains(&sqs[i])) {
                continue;
            }
            let [wk, sk, b, n] = sqs.map(|i| square(i & 7, i >> 3));
            if distance(wk, sk) < 2 {
                continue;
            }
            let black_strong = tested % 2 == 1;
            let mut board = [b'1'; 64];
            let men = if black_strong { [b'K', b'k', b'b', b'n'] } else { [b'k', b'K', b'B', b'N'] };
            for (i, &m) in sqs.iter().zip(men.iter()) {
                board[*i as usize] = m;
            }
            let mut fen = String::new();
            for r in (0..8).rev() {
                for f in 0..8 {
                    fen.push(board[r * 8 + f] as char);
                }
                if r > 0 {
                    fen.push('/');
                }
            }
            fen.push_str(if black_strong { " w - - 0 1" } else { " b - - 0 1" });
            let p = pos(&fen);
            let sc = if black_strong { Color::Black } else { Color::White };
            for flip in [0, 7] {
                let a = corner_slope(wk, flip);
                assert_eq!(kbnk_escapes(wk, sk, b, n, flip, a), escapes(&p, wk, sc, flip, a), "{fen}");
                // Every square next to the king, whatever its slope.
                assert_eq!(kbnk_escapes(wk, sk, b, n, flip, 7), escapes(&p, wk, sc, flip, 7), "{fen}");
            }
            tested += 1;
        }
    }

    #[test]
    fn kbnk_drives_to_the_bishops_corner_and_takes_escape_squares() {
        let white = |fen: &str| {
            let p = pos(fen);
            mating(&p, &EvalCtx::from_position(&p), 0)
        };
        // The dark bishop's corners are a1 and h8: the weak king on b2
        // (two steps from a1) is worth more to White than on b7 (seven
        // from both), the king and knight as near it.
        let near = white("8/8/8/8/3NK3/2B5/1k6/8 b - - 0 1");
        let far = white("8/1k6/8/3NK3/8/2B5/8/8 b - - 0 1");
        assert!(near > far + 150, "{near} {far}");
        // King e8: d8, d7, e7 and f7 are no nearer h8; the king on e6
        // holds d7 to f7. The knight on c6 also takes d8, the one on g6
        // (as near the king) takes only f8 and e7.
        let d8_taken = white("4k3/8/2N1K3/8/8/8/8/B7 b - - 0 1");
        let d8_free = white("4k3/8/4K1N1/8/8/8/8/B7 b - - 0 1");
        assert_eq!(d8_taken - d8_free, KBNK_ESCAPE);
    }

    #[test]
    fn pawn_structure_by_files() {
        // White: a2 and a3 doubled and isolated on a file without black
        // pawns, a3 passed. Black: h7 isolated and passed.
        let p = pos("4k3/7p/8/8/8/P7/P7/4K3 w - - 0 1");
        let pi = pawn_info(&p);
        assert_eq!(pi.score, (-12 - 2 * 16) - (-16));
        assert_eq!(pi.passed, [0b0000_0001, 0b1000_0000]);
        assert_eq!(pi.key, p.pawn_key());
        // A black pawn on b5 stops a3 from being passed; b5 itself is
        // isolated on a file without white pawns, and not passed: the a
        // pawns lie ahead of it on the next file.
        let p = pos("4k3/7p/8/1p6/8/P7/P7/4K3 w - - 0 1");
        let pi = pawn_info(&p);
        assert_eq!(pi.passed, [0, 0b1000_0000]);
        assert_eq!(pi.score, (-12 - 2 * 16) - (-16 - 16));
    }

    #[test]
    fn connected_pawns_earn_a_bonus() {
        // White c3 is guarded by b2 and d2 (one connected pawn; the guards
        // themselves are not); black f5 and g5 stand side by side (two).
        // None is doubled or isolated (passed pawns are scored apart).
        let p = pos("4k3/8/8/5pp1/8/2P5/1P1P4/4K3 w - - 0 1");
        let pi = pawn_info(&p);
        assert_eq!(pi.score, CONNECTED - 2 * CONNECTED);
        // Apart, nothing is connected: d3 and f3 leave e empty between them
        // and both are isolated.
        let p = pos("4k3/8/8/8/8/3P1P2/8/4K3 w - - 0 1");
        assert_eq!(pawn_info(&p).score, -2 * 16);
    }

    /// The AVR build's walk of [`pawn_info`] in Rust: both colours a file
    /// at a time, a front pawn passed by comparisons instead of a smeared
    /// mask.
    fn pawn_walk(pos: &Position) -> (i16, [u8; 2]) {
        let (wf, bf) = (pos.pawn_files(Color::White), pos.pawn_files(Color::Black));
        let file = |f: &[u8; 8], i: i32| if (0..8).contains(&i) { f[i as usize] } else { 0 };
        let mut score = 0i16;
        let mut passed = [0u8; 2];
        for i in 0..8i32 {
            let (w, b) = (wf[i as usize], bf[i as usize]);
            let (wl, bl, wr, br) = (file(wf, i - 1), file(bf, i - 1), file(wf, i + 1), file(bf, i + 1));
            if w != 0 {
                score -= DOUBLED * (w & (w - 1)).count_ones() as i16;
                let adj = wl | wr;
                if adj == 0 {
                    score -= if b == 0 { ISOLATED_OPEN } else { ISOLATED } * w.count_ones() as i16;
                }
                score += CONNECTED * (w & (adj | adj << 1)).count_ones() as i16;
                let o = bl | b | br;
                if !(w < o && w < w ^ o) {
                    passed[0] |= 1 << i;
                }
            }
            if b != 0 {
                score += DOUBLED * (b & (b - 1)).count_ones() as i16;
                let adj = bl | br;
                if adj == 0 {
                    score += if w == 0 { ISOLATED_OPEN } else { ISOLATED } * b.count_ones() as i16;
                }
                score -= CONNECTED * (b & (adj | adj >> 1)).count_ones() as i16;
                let o = wl | w | wr;
                if o & b.wrapping_sub(1) & !b == 0 {
                    passed[1] |= 1 << i;
                }
            }
        }
        (score, passed)
    }

    #[test]
    fn the_avr_pawn_walk_answers_like_the_pawn_files() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..40 {
            let fen = "r3k2r/pPpp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";
            crate::chess::random_game(fen, 60, &mut seed, |p| {
                let pi = pawn_info(p);
                assert_eq!(pawn_walk(p), (pi.score, pi.passed));
            });
        }
        for fen in ["4k3/7p/8/1p6/8/P7/P7/4K3 w - - 0 1", "4k3/8/8/5pp1/8/2P5/1P1P4/4K3 w - - 0 1", crate::chess::START_FEN] {
            let p = pos(fen);
            let pi = pawn_info(&p);
            assert_eq!(pawn_walk(&p), (pi.score, pi.passed));
        }
    }

    /// The AVR scan's premise ([`EvalCtx::slots`]): the slots of a
    /// root's layout hold its kinds or nothing, below the officer bound,
    /// everywhere in the tree under it.
    fn layout_holds(p: &Position, layout: &[[u8; 2]; 2]) {
        for (c, color) in [Color::White, Color::Black].into_iter().enumerate() {
            let [a, b] = layout[c];
            let mut slot = 1usize;
            for (n, kind) in [(a & 15, QUEEN), (a >> 4, ROOK), (b & 15, BISHOP), (b >> 4, KNIGHT)] {
                for _ in 0..n {
                    let sq = p.piece_list(color)[slot];
                    assert!(sq == NO_SQUARE || kind_of(p.piece_at(sq)) == kind, "slot {slot} of {layout:?}");
                    slot += 1;
                }
            }
            assert!(slot <= p.officer_end(color) as usize);
        }
    }

    /// Every node `depth` plies under `p` checked against the layouts of
    /// all the nodes above it (and its own).
    fn layout_tree(p: &mut Position, depth: u8, layouts: &mut Vec<[[u8; 2]; 2]>) {
        layouts.push(EvalCtx::from_position(p).slots);
        for l in layouts.iter() {
            layout_holds(p, l);
        }
        if depth > 0 {
            let mut gen = crate::chess::MoveGen::new();
            while let Some(m) = gen.next_legal(p) {
                let undo = p.make_move(m);
                layout_tree(p, depth - 1, layouts);
                p.unmake_move(m, &undo);
            }
        }
        layouts.pop();
    }

    #[test]
    fn the_root_slot_layout_holds_under_the_root() {
        assert_eq!(slot_layout(&pos(crate::chess::START_FEN), Color::Black), [0x21, 0x22]);
        // From roots of random games rich in captures and promotions
        // (promoted men in pawn slots, holes), with their makes and
        // unmakes (the officer bound raised and lowered).
        let mut seed = 0x0123_4567_89AB_CDEFu64;
        let mut roots = Vec::new();
        let fens = [
            "r3k2r/pPpp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        ];
        for fen in fens {
            for _ in 0..8 {
                let mut ply = 0;
                crate::chess::random_game(fen, 48, &mut seed, |p| {
                    if ply % 6 == 0 {
                        roots.push(p.clone());
                    }
                    ply += 1;
                });
            }
        }
        for mut root in roots {
            layout_tree(&mut root, 2, &mut Vec::new());
        }
    }

    #[test]
    fn the_pawn_cache_answers_like_the_pawn_files() {
        // Random games from a position rich in pawn captures, promotions
        // and en passant: every cached answer equals the one from scratch.
        // (Unless two pawn structures met share a 16-bit key, the entry
        // of the other still in its slot: one pair does with 16 slots.)
        let mut e = Engine::new();
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut seen = std::collections::HashMap::new();
        for _ in 0..40 {
            let fen = "r3k2r/pPpp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1";
            crate::chess::random_game(fen, 60, &mut seed, |p| {
                let files = (*p.pawn_files(Color::White), *p.pawn_files(Color::Black));
                let first = *seen.entry(p.pawn_key()).or_insert(files);
                if first != files {
                    // Filled afresh: the entry is the other structure's.
                    e.pawn_cache[(p.pawn_key() as u8 ^ (p.pawn_key() >> 8) as u8) as usize % PAWN_CACHE].key ^= 1;
                    seen.insert(p.pawn_key(), files);
                }
                assert_eq!(e.pawn_info(p), pawn_info(p));
            });
        }
    }
}

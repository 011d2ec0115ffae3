//! Attack detection, looking outward from the attacked square.
//!
//! The core routine can pretend a move has been made without touching the
//! board: two squares may be treated as vacated and one as newly occupied.
//! That is what makes the legality test exact for king moves, pins and the
//! en-passant rank pin, without make/unmake.

use super::piece::*;
use super::position::Position;
use super::square::*;
use super::Move;
#[cfg(not(target_arch = "avr"))]
use super::MoveKind;

/// 0x88 step offsets: 0..4 diagonal, 4..8 orthogonal, 8..16 knight jumps.
const DIRECTION_OFFSETS: [i8; 16] = [-17, -15, 15, 17, -16, -1, 1, 16, -33, -31, -18, -14, 14, 18, 31, 33];

crate::progmem! {
    /// [`DIRECTION_OFFSETS`]. (The chess core's AVR assembly reads its
    /// copy at the end of [`GEOMETRY`]'s page.)
    pub(crate) static DIRECTIONS: [i8; 16] = DIRECTION_OFFSETS;
}

/// [`geometry`] bits: on a diagonal, on a rank or file, a knight's jump
/// apart, diagonally adjacent (a pawn's capture, either direction).
const DIAGONAL: u8 = 1;
const STRAIGHT: u8 = 2;
pub(crate) const JUMP: u8 = 4;
const NEXT_DIAGONAL: u8 = 8;
pub(crate) const LINE: u8 = DIAGONAL | STRAIGHT;

/// By piece code: the [`geometry`] bits from which that man can attack
/// (a superset: blockers are not looked at). Kings never give check.
const REACH_BITS: [u8; 16] = {
    let mut t = [0u8; 16];
    let mut c = 0;
    while c < 2 {
        let o = c * BLACK_OFFSET as usize;
        t[o + PAWN as usize] = NEXT_DIAGONAL;
        t[o + KNIGHT as usize] = JUMP;
        t[o + BISHOP as usize] = DIAGONAL;
        t[o + ROOK as usize] = STRAIGHT;
        t[o + QUEEN as usize] = LINE;
        c += 1;
    }
    t
};

crate::progmem! {
    /// [`REACH_BITS`]. (The AVR's assembly here reads its copy in
    /// [`FLASH_PAGES`]; the engine's, this one.)
    pub(crate) static REACH: [u8; 16] = REACH_BITS;
}

/// The AVR's flash tables that want a page of their own, just below
/// [`GEOMETRY`] (section `.progmem.geometry`, which holds these two
/// alone, this one first: the linker keeps them in definition order, and
/// their names sort the same way): [`GEOMETRY`] then starts a 256-byte
/// page, so an entry's address is the page in the high byte and an 8-bit
/// sum or difference in the low one, no carry (and `see`'s scan reads it
/// so, without a copy of its own). That, with REACH's copy here: `bench
/// engine` 0.34% fewer cycles, 68 B less flash (see's page gone, this
/// block's padding, 153 B now, in its place); the square keys' own page,
/// each key one `mov` and one `ldi` away: 0.20% more, 32 B less.
#[cfg(target_arch = "avr")]
#[repr(C, align(256))]
pub(crate) struct FlashPages {
    /// Zobrist's square keys, the first page: 4 * index64 is the low
    /// byte of a key's address.
    pub(crate) square_keys: crate::progmem::Table<u32, 64>,
    /// The second page starts here, with a byte before the generator's
    /// RAYS: a step, the entry's index plus one, is the entry's low byte.
    rays_before: u8,
    pub(crate) rays: crate::progmem::Table<i8, 23>,
    pub(crate) ray_start: crate::progmem::Table<u8, 7>,
    ray_start_after: u8,
    /// Tables of the chess core's alone, here in the space before the
    /// pad rather than before the block, whose padding grows as the
    /// flash before it shrinks: 118 B less flash on average (276 B at
    /// 63,490 B, the block a page lower). RAYS and RAY_START here:
    /// `bench engine` 0.10% fewer cycles.
    pub(crate) piece_kinds: crate::progmem::Table<u32, 12>,
    pub(crate) ep_keys: crate::progmem::Table<u32, 8>,
    pub(crate) castling_files: crate::progmem::Table<u8, 8>,
    /// Zeros, 0x88 bytes below [`GEOMETRY`]: the AVR's `attacked_after`
    /// reads an empty slot's (0xFF's) entry of `sq` at GEOMETRY + `sq` -
    /// 0x88, a 0 that passes the man over, so the slot needs no test of
    /// its own (`bench engine` 0.098% fewer cycles, 116 B more).
    pad: [u8; 0x78],
    /// [`REACH_BITS`] again, at the page's last 16 bytes: a piece code
    /// with its high nibble set is the low byte of its entry.
    reach: [u8; 16],
}

#[cfg(target_arch = "avr")]
const _: () = assert!(
    core::mem::size_of::<FlashPages>() == 0x200
        && core::mem::offset_of!(FlashPages, rays_before) == 0x100
        && core::mem::offset_of!(FlashPages, pad) == 0x178
);

/// Offsets in [`FLASH_PAGES`].
#[cfg(target_arch = "avr")]
pub(crate) const RAYS_BEFORE_AT: usize = core::mem::offset_of!(FlashPages, rays_before);
#[cfg(target_arch = "avr")]
pub(crate) const RAY_START_AT: usize = core::mem::offset_of!(FlashPages, ray_start);
#[cfg(target_arch = "avr")]
pub(crate) const PIECE_KINDS_AT: usize = core::mem::offset_of!(FlashPages, piece_kinds);
#[cfg(target_arch = "avr")]
pub(crate) const EP_KEYS_AT: usize = core::mem::offset_of!(FlashPages, ep_keys);
#[cfg(target_arch = "avr")]
pub(crate) const PAD_AT: usize = core::mem::offset_of!(FlashPages, pad);
#[cfg(target_arch = "avr")]
pub(crate) const REACH_AT: usize = core::mem::offset_of!(FlashPages, reach);

#[cfg(target_arch = "avr")]
#[link_section = ".progmem.geometry"]
pub(crate) static FLASH_PAGES: FlashPages = FlashPages {
    square_keys: crate::progmem::Table::new(super::zobrist::SQUARE_KEY_VALUES),
    rays_before: 0,
    rays: crate::progmem::Table::new(super::movegen::RAY_STEPS),
    ray_start: crate::progmem::Table::new(super::movegen::RAY_STARTS),
    ray_start_after: 0,
    piece_kinds: crate::progmem::Table::new(super::zobrist::PIECE_KIND_VALUES),
    ep_keys: crate::progmem::Table::new(super::zobrist::EP_KEY_VALUES),
    castling_files: crate::progmem::Table::new(super::makemove::CASTLING_FILE_FLAGS),
    pad: [0; 0x78],
    reach: REACH_BITS,
};

/// [`geometry`] of two squares `df` files and `dr` ranks apart.
const fn geometry_of(df: i8, dr: i8) -> u8 {
    let f = df.unsigned_abs();
    let r = dr.unsigned_abs();
    if f == r {
        if f == 1 {
            DIAGONAL | NEXT_DIAGONAL
        } else {
            DIAGONAL
        }
    } else if f == 0 || r == 0 {
        STRAIGHT
    } else if f + r == 3 {
        JUMP
    } else {
        0
    }
}

/// Index in [`DIRECTIONS`] of the step `df` files and `dr` ranks (each
/// -1, 0 or 1, not both 0).
const fn step_index(df: i8, dr: i8) -> u8 {
    let step = dr * 16 + df;
    let mut k = 0;
    while k < 8 {
        if DIRECTION_STEPS[k] == step {
            return k as u8;
        }
        k += 1;
    }
    0
}

/// The line steps of [`DIRECTIONS`] (its first eight), for the tables
/// built at compile time.
const DIRECTION_STEPS: [i8; 8] = [-17, -15, 15, 17, -16, -1, 1, 16];

/// By 0x88 difference, entry `b - a + 0x77` (= (ranks + 7) * 16 +
/// files + 7 from `a` to `b`): the [`geometry`] bits in the low nibble
/// and, for squares on a line, the index in [`DIRECTIONS`] of the step
/// from `a` towards `b` in the high nibble ([`direction`]). 239 bytes
/// for a lookup instead of two subtractions, two absolute values and
/// four comparisons, and for the step one more read instead of a call
/// that compared ranks and files. (Two 4-bit entries a byte, the
/// geometry alone, took 120 bytes and a nibble swap on odd entries;
/// the step, computed, took a call of 28 cycles, 185,000 calls in
/// `bench engine`.)
const GEOMETRY_BYTES: [u8; 239] = {
    let mut t = [0u8; 239];
    let mut i = 0;
    while i < 239 {
        let df = (i & 15) as i8 - 7;
        let dr = (i >> 4) as i8 - 7;
        // Index 15 of a row is no square difference.
        if df <= 7 {
            let g = geometry_of(df, dr);
            let k = if g & LINE != 0 { step_index(df.signum(), dr.signum()) } else { 0 };
            t[i] = g | k << 4;
        }
        i += 1;
    }
    t
};

crate::progmem! {
    /// [`GEOMETRY_BYTES`].
    #[cfg(not(target_arch = "avr"))]
    pub(crate) static GEOMETRY: [u8; 239] = GEOMETRY_BYTES;
}

/// [`GEOMETRY_BYTES`], at a page's start, just after [`FLASH_PAGES`], and
/// [`DIRECTION_OFFSETS`] again at the page's last 16 bytes: a GEOMETRY
/// entry swapped, its high nibble set, is the low byte of its step's
/// address, no table index worked out (`bench engine` 0.11% fewer cycles,
/// 12 B less: the code shrank by more than the 17 B here).
#[cfg(target_arch = "avr")]
#[link_section = ".progmem.geometry"]
pub(crate) static GEOMETRY: crate::progmem::Table<u8, 256> = crate::progmem::Table::new({
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 239 {
        t[i] = GEOMETRY_BYTES[i];
        i += 1;
    }
    let mut k = 0;
    while k < 16 {
        t[0xF0 + k] = DIRECTION_OFFSETS[k] as u8;
        k += 1;
    }
    t
});

/// The [`GEOMETRY`] entry of squares `a` and `b`.
#[inline(always)]
fn geometry_entry(a: Square, b: Square) -> u8 {
    GEOMETRY.get(b.wrapping_sub(a).wrapping_add(0x77) as usize)
}

/// How squares `a` and `b` (distinct) lie to each other, as bits above.
/// (The host's; the AVR's assembly reads [`GEOMETRY`] itself.)
#[cfg(not(target_arch = "avr"))]
#[inline(always)]
pub(super) fn geometry(a: Square, b: Square) -> u8 {
    geometry_entry(a, b) & 15
}

/// Do squares `a` and `b` (distinct) share a rank, file or diagonal?
/// (The host's generator; the AVR's tests it in assembly.)
#[cfg(not(target_arch = "avr"))]
#[inline(always)]
pub(super) fn on_line(a: Square, b: Square) -> bool {
    geometry(a, b) & LINE != 0
}

/// The 0x88 step of a [`GEOMETRY`] entry of two squares on a line.
#[inline(always)]
fn entry_step(entry: u8) -> u8 {
    DIRECTIONS.get((entry >> 4) as usize) as u8
}

/// A king on `a` touches `b` (`a` may be [`NO_SQUARE`]: no; a square
/// does not touch itself).
#[inline(always)]
pub(crate) fn is_adjacent(a: Square, b: Square) -> bool {
    a != b
        && (a & 7).wrapping_sub(b & 7).wrapping_add(1) <= 2
        && (a >> 4).wrapping_sub(b >> 4).wrapping_add(1) <= 2
}

/// The 0x88 step from `a` towards `b`, which lies on a line through `a`.
/// (The host's; the AVR's assembly steps by hand.)
#[cfg(not(target_arch = "avr"))]
#[inline(always)]
pub(super) fn direction(a: Square, b: Square) -> u8 {
    entry_step(geometry_entry(a, b))
}

/// [`reach`]: a knight's jump, no line to walk.
pub(crate) const JUMPS_THERE: u8 = 0x80;

/// How a man of piece code `code` on `from` could attack `to` (distinct
/// squares) if nothing stood between: 0 = it cannot, [`JUMPS_THERE`] = a
/// knight's jump, else the 0x88 step of the line to walk (bishops, rooks,
/// queens). Pawns and kings give 0: callers probe them apart. One table
/// lookup for the common "no"; the step is worked out only for a man on
/// a fitting line.
#[inline(always)]
pub(crate) fn reach(code: u8, from: Square, to: Square) -> u8 {
    let e = geometry_entry(from, to);
    let g = e & REACH.get(code as usize) & (LINE | JUMP);
    if g == 0 {
        0
    } else if g == JUMP {
        JUMPS_THERE
    } else {
        entry_step(e)
    }
}

/// First diagonal, orthogonal and knight entries of [`DIRECTIONS`]
/// (the host's generator; the AVR's walks lists of its own).
#[cfg(not(target_arch = "avr"))]
pub(super) const DIAGONALS: u8 = 0;
#[cfg(not(target_arch = "avr"))]
pub(super) const ORTHOGONALS: u8 = 4;
#[cfg(not(target_arch = "avr"))]
pub(super) const KNIGHT_JUMPS: u8 = 8;

/// (The AVR's generator steps in assembly: host only.)
#[cfg(not(target_arch = "avr"))]
#[inline(always)]
pub(super) fn step(sq: Square, dir_index: u8) -> Square {
    sq.wrapping_add(DIRECTIONS.get(dir_index as usize) as u8)
}

impl Position {
    /// True if `by` attacks `sq` in the current position.
    #[inline]
    pub fn is_square_attacked(&self, sq: Square, by: Color) -> bool {
        #[cfg(target_arch = "avr")]
        {
            let r = self.attacked_after(sq, by, NO_SQUARE, NO_SQUARE, NO_SQUARE);
            // SAFETY: the answer byte is 0 or 1. (Not `r != 0`, even
            // with the range assumed: a compare and a branch, 26 B.)
            unsafe { core::mem::transmute::<u8, bool>(r) }
        }
        #[cfg(not(target_arch = "avr"))]
        self.attacked_after(sq, by, NO_SQUARE, NO_SQUARE, NO_SQUARE)
    }

    /// True if the side to move is in check. Not inlined (called in many
    /// places; `attacked_after` dominates its cost anyway).
    /// (C ABI: the AVR's assembly `in_check_after` calls it.)
    #[inline(never)]
    pub extern "C" fn in_check(&self) -> bool {
        self.is_square_attacked(self.king_square(self.side), self.side.other())
    }

    /// [`Position::in_check`] right after `m` was made. The king of the side
    /// to move was safe before `m`, so only the man now on `m.to()` or a
    /// slider behind the vacated `m.from()` can attack it: two short
    /// probes instead of the full scan. Castling and en passant move or
    /// remove a second man and take the full scan. The answer goes into
    /// [`Position::checked`] too, for the generator.
    #[cfg_attr(not(target_arch = "avr"), inline(never))]
    #[cfg_attr(target_arch = "avr", inline(always))]
    pub fn in_check_after(&mut self, m: Move) -> bool {
        #[cfg(target_arch = "avr")]
        {
            let r = self.in_check_after_avr(m);
            // SAFETY: the answer byte is 0 or 1.
            unsafe { core::mem::transmute::<u8, bool>(r) }
        }
        #[cfg(not(target_arch = "avr"))]
        {
            // The note: the GEOMETRY entry of the checker towards the
            // king (for a slider uncovered, the king's towards `from`
            // reversed: direction index ^ 3), 0 if none or not known.
            let (r, note) = if m.is(MoveKind::Castle) || m.is(MoveKind::EnPassant) {
                (self.in_check(), 0)
            } else {
                let king = self.king_square(self.side);
                let to = m.to();
                let by = self.side.other();
                let code = self.board[(to & 0x7F) as usize] & CODE_MASK;
                if self.attacks_king(code, to, king, by, NO_SQUARE) {
                    (true, geometry_entry(to, king))
                } else if self.uncovers(king, m.from(), NO_SQUARE, by) {
                    (true, geometry_entry(king, m.from()) ^ 0x30)
                } else {
                    (false, 0)
                }
            };
            self.checked = note;
            r
        }
    }

    /// [`Position::in_check_after`] in assembly: castling and en passant
    /// (kind bit 1 set, promotion bit clear) to [`Position::in_check`],
    /// else the man on `to` attacking the king (`attacks_king` with its
    /// `scan`), then the line through `from` (`uncovers`, which calls
    /// [`Position::uncovers_along`]). In `bench engine` 84 cycles a call,
    /// the Rust 107 (it saved six registers for the `scan` call). (The
    /// kind tested in Rust: both bytes masked and compared, 5 cycles more
    /// a normal move, 0.08% more cycles.)
    ///
    /// (C ABI, the answer a byte: a `bool` returned cost two `andi` a
    /// call, r24 and r25 extended. The wrapper's bool a transmute, an
    /// `andi` where a caller keeps it: `bench engine` 0.05% fewer cycles,
    /// 8 B; `r != 0`, even with the range assumed, as many cycles for
    /// 56 B, in the search's register allocation.)
    #[cfg(target_arch = "avr")]
    #[inline(never)]
    #[optimize(speed)]
    extern "C" fn in_check_after_avr(&mut self, m: Move) -> u8 {
        use core::mem::offset_of;
        const SIDE: usize = offset_of!(Position, side);
        const _: () = assert!(offset_of!(Position, lists) == 128 && SIDE - 128 < 64);
        let r: u16;
        // Registers: r25:r24 the position (r24 at the end the answer);
        // r22 `from`, r23 `to`; r19 the side to move (the king's), r18
        // the king's square; r21 the reach, then the step; r20 the
        // geometry entry.
        // SAFETY: reads the board at on-board squares, the king's list
        // entry, the side, and the flash tables GEOMETRY, REACH and
        // DIRECTIONS at in-range indices; calls in_check (C ABI) and
        // uncovers_along (its own registers) with their arguments.
        unsafe {
            core::arch::asm!(
                // (The rest of the test at 2 below, off the way: one
                // cycle less for the others.)
                "    sbrc r22, 7",
                "    rjmp 2f",
                "1:  movw r30, r24",
                "    subi r30, 0x80",
                "    sbci r31, 0xFF",
                "    ldd r19, Z+{side_l}",
                "    ld r18, Z",
                "    sbrc r19, 0",
                "    ldd r18, Z+16",
                "    andi r22, 0x77",
                "    andi r23, 0x77",
                // attacks_king(): the geometry from `to` to the king,
                // masked by the man's reach.
                "    ldi r30, lo8({geometry}+0x77)",
                "    ldi r31, hi8({geometry})",
                "    add r30, r18",
                "    sub r30, r23",
                "    lpm r20, Z",
                // (No line or jump, an entry of 0: no REACH read.
                // `bench engine` 0.07% fewer cycles, 4 B; in gives_check
                // 0.004%.) The man on `to` read only then (two in three
                // moves have no line to the king): 0.097% fewer cycles, 0 B.
                "    tst r20",
                "    breq 20f",
                "    movw r30, r24",
                "    add r30, r23",
                "    adc r31, r1",
                // (REACH's copy at the page's end: the code with its
                // high nibble set is the entry's low byte.)
                "    ld r30, Z",
                "    ori r30, 0xF0",
                "    ldi r31, hi8({pages}+{reach_at})",
                "    lpm r21, Z",
                "    and r21, r20",
                "    andi r21, 0x0F",
                "    breq 20f",
                // A pawn's diagonal: forwards only (White's up, when
                // Black, r19 = 1, is to move).
                "    sbrs r21, 3",
                "    rjmp 11f",
                "    cp r23, r18",
                "    sbrc r19, 0",
                "    rjmp 12f",
                "    brlo 20f",
                "    rjmp 11f",
                "12: brsh 20f",
                "11: andi r21, {line}",
                "    breq 90f",
                // scan(): the first man from `to` towards the king
                // (r20, the entry, kept for the note).
                "    mov r30, r20",
                "    swap r30",
                "    ori r30, 0xF0",
                "    ldi r31, hi8({geometry})",
                "    lpm r21, Z",
                "    mov r26, r23",
                "13: add r26, r21",
                "    movw r30, r24",
                "    add r30, r26",
                "    adc r31, r1",
                "    ld r27, Z",
                "    tst r27",
                "    breq 13b",
                "    cp r26, r18",
                "    breq 90f",
                // uncovers(): `from` on a line from the king?
                "20: ldi r30, lo8({geometry}+0x77)",
                "    ldi r31, hi8({geometry})",
                "    add r30, r22",
                "    sub r30, r18",
                "    lpm r20, Z",
                "    mov r21, r20",
                "    andi r21, {line}",
                "    breq 80f",
                "    clt",
                "    sbrs r19, 0",
                "    set",
                "    mov r19, r20",
                "    mov r23, r20",
                "    mov r20, r22",
                "    mov r22, r18",
                "    ldi r18, 0x80",
                "    call {uncovers_along}",
                "    sbrc r19, 0",
                "    rjmp 91f",
                "    clr r24",
                "    ret",
                // (The slider's entry towards the king: the king's
                // towards `from`, the direction reversed, index ^ 3.)
                "91: ldi r20, 0x30",
                "    eor r20, r23",
                // In check: the GEOMETRY entry of the checker towards
                // the king (r20: of `to`, or of the slider uncovered)
                // into `checked`, never 0. (Else it stays 0, as make
                // left it; castling and en passant leave it so too.)
                "90: movw r30, r24",
                "    subi r30, {chk_nlo}",
                "    sbci r31, {chk_nhi}",
                "    st Z, r20",
                "    ldi r24, 1",
                "    ret",
                "2:  sbrc r23, 3",
                "    rjmp 1b",
                "    jmp {in_check}",
                "80: clr r24",
                "99:",
                side_l = const SIDE - 128,
                chk_nlo = const (offset_of!(Position, checked) as u16).wrapping_neg() as u8,
                chk_nhi = const ((offset_of!(Position, checked) as u16).wrapping_neg() >> 8) as u8,
                line = const LINE,
                geometry = sym GEOMETRY,
                pages = sym FLASH_PAGES,
                reach_at = const REACH_AT,
                uncovers_along = sym Position::uncovers_along,
                in_check = sym Position::in_check,
                inout("r25r24") self as *mut Position => r,
                inout("r23r22") m.0 => _,
                out("r20") _,
                out("r18") _, out("r19") _, out("r21") _,
                out("X") _, out("Z") _,
            );
        }
        r as u8
    }

    /// Does the quiet move `m` (not yet made; no castling, en passant or
    /// promotion) give check? Exact: the man lands where it attacks the
    /// enemy king (its old square counting as empty), or it leaves a line
    /// through the king and uncovers one of our sliders.
    #[cfg(not(target_arch = "avr"))]
    #[inline(never)]
    pub fn gives_check(&self, m: Move) -> bool {
        let us = self.side;
        let king = self.king_square(us.other());
        let from = m.from();
        let to = m.to();
        let code = self.board[(from & 0x7F) as usize] & CODE_MASK;
        self.attacks_king(code, to, king, us, from) || self.uncovers(king, from, to, us)
    }

    /// [`Position::gives_check`] in assembly, as
    /// [`Position::in_check_after`]'s: the man of `from` on `to`
    /// attacking the enemy king (`attacks_king`, its `scan` passing
    /// over `from`), then the line through `from` (`uncovers`).
    #[cfg(target_arch = "avr")]
    #[inline(always)]
    pub fn gives_check(&self, m: Move) -> bool {
        let r = self.gives_check_avr(m);
        // SAFETY: the answer byte is 0 or 1.
        unsafe { core::hint::assert_unchecked(r <= 1) };
        r != 0
    }

    /// [`Position::gives_check`] on the AVR, the answer a byte (C ABI,
    /// as [`Position::in_check_after`]'s).
    #[cfg(target_arch = "avr")]
    #[inline(never)]
    extern "C" fn gives_check_avr(&self, m: Move) -> u8 {
        use core::mem::offset_of;
        const SIDE: usize = offset_of!(Position, side);
        const _: () = assert!(offset_of!(Position, lists) == 128 && SIDE - 128 < 64);
        let r: u16;
        // Registers: r25:r24 the position (r24 at the end the answer);
        // r22 `from`, r23 `to`; r19 the side to move (the mover's), r18
        // the enemy king's square; r21 the reach, then the step; r20 the
        // geometry entry.
        // SAFETY: reads the board at on-board squares, the enemy king's
        // list entry, the side, and the flash tables GEOMETRY, REACH and
        // DIRECTIONS at in-range indices; calls uncovers_along with its
        // arguments (its own registers).
        unsafe {
            core::arch::asm!(
                "    movw r30, r24",
                "    subi r30, 0x80",
                "    sbci r31, 0xFF",
                "    ldd r19, Z+{side_l}",
                "    ldd r18, Z+16",
                "    sbrc r19, 0",
                "    ld r18, Z",
                "    andi r22, 0x77",
                "    andi r23, 0x77",
                "    movw r30, r24",
                "    add r30, r22",
                "    adc r31, r1",
                "    ld r21, Z",
                "    andi r21, 0x0F",
                // attacks_king(): the geometry from `to` to the king,
                // masked by the man's reach.
                "    ldi r30, lo8({geometry}+0x77)",
                "    ldi r31, hi8({geometry})",
                "    add r30, r18",
                "    sub r30, r23",
                "    lpm r20, Z",
                "    mov r30, r21",
                "    ori r30, 0xF0",
                "    ldi r31, hi8({pages}+{reach_at})",
                "    lpm r21, Z",
                "    and r21, r20",
                "    andi r21, 0x0F",
                "    breq 20f",
                // A pawn's diagonal: forwards only (White's up, when
                // White, r19 = 0, is to move).
                "    sbrs r21, 3",
                "    rjmp 11f",
                "    cp r23, r18",
                "    sbrs r19, 0",
                "    rjmp 12f",
                "    brlo 20f",
                "    rjmp 11f",
                "12: brsh 20f",
                "11: andi r21, {line}",
                "    breq 90f",
                // scan(): the first man from `to` towards the king,
                // `from` counting as empty.
                "    mov r30, r20",
                "    swap r30",
                "    ori r30, 0xF0",
                "    ldi r31, hi8({geometry})",
                "    lpm r21, Z",
                "    mov r26, r23",
                "13: add r26, r21",
                "    cp r26, r22",
                "    breq 13b",
                "    movw r30, r24",
                "    add r30, r26",
                "    adc r31, r1",
                "    ld r20, Z",
                "    tst r20",
                "    breq 13b",
                "    cp r26, r18",
                "    breq 90f",
                // uncovers(): `from` on a line from the king?
                "20: ldi r30, lo8({geometry}+0x77)",
                "    ldi r31, hi8({geometry})",
                "    add r30, r22",
                "    sub r30, r18",
                "    lpm r20, Z",
                "    mov r21, r20",
                "    andi r21, {line}",
                "    breq 80f",
                "    bst r19, 0",
                "    mov r19, r20",
                "    mov r20, r22",
                "    mov r22, r18",
                "    mov r18, r23",
                "    call {uncovers_along}",
                "    mov r24, r19",
                "    ret",
                "80: clr r24",
                "    ret",
                "90: ldi r24, 1",
                "99:",
                side_l = const SIDE - 128,
                line = const LINE,
                geometry = sym GEOMETRY,
                pages = sym FLASH_PAGES,
                reach_at = const REACH_AT,
                uncovers_along = sym Position::uncovers_along,
                inout("r25r24") self as *const Position => r,
                inout("r23r22") m.0 => _,
                out("r20") _,
                out("r18") _, out("r19") _, out("r21") _,
                out("X") _, out("Z") _,
            );
        }
        r as u8
    }

    /// Would a man of piece code `code` (of side `by`) on `to` attack
    /// `king`, with `skip` counting as empty? A pawn forwards only, a
    /// slider through empty squares; kings never. Inlined: a call costs
    /// both callers 0.5% of the search.
    #[cfg(not(target_arch = "avr"))]
    #[inline(always)]
    fn attacks_king(&self, code: u8, to: Square, king: Square, by: Color, skip: Square) -> bool {
        let g = geometry(to, king) & REACH.get(code as usize);
        g != 0
            && (g & NEXT_DIAGONAL == 0 || (king > to) == (by == Color::White))
            && (g & LINE == 0 || self.scan(to, king, skip) == king)
    }

    /// With `from` vacated and `to` (if not [`NO_SQUARE`]) occupied by the
    /// mover, does a slider of `by` attack `king` along the line through
    /// `from`? One walk out of `king`: the first man met either is such a
    /// slider or shields the king. A discovered check, or a pin.
    ///
    /// The line test is inlined into the callers and the walk is not:
    /// most men stand on no line with the king, and the call was most of
    /// the cost. (`bench engine`, the same nodes: in `in_check_after`
    /// 0.24% fewer cycles for 40 B, in `choose_checks_filter` 0.49% for
    /// 24 B, in `gives_check` and the pin test of `is_legal_given_check`
    /// 0.23% for 72 B.) (The host's: the AVR's callers are assembly.)
    #[cfg(not(target_arch = "avr"))]
    #[inline(always)]
    pub fn uncovers(&self, king: Square, from: Square, to: Square, by: Color) -> bool {
        // Four bytes of arguments, all in call-clobbered registers: `by`
        // rides in bit 3 of `to` (never set on the board; no square is
        // 0x80 then), and the line is looked up again.
        let to = if to == NO_SQUARE { 0x80 } else { to };
        geometry(king, from) & LINE != 0 && self.uncovers_along(king, from, to | (by as u8) << 3)
    }

    /// [`Position::uncovers`] once `from` is known to lie on a line from
    /// `king`; `to_by` is `to` (0x80 for none) with `by` in bit 3.
    ///
    /// On the AVR in assembly, called from assembly only, with registers
    /// of its own: the position in r25:r24, `king` in r22, `from` in r20,
    /// `to` in r18 (any value from 0x80 up for none), `by` in T (set:
    /// Black), and the caller's GEOMETRY entry of `from` less `king` in
    /// r19, where the answer (0 or 1) comes back. It uses only r0, r19,
    /// r22, r26 and Z besides, so the generator keeps its state in the
    /// other registers across the call. (With the C ABI and `by` in bit 3
    /// of `to`, the line looked up again: 63 cycles a call in `bench
    /// engine`, and the generator saved seven registers around it; this
    /// way 49, and 0.28% fewer cycles in all, 32 B less.) Two walks:
    /// up to `from` (no edge test; any man there answers no, not read),
    /// then beyond it: 0.20% fewer cycles, 20 B.
    #[cfg(target_arch = "avr")]
    #[inline(never)]
    pub(super) extern "C" fn uncovers_along(&self, king: Square, from: Square, to: Square) {
        // Registers: r22 the walk (from `king`), r0 the line's step, r19
        // the line's geometry bits, r26 the board byte.
        // SAFETY: reads the board at on-board squares and the flash
        // tables DIRECTIONS and REACH at in-range indices; the body is
        // this one `asm!` (the compiler adds only the `ret`), so r19 and
        // T still hold the caller's values when it starts.
        unsafe {
            core::arch::asm!(
                "    mov r30, r19",
                "    swap r30",
                "    ori r30, 0xF0",
                "    ldi r31, hi8({geometry})",
                "    lpm r0, Z",
                "    andi r19, {line}",
                // From the king to `from`, all on the board: `to` or a
                // man there, no. (Such a man is no slider of `by`
                // reaching along the line: the king of the side not to
                // move would stand in check, or `in_check_after` found
                // the mover on `to` checking already.)
                "1:  add r22, r0",
                "    cp r22, r20",
                "    breq 5f",
                "    cp r22, r18",
                "    breq 8f",
                "    movw r30, r24",
                "    add r30, r22",
                "    adc r31, r1",
                "    ld r26, Z",
                "    tst r26",
                "    breq 1b",
                "8:  clr r19",
                "    ret",
                // Beyond `from`: the first man, unless `to` or the edge
                // comes first.
                "5:  add r22, r0",
                "    mov r26, r22",
                "    andi r26, 0x88",
                "    brne 8b",
                "    cp r22, r18",
                "    breq 8b",
                "    movw r30, r24",
                "    add r30, r22",
                "    adc r31, r1",
                "    ld r26, Z",
                "    tst r26",
                "    breq 5b",
                // The first man: of `by` (White codes 1..=6, Black 7..)
                // and reaching along the line?
                "    andi r26, 0x0F",
                "    cpi r26, 7",
                "    brts 2f",
                "    brsh 8b",
                "    rjmp 3f",
                "2:  brlo 8b",
                "3:  mov r30, r26",
                "    ori r30, 0xF0",
                "    ldi r31, hi8({pages}+{reach_at})",
                "    lpm r26, Z",
                "    and r26, r19",
                "    breq 8b",
                "    ldi r19, 1",
                pages = sym FLASH_PAGES,
                reach_at = const REACH_AT,
                geometry = sym GEOMETRY,
                line = const LINE,
                in("r25r24") self as *const Position,
                inout("r22") king => _,
                in("r20") from,
                in("r18") to,
                out("r19") _, out("r26") _,
                out("Z") _,
            );
        }
    }

    /// [`Position::uncovers_along`] for the host (the AVR's reference).
    #[cfg(not(target_arch = "avr"))]
    #[inline(never)]
    fn uncovers_along(&self, king: Square, from: Square, to_by: u8) -> bool {
        let to = to_by & !8;
        let by = if to_by & 8 != 0 { Color::Black } else { Color::White };
        let e = geometry_entry(king, from);
        let g = e & LINE;
        let dir = entry_step(e);
        let mut s = king;
        // From the king to `from`: `to` or a man there, no (as the
        // AVR's: that man cannot be a slider of `by` along the line).
        loop {
            s = s.wrapping_add(dir);
            if s == from {
                break;
            }
            if s == to || self.board[s as usize] != EMPTY {
                return false;
            }
        }
        loop {
            s = s.wrapping_add(dir);
            if !on_board(s) || s == to {
                return false;
            }
            let b = self.board[s as usize];
            if b != EMPTY {
                return is_color(b, by) && REACH.get((b & CODE_MASK) as usize) & g != 0;
            }
        }
    }

    /// Could some quiet move of the side to move's man on `from` give a
    /// direct check to the king on `king`? A superset, for the generator
    /// restricted to checks ([`MoveGen::restrict_to_checks`](super::MoveGen::restrict_to_checks))
    /// to skip men cheaply: a pawn only from two or three
    /// ranks below the king on a next file, a bishop only on the king's
    /// colour, a knight only on it and at most four files and ranks
    /// away, a king never. (Discovered checks: [`Position::uncovers`].)
    #[inline(always)]
    pub fn may_check_directly(&self, from: Square, king: Square) -> bool {
        let us = self.side;
        let df = (king & 7).abs_diff(from & 7);
        let dr = (king >> 4).wrapping_sub(from >> 4);
        match kind_of(self.board[(from & 0x7F) as usize]) {
            PAWN => {
                let up = if us == Color::White { dr } else { 0u8.wrapping_sub(dr) };
                df == 1 && up.wrapping_sub(2) <= 1
            }
            BISHOP => (df ^ dr) & 1 == 0,
            // Two jumps from the king. (`bench engine`: the colour
            // alone, 0.30% fewer cycles, and the distance 0.15% more.)
            KNIGHT => (df ^ dr) & 1 == 0 && df <= 4 && dr.wrapping_add(4) <= 8,
            KING => false,
            _ => true,
        }
    }

    /// From `a` towards `b` (on a line through `a`), the first occupied
    /// square, `skip` counting as empty.
    #[cfg(not(target_arch = "avr"))]
    #[inline(never)]
    pub(super) fn scan(&self, a: Square, b: Square, skip: Square) -> Square {
        let dir = direction(a, b);
        let mut s = a;
        loop {
            s = s.wrapping_add(dir);
            if s != skip && self.board[(s & 0x7F) as usize] != EMPTY {
                return s;
            }
        }
    }

    /// Is `sq` attacked by `by` once `vacated1` and `vacated2` are emptied and
    /// `filled` is occupied by a man of the other side? An attacker standing
    /// on `filled` counts as captured.
    ///
    /// Pawns are probed on their two squares and the king by distance; the
    /// other men come from `by`'s piece list, up to its
    /// [`Position::officer_end`], and only one standing on a fitting line
    /// walks it. Few men are ever lined up with `sq`, so that beats walking
    /// the eight rays out of `sq`.
    ///
    /// The AVR's is assembly (the Rust below is the host's): 215 cycles a
    /// call in `bench engine` against 289, most of it the officer scan,
    /// which skips a man on no line or jump with `sq` before reading the
    /// board and REACH.
    /// (C ABI: the assembly king_safe_after calls it. The answer a byte,
    /// 0 or 1: a `bool` returned cost two `andi` a call, r24 and r25
    /// extended.) Its squares are on the board, so the board read
    /// straight from them, no `& 0x7F`: `bench engine` 0.04% fewer
    /// cycles, 8 B less (the scans of `in_check_after` and
    /// `gives_check` too: 0.01%, 8 B). It keeps r14, r16, r17, r18,
    /// r22 and r25 (the position's high byte): the castling of the
    /// assembly `MoveGen::next_avr` relies on it.
    #[cfg(target_arch = "avr")]
    #[inline(never)]
    pub(super) extern "C" fn attacked_after(
        &self,
        sq: Square,
        by: Color,
        vacated1: Square,
        vacated2: Square,
        filled: Square,
    ) -> u8 {
        use core::mem::offset_of;
        const OE: usize = offset_of!(Position, officer_end);
        const _: () = assert!(offset_of!(Position, lists) == 128 && OE >= 0x81 && OE - 0x81 < 64);
        let r: u16;
        // Registers: r25:r24 the position (r24 at the end the answer);
        // r22 `sq`, r20 `by` (then a temporary), r18 `vacated1`, r16
        // `vacated2`, r14 `filled`; X walks the piece list, r0 counts
        // its slots, r23 the man's square (then the walk), r21:r20 the
        // address of GEOMETRY's entry of `sq` less square 0, r19 the
        // man's entry, then the step; Z the tables and the board. (The
        // entry's address worked out by a man from `sq + 0x77`, and the
        // entry masked before its test: `bench engine` 0.12% more
        // cycles, 8 B more.)
        // SAFETY: reads the board and the piece list of `by` up to its
        // officer bound, and the flash tables GEOMETRY, REACH and
        // DIRECTIONS at in-range indices.
        unsafe {
            core::arch::asm!(
                // Pawns: on sq - 15 and sq - 17 for White, + 15 and + 17 for Black.
                "    ldi r19, {wpawn}",
                "    sbrc r20, 0",
                "    ldi r19, {bpawn}",
                // (Each: on the board, the pawn there, and neither
                // `filled` nor `vacated2`.)
                "    mov r23, r22",
                "    subi r23, 15",
                "    sbrc r20, 0",
                "    subi r23, 0xE2",
                "    mov r21, r23",
                "    andi r21, 0x88",
                "    brne 2f",
                "    movw r26, r24",
                "    add r26, r23",
                "    adc r27, r1",
                "    ld r21, X",
                "    andi r21, 0x0F",
                "    cp r21, r19",
                "    brne 2f",
                "    cp r23, r14",
                "    breq 2f",
                "    cp r23, r16",
                "    brne 90f",
                // (The second square from the first, two files over:
                // `bench engine` 0.006% fewer cycles, 4 B less.)
                "2:  subi r23, 2",
                "    sbrc r20, 0",
                "    subi r23, 0xFC",
                "    mov r21, r23",
                "    andi r21, 0x88",
                "    brne 3f",
                "    movw r26, r24",
                "    add r26, r23",
                "    adc r27, r1",
                "    ld r21, X",
                "    andi r21, 0x0F",
                "    cp r21, r19",
                "    brne 3f",
                "    cp r23, r14",
                "    breq 3f",
                "    cp r23, r16",
                "    brne 90f",
                "3:",
                // The king (slot 0) next to `sq`: the 0x88 difference
                // plus 17 is 16 * (ranks + 1) + files + 1, so adjacent
                // (or `sq` itself, tested first) exactly when it is at
                // most 34 with a low nibble of at most 2 (a byte: the
                // files' part, -6..=8, never borrows a rank unseen).
                // (Ranks and files apart, each by subtraction: `bench
                // engine` 0.08% more cycles, 20 B more.)
                "    movw r26, r24",
                "    subi r26, 0x80",
                "    sbci r27, 0xFF",
                "    sbrc r20, 0",
                "    adiw r26, 16",
                "    ld r23, X+",
                "    cp r23, r22",
                "    breq 64f",
                "    mov r21, r23",
                "    sub r21, r22",
                "    subi r21, 0xEF",
                "    cpi r21, 35",
                "    brsh 64f",
                "    andi r21, 0x0F",
                "    cpi r21, 3",
                "    brsh 64f",
                "90: ldi r24, 1",
                "    ret",
                // Slots 1 up to the officer bound (r0 counts them); r21:r20
                // the address of the GEOMETRY entry of `sq` less square 0,
                // so a man's entry is one subtraction away.
                // (The bound's address from X, just past the king's
                // slot: Black's 15 bytes nearer. `bench engine` 0.019%
                // fewer cycles, 4 B less than from the position's.)
                "64: movw r30, r26",
                "    sbrc r20, 0",
                "    sbiw r30, 15",
                "    ldd r0, Z+{oe_x}",
                // (The bound, at least 1 (slot 0 the king), counted down
                // from at 79 as ever: `bench engine` 0.041% fewer cycles, 12 B
                // less than a first slot's test of its own.)
                "    ldi r20, lo8({geometry}+0x77)",
                "    ldi r21, hi8({geometry}+0x77)",
                "    add r20, r22",
                "    adc r21, r1",
                // (The next slot up here: the loop's branches reach it.)
                // (Two slots a round, each with its own copy of the tests
                // below, the count tested once a round: `bench engine`
                // 0.035% fewer cycles, 104 B more.)
                // (The list's end by one branch, the loop going on
                // without one: `bench engine` 0.04% fewer cycles than a
                // branch over a jump, no flash.)
                "79: dec r0",
                "    breq 80f",
                "70: ld r23, X+",
                // reach(): the geometry entry (in r19; 0 for no line and
                // no jump, and for an empty slot, 0xFF, in the pad below:
                // skip the board and REACH reads) masked by the man's
                // reach.
                "    ; (an empty slot's entry in the pad, {pages}+{pad_at})",
                "    movw r30, r20",
                "    sub r30, r23",
                "    sbc r31, r1",
                "    lpm r19, Z",
                "    tst r19",
                "    breq 79b",
                "    movw r30, r24",
                "    add r30, r23",
                "    adc r31, r1",
                "    ld r30, Z",
                "    ori r30, 0xF0",
                "    ldi r31, hi8({pages}+{reach_at})",
                "    lpm r31, Z",
                "    and r31, r19",
                "    andi r31, {lj}",
                "    breq 79b",
                // The man taken on `filled` passed over. (Tested after
                // his reach: most men fail it first. `vacated2` is never
                // tested here: it holds a pawn, whose reach is no line or
                // jump, if ever in these slots. `bench engine` 0.01% fewer
                // cycles, 4 B less.)
                "    cp r23, r14",
                "    breq 79b",
                "    cpi r31, {jump}",
                "    breq 90b",
                // A line: walk it from the man (r23) towards `sq`, r19
                // the step.
                "    mov r30, r19",
                "    swap r30",
                "    ori r30, 0xF0",
                "    ldi r31, hi8({geometry})",
                "    lpm r19, Z",
                // (The board read before the tests of `filled`, `vacated1`
                // and `vacated2`: an empty square can only be `filled`,
                // a man's only one of the two vacated, as `filled` is
                // neither. `bench engine` 0.009% fewer cycles, 4 B more.)
                "71: add r23, r19",
                "    cp r23, r22",
                "    breq 90b",
                "    movw r30, r24",
                "    add r30, r23",
                "    adc r31, r1",
                "    ld r30, Z",
                "    tst r30",
                "    brne 72f",
                "    cp r23, r14",
                "    brne 71b",
                "    rjmp 79b",
                "72: cp r23, r18",
                "    breq 71b",
                "    cp r23, r16",
                "    breq 71b",
                "    rjmp 79b",
                "80: clr r24",
                "99:",
                wpawn = const PAWN,
                bpawn = const PAWN + BLACK_OFFSET,
                oe_x = const OE - 0x81,
                lj = const LINE | JUMP,
                jump = const JUMP,
                geometry = sym GEOMETRY,
                pages = sym FLASH_PAGES,
                pad_at = const PAD_AT,
                reach_at = const REACH_AT,
                inout("r25r24") self as *const Position => r,
                in("r22") sq,
                inout("r20") by as u8 => _,
                in("r18") vacated1,
                in("r16") vacated2,
                in("r14") filled,
                out("r19") _, out("r21") _, out("r23") _,
                out("X") _, out("Z") _,
            );
        }
        r as u8
    }

    /// [`Position::attacked_after`]: the host's (and the reference of the
    /// AVR's assembly).
    #[cfg(not(target_arch = "avr"))]
    pub(super) fn attacked_after(
        &self,
        sq: Square,
        by: Color,
        vacated1: Square,
        vacated2: Square,
        filled: Square,
    ) -> bool {
        let board = &self.board;
        let pawn = make_piece(by, PAWN);
        let (p1, p2) = match by {
            Color::White => (sq.wrapping_sub(15), sq.wrapping_sub(17)),
            Color::Black => (sq.wrapping_add(15), sq.wrapping_add(17)),
        };
        let pawn_on = |s: Square| on_board(s) && s != filled && s != vacated2 && board[s as usize] & CODE_MASK == pawn;
        if pawn_on(p1) || pawn_on(p2) {
            return true;
        }
        let list = &self.lists[by.index()];
        if is_adjacent(list[0], sq) {
            return true;
        }
        for slot in 1..self.officer_end[by.index()] {
            let s = list[(slot & 15) as usize];
            if s == NO_SQUARE || s == filled || s == vacated2 {
                continue;
            }
            let dir = reach(board[(s & 0x7F) as usize] & CODE_MASK, s, sq);
            if dir == JUMPS_THERE {
                return true;
            }
            if dir == 0 {
                continue;
            }
            let mut x = s.wrapping_add(dir);
            loop {
                if x == sq {
                    return true;
                }
                if x == filled || (x != vacated1 && x != vacated2 && board[(x & 0x7F) as usize] != EMPTY) {
                    break;
                }
                x = x.wrapping_add(dir);
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every [`GEOMETRY`] entry without LINE or JUMP bits is 0: the AVR's
    /// `least_attacker` (engine/see.rs) passes over a man whose entry is
    /// zero, not one whose reach bits are clear.
    #[test]
    fn geometry_entries_off_every_line_and_jump_are_zero() {
        for i in 0..239 {
            let e = GEOMETRY.get(i);
            if e & (LINE | JUMP) == 0 {
                assert_eq!(e, 0, "entry {i}");
            }
        }
    }

    /// The packed table answers like the arithmetic for every pair of squares.
    #[test]
    fn geometry_table_matches_the_arithmetic() {
        for a in (0..128u8).filter(|&s| on_board(s)) {
            for b in (0..128u8).filter(|&s| on_board(s)) {
                let df = (b & 7) as i8 - (a & 7) as i8;
                let dr = (b >> 4) as i8 - (a >> 4) as i8;
                assert_eq!(geometry(a, b), geometry_of(df, dr), "{a:#04x} {b:#04x}");
                if a != b && geometry(a, b) & LINE != 0 {
                    // The step by rank and file signs.
                    let step = (dr.signum() * 16 + df.signum()) as u8;
                    assert_eq!(direction(a, b), step, "{a:#04x} {b:#04x}");
                }
            }
        }
        for k in 0..8 {
            assert_eq!(DIRECTIONS.get(k), DIRECTION_STEPS[k]);
        }
        assert_eq!(geometry(0x00, 0x77), DIAGONAL);
        assert_eq!(geometry(0x10, 0x21), DIAGONAL | NEXT_DIAGONAL);
        assert_eq!(geometry(0x00, 0x12), JUMP);
        assert_eq!(geometry(0x70, 0x07), DIAGONAL);
        assert_eq!(geometry(0x03, 0x73), STRAIGHT);
        assert_eq!(geometry(0x00, 0x13), 0);
    }
}

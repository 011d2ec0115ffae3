//! Zobrist keys (32-bit) for the incremental position hash.
//!
//! The keys are produced at compile time by a fixed SplitMix64 stream, so the
//! tables are reproducible and live in flash (about 0.4 KB). A piece key is
//! composed from a per-piece and a per-square key: the square key with its
//! bytes permuted by the piece code, XORed with the piece key. That is 304
//! bytes of tables instead of 3 KB for all 768 keys, the flash the
//! firmware's UI needs; the permutation keeps the keys of one square for
//! different pieces unrelated.

use super::square::{to_index64, Square};

/// Next SplitMix64 state and output.
const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const fn keys<const N: usize>(seed: u64) -> [u32; N] {
    let mut out = [0u32; N];
    let mut state = seed;
    let mut i = 0;
    while i < N {
        let (s, z) = splitmix(state);
        state = s;
        out[i] = (z >> 32) as u32;
        i += 1;
    }
    out
}

/// One key per castling-rights bit, combined so that any set of rights is a
/// single table read (entry 0, no rights, is 0).
const fn castle_keys() -> [u32; 16] {
    let bits: [u32; 4] = keys(0xC4_57_1E);
    let mut out = [0u32; 16];
    let mut mask = 0;
    while mask < 16 {
        let mut k = 0;
        let mut b = 0;
        while b < 4 {
            if mask & (1 << b) != 0 {
                k ^= bits[b];
            }
            b += 1;
        }
        out[mask] = k;
        mask += 1;
    }
    out
}

/// The square keys, indexed by the square index 0..=63.
pub(super) const SQUARE_KEY_VALUES: [u32; 64] = keys(0x0C_E5_50_00_00_00_00_01);

crate::progmem! {
    /// [`SQUARE_KEY_VALUES`]. (The AVR's at a page's start, in
    /// [`FLASH_PAGES`](super::attacks::FLASH_PAGES): see [`square_keys`].)
    #[cfg(not(target_arch = "avr"))]
    pub(super) static SQUARE_KEYS: [u32; 64] = SQUARE_KEY_VALUES;
    /// [`PIECE_KIND_VALUES`] (the AVR's in `FLASH_PAGES`).
    #[cfg(not(target_arch = "avr"))]
    static PIECE_KINDS: [u32; 12] = PIECE_KIND_VALUES;
    /// Indexed by the castling-rights mask.
    pub(super) static CASTLE_KEYS: [u32; 16] = castle_keys();
    /// [`EP_KEY_VALUES`] (the AVR's in `FLASH_PAGES`).
    #[cfg(not(target_arch = "avr"))]
    static EP_KEYS: [u32; 8] = EP_KEY_VALUES;
}

/// The piece keys, indexed by `piece code - 1`.
pub(super) const PIECE_KIND_VALUES: [u32; 12] = keys(0x0C_E5_50_00_00_00_00_02);
/// The en-passant keys, indexed by the file of a capturable target.
pub(super) const EP_KEY_VALUES: [u32; 8] = keys(0xE9_F1_1E);

/// The piece keys' and the en-passant keys' tables in flash.
#[cfg(not(target_arch = "avr"))]
#[inline(always)]
fn piece_kinds() -> &'static crate::progmem::Table<u32, 12> {
    &PIECE_KINDS
}
#[cfg(not(target_arch = "avr"))]
#[inline(always)]
fn ep_keys() -> &'static crate::progmem::Table<u32, 8> {
    &EP_KEYS
}
#[cfg(target_arch = "avr")]
#[inline(always)]
fn ep_keys() -> &'static crate::progmem::Table<u32, 8> {
    &super::attacks::FLASH_PAGES.ep_keys
}

/// The square keys' table in flash.
#[cfg(not(target_arch = "avr"))]
#[inline(always)]
fn square_keys() -> &'static crate::progmem::Table<u32, 64> {
    &SQUARE_KEYS
}

/// The square keys' table in flash (the AVR's page-aligned one).
#[cfg(target_arch = "avr")]
#[inline(always)]
fn square_keys() -> &'static crate::progmem::Table<u32, 64> {
    &super::attacks::FLASH_PAGES.square_keys
}

/// XORed in when black is to move.
pub const SIDE_KEY: u32 = 0x5BD1_E995;

/// Key of piece code `code` (1..=12, flags ignored) on `sq`: the square's
/// key with its bytes permuted by the piece (12 distinct permutations),
/// XORed with the piece's key. Byte permutations are register moves on the
/// AVR; the bit rotations used before cost a loop of 32-bit shifts (181
/// cycles a call, 3.5% of the search).
///
/// (The AVR's assembly make has its own copy in line; its Rust path,
/// `make_move_general`, calls this one.)
#[cfg(target_arch = "avr")]
#[inline(never)]
pub extern "C" fn piece_key(code: u8, sq: Square) -> u32 {
    // The square's key at byte (sq + file) << 1 as in `move_key`, the
    // piece's code kept in r0 across `permuted` (which uses only
    // r20..r25 and takes the code itself), its key at byte
    // 4 * (code - 1) of PIECE_KINDS after.
    let lo: u16;
    let hi: u16;
    // SAFETY: reads the flash tables SQUARE_KEYS and PIECE_KINDS at
    // offsets below 256 and 64; calls `permuted` (C ABI) with its
    // arguments where it takes them.
    unsafe {
        core::arch::asm!(
            "    mov r30, r22",
            "    andi r30, 7",
            "    add r30, r22",
            "    lsl r30",
            "    ldi r31, hi8({sqkeys})",
            "    lpm r20, Z+",
            "    lpm r21, Z+",
            "    lpm r22, Z+",
            "    lpm r23, Z",
            "    mov r0, r24",
            "    call {permuted}",
            "    mov r30, r0",
            "    andi r30, 15",
            "    lsl r30",
            "    lsl r30",
            "    subi r30, lo8(-({pages}+{kinds_at}-4))",
            "    ldi r31, hi8({pages}+{kinds_at})",
            "    lpm r0, Z+",
            "    eor r22, r0",
            "    lpm r0, Z+",
            "    eor r23, r0",
            "    lpm r0, Z+",
            "    eor r24, r0",
            "    lpm r0, Z",
            "    eor r25, r0",
            sqkeys = sym super::attacks::FLASH_PAGES,
            pages = sym super::attacks::FLASH_PAGES,
            kinds_at = const super::attacks::PIECE_KINDS_AT,
            permuted = sym permuted,
            in("r24") code,
            in("r22") sq,
            lateout("r25r24") hi,
            lateout("r23r22") lo,
            out("r21r20") _,
            out("Z") _,
        );
    }
    (hi as u32) << 16 | lo as u32
}

/// [`piece_key`] on the host (the AVR's reference).
#[cfg(not(target_arch = "avr"))]
#[inline(never)]
pub extern "C" fn piece_key(code: u8, sq: Square) -> u32 {
    let c = (code & 0x0F).wrapping_sub(1) & 15;
    permuted(c, square_keys().get(to_index64(sq) as usize)) ^ piece_kinds().get(c as usize)
}

/// The two squares' keys XORed into r23..r20 (AVR assembly): `from` in
/// r22, `to` in the register named (read before r20..r23 are written),
/// each square's key at byte (sq + file) << 1 of the square keys' page
/// `{sqkeys}`; r19, r0 and Z clobbered. For [`move_key`] and the
/// assembly make, which has it in line (`makemove.rs`).
#[cfg(target_arch = "avr")]
macro_rules! square_pair_key_asm {
    ($to:literal) => {
        concat!(
            "    mov r30, r22\n",
            "    andi r30, 7\n",
            "    add r30, r22\n",
            "    lsl r30\n",
            "    mov r19, ", $to, "\n",
            "    andi r19, 7\n",
            "    add r19, ", $to, "\n",
            "    lsl r19\n",
            "    ldi r31, hi8({sqkeys})\n",
            "    lpm r20, Z+\n",
            "    lpm r21, Z+\n",
            "    lpm r22, Z+\n",
            "    lpm r23, Z\n",
            // (The same page: r31 kept.)
            "    mov r30, r19\n",
            "    lpm r0, Z+\n",
            "    eor r20, r0\n",
            "    lpm r0, Z+\n",
            "    eor r21, r0\n",
            "    lpm r0, Z+\n",
            "    eor r22, r0\n",
            "    lpm r0, Z\n",
            "    eor r23, r0\n",
        )
    };
}
#[cfg(target_arch = "avr")]
pub(super) use square_pair_key_asm;

/// `piece_key(code, from) ^ piece_key(code, to)`, the change of the hash
/// when the man moves, in one permutation: the piece's key cancels out,
/// and a byte permutation of an XOR is the XOR of the permutations.
/// (`bench engine`: the same 46,057 nodes in 635,445,380 cycles against
/// 639,493,761, -0.63%, for 124 B of flash. One function for both keys,
/// the second square optional, took 108 B and was 0.26% faster; a
/// shared out-of-line square-key read, 92 B and 0.28% faster.)
///
/// (The AVR's assembly make has its own copy in line; its Rust path,
/// `make_move_general`, calls this one.)
#[cfg(target_arch = "avr")]
#[inline(never)]
pub extern "C" fn move_key(code: u8, from: Square, to: Square) -> u32 {
    // Each square's key at byte 4 * index64 = (sq + file) << 1 of the
    // table (the compiler worked out the 64-square index and doubled it
    // twice in 16 bits), the two XORed into r23..r20, the piece's code
    // in r24, where `permuted` takes them.
    let lo: u16;
    let hi: u16;
    // SAFETY: reads the flash table SQUARE_KEYS at offsets below 256;
    // calls `permuted` (C ABI) with its arguments where it takes them.
    unsafe {
        core::arch::asm!(
            square_pair_key_asm!("r20"),
            "    call {permuted}",
            sqkeys = sym super::attacks::FLASH_PAGES,
            permuted = sym permuted,
            in("r24") code,
            in("r22") from,
            in("r20") to,
            lateout("r25r24") hi,
            lateout("r23r22") lo,
            lateout("r21r20") _,
            out("r18") _, out("r19") _, out("Z") _,
        );
    }
    (hi as u32) << 16 | lo as u32
}

/// [`move_key`] on the host (the AVR's reference).
#[cfg(not(target_arch = "avr"))]
#[inline(never)]
pub extern "C" fn move_key(code: u8, from: Square, to: Square) -> u32 {
    let c = (code & 0x0F).wrapping_sub(1) & 15;
    permuted(c, square_keys().get(to_index64(from) as usize) ^ square_keys().get(to_index64(to) as usize))
}

/// The bytes of `k` permuted by piece `c` (code - 1); one copy for both
/// keys.
#[cfg(not(target_arch = "avr"))]
#[inline(never)]
fn permuted(c: u8, k: u32) -> u32 {
    permuted_ref(c, k)
}

/// [`permuted`] on the AVR, by the piece code itself (`c` + 1, its flags
/// above bit 3 ignored: no `dec` and `andi` at its calls, `bench engine`
/// 0.041% fewer cycles, 16 B less): its bits pick one of the twelve permutations
/// (codes 12..=15 take the last, as the Rust's `_` arm, and 0 the
/// first; the codes of no man), each a few register moves from k's bytes (r20..r23) into the result's
/// (r22..r25), a `movw` where two bytes stay in order. The compiler's
/// match compared `c` one value at a time and put the result together
/// with 16-bit shifts and ORs (45 cycles a call). It uses only r20..r25:
/// the assembly make calls it with its values in the others. Each case returns
/// itself, no jump to a shared end: `bench engine` 0.04% fewer cycles,
/// 0 B.
#[cfg(target_arch = "avr")]
#[inline(never)]
pub(super) extern "C" fn permuted(code: u8, k: u32) -> u32 {
    let lo: u16;
    let hi: u16;
    // SAFETY: register moves, jumps within the block, and the returns
    // (the compiler adds nothing after the block but its own `ret`).
    unsafe {
        core::arch::asm!(
            // k's bytes: a r20, b r21, d r22, e r23; the result's r22..r25.
            "    sbrc r24, 3",
            "    rjmp 8f",
            "    sbrc r24, 2",
            "    rjmp 4f",
            "    sbrc r24, 1",
            "    rjmp 2f",
            // 1 (and 0): [a, b, d, e]
            "    movw r24, r22",
            "    movw r22, r20",
            "    ret",
            "2:  sbrc r24, 0",
            "    rjmp 3f",
            // 2: [b, a, e, d]
            "    mov r24, r23",
            "    mov r25, r22",
            "    mov r22, r21",
            "    mov r23, r20",
            "    ret",
            // 3: [d, e, a, b]
            "3:  movw r24, r20",
            "    ret",
            "4:  sbrc r24, 1",
            "    rjmp 6f",
            "    sbrc r24, 0",
            "    rjmp 5f",
            // 4: [e, d, b, a]
            "    mov r24, r21",
            "    mov r25, r20",
            "    mov r20, r22",
            "    mov r22, r23",
            "    mov r23, r20",
            "    ret",
            // 5: [b, d, e, a]
            "5:  mov r24, r23",
            "    mov r25, r20",
            "    mov r23, r22",
            "    mov r22, r21",
            "    ret",
            "6:  sbrc r24, 0",
            "    rjmp 7f",
            // 6: [d, a, b, e]
            "    mov r24, r21",
            "    mov r25, r23",
            "    mov r23, r20",
            "    ret",
            // 7: [e, a, d, b]
            "7:  mov r24, r22",
            "    mov r25, r21",
            "    mov r22, r23",
            "    mov r23, r20",
            "    ret",
            "8:  sbrc r24, 2",
            "    rjmp 12f",
            "    sbrc r24, 1",
            "    rjmp 10f",
            "    sbrc r24, 0",
            "    rjmp 9f",
            // 8: [a, e, b, d]
            "    mov r24, r21",
            "    mov r25, r22",
            "    mov r22, r20",
            "    ret",
            // 9: [d, b, a, e]
            "9:  mov r24, r20",
            "    mov r25, r23",
            "    mov r23, r21",
            "    ret",
            "10: sbrc r24, 0",
            "    rjmp 11f",
            // 10: [b, e, a, d]
            "    mov r24, r20",
            "    mov r25, r22",
            "    mov r22, r21",
            "    ret",
            // 11: [e, b, d, a]
            "11: mov r24, r22",
            "    mov r25, r20",
            "    mov r22, r23",
            "    mov r23, r21",
            "    ret",
            // 12 (and 13 to 15): [a, d, e, b]
            "12: mov r24, r23",
            "    mov r25, r21",
            "    mov r23, r22",
            "    mov r22, r20",
            inout("r21r20") k as u16 => _,
            inout("r23r22") (k >> 16) as u16 => lo,
            in("r24") code,
            lateout("r25r24") hi,
        );
    }
    (hi as u32) << 16 | lo as u32
}

/// The host's [`permuted`], the AVR's reference.
#[cfg_attr(target_arch = "avr", allow(dead_code))]
#[inline(always)]
fn permuted_ref(c: u8, k: u32) -> u32 {
    let [a, b, d, e] = k.to_le_bytes();
    let p = match c {
        0 => [a, b, d, e],
        1 => [b, a, e, d],
        2 => [d, e, a, b],
        3 => [e, d, b, a],
        4 => [b, d, e, a],
        5 => [d, a, b, e],
        6 => [e, a, d, b],
        7 => [a, e, b, d],
        8 => [d, b, a, e],
        9 => [b, e, a, d],
        10 => [e, b, d, a],
        _ => [a, d, e, b],
    };
    u32::from_le_bytes(p)
}

/// 16-bit key of a pawn of `color` on `sq` for the pawn key: one half of
/// the square's key each (independent random halves), a single table read.
#[inline(always)]
pub fn pawn_key(color: super::piece::Color, sq: Square) -> u16 {
    // White's key is the low half of the square's, Black's the high one.
    square_keys().half(2 * to_index64(sq) as usize + color.index())
}

/// Key of a castling-rights mask (0..=15).
#[inline(always)]
pub fn castle_key(rights: u8) -> u32 {
    CASTLE_KEYS.get((rights & 15) as usize)
}

/// Key of an en-passant file (0..=7).
#[inline(always)]
pub fn ep_key(file: u8) -> u32 {
    ep_keys().get((file & 7) as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_distinct_and_nonzero() {
        let mut all: [u32; 768 + 8] = [0; 776];
        for code in 1..=12u8 {
            for i in 0..64u8 {
                all[(code as usize - 1) * 64 + i as usize] = piece_key(code, super::super::square::from_index64(i));
            }
        }
        all[768..].copy_from_slice(ep_keys().as_slice());
        all.sort_unstable();
        assert!(all[0] != 0);
        assert!(all.windows(2).all(|w| w[0] != w[1]));
        assert_eq!(castle_key(0), 0);
    }

    #[test]
    fn move_key_is_the_two_piece_keys() {
        for code in 1..=12u8 {
            for a in 0..64u8 {
                for b in [0u8, 7, 27, 36, 63] {
                    let (a, b) = (super::super::square::from_index64(a), super::super::square::from_index64(b));
                    assert_eq!(move_key(code | 0x10, a, b), piece_key(code, a) ^ piece_key(code, b));
                }
            }
        }
    }
}

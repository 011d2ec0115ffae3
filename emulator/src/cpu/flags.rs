//! SREG bits and the flag formulas of the AVR instruction set manual.
//!
//! Each helper returns the new SREG given the old one, touching only the
//! bits the instruction defines. They are written as the manual's bit
//! equations (carry chains over whole bytes) rather than per-bit terms.

pub const C: u8 = 1 << 0;
pub const Z: u8 = 1 << 1;
pub const N: u8 = 1 << 2;
pub const V: u8 = 1 << 3;
pub const S: u8 = 1 << 4;
pub const H: u8 = 1 << 5;
pub const T: u8 = 1 << 6;
pub const I: u8 = 1 << 7;

/// N, and S = N ^ V, from the result and an already computed V bit.
#[inline(always)]
fn nsv(res: u8, v: bool) -> u8 {
    let n = res & 0x80 != 0;
    (if n { N } else { 0 }) | (if v { V } else { 0 }) | (if n ^ v { S } else { 0 })
}

#[inline(always)]
fn zf(res: u8) -> u8 {
    if res == 0 {
        Z
    } else {
        0
    }
}

/// ADD/ADC: H, S, V, N, Z, C.
#[inline(always)]
pub fn add(sreg: u8, d: u8, r: u8, res: u8) -> u8 {
    let carries = (d & r) | (r & !res) | (!res & d);
    let v = ((d & r & !res) | (!d & !r & res)) & 0x80 != 0;
    (sreg & (I | T))
        | (if carries & 0x08 != 0 { H } else { 0 })
        | (if carries & 0x80 != 0 { C } else { 0 })
        | nsv(res, v)
        | zf(res)
}

/// SUB/SUBI/CP/CPI: H, S, V, N, Z, C.
#[inline(always)]
pub fn sub(sreg: u8, d: u8, r: u8, res: u8) -> u8 {
    sub_z(sreg, d, r, res, res == 0)
}

/// SBC/SBCI/CPC: like SUB, but Z is only ever cleared (multi-byte compare).
#[inline(always)]
pub fn sbc(sreg: u8, d: u8, r: u8, res: u8) -> u8 {
    sub_z(sreg, d, r, res, res == 0 && sreg & Z != 0)
}

#[inline(always)]
fn sub_z(sreg: u8, d: u8, r: u8, res: u8, z: bool) -> u8 {
    let borrows = (!d & r) | (r & res) | (res & !d);
    let v = ((d & !r & !res) | (!d & r & res)) & 0x80 != 0;
    (sreg & (I | T))
        | (if borrows & 0x08 != 0 { H } else { 0 })
        | (if borrows & 0x80 != 0 { C } else { 0 })
        | nsv(res, v)
        | (if z { Z } else { 0 })
}

/// AND/OR/EOR/ANDI/ORI: S, V=0, N, Z.
#[inline(always)]
pub fn logic(sreg: u8, res: u8) -> u8 {
    (sreg & (I | T | H | C)) | nsv(res, false) | zf(res)
}

/// COM: S, V=0, N, Z, C=1.
#[inline(always)]
pub fn com(sreg: u8, res: u8) -> u8 {
    logic(sreg, res) | C
}

/// NEG: H, S, V, N, Z, C (as 0 - d).
#[inline(always)]
pub fn neg(sreg: u8, d: u8, res: u8) -> u8 {
    sub(sreg, 0, d, res)
}

/// INC: S, V, N, Z (C and H untouched).
#[inline(always)]
pub fn inc(sreg: u8, res: u8) -> u8 {
    (sreg & (I | T | H | C)) | nsv(res, res == 0x80) | zf(res)
}

/// DEC: S, V, N, Z (C and H untouched).
#[inline(always)]
pub fn dec(sreg: u8, res: u8) -> u8 {
    (sreg & (I | T | H | C)) | nsv(res, res == 0x7F) | zf(res)
}

/// ASR/LSR/ROR: S, V = N ^ C, N, Z, C = the bit shifted out.
#[inline(always)]
pub fn shift_right(sreg: u8, d: u8, res: u8) -> u8 {
    let c = d & 1 != 0;
    let n = res & 0x80 != 0;
    (sreg & (I | T | H)) | (if c { C } else { 0 }) | nsv(res, n ^ c) | zf(res)
}

/// ADIW: S, V, N, Z, C over the 16-bit result.
#[inline(always)]
pub fn adiw(sreg: u8, d: u16, res: u16) -> u8 {
    let v = !d & res & 0x8000 != 0;
    let c = !res & d & 0x8000 != 0;
    word_flags(sreg, res, v, c)
}

/// SBIW: S, V, N, Z, C over the 16-bit result.
#[inline(always)]
pub fn sbiw(sreg: u8, d: u16, res: u16) -> u8 {
    let v = d & !res & 0x8000 != 0;
    let c = res & !d & 0x8000 != 0;
    word_flags(sreg, res, v, c)
}

#[inline(always)]
fn word_flags(sreg: u8, res: u16, v: bool, c: bool) -> u8 {
    let n = res & 0x8000 != 0;
    (sreg & (I | T | H))
        | (if c { C } else { 0 })
        | (if v { V } else { 0 })
        | (if n { N } else { 0 })
        | (if n ^ v { S } else { 0 })
        | (if res == 0 { Z } else { 0 })
}

/// MUL/MULS/MULSU/FMUL*: Z from the 16-bit result, C from `c_bit` (bit 15
/// of the product before any FMUL shift).
#[inline(always)]
pub fn mul(sreg: u8, res: u16, c_bit: bool) -> u8 {
    (sreg & !(Z | C)) | (if res == 0 { Z } else { 0 }) | (if c_bit { C } else { 0 })
}

//! Pre-decoding of flash words into [`Instr`], a compact `Copy` form the
//! executor can dispatch on without re-extracting bit fields.
//!
//! Flash is decoded once when it is loaded (and word by word when it is
//! written), so the hot loop never looks at raw opcodes. `Instr` is 4 bytes:
//! a tag plus at most a byte and a 16-bit field.

/// Pointer register and addressing mode of `LD`/`ST`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ptr {
    X,
    XInc,
    XDec,
    YInc,
    YDec,
    ZInc,
    ZDec,
}

impl Ptr {
    /// Data-space address of the low byte of the pointer register.
    pub fn reg(self) -> u8 {
        match self {
            Ptr::X | Ptr::XInc | Ptr::XDec => 26,
            Ptr::YInc | Ptr::YDec => 28,
            Ptr::ZInc | Ptr::ZDec => 30,
        }
    }
}

/// One decoded instruction. Register operands are register numbers
/// (0..=31), I/O operands are I/O addresses (0..=63, not data-space), bit
/// numbers are 0..=7 and relative jumps are in words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Instr {
    Nop,
    Movw { d: u8, r: u8 },
    Muls { d: u8, r: u8 },
    Mulsu { d: u8, r: u8 },
    Fmul { d: u8, r: u8 },
    Fmuls { d: u8, r: u8 },
    Fmulsu { d: u8, r: u8 },
    Cpc { d: u8, r: u8 },
    Sbc { d: u8, r: u8 },
    Add { d: u8, r: u8 },
    Cpse { d: u8, r: u8 },
    Cp { d: u8, r: u8 },
    Sub { d: u8, r: u8 },
    Adc { d: u8, r: u8 },
    And { d: u8, r: u8 },
    Eor { d: u8, r: u8 },
    Or { d: u8, r: u8 },
    Mov { d: u8, r: u8 },
    Mul { d: u8, r: u8 },
    Cpi { d: u8, k: u8 },
    Sbci { d: u8, k: u8 },
    Subi { d: u8, k: u8 },
    Ori { d: u8, k: u8 },
    Andi { d: u8, k: u8 },
    Ldi { d: u8, k: u8 },
    /// `LDD Rd, Y+q` / `LDD Rd, Z+q` (`LD Rd, Y` is `q = 0`); `y` picks Y.
    Ldd { d: u8, q: u8, y: bool },
    Std { r: u8, q: u8, y: bool },
    Ld { d: u8, ptr: Ptr },
    St { r: u8, ptr: Ptr },
    /// Two words: the address is the second word.
    Lds { d: u8, k: u16 },
    Sts { r: u8, k: u16 },
    /// `LPM` (into r0, no increment).
    Lpm0,
    Lpm { d: u8, inc: bool },
    Pop { d: u8 },
    Push { r: u8 },
    Com { d: u8 },
    Neg { d: u8 },
    Swap { d: u8 },
    Inc { d: u8 },
    Asr { d: u8 },
    Lsr { d: u8 },
    Ror { d: u8 },
    Dec { d: u8 },
    /// `BSET s` / `BCLR s` (SEC, CLI, ...).
    Bset { s: u8 },
    Bclr { s: u8 },
    Ret,
    Reti,
    Sleep,
    Break,
    Wdr,
    Spm,
    Ijmp,
    Icall,
    /// Two words; `k` is the 22-bit word address split as `hi:k`.
    Jmp { hi: u8, k: u16 },
    Call { hi: u8, k: u16 },
    Adiw { d: u8, k: u8 },
    Sbiw { d: u8, k: u8 },
    Cbi { a: u8, b: u8 },
    Sbic { a: u8, b: u8 },
    Sbi { a: u8, b: u8 },
    Sbis { a: u8, b: u8 },
    In { d: u8, a: u8 },
    Out { r: u8, a: u8 },
    Rjmp { k: i16 },
    Rcall { k: i16 },
    /// `BRBS s, k` / `BRBC s, k` (BREQ, BRNE, ...).
    Brbs { s: u8, k: i8 },
    Brbc { s: u8, k: i8 },
    Bld { d: u8, b: u8 },
    Bst { d: u8, b: u8 },
    Sbrc { r: u8, b: u8 },
    Sbrs { r: u8, b: u8 },
    /// Not an ATmega644 instruction (this includes the XMEGA/ELPM/EIJMP
    /// opcodes of bigger parts). Executing it is a fault.
    Undefined { word: u16 },
}

impl Instr {
    /// Size in words: 2 for `JMP`, `CALL`, `LDS`, `STS`.
    #[inline]
    pub fn words(self) -> u32 {
        match self {
            Instr::Jmp { .. } | Instr::Call { .. } | Instr::Lds { .. } | Instr::Sts { .. } => 2,
            _ => 1,
        }
    }

    /// The full 22-bit target of `JMP`/`CALL`.
    pub fn long_target(hi: u8, k: u16) -> u32 {
        (hi as u32) << 16 | k as u32
    }
}

/// True if `word` is the first word of a two-word instruction.
pub fn is_two_word(word: u16) -> bool {
    // JMP/CALL: 1001 010k kkkk 11xk; LDS/STS: 1001 00xd dddd 0000.
    (word & 0xFE0C) == 0x940C || (word & 0xFC0F) == 0x9000
}

/// Decodes the instruction starting with `word`; `next` is the following
/// flash word (only used by two-word instructions).
pub fn decode(word: u16, next: u16) -> Instr {
    use Instr::*;
    let w = word;
    // Common field extractions.
    let d5 = ((w >> 4) & 0x1F) as u8;
    let r5 = ((w & 0x0F) | ((w >> 5) & 0x10)) as u8;
    let d4 = 16 + ((w >> 4) & 0x0F) as u8;
    let k8 = (((w >> 4) & 0xF0) | (w & 0x0F)) as u8;
    let undefined = Undefined { word };
    match w >> 12 {
        0x0 => match (w >> 10) & 3 {
            0 => match (w >> 8) & 3 {
                0 => {
                    if w == 0 {
                        Nop
                    } else {
                        undefined
                    }
                }
                1 => Movw { d: ((w >> 4) & 0xF) as u8 * 2, r: (w & 0xF) as u8 * 2 },
                2 => Muls { d: d4, r: 16 + (w & 0xF) as u8 },
                _ => {
                    let d = 16 + ((w >> 4) & 7) as u8;
                    let r = 16 + (w & 7) as u8;
                    match ((w >> 7) & 1, (w >> 3) & 1) {
                        (0, 0) => Mulsu { d, r },
                        (0, _) => Fmul { d, r },
                        (_, 0) => Fmuls { d, r },
                        _ => Fmulsu { d, r },
                    }
                }
            },
            1 => Cpc { d: d5, r: r5 },
            2 => Sbc { d: d5, r: r5 },
            _ => Add { d: d5, r: r5 },
        },
        0x1 => match (w >> 10) & 3 {
            0 => Cpse { d: d5, r: r5 },
            1 => Cp { d: d5, r: r5 },
            2 => Sub { d: d5, r: r5 },
            _ => Adc { d: d5, r: r5 },
        },
        0x2 => match (w >> 10) & 3 {
            0 => And { d: d5, r: r5 },
            1 => Eor { d: d5, r: r5 },
            2 => Or { d: d5, r: r5 },
            _ => Mov { d: d5, r: r5 },
        },
        0x3 => Cpi { d: d4, k: k8 },
        0x4 => Sbci { d: d4, k: k8 },
        0x5 => Subi { d: d4, k: k8 },
        0x6 => Ori { d: d4, k: k8 },
        0x7 => Andi { d: d4, k: k8 },
        0x8 | 0xA => {
            let q = ((w & 7) | ((w >> 7) & 0x18) | ((w >> 8) & 0x20)) as u8;
            let y = w & 8 != 0;
            if w & 0x0200 == 0 {
                Ldd { d: d5, q, y }
            } else {
                Std { r: d5, q, y }
            }
        }
        0x9 => decode_9(w, next, d5, r5),
        0xB => {
            let a = ((w & 0x0F) | ((w >> 5) & 0x30)) as u8;
            if w & 0x0800 == 0 {
                In { d: d5, a }
            } else {
                Out { r: d5, a }
            }
        }
        0xC => Rjmp { k: sign_extend_12(w) },
        0xD => Rcall { k: sign_extend_12(w) },
        0xE => Ldi { d: d4, k: k8 },
        _ => {
            let b = (w & 7) as u8;
            match (w >> 9) & 7 {
                0 | 1 => Brbs { s: b, k: sign_extend_7(w >> 3) },
                2 | 3 => Brbc { s: b, k: sign_extend_7(w >> 3) },
                _ if w & 8 != 0 => undefined,
                4 => Bld { d: d5, b },
                5 => Bst { d: d5, b },
                6 => Sbrc { r: d5, b },
                _ => Sbrs { r: d5, b },
            }
        }
    }
}

/// The 0x9xxx block: loads/stores, one-operand ops, jumps, I/O bits, MUL.
fn decode_9(w: u16, next: u16, d5: u8, r5: u8) -> Instr {
    use Instr::*;
    let undefined = Undefined { word: w };
    match (w >> 9) & 7 {
        // 1001 000d dddd xxxx: loads.
        0 => match w & 0xF {
            0x0 => Lds { d: d5, k: next },
            0x1 => Ld { d: d5, ptr: Ptr::ZInc },
            0x2 => Ld { d: d5, ptr: Ptr::ZDec },
            0x4 => Lpm { d: d5, inc: false },
            0x5 => Lpm { d: d5, inc: true },
            0x9 => Ld { d: d5, ptr: Ptr::YInc },
            0xA => Ld { d: d5, ptr: Ptr::YDec },
            0xC => Ld { d: d5, ptr: Ptr::X },
            0xD => Ld { d: d5, ptr: Ptr::XInc },
            0xE => Ld { d: d5, ptr: Ptr::XDec },
            0xF => Pop { d: d5 },
            _ => undefined, // ELPM (0x6, 0x7) is not on a 64 KB part.
        },
        // 1001 001r rrrr xxxx: stores.
        1 => match w & 0xF {
            0x0 => Sts { r: d5, k: next },
            0x1 => St { r: d5, ptr: Ptr::ZInc },
            0x2 => St { r: d5, ptr: Ptr::ZDec },
            0x9 => St { r: d5, ptr: Ptr::YInc },
            0xA => St { r: d5, ptr: Ptr::YDec },
            0xC => St { r: d5, ptr: Ptr::X },
            0xD => St { r: d5, ptr: Ptr::XInc },
            0xE => St { r: d5, ptr: Ptr::XDec },
            0xF => Push { r: d5 },
            _ => undefined, // XCH/LAS/LAC/LAT are XMEGA-only.
        },
        // 1001 010x xxxx xxxx: one-operand instructions and jumps.
        2 => match w & 0xF {
            0x0 => Com { d: d5 },
            0x1 => Neg { d: d5 },
            0x2 => Swap { d: d5 },
            0x3 => Inc { d: d5 },
            0x5 => Asr { d: d5 },
            0x6 => Lsr { d: d5 },
            0x7 => Ror { d: d5 },
            0xA => Dec { d: d5 },
            0x8 => decode_misc(w),
            0x9 => match w {
                0x9409 => Ijmp,
                0x9509 => Icall,
                _ => undefined, // EIJMP/EICALL: no EIND on a 64 KB part.
            },
            0xC | 0xD => {
                let (hi, k) = long_address(w, next);
                Jmp { hi, k }
            }
            0xE | 0xF => {
                let (hi, k) = long_address(w, next);
                Call { hi, k }
            }
            _ => undefined, // 0x4 is reserved, 0xB is the XMEGA DES.
        },
        3 => {
            let d = 24 + ((w >> 3) & 6) as u8;
            let k = ((w & 0xF) | ((w >> 2) & 0x30)) as u8;
            if w & 0x0100 == 0 {
                Adiw { d, k }
            } else {
                Sbiw { d, k }
            }
        }
        4 | 5 => {
            let a = ((w >> 3) & 0x1F) as u8;
            let b = (w & 7) as u8;
            match (w >> 8) & 3 {
                0 => Cbi { a, b },
                1 => Sbic { a, b },
                2 => Sbi { a, b },
                _ => Sbis { a, b },
            }
        }
        _ => Mul { d: d5, r: r5 },
    }
}

/// 1001 010x xxxx 1000: SREG bit set/clear and the operand-less group.
fn decode_misc(w: u16) -> Instr {
    use Instr::*;
    if w & 0x0100 == 0 {
        let s = ((w >> 4) & 7) as u8;
        return if w & 0x80 == 0 { Bset { s } } else { Bclr { s } };
    }
    match w {
        0x9508 => Ret,
        0x9518 => Reti,
        0x9588 => Sleep,
        0x9598 => Break,
        0x95A8 => Wdr,
        0x95C8 => Lpm0,
        0x95E8 => Spm,
        _ => Undefined { word: w }, // ELPM/SPM Z+ and reserved encodings.
    }
}

fn long_address(w: u16, next: u16) -> (u8, u16) {
    let hi = (((w >> 3) & 0x3E) | (w & 1)) as u8;
    (hi, next)
}

fn sign_extend_12(w: u16) -> i16 {
    (((w & 0x0FFF) << 4) as i16) >> 4
}

fn sign_extend_7(v: u16) -> i8 {
    (((v & 0x7F) << 1) as u8 as i8) >> 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instr_is_four_bytes() {
        assert_eq!(std::mem::size_of::<Instr>(), 4);
    }

    #[test]
    fn two_word_detection_matches_decoder() {
        for w in 0..=u16::MAX {
            assert_eq!(is_two_word(w), decode(w, 0).words() == 2, "word {w:#06x}");
        }
    }

    #[test]
    fn a_few_encodings() {
        assert_eq!(decode(0x0000, 0), Instr::Nop);
        assert_eq!(decode(0xE0F5, 0), Instr::Ldi { d: 31, k: 5 });
        assert_eq!(decode(0x940C, 0x1234), Instr::Jmp { hi: 0, k: 0x1234 });
        assert_eq!(decode(0xCFFF, 0), Instr::Rjmp { k: -1 });
        assert_eq!(decode(0xF3F9, 0), Instr::Brbs { s: 1, k: -1 });
        assert_eq!(decode(0x9701, 0), Instr::Sbiw { d: 24, k: 1 });
        assert_eq!(decode(0xFFFF, 0), Instr::Undefined { word: 0xFFFF });
    }
}

//! Property tests: results and flags of the ALU instructions against a
//! reference written from the datasheet's arithmetic definitions (carries
//! as "sum out of range", overflow as "signed result out of range") rather
//! than the bit equations the emulator uses.

use emulator::cpu::flags::{C, H, I, N, S, T, V, Z};
use emulator::{Avr, Config, Stop};
use proptest::prelude::*;

/// Executes the single instruction `word` with the given registers and SREG.
fn exec(word: u16, regs: &[(u8, u8)], sreg: u8) -> (Avr, u64) {
    let mut avr = Avr::with_peripherals(Config::default(), Vec::new());
    avr.load_flash(&word.to_le_bytes()).unwrap();
    for &(r, v) in regs {
        avr.set_reg(r, v);
    }
    avr.set_sreg(sreg);
    assert_eq!(avr.step(), Stop::Stepped);
    let cycles = avr.cycles();
    (avr, cycles)
}

fn bit(cond: bool, flag: u8) -> u8 {
    if cond {
        flag
    } else {
        0
    }
}

/// N, S, Z from a result and V.
fn nsz(res: u8, v: bool) -> u8 {
    let n = res & 0x80 != 0;
    bit(n, N) | bit(n ^ v, S) | bit(res == 0, Z) | bit(v, V)
}

/// Reference ADD/ADC: result and all six arithmetic flags.
fn ref_add(d: u8, r: u8, c: u8) -> (u8, u8) {
    let res = d.wrapping_add(r).wrapping_add(c);
    let carry = d as u16 + r as u16 + c as u16 > 0xFF;
    let half = (d & 15) + (r & 15) + c > 15;
    let signed = d as i8 as i16 + r as i8 as i16 + c as i16;
    let v = !(-128..=127).contains(&signed);
    (res, bit(carry, C) | bit(half, H) | nsz(res, v))
}

/// Reference SUB/SBC (Z computed plainly; callers fix it up for SBC).
fn ref_sub(d: u8, r: u8, c: u8) -> (u8, u8) {
    let res = d.wrapping_sub(r).wrapping_sub(c);
    let borrow = (d as u16) < r as u16 + c as u16;
    let half = (d & 15) < (r & 15) + c;
    let signed = d as i8 as i16 - r as i8 as i16 - c as i16;
    let v = !(-128..=127).contains(&signed);
    (res, bit(borrow, C) | bit(half, H) | nsz(res, v))
}

const ARITH: u8 = C | Z | N | V | S | H;

fn rr(op: u16, d: u8, r: u8) -> u16 {
    op | ((r as u16 & 0x10) << 5) | ((d as u16) << 4) | (r as u16 & 0xF)
}

fn imm(op: u16, d: u8, k: u8) -> u16 {
    op | ((k as u16 & 0xF0) << 4) | (((d - 16) as u16) << 4) | (k as u16 & 0xF)
}

fn one(low: u16, d: u8) -> u16 {
    0x9400 | ((d as u16) << 4) | low
}

/// Operand values, honouring d == r.
fn operands(d: u8, r: u8, dv: u8, rv: u8) -> (u8, u8, Vec<(u8, u8)>) {
    let rv = if d == r { dv } else { rv };
    (dv, rv, vec![(d, dv), (r, rv)])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn add_adc(d in 0u8..32, r in 0u8..32, dv: u8, rv: u8, sreg: u8, with_carry: bool) {
        let (dv, rv, regs) = operands(d, r, dv, rv);
        let c = if with_carry { sreg & C } else { 0 };
        let op = if with_carry { 0x1C00 } else { 0x0C00 };
        let (avr, cycles) = exec(rr(op, d, r), &regs, sreg);
        let (res, fl) = ref_add(dv, rv, c);
        prop_assert_eq!(avr.reg(d), res);
        prop_assert_eq!(avr.sreg(), (sreg & !ARITH) | fl);
        prop_assert_eq!(cycles, 1);
    }

    #[test]
    fn sub_sbc_cp_cpc(d in 0u8..32, r in 0u8..32, dv: u8, rv: u8, sreg: u8, kind in 0usize..4) {
        let (dv, rv, regs) = operands(d, r, dv, rv);
        let (op, carry, store) = [(0x1800, false, true), (0x0800, true, true), (0x1400, false, false), (0x0400, true, false)][kind];
        let c = if carry { sreg & C } else { 0 };
        let (avr, _) = exec(rr(op, d, r), &regs, sreg);
        let (res, mut fl) = ref_sub(dv, rv, c);
        if carry && sreg & Z == 0 {
            fl &= !Z; // SBC/CPC: Z is only ever cleared.
        }
        prop_assert_eq!(avr.reg(d), if store { res } else { dv });
        prop_assert_eq!(avr.sreg(), (sreg & !ARITH) | fl);
    }

    #[test]
    fn subi_sbci(d in 16u8..32, dv: u8, k: u8, sreg: u8, carry: bool) {
        let op = if carry { 0x4000 } else { 0x5000 };
        let c = if carry { sreg & C } else { 0 };
        let (avr, _) = exec(imm(op, d, k), &[(d, dv)], sreg);
        let (res, mut fl) = ref_sub(dv, k, c);
        if carry && sreg & Z == 0 {
            fl &= !Z;
        }
        prop_assert_eq!(avr.reg(d), res);
        prop_assert_eq!(avr.sreg(), (sreg & !ARITH) | fl);
    }

    #[test]
    fn and_or_eor(d in 0u8..32, r in 0u8..32, dv: u8, rv: u8, sreg: u8, kind in 0usize..3) {
        let (dv, rv, regs) = operands(d, r, dv, rv);
        let op = [0x2000, 0x2800, 0x2400][kind];
        let res = [dv & rv, dv | rv, dv ^ rv][kind];
        let (avr, _) = exec(rr(op, d, r), &regs, sreg);
        prop_assert_eq!(avr.reg(d), res);
        prop_assert_eq!(avr.sreg(), (sreg & !(Z | N | V | S)) | nsz(res, false));
    }

    #[test]
    fn com_neg(d in 0u8..32, dv: u8, sreg: u8) {
        let (avr, _) = exec(one(0x0, d), &[(d, dv)], sreg);
        prop_assert_eq!(avr.reg(d), !dv);
        prop_assert_eq!(avr.sreg(), (sreg & !(Z | N | V | S | C)) | nsz(!dv, false) | C);
        let (avr, _) = exec(one(0x1, d), &[(d, dv)], sreg);
        let (res, fl) = ref_sub(0, dv, 0);
        prop_assert_eq!(avr.reg(d), res);
        prop_assert_eq!(avr.sreg(), (sreg & !ARITH) | fl);
    }

    #[test]
    fn inc_dec(d in 0u8..32, dv: u8, sreg: u8) {
        let keep = !(Z | N | V | S);
        let (avr, _) = exec(one(0x3, d), &[(d, dv)], sreg);
        let res = dv.wrapping_add(1);
        prop_assert_eq!(avr.reg(d), res);
        prop_assert_eq!(avr.sreg(), (sreg & keep) | nsz(res, dv == 0x7F));
        let (avr, _) = exec(one(0xA, d), &[(d, dv)], sreg);
        let res = dv.wrapping_sub(1);
        prop_assert_eq!(avr.reg(d), res);
        prop_assert_eq!(avr.sreg(), (sreg & keep) | nsz(res, dv == 0x80));
    }

    #[test]
    fn asr_lsr_ror(d in 0u8..32, dv: u8, sreg: u8, kind in 0usize..3) {
        let low = [0x5, 0x6, 0x7][kind];
        let res = [((dv as i8) >> 1) as u8, dv >> 1, (dv >> 1) | ((sreg & C) << 7)][kind];
        let (avr, _) = exec(one(low, d), &[(d, dv)], sreg);
        let c = dv & 1 != 0;
        let n = res & 0x80 != 0;
        prop_assert_eq!(avr.reg(d), res);
        prop_assert_eq!(avr.sreg(), (sreg & (I | T | H)) | bit(c, C) | nsz(res, n ^ c));
    }

    #[test]
    fn adiw_sbiw(pair in 0u8..4, v: u16, k in 0u8..64, sreg: u8, sub: bool) {
        let d = 24 + 2 * pair;
        let word = (if sub { 0x9700 } else { 0x9600 }) | ((k as u16 & 0x30) << 2) | ((pair as u16) << 4) | (k as u16 & 0xF);
        let (avr, cycles) = exec(word, &[(d, v as u8), (d + 1, (v >> 8) as u8)], sreg);
        let (res, carry, signed) = if sub {
            (v.wrapping_sub(k as u16), (v as u32) < k as u32, v as i16 as i32 - k as i32)
        } else {
            (v.wrapping_add(k as u16), v as u32 + k as u32 > 0xFFFF, v as i16 as i32 + k as i32)
        };
        let ov = !(-32768..=32767).contains(&signed);
        let n = res & 0x8000 != 0;
        prop_assert_eq!(avr.reg_pair(d), res);
        prop_assert_eq!(avr.sreg(), (sreg & (I | T | H)) | bit(carry, C) | bit(ov, V) | bit(n, N) | bit(n ^ ov, S) | bit(res == 0, Z));
        prop_assert_eq!(cycles, 2);
    }

    #[test]
    fn multiplications(d in 16u8..24, r in 16u8..24, dv: u8, rv: u8, sreg: u8, kind in 0usize..6) {
        let (dv, rv, regs) = operands(d, r, dv, rv);
        let (word, product): (u16, i32) = match kind {
            0 => (rr(0x9C00, d, r), dv as i32 * rv as i32),
            1 => (0x0200 | ((d as u16 - 16) << 4) | (r as u16 - 16), dv as i8 as i32 * rv as i8 as i32),
            2 => (0x0300 | ((d as u16 - 16) << 4) | (r as u16 - 16), dv as i8 as i32 * rv as i32),
            3 => (0x0308 | ((d as u16 - 16) << 4) | (r as u16 - 16), dv as i32 * rv as i32),
            4 => (0x0380 | ((d as u16 - 16) << 4) | (r as u16 - 16), dv as i8 as i32 * rv as i8 as i32),
            _ => (0x0388 | ((d as u16 - 16) << 4) | (r as u16 - 16), dv as i8 as i32 * rv as i32),
        };
        let raw = product as u16;
        let res = if kind >= 3 { raw << 1 } else { raw };
        let (avr, cycles) = exec(word, &regs, sreg);
        prop_assert_eq!(avr.reg_pair(0), res);
        prop_assert_eq!(avr.sreg(), (sreg & !(Z | C)) | bit(raw & 0x8000 != 0, C) | bit(res == 0, Z));
        prop_assert_eq!(cycles, 2);
    }
}

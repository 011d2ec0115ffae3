//! Instruction execution: exact results, flags and cycle counts of the
//! ATmega644 (AVRe+, 16-bit PC).
//!
//! `execute` runs the instruction at `self.pc`. `self.pc` keeps pointing at
//! that instruction until the very end (faults, warnings and peripheral
//! contexts name it) and `self.cycles` is its start cycle until the end, so
//! bus accesses pass their cycle as an offset from it. `DEBUG` compiles a
//! second copy with watchpoint checks on every data access.

use super::decode::{Instr, Ptr};
use super::flags::{self, C, I, T};
use crate::avr::Avr;
use crate::device::{spmcsr, PC_MASK, SPM_PAGE_BYTES};

impl Avr {
    #[inline(always)]
    fn r(&self, n: u8) -> u8 {
        self.data[n as usize]
    }

    #[inline(always)]
    fn set_r(&mut self, n: u8, v: u8) {
        self.data[n as usize] = v;
    }

    #[inline(always)]
    fn pair(&self, n: u8) -> u16 {
        u16::from_le_bytes([self.data[n as usize], self.data[n as usize + 1]])
    }

    #[inline(always)]
    fn set_pair(&mut self, n: u8, v: u16) {
        let [lo, hi] = v.to_le_bytes();
        self.data[n as usize] = lo;
        self.data[n as usize + 1] = hi;
    }

    /// Words to skip over the instruction after the one at `pc` (1 or 2).
    #[inline(always)]
    fn skip_words(&self, pc: u32) -> u32 {
        self.decoded[((pc + 1) & PC_MASK) as usize].words()
    }

    /// Executes one instruction.
    #[inline(always)]
    pub(crate) fn execute<const DEBUG: bool>(&mut self) {
        use Instr::*;
        let pc = self.pc;
        let instr = self.decoded[(pc & PC_MASK) as usize];
        let mut next = pc + 1;
        let sreg = self.sreg;
        let cycles: u64 = match instr {
            Nop => 1,
            Movw { d, r } => {
                let v = self.pair(r);
                self.set_pair(d, v);
                1
            }
            Mov { d, r } => {
                self.set_r(d, self.r(r));
                1
            }
            Ldi { d, k } => {
                self.set_r(d, k);
                1
            }

            // --- arithmetic and logic ---------------------------------------
            Add { d, r } => {
                let (a, b) = (self.r(d), self.r(r));
                let res = a.wrapping_add(b);
                self.sreg = flags::add(sreg, a, b, res);
                self.set_r(d, res);
                1
            }
            Adc { d, r } => {
                let (a, b) = (self.r(d), self.r(r));
                let res = a.wrapping_add(b).wrapping_add(sreg & C);
                self.sreg = flags::add(sreg, a, b, res);
                self.set_r(d, res);
                1
            }
            Sub { d, r } => {
                let (a, b) = (self.r(d), self.r(r));
                let res = a.wrapping_sub(b);
                self.sreg = flags::sub(sreg, a, b, res);
                self.set_r(d, res);
                1
            }
            Subi { d, k } => {
                let a = self.r(d);
                let res = a.wrapping_sub(k);
                self.sreg = flags::sub(sreg, a, k, res);
                self.set_r(d, res);
                1
            }
            Sbc { d, r } => {
                let (a, b) = (self.r(d), self.r(r));
                let res = a.wrapping_sub(b).wrapping_sub(sreg & C);
                self.sreg = flags::sbc(sreg, a, b, res);
                self.set_r(d, res);
                1
            }
            Sbci { d, k } => {
                let a = self.r(d);
                let res = a.wrapping_sub(k).wrapping_sub(sreg & C);
                self.sreg = flags::sbc(sreg, a, k, res);
                self.set_r(d, res);
                1
            }
            Cp { d, r } => {
                let (a, b) = (self.r(d), self.r(r));
                self.sreg = flags::sub(sreg, a, b, a.wrapping_sub(b));
                1
            }
            Cpc { d, r } => {
                let (a, b) = (self.r(d), self.r(r));
                self.sreg = flags::sbc(sreg, a, b, a.wrapping_sub(b).wrapping_sub(sreg & C));
                1
            }
            Cpi { d, k } => {
                let a = self.r(d);
                self.sreg = flags::sub(sreg, a, k, a.wrapping_sub(k));
                1
            }
            And { d, r } => {
                let res = self.r(d) & self.r(r);
                self.sreg = flags::logic(sreg, res);
                self.set_r(d, res);
                1
            }
            Andi { d, k } => {
                let res = self.r(d) & k;
                self.sreg = flags::logic(sreg, res);
                self.set_r(d, res);
                1
            }
            Or { d, r } => {
                let res = self.r(d) | self.r(r);
                self.sreg = flags::logic(sreg, res);
                self.set_r(d, res);
                1
            }
            Ori { d, k } => {
                let res = self.r(d) | k;
                self.sreg = flags::logic(sreg, res);
                self.set_r(d, res);
                1
            }
            Eor { d, r } => {
                let res = self.r(d) ^ self.r(r);
                self.sreg = flags::logic(sreg, res);
                self.set_r(d, res);
                1
            }
            Com { d } => {
                let res = !self.r(d);
                self.sreg = flags::com(sreg, res);
                self.set_r(d, res);
                1
            }
            Neg { d } => {
                let a = self.r(d);
                let res = 0u8.wrapping_sub(a);
                self.sreg = flags::neg(sreg, a, res);
                self.set_r(d, res);
                1
            }
            Inc { d } => {
                let res = self.r(d).wrapping_add(1);
                self.sreg = flags::inc(sreg, res);
                self.set_r(d, res);
                1
            }
            Dec { d } => {
                let res = self.r(d).wrapping_sub(1);
                self.sreg = flags::dec(sreg, res);
                self.set_r(d, res);
                1
            }
            Swap { d } => {
                let a = self.r(d);
                self.set_r(d, a.rotate_left(4));
                1
            }
            Asr { d } => {
                let a = self.r(d);
                let res = ((a as i8) >> 1) as u8;
                self.sreg = flags::shift_right(sreg, a, res);
                self.set_r(d, res);
                1
            }
            Lsr { d } => {
                let a = self.r(d);
                let res = a >> 1;
                self.sreg = flags::shift_right(sreg, a, res);
                self.set_r(d, res);
                1
            }
            Ror { d } => {
                let a = self.r(d);
                let res = (a >> 1) | ((sreg & C) << 7);
                self.sreg = flags::shift_right(sreg, a, res);
                self.set_r(d, res);
                1
            }
            Adiw { d, k } => {
                let a = self.pair(d);
                let res = a.wrapping_add(k as u16);
                self.sreg = flags::adiw(sreg, a, res);
                self.set_pair(d, res);
                2
            }
            Sbiw { d, k } => {
                let a = self.pair(d);
                let res = a.wrapping_sub(k as u16);
                self.sreg = flags::sbiw(sreg, a, res);
                self.set_pair(d, res);
                2
            }

            // --- multiplication (result in r1:r0) -------------------------------
            Mul { d, r } => self.multiply(self.r(d) as u16 * self.r(r) as u16, false),
            Muls { d, r } => self.multiply((self.r(d) as i8 as i16 * self.r(r) as i8 as i16) as u16, false),
            Mulsu { d, r } => self.multiply((self.r(d) as i8 as i16 * self.r(r) as i16) as u16, false),
            Fmul { d, r } => self.multiply(self.r(d) as u16 * self.r(r) as u16, true),
            Fmuls { d, r } => self.multiply((self.r(d) as i8 as i16 * self.r(r) as i8 as i16) as u16, true),
            Fmulsu { d, r } => self.multiply((self.r(d) as i8 as i16 * self.r(r) as i16) as u16, true),

            // --- SREG bits --------------------------------------------------------
            Bset { s } => {
                self.sreg = sreg | (1 << s);
                if s == 7 {
                    // SEI: the next instruction runs before any interrupt.
                    self.irq_inhibit = true;
                    self.attention = 0;
                }
                1
            }
            Bclr { s } => {
                self.sreg = sreg & !(1 << s);
                1
            }
            Bst { d, b } => {
                self.sreg = if self.r(d) & (1 << b) != 0 { sreg | T } else { sreg & !T };
                1
            }
            Bld { d, b } => {
                let a = self.r(d) & !(1 << b);
                self.set_r(d, a | (((sreg & T) >> 6) << b));
                1
            }

            // --- branches, skips, jumps ---------------------------------------------
            Brbs { s, k } => {
                if sreg & (1 << s) != 0 {
                    next = next.wrapping_add(k as i32 as u32);
                    2
                } else {
                    1
                }
            }
            Brbc { s, k } => {
                if sreg & (1 << s) == 0 {
                    next = next.wrapping_add(k as i32 as u32);
                    2
                } else {
                    1
                }
            }
            Cpse { d, r } => self.skip_if(self.r(d) == self.r(r), pc, &mut next),
            Sbrc { r, b } => self.skip_if(self.r(r) & (1 << b) == 0, pc, &mut next),
            Sbrs { r, b } => self.skip_if(self.r(r) & (1 << b) != 0, pc, &mut next),
            Sbic { a, b } => {
                let v = self.load::<DEBUG>(0x20 + a as u16, 0);
                self.skip_if(v & (1 << b) == 0, pc, &mut next)
            }
            Sbis { a, b } => {
                let v = self.load::<DEBUG>(0x20 + a as u16, 0);
                self.skip_if(v & (1 << b) != 0, pc, &mut next)
            }
            Rjmp { k } => {
                next = next.wrapping_add(k as i32 as u32);
                2
            }
            Ijmp => {
                next = self.pair(30) as u32;
                2
            }
            Jmp { hi, k } => {
                next = Instr::long_target(hi, k);
                3
            }
            Rcall { k } => {
                self.push_pc::<DEBUG>(pc + 1);
                next = next.wrapping_add(k as i32 as u32);
                3
            }
            Icall => {
                self.push_pc::<DEBUG>(pc + 1);
                next = self.pair(30) as u32;
                3
            }
            Call { hi, k } => {
                self.push_pc::<DEBUG>(pc + 2);
                next = Instr::long_target(hi, k);
                4
            }
            Ret => {
                next = self.pop_pc::<DEBUG>();
                4
            }
            Reti => {
                next = self.pop_pc::<DEBUG>();
                self.sreg |= I;
                // As after SEI, one more instruction before the next interrupt.
                self.irq_inhibit = true;
                self.attention = 0;
                4
            }

            // --- data transfer ---------------------------------------------------------
            Ld { d, ptr } => {
                let addr = self.pointer_access(ptr);
                let v = self.load::<DEBUG>(addr, 1);
                self.set_r(d, v);
                2
            }
            St { r, ptr } => {
                let v = self.r(r);
                let addr = self.pointer_access(ptr);
                self.store::<DEBUG>(addr, v, 1);
                2
            }
            Ldd { d, q, y } => {
                let addr = self.pair(if y { 28 } else { 30 }).wrapping_add(q as u16);
                let v = self.load::<DEBUG>(addr, 1);
                self.set_r(d, v);
                2
            }
            Std { r, q, y } => {
                let addr = self.pair(if y { 28 } else { 30 }).wrapping_add(q as u16);
                self.store::<DEBUG>(addr, self.r(r), 1);
                2
            }
            Lds { d, k } => {
                let v = self.load::<DEBUG>(k, 1);
                self.set_r(d, v);
                next = pc + 2;
                2
            }
            Sts { r, k } => {
                self.store::<DEBUG>(k, self.r(r), 1);
                next = pc + 2;
                2
            }
            Push { r } => {
                self.push::<DEBUG>(self.r(r));
                2
            }
            Pop { d } => {
                let v = self.pop::<DEBUG>();
                self.set_r(d, v);
                2
            }
            In { d, a } => {
                let v = self.load::<DEBUG>(0x20 + a as u16, 0);
                self.set_r(d, v);
                1
            }
            Out { r, a } => {
                self.store::<DEBUG>(0x20 + a as u16, self.r(r), 0);
                1
            }
            Sbi { a, b } => {
                let addr = 0x20 + a as u16;
                let v = self.load::<DEBUG>(addr, 1);
                self.store::<DEBUG>(addr, v | (1 << b), 1);
                2
            }
            Cbi { a, b } => {
                let addr = 0x20 + a as u16;
                let v = self.load::<DEBUG>(addr, 1);
                self.store::<DEBUG>(addr, v & !(1 << b), 1);
                2
            }
            Lpm0 => {
                let z = self.pair(30);
                self.set_r(0, self.flash[z as usize]);
                3
            }
            Lpm { d, inc } => {
                let z = self.pair(30);
                let v = self.flash[z as usize];
                if inc {
                    self.set_pair(30, z.wrapping_add(1));
                }
                self.set_r(d, v);
                3
            }
            Spm => {
                self.spm();
                1
            }

            // --- MCU control -------------------------------------------------------------
            Sleep => {
                self.pc = next & PC_MASK;
                self.cycles += 1;
                self.sleep_instruction();
                return;
            }
            Wdr => {
                self.watchdog_reset();
                1
            }
            Break => {
                // With the on-chip debugger disabled BREAK is a NOP; here it
                // hands control to the host.
                self.set_stop(crate::avr::Stop::Break(pc));
                1
            }
            Undefined { word } => {
                self.undefined(word);
                return;
            }
        };
        self.pc = next & PC_MASK;
        self.cycles += cycles;
    }

    /// The pointer of `LD`/`ST` with its pre-decrement or post-increment.
    #[inline(always)]
    fn pointer_access(&mut self, ptr: Ptr) -> u16 {
        let reg = ptr.reg();
        let p = self.pair(reg);
        match ptr {
            Ptr::X => p,
            Ptr::XInc | Ptr::YInc | Ptr::ZInc => {
                self.set_pair(reg, p.wrapping_add(1));
                p
            }
            Ptr::XDec | Ptr::YDec | Ptr::ZDec => {
                let p = p.wrapping_sub(1);
                self.set_pair(reg, p);
                p
            }
        }
    }

    /// CPSE/SBRC/SBRS/SBIC/SBIS: 1 cycle, or 2/3 when skipping a 1/2-word
    /// instruction.
    #[inline(always)]
    fn skip_if(&self, cond: bool, pc: u32, next: &mut u32) -> u64 {
        if cond {
            let words = self.skip_words(pc);
            *next += words;
            1 + words as u64
        } else {
            1
        }
    }

    /// Stores a product in r1:r0 with Z and C; FMUL* shift it left by one
    /// (C is bit 15 before the shift).
    #[inline(always)]
    fn multiply(&mut self, product: u16, fractional: bool) -> u64 {
        let c = product & 0x8000 != 0;
        let res = if fractional { product << 1 } else { product };
        self.sreg = flags::mul(self.sreg, res, c);
        self.set_pair(0, res);
        2
    }

    /// SPM as far as a program can observe it without timing: fill the page
    /// buffer, erase or write a page. The CPU halt of a real erase/write
    /// (~4 ms) is not modelled.
    fn spm(&mut self) {
        let ctl = self.data[crate::device::reg::SPMCSR as usize];
        let z = self.pair(30) as usize;
        let page = z & !(SPM_PAGE_BYTES - 1);
        match ctl & 0x3F {
            c if c == spmcsr::SPMEN => {
                let i = z & (SPM_PAGE_BYTES - 2);
                self.spm_buffer[i] = self.r(0);
                self.spm_buffer[i + 1] = self.r(1);
            }
            c if c == spmcsr::SPMEN | spmcsr::PGERS => {
                self.write_flash(page as u32, &[0xFF; SPM_PAGE_BYTES]);
            }
            c if c == spmcsr::SPMEN | spmcsr::PGWRT => {
                let buffer = *self.spm_buffer;
                self.write_flash(page as u32, &buffer);
                self.spm_buffer.fill(0xFF);
            }
            c if c == spmcsr::SPMEN | spmcsr::RWWSRE => {}
            _ => {
                self.shared.warnings.push(crate::peripheral::Warning {
                    cycle: self.cycles,
                    pc: Some(self.pc),
                    source: "core",
                    message: format!("SPM with SPMCSR = {ctl:#04x} is not modelled; ignored"),
                });
            }
        }
        // The operation completes at once: the command bits clear.
        self.data[crate::device::reg::SPMCSR as usize] = ctl & spmcsr::SPMIE;
    }
}

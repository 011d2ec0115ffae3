//! The data bus: registers and SRAM on the fast path, I/O addresses
//! dispatched to the core's own registers or to the owning peripheral.
//!
//! Timing of I/O accesses: an access happens at `cycles + offset`, where
//! `cycles` is the cycle the instruction started at and the executor passes
//! the offset of the cycle that touches the bus (see `peripheral.rs`).

use super::{Avr, Fault, FaultKind, Stop, OWNER_CORE, OWNER_NONE};
use crate::debug::Access;
use crate::device::{reg, IO_START, RAMEND, RAMSTART};
use crate::peripheral::Warning;

impl Avr {
    /// A data-space read by the CPU.
    #[inline(always)]
    pub(crate) fn load<const DEBUG: bool>(&mut self, addr: u16, offset: u64) -> u8 {
        if DEBUG {
            self.debug.check(addr, Access::Read);
        }
        if addr >= RAMSTART {
            if addr <= RAMEND {
                self.data[addr as usize]
            } else {
                self.data_fault(addr, Access::Read);
                0
            }
        } else if addr < IO_START {
            self.data[addr as usize]
        } else {
            self.io_read(addr, offset)
        }
    }

    /// A data-space write by the CPU.
    #[inline(always)]
    pub(crate) fn store<const DEBUG: bool>(&mut self, addr: u16, value: u8, offset: u64) {
        if DEBUG {
            self.debug.check(addr, Access::Write);
        }
        if addr >= RAMSTART {
            if addr <= RAMEND {
                self.data[addr as usize] = value;
            } else {
                self.data_fault(addr, Access::Write);
            }
        } else if addr < IO_START {
            self.data[addr as usize] = value;
        } else {
            self.io_write(addr, value, offset);
        }
    }

    /// PUSH, CALL and interrupts: write at SP, then decrement it.
    #[inline(always)]
    pub(crate) fn push<const DEBUG: bool>(&mut self, value: u8) {
        let sp = self.sp;
        if !DEBUG && (RAMSTART..=RAMEND).contains(&sp) {
            self.data[sp as usize] = value;
        } else {
            self.store::<DEBUG>(sp, value, 0);
        }
        self.sp = sp.wrapping_sub(1);
        if self.sp < self.debug.min_sp {
            self.new_min_sp();
        }
    }

    /// POP, RET, RETI: increment SP, then read at SP.
    #[inline(always)]
    pub(crate) fn pop<const DEBUG: bool>(&mut self) -> u8 {
        self.sp = self.sp.wrapping_add(1);
        let sp = self.sp;
        if !DEBUG && (RAMSTART..=RAMEND).contains(&sp) {
            self.data[sp as usize]
        } else {
            self.load::<DEBUG>(sp, 0)
        }
    }

    /// Pushes a return address (low byte first, as the chip does).
    #[inline(always)]
    pub(crate) fn push_pc<const DEBUG: bool>(&mut self, pc: u32) {
        self.push::<DEBUG>(pc as u8);
        self.push::<DEBUG>((pc >> 8) as u8);
    }

    #[inline(always)]
    pub(crate) fn pop_pc<const DEBUG: bool>(&mut self) -> u32 {
        let hi = self.pop::<DEBUG>() as u32;
        let lo = self.pop::<DEBUG>() as u32;
        (hi << 8 | lo) & crate::device::PC_MASK
    }

    /// SP reached a new low: record it and check for a stack collision.
    #[cold]
    pub(crate) fn new_min_sp(&mut self) {
        self.debug.min_sp = self.sp;
        if self.sp < self.debug.stack_limit && !self.debug.collided {
            self.debug.collided = true;
            self.set_stop(Stop::StackCollision { pc: self.pc, cycle: self.cycles, sp: self.sp });
        }
    }

    #[cold]
    fn data_fault(&mut self, addr: u16, access: Access) {
        let fault = Fault { pc: self.pc, word: self.flash_word(self.pc), kind: FaultKind::DataOutOfRange { addr, access } };
        self.set_stop(Stop::Fault(fault));
    }

    /// Records a stop to be returned after the current instruction (the
    /// first one found wins).
    pub(crate) fn set_stop(&mut self, stop: Stop) {
        if self.pending_stop.is_none() {
            self.pending_stop = Some(stop);
        }
        self.attention = 0;
    }

    #[inline(never)]
    pub(crate) fn io_read(&mut self, addr: u16, offset: u64) -> u8 {
        let slot = (addr - IO_START) as usize;
        match self.io_owner[slot] {
            OWNER_CORE => self.core_read(addr),
            OWNER_NONE => {
                self.warn_unowned(addr);
                self.data[addr as usize]
            }
            i => {
                let i = i as usize;
                let now = self.cycles + offset;
                let pc = self.pc;
                let p = &mut self.periphs[i];
                let mut cx = self.shared.ctx(now, pc);
                if now >= self.next_event[i] {
                    p.update(&mut cx);
                }
                let value = p.read(addr, &mut cx);
                let next = p.update(&mut cx);
                self.after_access(i, next);
                value
            }
        }
    }

    #[inline(never)]
    pub(crate) fn io_write(&mut self, addr: u16, value: u8, offset: u64) {
        let slot = (addr - IO_START) as usize;
        match self.io_owner[slot] {
            OWNER_CORE => self.core_write(addr, value),
            OWNER_NONE => {
                self.warn_unowned(addr);
                self.data[addr as usize] = value;
            }
            i => {
                let i = i as usize;
                let now = self.cycles + offset;
                let pc = self.pc;
                let p = &mut self.periphs[i];
                let mut cx = self.shared.ctx(now, pc);
                if now >= self.next_event[i] {
                    p.update(&mut cx);
                }
                p.write(addr, value, &mut cx);
                let next = p.update(&mut cx);
                self.after_access(i, next);
            }
        }
    }

    /// Bookkeeping after a peripheral access: its new schedule, EEPROM-style
    /// CPU stalls, and a trip through the outer loop (the access may have
    /// raised or enabled an interrupt).
    fn after_access(&mut self, i: usize, next: u64) {
        self.next_event[i] = next;
        self.next_min = self.next_min.min(next);
        self.cycles += std::mem::take(&mut self.shared.stall) as u64;
        self.attention = 0;
        self.check_pin_watch();
    }

    /// Stops the run if a pin event since the last check touches a watched pin.
    #[inline]
    pub(crate) fn check_pin_watch(&mut self) {
        let events = &self.shared.pins.events;
        if events.len() <= self.pin_events_checked {
            return;
        }
        let hit = events[self.pin_events_checked..].iter().any(|e| e.changed & self.pin_watch[e.port] != 0);
        self.pin_events_checked = events.len();
        if hit {
            self.set_stop(Stop::PinChange);
        }
    }

    fn core_read(&mut self, addr: u16) -> u8 {
        match addr {
            reg::SREG => self.sreg,
            reg::SPL => self.sp as u8,
            reg::SPH => (self.sp >> 8) as u8,
            reg::MCUSR => self.shared.mcusr,
            _ => self.data[addr as usize],
        }
    }

    fn core_write(&mut self, addr: u16, value: u8) {
        match addr {
            reg::SREG => {
                // Setting I by a write to SREG, like SEI, lets one more
                // instruction run before an interrupt (avr-gcc's SP update
                // `out SPH; out SREG; out SPL` depends on it).
                if self.sreg & 0x80 == 0 && value & 0x80 != 0 {
                    self.irq_inhibit = true;
                }
                self.sreg = value;
                self.attention = 0; // I may have been set.
            }
            reg::SPL => {
                self.sp = (self.sp & 0xFF00) | value as u16;
                // avr-gcc writes SPH then SPL: only now is the new SP complete.
                if self.sp < self.debug.min_sp {
                    self.new_min_sp();
                }
            }
            reg::SPH => self.sp = (self.sp & 0x00FF) | (value as u16) << 8,
            // Flags are cleared by writing zero; writing one keeps them.
            reg::MCUSR => self.shared.mcusr &= value,
            reg::SPMCSR => {
                // SPMEN..SIGRD are cleared by hardware after the SPM; we keep
                // them until it executes. RWWSB is read-only.
                let rwwsb = self.data[addr as usize] & crate::device::spmcsr::RWWSB;
                self.data[addr as usize] = (value & !crate::device::spmcsr::RWWSB) | rwwsb;
            }
            _ => self.data[addr as usize] = value,
        }
    }

    fn warn_unowned(&mut self, addr: u16) {
        let slot = (addr - IO_START) as usize;
        if !self.io_warned[slot] {
            self.io_warned[slot] = true;
            self.shared.warnings.push(Warning {
                cycle: self.cycles,
                pc: Some(self.pc),
                source: "core",
                message: format!("I/O address {addr:#04x} is not modelled; it reads back what was written"),
            });
        }
    }

    /// The debugger's side-effect-free read.
    pub(crate) fn peek(&self, addr: u16) -> u8 {
        if !(IO_START..RAMSTART).contains(&addr) {
            return self.data[addr as usize];
        }
        match self.io_owner[(addr - IO_START) as usize] {
            OWNER_CORE => match addr {
                reg::SREG => self.sreg,
                reg::SPL => self.sp as u8,
                reg::SPH => (self.sp >> 8) as u8,
                reg::MCUSR => self.shared.mcusr,
                _ => self.data[addr as usize],
            },
            OWNER_NONE => self.data[addr as usize],
            i => self.periphs[i as usize].peek(addr),
        }
    }

    /// Host-side write (debugger): as the CPU would write, without faults.
    pub(crate) fn io_or_memory_write(&mut self, addr: u16, value: u8, offset: u64) {
        if (IO_START..RAMSTART).contains(&addr) {
            self.io_write(addr, value, offset);
        } else {
            self.data[addr as usize] = value;
        }
    }
}

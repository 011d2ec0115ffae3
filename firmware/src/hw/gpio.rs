//! Raw GPIO register access for a `board::Port`, so drivers derive their
//! registers from the pin map instead of naming PORTC & co. by hand.
//!
//! On the ATmega644 each port has PINx, DDRx, PORTx at data addresses
//! 0x20 + 3 * index (+0, +1, +2) (A = 0x20, B = 0x23, C = 0x26, D = 0x29):
//! the same bases as the PAC's `PORTA`..`PORTD` register blocks. Accesses to
//! these constant addresses compile to single `in`/`out` (or `sbi`/`cbi`)
//! instructions.

use core::ptr::{read_volatile, write_volatile};
use firmware::board::Port;

/// The three registers of one port.
#[derive(Clone, Copy)]
pub struct Gpio {
    base: usize,
}

impl Gpio {
    pub const fn of(port: Port) -> Gpio {
        Gpio { base: 0x20 + 3 * port.index() }
    }

    /// Pin levels (PINx).
    #[inline(always)]
    pub fn pins(self) -> u8 {
        // SAFETY: a valid, always-readable I/O register of this port.
        unsafe { read_volatile(self.base as *const u8) }
    }

    #[inline(always)]
    pub fn ddr(self) -> u8 {
        // SAFETY: as above.
        unsafe { read_volatile((self.base + 1) as *const u8) }
    }

    #[inline(always)]
    pub fn set_ddr(self, v: u8) {
        // SAFETY: any value is a valid direction pattern.
        unsafe { write_volatile((self.base + 1) as *mut u8, v) }
    }

    #[inline(always)]
    pub fn out(self) -> u8 {
        // SAFETY: as above.
        unsafe { read_volatile((self.base + 2) as *const u8) }
    }

    #[inline(always)]
    pub fn set_out(self, v: u8) {
        // SAFETY: any value is a valid output/pull-up pattern.
        unsafe { write_volatile((self.base + 2) as *mut u8, v) }
    }

    /// PORTx |= mask (read-modify-write: callers own all bits they touch
    /// and no interrupt handler writes the same port).
    #[inline(always)]
    pub fn out_set(self, mask: u8) {
        self.set_out(self.out() | mask);
    }

    #[inline(always)]
    pub fn out_clear(self, mask: u8) {
        self.set_out(self.out() & !mask);
    }
}

//! Constant tables that live in flash.
//!
//! On the AVR every ordinary `static` is copied into the 4 KB SRAM at boot, so
//! tables are declared with [`progmem!`]: on the AVR they go to `.progmem.data`
//! and are read with `LPM`; on the host they are plain statics, so the same
//! code is unit-tested there. The few small tables read in the hottest
//! loops are [`RamTable`]s instead: SRAM, for a plain load.

use core::mem::{size_of, MaybeUninit};

/// A constant array stored in program memory. Read it only through [`Table::get`].
#[repr(transparent)]
pub struct Table<T: Copy, const N: usize>([T; N]);

impl<T: Copy, const N: usize> Table<T, N> {
    pub const fn new(items: [T; N]) -> Self {
        Table(items)
    }

    pub const fn len(&self) -> usize {
        N
    }

    pub const fn is_empty(&self) -> bool {
        N == 0
    }

    /// Element `i`. Out-of-range indices panic on the host, where every
    /// table index is exercised by the tests; on the AVR there is no check
    /// (it cost a compare and a branch at each of the ~100 read sites, in
    /// the hottest loops too): a wrong index would read a neighbouring
    /// flash byte, never RAM, and nothing is ever written through it.
    #[inline(always)]
    pub fn get(&self, i: usize) -> T {
        #[cfg(target_arch = "avr")]
        {
            // SAFETY: LPM reads program memory only; `wrapping_add` keeps
            // the address computation defined for any index.
            unsafe { read_flash(self.0.as_ptr().wrapping_add(i)) }
        }
        #[cfg(not(target_arch = "avr"))]
        {
            self.0[i]
        }
    }

    /// Host-side access to the whole array (tests, tools).
    #[cfg(not(target_arch = "avr"))]
    pub fn as_slice(&self) -> &[T] {
        &self.0
    }
}

impl<const N: usize> Table<u8, N> {
    /// Little-endian `u16` number `i` of a byte table (unchecked on the AVR,
    /// like [`Table::get`]).
    #[inline(always)]
    pub fn word(&self, i: usize) -> u16 {
        #[cfg(target_arch = "avr")]
        {
            // SAFETY: as `get`: LPM reads program memory only.
            unsafe { read_flash(self.0.as_ptr().wrapping_add(2 * i) as *const u16) }
        }
        #[cfg(not(target_arch = "avr"))]
        {
            u16::from_le_bytes([self.0[2 * i], self.0[2 * i + 1]])
        }
    }
}

impl<const N: usize> Table<u32, N> {
    /// Half `j` of the table read as `u16`s: the low half of element
    /// `j / 2` for an even `j`, the high half for an odd one (two `LPM`s
    /// instead of four and a choice; unchecked on the AVR, like
    /// [`Table::get`]).
    #[inline(always)]
    pub fn half(&self, j: usize) -> u16 {
        #[cfg(target_arch = "avr")]
        {
            // SAFETY: as `get`: LPM reads program memory only; the AVR is
            // little-endian, so the low half comes first.
            unsafe { read_flash((self.0.as_ptr() as *const u16).wrapping_add(j)) }
        }
        #[cfg(not(target_arch = "avr"))]
        {
            (self.0[j / 2] >> (16 * (j & 1))) as u16
        }
    }
}

/// A small constant table read in the hottest loops, kept in SRAM (copied
/// from flash at boot like every `static`): a load from a pointer register
/// instead of `LPM`, which must go through Z. Same `get` as [`Table`].
#[repr(transparent)]
pub struct RamTable<T: Copy, const N: usize>([T; N]);

impl<T: Copy, const N: usize> RamTable<T, N> {
    pub const fn new(items: [T; N]) -> Self {
        RamTable(items)
    }

    /// Element `i`: unchecked on the AVR like [`Table::get`] (the host's
    /// check is what the tests exercise).
    #[inline(always)]
    pub fn get(&self, i: usize) -> T {
        #[cfg(target_arch = "avr")]
        {
            // SAFETY: every index is in range (checked on the host, where
            // the same call sites run under the tests).
            unsafe { *self.0.get_unchecked(i) }
        }
        #[cfg(not(target_arch = "avr"))]
        {
            self.0[i]
        }
    }
}

/// Copies one `T` out of flash with `LPM`.
///
/// # Safety
/// `p` must point into program memory (a `.progmem` static).
#[cfg(target_arch = "avr")]
#[inline(always)]
pub unsafe fn read_flash<T: Copy>(p: *const T) -> T {
    let src = p as *const u8;
    // Two- and four-byte values (the i16/u32 tables) straight into register
    // pairs; the byte loop below would go through a stack buffer (a frame
    // in every function that reads one) and cost an `ADIW` per byte.
    match size_of::<T>() {
        2 => core::mem::transmute_copy(&lpm16(src)),
        4 => {
            let lo = lpm16(src);
            let hi = lpm16(src.add(2));
            core::mem::transmute_copy(&((hi as u32) << 16 | lo as u32))
        }
        _ => {
            let mut out = MaybeUninit::<T>::uninit();
            let dst = out.as_mut_ptr() as *mut u8;
            for k in 0..size_of::<T>() {
                dst.add(k).write(lpm(src.add(k)));
            }
            out.assume_init()
        }
    }
}

/// Two bytes from flash into a register pair.
#[cfg(target_arch = "avr")]
#[inline(always)]
unsafe fn lpm16(addr: *const u8) -> u16 {
    let v: u16;
    core::arch::asm!(
        "lpm {0:l}, Z+",
        "lpm {0:h}, Z",
        out(reg_pair) v,
        inout("Z") addr => _,
        options(pure, readonly, nostack, preserves_flags),
    );
    v
}

#[cfg(target_arch = "avr")]
#[inline(always)]
unsafe fn lpm(addr: *const u8) -> u8 {
    let byte: u8;
    core::arch::asm!("lpm {0}, Z", out(reg) byte, in("Z") addr, options(pure, readonly, nostack, preserves_flags));
    byte
}

/// Host stand-in of [`read_flash`]: flash and RAM are one address space there.
///
/// # Safety
/// `p` must be valid for reads.
#[cfg(not(target_arch = "avr"))]
#[inline(always)]
pub unsafe fn read_flash<T: Copy>(p: *const T) -> T {
    let _ = (size_of::<T>(), MaybeUninit::<T>::uninit());
    p.read()
}

/// Declares a flash-resident table:
/// `progmem! { static NAME: [u8; 4] = [1, 2, 3, 4]; }`
#[macro_export]
macro_rules! progmem {
    ($($(#[$m:meta])* $vis:vis static $name:ident: [$t:ty; $n:expr] = $e:expr;)*) => {$(
        $(#[$m])*
        #[cfg_attr(target_arch = "avr", link_section = ".progmem.data")]
        $vis static $name: $crate::progmem::Table<$t, { $n }> = $crate::progmem::Table::new($e);
    )*};
}

/// A byte string in flash, e.g. an LCD message.
pub type FlashStr<const N: usize> = Table<u8, N>;

#[cfg(test)]
mod tests {
    progmem! {
        static SQUARES: [u16; 4] = [1, 4, 9, 16];
    }

    #[test]
    fn tables_read_back() {
        assert_eq!(SQUARES.len(), 4);
        assert_eq!(SQUARES.get(3), 16);
        assert_eq!(unsafe { super::read_flash(&SQUARES.as_slice()[2]) }, 9);
    }
}

//! The ATmega644 as the core sees it: memory sizes, the interrupt vector
//! table and the addresses of the registers the core itself owns.
//!
//! Everything here follows avr-libc's `avr/iom644.h` (with `iomxx4.h`).

/// Flash size in bytes (64 KB).
pub const FLASH_BYTES: usize = 64 * 1024;
/// Flash size in 16-bit words; the PC is a word address below this.
pub const FLASH_WORDS: usize = FLASH_BYTES / 2;
/// Mask applied to every PC: the program counter is 15 bits wide and wraps.
pub const PC_MASK: u32 = FLASH_WORDS as u32 - 1;

/// First data-space address of the general purpose registers.
pub const REGS_START: u16 = 0x00;
/// First data-space address of the I/O registers (`IN`/`OUT` address 0).
pub const IO_START: u16 = 0x20;
/// Last data-space address of the extended I/O registers.
pub const IO_END: u16 = 0xFF;
/// Number of I/O + extended I/O addresses (0x20..=0xFF).
pub const IO_SIZE: usize = (IO_END - IO_START + 1) as usize;
/// First SRAM address.
pub const RAMSTART: u16 = 0x0100;
/// Last SRAM address; SP starts here after reset.
pub const RAMEND: u16 = 0x10FF;
/// SRAM size in bytes (4 KB).
pub const SRAM_BYTES: usize = (RAMEND - RAMSTART + 1) as usize;
/// Size of the whole data space (registers, I/O, SRAM).
pub const DATA_SIZE: usize = RAMEND as usize + 1;
/// EEPROM size in bytes (2 KB).
pub const EEPROM_BYTES: usize = 2 * 1024;
/// Self-programming page size in bytes.
pub const SPM_PAGE_BYTES: usize = 256;

/// Data-space addresses of the registers the core owns.
pub mod reg {
    pub const GPIOR0: u16 = 0x3E;
    pub const GPIOR1: u16 = 0x4A;
    pub const GPIOR2: u16 = 0x4B;
    /// Sleep mode control: SM2..0 in bits 3..1, SE in bit 0.
    pub const SMCR: u16 = 0x53;
    /// Reset cause flags.
    pub const MCUSR: u16 = 0x54;
    /// Store program memory control.
    pub const SPMCSR: u16 = 0x57;
    pub const SPL: u16 = 0x5D;
    pub const SPH: u16 = 0x5E;
    pub const SREG: u16 = 0x5F;
    /// Every I/O address the core handles itself instead of a peripheral.
    pub const CORE_OWNED: [u16; 9] = [GPIOR0, GPIOR1, GPIOR2, SMCR, MCUSR, SPMCSR, SPL, SPH, SREG];
}

/// MCUSR bits.
pub mod mcusr {
    pub const PORF: u8 = 1 << 0;
    pub const EXTRF: u8 = 1 << 1;
    pub const BORF: u8 = 1 << 2;
    pub const WDRF: u8 = 1 << 3;
    pub const JTRF: u8 = 1 << 4;
}

/// SPMCSR bits.
pub mod spmcsr {
    pub const SPMEN: u8 = 1 << 0;
    pub const PGERS: u8 = 1 << 1;
    pub const PGWRT: u8 = 1 << 2;
    pub const BLBSET: u8 = 1 << 3;
    pub const RWWSRE: u8 = 1 << 4;
    pub const SIGRD: u8 = 1 << 5;
    pub const RWWSB: u8 = 1 << 6;
    pub const SPMIE: u8 = 1 << 7;
}

/// Interrupt vectors: each is two words (a `JMP`), so vector `n` starts at
/// word address `2 * n`. A lower number has the higher priority.
///
/// The ATmega644 (not -P) has 28 vectors: `avr/iom644.h` declares USART1's
/// vectors 28..=30 only for the ATmega644P, and `_VECTORS_SIZE` is 112
/// bytes for the ATmega644. The core nevertheless accepts any pending bit
/// 1..=63 a peripheral raises and jumps to `2 * n`, so a peripheral set
/// written for the -P still works.
pub const VECTORS: [&str; 28] = [
    "RESET",
    "INT0",
    "INT1",
    "INT2",
    "PCINT0",
    "PCINT1",
    "PCINT2",
    "PCINT3",
    "WDT",
    "TIMER2_COMPA",
    "TIMER2_COMPB",
    "TIMER2_OVF",
    "TIMER1_CAPT",
    "TIMER1_COMPA",
    "TIMER1_COMPB",
    "TIMER1_OVF",
    "TIMER0_COMPA",
    "TIMER0_COMPB",
    "TIMER0_OVF",
    "SPI_STC",
    "USART0_RX",
    "USART0_UDRE",
    "USART0_TX",
    "ANALOG_COMP",
    "ADC",
    "EE_READY",
    "TWI",
    "SPM_READY",
];

/// Name of interrupt vector `n` ("TIMER1_COMPA"), or `None` if the chip has none.
pub fn vector_name(n: u8) -> Option<&'static str> {
    VECTORS.get(n as usize).copied()
}

/// Cycles from an interrupt being accepted to the first vector instruction
/// (push of the 2-byte PC, clearing I, jump).
pub const IRQ_ENTRY_CYCLES: u64 = 4;
/// Extra cycles when the interrupt wakes the CPU from sleep.
pub const IRQ_WAKE_CYCLES: u64 = 4;

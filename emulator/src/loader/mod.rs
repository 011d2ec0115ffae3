//! Loading programs: ELF (with symbols) and Intel HEX.
//!
//! Both loaders only parse; [`crate::avr::Avr::load_elf`] and friends put
//! the result into the machine. Malformed input is always a [`LoadError`],
//! never a panic.

pub mod elf;
pub mod hex;
pub mod symbols;

pub use symbols::{Section, Space, Symbol, SymbolKind, Symbols};

use std::fmt;

/// A program ready to be put into flash, plus what the debugger needs to
/// label memory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    /// Flash image from address 0 (includes the `.data` initialisation
    /// image at its load address). At most 64 KB; shorter images leave the
    /// rest of flash erased (0xFF).
    pub flash: Vec<u8>,
    /// EEPROM image (`.eeprom`), empty if the program has none.
    pub eeprom: Vec<u8>,
    /// Entry point, byte address (0 for HEX).
    pub entry: u32,
    pub symbols: Symbols,
}

impl Program {
    /// First data-space address above the program's static data, where the
    /// stack must never go: `__heap_start`, else `_end`/`__bss_end`, else the
    /// end of `.bss`/`.noinit`/`.data`. `None` when nothing is known (HEX).
    pub fn static_data_end(&self) -> Option<u16> {
        let s = &self.symbols;
        for name in ["__heap_start", "_end", "__bss_end"] {
            if let Some(sym) = s.lookup(name) {
                if sym.space == Space::Data {
                    return Some(sym.address as u16);
                }
            }
        }
        s.sections.iter().filter(|sec| sec.space == Space::Data).map(|sec| sec.end() as u16).max()
    }
}

/// Why a program could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// Not parseable as ELF at all (bad magic, truncated headers...).
    Elf(String),
    /// An ELF for another machine (`e_machine` is not 83, AVR).
    WrongMachine(u16),
    /// A 64-bit or big-endian ELF; AVR ELFs are 32-bit little-endian.
    WrongClass,
    /// Something ends beyond the 64 KB of flash (byte address of the end).
    FlashOverflow { end: u64 },
    /// Static data (`.data`/`.bss`) outside 0x0100..=0x10FF.
    SramOverflow { start: u64, end: u64 },
    /// EEPROM content beyond the 2 KB of EEPROM.
    EepromOverflow { end: u64 },
    /// Nothing to load.
    Empty,
    /// A malformed Intel HEX line (1-based line number).
    Hex { line: usize, message: String },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Elf(m) => write!(f, "not a valid ELF file: {m}"),
            LoadError::WrongMachine(m) => write!(f, "ELF is for machine {m}, not AVR (83)"),
            LoadError::WrongClass => write!(f, "ELF is not 32-bit little-endian, as AVR ELFs are"),
            LoadError::FlashOverflow { end } => {
                write!(f, "program ends at byte {end:#x}, beyond the 64 KB of flash")
            }
            LoadError::SramOverflow { start, end } => write!(
                f,
                "static data at {start:#x}..{end:#x} does not fit SRAM 0x0100..=0x10FF"
            ),
            LoadError::EepromOverflow { end } => {
                write!(f, "EEPROM data ends at {end:#x}, beyond the 2 KB of EEPROM")
            }
            LoadError::Empty => write!(f, "the file contains nothing to load"),
            LoadError::Hex { line, message } => write!(f, "Intel HEX line {line}: {message}"),
        }
    }
}

impl std::error::Error for LoadError {}

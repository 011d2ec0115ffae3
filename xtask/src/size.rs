//! Flash and static RAM use of an AVR ELF, from its section headers.

use crate::util::Result;
use object::{Object, ObjectSection};
use std::path::Path;

pub const FLASH_BYTES: u64 = 65_536;
pub const SRAM_BYTES: u64 = 4_096;

/// The sizes that matter on the ATmega644.
#[derive(Clone, Debug, Default)]
pub struct SizeReport {
    /// `.text`: vectors, code and progmem tables.
    pub text: u64,
    /// `.data`: initialised statics (in SRAM, with their image in flash).
    pub data: u64,
    pub bss: u64,
    pub noinit: u64,
}

impl SizeReport {
    pub fn from_file(path: &Path) -> Result<Self> {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Self::from_elf(&bytes).map_err(|e| format!("{}: {e}", path.display()))
    }

    pub fn from_elf(bytes: &[u8]) -> Result<Self> {
        let file = object::File::parse(bytes).map_err(|e| format!("not an ELF file: {e}"))?;
        if file.architecture() != object::Architecture::Avr {
            return Err(format!("not an AVR ELF (architecture {:?})", file.architecture()));
        }
        let size_of = |name: &str| file.section_by_name(name).map(|s| s.size()).unwrap_or(0);
        Ok(SizeReport { text: size_of(".text"), data: size_of(".data"), bss: size_of(".bss"), noinit: size_of(".noinit") })
    }

    /// Flash used: code and tables plus the initial image of `.data`.
    pub fn flash(&self) -> u64 {
        self.text + self.data
    }

    /// SRAM taken before the first stack byte is pushed.
    pub fn static_ram(&self) -> u64 {
        self.data + self.bss + self.noinit
    }

    pub fn table(&self) -> String {
        let pct = |used: u64, of: u64| used as f64 * 100.0 / of as f64;
        format!(
            "  {:<22}{:>8} B  of {:>6} B  ({:5.1}%)\n  {:<22}{:>8} B\n  {:<22}{:>8} B\n  {:<22}{:>8} B\n  {:<22}{:>8} B  of {:>6} B  ({:5.1}%)\n",
            "flash (.text + .data)",
            self.flash(),
            FLASH_BYTES,
            pct(self.flash(), FLASH_BYTES),
            ".data",
            self.data,
            ".bss",
            self.bss,
            ".noinit",
            self.noinit,
            "static RAM",
            self.static_ram(),
            SRAM_BYTES,
            pct(self.static_ram(), SRAM_BYTES),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_non_elf_input() {
        assert!(SizeReport::from_elf(b"definitely not an elf").unwrap_err().contains("not an ELF"));
    }

    #[test]
    fn totals_add_up() {
        let r = SizeReport { text: 1000, data: 20, bss: 300, noinit: 4 };
        assert_eq!(r.flash(), 1020);
        assert_eq!(r.static_ram(), 324);
        assert!(r.table().contains("static RAM"));
    }
}

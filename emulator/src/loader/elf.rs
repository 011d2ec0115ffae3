//! ELF loading with the `object` crate.
//!
//! avr-gcc's ELFs put flash at 0, the data space at 0x800000 and EEPROM at
//! 0x810000. The flash image is built from the `PT_LOAD` segments at their
//! *physical* (load) addresses, which places the `.data` initialisation
//! image in flash where the startup code copies it from.

use super::symbols::{Section, Space, Symbol, SymbolKind, Symbols};
use super::{LoadError, Program};
use crate::device::{EEPROM_BYTES, FLASH_BYTES, RAMEND, RAMSTART};
use object::elf::{EM_AVR, PT_LOAD, SHF_ALLOC};
use object::read::elf::{ElfFile32, FileHeader, ProgramHeader};
use object::{LittleEndian, Object, ObjectSection, ObjectSymbol};

const DATA_BASE: u64 = 0x80_0000;
const EEPROM_BASE: u64 = 0x81_0000;
/// Fuses, lock bits, signature and tool metadata live from here on.
const META_BASE: u64 = 0x82_0000;

/// Parses an AVR ELF into a [`Program`].
pub fn parse(bytes: &[u8]) -> Result<Program, LoadError> {
    // Check the identification by hand so a 64-bit or big-endian file gets
    // a precise error instead of a generic parse failure.
    if bytes.len() < 16 || &bytes[..4] != b"\x7fELF" {
        return Err(LoadError::Elf("missing ELF magic".into()));
    }
    if bytes[4] != 1 || bytes[5] != 1 {
        return Err(LoadError::WrongClass);
    }
    let elf = ElfFile32::<LittleEndian>::parse(bytes).map_err(|e| LoadError::Elf(e.to_string()))?;
    let endian = LittleEndian;
    let machine = elf.elf_header().e_machine(endian);
    if machine != EM_AVR {
        return Err(LoadError::WrongMachine(machine));
    }

    let mut flash: Vec<u8> = Vec::new();
    let mut eeprom: Vec<u8> = Vec::new();
    let headers = elf.elf_header().program_headers(endian, bytes).map_err(|e| LoadError::Elf(e.to_string()))?;
    for ph in headers {
        if ph.p_type(endian) != PT_LOAD {
            continue;
        }
        let vaddr = ph.p_vaddr(endian) as u64;
        let paddr = ph.p_paddr(endian) as u64;
        let memsz = ph.p_memsz(endian) as u64;
        let contents = ph.data(endian, bytes).map_err(|_| LoadError::Elf("segment data out of the file".into()))?;
        if (DATA_BASE..EEPROM_BASE).contains(&vaddr) {
            check_sram(vaddr, memsz)?;
        }
        if contents.is_empty() {
            continue; // .bss and friends: nothing to load.
        }
        let end = paddr + contents.len() as u64;
        if paddr >= META_BASE {
            continue; // fuses, lock bits, simavr's .mmcu: not memory.
        } else if paddr >= EEPROM_BASE {
            let (start, end) = (paddr - EEPROM_BASE, end - EEPROM_BASE);
            if end > EEPROM_BYTES as u64 {
                return Err(LoadError::EepromOverflow { end });
            }
            place(&mut eeprom, start as usize, contents);
        } else if paddr >= DATA_BASE {
            // Data with no flash load address: nothing can initialise it.
            continue;
        } else {
            if end > FLASH_BYTES as u64 {
                return Err(LoadError::FlashOverflow { end });
            }
            place(&mut flash, paddr as usize, contents);
        }
    }

    let mut sections = Vec::new();
    for sec in elf.sections() {
        let flags = match sec.flags() {
            object::SectionFlags::Elf { sh_flags } => sh_flags,
            _ => 0,
        };
        if flags & SHF_ALLOC as u64 == 0 || sec.size() == 0 {
            continue;
        }
        let (space, start) = Space::of_elf_address(sec.address());
        let name = sec.name().unwrap_or("?").to_string();
        if space == Space::Data {
            check_sram(sec.address(), sec.size())?;
        }
        sections.push(Section { name, space, start, size: sec.size() as u32 });
    }

    let mut symbols = Vec::new();
    for sym in elf.symbols() {
        let Ok(name) = sym.name() else { continue };
        if name.is_empty() || sym.is_undefined() || sym.kind() == object::SymbolKind::Section
            || sym.kind() == object::SymbolKind::File
        {
            continue;
        }
        let (space, address) = Space::of_elf_address(sym.address());
        let kind = match sym.kind() {
            object::SymbolKind::Text => SymbolKind::Function,
            object::SymbolKind::Data => SymbolKind::Object,
            _ => SymbolKind::Other,
        };
        symbols.push(Symbol { name: name.to_string(), space, address, size: sym.size() as u32, kind });
    }

    if flash.is_empty() {
        return Err(LoadError::Empty);
    }
    Ok(Program {
        flash,
        eeprom,
        entry: elf.elf_header().e_entry(endian),
        symbols: Symbols::new(symbols, sections),
    })
}

/// Static data must lie within SRAM (0x0100..=0x10FF).
fn check_sram(vaddr: u64, size: u64) -> Result<(), LoadError> {
    let (start, end) = (vaddr - DATA_BASE, vaddr - DATA_BASE + size);
    if size > 0 && (start < RAMSTART as u64 || end > RAMEND as u64 + 1) {
        return Err(LoadError::SramOverflow { start, end });
    }
    Ok(())
}

/// Copies `contents` into `image` at `start`, growing it with 0xFF (erased).
fn place(image: &mut Vec<u8>, start: usize, contents: &[u8]) {
    let end = start + contents.len();
    if image.len() < end {
        image.resize(end, 0xFF);
    }
    image[start..end].copy_from_slice(contents);
}

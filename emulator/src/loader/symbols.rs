//! Symbols and section ranges, for labelling flash and SRAM.

/// Which address space a symbol or section lives in. AVR ELFs put data at
/// 0x800000 and EEPROM at 0x810000; addresses here are already relative to
/// their own space (data-space address, EEPROM offset, flash byte address).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    Flash,
    Data,
    Eeprom,
    /// Fuses (0x820000), lock bits, signature, simavr's `.mmcu` (0x910000):
    /// kept as symbols/sections but never loaded.
    Meta,
}

impl Space {
    /// Splits an ELF virtual address into space and address.
    pub fn of_elf_address(addr: u64) -> (Space, u32) {
        if addr >= 0x82_0000 {
            (Space::Meta, addr as u32)
        } else if addr >= 0x81_0000 {
            (Space::Eeprom, (addr - 0x81_0000) as u32)
        } else if addr >= 0x80_0000 {
            (Space::Data, (addr - 0x80_0000) as u32)
        } else {
            (Space::Flash, addr as u32)
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SymbolKind {
    Function,
    Object,
    Other,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub space: Space,
    /// Byte address within `space`.
    pub address: u32,
    pub size: u32,
    pub kind: SymbolKind,
}

/// A loaded section: `.text`, `.data`, `.bss`, `.noinit`, `.eeprom`...
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Section {
    pub name: String,
    pub space: Space,
    /// Run-time (virtual) start address within `space`.
    pub start: u32,
    pub size: u32,
}

impl Section {
    pub fn end(&self) -> u32 {
        self.start.saturating_add(self.size)
    }
}

/// The symbol table of a program, sorted by address.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Symbols {
    pub symbols: Vec<Symbol>,
    pub sections: Vec<Section>,
}

impl Symbols {
    pub fn new(mut symbols: Vec<Symbol>, sections: Vec<Section>) -> Symbols {
        symbols.sort_by(|a, b| (a.space as u8, a.address, &a.name).cmp(&(b.space as u8, b.address, &b.name)));
        Symbols { symbols, sections }
    }

    pub fn is_empty(&self) -> bool {
        self.symbols.is_empty()
    }

    /// The symbol called `name`.
    pub fn lookup(&self, name: &str) -> Option<&Symbol> {
        self.symbols.iter().find(|s| s.name == name)
    }

    /// A symbol starting exactly at `address` (functions preferred).
    pub fn at(&self, space: Space, address: u32) -> Option<&Symbol> {
        let mut found = self.symbols.iter().filter(|s| s.space == space && s.address == address);
        let first = found.next()?;
        Some(std::iter::once(first).chain(found).find(|s| s.kind == SymbolKind::Function).unwrap_or(first))
    }

    /// The sized symbol whose range contains `address`, with the offset into it.
    pub fn containing(&self, space: Space, address: u32) -> Option<(&Symbol, u32)> {
        self.symbols
            .iter()
            .filter(|s| s.space == space && s.kind != SymbolKind::Other && s.size > 0)
            .find(|s| address >= s.address && address - s.address < s.size)
            .map(|s| (s, address - s.address))
    }

    /// `name` or `name+off` for an address, if a symbol covers it.
    pub fn label(&self, space: Space, address: u32) -> Option<String> {
        if let Some(s) = self.at(space, address) {
            return Some(s.name.clone());
        }
        self.containing(space, address).map(|(s, off)| format!("{}+{:#x}", s.name, off))
    }

    /// The section a data-space address falls in (`.data`, `.bss`...).
    pub fn section_of(&self, space: Space, address: u32) -> Option<&Section> {
        self.sections.iter().find(|s| s.space == space && address >= s.start && address < s.end())
    }
}

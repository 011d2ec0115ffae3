//! Where every byte of SRAM and flash goes, from the ELF's sections and symbols.
//!
//! SRAM: `.data`, `.bss`, `.noinit` (sections) and their symbols.
//!
//! Flash (`.text` plus the `.data` image) is split by these rules, which
//! follow avr-ld's default linker script for the ATmega644 (the input
//! section names are gone from the linked ELF, so addresses and symbol
//! types are all there is):
//!
//! * vectors: `0 .. __trampolines_start` (28 vectors x 4 bytes = 0x70 on
//!   the ATmega644; the -P part has 31). Without that symbol: the run of
//!   `JMP`/`RJMP` slots from 0.
//! * progmem: `__trampolines_end .. __ctors_start`, where the script puts
//!   `*(.progmem*)` (the firmware's `#[link_section = ".progmem.data"]`
//!   tables show up there as local `STT_OBJECT` symbols in `.text`), plus
//!   any other `STT_OBJECT` symbol in flash outside that range.
//! * book: flash symbols whose name contains `BOOK` (taken out of progmem).
//! * code: the rest of `.text` (functions, start-up code, trampolines).
//! * `.data` image: the initial values of `.data`, stored after `.text`.

use super::stack_bound::demangle;
use emulator::loader::{Program, Space, SymbolKind};

/// A named piece of memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub name: String,
    pub address: u32,
    pub size: u32,
    /// `.data`/`.bss`/`.noinit`, or the flash class (`code`, `progmem`, `book`).
    pub section: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Region {
    pub start: u32,
    pub size: u32,
}

impl Region {
    pub fn end(&self) -> u32 {
        self.start + self.size
    }
}

#[derive(Clone, Debug, Default)]
pub struct StaticMap {
    pub data: Region,
    pub bss: Region,
    pub noinit: Region,
    /// Every sized SRAM symbol, biggest first.
    pub ram_symbols: Vec<Item>,
    pub text: u32,
    pub vectors: u32,
    pub progmem: u32,
    pub book: u32,
    pub code: u32,
    /// Flash range of the progmem tables as the linker script places them.
    pub progmem_range: Region,
    /// Every sized flash symbol, biggest first.
    pub flash_symbols: Vec<Item>,
}

impl StaticMap {
    pub fn static_ram(&self) -> u32 {
        self.data.size + self.bss.size + self.noinit.size
    }

    /// Flash used: `.text` plus the `.data` image.
    pub fn flash(&self) -> u32 {
        self.text + self.data.size
    }

    /// First SRAM byte after static data (where the heap would start).
    pub fn static_end(&self) -> u32 {
        [self.data.end(), self.bss.end(), self.noinit.end(), 0x100].into_iter().max().unwrap_or(0x100)
    }

    pub fn from_program(p: &Program) -> StaticMap {
        let syms = &p.symbols;
        let sec = |name: &str| {
            syms.sections
                .iter()
                .find(|s| s.name == name)
                .map(|s| Region { start: s.start, size: s.size })
                .unwrap_or_default()
        };
        let text = sec(".text");
        let addr = |name: &str| syms.lookup(name).filter(|s| s.space == Space::Flash).map(|s| s.address);

        let vectors = match addr("__trampolines_start") {
            Some(a) => a,
            None => {
                let mut n = 0u32;
                while (n as usize * 4 + 4) <= p.flash.len() {
                    let w = u16::from_le_bytes([p.flash[n as usize * 4], p.flash[n as usize * 4 + 1]]);
                    let is_jmp = (w & 0xFE0E) == 0x940C || (w & 0xF000) == 0xC000;
                    if !is_jmp {
                        break;
                    }
                    n += 1;
                }
                n * 4
            }
        };
        let progmem_range = match (addr("__trampolines_end"), addr("__ctors_start")) {
            (Some(a), Some(b)) if b >= a => Region { start: a, size: b - a },
            _ => Region { start: vectors, size: 0 },
        };
        let in_progmem = |a: u32| a >= progmem_range.start && a < progmem_range.end();

        let mut flash_symbols = Vec::new();
        let mut ram_symbols = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for s in &syms.symbols {
            if s.size == 0 || !seen.insert((s.space, s.address, s.size)) {
                continue;
            }
            let name = demangle(&s.name);
            match s.space {
                Space::Flash => {
                    let class = if name.contains("BOOK") {
                        "book"
                    } else if in_progmem(s.address) || s.kind == SymbolKind::Object {
                        "progmem"
                    } else {
                        "code"
                    };
                    flash_symbols.push(Item { name, address: s.address, size: s.size, section: class.into() });
                }
                Space::Data => {
                    let section = syms
                        .section_of(Space::Data, s.address)
                        .map(|sec| sec.name.clone())
                        .unwrap_or_else(|| "?".into());
                    ram_symbols.push(Item { name, address: s.address, size: s.size, section });
                }
                _ => {}
            }
        }
        let by_size = |a: &Item, b: &Item| b.size.cmp(&a.size).then(a.address.cmp(&b.address));
        flash_symbols.sort_by(by_size);
        ram_symbols.sort_by(by_size);

        let book: u32 = flash_symbols.iter().filter(|i| i.section == "book").map(|i| i.size).sum();
        let book_in_range: u32 =
            flash_symbols.iter().filter(|i| i.section == "book" && in_progmem(i.address)).map(|i| i.size).sum();
        let objects_outside: u32 = flash_symbols
            .iter()
            .filter(|i| i.section == "progmem" && !in_progmem(i.address))
            .map(|i| i.size)
            .sum();
        let progmem = progmem_range.size - book_in_range + objects_outside;
        let code = text.size.saturating_sub(vectors + progmem + book);
        StaticMap {
            data: sec(".data"),
            bss: sec(".bss"),
            noinit: sec(".noinit"),
            ram_symbols,
            text: text.size,
            vectors,
            progmem,
            book,
            code,
            progmem_range,
            flash_symbols,
        }
    }

    /// The compact text report: SRAM and flash split and the top consumers.
    pub fn report(&self, top: usize) -> String {
        use std::fmt::Write as _;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "  SRAM static: .data {} B + .bss {} B + .noinit {} B = {} B (0x0100..{:#06x})",
            self.data.size,
            self.bss.size,
            self.noinit.size,
            self.static_ram(),
            self.static_end()
        );
        let _ = writeln!(s, "  top SRAM consumers:");
        for i in self.ram_symbols.iter().take(top) {
            let _ = writeln!(s, "    {:>6} B  {:<8} {:#06x}  {}", i.size, i.section, i.address, i.name);
        }
        let _ = writeln!(
            s,
            "  flash: vectors {} B + code {} B + progmem {} B + book {} B + .data image {} B = {} B of 65536",
            self.vectors,
            self.code,
            self.progmem,
            self.book,
            self.data.size,
            self.flash()
        );
        let _ = writeln!(s, "  top flash consumers:");
        for i in self.flash_symbols.iter().take(top) {
            let _ = writeln!(s, "    {:>6} B  {:<8} {:#06x}  {}", i.size, i.section, i.address, i.name);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 300-byte `OPENING_BOOK` and a 50-byte table in `.progmem.data`
    /// (avr-libc's PROGMEM), 10 initialised and 200 zeroed bytes of SRAM.
    #[test]
    fn classifies_vectors_progmem_book_and_ram() {
        let elf = crate::ram::compile_c(
            "map",
            r#"
#include <avr/io.h>
#include <avr/pgmspace.h>
const unsigned char OPENING_BOOK[300] PROGMEM = { 1, 2, 3 };
const unsigned char table[50] PROGMEM = { 4, 5, 6 };
volatile unsigned char inited[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
volatile unsigned char zeroed[200];
volatile unsigned int i;
int main(void) {
    zeroed[i] = pgm_read_byte(&OPENING_BOOK[i]) + pgm_read_byte(&table[i]) + inited[i];
    for (;;) {}
}
"#,
            &[],
        );
        let p = emulator::loader::elf::parse(&elf).unwrap();
        let m = StaticMap::from_program(&p);
        assert_eq!(m.vectors, 112, "28 vectors of 4 bytes on the ATmega644");
        assert_eq!(m.book, 300);
        assert_eq!(m.progmem, 50);
        assert_eq!(m.code, m.text - 112 - 350);
        assert_eq!(m.data.size, 10);
        assert_eq!(m.bss.size, 202);
        assert_eq!(m.static_ram(), 212);
        assert_eq!(m.flash(), m.text + 10);
        let find = |n: &str| m.flash_symbols.iter().find(|i| i.name == n).unwrap().section.clone();
        assert_eq!(find("OPENING_BOOK"), "book");
        assert_eq!(find("table"), "progmem");
        assert_eq!(find("main"), "code");
        assert_eq!(m.ram_symbols[0].name, "zeroed");
        assert_eq!(m.ram_symbols[0].section, ".bss");
        assert!(m.ram_symbols.iter().any(|i| i.name == "inited" && i.section == ".data"));
        assert!(m.report(5).contains("book 300 B"));
    }
}

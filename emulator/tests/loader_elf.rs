//! ELF and HEX loading of real avr-gcc output.

mod common;

use emulator::loader::{Space, SymbolKind};
use emulator::{Avr, Config, LoadError, RunLimit, Stop};
use std::process::Command;

const PROGRAM: &str = r#"
#include <avr/io.h>
#include <avr/interrupt.h>
#include <avr/sleep.h>
#include <stdint.h>
uint16_t table[4] = { 0x1111, 0x2222, 0x3333, 0x4444 };
uint8_t zeros[32];
volatile uint16_t sum;
int main(void) {
    uint16_t s = 0;
    for (uint8_t i = 0; i < 4; i++) s += table[i] + zeros[i];
    sum = s;
    cli();
    sleep_cpu();
    for (;;) {}
}
"#;

fn avr() -> Avr {
    Avr::new(Config::default())
}

#[test]
fn elf_loads_flash_data_image_and_symbols() {
    let (elf, _) = common::compile_c(PROGRAM, &[]);
    let mut avr = avr();
    let program = avr.load_elf(&elf).unwrap();
    let syms = &program.symbols;

    let main = syms.lookup("main").expect("main");
    assert_eq!((main.space, main.kind), (Space::Flash, SymbolKind::Function));
    assert!(main.size > 0);
    let table = syms.lookup("table").expect("table");
    assert_eq!((table.space, table.size, table.kind), (Space::Data, 8, SymbolKind::Object));
    assert!(table.address >= 0x100);
    let data = syms.sections.iter().find(|s| s.name == ".data").expect(".data");
    let bss = syms.sections.iter().find(|s| s.name == ".bss").expect(".bss");
    assert_eq!(data.space, Space::Data);
    assert!(bss.start >= data.end());
    let end = program.static_data_end().unwrap();
    assert_eq!(end as u32, bss.end(), "__heap_start is the end of .bss");
    assert_eq!(avr.stack_limit(), end);
    assert_eq!(syms.label(Space::Data, table.address + 2).as_deref(), Some("table+0x2"));

    // The startup code copies .data from its flash image.
    assert!(matches!(avr.run(RunLimit::UntilSleep { max_cycles: 1_000_000 }), Stop::Sleeping { .. }));
    let sum_addr = syms.lookup("sum").unwrap().address as u16;
    let sum = u16::from_le_bytes([avr.read_data(sum_addr).unwrap(), avr.read_data(sum_addr + 1).unwrap()]);
    assert_eq!(sum, 0xAAAA);
}

#[test]
fn hex_gives_the_same_flash_as_elf() {
    let (elf, path) = common::compile_c(PROGRAM, &[]);
    common::require_tool("avr-objcopy");
    let hex_path = path.with_extension("hex");
    let ok = Command::new("avr-objcopy")
        .args(["-O", "ihex", "-R", ".eeprom"])
        .arg(&path)
        .arg(&hex_path)
        .status()
        .unwrap()
        .success();
    assert!(ok);
    let hex = std::fs::read_to_string(&hex_path).unwrap();
    let mut a = avr();
    let mut b = avr();
    a.load_elf(&elf).unwrap();
    b.load_hex(&hex).unwrap();
    assert_eq!(a.flash(), b.flash());
    let cycles_a = {
        a.run(RunLimit::UntilSleep { max_cycles: 1_000_000 });
        a.cycles()
    };
    b.run(RunLimit::UntilSleep { max_cycles: 1_000_000 });
    assert_eq!(cycles_a, b.cycles(), "same program, same trace");
}

#[test]
fn elf_for_another_machine_is_rejected() {
    let (mut elf, _) = common::compile_c(PROGRAM, &[]);
    elf[18] = 40; // EM_ARM
    elf[19] = 0;
    assert_eq!(avr().load_elf(&elf), Err(LoadError::WrongMachine(40)));
    let (mut elf, _) = common::compile_c(PROGRAM, &[]);
    elf[4] = 2; // ELFCLASS64
    assert_eq!(avr().load_elf(&elf), Err(LoadError::WrongClass));
    assert!(matches!(avr().load_elf(b"not an elf"), Err(LoadError::Elf(_))));
}

#[test]
fn too_much_static_data_is_rejected() {
    let (elf, _) = common::compile_c("char big[5000]; int main(void) { big[4999] = 1; return big[0]; }",
        // avr-ld itself would refuse; widen its data region to reach our check.
        &["-Wl,--defsym=__DATA_REGION_LENGTH__=0x10000"],
    );
    let err = avr().load_elf(&elf).unwrap_err();
    assert!(matches!(err, LoadError::SramOverflow { .. }), "{err:?}");
    assert!(err.to_string().contains("SRAM"), "{err}");
}

#[test]
fn too_much_code_is_rejected() {
    let dir = common::scratch_dir();
    let elf = common::assemble_elf("nop\n .space 70000\n", dir.path());
    let err = avr().load_elf(&std::fs::read(elf).unwrap()).unwrap_err();
    assert!(matches!(err, LoadError::FlashOverflow { .. }), "{err:?}");
}

//! What the tests that drive the firmware image share: the clock, the
//! serial line, move and position text, and calling one of the image's
//! functions directly in the emulator.
//!
//! (Each test file compiles this module on its own; not every file uses
//! every item.)
#![allow(dead_code)]

use board_sim::board::Board;
use emulator::periph::usart::Usart;
use emulator::Stop;
use firmware::chess::{Move, Position};

pub const CLOCK_HZ: u32 = 8_000_000;
/// GPIOR0, which the firmware's assembly keeps a flag in.
const GPIOR0: u16 = 0x3E;

/// Cycles of `n` milliseconds.
pub fn ms(n: u64) -> u64 {
    n * CLOCK_HZ as u64 / 1000
}

pub fn usart(b: &mut Board) -> &mut Usart {
    b.avr.peripheral_mut::<Usart>().expect("the ATmega644 has USART0")
}

/// The image at `PRODIGY_ELF`, booted, its banner read.
pub fn boot() -> Board {
    let path = std::env::var("PRODIGY_ELF")
        .expect("PRODIGY_ELF is not set: this test runs the AVR firmware; run it with `cargo xtask test`");
    let mut b = Board::from_elf_file(path.as_ref(), CLOCK_HZ).unwrap_or_else(|e| panic!("{e}"));
    b.run_for(ms(2500));
    usart(&mut b).host_take();
    b
}

/// The address of the one symbol whose name contains `part`.
pub fn symbol(b: &Board, part: &str) -> u32 {
    let s: Vec<_> = b.avr.symbols().symbols.iter().filter(|s| s.name.contains(part)).collect();
    assert_eq!(s.len(), 1, "one symbol {part}: {s:?}");
    s[0].address
}

/// Sends one line and runs until one answer line arrives (within 2 s).
pub fn ask(b: &mut Board, line: &str) -> String {
    let now = b.avr.cycles();
    usart(b).host_send(now, format!("{line}\n").as_bytes());
    let end = now + ms(2_000);
    let mut text = String::new();
    while b.avr.cycles() < end {
        assert_eq!(b.run_for(ms(2)), Stop::CycleLimit, "the firmware stopped after {line:?}");
        text.push_str(&String::from_utf8_lossy(&usart(b).host_take()));
        if let Some(end) = text.find('\n') {
            return text[..end].trim_end().to_string();
        }
    }
    panic!("no answer to {line:?} within 2 s of emulated time: {text:?}");
}

pub fn coord(m: Move) -> String {
    let mut buf = [0u8; 8];
    let n = m.write_coord(&mut buf).expect("a move has a coordinate form");
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

pub fn fen(pos: &Position) -> String {
    let mut buf = [0u8; firmware::chess::FEN_MAX_LEN];
    let n = pos.write_fen(&mut buf).expect("a position has a FEN");
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

/// Calls the function at word address `pc` between two instructions of
/// the firmware, as a `call` would (the return address 0 pushed,
/// interrupts off), with `args` (register, value) set and r1 cleared (the
/// ABI's zero register, which the firmware may hold non-zero between two
/// of its instructions, after a `mul`), runs it to its
/// return and gives the registers it returned with. The firmware's
/// registers, stack, PC, SREG and GPIOR0 are put back after, so it goes
/// on as if nothing had run; memory the function wrote stays written.
pub fn call(b: &mut Board, pc: u32, args: &[(u8, u8)], what: &str) -> [u8; 32] {
    // Returning to word 0 (the reset vector) stops the call.
    b.avr.add_breakpoint(0);
    while b.avr.is_sleeping() {
        b.step();
    }
    let (regs, sp, resume, sreg) = (b.avr.regs(), b.avr.sp(), b.avr.pc(), b.avr.sreg());
    let gpior0 = b.avr.read_data(GPIOR0).unwrap();
    b.avr.write_data(sp, 0);
    b.avr.write_data(sp - 1, 0);
    b.avr.set_sp(sp - 2);
    b.avr.set_sreg(sreg & 0x7F);
    b.avr.set_reg(1, 0);
    for &(r, v) in args {
        b.avr.set_reg(r, v);
    }
    b.avr.set_pc(pc);
    assert_eq!(b.run_for(ms(10)), Stop::Breakpoint(0), "{what}");
    assert_eq!(b.avr.sp(), sp, "{what}: the stack");
    let returned = b.avr.regs();
    for (r, v) in regs.iter().enumerate() {
        b.avr.set_reg(r as u8, *v);
    }
    b.avr.set_sp(sp);
    b.avr.set_pc(resume);
    b.avr.set_sreg(sreg);
    b.avr.write_data(GPIOR0, gpior0);
    // The call-saved registers kept (r2..r17, r28, r29).
    for r in (2..18).chain(28..30) {
        assert_eq!(returned[r], regs[r], "{what}: r{r} not restored");
    }
    returned
}

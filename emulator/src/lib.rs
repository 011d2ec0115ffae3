//! A cycle-accurate ATmega644.
//!
//! The CPU core runs pre-decoded flash and dispatches only I/O addresses
//! (0x20..=0xFF) to the on-chip peripherals, which schedule their own events
//! on the cycle counter. Nothing here knows about LCDs or chess: external
//! parts attach through the pin API.
//!
//! Start with [`Avr`]:
//!
//! ```no_run
//! use emulator::{Avr, Config, RunLimit, Stop};
//! let elf = std::fs::read("firmware.elf").unwrap();
//! let mut avr = Avr::new(Config { clock_hz: 8_000_000, ..Config::default() });
//! let program = avr.load_elf(&elf).expect("a valid AVR ELF");
//! match avr.run(RunLimit::UntilSleep { max_cycles: 1_000_000_000 }) {
//!     Stop::Sleeping { .. } => println!("done after {} cycles ({:?})", avr.cycles(), avr.elapsed()),
//!     stop => println!("stopped: {stop:?} at {}", avr.disassemble(avr.pc())),
//! }
//! println!("deepest stack: {} bytes; static data ends at {:?}", avr.max_stack_bytes(), program.static_data_end());
//! ```
//!
//! Module map: [`device`] (the chip's constants), [`cpu`] (decode, flags,
//! execute), [`avr`] (the machine, bus, scheduling, interrupts, sleep),
//! [`loader`] (ELF, HEX, symbols), [`debug`] (breakpoints, watchpoints,
//! stack watch), [`disasm`], and the peripherals ([`peripheral`] is the
//! contract, [`periph`] the implementations).

pub mod avr;
pub mod cpu;
pub mod debug;
pub mod device;
pub mod disasm;
pub mod loader;
pub mod peripheral;
pub mod periph;

pub use avr::{Avr, Config, Fault, FaultKind, RunLimit, Stop};
pub use debug::{Access, WatchKind, Watchpoint};
pub use loader::{LoadError, Program};

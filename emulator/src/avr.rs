//! The `Avr` machine: CPU state, memories, peripherals and the public API
//! used by the board simulator, the UCI bridge, the debugger and tests.
//!
//! The instruction semantics live in [`crate::cpu`]; this module and its
//! children hold the machine together: `bus` dispatches data-space accesses,
//! `run` drives time (run loop, peripheral scheduling, interrupts, sleep,
//! reset).

mod bus;
mod run;

use crate::cpu::decode::{decode, Instr};
use crate::debug::{Debug, Watchpoint};
use crate::device::{self, reg, DATA_SIZE, FLASH_BYTES, FLASH_WORDS, IO_SIZE, PC_MASK, RAMEND};
use crate::loader::{self, LoadError, Program, Symbols};
use crate::peripheral::{Ctx, PinEvent, Pins, PortIndex, ResetCause, Sleep, Warning, NEVER};
use crate::peripheral::Peripheral;
use std::time::Duration;

pub use crate::debug::{Access, WatchKind};
pub use run::{RunLimit, Stop};

/// How the machine is built.
#[derive(Clone, Debug)]
pub struct Config {
    /// CPU clock; only used to convert cycles to time.
    pub clock_hz: u64,
    /// SP below this data-space address is a stack collision. `None` takes
    /// the end of static data from the loaded ELF (`__heap_start`).
    pub stack_limit: Option<u16>,
}

impl Default for Config {
    fn default() -> Self {
        Config { clock_hz: 8_000_000, stack_limit: None }
    }
}

/// A fault: the program did something the chip cannot do. The run stops
/// with the PC at the offending instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// Word address of the instruction.
    pub pc: u32,
    /// Its first opcode word.
    pub word: u16,
    pub kind: FaultKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// The word is not an ATmega644 instruction.
    UndefinedOpcode,
    /// A data access beyond RAMEND (the data space ends at 0x10FF).
    DataOutOfRange { addr: u16, access: Access },
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = format!("at PC {:#06x} (byte {:#06x}), opcode {:#06x}", self.pc, self.pc * 2, self.word);
        match self.kind {
            FaultKind::UndefinedOpcode => write!(f, "undefined opcode {at}"),
            FaultKind::DataOutOfRange { addr, access } => {
                write!(f, "{access:?} of data address {addr:#06x} beyond RAMEND {at}")
            }
        }
    }
}

/// Which registers the core keeps for itself in the I/O owner table.
const OWNER_CORE: u8 = 0xFE;
/// An I/O address nobody models: it behaves as plain memory, with a warning.
const OWNER_NONE: u8 = 0xFF;

/// What peripherals may touch, split from the peripherals themselves so a
/// `Ctx` can borrow it while one peripheral is borrowed mutably.
#[derive(Debug)]
pub(crate) struct Shared {
    pub irq: u64,
    pub pins: Pins,
    pub warnings: Vec<Warning>,
    pub sleep: Sleep,
    pub mcusr: u8,
    pub reset: Option<ResetCause>,
    pub stall: u32,
}

impl Shared {
    pub fn ctx(&mut self, now: u64, pc: u32) -> Ctx<'_> {
        Ctx {
            now,
            irq: &mut self.irq,
            pins: &mut self.pins,
            warnings: &mut self.warnings,
            sleep: self.sleep,
            mcusr: &mut self.mcusr,
            reset: &mut self.reset,
            stall: &mut self.stall,
            pc,
        }
    }
}

/// An ATmega644 with its on-chip peripherals.
pub struct Avr {
    // --- CPU state -------------------------------------------------------
    /// Word address of the next instruction (always masked to flash).
    pub(crate) pc: u32,
    pub(crate) sp: u16,
    pub(crate) sreg: u8,
    pub(crate) cycles: u64,
    /// Registers, I/O shadow and SRAM, indexed by data-space address.
    pub(crate) data: Box<[u8; DATA_SIZE]>,
    pub(crate) flash: Box<[u8; FLASH_BYTES]>,
    /// `decoded[pc]` is the instruction starting at word `pc`.
    pub(crate) decoded: Box<[Instr; FLASH_WORDS]>,

    // --- time and attention ----------------------------------------------
    /// The inner loop runs while `cycles < attention`; anything that may
    /// need the outer loop's care (an I/O access, SEI, RETI, a stop) sets
    /// it to 0.
    pub(crate) attention: u64,
    /// SEI/RETI were just executed: one more instruction before an interrupt.
    pub(crate) irq_inhibit: bool,
    pub(crate) sleeping: bool,
    /// A stop found while executing, returned by the run loop.
    pub(crate) pending_stop: Option<Stop>,
    /// `run(RunLimit::UntilSleep)` in progress: SLEEP with I clear stops.
    pub(crate) stop_on_sleep: bool,

    // --- peripherals -----------------------------------------------------
    pub(crate) periphs: Vec<Box<dyn Peripheral>>,
    /// Next event cycle of each peripheral, as its `update` returned.
    pub(crate) next_event: Vec<u64>,
    /// Lower bound of `next_event` (exact after `update_due`).
    pub(crate) next_min: u64,
    /// Owner of each I/O address 0x20..=0xFF: a peripheral index, core or none.
    pub(crate) io_owner: [u8; IO_SIZE],
    /// Owner of each interrupt vector (peripheral index or `OWNER_NONE`).
    pub(crate) vector_owner: [u8; 64],
    /// Unowned I/O addresses already warned about.
    pub(crate) io_warned: [bool; IO_SIZE],
    /// A host-side `peripheral_mut`/pin change: re-query every schedule.
    pub(crate) host_touched: bool,
    /// Pins whose level changes stop the run ([`Stop::PinChange`]).
    pub(crate) pin_watch: [u8; crate::peripheral::PORTS],
    /// Pin events already looked at for `pin_watch`.
    pub(crate) pin_events_checked: usize,
    pub(crate) shared: Shared,
    /// Self-programming page buffer (SPM).
    pub(crate) spm_buffer: Box<[u8; device::SPM_PAGE_BYTES]>,

    // --- debugging -------------------------------------------------------
    pub(crate) debug: Debug,
    pub(crate) symbols: Symbols,
    config: Config,
}

impl Avr {
    /// A powered-on ATmega644 with erased flash.
    pub fn new(config: Config) -> Avr {
        let periphs = crate::periph::atmega644_clocked(config.clock_hz);
        Avr::with_peripherals(config, periphs)
    }

    /// A chip with a custom set of peripherals (tests, experiments). Each
    /// I/O address goes to the first peripheral claiming it; the core's
    /// own registers cannot be claimed.
    pub fn with_peripherals(config: Config, periphs: Vec<Box<dyn Peripheral>>) -> Avr {
        let mut io_owner = [OWNER_NONE; IO_SIZE];
        let mut vector_owner = [OWNER_NONE; 64];
        let mut warnings = Vec::new();
        for (i, p) in periphs.iter().enumerate() {
            for addr in p.addresses() {
                match addr.checked_sub(device::IO_START).map(usize::from).filter(|&a| a < IO_SIZE) {
                    Some(slot) if io_owner[slot] == OWNER_NONE => io_owner[slot] = i as u8,
                    _ => warnings.push(Warning {
                        cycle: 0,
                        pc: None,
                        source: "core",
                        message: format!("{} claims I/O address {addr:#04x}, which is taken or not I/O", p.name()),
                    }),
                }
            }
            for v in p.vectors() {
                if let Some(slot) = vector_owner.get_mut(v as usize) {
                    *slot = i as u8;
                }
            }
        }
        for addr in reg::CORE_OWNED {
            let slot = (addr - device::IO_START) as usize;
            if io_owner[slot] != OWNER_NONE {
                warnings.push(Warning {
                    cycle: 0,
                    pc: None,
                    source: "core",
                    message: format!("I/O address {addr:#04x} belongs to the core; a peripheral's claim is ignored"),
                });
            }
            io_owner[slot] = OWNER_CORE;
        }
        let n = periphs.len();
        let mut avr = Avr {
            pc: 0,
            sp: RAMEND,
            sreg: 0,
            cycles: 0,
            data: Box::new([0; DATA_SIZE]),
            flash: Box::new([0xFF; FLASH_BYTES]),
            decoded: Box::new([Instr::Undefined { word: 0xFFFF }; FLASH_WORDS]),
            attention: 0,
            irq_inhibit: false,
            sleeping: false,
            pending_stop: None,
            stop_on_sleep: false,
            periphs,
            next_event: vec![NEVER; n],
            next_min: 0,
            io_owner,
            vector_owner,
            io_warned: [false; IO_SIZE],
            host_touched: false,
            pin_watch: [0; crate::peripheral::PORTS],
            pin_events_checked: 0,
            shared: Shared {
                irq: 0,
                pins: Pins::default(),
                warnings,
                sleep: Sleep::Awake,
                mcusr: 0,
                reset: None,
                stall: 0,
            },
            spm_buffer: Box::new([0xFF; device::SPM_PAGE_BYTES]),
            debug: Debug::default(),
            symbols: Symbols::default(),
            config,
        };
        avr.redecode_all();
        avr.reset_chip(ResetCause::PowerOn);
        avr
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    // --- loading -----------------------------------------------------------

    /// Loads an AVR ELF: flash image, symbols, and the end of static data
    /// for stack collision checks. Resets the chip (power-on).
    pub fn load_elf(&mut self, bytes: &[u8]) -> Result<Program, LoadError> {
        let program = loader::elf::parse(bytes)?;
        self.load_program(&program);
        Ok(program)
    }

    /// Loads Intel HEX text into flash. Resets the chip (power-on).
    pub fn load_hex(&mut self, text: &str) -> Result<Program, LoadError> {
        let program = loader::hex::parse(text)?;
        self.load_program(&program);
        Ok(program)
    }

    /// Loads a raw flash image from address 0 (the rest of flash is
    /// erased). Resets the chip (power-on).
    pub fn load_flash(&mut self, image: &[u8]) -> Result<(), LoadError> {
        if image.len() > FLASH_BYTES {
            return Err(LoadError::FlashOverflow { end: image.len() as u64 });
        }
        self.load_program(&Program { flash: image.to_vec(), ..Program::default() });
        Ok(())
    }

    /// Puts a parsed program into flash (EEPROM content is the caller's:
    /// write `program.eeprom` through the EEPROM peripheral if wanted).
    pub fn load_program(&mut self, program: &Program) {
        self.flash.fill(0xFF);
        let n = program.flash.len().min(FLASH_BYTES);
        self.flash[..n].copy_from_slice(&program.flash[..n]);
        self.redecode_all();
        self.symbols = program.symbols.clone();
        self.debug.stack_limit = self.config.stack_limit.or_else(|| program.static_data_end()).unwrap_or(0);
        self.data.fill(0);
        self.reset_chip(ResetCause::PowerOn);
    }

    /// Symbols of the loaded program (empty for HEX and raw images).
    pub fn symbols(&self) -> &Symbols {
        &self.symbols
    }

    // --- flash ---------------------------------------------------------------

    /// The whole 64 KB of flash.
    pub fn flash(&self) -> &[u8] {
        &self.flash[..]
    }

    /// Writes flash bytes at a byte address (as a programmer would) and
    /// re-decodes the affected words. Bytes past the end are ignored.
    pub fn write_flash(&mut self, byte_addr: u32, bytes: &[u8]) {
        for (i, &b) in bytes.iter().enumerate() {
            let a = byte_addr as usize + i;
            if a < FLASH_BYTES {
                self.flash[a] = b;
            }
        }
        let first = byte_addr as usize / 2;
        let last = (byte_addr as usize + bytes.len()).div_ceil(2).min(FLASH_WORDS);
        // The word before may be a two-word instruction using ours as operand.
        for w in first.saturating_sub(1)..last {
            self.redecode(w as u32);
        }
    }

    /// The flash word at word address `pc`.
    pub fn flash_word(&self, pc: u32) -> u16 {
        let a = (pc & PC_MASK) as usize * 2;
        u16::from_le_bytes([self.flash[a], self.flash[a + 1]])
    }

    /// The decoded instruction at word address `pc`.
    pub fn instruction(&self, pc: u32) -> Instr {
        self.decoded[(pc & PC_MASK) as usize]
    }

    pub(crate) fn redecode(&mut self, pc: u32) {
        let pc = pc & PC_MASK;
        self.decoded[pc as usize] = decode(self.flash_word(pc), self.flash_word(pc + 1));
    }

    fn redecode_all(&mut self) {
        for pc in 0..FLASH_WORDS as u32 {
            self.redecode(pc);
        }
    }

    // --- CPU state -----------------------------------------------------------

    /// Cycles since power-on (not cleared by resets).
    pub fn cycles(&self) -> u64 {
        self.cycles
    }

    /// Emulated time since power-on at the configured clock.
    pub fn elapsed(&self) -> Duration {
        let hz = self.config.clock_hz.max(1) as u128;
        Duration::from_nanos((self.cycles as u128 * 1_000_000_000 / hz) as u64)
    }

    /// Emulated seconds since power-on.
    pub fn seconds(&self) -> f64 {
        self.cycles as f64 / self.config.clock_hz.max(1) as f64
    }

    /// Word address of the next instruction.
    pub fn pc(&self) -> u32 {
        self.pc
    }

    pub fn set_pc(&mut self, pc: u32) {
        self.pc = pc & PC_MASK;
    }

    pub fn sp(&self) -> u16 {
        self.sp
    }

    pub fn set_sp(&mut self, sp: u16) {
        self.sp = sp;
    }

    pub fn sreg(&self) -> u8 {
        self.sreg
    }

    pub fn set_sreg(&mut self, sreg: u8) {
        self.sreg = sreg;
        self.attention = 0;
    }

    /// General purpose register `r` (0..=31).
    pub fn reg(&self, r: u8) -> u8 {
        self.data[(r & 31) as usize]
    }

    pub fn set_reg(&mut self, r: u8, value: u8) {
        self.data[(r & 31) as usize] = value;
    }

    /// All 32 registers.
    pub fn regs(&self) -> [u8; 32] {
        self.data[..32].try_into().expect("32 registers")
    }

    /// The 16-bit register pair starting at `r` (X = 26, Y = 28, Z = 30).
    pub fn reg_pair(&self, r: u8) -> u16 {
        u16::from_le_bytes([self.reg(r), self.reg(r + 1)])
    }

    /// True while the CPU sleeps (waiting for an interrupt).
    pub fn is_sleeping(&self) -> bool {
        self.sleeping
    }

    /// Pending interrupt requests, bit n = vector n.
    pub fn pending_interrupts(&self) -> u64 {
        self.shared.irq
    }

    /// MCUSR: which resets happened.
    pub fn mcusr(&self) -> u8 {
        self.shared.mcusr
    }

    // --- data space (debugger view) ------------------------------------------

    /// Peeks at a data-space address without side effects: registers, core
    /// registers, peripheral registers (`peek`) and SRAM. `None` beyond RAMEND.
    pub fn read_data(&self, addr: u16) -> Option<u8> {
        if addr > RAMEND {
            return None;
        }
        Some(self.peek(addr))
    }

    /// Writes a data-space address for the debugger. SRAM, registers and
    /// core registers are written directly; a peripheral register is written
    /// through the peripheral (with its side effects, as the CPU would).
    /// Returns false beyond RAMEND.
    pub fn write_data(&mut self, addr: u16, value: u8) -> bool {
        if addr > RAMEND {
            return false;
        }
        self.io_or_memory_write(addr, value, 0);
        true
    }

    /// `len` bytes from `addr` (stops at RAMEND).
    pub fn read_data_range(&self, addr: u16, len: usize) -> Vec<u8> {
        (addr as usize..(addr as usize + len).min(DATA_SIZE)).map(|a| self.peek(a as u16)).collect()
    }

    // --- peripherals -----------------------------------------------------------

    /// The peripheral of type `T`, if the chip has one.
    pub fn peripheral<T: Peripheral>(&self) -> Option<&T> {
        self.periphs.iter().find_map(|p| (**p).as_any().downcast_ref::<T>())
    }

    /// The peripheral of type `T`, mutably. The core re-queries every
    /// peripheral's schedule before the next instruction, since host-side
    /// calls (queueing a byte on the USART...) may change it.
    pub fn peripheral_mut<T: Peripheral>(&mut self) -> Option<&mut T> {
        self.host_touched = true;
        self.attention = 0;
        self.periphs.iter_mut().find_map(|p| (**p).as_any_mut().downcast_mut::<T>())
    }

    /// Names of all peripherals, in dispatch order.
    pub fn peripheral_names(&self) -> Vec<&'static str> {
        self.periphs.iter().map(|p| p.name()).collect()
    }

    /// Warnings so far (oldest first).
    pub fn warnings(&self) -> &[Warning] {
        &self.shared.warnings
    }

    /// Takes the warnings, leaving the list empty.
    pub fn take_warnings(&mut self) -> Vec<Warning> {
        std::mem::take(&mut self.shared.warnings)
    }

    // --- pins ------------------------------------------------------------------

    pub fn pins(&self) -> &Pins {
        &self.shared.pins
    }

    /// Drives input pin `bit` of `port` from outside (`Some(level)`) or
    /// releases it (`None`), then lets the peripherals see the change.
    pub fn set_input(&mut self, port: PortIndex, bit: u8, level: Option<bool>) {
        let pins = &mut self.shared.pins;
        let mask = 1u8 << (bit & 7);
        match level {
            Some(high) => {
                pins.ext_driven[port] |= mask;
                if high {
                    pins.ext_level[port] |= mask;
                } else {
                    pins.ext_level[port] &= !mask;
                }
            }
            None => {
                pins.ext_driven[port] &= !mask;
                pins.ext_level[port] &= !mask;
            }
        }
        let now = self.cycles;
        for p in self.periphs.iter_mut() {
            p.pins_changed(&mut self.shared.ctx(now, self.pc));
        }
        self.shared.pins.settle(port, now);
        // The host made this change: it is no reason to stop a run.
        self.pin_events_checked = self.shared.pins.events.len();
        self.host_touched = true;
        self.attention = 0;
    }

    /// Pin level changes since the last call, oldest first.
    pub fn drain_pin_events(&mut self) -> Vec<PinEvent> {
        self.pin_events_checked = 0;
        std::mem::take(&mut self.shared.pins.events)
    }

    /// Makes a level change of the pins in `mask` of `port` (driven by the
    /// chip) stop the run with [`Stop::PinChange`], so the host can react
    /// at that cycle (an LCD answering while its E strobe is high). Pass
    /// a zero mask to stop watching. Costs nothing on the hot path: pins
    /// only change in peripheral accesses and events.
    pub fn watch_pins(&mut self, port: PortIndex, mask: u8) {
        self.pin_watch[port] = mask;
        self.pin_events_checked = self.shared.pins.events.len();
    }

    // --- debugging ---------------------------------------------------------------

    pub fn add_breakpoint(&mut self, pc: u32) -> bool {
        self.debug.add_breakpoint(pc)
    }

    pub fn remove_breakpoint(&mut self, pc: u32) -> bool {
        self.debug.remove_breakpoint(pc)
    }

    pub fn breakpoints(&self) -> Vec<u32> {
        self.debug.breakpoints()
    }

    /// Whether a breakpoint is set at word address `pc`.
    pub fn is_breakpoint(&self, pc: u32) -> bool {
        self.debug.is_breakpoint(pc)
    }

    pub fn clear_breakpoints(&mut self) {
        self.debug.clear_breakpoints()
    }

    pub fn add_watchpoint(&mut self, range: std::ops::RangeInclusive<u16>, kind: WatchKind) {
        self.debug.add_watchpoint(Watchpoint { range, kind })
    }

    pub fn remove_watchpoint(&mut self, range: std::ops::RangeInclusive<u16>, kind: WatchKind) -> bool {
        self.debug.remove_watchpoint(&Watchpoint { range, kind })
    }

    pub fn watchpoints(&self) -> &[Watchpoint] {
        self.debug.watchpoints()
    }

    pub fn clear_watchpoints(&mut self) {
        self.debug.clear_watchpoints()
    }

    /// Lowest SP seen since reset (on pushes, calls, interrupts and writes
    /// of SPL — avr-gcc writes SPH first, so SPL completes a new SP).
    pub fn min_sp(&self) -> u16 {
        self.debug.min_sp
    }

    /// Starts a new high-water measurement from the current SP (for
    /// per-step figures of a workload).
    pub fn reset_min_sp(&mut self) {
        self.debug.min_sp = self.sp;
    }

    /// Deepest stack use since reset in bytes (RAMEND - min SP).
    pub fn max_stack_bytes(&self) -> u16 {
        RAMEND - self.debug.min_sp
    }

    /// SP below this is reported as a stack collision (0: no check).
    pub fn stack_limit(&self) -> u16 {
        self.debug.stack_limit
    }

    pub fn set_stack_limit(&mut self, limit: Option<u16>) {
        self.debug.stack_limit = limit.unwrap_or(0);
        self.debug.collided = false;
    }

    /// Text disassembly of the instruction at `pc`, with symbol names.
    pub fn disassemble(&self, pc: u32) -> String {
        crate::disasm::disassemble(self.flash_word(pc), self.flash_word(pc + 1), pc & PC_MASK, Some(&self.symbols))
    }

    // --- reset -------------------------------------------------------------------

    /// An external reset (RESET pin): peripherals back to their reset
    /// state, registers cleared, PC = 0, SP = RAMEND, MCUSR.EXTRF set.
    /// SRAM keeps its content, as on the chip.
    pub fn reset(&mut self) {
        self.reset_chip(ResetCause::External);
    }

    /// Resets for `cause`, recording it in MCUSR.
    pub fn reset_with(&mut self, cause: ResetCause) {
        self.reset_chip(cause);
    }
}

impl std::fmt::Debug for Avr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Avr")
            .field("pc", &self.pc)
            .field("sp", &self.sp)
            .field("sreg", &self.sreg)
            .field("cycles", &self.cycles)
            .field("peripherals", &self.peripheral_names())
            .finish_non_exhaustive()
    }
}

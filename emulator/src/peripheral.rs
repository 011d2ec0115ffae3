//! The contract between the CPU core and the on-chip peripherals.
//!
//! A peripheral owns a set of I/O addresses (0x20..=0xFF of the data space)
//! and zero or more interrupt vectors. The core dispatches data-space accesses
//! in that range to the owning peripheral, and otherwise leaves it alone
//! until the cycle the peripheral asked to be woken at: peripherals are never
//! ticked every instruction. Everything a peripheral may touch besides its own
//! registers is handed to it in a [`Ctx`].

use std::any::Any;

/// Index of a port: 0 = A .. 3 = D.
pub type PortIndex = usize;
/// Number of GPIO ports on the ATmega644.
pub const PORTS: usize = 4;

/// "No event scheduled".
pub const NEVER: u64 = u64::MAX;

/// The chip's sleep state as the peripherals see it (which clocks run).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sleep {
    Awake,
    Idle,
    AdcNoiseReduction,
    PowerDown,
    PowerSave,
    Standby,
    ExtendedStandby,
}

/// Why the chip was (or must be) reset. The core records it in MCUSR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResetCause {
    PowerOn,
    External,
    BrownOut,
    Watchdog,
}

/// A note for the user about something the emulation saw: an unmodelled
/// register in use, a peripheral misused, and the like.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    pub cycle: u64,
    /// Word address of the instruction that caused it, when known.
    pub pc: Option<u32>,
    pub source: &'static str,
    pub message: String,
}

/// A change of the level of a pin as seen from outside the chip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PinEvent {
    pub cycle: u64,
    pub port: PortIndex,
    /// Levels of all 8 pins of the port after the change.
    pub levels: u8,
    /// Which bits changed.
    pub changed: u8,
}

/// The pins of the chip: what the inside drives and what the outside drives.
///
/// The GPIO peripheral writes `ddr`/`port`. A peripheral with an alternate
/// output function replaces the PORT value with `alt_value` where
/// `alt_enable` is set (OCnx: the pin still needs its DDR bit, as on the
/// silicon) and may force the pin to be an output with `alt_output` (TXD0
/// when the transmitter is enabled). External parts
/// drive `ext_level` where `ext_driven` is set (through the core's pin API).
/// [`Pins::level`] resolves the electrical level of every pin, and every
/// change of it is logged in `events` for the board simulator.
#[derive(Clone, Debug, Default)]
pub struct Pins {
    pub ddr: [u8; PORTS],
    pub port: [u8; PORTS],
    pub alt_enable: [u8; PORTS],
    pub alt_value: [u8; PORTS],
    pub alt_output: [u8; PORTS],
    pub ext_driven: [u8; PORTS],
    pub ext_level: [u8; PORTS],
    /// MCUCR.PUD: pull-ups disabled globally.
    pub pull_up_disable: bool,
    /// Level last reported for each port (to detect changes).
    pub last_levels: [u8; PORTS],
    /// Output-side changes, oldest first; drained by the board simulator.
    pub events: Vec<PinEvent>,
    /// Pins whose changes must stop the run right after the instruction that
    /// made them, so an external part can answer in time (an LCD driving its
    /// data bus while E is high). Set through `Avr::watch_pins`.
    pub watch: [u8; PORTS],
    /// A watched pin changed since the run loop last looked.
    pub watch_hit: bool,
}

impl Pins {
    /// Electrical level of the eight pins of `port`.
    ///
    /// Output pins show what the chip drives (alternate function first);
    /// input pins show what the outside drives, else the pull-up (high when
    /// PORT=1 and pull-ups are enabled), else a floating input, read as low.
    pub fn level(&self, port: PortIndex) -> u8 {
        let out = (self.port[port] & !self.alt_enable[port]) | (self.alt_value[port] & self.alt_enable[port]);
        let driving = self.ddr[port] | self.alt_output[port];
        let pulled = if self.pull_up_disable { 0 } else { self.port[port] & !self.ddr[port] };
        let input = (self.ext_level[port] & self.ext_driven[port]) | (pulled & !self.ext_driven[port]);
        (out & driving) | (input & !driving)
    }

    /// Call after anything that may change a level; logs an event if it did.
    pub fn settle(&mut self, port: PortIndex, now: u64) {
        let levels = self.level(port);
        let changed = levels ^ self.last_levels[port];
        if changed != 0 {
            self.last_levels[port] = levels;
            self.events.push(PinEvent { cycle: now, port, levels, changed });
            self.watch_hit |= changed & self.watch[port] != 0;
        }
    }
}

/// What a peripheral may touch when it is accessed or woken.
///
/// # When accesses happen
///
/// `now` of a CPU access is the cycle of the instruction's bus cycle,
/// counted from the cycle the instruction started at (`start`), following
/// the datasheet's instruction timing:
///
/// * `IN`, `OUT`, `SBIC`, `SBIS` (1-cycle access): `now = start`.
/// * `LD`, `LDD`, `LDS`, `ST`, `STD`, `STS` (2 cycles, address computed in
///   the first): `now = start + 1`.
/// * `SBI`, `CBI` (read-modify-write over 2 cycles): read and write both at
///   `now = start + 1`.
/// * Before the access the core calls `update` if the peripheral's next
///   event is at or before `now`, so the access sees an up-to-date state.
///
/// Events run by the scheduler get `now` = the first instruction boundary
/// at or after the event cycle (the peripheral catches up itself). An
/// interrupt whose flag rises during an instruction is taken after that
/// instruction.
pub struct Ctx<'a> {
    /// The cycle at which the access or event happens.
    pub now: u64,
    /// Pending interrupt requests, bit n = vector n. A peripheral sets its
    /// vector's bit while (flag && enable) holds, and clears it otherwise.
    pub irq: &'a mut u64,
    pub pins: &'a mut Pins,
    pub warnings: &'a mut Vec<Warning>,
    pub sleep: Sleep,
    /// MCUSR (reset cause flags); owned by the core, the watchdog reads WDRF.
    pub mcusr: &'a mut u8,
    /// Set by a peripheral (the watchdog) to reset the chip.
    pub reset: &'a mut Option<ResetCause>,
    /// Extra cycles the CPU is halted for after this access (EEPROM: 2 after
    /// a write is started, 4 after a read).
    pub stall: &'a mut u32,
    /// The instruction being executed (word address), for warnings.
    pub pc: u32,
}

impl Ctx<'_> {
    pub fn set_irq(&mut self, vector: u8, pending: bool) {
        if pending {
            *self.irq |= 1 << vector;
        } else {
            *self.irq &= !(1 << vector);
        }
    }

    pub fn warn(&mut self, source: &'static str, message: String) {
        self.warnings.push(Warning { cycle: self.now, pc: Some(self.pc), source, message });
    }
}

/// Host-side downcasting of a peripheral (`Avr::peripheral::<Usart>()`),
/// implemented once for every type instead of in each peripheral.
pub trait AsAny: Any {
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<T: Any> AsAny for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// An on-chip peripheral.
pub trait Peripheral: AsAny {
    /// Short name for warnings and the debugger ("TC1", "USART0").
    fn name(&self) -> &'static str;
    /// The data-space I/O addresses (0x20..=0xFF) this peripheral owns.
    fn addresses(&self) -> Vec<u16>;
    /// The interrupt vectors this peripheral raises.
    fn vectors(&self) -> Vec<u8> {
        Vec::new()
    }
    /// A data-space read by the CPU (may have side effects, like reading UDR).
    fn read(&mut self, addr: u16, cx: &mut Ctx) -> u8;
    /// A data-space write by the CPU.
    fn write(&mut self, addr: u16, value: u8, cx: &mut Ctx);
    /// The debugger's view of a register: no side effects.
    fn peek(&self, addr: u16) -> u8;
    /// Runs every event due at or before `cx.now` and returns the cycle of
    /// the next one ([`NEVER`] if none). The core calls it when the cycle
    /// it returned last time is reached, and after every read or write.
    fn update(&mut self, cx: &mut Ctx) -> u64;
    /// The CPU has just started executing `vector`: clear the flag as the
    /// hardware does on interrupt entry.
    fn acknowledge(&mut self, _vector: u8, _cx: &mut Ctx) {}
    /// An external part changed the level of some input pins.
    fn pins_changed(&mut self, _cx: &mut Ctx) {}
    /// The CPU entered or left a sleep mode.
    fn sleep_changed(&mut self, _cx: &mut Ctx) {}
    /// The CPU executed WDR. The core calls this on the peripheral that
    /// owns WDTCSR (0x60), then `update`.
    fn watchdog_reset(&mut self, _cx: &mut Ctx) {}
    /// Back to the reset state of the datasheet.
    fn reset(&mut self, cx: &mut Ctx);
}

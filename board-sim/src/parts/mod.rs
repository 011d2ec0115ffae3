//! The board's external parts as pure models.
//!
//! Each part knows nothing about the CPU: it consumes pin levels stamped with
//! the CPU cycle at which they changed (the emulator's `PinEvent`s) and
//! produces state (LCD contents, tones) or levels to drive back onto the
//! chip's input pins (buttons, the LCD's data bus during reads). Keeping them
//! CPU-free makes them testable from synthetic waveforms and lets the runner
//! decide how often to exchange levels with the emulator.
//!
//! Pins always come from `firmware::board`, the board's single pin map.

pub mod buttons;
pub mod buzzer;
pub mod font;
pub mod hd44780;
pub mod wav;

use firmware::board::{Pin, Port};

pub use buttons::{Bounce, Buttons, KeyScript, ScriptError};
pub use buzzer::{Buzzer, Tone};
pub use font::Font;
pub use hd44780::{Hd44780, LcdBus, LcdLines, LcdWarning, LcdWiring, Timing};

/// Number of GPIO ports (A..D), matching the emulator's port indices.
pub const PORTS: usize = 4;

/// What a part drives onto one port: the pins in `mask` are driven to the
/// matching bits of `levels`; the others are left alone (pull-up or chip).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortDrive {
    pub mask: u8,
    pub levels: u8,
}

impl PortDrive {
    /// Adds one pin driven to `high`.
    pub fn drive(&mut self, pin: Pin, high: bool) {
        self.mask |= pin.mask();
        if high {
            self.levels |= pin.mask();
        } else {
            self.levels &= !pin.mask();
        }
    }
}

/// The last known level of every port, as seen from outside the chip.
///
/// Parts whose pins may span ports keep one of these and update it from each
/// pin event, then read their lines from it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PortLevels(pub [u8; PORTS]);

impl PortLevels {
    pub fn set(&mut self, port: Port, levels: u8) {
        self.0[port.index()] = levels;
    }

    pub fn get(&self, pin: Pin) -> bool {
        self.0[pin.port.index()] & pin.mask() != 0
    }
}

/// Converts a port index of the emulator (0 = A) to the board's `Port`.
pub fn port_from_index(index: usize) -> Option<Port> {
    match index {
        0 => Some(Port::A),
        1 => Some(Port::B),
        2 => Some(Port::C),
        3 => Some(Port::D),
        _ => None,
    }
}

/// Cycles taken by `ns` nanoseconds at `clock_hz`, rounded up so that a
/// minimum duration converted to cycles is never shortened.
pub fn ns_to_cycles(ns: u64, clock_hz: u32) -> u64 {
    let c = ns as u128 * clock_hz as u128;
    c.div_ceil(1_000_000_000) as u64
}

/// Nanoseconds spanned by `cycles` at `clock_hz`, rounded down.
pub fn cycles_to_ns(cycles: u64, clock_hz: u32) -> u64 {
    (cycles as u128 * 1_000_000_000 / clock_hz as u128) as u64
}

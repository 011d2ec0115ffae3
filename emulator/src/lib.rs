//! A cycle-accurate ATmega644.
//!
//! The CPU core runs pre-decoded flash and dispatches only I/O addresses
//! (0x20..=0xFF) to the on-chip peripherals, which schedule their own events
//! on the cycle counter. Nothing here knows about LCDs or chess: external
//! parts attach through the pin API.

pub mod peripheral;
pub mod periph;

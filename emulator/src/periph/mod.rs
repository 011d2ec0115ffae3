//! The ATmega644's on-chip peripherals, each configured by the addresses and
//! vectors of the device declaration.

use crate::peripheral::Peripheral;

/// Every peripheral of the ATmega644, in reset state.
pub fn atmega644() -> Vec<Box<dyn Peripheral>> {
    Vec::new()
}

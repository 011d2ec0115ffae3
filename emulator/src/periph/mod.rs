//! The ATmega644's on-chip peripherals, each a small generic module
//! configured by the addresses, bits, pins and vectors of the device
//! declaration in [`atmega644`](mod@atmega644).

pub mod atmega644;
pub mod counter;
pub mod eeprom;
pub mod extint;
pub mod gpio;
pub mod prescaler;
pub mod timer16;
pub mod timer8;
pub mod timers;
pub mod unmodelled;
pub mod usart;
pub mod watchdog;

#[cfg(test)]
pub(crate) mod bench;

pub use eeprom::Eeprom;
pub use gpio::Gpio;
pub use timers::Timers;
pub use unmodelled::{Reserved, Unmodelled};
pub use usart::Usart;
pub use watchdog::Watchdog;

use crate::peripheral::Peripheral;

/// The clock [`atmega644`] assumes (the board's 8 MHz).
pub const DEFAULT_CLOCK_HZ: u64 = 8_000_000;

/// Every peripheral of the ATmega644 at 8 MHz, in reset state.
pub fn atmega644() -> Vec<Box<dyn Peripheral>> {
    atmega644_clocked(DEFAULT_CLOCK_HZ)
}

/// Every peripheral of the ATmega644, in reset state, for a CPU clocked at
/// `clock_hz` (EEPROM programming and the watchdog run on their own
/// oscillators, so their timing in CPU cycles depends on it).
pub fn atmega644_clocked(clock_hz: u64) -> Vec<Box<dyn Peripheral>> {
    let mut all: Vec<Box<dyn Peripheral>> = vec![
        Box::new(Gpio::new(&atmega644::GPIO)),
        Box::new(Timers::new(&atmega644::TIMERS)),
        Box::new(Usart::new(&atmega644::USART0)),
        Box::new(Eeprom::new(&atmega644::EEPROM, clock_hz)),
        Box::new(Watchdog::new(&atmega644::WATCHDOG, clock_hz)),
    ];
    all.extend(atmega644::UNMODELLED.iter().map(|c| Box::new(Unmodelled::new(c)) as Box<dyn Peripheral>));
    // Whatever is left of 0x20..=0xFF (besides the core's) is reserved.
    let taken: Vec<u16> = all.iter().flat_map(|p| p.addresses()).chain(atmega644::CORE_ADDRESSES).collect();
    let reserved = (0x20..=0xFF).filter(|a| !taken.contains(a)).collect();
    all.push(Box::new(Reserved::new(reserved)));
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::periph::bench::Bench;
    use std::collections::HashMap;

    #[test]
    fn every_io_address_has_exactly_one_owner_except_the_cores() {
        let all = atmega644();
        let mut owner: HashMap<u16, &str> = HashMap::new();
        for p in &all {
            for a in p.addresses() {
                assert!((0x20..=0xFF).contains(&a), "{} claims {a:#04x}", p.name());
                assert!(!atmega644::CORE_ADDRESSES.contains(&a), "{} claims core address {a:#04x}", p.name());
                if let Some(o) = owner.insert(a, p.name()) {
                    panic!("{a:#04x} claimed by {o} and {}", p.name());
                }
            }
        }
        assert_eq!(owner.len(), 0xE0 - atmega644::CORE_ADDRESSES.len());
    }

    #[test]
    fn vectors_are_unique_and_in_range() {
        let mut seen = vec![];
        for p in atmega644() {
            for v in p.vectors() {
                assert!((1..=30).contains(&v));
                assert!(!seen.contains(&v), "vector {v} twice");
                seen.push(v);
            }
        }
        // INT0..2, PCINT0..3, WDT, TC2 x3, TC1 x4, TC0 x3, USART0 x3, EE_READY.
        assert_eq!(seen.len(), 22);
    }

    #[test]
    fn reset_state_is_quiet() {
        let mut b = Bench::new();
        for mut p in atmega644() {
            p.reset(&mut b.cx(0));
            assert_eq!(p.update(&mut b.cx(0)), crate::peripheral::NEVER, "{}", p.name());
        }
        assert_eq!(b.irq, 0);
        assert!(b.warnings.is_empty());
        assert!(b.pins.events.is_empty());
    }
}

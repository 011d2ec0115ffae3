//! External interrupts INT0..2 (EICRA/EIMSK/EIFR) and pin change
//! interrupts PCINT0..3 (PCICR/PCIFR/PCMSKn), part of the GPIO peripheral.
//!
//! Both watch the resolved pin levels: the GPIO peripheral calls
//! [`ExtInt::observe`] after its own register writes (outputs the chip
//! drives) and when the core reports external input changes. A change made
//! by another peripheral's alternate output (OCnx, TXD) is seen the next
//! time GPIO is accessed or notified. The 2-3 cycle input synchroniser
//! delay is not modelled: flags are set at the cycle of the change.

use crate::peripheral::{Ctx, PortIndex, Sleep, PORTS};

#[derive(Debug)]
pub struct ExtIntConfig {
    pub eicra: u16,
    pub eimsk: u16,
    pub eifr: u16,
    pub pcicr: u16,
    pub pcifr: u16,
    /// PCMSKn: mask of port n (PCINT8n..8n+7).
    pub pcmsk: [u16; PORTS],
    /// INTn pins.
    pub int_pins: [(PortIndex, u8); 3],
    pub int_vectors: [u8; 3],
    /// PCINTn vector of port n.
    pub pcint_vectors: [u8; PORTS],
}

/// EICRA sense control of one INTn.
const LOW_LEVEL: u8 = 0;
const ANY_EDGE: u8 = 1;
const FALLING: u8 = 2;
const RISING: u8 = 3;

pub struct ExtInt {
    cfg: &'static ExtIntConfig,
    eicra: u8,
    eimsk: u8,
    eifr: u8,
    pcicr: u8,
    pcifr: u8,
    pcmsk: [u8; PORTS],
    /// Pin levels last seen (what PINx reads).
    pub seen: [u8; PORTS],
}

impl ExtInt {
    pub fn new(cfg: &'static ExtIntConfig) -> Self {
        ExtInt { cfg, eicra: 0, eimsk: 0, eifr: 0, pcicr: 0, pcifr: 0, pcmsk: [0; PORTS], seen: [0; PORTS] }
    }

    pub fn addresses(&self) -> Vec<u16> {
        let c = self.cfg;
        let mut a = vec![c.eicra, c.eimsk, c.eifr, c.pcicr, c.pcifr];
        a.extend(c.pcmsk);
        a
    }

    pub fn reset(&mut self, cx: &mut Ctx) {
        *self = ExtInt::new(self.cfg);
        self.seen = std::array::from_fn(|p| cx.pins.level(p));
        self.refresh(cx);
    }

    pub fn peek(&self, addr: u16) -> Option<u8> {
        let c = self.cfg;
        Some(match addr {
            a if a == c.eicra => self.eicra,
            a if a == c.eimsk => self.eimsk,
            a if a == c.eifr => self.eifr,
            a if a == c.pcicr => self.pcicr,
            a if a == c.pcifr => self.pcifr,
            a => self.pcmsk[c.pcmsk.iter().position(|&m| m == a)?],
        })
    }

    /// A register write; false if `addr` is not ours.
    pub fn write(&mut self, addr: u16, value: u8, cx: &mut Ctx) -> bool {
        let c = self.cfg;
        match addr {
            a if a == c.eicra => self.eicra = value & 0x3F,
            a if a == c.eimsk => self.eimsk = value & 0x07,
            a if a == c.eifr => self.eifr &= !value,
            a if a == c.pcicr => self.pcicr = value & 0x0F,
            a if a == c.pcifr => self.pcifr &= !value,
            a => match c.pcmsk.iter().position(|&m| m == a) {
                Some(p) => self.pcmsk[p] = value,
                None => return false,
            },
        }
        self.refresh(cx);
        true
    }

    fn sense(&self, n: usize) -> u8 {
        (self.eicra >> (2 * n)) & 3
    }

    /// Compares the pin levels with those last seen and raises flags.
    pub fn observe(&mut self, cx: &mut Ctx) {
        // Edge detection needs clk_IO; level and pin change detection are
        // asynchronous and work in every sleep mode (they wake the chip).
        let edges_work = matches!(cx.sleep, Sleep::Awake | Sleep::Idle);
        for p in 0..PORTS {
            let level = cx.pins.level(p);
            let changed = level ^ self.seen[p];
            self.seen[p] = level;
            if changed == 0 {
                continue;
            }
            if changed & self.pcmsk[p] != 0 {
                self.pcifr |= 1 << p;
            }
            for (n, &(port, bit)) in self.cfg.int_pins.iter().enumerate() {
                if port != p || changed & (1 << bit) == 0 || !edges_work {
                    continue;
                }
                let high = level & (1 << bit) != 0;
                let fire = match self.sense(n) {
                    ANY_EDGE => true,
                    FALLING => !high,
                    RISING => high,
                    _ => false,
                };
                if fire {
                    self.eifr |= 1 << n;
                }
            }
        }
        self.refresh(cx);
    }

    /// Interrupt requests from flags and masks; a low-level INTn requests
    /// while its pin is low and keeps its flag clear.
    pub fn refresh(&mut self, cx: &mut Ctx) {
        for (n, &(port, bit)) in self.cfg.int_pins.iter().enumerate() {
            let pending = if self.sense(n) == LOW_LEVEL {
                self.eifr &= !(1 << n);
                self.seen[port] & (1 << bit) == 0
            } else {
                self.eifr & (1 << n) != 0
            };
            cx.set_irq(self.cfg.int_vectors[n], pending && self.eimsk & (1 << n) != 0);
        }
        for p in 0..PORTS {
            cx.set_irq(self.cfg.pcint_vectors[p], self.pcifr & self.pcicr & (1 << p) != 0);
        }
    }

    pub fn vectors(&self) -> Vec<u8> {
        self.cfg.int_vectors.iter().chain(&self.cfg.pcint_vectors).copied().collect()
    }

    /// Interrupt entry clears the edge flag (a level interrupt has none).
    pub fn acknowledge(&mut self, vector: u8, cx: &mut Ctx) {
        if let Some(n) = self.cfg.int_vectors.iter().position(|&v| v == vector) {
            self.eifr &= !(1 << n);
        }
        if let Some(p) = self.cfg.pcint_vectors.iter().position(|&v| v == vector) {
            self.pcifr &= !(1 << p);
        }
        self.refresh(cx);
    }
}

//! Registers of peripherals the emulator does not model (ADC, analog
//! comparator, SPI, TWI, ...) and the reserved I/O addresses.
//!
//! An unmodelled register reads back what was written (starting from its
//! datasheet reset value) and the first access of the peripheral logs one
//! warning naming it, so nothing is silently faked: an ADC conversion never
//! completes, an SPI transfer never ends. A reserved address reads 0,
//! ignores writes and warns once per address.

use crate::peripheral::{Ctx, Peripheral, NEVER};

#[derive(Debug)]
pub struct UnmodelledReg {
    pub addr: u16,
    pub name: &'static str,
    pub reset: u8,
}

#[derive(Debug)]
pub struct UnmodelledConfig {
    /// Peripheral name for the warning ("ADC").
    pub name: &'static str,
    /// What the user should know, appended to the warning.
    pub note: &'static str,
    pub regs: &'static [UnmodelledReg],
}

pub struct Unmodelled {
    cfg: &'static UnmodelledConfig,
    values: Vec<u8>,
    warned: bool,
}

impl Unmodelled {
    pub fn new(cfg: &'static UnmodelledConfig) -> Self {
        Unmodelled { cfg, values: cfg.regs.iter().map(|r| r.reset).collect(), warned: false }
    }

    fn index(&self, addr: u16) -> Option<usize> {
        self.cfg.regs.iter().position(|r| r.addr == addr)
    }

    fn warn(&mut self, cx: &mut Ctx, access: String) {
        if !self.warned {
            self.warned = true;
            cx.warn(self.cfg.name, format!("{} is not modelled; {access} at PC {:#06x}. {}", self.cfg.name, cx.pc * 2, self.cfg.note));
        }
    }
}

impl Peripheral for Unmodelled {
    fn name(&self) -> &'static str {
        self.cfg.name
    }

    fn addresses(&self) -> Vec<u16> {
        self.cfg.regs.iter().map(|r| r.addr).collect()
    }

    fn read(&mut self, addr: u16, cx: &mut Ctx) -> u8 {
        let Some(i) = self.index(addr) else { return 0 };
        let reg = self.cfg.regs[i].name;
        self.warn(cx, format!("{reg} read"));
        self.values[i]
    }

    fn write(&mut self, addr: u16, value: u8, cx: &mut Ctx) {
        let Some(i) = self.index(addr) else { return };
        let reg = self.cfg.regs[i].name;
        self.warn(cx, format!("{reg} written ({value:#04x})"));
        self.values[i] = value;
    }

    fn peek(&self, addr: u16) -> u8 {
        self.index(addr).map_or(0, |i| self.values[i])
    }

    fn update(&mut self, _cx: &mut Ctx) -> u64 {
        NEVER
    }

    /// Registers return to their reset values; the warning is not repeated.
    fn reset(&mut self, _cx: &mut Ctx) {
        self.values = self.cfg.regs.iter().map(|r| r.reset).collect();
    }
}

/// The I/O addresses no register lives at.
pub struct Reserved {
    addrs: Vec<u16>,
    warned: Vec<u16>,
}

impl Reserved {
    pub fn new(addrs: Vec<u16>) -> Self {
        Reserved { addrs, warned: Vec::new() }
    }

    fn warn(&mut self, addr: u16, what: &str, cx: &mut Ctx) {
        if !self.warned.contains(&addr) {
            self.warned.push(addr);
            cx.warn("reserved", format!("{what} reserved I/O address {addr:#04x} at PC {:#06x} (reads 0, writes are ignored)", cx.pc * 2));
        }
    }
}

impl Peripheral for Reserved {
    fn name(&self) -> &'static str {
        "reserved"
    }

    fn addresses(&self) -> Vec<u16> {
        self.addrs.clone()
    }

    fn read(&mut self, addr: u16, cx: &mut Ctx) -> u8 {
        self.warn(addr, "read of", cx);
        0
    }

    fn write(&mut self, addr: u16, value: u8, cx: &mut Ctx) {
        self.warn(addr, &format!("write of {value:#04x} to"), cx);
    }

    fn peek(&self, _addr: u16) -> u8 {
        0
    }

    fn update(&mut self, _cx: &mut Ctx) -> u64 {
        NEVER
    }

    fn reset(&mut self, _cx: &mut Ctx) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::periph::atmega644::UNMODELLED;
    use crate::periph::bench::Bench;

    #[test]
    fn reads_back_and_warns_once_naming_the_register() {
        let adc = UNMODELLED.iter().find(|c| c.name == "ADC").unwrap();
        let mut p = Unmodelled::new(adc);
        let mut b = Bench::new();
        b.reset(&mut p);
        b.write(&mut p, 5, 0x7A, 0xC7); // ADCSRA
        b.write(&mut p, 6, 0x7C, 0x40);
        assert_eq!(b.read(&mut p, 7, 0x7A), 0xC7);
        assert_eq!(b.warnings.len(), 1);
        let w = &b.warnings[0];
        assert_eq!(w.source, "ADC");
        assert!(w.message.starts_with("ADC is not modelled; ADCSRA written (0xc7) at PC 0x0200"), "{}", w.message);
    }

    #[test]
    fn twi_status_starts_at_its_reset_value() {
        let twi = UNMODELLED.iter().find(|c| c.name == "TWI").unwrap();
        let p = Unmodelled::new(twi);
        assert_eq!(p.peek(0xB9), 0xF8);
    }

    #[test]
    fn reserved_reads_zero_and_warns_per_address() {
        let mut p = Reserved::new(vec![0x2C, 0x2D]);
        let mut b = Bench::new();
        b.write(&mut p, 0, 0x2C, 1);
        assert_eq!(b.read(&mut p, 1, 0x2C), 0);
        b.write(&mut p, 2, 0x2D, 1);
        assert_eq!(b.warnings.len(), 2);
    }
}

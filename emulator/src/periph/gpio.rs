//! GPIO ports A..D (PINx/DDRx/PORTx), MCUCR, and the external and pin
//! change interrupts ([`super::extint`]) that watch the same pins.
//!
//! DDRx/PORTx live in `Ctx::pins` (mirrored here for `peek`); every change
//! is settled there so the board simulator sees the pin event. PINx reads
//! the resolved level at the access cycle: the 1.5-cycle input synchroniser
//! delay is not modelled (a level driven by the chip itself is readable by
//! the next instruction, as `out`+`nop`+`in` would show on silicon).

use super::extint::{ExtInt, ExtIntConfig};
use crate::peripheral::{Ctx, Peripheral, PORTS};

#[derive(Debug)]
pub struct PortRegs {
    pub pin: u16,
    pub ddr: u16,
    pub port: u16,
}

#[derive(Debug)]
pub struct GpioConfig {
    pub ports: [PortRegs; PORTS],
    pub mcucr: u16,
    pub ext: ExtIntConfig,
}

const PUD: u8 = 1 << 4;
const IVSEL: u8 = 1 << 1;
const IVCE: u8 = 1 << 0;

pub struct Gpio {
    cfg: &'static GpioConfig,
    ddr: [u8; PORTS],
    port: [u8; PORTS],
    mcucr: u8,
    ext: ExtInt,
    warned_ivsel: bool,
}

enum Reg {
    Pin(usize),
    Ddr(usize),
    Port(usize),
}

impl Gpio {
    pub fn new(cfg: &'static GpioConfig) -> Self {
        Gpio { cfg, ddr: [0; PORTS], port: [0; PORTS], mcucr: 0, ext: ExtInt::new(&cfg.ext), warned_ivsel: false }
    }

    fn reg(&self, addr: u16) -> Option<Reg> {
        self.cfg.ports.iter().enumerate().find_map(|(p, r)| match addr {
            a if a == r.pin => Some(Reg::Pin(p)),
            a if a == r.ddr => Some(Reg::Ddr(p)),
            a if a == r.port => Some(Reg::Port(p)),
            _ => None,
        })
    }

    /// Copies DDR/PORT/PUD into the pins, logs changes, runs the interrupts.
    fn apply(&mut self, cx: &mut Ctx) {
        cx.pins.ddr = self.ddr;
        cx.pins.port = self.port;
        cx.pins.pull_up_disable = self.mcucr & PUD != 0;
        for p in 0..PORTS {
            cx.pins.settle(p, cx.now);
        }
        self.ext.observe(cx);
    }
}

impl Peripheral for Gpio {
    fn name(&self) -> &'static str {
        "GPIO"
    }

    fn addresses(&self) -> Vec<u16> {
        let mut a: Vec<u16> = self.cfg.ports.iter().flat_map(|r| [r.pin, r.ddr, r.port]).collect();
        a.push(self.cfg.mcucr);
        a.extend(self.ext.addresses());
        a
    }

    fn vectors(&self) -> Vec<u8> {
        self.ext.vectors()
    }

    fn read(&mut self, addr: u16, cx: &mut Ctx) -> u8 {
        match self.reg(addr) {
            Some(Reg::Pin(p)) => {
                self.ext.observe(cx);
                cx.pins.level(p)
            }
            _ => self.peek(addr),
        }
    }

    fn write(&mut self, addr: u16, value: u8, cx: &mut Ctx) {
        match self.reg(addr) {
            // Writing ones to PINx toggles PORTx.
            Some(Reg::Pin(p)) => self.port[p] ^= value,
            Some(Reg::Ddr(p)) => self.ddr[p] = value,
            Some(Reg::Port(p)) => self.port[p] = value,
            None if addr == self.cfg.mcucr => {
                if value & (IVSEL | IVCE) != 0 && !self.warned_ivsel {
                    self.warned_ivsel = true;
                    cx.warn("GPIO", format!("MCUCR = {value:#04x}: moving the interrupt vectors (IVSEL/IVCE) is not modelled; vectors stay at address 0"));
                }
                self.mcucr = value & 0xF3;
            }
            None => {
                self.ext.write(addr, value, cx);
                return;
            }
        }
        self.apply(cx);
    }

    fn peek(&self, addr: u16) -> u8 {
        match self.reg(addr) {
            Some(Reg::Pin(p)) => self.ext.seen[p],
            Some(Reg::Ddr(p)) => self.ddr[p],
            Some(Reg::Port(p)) => self.port[p],
            None if addr == self.cfg.mcucr => self.mcucr,
            None => self.ext.peek(addr).unwrap_or(0),
        }
    }

    /// Nothing is scheduled; catches pin changes made by other peripherals.
    fn update(&mut self, cx: &mut Ctx) -> u64 {
        self.ext.observe(cx);
        crate::peripheral::NEVER
    }

    fn acknowledge(&mut self, vector: u8, cx: &mut Ctx) {
        self.ext.acknowledge(vector, cx);
    }

    fn pins_changed(&mut self, cx: &mut Ctx) {
        self.ext.observe(cx);
    }

    fn sleep_changed(&mut self, cx: &mut Ctx) {
        self.ext.observe(cx);
    }

    fn reset(&mut self, cx: &mut Ctx) {
        *self = Gpio::new(self.cfg);
        cx.pins.ddr = [0; PORTS];
        cx.pins.port = [0; PORTS];
        cx.pins.pull_up_disable = false;
        for p in 0..PORTS {
            cx.pins.settle(p, cx.now);
        }
        self.ext.reset(cx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::periph::atmega644::GPIO;
    use crate::periph::bench::Bench;
    use crate::peripheral::{PinEvent, Sleep};

    const PINA: u16 = 0x20;
    const DDRA: u16 = 0x21;
    const PORTA: u16 = 0x22;
    const PIND: u16 = 0x29;
    const MCUCR: u16 = 0x55;
    const EICRA: u16 = 0x69;
    const EIMSK: u16 = 0x3D;
    const EIFR: u16 = 0x3C;
    const PCICR: u16 = 0x68;
    const PCIFR: u16 = 0x3B;
    const PCMSK0: u16 = 0x6B;
    const INT0: u8 = 1;
    const PCINT0: u8 = 4;
    const D: usize = 3;

    fn setup() -> (Gpio, Bench) {
        let mut g = Gpio::new(&GPIO);
        let mut b = Bench::new();
        b.reset(&mut g);
        (g, b)
    }

    /// An external part drives PD2 (INT0).
    fn drive_pd2(g: &mut Gpio, b: &mut Bench, now: u64, high: bool) {
        b.pins.ext_driven[D] |= 0x04;
        b.pins.ext_level[D] = if high { b.pins.ext_level[D] | 0x04 } else { b.pins.ext_level[D] & !0x04 };
        g.pins_changed(&mut b.cx(now));
    }

    #[test]
    fn outputs_pullups_and_pin_toggle() {
        let (mut g, mut b) = setup();
        b.write(&mut g, 10, DDRA, 0x01);
        b.write(&mut g, 11, PORTA, 0x03); // PA0 high, pull-up on PA1
        assert_eq!(b.pins.events, vec![PinEvent { cycle: 11, port: 0, levels: 0x03, changed: 0x03 }]);
        assert_eq!(b.read(&mut g, 12, PINA), 0x03);
        b.write(&mut g, 13, PINA, 0x01); // toggles PORTA0
        assert_eq!(g.peek(PORTA), 0x02);
        assert_eq!(b.read(&mut g, 14, PINA), 0x02);
        b.write(&mut g, 15, MCUCR, 0x10); // PUD
        assert_eq!(b.read(&mut g, 16, PINA), 0x00);
        assert_eq!(b.pins.events.last().unwrap().cycle, 15);
    }

    #[test]
    fn int0_edges_follow_eicra() {
        let (mut g, mut b) = setup();
        b.write(&mut g, 0, EICRA, 0x02); // falling edge
        b.write(&mut g, 0, EIMSK, 0x01);
        drive_pd2(&mut g, &mut b, 100, true);
        assert!(!b.irq(INT0));
        drive_pd2(&mut g, &mut b, 200, false);
        assert!(b.irq(INT0));
        assert_eq!(g.peek(EIFR), 0x01);
        g.acknowledge(INT0, &mut b.cx(205));
        assert!(!b.irq(INT0));
        // Rising edge mode.
        b.write(&mut g, 300, EICRA, 0x03);
        drive_pd2(&mut g, &mut b, 400, true);
        assert_eq!(g.peek(EIFR), 0x01);
        b.write(&mut g, 401, EIFR, 0x01);
        assert!(!b.irq(INT0));
        // The flag is set without EIMSK too.
        b.write(&mut g, 402, EIMSK, 0x00);
        drive_pd2(&mut g, &mut b, 403, false);
        drive_pd2(&mut g, &mut b, 404, true);
        assert_eq!(g.peek(EIFR), 0x01);
        assert!(!b.irq(INT0));
    }

    #[test]
    fn low_level_int0_requests_while_low_even_in_power_down() {
        let (mut g, mut b) = setup();
        drive_pd2(&mut g, &mut b, 0, true);
        b.write(&mut g, 1, EIMSK, 0x01); // EICRA = 0: low level
        assert!(!b.irq(INT0));
        b.sleep = Sleep::PowerDown;
        drive_pd2(&mut g, &mut b, 50, false);
        assert!(b.irq(INT0));
        g.acknowledge(INT0, &mut b.cx(60));
        assert!(b.irq(INT0), "a level interrupt stays requested while the pin is low");
        drive_pd2(&mut g, &mut b, 70, true);
        assert!(!b.irq(INT0));
        // Edges need clk_IO.
        b.write(&mut g, 80, EICRA, 0x01);
        drive_pd2(&mut g, &mut b, 90, false);
        assert_eq!(g.peek(EIFR), 0);
        assert_eq!(b.read(&mut g, 91, PIND) & 0x04, 0);
    }

    #[test]
    fn pin_change_from_an_output_the_chip_drives() {
        let (mut g, mut b) = setup();
        b.write(&mut g, 0, PCMSK0, 0x01);
        b.write(&mut g, 0, PCICR, 0x01);
        b.write(&mut g, 5, DDRA, 0x03);
        assert!(!b.irq(PCINT0));
        b.write(&mut g, 6, PORTA, 0x02); // PA1 is not in the mask
        assert!(!b.irq(PCINT0));
        b.write(&mut g, 7, PORTA, 0x03);
        assert!(b.irq(PCINT0));
        b.write(&mut g, 8, PCIFR, 0x01);
        assert!(!b.irq(PCINT0));
        // An external change on an input, both directions.
        b.write(&mut g, 9, DDRA, 0x00);
        b.write(&mut g, 9, PCIFR, 0x01);
        b.pins.ext_driven[0] = 0x01;
        b.pins.ext_level[0] = 0x00;
        g.pins_changed(&mut b.cx(20));
        assert!(b.irq(PCINT0));
        g.acknowledge(PCINT0, &mut b.cx(21));
        assert!(!b.irq(PCINT0));
    }

    #[test]
    fn ivsel_is_warned_once() {
        let (mut g, mut b) = setup();
        b.write(&mut g, 0, MCUCR, 0x01);
        b.write(&mut g, 1, MCUCR, 0x02);
        assert_eq!(b.warnings.len(), 1);
        assert!(b.warnings[0].message.contains("IVSEL"));
    }
}

//! The Timer/Counter block: TC0, TC1, TC2 and GTCCR as one peripheral.
//!
//! They are one peripheral because GTCCR resets the prescalers of all three
//! (PSRSYNC: TC0 and TC1 share one; PSRASY: TC2's), and an address has a
//! single owner. Each timer is still its own generic module configured by
//! a per-chip struct; warnings carry the timer's own name.

use super::prescaler::{ClockIo, Prescaler};
use super::timer16::{Timer16, Timer16Config};
use super::timer8::{Timer8, Timer8Config};
use crate::peripheral::{Ctx, Peripheral};

#[derive(Debug)]
pub struct TimersConfig {
    pub gtccr: u16,
    pub tc0: Timer8Config,
    pub tc1: Timer16Config,
    pub tc2: Timer8Config,
}

const TSM: u8 = 1 << 7;
const PSRASY: u8 = 1 << 1;
const PSRSYNC: u8 = 1 << 0;

/// Which unit owns an address (index into `owner`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Unit {
    None,
    Gtccr,
    Tc0,
    Tc1,
    Tc2,
}

pub struct Timers {
    cfg: &'static TimersConfig,
    clock: ClockIo,
    /// Prescaler of TC0 and TC1 (PSRSYNC).
    sync_pre: Prescaler,
    /// Prescaler of TC2 (PSRASY).
    async_pre: Prescaler,
    tsm: bool,
    pub tc0: Timer8,
    pub tc1: Timer16,
    pub tc2: Timer8,
    owner: [Unit; 256],
}

impl Timers {
    pub fn new(cfg: &'static TimersConfig) -> Self {
        let mut t = Timers {
            cfg,
            clock: ClockIo::new(0),
            sync_pre: Prescaler::default(),
            async_pre: Prescaler::default(),
            tsm: false,
            tc0: Timer8::new(&cfg.tc0),
            tc1: Timer16::new(&cfg.tc1),
            tc2: Timer8::new(&cfg.tc2),
            owner: [Unit::None; 256],
        };
        t.owner[cfg.gtccr as usize] = Unit::Gtccr;
        for (unit, addrs) in [(Unit::Tc0, t.tc0.addresses()), (Unit::Tc1, t.tc1.addresses()), (Unit::Tc2, t.tc2.addresses())] {
            for a in addrs {
                t.owner[a as usize] = unit;
            }
        }
        t
    }

    fn pre8(&self, tc: &Timer8) -> &Prescaler {
        if tc.uses_async_prescaler() {
            &self.async_pre
        } else {
            &self.sync_pre
        }
    }

    /// Brings every timer up to `cx.now`.
    fn sync_all(&mut self, cx: &mut Ctx) {
        let pre0 = self.pre8(&self.tc0).clone();
        let pre2 = self.pre8(&self.tc2).clone();
        self.tc0.core.sync(&self.clock, &pre0, cx);
        self.tc1.core.sync(&self.clock, &self.sync_pre, cx);
        self.tc2.core.sync(&self.clock, &pre2, cx);
    }

    fn next_event(&self) -> u64 {
        let a = self.tc0.core.next_event(&self.clock, self.pre8(&self.tc0));
        let b = self.tc1.core.next_event(&self.clock, &self.sync_pre);
        let c = self.tc2.core.next_event(&self.clock, self.pre8(&self.tc2));
        a.min(b).min(c)
    }

    fn write_gtccr(&mut self, value: u8, cx: &mut Ctx) {
        self.sync_all(cx);
        let p = self.clock.p(cx.now);
        self.tsm = value & TSM != 0;
        for (pre, bit) in [(&mut self.sync_pre, PSRSYNC), (&mut self.async_pre, PSRASY)] {
            if value & bit != 0 {
                // Restart the prescaler; with TSM it stays held in reset.
                pre.phase = p;
                pre.held = self.tsm;
            } else if !self.tsm && pre.held {
                pre.phase = p;
                pre.held = false;
            }
        }
    }

    fn gtccr(&self) -> u8 {
        (self.tsm as u8) << 7 | (self.async_pre.held as u8) << 1 | self.sync_pre.held as u8
    }
}

impl Peripheral for Timers {
    fn name(&self) -> &'static str {
        "TC0/TC1/TC2"
    }

    fn addresses(&self) -> Vec<u16> {
        (0..256u16).filter(|&a| self.owner[a as usize] != Unit::None).collect()
    }

    fn vectors(&self) -> Vec<u8> {
        [&self.tc0.core, &self.tc1.core, &self.tc2.core]
            .iter()
            .flat_map(|c| {
                let v = c.vectors;
                [Some(v.compa), Some(v.compb), Some(v.ovf), v.capt]
            })
            .flatten()
            .collect()
    }

    fn read(&mut self, addr: u16, cx: &mut Ctx) -> u8 {
        let (clock, sync_pre, async_pre) = (&self.clock, &self.sync_pre, &self.async_pre);
        let pick = |tc: &Timer8| if tc.uses_async_prescaler() { async_pre } else { sync_pre };
        match self.owner[addr as usize & 0xFF] {
            Unit::Gtccr => self.gtccr(),
            Unit::Tc0 => self.tc0.read(addr, clock, pick(&self.tc0), cx),
            Unit::Tc1 => self.tc1.read(addr, clock, sync_pre, cx),
            Unit::Tc2 => self.tc2.read(addr, clock, pick(&self.tc2), cx),
            Unit::None => 0,
        }
    }

    fn write(&mut self, addr: u16, value: u8, cx: &mut Ctx) {
        let (clock, sync_pre, async_pre) = (&self.clock, &self.sync_pre, &self.async_pre);
        let pick = |tc: &Timer8| if tc.uses_async_prescaler() { async_pre } else { sync_pre };
        match self.owner[addr as usize & 0xFF] {
            Unit::Gtccr => self.write_gtccr(value, cx),
            Unit::Tc0 => self.tc0.write(addr, value, clock, pick(&self.tc0), cx),
            Unit::Tc1 => self.tc1.write(addr, value, clock, sync_pre, cx),
            Unit::Tc2 => self.tc2.write(addr, value, clock, pick(&self.tc2), cx),
            Unit::None => {}
        }
    }

    fn peek(&self, addr: u16) -> u8 {
        match self.owner[addr as usize & 0xFF] {
            Unit::Gtccr => self.gtccr(),
            Unit::Tc0 => self.tc0.peek(addr),
            Unit::Tc1 => self.tc1.peek(addr),
            Unit::Tc2 => self.tc2.peek(addr),
            Unit::None => 0,
        }
    }

    fn update(&mut self, cx: &mut Ctx) -> u64 {
        self.sync_all(cx);
        // Pin changes made by other peripherals are only noticed here.
        self.tc1.watch_icp(&self.clock, &self.sync_pre, cx);
        self.next_event()
    }

    fn acknowledge(&mut self, vector: u8, cx: &mut Ctx) {
        self.tc0.core.acknowledge(vector, cx);
        self.tc1.core.acknowledge(vector, cx);
        self.tc2.core.acknowledge(vector, cx);
    }

    fn pins_changed(&mut self, cx: &mut Ctx) {
        self.tc1.watch_icp(&self.clock, &self.sync_pre, cx);
    }

    fn sleep_changed(&mut self, cx: &mut Ctx) {
        self.sync_all(cx);
        self.clock.set_running(cx.now, ClockIo::runs_in(cx.sleep));
    }

    fn reset(&mut self, cx: &mut Ctx) {
        *self = Timers::new(self.cfg);
        self.clock = ClockIo::new(cx.now);
        self.tc1.reset(0, cx);
        for core in [&mut self.tc0.core, &mut self.tc1.core, &mut self.tc2.core] {
            core.refresh_irqs(cx);
            core.drive_pins(cx, cx.now);
        }
    }
}

#[cfg(test)]
#[path = "timers_tests.rs"]
mod tests;

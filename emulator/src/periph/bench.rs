//! A hand-made [`Ctx`] for unit tests: the state the core would own.

use crate::peripheral::{Ctx, Peripheral, Pins, ResetCause, Sleep, Warning, NEVER};

pub struct Bench {
    pub irq: u64,
    pub pins: Pins,
    pub warnings: Vec<Warning>,
    pub sleep: Sleep,
    pub mcusr: u8,
    pub reset: Option<ResetCause>,
    pub stall: u32,
    /// The next cycle the peripheral asked to be woken at.
    pub next: u64,
}

impl Bench {
    pub fn new() -> Self {
        Bench { irq: 0, pins: Pins::default(), warnings: vec![], sleep: Sleep::Awake, mcusr: 0, reset: None, stall: 0, next: NEVER }
    }

    pub fn cx(&mut self, now: u64) -> Ctx<'_> {
        Ctx {
            now,
            irq: &mut self.irq,
            pins: &mut self.pins,
            warnings: &mut self.warnings,
            sleep: self.sleep,
            mcusr: &mut self.mcusr,
            reset: &mut self.reset,
            stall: &mut self.stall,
            pc: 0x100,
        }
    }

    pub fn irq(&self, vector: u8) -> bool {
        self.irq & (1 << vector) != 0
    }

    /// Resets `p` at cycle 0 and records its first wake-up.
    pub fn reset(&mut self, p: &mut dyn Peripheral) {
        p.reset(&mut self.cx(0));
        self.next = p.update(&mut self.cx(0));
    }

    pub fn write(&mut self, p: &mut dyn Peripheral, now: u64, addr: u16, value: u8) {
        self.run(p, now);
        p.write(addr, value, &mut self.cx(now));
        self.next = p.update(&mut self.cx(now));
    }

    pub fn read(&mut self, p: &mut dyn Peripheral, now: u64, addr: u16) -> u8 {
        self.run(p, now);
        let v = p.read(addr, &mut self.cx(now));
        self.next = p.update(&mut self.cx(now));
        v
    }

    /// Plays the core: wakes `p` at every cycle it asked for, up to `now`.
    pub fn run(&mut self, p: &mut dyn Peripheral, now: u64) {
        while self.next <= now {
            let at = self.next;
            let next = p.update(&mut self.cx(at));
            assert!(next > at, "{} asked to be woken at {next} while at {at}", p.name());
            self.next = next;
        }
    }

    /// Runs to `limit` and returns the first cycle at which `vector` is pending.
    pub fn first_irq(&mut self, p: &mut dyn Peripheral, vector: u8, limit: u64) -> Option<u64> {
        while self.next <= limit {
            if self.irq(vector) {
                return None;
            }
            let at = self.next;
            self.run(p, at);
            if self.irq(vector) {
                return Some(at);
            }
        }
        None
    }
}

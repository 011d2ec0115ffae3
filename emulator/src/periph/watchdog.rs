//! The watchdog timer: WDTCSR, WDR, and the 128 kHz watchdog oscillator.
//!
//! Timeouts are 2K..1024K oscillator cycles (16 ms .. 8 s), converted to
//! CPU cycles with the CPU clock. The oscillator runs in every sleep mode.
//! Safety level 1 (WDTON unprogrammed): WDE can be set at any time, but
//! clearing it or changing WDP needs the timed sequence (WDCE and WDE
//! written together, then the new value within four cycles). WDRF in MCUSR
//! forces WDE on, which is why a watchdog reset keeps the watchdog running.

use crate::peripheral::{Ctx, Peripheral, ResetCause, NEVER};

#[derive(Debug)]
pub struct WatchdogConfig {
    pub wdtcsr: u16,
    pub vector: u8,
    /// WDRF in MCUSR.
    pub wdrf: u8,
}

const WDIF: u8 = 1 << 7;
const WDIE: u8 = 1 << 6;
const WDP3: u8 = 1 << 5;
const WDCE: u8 = 1 << 4;
const WDE: u8 = 1 << 3;
/// Watchdog oscillator frequency.
const OSC_HZ: u64 = 128_000;
/// Cycles the timed sequence stays open after WDCE|WDE.
const WDCE_WINDOW: u64 = 4;

pub struct Watchdog {
    cfg: &'static WatchdogConfig,
    clock_hz: u64,
    wdif: bool,
    wdie: bool,
    wde: bool,
    /// WDP3..0 as a number.
    wdp: u8,
    wdce_at: Option<u64>,
    /// Cycle the watchdog counter last restarted.
    start: u64,
    /// A reset has been requested; nothing more until `reset`.
    fired: bool,
    warned: bool,
}

impl Watchdog {
    pub fn new(cfg: &'static WatchdogConfig, clock_hz: u64) -> Self {
        Watchdog { cfg, clock_hz, wdif: false, wdie: false, wde: false, wdp: 0, wdce_at: None, start: 0, fired: false, warned: false }
    }

    /// CPU cycles of a timeout with prescaler `wdp` (reserved values 10..15
    /// act as 9, the longest).
    pub fn timeout_cycles(&self, wdp: u8) -> u64 {
        (2048u64 << wdp.min(9)) * self.clock_hz / OSC_HZ
    }

    fn running(&self) -> bool {
        self.wde || self.wdie
    }

    fn deadline(&self) -> u64 {
        self.start + self.timeout_cycles(self.wdp)
    }

    fn wdtcsr(&self, now: u64) -> u8 {
        let wdp = (self.wdp & 7) | (self.wdp & 8) << 2;
        let wdce = self.wdce_at.is_some_and(|t| now <= t + WDCE_WINDOW);
        (self.wdif as u8) << 7 | (self.wdie as u8) << 6 | (wdce as u8) << 4 | (self.wde as u8) << 3 | wdp
    }

    /// WDRF in MCUSR overrides WDE.
    fn follow_wdrf(&mut self, cx: &Ctx) {
        if *cx.mcusr & self.cfg.wdrf != 0 {
            self.wde = true;
        }
    }

    fn write_wdtcsr(&mut self, value: u8, cx: &mut Ctx) {
        let was_running = self.running();
        if value & WDIF != 0 {
            self.wdif = false;
        }
        self.wdie = value & WDIE != 0;
        let open = self.wdce_at.take().is_some_and(|t| cx.now <= t + WDCE_WINDOW);
        let wdp = (value & 7) | (value & WDP3) >> 2;
        if open {
            self.wde = value & WDE != 0;
            self.wdp = wdp;
        } else {
            if value & (WDCE | WDE) == WDCE | WDE {
                self.wdce_at = Some(cx.now);
            }
            let clears_wde = self.wde && value & WDE == 0;
            if (clears_wde || wdp != self.wdp) && value & WDCE == 0 && !self.warned {
                self.warned = true;
                cx.warn("WDT", format!("WDTCSR = {value:#04x} without the timed sequence: clearing WDE or changing WDP is ignored (write WDCE|WDE first)"));
            }
            self.wde |= value & WDE != 0;
        }
        self.follow_wdrf(cx);
        if !was_running && self.running() {
            self.start = cx.now;
        }
    }
}

impl Peripheral for Watchdog {
    fn name(&self) -> &'static str {
        "WDT"
    }

    fn addresses(&self) -> Vec<u16> {
        vec![self.cfg.wdtcsr]
    }

    fn vectors(&self) -> Vec<u8> {
        vec![self.cfg.vector]
    }

    fn read(&mut self, _addr: u16, cx: &mut Ctx) -> u8 {
        self.update(cx);
        self.wdtcsr(cx.now)
    }

    fn write(&mut self, _addr: u16, value: u8, cx: &mut Ctx) {
        self.update(cx);
        self.write_wdtcsr(value, cx);
        self.update(cx);
    }

    fn peek(&self, _addr: u16) -> u8 {
        self.wdtcsr(0) & !WDCE
    }

    fn update(&mut self, cx: &mut Ctx) -> u64 {
        if self.fired {
            return NEVER;
        }
        self.follow_wdrf(cx);
        while self.running() && self.deadline() <= cx.now {
            // Interrupt mode, or the first timeout of interrupt+reset mode
            // (WDIF not yet set), raises WDIF and the counter runs on.
            if self.wdie && !(self.wde && self.wdif) {
                self.wdif = true;
                self.start = self.deadline();
            } else {
                self.fired = true;
                *cx.reset = Some(ResetCause::Watchdog);
                cx.set_irq(self.cfg.vector, false);
                return NEVER;
            }
        }
        cx.set_irq(self.cfg.vector, self.wdif && self.wdie);
        if self.running() {
            self.deadline()
        } else {
            NEVER
        }
    }

    /// Interrupt entry clears WDIF, and WDIE in interrupt+reset mode (the
    /// next timeout then resets unless the handler sets WDIE again).
    fn acknowledge(&mut self, _vector: u8, cx: &mut Ctx) {
        self.wdif = false;
        if self.wde {
            self.wdie = false;
        }
        cx.set_irq(self.cfg.vector, false);
    }

    /// WDR.
    fn watchdog_reset(&mut self, cx: &mut Ctx) {
        self.update(cx);
        self.start = cx.now;
    }

    fn reset(&mut self, cx: &mut Ctx) {
        *self = Watchdog::new(self.cfg, self.clock_hz);
        self.start = cx.now;
        self.follow_wdrf(cx);
        cx.set_irq(self.cfg.vector, false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::periph::atmega644::WATCHDOG;
    use crate::periph::bench::Bench;

    const WDTCSR: u16 = 0x60;
    const WDT: u8 = 8;
    const MS16: u64 = 128_000; // 16 ms at 8 MHz

    fn setup() -> (Watchdog, Bench) {
        let mut w = Watchdog::new(&WATCHDOG, 8_000_000);
        let mut b = Bench::new();
        b.reset(&mut w);
        (w, b)
    }

    #[test]
    fn reset_mode_times_out_unless_wdr() {
        let (mut w, mut b) = setup();
        b.write(&mut w, 1000, WDTCSR, WDE); // 16 ms
        assert_eq!(b.next, 1000 + MS16);
        b.run(&mut w, 50_000);
        w.watchdog_reset(&mut b.cx(50_000));
        b.next = w.update(&mut b.cx(50_000));
        assert_eq!(b.next, 50_000 + MS16);
        b.run(&mut w, 50_000 + MS16 - 1);
        assert_eq!(b.reset, None);
        b.run(&mut w, 50_000 + MS16);
        assert_eq!(b.reset, Some(ResetCause::Watchdog));
    }

    #[test]
    fn timed_sequence_changes_prescaler_and_clears_wde() {
        let (mut w, mut b) = setup();
        b.write(&mut w, 0, WDTCSR, WDE);
        // Without the sequence WDP cannot change (and it is warned).
        b.write(&mut w, 10, WDTCSR, WDE | WDP3 | 1);
        assert_eq!(w.peek(WDTCSR), WDE);
        assert_eq!(b.warnings.len(), 1);
        b.write(&mut w, 20, WDTCSR, WDCE | WDE);
        b.write(&mut w, 24, WDTCSR, WDE | WDP3 | 1); // 8 s
        assert_eq!(w.peek(WDTCSR), WDE | WDP3 | 1);
        // 1024K cycles of 128 kHz: 8.192 s.
        // The counter is not restarted by a prescaler change.
        assert_eq!(b.next, 65_536_000);
        // Too late: the window is four cycles.
        b.write(&mut w, 100, WDTCSR, WDCE | WDE);
        b.write(&mut w, 105, WDTCSR, 0);
        assert_eq!(w.peek(WDTCSR) & WDE, WDE);
        b.write(&mut w, 200, WDTCSR, WDCE | WDE);
        b.write(&mut w, 202, WDTCSR, 0);
        assert_eq!(w.peek(WDTCSR), 0);
        assert_eq!(b.next, NEVER);
    }

    #[test]
    fn interrupt_mode_is_periodic_and_interrupt_then_reset_mode_resets() {
        let (mut w, mut b) = setup();
        // Interrupt mode, 32 ms: WDP needs the timed sequence even when off.
        b.write(&mut w, 0, WDTCSR, WDIE | 1);
        assert_eq!(w.peek(WDTCSR), WDIE);
        b.write(&mut w, 0, WDTCSR, WDCE | WDE);
        b.write(&mut w, 0, WDTCSR, WDIE | 1);
        assert_eq!(b.first_irq(&mut w, WDT, 10_000_000), Some(2 * MS16));
        w.acknowledge(WDT, &mut b.cx(2 * MS16 + 10));
        assert_eq!(b.first_irq(&mut w, WDT, 10_000_000), Some(4 * MS16));
        w.acknowledge(WDT, &mut b.cx(4 * MS16 + 10));
        // Interrupt+reset: first timeout interrupts, the next resets.
        b.write(&mut w, 4 * MS16 + 20, WDTCSR, WDIE | WDE | 1);
        assert_eq!(b.first_irq(&mut w, WDT, 10_000_000), Some(6 * MS16));
        assert_eq!(b.reset, None);
        b.run(&mut w, 8 * MS16);
        assert_eq!(b.reset, Some(ResetCause::Watchdog));
    }

    #[test]
    fn wdrf_forces_wde_after_a_watchdog_reset() {
        let (mut w, mut b) = setup();
        b.mcusr = 1 << 3;
        w.reset(&mut b.cx(500));
        assert_eq!(w.peek(WDTCSR) & WDE, WDE);
        assert_eq!(w.update(&mut b.cx(500)), 500 + MS16);
        // Clearing WDE needs WDRF cleared first.
        b.write(&mut w, 600, WDTCSR, WDCE | WDE);
        b.write(&mut w, 601, WDTCSR, 0);
        assert_eq!(w.peek(WDTCSR) & WDE, WDE);
        b.mcusr = 0;
        b.write(&mut w, 700, WDTCSR, WDCE | WDE);
        b.write(&mut w, 701, WDTCSR, 0);
        assert_eq!(w.peek(WDTCSR) & WDE, 0);
    }

    #[test]
    fn timeouts_scale_with_the_clock() {
        let w = Watchdog::new(&WATCHDOG, 16_000_000);
        assert_eq!(w.timeout_cycles(0), 256_000);
        assert_eq!(w.timeout_cycles(9), 256_000 * 512);
    }
}

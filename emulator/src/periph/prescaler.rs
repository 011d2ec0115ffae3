//! The clock that drives the Timer/Counters: clk_IO and its prescalers.
//!
//! Timers are never ticked. Instead every timer computes how many of its
//! clock edges fall into an interval of *clk_IO time* ("p-time": clk_IO
//! cycles since reset, which stands still while a deep sleep mode stops
//! clk_IO). The prescaler is a free-running counter that only
//! GTCCR.PSRSYNC/PSRASY (or reset) restarts, so a timer started with clk/64
//! sees its first edge somewhere within the next 64 cycles, as on silicon.

use crate::peripheral::{Sleep, NEVER};

/// Maps CPU cycles to clk_IO time (p-time) and back.
#[derive(Clone, Debug)]
pub struct ClockIo {
    epoch_cycle: u64,
    epoch_p: u64,
    running: bool,
}

impl ClockIo {
    /// clk_IO starting at `now` (reset).
    pub fn new(now: u64) -> Self {
        ClockIo { epoch_cycle: now, epoch_p: 0, running: true }
    }

    /// Whether clk_IO runs in the given sleep state (it stops in every mode
    /// deeper than idle; the asynchronous Timer2 clock is not modelled).
    pub fn runs_in(sleep: Sleep) -> bool {
        matches!(sleep, Sleep::Awake | Sleep::Idle)
    }

    /// p-time at CPU cycle `now` (not before the last epoch).
    pub fn p(&self, now: u64) -> u64 {
        if self.running {
            self.epoch_p + now.saturating_sub(self.epoch_cycle)
        } else {
            self.epoch_p
        }
    }

    /// CPU cycle at which p-time `p` is reached; [`NEVER`] while stopped.
    pub fn cycle_of(&self, p: u64) -> u64 {
        if self.running {
            self.epoch_cycle + p.saturating_sub(self.epoch_p)
        } else {
            NEVER
        }
    }

    pub fn set_running(&mut self, now: u64, running: bool) {
        self.epoch_p = self.p(now);
        self.epoch_cycle = now;
        self.running = running;
    }
}

/// What a CSn2:0 value selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockSelect {
    Stopped,
    /// clk_IO / n through the prescaler.
    Div(u32),
    /// An external pin (Tn): not modelled, the counter stands still.
    External,
}

impl ClockSelect {
    /// The divisor for [`Prescaler::ticks`] (0: no clock).
    pub fn divisor(self) -> u32 {
        match self {
            ClockSelect::Div(n) => n,
            _ => 0,
        }
    }
}

/// A prescaler: the taps clk/N tick at p-times `phase + m*N`, m ≥ 1.
#[derive(Clone, Debug, Default)]
pub struct Prescaler {
    /// p-time of the last prescaler reset.
    pub phase: u64,
    /// Held in reset (GTCCR.TSM with PSRx set): no prescaled edges at all.
    pub held: bool,
}

impl Prescaler {
    /// Number of clk/`n` edges in the p-time interval (`from`, `to`].
    /// clk/1 bypasses the prescaler, so neither phase nor hold affect it.
    /// Callers keep `from >= phase` (they resynchronise on a reset).
    pub fn ticks(&self, n: u32, from: u64, to: u64) -> u64 {
        if to <= from || n == 0 {
            return 0;
        }
        let n = n as u64;
        if n == 1 {
            return to - from;
        }
        if self.held {
            return 0;
        }
        debug_assert!(from >= self.phase);
        (to - self.phase) / n - (from - self.phase) / n
    }

    /// p-time of the `k`-th (k ≥ 1) clk/`n` edge after `from`.
    pub fn kth_tick(&self, n: u32, from: u64, k: u64) -> Option<u64> {
        if n == 0 || k == 0 {
            return None;
        }
        let n = n as u64;
        if n == 1 {
            return Some(from + k);
        }
        if self.held {
            return None;
        }
        let first = from + n - (from - self.phase) % n;
        Some(first + (k - 1) * n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prescaled_edges_follow_the_free_running_phase() {
        let p = Prescaler { phase: 0, held: false };
        // clk/8 edges at 8, 16, 24 ...
        assert_eq!(p.ticks(8, 0, 7), 0);
        assert_eq!(p.ticks(8, 0, 8), 1);
        assert_eq!(p.ticks(8, 5, 16), 2);
        assert_eq!(p.kth_tick(8, 5, 1), Some(8));
        assert_eq!(p.kth_tick(8, 8, 1), Some(16));
        assert_eq!(p.kth_tick(8, 8, 3), Some(32));
        let q = Prescaler { phase: 3, held: false };
        assert_eq!(q.kth_tick(8, 3, 1), Some(11));
        assert_eq!(q.ticks(1, 3, 10), 7);
    }

    #[test]
    fn held_prescaler_stops_prescaled_taps_only() {
        let p = Prescaler { phase: 0, held: true };
        assert_eq!(p.ticks(8, 0, 100), 0);
        assert_eq!(p.kth_tick(64, 0, 1), None);
        assert_eq!(p.ticks(1, 0, 100), 100);
    }

    #[test]
    fn clock_io_stands_still_while_stopped() {
        let mut c = ClockIo::new(10);
        assert_eq!(c.p(15), 5);
        c.set_running(20, false);
        assert_eq!(c.p(1000), 10);
        assert_eq!(c.cycle_of(11), NEVER);
        c.set_running(1000, true);
        assert_eq!(c.p(1001), 11);
        assert_eq!(c.cycle_of(12), 1002);
    }
}

//! The counting and waveform engine shared by the 8- and 16-bit timers.
//!
//! The counter is evaluated lazily: its state (`count`, direction) is valid
//! at p-time `base` (see [`super::prescaler`]) and the position after `k`
//! more timer clocks is pure arithmetic. Only ticks that *do* something (set
//! a flag, move an output, load a double-buffered OCR) are run one by one.
//!
//! Timing convention, taken from the datasheet's timing diagrams: every
//! event happens on the timer clock edge that *leaves* the value it refers
//! to. OCFnx is set on the edge after TCNT == OCRnx, TOV on the edge
//! MAX→BOTTOM (TOP→BOTTOM in fast PWM), phase-correct TOV on the edge
//! leaving BOTTOM, "update at TOP" on the edge leaving TOP. The compare
//! blocking after a TCNT write therefore simply suppresses the compare on
//! the first edge after the write.

use super::prescaler::{ClockIo, Prescaler};
use crate::peripheral::{Ctx, PortIndex, NEVER};

/// TIFRn/TIMSKn bits, the same in every timer of the chip.
pub const TOV: u8 = 1 << 0;
pub const OCFA: u8 = 1 << 1;
pub const OCFB: u8 = 1 << 2;
pub const ICF: u8 = 1 << 5;
const OCF: [u8; 2] = [OCFA, OCFB];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Normal,
    Ctc,
    FastPwm,
    PhaseCorrect,
    PhaseFreqCorrect,
    /// A reserved WGM value: counts like normal mode (and warns).
    Reserved,
}

impl Kind {
    /// PWM modes double-buffer OCRnx and forbid FOC.
    pub fn pwm(self) -> bool {
        matches!(self, Kind::FastPwm | Kind::PhaseCorrect | Kind::PhaseFreqCorrect)
    }
    pub fn dual_slope(self) -> bool {
        matches!(self, Kind::PhaseCorrect | Kind::PhaseFreqCorrect)
    }
}

/// Where TOP comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Top {
    Max,
    Fixed(u16),
    OcrA,
    Icr,
}

/// One row of a waveform generation mode table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mode {
    pub kind: Kind,
    pub top: Top,
}

impl Mode {
    pub const fn new(kind: Kind, top: Top) -> Self {
        Mode { kind, top }
    }
}

/// Counter position and waveform state of one Timer/Counter.
#[derive(Clone, Debug)]
pub struct Counter {
    /// 0xFF or 0xFFFF.
    pub max: u16,
    pub mode: Mode,
    /// WGMn2 / WGM13: in PWM modes COMnA = 1 toggles OCnA.
    pub toggle_a_in_pwm: bool,
    pub com: [u8; 2],
    pub count: u16,
    /// Direction of the next step (dual-slope modes; always up otherwise).
    pub up: bool,
    /// The next timer clock must not raise a compare match (TCNT written).
    pub block: bool,
    /// Active compare values, and the buffers the CPU sees in PWM modes.
    pub ocr: [u16; 2],
    pub ocr_buf: [u16; 2],
    pub icr: u16,
    /// The OCnA/OCnB output compare registers (pin levels when connected).
    pub oc: [bool; 2],
}

impl Counter {
    pub fn new(max: u16, mode: Mode) -> Self {
        Counter {
            max,
            mode,
            toggle_a_in_pwm: false,
            com: [0; 2],
            count: 0,
            up: true,
            block: false,
            ocr: [0; 2],
            ocr_buf: [0; 2],
            icr: 0,
            oc: [false; 2],
        }
    }

    pub fn top(&self) -> u16 {
        match self.mode.top {
            Top::Max => self.max,
            Top::Fixed(v) => v,
            Top::OcrA => self.ocr[0],
            Top::Icr => self.icr,
        }
    }

    /// A CPU write to OCRnx: to the buffer in PWM modes, else straight through.
    pub fn write_ocr(&mut self, ch: usize, value: u16) {
        self.ocr_buf[ch] = value;
        if !self.mode.kind.pwm() {
            self.ocr[ch] = value;
        }
    }

    /// Switch the waveform mode (leaving a PWM mode unbuffers OCR).
    pub fn set_mode(&mut self, mode: Mode) {
        self.mode = mode;
        if !mode.kind.pwm() {
            self.ocr = self.ocr_buf;
        }
        if !mode.kind.dual_slope() {
            self.up = true;
        }
    }

    /// Whether output compare unit `ch` drives its pin (COM bits and mode).
    pub fn connected(&self, ch: usize) -> bool {
        let com = self.com[ch];
        match com {
            0 => false,
            1 if self.mode.kind.pwm() => ch == 0 && self.toggle_a_in_pwm,
            _ => true,
        }
    }

    /// FOCnx: a compare match on the output only (no flag, no clear), and
    /// only in non-PWM modes.
    pub fn force(&mut self, ch: usize) {
        if !self.mode.kind.pwm() {
            self.compare_output(ch, true);
        }
    }

    // ---- position arithmetic -------------------------------------------

    /// Phase inside the dual-slope period 2*TOP (count must be <= TOP).
    fn phase(&self, top: u64) -> u64 {
        let v = self.count as u64;
        if self.up {
            v
        } else {
            (2 * top - v) % (2 * top)
        }
    }

    /// (count, up) `k` ticks after BOTTOM reached counting up.
    fn after_bottom(&self, k: u64) -> (u16, bool) {
        let t = self.top() as u64;
        if self.mode.kind.dual_slope() {
            if t == 0 {
                return (0, true);
            }
            let phi = k % (2 * t);
            if phi < t {
                (phi as u16, true)
            } else {
                ((2 * t - phi) as u16, false)
            }
        } else {
            ((k % (t + 1)) as u16, true)
        }
    }

    /// (count, up) after `k` more timer clocks, ignoring events.
    pub fn after(&self, k: u64) -> (u16, bool) {
        let (v, t, max) = (self.count as u64, self.top() as u64, self.max as u64);
        if k == 0 {
            return (self.count, self.up);
        }
        if v > t {
            // Above TOP (TCNT or TOP written): count up to MAX and wrap.
            let to_bottom = max - v + 1;
            if k < to_bottom {
                return ((v + k) as u16, true);
            }
            return self.after_bottom(k - to_bottom);
        }
        if self.mode.kind.dual_slope() {
            let from = if t == 0 { 0 } else { self.phase(t) };
            self.after_bottom(from + k)
        } else {
            self.after_bottom(v + k)
        }
    }

    /// Fewest timer clocks (≥ 0) until the counter sits at `x`.
    pub fn ticks_to(&self, x: u16) -> Option<u64> {
        let (v, t, max, x) = (self.count as u64, self.top() as u64, self.max as u64, x as u64);
        if v > t {
            if x >= v {
                return Some(x - v);
            }
            return (x <= t).then_some(max - v + 1 + x);
        }
        if x > t {
            return None;
        }
        if self.mode.kind.dual_slope() {
            if t == 0 {
                return (x == 0).then_some(0);
            }
            let p = 2 * t;
            let phi0 = self.phase(t);
            let rising = (x + p - phi0) % p;
            let falling = ((p - x) % p + p - phi0) % p;
            Some(rising.min(falling))
        } else {
            Some((x + t + 1 - v) % (t + 1))
        }
    }

    /// Timer clocks until the next edge that may have a visible effect,
    /// given the flags already set. Conservative: it may report an edge
    /// that turns out to do nothing, never miss one.
    pub fn next_event_ticks(&self, flags: u8) -> Option<u64> {
        let kind = self.mode.kind;
        let top = self.top();
        let mut best: Option<u64> = None;
        let mut consider = |x: u16| {
            if let Some(j) = self.ticks_to(x) {
                best = Some(best.map_or(j, |b: u64| b.min(j)));
            }
        };
        for (ch, &flag) in OCF.iter().enumerate() {
            if flags & flag == 0 || self.connected(ch) {
                consider(self.ocr[ch]);
            }
        }
        let buffer_pending = kind.pwm() && self.ocr != self.ocr_buf;
        let icf_at_top = self.mode.top == Top::Icr && flags & ICF == 0;
        let tov_free = flags & TOV == 0;
        match kind {
            Kind::Normal | Kind::Ctc | Kind::Reserved => {
                if tov_free {
                    consider(self.max);
                }
                if icf_at_top {
                    consider(top);
                }
            }
            Kind::FastPwm => {
                if tov_free || buffer_pending || icf_at_top || self.connected(0) || self.connected(1) {
                    consider(top);
                }
            }
            Kind::PhaseCorrect => {
                if buffer_pending || icf_at_top {
                    consider(top);
                }
                if tov_free {
                    consider(0);
                }
            }
            Kind::PhaseFreqCorrect => {
                if icf_at_top {
                    consider(top);
                }
                if tov_free || buffer_pending {
                    consider(0);
                }
            }
        }
        best.map(|j| j + 1)
    }

    // ---- one timer clock ------------------------------------------------

    /// Runs one timer clock from the current state; returns the flags it
    /// raises. `blocked`: compare matches are suppressed (TCNT just written).
    pub fn tick(&mut self, blocked: bool) -> u8 {
        let kind = self.mode.kind;
        let (v, t, max) = (self.count, self.top(), self.max);
        let mut flags = 0;

        let (next, go_up) = if v > t || !kind.dual_slope() {
            (if v == t || v == max { 0 } else { v + 1 }, true)
        } else if t == 0 {
            (0, true)
        } else {
            let go_up = v == 0 || (self.up && v != t);
            (if go_up { v + 1 } else { v - 1 }, go_up)
        };

        for (ch, &flag) in OCF.iter().enumerate() {
            if v == self.ocr[ch] && !blocked {
                flags |= flag;
                self.compare_output(ch, go_up);
            }
        }
        if self.mode.top == Top::Icr && v == t && kind != Kind::Normal {
            flags |= ICF;
        }
        match kind {
            Kind::Normal | Kind::Ctc | Kind::Reserved => {
                if v == max {
                    flags |= TOV;
                }
            }
            Kind::FastPwm => {
                if v == t {
                    flags |= TOV;
                    self.bottom_output();
                    self.ocr = self.ocr_buf;
                }
            }
            Kind::PhaseCorrect => {
                if v == t {
                    self.ocr = self.ocr_buf;
                }
                if v == 0 {
                    flags |= TOV;
                }
            }
            Kind::PhaseFreqCorrect => {
                if v == 0 {
                    flags |= TOV;
                    self.ocr = self.ocr_buf;
                }
            }
        }

        self.count = next;
        self.up = if !kind.dual_slope() || next == 0 {
            true
        } else if next == self.top() {
            false
        } else {
            go_up
        };
        flags
    }

    /// The COM action of a compare match; `up`: the counter counts up.
    fn compare_output(&mut self, ch: usize, up: bool) {
        let kind = self.mode.kind;
        let oc = &mut self.oc[ch];
        match (self.com[ch], kind.pwm()) {
            (1, false) => *oc = !*oc,
            (2, false) => *oc = false,
            (3, false) => *oc = true,
            (1, true) if ch == 0 && self.toggle_a_in_pwm => *oc = !*oc,
            // Fast PWM: clear (COM=2) / set (COM=3) on match, undone at BOTTOM.
            (2, true) if !kind.dual_slope() => *oc = false,
            (3, true) if !kind.dual_slope() => *oc = true,
            // Phase correct: COM=2 clears counting up and sets counting down.
            (2, true) => *oc = !up,
            (3, true) => *oc = up,
            _ => {}
        }
    }

    /// Fast PWM: the counter wraps to BOTTOM.
    fn bottom_output(&mut self) {
        for ch in 0..2 {
            match self.com[ch] {
                2 => self.oc[ch] = true,
                3 => self.oc[ch] = false,
                _ => {}
            }
        }
    }
}

/// Interrupt vectors of a timer.
#[derive(Clone, Copy, Debug)]
pub struct TimerVectors {
    pub compa: u8,
    pub compb: u8,
    pub ovf: u8,
    pub capt: Option<u8>,
}

/// A counter plus what every timer has around it: clock select, flags,
/// interrupt masks, the OCnA/OCnB pins.
#[derive(Clone, Debug)]
pub struct TimerCore {
    pub name: &'static str,
    pub ctr: Counter,
    /// Prescaler division (0 = no clock).
    pub divisor: u32,
    /// p-time at which `ctr` is valid.
    pub base: u64,
    pub tifr: u8,
    pub timsk: u8,
    pub vectors: TimerVectors,
    pub oc_pins: [(PortIndex, u8); 2],
}

impl TimerCore {
    pub fn new(name: &'static str, max: u16, mode: Mode, vectors: TimerVectors, oc_pins: [(PortIndex, u8); 2]) -> Self {
        TimerCore { name, ctr: Counter::new(max, mode), divisor: 0, base: 0, tifr: 0, timsk: 0, vectors, oc_pins }
    }

    /// Runs every timer clock up to CPU cycle `cx.now`, raising flags and
    /// moving pins at the cycle they happen, then rebases at `cx.now`.
    /// Must be called before any change of configuration.
    pub fn sync(&mut self, clock: &ClockIo, pre: &Prescaler, cx: &mut Ctx) {
        let p_now = clock.p(cx.now);
        while let Some(k) = self.ctr.next_event_ticks(self.tifr) {
            let Some(p) = pre.kth_tick(self.divisor, self.base, k) else { break };
            if p > p_now {
                break;
            }
            let (count, up) = self.ctr.after(k - 1);
            let blocked = self.ctr.block && k == 1;
            self.ctr.count = count;
            self.ctr.up = up;
            self.ctr.block = false;
            let old_oc = self.ctr.oc;
            self.tifr |= self.ctr.tick(blocked);
            self.base = p;
            if old_oc != self.ctr.oc {
                self.drive_pins(cx, clock.cycle_of(p));
            }
        }
        if p_now > self.base {
            let k = pre.ticks(self.divisor, self.base, p_now);
            if k > 0 {
                (self.ctr.count, self.ctr.up) = self.ctr.after(k);
                self.ctr.block = false;
            }
            self.base = p_now;
        }
        self.refresh_irqs(cx);
    }

    /// CPU cycle of the next event worth waking up for.
    pub fn next_event(&self, clock: &ClockIo, pre: &Prescaler) -> u64 {
        self.ctr
            .next_event_ticks(self.tifr)
            .and_then(|k| pre.kth_tick(self.divisor, self.base, k))
            .map_or(NEVER, |p| clock.cycle_of(p))
    }

    pub fn refresh_irqs(&mut self, cx: &mut Ctx) {
        let on = |bit: u8| self.tifr & self.timsk & bit != 0;
        let v = self.vectors;
        cx.set_irq(v.ovf, on(TOV));
        cx.set_irq(v.compa, on(OCFA));
        cx.set_irq(v.compb, on(OCFB));
        if let Some(capt) = v.capt {
            cx.set_irq(capt, on(ICF));
        }
    }

    /// Puts OCnA/OCnB on their pins (or releases them) and logs the change.
    pub fn drive_pins(&mut self, cx: &mut Ctx, cycle: u64) {
        for ch in 0..2 {
            let (port, bit) = self.oc_pins[ch];
            let m = 1u8 << bit;
            if self.ctr.connected(ch) {
                cx.pins.alt_enable[port] |= m;
                if self.ctr.oc[ch] {
                    cx.pins.alt_value[port] |= m;
                } else {
                    cx.pins.alt_value[port] &= !m;
                }
            } else {
                cx.pins.alt_enable[port] &= !m;
            }
            cx.pins.settle(port, cycle);
        }
    }

    /// TIFR write: ones clear flags.
    pub fn write_tifr(&mut self, value: u8, cx: &mut Ctx) {
        self.tifr &= !value;
        self.refresh_irqs(cx);
    }

    pub fn acknowledge(&mut self, vector: u8, cx: &mut Ctx) {
        let v = self.vectors;
        let flag = if vector == v.ovf {
            TOV
        } else if vector == v.compa {
            OCFA
        } else if vector == v.compb {
            OCFB
        } else if Some(vector) == v.capt {
            ICF
        } else {
            return;
        };
        self.tifr &= !flag;
        self.refresh_irqs(cx);
    }

    /// A CPU write to TCNT: keeps its value while stopped, blocks the
    /// compare on the next timer clock.
    pub fn write_tcnt(&mut self, value: u16) {
        self.ctr.count = value;
        self.ctr.block = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(c: &mut Counter, n: usize) -> Vec<(u16, u8)> {
        (0..n).map(|_| { let f = c.tick(false); (c.count, f) }).collect()
    }

    #[test]
    fn arithmetic_matches_stepping_in_every_kind() {
        let modes = [
            Mode::new(Kind::Normal, Top::Max),
            Mode::new(Kind::Ctc, Top::OcrA),
            Mode::new(Kind::FastPwm, Top::Fixed(9)),
            Mode::new(Kind::PhaseCorrect, Top::OcrA),
            Mode::new(Kind::PhaseFreqCorrect, Top::Icr),
        ];
        for mode in modes {
            for start in [0u16, 3, 7, 12, 40] {
                let mut c = Counter::new(0xFF, mode);
                c.ocr = [7, 2];
                c.ocr_buf = c.ocr;
                c.icr = 7;
                c.count = start;
                let reference = c.clone();
                let mut stepped = c.clone();
                for k in 1..600u64 {
                    stepped.tick(false);
                    assert_eq!(reference.after(k), (stepped.count, stepped.up), "{mode:?} start {start} k {k}");
                }
                for x in [0u16, 1, 2, 7, 200, 255] {
                    let mut s = reference.clone();
                    let mut expect = None;
                    for k in 0..700u64 {
                        if s.count == x {
                            expect = Some(k);
                            break;
                        }
                        s.tick(false);
                    }
                    assert_eq!(reference.ticks_to(x), expect, "{mode:?} start {start} to {x}");
                }
            }
        }
    }

    #[test]
    fn ctc_clears_after_top_and_flags_on_the_edge_leaving_ocr() {
        let mut c = Counter::new(0xFF, Mode::new(Kind::Ctc, Top::OcrA));
        c.ocr = [2, 2];
        let got = walk(&mut c, 4);
        assert_eq!(got, vec![(1, 0), (2, 0), (0, OCFA | OCFB), (1, 0)]);
    }

    #[test]
    fn phase_correct_output_follows_the_datasheet() {
        let mut c = Counter::new(0xFF, Mode::new(Kind::PhaseCorrect, Top::Fixed(4)));
        c.com = [2, 2];
        c.ocr = [2, 4];
        c.ocr_buf = c.ocr;
        let mut levels = vec![];
        for _ in 0..16 {
            c.tick(false);
            levels.push((c.count, c.oc[0], c.oc[1]));
        }
        // OCnA low while counting up past 2, high after passing 2 down;
        // OCR = TOP keeps a non-inverting output high.
        assert_eq!(levels[1], (2, false, false));
        assert_eq!(levels[2], (3, false, false));
        assert_eq!(levels[4], (3, false, true));
        assert_eq!(levels[5], (2, false, true));
        assert_eq!(levels[6], (1, true, true));
        assert!(levels[8..].iter().all(|l| l.2));
    }

    #[test]
    fn fast_pwm_output_is_set_at_bottom_and_cleared_on_match() {
        let mut c = Counter::new(0xFF, Mode::new(Kind::FastPwm, Top::Fixed(3)));
        c.com = [2, 0];
        c.ocr = [1, 0];
        c.ocr_buf = [1, 0];
        let mut high = vec![];
        for _ in 0..8 {
            c.tick(false);
            high.push(c.oc[0]);
        }
        // count after: 1 2 3 0 1 2 3 0 -> high at 0 and 1, low from 2.
        assert_eq!(high, vec![false, false, false, true, true, false, false, true]);
    }

    #[test]
    fn blocked_compare_is_skipped() {
        let mut c = Counter::new(0xFF, Mode::new(Kind::Normal, Top::Max));
        c.ocr = [5, 9];
        c.count = 5;
        assert_eq!(c.tick(true), 0);
        assert_eq!(c.count, 6);
    }
}

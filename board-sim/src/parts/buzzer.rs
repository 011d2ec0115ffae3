//! The piezo buzzer on OC1A: pin edges in, tones out.
//!
//! The firmware makes sound by toggling the pin with Timer1, so a tone is a
//! run of rising edges at a steady period. The model measures the period
//! between successive rising edges, groups runs of the same period (within
//! [`PERIOD_TOLERANCE`]) into [`Tone`]s, and calls it silence when the pin
//! has not moved for the silence timeout. It also keeps every edge so the
//! waveform can be rendered to a WAV file (see [`super::wav`]).

use firmware::board::{self, Pin};

use super::{ns_to_cycles, port_from_index};

/// Relative change of period that starts a new tone: timer jitter from
/// interrupt latency stays well below it, a new note does not.
pub const PERIOD_TOLERANCE: f64 = 0.02;

/// Default silence timeout: longer than the period of any audible tone
/// a piezo plays (50 Hz = 20 ms).
pub const DEFAULT_SILENCE_NS: u64 = 25_000_000;

/// A stretch of steady tone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tone {
    /// Cycle of the first rising edge.
    pub start: u64,
    /// One period after the last rising edge: where the next would have been.
    pub end: u64,
    /// Mean frequency over the tone.
    pub hz: f32,
}

/// The tone being played: first and last rising edge and periods between.
#[derive(Clone, Copy, Debug)]
struct Run {
    start: u64,
    last_rise: u64,
    periods: u64,
}

impl Run {
    fn mean_period(&self) -> f64 {
        (self.last_rise - self.start) as f64 / self.periods as f64
    }
}

/// The buzzer and what it has played.
#[derive(Clone, Debug)]
pub struct Buzzer {
    clock_hz: u32,
    pin: Pin,
    silence: u64,
    level: bool,
    initial_level: bool,
    edges: Vec<(u64, bool)>,
    last_rise: Option<u64>,
    run: Option<Run>,
    tones: Vec<Tone>,
}

impl Buzzer {
    /// The board's buzzer pin, default silence timeout, pin low at start.
    pub fn new(clock_hz: u32) -> Buzzer {
        Buzzer::with_config(clock_hz, board::BUZZER, DEFAULT_SILENCE_NS)
    }

    pub fn with_config(clock_hz: u32, pin: Pin, silence_ns: u64) -> Buzzer {
        Buzzer {
            clock_hz,
            pin,
            silence: ns_to_cycles(silence_ns, clock_hz),
            level: false,
            initial_level: false,
            edges: Vec::new(),
            last_rise: None,
            run: None,
            tones: Vec::new(),
        }
    }

    /// A pin event from the emulator (port 0 = A); other pins are ignored.
    pub fn port_changed(&mut self, cycle: u64, port: usize, levels: u8) {
        if port_from_index(port) == Some(self.pin.port) {
            self.set_level(cycle, levels & self.pin.mask() != 0);
        }
    }

    /// The pin is at `high` from `cycle` on.
    pub fn set_level(&mut self, cycle: u64, high: bool) {
        if high == self.level {
            return;
        }
        self.finish(cycle);
        self.level = high;
        self.edges.push((cycle, high));
        if !high {
            return;
        }
        if let Some(prev) = self.last_rise.filter(|&r| cycle - r <= self.silence) {
            let period = cycle - prev;
            match &mut self.run {
                Some(run)
                    if ((period as f64 - run.mean_period()) / run.mean_period()).abs()
                        <= PERIOD_TOLERANCE =>
                {
                    run.last_rise = cycle;
                    run.periods += 1;
                }
                _ => {
                    // The new note began at the previous rising edge.
                    self.close_run(Some(prev));
                    self.run = Some(Run {
                        start: prev,
                        last_rise: cycle,
                        periods: 1,
                    });
                }
            }
        }
        self.last_rise = Some(cycle);
    }

    /// Ends the tone if the pin has been still for the silence timeout by
    /// `cycle`. Call before reading [`Self::tones`] at the end of a run.
    pub fn finish(&mut self, cycle: u64) {
        let still_since = self.edges.last().map_or(0, |&(t, _)| t);
        if cycle.saturating_sub(still_since) > self.silence {
            self.close_run(None);
            self.last_rise = None;
        }
    }

    /// Logs the current tone as ended at `end`, or one period after its
    /// last rising edge when it faded out.
    fn close_run(&mut self, end: Option<u64>) {
        if let Some(run) = self.run.take() {
            let period = run.mean_period();
            let end = end.unwrap_or(run.last_rise + period.round() as u64);
            self.tones.push(Tone {
                start: run.start,
                end,
                hz: (self.clock_hz as f64 / period) as f32,
            });
        }
    }

    /// The frequency sounding at `cycle`, if any.
    pub fn current_tone(&self, cycle: u64) -> Option<f32> {
        let run = self.run?;
        let still_since = self.edges.last().map_or(0, |&(t, _)| t);
        (cycle.saturating_sub(still_since) <= self.silence)
            .then(|| (self.clock_hz as f64 / run.mean_period()) as f32)
    }

    /// Tones that have ended, oldest first.
    pub fn tones(&self) -> &[Tone] {
        &self.tones
    }

    /// Every edge of the pin: (cycle, level after it).
    pub fn edges(&self) -> &[(u64, bool)] {
        &self.edges
    }

    /// The pin level before the first edge.
    pub fn initial_level(&self) -> bool {
        self.initial_level
    }

    /// Renders the pin from `start` to `end` (cycles) as audio samples.
    pub fn render(&self, start: u64, end: u64, sample_rate: u32) -> Vec<i16> {
        super::wav::render_square_wave(
            self.edges(),
            self.initial_level,
            start,
            end,
            self.clock_hz,
            sample_rate,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HZ: u32 = 8_000_000;

    /// A square wave of `hz` from `start` for `periods` periods.
    fn play(b: &mut Buzzer, start: u64, hz: f64, periods: u32) -> u64 {
        let half = HZ as f64 / hz / 2.0;
        let mut t = start;
        for i in 0..2 * periods {
            t = start + (half * i as f64).round() as u64;
            b.set_level(t, i % 2 == 0);
        }
        b.set_level(t + half as u64, false);
        t + half as u64
    }

    #[test]
    fn one_kilohertz_at_8_mhz() {
        let mut b = Buzzer::new(HZ);
        assert_eq!(b.current_tone(0), None);
        let end = play(&mut b, 1000, 1000.0, 100);
        assert_eq!(b.current_tone(end), Some(1000.0));
        assert_eq!(b.current_tone(end + 8 * 30_000), None, "silent 30 ms later");
        b.finish(end + 8 * 30_000);
        assert_eq!(
            b.tones(),
            &[Tone {
                start: 1000,
                end: 1000 + 100 * 8000,
                hz: 1000.0
            }]
        );
    }

    #[test]
    fn a_new_note_starts_a_new_tone() {
        let mut b = Buzzer::new(HZ);
        let t = play(&mut b, 0, 440.0, 44);
        play(&mut b, t + 4, 880.0, 88);
        b.finish(u64::MAX);
        let tones = b.tones();
        assert_eq!(tones.len(), 2, "{tones:?}");
        assert!((tones[0].hz - 440.0).abs() < 0.5, "{tones:?}");
        assert!((tones[1].hz - 880.0).abs() < 0.5, "{tones:?}");
        assert_eq!(tones[0].end, tones[1].start);
    }

    #[test]
    fn pauses_split_tones_and_other_pins_are_ignored() {
        let mut b = Buzzer::new(HZ);
        let t = play(&mut b, 0, 2000.0, 20);
        b.port_changed(t + 10, board::BUZZER.port.index(), !board::BUZZER.mask());
        b.port_changed(t + 20, 0, 0xFF);
        assert_eq!(b.edges().len(), 40);
        let pause = 8 * 100_000; // 100 ms
        play(&mut b, t + pause, 2000.0, 20);
        b.finish(u64::MAX);
        assert_eq!(b.tones().len(), 2);
        assert_eq!(b.tones()[1].start, t + pause);
    }
}

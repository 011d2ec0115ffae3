//! The sounds the buzzer makes: a note table in flash and a pure player.
//!
//! A [`Sound`] is a short sequence of [`Note`]s (frequency in Hz, 0 = rest;
//! duration in 25 ms fast-task ticks). [`Player`] steps through them: the
//! background starts a sound with [`Player::start`], the fast task calls
//! [`Player::tick`], and both return what the buzzer should do now. The
//! hardware layer only maps a frequency to Timer1 ([`ocr_for`]).

use crate::board::{CPU_HZ, FAST_TASK_MS};
use crate::progmem;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sound {
    /// Feedback for a button press.
    KeyClick = 0,
    /// The computer (or the player) made a move.
    MoveMade = 1,
    /// A king is in check: two short high beeps.
    Check = 2,
    /// Mate, stalemate or draw: a falling three-note jingle.
    GameEnd = 3,
    /// Illegal input: one low beep.
    Error = 4,
}

impl Sound {
    pub const ALL: [Sound; 5] = [Sound::KeyClick, Sound::MoveMade, Sound::Check, Sound::GameEnd, Sound::Error];
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Note {
    /// Frequency in Hz; 0 is a rest (silence).
    pub hz: u16,
    /// Duration in fast-task ticks (>= 1).
    pub ticks: u8,
    /// Timer1 compare value for `hz` ([`ocr_for`]), computed at compile
    /// time so the fast task never divides.
    pub ocr: u16,
}

/// Ticks for at least `ms` milliseconds.
pub const fn ms(ms: u32) -> u8 {
    let t = ms.div_ceil(FAST_TASK_MS);
    assert!(t >= 1 && t <= 255);
    t as u8
}

const fn n(hz: u16, ms_: u32) -> Note {
    Note { hz, ticks: ms(ms_), ocr: ocr_for(hz) }
}

/// Rest.
pub const REST: u16 = 0;

progmem! {
    /// All notes of all sounds, back to back; see `SOUNDS`.
    static NOTES: [Note; 9] = [
        // KeyClick: 0
        n(3000, 50),
        // MoveMade: 1
        n(1047, 150),
        // Check: 2..5
        n(1568, 100), n(REST, 50), n(1568, 100),
        // GameEnd: 5..8
        n(784, 150), n(659, 150), n(523, 400),
        // Error: 8
        n(220, 300),
    ];
    /// (first note, number of notes) per `Sound`.
    static SOUNDS: [(u8, u8); 5] = [(0, 1), (1, 1), (2, 3), (5, 3), (8, 1)];
}

/// The notes of `s`, in order.
pub fn notes(s: Sound) -> impl Iterator<Item = Note> {
    let (first, count) = SOUNDS.get(s as usize);
    (first..first + count).map(|i| NOTES.get(i as usize))
}

/// Total length of `s` in ticks.
pub fn duration_ticks(s: Sound) -> u16 {
    notes(s).map(|n| n.ticks as u16).sum()
}

/// What the buzzer must do after a player call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Keep doing what it does.
    Keep,
    /// Sound this note (`hz == 0`: be silent, a rest inside a sound).
    Play(Note),
    /// The sound is over: silence, pin low.
    Stop,
}

/// Steps through the notes of one sound at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Player {
    /// Index of the current note in `NOTES`.
    pos: u8,
    /// Notes left after the current one.
    more: u8,
    /// Ticks left of the current note; 0 when idle.
    left: u8,
}

impl Player {
    pub const fn new() -> Self {
        Player { pos: 0, more: 0, left: 0 }
    }

    pub fn is_playing(&self) -> bool {
        self.left != 0
    }

    /// Starts `s` (cutting off whatever was playing) and returns the first note.
    /// A note of `ticks` lasts between `ticks - 1` and `ticks` fast-task
    /// periods, depending on where in a period it was started.
    pub fn start(&mut self, s: Sound) -> Action {
        self.prime(s);
        self.tick()
    }

    /// [`Player::start`] without its first note: the next [`Player::tick`]
    /// gives it, as the last tick of a note before `s`'s first. (The
    /// buzzer loads notes in one place, its `advance`: 156 B less than
    /// `start` and `tick` inlined each.)
    pub fn prime(&mut self, s: Sound) {
        let (first, count) = SOUNDS.get(s as usize);
        // Every sound has a note (`every_sound_is_audible_and_short`).
        self.pos = first.wrapping_sub(1);
        self.more = count;
        self.left = 1;
    }

    /// Silences the player.
    pub fn stop(&mut self) -> Action {
        self.left = 0;
        self.more = 0;
        Action::Stop
    }

    /// One fast-task tick.
    pub fn tick(&mut self) -> Action {
        if self.left == 0 {
            return Action::Keep;
        }
        self.left -= 1;
        if self.left != 0 {
            return Action::Keep;
        }
        if self.more == 0 {
            return Action::Stop;
        }
        self.more -= 1;
        // Wraps from `prime`'s one before a sound's first note (255 when it
        // is note 0).
        self.pos = self.pos.wrapping_add(1);
        let note = NOTES.get(self.pos as usize);
        self.left = note.ticks;
        Action::Play(note)
    }
}

impl Default for Player {
    fn default() -> Self {
        Self::new()
    }
}

/// Lowest frequency Timer1 can make at prescaler 1 (OCR1A = 0xFFFF).
pub const MIN_HZ: u16 = (CPU_HZ / 2 / 65_536 + 1) as u16;

/// OCR1A for `hz` with Timer1 in CTC mode, prescaler 1, toggling OC1A on
/// compare match: f = CPU_HZ / (2 * (1 + OCR1A)), rounded to the nearest.
/// Out-of-range frequencies are clamped to what the timer can make.
pub const fn ocr_for(hz: u16) -> u16 {
    let hz = if hz < MIN_HZ { MIN_HZ } else { hz } as u32;
    let half = CPU_HZ / 2;
    let top = (half + hz / 2) / hz;
    if top == 0 {
        0
    } else {
        (top - 1) as u16
    }
}

/// The frequency Timer1 really makes for `ocr`, rounded to the nearest Hz.
pub const fn hz_of(ocr: u16) -> u32 {
    let div = ocr as u32 + 1;
    (CPU_HZ / 2 + div / 2) / div
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sound_is_audible_and_short() {
        for s in Sound::ALL {
            let ns: Vec<Note> = notes(s).collect();
            assert!(!ns.is_empty(), "{s:?} has no notes");
            assert!(ns[0].hz != REST && ns.last().unwrap().hz != REST, "{s:?} starts or ends with a rest");
            for n in &ns {
                assert!(n.ticks >= 1);
                assert_eq!(n.ocr, ocr_for(n.hz));
                assert!(n.hz == REST || (100..=5000).contains(&n.hz), "{s:?}: {} Hz", n.hz);
            }
            let ms = duration_ticks(s) as u32 * FAST_TASK_MS;
            assert!(ms <= 1000, "{s:?} lasts {ms} ms");
        }
        // The key click must not slow down typing; the error beep is low.
        assert!(duration_ticks(Sound::KeyClick) as u32 * FAST_TASK_MS <= 50);
        assert!(notes(Sound::Error).all(|n| n.hz <= 300));
        // The note table is used exactly, with no gaps or overlaps.
        let mut next = 0;
        for s in Sound::ALL {
            let (first, count) = SOUNDS.get(s as usize);
            assert_eq!(first, next);
            next += count;
        }
        assert_eq!(next as usize, NOTES.len());
    }

    #[test]
    fn player_plays_every_note_for_its_ticks() {
        for s in Sound::ALL {
            let mut p = Player::new();
            let mut heard = Vec::new();
            let mut a = p.start(s);
            let mut t = 0u32;
            loop {
                match a {
                    Action::Play(n) => heard.push((n.hz, t)),
                    Action::Stop => break,
                    Action::Keep => {}
                }
                a = p.tick();
                t += 1;
                assert!(t < 1000);
            }
            assert!(!p.is_playing());
            // Starting times follow the note durations.
            let ns: Vec<Note> = notes(s).collect();
            let mut at = 0;
            assert_eq!(heard.len(), ns.len());
            for (i, n) in ns.iter().enumerate() {
                assert_eq!(heard[i], (n.hz, at));
                at += n.ticks as u32;
            }
            assert_eq!(t, at, "{s:?} stops after its total duration");
            assert_eq!(p.tick(), Action::Keep, "an idle player stays quiet");
        }
    }

    #[test]
    fn a_new_sound_cuts_off_the_old_one() {
        let mut p = Player::new();
        p.start(Sound::GameEnd);
        p.tick();
        assert!(matches!(p.start(Sound::KeyClick), Action::Play(Note { hz: 3000, .. })));
        assert_eq!(p.tick(), Action::Keep);
        assert_eq!(p.tick(), Action::Stop);
        p.start(Sound::Error);
        assert_eq!(p.stop(), Action::Stop);
        assert!(!p.is_playing());
        assert_eq!(p.tick(), Action::Keep);
    }

    #[test]
    fn timer1_values() {
        assert_eq!(ocr_for(1000), 3999);
        assert_eq!(hz_of(ocr_for(1000)), 1000);
        for hz in [220u16, 523, 659, 784, 1047, 1568, 3000] {
            let real = hz_of(ocr_for(hz)) as i64;
            assert!((real - hz as i64).abs() * 1000 <= hz as i64, "{hz} Hz -> {real} Hz");
        }
        assert_eq!(ocr_for(0), ocr_for(MIN_HZ));
        assert!(hz_of(0xFFFF) < MIN_HZ as u32 + 1 && hz_of(ocr_for(MIN_HZ)) >= 61);
        assert_eq!(ocr_for(u16::MAX), (CPU_HZ / 2 / 65_535) as u16 - 1);
        assert_eq!(ms(25), 1);
        assert_eq!(ms(26), 2);
    }
}

//! Key handling as a pure state machine: debounce, auto-repeat, long press.
//!
//! The fast task calls [`Keys::tick`] every 25 ms with the raw button state
//! (bit `b as u8` set while button `b` is physically pressed, see
//! [`Button`]); the background code takes [`KeyEvent`]s out with
//! [`Keys::pop`]. Nothing here touches hardware, so the timing is unit-tested.
//!
//! Each button has a [`KeyMode`]:
//! * `Plain`: one `Press` when the debounced press is seen.
//! * `Repeat`: `Press`, then after `repeat_delay` ticks one `Repeat` every
//!   `repeat_period` ticks while held (for scrolling with UP/DOWN).
//! * `LongPress`: a press shorter than `long_press` ticks gives `Press` on
//!   release; holding it for `long_press` ticks gives one `Long` at that
//!   moment and nothing on release (for MENU/ENTER's second meaning).

use crate::board::Button;
use crate::progmem;
use crate::ring::Ring;

/// What happened to a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    Press,
    Repeat,
    Long,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyEvent {
    pub key: Button,
    pub kind: KeyKind,
}

/// How a key reacts to being held; see the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyMode {
    Plain,
    Repeat,
    LongPress,
}

/// Timing in fast-task ticks (25 ms).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyTiming {
    /// Consecutive equal samples needed to accept a change (1..=255).
    pub debounce: u8,
    /// Ticks from `Press` to the first `Repeat` (>= 1).
    pub repeat_delay: u8,
    /// Ticks between `Repeat`s (>= 1).
    pub repeat_period: u8,
    /// Ticks a `LongPress` key must be held for `Long` (>= 1).
    pub long_press: u8,
}

/// 50 ms debounce, repeat after 400 ms at 10 per second, long press 1 s.
pub const DEFAULT_TIMING: KeyTiming = KeyTiming { debounce: 2, repeat_delay: 16, repeat_period: 4, long_press: 40 };

/// UP and DOWN repeat; MENU and ENTER have a long press.
pub const DEFAULT_MODES: [KeyMode; 4] = [KeyMode::LongPress, KeyMode::Repeat, KeyMode::Repeat, KeyMode::LongPress];

/// Capacity of the event queue.
pub const QUEUE: usize = 8;

const KEYS: usize = 4;

progmem! {
    /// Button names padded to 5 characters, indexed by `Button as usize`.
    pub static KEY_NAMES: [[u8; 5]; 4] = [*b"MENU ", *b"UP   ", *b"DOWN ", *b"ENTER"];
}

/// The name of `key` from flash, padded with spaces to 5 bytes.
pub fn key_name(key: Button) -> [u8; 5] {
    KEY_NAMES.get(key as usize)
}

/// Length of `key`'s name without padding.
pub fn key_name_len(key: Button) -> usize {
    match key {
        Button::Menu | Button::Down => 4,
        Button::Up => 2,
        Button::Enter => 5,
    }
}

pub struct Keys {
    timing: KeyTiming,
    modes: [KeyMode; KEYS],
    /// Debounced state, one bit per button.
    stable: u8,
    /// Consecutive samples that disagreed with `stable`.
    change: [u8; KEYS],
    /// Repeat: ticks to the next `Repeat`. LongPress: ticks to `Long`, 0 once fired.
    timer: [u8; KEYS],
    events: Ring<KeyEvent, QUEUE>,
    /// Events dropped because the queue was full.
    lost: u8,
}

impl Keys {
    pub const fn new() -> Self {
        Self::with_config(DEFAULT_TIMING, DEFAULT_MODES)
    }

    pub const fn with_config(timing: KeyTiming, modes: [KeyMode; KEYS]) -> Self {
        Keys {
            timing,
            modes,
            stable: 0,
            change: [0; KEYS],
            timer: [0; KEYS],
            events: Ring::new(KeyEvent { key: Button::Menu, kind: KeyKind::Press }),
            lost: 0,
        }
    }

    /// Changes one key's mode (takes effect at its next press).
    pub fn set_mode(&mut self, key: Button, mode: KeyMode) {
        self.modes[key as usize] = mode;
    }

    /// One fast-task sample. `raw` has bit `b` set while button `b` is down.
    pub fn tick(&mut self, raw: u8) {
        // The button from its index, not from `Button::ALL`: the fast task
        // has this inlined, and the array was copied to its stack frame on
        // every tick.
        for i in 0..KEYS {
            let key = match i {
                0 => Button::Menu,
                1 => Button::Up,
                2 => Button::Down,
                _ => Button::Enter,
            };
            let bit = 1u8 << i;
            let now = raw & bit != 0;
            let was = self.stable & bit != 0;
            if now != was {
                self.change[i] += 1;
                if self.change[i] >= self.timing.debounce {
                    self.change[i] = 0;
                    self.stable ^= bit;
                    if now {
                        self.pressed(i, key);
                    } else {
                        self.released(i, key);
                    }
                    continue;
                }
            } else {
                self.change[i] = 0;
            }
            if was {
                self.held(i, key);
            }
        }
    }

    fn pressed(&mut self, i: usize, key: Button) {
        match self.modes[i] {
            KeyMode::Plain => self.emit(key, KeyKind::Press),
            KeyMode::Repeat => {
                self.emit(key, KeyKind::Press);
                self.timer[i] = self.timing.repeat_delay.max(1);
            }
            KeyMode::LongPress => self.timer[i] = self.timing.long_press.max(1),
        }
    }

    fn released(&mut self, i: usize, key: Button) {
        if self.modes[i] == KeyMode::LongPress && self.timer[i] != 0 {
            self.emit(key, KeyKind::Press);
        }
        self.timer[i] = 0;
    }

    fn held(&mut self, i: usize, key: Button) {
        if self.timer[i] == 0 {
            return;
        }
        self.timer[i] -= 1;
        if self.timer[i] != 0 {
            return;
        }
        match self.modes[i] {
            KeyMode::Repeat => {
                self.emit(key, KeyKind::Repeat);
                self.timer[i] = self.timing.repeat_period.max(1);
            }
            KeyMode::LongPress => self.emit(key, KeyKind::Long),
            KeyMode::Plain => {}
        }
    }

    /// Not inlined: five call sites in the fast task's handler.
    #[inline(never)]
    fn emit(&mut self, key: Button, kind: KeyKind) {
        if !self.events.push(KeyEvent { key, kind }) {
            self.lost = self.lost.saturating_add(1);
        }
    }

    /// The oldest pending event.
    pub fn pop(&mut self) -> Option<KeyEvent> {
        self.events.pop()
    }

    /// True while events are waiting.
    pub fn has_events(&self) -> bool {
        !self.events.is_empty()
    }

    /// Debounced state: bit `b` set while button `b` is held.
    pub fn held_mask(&self) -> u8 {
        self.stable
    }

    pub fn is_held(&self, key: Button) -> bool {
        self.stable & (1 << key as u8) != 0
    }

    /// Events dropped on a full queue since the last call.
    pub fn take_lost(&mut self) -> u8 {
        core::mem::replace(&mut self.lost, 0)
    }

    /// Drops pending events (e.g. after a long search, so stale presses do
    /// not act on a new screen).
    pub fn flush(&mut self) {
        self.events.clear();
    }
}

impl Default for Keys {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: u8 = 1 << Button::Menu as u8;
    const U: u8 = 1 << Button::Up as u8;
    const D: u8 = 1 << Button::Down as u8;
    const E: u8 = 1 << Button::Enter as u8;

    fn ev(key: Button, kind: KeyKind) -> KeyEvent {
        KeyEvent { key, kind }
    }

    /// Feeds `raw` for `n` ticks; returns (tick index, event) pairs, ticks
    /// counted from `*t`.
    fn run(k: &mut Keys, t: &mut u32, raw: u8, n: u32, out: &mut Vec<(u32, KeyEvent)>) {
        for _ in 0..n {
            k.tick(raw);
            while let Some(e) = k.pop() {
                out.push((*t, e));
            }
            *t += 1;
        }
    }

    #[test]
    fn press_needs_two_stable_samples() {
        let mut k = Keys::new();
        k.tick(U);
        assert_eq!(k.pop(), None, "one sample is not enough");
        assert!(!k.is_held(Button::Up));
        k.tick(U);
        assert_eq!(k.pop(), Some(ev(Button::Up, KeyKind::Press)));
        assert!(k.is_held(Button::Up));
        assert_eq!(k.pop(), None);
    }

    #[test]
    fn bounce_is_filtered() {
        let mut k = Keys::new();
        // Contact bounce: alternating samples never give two in a row.
        for i in 0..20 {
            k.tick(if i % 2 == 0 { D } else { 0 });
        }
        assert_eq!(k.pop(), None);
        assert_eq!(k.held_mask(), 0);
        // A held key with single-sample dropouts stays held and never re-presses.
        k.tick(D);
        k.tick(D);
        assert_eq!(k.pop(), Some(ev(Button::Down, KeyKind::Press)));
        for i in 0..10 {
            k.tick(if i == 5 { 0 } else { D });
        }
        assert!(k.is_held(Button::Down));
        assert_eq!(k.pop(), None);
    }

    #[test]
    fn auto_repeat_timing() {
        let mut k = Keys::new();
        let mut t = 0;
        let mut out = Vec::new();
        run(&mut k, &mut t, U, 40, &mut out);
        run(&mut k, &mut t, 0, 5, &mut out);
        let times: Vec<u32> = out.iter().map(|(t, _)| *t).collect();
        // Press on the 2nd sample (tick 1), first repeat repeat_delay later,
        // then every repeat_period while held (ticks 0..=39).
        let mut want = vec![1];
        let mut r = 1 + DEFAULT_TIMING.repeat_delay as u32;
        while r < 40 {
            want.push(r);
            r += DEFAULT_TIMING.repeat_period as u32;
        }
        assert_eq!(times, want);
        assert_eq!(out[0].1, ev(Button::Up, KeyKind::Press));
        assert!(out[1..].iter().all(|(_, e)| *e == ev(Button::Up, KeyKind::Repeat)));
        // 400 ms and 100 ms at 25 ms per tick.
        assert_eq!(DEFAULT_TIMING.repeat_delay as u32 * 25, 400);
        assert_eq!(DEFAULT_TIMING.repeat_period as u32 * 25, 100);
    }

    #[test]
    fn short_press_of_a_long_press_key_reports_on_release() {
        let mut k = Keys::new();
        let mut t = 0;
        let mut out = Vec::new();
        run(&mut k, &mut t, E, 10, &mut out);
        assert!(out.is_empty(), "nothing while a long-press key is down");
        run(&mut k, &mut t, 0, 3, &mut out);
        // Released samples at ticks 10 and 11: the release is accepted at 11.
        assert_eq!(out, vec![(11, ev(Button::Enter, KeyKind::Press))]);
    }

    #[test]
    fn long_press_fires_once_at_the_threshold() {
        let mut k = Keys::new();
        let mut t = 0;
        let mut out = Vec::new();
        run(&mut k, &mut t, M, 100, &mut out);
        run(&mut k, &mut t, 0, 5, &mut out);
        let lp = DEFAULT_TIMING.long_press as u32;
        assert_eq!(out, vec![(1 + lp, ev(Button::Menu, KeyKind::Long))]);
        assert_eq!(lp * 25, 1000);
    }

    #[test]
    fn keys_are_independent() {
        let mut k = Keys::new();
        let mut t = 0;
        let mut out = Vec::new();
        run(&mut k, &mut t, U, 2, &mut out); // UP pressed at tick 1
        run(&mut k, &mut t, U | E, 4, &mut out); // ENTER down at ticks 2..5
        run(&mut k, &mut t, U, 2, &mut out); // ENTER released at tick 7
        run(&mut k, &mut t, 0, 2, &mut out);
        assert_eq!(out, vec![(1, ev(Button::Up, KeyKind::Press)), (7, ev(Button::Enter, KeyKind::Press))]);
    }

    #[test]
    fn plain_mode_and_custom_timing() {
        let timing = KeyTiming { debounce: 1, repeat_delay: 2, repeat_period: 1, long_press: 3 };
        let mut k = Keys::with_config(timing, [KeyMode::Plain; 4]);
        k.set_mode(Button::Down, KeyMode::Repeat);
        let mut t = 0;
        let mut out = Vec::new();
        run(&mut k, &mut t, M | D, 5, &mut out);
        assert_eq!(
            out,
            vec![
                (0, ev(Button::Menu, KeyKind::Press)),
                (0, ev(Button::Down, KeyKind::Press)),
                (2, ev(Button::Down, KeyKind::Repeat)),
                (3, ev(Button::Down, KeyKind::Repeat)),
                (4, ev(Button::Down, KeyKind::Repeat)),
            ]
        );
    }

    #[test]
    fn full_queue_drops_and_counts() {
        let timing = KeyTiming { debounce: 1, repeat_delay: 1, repeat_period: 1, long_press: 1 };
        let mut k = Keys::with_config(timing, [KeyMode::Repeat; 4]);
        for _ in 0..20 {
            k.tick(U);
        }
        assert_eq!(k.take_lost(), 20 - QUEUE as u8);
        assert_eq!(k.take_lost(), 0);
        let mut n = 0;
        while k.pop().is_some() {
            n += 1;
        }
        assert_eq!(n, QUEUE);
        k.tick(U);
        k.flush();
        assert_eq!(k.pop(), None);
    }

    #[test]
    fn names_come_from_flash() {
        for b in Button::ALL {
            let name = key_name(b);
            assert_eq!(&name[..key_name_len(b)], b.name().as_bytes());
            assert!(name[key_name_len(b)..].iter().all(|&c| c == b' '));
        }
    }
}

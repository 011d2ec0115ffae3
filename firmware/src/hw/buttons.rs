//! The four push buttons: sampled by the fast task, decoded by `keys`.

use super::gpio::Gpio;
use super::Shared;
use firmware::board::{self, Button};
use firmware::keys::{KeyEvent, Keys, DEFAULT_TIMING};

const PINS: Gpio = Gpio::of(board::BUTTON_PORT);

const _: () = {
    let mut i = 0;
    while i < 4 {
        assert!(board::BUTTON_PINS[i].port as u8 == board::BUTTON_PORT as u8, "buttons must share a port");
        i += 1;
    }
};

static KEYS: Shared<Keys> = Shared::new(Keys::new());

const MENU: u8 = Button::Menu.pin().mask();
const UP: u8 = Button::Up.pin().mask();
const DOWN: u8 = Button::Down.pin().mask();
const ENTER: u8 = Button::Enter.pin().mask();

/// Pressed buttons, bit `b as u8` per button (the pins are active low).
/// Written out per button so it folds to a few instructions (a mask when
/// the pins are bits 0..3 in button order) instead of a table in RAM.
#[inline(always)]
fn raw() -> u8 {
    let low = !PINS.pins();
    if MENU == 1 && UP == 2 && DOWN == 4 && ENTER == 8 {
        return low & 0x0F;
    }
    ((low & MENU != 0) as u8) << Button::Menu as u8
        | ((low & UP != 0) as u8) << Button::Up as u8
        | ((low & DOWN != 0) as u8) << Button::Down as u8
        | ((low & ENTER != 0) as u8) << Button::Enter as u8
}

/// Samples in a row with no button down, counted up to [`IDLE_AFTER`].
static RELEASED: Shared<u8> = Shared::new(0);

/// After this many samples with no button down, every key is released,
/// debounced, with no count or timer running: `Keys::tick(0)` changes
/// nothing (a release takes `debounce` samples; one more for margin).
/// The fast task then leaves it out (most of its 450 cycles a tick).
const IDLE_AFTER: u8 = DEFAULT_TIMING.debounce + 1;

/// Fast task: one debounce sample.
#[inline(always)]
pub(super) fn scan() {
    let r = raw();
    let idle = RELEASED.with(|n| {
        if r != 0 {
            *n = 0;
            false
        } else if *n < IDLE_AFTER {
            *n += 1;
            false
        } else {
            true
        }
    });
    if !idle {
        tick_keys(r);
    }
}

/// Out of the fast task's handler: inlined, its registers were saved at
/// every tick, idle or not.
#[inline(never)]
fn tick_keys(r: u8) {
    KEYS.with(|k| k.tick(r));
}

/// The oldest key event not yet taken.
pub fn next_event() -> Option<KeyEvent> {
    KEYS.with(|k| k.pop())
}

/// True while events are waiting (cheap enough for `sleep_unless`).
pub fn pending() -> bool {
    KEYS.with(|k| k.has_events())
}

/// Debounced state: bit `b as u8` set while button `b` is held.
pub fn held() -> u8 {
    KEYS.with(|k| k.held_mask())
}

/// Drops queued events (e.g. presses made during a long computation).
pub fn discard() {
    KEYS.with(|k| k.flush());
}

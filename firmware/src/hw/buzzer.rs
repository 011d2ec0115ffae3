//! The buzzer on OC1A: Timer1 in CTC mode toggles the pin at twice the tone
//! frequency. Sounds come from `tones`; the fast task counts their notes.
//!
//! When silent the timer is stopped and OC1A is disconnected, so the pin
//! falls back to its PORT bit, which `pins::init` leaves low: no DC through
//! the buzzer.

use super::gpio::Gpio;
use super::Shared;
use avr_device::atmega644::{Peripherals, TC1};
use firmware::board;
use firmware::tones::{Action, Player, Sound};

const _: () = assert!(
    board::BUZZER.port as u8 == board::Port::D as u8 && board::BUZZER.bit == 5,
    "the buzzer must be on OC1A (PD5) for the timer to drive it"
);

/// TCCR1A: COM1A1:0 = 01 (toggle OC1A on compare match), WGM11:10 = 00.
const TCCR1A_TOGGLE: u8 = 0x40;
/// TCCR1C: force output compare A.
const FOC1A: u8 = 0x80;
/// TCCR1A: OC1A disconnected.
const TCCR1A_OFF: u8 = 0x00;
/// TCCR1B: WGM13:12 = 01 (CTC, TOP = OCR1A), clock stopped.
const TCCR1B_CTC_STOPPED: u8 = 0x08;
/// TCCR1B: CTC, clk/1 (what `tones::ocr_for` computes for).
const TCCR1B_CTC_CLK1: u8 = 0x09;

static PLAYER: Shared<Player> = Shared::new(Player::new());

fn tc1() -> &'static avr_device::atmega644::tc1::RegisterBlock {
    // SAFETY: Timer1 belongs to this module; every access is inside a
    // critical section (the fast task, or `Shared::with` below).
    unsafe { &*TC1::ptr() }
}

pub fn init(_dp: &Peripherals) {
    silence();
}

/// Starts `sound`, cutting off whatever was playing.
pub fn play(sound: Sound) {
    PLAYER.with(|p| {
        p.prime(sound);
        advance(p)
    });
}

/// Stops any sound now.
pub fn stop() {
    PLAYER.with(|p| apply(p.stop()));
}

pub fn is_playing() -> bool {
    PLAYER.with(|p| p.is_playing())
}

/// Fast task: advances the current sound by one tick.
#[inline(always)]
pub(super) fn tick() {
    // Silent nearly always: only that test in the fast task's handler, the
    // rest (and its registers) in `step`.
    if PLAYER.with(|p| p.is_playing()) {
        step();
    }
}

#[inline(never)]
fn step() {
    PLAYER.with(advance);
}

/// The player's tick, and what it says done: the one place a note is
/// loaded (`play` primes the player, then takes its first note here).
#[inline(never)]
fn advance(p: &mut Player) {
    apply(p.tick());
}

fn apply(a: Action) {
    match a {
        Action::Keep => {}
        Action::Stop => silence(),
        Action::Play(note) if note.hz == 0 => silence(),
        Action::Play(note) => tone(note.ocr),
    }
}

fn tone(ocr: u16) {
    let t = tc1();
    // SAFETY (all writes): documented Timer1 values. Stop the clock, reset
    // the counter below the new TOP (else it would run to 0xFFFF first),
    // then connect OC1A and start.
    t.tccr1b().write(|w| unsafe { w.bits(TCCR1B_CTC_STOPPED) });
    t.tcnt1().write(|w| unsafe { w.bits(0) });
    t.ocr1a().write(|w| unsafe { w.bits(ocr) });
    t.tccr1a().write(|w| unsafe { w.bits(TCCR1A_TOGGLE) });
    t.tccr1b().write(|w| unsafe { w.bits(TCCR1B_CTC_CLK1) });
}

/// Timer stopped, OC1A low and disconnected (the pin is then its PORT bit,
/// also low).
pub fn silence() {
    let t = tc1();
    // SAFETY (all writes): documented Timer1 values.
    t.tccr1b().write(|w| unsafe { w.bits(TCCR1B_CTC_STOPPED) });
    // If the toggle left OC1A high, force one more compare match (FOC1A,
    // valid in CTC mode) so the output latch is low too: then the pin cannot
    // glitch high when a tone reconnects it, and models that keep showing
    // the latch after disconnection see the pin low.
    if Gpio::of(board::BUZZER.port).pins() & board::BUZZER.mask() != 0 && t.tccr1a().read().bits() == TCCR1A_TOGGLE {
        t.tccr1c().write(|w| unsafe { w.bits(FOC1A) });
    }
    t.tccr1a().write(|w| unsafe { w.bits(TCCR1A_OFF) });
}

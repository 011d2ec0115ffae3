//! The 25 ms fast task: a Timer0 compare-match interrupt.
//!
//! 25 ms at 8 MHz is 200,000 cycles = 195 5/16 periods of clk/1024, which an
//! 8-bit CTC timer cannot hit in one go. The handler alternates 195 and 196
//! counts (5 long periods in every 16) so the average period is exact and the
//! clocks never drift.

use avr_device::atmega644::{Peripherals, TC0};
use avr_device::interrupt::{self, Mutex};
use core::cell::Cell;
use firmware::board::{CPU_HZ, FAST_TASK_MS};

const PRESCALE: u32 = 1024;
const CYCLES: u32 = CPU_HZ / 1000 * FAST_TASK_MS;
const WHOLE: u8 = (CYCLES / PRESCALE) as u8; // 195
/// Long periods (WHOLE + 1 counts) per 16 ticks.
const LONG_PER_16: u8 = ((CYCLES % PRESCALE) * 16 / PRESCALE) as u8; // 5
const _: () = assert!(((CYCLES % PRESCALE) * 16).is_multiple_of(PRESCALE), "fast task period must be exact in 1/16ths");

/// Fast-task ticks since boot (the low 16 bits: the period's phase, the
/// random seed's stir and the splash need no more).
static TICKS: Mutex<Cell<u16>> = Mutex::new(Cell::new(0));
/// Milliseconds since boot, kept here so that a search's clock reading is
/// a load (`ticks * 25` was a `__mulsi3`, about 0.05% of `bench engine`).
static MS: Mutex<Cell<u32>> = Mutex::new(Cell::new(0));

pub fn start(dp: &Peripherals) {
    let tc0 = &dp.TC0;
    // SAFETY (all writes): documented register values for Timer0.
    tc0.tccr0a().write(|w| unsafe { w.bits(0x02) }); // CTC, OC0A/B disconnected
    tc0.ocr0a().write(|w| unsafe { w.bits(WHOLE - 1) });
    tc0.tcnt0().write(|w| unsafe { w.bits(0) });
    tc0.tifr0().write(|w| unsafe { w.bits(0x07) }); // clear stale flags
    tc0.timsk0().write(|w| unsafe { w.bits(0x02) }); // OCIE0A
    tc0.tccr0b().write(|w| unsafe { w.bits(0x05) }); // clk/1024, start
}

/// Fast-task ticks since boot (25 ms each), wrapping at 16 bits.
pub fn ticks() -> u16 {
    interrupt::free(|cs| TICKS.borrow(cs).get())
}

/// Milliseconds since boot (wrapping), in steps of one tick.
#[inline(always)]
pub fn ms() -> u32 {
    interrupt::free(|cs| MS.borrow(cs).get())
}

#[avr_device::interrupt(atmega644)]
fn TIMER0_COMPA() {
    // Handlers run with interrupts disabled; the critical section only
    // satisfies the Mutex API.
    interrupt::free(|cs| {
        let t = TICKS.borrow(cs).get().wrapping_add(1);
        TICKS.borrow(cs).set(t);
        let ms = MS.borrow(cs);
        ms.set(ms.get().wrapping_add(FAST_TASK_MS));
        // Choose the length of the period that starts now: 5 long in 16,
        // spread out (Bresenham) so no two long ones are adjacent.
        let phase = (t % 16) as u8;
        let long = (phase * LONG_PER_16) % 16 < LONG_PER_16;
        // SAFETY: TC0 is only touched here after start(); any OCR0A is valid.
        let tc0 = unsafe { &*TC0::ptr() };
        tc0.ocr0a().write(|w| unsafe { w.bits(if long { WHOLE } else { WHOLE - 1 }) });
    });
    // The I/O work of the fast task: a few hundred cycles at most. The key
    // decoder and the player's step are calls, made only when a key is
    // down (or just released) or a sound plays: inlined, their registers
    // were saved at every tick; an idle tick took 196 cycles, now about
    // 135 (`bench engine` 0.03% fewer cycles, +28 B).
    super::buttons::scan();
    super::buzzer::tick();
}

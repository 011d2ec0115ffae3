//! The hardware layer: everything that touches the ATmega644's registers.
//!
//! Who runs where:
//! * the 25 ms fast task (Timer0 interrupt) samples the buttons, counts the
//!   buzzer's note durations and the tick clock;
//! * the USART interrupts move bytes between the UART and two rings;
//! * everything slow (LCD with its busy-flag polling, EEPROM writes) runs in
//!   the background with interrupts enabled, so no handler is ever delayed
//!   by more than a few critical sections of a few dozen cycles.
//!
//! Reserved: GPIOR0..GPIOR2 are the swap-off's scratch
//! (`engine::see::least_attacker`, between instructions of the search), so
//! no driver or interrupt handler here may use them.

pub mod buttons;
pub mod buzzer;
pub mod eeprom;
pub mod fast_task;
pub mod gpio;
pub mod lcd;
pub mod pins;
pub mod serial;

use core::cell::UnsafeCell;

/// State shared between interrupt handlers and the background, accessed only
/// inside a critical section.
pub struct Shared<T>(UnsafeCell<T>);

// SAFETY: every access goes through `with`, which runs with interrupts
// disabled on this single-core CPU, so there is never a concurrent access.
unsafe impl<T: Send> Sync for Shared<T> {}

impl<T> Shared<T> {
    pub const fn new(value: T) -> Self {
        Shared(UnsafeCell::new(value))
    }

    /// Runs `f` on the value with interrupts disabled (a no-op inside a
    /// handler, where they already are). `f` must not call `with` on the same
    /// cell; the closures in this layer are plain data operations.
    #[inline(always)]
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        // SAFETY: interrupts are off for the whole call and `f` does not
        // re-enter this cell, so this is the only reference.
        avr_device::interrupt::free(|_| f(unsafe { &mut *self.0.get() }))
    }
}

/// Stops the CPU for good: interrupts off, then sleep (the emulator's
/// "program finished" convention, and the safest state for a real board).
pub fn halt() -> ! {
    avr_device::interrupt::disable();
    // Silence the buzzer so a crash does not leave a tone running.
    buzzer::silence();
    loop {
        avr_device::asm::sleep();
    }
}

/// Waits for the next interrupt in idle sleep mode (timers and the USART
/// keep running), unless `work_pending` says there is something to do.
///
/// `work_pending` is evaluated with interrupts disabled and the sleep is
/// entered with `sei; sleep` (the instruction after `sei` always executes
/// before any interrupt), so an interrupt that queues work just before the
/// sleep cannot be missed and leave the background asleep until the next one.
pub fn sleep_unless(work_pending: impl FnOnce() -> bool) {
    avr_device::interrupt::disable();
    if work_pending() {
        // SAFETY: the background always runs with interrupts enabled.
        unsafe { avr_device::interrupt::enable() };
        return;
    }
    // SAFETY: SMCR is a plain configuration register: SE=1, SM=idle.
    let cpu = unsafe { &*avr_device::atmega644::CPU::ptr() };
    cpu.smcr().write(|w| unsafe { w.bits(0x01) });
    // SAFETY: re-enables interrupts exactly as the background had them.
    unsafe { core::arch::asm!("sei", "sleep") };
    cpu.smcr().write(|w| unsafe { w.bits(0x00) });
}

/// Waits for the next interrupt in idle sleep mode.
pub fn background_idle() {
    sleep_unless(|| false);
}

/// Busy-waits at least `us` microseconds (longer if interrupted).
#[inline(always)]
pub fn delay_us(us: u32) {
    avr_device::asm::delay_cycles(us * (firmware::board::CPU_HZ / 1_000_000));
}

/// Busy-waits at least `ms` milliseconds (longer if interrupted).
pub fn delay_ms(ms: u16) {
    for _ in 0..ms {
        delay_us(1000);
    }
}

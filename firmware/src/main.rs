//! The AVR image: boots the board and runs the fast task and background loop.
//!
//! avr-libc's start-up code (linked by avr-gcc) sets the stack pointer to
//! RAMEND, copies `.data` from flash and clears `.bss` before `main` runs.
#![no_std]
#![no_main]
#![feature(abi_avr_interrupt)]

mod hw;

use avr_device::atmega644 as pac;

#[avr_device::entry]
fn main() -> ! {
    // `take` only fails if called twice; there is nothing sensible to do then.
    let Some(dp) = pac::Peripherals::take() else { hw::halt() };
    hw::pins::init(&dp);
    hw::fast_task::start(&dp);
    // SAFETY: everything the interrupt handlers touch is initialised above.
    unsafe { avr_device::interrupt::enable() };
    loop {
        hw::background_idle();
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    hw::halt()
}

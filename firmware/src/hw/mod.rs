//! The hardware layer: everything that touches the ATmega644's registers.

pub mod fast_task;
pub mod pins;

/// Stops the CPU for good: interrupts off, then sleep (the emulator's
/// "program finished" convention, and the safest state for a real board).
pub fn halt() -> ! {
    avr_device::interrupt::disable();
    loop {
        avr_device::asm::sleep();
    }
}

/// Waits for the next interrupt in idle sleep mode, where timers keep running.
pub fn background_idle() {
    // SAFETY: SMCR is a plain configuration register: SE=1, SM=idle.
    let cpu = unsafe { &*avr_device::atmega644::CPU::ptr() };
    cpu.smcr().write(|w| unsafe { w.bits(0x01) });
    avr_device::asm::sleep();
    cpu.smcr().write(|w| unsafe { w.bits(0x00) });
}

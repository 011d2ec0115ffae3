//! USART0 at 38400 baud, 8N1, interrupt driven in both directions.
//!
//! Receive: the RX-complete handler moves each byte into a 128-byte ring;
//! it is a few dozen cycles, and no other handler or critical section
//! comes near the ~2,000 cycles a byte takes at 38400 baud, so nothing is
//! lost while the background writes the LCD or the EEPROM. A byte received
//! with a framing or parity error, a hardware overrun, or a full ring is
//! reported in-band as `line::LOST` (NUL) at that position, which
//! `line::LineAssembler` rejects as garbage, so the damaged line is reported
//! as an error instead of being taken for a command (`line::RxQueue`).
//!
//! Transmit: `write_bytes` fills a 64-byte ring, drained by the UDRE handler.

use super::Shared;
use avr_device::atmega644::{Peripherals, USART0};
use avr_device::interrupt;
use firmware::board::{CPU_HZ, SERIAL_BAUD};
use firmware::line::RxQueue;
use firmware::progmem::Table;
use firmware::ring::Ring;

/// UBRR0 for double speed (U2X0 = 1): f / (8 * baud) - 1, rounded.
const UBRR: u16 = ((CPU_HZ + 4 * SERIAL_BAUD) / (8 * SERIAL_BAUD) - 1) as u16;
const ACTUAL_BAUD: u32 = CPU_HZ / (8 * (UBRR as u32 + 1));
const _: () = assert!(UBRR == 25, "38400 baud at 8 MHz is UBRR0 = 25 with U2X0");
const _: () = assert!(ACTUAL_BAUD.abs_diff(SERIAL_BAUD) * 100 < SERIAL_BAUD, "baud error over 1%");

// UCSR0A
const UDRE0: u8 = 1 << 5;
const FE0: u8 = 1 << 4;
const DOR0: u8 = 1 << 3;
const UPE0: u8 = 1 << 2;
const U2X0: u8 = 1 << 1;
// UCSR0B
const RXCIE0: u8 = 1 << 7;
const UDRIE0: u8 = 1 << 5;
const RXEN0: u8 = 1 << 4;
const TXEN0: u8 = 1 << 3;
// UCSR0C: asynchronous, no parity, 1 stop bit, 8 data bits.
const MODE_8N1: u8 = 0x06;

pub const RX_SIZE: usize = 128;
pub const TX_SIZE: usize = 64;

static RX: Shared<RxQueue<RX_SIZE>> = Shared::new(RxQueue::new());
static TX: Shared<Ring<u8, TX_SIZE>> = Shared::new(Ring::new(0));

fn usart() -> &'static avr_device::atmega644::usart0::RegisterBlock {
    // SAFETY: USART0 belongs to this module; UCSR0B is only modified inside
    // critical sections (handlers, or `interrupt::free` below).
    unsafe { &*USART0::ptr() }
}

pub fn init(dp: &Peripherals) {
    let u = &dp.USART0;
    // SAFETY (all writes): documented USART0 values.
    u.ucsr0b().write(|w| unsafe { w.bits(0) });
    u.ubrr0().write(|w| unsafe { w.bits(UBRR) });
    u.ucsr0a().write(|w| unsafe { w.bits(U2X0) });
    u.ucsr0c().write(|w| unsafe { w.bits(MODE_8N1) });
    u.ucsr0b().write(|w| unsafe { w.bits(RXCIE0 | RXEN0 | TXEN0) });
}

/// The next received byte (`line::LOST` marks damaged or dropped input).
pub fn read_byte() -> Option<u8> {
    RX.with(|rx| rx.pop())
}

/// True while received bytes are waiting.
pub fn rx_pending() -> bool {
    RX.with(|rx| !rx.is_empty())
}

/// Damaged or dropped bytes since the last call.
pub fn take_errors() -> u8 {
    RX.with(|rx| rx.take_errors())
}

/// Queues one byte, waiting for room in the transmit ring.
pub fn write_byte(b: u8) {
    loop {
        // One critical section for the push and UDRIE0, so the UDRE handler
        // cannot disable itself between them.
        let queued = interrupt::free(|_| {
            let ok = TX.with(|tx| tx.push(b));
            if ok {
                // SAFETY: RMW of UCSR0B with interrupts off.
                usart().ucsr0b().modify(|r, w| unsafe { w.bits(r.bits() | UDRIE0) });
            }
            ok
        });
        if queued {
            return;
        }
        if !interrupt::is_enabled() {
            // The UDRE handler cannot run: make room by hand.
            send_one_polled();
        }
    }
}

/// Queues `bytes`, waiting for room as needed.
pub fn write_bytes(bytes: &[u8]) {
    for &b in bytes {
        write_byte(b);
    }
}

/// Queues a flash string.
pub fn write_flash<const N: usize>(s: &Table<u8, N>) {
    for i in 0..N {
        write_byte(s.get(i));
    }
}

/// Queues `n` in decimal.
pub fn write_u32(mut n: u32) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    write_bytes(&digits[i..]);
}

/// True while bytes are still queued for transmission.
pub fn tx_busy() -> bool {
    TX.with(|tx| !tx.is_empty())
}

/// With interrupts disabled: waits for UDR0 to be free and sends one
/// queued byte.
fn send_one_polled() {
    let u = usart();
    while u.ucsr0a().read().bits() & UDRE0 == 0 {}
    if let Some(b) = TX.with(|tx| tx.pop()) {
        // SAFETY: UDR0 accepts any byte when UDRE0 is set.
        u.udr0().write(|w| unsafe { w.bits(b) });
    }
}

#[avr_device::interrupt(atmega644)]
fn USART0_RX() {
    let u = usart();
    // UCSR0A's error flags belong to the byte in UDR0: read them first.
    let status = u.ucsr0a().read().bits();
    let data = u.udr0().read().bits();
    RX.with(|rx| rx.receive(data, status & (FE0 | UPE0) != 0, status & DOR0 != 0));
}

#[avr_device::interrupt(atmega644)]
fn USART0_UDRE() {
    let u = usart();
    match TX.with(|tx| tx.pop()) {
        // SAFETY: UDR0 is empty (that is why this handler runs).
        Some(b) => {
            u.udr0().write(|w| unsafe { w.bits(b) });
        }
        // SAFETY: RMW of UCSR0B inside the handler (interrupts off).
        None => {
            u.ucsr0b().modify(|r, w| unsafe { w.bits(r.bits() & !UDRIE0) });
        }
    }
}

//! USART0 at 125,000 baud, 8N1, interrupt driven in both directions.
//!
//! Receive: the RX-complete handler moves each byte into a 128-byte ring;
//! it is a few dozen cycles, and no other handler or critical section
//! keeps interrupts off for the 640 cycles a byte takes at 125,000 baud
//! (the longest, the fast task's with a key down, 498: board-sim's
//! `interrupts_are_never_off_for_a_serial_frame`), while the receiver
//! holds two bytes and a third in its shift register, so nothing is lost
//! while the background writes the LCD or the EEPROM. A byte received
//! with a framing or parity error, a hardware overrun, or a full ring is
//! reported in-band as `line::LOST` (NUL) at that position, which
//! `line::LineAssembler` rejects as garbage, so the damaged line is reported
//! as an error instead of being taken for a command (`line::RxQueue`).
//!
//! Transmit: `write_raw` fills a 128-byte ring, drained by the UDRE handler.
//! One writer for each end (the background pushes, the handler pops), each
//! index a byte that only its side writes: a push needs no critical section
//! but for UDRIE0.

use super::Shared;
use avr_device::atmega644::{Peripherals, USART0};
use avr_device::interrupt;
use core::cell::UnsafeCell;
use core::ptr::{read_volatile, write_volatile};
use firmware::board::{CPU_HZ, SERIAL_BAUD};
use firmware::line::RxQueue;
use firmware::progmem::Table;

/// UBRR0 for double speed (U2X0 = 1): f / (8 * baud) - 1, rounded.
const UBRR: u16 = ((CPU_HZ + 4 * SERIAL_BAUD) / (8 * SERIAL_BAUD) - 1) as u16;
const ACTUAL_BAUD: u32 = CPU_HZ / (8 * (UBRR as u32 + 1));
const _: () = assert!(UBRR == 7, "125,000 baud at 8 MHz is UBRR0 = 7 with U2X0");
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
/// Bytes the transmit ring holds: a whole `info` line (at most 96 bytes,
/// `protocol::info`), so that the search goes on while it is sent instead
/// of waiting for the UART. (64 bytes: `bench engine` 0.33% more cycles.)
/// 128: the lines of depths 1 and 2 (61 + 66 bytes and so on), often
/// queued within one line's transmission, both fit; with 96 the second
/// waited for about 30 bytes to leave (`bench engine` 0.07% more cycles,
/// 112 bytes 0.03%; 240 bytes only 0.02% fewer than 128).
pub const TX_SIZE: usize = 128;

static RX: Shared<RxQueue<RX_SIZE>> = Shared::new(RxQueue::new());
static TX: TxRing = TxRing { buf: UnsafeCell::new([0; TX_CELLS]), head: UnsafeCell::new(0), tail: UnsafeCell::new(0) };

/// One cell more than the ring holds: a full ring's `head` stops one
/// short of `tail`.
const TX_CELLS: usize = TX_SIZE + 1;
const _: () = assert!(TX_CELLS <= 255);

/// The cell after `i`.
#[inline(always)]
fn tx_next(i: u8) -> u8 {
    if i == TX_CELLS as u8 - 1 {
        0
    } else {
        i + 1
    }
}

/// The transmit ring: `head` the cell the next byte goes to, written by the
/// background only; `tail` the next byte's to leave, written by the UDRE
/// handler (or `send_one_polled`, with interrupts off) only. Byte stores are atomic,
/// and volatile accesses keep their order: a byte is in `buf` before
/// `head` shows it, and out of it before `tail` frees its cell. (Pushing
/// in a critical section, `write_byte` cost about 60 cycles a byte.)
#[repr(C)] // the UDRE handler's assembly addresses the fields
struct TxRing {
    buf: UnsafeCell<[u8; TX_CELLS]>,
    head: UnsafeCell<u8>,
    tail: UnsafeCell<u8>,
}

// SAFETY: see `TxRing`: each cell has one writer, and each side reads the
// other's index whole (one byte) before it touches `buf`.
unsafe impl Sync for TxRing {}

impl TxRing {
    #[inline(always)]
    fn head(&self) -> u8 {
        // SAFETY: a byte read (see `TxRing`).
        unsafe { read_volatile(self.head.get()) }
    }

    #[inline(always)]
    fn tail(&self) -> u8 {
        // SAFETY: a byte read (see `TxRing`).
        unsafe { read_volatile(self.tail.get()) }
    }

    /// The oldest byte, taken out. Only the handler, or the background with
    /// interrupts off.
    #[inline(always)]
    fn pop(&self) -> Option<u8> {
        let tail = self.tail();
        if tail == self.head() {
            return None;
        }
        // SAFETY: the cell below `head` is written and stays so until
        // `tail` passes it, which only this side does.
        unsafe {
            let b = read_volatile((self.buf.get() as *const u8).add(tail as usize));
            write_volatile(self.tail.get(), tx_next(tail));
            Some(b)
        }
    }
}

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
    let head = TX.head();
    let next = tx_next(head);
    while TX.tail() == next {
        if !interrupt::is_enabled() {
            // The UDRE handler cannot run: make room by hand.
            send_one_polled();
        }
    }
    // SAFETY: the cell at `head` is free (the test above) and only the
    // background writes it; then `head` publishes it.
    unsafe {
        write_volatile((TX.buf.get() as *mut u8).add(head as usize), b);
        write_volatile(TX.head.get(), next);
    }
    enable_udre();
}

/// Lets the UDRE handler send what the ring holds.
#[inline(always)]
fn enable_udre() {
    // SAFETY: RMW of UCSR0B with interrupts off (the handler clears
    // UDRIE0 on an empty ring: here it is set after the bytes are in).
    interrupt::free(|_| usart().ucsr0b().modify(|r, w| unsafe { w.bits(r.bits() | UDRIE0) }));
}

/// Queues the `n` bytes at `p`, from flash if `flash`, else from RAM,
/// waiting for room as needed: in runs as long as the free cells allow
/// up to the ring's end, each copied by a 4-instruction loop (8 cycles a
/// byte), and `head` and UDRIE0 written once a run. An `info` line goes
/// out in about 15 pieces (texts, numbers, moves); a byte each through
/// [`write_byte`] cost about 50 cycles besides the handler's, and this
/// loop compiled from Rust about 40.
///
/// # Safety
/// `p..p + n` must be readable: in flash (a `.progmem` static) if `flash`.
#[inline(never)]
pub unsafe fn write_raw(mut p: *const u8, mut n: usize, flash: bool) {
    while n != 0 {
        let head = TX.head();
        let tail = TX.tail();
        let run = firmware::ring::free_run(head, tail, TX_CELLS as u8);
        if run == 0 {
            // Full: the handler must run (it may have stopped on an empty
            // ring before this text), or room be made by hand.
            enable_udre();
            while TX.tail() == tail {
                if !interrupt::is_enabled() {
                    send_one_polled();
                }
            }
            continue;
        }
        let k = if n < run as usize { n as u8 } else { run };
        n -= k as usize;
        let mut dst = (TX.buf.get() as *mut u8).add(head as usize);
        // SAFETY: `k` (>= 1) free cells at `dst`, which only the
        // background writes; `k` bytes at `p` (the caller's promise).
        core::arch::asm!(
            "tst {f}",
            "breq 2f",
            "1: lpm {b}, Z+",
            "st X+, {b}",
            "dec {k}",
            "brne 1b",
            "rjmp 3f",
            "2: ld {b}, Z+",
            "st X+, {b}",
            "dec {k}",
            "brne 2b",
            "3:",
            f = in(reg) flash as u8,
            k = inout(reg) k => _,
            b = out(reg) _,
            inout("Z") p,
            inout("X") dst,
            options(nostack),
        );
        let _ = dst;
        // Then `head` shows them (as in `write_byte`).
        let h = head + k;
        write_volatile(TX.head.get(), if h == TX_CELLS as u8 { 0 } else { h });
    }
    enable_udre();
}

/// Queues `bytes`, waiting for room as needed.
pub fn write_bytes(bytes: &[u8]) {
    // SAFETY: a slice in RAM.
    unsafe { write_raw(bytes.as_ptr(), bytes.len(), false) }
}

/// Queues a flash string.
pub fn write_flash<const N: usize>(s: &Table<u8, N>) {
    // SAFETY: a `Table` is a `.progmem` static.
    unsafe { write_raw(s as *const Table<u8, N> as *const u8, N, true) }
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
    TX.head() != TX.tail()
}

/// With interrupts disabled: waits for UDR0 to be free and sends one
/// queued byte.
fn send_one_polled() {
    let u = usart();
    while u.ucsr0a().read().bits() & UDRE0 == 0 {}
    if let Some(b) = TX.pop() {
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

// The UDRE handler: `TX.pop()` into UDR0, or UDRIE0 cleared on an empty
// ring. In assembly: the compiler's handler saved r0 and r1 and 4 more
// registers, about 57 cycles a byte sent (`bench engine` sends 15,900).
// Three registers and SREG: 47 cycles a byte with a fourth (r25 for the
// byte and `head`) and `buf + tail` by an add and a carry branch, 42 now
// (`bench engine` 0.03% fewer cycles).
// The vector's name is a bare label: the handler's function symbol is
// `usart0_udre`, so the timer's stays the first `__vector_` function
// (board-sim's breakpoint test stops at that one).
core::arch::global_asm!(
    ".pushsection .text.__vector_21,\"ax\",@progbits",
    ".type usart0_udre, @function",
    ".globl __vector_21",
    "__vector_21:",
    "usart0_udre:",
    "    push r24",
    "    in r24, 0x3f",
    "    push r24",
    "    push r30",
    "    push r31",
    "    lds r24, {tx}+{tail}",
    "    lds r30, {tx}+{head}",
    "    cp r24, r30",
    "    breq 3f",
    // Z = buf + tail, the 16-bit sum as a subtraction of -buf; the byte
    // then loaded into r30 itself (allowed without an increment).
    "    mov r30, r24",
    "    ldi r31, 0",
    "    subi r30, lo8(-({tx}+{buf}))",
    "    sbci r31, hi8(-({tx}+{buf}))",
    "    ld r30, Z",
    "    sts {udr0}, r30",
    "    inc r24",
    "    cpi r24, {cells}",
    "    brne 2f",
    "    ldi r24, 0",
    "2:  sts {tx}+{tail}, r24",
    "4:  pop r31",
    "    pop r30",
    "    pop r24",
    "    out 0x3f, r24",
    "    pop r24",
    "    reti",
    "3:  lds r24, {ucsr0b}",
    "    andi r24, {not_udrie0}",
    "    sts {ucsr0b}, r24",
    "    rjmp 4b",
    ".size usart0_udre, . - usart0_udre",
    ".popsection",
    tx = sym TX,
    buf = const core::mem::offset_of!(TxRing, buf),
    head = const core::mem::offset_of!(TxRing, head),
    tail = const core::mem::offset_of!(TxRing, tail),
    cells = const TX_CELLS,
    udr0 = const 0xC6,
    ucsr0b = const 0xC1,
    not_udrie0 = const !UDRIE0,
);

//! USART0 on the real core: a polled echo program at 38400 baud (8 MHz,
//! UBRR0 = 12: 208 cycles a bit, 2080 a frame).

mod common;

use emulator::periph::Usart;
use emulator::RunLimit;

const ECHO: &str = "
    ldi r16, 12
    sts 0xC4, r16      ; UBRR0L
    ldi r16, 0x18
    sts 0xC1, r16      ; UCSR0B: RXEN0 | TXEN0
loop:
    lds r17, 0xC0      ; UCSR0A
    sbrs r17, 7        ; RXC0
    rjmp loop
    lds r18, 0xC6      ; UDR0
wait:
    lds r17, 0xC0
    sbrs r17, 5        ; UDRE0
    rjmp wait
    sts 0xC6, r18
    rjmp loop
";

const FRAME: u64 = 2080;

#[test]
fn echo_program_returns_every_byte() {
    let mut avr = common::machine(ECHO);
    avr.run(RunLimit::UntilCycle(1000));
    let now = avr.cycles();
    avr.peripheral_mut::<Usart>().unwrap().host_send(now, b"hello, world");
    assert_eq!(avr.peripheral::<Usart>().unwrap().host_pending_rx(), 12);
    // The first byte is received after one frame and echoed one frame later
    // (plus at most a bit time to reach the transmitter's bit clock edge).
    avr.run(RunLimit::UntilCycle(now + 2 * FRAME - 1));
    assert!(avr.peripheral_mut::<Usart>().unwrap().host_take().is_empty());
    avr.run(RunLimit::UntilCycle(now + 2 * FRAME + 208 + 20));
    assert_eq!(avr.peripheral_mut::<Usart>().unwrap().host_take(), b"h");
    avr.run(RunLimit::UntilCycle(now + 14 * FRAME));
    assert_eq!(avr.peripheral_mut::<Usart>().unwrap().host_take(), b"ello, world");
    assert_eq!(avr.peripheral::<Usart>().unwrap().host_pending_rx(), 0);
    assert!(avr.warnings().is_empty(), "{:?}", avr.warnings());
}

#[test]
fn bytes_sent_before_the_receiver_is_enabled_are_dropped_with_a_warning() {
    let mut avr = common::machine("loop: rjmp loop");
    avr.peripheral_mut::<Usart>().unwrap().host_send(0, b"x");
    avr.run(RunLimit::UntilCycle(100));
    assert!(avr.warnings().iter().any(|w| w.source == "USART0" && w.message.contains("RXEN")), "{:?}", avr.warnings());
}

//! Timer/Counter0 on the real core: CTC interrupt and OC0A toggling at
//! exact cycles. The prescaler runs freely from reset (cycle 0), so clk/8
//! edges fall on multiples of 8 whatever cycle the program starts it at.

mod common;

use emulator::{RunLimit, Stop};

const TIMER0_COMPA: u64 = 16;

/// CTC with OCR0A = 99 at clk/8: TCNT0 sits at 99 after the edge at 800,
/// so OCF0A is set on the edge at 808 and every 800 cycles after.
const SETUP: &str = "
    ldi r16, 99
    out 0x27, r16      ; OCR0A
    ldi r16, 0x08
    out 0x04, r16      ; DDRB: PB3 (OC0A) output
    ldi r16, 0x42
    out 0x24, r16      ; TCCR0A: toggle OC0A, CTC
    ldi r16, 0x02
    sts 0x6E, r16      ; TIMSK0: OCIE0A
    out 0x25, r16      ; TCCR0B: clk/8
";

#[test]
fn ctc_flag_and_oc0a_toggle_at_exact_cycles() {
    let mut avr = common::machine(&format!("{SETUP}\nloop: rjmp loop"));
    avr.run(RunLimit::UntilCycle(800));
    assert!(avr.cycles() < 808, "{}", avr.cycles());
    assert_eq!(avr.pending_interrupts() & (1 << TIMER0_COMPA), 0);
    avr.run(RunLimit::UntilCycle(2500));
    assert_ne!(avr.pending_interrupts() & (1 << TIMER0_COMPA), 0, "I is clear: the request stays pending");
    let toggles: Vec<(u64, u8)> = avr.drain_pin_events().iter().filter(|e| e.port == 1).map(|e| (e.cycle, e.levels)).collect();
    assert_eq!(toggles, vec![(808, 0x08), (1608, 0x00), (2408, 0x08)]);
    assert!(avr.warnings().is_empty(), "{:?}", avr.warnings());
}

#[test]
fn ctc_interrupt_handler_runs_once_per_period() {
    let src = format!(
        "
        jmp start
        .org 0x40          ; vector 16: TIMER0_COMPA
        jmp isr
    start:
        clr r20
        {SETUP}
        sei
    loop:
        rjmp loop
    isr:
        inc r20
        reti
    "
    );
    let mut avr = common::machine(&src);
    let isr = (0..0x80).find(|&pc| avr.disassemble(pc).starts_with("inc")).expect("isr");
    avr.add_breakpoint(isr);
    let mut entries = vec![];
    for _ in 0..3 {
        match avr.run(RunLimit::UntilCycle(10_000)) {
            Stop::Breakpoint(pc) => assert_eq!(pc, isr),
            other => panic!("{other:?}"),
        }
        entries.push(avr.cycles());
    }
    // Entered a fixed latency after the flag, exactly one period apart.
    assert!((808..808 + 12).contains(&entries[0]), "{entries:?}");
    assert_eq!(entries[1] - entries[0], 800);
    assert_eq!(entries[2] - entries[1], 800);
    assert_eq!(avr.reg(20), 2);
    assert_eq!(avr.read_data(0x35).unwrap() & 0x02, 0, "interrupt entry cleared OCF0A");
}

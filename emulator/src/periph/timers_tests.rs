//! Timer tests at chosen cycles: the reset prescaler phase is cycle 0.

use super::*;
use crate::periph::atmega644::TIMERS;
use crate::periph::bench::Bench;
use crate::peripheral::{PinEvent, Sleep};

const TCCR0A: u16 = 0x44;
const TCCR0B: u16 = 0x45;
const TCNT0: u16 = 0x46;
const OCR0A: u16 = 0x47;
const OCR0B: u16 = 0x48;
const TIMSK0: u16 = 0x6E;
const TIFR0: u16 = 0x35;
const GTCCR: u16 = 0x43;
const TCCR1A: u16 = 0x80;
const TCCR1B: u16 = 0x81;
const TCCR1C: u16 = 0x82;
const TCNT1L: u16 = 0x84;
const TCNT1H: u16 = 0x85;
const ICR1L: u16 = 0x86;
const ICR1H: u16 = 0x87;
const OCR1AL: u16 = 0x88;
const OCR1AH: u16 = 0x89;
const TIMSK1: u16 = 0x6F;
const TIFR1: u16 = 0x36;
const TCCR2B: u16 = 0xB1;
const TCNT2: u16 = 0xB2;
const TIMSK2: u16 = 0x70;
const ASSR: u16 = 0xB6;
const TIMER0_COMPA: u8 = 16;
const TIMER0_OVF: u8 = 18;
const TIMER1_CAPT: u8 = 12;
const TIMER1_COMPA: u8 = 13;
const TIMER2_OVF: u8 = 11;
const PORT_B: usize = 1;
const PORT_D: usize = 3;

fn setup() -> (Timers, Bench) {
    let mut t = Timers::new(&TIMERS);
    let mut b = Bench::new();
    b.reset(&mut t);
    (t, b)
}

#[test]
fn tc0_ctc_interrupt_at_the_exact_cycle() {
    let (mut t, mut b) = setup();
    b.write(&mut t, 10, OCR0A, 99);
    b.write(&mut t, 11, TIMSK0, 0x02);
    b.write(&mut t, 12, TCCR0A, 0x02); // CTC
    b.write(&mut t, 12, TCCR0B, 0x02); // clk/8: edges at 16, 24, ...
    // TCNT0 = 99 after the edge at 800; OCF0A on the edge leaving it.
    assert_eq!(b.first_irq(&mut t, TIMER0_COMPA, 10_000), Some(808));
    assert_eq!(b.read(&mut t, 808, TCNT0), 0);
    b.write(&mut t, 820, TIFR0, 0x02);
    assert!(!b.irq(TIMER0_COMPA));
    assert_eq!(b.first_irq(&mut t, TIMER0_COMPA, 10_000), Some(1608));
    // The CPU entering the vector clears the flag.
    t.acknowledge(TIMER0_COMPA, &mut b.cx(1610));
    assert!(!b.irq(TIMER0_COMPA));
    assert_eq!(t.peek(TIFR0) & 0x02, 0);
}

#[test]
fn tc0_overflow_and_lazy_count() {
    let (mut t, mut b) = setup();
    b.write(&mut t, 0, TIMSK0, 0x01);
    b.write(&mut t, 100, TCCR0B, 0x01); // clk/1
    assert_eq!(b.read(&mut t, 200, TCNT0), 100);
    assert_eq!(b.first_irq(&mut t, TIMER0_OVF, 1000), Some(356));
    // OCR0A/B = 0 matched on the way too.
    assert_eq!(b.read(&mut t, 356, TIFR0), 0x07);
    // Flag still set: nothing else to wake for.
    assert_eq!(b.next, crate::peripheral::NEVER);
}

#[test]
fn prescaler_is_free_running_and_gtccr_restarts_it() {
    let (mut t, mut b) = setup();
    b.write(&mut t, 100, TCCR0B, 0x03); // clk/64: edges at 128, 192...
    assert_eq!(b.read(&mut t, 127, TCNT0), 0);
    assert_eq!(b.read(&mut t, 128, TCNT0), 1);
    b.write(&mut t, 150, GTCCR, 0x01); // PSRSYNC: edges now at 214, 278...
    assert_eq!(t.peek(GTCCR), 0);
    assert_eq!(b.read(&mut t, 213, TCNT0), 1);
    assert_eq!(b.read(&mut t, 214, TCNT0), 2);
    // TSM holds the prescaler in reset until TSM is cleared.
    b.write(&mut t, 300, GTCCR, 0x81);
    assert_eq!(t.peek(GTCCR), 0x81);
    assert_eq!(b.read(&mut t, 1000, TCNT0), 3);
    b.write(&mut t, 1000, GTCCR, 0x00);
    assert_eq!(b.read(&mut t, 1063, TCNT0), 3);
    assert_eq!(b.read(&mut t, 1064, TCNT0), 4);
}

#[test]
fn tcnt_written_while_stopped_keeps_its_value_and_blocks_one_compare() {
    let (mut t, mut b) = setup();
    b.write(&mut t, 5, TCNT0, 42);
    assert_eq!(b.read(&mut t, 5000, TCNT0), 42);
    b.write(&mut t, 5000, OCR0A, 42);
    b.write(&mut t, 5001, TCCR0B, 0x01);
    // The edge at 5002 leaves 42 but is the first after the write: blocked.
    assert_eq!(b.read(&mut t, 5010, TIFR0) & 0x02, 0);
    // The next pass: 42 again after 256 edges.
    b.write(&mut t, 5010, TIMSK0, 0x02);
    assert_eq!(b.first_irq(&mut t, TIMER0_COMPA, 20_000), Some(5002 + 256));
}

#[test]
fn oc0a_toggles_the_pin_in_ctc_mode() {
    let (mut t, mut b) = setup();
    b.pins.ddr[PORT_B] = 0x08; // DDB3: OC0A is an output
    b.write(&mut t, 0, OCR0A, 9);
    b.write(&mut t, 0, TCCR0A, 0x42); // COM0A = toggle, CTC
    b.write(&mut t, 0, TCCR0B, 0x01);
    b.run(&mut t, 100);
    let toggles: Vec<u64> = b.pins.events.iter().filter(|e| e.port == PORT_B).map(|e| e.cycle).collect();
    assert_eq!(toggles, vec![10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    // FOC0A toggles once more without a flag.
    b.write(&mut t, 105, TCCR0B, 0x81);
    assert_eq!(b.pins.events.last(), Some(&PinEvent { cycle: 105, port: PORT_B, levels: 0x08, changed: 0x08 }));
    // Without DDB3 the pin is not driven, as on silicon.
    b.pins.ddr[PORT_B] = 0;
    assert_eq!(b.pins.level(PORT_B), 0);
}

#[test]
fn fast_pwm_duty_cycle_and_buffered_ocr() {
    let (mut t, mut b) = setup();
    b.pins.ddr[PORT_B] = 0x10; // OC0B
    b.write(&mut t, 0, OCR0B, 63);
    b.write(&mut t, 0, TCCR0A, 0x23); // COM0B = non-inverting, fast PWM
    b.write(&mut t, 0, TCCR0B, 0x01);
    b.run(&mut t, 600);
    let ev: Vec<(u64, u8)> = b.pins.events.iter().map(|e| (e.cycle, e.levels)).collect();
    // High from BOTTOM (edge at 256) for 64 counts.
    assert_eq!(ev, vec![(256, 0x10), (320, 0x00), (512, 0x10), (576, 0x00)]);
    // A new OCR0B only takes effect at BOTTOM.
    b.write(&mut t, 600, OCR0B, 127);
    assert_eq!(t.peek(OCR0B), 127);
    b.run(&mut t, 1100);
    let ev: Vec<(u64, u8)> = b.pins.events.iter().skip(4).map(|e| (e.cycle, e.levels)).collect();
    assert_eq!(ev, vec![(768, 0x10), (896, 0x00), (1024, 0x10)]);
}

#[test]
fn phase_correct_overflow_period_is_510_clocks() {
    let (mut t, mut b) = setup();
    b.write(&mut t, 0, TIMSK0, 0x01);
    b.write(&mut t, 0, TCCR0A, 0x01); // PWM phase correct, TOP = 0xFF
    b.write(&mut t, 0, TCCR0B, 0x01);
    // Leaves BOTTOM on the first edge already.
    assert_eq!(b.first_irq(&mut t, TIMER0_OVF, 100), Some(1));
    b.write(&mut t, 2, TIFR0, 0x01);
    assert_eq!(b.first_irq(&mut t, TIMER0_OVF, 1000), Some(511));
    // 1 after the edge at 511, TOP at 765, then down.
    assert_eq!(b.read(&mut t, 511 + 300, TCNT0), 255 - 46);
}

#[test]
fn tc1_temp_register_and_ctc_on_ocr1a() {
    let (mut t, mut b) = setup();
    b.write(&mut t, 0, OCR1AH, 0x01);
    assert_eq!(t.peek(OCR1AL), 0, "high byte alone goes to TEMP");
    b.write(&mut t, 0, OCR1AL, 0x2C); // 300
    assert_eq!((t.peek(OCR1AH), t.peek(OCR1AL)), (0x01, 0x2C));
    b.write(&mut t, 0, TIMSK1, 0x02);
    b.write(&mut t, 0, TCCR1B, 0x09); // CTC (WGM12), clk/1
    assert_eq!(b.first_irq(&mut t, TIMER1_COMPA, 10_000), Some(301));
    // Low byte first latches the high byte.
    let lo = b.read(&mut t, 301 + 290, TCNT1L);
    let hi = b.read(&mut t, 301 + 300, TCNT1H);
    assert_eq!((hi, lo), (0x01, 0x22));
    b.write(&mut t, 700, TCNT1H, 0x12);
    b.write(&mut t, 700, TCNT1L, 0x34);
    b.write(&mut t, 700, TCCR1B, 0x08); // stop
    assert_eq!(b.read(&mut t, 800, TCNT1L), 0x34);
    assert_eq!(b.read(&mut t, 800, TCNT1H), 0x12);
}

#[test]
fn tc1_ctc_on_icr1_sets_icf1_and_capture_works() {
    let (mut t, mut b) = setup();
    b.write(&mut t, 0, ICR1H, 0);
    b.write(&mut t, 0, ICR1L, 99);
    assert_eq!(t.peek(ICR1L), 0, "ICR1 is read-only unless it is TOP");
    b.write(&mut t, 0, TCCR1A, 0x00);
    b.write(&mut t, 0, TCCR1B, 0x19); // mode 12: CTC on ICR1, clk/1
    b.write(&mut t, 0, ICR1H, 0);
    b.write(&mut t, 0, ICR1L, 99);
    b.write(&mut t, 0, TIMSK1, 0x20);
    assert_eq!(b.first_irq(&mut t, TIMER1_CAPT, 1000), Some(100));
    // Normal mode, capture on a rising edge of ICP1 (PD6).
    b.write(&mut t, 200, TCCR1B, 0x41);
    b.write(&mut t, 200, TIFR1, 0x20);
    b.write(&mut t, 200, TCNT1H, 0);
    b.write(&mut t, 200, TCNT1L, 0);
    b.pins.ext_driven[PORT_D] = 0x40;
    b.pins.ext_level[PORT_D] = 0x40;
    t.pins_changed(&mut b.cx(1234));
    assert!(b.irq(TIMER1_CAPT));
    assert_eq!(b.read(&mut t, 1300, ICR1L), (1034 & 0xFF) as u8);
    assert_eq!(b.read(&mut t, 1300, ICR1H), (1034 >> 8) as u8);
}

#[test]
fn tc1_force_compare_sets_oc1a() {
    let (mut t, mut b) = setup();
    b.pins.ddr[PORT_D] = 0x20;
    b.write(&mut t, 0, TCCR1A, 0xC0); // set OC1A on match
    b.write(&mut t, 10, TCCR1C, 0x80);
    assert_eq!(b.pins.level(PORT_D), 0x20);
    assert_eq!(t.peek(TCCR1C), 0);
    assert_eq!(t.peek(TIFR1), 0);
}

#[test]
fn tc2_has_its_own_prescaler_and_warns_about_async_mode() {
    let (mut t, mut b) = setup();
    b.write(&mut t, 0, TIMSK2, 0x01);
    b.write(&mut t, 40, TCCR2B, 0x03); // clk/32: edges at 64, 96 ...
    assert_eq!(b.read(&mut t, 95, TCNT2), 1);
    assert_eq!(b.first_irq(&mut t, TIMER2_OVF, 100_000), Some(64 + 255 * 32));
    b.write(&mut t, 9000, ASSR, 0x20);
    assert_eq!(b.warnings.len(), 1);
    assert_eq!(b.warnings[0].source, "TC2");
}

#[test]
fn clk_io_stops_in_power_down_but_not_in_idle() {
    let (mut t, mut b) = setup();
    b.write(&mut t, 0, TCCR0B, 0x01);
    b.sleep = Sleep::Idle;
    t.sleep_changed(&mut b.cx(10));
    assert_eq!(b.read(&mut t, 20, TCNT0), 20);
    b.sleep = Sleep::PowerDown;
    t.sleep_changed(&mut b.cx(20));
    assert_eq!(b.read(&mut t, 5000, TCNT0), 20);
    assert_eq!(t.update(&mut b.cx(5000)), crate::peripheral::NEVER);
    b.sleep = Sleep::Awake;
    t.sleep_changed(&mut b.cx(5000));
    assert_eq!(b.read(&mut t, 5010, TCNT0), 30);
}

#[test]
fn external_clock_is_warned_once() {
    let (mut t, mut b) = setup();
    b.write(&mut t, 0, TCCR0B, 0x06);
    b.write(&mut t, 1, TCCR0B, 0x07);
    assert_eq!(b.warnings.len(), 1);
    assert_eq!(b.read(&mut t, 1000, TCNT0), 0);
}

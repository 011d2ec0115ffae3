//! Interrupt timing at exact cycles, with a fake "alarm" peripheral.

mod common;

use emulator::device::RAMEND;
use emulator::peripheral::{Ctx, Peripheral, ResetCause, NEVER};
use emulator::{Avr, Config, RunLimit, Stop};

/// Writing n to `base` raises `vector` n cycles after the write; writing
/// `base + 1` sets the enable bit (bit 0) and "reset on fire" (bit 1).
struct Alarm {
    base: u16,
    vector: u8,
    at: u64,
    flag: bool,
    enable: bool,
    reset_on_fire: bool,
    acks: u32,
}

impl Alarm {
    fn new(base: u16, vector: u8) -> Alarm {
        Alarm { base, vector, at: NEVER, flag: false, enable: false, reset_on_fire: false, acks: 0 }
    }

    fn arm(&mut self, at: u64) {
        self.at = at;
    }
}

impl Peripheral for Alarm {
    fn name(&self) -> &'static str {
        "ALARM"
    }
    fn addresses(&self) -> Vec<u16> {
        vec![self.base, self.base + 1]
    }
    fn vectors(&self) -> Vec<u8> {
        vec![self.vector]
    }
    fn read(&mut self, addr: u16, _cx: &mut Ctx) -> u8 {
        self.peek(addr)
    }
    fn write(&mut self, addr: u16, value: u8, cx: &mut Ctx) {
        if addr == self.base {
            self.at = cx.now + value as u64;
        } else {
            self.enable = value & 1 != 0;
            self.reset_on_fire = value & 2 != 0;
        }
    }
    fn peek(&self, addr: u16) -> u8 {
        if addr == self.base {
            self.flag as u8
        } else {
            self.enable as u8
        }
    }
    fn update(&mut self, cx: &mut Ctx) -> u64 {
        if cx.now >= self.at {
            self.at = NEVER;
            self.flag = true;
            if self.reset_on_fire {
                *cx.reset = Some(ResetCause::Watchdog);
            }
        }
        cx.set_irq(self.vector, self.flag && self.enable);
        self.at
    }
    fn acknowledge(&mut self, vector: u8, cx: &mut Ctx) {
        assert_eq!(vector, self.vector);
        self.flag = false;
        self.acks += 1;
        cx.set_irq(self.vector, false);
    }
    fn reset(&mut self, _cx: &mut Ctx) {
        *self = Alarm { acks: self.acks, ..Alarm::new(self.base, self.vector) };
    }
}

/// A vector table (vector 3 -> isr3, vector 5 -> isr5) and `body`.
fn program(body: &str, isr5: &str, isr3: &str) -> Avr {
    let asm = format!(
        "rjmp start
         .org 3*4
         rjmp isr3
         .org 5*4
         rjmp isr5
         .org 0x40
        start:
         {body}
        isr5:
         {isr5}
        isr3:
         {isr3}"
    );
    let mut avr = Avr::with_peripherals(
        Config::default(),
        vec![Box::new(Alarm::new(0xF0, 5)), Box::new(Alarm::new(0xE0, 3))],
    );
    avr.load_flash(&common::assemble(&asm)).unwrap();
    avr
}

#[test]
fn entry_takes_four_cycles_and_waits_one_instruction_after_sei() {
    let mut avr = program(
        "ldi r16, 1
         sts 0xF1, r16    ; enable
         ldi r16, 0
         sts 0xF0, r16    ; fire now
         nop
         sei
         nop              ; runs: one instruction after SEI
         nop              ; interrupted before this one
         rjmp .-2",
        "rjmp .-2",
        "rjmp .-2",
    );
    avr.add_breakpoint(10);
    // rjmp start (2) + 1 + 2 + 1 + 2 + nop 1 + sei 1 + nop 1 = 11, entry 4 -> 15.
    assert_eq!(avr.run(RunLimit::Cycles(1000)), Stop::Breakpoint(10));
    assert_eq!(avr.cycles(), 15);
    assert_eq!(avr.sreg() & emulator::cpu::flags::I, 0, "I is cleared on entry");
    assert_eq!(avr.sp(), RAMEND - 2);
    let ret = u16::from_be_bytes([avr.read_data(RAMEND - 1).unwrap(), avr.read_data(RAMEND).unwrap()]);
    assert_eq!(ret as u32, 0x20 + 9, "returns to the second nop");
    assert_eq!(avr.peripheral::<Alarm>().unwrap().acks, 1);
    assert_eq!(avr.pending_interrupts(), 0);
}

/// avr-gcc changes SP with `in r0,SREG; cli; out SPH; out SREG,r0; out SPL`:
/// setting I by writing SREG must, like SEI, let one more instruction run,
/// or an interrupt would push onto a half-written stack pointer.
#[test]
fn setting_i_through_an_sreg_write_waits_one_instruction_too() {
    let mut avr = program(
        "ldi r16, 1
         sts 0xF1, r16    ; enable
         ldi r16, 0
         sts 0xF0, r16    ; fire now
         ldi r17, 0x80
         out 0x3f, r17    ; SREG = I
         ldi r18, 0x42    ; runs: one instruction after the SREG write
         nop              ; interrupted before this one
         rjmp .-2",
        "rjmp .-2",
        "rjmp .-2",
    );
    avr.add_breakpoint(10);
    assert_eq!(avr.run(RunLimit::Cycles(1000)), Stop::Breakpoint(10));
    assert_eq!(avr.reg(18), 0x42, "the instruction after the SREG write ran first");
    let ret = u16::from_be_bytes([avr.read_data(RAMEND - 1).unwrap(), avr.read_data(RAMEND).unwrap()]);
    assert_eq!(ret as u32, 0x20 + 9, "returns to the nop after it");
}

#[test]
fn one_main_instruction_runs_between_back_to_back_interrupts() {
    let mut avr = program(
        "ldi r16, 1
         sts 0xF1, r16
         ldi r17, 0
         sts 0xF0, r17
         sei
         .rept 1000
         inc r20
         .endr
         rjmp .-2",
        "inc r21
         sts 0xF0, r17    ; fire again at once
         reti",
        "rjmp .-2",
    );
    avr.run(RunLimit::Cycles(2000));
    let (main, isr) = (avr.reg(20), avr.reg(21));
    assert!(isr > 50, "the interrupt keeps firing ({isr})");
    assert!(main == isr || main == isr + 1, "main {main}, isr {isr}: one main instruction per interrupt");
}

#[test]
fn interrupt_during_a_multi_cycle_instruction_waits_for_it() {
    // The alarm fires 1 cycle into the RCALL; the interrupt is taken after it.
    let mut avr = program(
        "ldi r16, 1       ; cycles 2..3 (after rjmp start)
         sts 0xF1, r16    ; 3..5
         sei              ; 5..6
         ldi r16, 3       ; 6..7
         sts 0xF0, r16    ; 7..9, written at 8: event at 11
         nop              ; 9..10
         rcall sub        ; 10..13
        sub:
         rjmp .-2",
        "rjmp .-2",
        "rjmp .-2",
    );
    avr.add_breakpoint(10);
    assert_eq!(avr.run(RunLimit::Cycles(1000)), Stop::Breakpoint(10));
    assert_eq!(avr.cycles(), 13 + 4);
}

#[test]
fn lower_vector_number_wins() {
    let mut avr = program(
        "ldi r16, 1
         sts 0xF1, r16
         sts 0xE1, r16
         ldi r16, 0
         sts 0xF0, r16
         sts 0xE0, r16
         sei
         nop
         rjmp .-2",
        "ldi r25, 5\n rjmp .-2",
        "ldi r24, 3\n reti",
    );
    avr.run(RunLimit::Cycles(200));
    assert_eq!((avr.reg(24), avr.reg(25)), (3, 5), "vector 3 first, then 5");
}

#[test]
fn waking_from_sleep_adds_four_cycles() {
    let mut avr = program(
        "ldi r16, 1
         sts 0xF1, r16
         out 0x33, r16     ; SMCR: idle, SE
         sei
         ldi r16, 100
         sts 0xF0, r16     ; starts at cycle 8, writes at 9: event at 109
         sleep
         rjmp .-2",
        "rjmp .-2",
        "rjmp .-2",
    );
    avr.add_breakpoint(10);
    assert_eq!(avr.run(RunLimit::Cycles(10_000)), Stop::Breakpoint(10));
    assert_eq!(avr.cycles(), 109 + 4 + 4);
    assert!(!avr.is_sleeping());
}

#[test]
fn host_side_peripheral_changes_are_seen() {
    let mut avr = program("sei\n ldi r16, 1\n sts 0xF1, r16\n1: rjmp 1b", "ldi r24, 0x55\n rjmp .-2", "rjmp .-2");
    assert_eq!(avr.run(RunLimit::Cycles(100)), Stop::CycleLimit);
    assert_eq!(avr.reg(24), 0);
    let now = avr.cycles();
    avr.peripheral_mut::<Alarm>().unwrap().arm(now + 50);
    avr.run(RunLimit::Cycles(100));
    assert_eq!(avr.reg(24), 0x55);
}

#[test]
fn sleeping_with_nothing_scheduled_stops() {
    let mut avr = program("ldi r16, 1\n out 0x33, r16\n sei\n sleep\n rjmp .-2", "rjmp .-2", "rjmp .-2");
    match avr.run(RunLimit::Forever) {
        Stop::Sleeping { interrupts_enabled: true, .. } => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_peripheral_can_reset_the_chip() {
    let mut avr = program(
        "ldi r20, 0x77
         ldi r16, 3       ; enable + reset on fire
         sts 0xF1, r16
         ldi r16, 10
         sts 0xF0, r16
        1: rjmp 1b",
        "rjmp .-2",
        "rjmp .-2",
    );
    avr.add_breakpoint(0x20);
    assert_eq!(avr.run(RunLimit::Cycles(1000)), Stop::Breakpoint(0x20));
    assert_eq!(avr.run(RunLimit::Cycles(1000)), Stop::Breakpoint(0x20), "reset back to main");
    assert_eq!(avr.reg(20), 0, "registers cleared by the reset");
    assert_eq!(avr.mcusr() & emulator::device::mcusr::WDRF, emulator::device::mcusr::WDRF);
}

#[test]
fn sleeping_with_a_cycle_limit_lets_time_pass() {
    let mut avr = program("ldi r16, 1\n out 0x33, r16\n sei\n sleep\n rjmp .-2", "rjmp .-2", "rjmp .-2");
    assert_eq!(avr.run(RunLimit::Cycles(1000)), Stop::CycleLimit);
    assert_eq!(avr.cycles(), 1000);
    assert!(avr.is_sleeping());
}

/// Drives port B from the register it owns (0xD0), like a GPIO would.
struct Led;

impl Peripheral for Led {
    fn name(&self) -> &'static str {
        "LED"
    }
    fn addresses(&self) -> Vec<u16> {
        vec![0xD0]
    }
    fn read(&mut self, addr: u16, _cx: &mut Ctx) -> u8 {
        self.peek(addr)
    }
    fn write(&mut self, _addr: u16, value: u8, cx: &mut Ctx) {
        cx.pins.ddr[1] = 0xFF;
        cx.pins.port[1] = value;
        cx.pins.settle(1, cx.now);
    }
    fn peek(&self, _addr: u16) -> u8 {
        0
    }
    fn update(&mut self, _cx: &mut Ctx) -> u64 {
        NEVER
    }
    fn reset(&mut self, _cx: &mut Ctx) {}
}

#[test]
fn watched_pins_stop_the_run_when_they_change() {
    let mut avr = Avr::with_peripherals(Config::default(), vec![Box::new(Led)]);
    let asm = "ldi r16, 1\n sts 0xD0, r16\n ldi r16, 3\n sts 0xD0, r16\n ldi r16, 2\n sts 0xD0, r16\n rjmp .-2";
    avr.load_flash(&common::assemble(asm)).unwrap();
    avr.watch_pins(1, 0x02);
    assert_eq!(avr.run(RunLimit::Cycles(100)), Stop::PinChange, "bit 1 rises");
    assert_eq!((avr.pc(), avr.cycles()), (6, 6));
    assert_eq!(avr.run(RunLimit::Cycles(100)), Stop::CycleLimit, "bit 0 changes later: not watched");
    let events = avr.drain_pin_events();
    assert_eq!(events.iter().map(|e| (e.cycle, e.levels)).collect::<Vec<_>>(), vec![(2, 1), (5, 3), (8, 2)]);
}

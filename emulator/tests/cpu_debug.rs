//! Breakpoints, watchpoints, stack watch and disassembly with symbols.

mod common;

use emulator::{Access, Avr, Config, RunLimit, Stop, WatchKind};

#[test]
fn breakpoint_stops_before_the_instruction_and_continues() {
    let mut avr = common::machine("1: nop\n nop\n rjmp 1b");
    avr.add_breakpoint(1);
    assert_eq!(avr.run(RunLimit::Cycles(100)), Stop::Breakpoint(1));
    assert_eq!((avr.pc(), avr.cycles()), (1, 1));
    assert_eq!(avr.run(RunLimit::Cycles(100)), Stop::Breakpoint(1));
    assert_eq!(avr.cycles(), 5);
    assert!(avr.remove_breakpoint(1));
    assert_eq!(avr.run(RunLimit::Cycles(100)), Stop::CycleLimit);
}

#[test]
fn watchpoints_report_address_kind_and_pc() {
    let mut avr = common::machine("ldi r16, 7\n sts 0x0200, r16\n nop\n lds r17, 0x0200\n push r16\n rjmp .-2");
    avr.add_watchpoint(0x0200..=0x0200, WatchKind::ReadWrite);
    assert_eq!(avr.run(RunLimit::Cycles(100)), Stop::Watchpoint { addr: 0x200, kind: Access::Write, pc: 1 });
    assert_eq!(avr.pc(), 3, "stops after the accessing instruction");
    assert_eq!(avr.run(RunLimit::Cycles(100)), Stop::Watchpoint { addr: 0x200, kind: Access::Read, pc: 4 });
    avr.clear_watchpoints();
    avr.add_watchpoint(0x10F0..=0x10FF, WatchKind::Write);
    assert_eq!(avr.run(RunLimit::Cycles(100)), Stop::Watchpoint { addr: 0x10FF, kind: Access::Write, pc: 6 });
}

#[test]
fn stack_collision_is_reported_once_with_pc_cycle_and_sp() {
    let mut avr = common::machine("1: push r0\n rjmp 1b");
    avr.set_stack_limit(Some(0x1000));
    match avr.run(RunLimit::Cycles(100_000)) {
        Stop::StackCollision { pc, cycle, sp } => {
            assert_eq!((pc, sp), (0, 0x0FFF));
            assert_eq!(cycle, 255 * 4);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(avr.min_sp(), 0x0FFF);
    assert_eq!(avr.run(RunLimit::Cycles(100)), Stop::CycleLimit, "reported once");
}

#[test]
fn stack_collision_in_c_recursion_uses_heap_start() {
    let src = r#"
        #include <avr/io.h>
        #include <avr/interrupt.h>
        #include <avr/sleep.h>
        char filler[3000];
        volatile unsigned char depth;
        unsigned recurse(unsigned n) { volatile char pad[16]; pad[0] = n; depth++; return n ? recurse(n - 1) + pad[0] : 0; }
        int main(void) { filler[0] = 1; recurse(200); cli(); sleep_cpu(); }
    "#;
    let (elf, _) = common::compile_c(src, &[]);
    let mut avr = Avr::new(Config::default());
    let program = avr.load_elf(&elf).unwrap();
    let limit = program.static_data_end().unwrap();
    match avr.run(RunLimit::UntilSleep { max_cycles: 10_000_000 }) {
        Stop::StackCollision { sp, .. } => assert!(sp < limit),
        other => panic!("{other:?}"),
    }
}

#[test]
fn min_sp_tracks_deepest_stack() {
    let mut avr = common::machine("rcall 1f\n rjmp .-2\n1: push r0\n push r0\n pop r0\n pop r0\n ret");
    avr.run(RunLimit::Cycles(100));
    assert_eq!(avr.max_stack_bytes(), 4);
}

#[test]
fn disassembly_names_symbols() {
    let src = "int helper(int x) { return x * 3; } int main(void) { volatile int v = helper(5); return v; }";
    let (elf, _) = common::compile_c(src, &["-fno-inline"]);
    let mut avr = Avr::new(Config::default());
    avr.load_elf(&elf).unwrap();
    let text: Vec<String> = (0..200).map(|pc| avr.disassemble(pc)).collect();
    assert!(text.iter().any(|l| l.contains("<main>")), "{text:#?}");
    assert!(text.iter().any(|l| l.contains("<helper>")), "{text:#?}");
}

#[test]
fn same_program_same_trace() {
    let run = || {
        let mut avr = common::machine("ldi r16, 1\n1: add r16, r16\n adc r17, r16\n rjmp 1b");
        avr.run(RunLimit::Cycles(10_001));
        (avr.regs(), avr.cycles(), avr.pc())
    };
    assert_eq!(run(), run());
}

#[test]
fn driving_input_pins_logs_level_changes() {
    let mut avr = Avr::with_peripherals(Config::default(), Vec::new());
    avr.set_input(1, 2, Some(true));
    assert_eq!(avr.pins().level(1) & 0x04, 0x04);
    avr.set_input(1, 2, None);
    assert_eq!(avr.pins().level(1) & 0x04, 0, "released and no pull-up: reads low");
    let events = avr.drain_pin_events();
    assert_eq!(events.len(), 2);
    assert_eq!((events[0].port, events[0].changed, events[0].levels), (1, 0x04, 0x04));
    assert!(avr.drain_pin_events().is_empty());
}

#[test]
fn read_and_write_data_for_the_debugger() {
    let mut avr = Avr::with_peripherals(Config::default(), Vec::new());
    assert!(avr.write_data(0x0234, 0x5A));
    assert_eq!(avr.read_data(0x0234), Some(0x5A));
    assert_eq!(avr.read_data(0x1100), None);
    assert!(!avr.write_data(0x1100, 1));
    assert_eq!(avr.read_data(0x5D), Some(0xFF), "SPL");
    assert_eq!(avr.read_data(0x5E), Some(0x10), "SPH");
    assert_eq!(avr.read_data_range(0x0233, 3), vec![0, 0x5A, 0]);
    avr.set_reg(5, 9);
    assert_eq!(avr.read_data(5), Some(9), "registers are memory mapped");
    assert_eq!(avr.elapsed(), std::time::Duration::ZERO);
}

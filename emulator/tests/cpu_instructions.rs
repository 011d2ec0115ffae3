//! Per-instruction tests: results, flags and exact cycle counts, in the
//! spirit of avr8js's instruction spec. Programs are assembled with avr-as.

mod common;

use common::{machine, steps};
use emulator::cpu::flags::{C, H, I, N, S, T, V, Z};
use emulator::device::RAMEND;

/// Runs `n` instructions of `asm` and returns the machine and cycles used.
fn run(asm: &str, n: usize) -> (emulator::Avr, u64) {
    let mut avr = machine(asm);
    let cycles = steps(&mut avr, n);
    (avr, cycles)
}

#[test]
fn add_sets_half_carry_and_carry() {
    let (avr, cy) = run("ldi r16, 0x8F\n ldi r17, 0x81\n add r16, r17", 3);
    assert_eq!(avr.reg(16), 0x10);
    assert_eq!(avr.sreg(), H | C | V | S);
    assert_eq!(cy, 3);
}

#[test]
fn adc_adds_the_carry() {
    let (avr, _) = run("ldi r16, 0xFF\n ldi r17, 0x00\n sec\n adc r16, r17", 4);
    assert_eq!(avr.reg(16), 0x00);
    assert_eq!(avr.sreg(), Z | C | H);
}

#[test]
fn sbc_keeps_zero_only_if_it_was_set() {
    // 16-bit compare 0x0100 - 0x0100 == 0: Z survives the high byte.
    let (avr, _) = run("ldi r24, 0x00\n ldi r25, 0x01\n ldi r22, 0x00\n ldi r23, 0x01\n sub r24, r22\n sbc r25, r23", 6);
    assert_eq!(avr.sreg() & Z, Z);
    // 0x0101 - 0x0100: low byte non-zero clears Z for good.
    let (avr, _) = run("ldi r24, 0x01\n ldi r25, 0x01\n ldi r22, 0x00\n ldi r23, 0x01\n cp r24, r22\n cpc r25, r23", 6);
    assert_eq!(avr.sreg() & Z, 0);
    assert_eq!(avr.reg(24), 0x01, "CP does not store");
}

#[test]
fn subi_and_sbci_borrow() {
    let (avr, _) = run("ldi r24, 0x00\n ldi r25, 0x00\n subi r24, 1\n sbci r25, 0", 4);
    assert_eq!((avr.reg(24), avr.reg(25)), (0xFF, 0xFF));
    assert_eq!(avr.sreg(), C | N | S | H);
}

#[test]
fn cpi_compares_without_storing() {
    let (avr, _) = run("ldi r16, 0x40\n cpi r16, 0x40", 2);
    assert_eq!(avr.reg(16), 0x40);
    assert_eq!(avr.sreg(), Z);
}

#[test]
fn logic_clears_v_and_keeps_c() {
    let (avr, _) = run("sec\n ldi r16, 0xF0\n ldi r17, 0x80\n and r16, r17\n", 4);
    assert_eq!(avr.reg(16), 0x80);
    assert_eq!(avr.sreg(), C | N | S);
    let (avr, _) = run("ldi r16, 0x0F\n eor r16, r16\n", 2);
    assert_eq!(avr.sreg(), Z);
    let (avr, _) = run("ldi r16, 0x01\n ori r16, 0x80\n andi r16, 0x81", 3);
    assert_eq!(avr.reg(16), 0x81);
}

#[test]
fn com_neg_swap() {
    let (avr, _) = run("ldi r16, 0x55\n com r16", 2);
    assert_eq!(avr.reg(16), 0xAA);
    assert_eq!(avr.sreg(), C | N | S);
    let (avr, _) = run("ldi r16, 0x80\n neg r16", 2);
    assert_eq!(avr.reg(16), 0x80);
    assert_eq!(avr.sreg(), C | V | N);
    let (avr, _) = run("ldi r16, 0x00\n neg r16", 2);
    assert_eq!(avr.sreg(), Z);
    let (avr, _) = run("ldi r16, 0x1E\n swap r16", 2);
    assert_eq!(avr.reg(16), 0xE1);
}

#[test]
fn inc_dec_overflow_at_0x80() {
    let (avr, _) = run("ldi r16, 0x7F\n inc r16", 2);
    assert_eq!(avr.reg(16), 0x80);
    assert_eq!(avr.sreg(), V | N);
    let (avr, _) = run("ldi r16, 0x80\n dec r16", 2);
    assert_eq!(avr.sreg(), V | S);
    let (avr, _) = run("sec\n ldi r16, 0x01\n dec r16", 3);
    assert_eq!(avr.sreg(), Z | C, "DEC keeps C");
}

#[test]
fn shifts() {
    let (avr, _) = run("ldi r16, 0x81\n asr r16", 2);
    assert_eq!(avr.reg(16), 0xC0);
    assert_eq!(avr.sreg(), C | N | S);
    let (avr, _) = run("ldi r16, 0x01\n lsr r16", 2);
    assert_eq!(avr.reg(16), 0x00);
    assert_eq!(avr.sreg(), C | Z | V | S);
    let (avr, _) = run("sec\n ldi r16, 0x02\n ror r16", 3);
    assert_eq!(avr.reg(16), 0x81);
    assert_eq!(avr.sreg(), N | V);
}

#[test]
fn adiw_sbiw_take_two_cycles() {
    let (avr, cy) = run("ldi r24, 0xFF\n ldi r25, 0xFF\n adiw r24, 1", 3);
    assert_eq!(avr.reg_pair(24), 0);
    assert_eq!(avr.sreg(), Z | C);
    assert_eq!(cy, 4);
    let (avr, cy) = run("ldi r30, 0x00\n ldi r31, 0x80\n sbiw r30, 63", 3);
    assert_eq!(avr.reg_pair(30), 0x7FC1);
    assert_eq!(avr.sreg(), V | S);
    assert_eq!(cy, 4);
}

#[test]
fn multiplications() {
    let (avr, cy) = run("ldi r16, 200\n ldi r17, 200\n mul r16, r17", 3);
    assert_eq!(avr.reg_pair(0), 40000);
    assert_eq!(avr.sreg(), C);
    assert_eq!(cy, 4);
    let (avr, _) = run("ldi r16, -2\n ldi r17, 3\n muls r16, r17", 3);
    assert_eq!(avr.reg_pair(0), (-6i16) as u16);
    assert_eq!(avr.sreg(), C);
    let (avr, _) = run("ldi r16, -1\n ldi r17, 255\n mulsu r16, r17", 3);
    assert_eq!(avr.reg_pair(0), (-255i16) as u16);
    // FMUL: 0.5 * 0.5 in 1.7 format = 0.25 in 1.15 format.
    let (avr, cy) = run("ldi r16, 0x40\n ldi r17, 0x40\n fmul r16, r17", 3);
    assert_eq!(avr.reg_pair(0), 0x2000);
    assert_eq!(cy, 4);
    let (avr, _) = run("ldi r16, 0x80\n ldi r17, 0x80\n fmuls r16, r17", 3);
    // -1 * -1 = +1 overflows 1.15: 0x4000 << 1 = 0x8000, C from bit 15 before shift.
    assert_eq!(avr.reg_pair(0), 0x8000);
    assert_eq!(avr.sreg() & C, 0);
    let (avr, _) = run("ldi r16, 0xC0\n ldi r17, 0x80\n fmulsu r16, r17", 3);
    assert_eq!(avr.reg_pair(0), 0xC000);
    assert_eq!(avr.sreg() & C, C);
    let (avr, _) = run("ldi r16, 0\n ldi r17, 9\n mul r16, r17", 3);
    assert_eq!(avr.sreg(), Z);
}

#[test]
fn movw_mov_ldi_take_one_cycle() {
    let (avr, cy) = run("ldi r30, 0x34\n ldi r31, 0x12\n movw r26, r30\n mov r2, r31", 4);
    assert_eq!(avr.reg_pair(26), 0x1234);
    assert_eq!(avr.reg(2), 0x12);
    assert_eq!(cy, 4);
}

#[test]
fn bit_instructions() {
    let (avr, _) = run("ldi r16, 0x08\n bst r16, 3\n bld r17, 7\n", 3);
    assert_eq!(avr.sreg(), T);
    assert_eq!(avr.reg(17), 0x80);
    let (avr, cy) = run("sec\n sez\n sen\n sev\n ses\n seh\n set\n clt\n clc", 9);
    assert_eq!(avr.sreg(), Z | N | V | S | H);
    assert_eq!(cy, 9);
}

#[test]
fn jumps_and_calls_have_16_bit_pc_timing() {
    let (avr, cy) = run("rjmp 1f\n nop\n1: nop", 1);
    assert_eq!((avr.pc(), cy), (2, 2));
    let (avr, cy) = run("jmp 8\n", 1);
    assert_eq!((avr.pc(), cy), (4, 3));
    let (avr, cy) = run("ldi r30, 7\n ldi r31, 0\n ijmp", 3);
    assert_eq!((avr.pc(), cy), (7, 4));
    let (avr, cy) = run("rcall 1f\n nop\n1: nop", 1);
    assert_eq!((avr.pc(), cy, avr.sp()), (2, 3, RAMEND - 2));
    assert_eq!(avr.read_data(RAMEND), Some(1), "return address low byte at the top");
    assert_eq!(avr.read_data(RAMEND - 1), Some(0));
    let (avr, cy) = run("ldi r30, 9\n ldi r31, 0\n icall", 3);
    assert_eq!((avr.pc(), cy), (9, 5));
    let (avr, cy) = run("call 1f\n nop\n1: nop", 1);
    assert_eq!((avr.pc(), cy), (3, 4));
    assert_eq!(avr.read_data(RAMEND), Some(2));
    let (avr, cy) = run("rcall 1f\n nop\n1: ret", 2);
    assert_eq!((avr.pc(), cy, avr.sp()), (1, 7, RAMEND));
}

#[test]
fn branches_take_one_or_two_cycles() {
    let (avr, cy) = run("sez\n breq 1f\n nop\n1: nop", 2);
    assert_eq!((avr.pc(), cy), (3, 3));
    let (avr, cy) = run("clz\n breq 1f\n nop\n1: nop", 2);
    assert_eq!((avr.pc(), cy), (2, 2));
    let (avr, _) = run("1: clc\n brcc 1b", 2);
    assert_eq!(avr.pc(), 0);
}

#[test]
fn skips_take_one_two_or_three_cycles() {
    let (avr, cy) = run("ldi r16, 1\n ldi r17, 2\n cpse r16, r17\n nop\n nop", 3);
    assert_eq!((avr.pc(), cy), (3, 3));
    let (avr, cy) = run("ldi r16, 1\n ldi r17, 1\n cpse r16, r17\n nop\n nop", 3);
    assert_eq!((avr.pc(), cy), (4, 4));
    let (avr, cy) = run("ldi r16, 1\n ldi r17, 1\n cpse r16, r17\n lds r0, 0x100\n nop", 3);
    assert_eq!((avr.pc(), cy), (5, 5));
    let (avr, cy) = run("ldi r16, 0x80\n sbrs r16, 7\n jmp 0\n nop", 2);
    assert_eq!((avr.pc(), cy), (4, 4));
    let (avr, cy) = run("ldi r16, 0x80\n sbrc r16, 7\n nop\n nop", 2);
    assert_eq!((avr.pc(), cy), (2, 2));
}

#[test]
fn io_bit_instructions() {
    // GPIOR0 (I/O 0x1E) is a core register, so no peripheral is involved.
    let (avr, cy) = run("sbi 0x1e, 3\n", 1);
    assert_eq!(avr.read_data(0x3E), Some(0x08));
    assert_eq!(cy, 2);
    let (avr, cy) = run("sbi 0x1e, 3\n sbic 0x1e, 3\n nop\n nop", 3);
    assert_eq!((avr.pc(), cy), (3, 4));
    let (avr, cy) = run("sbi 0x1e, 3\n sbis 0x1e, 3\n nop\n nop", 3);
    assert_eq!((avr.pc(), cy), (4, 5));
    let (avr, cy) = run("sbi 0x1e, 3\n sbis 0x1e, 3\n call 0\n nop", 3);
    assert_eq!((avr.pc(), cy), (5, 6));
    let (avr, cy) = run("sbi 0x1e, 3\n cbi 0x1e, 3", 2);
    assert_eq!(avr.read_data(0x3E), Some(0));
    assert_eq!(cy, 4);
    let (avr, cy) = run("ldi r16, 0x5A\n out 0x1e, r16\n in r17, 0x1e", 3);
    assert_eq!(avr.reg(17), 0x5A);
    assert_eq!(cy, 3);
}

#[test]
fn loads_and_stores_with_every_pointer_mode() {
    let asm = "
        ldi r26, 0x00\n ldi r27, 0x01
        ldi r16, 0x11\n st X+, r16
        ldi r16, 0x22\n st X+, r16
        ld r17, -X
        ldi r28, 0x00\n ldi r29, 0x01
        ldd r18, Y+1
        ldi r30, 0x10\n ldi r31, 0x01
        std Z+5, r18
        ld r19, Y+
        st -Z, r19
        lds r20, 0x0115
        sts 0x0120, r20
    ";
    let (avr, cy) = run(asm, 17);
    assert_eq!(avr.read_data(0x100), Some(0x11));
    assert_eq!(avr.reg(17), 0x22);
    assert_eq!(avr.reg_pair(26), 0x101);
    assert_eq!(avr.reg(18), 0x22);
    assert_eq!(avr.read_data(0x115), Some(0x22));
    assert_eq!(avr.reg_pair(28), 0x101);
    assert_eq!(avr.read_data(0x10F), Some(0x11));
    assert_eq!(avr.read_data(0x120), Some(0x22));
    // 8 LDI (1) + 9 loads/stores (2).
    assert_eq!(cy, 8 + 9 * 2);
}

#[test]
fn registers_are_memory_mapped() {
    let (avr, _) = run("ldi r16, 0x77\n ldi r30, 16\n ldi r31, 0\n ld r2, Z\n ldi r17, 5\n sts 3, r17", 6);
    assert_eq!(avr.reg(2), 0x77);
    assert_eq!(avr.reg(3), 5);
}

#[test]
fn push_pop_and_stack_pointer() {
    let (avr, cy) = run("ldi r16, 0xAB\n push r16\n pop r17\n in r18, 0x3d\n in r19, 0x3e", 5);
    assert_eq!(avr.reg(17), 0xAB);
    assert_eq!(avr.read_data(RAMEND), Some(0xAB));
    assert_eq!((avr.reg(18), avr.reg(19)), (0xFF, 0x10));
    assert_eq!(cy, 1 + 2 + 2 + 1 + 1);
    assert_eq!(avr.min_sp(), RAMEND - 1);
}

#[test]
fn sreg_is_readable_and_writable_as_io() {
    let (avr, _) = run("ldi r16, 0x03\n out 0x3f, r16\n in r17, 0x3f", 3);
    assert_eq!(avr.sreg(), Z | C);
    assert_eq!(avr.reg(17), 0x03);
}

#[test]
fn lpm_reads_flash_in_three_cycles() {
    let asm = "
        ldi r30, lo8(table)\n ldi r31, hi8(table)
        lpm r16, Z+
        lpm r17, Z
        lpm
        rjmp .-2
        table: .byte 0x12, 0x34
    ";
    let (avr, cy) = run(asm, 5);
    assert_eq!((avr.reg(16), avr.reg(17), avr.reg(0)), (0x12, 0x34, 0x34));
    assert_eq!(cy, 2 + 3 * 3);
}

#[test]
fn undefined_opcode_is_a_fault_naming_pc_and_word() {
    let mut avr = machine("nop\n .word 0xffff");
    let stop = avr.run(emulator::RunLimit::Cycles(100));
    match stop {
        emulator::Stop::Fault(f) => {
            assert_eq!((f.pc, f.word, f.kind), (1, 0xFFFF, emulator::FaultKind::UndefinedOpcode));
            assert!(f.to_string().contains("0xffff"), "{f}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(avr.pc(), 1);
    assert_eq!(avr.cycles(), 1);
}

#[test]
fn data_access_beyond_ramend_is_a_fault() {
    let mut avr = machine("nop\n ldi r16, 1\n sts 0x2000, r16\n nop");
    match avr.run(emulator::RunLimit::Cycles(100)) {
        emulator::Stop::Fault(f) => {
            assert_eq!(f.pc, 2);
            assert_eq!(
                f.kind,
                emulator::FaultKind::DataOutOfRange { addr: 0x2000, access: emulator::Access::Write }
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn break_stops_the_run() {
    let mut avr = machine("nop\n break\n nop");
    assert_eq!(avr.run(emulator::RunLimit::Cycles(100)), emulator::Stop::Break(1));
    assert_eq!(avr.pc(), 2);
}

#[test]
fn unmodelled_io_reads_back_with_one_warning() {
    // An emulator with no peripherals at all: every non-core address is unowned.
    let mut avr = emulator::Avr::with_peripherals(emulator::Config::default(), Vec::new());
    avr.load_flash(&common::assemble("ldi r16, 0x42\n sts 0xF0, r16\n lds r17, 0xF0\n lds r18, 0xF0")).unwrap();
    steps(&mut avr, 4);
    assert_eq!((avr.reg(17), avr.reg(18)), (0x42, 0x42));
    assert_eq!(avr.warnings().len(), 1, "{:?}", avr.warnings());
    assert!(avr.warnings()[0].message.contains("0xf0"));
}

#[test]
fn sleep_with_interrupts_disabled_stops_the_run() {
    let mut avr = machine("ldi r16, 1\n out 0x33, r16\n cli\n sleep\n nop");
    match avr.run(emulator::RunLimit::Forever) {
        emulator::Stop::Sleeping { pc, interrupts_enabled } => {
            assert_eq!((pc, interrupts_enabled), (4, false));
        }
        other => panic!("{other:?}"),
    }
    assert!(avr.is_sleeping());
    assert_eq!(avr.cycles(), 4);
}

#[test]
fn until_sleep_stops_even_without_sleep_enable() {
    let mut avr = machine("nop\n sleep\n nop");
    let stop = avr.run(emulator::RunLimit::UntilSleep { max_cycles: 1000 });
    assert_eq!(stop, emulator::Stop::Sleeping { pc: 2, interrupts_enabled: false });
}

#[test]
fn cycle_limit_is_respected_at_instruction_granularity() {
    let mut avr = machine("1: rjmp 1b");
    assert_eq!(avr.run(emulator::RunLimit::Cycles(11)), emulator::Stop::CycleLimit);
    assert_eq!(avr.cycles(), 12, "the instruction crossing the limit completes");
    assert_eq!(avr.run(emulator::RunLimit::UntilCycle(100)), emulator::Stop::CycleLimit);
    assert_eq!(avr.cycles(), 100);
}

#[test]
fn spm_writes_a_flash_page_and_it_is_re_decoded() {
    // Fill the page buffer at 0x100 with `ldi r20, 0x99` then write page 0x100.
    let asm = "
        ldi r30, 0x00\n ldi r31, 0x01
        ldi r16, 0x49\n mov r0, r16
        ldi r16, 0xE9\n mov r1, r16
        ldi r17, 0x01\n out 0x37, r17\n spm
        ldi r17, 0x03\n out 0x37, r17\n spm
        ldi r17, 0x05\n out 0x37, r17\n spm
        jmp 0x100
    ";
    let mut avr = machine(asm);
    steps(&mut avr, 16);
    assert_eq!(avr.pc(), 0x80);
    steps(&mut avr, 1);
    assert_eq!(avr.reg(20), 0x99);
}

#[test]
fn write_flash_redecodes_two_word_instructions() {
    let mut avr = machine("lds r16, 0x0100\n nop");
    avr.write_data(0x0105, 0x5A);
    avr.write_flash(2, &0x0105u16.to_le_bytes());
    steps(&mut avr, 1);
    assert_eq!(avr.reg(16), 0x5A);
}

#[test]
fn reset_restores_the_reset_state() {
    let mut avr = machine("ldi r16, 5\n push r16\n sei\n nop");
    steps(&mut avr, 4);
    avr.reset();
    assert_eq!((avr.pc(), avr.sp(), avr.sreg(), avr.reg(16)), (0, RAMEND, 0, 0));
    assert_eq!(avr.mcusr() & emulator::device::mcusr::EXTRF, emulator::device::mcusr::EXTRF);
    let _ = I;
}

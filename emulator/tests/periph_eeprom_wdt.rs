//! EEPROM programming and the watchdog on the real core.

mod common;

use emulator::periph::Eeprom;
use emulator::RunLimit;

#[test]
fn eeprom_write_sequence_then_watchdog_reset() {
    let src = "
        sbic 0x1F, 1       ; EECR.EEPE: first boot only writes
        rjmp .-4
        in r16, 0x34       ; MCUSR
        sbrc r16, 3        ; WDRF: second boot, stop here
        rjmp done
        ldi r16, 5
        out 0x21, r16      ; EEARL
        ldi r16, 0x42
        out 0x20, r16      ; EEDR
        sbi 0x1F, 2        ; EEMPE
        sbi 0x1F, 1        ; EEPE
    poll:
        sbic 0x1F, 1
        rjmp poll
        ldi r16, 0x08
        sts 0x60, r16      ; WDTCSR: WDE, 16 ms
    spin:
        rjmp spin
    done:
        cli
        sleep
    ";
    let mut avr = common::machine(src);
    avr.run(RunLimit::UntilCycle(27_100));
    assert_eq!(avr.peripheral::<Eeprom>().unwrap().contents()[5], 0xFF, "still programming");
    avr.run(RunLimit::UntilCycle(27_300));
    assert_eq!(avr.peripheral::<Eeprom>().unwrap().contents()[5], 0x42);
    // The watchdog fires 16 ms (128000 cycles) after it was enabled.
    avr.run(RunLimit::UntilSleep { max_cycles: 200_000 });
    assert_ne!(avr.mcusr() & 0x08, 0, "WDRF");
    assert!((27_200 + 128_000..27_400 + 128_000).contains(&avr.cycles()), "{}", avr.cycles());
}

//! Pin directions and idle levels, derived from the board's pin map.

use avr_device::atmega644::Peripherals;
use firmware::board::{self, Port};

/// Output masks per port, computed from the pin map at compile time.
const fn outputs(port: Port) -> u8 {
    let mut m = 0;
    if board::LCD_PORT as u8 == port as u8 {
        m |= board::LCD_RS.mask() | board::LCD_RW.mask() | board::LCD_E.mask() | board::LCD_BACKLIGHT.mask();
        m |= 0x0F << board::LCD_DATA_SHIFT;
    }
    if board::BUZZER.port as u8 == port as u8 {
        m |= board::BUZZER.mask();
    }
    if board::SERIAL_TXD.port as u8 == port as u8 {
        m |= board::SERIAL_TXD.mask();
    }
    m
}

/// Pull-ups on the button inputs (active low), and on RXD so an unconnected
/// serial line idles high (mark) instead of floating into garbage.
const fn pull_ups(port: Port) -> u8 {
    let mut m = 0;
    if board::BUTTON_PORT as u8 == port as u8 {
        m |= board::BUTTON_MASK;
    }
    if board::SERIAL_RXD.port as u8 == port as u8 {
        m |= board::SERIAL_RXD.mask();
    }
    m
}

/// Turns the JTAG interface off. On a chip with the JTAGEN fuse set (the
/// factory default) JTAG owns PC2..PC5 (TCK, TMS, TDO, TDI), which are the
/// LCD's E, backlight, D4 and D5 here. MCUCR.JTD must be written twice
/// within four cycles: two back-to-back `out`s. The emulator does not model
/// JTAG; this is for real hardware.
#[inline(always)]
fn disable_jtag() {
    // SAFETY: MCUCR (I/O 0x35) bit 7 is JTD; the other bits (pull-up
    // disable, interrupt vector select) are kept as they are.
    unsafe {
        core::arch::asm!(
            "in {t}, 0x35",
            "ori {t}, 0x80",
            "out 0x35, {t}",
            "out 0x35, {t}",
            t = out(reg_upper) _,
            options(nostack)
        )
    };
}

pub fn init(dp: &Peripherals) {
    disable_jtag();
    // SAFETY (all writes): any bit pattern is a valid DDR/PORT value.
    dp.PORTA.ddra().write(|w| unsafe { w.bits(outputs(Port::A)) });
    dp.PORTA.porta().write(|w| unsafe { w.bits(pull_ups(Port::A)) });
    dp.PORTB.ddrb().write(|w| unsafe { w.bits(outputs(Port::B)) });
    dp.PORTB.portb().write(|w| unsafe { w.bits(pull_ups(Port::B)) });
    dp.PORTC.ddrc().write(|w| unsafe { w.bits(outputs(Port::C)) });
    dp.PORTC.portc().write(|w| unsafe { w.bits(pull_ups(Port::C) | board::LCD_BACKLIGHT.mask()) });
    dp.PORTD.ddrd().write(|w| unsafe { w.bits(outputs(Port::D)) });
    dp.PORTD.portd().write(|w| unsafe { w.bits(pull_ups(Port::D)) });
}

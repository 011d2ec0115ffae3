//! The board's wiring: the one source of truth for which pin does what.
//!
//! The firmware's hardware layer derives its port masks from these constants
//! and `board-sim` wires its LCD, buttons and buzzer models to the same ones,
//! so the two can never disagree.

/// The CPU clock the firmware is timed for.
pub const CPU_HZ: u32 = 8_000_000;
/// Period of the fast task (timer interrupt) in milliseconds.
pub const FAST_TASK_MS: u32 = 25;
/// Baud rate of the serial protocol on USART0: exact at 8 MHz (UBRR0 = 7
/// with U2X0; USB-serial adapters set it, the bridge needs nothing). At
/// 38,400 the line took 26 ms to carry a search's last `info` line and
/// its `bestmove` (about 100 bytes), 3% of a one-second search; now 8 ms.
/// (250,000 would leave the fast task's handler, up to 498 cycles with a
/// key down, more than a frame: see `firmware_serial.rs`.)
pub const SERIAL_BAUD: u32 = 125_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Port {
    A,
    B,
    C,
    D,
}

impl Port {
    /// Index 0..=3 for A..D.
    pub const fn index(self) -> usize {
        self as usize
    }
    pub const fn letter(self) -> char {
        match self {
            Port::A => 'A',
            Port::B => 'B',
            Port::C => 'C',
            Port::D => 'D',
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Pin {
    pub port: Port,
    pub bit: u8,
}

impl Pin {
    pub const fn new(port: Port, bit: u8) -> Pin {
        Pin { port, bit }
    }
    pub const fn mask(self) -> u8 {
        1 << self.bit
    }
}

// HD44780 LCD, 4-bit bus on the high nibble of port C.
pub const LCD_RS: Pin = Pin::new(Port::C, 0);
pub const LCD_RW: Pin = Pin::new(Port::C, 1);
pub const LCD_E: Pin = Pin::new(Port::C, 2);
pub const LCD_BACKLIGHT: Pin = Pin::new(Port::C, 3);
/// D4..D7 of the LCD, in bus order.
pub const LCD_DATA: [Pin; 4] = [
    Pin::new(Port::C, 4),
    Pin::new(Port::C, 5),
    Pin::new(Port::C, 6),
    Pin::new(Port::C, 7),
];
pub const LCD_PORT: Port = Port::C;
/// Bit of D4 inside the LCD port: the data nibble is `port >> LCD_DATA_SHIFT`.
pub const LCD_DATA_SHIFT: u8 = 4;

/// The four push buttons, active low with the internal pull-ups enabled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Button {
    Menu = 0,
    Up = 1,
    Down = 2,
    Enter = 3,
}

impl Button {
    pub const ALL: [Button; 4] = [Button::Menu, Button::Up, Button::Down, Button::Enter];
    pub const fn pin(self) -> Pin {
        BUTTON_PINS[self as usize]
    }
    pub const fn name(self) -> &'static str {
        match self {
            Button::Menu => "MENU",
            Button::Up => "UP",
            Button::Down => "DOWN",
            Button::Enter => "ENTER",
        }
    }
}

pub const BUTTON_PORT: Port = Port::A;
pub const BUTTON_PINS: [Pin; 4] = [
    Pin::new(Port::A, 0),
    Pin::new(Port::A, 1),
    Pin::new(Port::A, 2),
    Pin::new(Port::A, 3),
];
/// Mask of all button bits inside `BUTTON_PORT`.
pub const BUTTON_MASK: u8 = 0x0F;

/// Buzzer on OC1A (Timer/Counter1 compare output A).
pub const BUZZER: Pin = Pin::new(Port::D, 5);
/// USART0 receive and transmit pins.
pub const SERIAL_RXD: Pin = Pin::new(Port::D, 0);
pub const SERIAL_TXD: Pin = Pin::new(Port::D, 1);

/// Every wired pin with its name, for documentation and debugger labels.
pub const PIN_NAMES: [(Pin, &str); 14] = [
    (LCD_RS, "LCD RS"),
    (LCD_RW, "LCD RW"),
    (LCD_E, "LCD E"),
    (LCD_BACKLIGHT, "LCD backlight"),
    (LCD_DATA[0], "LCD D4"),
    (LCD_DATA[1], "LCD D5"),
    (LCD_DATA[2], "LCD D6"),
    (LCD_DATA[3], "LCD D7"),
    (BUTTON_PINS[0], "MENU button"),
    (BUTTON_PINS[1], "UP button"),
    (BUTTON_PINS[2], "DOWN button"),
    (BUTTON_PINS[3], "ENTER button"),
    (BUZZER, "Buzzer (OC1A)"),
    (SERIAL_TXD, "USART0 TXD"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_pin_is_wired_twice() {
        let mut all: [Pin; 16] = [LCD_RS; 16];
        for (i, (p, _)) in PIN_NAMES.iter().enumerate() {
            all[i] = *p;
        }
        all[14] = SERIAL_RXD;
        all[15] = SERIAL_TXD;
        for i in 0..15 {
            for j in i + 1..15 {
                assert_ne!(all[i], all[j], "pin wired twice");
            }
        }
    }

    #[test]
    fn lcd_data_is_the_high_nibble_of_its_port() {
        for (i, p) in LCD_DATA.iter().enumerate() {
            assert_eq!(p.port, LCD_PORT);
            assert_eq!(p.bit, LCD_DATA_SHIFT + i as u8);
        }
        let mut m = 0;
        for b in Button::ALL {
            assert_eq!(b.pin().port, BUTTON_PORT);
            m |= b.pin().mask();
        }
        assert_eq!(m, BUTTON_MASK);
    }
}

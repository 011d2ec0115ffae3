//! The ATmega644 as a declaration: which generic peripheral sits at which
//! addresses, with which bits, pins and vectors (avr-libc's iom644.h; data
//! space addresses, i.e. I/O address + 0x20; vectors numbered from RESET = 0).

use super::counter::TimerVectors;
use super::eeprom::EepromConfig;
use super::watchdog::WatchdogConfig;
use super::extint::ExtIntConfig;
use super::gpio::{GpioConfig, PortRegs};
use super::prescaler::ClockSelect::{self, Div, External, Stopped};
use super::timer16::Timer16Config;
use super::timer8::Timer8Config;
use super::timers::TimersConfig;
use super::unmodelled::{UnmodelledConfig, UnmodelledReg};
use super::usart::UsartConfig;

const B: usize = 1;
const D: usize = 3;

pub static GPIO: GpioConfig = GpioConfig {
    ports: [
        PortRegs { pin: 0x20, ddr: 0x21, port: 0x22 },
        PortRegs { pin: 0x23, ddr: 0x24, port: 0x25 },
        PortRegs { pin: 0x26, ddr: 0x27, port: 0x28 },
        PortRegs { pin: 0x29, ddr: 0x2A, port: 0x2B },
    ],
    mcucr: 0x55,
    ext: ExtIntConfig {
        eicra: 0x69,
        eimsk: 0x3D,
        eifr: 0x3C,
        pcicr: 0x68,
        pcifr: 0x3B,
        pcmsk: [0x6B, 0x6C, 0x6D, 0x73],
        // INT0 = PD2, INT1 = PD3, INT2 = PB2.
        int_pins: [(D, 2), (D, 3), (B, 2)],
        int_vectors: [1, 2, 3],
        pcint_vectors: [4, 5, 6, 7],
    },
};

/// CSn2:0 of TC0 and TC1.
const SYNC_CLOCKS: [ClockSelect; 8] = [Stopped, Div(1), Div(8), Div(64), Div(256), Div(1024), External, External];
/// CS22:0 of TC2 (its own prescaler taps).
const TC2_CLOCKS: [ClockSelect; 8] = [Stopped, Div(1), Div(8), Div(32), Div(64), Div(128), Div(256), Div(1024)];

pub static TIMERS: TimersConfig = TimersConfig {
    gtccr: 0x43,
    tc0: Timer8Config {
        name: "TC0",
        tccra: 0x44,
        tccrb: 0x45,
        tcnt: 0x46,
        ocra: 0x47,
        ocrb: 0x48,
        timsk: 0x6E,
        tifr: 0x35,
        clocks: SYNC_CLOCKS,
        async_prescaler: false,
        assr: None,
        vectors: TimerVectors { compa: 16, compb: 17, ovf: 18, capt: None },
        oc_pins: [(B, 3), (B, 4)],
    },
    tc1: Timer16Config {
        name: "TC1",
        tccra: 0x80,
        tccrb: 0x81,
        tccrc: 0x82,
        tcnt: 0x84,
        icr: 0x86,
        ocra: 0x88,
        ocrb: 0x8A,
        timsk: 0x6F,
        tifr: 0x36,
        clocks: SYNC_CLOCKS,
        vectors: TimerVectors { compa: 13, compb: 14, ovf: 15, capt: Some(12) },
        oc_pins: [(D, 5), (D, 4)],
        icp_pin: (D, 6),
    },
    tc2: Timer8Config {
        name: "TC2",
        tccra: 0xB0,
        tccrb: 0xB1,
        tcnt: 0xB2,
        ocra: 0xB3,
        ocrb: 0xB4,
        timsk: 0x70,
        tifr: 0x37,
        clocks: TC2_CLOCKS,
        async_prescaler: true,
        assr: Some(0xB6),
        vectors: TimerVectors { compa: 9, compb: 10, ovf: 11, capt: None },
        oc_pins: [(D, 7), (D, 6)],
    },
};

pub static USART0: UsartConfig = UsartConfig {
    name: "USART0",
    ucsra: 0xC0,
    ucsrb: 0xC1,
    ucsrc: 0xC2,
    ubrrl: 0xC4,
    ubrrh: 0xC5,
    udr: 0xC6,
    rx_vector: 20,
    udre_vector: 21,
    tx_vector: 22,
    txd: (D, 1),
};

pub static EEPROM: EepromConfig = EepromConfig { eecr: 0x3F, eedr: 0x40, eearl: 0x41, eearh: 0x42, ready_vector: 25 };

pub static WATCHDOG: WatchdogConfig = WatchdogConfig { wdtcsr: 0x60, vector: 8, wdrf: 1 << 3 };

/// Core-owned I/O addresses: SPL, SPH, SREG, GPIOR0..2, SMCR, MCUSR, SPMCSR.
pub const CORE_ADDRESSES: [u16; 9] = [0x5D, 0x5E, 0x5F, 0x3E, 0x4A, 0x4B, 0x53, 0x54, 0x57];

const fn reg(addr: u16, name: &'static str, reset: u8) -> UnmodelledReg {
    UnmodelledReg { addr, name, reset }
}

/// Everything in iom644.h the emulator does not model.
pub static UNMODELLED: [UnmodelledConfig; 9] = [
    UnmodelledConfig {
        name: "ADC",
        note: "Conversions never complete (ADSC and ADIF are not driven); ADCL/ADCH only read back what was written.",
        regs: &[
            reg(0x78, "ADCL", 0),
            reg(0x79, "ADCH", 0),
            reg(0x7A, "ADCSRA", 0),
            reg(0x7B, "ADCSRB", 0),
            reg(0x7C, "ADMUX", 0),
            reg(0x7E, "DIDR0", 0),
        ],
    },
    UnmodelledConfig {
        name: "AC",
        note: "The analog comparator output ACO and flag ACI never change.",
        regs: &[reg(0x50, "ACSR", 0), reg(0x7F, "DIDR1", 0)],
    },
    UnmodelledConfig {
        name: "SPI",
        note: "No transfer happens: SPIF is never set and the SPI pins are not driven.",
        regs: &[reg(0x4C, "SPCR", 0), reg(0x4D, "SPSR", 0), reg(0x4E, "SPDR", 0)],
    },
    UnmodelledConfig {
        name: "TWI",
        note: "No bus activity: TWINT is never set by hardware.",
        regs: &[
            reg(0xB8, "TWBR", 0),
            reg(0xB9, "TWSR", 0xF8),
            reg(0xBA, "TWAR", 0xFE),
            reg(0xBB, "TWDR", 0xFF),
            reg(0xBC, "TWCR", 0),
            reg(0xBD, "TWAMR", 0),
        ],
    },
    UnmodelledConfig {
        name: "USART1",
        note: "iom644.h lists USART1, but the ATmega644 has only USART0; nothing is transmitted.",
        regs: &[
            reg(0xC8, "UCSR1A", 0x20),
            reg(0xC9, "UCSR1B", 0),
            reg(0xCA, "UCSR1C", 0x06),
            reg(0xCC, "UBRR1L", 0),
            reg(0xCD, "UBRR1H", 0),
            reg(0xCE, "UDR1", 0),
        ],
    },
    UnmodelledConfig {
        name: "CLKPR",
        note: "The system clock prescaler is not modelled: the emulated CPU clock does not change.",
        regs: &[reg(0x61, "CLKPR", 0)],
    },
    UnmodelledConfig {
        name: "PRR",
        note: "Power reduction is not modelled: disabled peripherals keep running.",
        regs: &[reg(0x64, "PRR0", 0)],
    },
    UnmodelledConfig {
        name: "OSCCAL",
        note: "Oscillator calibration is not modelled: the clock stays exact (reset value shown: 0x80).",
        regs: &[reg(0x66, "OSCCAL", 0x80)],
    },
    UnmodelledConfig {
        name: "OCD",
        note: "The on-chip debug register has no debugger behind it.",
        regs: &[reg(0x51, "OCDR", 0)],
    },
];

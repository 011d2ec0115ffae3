//! The 16-bit Timer/Counter1: TCCR1A/B/C, TCNT1, OCR1A/B, ICR1 with the
//! shared TEMP register, and input capture on ICP1.
//!
//! 16-bit access goes through TEMP as on silicon: writing a high byte only
//! stores it in TEMP, writing the low byte writes TEMP:low at once; reading
//! the low byte of TCNT1/ICR1 latches the high byte into TEMP, which the
//! high-byte read returns. OCR1A/B reads do not use TEMP.

use super::counter::{Kind, Mode, TimerCore, TimerVectors, Top, ICF};
use super::prescaler::{ClockIo, ClockSelect, Prescaler};
use crate::peripheral::{Ctx, PortIndex};

#[derive(Debug)]
pub struct Timer16Config {
    pub name: &'static str,
    pub tccra: u16,
    pub tccrb: u16,
    pub tccrc: u16,
    /// Low-byte addresses; the high byte follows.
    pub tcnt: u16,
    pub icr: u16,
    pub ocra: u16,
    pub ocrb: u16,
    pub timsk: u16,
    pub tifr: u16,
    pub clocks: [ClockSelect; 8],
    pub vectors: TimerVectors,
    pub oc_pins: [(PortIndex, u8); 2],
    /// The input capture pin ICPn.
    pub icp_pin: (PortIndex, u8),
}

/// WGM13:0.
pub const MODES: [Mode; 16] = [
    Mode::new(Kind::Normal, Top::Max),
    Mode::new(Kind::PhaseCorrect, Top::Fixed(0x00FF)),
    Mode::new(Kind::PhaseCorrect, Top::Fixed(0x01FF)),
    Mode::new(Kind::PhaseCorrect, Top::Fixed(0x03FF)),
    Mode::new(Kind::Ctc, Top::OcrA),
    Mode::new(Kind::FastPwm, Top::Fixed(0x00FF)),
    Mode::new(Kind::FastPwm, Top::Fixed(0x01FF)),
    Mode::new(Kind::FastPwm, Top::Fixed(0x03FF)),
    Mode::new(Kind::PhaseFreqCorrect, Top::Icr),
    Mode::new(Kind::PhaseFreqCorrect, Top::OcrA),
    Mode::new(Kind::PhaseCorrect, Top::Icr),
    Mode::new(Kind::PhaseCorrect, Top::OcrA),
    Mode::new(Kind::Ctc, Top::Icr),
    Mode::new(Kind::Reserved, Top::Max),
    Mode::new(Kind::FastPwm, Top::Icr),
    Mode::new(Kind::FastPwm, Top::OcrA),
];

const ICES: u8 = 1 << 6;
const WGM13: u8 = 1 << 4;
const FOCA: u8 = 1 << 7;
const FOCB: u8 = 1 << 6;

pub struct Timer16 {
    cfg: &'static Timer16Config,
    pub core: TimerCore,
    tccra: u8,
    tccrb: u8,
    temp: u8,
    /// ICP level last seen, for edge detection.
    icp_level: bool,
    warned_external: bool,
    warned_reserved: bool,
}

impl Timer16 {
    pub fn new(cfg: &'static Timer16Config) -> Self {
        Timer16 {
            cfg,
            core: TimerCore::new(cfg.name, 0xFFFF, MODES[0], cfg.vectors, cfg.oc_pins),
            tccra: 0,
            tccrb: 0,
            temp: 0,
            icp_level: false,
            warned_external: false,
            warned_reserved: false,
        }
    }

    pub fn addresses(&self) -> Vec<u16> {
        let c = self.cfg;
        let mut a = vec![c.tccra, c.tccrb, c.tccrc, c.timsk, c.tifr];
        for lo in [c.tcnt, c.icr, c.ocra, c.ocrb] {
            a.extend([lo, lo + 1]);
        }
        a
    }

    pub fn reset(&mut self, base: u64, cx: &Ctx) {
        *self = Timer16::new(self.cfg);
        self.core.base = base;
        self.icp_level = self.icp(cx);
    }

    fn icp(&self, cx: &Ctx) -> bool {
        let (port, bit) = self.cfg.icp_pin;
        cx.pins.level(port) & (1 << bit) != 0
    }

    pub fn read(&mut self, addr: u16, clock: &ClockIo, pre: &Prescaler, cx: &mut Ctx) -> u8 {
        let c = self.cfg;
        if addr == c.tcnt {
            self.core.sync(clock, pre, cx);
            self.temp = (self.core.ctr.count >> 8) as u8;
        } else if addr == c.icr {
            self.temp = (self.core.ctr.icr >> 8) as u8;
        }
        self.peek(addr)
    }

    pub fn peek(&self, addr: u16) -> u8 {
        let c = self.cfg;
        let ctr = &self.core.ctr;
        match addr {
            a if a == c.tccra => self.tccra,
            a if a == c.tccrb => self.tccrb,
            a if a == c.tccrc => 0,
            a if a == c.timsk => self.core.timsk,
            a if a == c.tifr => self.core.tifr,
            a if a == c.tcnt => ctr.count as u8,
            a if a == c.icr => ctr.icr as u8,
            a if a == c.tcnt + 1 || a == c.icr + 1 => self.temp,
            a if a == c.ocra => ctr.ocr_buf[0] as u8,
            a if a == c.ocra + 1 => (ctr.ocr_buf[0] >> 8) as u8,
            a if a == c.ocrb => ctr.ocr_buf[1] as u8,
            a if a == c.ocrb + 1 => (ctr.ocr_buf[1] >> 8) as u8,
            _ => 0,
        }
    }

    pub fn write(&mut self, addr: u16, value: u8, clock: &ClockIo, pre: &Prescaler, cx: &mut Ctx) {
        let c = self.cfg;
        self.core.sync(clock, pre, cx);
        let word = (self.temp as u16) << 8 | value as u16;
        match addr {
            a if a == c.tccra => {
                self.tccra = value & 0xF3;
                self.configure(cx);
            }
            a if a == c.tccrb => {
                self.tccrb = value & 0xDF;
                self.configure(cx);
            }
            a if a == c.tccrc => {
                if value & FOCA != 0 {
                    self.core.ctr.force(0);
                }
                if value & FOCB != 0 {
                    self.core.ctr.force(1);
                }
            }
            a if a == c.timsk => self.core.timsk = value & 0x27,
            a if a == c.tifr => self.core.write_tifr(value, cx),
            a if a == c.tcnt + 1 || a == c.icr + 1 || a == c.ocra + 1 || a == c.ocrb + 1 => self.temp = value,
            a if a == c.tcnt => self.core.write_tcnt(word),
            a if a == c.ocra => self.core.ctr.write_ocr(0, word),
            a if a == c.ocrb => self.core.ctr.write_ocr(1, word),
            // ICR1 is writable only while it defines TOP.
            a if a == c.icr && self.core.ctr.mode.top == Top::Icr => self.core.ctr.icr = word,
            _ => {}
        }
        self.core.refresh_irqs(cx);
        self.core.drive_pins(cx, cx.now);
    }

    fn configure(&mut self, cx: &mut Ctx) {
        let wgm = (self.tccra & 0x03) | ((self.tccrb >> 1) & 0x0C);
        let mode = MODES[wgm as usize];
        if mode.kind == Kind::Reserved && !self.warned_reserved {
            self.warned_reserved = true;
            cx.warn(self.cfg.name, format!("reserved waveform generation mode {wgm}; counting as in normal mode"));
        }
        let ctr = &mut self.core.ctr;
        ctr.set_mode(mode);
        ctr.toggle_a_in_pwm = self.tccrb & WGM13 != 0;
        ctr.com = [self.tccra >> 6, (self.tccra >> 4) & 3];
        let cs = self.cfg.clocks[(self.tccrb & 7) as usize];
        if cs == ClockSelect::External && !self.warned_external {
            self.warned_external = true;
            cx.warn(self.cfg.name, format!("external clock source on the Tn pin is not modelled; {} stands still", self.cfg.name));
        }
        self.core.divisor = cs.divisor();
    }

    /// Looks for an edge on ICP1. The capture happens at the cycle the
    /// change is seen (the noise canceller's 4-cycle delay, ICNC1, and the
    /// synchroniser delay are not modelled). In modes where ICR1 is TOP
    /// there is no capture.
    pub fn watch_icp(&mut self, clock: &ClockIo, pre: &Prescaler, cx: &mut Ctx) {
        let level = self.icp(cx);
        if level == self.icp_level {
            return;
        }
        self.icp_level = level;
        let wanted = self.tccrb & ICES != 0;
        if level == wanted && self.core.ctr.mode.top != Top::Icr {
            self.core.sync(clock, pre, cx);
            self.core.ctr.icr = self.core.ctr.count;
            self.core.tifr |= ICF;
            self.core.refresh_irqs(cx);
        }
    }
}

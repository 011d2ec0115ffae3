//! The 8-bit Timer/Counters (TC0, TC2): TCCRnA/B, TCNTn, OCRnA/B, and the
//! TC2-only ASSR. Counting itself is in [`super::counter`].

use super::counter::{Kind, Mode, TimerCore, TimerVectors, Top};
use super::prescaler::{ClockIo, ClockSelect, Prescaler};
use crate::peripheral::{Ctx, PortIndex};

/// Register addresses, clock selects, vectors and pins of one 8-bit timer.
#[derive(Debug)]
pub struct Timer8Config {
    pub name: &'static str,
    pub tccra: u16,
    pub tccrb: u16,
    pub tcnt: u16,
    pub ocra: u16,
    pub ocrb: u16,
    pub timsk: u16,
    pub tifr: u16,
    /// Meaning of CSn2:0.
    pub clocks: [ClockSelect; 8],
    /// Clocked by the asynchronous-capable prescaler (TC2: GTCCR.PSRASY).
    pub async_prescaler: bool,
    /// ASSR (TC2): asynchronous operation, not modelled.
    pub assr: Option<u16>,
    pub vectors: TimerVectors,
    /// OCnA, OCnB.
    pub oc_pins: [(PortIndex, u8); 2],
}

/// WGMn2:0 of the 8-bit timers.
pub const MODES: [Mode; 8] = [
    Mode::new(Kind::Normal, Top::Max),
    Mode::new(Kind::PhaseCorrect, Top::Max),
    Mode::new(Kind::Ctc, Top::OcrA),
    Mode::new(Kind::FastPwm, Top::Max),
    Mode::new(Kind::Reserved, Top::Max),
    Mode::new(Kind::PhaseCorrect, Top::OcrA),
    Mode::new(Kind::Reserved, Top::Max),
    Mode::new(Kind::FastPwm, Top::OcrA),
];

const FOCA: u8 = 1 << 7;
const FOCB: u8 = 1 << 6;
const WGM2: u8 = 1 << 3;
const AS2: u8 = 1 << 5;
const EXCLK: u8 = 1 << 6;

pub struct Timer8 {
    cfg: &'static Timer8Config,
    pub core: TimerCore,
    tccra: u8,
    tccrb: u8,
    assr: u8,
    warned_external: bool,
    warned_reserved: bool,
    warned_async: bool,
}

impl Timer8 {
    pub fn new(cfg: &'static Timer8Config) -> Self {
        Timer8 {
            cfg,
            core: TimerCore::new(cfg.name, 0xFF, MODES[0], cfg.vectors, cfg.oc_pins),
            tccra: 0,
            tccrb: 0,
            assr: 0,
            warned_external: false,
            warned_reserved: false,
            warned_async: false,
        }
    }

    pub fn uses_async_prescaler(&self) -> bool {
        self.cfg.async_prescaler
    }

    pub fn addresses(&self) -> Vec<u16> {
        let c = self.cfg;
        let mut a = vec![c.tccra, c.tccrb, c.tcnt, c.ocra, c.ocrb, c.timsk, c.tifr];
        a.extend(c.assr);
        a
    }

    /// Back to the reset state; the caller rebases and redrives pins.
    pub fn reset(&mut self, base: u64) {
        *self = Timer8::new(self.cfg);
        self.core.base = base;
    }

    pub fn read(&mut self, addr: u16, clock: &ClockIo, pre: &Prescaler, cx: &mut Ctx) -> u8 {
        if addr == self.cfg.tcnt {
            self.core.sync(clock, pre, cx);
        }
        self.peek(addr)
    }

    pub fn peek(&self, addr: u16) -> u8 {
        let c = self.cfg;
        match addr {
            a if a == c.tccra => self.tccra,
            a if a == c.tccrb => self.tccrb,
            a if a == c.tcnt => self.core.ctr.count as u8,
            a if a == c.ocra => self.core.ctr.ocr_buf[0] as u8,
            a if a == c.ocrb => self.core.ctr.ocr_buf[1] as u8,
            a if a == c.timsk => self.core.timsk,
            a if a == c.tifr => self.core.tifr,
            a if Some(a) == c.assr => self.assr,
            _ => 0,
        }
    }

    pub fn write(&mut self, addr: u16, value: u8, clock: &ClockIo, pre: &Prescaler, cx: &mut Ctx) {
        let c = self.cfg;
        self.core.sync(clock, pre, cx);
        match addr {
            a if a == c.tccra => {
                self.tccra = value & 0xF3;
                self.configure(cx);
            }
            a if a == c.tccrb => {
                // FOC bits are strobes: they act now and read as zero.
                self.tccrb = value & 0x0F;
                self.configure(cx);
                if value & FOCA != 0 {
                    self.core.ctr.force(0);
                }
                if value & FOCB != 0 {
                    self.core.ctr.force(1);
                }
            }
            a if a == c.tcnt => self.core.write_tcnt(value as u16),
            a if a == c.ocra => self.core.ctr.write_ocr(0, value as u16),
            a if a == c.ocrb => self.core.ctr.write_ocr(1, value as u16),
            a if a == c.timsk => self.core.timsk = value & 0x07,
            a if a == c.tifr => self.core.write_tifr(value, cx),
            a if Some(a) == c.assr => {
                // The update-busy bits read as zero: writes take effect at once.
                self.assr = value & (AS2 | EXCLK);
                if self.assr != 0 && !self.warned_async {
                    self.warned_async = true;
                    cx.warn(c.name, format!("asynchronous operation (ASSR = {value:#04x}) is not modelled; {} keeps counting from clk_IO", c.name));
                }
            }
            _ => {}
        }
        self.core.refresh_irqs(cx);
        self.core.drive_pins(cx, cx.now);
    }

    /// Decodes TCCRnA/B into the counter's mode, outputs and clock.
    fn configure(&mut self, cx: &mut Ctx) {
        let wgm = (self.tccra & 0x03) | ((self.tccrb & WGM2) >> 1);
        let mode = MODES[wgm as usize];
        if mode.kind == Kind::Reserved && !self.warned_reserved {
            self.warned_reserved = true;
            cx.warn(self.cfg.name, format!("reserved waveform generation mode {wgm}; counting as in normal mode"));
        }
        let ctr = &mut self.core.ctr;
        ctr.set_mode(mode);
        ctr.toggle_a_in_pwm = self.tccrb & WGM2 != 0;
        ctr.com = [self.tccra >> 6, (self.tccra >> 4) & 3];
        let cs = self.cfg.clocks[(self.tccrb & 7) as usize];
        if cs == ClockSelect::External && !self.warned_external {
            self.warned_external = true;
            cx.warn(self.cfg.name, format!("external clock source on the Tn pin is not modelled; {} stands still", self.cfg.name));
        }
        self.core.divisor = cs.divisor();
    }
}

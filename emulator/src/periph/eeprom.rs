//! The data EEPROM: EEARH/L, EEDR, EECR.
//!
//! Programming is self-timed by the chip's own oscillator, so its duration
//! is wall time (3.4 ms erase+write, 1.8 ms erase or write only) converted
//! to CPU cycles with the CPU clock. EEPE stays set until it ends; the
//! EE_READY interrupt is a level: requested while EEPE = 0 and EERIE = 1.

use crate::peripheral::{Ctx, Peripheral, NEVER};

/// Bytes of EEPROM (E2END + 1).
pub const EEPROM_SIZE: usize = 2048;

#[derive(Debug)]
pub struct EepromConfig {
    pub eecr: u16,
    pub eedr: u16,
    pub eearl: u16,
    pub eearh: u16,
    pub ready_vector: u8,
}

const EERIE: u8 = 1 << 3;
const EEMPE: u8 = 1 << 2;
const EEPE: u8 = 1 << 1;
const EERE: u8 = 1 << 0;
/// EEMPE stays set this many cycles after it is written.
const EEMPE_WINDOW: u64 = 4;
/// CPU halt after starting a write / after a read.
const WRITE_STALL: u32 = 2;
const READ_STALL: u32 = 4;

/// A programming operation in flight.
#[derive(Clone, Copy, Debug)]
struct Programming {
    addr: usize,
    value: u8,
    mode: u8,
    done: u64,
}

pub struct Eeprom {
    cfg: &'static EepromConfig,
    clock_hz: u64,
    data: Box<[u8; EEPROM_SIZE]>,
    eear: u16,
    eedr: u8,
    eepm: u8,
    eerie: bool,
    /// Cycle EEMPE was set.
    mempe_at: Option<u64>,
    busy: Option<Programming>,
    /// Latest cycle seen, for `peek` of the self-clearing EEMPE.
    now: u64,
}

impl Eeprom {
    /// An erased EEPROM (all 0xFF) for a CPU at `clock_hz`.
    pub fn new(cfg: &'static EepromConfig, clock_hz: u64) -> Self {
        Eeprom {
            cfg,
            clock_hz,
            data: Box::new([0xFF; EEPROM_SIZE]),
            eear: 0,
            eedr: 0,
            eepm: 0,
            eerie: false,
            mempe_at: None,
            busy: None,
            now: 0,
        }
    }

    pub fn contents(&self) -> &[u8; EEPROM_SIZE] {
        &self.data
    }

    /// Replaces the whole contents (e.g. from an .eep file).
    pub fn load(&mut self, bytes: &[u8]) -> Result<(), String> {
        let data: [u8; EEPROM_SIZE] = bytes
            .try_into()
            .map_err(|_| format!("EEPROM image is {} bytes, the ATmega644 has {EEPROM_SIZE}", bytes.len()))?;
        *self.data = data;
        Ok(())
    }

    /// Loads the contents from a raw 2 KB image file (what [`Eeprom::save_file`]
    /// writes). A file of the wrong size is an error and changes nothing.
    pub fn load_file(&mut self, path: &std::path::Path) -> Result<(), String> {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read EEPROM image {}: {e}", path.display()))?;
        self.load(&bytes).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Writes the contents as a raw 2 KB image, atomically (a temporary file
    /// renamed over the old one), so a crash never leaves half an image.
    pub fn save_file(&self, path: &std::path::Path) -> Result<(), String> {
        let tmp = path.with_extension("tmp");
        std::fs::write(&tmp, &self.data[..]).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
        std::fs::rename(&tmp, path).map_err(|e| format!("cannot write EEPROM image {}: {e}", path.display()))
    }

    /// CPU cycles an EEPM mode takes: 3.4 ms for erase+write, else 1.8 ms.
    pub fn programming_cycles(&self, eepm: u8) -> u64 {
        let tenth_ms = if eepm == 0 { 34 } else { 18 };
        self.clock_hz * tenth_ms / 10_000
    }

    fn mempe(&self, now: u64) -> bool {
        self.mempe_at.is_some_and(|t| now <= t + EEMPE_WINDOW)
    }

    fn eecr(&self, now: u64) -> u8 {
        self.eepm << 4 | (self.eerie as u8) << 3 | (self.mempe(now) as u8) << 2 | (self.busy.is_some() as u8) << 1
    }

    fn finish(&mut self) {
        if let Some(p) = self.busy.take() {
            let cell = &mut self.data[p.addr];
            *cell = match p.mode {
                0 => p.value,
                1 => 0xFF,
                // Write only: bits can only be programmed to 0.
                _ => *cell & p.value,
            };
        }
    }

    fn write_eecr(&mut self, value: u8, cx: &mut Ctx) {
        self.eerie = value & EERIE != 0;
        if self.busy.is_some() {
            // EEPM, EEMPE, EEPE and EERE are ignored while programming.
            return;
        }
        self.eepm = (value >> 4) & 3;
        if value & EEPE != 0 && self.mempe(cx.now) {
            self.busy = Some(Programming {
                addr: self.eear as usize % EEPROM_SIZE,
                value: self.eedr,
                mode: self.eepm,
                done: cx.now + self.programming_cycles(self.eepm),
            });
            self.mempe_at = None;
            *cx.stall += WRITE_STALL;
        } else if value & EEMPE != 0 {
            self.mempe_at = Some(cx.now);
        }
        if value & EERE != 0 && self.busy.is_none() {
            self.eedr = self.data[self.eear as usize % EEPROM_SIZE];
            *cx.stall += READ_STALL;
        }
    }
}

impl Peripheral for Eeprom {
    fn name(&self) -> &'static str {
        "EEPROM"
    }

    fn addresses(&self) -> Vec<u16> {
        let c = self.cfg;
        vec![c.eecr, c.eedr, c.eearl, c.eearh]
    }

    fn vectors(&self) -> Vec<u8> {
        vec![self.cfg.ready_vector]
    }

    fn read(&mut self, addr: u16, cx: &mut Ctx) -> u8 {
        self.update(cx);
        self.peek(addr)
    }

    fn write(&mut self, addr: u16, value: u8, cx: &mut Ctx) {
        self.update(cx);
        let c = self.cfg;
        match addr {
            a if a == c.eecr => self.write_eecr(value, cx),
            a if a == c.eedr => self.eedr = value,
            a if a == c.eearl => self.eear = (self.eear & 0x0700) | value as u16,
            a if a == c.eearh => self.eear = (self.eear & 0xFF) | (value as u16 & 0x07) << 8,
            _ => {}
        }
        self.update(cx);
    }

    fn peek(&self, addr: u16) -> u8 {
        let c = self.cfg;
        match addr {
            a if a == c.eecr => self.eecr(self.now),
            a if a == c.eedr => self.eedr,
            a if a == c.eearl => self.eear as u8,
            a if a == c.eearh => (self.eear >> 8) as u8,
            _ => 0,
        }
    }

    fn update(&mut self, cx: &mut Ctx) -> u64 {
        self.now = self.now.max(cx.now);
        if self.busy.is_some_and(|p| p.done <= cx.now) {
            self.finish();
        }
        cx.set_irq(self.cfg.ready_vector, self.busy.is_none() && self.eerie);
        self.busy.map_or(NEVER, |p| p.done)
    }

    /// A reset lets a write in flight land (the cell is already being
    /// programmed); the registers return to their reset values.
    fn reset(&mut self, cx: &mut Ctx) {
        self.finish();
        let data = std::mem::replace(&mut self.data, Box::new([0xFF; EEPROM_SIZE]));
        *self = Eeprom::new(self.cfg, self.clock_hz);
        self.data = data;
        self.now = cx.now;
        cx.set_irq(self.cfg.ready_vector, false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::periph::atmega644::EEPROM;
    use crate::periph::bench::Bench;

    const EECR: u16 = 0x3F;
    const EEDR: u16 = 0x40;
    const EEARL: u16 = 0x41;
    const EEARH: u16 = 0x42;
    const EE_READY: u8 = 25;

    fn setup() -> (Eeprom, Bench) {
        let mut e = Eeprom::new(&EEPROM, 8_000_000);
        let mut b = Bench::new();
        b.reset(&mut e);
        (e, b)
    }

    #[test]
    fn contents_persist_through_a_file_and_bad_images_change_nothing() {
        let dir = tempfile::Builder::new().prefix("eeprom-test-").tempdir().unwrap();
        let path = dir.path().join("board.eep");
        let (mut e, _) = setup();
        let mut image = [0xFFu8; EEPROM_SIZE];
        image[0] = b'C';
        image[EEPROM_SIZE - 1] = 0x42;
        e.load(&image).unwrap();
        e.save_file(&path).unwrap();
        let (mut f, _) = setup();
        f.load_file(&path).unwrap();
        assert_eq!(f.contents(), e.contents());
        std::fs::write(&path, [1, 2, 3]).unwrap();
        let err = f.load_file(&path).unwrap_err();
        assert!(err.contains("3 bytes"), "{err}");
        assert_eq!(f.contents()[0], b'C', "a bad image must not change the contents");
        assert!(f.load_file(&dir.path().join("missing.eep")).unwrap_err().contains("cannot read"));
    }

    #[test]
    fn write_takes_3_4_ms_and_halts_the_cpu_two_cycles() {
        let (mut e, mut b) = setup();
        b.write(&mut e, 0, EEARH, 0x07);
        b.write(&mut e, 0, EEARL, 0xFF);
        b.write(&mut e, 0, EEDR, 0x5A);
        b.write(&mut e, 100, EECR, EEMPE);
        b.write(&mut e, 102, EECR, EEPE);
        assert_eq!(b.stall, 2);
        assert_eq!(e.peek(EECR) & EEPE, EEPE);
        assert_eq!(b.next, 102 + 27_200);
        b.write(&mut e, 200, EECR, EERIE);
        assert!(!b.irq(EE_READY));
        assert_eq!(b.first_irq(&mut e, EE_READY, 100_000), Some(102 + 27_200));
        assert_eq!(e.contents()[0x7FF], 0x5A);
        assert_eq!(e.peek(EECR) & EEPE, 0);
    }

    #[test]
    fn eempe_window_is_four_cycles() {
        let (mut e, mut b) = setup();
        b.write(&mut e, 10, EECR, EEMPE);
        assert_eq!(b.read(&mut e, 14, EECR) & EEMPE, EEMPE);
        assert_eq!(b.read(&mut e, 15, EECR) & EEMPE, 0);
        b.write(&mut e, 15, EECR, EEPE);
        assert_eq!(b.next, NEVER, "too late: no write");
        // EEMPE and EEPE in one write do not start a write either.
        b.write(&mut e, 20, EECR, EEMPE | EEPE);
        assert_eq!(e.peek(EECR) & EEPE, 0);
    }

    #[test]
    fn read_halts_four_cycles_and_modes_erase_or_write_only() {
        let (mut e, mut b) = setup();
        e.load(&[0x0F; EEPROM_SIZE]).unwrap();
        assert!(e.load(&[0; 10]).is_err());
        b.write(&mut e, 0, EEARL, 3);
        b.write(&mut e, 1, EECR, EERE);
        assert_eq!(b.stall, 4);
        assert_eq!(e.peek(EEDR), 0x0F);
        // Write only (EEPM = 2) ANDs; 1.8 ms.
        b.write(&mut e, 10, EEDR, 0x3C);
        b.write(&mut e, 10, EECR, 0x20 | EEMPE);
        b.write(&mut e, 12, EECR, 0x20 | EEPE);
        assert_eq!(b.next, 12 + 14_400);
        // EERE is ignored while programming.
        b.write(&mut e, 20, EECR, 0x20 | EERE);
        b.run(&mut e, 20_000);
        assert_eq!(e.contents()[3], 0x0C);
        // Erase only.
        b.write(&mut e, 20_000, EECR, 0x10 | EEMPE);
        b.write(&mut e, 20_001, EECR, 0x10 | EEPE);
        b.run(&mut e, 40_000);
        assert_eq!(e.contents()[3], 0xFF);
    }

    #[test]
    fn contents_survive_reset_and_start_erased() {
        let (mut e, mut b) = setup();
        assert!(e.contents().iter().all(|&x| x == 0xFF));
        b.write(&mut e, 0, EEDR, 1);
        b.write(&mut e, 0, EECR, EEMPE);
        b.write(&mut e, 1, EECR, EEPE);
        e.reset(&mut b.cx(5));
        assert_eq!(e.contents()[0], 1);
        assert_eq!(e.peek(EECR), 0);
    }
}

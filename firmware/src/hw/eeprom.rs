//! The 2 KB EEPROM: byte access and the save record at address 0.
//!
//! Writes follow the datasheet: wait for EEPE to clear, set address and
//! data, then (interrupts off) EEMPE and within four cycles EEPE, done here
//! with two back-to-back `sbi` (EEPE is set two cycles after EEMPE). A write
//! takes about 3.4 ms, during which the background busy-waits with
//! interrupts enabled.

use avr_device::atmega644::EEPROM;
use avr_device::interrupt;
use firmware::savegame::{self, SaveError, CRC_LEN, HEADER_LEN};

/// EEPROM size in bytes.
pub const SIZE: u16 = 2048;
/// Where the save record starts.
pub const SAVE_ADDR: u16 = 0;
const _: () = assert!(SAVE_ADDR as usize + savegame::MAX_RECORD <= SIZE as usize);

const EERE: u8 = 1 << 0;
const EEPE: u8 = 1 << 1;

fn regs() -> &'static avr_device::atmega644::eeprom::RegisterBlock {
    // SAFETY: the EEPROM registers belong to this module, and no interrupt
    // handler uses them.
    unsafe { &*EEPROM::ptr() }
}

fn wait_idle() {
    while regs().eecr().read().bits() & EEPE != 0 {}
}

/// Reads the byte at `addr` (wrapped into the EEPROM).
pub fn read_byte(addr: u16) -> u8 {
    let r = regs();
    wait_idle();
    // SAFETY: any address below SIZE is valid; EERE starts the read, which
    // completes before the next instruction (the CPU halts 4 cycles).
    r.eear().write(|w| unsafe { w.bits(addr % SIZE) });
    r.eecr().write(|w| unsafe { w.bits(EERE) });
    r.eedr().read().bits()
}

/// Writes `value` at `addr` (erase + write), skipped when it is already
/// there to spare time and wear.
pub fn write_byte(addr: u16, value: u8) {
    if read_byte(addr) == value {
        return;
    }
    let r = regs();
    wait_idle();
    // SAFETY: documented register values; EEPM = 00 (erase and write).
    r.eear().write(|w| unsafe { w.bits(addr % SIZE) });
    r.eedr().write(|w| unsafe { w.bits(value) });
    r.eecr().write(|w| unsafe { w.bits(0) });
    interrupt::free(|_| {
        // SAFETY: EECR is I/O address 0x1F; EEMPE (bit 2) then EEPE (bit 1)
        // two cycles later, with interrupts off, as the datasheet requires.
        unsafe { core::arch::asm!("sbi 0x1f, 2", "sbi 0x1f, 1", options(nostack, preserves_flags)) };
    });
}

pub fn read(addr: u16, buf: &mut [u8]) {
    for (i, b) in buf.iter_mut().enumerate() {
        *b = read_byte(addr.wrapping_add(i as u16));
    }
}

pub fn write(addr: u16, data: &[u8]) {
    for (i, &b) in data.iter().enumerate() {
        write_byte(addr.wrapping_add(i as u16), b);
    }
}

/// Saves `payload` as the record at [`SAVE_ADDR`]. Takes ~3.4 ms per byte
/// that changed.
pub fn save(payload: &[u8]) -> Result<(), SaveError> {
    let h = savegame::header(payload.len())?;
    let crc = savegame::record_crc(&h, payload).to_be_bytes();
    let mut at = SAVE_ADDR;
    write(at, &h);
    at += HEADER_LEN as u16;
    write(at, payload);
    at += payload.len() as u16;
    write(at, &crc);
    Ok(())
}

/// Loads the record at [`SAVE_ADDR`] into `buf`; returns the payload length.
pub fn load(buf: &mut [u8]) -> Result<usize, SaveError> {
    let mut h = [0u8; HEADER_LEN];
    read(SAVE_ADDR, &mut h);
    let len = savegame::parse_header(&h, buf.len())?;
    let mut at = SAVE_ADDR + HEADER_LEN as u16;
    read(at, &mut buf[..len]);
    at += len as u16;
    let mut crc = [0u8; CRC_LEN];
    read(at, &mut crc);
    savegame::verify(&h, &buf[..len], crc)?;
    Ok(len)
}

/// Erases the save record (makes `load` report `Blank`).
pub fn erase_save() {
    for i in 0..HEADER_LEN as u16 {
        write_byte(SAVE_ADDR + i, 0xFF);
    }
}

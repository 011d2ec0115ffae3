//! avr-gdb's flat 32-bit addresses onto the chip's memories, and its
//! register file onto the CPU.
//!
//! | gdb address          | memory                                        |
//! |----------------------|-----------------------------------------------|
//! | 0x000000..=0x00FFFF  | flash (byte addresses; PC = 2 × word address) |
//! | 0x800000..=0x8010FF  | data space: r0..r31, I/O, SRAM                |
//! | 0x810000..=0x8107FF  | EEPROM                                        |
//!
//! Reads have no side effects (I/O registers are peeked). Data writes go
//! through the peripheral, as the CPU's would; flash writes re-decode.

use super::arch::{AvrRegId, AvrRegs};
use emulator::device::{EEPROM_BYTES, FLASH_BYTES, RAMEND};
use emulator::periph::Eeprom;
use emulator::Avr;

/// Where avr-gdb puts the data space.
pub const DATA_BASE: u32 = 0x80_0000;
/// Where avr-gdb puts the EEPROM.
pub const EEPROM_BASE: u32 = 0x81_0000;
/// End (exclusive) of the EEPROM window.
const EEPROM_WINDOW_END: u32 = 0x82_0000;

/// A gdb address resolved to one memory and an offset in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    Flash(u32),
    Data(u16),
    Eeprom(u16),
}

/// A write gdb asked for that the chip cannot take: outside every memory,
/// across the end of one, or a register value of the wrong size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rejected;

/// Resolves a gdb address; `None` outside every memory.
pub fn locate(addr: u32) -> Option<Location> {
    match addr {
        a if a < DATA_BASE => ((a as usize) < FLASH_BYTES).then_some(Location::Flash(a)),
        a if a < EEPROM_BASE => {
            let off = a - DATA_BASE;
            (off <= RAMEND as u32).then_some(Location::Data(off as u16))
        }
        a if a < EEPROM_WINDOW_END => {
            let off = a - EEPROM_BASE;
            ((off as usize) < EEPROM_BYTES).then_some(Location::Eeprom(off as u16))
        }
        _ => None,
    }
}

/// The data-space address gdb means, if `addr` is in the data window
/// (watchpoints are only for data).
pub fn data_addr(addr: u32) -> Option<u16> {
    match locate(addr) {
        Some(Location::Data(a)) => Some(a),
        _ => None,
    }
}

/// Reads from `addr` into `buf`; returns how many bytes could be read (a
/// read stops at the end of a memory).
pub fn read(avr: &Avr, addr: u32, buf: &mut [u8]) -> usize {
    let eeprom = avr.peripheral::<Eeprom>().map(|e| e.contents());
    for (i, slot) in buf.iter_mut().enumerate() {
        let Some(a) = addr.checked_add(i as u32) else { return i };
        let value = match locate(a) {
            Some(Location::Flash(f)) => Some(avr.flash()[f as usize]),
            Some(Location::Data(d)) => avr.read_data(d),
            Some(Location::Eeprom(e)) => eeprom.map(|c| c[e as usize]),
            None => None,
        };
        match value {
            Some(v) => *slot = v,
            None => return i,
        }
    }
    buf.len()
}

/// Writes `bytes` at `addr`. Fails, writing nothing, unless the whole
/// range lies inside one memory.
pub fn write(avr: &mut Avr, addr: u32, bytes: &[u8]) -> Result<(), Rejected> {
    if bytes.is_empty() {
        return Ok(());
    }
    let last = addr.checked_add(bytes.len() as u32 - 1).ok_or(Rejected)?;
    match (locate(addr).ok_or(Rejected)?, locate(last).ok_or(Rejected)?) {
        (Location::Flash(f), Location::Flash(_)) => avr.write_flash(f, bytes),
        (Location::Data(d), Location::Data(_)) => {
            for (i, &b) in bytes.iter().enumerate() {
                avr.write_data(d + i as u16, b);
            }
        }
        (Location::Eeprom(e), Location::Eeprom(_)) => {
            let eeprom = avr.peripheral_mut::<Eeprom>().ok_or(Rejected)?;
            let mut contents = *eeprom.contents();
            contents[e as usize..e as usize + bytes.len()].copy_from_slice(bytes);
            eeprom.load(&contents).map_err(|_| Rejected)?;
        }
        _ => return Err(Rejected),
    }
    Ok(())
}

/// The CPU registers in avr-gdb's layout.
pub fn read_regs(avr: &Avr) -> AvrRegs {
    AvrRegs { r: avr.regs(), sreg: avr.sreg(), sp: avr.sp(), pc: avr.pc() * 2 }
}

/// Sets the CPU registers from avr-gdb's layout (PC is a byte address).
pub fn write_regs(avr: &mut Avr, regs: &AvrRegs) {
    for (i, &v) in regs.r.iter().enumerate() {
        avr.set_reg(i as u8, v);
    }
    avr.set_sreg(regs.sreg);
    avr.set_sp(regs.sp);
    avr.set_pc(regs.pc / 2);
}

/// One register as little-endian bytes of its protocol size.
pub fn read_reg(avr: &Avr, id: AvrRegId) -> Vec<u8> {
    match id {
        AvrRegId::R(r) => vec![avr.reg(r)],
        AvrRegId::Sreg => vec![avr.sreg()],
        AvrRegId::Sp => avr.sp().to_le_bytes().to_vec(),
        AvrRegId::Pc => (avr.pc() * 2).to_le_bytes().to_vec(),
    }
}

/// Sets one register from little-endian bytes (missing high bytes are 0).
pub fn write_reg(avr: &mut Avr, id: AvrRegId, val: &[u8]) -> Result<(), Rejected> {
    if val.is_empty() || val.len() > id.size() {
        return Err(Rejected);
    }
    let mut le = [0u8; 4];
    le[..val.len()].copy_from_slice(val);
    let v = u32::from_le_bytes(le);
    match id {
        AvrRegId::R(r) => avr.set_reg(r, v as u8),
        AvrRegId::Sreg => avr.set_sreg(v as u8),
        AvrRegId::Sp => avr.set_sp(v as u16),
        AvrRegId::Pc => avr.set_pc(v / 2),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_resolve_to_avr_gdb_spaces() {
        assert_eq!(locate(0), Some(Location::Flash(0)));
        assert_eq!(locate(0xFFFF), Some(Location::Flash(0xFFFF)));
        assert_eq!(locate(0x1_0000), None);
        assert_eq!(locate(0x80_0000), Some(Location::Data(0)));
        assert_eq!(locate(0x80_0100), Some(Location::Data(0x100)));
        assert_eq!(locate(0x80_10FF), Some(Location::Data(0x10FF)));
        assert_eq!(locate(0x80_1100), None);
        assert_eq!(locate(0x81_0000), Some(Location::Eeprom(0)));
        assert_eq!(locate(0x81_07FF), Some(Location::Eeprom(0x7FF)));
        assert_eq!(locate(0x81_0800), None);
        assert_eq!(locate(0x82_0000), None);
        assert_eq!(data_addr(0x80_0060), Some(0x60));
        assert_eq!(data_addr(0x60), None);
    }
}

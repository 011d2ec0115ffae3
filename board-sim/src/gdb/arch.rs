//! The AVR as avr-gdb sees it (`gdbstub_arch` has no AVR).
//!
//! avr-gdb's raw registers, in `g` packet order (gdb/avr-tdep.c): r0..r31
//! (1 byte each), SREG (1 byte), SP (2 bytes), PC (4 bytes, a *byte*
//! address in flash); 39 bytes, little-endian. Addresses are 32-bit: flash
//! at 0, data (registers, I/O, SRAM) at 0x800000, EEPROM at 0x810000 (see
//! [`super::memory`]).

use gdbstub::arch::{Arch, RegId, Registers};
use std::num::NonZeroUsize;

/// The ATmega644 for gdbstub.
pub enum AvrArch {}

impl Arch for AvrArch {
    type Usize = u32;
    type Registers = AvrRegs;
    /// avr-gdb sends kind 2 (the size of BREAK); any kind is accepted.
    type BreakpointKind = usize;
    type RegId = AvrRegId;
}

/// Bytes of a `g` packet.
pub const G_PACKET_BYTES: usize = 32 + 1 + 2 + 4;

/// The registers in avr-gdb's layout.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AvrRegs {
    pub r: [u8; 32],
    pub sreg: u8,
    pub sp: u16,
    /// Byte address in flash (the emulator's word PC times two).
    pub pc: u32,
}

impl Registers for AvrRegs {
    type ProgramCounter = u32;

    fn pc(&self) -> u32 {
        self.pc
    }

    fn gdb_serialize(&self, mut write_byte: impl FnMut(Option<u8>)) {
        for b in self.r {
            write_byte(Some(b));
        }
        write_byte(Some(self.sreg));
        for b in self.sp.to_le_bytes() {
            write_byte(Some(b));
        }
        for b in self.pc.to_le_bytes() {
            write_byte(Some(b));
        }
    }

    fn gdb_deserialize(&mut self, bytes: &[u8]) -> Result<(), ()> {
        if bytes.len() != G_PACKET_BYTES {
            return Err(());
        }
        self.r.copy_from_slice(&bytes[..32]);
        self.sreg = bytes[32];
        self.sp = u16::from_le_bytes([bytes[33], bytes[34]]);
        self.pc = u32::from_le_bytes([bytes[35], bytes[36], bytes[37], bytes[38]]);
        Ok(())
    }
}

/// One register, by avr-gdb's register number (`p`/`P` packets).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AvrRegId {
    /// r0..r31 (numbers 0..=31).
    R(u8),
    /// Number 32.
    Sreg,
    /// Number 33, 2 bytes.
    Sp,
    /// Number 34, 4 bytes, byte address.
    Pc,
}

impl AvrRegId {
    /// Size in bytes in the protocol.
    pub fn size(self) -> usize {
        match self {
            AvrRegId::R(_) | AvrRegId::Sreg => 1,
            AvrRegId::Sp => 2,
            AvrRegId::Pc => 4,
        }
    }
}

impl RegId for AvrRegId {
    fn from_raw_id(id: usize) -> Option<(Self, Option<NonZeroUsize>)> {
        let reg = match id {
            0..=31 => AvrRegId::R(id as u8),
            32 => AvrRegId::Sreg,
            33 => AvrRegId::Sp,
            34 => AvrRegId::Pc,
            _ => return None,
        };
        Some((reg, NonZeroUsize::new(reg.size())))
    }

    fn to_raw_id(&self) -> Option<usize> {
        Some(match *self {
            AvrRegId::R(r) => r as usize,
            AvrRegId::Sreg => 32,
            AvrRegId::Sp => 33,
            AvrRegId::Pc => 34,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_packet_round_trips_in_avr_gdb_order() {
        let mut regs = AvrRegs { sreg: 0x82, sp: 0x10FD, pc: 0x0400, ..AvrRegs::default() };
        for (i, r) in regs.r.iter_mut().enumerate() {
            *r = i as u8 * 3;
        }
        let mut bytes = Vec::new();
        regs.gdb_serialize(|b| bytes.push(b.unwrap()));
        assert_eq!(bytes.len(), G_PACKET_BYTES);
        assert_eq!(bytes[31], 93);
        assert_eq!(&bytes[32..], &[0x82, 0xFD, 0x10, 0x00, 0x04, 0x00, 0x00]);
        let mut back = AvrRegs::default();
        back.gdb_deserialize(&bytes).unwrap();
        assert_eq!(back, regs);
        assert!(back.gdb_deserialize(&bytes[..38]).is_err());
    }

    #[test]
    fn register_numbers_and_sizes() {
        assert_eq!(AvrRegId::from_raw_id(5).map(|(r, s)| (r, s.unwrap().get())), Some((AvrRegId::R(5), 1)));
        assert_eq!(AvrRegId::from_raw_id(33).map(|(r, s)| (r, s.unwrap().get())), Some((AvrRegId::Sp, 2)));
        assert_eq!(AvrRegId::from_raw_id(34).map(|(r, s)| (r, s.unwrap().get())), Some((AvrRegId::Pc, 4)));
        assert!(AvrRegId::from_raw_id(35).is_none());
        assert_eq!(AvrRegId::Sreg.to_raw_id(), Some(32));
    }
}

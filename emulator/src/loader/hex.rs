//! Intel HEX loading (record types 00, 01, 02, 03, 04, 05; checksums verified).

use super::{LoadError, Program};
use crate::device::FLASH_BYTES;

/// Parses Intel HEX text into a flash image.
pub fn parse(text: &str) -> Result<Program, LoadError> {
    let mut flash: Vec<u8> = Vec::new();
    let mut base: u32 = 0;
    let mut seen_eof = false;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let err = |message: &str| LoadError::Hex { line, message: message.to_string() };
        let raw = raw.trim();
        if raw.is_empty() {
            continue;
        }
        if seen_eof {
            return Err(err("data after the end-of-file record"));
        }
        let hex = raw.strip_prefix(':').ok_or_else(|| err("record does not start with ':'"))?;
        if hex.len() % 2 != 0 || hex.len() < 10 {
            return Err(err("record too short or of odd length"));
        }
        let bytes = (0..hex.len() / 2)
            .map(|i| hex.get(2 * i..2 * i + 2).and_then(|s| u8::from_str_radix(s, 16).ok()))
            .collect::<Option<Vec<u8>>>()
            .ok_or_else(|| err("invalid hex digit"))?;
        let count = bytes[0] as usize;
        if bytes.len() != count + 5 {
            return Err(err("byte count does not match the record length"));
        }
        let sum = bytes.iter().fold(0u8, |a, &b| a.wrapping_add(b));
        if sum != 0 {
            return Err(err("checksum mismatch"));
        }
        let offset = u16::from_be_bytes([bytes[1], bytes[2]]) as u32;
        let data = &bytes[4..4 + count];
        match bytes[3] {
            0x00 => {
                let start = base as u64 + offset as u64;
                let end = start + count as u64;
                if end > FLASH_BYTES as u64 {
                    return Err(LoadError::FlashOverflow { end });
                }
                let (start, end) = (start as usize, end as usize);
                if flash.len() < end {
                    flash.resize(end, 0xFF);
                }
                flash[start..end].copy_from_slice(data);
            }
            0x01 => seen_eof = true,
            0x02 if count == 2 => base = (u16::from_be_bytes([data[0], data[1]]) as u32) << 4,
            0x04 if count == 2 => base = (u16::from_be_bytes([data[0], data[1]]) as u32) << 16,
            0x03 | 0x05 if count == 4 => {} // start address: the AVR always starts at 0.
            0x02..=0x05 => return Err(err("address record of the wrong length")),
            t => return Err(err(&format!("unknown record type {t:#04x}"))),
        }
    }
    if flash.is_empty() {
        return Err(LoadError::Empty);
    }
    Ok(Program { flash, ..Program::default() })
}

//! The EEPROM save record: a checked envelope around an opaque payload.
//!
//! Layout (all fields one byte unless noted):
//!
//! | offset  | field                                               |
//! |---------|-----------------------------------------------------|
//! | 0..2    | magic `b"CP"`                                       |
//! | 2       | format version ([`VERSION`])                        |
//! | 3       | payload length `n` (0..=[`MAX_PAYLOAD`])            |
//! | 4..4+n  | payload                                             |
//! | 4+n..   | CRC-16/CCITT-FALSE of bytes 0..4+n, high byte first |
//!
//! Decoding checks, in this order: blank (the header is all 0xFF, i.e.
//! erased EEPROM), magic, version, length, checksum. The functions are pure
//! and work on byte slices; `hw::eeprom` streams the same checks so the
//! AVR never needs a second RAM copy of the record.

pub const MAGIC: [u8; 2] = *b"CP";
/// 2: the game's book line as book keys, a byte a move (1: packed moves,
/// two bytes each).
pub const VERSION: u8 = 2;
pub const HEADER_LEN: usize = 4;
pub const CRC_LEN: usize = 2;
/// Largest payload a record may carry.
pub const MAX_PAYLOAD: usize = 240;
/// Largest record in bytes.
pub const MAX_RECORD: usize = HEADER_LEN + MAX_PAYLOAD + CRC_LEN;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SaveError {
    /// Nothing was ever saved: the header reads as erased EEPROM (0xFF).
    Blank,
    /// The first two bytes are not [`MAGIC`].
    BadMagic,
    /// A record of another format version.
    BadVersion,
    /// The length exceeds [`MAX_PAYLOAD`] or the caller's buffer, or the
    /// record is truncated.
    BadLength,
    /// The data does not match its CRC.
    BadChecksum,
}

/// Total record size for a payload of `payload_len` bytes.
pub const fn record_len(payload_len: usize) -> usize {
    HEADER_LEN + payload_len + CRC_LEN
}

/// CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF), fed a byte at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Crc16(u16);

impl Crc16 {
    pub const fn new() -> Self {
        Crc16(0xFFFF)
    }

    pub fn update(&mut self, byte: u8) {
        let mut crc = self.0 ^ ((byte as u16) << 8);
        // An 8-bit counter (`0..8` alone is an i32 range: 4 registers).
        for _ in 0..8u8 {
            crc = if crc & 0x8000 != 0 { (crc << 1) ^ 0x1021 } else { crc << 1 };
        }
        self.0 = crc;
    }

    pub fn update_all(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.update(b);
        }
    }

    pub const fn value(&self) -> u16 {
        self.0
    }
}

impl Default for Crc16 {
    fn default() -> Self {
        Self::new()
    }
}

/// CRC-16/CCITT-FALSE of `bytes`.
pub fn crc16(bytes: &[u8]) -> u16 {
    let mut c = Crc16::new();
    c.update_all(bytes);
    c.value()
}

/// The header for a payload of `len` bytes.
pub fn header(len: usize) -> Result<[u8; HEADER_LEN], SaveError> {
    if len > MAX_PAYLOAD {
        return Err(SaveError::BadLength);
    }
    Ok([MAGIC[0], MAGIC[1], VERSION, len as u8])
}

/// Checks a header and returns the payload length it announces.
/// `capacity` is the room the caller has for the payload.
pub fn parse_header(h: &[u8; HEADER_LEN], capacity: usize) -> Result<usize, SaveError> {
    if h.iter().all(|&b| b == 0xFF) {
        return Err(SaveError::Blank);
    }
    if h[0..2] != MAGIC {
        return Err(SaveError::BadMagic);
    }
    if h[2] != VERSION {
        return Err(SaveError::BadVersion);
    }
    let len = h[3] as usize;
    if len > MAX_PAYLOAD || len > capacity {
        return Err(SaveError::BadLength);
    }
    Ok(len)
}

/// The CRC a record with this header and payload must carry.
pub fn record_crc(h: &[u8; HEADER_LEN], payload: &[u8]) -> u16 {
    let mut c = Crc16::new();
    c.update_all(h);
    c.update_all(payload);
    c.value()
}

/// Checks the stored CRC bytes (high byte first) against header + payload.
pub fn verify(h: &[u8; HEADER_LEN], payload: &[u8], stored: [u8; CRC_LEN]) -> Result<(), SaveError> {
    if record_crc(h, payload) == u16::from_be_bytes(stored) {
        Ok(())
    } else {
        Err(SaveError::BadChecksum)
    }
}

/// Encodes `payload` into `out`; returns the record length.
pub fn encode(payload: &[u8], out: &mut [u8]) -> Result<usize, SaveError> {
    let h = header(payload.len())?;
    let total = record_len(payload.len());
    if out.len() < total {
        return Err(SaveError::BadLength);
    }
    out[..HEADER_LEN].copy_from_slice(&h);
    out[HEADER_LEN..HEADER_LEN + payload.len()].copy_from_slice(payload);
    out[HEADER_LEN + payload.len()..total].copy_from_slice(&record_crc(&h, payload).to_be_bytes());
    Ok(total)
}

/// Decodes a record at the start of `record` (trailing bytes are ignored)
/// and returns its payload.
pub fn decode(record: &[u8]) -> Result<&[u8], SaveError> {
    let Some(h) = record.first_chunk::<HEADER_LEN>() else {
        // Too short for a header: blank if what is there is erased.
        return Err(if record.iter().all(|&b| b == 0xFF) { SaveError::Blank } else { SaveError::BadLength });
    };
    let len = parse_header(h, MAX_PAYLOAD)?;
    if record.len() < record_len(len) {
        return Err(SaveError::BadLength);
    }
    let payload = &record[HEADER_LEN..HEADER_LEN + len];
    let stored = [record[HEADER_LEN + len], record[HEADER_LEN + len + 1]];
    verify(h, payload, stored)?;
    Ok(payload)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_payload() -> Vec<u8> {
        // Something position-like: 32 bytes of packed squares plus state.
        (0..40u8).map(|i| i.wrapping_mul(37) ^ 0x5A).collect()
    }

    fn encoded(payload: &[u8]) -> Vec<u8> {
        let mut out = vec![0u8; MAX_RECORD];
        let n = encode(payload, &mut out).unwrap();
        out.truncate(n);
        out
    }

    #[test]
    fn crc_matches_the_standard_check_value() {
        assert_eq!(crc16(b"123456789"), 0x29B1);
        assert_eq!(crc16(b""), 0xFFFF);
    }

    #[test]
    fn round_trip() {
        for len in [0usize, 1, 2, 40, MAX_PAYLOAD] {
            let p: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
            let rec = encoded(&p);
            assert_eq!(rec.len(), record_len(len));
            assert_eq!(&rec[..4], &[b'C', b'P', VERSION, len as u8]);
            assert_eq!(decode(&rec), Ok(&p[..]));
            // A record followed by stale EEPROM contents still decodes.
            let mut padded = rec.clone();
            padded.extend_from_slice(&[0xFF; 16]);
            assert_eq!(decode(&padded), Ok(&p[..]));
        }
    }

    #[test]
    fn whole_record_crc_is_zero() {
        // Property of a non-reflected CRC stored high byte first.
        let rec = encoded(&sample_payload());
        assert_eq!(crc16(&rec), 0);
    }

    #[test]
    fn encode_rejects_oversize() {
        let big = vec![0u8; MAX_PAYLOAD + 1];
        let mut out = vec![0u8; MAX_RECORD + 10];
        assert_eq!(encode(&big, &mut out), Err(SaveError::BadLength));
        let mut small = [0u8; 5];
        assert_eq!(encode(&[1, 2], &mut small), Err(SaveError::BadLength));
        assert_eq!(header(MAX_PAYLOAD + 1), Err(SaveError::BadLength));
    }

    #[test]
    fn blank_eeprom() {
        assert_eq!(decode(&[0xFF; 64]), Err(SaveError::Blank));
        assert_eq!(decode(&[0xFF; 2]), Err(SaveError::Blank));
        assert_eq!(decode(&[]), Err(SaveError::Blank));
        assert_eq!(parse_header(&[0xFF; 4], 100), Err(SaveError::Blank));
    }

    #[test]
    fn each_header_field_has_its_error() {
        let good = encoded(&sample_payload());
        let mut r = good.clone();
        r[0] = b'X';
        assert_eq!(decode(&r), Err(SaveError::BadMagic));
        let mut r = good.clone();
        r[1] = 0xFF;
        assert_eq!(decode(&r), Err(SaveError::BadMagic));
        let mut r = good.clone();
        r[2] = VERSION + 1;
        assert_eq!(decode(&r), Err(SaveError::BadVersion));
        let mut r = good.clone();
        r[3] = MAX_PAYLOAD as u8 + 1;
        assert_eq!(decode(&r), Err(SaveError::BadLength));
        let mut r = good.clone();
        r[3] += 1; // claims one byte more than the slice holds
        assert_eq!(decode(&r), Err(SaveError::BadLength));
        let mut r = good.clone();
        *r.last_mut().unwrap() ^= 1;
        assert_eq!(decode(&r), Err(SaveError::BadChecksum));
        let mut r = good.clone();
        r[10] = r[10].wrapping_add(1);
        assert_eq!(decode(&r), Err(SaveError::BadChecksum));
        // A caller with less room than the payload is told BadLength.
        assert_eq!(parse_header(good[..4].try_into().unwrap(), 39), Err(SaveError::BadLength));
        assert_eq!(parse_header(good[..4].try_into().unwrap(), 40), Ok(40));
    }

    #[test]
    fn every_single_bit_flip_is_detected() {
        let good = encoded(&sample_payload());
        for byte in 0..good.len() {
            for bit in 0..8 {
                let mut r = good.clone();
                r[byte] ^= 1 << bit;
                let e = decode(&r).expect_err("corruption went unnoticed");
                let want = match byte {
                    0 | 1 => SaveError::BadMagic,
                    2 => SaveError::BadVersion,
                    // A length change either overruns the slice / MAX_PAYLOAD
                    // or moves the CRC field: BadLength or BadChecksum.
                    3 => e,
                    _ => SaveError::BadChecksum,
                };
                assert_eq!(e, want, "byte {byte} bit {bit}");
                if byte == 3 {
                    assert!(matches!(e, SaveError::BadLength | SaveError::BadChecksum));
                }
            }
        }
    }

    #[test]
    fn every_byte_erased_or_zeroed_is_detected() {
        let good = encoded(&sample_payload());
        for byte in 0..good.len() {
            for v in [0x00u8, 0xFF] {
                if good[byte] == v {
                    continue;
                }
                let mut r = good.clone();
                r[byte] = v;
                assert!(decode(&r).is_err(), "byte {byte} := {v:#x} went unnoticed");
            }
        }
    }

    #[test]
    fn every_truncation_is_detected() {
        let good = encoded(&sample_payload());
        assert_eq!(decode(&[]), Err(SaveError::Blank));
        for n in 1..good.len() {
            let e = decode(&good[..n]).expect_err("truncated record accepted");
            assert_eq!(e, SaveError::BadLength, "truncated to {n}");
        }
    }

    #[test]
    fn swapped_bytes_and_bursts_are_detected() {
        let good = encoded(&sample_payload());
        for i in 4..good.len() - 1 {
            if good[i] != good[i + 1] {
                let mut r = good.clone();
                r.swap(i, i + 1);
                assert!(decode(&r).is_err(), "swap at {i}");
            }
            // Any burst up to 16 bits is caught by a CRC-16.
            let mut r = good.clone();
            r[i] ^= 0xA5;
            r[i + 1] ^= 0x5A;
            assert!(decode(&r).is_err(), "burst at {i}");
        }
    }
}

//! Decimal numbers without the AVR's slow division: one formatter for the
//! LCD, the serial line and FEN, one parser for the serial line and FEN.

crate::progmem! {
    /// The powers of ten of the digits above the units, for
    /// [`format_u32`]. Named to sort after the engine's tables in flash
    /// (as `zz_ui_text_packed`): their offsets within 256-byte pages
    /// decide carries in the search's address arithmetic.
    #[export_name = "zz_decimal_powers"]
    static POWERS: [u32; 9] = [
        1_000_000_000, 100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1_000, 100, 10,
    ];
}

/// Decimal digits of `n` right-aligned in `out`; returns how many.
///
/// Each digit by subtracting its power of ten: 48 B less (the table's 36 included) than a quotient and a
/// remainder of a `__udivmodsi4` call a digit, and no slower (at most 9
/// subtractions a digit).
#[inline(never)]
pub fn format_u32(mut n: u32, out: &mut [u8; 10]) -> usize {
    // Digits from the first that is not a leading zero: `len` counts them.
    let mut len = 1;
    for i in 0..9u8 {
        let p = POWERS.get(i as usize);
        let mut d = b'0';
        while n >= p {
            n -= p;
            d += 1;
        }
        if d != b'0' || len > 1 {
            len += 1;
        }
        out[i as usize] = d;
    }
    out[9] = b'0' + n as u8;
    len
}

/// A decimal number of 1..=10 digits without sign; `None` for anything
/// else, or above 429,496,719 (where the next digit could overflow).
#[inline(never)]
pub fn parse_u32(s: &[u8]) -> Option<u32> {
    if s.is_empty() || s.len() > 10 {
        return None;
    }
    let mut n: u32 = 0;
    for &b in s {
        if !b.is_ascii_digit() {
            return None;
        }
        if n > (u32::MAX - 9) / 10 {
            return None;
        }
        n = (n << 3) + (n << 1) + (b - b'0') as u32;
    }
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(n: u32) -> String {
        let mut d = [0u8; 10];
        let len = format_u32(n, &mut d);
        String::from_utf8(d[10 - len..].to_vec()).unwrap()
    }

    #[test]
    fn formats_and_parses() {
        for n in [0, 7, 10, 99, 100, 65_535, 65_536, 123_456, 1_000_000_000, u32::MAX] {
            assert_eq!(text(n), n.to_string());
        }
        // Each power of ten, one less and one more; digits of 9 and 0.
        for k in 1..=9 {
            let p = 10u32.pow(k);
            for n in [p - 1, p, p + 1, p / 10 * 9 + p / 100, u32::MAX / p * p] {
                assert_eq!(text(n), n.to_string());
            }
        }
        assert_eq!(parse_u32(b"0"), Some(0));
        assert_eq!(parse_u32(b"4294967"), Some(4_294_967));
        assert_eq!(parse_u32(b""), None);
        assert_eq!(parse_u32(b"12a"), None);
        assert_eq!(parse_u32(b"-1"), None);
        assert_eq!(parse_u32(b"99999999999"), None);
    }
}

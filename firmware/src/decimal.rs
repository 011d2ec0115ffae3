//! Decimal numbers without the AVR's slow division: one formatter for the
//! LCD, the serial line and FEN, one parser for the serial line and FEN.

/// Decimal digits of `n` right-aligned in `out`; returns how many.
#[inline(never)]
pub fn format_u32(mut n: u32, out: &mut [u8; 10]) -> usize {
    // A divisor the compiler cannot see: it then takes quotient and
    // remainder from one `__udivmodsi4` call (fast for small numbers)
    // instead of a multiplication for each.
    let ten = core::hint::black_box(10u32);
    let mut len = 0;
    for o in out.iter_mut().rev() {
        *o = b'0' + (n % ten) as u8;
        n /= ten;
        len += 1;
        if n == 0 {
            break;
        }
    }
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
        assert_eq!(parse_u32(b"0"), Some(0));
        assert_eq!(parse_u32(b"4294967"), Some(4_294_967));
        assert_eq!(parse_u32(b""), None);
        assert_eq!(parse_u32(b"12a"), None);
        assert_eq!(parse_u32(b"-1"), None);
        assert_eq!(parse_u32(b"99999999999"), None);
    }
}

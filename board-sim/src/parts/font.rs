//! The HD44780U character generator ROM (code A00, Japanese standard font).
//!
//! The glyphs live in `assets/hd44780_a00.txt`, a text file drawn by hand so
//! that it can be read and corrected without tools. Its format:
//!
//! ```text
//! ; a comment line (starts with ';'); blank lines are ignored
//! 0x41 'A'        <- char code, then the closest Unicode character in quotes
//! .###.           <- 8 rows of 5 dots: '#' lit, '.' dark; row 8 is the
//! #...#              cursor row and is blank in the ROM's 5x8 glyphs
//! #...#
//! #####
//! #...#
//! #...#
//! #...#
//! .....
//! ```
//!
//! Codes that are not listed are blank (the A00 ROM has no glyphs for
//! 0x10..0x1F and 0x80..0xA0; 0x00..0x0F are the CGRAM characters).

use std::fmt;
use std::sync::OnceLock;

/// Rows of one 5x8 glyph, top first; bit 4 is the leftmost dot.
pub type Glyph = [u8; 8];

/// A character ROM: a 5x8 glyph and a Unicode equivalent per char code.
#[derive(Clone)]
pub struct Font {
    glyphs: [Glyph; 256],
    chars: [char; 256],
    defined: [bool; 256],
}

/// A syntax error in a font file, with its 1-based line number.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FontError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for FontError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "font line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for FontError {}

const A00_TEXT: &str = include_str!("../../../assets/hd44780_a00.txt");

impl Font {
    /// The A00 ROM, parsed once on first use.
    ///
    /// Panics if the built-in asset is malformed; a unit test guarantees it
    /// is not.
    pub fn a00() -> &'static Font {
        static A00: OnceLock<Font> = OnceLock::new();
        A00.get_or_init(|| {
            Font::parse(A00_TEXT).unwrap_or_else(|e| panic!("assets/hd44780_a00.txt: {e}"))
        })
    }

    /// Parses the text format described in the module documentation.
    pub fn parse(text: &str) -> Result<Font, FontError> {
        let mut font = Font {
            glyphs: [[0; 8]; 256],
            chars: [' '; 256],
            defined: [false; 256],
        };
        // The glyph being read: its code, the header's line and rows so far.
        let mut current: Option<(u8, usize, usize)> = None;
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let err = |message: String| FontError { line, message };
            let s = raw.trim_end();
            if s.trim().is_empty() || s.starts_with(';') {
                if let Some((code, _, rows)) = current {
                    if rows < 8 {
                        return Err(err(format!("glyph 0x{code:02X} has only {rows} of 8 rows")));
                    }
                }
                continue;
            }
            match current {
                Some((code, header, rows)) if rows < 8 => {
                    font.glyphs[code as usize][rows] = parse_row(s).map_err(err)?;
                    current = Some((code, header, rows + 1));
                }
                _ => {
                    let (code, ch) = parse_header(s).map_err(err)?;
                    if font.defined[code as usize] {
                        return Err(err(format!("glyph 0x{code:02X} is defined twice")));
                    }
                    font.defined[code as usize] = true;
                    font.chars[code as usize] = ch;
                    current = Some((code, line, 0));
                }
            }
        }
        if let Some((code, header, rows)) = current {
            if rows < 8 {
                return Err(FontError {
                    line: header,
                    message: format!("glyph 0x{code:02X} has only {rows} of 8 rows"),
                });
            }
        }
        Ok(font)
    }

    /// The glyph of `code` (blank if the ROM has none).
    pub fn glyph(&self, code: u8) -> Glyph {
        self.glyphs[code as usize]
    }

    /// The closest Unicode character to `code`'s glyph (' ' if blank).
    pub fn unicode(&self, code: u8) -> char {
        self.chars[code as usize]
    }

    /// Whether the file defined a glyph for `code`.
    pub fn is_defined(&self, code: u8) -> bool {
        self.defined[code as usize]
    }
}

fn parse_row(s: &str) -> Result<u8, String> {
    if s.chars().count() != 5 {
        return Err(format!(
            "expected a row of 5 dots ('#' or '.'), found {s:?}"
        ));
    }
    s.chars().try_fold(0u8, |bits, c| match c {
        '#' => Ok(bits << 1 | 1),
        '.' => Ok(bits << 1),
        _ => Err(format!(
            "unexpected {c:?} in row {s:?}: dots are '#' or '.'"
        )),
    })
}

fn parse_header(s: &str) -> Result<(u8, char), String> {
    let expected = || format!("expected a glyph header like `0x41 'A'`, found {s:?}");
    let (code, rest) = s.split_once(char::is_whitespace).ok_or_else(expected)?;
    let code = code
        .strip_prefix("0x")
        .and_then(|h| u8::from_str_radix(h, 16).ok())
        .ok_or_else(expected)?;
    let quoted = rest.trim();
    let mut inner = quoted
        .strip_prefix('\'')
        .and_then(|q| q.strip_suffix('\''))
        .ok_or_else(expected)?
        .chars();
    match (inner.next(), inner.next()) {
        (Some(ch), None) => Ok((code, ch)),
        _ => Err(format!("the Unicode equivalent of 0x{code:02X} must be one character in quotes, found {quoted}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn draw(g: Glyph) -> Vec<String> {
        g.iter()
            .map(|r| {
                (0..5)
                    .map(|c| if r & (0x10 >> c) != 0 { '#' } else { '.' })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn a00_parses_and_covers_ascii() {
        let f = Font::a00();
        for code in 0x21..=0x7Fu8 {
            assert!(f.is_defined(code), "0x{code:02X} has no glyph");
            assert_ne!(f.glyph(code), [0; 8], "0x{code:02X} is blank");
            // Row 8 is the cursor's; ROM glyphs of the 5x8 font leave it dark.
            assert_eq!(f.glyph(code)[7], 0, "0x{code:02X} uses the cursor row");
        }
        for code in (0x20..=0x7Du8).filter(|&c| c != 0x5C) {
            assert_eq!(f.unicode(code), code as char);
        }
        assert_eq!(f.unicode(0x5C), '¥');
        assert_eq!(f.unicode(0x7E), '→');
        assert_eq!(f.unicode(0xDF), 'ﾟ');
        assert_eq!(f.unicode(0xF4), 'Ω');
        assert_eq!(f.unicode(0x10), ' ');
    }

    #[test]
    fn a_looks_like_an_a() {
        assert_eq!(
            draw(Font::a00().glyph(b'A')),
            [".###.", "#...#", "#...#", "#...#", "#####", "#...#", "#...#", "....."]
        );
    }

    #[test]
    fn errors_name_the_line() {
        let e = Font::parse("; x\n0x41 'A'\n.###.\n#..#\n").err().unwrap();
        assert_eq!(e.line, 4);
        let e = Font::parse("0x41 A\n").err().unwrap();
        assert_eq!(e.line, 1);
        let e = Font::parse("0x41 'A'\n.....\n").err().unwrap();
        assert!(e.message.contains("only 1 of 8"), "{e}");
        let twice = "0x41 'A'\n.....\n.....\n.....\n.....\n.....\n.....\n.....\n.....\n";
        let e = Font::parse(&format!("{twice}{twice}")).err().unwrap();
        assert_eq!(e.line, 10);
    }
}

//! Serial line assembler: bytes in, complete text lines out.
//!
//! * A line ends at CR, LF or CR LF (the LF of a CR LF pair is swallowed, so
//!   every convention gives exactly one line). Empty lines are ignored.
//! * Printable ASCII (0x20..=0x7E) is kept; TAB is kept as a space;
//!   BS (0x08) and DEL (0x7F) delete the previous character, for people
//!   typing in a terminal.
//! * Any other byte (control characters, NUL, bytes >= 0x80 such as line
//!   noise, or the NUL the serial driver substitutes for a byte received with
//!   a framing error or lost to an overrun) makes the line [`LineError::Garbage`].
//! * More than [`MAX_LINE`] characters make it [`LineError::TooLong`].
//!
//! A bad line is discarded up to its terminator and reported once, there;
//! the assembler is then clean again, so the next line is never lost.

use crate::ring::Ring;

pub const MAX_LINE: usize = 96;

/// What the serial driver puts in the byte stream where a byte was damaged
/// (framing or parity error) or bytes were lost (overrun, full queue).
pub const LOST: u8 = 0x00;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineError {
    /// More than [`MAX_LINE`] characters before the terminator.
    TooLong,
    /// A byte that is not printable ASCII (or TAB/BS/DEL) was received.
    Garbage,
}

pub struct LineAssembler {
    buf: [u8; MAX_LINE],
    len: u8,
    /// First error seen in the current line.
    error: Option<LineError>,
    /// The previous byte was CR: a following LF belongs to it.
    after_cr: bool,
}

const CR: u8 = b'\r';
const LF: u8 = b'\n';
const TAB: u8 = 0x09;
const BS: u8 = 0x08;
const DEL: u8 = 0x7F;

impl LineAssembler {
    pub const fn new() -> Self {
        LineAssembler { buf: [0; MAX_LINE], len: 0, error: None, after_cr: false }
    }

    /// Feeds one byte. Returns `Some` when it completed a line: the text
    /// (without terminator, 1..=MAX_LINE printable bytes) or why the line
    /// was rejected.
    pub fn push(&mut self, b: u8) -> Option<Result<&[u8], LineError>> {
        let after_cr = core::mem::replace(&mut self.after_cr, false);
        match b {
            CR => {
                self.after_cr = true;
                self.finish()
            }
            LF if after_cr => None,
            LF => self.finish(),
            BS | DEL => {
                if self.error.is_none() && self.len > 0 {
                    self.len -= 1;
                }
                None
            }
            TAB => self.keep(b' '),
            0x20..=0x7E => self.keep(b),
            _ => {
                self.fail(LineError::Garbage);
                None
            }
        }
    }

    fn keep(&mut self, c: u8) -> Option<Result<&[u8], LineError>> {
        if self.error.is_none() {
            if (self.len as usize) < MAX_LINE {
                self.buf[self.len as usize] = c;
                self.len += 1;
            } else {
                self.fail(LineError::TooLong);
            }
        }
        None
    }

    fn fail(&mut self, e: LineError) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    fn finish(&mut self) -> Option<Result<&[u8], LineError>> {
        let len = core::mem::replace(&mut self.len, 0) as usize;
        match self.error.take() {
            Some(e) => Some(Err(e)),
            None if len == 0 => None,
            // `len` <= MAX_LINE: `get` instead of a panicking index (flash).
            None => self.buf.get(..len).map(Ok),
        }
    }

    /// Characters collected for the line in progress.
    pub fn pending(&self) -> usize {
        self.len as usize
    }

    /// Forgets the line in progress (e.g. after a receive-buffer overflow).
    pub fn reset(&mut self) {
        self.len = 0;
        self.error = None;
        self.after_cr = false;
    }
}

impl Default for LineAssembler {
    fn default() -> Self {
        Self::new()
    }
}

/// The receive queue between the USART's RX interrupt and the background:
/// a ring of `N` bytes that marks damage in-band with [`LOST`].
pub struct RxQueue<const N: usize> {
    ring: Ring<u8, N>,
    /// Bytes were dropped; a [`LOST`] is owed at this point of the stream.
    gap: bool,
    /// Damaged or dropped bytes since the last `take_errors`.
    errors: u8,
}

impl<const N: usize> RxQueue<N> {
    pub const fn new() -> Self {
        RxQueue { ring: Ring::new(0), gap: false, errors: 0 }
    }

    /// One received byte (interrupt side). `damaged`: framing or parity
    /// error, the byte is replaced by [`LOST`]. `lost_before`: bytes before
    /// this one were lost (hardware overrun), a [`LOST`] goes first.
    pub fn receive(&mut self, byte: u8, damaged: bool, lost_before: bool) {
        if damaged || lost_before {
            self.errors = self.errors.saturating_add(1);
        }
        if lost_before {
            self.gap = true;
        }
        if self.gap {
            if !self.ring.push(LOST) {
                // Still full: this byte is lost too, the gap stays owed.
                self.errors = self.errors.saturating_add(1);
                return;
            }
            self.gap = false;
        }
        if !self.ring.push(if damaged { LOST } else { byte }) {
            self.gap = true;
            self.errors = self.errors.saturating_add(1);
        }
    }

    /// The next byte (background side).
    pub fn pop(&mut self) -> Option<u8> {
        self.ring.pop()
    }

    pub fn is_empty(&self) -> bool {
        self.ring.is_empty()
    }

    /// Damaged or dropped bytes since the last call.
    pub fn take_errors(&mut self) -> u8 {
        core::mem::replace(&mut self.errors, 0)
    }
}

impl<const N: usize> Default for RxQueue<N> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    enum Out {
        Line(String),
        Err(LineError),
    }

    fn feed(a: &mut LineAssembler, bytes: &[u8]) -> Vec<Out> {
        let mut out = Vec::new();
        for &b in bytes {
            match a.push(b) {
                Some(Ok(l)) => out.push(Out::Line(String::from_utf8(l.to_vec()).unwrap())),
                Some(Err(e)) => out.push(Out::Err(e)),
                None => {}
            }
        }
        out
    }

    fn line(s: &str) -> Out {
        Out::Line(s.to_string())
    }

    #[test]
    fn every_terminator_convention_gives_one_line() {
        let mut a = LineAssembler::new();
        assert_eq!(feed(&mut a, b"e2e4\r\n"), vec![line("e2e4")]);
        assert_eq!(feed(&mut a, b"e7e5\n"), vec![line("e7e5")]);
        assert_eq!(feed(&mut a, b"g1f3\r"), vec![line("g1f3")]);
        assert_eq!(feed(&mut a, b"b8c6\n\r"), vec![line("b8c6")]);
        assert_eq!(feed(&mut a, b"a\r\n\r\nb\r\r\n\n"), vec![line("a"), line("b")]);
        assert_eq!(feed(&mut a, b"no end yet"), vec![]);
        assert_eq!(a.pending(), 10);
        assert_eq!(feed(&mut a, b"\n"), vec![line("no end yet")]);
    }

    #[test]
    fn cr_lf_split_across_calls_and_lf_only_after_cr() {
        let mut a = LineAssembler::new();
        assert_eq!(feed(&mut a, b"x\r"), vec![line("x")]);
        // The LF of the pair arrives later: still swallowed.
        assert_eq!(feed(&mut a, b"\ny\n"), vec![line("y")]);
        // A CR then a character: the LF after it is a new terminator.
        assert_eq!(feed(&mut a, b"\rz\n"), vec![line("z")]);
    }

    #[test]
    fn empty_lines_are_ignored() {
        let mut a = LineAssembler::new();
        assert_eq!(feed(&mut a, b"\n\n\r\r\r\n"), vec![]);
    }

    #[test]
    fn garbage_is_reported_once_and_the_next_line_survives() {
        let mut a = LineAssembler::new();
        assert_eq!(feed(&mut a, b"go\x00od\r\nnext\r\n"), vec![Out::Err(LineError::Garbage), line("next")]);
        assert_eq!(feed(&mut a, b"\x1b[A\n"), vec![Out::Err(LineError::Garbage)]);
        assert_eq!(
            feed(&mut a, &[0xC3, 0xA9, b'\n', b'o', b'k', b'\n']),
            vec![Out::Err(LineError::Garbage), line("ok")]
        );
        // Garbage alone on a line is still reported.
        assert_eq!(feed(&mut a, b"\x07\r\n"), vec![Out::Err(LineError::Garbage)]);
        for b in (0u8..0x20).chain(0x80..=0xFF) {
            if [CR, LF, TAB, BS].contains(&b) {
                continue;
            }
            assert_eq!(feed(&mut a, &[b'a', b, b'\n']), vec![Out::Err(LineError::Garbage)], "byte {b:#x}");
        }
    }

    #[test]
    fn over_long_lines() {
        let mut a = LineAssembler::new();
        let exact = "x".repeat(MAX_LINE);
        let mut input = exact.clone().into_bytes();
        input.push(b'\n');
        assert_eq!(feed(&mut a, &input), vec![line(&exact)]);

        let mut long = "y".repeat(MAX_LINE + 1).into_bytes();
        long.extend_from_slice(b"\r\nafter\r\n");
        assert_eq!(feed(&mut a, &long), vec![Out::Err(LineError::TooLong), line("after")]);

        let mut huge = vec![b'z'; 1000];
        huge.push(b'\n');
        assert_eq!(feed(&mut a, &huge), vec![Out::Err(LineError::TooLong)]);
        assert_eq!(feed(&mut a, b"ok\n"), vec![line("ok")]);

        // The first error wins.
        let mut both = vec![b'w'; MAX_LINE + 5];
        both.push(0x01);
        both.push(b'\n');
        assert_eq!(feed(&mut a, &both), vec![Out::Err(LineError::TooLong)]);
    }

    #[test]
    fn editing_and_tabs() {
        let mut a = LineAssembler::new();
        assert_eq!(feed(&mut a, b"e2e5\x08\x084\n"), vec![line("e24")]);
        assert_eq!(feed(&mut a, b"ab\x7f\x7f\x7fc\n"), vec![line("c")]);
        assert_eq!(feed(&mut a, b"a\tb\n"), vec![line("a b")]);
        // Deleting everything gives an empty line, which is ignored.
        assert_eq!(feed(&mut a, b"ab\x08\x08\n"), vec![]);
        // Backspace cannot resurrect a too-long line.
        let mut long = vec![b'q'; MAX_LINE + 1];
        long.extend_from_slice(&[BS, BS, b'\n']);
        assert_eq!(feed(&mut a, &long), vec![Out::Err(LineError::TooLong)]);
    }

    fn drain<const N: usize>(q: &mut RxQueue<N>, a: &mut LineAssembler) -> Vec<Out> {
        let mut bytes = Vec::new();
        while let Some(b) = q.pop() {
            bytes.push(b);
        }
        feed(a, &bytes)
    }

    #[test]
    fn rx_queue_passes_clean_bytes() {
        let mut q: RxQueue<16> = RxQueue::new();
        let mut a = LineAssembler::new();
        for &b in b"e2e4\r\n" {
            q.receive(b, false, false);
        }
        assert_eq!(drain(&mut q, &mut a), vec![line("e2e4")]);
        assert_eq!(q.take_errors(), 0);
        assert!(q.is_empty());
    }

    #[test]
    fn rx_damage_spoils_only_its_own_line() {
        let mut q: RxQueue<64> = RxQueue::new();
        let mut a = LineAssembler::new();
        for &b in b"one\ntwo\nthree\n" {
            let damaged = b == b'w';
            q.receive(b, damaged, false);
        }
        assert_eq!(drain(&mut q, &mut a), vec![line("one"), Out::Err(LineError::Garbage), line("three")]);
        // An overrun before 'u' (some bytes of "four" were lost).
        for (i, &b) in b"fur\nfive\n".iter().enumerate() {
            q.receive(b, false, i == 1);
        }
        assert_eq!(drain(&mut q, &mut a), vec![Out::Err(LineError::Garbage), line("five")]);
        assert_eq!(q.take_errors(), 2);
        assert_eq!(q.take_errors(), 0);
    }

    #[test]
    fn rx_overflow_is_marked_where_it_happened() {
        let mut q: RxQueue<8> = RxQueue::new();
        let mut a = LineAssembler::new();
        // 12 bytes into 8 slots: "abcdefgh" fit, "ijk\n" are lost.
        for &b in b"abcdefghijk\n" {
            q.receive(b, false, false);
        }
        assert_eq!(q.take_errors(), 4);
        // The background catches up; the owed LOST comes first. The lost
        // terminator merges the damaged line with the next one, and the
        // merge is rejected as a whole: a fragment is never taken for a
        // command. The line after that is clean.
        let mut bytes = Vec::new();
        while let Some(b) = q.pop() {
            bytes.push(b);
        }
        for chunk in [&b"ok\n"[..], b"next\n"] {
            for &b in chunk {
                q.receive(b, false, false);
            }
            while let Some(b) = q.pop() {
                bytes.push(b);
            }
        }
        assert_eq!(&bytes[..9], b"abcdefgh\0");
        assert_eq!(feed(&mut a, &bytes), vec![Out::Err(LineError::Garbage), line("next")]);
        assert_eq!(q.take_errors(), 0);
    }

    #[test]
    fn reset_drops_the_partial_line() {
        let mut a = LineAssembler::new();
        feed(&mut a, b"half\x01");
        a.reset();
        assert_eq!(feed(&mut a, b"whole\n"), vec![line("whole")]);
    }
}

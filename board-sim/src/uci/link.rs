//! The serial link to the firmware: lines out on RXD, lines back from TXD,
//! the emulator run only as long as it takes (or a cycle budget allows).

use crate::board::Board;
use emulator::avr::Stop;
use emulator::periph::Usart;
use std::collections::VecDeque;

/// The other end of the wire: something that runs and talks over USART0.
/// [`BoardSerial`] is the emulated board; tests use a mock.
pub trait Serial {
    /// Current cycle.
    fn now(&self) -> u64;
    fn clock_hz(&self) -> u64;
    /// Queues bytes on the chip's RXD from now on.
    fn send(&mut self, bytes: &[u8]);
    /// Runs until cycle `end`; an error when the chip cannot go on.
    fn run_until(&mut self, end: u64) -> Result<(), String>;
    /// Bytes transmitted since the last call.
    fn take(&mut self) -> Vec<u8>;
    /// Whether the chip's receiver is on (bytes sent before are lost).
    fn receiver_enabled(&self) -> bool {
        true
    }
}

/// The emulated board as a [`Serial`].
pub struct BoardSerial {
    pub board: Board,
}

impl BoardSerial {
    pub fn new(board: Board) -> Self {
        BoardSerial { board }
    }

    /// ` in function+offset` for a word address, when the ELF says.
    fn function_at(&self, pc: u32) -> String {
        let symbols = self.board.avr.symbols();
        match symbols.containing(emulator::loader::Space::Flash, pc * 2) {
            Some((sym, off)) => format!(" in {:#}+{off:#x}", rustc_demangle::demangle(&sym.name)),
            None => String::new(),
        }
    }

    fn usart(&mut self) -> &mut Usart {
        self.board.avr.peripheral_mut::<Usart>().expect("the ATmega644 has USART0")
    }
}

impl Serial for BoardSerial {
    fn now(&self) -> u64 {
        self.board.avr.cycles()
    }

    fn clock_hz(&self) -> u64 {
        self.board.clock_hz() as u64
    }

    fn send(&mut self, bytes: &[u8]) {
        let now = self.now();
        self.usart().host_send(now, bytes);
    }

    fn run_until(&mut self, end: u64) -> Result<(), String> {
        loop {
            let stop = self.board.run_until(end);
            let at = format!("at {:.3} s emulated", self.board.avr.seconds());
            return match stop {
                Stop::CycleLimit => Ok(()),
                // Nothing sets these; step over them.
                Stop::Breakpoint(_) | Stop::Watchpoint { .. } | Stop::PinChange | Stop::Stepped => {
                    if self.now() >= end {
                        Ok(())
                    } else {
                        continue;
                    }
                }
                Stop::Sleeping { pc, interrupts_enabled: false } => {
                    Err(format!("the firmware halted (sleep with interrupts off at byte address {:#06x}) {at}", pc * 2))
                }
                Stop::Sleeping { pc, interrupts_enabled: true } => {
                    Err(format!("the firmware sleeps with nothing to wake it (byte address {:#06x}) {at}", pc * 2))
                }
                Stop::Fault(f) => Err(format!("the firmware faulted: {f}{} {at}", self.function_at(f.pc))),
                Stop::StackCollision { pc, sp, .. } => {
                    Err(format!("stack overflow: SP {sp:#06x} ran into static data at byte address {:#06x} {at}", pc * 2))
                }
                Stop::Break(pc) => Err(format!("the firmware executed BREAK at byte address {:#06x} {at}", pc * 2)),
            };
        }
    }

    fn take(&mut self) -> Vec<u8> {
        self.usart().host_take()
    }

    fn receiver_enabled(&self) -> bool {
        const RXEN: u8 = 1 << 4;
        let ucsrb = emulator::periph::atmega644::USART0.ucsrb;
        self.board.avr.read_data(ucsrb).is_some_and(|v| v & RXEN != 0)
    }
}

/// Why no line came back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    /// The budget ran out without a complete line.
    Timeout { waited_ms: u64 },
    /// The chip stopped (fault, halt, stack overflow).
    Dead(String),
}

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LinkError::Timeout { waited_ms } => write!(f, "no answer within {waited_ms} ms of emulated time"),
            LinkError::Dead(why) => f.write_str(why),
        }
    }
}

/// Line framing over a [`Serial`].
pub struct Link<S: Serial> {
    pub serial: S,
    /// Received bytes not yet forming a complete line.
    partial: Vec<u8>,
    lines: VecDeque<String>,
    /// How far the emulator runs between looks at the received bytes.
    pub slice_cycles: u64,
    dead: Option<String>,
}

/// Longest line kept from the firmware (a runaway without LF is cut).
const MAX_RX_LINE: usize = 1024;

impl<S: Serial> Link<S> {
    pub fn new(serial: S) -> Self {
        let slice_cycles = serial.clock_hz() / 1000; // 1 ms
        Link { serial, partial: Vec::new(), lines: VecDeque::new(), slice_cycles, dead: None }
    }

    pub fn ms_to_cycles(&self, ms: u64) -> u64 {
        ms.saturating_mul(self.serial.clock_hz()) / 1000
    }

    pub fn now_ms(&self) -> u64 {
        self.serial.now() * 1000 / self.serial.clock_hz()
    }

    /// Sends one line (an LF is added).
    pub fn send_line(&mut self, line: &str) {
        let mut bytes = Vec::with_capacity(line.len() + 1);
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        self.serial.send(&bytes);
    }

    /// A complete line already received, if any (without running).
    pub fn try_line(&mut self) -> Option<String> {
        self.lines.pop_front()
    }

    /// Runs the emulator one slice (at most until `end`) and collects what
    /// came back. Returns false when `end` was reached.
    pub fn pump(&mut self, end: u64) -> Result<bool, LinkError> {
        if let Some(why) = &self.dead {
            return Err(LinkError::Dead(why.clone()));
        }
        let now = self.serial.now();
        if now >= end {
            return Ok(false);
        }
        let until = end.min(now.saturating_add(self.slice_cycles.max(1)));
        let result = self.serial.run_until(until);
        let bytes = self.serial.take();
        self.absorb(&bytes);
        if let Err(why) = result {
            self.dead = Some(why.clone());
            return Err(LinkError::Dead(why));
        }
        Ok(self.serial.now() < end)
    }

    /// Runs until a complete line is there or `budget` cycles have passed.
    pub fn read_line(&mut self, budget: u64) -> Result<String, LinkError> {
        let start = self.serial.now();
        let end = start.saturating_add(budget);
        loop {
            if let Some(line) = self.lines.pop_front() {
                return Ok(line);
            }
            if !self.pump(end)? {
                if let Some(line) = self.lines.pop_front() {
                    return Ok(line);
                }
                let waited = (self.serial.now() - start) * 1000 / self.serial.clock_hz();
                return Err(LinkError::Timeout { waited_ms: waited });
            }
        }
    }

    fn absorb(&mut self, bytes: &[u8]) {
        for &b in bytes {
            match b {
                b'\n' | b'\r' => {
                    if !self.partial.is_empty() {
                        let line = String::from_utf8_lossy(&self.partial).into_owned();
                        self.partial.clear();
                        self.lines.push_back(line);
                    }
                }
                _ => {
                    if self.partial.len() < MAX_RX_LINE {
                        self.partial.push(b);
                    }
                }
            }
        }
    }
}

/// A pretend firmware for tests: it answers each line it receives after
/// a delay, through a function from the line to the answer lines.
#[cfg(test)]
pub mod mock {
    use super::Serial;
    use std::collections::VecDeque;

    pub const CLOCK_HZ: u64 = 8_000_000;
    /// One byte at the board's baud rate, 8N1: 10 bits.
    pub const BYTE_CYCLES: u64 = 10 * CLOCK_HZ / firmware::board::SERIAL_BAUD as u64;

    pub type Script = Box<dyn FnMut(&str, u64) -> Vec<(u64, String)> + Send>;

    pub struct Mock {
        pub now: u64,
        /// Bytes on the line with the cycle they arrive.
        rx: VecDeque<(u64, u8)>,
        rx_line: Vec<u8>,
        /// Output with the cycle it is complete.
        tx: VecDeque<(u64, u8)>,
        /// Given a received line and the cycle, the answers and their delay.
        pub script: Script,
        /// Fail at this cycle (a fault).
        pub fault_at: Option<u64>,
        pub received: Vec<String>,
    }

    impl Mock {
        pub fn new(script: Script) -> Mock {
            Mock { now: 0, rx: VecDeque::new(), rx_line: Vec::new(), tx: VecDeque::new(), script, fault_at: None, received: Vec::new() }
        }

        /// Queues output at `at` cycles (plus serial time).
        pub fn emit(&mut self, at: u64, text: &str) {
            let mut t = self.tx.back().map_or(at, |&(c, _)| c.max(at));
            for b in text.bytes().chain([b'\n']) {
                t += BYTE_CYCLES;
                self.tx.push_back((t, b));
            }
        }
    }

    impl Serial for Mock {
        fn now(&self) -> u64 {
            self.now
        }

        fn clock_hz(&self) -> u64 {
            CLOCK_HZ
        }

        fn send(&mut self, bytes: &[u8]) {
            let mut t = self.rx.back().map_or(self.now, |&(c, _)| c.max(self.now));
            for &b in bytes {
                t += BYTE_CYCLES;
                self.rx.push_back((t, b));
            }
        }

        fn run_until(&mut self, end: u64) -> Result<(), String> {
            if let Some(f) = self.fault_at {
                if f <= end {
                    self.now = self.now.max(f);
                    return Err(format!("the firmware faulted: mock fault at cycle {f}"));
                }
            }
            while let Some(&(t, b)) = self.rx.front() {
                if t > end {
                    break;
                }
                self.rx.pop_front();
                if b == b'\n' {
                    let line = String::from_utf8_lossy(&self.rx_line).into_owned();
                    self.rx_line.clear();
                    self.received.push(line.clone());
                    for (delay, answer) in (self.script)(&line, t) {
                        self.emit(t + delay, &answer);
                    }
                } else {
                    self.rx_line.push(b);
                }
            }
            self.now = end;
            Ok(())
        }

        fn take(&mut self) -> Vec<u8> {
            let mut out = Vec::new();
            while let Some(&(t, b)) = self.tx.front() {
                if t > self.now {
                    break;
                }
                self.tx.pop_front();
                out.push(b);
            }
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::mock::*;
    use super::*;

    fn echo() -> Link<Mock> {
        Link::new(Mock::new(Box::new(|line, _| vec![(1000, format!("echo {line}"))])))
    }

    #[test]
    fn a_line_goes_out_and_its_answer_comes_back() {
        let mut link = echo();
        link.send_line("ping");
        let line = link.read_line(CLOCK_HZ).unwrap();
        assert_eq!(line, "echo ping");
        assert_eq!(link.serial.received, vec!["ping".to_string()]);
        // 5 bytes out, 1000 cycles, 10 bytes back, within a slice.
        assert!(link.serial.now < 15 * BYTE_CYCLES + 1000 + link.slice_cycles + 1);
    }

    #[test]
    fn lines_arrive_in_order_and_crlf_is_one_terminator() {
        let mut link = Link::new(Mock::new(Box::new(|_, _| vec![(0, "a\r".into()), (0, "b".into()), (10, "c".into())])));
        link.send_line("x");
        assert_eq!(link.read_line(CLOCK_HZ).unwrap(), "a");
        assert_eq!(link.read_line(CLOCK_HZ).unwrap(), "b");
        assert_eq!(link.read_line(CLOCK_HZ).unwrap(), "c");
        assert!(matches!(link.read_line(CLOCK_HZ / 10), Err(LinkError::Timeout { waited_ms: 100 })));
    }

    #[test]
    fn silence_runs_out_the_budget() {
        let mut link = Link::new(Mock::new(Box::new(|_, _| vec![])));
        link.send_line("ping");
        let start = link.serial.now;
        assert_eq!(link.read_line(CLOCK_HZ * 2), Err(LinkError::Timeout { waited_ms: 2000 }));
        assert_eq!(link.serial.now - start, CLOCK_HZ * 2);
    }

    #[test]
    fn a_fault_is_reported_and_sticks() {
        let mut link = echo();
        link.serial.fault_at = Some(5000);
        link.send_line("ping");
        let e = link.read_line(CLOCK_HZ).unwrap_err();
        assert!(matches!(&e, LinkError::Dead(why) if why.contains("faulted")), "{e:?}");
        assert_eq!(link.read_line(CLOCK_HZ), Err(e));
    }

    #[test]
    fn a_line_cut_by_the_budget_is_kept_for_later() {
        let mut link = Link::new(Mock::new(Box::new(|_, _| vec![(0, "0123456789".repeat(5))])));
        link.send_line("x");
        // Too short for the whole answer (51 bytes after 2 going out).
        assert!(link.read_line(20 * BYTE_CYCLES).is_err());
        assert_eq!(link.read_line(CLOCK_HZ).unwrap(), "0123456789".repeat(5));
    }
}

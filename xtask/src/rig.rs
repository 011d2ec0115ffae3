//! The real firmware on the emulated board (LCD, buttons, buzzer attached),
//! driven over its serial line (`firmware/docs/serial-protocol.md`) with
//! board-sim's line link, and through its four buttons. Shared by
//! `cargo xtask bench engine` and the workloads of `cargo xtask ram`.

use crate::bench::profile::PcProfile;
use crate::util::Result;
use board_sim::board::Board;
use board_sim::uci::link::{BoardSerial, Link, LinkError, Serial};
use emulator::Stop;
use firmware::board::Button;

pub const CLOCK_HZ: u32 = 8_000_000;

/// Emulated-time budgets.
const BOOT_MS: u64 = 10_000;
const REQUEST_MS: u64 = 5_000;

pub struct Rig {
    pub link: Link<RigSerial>,
    /// Lines the firmware sent that no request consumed (while buttons were
    /// pressed, or before the answer looked for).
    pub heard: Vec<String>,
    /// What the current step wants shown beside its figures (depth reached, ...).
    pub notes: Vec<String>,
}

/// One `info` line of a search.
#[derive(Clone, Debug, Default)]
pub struct Info {
    pub depth: u32,
    pub seldepth: u32,
    pub nodes: u64,
    /// The firmware's own clock, in ms.
    pub time_ms: u64,
    /// Cycle the line was complete on TXD.
    pub at: u64,
}

impl Info {
    pub fn parse(line: &str) -> Option<Info> {
        let rest = line.strip_prefix("info ")?;
        let mut info = Info::default();
        let mut words = rest.split_whitespace();
        while let Some(w) = words.next() {
            let mut num = || words.next().and_then(|v| v.parse::<u64>().ok());
            match w {
                "depth" => info.depth = num()? as u32,
                "seldepth" => info.seldepth = num()? as u32,
                "nodes" => info.nodes = num()?,
                "time" => info.time_ms = num()?,
                "pv" => break,
                _ => {}
            }
        }
        Some(info)
    }
}

/// What a `go` gave.
#[derive(Clone, Debug)]
pub struct Search {
    pub infos: Vec<Info>,
    pub bestmove: String,
    /// Cycle the `go` line was queued on the chip's RXD.
    pub sent: u64,
    /// Cycle the `bestmove` line was complete on TXD.
    pub done: u64,
}

impl Search {
    /// The last `info` line (none if the search printed none).
    pub fn last(&self) -> Info {
        self.infos.last().cloned().unwrap_or_default()
    }

    pub fn cycles(&self) -> u64 {
        self.done - self.sent
    }

    pub fn seconds(&self) -> f64 {
        self.cycles() as f64 / CLOCK_HZ as f64
    }

    /// Cycles from the `go` line to the last `info` line (to `bestmove` if
    /// there was none): the time in which the last reported nodes were
    /// searched. A fixed-time search goes on after its last report, with
    /// nodes that no line counts.
    pub fn cycles_to_last_info(&self) -> u64 {
        self.infos.last().map_or(self.done, |i| i.at) - self.sent
    }

    /// [`Search::cycles_to_last_info`] in emulated seconds.
    pub fn seconds_to_last_info(&self) -> f64 {
        self.cycles_to_last_info() as f64 / CLOCK_HZ as f64
    }

    pub fn max_seldepth(&self) -> u32 {
        self.infos.iter().map(|i| i.seldepth).max().unwrap_or(0)
    }
}

impl Rig {
    /// The board powered on with `elf`; nothing run yet.
    pub fn new(elf: &[u8]) -> Result<Rig> {
        let board = Board::from_elf(elf, CLOCK_HZ).map_err(|e| format!("the emulator cannot load the firmware: {e}"))?;
        let serial = RigSerial { inner: BoardSerial::new(board), profile: None };
        Ok(Rig { link: Link::new(serial), heard: Vec::new(), notes: Vec::new() })
    }

    pub fn board(&mut self) -> &mut Board {
        &mut self.link.serial.inner.board
    }

    pub fn cycles(&self) -> u64 {
        self.link.serial.inner.board.avr.cycles()
    }

    pub fn lcd(&self) -> [String; 2] {
        self.link.serial.inner.board.lcd_text()
    }

    fn dead(&self, e: LinkError, doing: &str) -> String {
        format!("{doing}: {e}; LCD shows {:?}", self.lcd())
    }

    /// Runs `ms` of emulated time, keeping what the firmware says.
    pub fn run_ms(&mut self, ms: u64) -> Result {
        let end = self.cycles() + self.link.ms_to_cycles(ms);
        while self.link.pump(end).map_err(|e| self.dead(e, "running"))? {}
        while let Some(l) = self.link.try_line() {
            self.heard.push(l);
        }
        Ok(())
    }

    /// Power-on to the end of the splash screen: the receiver is on and
    /// `ping` is answered with `pong`.
    pub fn boot(&mut self) -> Result {
        let end = self.cycles() + self.link.ms_to_cycles(BOOT_MS);
        while !self.link.serial.receiver_enabled() {
            if !self.link.pump(end).map_err(|e| self.dead(e, "booting"))? {
                return Err(format!("the firmware did not enable its serial receiver within {BOOT_MS} ms"));
            }
        }
        self.link.send_line("ping");
        self.wait_for_line(BOOT_MS, "booting (ping)", |l| l == "pong").map(|_| ())
    }

    /// Reads lines until one satisfies `done` (returned); the others are kept in `heard`.
    fn wait_for_line(&mut self, budget_ms: u64, doing: &str, done: impl Fn(&str) -> bool) -> Result<String> {
        let end = self.cycles() + self.link.ms_to_cycles(budget_ms);
        loop {
            let left = end.saturating_sub(self.cycles());
            let line = self.link.read_line(left).map_err(|e| self.dead(e, doing))?;
            if done(&line) {
                return Ok(line);
            }
            self.heard.push(line);
        }
    }

    /// Sends a request and returns its one-line answer (`ok`, `error ...`,
    /// `fen ...`); a stray `pong` is skipped.
    pub fn ask(&mut self, line: &str) -> Result<String> {
        self.link.send_line(line);
        self.wait_for_line(REQUEST_MS, &format!("waiting for the answer to `{line}`"), |l| l != "pong" && !l.starts_with("info "))
    }

    /// A request that must be answered `ok`.
    pub fn ok(&mut self, line: &str) -> Result {
        match self.ask(line)?.as_str() {
            "ok" => Ok(()),
            other => Err(format!("`{line}` was answered `{other}`")),
        }
    }

    /// Sends `go ...` and collects the `info` lines up to `bestmove`.
    pub fn go(&mut self, args: &str, budget_ms: u64) -> Result<Search> {
        let line = format!("go {args}");
        let search = self.start_go(&line);
        self.finish_go(search, &line, budget_ms)
    }

    /// [`Rig::go`] with every instruction from sending the line to receiving
    /// `bestmove` charged to its PC in `profile` (so its total is the
    /// search's [`Search::cycles`], cycle for cycle the same run as `go`'s).
    /// The board runs one instruction at a time: about 10x slower.
    pub fn go_profiled(&mut self, args: &str, budget_ms: u64, profile: &mut PcProfile) -> Result<Search> {
        self.link.serial.profile = Some(std::mem::take(profile));
        let search = self.go(args, budget_ms);
        *profile = self.link.serial.profile.take().expect("profiling was on");
        search
    }

    /// Sends a `go` line; finish with [`Rig::finish_go`].
    pub fn start_go(&mut self, line: &str) -> Search {
        let sent = self.cycles();
        self.link.send_line(line);
        Search { infos: Vec::new(), bestmove: String::new(), sent, done: sent }
    }

    /// Reads the `info` lines of a search started with [`Rig::start_go`] up
    /// to its `bestmove`.
    pub fn finish_go(&mut self, mut search: Search, line: &str, budget_ms: u64) -> Result<Search> {
        let end = self.cycles() + self.link.ms_to_cycles(budget_ms);
        loop {
            let left = end.saturating_sub(self.cycles());
            let answer = self.link.read_line(left).map_err(|e| self.dead(e, &format!("searching (`{line}`)")))?;
            if let Some(mv) = answer.strip_prefix("bestmove ") {
                search.bestmove = mv.split_whitespace().next().unwrap_or("").to_string();
                search.done = self.cycles();
                return Ok(search);
            } else if answer.starts_with("info ") {
                let mut info = Info::parse(&answer).ok_or_else(|| format!("unreadable info line `{answer}`"))?;
                info.at = self.cycles();
                search.infos.push(info);
            } else if answer.starts_with("error") {
                return Err(format!("`{line}` was answered `{answer}`"));
            } else {
                self.heard.push(answer);
            }
        }
    }

    /// A short press: down 80 ms, up 120 ms (as a person taps).
    pub fn tap(&mut self, button: Button) -> Result {
        self.board().press(button);
        self.run_ms(80)?;
        self.board().release(button);
        self.run_ms(120)
    }

    /// Taps a sequence: `M`, `U`, `D`, `E` separated by spaces.
    pub fn keys(&mut self, seq: &str) -> Result {
        for k in seq.split_whitespace() {
            let button = match k {
                "M" => Button::Menu,
                "U" => Button::Up,
                "D" => Button::Down,
                "E" => Button::Enter,
                _ => return Err(format!("unknown key `{k}` in `{seq}`")),
            };
            self.tap(button)?;
        }
        Ok(())
    }
}

/// The link's far end: the emulated board, run normally, or one instruction
/// at a time into a [`PcProfile`] while one is set.
pub struct RigSerial {
    pub inner: BoardSerial,
    pub profile: Option<PcProfile>,
}

/// Runs to `end` one instruction at a time, charging each one's cycles to
/// its PC. Each instruction is a run of the board to the next cycle (not
/// [`Board::step`], which sleeps through to the next event and would
/// overshoot `end`): the same run as [`BoardSerial::run_until`]'s, cycle for
/// cycle. A sleeping CPU is charged one cycle at a time to the instruction
/// after its SLEEP.
fn step_until(serial: &mut BoardSerial, end: u64, profile: &mut PcProfile) -> std::result::Result<(), String> {
    let board = &mut serial.board;
    while board.avr.cycles() < end {
        let pc = board.avr.pc();
        let before = board.avr.cycles();
        let stop = board.run_until(before + 1);
        profile.charge(pc, board.avr.cycles() - before);
        if stop != Stop::CycleLimit {
            // BoardSerial::run_until explains these; stepping only names them.
            return Err(format!(
                "the firmware stopped while profiled: {stop:?} at {:.3} s emulated (run without --profile for the diagnosis)",
                board.avr.seconds()
            ));
        }
    }
    Ok(())
}

impl Serial for RigSerial {
    fn now(&self) -> u64 {
        self.inner.now()
    }

    fn clock_hz(&self) -> u64 {
        self.inner.clock_hz()
    }

    fn send(&mut self, bytes: &[u8]) {
        self.inner.send(bytes)
    }

    fn run_until(&mut self, end: u64) -> std::result::Result<(), String> {
        match &mut self.profile {
            None => self.inner.run_until(end),
            Some(profile) => step_until(&mut self.inner, end, profile),
        }
    }

    fn take(&mut self) -> Vec<u8> {
        self.inner.take()
    }

    fn receiver_enabled(&self) -> bool {
        self.inner.receiver_enabled()
    }
}

/// The positions of an EPD file: the first four fields of each line as a
/// FEN (move counters added) and the `id`, if any.
pub fn read_epd(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let fields: Vec<&str> = l.split_whitespace().take(4).collect();
            if fields.len() < 4 {
                return None;
            }
            let id = l.split("id \"").nth(1).and_then(|s| s.split('"').next()).unwrap_or("").to_string();
            Some((format!("{} 0 1", fields.join(" ")), id))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines_parse() {
        let i = Info::parse("info depth 5 seldepth 11 score cp -23 nodes 12345 time 6789 pv e2e4 e7e5").unwrap();
        assert_eq!((i.depth, i.seldepth, i.nodes, i.time_ms), (5, 11, 12345, 6789));
        let i = Info::parse("info depth 3 seldepth 3 score mate -2 nodes 10 time 0 pv").unwrap();
        assert_eq!(i.depth, 3);
        assert!(Info::parse("bestmove e2e4").is_none());
    }

    #[test]
    fn epd_lines_become_fens() {
        let p = read_epd("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - id \"x y\";\n\n");
        assert_eq!(p, vec![("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1".to_string(), "x y".to_string())]);
    }
}

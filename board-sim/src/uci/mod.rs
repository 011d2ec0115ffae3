//! `board-sim uci`: a UCI engine on stdin/stdout that is the real firmware
//! running in the emulator, spoken to over its USART0 line protocol
//! (`firmware/docs/serial-protocol.md`).
//!
//! * [`translate`]: UCI lines to firmware lines and back, pure.
//! * [`link`]: lines over the emulated serial port, the emulator run only as
//!   long as an answer takes (or a cycle budget allows).
//! * here: the engine loop. Stdin is read on a thread into a channel, so a
//!   `stop` (or `isready`, `ponderhit`, `quit`) arrives while the emulator
//!   runs a search.
//!
//! Time is the firmware's: UCI times go through as milliseconds of emulated
//! time and the emulator runs as fast as it can. A firmware that stops
//! (fault, halt) or stops answering gives `info string error ...` and the
//! bridge exits with status 3; `info string error` is only used for that.
//! Input that is ignored gives `info string ignored: ...`, a position or
//! search the firmware cannot take `info string refused: ...`.

pub mod link;
pub mod translate;

use crate::board::Board;
use link::{BoardSerial, Link, LinkError, Serial};
use std::collections::VecDeque;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, TryRecvError};
use translate::{classify, Command, Position, Reply};

/// Budgets in milliseconds of emulated time.
const BOOT_MS: u64 = 10_000;
/// A request answered with `ok`/`error`/`pong`.
const REQUEST_MS: u64 = 5_000;
/// While searching: ping after this much silence...
const HEARTBEAT_MS: u64 = 2_000;
/// ... and give up when the pong does not come within this.
const PING_TIMEOUT_MS: u64 = 10_000;
/// A `go movetime` search still running this long after its time gets `stop`.
const MOVETIME_GRACE_MS: u64 = 5_000;
/// How much emulated time runs between looks at stdin during a search.
const SEARCH_SLICE_MS: u64 = 5;

pub struct Options {
    /// The firmware; `None`: the one `cargo xtask firmware` builds.
    pub elf: Option<PathBuf>,
    pub clock_hz: u32,
}

/// Where `cargo xtask firmware` puts the firmware, relative to the workspace.
pub const DEFAULT_ELF: &str = "target/avr-none/avr/prodigy.elf";

/// `elf`, or the default firmware (in the workspace this binary was built
/// in, else under the current directory).
pub fn resolve_elf(elf: Option<&std::path::Path>) -> Result<PathBuf, String> {
    if let Some(p) = elf {
        return Ok(p.to_path_buf());
    }
    let candidates = [std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(DEFAULT_ELF), PathBuf::from(DEFAULT_ELF)];
    candidates
        .iter()
        .find(|p| p.exists())
        .cloned()
        .ok_or_else(|| format!("no firmware at {DEFAULT_ELF}: build it with cargo xtask firmware (or pass an ELF file)"))
}

/// Exit statuses of `board-sim uci`.
pub const EXIT_OK: u8 = 0;
pub const EXIT_LOAD: u8 = 2;
pub const EXIT_FIRMWARE: u8 = 3;

/// Runs the bridge on stdin/stdout; returns the exit status.
pub fn run(opts: &Options) -> u8 {
    let stdout = std::io::stdout();
    let board = match resolve_elf(opts.elf.as_deref()).and_then(|elf| Board::from_elf_file(&elf, opts.clock_hz)) {
        Ok(b) => b,
        Err(e) => {
            let mut out = stdout.lock();
            let _ = writeln!(out, "info string error {e}");
            let _ = out.flush();
            eprintln!("board-sim: error: {e}");
            return EXIT_LOAD;
        }
    };
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let stdin = std::io::stdin();
        let mut input = stdin.lock();
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match input.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if tx.send(String::from_utf8_lossy(&buf).into_owned()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    let mut engine = Engine::new(Link::new(BoardSerial::new(board)), stdout.lock());
    match engine.run(&rx) {
        Ok(()) => EXIT_OK,
        Err(e) => {
            engine.say(&format!("info string error {e}"));
            eprintln!("board-sim: error: {e}");
            EXIT_FIRMWARE
        }
    }
}

/// What the firmware did wrong, fatally.
type Fatal = String;

/// The engine loop over any [`Serial`] and output.
pub struct Engine<S: Serial, W: Write> {
    pub link: Link<S>,
    pub out: W,
    booted: bool,
    /// The position the firmware holds, as far as we know.
    position: Option<Position>,
    /// The last `position` could not be set up: `go` answers `bestmove 0000`.
    position_failed: bool,
    /// GUI lines that arrived during a search and wait for its end.
    pending: VecDeque<String>,
    /// Stdin is closed: finish what runs, then stop.
    eof: bool,
    quit: bool,
    debug: bool,
}

/// How a busy period (search, perft) ends.
enum Busy {
    Search { movetime: Option<u64> },
    Perft { depth: u32, budget_ms: u64 },
}

impl<S: Serial, W: Write> Engine<S, W> {
    pub fn new(link: Link<S>, out: W) -> Self {
        Engine {
            link,
            out,
            booted: false,
            position: None,
            position_failed: false,
            pending: VecDeque::new(),
            eof: false,
            quit: false,
            debug: false,
        }
    }

    /// One line to the GUI.
    pub fn say(&mut self, line: &str) {
        // A GUI that went away is not our problem: stdin's end stops us.
        let _ = writeln!(self.out, "{line}");
        let _ = self.out.flush();
    }

    fn note(&mut self, text: &str) {
        self.say(&format!("info string {text}"));
    }

    /// Handles GUI lines until `quit` or the end of input.
    pub fn run(&mut self, input: &Receiver<String>) -> Result<(), Fatal> {
        while !self.quit {
            let line = match self.pending.pop_front() {
                Some(l) => l,
                None if self.eof => break,
                None => match input.recv() {
                    Ok(l) => l,
                    Err(_) => break,
                },
            };
            self.command(&line, input)?;
        }
        Ok(())
    }

    fn command(&mut self, line: &str, input: &Receiver<String>) -> Result<(), Fatal> {
        match translate::parse(line) {
            Command::Uci => {
                self.say("id name Chess Prodigy (board-sim)");
                self.say("id author the Chess Prodigy project");
                self.say("uciok");
            }
            Command::IsReady => {
                self.boot()?;
                self.request("ping", |r| matches!(r, Reply::Pong))?;
                self.say("readyok");
            }
            Command::UciNewGame => {
                // The next `position` starts from `new`/`fen`.
                self.position = None;
            }
            Command::Position(p) => {
                self.boot()?;
                self.set_position(p)?;
            }
            Command::Go(go, ignored) => {
                self.boot()?;
                if !ignored.is_empty() {
                    self.note(&format!("ignored in go: {}", ignored.join(", ")));
                }
                if self.position_failed {
                    self.note("refused: the position was not set up, no search");
                    self.say("bestmove 0000");
                    return Ok(());
                }
                let line = translate::go_line(&go);
                let movetime = if go.infinite || go.ponder { None } else { go.movetime };
                self.busy(&line, Busy::Search { movetime }, input)?;
            }
            Command::Perft(depth) => {
                self.boot()?;
                if self.position_failed {
                    self.note("refused: the position was not set up, no perft");
                    return Ok(());
                }
                // Leaves grow ~30x a ply; the firmware counts some 10^4-10^5 a second.
                let budget_ms = 60_000u64.saturating_mul(30u64.pow(depth.saturating_sub(3)));
                self.busy(&translate::perft_line(depth), Busy::Perft { depth, budget_ms }, input)?;
            }
            Command::Stop | Command::PonderHit => {
                // No search runs: nothing to stop.
            }
            Command::Quit => self.quit = true,
            Command::Debug => self.debug = line.split_whitespace().nth(1) == Some("on"),
            Command::SetOption(what) => self.note(&format!("no options: ignored setoption {what}")),
            Command::Register => {}
            Command::Empty => {}
            Command::Invalid(why) => self.note(&format!("ignored: {why}")),
        }
        Ok(())
    }

    /// Waits for the firmware to take commands: its receiver on, then a
    /// `pong` to a `ping`.
    fn boot(&mut self) -> Result<(), Fatal> {
        if self.booted {
            return Ok(());
        }
        let end = self.link.serial.now() + self.link.ms_to_cycles(BOOT_MS);
        while !self.link.serial.receiver_enabled() {
            if !self.link.pump(end).map_err(|e| self.dead(e, "booting"))? {
                return Err(format!("the firmware did not enable its serial receiver within {BOOT_MS} ms of emulated time"));
            }
        }
        self.link.send_line("ping");
        let mut heard = Vec::new();
        loop {
            let left = end.saturating_sub(self.link.serial.now());
            match self.link.read_line(left) {
                Ok(line) => match classify(&line) {
                    Reply::Pong => break,
                    _ => {
                        if self.debug {
                            self.note(&format!("firmware: {line}"));
                        }
                        heard.push(line);
                    }
                },
                Err(LinkError::Timeout { .. }) => {
                    let last = heard.last().map_or("nothing".to_string(), |l| format!("`{l}`"));
                    return Err(format!(
                        "the firmware did not answer ping with pong within {BOOT_MS} ms of emulated time (it said {last}): is this firmware built with the serial protocol?"
                    ));
                }
                Err(e) => return Err(self.dead(e, "booting")),
            }
        }
        self.booted = true;
        Ok(())
    }

    fn dead(&self, e: LinkError, doing: &str) -> Fatal {
        match e {
            LinkError::Dead(why) => format!("{why} (while {doing})"),
            LinkError::Timeout { waited_ms } => {
                format!("the firmware stopped answering: nothing for {waited_ms} ms of emulated time (while {doing})")
            }
        }
    }

    /// Sends `line` and waits for the reply `done` accepts or an `error`.
    /// Returns the error's text, if any.
    fn request(&mut self, line: &str, done: impl Fn(&Reply) -> bool) -> Result<Option<String>, Fatal> {
        self.link.send_line(line);
        let end = self.link.serial.now() + self.link.ms_to_cycles(REQUEST_MS);
        loop {
            let left = end.saturating_sub(self.link.serial.now());
            let answer = self.link.read_line(left).map_err(|e| self.dead(e, &format!("waiting for the answer to `{line}`")))?;
            let reply = classify(&answer);
            if done(&reply) {
                return Ok(None);
            }
            match reply {
                Reply::Error(e) => return Ok(Some(e)),
                // A late heartbeat answer.
                Reply::Pong => {}
                _ => self.note(&format!("firmware: {answer}")),
            }
        }
    }

    fn set_position(&mut self, wanted: Position) -> Result<(), Fatal> {
        let lines = match translate::position_lines(self.position.as_ref(), &wanted) {
            Ok(l) => l,
            Err(e) => {
                self.note(&format!("refused: {e}"));
                self.position = None;
                self.position_failed = true;
                return Ok(());
            }
        };
        for line in &lines {
            if let Some(e) = self.request(line, |r| matches!(r, Reply::Ok))? {
                self.note(&format!("refused: the firmware answered `{line}` with error {e}"));
                self.position = None;
                self.position_failed = true;
                return Ok(());
            }
        }
        self.position = Some(wanted);
        self.position_failed = false;
        Ok(())
    }

    /// Sends `line` (a `go` or `perft`) and runs the emulator until its
    /// result, forwarding `info` lines and handling the GUI meanwhile.
    fn busy(&mut self, line: &str, kind: Busy, input: &Receiver<String>) -> Result<(), Fatal> {
        let searching = matches!(kind, Busy::Search { .. });
        self.link.send_line(line);
        let ms = |link: &Link<S>, n: u64| link.ms_to_cycles(n);
        let start = self.link.serial.now();
        let slice = ms(&self.link, SEARCH_SLICE_MS);
        let mut last_heard = start;
        let mut ping_sent: Option<u64> = None;
        let mut readyok_owed = 0u32;
        let mut stop_sent = false;
        let mut stop_sent_at: Option<u64> = None;
        let mut stop_deadline = match kind {
            Busy::Search { movetime: Some(t) } => Some(start + ms(&self.link, t + MOVETIME_GRACE_MS)),
            _ => None,
        };
        let perft_end = match kind {
            Busy::Perft { budget_ms, .. } => Some(start.saturating_add(ms(&self.link, budget_ms))),
            _ => None,
        };
        loop {
            // The GUI, without waiting.
            loop {
                match input.try_recv() {
                    Ok(text) => match translate::parse(&text) {
                        Command::Stop if searching => {
                            if !stop_sent {
                                self.link.send_line("stop");
                                stop_sent = true;
                            }
                        }
                        Command::PonderHit if searching => self.link.send_line("ponderhit"),
                        Command::Stop | Command::PonderHit | Command::Empty => {}
                        Command::IsReady if searching => {
                            self.link.send_line("ping");
                            readyok_owed += 1;
                        }
                        Command::Quit => {
                            // Move now, pass the move on, then stop.
                            self.quit = true;
                            if searching && !stop_sent {
                                self.link.send_line("stop");
                                stop_sent = true;
                            }
                            if !searching {
                                return Ok(());
                            }
                        }
                        Command::Uci => {
                            self.say("id name Chess Prodigy (board-sim)");
                            self.say("uciok");
                        }
                        _ => self.pending.push_back(text),
                    },
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => {
                        self.eof = true;
                        break;
                    }
                }
            }
            let now = self.link.serial.now();
            let doing = if searching { "searching" } else { "counting perft" };
            self.link.pump(now + slice).map_err(|e| self.dead(e, doing))?;
            let now = self.link.serial.now();
            while let Some(text) = self.link.try_line() {
                last_heard = now;
                match classify(&text) {
                    Reply::Info(l) => self.say(&l),
                    Reply::BestMove(l) if searching => {
                        self.say(&l);
                        // Answer an isready still in flight.
                        for _ in 0..readyok_owed {
                            self.say("readyok");
                        }
                        return Ok(());
                    }
                    Reply::Perft { depth: d, nodes } if !searching => {
                        if let Busy::Perft { depth, .. } = kind {
                            if d != depth {
                                self.note(&format!("firmware answered perft {d} to perft {depth}"));
                            }
                        }
                        self.say("");
                        self.say(&format!("Nodes searched: {nodes}"));
                        self.say("");
                        return Ok(());
                    }
                    Reply::Pong => {
                        ping_sent = None;
                        if readyok_owed > 0 {
                            readyok_owed -= 1;
                            self.say("readyok");
                        }
                    }
                    Reply::Error(e) => {
                        self.note(&format!("firmware: error {e}"));
                        // Only the `go` itself can be refused (`stop`,
                        // `ponderhit` and `ping` are always taken).
                        if searching && e != "busy" {
                            self.say("bestmove 0000");
                            for _ in 0..readyok_owed {
                                self.say("readyok");
                            }
                        }
                        if !searching || e != "busy" {
                            return Ok(());
                        }
                    }
                    _ => self.note(&format!("firmware: {text}")),
                }
            }
            if searching {
                if let Some(deadline) = stop_deadline {
                    if now >= deadline && !stop_sent {
                        self.note(&format!("the search ran {MOVETIME_GRACE_MS} ms past its movetime: sending stop"));
                        self.link.send_line("stop");
                        stop_sent = true;
                        stop_deadline = None;
                    }
                }
                // A stop is answered by the bestmove at once.
                if stop_sent {
                    let at = *stop_sent_at.get_or_insert(now);
                    if now.saturating_sub(at) >= ms(&self.link, PING_TIMEOUT_MS) {
                        return Err(format!("the search did not end within {PING_TIMEOUT_MS} ms of emulated time after stop"));
                    }
                }
                let silent = now.saturating_sub(last_heard);
                match ping_sent {
                    None if silent >= ms(&self.link, HEARTBEAT_MS) => {
                        self.link.send_line("ping");
                        ping_sent = Some(now);
                    }
                    Some(at) if now.saturating_sub(at) >= ms(&self.link, PING_TIMEOUT_MS) => {
                        return Err(format!(
                            "the firmware stopped answering during the search: no pong to ping within {PING_TIMEOUT_MS} ms of emulated time (at {:.3} s emulated)",
                            now as f64 / self.link.serial.clock_hz() as f64
                        ));
                    }
                    _ => {}
                }
            } else if perft_end.is_some_and(|end| now >= end) {
                return Err(format!(
                    "the firmware did not finish `{line}` within {} s of emulated time",
                    (perft_end.unwrap_or(0) - start) / self.link.serial.clock_hz()
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::link::mock::{Mock, CLOCK_HZ};
    use super::*;
    use std::sync::mpsc::Sender;

    const MS: u64 = CLOCK_HZ / 1000;

    /// A firmware that speaks the protocol: answers after 1 ms, searches
    /// take their movetime (or 50 ms) unless stopped.
    fn protocol_firmware() -> Mock {
        let mut searching_until: Option<u64> = None;
        Mock::new(Box::new(move |line, now| {
            let mut t = line.split_whitespace();
            let first = t.next().unwrap_or("");
            if let Some(end) = searching_until {
                if now < end {
                    return match first {
                        "ping" => vec![(MS, "pong".into())],
                        "stop" => {
                            searching_until = None;
                            vec![(MS, "bestmove a2a3".into())]
                        }
                        "ponderhit" => vec![],
                        _ => vec![(MS, "error busy".into())],
                    };
                }
            }
            match first {
                "ping" => vec![(MS, "pong".into())],
                "new" | "fen" => vec![(MS, "ok".into())],
                "moves" => {
                    if let Some(bad) = t.find(|m| m.contains("x")) {
                        vec![(MS, format!("error illegal move {bad}"))]
                    } else {
                        vec![(MS, "ok".into())]
                    }
                }
                "go" => {
                    let words: Vec<&str> = line.split_whitespace().collect();
                    if words.contains(&"infinite") || words.contains(&"ponder") {
                        searching_until = Some(u64::MAX);
                        return vec![(MS, "info depth 1 score cp 10 nodes 20 time 1 pv e2e4".into())];
                    }
                    let mt = words.iter().position(|&w| w == "movetime").map_or(50, |i| words[i + 1].parse::<u64>().unwrap());
                    searching_until = Some(now + mt * MS);
                    vec![
                        (MS, "info depth 1 score cp 10 nodes 20 time 1 pv e2e4".into()),
                        (mt * MS, "bestmove e2e4 ponder e7e5".into()),
                    ]
                }
                "perft" => vec![(100 * MS, format!("perft {} 8902", t.next().unwrap_or("?")))],
                _ => vec![(MS, "error unknown command".into())],
            }
        }))
    }

    fn engine(mock: Mock) -> (Engine<Mock, Vec<u8>>, Sender<String>, Receiver<String>) {
        let (tx, rx) = mpsc::channel();
        (Engine::new(Link::new(mock), Vec::new()), tx, rx)
    }

    fn output(e: &Engine<Mock, Vec<u8>>) -> Vec<String> {
        String::from_utf8(e.out.clone()).unwrap().lines().map(String::from).collect()
    }

    fn session(lines: &[&str]) -> (Engine<Mock, Vec<u8>>, Result<(), Fatal>) {
        let (mut e, tx, rx) = engine(protocol_firmware());
        for l in lines {
            tx.send(format!("{l}\n")).unwrap();
        }
        drop(tx);
        let r = e.run(&rx);
        (e, r)
    }

    #[test]
    fn handshake_position_and_search() {
        let (e, r) = session(&["uci", "isready", "ucinewgame", "position startpos moves e2e4 e7e5", "go movetime 200"]);
        r.unwrap();
        let out = output(&e);
        assert_eq!(&out[..4], ["id name Chess Prodigy (board-sim)", "id author the Chess Prodigy project", "uciok", "readyok"]);
        assert!(out.contains(&"info depth 1 score cp 10 nodes 20 time 1 pv e2e4".to_string()), "{out:?}");
        assert_eq!(out.last().unwrap(), "bestmove e2e4 ponder e7e5");
        assert_eq!(e.link.serial.received, ["ping", "ping", "new", "moves e2e4 e7e5", "go movetime 200"]);
        // The search took its 200 ms of emulated time.
        assert!(e.link.serial.now > 200 * MS);
    }

    #[test]
    fn only_new_moves_are_sent() {
        let (e, r) = session(&[
            "position startpos moves e2e4",
            "go depth 1",
            "position startpos moves e2e4 e7e5 g1f3",
            "go wtime 1000 btime 1000",
            "ucinewgame",
            "position fen 8/8/8/4k3/8/8/8/4K2R w K - 0 1",
        ]);
        r.unwrap();
        assert_eq!(
            e.link.serial.received,
            ["ping", "new", "moves e2e4", "go depth 1", "moves e7e5 g1f3", "go wtime 1000 btime 1000", "fen 8/8/8/4k3/8/8/8/4K2R w K - 0 1"]
        );
        assert_eq!(output(&e).iter().filter(|l| l.starts_with("bestmove")).count(), 2);
    }

    #[test]
    fn quit_during_a_search_moves_now_and_ends() {
        let (e, r) = session(&["go infinite", "quit", "go depth 1"]);
        r.unwrap();
        assert_eq!(output(&e).last().unwrap(), "bestmove a2a3");
        assert_eq!(e.link.serial.received, ["ping", "go infinite", "stop"]);
    }

    #[test]
    fn stop_ends_an_infinite_search() {
        let (mut e, tx, rx) = engine(protocol_firmware());
        tx.send("go infinite\n".into()).unwrap();
        // The stop is there from the start: the bridge sees it at its first look.
        tx.send("stop\n".into()).unwrap();
        tx.send("isready\n".into()).unwrap();
        drop(tx);
        e.run(&rx).unwrap();
        let out = output(&e);
        assert_eq!(out, ["info depth 1 score cp 10 nodes 20 time 1 pv e2e4", "bestmove a2a3", "readyok"]);
        assert!(e.link.serial.received.contains(&"stop".to_string()));
    }

    #[test]
    fn isready_during_a_search_is_answered_at_once() {
        let (mut e, tx, rx) = engine(protocol_firmware());
        tx.send("go ponder\n".into()).unwrap();
        tx.send("isready\n".into()).unwrap();
        tx.send("ponderhit\n".into()).unwrap();
        tx.send("stop\n".into()).unwrap();
        drop(tx);
        e.run(&rx).unwrap();
        let out = output(&e);
        assert_eq!(out.last().unwrap(), "bestmove a2a3");
        assert!(out.contains(&"readyok".to_string()));
        let sent = &e.link.serial.received;
        assert_eq!(&sent[1..], ["go ponder", "ping", "ponderhit", "stop"]);
    }

    #[test]
    fn perft_answers_like_stockfish() {
        let (e, r) = session(&["position startpos", "go perft 3"]);
        r.unwrap();
        let out = output(&e);
        assert!(out.contains(&"Nodes searched: 8902".to_string()), "{out:?}");
        assert_eq!(e.link.serial.received.last().unwrap(), "perft 3");
    }

    #[test]
    fn garbage_is_ignored_with_a_message() {
        let (e, r) = session(&["flubber", "\u{1}\u{2}", "go perft 99", "position startpos moves zz", "isready"]);
        r.unwrap();
        let out = output(&e);
        assert_eq!(out.len(), 5, "{out:?}");
        assert!(out[..4].iter().all(|l| l.starts_with("info string ignored")), "{out:?}");
        assert_eq!(out[4], "readyok");
    }

    #[test]
    fn a_refused_position_gives_no_search() {
        let (e, r) = session(&["position startpos moves e2e4 e7x5", "go movetime 10"]);
        // e7x5 is not coordinate notation: refused by the bridge itself.
        r.unwrap();
        let out = output(&e);
        assert!(out[0].starts_with("info string ignored: position"), "{out:?}");
        // The firmware then refuses a move (the mock refuses anything with an x).
        let (e, r) = session(&["position fen 8/8/8/4k3/8/8/8/4K2R w K - 0 1", "go movetime 10"]);
        r.unwrap();
        assert_eq!(output(&e).last().unwrap(), "bestmove e2e4 ponder e7e5");
        let mut mock = protocol_firmware();
        mock.script = {
            let mut inner = protocol_firmware().script;
            Box::new(move |line, now| {
                if line.starts_with("moves") {
                    vec![(MS, "error illegal move e2e5".into())]
                } else {
                    inner(line, now)
                }
            })
        };
        let (mut e, tx, rx) = engine(mock);
        for l in ["position startpos moves e2e5", "go movetime 10", "position startpos", "go movetime 10"] {
            tx.send(l.into()).unwrap();
        }
        drop(tx);
        e.run(&rx).unwrap();
        let out = output(&e);
        assert!(out[0].contains("refused: the firmware answered `moves e2e5` with error illegal move e2e5"), "{out:?}");
        assert_eq!(out[2], "bestmove 0000");
        assert_eq!(out.last().unwrap(), "bestmove e2e4 ponder e7e5");
        // After a failure the position is sent from scratch.
        assert_eq!(e.link.serial.received.iter().filter(|l| *l == "new").count(), 2);
    }

    #[test]
    fn a_firmware_that_only_echoes_is_a_clear_error() {
        let mock = Mock::new(Box::new(|line, _| vec![(MS, format!("echo {line}"))]));
        let (mut e, tx, rx) = engine(mock);
        tx.send("isready\n".into()).unwrap();
        let err = e.run(&rx).unwrap_err();
        assert!(err.contains("did not answer ping") && err.contains("echo ping"), "{err}");
    }

    #[test]
    fn a_refused_go_ends_with_a_null_move() {
        let mut mock = protocol_firmware();
        let mut inner = protocol_firmware().script;
        mock.script = Box::new(move |line, now| if line.starts_with("go") { vec![(MS, "error bad go".into())] } else { inner(line, now) });
        let (mut e, tx, rx) = engine(mock);
        tx.send("go infinite\n".into()).unwrap();
        tx.send("isready\n".into()).unwrap();
        drop(tx);
        e.run(&rx).unwrap();
        assert_eq!(output(&e), ["info string firmware: error bad go", "bestmove 0000", "readyok"]);
    }

    #[test]
    fn a_search_that_ignores_stop_is_fatal() {
        let mut mock = protocol_firmware();
        let mut inner = protocol_firmware().script;
        // Searches forever, answers pings, ignores stop.
        mock.script = Box::new(move |line, now| if line == "stop" { vec![] } else { inner(line, now) });
        let (mut e, tx, rx) = engine(mock);
        tx.send("go infinite\n".into()).unwrap();
        tx.send("stop\n".into()).unwrap();
        let err = e.run(&rx).unwrap_err();
        assert!(err.contains("did not end") && err.contains("after stop"), "{err}");
    }

    #[test]
    fn a_fault_during_a_search_is_fatal() {
        let mut mock = protocol_firmware();
        mock.fault_at = Some(30 * MS);
        let (mut e, tx, rx) = engine(mock);
        tx.send("go movetime 1000\n".into()).unwrap();
        let err = e.run(&rx).unwrap_err();
        assert!(err.contains("faulted") && err.contains("searching"), "{err}");
    }

    #[test]
    fn a_search_that_goes_silent_is_fatal() {
        let mut mock = protocol_firmware();
        let mut inner = protocol_firmware().script;
        // Accepts the go, then never says anything again.
        let mut gone = false;
        mock.script = Box::new(move |line, now| {
            gone |= line.starts_with("go");
            if gone {
                vec![]
            } else {
                inner(line, now)
            }
        });
        let (mut e, tx, rx) = engine(mock);
        tx.send("go infinite\n".into()).unwrap();
        let err = e.run(&rx).unwrap_err();
        assert!(err.contains("stopped answering during the search"), "{err}");
    }

    #[test]
    fn a_movetime_search_that_overruns_is_stopped() {
        let mut mock = protocol_firmware();
        let mut inner = protocol_firmware().script;
        // Treats every go as infinite.
        mock.script = Box::new(move |line, now| {
            if line.starts_with("go") {
                inner("go infinite", now)
            } else {
                inner(line, now)
            }
        });
        let (mut e, tx, rx) = engine(mock);
        tx.send("go movetime 100\n".into()).unwrap();
        drop(tx);
        e.run(&rx).unwrap();
        let out = output(&e);
        assert!(out.iter().any(|l| l.contains("sending stop")), "{out:?}");
        assert_eq!(out.last().unwrap(), "bestmove a2a3");
    }
}

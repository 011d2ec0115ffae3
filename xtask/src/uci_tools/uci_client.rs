//! A UCI engine as a child process: lines in, lines out, with timeouts.

use crate::util::Result;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// What a search ended with.
#[derive(Clone, Debug, Default)]
pub struct SearchResult {
    /// The `bestmove` (coordinate notation; `0000` for none).
    pub best: String,
    /// The last `score` seen: centipawns or mate in N (signed, side to move).
    pub score: Option<Score>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    Mate(i32),
}

impl std::fmt::Display for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Score::Cp(c) => write!(f, "cp {c}"),
            Score::Mate(m) => write!(f, "mate {m}"),
        }
    }
}

pub struct UciEngine {
    pub label: String,
    pub name: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// The last lines it said, for error messages.
    recent: Vec<String>,
}

impl UciEngine {
    /// Starts `cmd` (program and arguments) and does the `uci`/`isready`
    /// handshake.
    pub fn start(cmd: &[String], label: &str) -> Result<UciEngine> {
        let (child, stdin, lines) = spawn_engine(cmd, label, Stdio::inherit())?;
        let mut e = UciEngine { label: label.to_string(), name: label.to_string(), child, stdin, lines, recent: Vec::new() };
        e.send("uci")?;
        let deadline = Duration::from_secs(30);
        loop {
            let line = e.read_line(deadline)?;
            if let Some(name) = line.strip_prefix("id name ") {
                e.name = name.trim().to_string();
            }
            if line == "uciok" {
                break;
            }
        }
        e.ready(deadline)?;
        Ok(e)
    }

    pub fn send(&mut self, line: &str) -> Result {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|e| format!("{}: cannot write `{line}`: {e}{}", self.label, self.context()))
    }

    fn context(&self) -> String {
        if self.recent.is_empty() {
            String::new()
        } else {
            format!("\n  last lines from {}:\n    {}", self.label, self.recent.join("\n    "))
        }
    }

    /// The next line, within `timeout`.
    pub fn read_line(&mut self, timeout: Duration) -> Result<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(line) => {
                if self.recent.len() >= 8 {
                    self.recent.remove(0);
                }
                self.recent.push(line.clone());
                if line.starts_with("info string error") {
                    return Err(format!("{} reported: {line}", self.label));
                }
                Ok(line)
            }
            Err(RecvTimeoutError::Timeout) => Err(format!("{}: no answer within {timeout:?}{}", self.label, self.context())),
            Err(RecvTimeoutError::Disconnected) => {
                let status = self.child.wait().map(|s| s.to_string()).unwrap_or_else(|e| e.to_string());
                Err(format!("{} exited ({status}){}", self.label, self.context()))
            }
        }
    }

    pub fn ready(&mut self, timeout: Duration) -> Result {
        self.send("isready")?;
        let end = Instant::now() + timeout;
        while self.read_line(end.saturating_duration_since(Instant::now()))? != "readyok" {}
        Ok(())
    }

    pub fn new_game(&mut self) -> Result {
        self.send("ucinewgame")?;
        self.ready(Duration::from_secs(30))
    }

    /// `position` then `go`; waits for `bestmove` within `timeout`.
    pub fn search(&mut self, position: &str, go: &str, timeout: Duration) -> Result<SearchResult> {
        self.send(position)?;
        self.send(go)?;
        let end = Instant::now() + timeout;
        let mut r = SearchResult::default();
        loop {
            let line = self.read_line(end.saturating_duration_since(Instant::now()))?;
            let mut t = line.split_whitespace();
            match t.next() {
                Some("bestmove") => {
                    r.best = t.next().unwrap_or("0000").to_string();
                    return Ok(r);
                }
                Some("info") => {
                    let words: Vec<&str> = line.split_whitespace().collect();
                    for (i, w) in words.iter().enumerate() {
                        let next = words.get(i + 1);
                        match *w {
                            "depth" => r.depth = next.and_then(|v| v.parse().ok()).or(r.depth),
                            "nodes" => r.nodes = next.and_then(|v| v.parse().ok()).or(r.nodes),
                            "score" => {
                                let v = words.get(i + 2).and_then(|v| v.parse().ok());
                                match (next, v) {
                                    (Some(&"cp"), Some(v)) => r.score = Some(Score::Cp(v)),
                                    (Some(&"mate"), Some(v)) => r.score = Some(Score::Mate(v)),
                                    _ => {}
                                }
                            }
                            // The pv ends the fields we read.
                            "pv" | "string" => break,
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
    }

    pub fn quit(mut self) {
        let _ = self.send("quit");
        let end = Instant::now() + Duration::from_secs(5);
        while Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        // Dropped: killed.
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// `position` for a start FEN (or the initial position) and moves.
pub fn position_command(fen: Option<&str>, moves: &[String]) -> String {
    let mut s = match fen {
        Some(f) => format!("position fen {f}"),
        None => "position startpos".to_string(),
    };
    if !moves.is_empty() {
        s.push_str(" moves ");
        s.push_str(&moves.join(" "));
    }
    s
}

/// Starts an engine process with piped stdin/stdout; its output lines
/// arrive on a channel from a reader thread, so reads can time out.
fn spawn_engine(cmd: &[String], label: &str, stderr: Stdio) -> Result<(Child, ChildStdin, Receiver<String>)> {
    let (program, args) = cmd.split_first().ok_or("empty engine command")?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .map_err(|e| format!("cannot start {label} `{}`: {e}", cmd.join(" ")))?;
    let stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    Ok((child, stdin, lines))
}

/// Splits an `--engine` command line on whitespace.
pub fn split_command(cmd: &str) -> Vec<String> {
    cmd.split_whitespace().map(String::from).collect()
}

/// An xboard (CECP) engine such as fairymax, asked for one move at a time:
/// `new`, `force`, the game's moves, `sd DEPTH`, `go`, and its `move` back.
pub struct XboardEngine {
    pub label: String,
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl XboardEngine {
    pub fn start(cmd: &[String], label: &str) -> Result<XboardEngine> {
        let (child, stdin, lines) = spawn_engine(cmd, label, Stdio::null())?;
        let mut e = XboardEngine { label: label.to_string(), child, stdin, lines };
        e.send("xboard")?;
        e.send("protover 2")?;
        let end = Instant::now() + Duration::from_secs(10);
        loop {
            let line = e.read_line(end.saturating_duration_since(Instant::now()))?;
            if line.contains("done=1") {
                break;
            }
        }
        Ok(e)
    }

    fn send(&mut self, line: &str) -> Result {
        writeln!(self.stdin, "{line}").and_then(|_| self.stdin.flush()).map_err(|e| format!("{}: cannot write: {e}", self.label))
    }

    fn read_line(&mut self, timeout: Duration) -> Result<String> {
        match self.lines.recv_timeout(timeout) {
            Ok(l) => Ok(l),
            Err(RecvTimeoutError::Timeout) => Err(format!("{}: no answer within {timeout:?}", self.label)),
            Err(RecvTimeoutError::Disconnected) => Err(format!("{} exited", self.label)),
        }
    }

    /// The engine's move (coordinate notation, or `resign`) after `moves`
    /// from the initial position, searched to `depth`.
    pub fn best_move(&mut self, moves: &[String], depth: u32, timeout: Duration) -> Result<String> {
        self.send("new")?;
        self.send("force")?;
        for m in moves {
            self.send(m)?;
        }
        self.send(&format!("sd {depth}"))?;
        self.send("go")?;
        let end = Instant::now() + timeout;
        loop {
            let line = self.read_line(end.saturating_duration_since(Instant::now()))?;
            if let Some(m) = line.strip_prefix("move ") {
                self.send("force")?;
                return Ok(m.trim().to_string());
            }
            if line.starts_with("resign") || line.contains("resign") && !line.starts_with('#') {
                self.send("force")?;
                return Ok("resign".into());
            }
            if line.starts_with("Illegal move") || line.starts_with("Error") {
                return Err(format!("{}: {line}", self.label));
            }
        }
    }

    pub fn quit(mut self) {
        let _ = self.send("quit");
    }
}

impl Drop for XboardEngine {
    fn drop(&mut self) {
        std::thread::sleep(Duration::from_millis(50));
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

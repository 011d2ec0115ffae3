//! `cargo xtask host-engine`: the firmware's engine compiled for this
//! machine, as a UCI engine whose clock runs at the AVR's speed.
//!
//! The chess code is target-neutral, so the host build searches the same
//! trees as the AVR image; only the clock differs. Here it is virtual: it
//! advances by [`POLL_NODES`] nodes at `--nps` each time the search polls,
//! so `go movetime 10000` gets about the nodes the AVR gets in 10 s, and
//! the time manager behaves as on the board. Games take milliseconds a
//! move instead of seconds: `cargo xtask match --host` plays hundreds of
//! games for an A/B test of a search or evaluation change in minutes, and
//! the emulator then confirms the result on the real image. Like the
//! firmware's `go` over the serial line, it never plays from the book.

use firmware::chess::{Move, NotationError, Position};
use firmware::engine::{Engine, Score, SearchHost, SearchInfo, SearchLimits, POLL_NODES};
use std::io::{BufRead, Write};

/// The AVR build's speed, `cargo xtask bench engine`'s total (the median
/// over its positions is 2,021).
pub const DEFAULT_NPS: u32 = 2043;

#[derive(clap::Args)]
pub struct Args {
    /// Nodes per second of the virtual clock (the AVR image's speed)
    #[arg(long, default_value_t = DEFAULT_NPS, value_parser = clap::value_parser!(u32).range(1..))]
    pub nps: u32,
}

/// A clock that advances with the nodes searched.
struct VirtualClock<'a, W: Write> {
    /// Virtual microseconds since the engine started.
    micros: u64,
    nps: u32,
    out: &'a mut W,
}

impl<W: Write> SearchHost for VirtualClock<'_, W> {
    fn now_ms(&mut self) -> u32 {
        (self.micros / 1000) as u32
    }

    /// Called once per [`POLL_NODES`] nodes: the clock's tick.
    fn stop_requested(&mut self) -> bool {
        self.micros += POLL_NODES as u64 * 1_000_000 / self.nps as u64;
        false
    }

    fn report(&mut self, info: &SearchInfo) {
        let score = match info.score {
            Score::Cp(c) => format!("cp {c}"),
            Score::Mate(m) => format!("mate {m}"),
        };
        let pv: Vec<String> = info.pv.iter().map(|m| coord(*m)).collect();
        let _ = writeln!(
            self.out,
            "info depth {} seldepth {} score {score} nodes {} time {} pv {}",
            info.depth,
            info.seldepth,
            info.nodes,
            info.elapsed_ms,
            pv.join(" ")
        );
    }
}

fn coord(m: Move) -> String {
    let mut b = [0u8; 5];
    let n = m.write_coord(&mut b).unwrap_or(0);
    String::from_utf8_lossy(&b[..n]).into_owned()
}

/// `position startpos|fen F [moves M...]`; the position only changes when
/// the whole command is good.
fn parse_position(rest: &str) -> Result<Position, String> {
    let (setup, moves) = match rest.find(" moves") {
        Some(i) => (&rest[..i], rest[i + " moves".len()..].trim()),
        None => (rest.trim(), ""),
    };
    let mut pos = if setup.trim() == "startpos" {
        Position::start()
    } else if let Some(fen) = setup.trim().strip_prefix("fen ") {
        Position::from_fen(fen.trim().as_bytes()).map_err(|e| format!("bad FEN `{}`: {e:?}", fen.trim()))?
    } else {
        return Err(format!("expected `startpos` or `fen ...`, got `{}`", setup.trim()));
    };
    for m in moves.split_whitespace() {
        let mv = pos.parse_coord(m.as_bytes()).map_err(|e| match e {
            NotationError::Malformed => format!("malformed move `{m}`"),
            NotationError::Illegal => format!("illegal move `{m}`"),
        })?;
        pos.make_move(mv);
    }
    Ok(pos)
}

/// `go` arguments; unknown words are errors (nothing is searched).
fn parse_go(rest: &str) -> Result<SearchLimits, String> {
    let mut limits = SearchLimits::new();
    let words: Vec<&str> = rest.split_whitespace().collect();
    let mut i = 0;
    while i < words.len() {
        let word = words[i];
        if word == "infinite" {
            return Err("`go infinite` is not supported (no `stop` while searching)".into());
        }
        let value = words.get(i + 1).ok_or_else(|| format!("`{word}` needs a value"))?;
        let number: u64 = value.parse().map_err(|_| format!("`{word} {value}`: not a number"))?;
        let n32 = number.min(u32::MAX as u64) as u32;
        match word {
            "movetime" => limits.movetime_ms = n32,
            "nodes" => limits.nodes = n32,
            "depth" => limits.depth = number.min(u8::MAX as u64) as u8,
            "wtime" => limits.wtime_ms = n32,
            "btime" => limits.btime_ms = n32,
            "winc" => limits.winc_ms = n32,
            "binc" => limits.binc_ms = n32,
            "movestogo" => limits.movestogo = number.min(u8::MAX as u64) as u8,
            _ => return Err(format!("unknown `go` argument `{word}`")),
        }
        i += 2;
    }
    // Nothing can stop a search here but its own limits.
    if limits.depth == 0 && limits.nodes == 0 && !limits.is_timed() {
        return Err("needs a limit: movetime, nodes, depth or wtime/btime".into());
    }
    Ok(limits)
}

/// The UCI loop over any input and output (stdin/stdout in the command).
pub fn serve(input: impl BufRead, out: &mut impl Write, nps: u32) -> std::io::Result<()> {
    let mut engine = Box::new(Engine::new());
    let mut pos = Position::start();
    let mut micros = 0u64;
    for line in input.lines() {
        let line = line?;
        let line = line.trim();
        let (cmd, rest) = line.split_once(' ').unwrap_or((line, ""));
        match cmd {
            "" => {}
            "uci" => {
                writeln!(out, "id name Chess Prodigy (host, {nps} nps clock)")?;
                writeln!(out, "id author Chess Prodigy developers")?;
                writeln!(out, "uciok")?;
            }
            "isready" => writeln!(out, "readyok")?,
            "ucinewgame" => {
                engine.clear();
                pos = Position::start();
            }
            "position" => match parse_position(rest) {
                Ok(p) => pos = p,
                Err(e) => writeln!(out, "info string error: position: {e} (position unchanged)")?,
            },
            "go" => match parse_go(rest) {
                Ok(limits) => {
                    let mut clock = VirtualClock { micros, nps, out: &mut *out };
                    let mut searched = pos.clone();
                    let r = engine.search(&mut searched, &limits, &mut clock);
                    micros = clock.micros;
                    if r.best.is_none() {
                        writeln!(out, "bestmove 0000")?;
                    } else {
                        writeln!(out, "bestmove {}", coord(r.best))?;
                    }
                }
                Err(e) => writeln!(out, "info string error: go: {e}")?,
            },
            "stop" | "ponderhit" | "setoption" => {}
            "quit" => break,
            _ => writeln!(out, "info string error: unknown command `{cmd}`")?,
        }
        out.flush()?;
    }
    Ok(())
}

pub fn run(args: Args) -> crate::util::Result {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    serve(stdin.lock(), &mut stdout, args.nps).map_err(|e| format!("host-engine: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(script: &str, nps: u32) -> String {
        let mut out = Vec::new();
        serve(script.as_bytes(), &mut out, nps).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn bestmoves(out: &str) -> Vec<&str> {
        out.lines().filter_map(|l| l.strip_prefix("bestmove ")).collect()
    }

    #[test]
    fn plays_legal_moves_and_rejects_bad_input() {
        let out = session(
            "uci\nisready\nposition startpos moves e2e4 e7e5\ngo depth 3\n\
             position startpos moves e2e5\ngo depth 1\nposition startpos moves e2e4 e7\n\
             position fen not a fen\nfrobnicate\ngo sideways 3\ngo\ngo depth 0\n\
             position fen 6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1\ngo depth 3\nquit\ngo depth 1\n",
            DEFAULT_NPS,
        );
        assert!(out.contains("uciok") && out.contains("readyok"), "{out}");
        let best = bestmoves(&out);
        assert_eq!(best.len(), 3, "{out}");
        // After 1.e4 e5, a legal white move.
        let mut p = Position::start();
        p.make_move(p.parse_coord(b"e2e4").unwrap());
        p.make_move(p.parse_coord(b"e7e5").unwrap());
        assert!(p.parse_coord(best[0].as_bytes()).is_ok(), "{out}");
        // The illegal move left the position alone: the same position again.
        assert!(out.contains("error: position: illegal move `e2e5`"), "{out}");
        assert!(p.parse_coord(best[1].as_bytes()).is_ok(), "{out}");
        assert!(out.contains("error: position: malformed move `e7`"), "{out}");
        assert!(out.contains("error: position: bad FEN"), "{out}");
        assert!(out.contains("unknown command `frobnicate`"), "{out}");
        assert!(out.contains("unknown `go` argument `sideways`"), "{out}");
        assert_eq!(out.matches("error: go: needs a limit").count(), 2, "{out}");
        // Back-rank mate found; nothing after quit.
        assert_eq!(best[2], "a1a8", "{out}");
        assert!(out.contains("score mate 1"), "{out}");
    }

    #[test]
    fn movetime_runs_on_the_virtual_clock() {
        // The nodes searched in a fixed time scale with the clock's speed.
        let nodes = |nps: u32| -> u32 {
            let out = session("position startpos\ngo movetime 2000\n", nps);
            assert_eq!(bestmoves(&out).len(), 1, "{out}");
            let last = out.lines().rfind(|l| l.starts_with("info depth")).unwrap_or_else(|| panic!("{out}"));
            let time: u32 = last.split_whitespace().skip_while(|w| *w != "time").nth(1).unwrap().parse().unwrap();
            assert!(time <= 2000, "{out}");
            last.split_whitespace().skip_while(|w| *w != "nodes").nth(1).unwrap().parse().unwrap()
        };
        let slow = nodes(500);
        let fast = nodes(5000);
        assert!(slow > 100 && slow <= 1000, "{slow}");
        assert!(fast > 3 * slow, "{slow} {fast}");
    }
}

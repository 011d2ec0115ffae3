//! `board-sim uci` end to end: the bridge binary, the real firmware in the
//! emulator, complete games against a random mover with every move checked
//! by a host rules library (shakmaty), and perft.
//!
//! These tests need the AVR build: `cargo xtask test` builds it and passes
//! its path in `PRODIGY_ELF`.

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Real time a single answer may take (the emulator runs a search of a
/// few hundred emulated milliseconds in well under a second).
const ANSWER_TIMEOUT: Duration = Duration::from_secs(120);

fn firmware_elf() -> String {
    std::env::var("PRODIGY_ELF")
        .expect("PRODIGY_ELF is not set: these tests run the AVR firmware; run them with `cargo xtask test`")
}

/// `board-sim uci` as a child process.
struct Bridge {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// Everything it said, for failure messages.
    transcript: Vec<String>,
}

impl Bridge {
    fn start() -> Bridge {
        // UCI_BRIDGE_BIN: another build of the bridge (e.g. with a patched emulator).
        let bin = std::env::var("UCI_BRIDGE_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_board-sim").to_string());
        let mut child = Command::new(bin)
            .args(["uci", &firmware_elf()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start board-sim uci");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut b = Bridge { child, stdin, lines, transcript: Vec::new() };
        b.send("uci");
        b.expect(|l| l == "uciok");
        b.send("isready");
        b.expect(|l| l == "readyok");
        b
    }

    fn send(&mut self, line: &str) {
        self.transcript.push(format!("> {line}"));
        writeln!(self.stdin, "{line}").and_then(|_| self.stdin.flush()).unwrap_or_else(|e| self.fail(&format!("write: {e}")));
    }

    fn fail(&self, why: &str) -> ! {
        let tail: Vec<&String> = self.transcript.iter().rev().take(40).collect::<Vec<_>>().into_iter().rev().collect();
        panic!("{why}\nlast lines of the session:\n{}", tail.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n"));
    }

    /// Reads lines until one satisfies `done`; returns it. Fails on an
    /// `info string error`, the bridge's exit or a timeout.
    fn expect(&mut self, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + ANSWER_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.transcript.push(format!("< {line}"));
                    if line.starts_with("info string error") {
                        self.fail(&format!("the bridge reported: {line}"));
                    }
                    if done(&line) {
                        return line;
                    }
                }
                Err(RecvTimeoutError::Timeout) => self.fail(&format!("no answer within {ANSWER_TIMEOUT:?}")),
                Err(RecvTimeoutError::Disconnected) => {
                    let status = self.child.wait();
                    self.fail(&format!("the bridge exited: {status:?}"))
                }
            }
        }
    }

    fn quit(mut self) {
        self.send("quit");
        let status = self.child.wait().expect("wait for board-sim");
        assert!(status.success(), "board-sim uci exited with {status}");
    }
}

/// xorshift64*: a reproducible random mover without a dependency.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

/// Plays one game, the bridge on `engine` against random moves; returns a
/// description of how it ended.
fn play_game(bridge: &mut Bridge, engine: Color, seed: u64, go: &str) -> String {
    let mut rng = Rng(seed);
    let mut pos = Chess::default();
    let mut moves: Vec<String> = Vec::new();
    let mut seen: HashMap<String, u32> = HashMap::new();
    let mut searches_with_info = 0;
    let mut searches = 0;
    bridge.send("ucinewgame");
    bridge.send("isready");
    bridge.expect(|l| l == "readyok");
    let end = loop {
        let key = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
        let key: String = key.split(' ').take(4).collect::<Vec<_>>().join(" ");
        let reps = seen.entry(key).or_insert(0);
        *reps += 1;
        if pos.is_checkmate() {
            break format!("{:?} mated", pos.turn());
        }
        if pos.is_stalemate() {
            break "stalemate".into();
        }
        if pos.is_insufficient_material() {
            break "insufficient material".into();
        }
        if pos.halfmoves() >= 100 {
            break "fifty-move rule".into();
        }
        if *reps >= 3 {
            break "threefold repetition".into();
        }
        if pos.fullmoves().get() > 80 {
            break "move 80".into();
        }
        let m = if pos.turn() == engine {
            let cmd = if moves.is_empty() { "position startpos".to_string() } else { format!("position startpos moves {}", moves.join(" ")) };
            bridge.send(&cmd);
            bridge.send(go);
            searches += 1;
            let mut had_info = false;
            let best = loop {
                let line = bridge.expect(|l| l.starts_with("bestmove") || l.starts_with("info "));
                if line.starts_with("info ") {
                    had_info |= line.contains(" pv ");
                    continue;
                }
                break line;
            };
            searches_with_info += had_info as u32;
            let text = best.split_whitespace().nth(1).unwrap_or("").to_string();
            let uci: UciMove = text.parse().unwrap_or_else(|_| bridge.fail(&format!("`{best}` is not a move")));
            uci.to_move(&pos).unwrap_or_else(|_| {
                bridge.fail(&format!("illegal move `{text}` in {}", Fen::from_position(&pos, EnPassantMode::Legal)))
            })
        } else {
            let legal = pos.legal_moves();
            legal[rng.below(legal.len())]
        };
        moves.push(m.to_uci(CastlingMode::Standard).to_string());
        pos.play_unchecked(m);
    };
    assert!(searches > 0);
    assert!(searches_with_info * 2 >= searches, "only {searches_with_info} of {searches} searches sent an info line with a pv");
    format!("{end} after {} plies", moves.len())
}

#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn plays_complete_legal_games_against_a_random_mover() {
    let mut bridge = Bridge::start();
    for (game, engine) in [Color::White, Color::Black].into_iter().enumerate() {
        let end = play_game(&mut bridge, engine, 0x9E37_79B9_7F4A_7C15 ^ game as u64, "go movetime 200");
        eprintln!("game {game} (engine {engine:?}): {end}");
        // Against random moves the engine should not lose.
        assert!(!end.starts_with(&format!("{engine:?} mated")), "the engine lost to random moves: {end}");
    }
    bridge.quit();
}

#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn go_perft_counts_like_stockfish() {
    let mut bridge = Bridge::start();
    bridge.send("position startpos");
    bridge.send("go perft 3");
    let line = bridge.expect(|l| l.starts_with("Nodes searched"));
    assert_eq!(line, "Nodes searched: 8902");
    // Kiwipete: castling, en passant, promotions.
    bridge.send("position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    bridge.send("go perft 2");
    let line = bridge.expect(|l| l.starts_with("Nodes searched"));
    assert_eq!(line, "Nodes searched: 2039");
    bridge.quit();
}

#[test]
#[ignore = "needs the firmware: run by cargo xtask test"]
fn garbage_from_the_gui_is_ignored_and_stop_works() {
    let mut bridge = Bridge::start();
    for junk in ["hello", "position sideways", "go perft 42", "position startpos moves e2e4 zz", "\u{1b}[A"] {
        bridge.send(junk);
        bridge.expect(|l| l.starts_with("info string"));
    }
    bridge.send("isready");
    bridge.expect(|l| l == "readyok");
    // The firmware refuses an illegal move: no search on that position.
    bridge.send("position startpos moves e2e5");
    bridge.expect(|l| l.starts_with("info string refused"));
    bridge.send("go depth 1");
    bridge.expect(|l| l == "bestmove 0000");
    // An infinite search ends with stop, and answers isready meanwhile.
    bridge.send("position startpos moves e2e4");
    bridge.send("go infinite");
    bridge.send("isready");
    bridge.expect(|l| l == "readyok");
    bridge.send("stop");
    let best = bridge.expect(|l| l.starts_with("bestmove"));
    let pos: Chess = Chess::default().play("e2e4".parse::<UciMove>().unwrap().to_move(&Chess::default()).unwrap()).unwrap();
    let m: UciMove = best.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(m.to_move(&pos).is_ok(), "{best} is not legal after 1. e4");
    bridge.quit();
}

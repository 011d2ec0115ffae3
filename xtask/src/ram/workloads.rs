//! The worst-case workload of `cargo xtask ram`: the real firmware on the
//! emulated board (LCD and buttons attached), driven over its serial line
//! and its buttons through everything that could need a deep stack. Each
//! step's lowest SP is its own (the caller resets the mark before a step).
//!
//! * boot and the splash screen;
//! * the deepest searches: long `go movetime` searches of engine benchmark
//!   positions (`assets/bench_positions.epd`);
//! * positions known to blow up the quiescence search (many captures,
//!   checks and promotions; the longest `seldepth` of Win at Chess);
//! * a game over the serial line as a UCI host plays it (`new`, `moves`,
//!   `go wtime ...`), serial pondering (`go ponder` + `ponderhit`, and + `stop`),
//!   perft, bench, `fen?`, `status?`, errors and `error busy`;
//! * a game on the buttons at Level 0 with Guess on: the computer's move,
//!   pondering on the guessed reply interrupted by MENU, a hint, takebacks;
//! * every menu screen through its key sequence: Move, Hint, Level (all
//!   levels and the tournament editor), Guess, Back, Swap, Verify, Analyze
//!   (square editor, clear, side, done, cancel), Save, Load, New, About.
//!
//! The whole list runs in about 650 s of emulated time (about 30 s real).

use super::Workload;
use crate::rig::Rig;
use emulator::Stop;

type R<T = ()> = std::result::Result<T, String>;

/// Power-on, the splash screen, until the serial line answers `ping`, then
/// a second on the game screen.
pub struct BootSplash;

impl Workload for BootSplash {
    fn name(&self) -> String {
        "boot + splash".into()
    }

    fn run(&self, rig: &mut Rig) -> R<Stop> {
        rig.boot()?;
        rig.run_ms(1000)?;
        let row = rig.lcd()[1].clone();
        if !row.starts_with("Your move") {
            return Err(format!("after the splash the LCD shows {:?}, not the game screen", rig.lcd()));
        }
        Ok(Stop::CycleLimit)
    }
}

/// One long search of a position over the serial line.
pub struct Search {
    pub what: &'static str,
    pub fen: &'static str,
    pub movetime_ms: u64,
}

impl Workload for Search {
    fn name(&self) -> String {
        format!("{}, go movetime {}", self.what, self.movetime_ms)
    }

    fn run(&self, rig: &mut Rig) -> R<Stop> {
        rig.ok(&format!("fen {}", self.fen))?;
        let s = rig.go(&format!("movetime {}", self.movetime_ms), self.movetime_ms + 10_000)?;
        let l = s.last();
        rig.notes.push(if s.infos.is_empty() {
            format!("no iteration completed in {:.1} s (no info line), bestmove {}", s.seconds(), s.bestmove)
        } else {
            format!("depth {} seldepth {}, {} nodes in {:.1} s", l.depth, s.max_seldepth(), l.nodes, s.seconds())
        });
        Ok(Stop::CycleLimit)
    }
}

/// The deepest searches: 3 minutes (Level 6's time per move) on the engine
/// benchmark positions with the longest lines (seldepth at depth 3 in
/// `cargo xtask bench engine`).
pub fn deep_searches() -> Vec<Search> {
    const MS: u64 = 180_000;
    vec![
        Search { what: "deep search: Kiwipete", fen: "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", movetime_ms: MS },
        Search { what: "deep search: QGD Orthodox", fen: "rnbq1rk1/ppp1bppp/4pn2/3p2B1/2PP4/2N1PN2/PP3PPP/R2QKB1R b KQ - 0 1", movetime_ms: MS },
        Search { what: "deep search: Bratko-Kopec 09", fen: "2kr1bnr/pbpq4/2n1pp2/3p3p/3P1P1B/2N2N1Q/PPP3PP/2KR1B1R w - - 0 1", movetime_ms: MS },
    ]
}

/// Quiescence explosions: the Win at Chess positions with the longest
/// quiescence lines (seldepth 13-16 at depth 2: `cargo xtask bench engine
/// --depth 2 --epd wac.epd`), and a made-up capture storm.
pub fn quiescence_searches() -> Vec<Search> {
    const MS: u64 = 20_000;
    vec![
        Search { what: "quiescence: WAC.050", fen: "k4r2/1R4pb/1pQp1n1p/3P4/5p1P/3P2P1/r1q1R2K/8 w - - 0 1", movetime_ms: MS },
        Search { what: "quiescence: WAC.070", fen: "2kr3r/pppq1ppp/3p1n2/bQ2p3/1n1PP3/1PN1BN1P/1PP2PP1/2KR3R b - - 0 1", movetime_ms: MS },
        Search { what: "quiescence: WAC.059", fen: "r1b2rk1/2p1qnbp/p1pp2p1/5p2/2PQP3/1PN2N1P/PB3PP1/3R1RK1 w - - 0 1", movetime_ms: MS },
        Search { what: "quiescence: WAC.044", fen: "3rb1k1/pq3pbp/4n1p1/3p4/2N5/2P2QB1/PP3PPP/1B1R2K1 b - - 0 1", movetime_ms: MS },
        // Every piece attacked, pawns one step from queening on both sides.
        Search { what: "quiescence: capture storm", fen: "r1b1k2r/1P1n1pPp/2n1p3/q1bpN1B1/1Q1Pn3/2N1Pb2/Pp3PpP/R3KB1R w KQkq - 0 1", movetime_ms: MS },
    ]
}

/// A game over the serial line as a UCI host drives it, with pondering.
pub struct SerialGame {
    pub plies: usize,
}

impl Workload for SerialGame {
    fn name(&self) -> String {
        format!("serial game, {} plies + ponder", self.plies)
    }

    fn run(&self, rig: &mut Rig) -> R<Stop> {
        rig.ok("new")?;
        let mut played: Vec<String> = Vec::new();
        let (mut wtime, mut btime) = (60_000u64, 60_000u64);
        for ply in 0..self.plies {
            // The host resends the game as a UCI GUI does: from `new`, all moves.
            rig.ok("new")?;
            if !played.is_empty() {
                rig.ok(&format!("moves {}", played.join(" ")))?;
            }
            let s = rig.go(&format!("wtime {wtime} btime {btime} winc 1000 binc 1000"), 70_000)?;
            let used = s.cycles() / (crate::rig::CLOCK_HZ as u64 / 1000);
            if ply % 2 == 0 {
                wtime = (wtime + 1000).saturating_sub(used).max(1000);
            } else {
                btime = (btime + 1000).saturating_sub(used).max(1000);
            }
            if s.bestmove == "0000" || s.bestmove.is_empty() {
                break;
            }
            played.push(s.bestmove.clone());
        }
        for q in ["fen?", "status?", "perft 3"] {
            let a = rig.ask(q)?;
            if a.starts_with("error") {
                return Err(format!("`{q}` was answered `{a}`"));
            }
        }
        // Errors change nothing.
        for bad in ["moves e2e5", "fen 8/8/8/8 w - - 0 1", "hello", "go depth x"] {
            let a = rig.ask(bad)?;
            if !a.starts_with("error") {
                return Err(format!("`{bad}` was answered `{a}`, not an error"));
            }
        }
        // Pondering: the guessed move played, `ponderhit` after a while...
        let search = rig.start_go("go ponder wtime 20000 btime 20000");
        rig.run_ms(3000)?;
        rig.link.send_line("ponderhit");
        rig.finish_go(search, "go ponder", 30_000)?;
        // ... and a ponder that missed: `stop`. A busy line in between.
        let search = rig.start_go("go ponder movetime 5000");
        rig.run_ms(2000)?;
        rig.link.send_line("fen?");
        rig.link.send_line("ping");
        rig.run_ms(500)?;
        rig.link.send_line("stop");
        rig.finish_go(search, "go ponder", 10_000)?;
        if !rig.heard.iter().any(|l| l == "error busy") {
            return Err(format!("`fen?` during a search was not answered `error busy`; heard {:?}", rig.heard));
        }
        // The built-in benchmark (four positions) at a small depth.
        rig.link.send_line("bench 2");
        let end_ms = 120_000;
        let mut waited = 0;
        loop {
            rig.run_ms(500)?;
            waited += 500;
            if rig.heard.iter().any(|l| l.starts_with("bench nodes")) {
                break;
            }
            if waited > end_ms {
                return Err("`bench 2` gave no result within 120 s".into());
            }
        }
        Ok(Stop::CycleLimit)
    }
}

/// Presses `key` until LCD row `row` satisfies `ok` (at most `max` times).
fn press_until(rig: &mut Rig, key: &str, max: usize, row: usize, ok: impl Fn(&str) -> bool) -> R {
    for _ in 0..=max {
        if ok(&rig.lcd()[row]) {
            return Ok(());
        }
        rig.keys(key)?;
    }
    Err(format!("pressing {key} {max} times never got the LCD there; it shows {:?}", rig.lcd()))
}

/// The menu must show `item` (row 0 `>Item ...`).
fn expect_menu(rig: &Rig, item: &str) -> R {
    let row = rig.lcd()[0].clone();
    if row.starts_with(&format!(">{item}")) {
        Ok(())
    } else {
        Err(format!("expected the menu on {item}, the LCD shows {:?}", rig.lcd()))
    }
}

/// From the game screen: the menu on Level, Level 0 (2 s per move) set;
/// ends in the menu on Level.
fn set_level_0(rig: &mut Rig) -> R {
    rig.keys("M D D")?;
    expect_menu(rig, "Level")?;
    rig.keys("E")?;
    press_until(rig, "D", 12, 1, |r| r.starts_with("2 s per move"))?;
    rig.keys("E")?;
    expect_menu(rig, "Level")
}

/// A game on the buttons at Level 0 with Guess on: the computer moves and
/// ponders, MENU interrupts the ponder, a hint, takebacks.
pub struct KeypadGame;

impl Workload for KeypadGame {
    fn name(&self) -> String {
        "keypad game: ponder, hint, back".into()
    }

    fn run(&self, rig: &mut Rig) -> R<Stop> {
        // Out of the book: the Giuoco Pianissimo, White to move. The serial
        // `fen` makes it a two-player game; Swap gives White to the computer.
        rig.ok("fen r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQ1RK1 w - - 0 7")?;
        rig.run_ms(300)?;
        set_level_0(rig)?;
        rig.keys("D")?;
        expect_menu(rig, "Guess")?;
        let before = rig.lcd()[1].clone();
        rig.keys("E")?;
        if rig.lcd()[1] == before {
            return Err(format!("Guess did not toggle; the LCD shows {:?}", rig.lcd()));
        }
        rig.keys("D D")?;
        expect_menu(rig, "Swap")?;
        rig.keys("E")?;
        // The computer thinks (2 s), moves, and ponders on Black's reply.
        rig.run_ms(5000)?;
        let moved = rig.lcd()[0].trim_end().to_string();
        if !moved.starts_with("7.") {
            return Err(format!("the computer did not move after Swap; the LCD shows {:?}", rig.lcd()));
        }
        rig.notes.push(format!("computer played {moved:?}"));
        // MENU while pondering: the ponder stops, the menu opens on Move.
        rig.keys("M")?;
        rig.run_ms(300)?;
        expect_menu(rig, "Move")?;
        // A hint for Black (the user).
        rig.keys("D")?;
        expect_menu(rig, "Hint")?;
        rig.keys("E")?;
        rig.run_ms(3500)?;
        rig.notes.push(format!("hint {:?}", rig.lcd()[0].trim_end()));
        // Take back the computer's move: it is to move again, thinks, moves, ponders.
        rig.keys("M D D D D")?;
        expect_menu(rig, "Back")?;
        rig.keys("E")?;
        rig.keys("M")?;
        rig.run_ms(5000)?;
        rig.keys("M")?;
        rig.run_ms(300)?;
        expect_menu(rig, "Move")?;
        // Guess off again, back to the game (the computer's move stays).
        rig.keys("D D D")?;
        expect_menu(rig, "Guess")?;
        rig.keys("E M")?;
        rig.run_ms(500)?;
        Ok(Stop::CycleLimit)
    }
}

/// Every menu entry and back, from a new game.
pub struct MenuWalk;

impl Workload for MenuWalk {
    fn name(&self) -> String {
        "menu: every screen".into()
    }

    fn run(&self, rig: &mut Rig) -> R<Stop> {
        rig.ok("new")?;
        rig.run_ms(300)?;
        // Move: back to the game.
        rig.keys("M")?;
        expect_menu(rig, "Move")?;
        rig.keys("E")?;
        // Hint (White, the user, to move).
        rig.keys("M D")?;
        expect_menu(rig, "Hint")?;
        rig.keys("E")?;
        rig.run_ms(3500)?;
        // Level: every level, the tournament editor, back to Level 0.
        set_level_0(rig)?;
        rig.keys("E")?;
        press_until(rig, "U", 12, 0, |r| r.starts_with("Level T"))?;
        rig.keys("E")?;
        rig.keys("U E U E D")?;
        rig.keys("M M M")?;
        press_until(rig, "D", 12, 1, |r| r.starts_with("2 s per move"))?;
        rig.keys("E")?;
        expect_menu(rig, "Level")?;
        // Guess: on and off.
        rig.keys("D")?;
        expect_menu(rig, "Guess")?;
        rig.keys("E E")?;
        // Back: nothing to take back in a new game.
        rig.keys("D")?;
        expect_menu(rig, "Back")?;
        rig.keys("E")?;
        // Swap is played in the keypad game; look at it only.
        rig.keys("D")?;
        expect_menu(rig, "Swap")?;
        // Verify: scroll down and up.
        rig.keys("D")?;
        expect_menu(rig, "Verify")?;
        rig.keys("E D D D U E")?;
        expect_menu(rig, "Verify")?;
        // Analyze: the square editor, clear, side, done (refused), cancel.
        rig.keys("D")?;
        expect_menu(rig, "Analyze")?;
        rig.keys("E")?;
        rig.keys("E U E U E U E M")?;
        rig.keys("D E D E D E D E")?;
        expect_menu(rig, "Analyze")?;
        // Save, Load.
        rig.keys("D")?;
        expect_menu(rig, "Save")?;
        rig.keys("E")?;
        rig.run_ms(300)?;
        rig.keys("D")?;
        expect_menu(rig, "Load")?;
        rig.keys("E")?;
        rig.run_ms(300)?;
        // A loaded game returns to the game screen with a message: MENU
        // dismisses it, MENU again opens the menu (on Move); UP twice wraps to New.
        press_until(rig, "M", 3, 0, |r| r.starts_with('>'))?;
        expect_menu(rig, "Move")?;
        rig.keys("U U")?;
        // New: asked, declined.
        expect_menu(rig, "New")?;
        rig.keys("E M")?;
        expect_menu(rig, "New")?;
        // About: all pages.
        rig.keys("D")?;
        expect_menu(rig, "About")?;
        rig.keys("E D D D M")?;
        expect_menu(rig, "About")?;
        // Wrap to Move, back to the game.
        rig.keys("D")?;
        expect_menu(rig, "Move")?;
        rig.keys("M")?;
        rig.run_ms(300)?;
        Ok(Stop::CycleLimit)
    }
}

/// The steps `cargo xtask ram` measures, in order.
pub fn all() -> Vec<Box<dyn Workload>> {
    let mut v: Vec<Box<dyn Workload>> = vec![Box::new(BootSplash)];
    for s in deep_searches() {
        v.push(Box::new(s));
    }
    for s in quiescence_searches() {
        v.push(Box::new(s));
    }
    v.push(Box::new(SerialGame { plies: 12 }));
    v.push(Box::new(KeypadGame));
    v.push(Box::new(MenuWalk));
    v
}
